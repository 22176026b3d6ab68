# Issue 21: page 1 leads with the step time of the steady steps (median, p90) and the
# device breakdown, and leaves out figures that are 1 or 0 by construction (Ranks 1,
# Devices 1, Warm-up steps dropped 0). Expected step times are computed here from the
# steps table's wall times by the definitions (median: mean of the two middle values of
# an even count; p90: nearest rank, the smallest wall time with 90% of steps at or below).
. "$ROOT/tests/lib.sh"
need_traces
T=$TRACES/kineto/hta_a100_ws16_rank0.json.gz
"$TD" report "$T" -o "$WORK/r" --format pdf,json >/dev/null 2>"$WORK/err" || die "report failed: $(cat "$WORK/err")"
$PY - "$WORK/r/summary.json" <<'PYEOF' || exit 1
import json, math, sys
s = json.load(open(sys.argv[1]))
w = sorted(r["wall_ns"] for r in s["steps"] if not r["warmup"])
n = len(w)
med = w[n // 2] if n % 2 else w[n // 2 - 1] + (w[n // 2] - w[n // 2 - 1]) // 2
p90 = w[math.ceil(0.9 * n) - 1]
st = s["step_time"]
assert st["steps"] == n == 5, st
assert st["median_ns"] == med == 216119000, (st, med)
assert st["p90_ns"] == p90 == 216483000, (st, p90)
PYEOF
pdftotext -f 1 -l 1 "$WORK/r/report.pdf" "$WORK/p1.txt"
grep -q "Step time (median)" "$WORK/p1.txt" || die "no step time on page 1"
grep -q "216.119 ms" "$WORK/p1.txt" || die "median step time not on page 1"
grep -q "Compute" "$WORK/p1.txt" || die "no compute figure on page 1"
grep -q "Warm-up steps dropped" "$WORK/p1.txt" && die "Warm-up steps dropped 0 on page 1"
grep -q "^Ranks$" "$WORK/p1.txt" && die "Ranks 1 on page 1"
# the step time comes before the traced time
a=$(grep -n "Step time (median)" "$WORK/p1.txt" | head -1 | cut -d: -f1)
b=$(grep -n "Traced time" "$WORK/p1.txt" | tail -1 | cut -d: -f1)
[ "$a" -lt "$b" ] || die "step time does not lead the key figures"
exit 0
