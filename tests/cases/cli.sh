# Command line: help, version, usage errors and their exit codes.
. "$ROOT/tests/lib.sh"
"$TD" --help | grep -q '^usage: tracedoc' || die "--help"
"$TD" --version | grep -Eq '^tracedoc [0-9]+\.[0-9]+' || die "--version"
expect_exit 2 "$TD" 2>/dev/null || exit 1
expect_exit 2 "$TD" frobnicate 2>"$WORK/err" || exit 1
grep -q "^tracedoc: unknown command 'frobnicate'" "$WORK/err" || die "message prefix"
expect_exit 2 "$TD" summary 2>/dev/null || exit 1
expect_exit 2 "$TD" summary --warmup banana x.json 2>/dev/null || exit 1
expect_exit 2 "$TD" summary --threshold 2 x.json 2>/dev/null || exit 1
expect_exit 2 "$TD" report --format pdf,doc x.json 2>/dev/null || exit 1
expect_exit 3 "$TD" summary "$WORK/does-not-exist.json" 2>"$WORK/err" || exit 1
grep -q 'does-not-exist.json' "$WORK/err" || die "error names the file"
# progress lines only when stderr is a terminal
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" summary "$EX" >/dev/null 2>"$WORK/quiet" || die "summary of the example"
grep -q 'reading' "$WORK/quiet" && die "progress printed without a terminal"
if command -v script >/dev/null; then
    script -qec "'$TD' summary '$EX' >/dev/null" /dev/null >"$WORK/tty" 2>&1 || die "summary under script"
    grep -q 'tracedoc: reading .*hta_nccl_data.json.gz (1 of 1)' "$WORK/tty" || die "no progress on a terminal"
fi
exit 0
