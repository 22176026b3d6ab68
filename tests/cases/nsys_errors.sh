# Damaged Nsight Systems SQLite files: exit 3 with a message naming the file, no crash,
# no output file left behind.
. "$ROOT/tests/lib.sh"
need_traces
S="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
size=$(stat -c %s "$S")
probe() {
    "$TD" summary "$1" >/dev/null 2>"$WORK/err"
    local rc=$?
    if grep -q "not implemented yet\|not supported yet" "$WORK/err"; then
        echo "SQLite dispatch not available yet"
        exit 77
    fi
    return $rc
}
for cut in 100 4096 5000 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$S" >"$WORK/cut$cut.sqlite"
    probe "$WORK/cut$cut.sqlite"; rc=$?
    [ $rc = 3 ] || { cat "$WORK/err"; die "truncated at $cut: exit $rc, expected 3"; }
    grep -q "cut$cut.sqlite" "$WORK/err" || { cat "$WORK/err"; die "message does not name the file"; }
done
# page size field destroyed
$PY -c "
import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[16] = 3; d[17] = 7
open(sys.argv[2], 'wb').write(d)" "$S" "$WORK/hdr.sqlite"
probe "$WORK/hdr.sqlite"; rc=$?
[ $rc = 3 ] || { cat "$WORK/err"; die "bad page size: exit $rc"; }
grep -q "hdr.sqlite: byte 16" "$WORK/err" || { cat "$WORK/err"; die "message: byte offset"; }
# the schema page (page 1 after the header) zeroed: an error, not a crash
$PY -c "
import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[100:4096] = bytes(3996)
open(sys.argv[2], 'wb').write(d)" "$S" "$WORK/schema.sqlite"
probe "$WORK/schema.sqlite"; rc=$?
[ $rc = 3 ] || { cat "$WORK/err"; die "zeroed schema: exit $rc"; }
# a report run on a bad file leaves no document behind
mkdir -p "$WORK/out"
"$TD" report -o "$WORK/out" "$WORK/cut5000.sqlite" >/dev/null 2>&1
[ -z "$(ls -A "$WORK/out")" ] || die "output left behind: $(ls -A "$WORK/out")"
exit 0
