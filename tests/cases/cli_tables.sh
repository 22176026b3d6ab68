# Every table the analysis writes is in td_table_names (summary.c), so a template may
# name it: the literal names passed to td_sum_table in src/ against that list.
. "$ROOT/tests/lib.sh"
list=$(sed -n '/^const char \*const td_table_names\[\]/,/NULL};/p' "$ROOT/src/summary.c" | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$list" ] || die "td_table_names not found in src/summary.c"
used=$(grep -ho 'td_sum_table([a-z>-]*, "[^"]*"' "$ROOT"/src/*.c | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$used" ] || die "no td_sum_table calls found"
missing=$(comm -13 <(echo "$list") <(echo "$used"))
[ -z "$missing" ] || die "tables missing from td_table_names in src/summary.c: $missing"
# the same for flamegraph kinds (td_flame_kinds) and the literal kinds given to td_sum_flame
kinds=$(sed -n '/^const char \*const td_flame_kinds\[\]/,/NULL};/p' "$ROOT/src/summary.c" | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$kinds" ] || die "td_flame_kinds not found in src/summary.c"
usedk=$(grep -ho 'td_sum_flame([a-z>-]*, "[^"]*"' "$ROOT"/src/*.c | grep -o '"[^"]*"' | tr -d '"' | sort -u)
[ -n "$usedk" ] || die "no td_sum_flame calls found"
missingk=$(comm -13 <(echo "$kinds") <(echo "$usedk"))
[ -z "$missingk" ] || die "flamegraph kinds missing from td_flame_kinds in src/summary.c: $missingk"
# every kind the shipped templates draw is known
for k in $(grep -ho '^section flame [a-z]*' "$ROOT"/templates/*.tdt | awk '{print $3}' | sort -u); do
    echo "$kinds" | grep -qx "$k" || die "template flame kind '$k' not in td_flame_kinds"
done
exit 0
