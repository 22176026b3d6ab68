# IPU lightweight profiling: overflow rules, flushes hidden unless --show-flushes,
# unselected tiles' StreamCopy blocks in one I/O lane, relative cycles and block
# statistics, on an export written here; expected numbers worked out by hand.
. "$ROOT/tests/lib.sh"
X=$WORK/lwp.jsonl
cat >"$X" <<'JL'
{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":4,"clockFrequency":2000000000},"lwp":{"selectedTiles":[0]}}
{"type":"block","tile":0,"kind":"Common","name":"A","cyclesFrom":1000,"cyclesTo":1500}
{"type":"block","tile":0,"kind":"Common","name":"B","cyclesFrom":1100,"cyclesTo":1200}
{"type":"block","tile":0,"kind":"Common","name":"A","cyclesFrom":2000,"cyclesTo":2700}
{"type":"block","tile":3,"kind":"StreamCopyBegin","cyclesFrom":900,"cyclesTo":1190}
{"type":"block","tile":3,"kind":"StreamCopyMid","cyclesFrom":1200,"cyclesTo":1300}
{"type":"block","tile":0,"kind":"BufferFlush","cyclesFrom":3000,"cyclesTo":3100}
{"type":"block","tile":0,"kind":"Overflow","cyclesFrom":4000,"cyclesTo":5000}
{"type":"block","tile":0,"kind":"Common","name":"A","cyclesFrom":3900,"cyclesTo":4200}
{"type":"block","tile":0,"kind":"Common","name":"C","cyclesFrom":4100,"cyclesTo":4900}
{"type":"block","tile":0,"kind":"Common","name":"D","cyclesFrom":4500,"cyclesTo":5300}
{"type":"block","tile":0,"kind":"Common","name":"E","cyclesFrom":null,"cyclesTo":4600}
{"type":"block","tile":0,"kind":"Common","name":"F","cyclesFrom":3800,"cyclesTo":5200}
JL
"$TD" summary --format json "$X" >"$WORK/s.json" 2>"$WORK/err" || die "summary failed: $(cat "$WORK/err")"
"$TD" summary --format json --show-flushes "$X" >"$WORK/f.json" 2>"$WORK/err" || die "summary --show-flushes failed"
"$TD" summary --format csv --table ipu_timeline "$X" >"$WORK/t.csv" 2>/dev/null || die "timeline csv failed"
$PY - "$WORK/s.json" "$WORK/f.json" "$WORK/t.csv" <<'PYEOF' || exit 1
import csv, json, sys
s, f = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# overflow region [4000, 5000] on tile 0: A 3900-4200 starts before, ends inside -> no end;
# C 4100-4900 begins and ends inside -> not recorded; D 4500-5300 starts inside -> Unknown;
# E (lost start) - 4600 -> both inside -> not recorded; F 3800-5200 spans the whole
# region (no rule applies) -> kept, measured 1400
l = s["lwp"]
assert (l["not_recorded"], l["no_end"], l["unknown"], l["overflows"], l["flushes_hidden"]) == (2, 1, 1, 1, 1), l
assert l["0"]["base_cycles"] == 900 and l["selected_tiles"] == 1, l
rows = {(r["lane"], r["name"], r["kind"]): r for r in s["lwp_blocks"]}
def row(lane, name, kind): return rows[(lane, name, kind)]
a = row("IPU 0 tile 0", "A", "Common")
# A: 500 + 700 measured, one with no end: count 3, measured 2, mean 600, max 700;
# 1200 cycles at 2 GHz = 600 ns
assert (a["count"], a["measured"], a["cycles"], a["mean_cycles"], a["max_cycles"], a["time_ns"]) == (3, 2, 1200, 600.0, 700, 600), a
b = row("IPU 0 tile 0", "B", "Common")
assert (b["count"], b["cycles"]) == (1, 100), b
u = row("IPU 0 tile 0", "Unknown", "Unknown")
assert (u["count"], u["measured"], u["cycles"]) == (1, 0, None), u
o = row("IPU 0 tile 0", "Overflow", "Overflow")
assert o["cycles"] == 1000, o
# tile 3 is not selected: its StreamCopy blocks go to the IPU's I/O lane
assert row("IPU 0 I/O", "StreamCopyBegin", "StreamCopyBegin")["cycles"] == 290
assert row("IPU 0 I/O", "StreamCopyMid", "StreamCopyMid")["cycles"] == 100
assert not any(k[1] == "BufferFlush" for k in rows), "flush shown without --show-flushes"
assert not any(k[1] in ("C", "E") for k in rows), "a block inside the overflow was recorded"
fr = row("IPU 0 tile 0", "F", "Common")
assert (fr["count"], fr["measured"], fr["cycles"]) == (1, 1, 1400), fr
frows = {(r["lane"], r["name"]): r for r in f["lwp_blocks"]}
assert frows[("IPU 0 tile 0", "BufferFlush")]["cycles"] == 100 and f["lwp"]["flushes_hidden"] == 0
# timeline, relative cycles (minus 900): A 100-600, no-end A drawn 3000-3100 (to the
# overflow start 4000), Unknown drawn from the overflow end 5000 to 5300 -> 4100-4400
t = [(r["lane"], r["kind"], r["name"], int(r["from_cycles"]), int(r["to_cycles"])) for r in csv.DictReader(open(sys.argv[3]))]
assert ("IPU 0 tile 0", "Common", "A", 100, 600) in t, t
assert ("IPU 0 tile 0", "NoEnd", "A", 3000, 3100) in t, t
assert ("IPU 0 tile 0", "Unknown", "Unknown", 4100, 4400) in t, t
assert ("IPU 0 I/O", "StreamCopyBegin", "StreamCopyBegin", 0, 290) in t, t
PYEOF
# issue 21: the one-page manager summary of an export with lightweight profiling only
# shows its blocks chart (it has no step types), not a page three-quarters blank
"$TD" report "$ROOT/examples/ipu/lwp.jsonl" --template manager -o "$WORK/mgr" --format pdf >/dev/null 2>&1 ||
    die "manager report failed"
pdfinfo "$WORK/mgr/report.pdf" | grep -q "^Pages: *1$" || die "the manager PDF is not one page"
pdftotext "$WORK/mgr/report.pdf" "$WORK/mgr.txt"
grep -q "Lightweight profiling blocks" "$WORK/mgr.txt" || die "no blocks chart on the LWP manager page"
# and under it the blocks per lane (the page was half empty): the op2 lane of IPU 0 tile 0
# as examples/ipu/lwp.jsonl gives it: 3 op2 blocks on tile 0, cyclesTo - cyclesFrom = 3623 each
grep -q "Blocks per lane" "$WORK/mgr.txt" || die "no blocks table on the LWP manager page"
grep -Eq "IPU 0 tile 0 +op2 +3 +3 +10869 +3623" <(pdftotext -layout "$WORK/mgr/report.pdf" -) ||
    die "the manager page's blocks table lacks IPU 0 tile 0 op2"
exit 0
