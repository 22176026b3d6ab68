# Issue 21: a workbook has no sheet, column or row that says nothing for its input (doc/
# outputs.md "Workbook"), checked on real traces against their summary.json:
# - nsys saxpy: one kernel, so no Variability sheet; one device, so the GPU timeline has
#   that device's row and not the job-wide "all" row repeating it; no "Scope" column
#   ("trace" in every row); no Checklist sheet (the trace file is all it has);
# - MI250 toy: Steps without "Warm-up" (no in every row) and "Active window" (1 in
#   every row); the Checklist lists only what the report has, never an "Add ..." to-do;
# - MTIA: op_perf rows without any device time, so no "Op performance" sheet;
# - Summary sheet: no figure that is 1 or 0 by construction (Ranks 1, World size 1; for the
#   SambaNova example, which has no steps, no warm-up mode or "Warm-up steps dropped 0");
# - MI250: its ops' rates are all under 1 TFLOP/s, so the Op performance sheet gives them
#   in GFLOP/s (not "0.007"): aten::addmm 6.719 GFLOP/s, TraceLens's 0.00671896 TFLOP/s
#   (../shared/oracles/analyses/hta_mi250_minitoy/tracelens/perf_GEMM_raw.csv);
# - IPU numbers (an identifier beside a text column) are centred, not right-aligned
#   against the step type's text.
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
for t in nsys/pipit_saxpy_mpi_cuda_a100.sqlite kineto/hta_mi250_minitoy.json.gz kineto/hta_mtia_inference_rank0.json.gz; do
    n=$(basename "$t"); n=${n%%.*}
    "$TD" report "$TRACES/$t" -o "$n" --format xlsx,json >/dev/null 2>&1 || die "$t: report failed"
done
"$TD" report "$ROOT/examples/sambanova/decoder" -o samba --format xlsx,json >/dev/null 2>&1 || die "samba report failed"
"$TD" report "$ROOT/examples/ipu/detailed.jsonl" -o ipu --format xlsx >/dev/null 2>&1 || die "ipu report failed"
$PY - <<'PYEOF' || exit 1
import json, openpyxl
def load(n):
    return json.load(open(n + "/summary.json")), openpyxl.load_workbook(n + "/report.xlsx")
def header(ws):
    return [c.value for c in ws[1] if c.value is not None]
s, wb = load("pipit_saxpy_mpi_cuda_a100")
assert len(s["variability"]) == 1, s["variability"]
assert "Variability" not in wb.sheetnames, wb.sheetnames
assert "Checklist" not in wb.sheetnames and [r["item"] for r in s["checklist"] if r["ok"]] == ["The trace file"], s["checklist"]
dev = [r for r in s["gpu_timeline"] if r["device"] != "all"]
assert len(dev) == 1 and len(s["gpu_timeline"]) == 2, s["gpu_timeline"]
ws = wb["GPU timeline"]
assert "Scope" not in header(ws), header(ws)
rows = [r for r in ws.iter_rows(min_row=2, values_only=True) if any(v is not None for v in r)]
assert len(rows) == 1 and rows[0][0] == dev[0]["device"], rows
s, wb = load("hta_mi250_minitoy")
assert {r["warmup"] for r in s["steps"]} == {False} and {r["window"] for r in s["steps"]} == {1}, s["steps"]
h = header(wb["Steps"])
assert "Warm-up" not in h and "Active window" not in h, h
have = [r["item"] for r in s["checklist"] if r["ok"]]
ws = wb["Checklist"]
assert header(ws) == ["Item", "Detail"], header(ws)
items = [r[0] for r in ws.iter_rows(min_row=2, values_only=True) if r[0]]
assert items[:len(have)] == have, (items, have)
assert not any(str(v).startswith(("Add ", "If this is")) for r in ws.iter_rows(values_only=True) for v in r if v), "to-do"
s, wb = load("hta_mtia_inference_rank0")
assert s["op_perf"] and all(r["kernel_ns"] is None for r in s["op_perf"]), s["op_perf"][:2]
assert "Op performance" not in wb.sheetnames, wb.sheetnames
def labels(wb):
    return {r[0] for r in wb["Summary"].iter_rows(values_only=True) if r and isinstance(r[0], str)}
s, wb = load("samba")
assert s["trace"]["ranks"] == 1 and s["trace"]["world_size"] == 1 and s["warmup"]["dropped"] == 0, s["trace"]
assert "steps" not in s and "modules" not in s
l = labels(wb)
assert not l & {"Ranks", "World size", "Warm-up steps dropped", "Warm-up removal"}, l
assert {"Traced time", "Host share", "Warm-up rule"} <= l, l
s, wb = load("hta_mi250_minitoy")
l = labels(wb)
assert "Ranks" not in l and "Warm-up steps dropped" in l, l  # it has steps: the rule could drop some
ws = wb["Op performance"]
h = header(ws)
assert "GFLOP/s" in h and "GB/s" in h and "TFLOP/s" not in h, h
row = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[0] and r[0].startswith("aten::addmm")][0]
g = row[h.index("GFLOP/s")]
assert abs(g - 6.71895960905555) < 0.01, g
ws = openpyxl.load_workbook("ipu/report.xlsx")["IPU steps"]
assert ws["A1"].value == "IPU" and ws["B1"].value == "Step type", [c.value for c in ws[1]]
assert all(ws.cell(row=r, column=1).alignment.horizontal == "center" for r in range(2, 6)), "IPU column not centred"
PYEOF
# - the Summary sheet's time breakdown: no part reads under 0.01 of its column's unit. The
#   H100 trace's exposed memcpy is 2 us beside 3.6 ms of idle: the column is in us
#   (2.1, not "0.002 ms"), each part equal to gpu_timeline's figure.
"$TD" report "$TRACES/kineto-shapes/tl_h100_bert_small.json.gz" -o h100 --format xlsx,json >/dev/null 2>&1 || die "h100 report failed"
$PY - <<'PYEOF' || exit 1
import json, openpyxl
s = json.load(open("h100/summary.json"))
row = [r for r in s["gpu_timeline"] if r["device"] == "all"][0]
rows = list(openpyxl.load_workbook("h100/report.xlsx")["Summary"].iter_rows(values_only=True))
i = [k for k, r in enumerate(rows) if r[0] and str(r[0]).endswith("time breakdown (all devices)")][0]
unit = rows[i][1]
scale = {"Time (us)": 1e3, "Time (\u00b5s)": 1e3, "Time (ms)": 1e6, "Time (s)": 1e9}[unit]
want = {"Computation": "computation_ns", "Exposed memcpy": "exposed_memcpy_ns", "Idle": "idle_ns"}
seen = {}
for r in rows[i + 1:i + 6]:
    if r[0] in want:
        seen[r[0]] = r[1]
assert set(seen) == set(want), (seen, rows[i:i + 6])
for k, key in want.items():
    assert abs(seen[k] - row[key] / scale) < 1e-9 * max(1, seen[k]), (k, seen[k], row[key], unit)
    assert seen[k] >= 0.01, ("reads under 0.01 " + unit, k, seen[k])
print("breakdown", unit, seen)
PYEOF
exit 0
