# The perf-report checklist page (bug-report template): each item ticked when the report
# has it, else saying what to add. Synthetic torch-spyre trace + telemetry made here.
. "$ROOT/tests/lib.sh"
$PY "$ROOT/tests/data/aiu/gen_spyre_kineto.py" "$WORK/spyre.json" || die "generator"
T="$ROOT/tests/data/telemetry/aiu_smi_dmon.txt"
# nothing given: only the trace file and the op table are there
"$TD" report "$WORK/spyre.json" -o "$WORK/a" --format json,pdf 2>/dev/null || die "report a"
$PY - "$WORK/a/summary.json" 0 <<'PY' || die "checklist without options"
import json, sys
c = json.load(open(sys.argv[1]))["checklist"]
ok = {r["item"]: r["ok"] for r in c}
assert len(c) == 7, c
assert [r["item"] for r in c if r["ok"]] == ["The trace file", "key_averages-style op table"], ok
d = {r["item"]: r["detail"] for r in c}
assert "--meta reproducer=" in d["Reproducer and iteration count"], d
assert "--meta pytorch=VERSION and --meta torch_spyre=COMMIT" in d["PyTorch version and torch-spyre commit"], d
assert "--telemetry FILE" in d["Telemetry covering at least one full active iteration"], d
assert "--expect" in d["Expected vs seen"], d
PY
# everything given
"$TD" report "$WORK/spyre.json" -o "$WORK/b" --telemetry "$T" --meta 'reproducer=python run.py' \
    --meta pytorch=2.7.1 --meta torch_spyre=abc1234 --expect "latency 800 ms" \
    --meta 'previous=latency 850 ms, 2025-10-01 (abc1000), resnet50' 2>/dev/null || die "report b"
$PY - "$WORK/b/summary.json" <<'PY' || die "checklist with everything"
import json, sys
c = json.load(open(sys.argv[1]))["checklist"]
assert all(r["ok"] for r in c), [r for r in c if not r["ok"]]
d = {r["item"]: r["detail"] for r in c}
assert d["Reproducer and iteration count"].startswith("python run.py; 3 iterations"), d
assert d["Telemetry covering at least one full active iteration"].startswith("3 iterations"), d
assert d["Expected vs seen"] == "Expected: latency 800 ms; seen: 900.000 ms per iteration", d
PY
# the PDF shows what the report contains (issue 21), not boxes to tick
pdftotext "$WORK/b/report.pdf" "$WORK/b.txt"
grep -q "What this report contains" "$WORK/b.txt" || die "PDF checklist page"
grep -q "Expected: latency 800 ms" "$WORK/b.txt" || die "expected vs seen not in the PDF"
grep -q "PyTorch 2.7.1, torch-spyre abc1234" "$WORK/b.txt" || die "versions not in the PDF"
# nothing given: the missing items go to the author on stderr, not into the PDF
"$TD" report "$WORK/spyre.json" -o "$WORK/n" --format json,pdf 2>"$WORK/n.err" || die "report n"
grep -q '^tracedoc: note: the report has no Expected vs seen: Add --expect' "$WORK/n.err" ||
    die "no note on stderr for the missing expected-vs-seen: $(cat "$WORK/n.err")"
[ "$(grep -c '^tracedoc: note: the report has no ' "$WORK/n.err")" = 5 ] || die "5 notes expected: $(cat "$WORK/n.err")"
pdftotext "$WORK/n/report.pdf" "$WORK/n.txt"
grep -q "Add --expect\|Add --meta\|☐" "$WORK/n.txt" && die "to-do items printed in the PDF"
grep -q "key_averages-style op table" "$WORK/n.txt" || die "the op table item the report has is not shown"
# a stored run (report SUMMARY.json) carries its checklist: made again for the new report
# (it aborted with "internal error: table checklist columns", exit 134)
"$TD" report "$WORK/a/summary.json" -o "$WORK/s" --format json,xlsx --expect "latency 800 ms" \
    --meta 'reproducer=python run.py' 2>"$WORK/s.err" || { cat "$WORK/s.err"; die "report of a stored run"; }
$PY - "$WORK/s" <<'PY' || die "checklist of a stored run"
import json, sys, openpyxl
c = json.load(open(sys.argv[1] + "/summary.json"))["checklist"]
assert len(c) == 7, c
ok = {r["item"]: r["ok"] for r in c}
assert ok["Expected vs seen"] and ok["Reproducer and iteration count"], ok
# the workbook, like the PDF, lists what the report has (issue 21), not a to-do list
ws = openpyxl.load_workbook(sys.argv[1] + "/report.xlsx")["Checklist"]
have = [r["item"] for r in c if r["ok"]]
assert [c.value for c in ws[1]] == ["Item", "Detail"], [c.value for c in ws[1]]
assert [ws.cell(row=i + 2, column=1).value for i in range(len(have))] == have, have
assert not any(str(v.value or "").startswith(("Add ", "If this is")) for row in ws.iter_rows(min_row=2) for v in row), "to-do text"
PY
# telemetry that ends inside the first iteration does not cover a full one
head -6 "$T" >"$WORK/short.txt"
"$TD" report "$WORK/spyre.json" -o "$WORK/c" --format json --telemetry "$WORK/short.txt" 2>/dev/null || die "report c"
$PY -c 'import json,sys; c={r["item"]: r for r in json.load(open(sys.argv[1]))["checklist"]}; r=c["Telemetry covering at least one full active iteration"]; assert not r["ok"] and "start aiu-smi before" in r["detail"], r' "$WORK/c/summary.json" ||
    die "partial telemetry ticked"
# other stacks: the items say what that stack needs (no torch-spyre commit, no
# key_averages table for Nsight Systems or IPU; PyTorch alone for a CUDA/ROCm Kineto trace)
for x in "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite:other" "$ROOT/examples/ipu/detailed.jsonl:other" \
         "$TRACES/kineto/hta_mi250_minitoy.json.gz:torch"; do
    [ -d "$TRACES" ] || break
    rm -rf "$WORK/o"
    "$TD" report "${x%:*}" -o "$WORK/o" --format json --meta versions="CUDA 12.4" 2>/dev/null || die "report ${x%:*}"
    $PY - "$WORK/o/summary.json" "${x##*:}" <<'PY' || die "checklist of ${x%:*}"
import json, sys
c = {r["item"]: r for r in json.load(open(sys.argv[1]))["checklist"]}
assert "PyTorch version and torch-spyre commit" not in c, c.keys()
if sys.argv[2] == "torch":
    assert "PyTorch version" in c and "key_averages-style op table" in c, c.keys()
else:
    assert "key_averages-style op table" not in c and "PyTorch version" not in c, c.keys()
    v = c["Software versions (framework, SDK, driver)"]
    assert v["ok"] and v["detail"] == "CUDA 12.4", v
    assert "aiu-smi dmon (or" not in c["Telemetry covering at least one full active iteration"]["detail"]
PY
done
exit 0
