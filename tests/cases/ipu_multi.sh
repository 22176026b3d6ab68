# Several IPU exports in one report: each analysed on its own, kept apart like ranks
# (a first `report` column, scalars ipu.rK.*, lwp.rK.*), numbers computed by hand.
. "$ROOT/tests/lib.sh"
A=$WORK/a.jsonl B=$WORK/b.jsonl
# A: one IPU of 4 tiles at 1 GHz: OnTileExecute 100 cycles (tiles 100,50,0,50), Sync 50
cat >"$A" <<'JL'
{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":4,"clockFrequency":1000000000}}
{"type":"run","name":"a-run","microseconds":{"start":0,"end":1}}
{"type":"step","program":{"type":"OnTileExecute","name":"m/conv"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":50,"max":100}},"cyclesByTile":[100,50,0,50]}]}
{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":100,"max":100},"cyclesTo":{"min":150,"max":150}},"cycles":50,"cyclesByTile":[50,50,50,50]}]}
JL
# B: two IPUs of 2 tiles at 2 GHz: IPU 0 DoExchange 30 (tiles 30,30), IPU 1 OnTileExecute
# 90 (tiles 90,0); then lightweight profiling on tile 0: one Common block of 40 cycles
cat >"$B" <<'JL'
{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":2,"tilesPerIpu":2,"clockFrequency":2000000000},"lwp":{"selectedTiles":[0]}}
{"type":"run","name":"b-run"}
{"type":"step","program":{"type":"DoExchange","name":"x/ex"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":30,"max":30}},"cycles":30,"dataIn":8,"dataOut":8,"cyclesByTile":[30,30]},{"ipu":1,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":90,"max":90}},"cycles":90,"cyclesByTile":[90,0]}]}
{"type":"block","tile":0,"kind":"Common","name":"stage","cyclesFrom":1000,"cyclesTo":1040}
JL
"$TD" summary --format json "$A" "$B" >"$WORK/s.json" 2>"$WORK/err" || die "summary failed: $(cat "$WORK/err")"
grep -q "only the first" "$WORK/err" && die "still analyses only the first export"
$PY - "$WORK/s.json" "$A" "$B" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
def near(a, b): return abs(a - b) < 2e-6
got = {(r["report"], r["ipu"], r["type"]): (r["cycles"], r["share"]) for r in s["ipu_step_types"] if r["cycles"]}
# A: IPU 0 OTE 100 (cyclesTo.max - cyclesFrom.min), Sync 50 -> 150; B: IPU 0 DoEx 30,
# IPU 1 DoEx 90 (the step is a DoExchange on both IPUs)
want = {(0, 0, "OnTileExecute"): (100, 100/150), (0, 0, "Internal Sync"): (50, 50/150),
        (0, "all", "OnTileExecute"): (100, 100/150), (0, "all", "Internal Sync"): (50, 50/150),
        (1, 0, "DoExchange"): (30, 1.0), (1, 1, "DoExchange"): (90, 1.0),
        (1, "all", "DoExchange"): (120, 1.0)}
assert set(got) == set(want), sorted(got)
for k, (c, sh) in want.items():
    assert got[k][0] == c and near(got[k][1], sh), (k, got[k])
ipu = s["ipu"]
assert ipu["count"] == 3 and ipu["reports"] == 2, ipu
assert ipu["r0"]["input"].endswith("a.jsonl") and ipu["r1"]["input"].endswith("b.jsonl"), ipu
# tile balance (non-sync steps; share of tiles active): A IPU 0: 3/4; B IPU 0: 2/2, IPU 1: 1/2
assert near(ipu["r0"]["0"]["tile_balance"], 0.75) and near(ipu["r1"]["0"]["tile_balance"], 1.0)
assert near(ipu["r1"]["1"]["tile_balance"], 0.5) and near(ipu["r1"]["all"]["tile_balance"], 0.75)
# tile utilisation: A: busy 200 of 200 + 200 tile-cycles; B IPU 1: 90 of 90
assert near(ipu["r0"]["0"]["tile_utilisation"], 0.5) and near(ipu["r1"]["1"]["tile_utilisation"], 1.0)
assert ipu["r0"]["0"]["cycles"] == 150 and ipu["r1"]["1"]["cycles"] == 90
assert "0" not in ipu and "all" not in ipu, "single-export keys with several exports"
runs = sorted((r["report"], r["name"], r["cycles"], r["cycles_ns"]) for r in s["ipu_runs"])
# A: 150 cycles at 1 GHz = 150 ns; B: the largest IPU sum 90 cycles at 2 GHz = 45 ns
assert runs == [(0, "a-run", 150, 150), (1, "b-run", 90, 45)], runs
ex = sorted((r["report"], r["ipu"], r["bytes"]) for r in s["ipu_exchanges"])
assert ex == [(1, 0, 16), (1, 1, None)], ex
# LWP of B only: one block of 40 cycles, under report 1
lb, = s["lwp_blocks"]
assert (lb["report"], lb["name"], lb["cycles"], lb["time_ns"]) == (1, "stage", 40, 20), lb
assert s["lwp"]["r1"]["blocks"] == 1 and s["lwp"]["r1"]["0"]["base_cycles"] == 1000, s["lwp"]
assert any(f.startswith("Report 0: ") for f in s["findings"]) and any(f.startswith("Report 1: ") for f in s["findings"])
PYEOF
# the flamegraph keeps the exports apart under their own root frames
"$TD" fold --stacks ipu "$A" "$B" >"$WORK/f.folded" 2>/dev/null || die "fold failed"
grep -qx "report 0;m;conv 100" "$WORK/f.folded" || die "fold: $(cat "$WORK/f.folded")"
grep -qx "report 1;x;ex 120" "$WORK/f.folded" || die "fold: $(cat "$WORK/f.folded")"
# one export alone is as before: no report column, no rK keys
"$TD" summary --format json "$A" >"$WORK/one.json" 2>/dev/null || die "summary of one export"
$PY -c "
import json,sys; s=json.load(open(sys.argv[1]))
assert 'report' not in s['ipu_step_types'][0] and 'r0' not in s['ipu'] and s['ipu']['0']['cycles'] == 150
" "$WORK/one.json" || die "one export changed"
# scalar titles (text summary, workbook Summary): readable, per export
"$TD" summary "$A" "$B" >"$WORK/s.txt" 2>/dev/null || die "text summary"
grep -q "^report 1: IPU 1 tile balance  *50.0%" "$WORK/s.txt" || die "titles: $(grep -i 'tile bal' "$WORK/s.txt")"
"$TD" summary "$A" >"$WORK/one.txt" 2>/dev/null || die "text summary of one"
grep -q "^IPU 0 cycles  *150$" "$WORK/one.txt" || die "title of one: $(grep -i cycles "$WORK/one.txt")"
# the documents: a PDF bar per (export, IPU), labelled RK
"$TD" report "$A" "$B" -o "$WORK/rep" --format pdf,xlsx 2>/dev/null || die "report failed"
pdftotext "$WORK/rep/report.pdf" - | grep -q "R1 IPU 1" || die "PDF has no R1 IPU 1 bar"
# the workbook's Summary: readable titles, shares shown once as a percentage (no '%' unit
# beside a value already formatted as one), the clock as a whole number
$PY - "$WORK/rep/report.xlsx" <<'PYEOF' || exit 1
import openpyxl, sys
ws = openpyxl.load_workbook(sys.argv[1])["Summary"]
rows = {r[0].value: r for r in ws.iter_rows() if r[0].value is not None}
r = rows.get("report 1: IPU 1 tile balance")
assert r and abs(r[1].value - 0.5) < 1e-9 and "%" in r[1].number_format, [k for k in rows][:60]
assert not (len(r) > 2 and r[2].value == "%"), "percent twice"
c = rows.get("report 1: IPU clock (Hz)")
assert c and c[1].value == 2000000000 and "." not in c[1].number_format, c and c[1].number_format
assert not any(isinstance(k, str) and "\ufffd" in k for k in rows), "garbled titles"
PYEOF
exit 0
