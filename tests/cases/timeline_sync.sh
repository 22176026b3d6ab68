# Issue 38 item 2: device-side waits are not compute. Synchronization work (kernels named
# for a wait or barrier, a collective of one element) is the breakdown's own part
# (gpu_timeline.sync_ns: its time no computation overlaps); computation_ns leaves it out;
# the top-kernel finding says a wait is one.
. "$ROOT/tests/lib.sh"
fail=0
# Hand-computed (us): K1 0-100 and K2 250-400 on stream 1, event_wait 100-300 on stream 2,
# a one-element all-reduce (a barrier) 400-500 on stream 3, a 1000-element one 500-550.
# computation = |K1 u K2| = 250; sync = (100-250) + (400-500) = 250; exposed comm 50;
# total 550, idle 0.
cat >"$WORK/t.json" <<'JSON'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU"}],
 "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 0, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "K1", "pid": 0, "tid": 1, "ts": 0, "dur": 100, "args": {"device": 0, "stream": 1}},
  {"ph": "X", "cat": "kernel", "name": "K2", "pid": 0, "tid": 1, "ts": 250, "dur": 150, "args": {"device": 0, "stream": 1}},
  {"ph": "X", "cat": "kernel", "name": "event_wait", "pid": 0, "tid": 2, "ts": 100, "dur": 200, "args": {"device": 0, "stream": 2}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "pid": 0, "tid": 3, "ts": 400, "dur": 100, "args": {"device": 0, "stream": 3, "In msg nelems": 1, "Out msg nelems": 1, "Collective name": "allreduce", "dtype": "Float"}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "pid": 0, "tid": 3, "ts": 500, "dur": 50, "args": {"device": 0, "stream": 3, "In msg nelems": 1000, "Out msg nelems": 1000, "Collective name": "allreduce", "dtype": "Float"}}
 ]}
JSON
"$TD" summary --warmup none --format json "$WORK/t.json" >"$WORK/t.out.json" || die "summary"
# MTIA: the same parts computed here from the trace's JSON (every mtia_ccp_events work:
# event_wait is the wait, the rest computation), against gpu_timeline and the finding
need_traces
M=$TRACES/kineto/hta_mtia_inference_rank0.json.gz
"$TD" summary --format json "$M" >"$WORK/m.json" || die "summary mtia"
$PY - "$WORK/t.out.json" "$M" "$WORK/m.json" <<'PYEOF' || fail=1
import gzip, json, sys
bad = False
def union(iv):
    t, cur = 0, None
    for s, e in sorted(iv):
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                t += cur[1] - cur[0]
            cur = [s, e]
    return t + (cur[1] - cur[0] if cur else 0)
r = json.load(open(sys.argv[1]))["gpu_timeline"][0]
got = tuple(r[k] for k in ("computation_ns", "sync_ns", "exposed_comm_ns", "idle_ns", "total_ns"))
if got != (250000, 250000, 50000, 0, 550000):
    print("hand trace:", got); bad = True
ev = [e for e in json.load(gzip.open(sys.argv[2]))["traceEvents"]
      if e.get("ph") == "X" and e.get("cat") == "mtia_ccp_events" and e.get("dur", 0) > 0]
iv = lambda f: [(e["ts"], e["ts"] + e["dur"]) for e in ev if f(e)]
comp = union(iv(lambda e: e["name"] != "event_wait"))
both = union(iv(lambda e: True))
m = json.load(open(sys.argv[3]))
row = [x for x in m["gpu_timeline"] if x["device"] == "all" and x["scope"] == "trace"][0]
for k, want in (("computation_ns", comp), ("sync_ns", both - comp)):
    if abs(row[k] / 1000 - want) > 0.001 * both:
        print("mtia", k, row[k], "trace", want); bad = True
f = [x for x in m["findings"] if x.startswith("The top kernel")]
if not f or "(event_wait, 43% of all kernel time) is synchronization" not in f[0]:
    print("finding:", f); bad = True
sys.exit(1 if bad else 0)
PYEOF
exit $fail
