# Analysis options through the command line: --step-pattern (and a bad regex: exit 2
# naming the option), --warmup N, --module-pattern on a Kineto trace.
. "$ROOT/tests/lib.sh"
need_traces
C=$TRACES/torch-cpu/torch_transformer_cpu_5steps.json
K=$TRACES/kineto/hta_nccl_data.json.gz
expect_exit 2 "$TD" summary --step-pattern '(' "$C" 2>"$WORK/err" >/dev/null || exit 1
grep -q "^tracedoc: --step-pattern: bad regular expression '('" "$WORK/err" || { cat "$WORK/err"; die "message"; }
expect_exit 2 "$TD" summary --module-pattern 'a[' "$C" 2>"$WORK/err" >/dev/null || exit 1
grep -q -- "--module-pattern" "$WORK/err" || die "module-pattern message"
# iteration_3..7 in the trace (torch's own record_function names), first two dropped
"$TD" summary --format csv --table steps --step-pattern '^iteration_[0-9]+$' --warmup 2 "$C" \
    >"$WORK/steps.csv" || die "steps"
$PY - "$WORK/steps.csv" <<'PYEOF' || exit 1
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
assert [x["name"] for x in r] == ["iteration_%d" % i for i in range(3, 8)], r
assert [x["warmup"] for x in r] == ["1", "1", "0", "0", "0"], r
# wall times as in the raw trace: iteration_3 dur 227858 us
assert r[0]["wall_ns"] == "227858000", r[0]
PYEOF
"$TD" summary --format json --step-pattern '^iteration_[0-9]+$' --warmup 2 "$C" >"$WORK/s.json" || die json
grep -q '"dropped": 2' "$WORK/s.json" || die "warmup.dropped"
# default steps on the same trace are the ProfilerStep#N ranges
"$TD" summary --format csv --table steps "$C" | grep -c ProfilerStep | grep -qx 5 || die "default steps"
# module pattern: DDP forward, 3 executions
"$TD" summary --format csv --table modules --module-pattern '^DistributedDataParallel\.forward$' "$K" \
    >"$WORK/mod.csv" || die "modules"
grep -q '^"DistributedDataParallel.forward",,3,' "$WORK/mod.csv" || { cat "$WORK/mod.csv"; die "module row"; }
exit 0
