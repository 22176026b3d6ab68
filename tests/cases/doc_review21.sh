# Issue 21's per-page review of the H100 and DLRM reports: what a reader saw as empty or
# unreadable. Expected values from the trace's own events (read here by Python) and from
# the issue's wording.
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
export SOURCE_DATE_EPOCH=1700000000
H100="$TRACES/kineto-shapes/tl_h100_bert_small.json.gz"
DLRM="$TRACES/kineto/param_dlrm_8ranks.tar.gz"

# 1. H100: one ProfilerStep. The device-by-module flamegraph (all > ProfilerStep > the
#    kernels) repeats the kernels table: not in the PDF, flame-device.svg still written.
#    The checklist follows the last section: no page holding only its two items.
#    The ops table's CPU avg column reads in µs (it read 0.003-0.032 ms under the
#    ProfilerStep row's 4.426 ms).
"$TD" report "$H100" -o "$WORK/h" --format pdf,svg,json 2>/dev/null || die "report h100"
[ -s "$WORK/h/flame-device.svg" ] || die "flame-device.svg not written"
pdftotext -layout "$WORK/h/report.pdf" "$WORK/h.txt" || die "pdftotext"
$PY - "$H100" "$WORK/h.txt" "$WORK/h/summary.json" <<'PY' || exit 1
import gzip, json, re, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
steps = {e["name"] for e in ev if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")}
assert len(steps) == 1, steps
txt = open(sys.argv[2]).read()
s = json.load(open(sys.argv[3]))
assert "Flamegraph: Device time by module" not in txt, "3-band module flamegraph drawn"
pages = txt.split("\f")
pages = [p for p in pages if p.strip()]
for i, p in enumerate(pages):
    body = [l for l in p.splitlines() if l.strip() and "Performance report:" not in l
            and "tracedoc 0" not in l]
    assert len(body) > 12, "page %d of %d nearly empty: %s" % (i + 1, len(pages), body)
assert "What this report contains" in pages[-1] and "Memory peaks" in pages[-1], "checklist alone"
# CPU avg of aten::addmm = its CPU total / calls, from the events (us, three decimals)
add = [e for e in ev if e.get("ph") == "X" and e["name"] == "aten::addmm" and e.get("cat") == "cpu_op"]
tot = sum(e["dur"] for e in add)
avg_us = tot / len(add)
hdr = next(l for l in txt.splitlines() if "CPU avg" in l and "Name" in l)
cols = re.split(r"\s{2,}", hdr.strip())
row = next(l for l in txt.splitlines() if l.strip().startswith("aten::addmm "))
cells = re.split(r"\s{2,}", row.strip())
cell = cells[cols.index("CPU avg")]
assert cell == "%.3f \u00b5s" % avg_us, (cell, avg_us)
# no cell of the ops table reads "0.0xx ms" in the CPU avg column
ops = txt[txt.index("Top ops"):txt.index("Top 12 of")]
for l in ops.splitlines()[2:]:
    c = re.split(r"\s{2,}", l.strip())
    if len(c) == len(cols):
        assert not c[cols.index("CPU avg")].startswith("0.0"), l
PY

# 2. DLRM with three record_function ranges as modules: its device-by-module flamegraph
#    (all, the modules, the kernels) is three bands, the modules and kernels tables'
#    shares again: left out of the PDF (issue 21); the SVG keeps the kernels' full names
"$TD" report "$DLRM" -o "$WORK/d" --format pdf,svg,json,folded \
    --module-pattern '^## (backward|sparse_data_dist|copy_batch_to_gpu) ##$' 2>/dev/null || die "report dlrm"
pdftotext "$WORK/d/report.pdf" "$WORK/d.txt" || die "pdftotext"
$PY - "$WORK/d/summary.json" "$WORK/d.txt" "$WORK/d/flame-device.svg" "$WORK/d/device.folded" <<'PY' || exit 1
import json, re, sys
s = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
svg = open(sys.argv[3]).read()
st = [l.rsplit(" ", 1)[0].split(";") for l in open(sys.argv[4])]
assert max(len(x) for x in st) == 2 and len({x[0] for x in st if len(x) == 2}) >= 2, st[:4]
assert "Flamegraph: Device time by module" not in txt, "three-band flamegraph drawn"
k = next(k for k in s["kernels"] if k["name"].startswith("ncclKernel_SendRecv"))
assert k["short_name"] != k["name"], k
assert k["name"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in svg, \
    "SVG without the full name"
PY
# 3. the workbook names kernels by their full names, the Changes sheet too (its label
#    column was the documents' short-name label); the PDF keeps the short one. DLRM rank 3
#    against rank 0: a cub radix-sort kernel's total time changes.
mkdir -p "$WORK/x" && tar -C "$WORK/x" -xzf "$DLRM" || die "untar"
W0=$(ls "$WORK"/x/*/worker0_*.json) W3=$(ls "$WORK"/x/*/worker3_*.json)
"$TD" report "$W3" --baseline "$W0" -o "$WORK/m" --template manager --format xlsx,pdf,json \
    >/dev/null 2>&1
[ $? -le 1 ] || die "report --baseline"
pdftotext "$WORK/m/report.pdf" "$WORK/m.pdf.txt" || die "pdftotext"
$PY - "$W3" "$WORK/m/summary.json" "$WORK/m/report.xlsx" "$WORK/m.pdf.txt" <<'PY' || exit 1
import json, sys, zipfile, re, html
ev = json.load(open(sys.argv[1]))["traceEvents"]
kern = {e["name"] for e in ev if e.get("cat") == "kernel"}
s = json.load(open(sys.argv[2]))
ch = [r for r in s["changes"] if r["metric"].startswith("kernel.")]
assert ch, "no kernel among the changes"
full = ch[0]["metric"].split(":", 1)[1]
assert full in kern, full                      # a kernel of the trace, by its full name
# the Changes sheet's strings: the shared strings of the workbook, in the sheet's cells
z = zipfile.ZipFile(sys.argv[3])
wbx = z.read("xl/workbook.xml").decode()
sheets = re.findall(r'<sheet name="([^"]+)" sheetId="\d+" r:id="rId(\d+)"', wbx)
idx = [i for i, (n, _) in enumerate(sheets) if n == "Changes"][0]
sst = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in
       re.findall(r"<si>(.*?)</si>", z.read("xl/sharedStrings.xml").decode(), re.S)]
sx = z.read("xl/worksheets/sheet%d.xml" % (idx + 1)).decode()
cells = [sst[int(v)] for v in re.findall(r'<c [^>]*t="s"[^>]*><v>(\d+)</v>', sx)]
want = "Kernel %s: total time" % full
assert want in cells, ("Changes sheet without the full name", [c for c in cells if c.startswith("Kernel")])
pdf = re.sub(r"\s+", " ", open(sys.argv[4]).read())
short = next(k["short_name"] for k in s["kernels"] if k["name"] == full)
assert "Kernel %s: total time" % short in pdf, "PDF without the short name"
PY
exit 0
