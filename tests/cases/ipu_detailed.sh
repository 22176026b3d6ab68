# IPU detailed execution trace: a small export written here, every expected number
# computed by hand from the definitions in doc/formats.md "Graphcore IPU export" (formats.md
# sec. 6): step-type shares, tile balance, active tile balance, tile utilisation, runs,
# exchanges, stream copies, the debug-name flamegraph (cycles).
. "$ROOT/tests/lib.sh"
X=$WORK/small.jsonl
cat >"$X" <<'JL'
{"type":"report","schema":"tracedoc.ipu/1","poplarVersion":"3.2.0","target":{"numIPUs":2,"tilesPerIpu":4,"clockFrequency":1000000000}}
{"type":"run","name":"train","microseconds":{"start":10,"end":12}}
{"type":"step","program":{"type":"OnTileExecute","name":"a/b/c"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":50,"max":100}},"cyclesByTile":[100,50,0,50]},{"ipu":1,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":80,"max":80}},"cycles":80,"cyclesByTile":[80,80,80,80]}]}
{"type":"step","program":{"type":"Sync"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":100,"max":100},"cyclesTo":{"min":210,"max":210}},"cycles":110,"cyclesByTile":[10,60,110,60]},{"ipu":1,"activeCycles":{"cyclesFrom":{"min":80,"max":80},"cyclesTo":{"min":100,"max":100}},"cycles":20,"cyclesByTile":[20,20,20,20]}]}
{"type":"step","program":{"type":"DoExchange","name":"a/b/x"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":210,"max":210},"cyclesTo":{"min":250,"max":250}},"cycles":40,"dataIn":100,"dataOut":300,"cyclesByTile":[40,40,0,0]}]}
{"type":"step","program":{"type":"StreamCopyMid","name":"io/in","direction":"Host"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":250,"max":250},"cyclesTo":{"min":280,"max":280}},"cycles":30,"dataIn":64,"dataOut":0,"cyclesByTile":[30,0,0,0]},{"ipu":1,"activeCycles":{"cyclesFrom":{"min":100,"max":100},"cyclesTo":{"min":130,"max":130}},"cycles":30,"dataIn":64,"dataOut":0,"cyclesByTile":[30,0,0,0]}]}
{"type":"step","program":{"type":"ExternalSync"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":280,"max":280},"cyclesTo":{"min":300,"max":300}},"cycles":20,"cyclesByTile":[20,20,20,20]},{"ipu":1,"activeCycles":{"cyclesFrom":{"min":130,"max":130},"cyclesTo":{"min":150,"max":150}},"cycles":20,"cyclesByTile":[20,20,20,20]}]}
JL
"$TD" summary --format json "$X" >"$WORK/s.json" 2>"$WORK/err" || die "summary failed: $(cat "$WORK/err")"
[ ! -s "$WORK/err" ] || die "unexpected messages: $(cat "$WORK/err")"
$PY - "$WORK/s.json" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
def near(a, b): return abs(a - b) < 2e-6
# IPU 0: OnTileExecute 100 (no "cycles": cyclesTo.max 100 - cyclesFrom.min 0), Sync 110,
# DoExchange 40, StreamCopyMid 30, ExternalSync 20 -> total 300.
# IPU 1: OnTileExecute 80, Sync 20, StreamCopyMid 30, ExternalSync 20 -> total 150.
want = {
 (0, "Internal Sync"): (110, 110/300), (0, "External Sync"): (20, 20/300),
 (0, "OnTileExecute"): (100, 100/300), (0, "DoExchange"): (40, 40/300),
 (0, "GlobalExchange"): (0, 0.0), (0, "StreamCopy"): (30, 30/300),
 (1, "Internal Sync"): (20, 20/150), (1, "External Sync"): (20, 20/150),
 (1, "OnTileExecute"): (80, 80/150), (1, "DoExchange"): (0, 0.0),
 (1, "GlobalExchange"): (0, 0.0), (1, "StreamCopy"): (30, 30/150),
 ("all", "Internal Sync"): (130, 130/450), ("all", "External Sync"): (40, 40/450),
 ("all", "OnTileExecute"): (180, 180/450), ("all", "DoExchange"): (40, 40/450),
 ("all", "GlobalExchange"): (0, 0.0), ("all", "StreamCopy"): (60, 60/450)}
got = {(r["ipu"], r["type"]): (r["cycles"], r["share"]) for r in s["ipu_step_types"]}
assert set(got) == set(want), sorted(got)
for k, (c, sh) in want.items():
    assert got[k][0] == c and abs(got[k][1] - sh) < 2e-6, (k, got[k], c, sh)
ipu = s["ipu"]
# tile balance (non-sync steps; share of the 4 tiles active): IPU 0: OTE 3/4, DoEx 2/4,
# SCMid 1/4 -> 0.5; IPU 1: OTE 4/4, SCMid 1/4 -> 0.625; all five: 2.75/5 = 0.55
assert near(ipu["0"]["tile_balance"], 0.5) and near(ipu["1"]["tile_balance"], 0.625), ipu
assert near(ipu["all"]["tile_balance"], 0.55), ipu
# active tile balance (sum / (active x max)): IPU 0: OTE 200/(3*100), DoEx 80/(2*40),
# SCMid 30/(1*30) -> (2/3+1+1)/3; IPU 1: (1+1)/2; all (2/3+4)/5
assert near(ipu["0"]["active_tile_balance"], (2/3 + 2) / 3), ipu
assert near(ipu["1"]["active_tile_balance"], 1.0), ipu
assert near(ipu["all"]["active_tile_balance"], (2/3 + 4) / 5), ipu
# tile utilisation: IPU 0 tile-cycles OTE 200 + Sync 240 + DoEx 80 + SCMid 30 + XSync 80
# = 630, busy 200+80+30 = 310; IPU 1: 320 + 80 + 30 + 80 = 510, busy 350
assert near(ipu["0"]["tile_utilisation"], 310/630) and near(ipu["1"]["tile_utilisation"], 350/510), ipu
assert ipu["0"]["cycles"] == 300 and ipu["1"]["cycles"] == 150
# runs: the largest IPU sum (300 cycles = 300 ns at 1 GHz); measured 12-10 us
r, = s["ipu_runs"]
assert (r["name"], r["steps"], r["cycles"], r["cycles_ns"], r["time_ns"]) == ("train", 5, 300, 300, 2000), r
ex, = s["ipu_exchanges"]
assert (ex["ipu"], ex["name"], ex["count"], ex["cycles"], ex["bytes"]) == (0, "a/b/x", 1, 40, 400), ex
sc = sorted((x["ipu"], x["direction"], x["count"], x["cycles"], x["in_bytes"], x["out_bytes"]) for x in s["ipu_stream_copies"])
assert sc == [(0, "Host", 1, 30, 64, 0), (1, "Host", 1, 30, 64, 0)], sc
top = s["ipu_steps"][0]
assert (top["ipu"], top["type"], top["name"], top["cycles"]) == (0, "Sync", "Sync", 110), top
assert near(top["share"], 110/300)
PYEOF
# the debug-name flamegraph: names split on '/', cycles summed over IPUs; unnamed steps
# are named by their type
"$TD" fold --stacks ipu "$X" >"$WORK/f.folded" 2>/dev/null || die "fold failed"
printf '%s\n' "ExternalSync 40" "Sync 130" "a;b;c 180" "a;b;x 40" "io;in 60" >"$WORK/want.folded"
diff -u "$WORK/want.folded" "$WORK/f.folded" || die "folded stacks differ"
# 32-bit counters: a step longer than 2^32-1 cycles and a wrapped counter are warned
cat >"$WORK/big.jsonl" <<'JL'
{"type":"report","schema":"tracedoc.ipu/1","target":{"numIPUs":1,"tilesPerIpu":2,"clockFrequency":1000000000}}
{"type":"run"}
{"type":"step","program":{"type":"OnTileExecute","name":"long"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":0,"max":0},"cyclesTo":{"min":5000000000,"max":5000000000}},"cyclesByTile":[5000000000,0]}]}
{"type":"step","program":{"type":"OnTileExecute","name":"wrapped"},"ipus":[{"ipu":0,"activeCycles":{"cyclesFrom":{"min":4294967200,"max":4294967200},"cyclesTo":{"min":100,"max":104}}}]}
JL
"$TD" summary --format json "$WORK/big.jsonl" >"$WORK/b.json" 2>"$WORK/err" || die "summary of big failed: $(cat "$WORK/err")"
grep -q "big.jsonl: line 3: cycles of 'long' on IPU 0 = 5000000000 exceeds 32 bits" "$WORK/err" || die "no 32-bit warning: $(cat "$WORK/err")"
grep -q "big.jsonl: line 4: cyclesTo before cyclesFrom: a 32-bit cycle counter wrapped" "$WORK/err" || die "no wrap warning: $(cat "$WORK/err")"
$PY - "$WORK/b.json" <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
# wrapped: 104 + 2^32 - 4294967200 = 200 cycles; long: 5e9 (kept in 64 bits)
c = {r["name"]: r["cycles"] for r in s["ipu_steps"]}
assert c == {"long": 5000000000, "wrapped": 200}, c
assert any("exceeds 32 bits" in w for w in s["warnings"]), s["warnings"]
assert s["ipu"]["counts_over_32_bits"] == 2 and s["ipu"]["wrapped_steps"] == 1, s["ipu"]
PYEOF
exit 0
