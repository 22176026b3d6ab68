# Acceptance (issue 24 item 5, backward pass): the `op_perf_bwd` table against
# TraceLens's own backward-pass sheets (../shared/oracles/analyses/<trace>/tracelens/
# perf_*_bwdpass_raw.csv) on every shared Kineto trace that has them with Input Dims
# (hta_a100_ws16_rank0, hta_sampled_rank0, the 8 param_dlrm_8ranks workers; hta_nccl_data's
# and hta_ns_resolution_rank0's rows have no shapes, tl_h100_bert_small has no backward
# pass, and neither has a table): calls, FLOPs, bytes of a call and device time exactly,
# TFLOP/s within 1%, where TraceLens found kernels (rules in
# tests/op_perf_check.py --bwd). Then the link rules by hand on a small trace, the merge of
# partial summaries, and the CSV, JSON and workbook.
. "$ROOT/tests/lib.sh"
need_traces
O=$TRACES/../oracles/analyses
[ -d "$O" ] || { echo "oracles missing"; exit 77; }
fail=0 n=0
check() { # TRACE TRACELENS_DIR NAME
    "$TD" summary --format csv --table op_perf_bwd "$1" >"$WORK/$3.csv" 2>/dev/null || : >"$WORK/$3.csv"
    if ! ls "$2"/perf_*_bwdpass_raw.csv >/dev/null 2>&1; then
        # no backward-pass sheet: no table either
        [ -s "$WORK/$3.csv" ] && { echo "$3: op_perf_bwd without a TraceLens bwdpass sheet"; fail=1; }
        return 0
    fi
    out=$($PY "$ROOT/tests/op_perf_check.py" "$WORK/$3.csv" "$2" --bwd); rc=$?
    case $rc in
    0) n=$((n + 1)); echo "$3: $(echo "$out" | tail -1)" ;;
    3) [ -s "$WORK/$3.csv" ] && { echo "$3: rows where TraceLens has no shapes"; fail=1; } ;;
    *) echo "$3:"; echo "$out"; fail=1 ;;
    esac
}
for tr in "$TRACES"/kineto/*.json.gz "$TRACES"/kineto-shapes/*.json.gz; do
    b=$(basename "$tr" .json.gz)
    check "$tr" "$O/$b/tracelens" "$b"
done
# param_dlrm_8ranks: one TraceLens folder per worker (aten::sum of the loss, no kernel)
mkdir -p "$WORK/dlrm" && tar xzf "$TRACES/kineto/param_dlrm_8ranks.tar.gz" -C "$WORK/dlrm" || die tar
for d in "$O"/param_dlrm_8ranks/tracelens/worker*; do
    w=$(basename "$d")
    f=$(ls "$WORK"/dlrm/*/"$w"*.json 2>/dev/null | head -1)
    [ -n "$f" ] || die "no trace for $w"
    check "$f" "$d" "dlrm_$w"
done
[ $n -ge 10 ] || die "only $n traces compared"
# hta_a100_ws16_rank0: the sheet's figures themselves (aten::mean [[4096], [], [], []]:
# 40 calls, 172 us of backward kernels, 4096 FLOPs and 16388 bytes a call)
grep -q '^0,"aten::mean \[\[4096\], \[\], \[\], \[\]\]",.*,"Reduce",.*,40,4096,16388,172000,' "$WORK/hta_a100_ws16_rank0.csv" ||
    { echo "a100 aten::mean row:"; cat "$WORK/hta_a100_ws16_rank0.csv"; fail=1; }
# By hand (tests/data/op_perf_bwd_hand.json; forward thread 1, autograd thread 2):
# - aten::mean [[4,8]] seq 5, nested in adaptive_avg_pool2d (seq 5, earlier): the leaf,
#   its function's two kernels on two streams 210-214 and 212-216 us: 6 us; the second
#   aten::mean (seq 8) is not the latest event with 8 (aten::view after it is): no call
# - aten::sum [[16]] seq 6 encloses aten::max seq 7: its time is both functions' kernels,
#   5 + 3 us; aten::max alone 3 us; the second aten::sum (seq 9) has no backward function
# - Reduce backward = the forward's figures: mean 32 FLOPs, (32 + 1) x 4 bytes; sum 16,
#   68; max 32, 132
# - SDPA forward B 1, H 2, N 3, d 4 bf16, not causal: the backward formulas, 5 x 2 B H N N d
#   = 720 FLOPs, 7 x 24 elements x 2 = 336 bytes; 9 us
# - convolution forward: timed (2 us), not modelled
"$TD" summary --format csv --table op_perf_bwd "$ROOT/tests/data/op_perf_bwd_hand.json" >"$WORK/hand.csv" || die "hand trace"
$PY - "$WORK/hand.csv" <<'PYEOF' || fail=1
import csv, sys
want = [("aten::_scaled_dot_product_flash_attention", "SDPA_fwd", "1", "720", "336", "9000"),
        ("aten::sum", "Reduce", "1", "16", "68", "8000"),
        ("aten::mean", "Reduce", "1", "32", "132", "6000"),
        ("aten::max", "Reduce", "1", "32", "132", "3000"),
        ("aten::convolution", "CONV_fwd", "1", "", "", "2000")]
rows = list(csv.DictReader(open(sys.argv[1])))
got = [(r["op"], r["category"], r["calls"], r["flops"], r["bytes"], r["kernel_ns"]) for r in rows]
if got != want:
    print("hand trace:\n want %s\n got  %s" % (want, got))
    sys.exit(1)
for r in rows[:4]:
    tf = int(r["flops"]) / int(r["kernel_ns"]) / 1e3
    assert abs(float(r["tflops"]) - tf) <= max(0.01 * tf, 1e-6), r
PYEOF
# the merge of partial summaries carries the rows (one writer: the same columns)
T=$TRACES/kineto/hta_a100_ws16_rank0.json.gz
"$TD" summarize "$T" -o "$WORK/p.tds" 2>/dev/null || die summarize
"$TD" merge "$WORK/p.tds" --format json,xlsx -o "$WORK/m" 2>/dev/null || die merge
"$TD" report --format json,xlsx -o "$WORK/r" "$T" 2>/dev/null || die report
$PY - "$WORK/r/summary.json" "$WORK/m/summary.json" <<'PYEOF' || fail=1
import json, sys
a, b = (json.load(open(p))["op_perf_bwd"] for p in sys.argv[1:])
assert a == b and len(a) == 3, (a, b)
PYEOF
# the workbook's sheet (the bug-report template's [xlsx] section)
$PY - "$WORK/r/report.xlsx" <<'PYEOF' || fail=1
import openpyxl, sys
ws = openpyxl.load_workbook(sys.argv[1])["Op performance, backward"]
rows = [[c.value for c in r] for r in ws.iter_rows()]
assert rows[1][:4] == ["aten::mean [[4096], [], [], []]", "fp32", 40, 172], rows
assert len(rows) == 4, rows
PYEOF
exit $fail
