# Issue 40: the kernels of a CUDA/HIP graph replay get the op and shapes of their capture.
# SGLang decode step (one hipGraphLaunch, capture_traces/ beside the trace):
#  - the `graphs` object against the trace read here by Python (launches, their device
#    work by correlation id, its time): every kernel attributed, none left;
#  - op_perf against TraceLens's own report of the same trace (perf_csvs/, made with its
#    capture merge): calls exact, device time within 1% (tests/serving_check.py), and the
#    eager prefill trace the same way;
#  - --capture-traces DIR names the captures when they are elsewhere; without any, source
#    "none" and all the graph time unattributed;
#  - fuzz: a truncated capture trace (unreadable) and mismatched ones (a kernel renamed,
#    launch calls removed), made here: a warning naming the cause and no attribution at
#    all, never a partial or wrong one.
. "$ROOT/tests/lib.sh"
need_traces
S=$TRACES/serving
[ -d "$S/sglang_decode/capture_traces" ] || { echo "serving traces missing"; exit 77; }
D=$S/sglang_decode
"$TD" report --format json -o "$WORK/dec" "$D" 2>"$WORK/dec.err" || { cat "$WORK/dec.err"; die report; }
$PY - "$D/sglang_Qwen3-8B_decode.json.gz" "$WORK/dec/summary.json" <<'PYEOF' || die "graphs object"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
g = json.load(open(sys.argv[2]))["graphs"]
launch = {e["args"]["correlation"] for e in ev if e.get("cat") == "cuda_runtime"
          and e["name"].lower().endswith("graphlaunch")}
dev = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
       and e.get("args", {}).get("correlation") in launch]
ns = sum(round(e["dur"] * 1000) for e in dev)
want = {"launches": len(launch), "kernels": len(dev), "attributed_kernels": len(dev),
        "unattributed_ns": 0, "source": "capture"}
for k, v in want.items():
    assert g[k] == v, (k, g[k], v)
assert abs(g["attributed_ns"] - ns) <= len(dev), (g, ns)
assert set(g) == set(want) | {"attributed_ns"}, g
print("graphs", g)
PYEOF
$PY "$ROOT/tests/serving_check.py" "$WORK/dec/summary.json" "$D/perf_csvs" 10 >"$WORK/chk" ||
    { cat "$WORK/chk"; die "decode op_perf differs from TraceLens"; }
tail -1 "$WORK/chk"
grep -q "aten::mm \[\[32,4096\],\[4096,24576\]\]: calls 36 / 36.*graph 36" "$WORK/chk" ||
    die "the graph's GEMMs are not graph calls"
P=$S/sglang_prefilldecode
"$TD" report --format json -o "$WORK/pre" "$P" 2>/dev/null || die "report prefill"
$PY "$ROOT/tests/serving_check.py" "$WORK/pre/summary.json" "$P/perf_csvs" 10 >"$WORK/chk" ||
    { cat "$WORK/chk"; die "prefill op_perf differs from TraceLens"; }
# the ops table: a graph column on the graph's ops, none on an eager trace
$PY - "$WORK/dec/summary.json" "$WORK/pre/summary.json" <<'PYEOF' || die "ops graph column"
import json, sys
d, p = (json.load(open(f)) for f in sys.argv[1:3])
mm = [r for r in d["ops"] if r["name"] == "aten::mm"][0]
assert mm["graph"] == mm["calls"] == 145 and mm["device_self_ns"] > 5_000_000, mm
assert "graph" not in p["ops"][0] and "graphs" not in p, p["ops"][0]
PYEOF
# summarize + merge keeps the ops' graph column
"$TD" summarize "$D" -o "$WORK/d.tds" 2>/dev/null || die summarize
"$TD" merge "$WORK/d.tds" -o "$WORK/merged" --format json 2>/dev/null || die merge
$PY - "$WORK/merged/summary.json" "$WORK/dec/summary.json" <<'PYEOF' || die "merged graph column"
import json, sys
m, d = (json.load(open(f)) for f in sys.argv[1:3])
g = lambda s: {r["name"]: r.get("graph") for r in s["ops"]}
assert g(m) == g(d), [(k, v, g(d).get(k)) for k, v in g(m).items() if v != g(d).get(k)][:5]
PYEOF
# the trace alone elsewhere: no captures (source none), then named with --capture-traces
mkdir -p "$WORK/alone" && cp "$D/sglang_Qwen3-8B_decode.json.gz" "$WORK/alone/" || die cp
"$TD" report --format json -o "$WORK/none" "$WORK/alone" 2>/dev/null || die "report alone"
"$TD" report --format json -o "$WORK/named" --capture-traces "$D/capture_traces" "$WORK/alone" \
    2>/dev/null || die "report --capture-traces"
$PY - "$WORK/none/summary.json" "$WORK/named/summary.json" "$WORK/dec/summary.json" <<'PYEOF' || die "none/named"
import json, sys
n, m, d = (json.load(open(f))["graphs"] for f in sys.argv[1:4])
assert n["source"] == "none" and n["attributed_kernels"] == 0 and n["attributed_ns"] == 0, n
assert n["unattributed_ns"] == d["attributed_ns"] and n["kernels"] == d["kernels"], (n, d)
assert m == d, (m, d)
PYEOF
# fuzz: captures made here (once for every build), each beside its own copy of the trace
mkfuzz() {
    for c in trunc renamed fewer; do
        mkdir -p "$ONCE/$c/capture_traces" && cp "$D/sglang_Qwen3-8B_decode.json.gz" "$ONCE/$c/" || return 1
    done
    gzip -dc "$D/capture_traces/bs_32_rank0.json.gz" | head -c 2000000 |
        gzip >"$ONCE/trunc/capture_traces/bs_32_rank0.json.gz" || return 1
    $PY - "$D/capture_traces/bs_32_rank0.json.gz" "$ONCE" <<'PYEOF'
import gzip, json, sys
src, w = sys.argv[1], sys.argv[2]
t = json.load(gzip.open(src))
ev = t["traceEvents"]
launches = [e for e in ev if e.get("cat") == "cuda_runtime" and "kernel" in e.get("args", {})]
# one kernel of the middle renamed: the replay's kernel is not in the capture
mid = launches[len(launches) // 2]
real = mid["args"]["kernel"]
mid["args"]["kernel"] = "void not_the_captured_kernel(int)"
json.dump(t, gzip.open(w + "/renamed/capture_traces/bs_32_rank0.json.gz", "wt", compresslevel=1))
mid["args"]["kernel"] = real
# the last 20 launch calls gone: fewer captured calls than replayed kernels
gone = {id(e) for e in launches[-20:]}
t["traceEvents"] = [e for e in ev if id(e) not in gone]
json.dump(t, gzip.open(w + "/fewer/capture_traces/bs_32_rank0.json.gz", "wt", compresslevel=1))
PYEOF
}
once serving_fuzz mkfuzz || die "fuzz captures"
for c in trunc renamed fewer; do
    "$TD" report --format json -o "$WORK/o-$c" "$ONCE/$c" 2>"$WORK/$c.err" || { cat "$WORK/$c.err"; die "report $c"; }
done
grep -q "graph capture trace: .*bs_32_rank0.json.gz: truncated at byte" "$WORK/trunc.err" &&
    grep -q "no graph capture (StreamBeginCapture..StreamEndCapture) in .*trunc/capture_traces" "$WORK/trunc.err" || { cat "$WORK/trunc.err"; die "trunc: no warning"; }
grep -q "not matched to a capture trace.*not the capture.s (another graph" "$WORK/renamed.err" || { cat "$WORK/renamed.err"; die "renamed: no warning"; }
grep -q "not matched to a capture trace.*fewer launch calls" "$WORK/fewer.err" || { cat "$WORK/fewer.err"; die "fewer: no warning"; }
$PY - "$WORK" <<'PYEOF' || die "fuzz attribution"
import json, sys
for c in ("trunc", "renamed", "fewer"):
    s = json.load(open("%s/o-%s/summary.json" % (sys.argv[1], c)))
    g = s["graphs"]
    assert g["attributed_kernels"] == 0 and g["attributed_ns"] == 0 and g["unattributed_ns"] > 0, (c, g)
    # no op of the capture leaked in: no GEMM row at all in op_perf
    assert not [r for r in s.get("op_perf", []) if r["op"] == "aten::mm" and r["calls"] > 1], c
    assert any("graph" in w for w in s["warnings"]), (c, s["warnings"])
PYEOF
echo "ok"
