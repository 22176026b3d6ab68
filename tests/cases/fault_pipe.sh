# Inputs from a pipe are read once (io/peek.c: the look that decides trace, partial
# summary or summary.json keeps its bytes for the reader): process substitution, a FIFO and
# standard input give the figures of the file itself, for traces, partial summaries (.tds)
# and summary.json alike, and never block (a /dev/fd/N whose writer has exited is not
# opened again: its descriptor is duplicated).
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
figures() { grep -v '"path"\|"inputs\|"sha256"\|"label"\|"source"\|"name": "/' "$1"; }
"$TD" summary --format json "$EX" >"$WORK/file.json" || die "summary of the file"
timeout 120 "$TD" summary --format json <(zcat "$EX") >"$WORK/ps.json" 2>"$WORK/err" || die "process substitution: $(cat "$WORK/err")"
figures "$WORK/file.json" >"$WORK/a"; figures "$WORK/ps.json" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || { diff "$WORK/a" "$WORK/b" | head; die "process substitution: other figures"; }
grep -q '"gpu' "$WORK/b" || die "no figures"
mkfifo "$WORK/fifo"
zcat "$EX" >"$WORK/fifo" &
timeout 120 "$TD" summary --format json "$WORK/fifo" >"$WORK/fifo.json" 2>"$WORK/err" || die "FIFO: $(cat "$WORK/err")"
figures "$WORK/fifo.json" >"$WORK/c"
cmp -s "$WORK/a" "$WORK/c" || die "FIFO: other figures"
# the gzip bytes themselves through a pipe, and a report from one
timeout 120 "$TD" report <(cat "$EX") --format json -o "$WORK/r" 2>"$WORK/err" || die "report from a pipe: $(cat "$WORK/err")"

# partial summaries through pipes: summary, merge, standard input
"$TD" summarize "$EX" -o "$WORK/a.tds" || die summarize
"$TD" summary --format json "$WORK/a.tds" >"$WORK/tds.json" || die "summary of a.tds"
timeout 120 "$TD" summary --format json <(cat "$WORK/a.tds") >"$WORK/tds_ps.json" 2>"$WORK/err" ||
    die "partial summary through process substitution: $(cat "$WORK/err")"
figures "$WORK/tds.json" >"$WORK/a"; figures "$WORK/tds_ps.json" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || die "partial summary through a pipe: other figures"
timeout 120 "$TD" summary --format json - <"$WORK/a.tds" >/dev/null 2>"$WORK/err" &&
    cat "$WORK/a.tds" | timeout 120 "$TD" summary --format json - >"$WORK/tds_in.json" 2>"$WORK/err" ||
    die "partial summary on standard input: $(cat "$WORK/err")"
figures "$WORK/tds_in.json" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || die "partial summary on standard input: other figures"
timeout 120 "$TD" merge <(cat "$WORK/a.tds") -o "$WORK/m.tds" 2>"$WORK/err" ||
    die "merge of a part through a pipe: $(cat "$WORK/err")"
"$TD" merge "$WORK/a.tds" -o "$WORK/m2.tds" || die "merge of a.tds"
cmp -s "$WORK/m.tds" "$WORK/m2.tds" || die "merge through a pipe: other bytes"
# a damaged part through a pipe is refused as the file is (the checksum), naming the pipe
sed 's/^tool\t/tool\tX/' "$WORK/a.tds" >"$WORK/bad.tds"
expect_exit 3 timeout 120 "$TD" merge <(cat "$WORK/bad.tds") -o "$WORK/m3.tds" 2>"$WORK/err" || exit 1
grep -q "/dev/fd/[0-9]*: line [0-9]*: checksum mismatch" "$WORK/err" || die "damaged part: $(cat "$WORK/err")"

# summary.json through pipes: summary, diff (both sides), a baseline
"$TD" report "$EX" --format json -o "$WORK/rj" 2>/dev/null || die report
timeout 120 "$TD" summary --format json <(cat "$WORK/rj/summary.json") >"$WORK/sj.json" 2>"$WORK/err" ||
    die "summary.json through a pipe: $(cat "$WORK/err")"
figures "$WORK/rj/summary.json" >"$WORK/a"; figures "$WORK/sj.json" >"$WORK/b"
cmp -s "$WORK/a" "$WORK/b" || die "summary.json through a pipe: other figures"
timeout 120 "$TD" diff <(cat "$WORK/rj/summary.json") <(cat "$WORK/rj/summary.json") >"$WORK/d" 2>"$WORK/err" ||
    die "diff of two pipes: $(cat "$WORK/err")"
grep -q "^OK: no metric regressed" "$WORK/d" || die "diff of two pipes: $(head -3 "$WORK/d")"
exit 0
