# --telemetry: aiu-smi / nvidia-smi samples beside a trace, aligned by wall clock with the
# trace's baseTimeNanoseconds. Files: tests/data/telemetry (made here from the published
# column formats, see its README); trace: the synthetic torch-spyre trace. Expected values
# by hand: samples at 08:26:39..45 (one a second), trace 08:26:41..08:26:43.9, iterations
# at :41, :42, :43 of 0.9 s each: 3 samples inside, 4 outside; power 100/120/110 W in the
# three steps -> energy 90, 108, 99 J.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/telemetry"
$PY "$ROOT/tests/data/aiu/gen_spyre_kineto.py" "$WORK/spyre.json" || die "generator"
check() { # FILE [options...]: the expected per-step power of device 0
    "$TD" summary --format json "$@" "$WORK/spyre.json" >"$WORK/s.json" 2>"$WORK/err" || { cat "$WORK/err"; die "summary $*"; }
    $PY - "$WORK/s.json" <<'PY' || die "values for $*"
import json, sys
s = json.load(open(sys.argv[1]))
p = [r for r in s["telemetry_metrics"] if r["kind"] == "power" and r["device"] == 0][0]
assert (p["samples"], p["outside"], p["mean"], p["max"]) == (3, 4, 110.0, 120.0), p
st = [(r["step"], r["mean"], r["energy_j"]) for r in s["telemetry_steps"]
      if r["metric"] == p["metric"] and r["device"] == 0]
assert st == [("iteration_0", 100.0, 90.0), ("iteration_1", 120.0, 108.0), ("iteration_2", 110.0, 99.0)], st
assert not s.get("warnings"), s.get("warnings")
PY
}
check --telemetry "$D/nvidia_smi_query.csv"
check --telemetry "$D/nvidia_smi_dmon_dt.txt"
check --telemetry "$D/aiu_smi_dmon.txt"
check --telemetry "$D/nvidia_smi_dmon.txt" --telemetry-start 2025-11-22T08:26:39Z
check --telemetry "$D/nvidia_smi_dmon.txt" --telemetry-start 1763800000 --telemetry-offset -1
# documents: the charts under the step strip in the PDF, the tables in the workbook
"$TD" report --telemetry "$D/aiu_smi_dmon.txt" "$WORK/spyre.json" -o "$WORK/r" 2>/dev/null || die "report"
pdftotext "$WORK/r/report.pdf" - >"$WORK/r.txt"
grep -q "Telemetry during the trace" "$WORK/r.txt" || die "no telemetry section in the PDF"
grep -q "pwr, device 0" "$WORK/r.txt" || die "no power chart"
grep -q "48 samples outside the traced time are counted, not drawn" "$WORK/r.txt" || die "outside count"
qpdf --check "$WORK/r/report.pdf" >/dev/null || die "qpdf"
unzip -p "$WORK/r/report.xlsx" xl/workbook.xml | grep -q "Telemetry per step" || die "workbook sheet"
# columns by name and unit
"$TD" summary --format json --telemetry "$D/aiu_smi_dmon.txt" "$WORK/spyre.json" 2>/dev/null |
    $PY -c 'import json,sys; s=json.load(sys.stdin); k={(r["metric"],r["unit"],r["kind"]) for r in s["telemetry_metrics"]}; assert k == {("pwr","W","power"),("temp","C","temperature"),("ptutil","%","utilisation"),("devmem","MiB","memory"),("rxpci","MB/s","bandwidth"),("txpci","MB/s","bandwidth")}, k' ||
    die "aiu-smi columns"
# a file from another time overlaps no step: a warning naming both ranges
sed 's#2025/11/22 08:26#2025/11/23 09:00#' "$D/nvidia_smi_query.csv" >"$WORK/late.csv"
"$TD" summary --format json --telemetry "$WORK/late.csv" "$WORK/spyre.json" 2>/dev/null |
    grep -q 'late.csv: its samples (2025-11-23T09:00:39Z to 2025-11-23T09:00:45Z) overlap no step of the trace (2025-11-22T08:26:41Z to 2025-11-22T08:26:43Z)' ||
    die "no-overlap warning"
# bad files: exit 3 naming the file and line
printf 'a,b\n1,2\n' >"$WORK/nots.csv"
expect_exit 3 "$TD" summary --telemetry "$WORK/nots.csv" "$WORK/spyre.json" 2>"$WORK/e" >/dev/null || exit 1
grep -q "nots.csv: line 1: a CSV header without a timestamp column" "$WORK/e" || die "message: $(cat "$WORK/e")"
printf 'timestamp, power.draw [W]\nyesterday, 5 W\n' >"$WORK/badt.csv"
expect_exit 3 "$TD" summary --telemetry "$WORK/badt.csv" "$WORK/spyre.json" 2>"$WORK/e" >/dev/null || exit 1
grep -q "badt.csv: line 2: 'yesterday' is not a time" "$WORK/e" || die "message: $(cat "$WORK/e")"
# a year past 2261 does not fit 64-bit nanoseconds: refused by line, not overflowed (fuzz finding)
printf 'timestamp,power.draw [W]\n2025/11/22 08:26:38.000,100\n6952/11/22 08:26:39.000,100\n' >"$WORK/far.csv"
expect_exit 3 "$TD" summary --telemetry "$WORK/far.csv" "$WORK/spyre.json" 2>"$WORK/e" >/dev/null || exit 1
grep -q "far.csv: line 3: '6952/11/22 08:26:39.000' is not a time" "$WORK/e" || die "message: $(cat "$WORK/e")"
expect_exit 3 "$TD" summary --telemetry "$WORK/missing.txt" "$WORK/spyre.json" 2>/dev/null >/dev/null || exit 1
expect_exit 2 "$TD" summary --telemetry-start soon "$WORK/spyre.json" 2>/dev/null >/dev/null || exit 1
expect_exit 2 "$TD" summary --telemetry-offset x "$WORK/spyre.json" 2>/dev/null >/dev/null || exit 1
exit 0
