# Damaged nsys-jax archives through the command line: exit 3, a message naming the
# file (and member), and no report directory left behind.
. "$ROOT/tests/lib.sh"
need_traces
Z=$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip
head -c 1500000 "$Z" >"$WORK/cut.zip"
expect_exit 3 "$TD" summary "$WORK/cut.zip" >/dev/null 2>"$WORK/err" || exit 1
grep -q "^tracedoc: .*cut.zip" "$WORK/err" || die "message names the file: $(cat "$WORK/err")"
expect_exit 3 "$TD" report -o "$WORK/out" "$WORK/cut.zip" 2>/dev/null || exit 1
[ ! -e "$WORK/out/summary.json" ] || die "partial output left"
# an archive whose projected trace is not Parquet
$PY - "$Z" "$WORK/bad.zip" <<'PYEOF'
import sys, zipfile
src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], "w")
for n in ("nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet", "report_nvtx_pushpop_trace.csv.xz"):
    data = src.read(n)
    if n.endswith("trace.parquet"): data = data[:-20]
    if n.endswith(".xz"): data = data[:len(data) // 2]
    dst.writestr(n, data)
dst.close()
PYEOF
expect_exit 3 "$TD" summary "$WORK/bad.zip" >/dev/null 2>"$WORK/err" || exit 1
grep -q "bad.zip" "$WORK/err" && grep -q "report_nvtx_pushpop_trace.csv.xz" "$WORK/err" \
    || die "message names the member: $(cat "$WORK/err")"
exit 0
