# Outputs never replace a device node, FIFO or symbolic link: devices and FIFOs are
# written directly, a link's target is replaced (the link kept), what cannot be written
# safely is refused with exit 4; a full device gives exit 4 and a clear message.
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" fold "$EX" >"$WORK/want" || die "fold"
is_chr() { [ -c "$1" ] || die "$1 is no longer a character device"; }
# The devices: as root, private nodes made here (c 1 7 is what /dev/full is, c 1 3
# /dev/null), so that a binary without the fix (a stale build) replaces those and never
# the machine's own; as another user the real ones (which only root could replace).
if [ "$(id -u)" = 0 ]; then
    mknod "$WORK/full" c 1 7 && mknod "$WORK/null" c 1 3 || { echo "mknod failed"; exit 77; }
    FULL=$WORK/full NULL=$WORK/null
else
    FULL=/dev/full NULL=/dev/null
fi
expect_exit 4 "$TD" fold "$EX" -o "$FULL" 2>"$WORK/err" || exit 1
grep -qx "tracedoc: $FULL: cannot write: No space left on device" "$WORK/err" ||
    { cat "$WORK/err"; die "full device message"; }
is_chr "$FULL"
for cmd in "summary" "summary --format json" "flame"; do
    expect_exit 4 "$TD" $cmd "$EX" -o "$FULL" 2>"$WORK/err" || exit 1
    grep -q "$FULL: cannot write: No space left on device" "$WORK/err" || { cat "$WORK/err"; die "$cmd full device"; }
done
expect_exit 4 "$TD" fold "$EX" -o - >"$FULL" 2>"$WORK/err" || exit 1
grep -qx "tracedoc: standard output: cannot write: No space left on device" "$WORK/err" || { cat "$WORK/err"; die "stdout full"; }
is_chr "$FULL"
"$TD" fold "$EX" -o "$NULL" || die "fold -o null device"
is_chr "$NULL"
"$TD" report "$EX" --format svg -o "$WORK/r" && ln -sf "$NULL" "$WORK/r/flame-cpu.svg" || die "report"
"$TD" report "$EX" --format svg -o "$WORK/r" || die "report over a link to a device"
[ -L "$WORK/r/flame-cpu.svg" ] && is_chr "$NULL" || die "link to device replaced"
ls "$WORK" | grep -q 'tmp\.' && die "temporary file left behind"
# the standard output by name (/dev/fd/1: the same code as /dev/stdout, and a path no
# binary can rename over), to a pipe and to a file opened for appending
"$TD" fold "$EX" -o /dev/fd/1 | cmp -s - "$WORK/want" || die "-o /dev/fd/1 to a pipe"
echo first >"$WORK/log"
"$TD" fold "$EX" -o /dev/fd/1 >>"$WORK/log" || die "-o /dev/fd/1 appending"
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
ln -sf "$FULL" "$WORK/ro/summary.json"; ln -sf "$FULL" "$WORK/ro/report.pdf"
expect_exit 4 "$TD" report "$EX" --format pdf,json -o "$WORK/ro" 2>"$WORK/err" || exit 1
[ "$(grep -c '^tracedoc: .*: cannot write: No space left on device$' "$WORK/err")" = 2 ] ||
    { cat "$WORK/err"; die "expected two messages, each on its own line"; }
grep 'tracedoc:' "$WORK/err" | grep -qv '^tracedoc: ' && { cat "$WORK/err"; die "run-together message"; }
is_chr "$FULL"
exit 0
