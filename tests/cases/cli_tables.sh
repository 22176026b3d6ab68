# Every table the analysis writes is in td_table_names (summary.c), so a template may
# name it: the literal names passed to td_sum_table in src/ against that list.
. "$ROOT/tests/lib.sh"
list=$(sed -n '/^const char \*const td_table_names\[\]/,/NULL};/p' "$ROOT/src/summary.c" | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$list" ] || die "td_table_names not found in src/summary.c"
used=$(grep -ho 'td_sum_table([a-z>-]*, "[^"]*"' "$ROOT"/src/*.c | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$used" ] || die "no td_sum_table calls found"
missing=$(comm -13 <(echo "$list") <(echo "$used"))
[ -z "$missing" ] || die "tables missing from td_table_names in src/summary.c: $missing"
exit 0
