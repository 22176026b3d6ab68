# report end to end: every document from one real trace; determinism (two runs, every
# byte equal); --format subsets; template errors before any output; hostile names in all
# three documents; diff/--baseline exit codes.
. "$ROOT/tests/lib.sh"
need_traces
EX="$ROOT/examples/hta_nccl_data.json.gz"
export TRACEDOC_DATA="$ROOT"

# 1. all documents, twice, identical bytes
"$TD" report "$EX" -o "$WORK/a" 2>"$WORK/err.a" || { cat "$WORK/err.a"; die "report failed"; }
"$TD" report "$EX" -o "$WORK/b" 2>/dev/null || die "second report failed"
for f in report.pdf report.xlsx summary.json flame-cpu.svg flame-device.svg cpu.folded device.folded; do
    [ -s "$WORK/a/$f" ] || die "missing $f"
done
for f in "$WORK"/a/*; do
    cmp -s "$f" "$WORK/b/$(basename "$f")" || die "not deterministic: $(basename "$f")"
done
ls "$WORK/a" | grep -q 'tmp' && die "temporary file left behind"
# the same numbers in every document: the top kernel's total from summary.json appears
# formatted in the PDF text and as a number in the workbook
$PY - "$WORK/a" <<'PY' || exit 1
import json, sys, subprocess, openpyxl
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
k = s["kernels"][0]
ms = "%.3f ms" % (k["total_ns"] / 1e6)
txt = subprocess.run(["pdftotext", "-layout", d + "/report.pdf", "-"], capture_output=True, text=True).stdout
assert ms in txt, "PDF lacks the top kernel total %s" % ms
wb = openpyxl.load_workbook(d + "/report.xlsx")
found = False
for ws in wb.worksheets:
    for row in ws.iter_rows(values_only=True):
        if k["name"] in row:
            found = any(isinstance(v, (int, float)) and (abs(v - k["total_ns"] / 1e6) < 1e-3 or
                        abs(v - k["total_ns"] / 1e3) < 1e-3) for v in row)
            if found: break
    if found: break
assert found, "workbook lacks the top kernel with its total in ms or us"
PY

# 2. --format subset writes only what was asked
"$TD" report "$EX" -o "$WORK/c" --format json,csv 2>/dev/null || die "report --format json,csv"
[ -f "$WORK/c/summary.json" ] && [ -f "$WORK/c/kernels.csv" ] || die "json/csv missing"
[ -e "$WORK/c/report.pdf" ] || [ -e "$WORK/c/report.xlsx" ] && die "--format wrote more than asked"

# 3. a bad template: exit 2, message with file:line, nothing written
printf 'title = x\n[pdf]\nsection table\n' > "$WORK/bad.tdt"
expect_exit 2 "$TD" report "$EX" -o "$WORK/d" --template "$WORK/bad.tdt" 2>"$WORK/err" || exit 1
grep -q "bad.tdt:3:" "$WORK/err" || { cat "$WORK/err"; die "template error lacks file:line"; }
[ -e "$WORK/d" ] && die "output written despite a bad template"
expect_exit 2 "$TD" report "$EX" -o "$WORK/d" --template no-such-template 2>/dev/null || exit 1
for t in bug-report nightly manager; do
    "$TD" report "$EX" -o "$WORK/t-$t" --template "$t" 2>/dev/null || die "template $t failed"
done
[ -f "$WORK/t-nightly/kernels.csv" ] || die "nightly writes csv"
[ -f "$WORK/t-manager/report.xlsx" ] && [ -f "$WORK/t-manager/report.pdf" ] || die "manager documents"
[ "$(pdfinfo "$WORK/t-manager/report.pdf" | awk '/^Pages:/{print $2}')" = 1 ] || die "manager PDF is one page"

# 4. an unwritable output leaves no partial file and exits 4
mkdir -p "$WORK/ro" && chmod 500 "$WORK/ro"
if [ "$(id -u)" != 0 ]; then
    expect_exit 4 "$TD" report "$EX" -o "$WORK/ro/x" 2>/dev/null || exit 1
fi
printf 'x' > "$WORK/afile"
expect_exit 4 "$TD" report "$EX" -o "$WORK/afile" 2>/dev/null || exit 1

# 5. hostile names through every document
H="$ROOT/tests/data/e2e/hostile.json"
"$TD" report "$H" -o "$WORK/h" --format pdf,xlsx,svg,json 2>"$WORK/err.h" || { cat "$WORK/err.h"; die "hostile report failed"; }
$PY - "$WORK/h" <<'PY' || exit 1
import sys, glob, subprocess, xml.etree.ElementTree as ET, openpyxl, json
d = sys.argv[1]
names = ["=cmd|' /C calc'!A0", "+SUM(A1:A9) <b>bold</b> & 'q'"]
for svg in glob.glob(d + "/flame-*.svg"):
    raw = open(svg, encoding="utf-8").read()
    ET.fromstring(raw)  # well-formed
    assert raw.count("<script") == 1, svg + ": extra script element"
    assert "alert(1)</script>" not in raw and '<script>alert("x")' not in raw, svg
wb = openpyxl.load_workbook(d + "/report.xlsx")
seen = set()
for ws in wb.worksheets:
    for row in ws.iter_rows():
        for c in row:
            if c.value in names:
                assert c.data_type == "s", "%s!%s is a %s cell" % (ws.title, c.coordinate, c.data_type)
                seen.add(c.value)
assert seen == set(names), "workbook lacks hostile names as strings: %r" % (set(names) - seen)
txt = subprocess.run(["pdftotext", d + "/report.pdf", "-"], capture_output=True, text=True).stdout
# tables and findings name the kernel by its short name ("+SUM", issue 21); the op
# name with markup characters shows them literally (escaped, not taken as markup)
assert "+SUM" in txt, "PDF lacks the kernel's short name"
assert '<script>alert("x")</script> & ]]>' in txt, "PDF lacks the literal op name"
s = json.load(open(d + "/summary.json"))
assert any(k["name"] == names[1] for k in s["kernels"])
PY
qpdf --check "$WORK/h/report.pdf" >/dev/null || die "qpdf --check"

# 6. diff and --baseline: the same input is not a regression; exit 1 on a regression
"$TD" diff "$WORK/a/summary.json" "$WORK/a/summary.json" -o "$WORK/diff" >/dev/null || die "diff of equal runs"
[ -s "$WORK/diff/regression.csv" ] || die "regression.csv"
$PY - "$WORK/a/summary.json" "$WORK/slow.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in s["kernels"][:1]:
    k["mean_ns"] = int(k["mean_ns"] * 1.5)
json.dump(s, open(sys.argv[2], "w"))
PY
expect_exit 1 "$TD" diff "$WORK/a/summary.json" "$WORK/slow.json" >"$WORK/diff.txt" || exit 1
grep -q regressed "$WORK/diff.txt" || die "diff output lacks 'regressed'"
"$TD" report "$EX" -o "$WORK/n" --template nightly --baseline "$WORK/slow.json" 2>/dev/null || die "report --baseline"
$PY -c 'import json,sys; s=json.load(open(sys.argv[1])); r=s["regression"]; assert "metrics" not in r and "regressed" in r and "comparisons" in s' "$WORK/n/summary.json" || die "summary.json lacks regression"
pdftotext "$WORK/n/report.pdf" - | grep -qi 'regress' || die "PDF lacks the regression section"
exit 0
