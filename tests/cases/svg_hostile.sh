# Hostile frame names (script injection, quotes, CDATA end, formula prefixes, invalid
# UTF-8, control characters) must come out escaped: the SVG parses as XML, has only
# tracedoc's own <script>, and every name reads back as the input with invalid bytes
# replaced by U+FFFD (python's own decoder is the reference).
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
$PY - <<'PYEOF' || exit 1
names = [
    b'</script><script>alert(1)</script>',
    b'"onmouseover="alert(2)',
    b"'quote' \"double\"",
    b'a&b&amp;c&#60;',
    b'<img src=x onerror=alert(3)>',
    b']]><script>alert(4)</script><![CDATA[',
    b"=cmd|' /C calc'!A0",
    b'bad\xff\xfe', b'over\xc0\xaflong', b'surr\xed\xa0\x80', b'trunc\xe2\x82', b'\xf4\x90\x80\x80big',
    b'ctl\x01\x0b\x1f\x7f', b'nonchar\xef\xbf\xbf', b'ls\xe2\x80\xa8ps\xe2\x80\xa9',
    b'tab\there',
    '\u00e9'.encode() * 3000,
    b'\xf0\x9f\x94\xa5' * 500,
]
with open('hostile.folded', 'wb') as f:
    for i, n in enumerate(names):
        f.write(b'root;' + n + b' ' + str(1000 + i).encode() + b'\n')
        f.write(b'root;' + n + b';' + n + b' 500\n')
open('names.txt', 'wb').write(b'\n'.join(names))
PYEOF
cp hostile.folded "h&<'x'>.folded"
"$TD" flame -o "$WORK/h.svg" --title '</title><script>alert(5)</script>' "h&<'x'>.folded" \
    || die "flame hostile"
"$TD" flame -o "$WORK/hi.svg" --icicle --minwidth 0 hostile.folded || die "flame hostile icicle"
$PY - "$WORK/h.svg" "$WORK/hi.svg" <<'PYEOF' || exit 1
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
names = open('names.txt', 'rb').read().split(b'\n')

def clean(b):
    s = b.decode('utf-8', 'replace')
    out = []
    for c in s:
        o = ord(c)
        if c in '\t\n\r':
            c = ' '
        elif o < 0x20 or 0x7f <= o < 0xa0 or o in (0xfffe, 0xffff):
            c = '\ufffd'
        out.append(c)
    return ''.join(out)

want = {clean(p) for n in names for p in n.split(b';')}  # ';' separates frames
for path in sys.argv[1:]:
    raw = open(path, 'rb').read()
    text = raw.decode('utf-8')  # strictly valid UTF-8
    assert not re.search('[\x00-\x08\x0b-\x1f]', text), 'control character in output'
    assert len(re.findall(b'(?i)<script', raw)) == 1, 'extra <script'
    for bad in (b'<script>alert', b'<img', b'"onmouseover', b'<title><script', b']]><script'):
        assert bad not in raw, bad
    root = ET.fromstring(raw)  # well-formed
    for el in root.iter():
        for k, v in el.attrib.items():
            assert 'alert' not in v and 'cmd|' not in v and '\ufffd' not in v, (k, v)
    script = root.findall('.//' + NS + 'script')
    assert len(script) == 1 and 'alert' not in script[0].text and 'cmd' not in script[0].text
    frames = root.find(NS + 'g[@id="frames"]').findall(NS + 'g')
    got = set()
    for g in frames:
        t = g.find(NS + 'title').text
        name = t.rsplit('\n', 1)[0]
        assert '\n' not in name
        got.add(name)
        lab = g.find(NS + 'text')
        assert lab is None or lab.text, 'empty label'
        if lab is not None:
            l = lab.text
            assert l == name or (l.endswith('..') and name.startswith(l[:-2])), (l, name)
    assert want <= got, sorted(want - got)[:3]
    if path.endswith('/h.svg'):
        assert root.find(NS + 'title').text == '</title><script>alert(5)</script>'
        sub = root.find(NS + 'text[@id="subtitle"]').text
        assert sub.startswith("h&<'x'>.folded \u2014 "), sub
PYEOF
exit 0
