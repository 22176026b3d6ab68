# Golden outputs of the analysis on every real Kineto and torch-cpu trace: summary.json,
# the kernels and ops tables as CSV, the cpu (and device) folded stacks (two runs a
# trace: summary, and report --format csv,folded; on the first trace, the CSV and folded
# files of summary --table and fold compared with report's). Traces are
# given by base name (run from their directory) so the goldens do not hold local paths.
# Independent of the goldens, every gpu_timeline row must add up (formats.md sec.5):
# computation + sync + exposed_comm + exposed_memcpy + idle = total, busy + idle = total.
. "$ROOT/tests/lib.sh"
need_traces
check_timeline() {
    $PY - "$1" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("gpu_timeline", []):
    s = r["computation_ns"] + r["sync_ns"] + r["exposed_comm_ns"] + r["exposed_memcpy_ns"] + r["idle_ns"]
    assert s == r["total_ns"], ("does not add up", r)
    assert r["busy_ns"] + r["idle_ns"] == r["total_ns"], r
    for k, v in r.items():
        assert not isinstance(v, int) or v >= 0, (k, r)
PYEOF
}
fail=0
# the tables as CSV and the folded stacks from one report run (report's CSV files are
# summary --table's, its folded stacks fold's: checked below on the first trace), the
# summary.json from summary (report's adds the template's own tables)
first=1
one() {
    local dir=$1 f=$2 name
    name=${f%.json.gz}; name=${name%.tar.gz}; name=${name%.json}
    (cd "$dir" && "$TD" summary --format json "$f") >"$WORK/$name.summary.json" || { echo "summary $f"; fail=1; return; }
    golden "analyse/$name.summary.json" "$WORK/$name.summary.json" || fail=1
    check_timeline "$WORK/$name.summary.json" || { echo "timeline $f"; fail=1; }
    (cd "$dir" && "$TD" report --format csv,folded -o "$WORK/$name" "$f") >/dev/null 2>&1 || { echo "report $f"; fail=1; return; }
    for t in kernels ops; do
        if grep -q "^  \"$t\": \[" "$WORK/$name.summary.json"; then
            golden "analyse/$name.$t.csv" "$WORK/$name/$t.csv" || fail=1
            if [ $first = 1 ]; then
                (cd "$dir" && "$TD" summary --format csv --table $t "$f") >"$WORK/$name.$t.csv" || { echo "csv $t $f"; fail=1; }
                cmp "$WORK/$name.$t.csv" "$WORK/$name/$t.csv" || { echo "$f: summary --table $t differs from report's $t.csv"; fail=1; }
            fi
        fi
    done
    golden "analyse/$name.cpu.folded" "$WORK/$name/cpu.folded" || fail=1
    if grep -q '"kernels"' "$WORK/$name.summary.json"; then
        golden "analyse/$name.device.folded" "$WORK/$name/device.folded" || fail=1
    fi
    if [ $first = 1 ]; then
        (cd "$dir" && "$TD" fold "$f") >"$WORK/$name.cpu.folded" || { echo "fold $f"; fail=1; }
        cmp "$WORK/$name.cpu.folded" "$WORK/$name/cpu.folded" || { echo "$f: fold differs from report's cpu.folded"; fail=1; }
        (cd "$dir" && "$TD" fold --stacks device "$f") >"$WORK/$name.device.folded" || { echo "fold device $f"; fail=1; }
        cmp "$WORK/$name.device.folded" "$WORK/$name/device.folded" || { echo "$f: fold --stacks device differs from report's device.folded"; fail=1; }
    fi
    first=0
}
for p in "$TRACES"/kineto/*.json.gz "$TRACES"/kineto/*.tar.gz "$TRACES"/torch-cpu/*.json; do
    [ -f "$p" ] || continue
    one "$(dirname "$p")" "$(basename "$p")"
done
exit $fail
