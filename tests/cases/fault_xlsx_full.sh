# libxlsxwriter's own lines ([ERROR] ...) never reach stderr without the `tracedoc: `
# prefix (cli/docproc.c relays the renderers' stderr), and messages name the output
# directory, not its stage: a workbook onto a full file system (a 24 KiB tmpfs).
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
mkdir "$WORK/small"
mount -t tmpfs -o size=24k tmpfs "$WORK/small" 2>/dev/null || { echo "cannot mount a tmpfs (not root)"; exit 77; }
trap 'umount "$WORK/small"' EXIT
expect_exit 4 "$TD" report "$EX" --format xlsx -o "$WORK/small/r" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: \[ERROR\]" "$WORK/err" || { cat "$WORK/err"; die "no libxlsxwriter line (it did not fail as expected)"; }
grep -v '^tracedoc: ' "$WORK/err" && die "unprefixed output"
grep -q "^tracedoc: $WORK/small/r/report.xlsx: cannot write workbook" "$WORK/err" || die "the workbook not named in the output directory: $(cat "$WORK/err")"
grep -q '\.tmp\.[0-9]*\.d' "$WORK/err" && die "the stage is named: $(cat "$WORK/err")"
[ -z "$(ls -A "$WORK/small/r")" ] || die "the failed run left files: $(ls -A "$WORK/small/r")"
exit 0
