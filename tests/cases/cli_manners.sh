# Command-line manners: each command's own --help, options that do not apply (exit 2),
# "did you mean" for options and commands, prefixed messages, '-o -', missing values.
. "$ROOT/tests/lib.sh"
EX="$ROOT/examples/hta_nccl_data.json.gz"
# per-command help: the command's usage and only its options
"$TD" summary --help >"$WORK/h" || die "summary --help"
grep -q '^usage: tracedoc summary ' "$WORK/h" || die "summary --help is not the summary help"
grep -q -- '--table NAME' "$WORK/h" || die "summary --help lacks --table"
grep -q -- '--paper' "$WORK/h" && die "summary --help lists --paper"
"$TD" flame -h | grep -q -- '--title TEXT' || die "flame -h lacks --title"
"$TD" help diff | grep -q '^usage: tracedoc diff BASE CURRENT' || die "help diff"
for cmd in report summary fold flame diff; do
    "$TD" $cmd --help | grep -q "^usage: tracedoc $cmd " || die "$cmd --help"
done
# options that exist but do not apply: exit 2 naming the command
expect_exit 2 "$TD" diff --paper a4 a.json b.json 2>"$WORK/err" || exit 1
grep -q "^tracedoc: option '--paper' does not apply to 'diff' (it applies to: report, merge)" "$WORK/err" ||
    { cat "$WORK/err"; die "diff --paper message"; }
expect_exit 2 "$TD" flame --top 3 x.folded -o x.svg 2>"$WORK/err" || exit 1
grep -q "'--top' does not apply to 'flame'" "$WORK/err" || die "flame --top message"
expect_exit 2 "$TD" diff --format xml a.json b.json 2>/dev/null || exit 1
expect_exit 2 "$TD" summary --format xml "$EX" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: --format: expected text, json or csv, got 'xml'" "$WORK/err" || die "format value"
# misspellings
expect_exit 2 "$TD" report --fomat pdf "$EX" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: unrecognized option '--fomat' (did you mean '--format'?)" "$WORK/err" ||
    { cat "$WORK/err"; die "option suggestion"; }
grep -q "^Try 'tracedoc report --help'." "$WORK/err" || die "Try line"
expect_exit 2 "$TD" reprot "$EX" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: unknown command 'reprot' (did you mean 'report'?)" "$WORK/err" || die "command suggestion"
expect_exit 2 "$TD" summary --zzzzzz "$EX" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: unrecognized option '--zzzzzz'$" "$WORK/err" || { cat "$WORK/err"; die "no suggestion expected"; }
expect_exit 2 "$TD" summary -q "$EX" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: unrecognized option '-q'" "$WORK/err" || die "short option message"
expect_exit 2 "$TD" summary "$EX" --top 2>"$WORK/err" || exit 1
grep -q "^tracedoc: option '--top' needs a value (N)" "$WORK/err" || die "missing value"
expect_exit 2 "$TD" summary --icicle=yes "$EX" 2>/dev/null || exit 1
# no path-prefixed getopt messages anywhere
grep -q "/tracedoc:" "$WORK/err" && die "message prefixed with the binary path"
# unique prefixes and --name=value still work; '--' ends the options
"$TD" summary --form=json --to 3 "$EX" | head -c 1 | grep -q '{' || die "prefix/--name=value"
cp "$EX" "$WORK/-odd.json.gz"
(cd "$WORK" && "$TD" summary -- -odd.json.gz >/dev/null) || die "'--' before a file named -odd"
# -o - is standard output; the same bytes as without -o
"$TD" fold "$EX" >"$WORK/a" && "$TD" fold "$EX" -o - >"$WORK/b" && cmp -s "$WORK/a" "$WORK/b" || die "fold -o -"
[ -s "$WORK/a" ] || die "fold printed nothing"
"$TD" summary "$EX" >"$WORK/a" && "$TD" summary "$EX" -o - >"$WORK/b" && cmp -s "$WORK/a" "$WORK/b" || die "summary -o -"
"$TD" summary "$EX" -o "$WORK/s.txt" && cmp -s "$WORK/a" "$WORK/s.txt" || die "summary -o FILE"
"$TD" flame "$EX" -o "$WORK/f.svg" && "$TD" flame "$EX" -o - >"$WORK/g.svg" && cmp -s "$WORK/f.svg" "$WORK/g.svg" ||
    die "flame -o -"
expect_exit 2 "$TD" report "$EX" -o - 2>"$WORK/err" || exit 1
grep -q "^tracedoc: --output: this command writes several files" "$WORK/err" || die "report -o - message"
# a template naming an unknown table: exit 2 with file:line, before any output
printf 'documents = pdf json\n[pdf]\nsection header\nsection table kernals\n' >"$WORK/t.tdt"
expect_exit 2 "$TD" report "$EX" --template "$WORK/t.tdt" -o "$WORK/tout" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/t.tdt:4: unknown table 'kernals' (did you mean 'kernels'?)" "$WORK/err" ||
    { cat "$WORK/err"; die "unknown table message"; }
[ -e "$WORK/tout" ] && die "output written despite the bad template"
# ... and an unknown flamegraph kind the same way
printf 'documents = pdf\n[pdf]\nsection header\nsection flame devcie\n' >"$WORK/t2.tdt"
expect_exit 2 "$TD" report "$EX" --template "$WORK/t2.tdt" -o "$WORK/tout2" 2>"$WORK/err" || exit 1
grep -q "^tracedoc: $WORK/t2.tdt:4: unknown flamegraph kind 'devcie' (did you mean 'device'?)" "$WORK/err" ||
    { cat "$WORK/err"; die "unknown flame kind message"; }
[ -e "$WORK/tout2" ] && die "output written despite the bad template (flame kind)"
exit 0
