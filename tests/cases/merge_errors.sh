# Parts that do not belong together, damaged parts and bad command lines: a clear
# message naming the file (and line), the documented exit status, and no output.
. "$ROOT/tests/lib.sh"
need_traces
cat >"$WORK/a.json" <<'JEOF'
{"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": 7}}]}
JEOF
sed 's/"rank": 0/"rank": 1/' "$WORK/a.json" >"$WORK/b.json"
sed 's/"rank": 0, "world_size": 2/"rank": 1, "world_size": 4/' "$WORK/a.json" >"$WORK/w4.json"
"$TD" summarize "$WORK/a.json" -o "$WORK/a.tds" || die "summarize a"
"$TD" summarize "$WORK/b.json" -o "$WORK/b.tds" || die "summarize b"
"$TD" summarize --warmup none "$WORK/b.json" -o "$WORK/b-none.tds" || die "summarize b none"
"$TD" summarize "$WORK/w4.json" -o "$WORK/w4.tds" || die "summarize w4"
"$TD" merge "$WORK/a.tds" "$WORK/b.tds" -o "$WORK/ok.tds" || die "good merge"
# refused: other options, other world size, the same rank twice (also through a merge)
check() { # check WANT_EXIT PATTERN CMD...
    local want=$1 pat=$2; shift 2
    rm -rf "$WORK/out" "$WORK/out.tds"
    "$@" 2>"$WORK/err"; local rc=$?
    [ "$rc" = "$want" ] || { echo "exit $rc (want $want): $*"; cat "$WORK/err"; exit 1; }
    grep -q -- "$pat" "$WORK/err" || { echo "message lacks '$pat': $(cat "$WORK/err")"; exit 1; }
    [ ! -e "$WORK/out.tds" ] && [ ! -e "$WORK/out/summary.json" ] || { echo "output written: $*"; exit 1; }
}
check 3 "b-none.tds: does not belong with .*a.tds: analysis options" \
    "$TD" merge "$WORK/a.tds" "$WORK/b-none.tds" -o "$WORK/out.tds"
check 3 "w4.tds: does not belong with .*a.tds: world size 4 here, 2 there" \
    "$TD" merge "$WORK/a.tds" "$WORK/w4.tds" -o "$WORK/out.tds"
check 3 "both hold rank 0 of the same trace" "$TD" merge "$WORK/ok.tds" "$WORK/a.tds" -o "$WORK/out"
# damaged parts
head -n 5 "$WORK/a.tds" >"$WORK/trunc.tds"
check 3 "trunc.tds: truncated: no end line after line 5" "$TD" merge "$WORK/trunc.tds" -o "$WORK/out"
head -c 200 "$WORK/a.tds" >"$WORK/cut.tds"
check 3 "cut.tds: line .*: truncated (no end of line)" "$TD" merge "$WORK/cut.tds" -o "$WORK/out"
sed '0,/^row/s//raw/' "$WORK/a.tds" >"$WORK/bad.tds"
check 3 "bad.tds: line [0-9]*: unknown line 'raw'" "$TD" merge "$WORK/bad.tds" -o "$WORK/out.tds"
sed '$d' "$WORK/a.tds" >"$WORK/noend.tds"; grep -v '^rec	kern' "$WORK/a.tds" >"$WORK/lost.tds"
check 3 "noend.tds: truncated: no end line" "$TD" merge "$WORK/noend.tds" -o "$WORK/out.tds"
check 3 "lost.tds: line .*: checksum mismatch: the part is damaged" "$TD" merge "$WORK/lost.tds" -o "$WORK/out.tds"
# a part without the sum line (written before it existed): the end line still counts
grep -v '^sum	' "$WORK/lost.tds" >"$WORK/lost0.tds"
check 3 "lost0.tds: line .*: the end line says" "$TD" merge "$WORK/lost0.tds" -o "$WORK/out.tds"
sed '1s/\t2$/\t9/' "$WORK/a.tds" >"$WORK/v9.tds"
check 3 "v9.tds: line 1: partial summary version 9; this tracedoc reads version 2" \
    "$TD" merge "$WORK/v9.tds" -o "$WORK/out.tds"
sed 's/^\(rec\tkern\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t\).*/\1x;y/' "$WORK/a.tds" >"$WORK/sk.tds"
check 3 "sk.tds: line .*: bad sketch" "$TD" merge "$WORK/sk.tds" -o "$WORK/out.tds"
: >"$WORK/empty.tds"
check 3 "empty.tds: not a partial summary" "$TD" merge "$WORK/empty.tds" -o "$WORK/out.tds"
check 3 "cannot open" "$TD" merge "$WORK/nope.tds" -o "$WORK/out.tds"
# command lines
check 2 "partial summaries (.tds) and traces cannot be mixed" \
    "$TD" report "$WORK/a.tds" "$WORK/b.json" -o "$WORK/out"
check 2 "merge: expected -o" "$TD" merge "$WORK/a.tds"
check 2 "summarize: expected -o FILE.tds" "$TD" summarize "$WORK/a.json"
check 2 "warmup" \
    "$TD" merge --warmup 2 "$WORK/a.tds" -o "$WORK/out"
check 2 "not partial summaries" "$TD" merge "$WORK/a.json" -o "$WORK/out"
exit 0
