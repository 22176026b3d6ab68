# Drive the SVG's script in headless Chromium (skipped when chromium is not installed):
# the SVG is loaded in an iframe by a small harness page that clicks, hovers and types,
# then writes what it saw as JSON into the page, which --dump-dom prints. Expected
# values come from small.folded by hand (total 1000: compute 500 = matmul 400 + relu 50
# + self 50; parse 450; idle 10).
. "$ROOT/tests/lib.sh"
CHROME=$(command -v chromium || command -v chromium-browser) || { echo "chromium not installed"; exit 77; }
cd "$WORK" || exit 1
"$TD" flame -o "$WORK/small.svg" "$ROOT/tests/data/svg/small.folded" || die "flame"
"$TD" flame -o "$WORK/small-icicle.svg" --icicle "$ROOT/tests/data/svg/small.folded" || die "flame"
cat > harness.html <<'HTML'
<!doctype html>
<html><body>
<iframe id="f" width="1200" height="300"></iframe>
<pre id="out">pending</pre>
<script>
var src = location.hash.slice(1);
var fr = document.getElementById('f');
fr.addEventListener('load', function () {
  var out = {}, w = fr.contentWindow, d = fr.contentDocument;
  try {
    var $ = function (id) { return d.getElementById(id); };
    var F = function () { return Array.prototype.slice.call($('frames').children); };
    var st = function (g) {
      var r = g.querySelector('rect'), t = g.querySelector('text');
      return {x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),
              shown: g.style.display !== 'none', cls: g.getAttribute('class') || '',
              label: t ? t.textContent : '', fill: r.getAttribute('fill')};
    };
    var click = function (i) {
      F()[i].querySelector('rect').dispatchEvent(new w.MouseEvent('click', {bubbles: true}));
    };
    var key = function (k, ctrl) {
      d.dispatchEvent(new w.KeyboardEvent('keydown', {key: k, ctrlKey: !!ctrl, bubbles: true, cancelable: true}));
    };
    out.ready = d.documentElement.getAttribute('data-ready');
    out.titles = F().filter(function (g) { return g.querySelector('title'); }).length;
    out.initial = F().map(st);
    click(3); /* compute */
    out.zoom = F().map(st);
    out.unzoom = $('unzoom').getAttribute('visibility');
    var r = F()[4].querySelector('rect').getBoundingClientRect();
    F()[4].querySelector('rect').dispatchEvent(new w.MouseEvent('mousemove',
        {bubbles: true, clientX: r.left + 5, clientY: r.top + 5}));
    out.tip = [$('tip').getAttribute('visibility'), $('tipname').textContent,
               $('tipinfo').textContent, $('details').textContent];
    r = F()[2].querySelector('rect').getBoundingClientRect();
    F()[2].querySelector('rect').dispatchEvent(new w.MouseEvent('mousemove',
        {bubbles: true, clientX: r.left + 5, clientY: r.top + 5}));
    out.tipanc = $('tipinfo').textContent;
    key('Escape');
    out.reset = F().map(st);
    out.unzoom2 = $('unzoom').getAttribute('visibility');
    w.prompt = function () { return 'a(t|r)'; };
    key('/');
    out.search1 = [$('matched').textContent, $('search').textContent, F().map(st)];
    w.prompt = function () { return 'e'; };
    key('f', true);
    out.search2 = $('matched').textContent;
    w.prompt = function () { return '('; };
    key('/');
    out.search3 = $('matched').textContent;
    click(6); /* parse, with the search still on */
    out.zoomsearch = F().map(st);
    key('Escape');
    out.search4 = [$('matched').textContent, F().map(st)];
    $('search').dispatchEvent(new w.MouseEvent('click', {bubbles: true}));
    click(5);
    $('unzoom').dispatchEvent(new w.MouseEvent('click', {bubbles: true}));
    out.unzoombtn = F().map(st);
  } catch (e) {
    out.error = String(e) + ' ' + e.stack;
  }
  document.getElementById('out').textContent = JSON.stringify(out);
});
fr.src = src;
</script>
</body></html>
HTML
run() {
    local prof; prof=$(mktemp -d)
    timeout -k 10 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --allow-file-access-from-files --user-data-dir="$prof" --virtual-time-budget=5000 \
        --dump-dom "$@" 2>/dev/null
    rm -rf "$prof"
}
# speed: 12.6k frames (about the size limit) must not make the script slow to start:
# compare the load of the same SVG with and without its script
$PY - <<'PYEOF' > big.folded
for a in range(30):
    for b in range(20):
        chain = ';'.join('module.py(%d): fn_%d_%d_%d' % (100 + d, a, b, d) for d in range(20))
        print('main thread;op_%d;child_%d;%s 1000' % (a, b, chain))
PYEOF
"$TD" flame -o big.svg big.folded || die "flame big"
# ASan/UBSan and portable builds: the SVGs are the release build's, byte for byte; the
# release build's run of this case drives them in Chromium (tests/lib.sh looks_elsewhere)
if looks_elsewhere; then
    "$TD_RELEASE/tracedoc" flame -o rel-small.svg "$ROOT/tests/data/svg/small.folded" || die "release flame"
    "$TD_RELEASE/tracedoc" flame -o rel-small-icicle.svg --icicle "$ROOT/tests/data/svg/small.folded" || die "release flame"
    "$TD_RELEASE/tracedoc" flame -o rel-big.svg big.folded || die "release flame big"
    for f in small small-icicle big; do same_as_release $f.svg rel-$f.svg || exit 1; done
    echo "the SVGs are the release build's, byte for byte: Chromium runs them in its run"
    exit 0
fi
run "file://$WORK/harness.html#small.svg" > dom1.html
run "file://$WORK/harness.html#small-icicle.svg" > dom2.html
# a shared view: zoomed on matmul, searching "re" (URI-encoded in the fragment)
run "file://$WORK/small.svg#z=4&s=r%65" > dom3.svg
$PY - <<'PYEOF'
s = open('big.svg').read()
open('big-noscript.svg', 'w').write(s[:s.index('<script>')] + s[s.index('</script>') + 9:])
PYEOF
cat > speed.html <<'HTML'
<!doctype html><html><body><iframe id="f" width="1200" height="600"></iframe><pre id="out"></pre>
<script>
var fr = document.getElementById('f'), t0 = performance.now();
fr.addEventListener('load', function () {
  var d = fr.contentDocument;
  document.getElementById('out').textContent = JSON.stringify({ms: performance.now() - t0,
      ready: d.documentElement.getAttribute('data-ready'),
      frames: d.getElementById('frames').children.length});
});
fr.src = location.hash.slice(1);
</script></body></html>
HTML
run "file://$WORK/speed.html#big.svg" > speed1.html
run "file://$WORK/speed.html#big-noscript.svg" > speed2.html
$PY - <<'PYEOF' || exit 1
import json, re, html
def load(p):
    m = re.search(r'<pre id="out">(.*?)</pre>', open(p).read(), re.S)
    assert m, 'no output in ' + p
    return json.loads(html.unescape(m.group(1)))
a, b = load('speed1.html'), load('speed2.html')
print('load with script %.0f ms, without %.0f ms, %d frames' % (a['ms'], b['ms'], a['frames']))
assert a['ready'] == '1' and a['frames'] > 12000, a
assert a['ms'] < 3 * b['ms'] + 1000, (a, b)
PYEOF
$PY - <<'PYEOF' || exit 1
import json, re, html
def load(p):
    m = re.search(r'<pre id="out">(.*?)</pre>', open(p).read(), re.S)
    assert m, 'no output in ' + p
    return json.loads(html.unescape(m.group(1)))
names = ['all', 'idle', 'main', 'compute', 'matmul', 'relu', 'parse', 'read_json', 'tokenize']
X = [0, 0, 1, 1, 1, 41, 51, 51, 81]
W = [100, 1, 99, 50, 40, 5, 45, 30, 15]
def near(a, b): return abs(a - b) < 1e-6
for p in ('dom1.html', 'dom2.html'):
    o = load(p)
    assert 'error' not in o, o['error']
    assert o['ready'] == '1' and o['titles'] == 0, o
    for i, s in enumerate(o['initial']):
        assert s['shown'] and near(s['x'], X[i]) and near(s['w'], W[i]), (p, i, s)
    # every label fits its frame at 1200px and is the name or a ".."-cut prefix of it
    for i, s in enumerate(o['initial']):
        l = s['label']
        assert l == '' or l == names[i] or (l.endswith('..') and names[i].startswith(l[:-2])), (i, l)
    assert o['initial'][2]['label'] == 'main' and o['initial'][1]['label'] == ''
    # zoom on compute: compute and children across the width, ancestors faded, rest hidden
    z = o['zoom']
    shown = [i for i, s in enumerate(z) if s['shown']]
    assert shown == [0, 2, 3, 4, 5], shown
    assert z[0]['cls'] == 'a' and z[2]['cls'] == 'a' and z[3]['cls'] == '', z
    for i, x, w in ((0, 0, 100), (2, 0, 100), (3, 0, 100), (4, 0, 80), (5, 80, 10)):
        assert near(z[i]['x'], x) and near(z[i]['w'], w), (i, z[i])
    assert z[5]['label'] == 'relu', z[5]
    assert o['unzoom'] == 'visible' and o['unzoom2'] == 'hidden'
    assert o['tip'] == ['visible', 'matmul', '400 ns, 40.00%, 80.00% of zoomed frame',
                        'matmul \u2014 400 ns, 40.00%, 80.00% of zoomed frame'], o['tip']
    assert o['tipanc'] == '990 ns, 99.00%', o['tipanc']  # an ancestor: no zoomed share
    for i, s in enumerate(o['reset']):
        assert s['shown'] and near(s['x'], X[i]) and near(s['w'], W[i]) and s['cls'] == '', (i, s)
    # 'a(t|r)': matmul 400 + parse 450 of 1000
    m, btn, fr = o['search1']
    assert m == 'Matched: 85.00%' and btn == 'Reset Search', (m, btn)
    hl = [i for i, s in enumerate(fr) if s['fill'] == '#e03ce0']
    assert hl == [4, 6], hl
    # 'e': compute, relu, parse, read_json, tokenize, idle: nested ones are not counted
    # again: 500 + 450 + 10 = 96%
    assert o['search2'] == 'Matched: 96.00%', o['search2']
    assert o['search3'] == 'Invalid regex', o['search3']
    zs = o['zoomsearch']
    assert [i for i, s in enumerate(zs) if s['shown']] == [0, 2, 6, 7, 8]
    assert near(zs[7]['w'], 100 * 300 / 450) and near(zs[8]['x'], 100 * 300 / 450)
    # Escape resets zoom and search
    m, fr = o['search4']
    assert m == '' and all(s['fill'] != '#e03ce0' for s in fr)
    assert all(s['shown'] and near(s['x'], X[i]) for i, s in enumerate(o['unzoombtn']))
# the shared view
d = open('dom3.svg').read()
assert 'data-ready="1"' in d
# "re": read_json 300 + relu 50
assert re.search(r'id="matched"[^>]*>Matched: 35.00%<', d), 'search from the fragment'
assert d.count('display: none;') == 5, 'zoom from the fragment: all, main, compute, matmul shown'

PYEOF
exit 0
