# Outputs never replace a device node, FIFO or symbolic link: devices and FIFOs are
# written directly, a link's target is replaced (the link kept), what cannot be written
# safely is refused with exit 4; a full device gives exit 4 and a clear message.
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" fold "$EX" >"$WORK/want" || die "fold"
is_chr() { [ -c "$1" ] || die "$1 is no longer a character device"; }
# /dev/full itself (the device is only read, never replaced, if the test passes)
expect_exit 4 "$TD" fold "$EX" -o /dev/full 2>"$WORK/err" || exit 1
grep -qx "tracedoc: /dev/full: cannot write: No space left on device" "$WORK/err" ||
    { cat "$WORK/err"; die "/dev/full message"; }
is_chr /dev/full
for cmd in "summary" "summary --format json" "flame"; do
    expect_exit 4 "$TD" $cmd "$EX" -o /dev/full 2>"$WORK/err" || exit 1
    grep -q "/dev/full: cannot write: No space left on device" "$WORK/err" || { cat "$WORK/err"; die "$cmd /dev/full"; }
done
expect_exit 4 "$TD" fold "$EX" -o - >/dev/full 2>"$WORK/err" || exit 1
grep -qx "tracedoc: standard output: cannot write: No space left on device" "$WORK/err" || { cat "$WORK/err"; die "stdout full"; }
is_chr /dev/full
# device nodes of our own (root only): null and full
if [ "$(id -u)" = 0 ] && mknod "$WORK/null" c 1 3 2>/dev/null && mknod "$WORK/full" c 1 7; then
    "$TD" fold "$EX" -o "$WORK/null" || die "fold -o null"
    is_chr "$WORK/null"
    "$TD" report "$EX" --format svg -o "$WORK/r" && ln -sf "$WORK/null" "$WORK/r/flame-cpu.svg" || die "report"
    "$TD" report "$EX" --format svg -o "$WORK/r" || die "report over a link to a device"
    [ -L "$WORK/r/flame-cpu.svg" ] && is_chr "$WORK/null" || die "link to device replaced"
    expect_exit 4 "$TD" flame "$EX" -o "$WORK/full" 2>/dev/null || exit 1
    is_chr "$WORK/full"
    ls "$WORK" | grep -q 'tmp\.' && die "temporary file left behind"
fi
"$TD" fold "$EX" -o /dev/null || die "fold -o /dev/null"
is_chr /dev/null
# /dev/stdout to a pipe and to a file opened for appending
"$TD" fold "$EX" -o /dev/stdout | cmp -s - "$WORK/want" || die "-o /dev/stdout to a pipe"
echo first >"$WORK/log"
"$TD" fold "$EX" -o /dev/stdout >>"$WORK/log" || die "-o /dev/stdout appending"
{ echo first; cat "$WORK/want"; } | cmp -s - "$WORK/log" || die "appending to stdout lost what was there"
# a FIFO: written directly, still a FIFO afterwards
mkfifo "$WORK/fifo"
cat "$WORK/fifo" >"$WORK/fromfifo" &
"$TD" fold "$EX" -o "$WORK/fifo" || die "fold -o fifo"
wait
[ -p "$WORK/fifo" ] || die "FIFO replaced"
cmp -s "$WORK/fromfifo" "$WORK/want" || die "FIFO content"
# a symbolic link to a regular file: the link stays, its target gets the output
echo old >"$WORK/target"
ln -s target "$WORK/link"
"$TD" fold "$EX" -o "$WORK/link" || die "fold -o link"
[ -L "$WORK/link" ] || die "symbolic link replaced by a file"
cmp -s "$WORK/target" "$WORK/want" || die "link target content"
# refused: a dangling link, a directory, a socket-like or block device target
ln -s nowhere "$WORK/dangling"
expect_exit 4 "$TD" fold "$EX" -o "$WORK/dangling" 2>"$WORK/err" || exit 1
grep -q "dangling: cannot write: a symbolic link to a missing file" "$WORK/err" || { cat "$WORK/err"; die "dangling"; }
[ -L "$WORK/dangling" ] || die "dangling link replaced"
expect_exit 4 "$TD" fold "$EX" -o "$WORK" 2>"$WORK/err" || exit 1
grep -q "cannot write: is a directory" "$WORK/err" || die "directory"
# a failing report: every message on its own line, prefixed (two processes write)
touch "$WORK/notadir"
expect_exit 4 "$TD" report "$EX" -o "$WORK/notadir/x" 2>"$WORK/err" || exit 1
grep 'tracedoc:' "$WORK/err" | grep -qv '^tracedoc: ' && { cat "$WORK/err"; die "run-together message"; }
grep -q '^tracedoc: ' "$WORK/err" || die "no message"
mkdir "$WORK/ro" && "$TD" report "$EX" --format pdf,json -o "$WORK/ro" >/dev/null || die "report"
if [ "$(id -u)" = 0 ] && mknod "$WORK/full2" c 1 7 2>/dev/null; then
    ln -sf "$WORK/full2" "$WORK/ro/summary.json"; ln -sf "$WORK/full2" "$WORK/ro/report.pdf"
    expect_exit 4 "$TD" report "$EX" --format pdf,json -o "$WORK/ro" 2>"$WORK/err" || exit 1
    [ "$(grep -c '^tracedoc: .*: cannot write: No space left on device$' "$WORK/err")" = 2 ] ||
        { cat "$WORK/err"; die "expected two messages, each on its own line"; }
    grep 'tracedoc:' "$WORK/err" | grep -qv '^tracedoc: ' && { cat "$WORK/err"; die "run-together message"; }
fi
exit 0
