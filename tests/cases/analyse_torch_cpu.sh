# Acceptance: the op table agrees with the table torch itself printed for the same run
# (key_averages().table(), torch 1.13 legacy CPU profiler). Every row of the reference:
# calls exact, CPU total within 0.1%, self CPU within 3% of CPU total + 3 us per call,
# on all rows but one.
# How torch counted (checked on this run, all 30 rows agree exactly): the exported trace
# holds only the profiler's active window (schedule wait=1, warmup=2, active=5:
# ProfilerStep#2..#6 around the user's iteration_3..7), and key_averages() counts every
# event of it - the ProfilerStep and record_function ranges too, and the few ops before
# the first step - all on one thread, in integer microseconds; self time = duration -
# direct children; percentages are of the sum of self times ("Self CPU time total").
. "$ROOT/tests/lib.sh"
need_traces
D=$TRACES/torch-cpu
[ -f "$D/torch_transformer_cpu_5steps.json" ] || { echo "torch-cpu trace missing"; exit 77; }
"$TD" summary --format csv --table ops "$D/torch_transformer_cpu_5steps.json" >"$WORK/ops.csv" \
    || die "tracedoc summary failed"
$PY - "$D/torch_transformer_cpu_5steps.key_averages.txt" "$WORK/ops.csv" <<'PYEOF' || exit 1
import csv, re, sys
ref, ours = sys.argv[1], sys.argv[2]
def us(v):
    for unit, f in (("us", 1.0), ("ms", 1e3), ("s", 1e6)):
        if v.endswith(unit):
            return float(v[:-len(unit)]) * f
    raise ValueError(v)
rows = []
for line in open(ref):
    if line.startswith("-") or "Name" in line[:60] or not line.strip() or line.startswith("Self CPU time total"):
        continue
    f = re.split(r"\s{2,}", line.strip())
    # Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, [mem, self mem], calls
    rows.append((f[0], us(f[2]), us(f[4]), int(f[-1])))
assert len(rows) >= 20, "reference table not parsed (%d rows)" % len(rows)
got = {}
with open(ours) as fh:
    for r in csv.DictReader(fh):
        got[r["name"]] = r
bad = []
for name, self_us, tot_us, calls in rows:
    g = got.get(name)
    if g is None and name.endswith("..."):
        g = next((v for k, v in got.items() if k.startswith(name[:-3])), None)
    if g is None:
        bad.append("%s: missing" % name); continue
    gs, gt, gc = int(g["self_ns"]) / 1e3, int(g["total_ns"]) / 1e3, int(g["calls"])
    if gc != calls:
        bad.append("%s: calls %d, torch %d" % (name, gc, calls)); continue
    if abs(gt - tot_us) > 0.001 * tot_us + 0.5e-3:
        bad.append("%s: total %.3f us, torch %.3f us" % (name, gt, tot_us)); continue
    if abs(gs - self_us) > 0.03 * tot_us + 3 * calls:
        bad.append("%s: self %.3f us, torch %.3f us" % (name, gs, self_us))
print("%d reference rows, %d off" % (len(rows), len(bad)))
for b in bad:
    print("  " + b)
sys.exit(0 if len(bad) <= 1 else 1)
PYEOF
exit 0
