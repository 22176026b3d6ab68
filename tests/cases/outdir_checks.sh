# -o checked before any work (issue 21): a report/diff/merge directory named like a
# document (report.pdf, .xlsx, .svg, .json, .csv, .md) is refused (exit 2, nothing made)
# unless it already is a directory; missing parents are made; an -o that cannot be made
# fails before the input is even read (a missing input then is not what is reported).
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
EX="$ROOT/examples/hta_nccl_data.json.gz"
for x in pdf xlsx svg json csv md PDF; do
    expect_exit 2 "$TD" report "$EX" -o "report.$x" 2>err || exit 1
    grep -qi "report: -o report.$x names a $x file, but report writes a directory" err || { cat err; die "$x: message"; }
    [ -e "report.$x" ] && die "report.$x made"
done
expect_exit 2 "$TD" diff "$EX" "$EX" -o d.md >out 2>err || exit 1
[ -s out ] && die "diff ran its analysis before refusing -o d.md"
[ -e d.md ] && die "diff: d.md made"
mkdir -p sub; touch sub/p.tds
expect_exit 2 "$TD" merge sub/p.tds -o m.pdf 2>/dev/null || exit 1
[ -e m.pdf ] && die "merge: m.pdf made"
# an existing directory of that name is fine; a trailing slash asks for a directory
mkdir was.pdf
"$TD" report "$EX" -o was.pdf --format json 2>/dev/null && [ -f was.pdf/summary.json ] || die "existing was.pdf/"
"$TD" report "$EX" -o slash.pdf/ --format json 2>/dev/null && [ -f slash.pdf/summary.json ] || die "slash.pdf/"
# missing parents: made for report, diff and file outputs
"$TD" report "$EX" -o a/b/c --format json 2>/dev/null && [ -f a/b/c/summary.json ] || die "report a/b/c"
"$TD" diff "$EX" "$EX" -o e/f/g >/dev/null 2>&1 && [ -f e/f/g/summary.json ] || die "diff e/f/g"
"$TD" summary "$EX" -o h/i.json --format json 2>/dev/null && [ -s h/i.json ] || die "summary h/i.json"
# cannot be made: checked before the work (the input does not exist: its error would come
# first if the input were read first)
echo x >afile
expect_exit 4 "$TD" report nosuch.json -o afile/out 2>err || exit 1
grep -q "afile: cannot create directory" err || { cat err; die "report: not the output's error"; }
expect_exit 4 "$TD" diff nosuch.json nosuch.json -o afile/out 2>err >/dev/null || exit 1
grep -q "afile: cannot create directory" err || { cat err; die "diff: not the output's error"; }
expect_exit 4 "$TD" report nosuch.json -o afile 2>err || exit 1
grep -q "a file of that name is in the way" err || { cat err; die "file in the way"; }
expect_exit 4 "$TD" summary nosuch.json -o afile/x.json 2>err || exit 1
grep -q "afile: cannot create directory" err || { cat err; die "summary: not the output's error"; }
expect_exit 4 "$TD" fold nosuch.json -o sub 2>err || exit 1
grep -q "sub: cannot write: is a directory" err || { cat err; die "fold -o DIR"; }
exit 0
