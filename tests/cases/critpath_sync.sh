# Issue 38 item 1: a CPU blocked in a synchronizing call is waiting for the device. Without
# cuda_sync events the critical path follows the call to the device work it waited for
# (--critical-path sync, the default), critical_path_waits gives the time blocked, and the
# finding says "waiting for the GPU (sync in OP)"; --critical-path hta keeps HTA's graph.
. "$ROOT/tests/lib.sh"
fail=0
# Hand-computed (us). Step 1 (0-1000): linear 10-60 launches K1 (cudaLaunchKernel 20-30,
# stream 7, 40-640); item 100-700 > _local_scalar_dense 105-695 > cudaMemcpyAsync 110-690
# copying to the host (Memcpy DtoH 645-650 on stream 7, behind K1); add 710-760.
# Path: linear 10 -> launch 20 (CPU 10) -> launch delay to K1 (20) -> K1 (600) -> gap (5)
# -> copy (5) -> the call's end 690 (the wait, no weight) -> exits 695, 700 (CPU 10) ->
# add (CPU 50): compute 605 (K1 600), CPU 70 (add 50), launch 20, gap 5. The CPU waits
# 580 us of the 1000 us step in aten::item (cudaMemcpyAsync).
# Step 2 (1000-2000), HIP: mul 1010-1040 launches KA (hipLaunchKernel 1015-1020, stream 7,
# 1030-1400); mul 1040-1060 launches KB (1045-1050, stream 9, 1402-1600: it waited for KA,
# 352 us after its launch on an idle stream); nonzero 1100-1620 > hipStreamSynchronize
# 1110-1610 (returns when KB ends); add 1700-1750. Path: CPU 5 -> launch delay 15 -> KA
# 370 -> KB 198 (no launch delay: it waited for KA) -> sync end -> CPU 10 + 50: compute
# 568 (KA 370), CPU 65 (add 50), launch 15. The CPU waits 500 us in aten::nonzero.
# HTA's graph instead: both steps all CPU (step 1 aten::item 600 us: the copy call's 580 us
# on its lock path; step 2 aten::nonzero 520 us).
cat >"$WORK/sync.json" <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU"}],
 "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 50},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 10, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 100, "dur": 600},
  {"ph": "X", "cat": "cpu_op", "name": "aten::_local_scalar_dense", "pid": 1, "tid": 1, "ts": 105, "dur": 590},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 110, "dur": 580, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 710, "dur": 50},
  {"ph": "X", "cat": "kernel", "name": "K1", "pid": 0, "tid": 7, "ts": 40, "dur": 600, "args": {"correlation": 1, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 645, "dur": 5, "args": {"correlation": 2, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 1010, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 1015, "dur": 5, "args": {"correlation": 10}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 1040, "dur": 20},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 1045, "dur": 5, "args": {"correlation": 11}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::nonzero", "pid": 1, "tid": 1, "ts": 1100, "dur": 520},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipStreamSynchronize", "pid": 1, "tid": 1, "ts": 1110, "dur": 500, "args": {"correlation": 12}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1700, "dur": 50},
  {"ph": "X", "cat": "kernel", "name": "KA", "pid": 0, "tid": 7, "ts": 1030, "dur": 370, "args": {"correlation": 10, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "kernel", "name": "KB", "pid": 0, "tid": 9, "ts": 1402, "dur": 198, "args": {"correlation": 11, "device": 0, "stream": 9}}
 ]}
JSON
for m in sync hta; do
    "$TD" summary --critical-path $m --warmup none --format json "$WORK/sync.json" >"$WORK/out_$m.json" || die "summary $m"
done
$PY - "$WORK/out_sync.json" "$WORK/out_hta.json" <<'PYEOF' || fail=1
import json, sys
s, h = (json.load(open(f)) for f in sys.argv[1:3])
bad = False
def want(what, got, exp):
    global bad
    if got != exp:
        print(what, "got", got, "want", exp); bad = True
cp = lambda d, st: {r["bound_by"]: (r["ns"], r["top"]) for r in d["critical_path"] if r["step"] == st}
want("sync step 1", cp(s, 1), {"gpu_compute_bound": (605000, "K1"), "cpu_bound": (70000, "aten::add"),
     "gpu_kernel_launch_overhead": (20000, "K1"), "gpu_kernel_kernel_overhead": (5000, "K1")})
want("sync step 2", cp(s, 2), {"gpu_compute_bound": (568000, "KA"), "cpu_bound": (65000, "aten::add"),
     "gpu_kernel_launch_overhead": (15000, "KA")})
want("hta step 1", cp(h, 1), {"cpu_bound": (700000, "aten::item")})
want("hta step 2", cp(h, 2), {"cpu_bound": (620000, "aten::nonzero")})
w = [(r["step"], r["wait_ns"], r["share"], r["op"], r["call"]) for r in s.get("critical_path_waits", [])]
want("waits", w, [(1, 580000, 0.58, "aten::item", "cudaMemcpyAsync"),
                  (2, 500000, 0.5, "aten::nonzero", "hipStreamSynchronize")])
want("hta waits", h.get("critical_path_waits"), None)
# the drawn step (the median path: step 2) with its wait drawn on the CPU thread
seg = [(r["bound_by"], r["start_ns"], r["end_ns"]) for r in s["critical_path_segments"] if r["bound_by"] == "sync_wait"]
want("wait segments", seg, [("sync_wait", 1110000, 1610000)])
f = [x for x in s["findings"] if "critical path" in x]
want("finding", f, ["Step 2's critical path (rank 0): the CPU is waiting for the GPU 50% of the step "
                    "(sync in aten::nonzero); the path is 88% GPU-compute bound (most in KA); 10% "
                    "CPU-bound, most in aten::add."])
sys.exit(1 if bad else 0)
PYEOF

# A shared trace: the time blocked in synchronizing calls per step, computed here from the
# trace's JSON (a synchronize that some device work ends within; a copy call whose own copy
# ends within it), against critical_path_waits; page 1's finding names the op.
need_traces
A=$TRACES/kineto/hta_a100_ws16_rank0.json.gz
# the trace's figures (build-independent: once per run of the suite)
a100_waits() {
    $PY - "$A" "$ONCE/waits.json" <<'PYEOF'
import bisect, collections, gzip, json, sys
ev = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
SYNC = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"}
COPY = {"cudaMemcpy", "cudaMemcpyAsync"}
dev = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
ends = sorted(e["ts"] + e["dur"] for e in dev)
own = collections.defaultdict(list)
for e in dev:
    own[e["args"].get("correlation")].append(e["ts"] + e["dur"])
def blocked(c):
    a, b = c["ts"], c["ts"] + c["dur"]
    if c["name"] in COPY:
        return any(a <= x <= b for x in own.get(c["args"].get("correlation"), []))
    k = bisect.bisect_right(ends, b)
    return k > 0 and ends[k - 1] >= a
ops = [e for e in ev if e.get("cat") == "cpu_op"]
out = {}
for st in (e for e in ev if e["name"].startswith("ProfilerStep#")):
    s0, s1 = st["ts"], st["ts"] + st["dur"]
    calls = [e for e in ev if e.get("cat") == "cuda_runtime" and s0 <= e["ts"] <= s1
             and (e["name"] in SYNC or e["name"] in COPY) and blocked(e)]
    by = collections.Counter()  # the outermost cpu_op around each call, by wait
    for c in calls:
        o = [o for o in ops if o["tid"] == c["tid"] and o["ts"] <= c["ts"] and
             c["ts"] + c["dur"] <= o["ts"] + o["dur"]]
        by[min(o, key=lambda o: (o["ts"], -o["dur"]))["name"] if o else c["name"]] += c["dur"]
    out[st["name"].split("#")[1]] = [sum(c["dur"] for c in calls), st["dur"],
                                     by.most_common(1)[0][0] if by else None]
json.dump(out, open(sys.argv[2], "w"))
PYEOF
}
once critpath_sync_a100 a100_waits || die "the trace's waits"
"$TD" summary --format json "$A" >"$WORK/a100.json" || die "summary a100"
$PY - "$ONCE/waits.json" "$WORK/a100.json" <<'PYEOF' || fail=1
import json, sys
exp, got = (json.load(open(f)) for f in sys.argv[1:3])
rows = {str(r["step"]): r for r in got.get("critical_path_waits", [])}
bad = len(rows) < 4
for n, r in rows.items():
    wait, dur, op = exp[n]
    if abs(r["wait_ns"] / 1000 - wait) > 0.01 * wait or abs(r["share"] - wait / dur) > 0.01 or r["op"] != op:
        print("step", n, "tracedoc", r["wait_ns"], r["share"], r["op"], "trace", wait, wait / dur, op)
        bad = True
f = [x for x in got["findings"] if "critical path" in x]
if not f or "waiting for the GPU" not in f[0] or "(sync in aten::to)" not in f[0]:
    print("finding:", f); bad = True
sys.exit(1 if bad else 0)
PYEOF

# Issue 38 item 5: the older flow category async_cpu_to_gpu (not ac2g). tracedoc links a
# launch to its device work by the correlation ids of both events, not by the flow
# events, so a copy of a shared trace with its ac2g flows renamed gives the same tables.
M=$TRACES/kineto/hta_mi250_minitoy.json.gz
gzip -dc "$M" | sed 's/"ac2g"/"async_cpu_to_gpu"/g' >"$WORK/old.json"
grep -q '"async_cpu_to_gpu"' "$WORK/old.json" || die "no flow renamed"
for t in critical_path launches; do
    "$TD" summary --format csv --table $t "$M" >"$WORK/new_$t.csv" || die "summary $t"
    "$TD" summary --format csv --table $t "$WORK/old.json" >"$WORK/old_$t.csv" || die "summary old $t"
    [ -s "$WORK/new_$t.csv" ] && cmp -s "$WORK/new_$t.csv" "$WORK/old_$t.csv" ||
        { echo "async_cpu_to_gpu: $t differs"; fail=1; }
done
exit $fail
