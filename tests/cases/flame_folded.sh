# tracedoc flame on folded stacks as FlameGraph's tools write them (expected values by
# hand): decimal counts (stackcollapse-chrome-tracing.py prints float durations, e.g.
# 1.25), two counts per line (difffolded.pl: the second is drawn, as flamegraph.pl
# does), tab separators, negative counts skipped with a warning (flamegraph.pl ignores
# them), a bad line named; and the file is streamed: 20x more lines of the same stacks
# take no more memory.
. "$ROOT/tests/lib.sh"
printf 'main;a 1.25\nmain;b\t0.75\nmain;a 1\n' >"$WORK/frac.folded"
"$TD" flame "$WORK/frac.folded" -o "$WORK/frac.svg" || die "fractional"
# values in thousandths: main 3000, a 2250 (75%), b 750 (25%)
grep -q '<g data-v="3000"><title>main' "$WORK/frac.svg" || die "main value"
grep -q '<g data-v="2250"><title>a' "$WORK/frac.svg" || die "a value"
grep -A1 '<g data-v="2250"><title>a' "$WORK/frac.svg" | grep -q '75.00%' || die "a share"
grep -q '<g data-v="750"><title>b' "$WORK/frac.svg" || die "b value"
printf 'main;x 10 30\nmain;y 5 0\nmain;z 7 7\n' >"$WORK/diff.folded"
"$TD" flame "$WORK/diff.folded" -o "$WORK/diff.svg" || die "difffolded"
grep -q '<g data-v="37"><title>main' "$WORK/diff.svg" || die "second counts drawn"
grep -q '<title>y' "$WORK/diff.svg" && die "a zero second count is drawn"
printf 'main;x 10\nmain;y -5\nmain;z -1.5\n' >"$WORK/neg.folded"
"$TD" flame "$WORK/neg.folded" -o "$WORK/neg.svg" 2>"$WORK/err" || die "negative"
grep -q "2 lines with a negative count skipped" "$WORK/err" || die "no warning: $(cat "$WORK/err")"
grep -q '<g data-v="10"><title>main' "$WORK/neg.svg" || die "negative lines not skipped"
printf 'main;x 10\nmain;y 1.2.3\n' >"$WORK/bad.folded"
expect_exit 3 "$TD" flame "$WORK/bad.folded" -o "$WORK/bad.svg" 2>"$WORK/err" || exit 1
grep -q "bad.folded: line 2: expected 'frame;frame;... COUNT'" "$WORK/err" || die "$(cat "$WORK/err")"
[ ! -e "$WORK/bad.svg" ] || die "output written on error"
# integer counts keep the unit: same SVG as before (values in ns)
printf 'main;a 1250\nmain;b 750\n' >"$WORK/int.folded"
"$TD" flame "$WORK/int.folded" -o "$WORK/int.svg" || die "int"
grep -q '<g data-v="2000"><title>main' "$WORK/int.svg" || die "integer values"
# streaming: memory follows the distinct stacks, not the lines
if [ "${BUILD_KIND:-build}" = build ] && [ -x /usr/bin/time ]; then
    $PY - "$WORK" <<'PYEOF'
import sys
w = sys.argv[1]
stacks = [";".join(f"frame{d}_{s % 7}" for d in range(30)) + f";leaf{s}" for s in range(50)]
for name, n in (("small", 20000), ("big", 400000)):
    with open(f"{w}/{name}.folded", "w") as f:
        for i in range(n):
            f.write(f"{stacks[(i * 7919) % 50]} {i % 100 + 1}\n")
PYEOF
    for n in small big; do
        /usr/bin/time -f %M -o "$WORK/$n.rss" "$TD" flame "$WORK/$n.folded" -o "$WORK/$n.svg" || die "$n"
    done
    s=$(cat "$WORK/small.rss") b=$(cat "$WORK/big.rss")
    [ $((b - s)) -lt 8192 ] || die "RSS grows with the lines: ${s} KB for 20k lines, ${b} KB for 400k"
fi
exit 0
