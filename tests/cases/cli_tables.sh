# Every table the analysis writes is in td_table_names (summary/summary.c), so a template may
# name it, and every flamegraph kind a pass writes is in td_flame_kinds: the literal
# names passed to td_sum_table / td_sum_flame in src/ against those lists.
. "$ROOT/tests/lib.sh"
# check LIST_NAME FUNCTION: prints the known names; dies when a literal use is missing
check() {
    local list used missing
    list=$(sed -n "/^const char \*const $1\[\]/,/NULL};/p" "$ROOT/src/summary/summary.c" | grep -o '"[^"]*"' | tr -d '"' | sort -u)
    [ -n "$list" ] || die "$1 not found in src/summary/summary.c"
    used=$(grep -ho "$2([a-z>-]*, \"[^\"]*\"" $(find "$ROOT/src" -name "*.c") | grep -o '"[^"]*"' | tr -d '"' | sort -u)
    [ -n "$used" ] || die "no $2 calls found"
    missing=$(comm -13 <(echo "$list") <(echo "$used"))
    [ -z "$missing" ] || die "missing from $1 in src/summary/summary.c: $missing"
    echo "$list"
}
check td_table_names td_sum_table >/dev/null || exit 1
kinds=$(check td_flame_kinds td_sum_flame) || { echo "$kinds"; exit 1; }
# every kind the shipped templates draw is known
for k in $(grep -ho '^section flame [a-z]*' "$ROOT"/templates/*.tdt | awk '{print $3}' | sort -u); do
    echo "$kinds" | grep -qx "$k" || die "template flame kind '$k' not in td_flame_kinds"
done
exit 0
