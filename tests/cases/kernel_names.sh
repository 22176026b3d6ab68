# Issue 21: short kernel names. "void cutlass::Kernel2<...>" is three different kernels
# in the H100 trace and at::native::vectorized_elementwise_kernel several in the A100
# one: each kernel gets a short name (analyse/names.c, the kernels table's short_name)
# that is unique within the report, keeps what tells it apart (the CUTLASS tile
# configuration, the functor), and whose every run of letters and digits occurs in its
# full name. Tables on
# stdout and in the PDF and the findings show it; the workbook keeps the full name.
# Expected values come from the traces themselves (the kernel names Python reads from the
# JSON), not from tracedoc.
. "$ROOT/tests/lib.sh"
need_traces
for T in "$TRACES/kineto-shapes/tl_h100_bert_small.json.gz" "$TRACES/kineto/hta_a100_ws16_rank0.json.gz" \
         "$TRACES/kineto/hta_mi250_minitoy.json.gz"; do
    b=$(basename "$T" .json.gz)
    "$TD" summary --format json "$T" >"$WORK/$b.json" 2>/dev/null || die "summary $b failed"
    $PY - "$T" "$WORK/$b.json" <<'PYEOF' || exit 1
import gzip, json, re, sys
tr = json.load(gzip.open(sys.argv[1]))
names = {e["name"] for e in tr["traceEvents"] if str(e.get("cat", "")).lower() == "kernel"}
s = json.load(open(sys.argv[2]))
k = s["kernels"]
assert {r["name"] for r in k} == names, "kernels table names differ from the trace's"
short = [r["short_name"] for r in k]
assert all(short), "a kernel without a short name"
assert len(set(short)) == len(short), [x for x in short if short.count(x) > 1]
for r in k:
    for w in re.findall(r"[A-Za-z0-9]+", r["short_name"]):
        assert w in r["name"], (w, r["short_name"], r["name"])
    assert len(r["short_name"]) <= 120 or r["short_name"] == r["name"], r
    assert not r["short_name"].startswith("void "), r["short_name"]
# what tells them apart is kept: the CUTLASS tile configuration, the functor
for r in k:
    if r["name"].startswith("void cutlass::Kernel"):
        tile = re.search(r"\d+x\d+_\d+x\d+", r["name"]).group(0)
        assert tile in r["short_name"], (tile, r["short_name"])
    # the innermost functor (the wrapper AUnaryFunctor/BinaryFunctor says less)
    m = re.findall(r"(\w*Functor\w*)<", r["name"])
    lam = re.search(r"(\w+)(?:<[^<>]*>)?\([^()]*\)::\{lambda", r["name"])
    if r["name"].startswith("void at::native::vectorized_elementwise_kernel") and lam:
        # a lambda's functor: the function it is defined in tells it
        assert lam.group(1) in r["short_name"], (lam.group(1), r["short_name"])
    elif r["name"].startswith("void at::native::vectorized_elementwise_kernel") and m:
        assert m[-1] in r["short_name"], (m[-1], r["short_name"])
cut = [r for r in k if r["name"].startswith("void cutlass::Kernel2<")]
vec = [r for r in k if r["name"].startswith("void at::native::vectorized_elementwise_kernel<")]
assert len({r["short_name"] for r in cut}) == len(cut) and len({r["short_name"] for r in vec}) == len(vec)
# the findings name the top kernel by its short name
top = k[0]["short_name"]
assert any(("(%s)" % top) in f for f in s["findings"]) or not any("top kernel" in f for f in s["findings"]), (top, s["findings"])
print(len(k), "kernels,", len(cut), "cutlass Kernel2,", len(vec), "vectorized_elementwise_kernel")
PYEOF
done
# H100: the three cutlass::Kernel2 kernels
$PY -c "import json,sys; k=json.load(open(sys.argv[1]))['kernels']; assert sum(r['name'].startswith('void cutlass::Kernel2<') for r in k) == 3" \
    "$WORK/tl_h100_bert_small.json" || die "H100: not three cutlass::Kernel2 kernels"
# stdout table: short names, one unit per time column, a dash for a std dev of one call
T=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
"$TD" summary "$T" --table kernels >"$WORK/k.txt" 2>/dev/null || die "summary --table kernels failed"
grep -q "void cutlass" "$WORK/k.txt" && die "stdout table shows full C++ names"
grep -q "Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>\|Kernel2<cutlass_80_tensorop_.*_256x128_64x3_tn_align2>" "$WORK/k.txt" ||
    die "stdout table lacks the short name: $(head -5 "$WORK/k.txt")"
$PY - "$WORK/k.txt" "$WORK/tl_h100_bert_small.json" <<'PYEOF' || exit 1
import json, re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
k = json.load(open(sys.argv[2]))["kernels"]
i = lines.index("Top kernels")
rows = lines[i + 2:i + 2 + len(k)]
# columns are right-aligned numbers: take the unit of each time cell per column
cells = [re.findall(r"(\u2014|[\d.]+ (?:ns|\u00b5s|ms|s))(?=\s|$)", l) for l in rows]
ncol = len(cells[0])
for c in range(ncol):
    units = {x[c].split()[-1] for x in cells if len(x) > c and x[c] != "\u2014"}
    assert len(units) <= 1, ("column %d mixes units" % c, units)
assert " us" not in "\n".join(lines), "microseconds written as us"
for r, l in zip(k, rows):
    if r["calls"] == 1:
        assert "\u2014" in l, ("std dev of one call not a dash", l)
PYEOF
# the workbook keeps the full names (and the short ones beside them)
"$TD" report "$T" -o "$WORK/r" --format pdf,xlsx >/dev/null 2>&1 || die "report failed"
$PY - "$WORK/r/report.xlsx" "$WORK/tl_h100_bert_small.json" <<'PYEOF' || exit 1
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
ss = z.read("xl/sharedStrings.xml").decode()
k = json.load(open(sys.argv[2]))["kernels"]
import html
for r in k:
    assert html.escape(r["name"], quote=False) in ss, ("workbook lacks", r["name"])
PYEOF
# the PDF's kernel table: the short names (a wrapped name is whole once the lines are
# joined), not the full ones (the flamegraph's frames keep the trace's names)
pdftotext -raw "$WORK/r/report.pdf" "$WORK/r.txt"
$PY - "$WORK/r.txt" "$WORK/tl_h100_bert_small.json" <<'PYEOF' || exit 1
import json, sys
t = open(sys.argv[1], encoding="utf-8").read()
i = t.index("Top kernels")
j = t.find("Top ops", i)
tab = t[i:j if j > 0 else i + 1500].replace("\n", "")
k = json.load(open(sys.argv[2]))["kernels"]
for r in k[:8]:
    assert r["short_name"].replace(" ", "") in tab.replace(" ", ""), ("PDF table lacks", r["short_name"])
assert "void cutlass" not in tab, "PDF table shows a full name"
PYEOF
exit 0
