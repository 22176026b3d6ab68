# diff of two Graphcore IPU exports (SYNTHETIC: tools/gen_ipu.py, 12 runs each; the
# second with every DoExchange 1.5x longer, a known change). Expected values computed
# here in Python from the JSON Lines by doc/nightly.md's definitions: step-type cycles and
# shares per IPU and over all IPUs, per IPU cycles, tile utilisation, the median run
# (largest over IPUs of the run's step cycles); the exchange cycles, shares, IPU cycles
# and run cycles must be reported regressed (units cycles / share), nothing else; the
# same export against itself raises nothing; LWP exports compare their blocks.
. "$ROOT/tests/lib.sh"
cd "$WORK" || exit 1
$PY "$ROOT/tools/gen_ipu.py" detailed a.jsonl --runs 12 || die "gen a"
$PY "$ROOT/tools/gen_ipu.py" detailed b.jsonl --runs 12 --exchange-scale 1.5 || die "gen b"
"$TD" diff a.jsonl b.jsonl -o d >out 2>err
[ $? = 1 ] || { cat err out; die "diff: expected exit 1"; }
$PY - a.jsonl b.jsonl d/summary.json <<'PYEOF' || exit 1
import json, statistics, sys
CAT = {"Sync": "Internal Sync", "SyncAns": "Internal Sync", "ExternalSync": "External Sync",
       "OnTileExecute": "OnTileExecute", "DoExchange": "DoExchange",
       "GlobalExchange": "GlobalExchange", "StreamCopyBegin": "StreamCopy",
       "StreamCopyMid": "StreamCopy", "StreamCopyEnd": "StreamCopy"}
BUSY = ("OnTileExecute", "DoExchange", "GlobalExchange", "StreamCopyMid")
def ref(path):
    m, ipu_tot, busy, alltc, runs, cur = {}, {}, {}, {}, [], None
    for line in open(path):
        o = json.loads(line)
        if o["type"] == "run":
            cur = {}
            runs.append(cur)
        elif o["type"] == "step":
            ty = o["program"]["type"]
            for e in o["ipus"]:
                i = e["ipu"]
                c = CAT.get(ty, "Other")
                for who in ("IPU %d" % i, "all IPUs"):
                    m[(who, c)] = m.get((who, c), 0) + e["cycles"]
                ipu_tot[i] = ipu_tot.get(i, 0) + e["cycles"]
                tc = sum(e["cyclesByTile"])
                alltc[i] = alltc.get(i, 0) + tc
                if ty in BUSY:
                    busy[i] = busy.get(i, 0) + tc
                cur[i] = cur.get(i, 0) + e["cycles"]
    out = {}
    for (who, c), v in m.items():
        tot = sum(ipu_tot.values()) if who == "all IPUs" else ipu_tot[int(who[4:])]
        out["ipu.step_type_cycles:%s/%s" % (who, c)] = v
        out["ipu.step_type_share:%s/%s" % (who, c)] = v / tot
    for i, v in ipu_tot.items():
        out["ipu.cycles:IPU %d" % i] = v
        out["ipu.tile_utilisation:IPU %d" % i] = busy[i] / alltc[i]
    out["ipu.run_cycles"] = statistics.median(max(r.values()) for r in runs)
    return out
a, b = ref(sys.argv[1]), ref(sys.argv[2])
s = json.load(open(sys.argv[3]))
cmp = {c["metric"]: c for c in s["comparisons"]}
for k in a:
    assert k in cmp, ("not compared", k)
    c = cmp[k]
    tol = 1e-6 if "share" in k or "utilisation" in k else 0.5
    assert abs(c["before"] - a[k]) <= tol and abs(c["after"] - b[k]) <= tol, (k, c, a[k], b[k])
    unit = "share" if "share" in k else "fraction" if "utilisation" in k else "cycles"
    assert c["unit"] == unit, (k, c["unit"])
reg = sorted(c["metric"] for c in s["changes"] if c["direction"] == "regressed")
want = sorted(k for k in a if "DoExchange" in k) + ["ipu.cycles:IPU 0", "ipu.cycles:IPU 1", "ipu.run_cycles"]
assert reg == sorted(want), (reg, want)
assert all(c["direction"] == "regressed" for c in s["changes"]), s["changes"]
for k in want:   # the effect is what the export says (>= 5%: the minimum effect)
    assert (b[k] - a[k]) / a[k] >= 0.05, k
# the run cycles by Mann-Whitney on the per-run samples (12 + 12)
assert cmp["ipu.run_cycles"]["rule"].startswith("Mann-Whitney U=0.0 on 12+12"), cmp["ipu.run_cycles"]
print("ok", len(a), "metrics,", len(reg), "regressed")
PYEOF
grep -q '^REGRESSED: 9 metrics regressed' out || die "verdict: $(tail -1 out)"
# units shown: cycles and shares are numbers with a unit column, not times
grep 'ipu.run_cycles' out | grep -q 'cycles' || die "unit column"
# the same export against itself: nothing
"$TD" diff a.jsonl a.jsonl >same || die "same export: exit $?"
grep -q '^OK: no metric regressed' same || die "$(tail -1 same)"
# lightweight profiling: block cycles are compared (the same file: all same)
"$TD" diff "$ROOT/examples/ipu/lwp.jsonl" "$ROOT/examples/ipu/lwp.jsonl" -o l >/dev/null ||
    die "lwp diff"
$PY - l/summary.json <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
m = [c for c in s["comparisons"] if c["metric"].startswith("lwp.")]
assert m and all(c["direction"] == "same" and c["unit"] == "cycles" for c in m), m[:3]
PYEOF
exit 0
