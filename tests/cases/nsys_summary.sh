# Nsight Systems SQLite through the command line: summary.json golden on the real sample,
# the same result from stdin, and no file created next to the input (no journal/WAL).
. "$ROOT/tests/lib.sh"
need_traces
S="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
mkdir -p "$WORK/in"
cp "$S" "$WORK/in/saxpy.sqlite"
chmod a-w "$WORK/in/saxpy.sqlite"
if ! "$TD" summary --format json "$WORK/in/saxpy.sqlite" >"$WORK/sum.json" 2>"$WORK/err"; then
    cat "$WORK/err"
    if grep -q "not implemented yet\|not supported yet" "$WORK/err"; then
        echo "SQLite dispatch not available yet"
        exit 77
    fi
    die "summary failed"
fi
[ "$(ls -A "$WORK/in")" = saxpy.sqlite ] || die "files appeared next to the input: $(ls -A "$WORK/in")"
# the reader's facts, checked independently of the golden (values from sqlite3 queries)
$PY - "$WORK/sum.json" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
inp = s["inputs"][0]
assert inp["format"] == "nsys-sqlite", inp
# 5 kernels + 15 memcpy + 95 runtime rows + 24 NVTX rows
assert inp["events"] == 139, inp
assert s["trace"]["device_name"] == "NVIDIA A100-SXM4-40GB"
k = s["kernels"][0]
assert k["name"] == "saxpy(double *, double *, double *, double, int)" and k["calls"] == 5
assert k["total_ns"] == 88573480, k
ops = {o["name"]: o for o in s["ops"]}
# runtime rows deduplicated per correlation id: 5 launches, 15 memcpy, 15 malloc
assert ops["cudaLaunchKernel"]["calls"] == 5 and ops["cudaMemcpy"]["calls"] == 15, ops
assert ops["cudaMalloc"]["calls"] == 15, ops["cudaMalloc"]
assert not any(n.endswith("_v7000") or n.endswith("_v3020") for n in ops), list(ops)
PYEOF
# golden: paths differ between machines, keep the file name only
sed 's#"path": "[^"]*/saxpy.sqlite"#"path": "saxpy.sqlite"#' "$WORK/sum.json" >"$WORK/sum.norm.json"
golden nsys/saxpy.summary.json "$WORK/sum.norm.json" || exit 1
# stdin gives the same tables
if "$TD" summary --format json - <"$S" >"$WORK/stdin.json" 2>"$WORK/err"; then
    $PY - "$WORK/sum.json" "$WORK/stdin.json" <<'PYEOF' || exit 1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("kernels", "ops", "gpu_timeline"):
    assert a.get(k) == b.get(k), k
PYEOF
else
    cat "$WORK/err"
    die "summary from stdin failed"
fi
# the same report gzip-compressed and inside a tar.gz (read in memory, never unpacked)
gzip -c "$S" >"$WORK/saxpy.sqlite.gz"
tar -C "$WORK/in" -czf "$WORK/saxpy.tar.gz" saxpy.sqlite
"$TD" summary --format csv --table cuda_gpu_kern_sum "$S" >"$WORK/plain.csv" || die "plain csv"
for f in "$WORK/saxpy.sqlite.gz" "$WORK/saxpy.tar.gz"; do
    "$TD" summary --format csv --table cuda_gpu_kern_sum "$f" >"$WORK/other.csv" 2>"$WORK/err" || {
        cat "$WORK/err"; die "summary of $f failed"; }
    cmp -s "$WORK/plain.csv" "$WORK/other.csv" || die "$f gives a different kernel table"
done
exit 0
