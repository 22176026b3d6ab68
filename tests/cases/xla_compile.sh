# Compile phases of the pax nsys-jax archives, checked against an independent python
# computation from the raw push/pop CSV (zipfile + lzma + csv) that follows nsys-jax's
# documented procedure (formats.md sec. 4): XlaCompile subtrees, worker-thread ranges
# grafted under the deepest main-thread range containing them, non-TSL ranges folded
# into their parents, autotuner detail collapsed, parallel regions shared among worker
# ranges in proportion to their non-child time; grouped as the notebook (mid-2024, the
# archives' version) summarises them: the 0th XlaCompile range's non-child time apart,
# XlaPass:#.../XlaPassPipeline:#... lumped as "XlaPass" (kept apart with
# --compile-passes), ":#module=split_module#" stripped; the phases making the top 99%.
. "$ROOT/tests/lib.sh"
need_traces
T=$(dirname "$TD")/tests/test_xla
[ -x "$T" ] || { echo "test_xla helper not built"; exit 77; }
Z=$TRACES/nsys-jax
"$T" json "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/p0.json" || die "json p0"
"$T" json "$Z"/pax_fsdp4_4proc_proc{1,3}.zip >"$WORK/p13.json" || die "json p1 p3"
"$TD" summary --format json --compile-passes "$Z/pax_fsdp4_4proc_proc0.zip" >"$WORK/p0pass.json" 2>/dev/null \
    || die "summary --compile-passes"
$PY - "$WORK" "$Z" <<'EOF' || exit 1
import csv, io, json, lzma, re, sys, zipfile
work, zdir = sys.argv[1], sys.argv[2]

def grp(name, passes):
    if not passes and (name.startswith("XlaPass:#") or name.startswith("XlaPassPipeline:#")):
        return "XlaPass"
    return name.removesuffix(":#module=split_module#")

def phases(i, acc, passes):
    z = zipfile.ZipFile(f"{zdir}/pax_fsdp4_4proc_proc{i}.zip")
    rows = list(csv.DictReader(io.TextIOWrapper(lzma.open(z.open("report_nvtx_pushpop_trace.csv.xz")), newline="")))
    R = {}
    order = []
    for r in rows:
        rid = int(r["RangeId"])
        R[rid] = dict(start=int(r["Start (ns)"]), end=int(r["End (ns)"]), dur=int(r["Duration (ns)"]),
                      dchild=float(r["DurChild (ns)"]), dnon=float(r["DurNonChild (ns)"]),
                      tid=r["TID"], parent=int(r["ParentId"]) if r["ParentId"] else None,
                      nchild=int(r["NumChild"]), stack=r["RangeStack"], name=r["Name"])
        order.append(rid)
    def children(rid, ids):   # descendants through RangeStack, like nsys-jax's make_child_mask
        p = R[rid]["stack"] + ":"
        return [k for k in ids if R[k]["stack"].startswith(p)]
    keep = set()
    for c in [k for k in order if R[k]["name"].startswith("TSL:XlaCompile:#module=")]:
        C = R[c]
        sl = [k for k in order if R[k]["start"] >= C["start"] and R[k]["end"] <= C["end"]]
        mainc = children(c, sl)
        workers = [k for k in sl if R[k]["parent"] is None and R[k]["tid"] != C["tid"]]
        cm = set(mainc)
        for w in workers:
            W = R[w]
            cand = [k for k in mainc if R[k]["start"] < W["start"] and R[k]["end"] > W["end"]]
            np_ = cand[-1]
            W["parent"] = np_; R[np_]["nchild"] += 1
            R[np_]["dchild"] = R[np_]["dnon"] = float("nan")
            sub = children(w, sl) + [w]
            pre = R[np_]["stack"]
            for k in sub: R[k]["stack"] = pre + R[k]["stack"]
            cm |= set(sub)
        keep.add(c); keep |= cm
    ids = [k for k in order if k in keep]
    for k in ids:   # fold non-TSL ranges into their parents
        if not R[k]["name"].startswith("TSL:"):
            p = R[R[k]["parent"]]
            p["nchild"] -= 1; p["dchild"] -= R[k]["dur"]; p["dnon"] += R[k]["dur"]
    ids = [k for k in ids if R[k]["name"].startswith("TSL:")]
    # program id / name from XlaCompileBackend, to clean the names
    pid = {}
    for k in ids:
        m = re.match(r"^TSL:XlaCompileBackend:#module=(.*?),program_id=(\d+)#$", R[k]["name"])
        if m:
            pid[k] = (m.group(1), m.group(2))
            if R[k]["parent"] is not None: pid[R[k]["parent"]] = pid[k]
    for k in ids:
        p = k
        while p is not None and p not in pid: p = R[p]["parent"]
        nm = R[k]["name"].removeprefix("TSL:")
        if p is not None:
            pn, pi = pid[p]
            nm = nm.replace(f",program_id={pi}", "").replace(f",module={pn}", "").replace(f":#module={pn}#", "")
        R[k]["clean"] = nm
    for which in ("meas", "comp"):
        for k in ids:
            if which == "meas" and R[k]["clean"].startswith("XlaAutotunerMeasurement"):
                R[k]["clean"] = "XlaAutotunerMeasurement"
        drop = set()
        for k in ids:
            hit = R[k]["clean"] == ("XlaAutotunerMeasurement" if which == "meas" else "XlaAutotunerCompilation")
            if hit and R[k]["nchild"] != 0:
                drop |= set(children(k, ids))
                R[k]["nchild"] = 0; R[k]["dchild"] = 0.0; R[k]["dnon"] = float(R[k]["dur"])
        ids = [k for k in ids if k not in drop]
    main = {R[k]["tid"] for k in ids if R[k]["clean"] == "XlaCompile"}
    assert len(main) == 1
    main = main.pop()
    launchers = []
    for k in ids:
        if R[k]["tid"] != main and R[k]["parent"] in R and R[R[k]["parent"]]["tid"] == main:
            if R[k]["parent"] not in launchers: launchers.append(R[k]["parent"])
    for L in launchers:
        ch = children(L, ids)
        wk = [k for k in ch if R[k]["tid"] != main]
        ps = min(R[k]["start"] for k in wk); pe = max(R[k]["end"] for k in wk)
        tot = sum(R[k]["dnon"] for k in wk)
        for k in wk:
            g = grp(R[k]["clean"], passes)
            acc[g] = acc.get(g, 0) + (pe - ps) * R[k]["dnon"] / tot
        R[L]["dchild"] = sum(R[k]["dur"] for k in ch if R[k]["tid"] == main) + (pe - ps)
        R[L]["dnon"] = R[L]["dur"] - R[L]["dchild"]
    first = True
    for k in ids:
        if R[k]["tid"] != main: continue
        g = grp(R[k]["clean"], passes)
        if g == "XlaCompile" and first:   # library loading in the first compilation
            g, first = "[non-leaf time in 0th XlaCompile range]", False
        acc[g] = acc.get(g, 0) + R[k]["dnon"]
    return len(ids)

def check(jfile, procs, passes=False):
    acc = {}
    nrows = sum(phases(i, acc, passes) for i in procs)
    total = sum(acc.values())
    d = json.load(open(jfile))["compile"]
    assert abs(d["total_ns"] - total) <= nrows, (d["total_ns"], total)
    exp = sorted(acc.items(), key=lambda kv: -kv[1])
    got = d["phases"]
    cum = 0
    n = 0
    for name, v in exp:
        if cum >= 0.99 * total: break
        cum += v; n += 1
    assert len(got) == n, (len(got), n)
    for g, (name, v) in zip(got, exp):
        assert g["name"] == name, (g, name, v)
        assert abs(g["non_child_ns"] - v) <= nrows, (g, v)
    print(jfile, "phases", n, "total", total)

check(f"{work}/p0.json", [0])
check(f"{work}/p13.json", [1, 3])
check(f"{work}/p0pass.json", [0], True)
# the lumped view has one XlaPass row, the kept-apart one none
assert [p["name"] for p in json.load(open(f"{work}/p0.json"))["compile"]["phases"]].count("XlaPass") == 1
assert "XlaPass" not in [p["name"] for p in json.load(open(f"{work}/p0pass.json"))["compile"]["phases"]]
EOF
exit 0
