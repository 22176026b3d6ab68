# --meta KEY=VALUE: run metadata in summary.json (object "meta") and in every document;
# trace.captured from the trace's time base. Expected capture time: python from the raw JSON.
. "$ROOT/tests/lib.sh"
need_traces
T="$TRACES/kineto/hta_mi250_minitoy.json.gz"
"$TD" report "$T" -o "$WORK/r" --template nightly --format pdf,xlsx,svg,json,csv \
    --meta commit=1a2b3c4 --meta branch=main --meta 'workload=resnet 50 (bs 64)' \
    2>/dev/null || die "report with --meta"
$PY - "$WORK/r/summary.json" "$T" <<'PY' || die "summary.json meta / trace.captured"
import json, sys, gzip, datetime
s = json.load(open(sys.argv[1]))
assert s["meta"] == {"commit": "1a2b3c4", "branch": "main", "workload": "resnet 50 (bs 64)"}, s.get("meta")
d = json.load(gzip.open(sys.argv[2]))
t0 = min(float(e["ts"]) for e in d["traceEvents"] if "ts" in e and e.get("ph") != "M")
cap = (d["baseTimeNanoseconds"] + round(t0 * 1000)) // 10**9
want = datetime.datetime.fromtimestamp(cap, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
assert s["trace"]["captured"] == want, (s["trace"]["captured"], want)
PY
pdftotext "$WORK/r/report.pdf" - | grep -q '1a2b3c4' || die "commit not in the PDF"
pdftotext "$WORK/r/report.pdf" - | grep -q 'resnet 50 (bs 64)' || die "workload not in the PDF"
unzip -p "$WORK/r/report.xlsx" xl/sharedStrings.xml | grep -q '1a2b3c4' || die "commit not in the workbook"
grep -q 'commit 1a2b3c4' "$WORK/r"/flame-*.svg || die "commit not in the SVG"
"$TD" summary "$T" --meta commit=1a2b3c4 | grep -Eq '^commit +1a2b3c4' || die "commit not in the text summary"
# a trace without a time base has no capture time
"$TD" summary "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json" --format json |
    grep -q '"captured"' && die "captured without a time base"
# bad pairs: usage errors naming the argument
expect_exit 2 "$TD" summary "$T" --meta novalue 2>"$WORK/err" || exit 1
grep -q "novalue" "$WORK/err" || die "message names the argument"
expect_exit 2 "$TD" summary "$T" --meta 'a b=1' 2>/dev/null || exit 1
expect_exit 2 "$TD" summary "$T" --meta '=1' 2>/dev/null || exit 1
exit 0
