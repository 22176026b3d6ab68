# Kineto JSON through the command line: kernels and memcpy launched through driver calls
# (cat cuda_driver: cuLaunchKernel from Triton/XLA, cuMemcpyHtoDAsync_v2) are linked by
# correlation id like runtime launches, so the ops get their device time. Expected
# values computed by hand from the trace below (us in the file, ns in the output):
#   triton_poi_fused [0,100) > cuLaunchKernel #7 -> kernel 40 us
#   aten::copy_ [200,260) > cuMemcpyHtoDAsync_v2 #8 -> memcpy 30 us
#   cuLaunchKernel #9 outside every op -> kernel 5 us (the call owns it)
. "$ROOT/tests/lib.sh"
cat >"$WORK/t.json" <<'EOF'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_0", "pid": 0, "tid": 7, "ts": 20, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": 7}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 200, "dur": 60},
 {"ph": "X", "cat": "cuda_driver", "name": "cuMemcpyHtoDAsync_v2", "pid": 1, "tid": 1, "ts": 210, "dur": 8, "args": {"correlation": 8}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 220, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 8, "bytes": 4096}},
 {"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 300, "dur": 5, "args": {"correlation": 9}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused_1", "pid": 0, "tid": 7, "ts": 310, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 9}}
]}
EOF
"$TD" summary --format csv --table ops "$WORK/t.json" >"$WORK/ops.csv" || die "summary"
$PY - "$WORK/ops.csv" <<'PYEOF' || exit 1
import csv, sys
got = {r["name"]: (int(r["calls"]), int(r["device_self_ns"]), int(r["device_total_ns"]))
       for r in csv.DictReader(open(sys.argv[1]))}
want = {"triton_poi_fused": (1, 40000, 40000), "aten::copy_": (1, 30000, 30000),
        "cuLaunchKernel": (2, 5000, 5000), "cuMemcpyHtoDAsync_v2": (1, 0, 0)}
assert got == want, got
PYEOF
exit 0
