# SVG flamegraphs from hand-made folded stacks: byte-for-byte goldens (flame, icicle,
# pruning), determinism, well-formed XML, and the layout numbers checked against a
# python computation from the folded text.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/svg"
cd "$D" || exit 1 # relative input names: the subtitle shows them
"$TD" flame -o "$WORK/small.svg" small.folded || die "flame small"
"$TD" flame -o "$WORK/small-icicle.svg" --icicle --title "Icicle <example> & co" small.folded \
    || die "flame icicle"
"$TD" flame -o "$WORK/prune.svg" --title "Pruning example" prune.folded || die "flame prune"
"$TD" flame -o "$WORK/prune-0.svg" --minwidth 0 prune.folded || die "flame minwidth 0"
golden svg/small.svg "$WORK/small.svg" || exit 1
golden svg/small-icicle.svg "$WORK/small-icicle.svg" || exit 1
golden svg/prune.svg "$WORK/prune.svg" || exit 1
# determinism: a second run is identical, and so is a run on the lines shuffled
"$TD" flame -o "$WORK/small2.svg" small.folded || die "flame small again"
cmp -s "$WORK/small.svg" "$WORK/small2.svg" || die "two runs differ"
sort -r small.folded > "$WORK/small.folded"
(cd "$WORK" && "$TD" flame -o "$WORK/small3.svg" small.folded) || die "flame shuffled"
cmp -s "$WORK/small.svg" "$WORK/small3.svg" || die "input line order changes the SVG"
# no temporary file left behind
ls "$WORK" | grep -q tmp && die "temporary file left: $(ls "$WORK")"
$PY - "$WORK" <<'PYEOF' || exit 1
import sys, xml.etree.ElementTree as ET
work = sys.argv[1]
NS = '{http://www.w3.org/2000/svg}'

def folded(path, minwidth):
    """Expected frames from the folded text: (depth, name, value, x%, w%) pre-order,
    siblings by name, narrow ones merged per parent into one grey frame placed last."""
    tree = {}
    total = 0
    for line in open(path, encoding='utf-8'):
        stack, v = line.rstrip('\n').rsplit(' ', 1)
        v = int(v); total += v
        node = tree
        for name in stack.split(';'):
            node = node.setdefault(name, [0, {}])
            node[0] += v
            node = node[1]
    out = []
    def walk(name, value, kids, depth, off):
        out.append((depth, name, value, 100.0 * off / total, 100.0 * value / total))
        pruned = []
        for k in sorted(kids, key=lambda s: s.encode()):
            kv, kk = kids[k]
            if kv < minwidth * total:
                pruned.append(kv); continue
            walk(k, kv, kk, depth + 1, off); off += kv
        if pruned:
            n = len(pruned)
            out.append((depth + 1, '(%d frame%s pruned)' % (n, '' if n == 1 else 's'),
                        sum(pruned), 100.0 * off / total, 100.0 * sum(pruned) / total))
    walk('all', total, tree, 0, 0)
    return out, total

def frames(svg):
    root = ET.parse(svg).getroot()  # well-formed XML or an exception
    g = root.find(NS + 'g[@id="frames"]')
    res = []
    for f in g.findall(NS + 'g'):
        t = f.find(NS + 'title').text
        r = f.find(NS + 'rect')
        res.append((t.rsplit('\n', 1)[0], int(f.get('data-v')), float(r.get('x').rstrip('%')),
                    float(r.get('width').rstrip('%')), int(r.get('y')), t.rsplit('\n', 1)[1]))
    return root, res

def check(svg, src, minwidth, icicle):
    want, total = folded(src, minwidth)
    root, got = frames(svg)
    assert len(got) == len(want), (svg, len(got), len(want))
    maxd = max(w[0] for w in want)
    for (d, name, v, x, w), (gn, gv, gx, gw, gy, info) in zip(want, got):
        assert gn == name and gv == v, (svg, name, gn, v, gv)
        assert abs(gx - x) < 1e-4 and abs(gw - w) < 1e-4, (svg, name, x, gx, w, gw)
        level = d if icicle else maxd - d
        assert gy == 56 + 16 * level, (svg, name, gy)
        assert info.endswith(', %.2f%%' % (100.0 * v / total)), (svg, info)
    assert len(root.findall('.//' + NS + 'script')) == 1
    return got

check(work + '/small.svg', 'small.folded', 0.001, False)
check(work + '/small-icicle.svg', 'small.folded', 0.001, True)
got = check(work + '/prune.svg', 'prune.folded', 0.001, False)
assert sum(1 for g in got if 'pruned' in g[0]) == 4
check(work + '/prune-0.svg', 'prune.folded', 0, False)
# times in the tooltip use td_fmt_ns's units
tips = {g[0]: g[5] for g in frames(work + '/prune.svg')[1]}
assert tips['all'] == '100.000 ms, 100.00%', tips['all']
assert tips['adam'] == '5.700 ms, 5.70%', tips['adam']
# title, subtitle (input name, total, date from SOURCE_DATE_EPOCH=1700000000)
root = ET.parse(work + '/small-icicle.svg').getroot()
title = root.find(NS + 'text[@id="title"]').text
assert title == 'Icicle <example> & co', title
sub = root.find(NS + 'text[@id="subtitle"]').text
assert sub == ('small.folded \u2014 total 1.000 \u00b5s \u2014 2023-11-14 \u2014 '
               'frames under 0.1% merged'), sub
sub = ET.parse(work + '/prune-0.svg').getroot().find(NS + 'text[@id="subtitle"]').text
assert sub == 'prune.folded \u2014 total 100.000 ms \u2014 2023-11-14', sub
PYEOF
exit 0
