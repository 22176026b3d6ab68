# summary --top N (issue 21): honoured with --table (text and CSV), and for every table
# without it; without --top, --table shows every row and the other tables 15. Expected
# rows: the first N of the table in summary.json (rows are largest first).
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
EX="$ROOT/examples/hta_nccl_data.json.gz"
"$TD" summary "$EX" --format json >s.json || die "json"
"$TD" summary "$EX" --table kernels --top 3 >t3.txt || die "text --top 3"
"$TD" summary "$EX" --table kernels --top 3 --format csv >t3.csv || die "csv --top 3"
"$TD" summary "$EX" --table kernels >all.txt || die "text, every row"
"$TD" summary "$EX" --top 2 >top2.txt || die "--top 2 without --table"
"$TD" summary "$EX" >def.txt || die "default"
$PY - <<'PY' || die "rows"
import csv, json
s = json.load(open("s.json"))
k = s["kernels"]
assert len(k) > 20, len(k)
def block(path, title):
    lines = open(path).read().split("\n")
    i = next(i for i, l in enumerate(lines) if l.startswith(title))
    j = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()), len(lines))
    return lines[i], lines[i + 2:j]          # the title line, the rows under the header
head, rows = block("t3.txt", "Top kernels")
assert head == "Top kernels (top 3 of %d)" % len(k), head
assert len(rows) == 3, rows
for r, want in zip(rows, k[:3]):
    assert r.split()[-1] == "%.1f%%" % (100 * want["share"]), (r, want["share"])
c = list(csv.DictReader(open("t3.csv")))
assert [x["name"] for x in c] == [x["name"] for x in k[:3]], c
head, rows = block("all.txt", "Top kernels")
assert len(rows) == len(k), (len(rows), len(k))
for path, n in (("top2.txt", 2), ("def.txt", 15)):
    for t in ("Top kernels", "Top ops"):
        head, rows = block(path, t)
        assert len(rows) == n, (path, t, len(rows))
PY
exit 0
