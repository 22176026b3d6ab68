# Independent checks of the analysis passes against /usr/bin/python3 computations made
# straight from the raw Kineto JSON (never from tracedoc's output):
#  - kernel calls and total time per name (hta_nccl_data);
#  - the GPU timeline of formats.md sec.5, per device and for all devices (hta_nccl_data,
#    hta_ns_resolution_rank0), whole-trace scope, and the steady scope after --warmup 1;
#  - collective counts per (type, message bytes) (hta_nccl_data).
# A comparison with a CSV byte-identical to one already compared in this run (the release
# build's) is not recomputed (tests/lib.sh checked).
. "$ROOT/tests/lib.sh"
need_traces
K=$TRACES/kineto
cat >"$WORK/ref.py" <<'PYEOF'
import collections, csv, gzip, json, sys
from decimal import Decimal, ROUND_HALF_UP

def ns(v):
    return int((Decimal(v) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))

def load(path):
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
        d = json.load(f, parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d

DEV = {"kernel": "K", "gpu_memcpy": "C", "gpu_memset": "S", "mtia_ccp_events": "K", "memcpy": "C", "memset": "S"}

def device_events(evs):
    out = []
    for e in evs:
        c = DEV.get(str(e.get("cat", "")).lower())
        if e.get("ph") != "X" or c is None:
            continue
        a = e.get("args") or {}
        dev = a.get("device", e.get("pid"))
        ts, dur = ns(e["ts"]), max(ns(e.get("dur", 0)), 0)
        name = e["name"]
        comm = c == "K" and ("nccl" in name.lower() or "rccl" in name.lower() or "Collective name" in a)
        out.append((int(dev), "M" if comm else ("P" if c == "C" else "X"), ts, ts + dur, name, a, dur))
    return out

def merge(iv):
    iv = sorted(x for x in iv if x[1] > x[0]); out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out

def length(m): return sum(e - s for s, e in m)

def inter(a, b):
    i = j = t = 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if e > s: t += e - s
        if a[i][1] < b[j][1]: i += 1
        else: j += 1
    return t

def timeline(evs):
    comp = merge([(s, e) for _, c, s, e, *_ in evs if c == "X"])
    comm = merge([(s, e) for _, c, s, e, *_ in evs if c == "M"])
    mc = merge([(s, e) for _, c, s, e, *_ in evs if c == "P"])
    cc = merge(comp + comm)
    allm = merge(cc + mc)
    total = allm[-1][1] - allm[0][0] if allm else 0
    busy = length(allm)
    return {"computation_ns": length(comp), "exposed_comm_ns": length(comm) - inter(comm, comp),
            "exposed_memcpy_ns": length(mc) - inter(mc, cc), "busy_ns": busy, "idle_ns": total - busy,
            "total_ns": total, "total_comm_ns": length(comm), "total_memcpy_ns": length(mc)}

mode, path, got = sys.argv[1], sys.argv[2], sys.argv[3]
evs = device_events(load(path))
rows = list(csv.DictReader(open(got)))
bad = 0
if mode == "kernels":
    ref = collections.defaultdict(lambda: [0, 0])
    for e in load(path):
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel":
            ref[e["name"]][0] += 1; ref[e["name"]][1] += max(ns(e.get("dur", 0)), 0)
    gotm = {r["name"]: (int(r["calls"]), int(r["total_ns"])) for r in rows}
    for name, (n, t) in ref.items():
        if gotm.get(name) != (n, t):
            print("kernel %s: got %s, expected %s" % (name[:60], gotm.get(name), (n, t))); bad += 1
    if len(gotm) != len(ref):
        print("kernel names: got %d, expected %d" % (len(gotm), len(ref))); bad += 1
elif mode == "timeline":
    exp = {}
    for d in sorted({x[0] for x in evs}):
        exp[str(d)] = timeline([x for x in evs if x[0] == d])
    exp["all"] = exp["-1"] = timeline(evs)
    seen = 0
    for r in rows:
        if r["scope"] != "trace":
            continue
        seen += 1
        for k, v in exp[r["device"]].items():
            if int(r[k]) != v:
                print("device %s %s: got %s, expected %d" % (r["device"], k, r[k], v)); bad += 1
    if seen != len(exp) - 1:
        print("timeline rows: got %d, expected %d" % (seen, len(exp) - 1)); bad += 1
elif mode == "steady":
    # --warmup 1: the window starts at the second ProfilerStep (host user_annotation)
    st = sorted(ns(e["ts"]) for e in load(path) if e.get("ph") == "X"
                and e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    w0 = st[1]
    evs = [(d, c, max(s, w0), e, *rest) for d, c, s, e, *rest in evs if e > w0]
    exp = timeline(evs)
    rs = [r for r in rows if r["scope"] == "steady" and r["device"] == "all"]
    if len(rs) != 1:
        print("steady rows: %d" % len(rs)); bad += 1
    for r in rs:
        for k, v in exp.items():
            if int(r[k]) != v:
                print("steady %s: got %s, expected %d" % (k, r[k], v)); bad += 1
elif mode == "coll":
    ref = collections.Counter()
    size = {"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8, "Int": 4, "Long": 8, "Byte": 1, "Char": 1}
    for d, c, s, e, name, a, dur in evs:
        if c != "M":
            continue
        typ = a.get("Collective name", "").replace("_", "").lower()
        if not typ:
            typ = name.split("Kernel_", 1)[1].split("_")[0].lower()
        ne = a.get("Out msg nelems") if typ == "allgather" else a.get("In msg nelems")
        b = int(ne) * size[a["dtype"]] if ne is not None and a.get("dtype") in size else ""
        ref[(typ, str(b))] += 1
    gotc = {(r["name"], r["bytes"]): int(r["calls"]) for r in rows}
    if gotc != dict(ref):
        print("collectives: got %s\nexpected %s" % (sorted(gotc.items()), sorted(ref.items()))); bad += 1
    print("%d collective rows, %d calls" % (len(ref), sum(ref.values())))
sys.exit(1 if bad else 0)
PYEOF
# every table of a trace from one run (report's CSV files are summary --table's:
# analyse_golden.sh)
run() {
    "$TD" report --warmup none --format csv -o "$WORK/$1" "$K/$1.json.gz" >/dev/null 2>&1 || die "report $1"
    for t in kernels gpu_timeline collectives; do
        [ ! -f "$WORK/$1/$t.csv" ] || mv "$WORK/$1/$t.csv" "$WORK/$1.$t.csv"
    done
}
run hta_nccl_data
run hta_ns_resolution_rank0
checked $PY "$WORK/ref.py" kernels "$K/hta_nccl_data.json.gz" "$WORK/hta_nccl_data.kernels.csv" || die "kernels"
for t in hta_nccl_data hta_ns_resolution_rank0; do
    checked $PY "$WORK/ref.py" timeline "$K/$t.json.gz" "$WORK/$t.gpu_timeline.csv" || die "timeline $t"
done
"$TD" summary --warmup 1 --format csv --table gpu_timeline "$K/hta_ns_resolution_rank0.json.gz" \
    >"$WORK/steady.csv" || die "summary --warmup 1"
checked $PY "$WORK/ref.py" steady "$K/hta_ns_resolution_rank0.json.gz" "$WORK/steady.csv" || die "steady timeline"
checked $PY "$WORK/ref.py" coll "$K/hta_nccl_data.json.gz" "$WORK/hta_nccl_data.collectives.csv" || die "collectives"
exit 0
