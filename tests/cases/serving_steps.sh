# Issue 40: serving steps. On the shared SGLang traces (one decode step, one prefill):
# each step's phase, requests, tokens and wall time from its annotation, its device time
# from the trace read here by Python (device work whose launch call lies inside the step),
# and the decode/prefill model FLOPs against TraceLens's own sheets (the aten ops'
# GFLOPS_first x calls, within 1%), MFU = FLOPs / (wall x peak). On a synthetic trace made
# here (30 SGLang steps ramping up, steady, draining) the steady flags equal TraceLens's
# identify_steady_state_regions rule written out below.
. "$ROOT/tests/lib.sh"
need_traces
S=$TRACES/serving
[ -d "$S/sglang_decode" ] || { echo "serving traces missing"; exit 77; }
for t in sglang_decode sglang_prefilldecode; do
    "$TD" summary --format json "$S/$t" >"$WORK/$t.json" 2>/dev/null || die "summary $t"
    $PY - "$S/$t" "$WORK/$t.json" <<'PYEOF' || die "$t steps"
import csv, glob, gzip, json, os, re, sys
d, summ = sys.argv[1], json.load(open(sys.argv[2]))
ev = json.load(gzip.open(glob.glob(d + "/*.json.gz")[0]))["traceEvents"]
ann = [e for e in ev if e.get("cat") == "user_annotation" and e["name"].startswith("execute_")]
assert len(ann) == 1, ann
a = ann[0]
m = re.match(r"execute_\d+_context_(\d+)\(sq(\d+)sk\d+sqsq\d+sqsk\d+\)_generation_(\d+)\(sq(\d+)", a["name"])
cr, csq, gr, gsq = map(int, m.groups())
phase = "mixed" if cr and gr else "prefill" if cr else "decode"
# device time: device work whose launching call (same correlation id) starts in the step
calls = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime"}
dev = sum(round(e["dur"] * 1000) for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
          and a["ts"] <= calls.get(e["args"].get("correlation"), -1) < a["ts"] + a["dur"])
rows = summ["serving_steps"]
assert len(rows) == 1, rows
r = rows[0]
want = {"rank": 0, "step": 0, "phase": phase, "batch_size": cr + gr, "tokens": csq + gsq, "steady": True}
for k, v in want.items():
    assert r[k] == v, (k, r[k], v)
assert abs(r["wall_ns"] - a["dur"] * 1000) <= 1, (r, a["dur"])
assert abs(r["device_ns"] - dev) <= 600, (r["device_ns"], dev)
sv = summ["serving"][phase]
tl = 0.0  # TraceLens's FLOPs of the aten ops it models (tracedoc models aten ops only)
for f in glob.glob(d + "/perf_csvs/*.csv"):
    rs = list(csv.DictReader(open(f, encoding="utf-8")))
    if rs and "GFLOPS_first" in rs[0] and "name_count" in rs[0]:
        tl += sum(float(x["GFLOPS_first"] or 0) * 1e9 * int(x["name_count"]) for x in rs
                  if x["name"].startswith("aten::"))
assert abs(sv["flops"] - tl) <= 0.01 * tl, (sv["flops"], tl)
peak = summ["serving"]["peak_tflops"]
assert peak == 1307.4, peak  # MI300X bf16 dense (AMD's datasheet)
assert abs(sv["mfu"] - sv["flops"] / (r["wall_ns"] * peak * 1e3)) < 1e-5, sv
assert abs(sv["tokens_per_s"] - r["tokens"] * 1e9 / r["wall_ns"]) < 1e-3 * sv["tokens_per_s"], sv
assert sv["step_median_ns"] == r["wall_ns"] and sv["steps"] == 1, sv
print(phase, r, "flops %.4g (TraceLens %.4g), mfu %.4f" % (sv["flops"], tl, sv["mfu"]))
PYEOF
done
# synthetic: the steady window on 30 steps
$PY - "$WORK/syn.json" <<'PYEOF' || die "synthetic trace"
import json, sys
bs = [1, 3, 6, 10, 20, 30, 32, 32, 31, 32, 32, 32, 20, 32, 32, 32, 32, 32, 33, 32, 32, 25, 18, 12, 32, 8, 5, 3, 2, 1]
ev, t = [], 1000.0
for i, b in enumerate(bs):
    name = "step[EXTEND bs=%d toks=%d]" % (b, 100 * b) if i == 0 else "step[DECODE bs=%d]" % b
    ev.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": t, "dur": 50.0})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": t + 10, "dur": 5.0, "args": {"correlation": i + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 20, "dur": 10.0 + b,
               "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    t += 100
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PYEOF
"$TD" summary --format json "$WORK/syn.json" >"$WORK/syn.out" 2>/dev/null || die "summary synthetic"
$PY - "$WORK/syn.out" <<'PYEOF' || die "steady window"
import json, sys
rows = json.load(open(sys.argv[1]))["serving_steps"]
req = [r["batch_size"] for r in rows]
# TraceLens identify_steady_state_regions (threshold 10%), written out
g = max(req); started = False; seen = 0; start = 0; regions = []
for i, n in enumerate(req):
    near = abs(n - g) <= max(1, 0.1 * g)
    if near and not started: seen += 1
    elif not near and started: seen -= 1
    if seen > 5 and not started: started, start = True, i - seen + 1
    if seen <= 0 and started: regions.append((start, i)); started = False; seen = 0
if started: regions.append((start, i))
want = [any(s <= i < e for s, e in regions) for i in range(len(req))]
got = [r["steady"] for r in rows]
assert got == want, (got, want, regions)
assert [r["phase"] for r in rows][:2] == ["prefill", "decode"] and rows[0]["tokens"] == 100, rows[:2]
assert all(r["device_ns"] == 10000 + 1000 * r["batch_size"] for r in rows), rows
print("steady", regions)
PYEOF
# nightly metrics: the decode step made 1.5 times longer (both annotations) is a regressed
# step time, tokens/s and MFU, by the definitions (after = before x 1.5, / 1.5, / 1.5)
$PY - "$S/sglang_decode/sglang_Qwen3-8B_decode.json.gz" "$WORK/slow.json.gz" <<'PYEOF' || die "slow trace"
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "user_annotation":
        e["dur"] *= 1.5
json.dump(t, gzip.open(sys.argv[2], "wt", compresslevel=1))
PYEOF
expect_exit 1 "$TD" diff "$S/sglang_decode/sglang_Qwen3-8B_decode.json.gz" "$WORK/slow.json.gz" \
    --capture-traces "$S/sglang_decode/capture_traces" -o "$WORK/diff" >/dev/null 2>&1 || die "diff: no regression"
$PY - "$WORK/diff/summary.json" <<'PYEOF' || die "serving metrics"
import json, sys
c = {r["metric"]: r for r in json.load(open(sys.argv[1]))["comparisons"]}
for k, f in (("serving.decode.step_median_ns", 1.5), ("serving.decode.tokens_per_s", 1 / 1.5),
             ("serving.decode.mfu", 1 / 1.5)):
    r = c[k]
    assert r["direction"] == "regressed", r
    assert abs(r["after"] / r["before"] - f) < 1e-3, r
print("serving metrics regressed:", sorted(k for k in c if k.startswith("serving.")))
PYEOF
echo ok
