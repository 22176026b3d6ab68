# Issue 38 (section 4, "Duplicates"): an op and the op it calls with the same device time
# are one piece of work: the H100 trace listed aten::layer_norm and aten::native_layer_norm
# at 30.912 µs each, in the op performance table, its sheet and as two roofline points.
# The documents keep the outer op, as TraceLens's unified per-op summary does (the
# expected rows are TraceLens's: ../shared/oracles/analyses/tl_h100_bert_small/tracelens/
# report/unified_perf_summary.csv); summary.json keeps both rows (TraceLens's per-op
# sheets have both; diag_tracelens compares them), the inner one naming the outer in
# `inside`. A profiler range (ProfilerStep#6) is not "the top op" of the findings.
. "$ROOT/tests/lib.sh"
need_traces
O=$TRACES/../oracles/analyses/tl_h100_bert_small/tracelens/report/unified_perf_summary.csv
[ -f "$O" ] || { echo "oracle missing"; exit 77; }
T=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
"$TD" report "$T" -o "$WORK/r" --format pdf,xlsx,json >/dev/null 2>"$WORK/err" || die "report failed: $(cat "$WORK/err")"
pdftotext -layout "$WORK/r/report.pdf" "$WORK/r.txt"
checked $PY - "$O" "$WORK/r/report.xlsx" "$WORK/r/summary.json" "$WORK/r.txt" <<'PYEOF' || exit 1
import ast, csv, json, re, sys
import openpyxl
def dims(text):   # "((512,), (141, 512), ())" and "[[512], [141, 512], []]" alike
    return tuple(tuple(x) for x in ast.literal_eval(text))
tl = {(r["name"], dims(r["Input Dims"])) for r in csv.DictReader(open(sys.argv[1]))}
ws = openpyxl.load_workbook(sys.argv[2], read_only=True)["Op performance"]
rows = list(ws.iter_rows(values_only=True))
shown = []
for r in rows[1:]:
    if not r[0] or not r[0].startswith("aten::"):
        continue          # the note under the rows
    op, _, d = r[0].partition(" ")
    shown.append((op, dims(d)))
bad = [k for k in shown if k not in tl]
assert not bad, "rows TraceLens's unified summary does not have: %s" % bad
assert ("aten::layer_norm", ((1, 141, 512), (), (512,), (512,), (), ())) in shown, shown
assert len(shown) == len(set(shown)), shown
s = json.load(open(sys.argv[3]))
inner = [r for r in s["op_perf"] if r["op"] == "aten::native_layer_norm"]
assert len(inner) == 1 and inner[0]["inside"].startswith("aten::layer_norm "), inner
outer = [r for r in s["op_perf"] if r["op"] == "aten::layer_norm"]
assert len(outer) == 1 and outer[0]["kernel_ns"] == inner[0]["kernel_ns"] and not outer[0]["inside"], outer
txt = open(sys.argv[4]).read()
assert "aten::native_layer_norm [[" not in txt.split("Shown once:")[0].split("Op performance model")[-1], \
    "native_layer_norm listed in the PDF's op performance table"
roof = txt[txt.rfind("Roofline"):]
assert "aten::native_layer_norm" not in roof, "native_layer_norm is a roofline point of its own"
# the findings' top op: the first row of the ops table (by self CPU) that is not a step
steps = {r["name"] for r in s["steps"]}
top = next(r for r in s["ops"] if r["name"] not in steps and not r["name"].startswith("ProfilerStep#"))
f = [x for x in txt.splitlines() if "top op by self CPU" in x]
assert f and "(%s)" % top["name"] in f[0], (f, top["name"])
PYEOF
exit 0
