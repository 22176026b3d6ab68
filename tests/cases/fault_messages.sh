# Messages under faults say what failed: `history > /dev/full` is "standard output:
# cannot write: ..." like every other command; with TMPDIR unusable, an output that needs
# a private temporary file there (a PDF or workbook written through a link to a device)
# blames TMPDIR, not the output.
. "$ROOT/tests/lib.sh"
command -v sqlite3 >/dev/null || { echo "no sqlite3 CLI"; exit 77; }
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" report "$EX" --format json --history "$WORK/runs.db" -o "$WORK/r" >/dev/null || die "report"
[ -w /dev/full ] || { echo "no /dev/full"; exit 77; }
expect_exit 4 "$TD" history "$WORK/runs.db" >/dev/full 2>"$WORK/err" || exit 1
grep -qx "tracedoc: standard output: cannot write: No space left on device" "$WORK/err" || die "history > /dev/full: $(cat "$WORK/err")"
mkdir "$WORK/d"
ln -s /dev/null "$WORK/d/report.pdf"
ln -s /dev/null "$WORK/d/report.xlsx"
TMPDIR=$WORK/nonexistent expect_exit 4 "$TD" report "$EX" --format pdf,xlsx -o "$WORK/d" 2>"$WORK/err" || exit 1
grep -qx "tracedoc: TMPDIR $WORK/nonexistent: cannot create a temporary file for $WORK/d/report.pdf: No such file or directory" "$WORK/err" || die "TMPDIR pdf: $(cat "$WORK/err")"
grep -qx "tracedoc: TMPDIR $WORK/nonexistent: cannot create a temporary file for $WORK/d/report.xlsx: No such file or directory" "$WORK/err" || die "TMPDIR xlsx: $(cat "$WORK/err")"
grep -v '^tracedoc: ' "$WORK/err" && die "unprefixed output"
exit 0
