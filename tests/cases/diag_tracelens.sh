# Acceptance (issue 24 item 5): the `op_perf` table (GEMM, SDPA, elementwise, norms,
# reductions) against
# TraceLens's own per-op output (../shared/oracles/analyses/<trace>/tracelens/
# perf_*_raw.csv; param_dlrm_8ranks: one folder per
# worker) on every shared Kineto trace it has them for: calls, FLOPs and bytes of a call
# exactly, device time and TFLOP/s within 1% (rules in tests/op_perf_check.py). Also: the
# device peaks row and --peak, and no table on a trace without input shapes.
. "$ROOT/tests/lib.sh"
need_traces
O=$TRACES/../oracles/analyses
[ -d "$O" ] || { echo "oracles missing"; exit 77; }
fail=0 n=0
check() { # TRACE TRACELENS_DIR NAME
    ls "$2"/perf_*_raw.csv >/dev/null 2>&1 || return 0
    "$TD" summary --format csv --table op_perf "$1" >"$WORK/$3.csv" 2>/dev/null || : >"$WORK/$3.csv"
    out=$($PY "$ROOT/tests/op_perf_check.py" "$WORK/$3.csv" "$2"); rc=$?
    case $rc in
    0) n=$((n + 1)); echo "$3: $(echo "$out" | tail -1)" ;;
    3) ;; # TraceLens has no rows with shapes
    *) echo "$3:"; echo "$out"; fail=1 ;;
    esac
}
for tr in "$TRACES"/kineto/*.json.gz "$TRACES"/kineto-shapes/*.json.gz; do
    b=$(basename "$tr" .json.gz)
    check "$tr" "$O/$b/tracelens" "$b"
done
mkdir -p "$WORK/dlrm" && tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -C "$WORK/dlrm" || die tar
for d in "$O"/param_dlrm_8ranks/tracelens/worker*; do
    w=$(basename "$d")
    f=$(ls "$WORK"/dlrm/*/"$w"*.json 2>/dev/null | head -1)
    [ -n "$f" ] || die "no trace for $w"
    check "$f" "$d" "dlrm_$w"
done
[ $n -ge 5 ] || die "only $n traces compared"
# the roofline: H100 SXM5 (the trace's "NVIDIA H100 80GB HBM3"), bf16 989.4 TFLOP/s and
# 3.35 TB/s (NVIDIA's datasheet); --peak overrides both
T=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
"$TD" report --format json -o "$WORK/r" "$T" || die report
"$TD" report --format json -o "$WORK/p" --peak 100:1 "$T" || die "report --peak"
$PY - "$WORK/r/summary.json" "$WORK/p/summary.json" <<'PYEOF' || fail=1
import json, sys
for path, pf, pb in ((sys.argv[1], 989.4, 3.35), (sys.argv[2], 100.0, 1.0)):
    d = json.load(open(path))
    for r in d["op_perf"]:
        assert r["peak_tflops"] == pf and r["peak_tbps"] == pb, (path, r)
        tc, tm = r["calls"] * r["flops"] / (pf * 1e3), r["calls"] * r["bytes"] / (pb * 1e3)
        assert r["roofline_ns"] == round(max(tc, tm)), (r, tc, tm)
        assert r["bound"] == ("compute" if tc >= tm else "memory"), r
        assert abs(r["roofline_share"] - max(tc, tm) / r["kernel_ns"]) < 1e-6, r
    print(d["roofline"]["peaks"])
    # the roofs the PDF draws: one per type of the rows, the peaks above, ridge = their ratio
    roofs = {r["dtype"]: r for r in d["op_perf_roofs"]}
    assert set(roofs) == {r["dtype"] for r in d["op_perf"] if r["peak_tflops"]}, roofs
    for r in roofs.values():
        assert (r["peak_tflops"], r["peak_tbps"]) == (pf, pb) and abs(r["ridge"] - pf / pb) < 1e-5, r
PYEOF
# the roofline chart is in the PDF (H100: bf16 roof, the top op listed), not without op_perf
"$TD" report --format pdf -o "$WORK/pdf" "$T" 2>/dev/null || die "report pdf"
pdftotext -layout "$WORK/pdf/report.pdf" - >"$WORK/pdf.txt"
grep -q "^Roofline$" "$WORK/pdf.txt" && grep -q "bf16 peak 989.4 TFLOP/s, 3.35 TB/s" "$WORK/pdf.txt" &&
    grep -q "^1 aten::addmm \[\[512\], \[141, 512\]" "$WORK/pdf.txt" || { echo "no roofline chart in the H100 PDF"; fail=1; }
"$TD" report --format pdf -o "$WORK/pdf2" "$TRACES/kineto/hta_ns_resolution_rank0.json.gz" 2>/dev/null || die "report pdf 2"
pdftotext "$WORK/pdf2/report.pdf" - | grep -q "^Roofline" && { echo "roofline chart without op_perf rows"; fail=1; }
expect_exit 2 "$TD" summary --peak 100 "$T" 2>/dev/null >/dev/null || fail=1
expect_exit 2 "$TD" summary --peak 0:1 "$T" 2>/dev/null >/dev/null || fail=1
# no input shapes (torch's legacy CPU export): no table
"$TD" summary --format csv --table op_perf "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json" >/dev/null 2>&1 &&
    { echo "op_perf table on a trace without shapes"; fail=1; }
# damaged shapes (tests/data/diag_damaged_shapes_memory.json: dimensions past int64, a zero
# stride, a kernel wider than the input, a dim out of range, shapes that do not broadcast,
# negative, missing, not arrays) are skipped without overflow (UBSan build); the one
# sound op is modelled: causal SDPA, B 1, H 2, N 3, d 4, by hand: 2 (2*3*3*4 + 2*3*4*3)
# = 288 FLOPs halved = 144; bytes 4 x 24 elements x 2 = 192
"$TD" summary --format csv --table op_perf "$ROOT/tests/data/diag_damaged_shapes_memory.json" >"$WORK/dmg.csv" || die "damaged shapes"
[ "$(grep -c '' "$WORK/dmg.csv")" = 2 ] && grep -q ',"SDPA_fwd",.*,1,144,192,' "$WORK/dmg.csv" ||
    { echo "damaged shapes:"; cat "$WORK/dmg.csv"; fail=1; }
"$TD" summary --format csv --table memory "$ROOT/tests/data/diag_damaged_shapes_memory.json" >/dev/null || die "damaged memory events"
# the models no shared trace has rows of (or where tracedoc reads the arguments TraceLens
# misreads), by hand from the definitions in analyse/op_models.c and TraceLens's
# perf_model.py (tests/data/op_models_hand.json):
# - SDPA backward, B 1, H 2, N 3, d 4: 5 products of 2 B H N N d = 5 x 144 = 720 FLOPs;
#   q, k, v, dO read, dQ, dK, dV written: 7 x 24 elements x 2 bytes = 336
# - flash_attn backward [B,N,H,d], Hq 4, Hkv 2 (GQA), N 3, d 4, causal: (5 x 288 + 2 x 12)/2
#   = 732; (2x48 + 2x24 + 2x24 + 48) x 4 bytes = 960
# - conv 1x2x5x5 * 3x2x3x3 + bias, stride 1, no padding: out 1x3x3x3 (27); 27 x 2 x 18 + 27
#   = 999 FLOPs; (50 + 54 + 3 + 27) x 4 = 536 bytes
# - its backward, all three gradients: 972 (dX) + 54 x 2 x 27 / 3 = 972 (dW) + 27 (db) = 1971;
#   ((27+54+50) + (27+50+54) + (27+3)) x 4 = 1168 (TraceLens: no bias gradient, and the bias
#   term counted in elements)
# - batch norm 2x3x4, C 3, not training ("False", which TraceLens reads as true): 9 + 9 +
#   2 x 24 = 66; (2 x 24 + 4 x 3) x 4 = 240
# - layer norm backward 2x4, C 4, mask all true: 4 x (4 x 2 + 5 x 2) = 72; (8 + 16 + 4 + 4 +
#   8) x 4 = 160
# - sum over dim -1 of 2x3x4: 24 FLOPs, (24 + 6) x 4 = 120; amax over [0, 2] keepdim: (24 +
#   3) x 4 = 108 (TraceLens: one output element for both)
# - mul fp16 [2,1,4] by fp32 [3,1]: broadcast 2x3x4 = 24; 8 x 2 + 3 x 4 + 24 x 4 = 124
"$TD" summary --format csv --table op_perf "$ROOT/tests/data/op_models_hand.json" >"$WORK/hand.csv" || die "hand-computed models"
$PY - "$WORK/hand.csv" <<'PYEOF' || fail=1
import csv, sys
want = {"aten::_scaled_dot_product_flash_attention_backward": ("SDPA_bwd", "bf16", 720, 336),
        "flash_attn::_flash_attn_backward": ("SDPA_bwd", "fp32", 732, 960),
        "aten::convolution": ("CONV_fwd", "fp32", 999, 536),
        "aten::convolution_backward": ("CONV_bwd", "fp32", 1971, 1168),
        "aten::native_batch_norm": ("NORM_fwd", "fp32", 66, 240),
        "aten::native_layer_norm_backward": ("NORM_bwd", "fp32", 72, 160),
        "aten::sum": ("Reduce", "fp32", 24, 120), "aten::amax": ("Reduce", "fp32", 24, 108),
        "aten::mul": ("BinaryElementwise", "fp16", 24, 124)}
got = {r["op"]: (r["category"], r["dtype"], int(r["flops"]), int(r["bytes"])) for r in csv.DictReader(open(sys.argv[1]))}
bad = [(k, v, got.get(k)) for k, v in want.items() if got.get(k) != v]
for b in bad:
    print("hand model %s: want %s, got %s" % b)
sys.exit(1 if bad or len(got) != len(want) else 0)
PYEOF
exit $fail
