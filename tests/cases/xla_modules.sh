# XLA semantics on the four pax nsys-jax archives, checked against an independent
# python computation that follows formats.md sec. 4 / nsys-jax's definitions:
# it works from the reader's dumped projected ranges (python has no Parquet reader) and
# from the raw push/pop CSV (read here with zipfile + lzma), and never reuses tracedoc's
# numbers. Checks: modules table, module cut, warm-up, runtime totals, hlo_ops,
# collectives (message size, group size and element type from the archive's HLO dumps
# decoded here with a minimal protobuf reader; calls, time, hidden, algbw/busbw,
# straggler wait after clock alignment), compile total.
. "$ROOT/tests/lib.sh"
need_traces
T=$(dirname "$TD")/tests/test_xla
[ -x "$T" ] || { echo "test_xla helper not built"; exit 77; }
Z=$TRACES/nsys-jax
for i in 0 1 2 3; do
    "$T" dump "$Z/pax_fsdp4_4proc_proc$i.zip" >"$WORK/dump$i.tsv" || die "dump $i"
done
"$T" json "$Z"/pax_fsdp4_4proc_proc{0,1,2,3}.zip >"$WORK/all.json" || die "json all"
"$T" json "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/p0.json" || die "json p0"
"$T" json -w0 "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/p0none.json" || die "json p0 none"
$PY - "$WORK" "$Z" <<'EOF' || exit 1
import csv, io, json, lzma, math, re, statistics, sys, zipfile
work, zdir = sys.argv[1], sys.argv[2]
COMM = ("all-reduce-start", "all-gather-start", "reduce-scatter", "all-to-all",
        "collective-permute-start", "collective-broadcast")
TYPE = {"all-reduce-start": "allreduce", "all-gather-start": "allgather",
        "reduce-scatter": "reducescatter", "all-to-all": "alltoall",
        "collective-permute-start": "sendrecv", "collective-broadcast": "broadcast"}
def kind(op):
    while re.search(r"\.\d+$", op): op = re.sub(r"\.\d+$", "", op)
    return op
def comm_of(k):
    for c in COMM:
        if k.startswith(c) and "-done" not in k: return TYPE[c]
    return None

# --- a minimal protobuf reader for the HloProto dumps (field numbers from the
# archive's protos/xla/service/hlo.proto and xla_data.proto) ---
def pb(b):
    i, n = 0, len(b)
    def var():
        nonlocal i
        v = sh = 0
        while True:
            c = b[i]; i += 1; v |= (c & 0x7F) << sh; sh += 7
            if c < 0x80: return v
    while i < n:
        k = var(); f, wt = k >> 3, k & 7
        if wt == 0: yield f, wt, var()
        elif wt == 2:
            l = var(); yield f, wt, b[i:i + l]; i += l
        elif wt == 1: i += 8
        elif wt == 5: i += 4
        else: raise ValueError(wt)
def ints(wt, v):
    if wt == 0: return [v]
    out, j = [], 0
    while j < len(v):
        x = sh = 0
        while True:
            c = v[j]; j += 1; x |= (c & 0x7F) << sh; sh += 7
            if c < 0x80: break
        out.append(x)
    return out
BITS = {1: 8, 2: 8, 3: 16, 4: 32, 5: 64, 6: 8, 7: 16, 8: 32, 9: 64, 10: 16, 11: 32, 12: 64, 16: 16, 15: 64, 18: 128}
ENAME = {1: "pred", 4: "s32", 5: "s64", 8: "u32", 10: "f16", 11: "f32", 12: "f64", 16: "bf16"}
def shape(b):
    et, dims, tup = 0, [], []
    for f, wt, v in pb(b):
        if f == 2: et = v
        elif f == 3: dims += ints(wt, v)
        elif f == 4: tup.append(shape(v))
    if et == 13: return sum(t[0] for t in tup), et
    n = 1
    for d in dims: n *= d
    return n * BITS[et] // 8, et
OPS = {"all-gather-start": "allgather", "all-gather": "allgather", "all-reduce-start": "allreduce",
       "all-reduce": "allreduce", "reduce-scatter": "reducescatter", "all-to-all": "alltoall",
       "collective-permute-start": "sendrecv", "collective-permute": "sendrecv"}
def hlo_info(i, prog):
    z = zipfile.ZipFile(f"{zdir}/pax_fsdp4_4proc_proc{i}.zip")
    name = [n for n in z.namelist() if n.startswith(f"dump/module_{prog:04d}.") and n.endswith("_gpu_after_optimizations.hlo.pb.xz")]
    if not name: return {}
    data = lzma.decompress(z.read(name[0]))
    insts = {}
    for f, wt, mod in pb(data):
        if f != 1: continue
        for f2, wt2, comp in pb(mod):
            if f2 != 3: continue
            for f3, wt3, ins in pb(comp):
                if f3 != 2: continue
                d = dict(ops=[], groups=[])
                for f4, wt4, v in pb(ins):
                    if f4 == 1: d["name"] = v.decode()
                    elif f4 == 2: d["op"] = v.decode()
                    elif f4 == 3: d["bytes"], d["et"] = shape(v)
                    elif f4 == 35: d["id"] = v
                    elif f4 == 36: d["ops"] += ints(wt4, v)
                    elif f4 == 49: d["groups"].append(sum(len(ints(w, x)) for ff, w, x in pb(v) if ff == 1))
                insts[d["id"]] = d
    out = {}
    for d in insts.values():
        t = OPS.get(d["op"])
        if not t: continue
        g = 2 if t == "sendrecv" else (d["groups"][0] if d["groups"] else 0)
        assert len(set(d["groups"])) <= 1
        b = sum(insts[o]["bytes"] for o in d["ops"])
        if t == "allgather": b *= g
        ets = {insts[o]["et"] for o in d["ops"]}
        out[d["name"]] = (t, b, g, ENAME[ets.pop()] if len(ets) == 1 else "mixed")
    return out

def compiled_ids(i):
    z = zipfile.ZipFile(f"{zdir}/pax_fsdp4_4proc_proc{i}.zip")
    rows = list(csv.DictReader(io.TextIOWrapper(lzma.open(z.open("report_nvtx_pushpop_trace.csv.xz")), newline="")))
    ids = set()
    tot = 0
    for r in rows:
        m = re.match(r"^TSL:XlaCompileBackend:#module=(.*?),program_id=(\d+)#$", r["Name"])
        if m: ids.add(int(m.group(2)))
        if r["Name"].startswith("TSL:XlaCompile:#module="): tot += int(r["Duration (ns)"])
    return ids, tot

def load(i):
    rows = list(csv.DictReader(open(f"{work}/dump{i}.tsv"), delimiter="\t"))
    by = {int(r["range_id"]): r for r in rows}
    mods = {k for k, r in by.items() if r["name"].startswith("TSL:XlaModule:")}
    ths = {k for k, r in by.items() if r["name"].startswith("TSL:Thunk:#")}
    first = min(int(by[k]["proj_start"]) for k in mods)
    ths = {k for k in ths if int(by[k]["proj_start"]) >= first}
    modof, parents = {}, set()
    for k in ths:
        p = int(by[k]["parent_id"])
        while p in by and by[p]["name"].startswith("TSL:Thunk:#"):
            parents.add(p); p = int(by[p]["parent_id"])
        modof[k] = p
    ths -= parents
    mids = sorted({modof[k] for k in ths})
    # last execution cut short by the end of the profile
    for name in {by[m]["name"] for m in mids}:
        same = [m for m in mids if by[m]["name"] == name]
        ops = [int(by[m]["num_gpu_ops"]) for m in same]
        if len(ops) > 1 and ops[-1] < statistics.fmean(ops[:-1]) - statistics.pstdev(ops[:-1]):
            mids.remove(same[-1]); ths = {k for k in ths if modof[k] != same[-1]}
    execs, out, nth = {}, [], {}
    for k in ths: nth[modof[k]] = nth.get(modof[k], 0) + 1
    for m in mids:
        r = by[m]
        g = re.match(r"^TSL:XlaModule:#(?:prefix=(.*?),|)hlo_module=([a-z0-9._-]+)(?:,program_id=(\d+)|)#$", r["name"])
        pid = int(g.group(3)) if g.group(3) else -1
        key = (r["tid"], pid)
        e = execs.get(key, 0); execs[key] = e + 1
        out.append(dict(rid=m, name=g.group(2), pid=pid, exec=e, dev=i,
                        s=int(r["proj_start"]), d=int(r["proj_dur"]),
                        nth=nth[m]))
    mrec = {o["rid"]: o for o in out}
    thunks = []
    for k in sorted(ths):
        r = by[k]; mo = mrec[modof[k]]
        op = re.match(r"^TSL:Thunk:#(?:name=.*?,|)hlo_op=([a-z0-9._-]+)#$", r["name"]).group(1)
        thunks.append(dict(mod=mo, op=op, kind=kind(op), s=int(r["proj_start"]),
                           e=int(r["proj_start"]) + int(r["proj_dur"])))
    hinfo = {}
    for t in thunks:
        if comm_of(t["kind"]):
            p = t["mod"]["pid"]
            if p not in hinfo: hinfo[p] = hlo_info(i, p)
            t["key"] = hinfo[p][t["op"]]
    return out, thunks

CACHE = {}
def load_cached(i):
    if i not in CACHE: CACHE[i] = (load(i), compiled_ids(i))
    import copy
    return copy.deepcopy(CACHE[i])

def analyse(procs, warm):
    mods, ths, seen, ctot = [], [], set(), 0
    for i in procs:
        (m, t), (ids, tot) = load_cached(i); mods += m; ths += t
        seen |= ids; ctot += tot
    mods = [m for m in mods if m["pid"] >= 0]
    ths = [t for t in ths if t["mod"]["pid"] >= 0]
    anycomm = any(comm_of(t["kind"]) for t in ths)
    for m in mods:
        if warm == "auto": m["steady"] = m["pid"] not in seen or m["exec"] > (1 if anycomm else 0)
        else: m["steady"] = m["exec"] >= warm
    dropped = sum(1 for m in mods if not m["steady"])
    st = [m for m in mods if m["steady"]]
    prog = {}
    for m in st: prog.setdefault(m["pid"], []).append(m)
    rows = []
    for pid, ms in prog.items():
        d = [m["d"] for m in ms]; n = [m["nth"] for m in ms]
        rows.append(dict(name=ms[0]["name"], program_id=pid, executions=len(ms),
                         thunks_mean=statistics.fmean(n), mean=statistics.fmean(d),
                         std=statistics.stdev(d) if len(d) > 1 else None, total=sum(d)))
    rows.sort(key=lambda r: (-r["total"], r["program_id"]))
    tot = sum(r["total"] for r in rows)
    keep, cut = len(rows), 0
    while keep and cut + rows[keep - 1]["total"] < 0.01 * tot:
        cut += rows[keep - 1]["total"]; keep -= 1
    sth = [t for t in ths if t["mod"]["steady"]]
    thunks_ns = sum(t["e"] - t["s"] for t in sth)
    modules_ns = sum(m["d"] for m in st)
    wall = 0
    for dev in {t["mod"]["dev"] for t in sth}:
        dt = [t for t in sth if t["mod"]["dev"] == dev]
        wall += max(t["e"] for t in dt) - min(t["s"] for t in dt)
    hlo = {}
    for t in sth:
        h = hlo.setdefault(t["kind"], [0, 0]); h[0] += 1; h[1] += t["e"] - t["s"]
    # collectives: hidden = overlap with compute thunks of the same program and device
    coll = {}
    byk = {}
    for t in ths: byk.setdefault((t["mod"]["pid"], t["mod"]["dev"]), []).append(t)
    for t in sth:
        c = comm_of(t["kind"])
        if not c: continue
        hid = sum(min(q["e"], t["e"]) - max(q["s"], t["s"]) for q in byk[(t["mod"]["pid"], t["mod"]["dev"])]
                  if not comm_of(q["kind"]) and q["e"] > t["s"] and q["s"] < t["e"])
        a = coll.setdefault(t["key"], dict(calls=0, total=0, hidden=0, wait=0))
        a["calls"] += 1; a["total"] += t["e"] - t["s"]; a["hidden"] += min(hid, t["e"] - t["s"])
    # straggler wait: instances (program, execution, instruction, n-th run) over devices,
    # after aligning each device by its median collective end skew
    inst = {}
    runs = {}
    for t in sorted(sth, key=lambda t: t["s"]):
        if not comm_of(t["kind"]): continue
        rk = (id(t["mod"]), t["op"]); n = runs.get(rk, 0); runs[rk] = n + 1
        inst.setdefault((t["mod"]["pid"], t["mod"]["exec"], t["op"], n), []).append(t)
    devs = sorted({m["dev"] for m in mods})
    skews = {d: [] for d in devs}
    for ts in inst.values():
        if len(ts) == len(devs) and len(devs) > 1:
            mean = statistics.fmean(t["e"] for t in ts)
            for t in ts: skews[t["mod"]["dev"]].append(t["e"] - mean)
    corr = {d: round(statistics.median(v)) if v else 0 for d, v in skews.items()}
    for ts in inst.values():
        if len(ts) < 2: continue
        fs = min(t["s"] - corr[t["mod"]["dev"]] for t in ts)
        le = max(t["e"] - corr[t["mod"]["dev"]] for t in ts)
        ts.sort(key=lambda t: t["mod"]["dev"])
        coll[ts[0]["key"]]["wait"] += le - fs - min(t["e"] - t["s"] for t in ts)
    return dict(rows=rows[:keep], cut=(len(rows) - keep, cut), dropped=dropped,
                runtime=(thunks_ns, modules_ns, wall), hlo=hlo, coll=coll, ctot=ctot)

def check(jfile, exp, waits):
    d = json.load(open(jfile))
    got = d["modules"]
    assert len(got) == len(exp["rows"]), (len(got), len(exp["rows"]))
    for g, e in zip(got, exp["rows"]):
        assert g["name"] == e["name"] and g["program_id"] == e["program_id"], (g, e)
        assert g["executions"] == e["executions"], (g, e)
        assert abs(g["thunks_mean"] - e["thunks_mean"]) < 1e-6, (g, e)
        assert abs(g["mean_ns"] - e["mean"]) <= 0.5, (g, e)
        assert g["total_ns"] == e["total"], (g, e)
        if e["std"] is not None: assert abs(g["std_ns"] - e["std"]) <= 1, (g, e)
    assert (d["module_cut"]["dropped_modules"], d["module_cut"]["dropped_ns"]) == exp["cut"], d["module_cut"]
    assert d["warmup"]["dropped"] == exp["dropped"], (d["warmup"], exp["dropped"])
    r = d["runtime"]
    assert (r["thunks_ns"], r["modules_ns"], r["wall_ns"]) == exp["runtime"], (r, exp["runtime"])
    assert r["idle_between_modules_ns"] == r["wall_ns"] - r["modules_ns"]
    hl = {h["hlo_op"]: (h["calls"], h["total_ns"]) for h in d["hlo_ops"]}
    assert hl == {k: tuple(v) for k, v in exp["hlo"].items()}, "hlo_ops differ"
    cl = {(c["name"], c["bytes"], c["group_size"], c["dtype"]): c for c in d.get("collectives", [])}
    assert set(cl) == set(exp["coll"]), (set(cl) ^ set(exp["coll"]))
    for k, e in exp["coll"].items():
        c = cl[k]
        assert (c["calls"], c["total_ns"], c["hidden_ns"]) == (e["calls"], e["total"], e["hidden"]), (c, e)
        if waits: assert abs(c["wait_ns"] - e["wait"]) <= 4 * e["calls"], (c, e)
        alg = k[1] * e["calls"] / e["total"]
        f = {"allreduce": 2 * (k[2] - 1) / k[2], "allgather": (k[2] - 1) / k[2],
             "reducescatter": (k[2] - 1) / k[2], "alltoall": (k[2] - 1) / k[2]}.get(k[0], 1)
        assert abs(c["algbw_gbps"] - alg) <= 1e-6 * max(1, alg), (c, alg)
        assert abs(c["busbw_gbps"] - alg * f) <= 1e-6 * max(1, alg), (c, alg * f)
    assert d["compile"]["total_ns"] == exp["ctot"], (d["compile"]["total_ns"], exp["ctot"])

p0 = analyse([0], "auto")
assert p0["rows"][0]["name"] == "pjit__wrapped_step_fn" and p0["rows"][0]["executions"] == 3
check(f"{work}/p0.json", p0, False)
check(f"{work}/p0none.json", analyse([0], 0), False)
check(f"{work}/all.json", analyse([0, 1, 2, 3], "auto"), True)
print("ok")
EOF
exit 0
