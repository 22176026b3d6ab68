# Inputs from a pipe are read once (partial/read.c td_is_partial, compare/baseline.c
# td_is_summary_json look only into regular files): process substitution and a FIFO give
# the figures of the file itself, and never block.
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
exit 0
