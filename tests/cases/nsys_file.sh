# An Nsight Systems export given as a file is opened by SQLite itself (issue 23): the
# same tables as the export read whole (from stdin, or gzipped), also through a path
# with characters a SQLite URI escapes; and peak memory no longer holds the file: for a
# 45 MB export (bench/mknsys.sh, 8,000 copies of the shared one) the file path takes at
# least 0.7 times the file less memory (the reader alone) than the same bytes on stdin.
. "$ROOT/tests/lib.sh"
need_traces
asan=0; case "${BUILD_KIND:-}" in *asan*) asan=1 ;; esac
NS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
odd="$WORK/a b%20c?d#e.sqlite"
cp "$NS" "$odd"
gzip -c "$NS" >"$WORK/ns.sqlite.gz"
# summary.json without the input's path (stdin has none)
strip() { $PY -c '
import json, sys
s = json.load(sys.stdin)
for i in s["inputs"]:
    i.pop("path", None)
s.pop("inputs_label", None)
print(json.dumps(s, sort_keys=True))'; }
"$TD" summary --format json "$NS" 2>"$WORK/f.err" | strip >"$WORK/f.json" || die "summary (file)"
"$TD" summary --format json - <"$NS" 2>"$WORK/s.err" | strip >"$WORK/s.json" || die "summary (stdin)"
"$TD" summary --format json "$odd" 2>/dev/null | strip >"$WORK/o.json" || die "summary (odd path)"
"$TD" summary --format json "$WORK/ns.sqlite.gz" 2>/dev/null | strip >"$WORK/g.json" || die "summary (gzip)"
cmp -s "$WORK/f.json" "$WORK/s.json" || die "file and stdin differ"
cmp -s "$WORK/f.json" "$WORK/o.json" || die "file and odd path differ"
$PY - "$WORK/f.json" "$WORK/g.json" <<'PY' || die "file and gzip differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for i in a["inputs"] + b["inputs"]:
    for k in ("bytes", "sha256"):
        i.pop(k, None)
b["trace"].pop("gzip", None); a["trace"].pop("gzip", None)
assert a == b
PY
[ -s "$WORK/f.json" ] && grep -q '"cuda_gpu_kern_sum"\|"kernels"' "$WORK/f.json" || die "no kernel table"
# the file is not touched: no journal or lock file appears beside it
[ "$(ls "$WORK" | grep -c 'a b%20c')" = 1 ] || die "a file appeared beside the input: $(ls "$WORK")"
if [ $asan = 0 ] && [ -x /usr/bin/time ]; then
    "$ROOT/bench/mknsys.sh" "$WORK/big.sqlite" 8000 "$NS" 2>/dev/null || die "mknsys"
    size=$(($(stat -c %s "$WORK/big.sqlite") / 1024))
    # the reader alone (read + sort, no analysis: since the critical path pass the peak of a
    # whole summary comes after reading, when the stdin copy is already freed)
    RD=$(dirname "$TD")/tests/test_read_dump
    [ -x "$RD" ] || die "$RD missing"
    /usr/bin/time -f %M -o "$WORK/f.rss" "$RD" "$WORK/big.sqlite" \
        >"$WORK/bf.txt" 2>/dev/null || die "read big (file)"
    /usr/bin/time -f %M -o "$WORK/s.rss" "$RD" - <"$WORK/big.sqlite" \
        >"$WORK/bs.txt" 2>/dev/null || die "read big (stdin)"
    sed -i '1s/^path=[^ ]*//' "$WORK/bf.txt" "$WORK/bs.txt" # the path line names the input
    cmp -s "$WORK/bf.txt" "$WORK/bs.txt" || die "file and stdin read differently"
    rf=$(tail -n 1 "$WORK/f.rss") rs=$(tail -n 1 "$WORK/s.rss")
    echo "peak RSS for a $size KiB export: file $rf KiB, stdin $rs KiB"
    [ $((rf + size * 7 / 10)) -lt "$rs" ] || die "the file path does not save the file's size: $rf vs $rs KiB"
fi
exit 0
