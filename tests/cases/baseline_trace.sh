# report --baseline TRACE (issue 21): a trace is accepted as a baseline and summarised as
# `diff` summarises it, so the judgement is the one `diff BASE CUR` and `--baseline
# BASE/summary.json` give (DLRM rank 1 against rank 0: the same changes, exit 1 as diff's);
# the baseline's stacks come from the trace (flame-diff.svg drawn); a file that is neither
# a trace nor a summary.json says what a baseline is (exit 3).
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
J="$TRACES/kineto/param_dlrm_8ranks.tar.gz"
tar xzf "$J" --wildcards 'dlrm_kineto/worker0_*' 'dlrm_kineto/worker1_*' || die untar
r0=$(ls dlrm_kineto/worker0_*); r1=$(ls dlrm_kineto/worker1_*)
gzip -c "$r0" >r0.json.gz
"$TD" diff r0.json.gz "$r1" -o d >d.out 2>/dev/null; drc=$?
"$TD" report "$r1" -o rt --baseline r0.json.gz --format json,svg --template nightly >rt.out 2>rt.err; rc=$?
[ $rc = $drc ] && [ $rc = 1 ] || { cat rt.err; die "--baseline trace: exit $rc, diff $drc (want 1)"; }
grep -q "line 1: '\[' or '{' expected" rt.err && die "trace refused as a baseline"
"$TD" report "$r0" -o b0 --format json >/dev/null 2>&1 || die "baseline summary"
"$TD" report "$r1" -o rj --baseline b0/summary.json --format json --template nightly >/dev/null 2>&1
[ $? = 1 ] || die "--baseline summary.json: exit"
$PY - d/summary.json rt/summary.json rj/summary.json <<'PY' || die "changes differ"
import json, sys
d, t, j = (json.load(open(p)) for p in sys.argv[1:])
key = lambda s: sorted((c["metric"], c["direction"], c["before"], c["after"]) for c in s["comparisons"])
assert key(t) == key(d), "trace baseline vs diff"
assert key(t) == key(j), "trace baseline vs summary.json baseline"
assert t["change_counts"]["regressed"] == d["change_counts"]["regressed"] > 0
assert t["verdict"].startswith("REGRESSED") and "r0.json.gz" in t["verdict"], t["verdict"]
PY
[ -s rt/flame-diff.svg ] || die "no differential flamegraph from the baseline trace's stacks"
printf 'not a trace\n' >junk.txt
expect_exit 3 "$TD" report "$r1" -o rx --baseline junk.txt 2>rx.err >/dev/null || exit 1
grep -q "baseline is an earlier run's summary.json or its trace" rx.err || { cat rx.err; die "message"; }
exit 0
