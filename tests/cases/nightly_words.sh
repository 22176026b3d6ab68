# Issue 38 §3 (nightly): the words of a nightly series (tests/data/nightly, runs 14-26; the
# step time and ops jump on run21). JUnit test cases are named as the documents name the
# metric, with its unit and the key in parentheses (not the raw key); every p-value
# statement is true (checked here by parsing "p=X < Y" and "p=X, not < Y"); the run after
# the change left the 5-run window says the metrics are still regressed instead of falling
# silent; the PDF's trend charts are titled by name and their value axes end on round
# values. Expected facts: the step time's levels before and after run21 from the runs'
# own steps tables.
. "$ROOT/tests/lib.sh"
command -v pdftotext >/dev/null || { echo "no poppler"; exit 77; }
cd "$WORK" || exit 1
D=$ROOT/tests/data/nightly
for i in $(seq 14 26); do
    f=json,junit
    [ $i = 25 ] && f=json,junit,pdf,md
    "$TD" report "$D/run$i.summary.json" -o run$i --template nightly --history h.db \
        --format $f --meta commit=run$i >run$i.v 2>run$i.err
    echo $? >run$i.rc
done
[ "$(cat run21.rc)" = 1 ] && [ "$(cat run25.rc)" = 1 ] || die "runs 21/25 not regressed"
[ "$(cat run26.rc)" = 0 ] || die "run26: exit $(cat run26.rc) (want 0: no longer reported)"
pdftotext run25/report.pdf run25.txt || die pdftotext
$PY - "$D" <<'PYEOF' || exit 1
import glob, json, re, statistics, sys, html
D = sys.argv[1]
def med(i):
    s = json.load(open("%s/run%02d.summary.json" % (D, i)))
    return statistics.median(r["wall_ns"] for r in s["steps"] if not r["warmup"])
before = statistics.mean(med(i) for i in range(14, 21))
after = statistics.mean(med(i) for i in range(21, 27))
assert after > 1.05 * before, (before, after)
key = re.compile(r"^[a-z_]+\.[a-z_]+(:.*)?$")
for j in sorted(glob.glob("run*/junit.xml")):
    x = open(j).read()
    names = [html.unescape(n) for n in re.findall(r'<testcase classname="tracedoc\.[^"]*" name="([^"]*)"', x)]
    assert names or j.startswith("run14/"), j   # run14: the first run, nothing judged
    for n in names:
        assert not key.match(n), (j, "raw key as the test name", n)
        m = re.match(r"^(.*) \(([a-z_]+\.[a-z_]+(?::.*)?)\)$", n)
        assert m and "_ns" not in m.group(1), (j, n)
    for p, rel, thr in re.findall(r"p=([0-9.e+-]+)(, not <| <) ([0-9.e+-]+)", html.unescape(x)):
        ok = float(p) < float(thr) if rel == " <" else float(p) >= float(thr)
        assert ok, (j, p, rel, thr)
md = open("run25/report.md").read()
for p, rel, thr in re.findall(r"p=([0-9.e+-]+)(, not <| <) ([0-9.e+-]+)", md):
    assert (float(p) < float(thr)) == (rel == " <"), (p, rel, thr)
# the run after the window: still regressed, with the levels the runs show
v = open("run26.v").read()
assert "Still regressed" in v and "run21" in v, v
x = html.unescape(open("run26/junit.xml").read())
m = re.search(r'name="Step time \(median of the steady steps\)[^"]*\(step\.median_ns\)".*?<system-out>(.*?)</system-out>', x, re.S)
assert m and "still regressed since run21" in m.group(1), m and m.group(1)
# the trend charts: titles by name, round axis values (at most 3 significant digits)
t = open("run25.txt").read()
tr = t[t.index("Trends over the last runs"):t.index("Each point is one run")]
assert "Step time (median of the steady steps)" in tr and "step.median_ns" not in tr, tr[:500]
assert "op.total_ns" not in tr and "op.mean_ns" not in tr, tr[:800]
ticks = re.findall(r"^([0-9.]+) (?:s|ms|µs|ns)$", tr, re.M)
assert ticks, tr[:800]
for k in ticks:
    assert len(k.replace(".", "").strip("0")) <= 3, ("tick", k)
PYEOF
exit 0
