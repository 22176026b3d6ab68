# tracedoc export --format chrome: every input kind written as Chrome Trace Event JSON.
# Checks, per kind: the file is JSON (python json) and every event keeps the Chrome
# invariants (ph, numeric ts, dur >= 0 on X, integer pid/tid, names on M); the export
# read back by tracedoc's own Chrome reader gives the original's summary figures; and an
# independent Python computation from the raw input (sqlite3 / the JSON / the CSV / the
# JSON Lines) on a small slice agrees with the exported events. The Python checks of
# exports byte-identical to ones already checked in this run (the release build's) are
# not recomputed (tests/lib.sh checked).
. "$ROOT/tests/lib.sh"
need_traces
O="$WORK/out"
mkdir -p "$O"
NSYS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
KIN="$TRACES/kineto/hta_mi250_minitoy.json.gz"
AIU="$TRACES/aiu/allreduce_tp4.json"
JAX="$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip"
IPUD="$ROOT/examples/ipu/detailed.jsonl"
IPUL="$ROOT/examples/ipu/lwp.jsonl"
SAMBA="$ROOT/examples/sambanova/decoder"

for k in nsys:$NSYS kin:$KIN aiu:$AIU jax:$JAX ipud:$IPUD ipul:$IPUL samba:$SAMBA; do
    n=${k%%:*} f=${k#*:}
    "$TD" export "$f" --format chrome -o "$O/$n.json" 2>"$O/$n.err" || die "export $n failed: $(cat "$O/$n.err")"
    "$TD" summary "$f" --format json -o "$O/$n.orig.json" 2>/dev/null || die "summary $n"
    "$TD" summary "$O/$n.json" --format json -o "$O/$n.back.json" 2>"$O/$n.back.err" ||
        die "reading back $n: $(cat "$O/$n.back.err")"
done
# standard output is the default
"$TD" export "$NSYS" | cmp -s - "$O/nsys.json" || die "export to stdout differs from -o"

checked $PY - "$O" "$NSYS" "$AIU" "$JAX" "$IPUD" "$IPUL" "$SAMBA" <<'EOF' || exit 1
import collections, csv, io, json, lzma, math, sqlite3, sys, zipfile
O, NSYS, AIU, JAX, IPUD, IPUL, SAMBA = sys.argv[1:]
bad = []
def check(cond, msg):
    if not cond:
        bad.append(msg)
def load(n):
    return json.load(open(f"{O}/{n}.json", encoding="utf-8"))

# ---- JSON validity and per-event invariants, every kind
docs = {}
for n in ["nsys", "kin", "aiu", "jax", "ipud", "ipul", "samba"]:
    d = load(n)
    docs[n] = d
    ev = d["traceEvents"]
    check(len(ev) > 10, f"{n}: only {len(ev)} events")
    for e in ev:
        ph = e.get("ph")
        if ph not in ("X", "M", "i", "b", "e", "C", "s", "t", "f"):
            check(False, f"{n}: bad ph {ph!r}"); break
        if not (isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int)):
            check(False, f"{n}: pid/tid not integers: {e}"); break
        # JavaScript viewers (Perfetto's UI, speedscope, chrome://tracing) lose digits
        # beyond 2^53; Kineto's "Spans" pid is hashed to 64 bits by the reader
        if not all(-2**31 <= e[k] < 2**31 for k in ("pid", "tid")):
            check(False, f"{n}: pid/tid outside 32 bits: {e}"); break
        if ph == "M":
            if not isinstance(e.get("args", {}).get("name", e.get("args", {}).get("sort_index")), (str, int)):
                check(False, f"{n}: metadata without a name: {e}"); break
            continue
        if not isinstance(e.get("ts"), (int, float)) or not math.isfinite(e["ts"]):
            check(False, f"{n}: bad ts: {e}"); break
        if ph == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            check(False, f"{n}: X without dur >= 0: {e}"); break
    # slices of one row nest (the format's rule: Perfetto drops a slice that overlaps
    # another without nesting in it); times compared in ns (3 decimals of a us)
    rows = {}
    for e in ev:
        if e["ph"] == "X":
            t0 = round(e["ts"] * 1000)
            rows.setdefault((e["pid"], e["tid"]), []).append((t0, -(t0 + round(e["dur"] * 1000))))
    for k, v in rows.items():
        v.sort()
        open_ = []
        for t0, neg in v:
            while open_ and open_[-1] <= t0:
                open_.pop()
            if open_ and -neg > open_[-1]:
                check(False, f"{n}: row {k}: a slice at {t0} ns overlaps another without nesting"); break
            open_.append(-neg)
    # every pid has a process name, every (pid, tid) with events a thread name
    pn = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    tn = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
    for e in ev:
        if e["ph"] == "X" and e["pid"] != 0 and n != "samba":
            if e["pid"] not in pn or (e["pid"], e["tid"]) not in tn:
                check(False, f"{n}: unnamed process/thread {e['pid']}/{e['tid']}"); break

# ---- round trip through tracedoc's own Chrome reader: the same summary
def summ(n, kind):
    return json.load(open(f"{O}/{n}.{kind}.json"))
for n in ["nsys", "kin", "samba"]:
    a, b = summ(n, "orig"), summ(n, "back")
    for k in a:
        if k in ("inputs", "inputs_label", "date", "warnings"):
            continue
        if k == "labels":   # read back, an nsys export also has a module;kernel flamegraph
            a[k].pop("flames", None), b[k].pop("flames", None)
        check(a[k] == b.get(k), f"{n}: read back, {k} differs:\n {json.dumps(a[k])[:300]}\n {json.dumps(b.get(k))[:300]}")
b = summ("nsys", "back")
check(b["kernels"][0]["calls"] == 5 and b["kernels"][0]["total_ns"] == 88573480,
      f"nsys: kernels read back {b['kernels'][:1]}")
# AIU: the device lanes' kernels read back per device = aiu_kernels of the original
a, b = summ("aiu", "orig"), summ("aiu", "back")
ta, tb = collections.Counter(), collections.Counter()
for r in a["aiu_kernels"]:
    ta[(r["device"], "calls")] += r["calls"]; ta[(r["device"], "ns")] += r["total_ns"]
for r in b["kernels_by_device"]:
    tb[(r["device"], "calls")] += r["calls"]; tb[(r["device"], "ns")] += r["total_ns"]
check(ta == tb and len(ta) == 8, f"aiu: kernels per device {dict(ta)} vs read back {dict(tb)}")
# every read-back input counts the events written (metadata too; a b/e pair is one)
for n in ["nsys", "kin", "aiu", "jax", "ipud", "ipul"]:
    ev = docs[n]["traceEvents"]
    want = len(ev) - sum(1 for e in ev if e["ph"] == "e")
    got = summ(n, "back")["inputs"][0]["events"]
    check(got == want, f"{n}: {want} events written, {got} read back")

# ---- independent computations from the raw inputs
# nsys: kernels from the SQLite file (count and summed end - start per name)
db = sqlite3.connect(NSYS)
raw = collections.Counter()
for name, cnt, tot in db.execute(
        "SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"):
    raw[(name, "n")] = cnt; raw[(name, "ns")] = tot
ex = collections.Counter()
for e in docs["nsys"]["traceEvents"]:
    if e["ph"] == "X" and e["cat"] == "kernel":
        ex[(e["name"], "n")] += 1
        ex[(e["name"], "ns")] += round(e["dur"] * 1000)
check(raw == ex and raw, f"nsys kernels: sqlite {dict(raw)} vs export {dict(ex)}")
mem = db.execute("SELECT COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY").fetchone()
em = [round(e["dur"] * 1000) for e in docs["nsys"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "gpu_memcpy"]
check((len(em), sum(em)) == mem, f"nsys memcpy: sqlite {mem} vs export {(len(em), sum(em))}")
t0 = db.execute("SELECT MIN(start) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
base = docs["nsys"].get("baseTimeNanoseconds", 0)
sess = db.execute("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME").fetchone()
k0 = min(e["ts"] for e in docs["nsys"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel")
check(round(k0 * 1000) + base == t0 + (sess[0] if sess else 0),
      f"nsys: first kernel at {k0} us + base {base} != sqlite {t0} + session start")
# AIU: Cmpt Exec pairs per pid in the raw file, and their TS counters
rawj = json.load(open(AIU))
pairs = collections.Counter(e["pid"] for e in rawj if e["ph"] == "B" and e["name"].endswith("Cmpt Exec"))
exk = collections.Counter(e["args"]["device"] for e in docs["aiu"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel")
check(pairs == exk, f"aiu: Cmpt Exec pairs {dict(pairs)} vs exported kernels {dict(exk)}")
ts3 = sorted(int(str(e["attr"]["TS3"]), 0) % 2**32 for e in rawj if e["ph"] == "B" and e["name"].endswith("Cmpt Exec"))
ex3 = sorted(e["args"]["TS3"] % 2**32 for e in docs["aiu"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel")
check(ts3 == ex3 and len(ts3) == 7, f"aiu: TS3 counters differ {ts3} {ex3}")
# nsys-jax: the CPU push/pop ranges of the archive's CSV
z = zipfile.ZipFile(JAX)
rows = list(csv.DictReader(io.StringIO(lzma.decompress(z.read("report_nvtx_pushpop_trace.csv.xz")).decode())))
cpu = [e for e in docs["jax"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "nvtx"]
check(len(cpu) == len(rows) and sum(round(e["dur"] * 1000) for e in cpu) == sum(int(r["Duration (ns)"]) for r in rows),
      f"nsys-jax: {len(cpu)} CPU ranges exported, {len(rows)} in the CSV")
proj = [e for e in docs["jax"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "nvtx_gpu_projection"]
check(len(proj) == summ("jax", "orig")["inputs"][0]["events"] - len(rows), "nsys-jax: projected ranges")
# IPU detailed: cycles per (IPU, category) from the JSON Lines, = the exported args
# and = the original summary's ipu_step_types
catof = {"Sync": "Internal Sync", "SyncAns": "Internal Sync", "ExternalSync": "External Sync",
         "StreamCopyBegin": "StreamCopy", "StreamCopyMid": "StreamCopy", "StreamCopyEnd": "StreamCopy"}
rawc = collections.Counter()
for line in open(IPUD):
    r = json.loads(line)
    if r["type"] == "step":
        for e in r["ipus"]:
            rawc[(e["ipu"], catof.get(r["program"]["type"], r["program"]["type"]))] += e["cycles"]
exc = collections.Counter()
for e in docs["ipud"]["traceEvents"]:
    if e["ph"] == "X" and e["cat"] == "ipu_step":
        exc[(e["args"]["ipu"], catof.get(e["args"]["type"], e["args"]["type"]))] += e["args"]["cycles"]
sumc = collections.Counter({(r["ipu"], r["type"]): r["cycles"] for r in summ("ipud", "orig")["ipu_step_types"]
                            if r["ipu"] != "all" and r["cycles"]})
check(rawc == exc == sumc, f"ipu: cycles raw {dict(rawc)}\n export {dict(exc)}\n summary {dict(sumc)}")
# the step's time is its cycles at the clock (1.33 GHz), within a rounding ns
for e in docs["ipud"]["traceEvents"]:
    if e["ph"] == "X" and e["cat"] == "ipu_step":
        if abs(e["dur"] * 1000 - e["args"]["cycles"] / 1.33) > 1.0:
            check(False, f"ipu: {e['name']} dur {e['dur']} for {e['args']['cycles']} cycles"); break
# IPU LWP: blocks after the overflow rules, counted as the summary counts them
s = summ("ipul", "orig")
blocks = [e for e in docs["ipul"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "lwp_block"]
kinds = collections.Counter(e["args"]["kind"] for e in blocks)
sc = {r["kind"] for r in s["lwp_blocks"]}
check(len(blocks) == s["lwp"]["blocks"] and kinds["NoEnd"] == s["lwp"]["no_end"] and
      kinds["Unknown"] == s["lwp"]["unknown"] and "BufferFlush" not in kinds,
      f"lwp: exported {len(blocks)} blocks {dict(kinds)}, summary {s['lwp']}")
rawb = sum(1 for line in open(IPUL) if json.loads(line)["type"] == "block")
check(len(blocks) + s["lwp"]["not_recorded"] + s["lwp"]["flushes_hidden"] == rawb,
      f"lwp: {len(blocks)} exported + dropped + flushes != {rawb} blocks in the file")
# SambaTune: one slice per section call on the model row (the schedule CSV)
import glob, os
sched = None
for p in sorted(glob.glob(os.path.join(SAMBA, "*.csv"))):
    with open(p) as fh:
        rd = [r for r in csv.reader(l for l in fh if not l.startswith("#"))]
    if rd and "call" in rd[0] and "global_id" in rd[0]:
        sched = len(rd) - 1
model = [e for e in docs["samba"]["traceEvents"] if e["ph"] == "X" and e["cat"] == "model"]
check(sched and len(model) == sched, f"samba: {len(model)} model slices, schedule has {sched}")
if bad:
    print("\n".join(bad[:20]))
    sys.exit(1)
EOF

# times keep their nanoseconds: a wall-clock Kineto trace is rebased on whole seconds
checked $PY - "$O/kin.json" <<'EOF' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
ts = [e["ts"] for e in d["traceEvents"] if e["ph"] == "X"]
assert d.get("baseTimeNanoseconds", 0) % 1000000000 == 0
assert max(ts) < 2**53 / 1000, max(ts)
EOF

# several inputs in one file (the 8 ranks of one job): each keeps its own pids, named by
# rank, and the kernels read back are the job's (every rank's kernels by name)
"$TD" export "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -o "$O/eight.json" 2>/dev/null || die "export of 8 ranks"
"$TD" summary "$TRACES/kineto/param_dlrm_8ranks.tar.gz" --format json -o "$O/eight.orig.json" 2>/dev/null || die "summary of 8 ranks"
"$TD" summary "$O/eight.json" --format json -o "$O/eight.back.json" 2>/dev/null || die "reading back 8 ranks"
checked $PY - "$O/eight.json" "$O/eight.orig.json" "$O/eight.back.json" "$TRACES/kineto/param_dlrm_8ranks.tar.gz" <<'EOF2' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
names = [e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"]
for r in range(8):
    assert any(n.startswith(f"rank {r}: ") for n in names), (r, names[:20])
assert len(d["otherData"]["inputs"]) == 8
pids = {}
for e in d["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "process_name":
        assert e["pid"] not in pids, f"pid {e['pid']} named twice"
        pids[e["pid"]] = e["args"]["name"]
# flow ids are global: every arrow (s -> f) stays within one rank, and each rank keeps
# all of its arrows (as many flow events as its trace has)
rank_of = {p: n.split(":")[0] for p, n in pids.items()}
ends, per_rank = {}, {}
for e in d["traceEvents"]:
    if e["ph"] in ("s", "t", "f"):
        ends.setdefault((e["cat"], e["id"]), set()).add(rank_of[e["pid"]])
        per_rank[rank_of[e["pid"]]] = per_rank.get(rank_of[e["pid"]], 0) + 1
crossing = [k for k, v in ends.items() if len(v) > 1]
assert not crossing, ("flow ids shared by ranks", crossing[:5])
import tarfile
want = {}
with tarfile.open(sys.argv[4]) as tf:
    for m in tf.getmembers():
        if m.isfile() and m.name.endswith(".json"):
            j = json.load(tf.extractfile(m))
            want["rank %d" % j["distributedInfo"]["rank"]] = sum(
                1 for e in j["traceEvents"] if e.get("ph") in ("s", "t", "f"))
assert per_rank == want, (per_rank, want)
a = {(k["name"], k["calls"], k["total_ns"]) for k in json.load(open(sys.argv[2]))["kernels"]}
b = {(k["name"], k["calls"], k["total_ns"]) for k in json.load(open(sys.argv[3]))["kernels"]}
assert a == b and a, (sorted(a)[:3], sorted(b)[:3])
EOF2

# bad input: exit 3 naming the file, and no output (an earlier file is kept as it was)
echo '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1},' >"$WORK/trunc.json"
printf '{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":4,"clockFrequency":1e9}}\n{"type":"step", bad\n' >"$WORK/bad.jsonl"
echo keep >"$O/kept.json"
expect_exit 3 "$TD" export "$WORK/bad.jsonl" -o "$O/kept.json" 2>"$O/bad.err" || exit 1
grep -q "bad.jsonl: line 2" "$O/bad.err" || die "no file and line in: $(cat "$O/bad.err")"
[ "$(cat "$O/kept.json")" = keep ] || die "output replaced after a bad input"
expect_exit 3 "$TD" export "$WORK/missing.json" -o "$O/new.json" 2>/dev/null || exit 1
[ ! -e "$O/new.json" ] || die "output written for a missing input"
ls "$O" | grep -q '\.tmp' && die "temporary file left: $(ls "$O")"
expect_exit 2 "$TD" export "$NSYS" --format pdf -o "$O/x.json" 2>/dev/null || exit 1
expect_exit 2 "$TD" export "$NSYS" --warmup none 2>/dev/null || exit 1
expect_exit 4 "$TD" export "$NSYS" -o "$O" 2>/dev/null || exit 1
expect_exit 4 "$TD" export "$NSYS" -o /dev/full 2>/dev/null || exit 1
exit 0
