#!/usr/bin/env bash
# The source layout stays what issue 19 made it: no two source files call each other in
# a circle and no stage folder calls a folder that calls it back (as the linker sees
# them: tests/deps.py reads the objects with nm), and no source file passes 1,000 lines.
. "$ROOT/tests/lib.sh"
cd "$ROOT" || exit 1
bdir=$(dirname "$TD")
[ -d "$bdir/obj" ] || die "no objects in $bdir/obj"
out=$($PY tests/deps.py "$bdir") || die "dependency cycles:
$out"
# deps.py must see the real graph: a few edges that exist by construction
edges=$($PY tests/deps.py "$bdir" --edges)
echo "$edges" | grep -q '^cli/main.c -> ' || die "deps.py found no edge out of cli/main.c"
echo "$edges" | grep -q '^analyse/analyse.c -> base/' || die "deps.py found no edge analyse -> base"
# and it catches a cycle when there is one: two objects that use each other's symbols
t=$WORK/cyc; mkdir -p "$t/obj/x" "$t/obj/y" "$t/src/x" "$t/src/y"
printf 'int b(void);\nint a(void){return b();}\n' >"$t/src/x/a.c"
printf 'int a(void);\nint b(void){return 1;}\nint c(void){return a();}\n' >"$t/src/y/b.c"
cc -c -o "$t/obj/x/a.o" "$t/src/x/a.c" && cc -c -o "$t/obj/y/b.o" "$t/src/y/b.c" || die "cc failed"
(cd "$t" && $PY "$ROOT/tests/deps.py" .) >"$t/out" && die "deps.py missed a cycle: $(cat "$t/out")"
grep -q 'cycle' "$t/out" || die "deps.py: no cycle named: $(cat "$t/out")"
big=$(find src -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000 {print $2 " (" $1 " lines)"}')
[ -z "$big" ] || die "source files over 1,000 lines (split them at a natural seam): $big"
exit 0
