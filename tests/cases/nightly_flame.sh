# Differential flamegraphs of nightly reports: the stacks stored in the history database
# (compacted, zlib), the baseline run chosen (before the change point of a regression,
# else the latest run), --baseline and diff with the KIND.folded files beside a stored
# summary.json. Data: the real nightly series (tests/data/nightly) with the real CPU
# stacks of the same two models (run-ff256 / run-ff1024.cpu.folded, one profiled run of
# each: SOURCES.md) beside each night's summary. Expected values: the compaction rule of
# doc/nightly.md and the differences computed here in Python from the folded files.
. "$ROOT/tests/lib.sh"
D="$ROOT/tests/data/nightly"
DB="$WORK/runs.db"
for i in $(seq 11 25); do  # 10 nights before the change and 5 after
    mkdir -p "$WORK/in$i"
    cp "$D/run$i.summary.json" "$WORK/in$i/summary.json"
    if [ "$i" -le 20 ]; then f=ff256; else f=ff1024; fi
    cp "$D/run-$f.cpu.folded" "$WORK/in$i/cpu.folded"
    fmt=json,svg,folded
    [ "$i" = 25 ] && fmt=$fmt,xlsx
    SOURCE_DATE_EPOCH=$((1767225600 + i * 86400)) "$TD" report "$WORK/in$i/summary.json" \
        -o "$WORK/n$i" --format $fmt --template nightly --history "$DB" \
        >"$WORK/v$i" 2>"$WORK/e$i"
    rc=$?
    want=0
    [ "$i" -ge 21 ] && want=1 # run 21: the step reported the night it appears (issue 21)
    [ "$rc" = "$want" ] || { cat "$WORK/e$i" "$WORK/v$i"; die "night $i: exit $rc, expected $want"; }
done
[ -e "$WORK/n11/flame-cpu.svg" ] || die "a stored run's stacks (cpu.folded beside it) not drawn"
[ ! -e "$WORK/n11/flame-diff.svg" ] || die "first night has a differential flamegraph"
sub() { grep -o 'id="subtitle"[^<]*' "$1" | sed 's/.*>//'; }
for i in 12 15 20 21; do   # database run ids: night - 10
    p=$((i - 1))
    sub "$WORK/n$i/flame-diff.svg" | grep -q "^baseline run $((p - 10)) (run$p): " ||
        die "night $i: baseline should be the night before: $(sub "$WORK/n$i/flame-diff.svg")"
done
# once the slowdown is reported (since run21), the baseline is the run before it
for i in 22 23 24 25; do
    sub "$WORK/n$i/flame-diff.svg" | grep -q '^baseline run 10 (run20): ' ||
        die "night $i: baseline should be run 20: $(sub "$WORK/n$i/flame-diff.svg")"
done
# folded stacks -> {stack: summed value}, for both checks below
cat >"$WORK/folded_load.py" <<'PYEOF'
def load(p):
    m = {}
    for line in open(p):
        st, v = line.rsplit(" ", 1)
        m[st] = m.get(st, 0) + int(v)
    return m
PYEOF
$PY - "$D" "$WORK" "$DB" <<'PYEOF' || exit 1
import sqlite3, sys, zlib
d, w, db = sys.argv[1:4]
sys.path.insert(0, w)
from folded_load import load
def compact(m):  # doc/nightly.md: >= 1e-6 of the total, at most 20000 (largest), rest one stack
    total = sum(m.values())
    big = sorted(m.items(), key=lambda kv: (-kv[1], kv[0]))
    keep = [kv for kv in big[:20000] if kv[1] >= 1e-6 * total]
    out = dict(keep)
    small = total - sum(out.values())
    if small:
        out["(small stacks not stored)"] = small
    return out
b, c = load(d + "/run-ff256.cpu.folded"), load(d + "/run-ff1024.cpu.folded")
cb, cc = compact(b), compact(c)
assert len(cb) < len(b) and "(small stacks not stored)" in cb, "the real stacks need no compaction?"
con = sqlite3.connect(db)
rows = con.execute("SELECT run, kind, total, nstacks, small, bytes, folded FROM stacks ORDER BY run").fetchall()
assert len(rows) == 15 and all(r[1] == "cpu" for r in rows), rows[:2]
for run, kind, total, nst, small, nbytes, blob in rows:
    text = zlib.decompress(blob).decode()
    assert len(text) == nbytes
    want = cb if run <= 10 else cc   # ids 1-10: nights 11-20
    got = {}
    for line in text.splitlines():
        st, v = line.rsplit(" ", 1)
        got[st] = int(v)
    assert got == want, (run, sorted(set(got.items()) ^ set(want.items()))[:4])
    assert total == sum(want.values()) and nst == len(want) - ("(small stacks not stored)" in want)
    assert small == want.get("(small stacks not stored)", 0)
    assert len(blob) < 4096, len(blob)   # compact: a few KB a run
# diff.folded of night 25 (baseline run 20): "stack BASE CUR" self values of both sides
for night, base, cur in (("25", cb, cc), ("15", cb, cb)):
    got = {}
    for line in open("%s/n%s/diff.folded" % (w, night)):
        st, x, y = line.rsplit(" ", 2)
        got[st] = (int(x), int(y))
    want = {k: (base.get(k, 0), cur.get(k, 0)) for k in set(base) | set(cur)}
    assert got == want, (night, sorted(set(got.items()) ^ set(want.items()))[:4])
print("ok")
PYEOF
# same stacks: every frame white
sed -n '/<g id="frames"/,/^<\/g>/p' "$WORK/n15/flame-diff.svg" | grep -o 'fill="#[0-9a-f]*"' |
    sort -u | grep -v -e ffffff -e c0c0c0 &&
    die "unchanged stacks drawn in colour"
grep -q 'fill="#ff0000"' "$WORK/n25/flame-diff.svg" || die "night 25: no saturated red frame"
# the workbook's Trends sheet: per metric a block (run, value, the changed run's value)
# and a native line chart of it; values and order from summary.json's trends/changes
$PY - "$WORK/n25" <<'PYEOF' || exit 1
import html, json, re, sys, zipfile
import openpyxl
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
groups = []
for r in s["trends"]:
    if not groups or groups[-1][0] != r["metric"]:
        groups.append((r["metric"], []))
    groups[-1][1].append(r)
assert groups[0][0] == "step.median_ns", "key metric first"
since = {c["metric"]: c["since"] for c in s["changes"]}
changed = [g[0] for g in groups[1:]]
order = [c["metric"] for c in s["changes"] if c["metric"] in changed]
assert changed == order, "changed metrics in the order of the changes table"
# headings and chart titles name each metric for a reader (doc/outputs.md "Workbook": "Op
# aten::mm: total time", "Step time (median of the steady steps)")
def label(m):
    if m == "step.median_ns":
        return "Step time (median of the steady steps)"
    fam, _, name = m.partition(":")
    what = {"op.total_ns": ("Op", "total time"), "op.mean_ns": ("Op", "mean per call"),
            "kernel.total_ns": ("Kernel", "total time"), "kernel.mean_ns": ("Kernel", "mean per call")}[fam]
    return "%s %s: %s" % (what[0], name, what[1])
groups = [(label(m), rs) for m, rs in groups]
since = {label(k): v for k, v in since.items()}
wb = openpyxl.load_workbook(d + "/report.xlsx")
ws = wb["Trends"]
rows = list(ws.iter_rows(values_only=True))
at = {}
for i, r in enumerate(rows):
    if r and r[0] in dict(groups) and i + 1 < len(rows) and rows[i + 1][0] == "Run":
        at[r[0]] = i
assert len(at) == len(groups), (len(at), len(groups))
for m, rs in groups:
    i = at[m]
    unit = rows[i + 1][1]
    sc = 1e6 if unit == "Value (ms)" else 1e3
    for k, r in enumerate(rs):
        lab, v, mark = rows[i + 2 + k][:3]
        assert lab == r["label"] and abs(v - r["value_ns"] / sc) < 1e-9, (m, k, lab, v, r)
        assert (mark is not None) == (since.get(m) == r["label"]), (m, lab, mark)
z = zipfile.ZipFile(d + "/report.xlsx")
charts = [n for n in z.namelist() if re.match(r"xl/charts/chart\d+\.xml$", n)]
titles = []
for n in charts:
    x = z.read(n).decode()
    if "Trends!" not in x:
        continue
    titles.append(html.unescape(re.search(r"<a:t>(.*?)</a:t>", x).group(1)))
assert sorted(titles) == sorted(m for m, _ in groups), (titles, [g[0] for g in groups])
print("ok: %d trend charts" % len(titles))
PYEOF
# --baseline with the stacks beside the baseline's summary.json (not compacted)
"$TD" report "$WORK/in25/summary.json" --baseline "$WORK/n20/summary.json" -o "$WORK/b" \
    --format svg,folded --template nightly >/dev/null 2>&1
[ $? = 1 ] || die "--baseline: expected exit 1 (regressed)"
$PY - "$D" "$WORK/b/diff.folded" "$WORK" <<'PYEOF' || exit 1
import sys
sys.path.insert(0, sys.argv[3])
from folded_load import load
b, c = load(sys.argv[1] + "/run-ff256.cpu.folded"), load(sys.argv[1] + "/run-ff1024.cpu.folded")
got = {}
for line in open(sys.argv[2]):
    st, x, y = line.rsplit(" ", 2)
    got[st] = (int(x), int(y))
want = {k: (b.get(k, 0), c.get(k, 0)) for k in set(b) | set(c)}
assert got == want, sorted(set(got.items()) ^ set(want.items()))[:4]
PYEOF
sub "$WORK/b/flame-diff.svg" | grep -q "^baseline $WORK/n20/summary.json: " || die "--baseline label"
# diff of two stored runs
"$TD" diff "$WORK/n20/summary.json" "$WORK/n25/summary.json" -o "$WORK/d" >/dev/null
[ $? = 1 ] || die "diff: expected exit 1"
[ -s "$WORK/d/flame-diff.svg" ] || die "diff -o: no flame-diff.svg"
# without stacks beside the baseline: no differential flamegraph, nothing else changes
"$TD" diff "$D/run20.summary.json" "$WORK/n25/summary.json" -o "$WORK/d2" >/dev/null
[ ! -e "$WORK/d2/flame-diff.svg" ] || die "diff without baseline stacks drew one"
# the storage bound: 25,000 stacks keep the largest 20,000; tiny ones under 1e-6 of the
# total go into one "(small stacks not stored)" stack
mkdir -p "$WORK/big"
cp "$D/run01.summary.json" "$WORK/big/summary.json"
awk 'BEGIN { for (i = 1; i <= 25000; i++) printf "main;f%05d %d\n", i, i }' >"$WORK/big/cpu.folded"
"$TD" report "$WORK/big/summary.json" -o "$WORK/bo" --format json --history "$WORK/big.db" \
    >/dev/null 2>&1 || die "big stacks"
[ "$(sqlite3 "$WORK/big.db" 'SELECT nstacks, small FROM stacks')" = "20000|12502500" ] ||
    die "bound: $(sqlite3 "$WORK/big.db" 'SELECT nstacks, small FROM stacks')"
exit 0
