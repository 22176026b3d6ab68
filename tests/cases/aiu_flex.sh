# IBM AIU flex traces + DeepRT compile log: tracedoc's AIU tables against acelyzer's own
# outputs for the same files (tests/data/aiu/acelyzer, see its README), per device.
. "$ROOT/tests/lib.sh"
need_traces
A="$TRACES/aiu"
REF="$ROOT/tests/data/aiu/acelyzer"
"$TD" summary --format json --aiu-freq 560:800 --compile-log "$A/sample_comp_log_ideal.txt" \
    "$A/sample_flex_3062_job_4.json" >"$WORK/flex.json" 2>"$WORK/flex.err" || die "summary flex"
grep -q "1 duplicated B/E pairs" "$WORK/flex.err" || die "duplicate pair not reported"
# the compile log given as an input is the same as --compile-log
"$TD" summary --format json --aiu-freq 560:800 "$A/sample_flex_3062_job_4.json" \
    "$A/sample_comp_log_ideal.txt" 2>/dev/null | cmp -s - "$WORK/flex.json" || die "log as input differs"
"$TD" summary --format json --aiu-freq 560:800 "$A/allreduce_tp4.json" >"$WORK/ar.json" 2>/dev/null ||
    die "summary allreduce"
$PY - "$WORK/flex.json" "$WORK/ar.json" "$REF" <<'PY' || die "AIU figures differ from acelyzer's"
import json, sys, csv
flex, ar, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
DUP = 279.487  # us: the duplicated add_1 pair acelyzer counts twice (see README)
def rows(path):
    lines = open(path).read().splitlines()[1:]
    return [[c.strip() for c in l.split("\t")] for l in lines if l.strip()]
def close(a_ns, b_us, calls=1, what=""):
    # tracedoc rounds each instruction to 1 ns; acelyzer keeps float microseconds
    assert abs(a_ns / 1000 - b_us) <= 0.001 * calls + 0.0006, (what, a_ns, b_us)
def check_kernels(got, path, dev, fix=None):
    mine = {r["name"]: r for r in got if r["device"] == dev}
    theirs = rows(path)
    assert len(mine) == len(theirs), (path, sorted(mine))
    for t in theirs:
        name = t[9][:-len(" Cmpt Exec")]
        tot, calls, mean, med, mn, mx, sd = float(t[1]), int(t[2]), *map(float, t[3:8])
        if fix and name in fix:
            tot, calls, mean, med, mn, mx, sd = fix[name]
        r = mine[name]
        assert r["calls"] == calls, (name, r["calls"], calls)
        close(r["total_ns"], tot, calls, name)
        for k, v in (("mean_ns", mean), ("median_ns", med), ("min_ns", mn), ("max_ns", mx), ("std_ns", sd)):
            close(r[k], v, calls, name + " " + k)
# sample_flex: acelyzer's add_[N] row is the duplicated pair twice
fix = {"add_[N]": (DUP, 1, DUP, DUP, DUP, DUP, 0.0)}
check_kernels(flex["aiu_kernels"], ref + "/flex_summary.csv", 0, fix)
act = rows(ref + "/flex_active.csv")[0]
kt, span = float(act[0]) - DUP, float(act[1])
dev = flex["aiu_devices"][0]
close(dev["kernel_ns"], kt, 16, "kernel time"); close(dev["span_ns"], span, 1, "span")
assert abs(flex["aiu"]["active_share"] - kt / span) < 1e-5, flex["aiu"]["active_share"]
# categories: acelyzer's table with the duplicate (a Broadcast kernel) removed from Broadcast and Total
cats = {r["category"]: r for r in flex["aiu_categories"]}
theirs = list(csv.DictReader(open(ref + "/flex_categories.csv")))
assert sorted(cats) == sorted(t["Category"] for t in theirs), sorted(cats)
tot_t = float([t for t in theirs if t["Category"] == "Total"][0]["Kernel_Time"]) - DUP
ideal_tot = float([t for t in theirs if t["Category"] == "Total"][0]["Ideal_Time"])
for t in theirs:
    c = cats[t["Category"]]
    kt, calls = float(t["Kernel_Time"]), int(t["Calls"])
    if t["Category"] in ("Broadcast", "Total"):
        kt, calls = kt - DUP, calls - 1
    assert c["calls"] == calls, (t["Category"], c["calls"], calls)
    close(c["kernel_ns"], kt, calls, t["Category"])
    assert abs(c["ideal_ns"] / 1000 - float(t["Ideal_Time"])) < 0.01, t
    assert c["ideal_cycles"] == int(t["Ideal_Cyc"]), (c["ideal_cycles"], t)
    assert abs(c["ideal_share"] - float(t["Frac_Ideal"])) < 6e-5, t
    assert abs(c["share"] - (kt / tot_t if tot_t else 0)) < 1e-5, t
    if t["Category"] not in ("Broadcast", "Total"):   # duration unchanged by the duplicate
        assert abs(c["pt_util"] - float(t["PT_Util"])) < 6e-5, t
# matmul utilisation: acelyzer's avg_mm_util (the duplicate has no ideal cycles); avg_util
# = avg_mm_util * t_mm / (t_mm + t_sf) with the duplicate taken out of t_sf
line = open(ref + "/flex_util.log").read()
mm = float(line.split("avg_mm_util=")[1].split(",")[0]) / 100
tmm = float(line.split("t_mm=")[1].split(",")[0]); tsf = float(line.split("t_sf=")[1].split(",")[0]) - DUP
assert abs(dev["mm_util"] - mm) < 5e-4, (dev["mm_util"], mm)
assert abs(dev["util"] - mm * tmm / (tmm + tsf)) < 5e-4, (dev["util"], mm * tmm / (tmm + tsf))
assert abs(flex["aiu"]["implied_soc_mhz"] - 557.09) < 0.01, flex["aiu"]["implied_soc_mhz"]
# allreduce_tp4: four devices kept apart, each equal to acelyzer on that pid's own file
assert [d["device"] for d in ar["aiu_devices"]] == [0, 1, 2, 3], ar["aiu_devices"]
for p in range(4):
    check_kernels(ar["aiu_kernels"], f"{ref}/ar{p}_summary.csv", p)
    act = rows(f"{ref}/ar{p}_active.csv")[0]
    d = ar["aiu_devices"][p]
    close(d["span_ns"], float(act[1]), 1, "span"); 
    assert abs(d["active_share"] * 100 - float(act[4])) < 0.006, (p, d["active_share"], act)
PY
exit 0
