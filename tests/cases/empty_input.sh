# An input that holds no events (issue 21): every format and command exits 7 (README's
# table, doc/commands.md), the message names the file, nothing is written, and a nightly
# run with --history records nothing (a nightly that lost its capture fails).
. "$ROOT/tests/lib.sh"
printf '{"traceEvents":[]}' >"$WORK/e1.json"
printf '[]' >"$WORK/e2.json"
printf '{"traceEvents":[{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}}]}' >"$WORK/e3.json"
printf '{"traceEvents":[]}' | gzip >"$WORK/e4.json.gz"
for f in e1.json e2.json e3.json e4.json.gz; do
    for cmd in summary fold; do
        expect_exit 7 "$TD" $cmd "$WORK/$f" -o "$WORK/$f.$cmd.out" 2>"$WORK/err" || exit 1
        grep -q "^tracedoc: $WORK/$f: the input holds no events" "$WORK/err" || { cat "$WORK/err"; die "$f $cmd: message"; }
        [ -e "$WORK/$f.$cmd.out" ] && die "$f $cmd: output written"
    done
    expect_exit 7 "$TD" report "$WORK/$f" -o "$WORK/r-${f%%.*}" 2>/dev/null || exit 1
    [ -e "$WORK/r-${f%%.*}" ] && die "$f report: output directory made"
    expect_exit 7 "$TD" summarize "$WORK/$f" -o "$WORK/$f.tds" 2>/dev/null || exit 1
    [ -e "$WORK/$f.tds" ] && die "$f summarize: part written"
done
# a 0-byte file, white space only (also past the 1 KiB the detection peeks at), a gzipped
# empty stream: exit 7 naming the file and why, for every command; nothing is written
: >"$WORK/z0.json"
printf ' \n\t\r\n' >"$WORK/z1.json"
printf '\xef\xbb\xbf  \n' >"$WORK/z2.json"
$PY -c "import sys; open(sys.argv[1], 'w').write(' \\n' * 3000)" "$WORK/z3.json"
: | gzip >"$WORK/z4.json.gz"
printf '\n\n' | gzip >"$WORK/z5.json.gz"
for f in z0.json z1.json z2.json z3.json z4.json.gz z5.json.gz; do
    case $f in z0*|z4*) why="an empty file" ;; *) why="only white space" ;; esac
    for cmd in summary fold; do
        expect_exit 7 "$TD" $cmd "$WORK/$f" -o "$WORK/$f.$cmd.out" 2>"$WORK/err" || exit 1
        grep -q "^tracedoc: $WORK/$f: the input holds no events ($why); nothing written" "$WORK/err" \
            || { cat "$WORK/err"; die "$f $cmd: message"; }
        [ -e "$WORK/$f.$cmd.out" ] && die "$f $cmd: output written"
    done
    expect_exit 7 "$TD" report "$WORK/$f" -o "$WORK/r-${f%%.*}" 2>/dev/null || exit 1
    [ -e "$WORK/r-${f%%.*}" ] && die "$f report: output directory made"
    expect_exit 7 "$TD" diff "$WORK/$f" "$ROOT/examples/hta_nccl_data.json.gz" >/dev/null 2>&1 || exit 1
done
# white space then content past the peek is still not a trace (exit 3), and an empty file
# inside a directory of traces is skipped, not an error
$PY -c "import sys; open(sys.argv[1], 'w').write(' ' * 3000 + 'x')" "$WORK/z6.json"
expect_exit 3 "$TD" summary "$WORK/z6.json" >/dev/null 2>&1 || exit 1
mkdir -p "$WORK/dir"; cp "$ROOT/examples/hta_nccl_data.json.gz" "$WORK/dir/"; : >"$WORK/dir/empty.json"
"$TD" summary "$WORK/dir" >/dev/null 2>&1 || die "an empty file beside a trace in a directory"
# one empty rank among good ones names the empty one
EX="$ROOT/examples/hta_nccl_data.json.gz"
expect_exit 7 "$TD" summary "$EX" "$WORK/e1.json" 2>"$WORK/err" >/dev/null || exit 1
grep -q "e1.json: the input holds no events" "$WORK/err" || die "empty rank not named"
# nsys: an export whose tables are empty
src="${TRACES:-/nonexistent}/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
if [ -f "$src" ]; then
    cp "$src" "$WORK/n.sqlite"
    for t in $(sqlite3 "$WORK/n.sqlite" "select name from sqlite_master where type='table'"); do
        sqlite3 "$WORK/n.sqlite" "delete from \"$t\"" 2>/dev/null
    done
    expect_exit 7 "$TD" summary "$WORK/n.sqlite" 2>"$WORK/err" >/dev/null || exit 1
    grep -q "n.sqlite: the input holds no events" "$WORK/err" || die "nsys message"
fi
# the nightly: exit 7, no run recorded in the history
"$TD" report "$EX" -o "$WORK/n1" --format json --template nightly --history "$WORK/runs.db" >/dev/null || die "first night"
expect_exit 7 "$TD" report "$WORK/e1.json" -o "$WORK/n2" --format json --template nightly \
    --history "$WORK/runs.db" >/dev/null 2>&1 || exit 1
[ "$(sqlite3 "$WORK/runs.db" 'select count(*) from runs')" = 1 ] || die "an empty night recorded"
# the documented status
grep -q '^| 7 | ' "$ROOT/README.md" || die "README: no row for 7"
grep -q '^| 7 | ' "$ROOT/doc/commands.md" || die "doc/commands.md: no row for 7"
# a trace with events still works
"$TD" summary "$EX" >/dev/null || die "a real trace"
exit 0
