# Differential flamegraphs (flame --diff BASE, difffolded two-count lines). Expected
# values: a tiny pair worked out by hand (self changes, flamegraph.pl's colour scale),
# and on a real torch CPU trace's stacks an independent Python computation of every
# frame's before/after/self change and colour from the two folded files.
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
printf 'main;a;x 100\nmain;a;y 50\nmain;b 200\nmain;c 40\n' >base.folded
printf 'main;a;x 160\nmain;a;y 50\nmain;b 150\nmain;d 30\n' >cur.folded
"$TD" flame cur.folded --diff base.folded -o d.svg || die "flame --diff"
# frame -> "value|fill" and its tooltip
frame() { $PY - "$1" "$2" <<'PYEOF'
import re, sys
s = open(sys.argv[1]).read()
for m in re.finditer(r'<g data-v="(\d+)"><title>(.*?)\n(.*?)</title><rect [^>]*fill="#([0-9a-f]{6})"', s, re.S):
    if m.group(2) == sys.argv[2]:
        print(m.group(1) + "|" + m.group(4) + "|" + m.group(3))
PYEOF
}
# self changes: x +60 (the largest: saturated red), b -50, d +30 (new), y 0, main/a 0;
# red (255, g, g) with g = int(210 (60 - d) / 60), blue (r, r, 255) likewise
[ "$(frame d.svg x)" = "160|ff0000|now 160 ns (41.03%), before 100 ns, change +60 ns (+60.0%), self +60 ns" ] ||
    die "x: $(frame d.svg x)"
[ "$(frame d.svg b)" = "150|2323ff|now 150 ns (38.46%), before 200 ns, change -50 ns (-25.0%), self -50 ns" ] ||
    die "b: $(frame d.svg b)"   # int(210 * 10 / 60) = 35 = 0x23
[ "$(frame d.svg d)" = "30|ff6969|now 30 ns (7.69%), before 0 ns, change +30 ns (new), self +30 ns" ] ||
    die "d: $(frame d.svg d)"   # int(210 * 30 / 60) = 105 = 0x69
[ "$(frame d.svg y | cut -d'|' -f2)" = ffffff ] || die "y unchanged is not white"
[ "$(frame d.svg a)" = "210|ffffff|now 210 ns (53.85%), before 150 ns, change +60 ns (+40.0%), self +0 ns" ] ||
    die "a: $(frame d.svg a)"
[ -z "$(frame d.svg c)" ] || die "c (gone now) is drawn"
grep -q 'baseline base.folded: 390 ns → now 390 ns (+0.0%)' d.svg || die "subtitle totals"
grep -q '40 ns of baseline stacks absent now (not drawn)' d.svg || die "subtitle: vanished"
grep -q '<g id="frames" class="diff">' d.svg || die "diff frames not outlined"
# deterministic
"$TD" flame cur.folded --diff base.folded -o d2.svg && cmp -s d.svg d2.svg || die "not deterministic"
# difffolded's two-count lines draw the same frames
printf 'main;a;x 100 160\nmain;a;y 50 50\nmain;b 200 150\nmain;c 40 0\nmain;d 0 30\n' >two.folded
"$TD" flame two.folded -o two.svg || die "two counts"
sed -n '/<g id="frames"/,/^<\/g>/p' d.svg >f1
sed -n '/<g id="frames"/,/^<\/g>/p' two.svg >f2
cmp -s f1 f2 || die "difffolded input differs from --diff: $(diff f1 f2 | head -5)"
# --normalize: a baseline of twice the length scaled back gives the same frames
awk '{print $1, $2 * 2}' base.folded >base2.folded
"$TD" flame cur.folded --diff base2.folded --normalize -o n.svg || die "normalize"
sed -n '/<g id="frames"/,/^<\/g>/p' n.svg >f3
cmp -s f1 f3 || die "--normalize: $(diff f1 f3 | head -5)"
grep -q '(scaled to this total): 390 ns' n.svg || die "normalize subtitle"
# usage errors
expect_exit 2 "$TD" flame cur.folded --normalize -o x.svg 2>err || exit 1
expect_exit 2 "$TD" flame two.folded --diff base.folded -o x.svg 2>err || exit 1
grep -q 'already differential' err || die "$(cat err)"
[ ! -e x.svg ] || die "output written on a usage error"

# Real stacks: torch CPU profiler traces of the nightly model before and after the
# feed-forward layer was made 4x wider (tests/data/nightly/SOURCES.md), folded by
# tracedoc. Every frame checked against a Python computation from the folded files.
D="$ROOT/tests/data/nightly"
"$TD" flame "$D/run-ff1024.cpu.folded" --diff "$D/run-ff256.cpu.folded" --minwidth 0 -o real.svg ||
    die "real diff"
$PY - "$D/run-ff256.cpu.folded" "$D/run-ff1024.cpu.folded" real.svg <<'PYEOF' || exit 1
import re, sys
def load(p):
    d = {}
    for line in open(p):
        st, v = line.rstrip("\n").rsplit(" ", 1)
        d[st] = d.get(st, 0) + int(v)
    return d
b, c = load(sys.argv[1]), load(sys.argv[2])
incl_b, incl_c, self_b, self_c = {}, {}, {}, {}
for src, incl, slf in ((b, incl_b, self_b), (c, incl_c, self_c)):
    for st, v in src.items():
        fr = st.split(";")
        for i in range(1, len(fr) + 1):
            k = ";".join(fr[:i])
            incl[k] = incl.get(k, 0) + v
        slf[st] = slf.get(st, 0) + v
drawn = [k for k in incl_c if incl_c[k] > 0]
delta = {k: self_c.get(k, 0) - self_b.get(k, 0) for k in drawn}
mx = max(abs(d) for d in delta.values())
def colour(d):
    if d == 0: return "ffffff"
    a = int(210 * (mx - abs(d)) / mx)
    return "ff%02x%02x" % (a, a) if d > 0 else "%02x%02xff" % (a, a)
want = {k: (incl_c[k], colour(delta[k])) for k in drawn}
# the SVG's frames in pre-order; depth from the row (the root "all" is the lowest row)
svg = open(sys.argv[3]).read()
fr = [(int(m.group(1)), m.group(2), int(m.group(3)), m.group(4)) for m in re.finditer(
    r'<g data-v="(\d+)"><title>(.*?)\n.*?</title><rect [^>]*y="(\d+)"[^>]*fill="#([0-9a-f]{6})"', svg, re.S)]
yroot = fr[0][2]
have, path = {}, []
for v, name, y, col in fr[1:]:
    d = (yroot - y) // 16
    name = name.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    path[d - 1:] = [name]
    have[";".join(path)] = (v, col)
if have != want:
    bad = sorted(set(have.items()) ^ set(want.items()))[:6]
    sys.exit("frames differ (path, (value, colour)): %s" % bad)
reds = sum(1 for k in drawn if delta[k] > 0)
blues = sum(1 for k in drawn if delta[k] < 0)
print("ok: %d frames (%d red, %d blue), largest self change %d ns" % (len(want), reds, blues, mx))
PYEOF
# the wider feed-forward layer: the forward aten::addmm grew
grep -A1 '<title>aten::addmm' real.svg | grep -q 'change +' || die "aten::addmm did not grow"
exit 0
