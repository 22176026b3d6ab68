# Multi-rank job (param_dlrm_8ranks, 8 Kineto traces in a tar.gz): the gpu_timeline
# starts with the job-wide row (rank null, device "all") whose numbers are the sums of
# the 8 ranks' own "all" rows, and the breakdown identity holds on it; the findings
# speak of the job: idle share from those sums, and the straggler sentence recomputed
# by /usr/bin/python3 from the raw traces' ProfilerStep durations (median per rank,
# slowest rank vs the median over ranks, reported when over 10%).
. "$ROOT/tests/lib.sh"
need_traces
J="$TRACES/kineto/param_dlrm_8ranks.tar.gz"
[ -f "$J" ] || { echo "dlrm trace missing"; exit 77; }
"$TD" summary --format json "$J" >"$WORK/s.json" || die "summary"
$PY - "$WORK/s.json" "$J" <<'PYEOF' || exit 1
import json, re, statistics, sys, tarfile
from decimal import Decimal, ROUND_HALF_UP
s = json.load(open(sys.argv[1]))
tl = s["gpu_timeline"]
keys = ["computation_ns", "sync_ns", "exposed_comm_ns", "exposed_memcpy_ns", "busy_ns", "idle_ns",
        "total_ns", "total_comm_ns", "total_memcpy_ns"]
job = [r for r in tl if r["rank"] is None]
ranks = [r for r in tl if r["rank"] is not None and r["device"] == "all" and r["scope"] == "trace"]
assert len(ranks) == 8, ranks
assert tl[0]["rank"] is None and tl[0]["device"] == "all" and tl[0]["scope"] == "trace", tl[0]
# nothing dropped here: one job-wide row, the trace scope
assert len(job) == 1 and s["warmup"]["dropped"] == 0, job
for k in keys:
    assert job[0][k] == sum(r[k] for r in ranks), (k, job[0][k], sum(r[k] for r in ranks))
j = job[0]
assert j["computation_ns"] + j["sync_ns"] + j["exposed_comm_ns"] + j["exposed_memcpy_ns"] + j["idle_ns"] == j["total_ns"], j
assert j["busy_ns"] + j["idle_ns"] == j["total_ns"], j
f = s["findings"]
assert 3 <= len(f) <= 6, f
idle = sum(r["idle_ns"] for r in ranks) / sum(r["total_ns"] for r in ranks)
want = "GPU idle %.0f%% of the device timeline (first to last device activity, summed over 8 ranks)" % (100 * idle)
# then what the streams' idle time is (issue 24), from the idle_breakdown rows
ib = s["idle_breakdown"]
tot = sum(r["idle_ns"] for r in ib)
cause = lambda c: 100 * sum(r["idle_ns"] for r in ib if r["category"] == c) / tot
want += (": of the streams' idle time, %.0f%% is waiting for the next kernel (gaps under 30 \u00b5s), "
         "%.0f%% for the CPU to launch (HTA's causes; the rest other)." % (cause("kernel_wait"), cause("host_wait")))
assert want in f, (want, f)
# straggler, from the raw traces
def ns(v):
    return int((Decimal(v) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
med = {}
with tarfile.open(sys.argv[2]) as t:
    for m in t.getmembers():
        if not m.isfile():
            continue
        d = json.load(t.extractfile(m), parse_float=Decimal)
        rank = d["distributedInfo"]["rank"]
        w = [ns(e["dur"]) for e in d["traceEvents"] if e.get("ph") == "X" and
             e.get("cat") == "user_annotation" and re.fullmatch(r"ProfilerStep#\d+", e["name"])]
        med[rank] = statistics.median(w)
assert len(med) == 8, med
mm = statistics.median(med.values())
slow = max(med, key=lambda r: med[r])
assert med[slow] > 1.1 * mm, (med, mm)
want = "Rank %d's steps are %.0f%% slower than the median rank." % (slow, 100 * (med[slow] / mm - 1))
assert want in f, (want, f)
PYEOF
exit 0
