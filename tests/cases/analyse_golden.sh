# Golden outputs of the analysis on every real Kineto and torch-cpu trace: summary.json,
# the kernels and ops tables as CSV, the cpu (and device) folded stacks. Traces are
# given by base name (run from their directory) so the goldens do not hold local paths.
# Independent of the goldens, every gpu_timeline row must add up (formats.md sec.5):
# computation + exposed_comm + exposed_memcpy + idle = total, busy + idle = total.
. "$ROOT/tests/lib.sh"
need_traces
check_timeline() {
    $PY - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("gpu_timeline", []):
    s = r["computation_ns"] + r["exposed_comm_ns"] + r["exposed_memcpy_ns"] + r["idle_ns"]
    assert s == r["total_ns"], ("does not add up", r)
    assert r["busy_ns"] + r["idle_ns"] == r["total_ns"], r
    for k, v in r.items():
        assert not isinstance(v, int) or v >= 0, (k, r)
PYEOF
}
fail=0
one() {
    local dir=$1 f=$2 name
    name=${f%.json.gz}; name=${name%.tar.gz}; name=${name%.json}
    (cd "$dir" && "$TD" summary --format json "$f") >"$WORK/$name.summary.json" || { echo "summary $f"; fail=1; return; }
    golden "analyse/$name.summary.json" "$WORK/$name.summary.json" || fail=1
    check_timeline "$WORK/$name.summary.json" || { echo "timeline $f"; fail=1; }
    for t in kernels ops; do
        if grep -q "^  \"$t\": \[" "$WORK/$name.summary.json"; then
            (cd "$dir" && "$TD" summary --format csv --table $t "$f") >"$WORK/$name.$t.csv" || { echo "csv $t $f"; fail=1; }
            golden "analyse/$name.$t.csv" "$WORK/$name.$t.csv" || fail=1
        fi
    done
    (cd "$dir" && "$TD" fold "$f") >"$WORK/$name.cpu.folded" || { echo "fold $f"; fail=1; }
    golden "analyse/$name.cpu.folded" "$WORK/$name.cpu.folded" || fail=1
    if grep -q '"kernels"' "$WORK/$name.summary.json"; then
        (cd "$dir" && "$TD" fold --stacks device "$f") >"$WORK/$name.device.folded" || { echo "fold device $f"; fail=1; }
        golden "analyse/$name.device.folded" "$WORK/$name.device.folded" || fail=1
    fi
}
for p in "$TRACES"/kineto/*.json.gz "$TRACES"/kineto/*.tar.gz "$TRACES"/torch-cpu/*.json; do
    [ -f "$p" ] || continue
    one "$(dirname "$p")" "$(basename "$p")"
done
exit $fail
