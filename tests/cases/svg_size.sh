# Size limit: a flamegraph that would exceed ~1.9 MB is pruned harder (and says so), so
# it still opens quickly. Synthetic worst case: 900 deep chains each 0.11% wide (just
# above the default 0.1% cut) -> 18k frames -> 2.8 MB before the limit. Real traces,
# when the readers can read them: every flame-*.svg of a report stays under 2 MB.
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
$PY - <<'PYEOF' > chain.folded
for a in range(30):
    for b in range(30):
        chain = ';'.join('module.py(%d): fn_%d_%d_%d' % (100 + d, a, b, d) for d in range(20))
        print('main thread;op_%d;child_%d;%s 1000' % (a, b, chain))
PYEOF
"$TD" flame -o chain.svg chain.folded || die "flame chain"
"$TD" flame -o chain-small.svg --minwidth 0.002 chain.folded || die "flame chain 0.002"
$PY - <<'PYEOF' || exit 1
import os, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
n = os.path.getsize('chain.svg')
assert 0 < n <= 1900000, n
root = ET.parse('chain.svg').getroot()
sub = root.find(NS + 'text[@id="subtitle"]').text
assert sub.endswith('frames under 0.15% merged (size limit)'), sub
# 0.111% < 0.15%: each child_ frame keeps the 30 chains' time as one grey frame
frames = root.find(NS + 'g[@id="frames"]').findall(NS + 'g')
assert len(frames) == 1 + 1 + 30 + 30, len(frames)
sub = ET.parse('chain-small.svg').getroot().find(NS + 'text[@id="subtitle"]').text
assert sub.endswith('frames under 0.2% merged'), sub
PYEOF
# 400 chains of 50 frames, each 0.25% wide: too big at 0.1%, 0.15% and 0.225% (the same
# 20,001 frames each time: the renderer skips building the last two), and at 0.3375%
# all merged into one grey frame: a drawing of nothing. So the frames of 0.225% are kept
# and those below a depth merged instead: every chain drawn down to that depth, one grey
# "(1 frame below)" frame on each, under the size limit
$PY - <<'PYEOF' > flat.folded
for a in range(400):
    print(';'.join('pkg/mod%d.py:fn_%d_%d:%d' % (d % 7, a, d, 100 + d) for d in range(50)) + ' 1000')
PYEOF
"$TD" flame -o flat.svg flat.folded || die "flame flat"
$PY - <<'PYEOF' || exit 1
import os, re, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
assert os.path.getsize('flat.svg') <= 1900000, os.path.getsize('flat.svg')
root = ET.parse('flat.svg').getroot()
sub = root.find(NS + 'text[@id="subtitle"]').text
m = re.search(r'frames under 0\.225% merged, frames below depth (\d+) merged \(size limit\)$', sub)
assert m, sub
depth = int(m.group(1))
assert 20 <= depth < 50, depth
names = [g.find(NS + 'title').text.split('\n')[0] for g in root.find(NS + 'g[@id="frames"]').findall(NS + 'g')]
# the root, 400 chains of `depth` frames, a grey frame below each
assert len(names) == 1 + 400 * depth + 400, (len(names), depth)
assert names.count('(1 frame below)') == 400, names.count('(1 frame below)')
for a in range(400):
    assert 'pkg/mod%d.py:fn_%d_%d:%d' % ((depth - 1) % 7, a, depth - 1, 99 + depth) in names, a
PYEOF
[ -n "${TRACES:-}" ] && [ -d "$TRACES" ] || exit 0
# real traces: only those this build can read (readers land separately)
checked=0
for t in "$TRACES"/kineto/*.json.gz "$TRACES"/nsys/*.sqlite "$TRACES"/nsys-jax/*proc0.zip; do
    [ -f "$t" ] || continue
    out="$WORK/r-$(basename "$t")"
    TRACEDOC_DATA="$ROOT" "$TD" report -o "$out" --format svg "$t" >/dev/null 2>&1 || continue
    checked=$((checked + 1))
    for f in "$out"/flame-*.svg; do
        [ -f "$f" ] || continue
        s=$(stat -c %s "$f")
        [ "$s" -le 2000000 ] || die "$f: $s bytes"
        $PY -c "import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])" "$f" || die "$f: not XML"
    done
done
echo "$checked real traces checked"
exit 0
