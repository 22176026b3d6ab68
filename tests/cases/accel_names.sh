# Accelerator naming: a PrivateUse1 (torch-spyre) trace is SPYRE, with key_averages-style op
# columns ("Self SPYRE", "SPYRE total", "SPYRE time avg") and no "GPU" wording in any
# document; iteration_N ranges are its steps. MTIA and AMD (ROCm, named CUDA by torch)
# real traces; an AIU flex trace. The Spyre trace is synthetic (tests/data/aiu/gen_spyre_kineto.py).
. "$ROOT/tests/lib.sh"
need_traces
$PY "$ROOT/tests/data/aiu/gen_spyre_kineto.py" "$WORK/spyre.json" || die "generator"
"$TD" summary --format json "$WORK/spyre.json" >"$WORK/s.json" 2>/dev/null || die "summary"
$PY - "$WORK/s.json" <<'PY' || die "SPYRE naming"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["trace"]["accelerator"] == "SPYRE" and s["trace"]["device_word"] == "SPYRE", s["trace"]
assert [st["name"] for st in s["steps"]] == ["iteration_0", "iteration_1", "iteration_2"], s["steps"]
mm = [o for o in s["ops"] if o["name"] == "aten::matmul"][0]
assert mm["device_self_ns"] == 9 * 120_000_000, mm   # 9 kernels of 120 ms launched inside it
PY
"$TD" summary "$WORK/spyre.json" 2>/dev/null | grep -q "Self SPYRE  SPYRE total  SPYRE time avg" ||
    die "op table columns"
for t in bug-report nightly manager; do
    "$TD" report "$WORK/spyre.json" --template $t -o "$WORK/$t" 2>/dev/null || die "report $t"
    pdftotext "$WORK/$t/report.pdf" - | grep -i "gpu" && die "GPU in the $t PDF"
    pdftotext "$WORK/$t/report.pdf" - | grep -q "SPYRE" || die "SPYRE not in the $t PDF"
    unzip -p "$WORK/$t/report.xlsx" | grep -i "gpu time\|gpu timeline\|gpu idle\|gpu busy" && die "GPU in the $t workbook"
    cat "$WORK/$t"/*.svg 2>/dev/null | grep -i "gpu" && die "GPU in the $t SVG"
done
"$TD" report "$TRACES/aiu/allreduce_tp4.json" --template nightly -o "$WORK/aiu" 2>/dev/null || die "aiu report"
pdftotext "$WORK/aiu/report.pdf" - | grep -i "gpu\|cuda" && die "GPU in the AIU PDF"
# real traces: MTIA, and AMD MI250 (torch's key_averages names ROCm devices CUDA)
"$TD" summary "$TRACES/kineto/hta_mtia_inference_rank0.json.gz" 2>/dev/null >"$WORK/m.txt"
grep -q "Self MTIA  MTIA total  MTIA time avg" "$WORK/m.txt" || die "MTIA columns"
grep -q "^MTIA timeline" "$WORK/m.txt" || die "MTIA timeline title"
# issue 21: AMD devices (deviceProperties "AMD Radeon Graphics") are ROCm, not CUDA
"$TD" summary "$TRACES/kineto/hta_mi250_minitoy.json.gz" 2>/dev/null >"$WORK/r.txt"
grep -q "Self ROCm  ROCm total" "$WORK/r.txt" || die "ROCm columns"
grep -q "CUDA total\|Self CUDA" "$WORK/r.txt" && die "CUDA columns on an AMD trace"
"$TD" report "$TRACES/kineto/hta_mi250_minitoy.json.gz" -o "$WORK/mi" --format json,pdf 2>"$WORK/mi.err" || die "MI250 report"
$PY -c 'import json,sys; t=json.load(open(sys.argv[1]))["trace"]; assert t["accelerator"]=="ROCm" and t["device_word"]=="GPU", t' "$WORK/mi/summary.json" || die "MI250 accelerator"
pdftotext "$WORK/mi/report.pdf" - | grep -q "Self ROCm" || die "Self ROCm not in the MI250 PDF"
grep -q "nvidia-smi" "$WORK/mi.err" && die "nvidia-smi advised for an AMD trace"
# the MTIA checklist does not advise nvidia-smi (issue 21)
"$TD" report "$TRACES/kineto/hta_mtia_inference_rank0.json.gz" -o "$WORK/mt" --format json 2>"$WORK/mt.err" || die "MTIA report"
grep -q "nvidia-smi" "$WORK/mt.err" "$WORK/mt/summary.json" && die "nvidia-smi advised for MTIA"
grep -q "note: the report has no Telemetry" "$WORK/mt.err" || die "no telemetry note for MTIA"
exit 0
