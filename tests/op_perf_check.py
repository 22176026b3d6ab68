#!/usr/bin/python3
"""tests/op_perf_check.py OP_PERF.csv TRACELENS_DIR: the GEMM and SDPA-forward rows of
tracedoc's `op_perf` table (summary --format csv --table op_perf, one rank) against
TraceLens's own per-op output (perf_GEMM_raw.csv, perf_SDPA_fwdpass_raw.csv: one row per
op event). TraceLens's rows are grouped here by (name, Input Dims, Input type) as tracedoc
groups them. Exact: the calls, FLOPs of one call (GFLOPS x 1e9) and bytes of one call
(Data Moved (MB) x 2^20, TraceLens's MB being MiB); within 1%: the device time (sum of
"Kernel Time (us)") and TFLOP/s over it. SDPA bytes: TraceLens counts 2 bytes an element
whatever the type, tracedoc the input's: compared only for 2-byte types. Prints each
difference; exit 1 on any, or when nothing was compared."""
import ast, csv, os, sys
from collections import defaultdict

mine = {}
for r in csv.DictReader(open(sys.argv[1])):
    mine[(r["op"], r["shape"])] = r
groups = defaultdict(list)
two_byte = ("c10::bfloat16", "c10::half")
for sheet in ("perf_GEMM_raw.csv", "perf_SDPA_fwdpass_raw.csv"):
    p = os.path.join(sys.argv[2], sheet)
    if not os.path.exists(p):
        continue
    for r in csv.DictReader(open(p)):
        dims = str(ast.literal_eval(r["Input Dims"]))
        groups[(r["name"], dims, r["Input type"], sheet)].append(r)
bad = n = 0
for (name, dims, types, sheet), rows in sorted(groups.items()):
    m = mine.get((name, dims))
    if m is None:
        print("%s %s: not in tracedoc's op_perf" % (name, dims))
        bad = 1
        continue
    n += 1
    flops = {round(float(r["GFLOPS"]) * 1e9) for r in rows}
    byts = {round(float(r["Data Moved (MB)"]) * 2**20) for r in rows}
    kt = sum(float(r["Kernel Time (µs)"]) for r in rows) * 1e3
    tf = sum(float(r["GFLOPS"]) for r in rows) * 1e9 / kt / 1e3 if kt > 0 else None
    if int(m["calls"]) != len(rows):
        print("%s %s: calls %s, TraceLens %d" % (name, dims, m["calls"], len(rows))); bad = 1
    if flops != {int(m["flops"])}:
        print("%s %s: FLOPs %s, TraceLens %s" % (name, dims, m["flops"], flops)); bad = 1
    first = ast.literal_eval(types)[0].lower() if types else ""
    if ("GEMM" in sheet or first in two_byte) and byts != {int(m["bytes"])}:
        print("%s %s: bytes %s, TraceLens %s" % (name, dims, m["bytes"], byts)); bad = 1
    if kt > 0:
        if abs(int(m["kernel_ns"]) - kt) > 0.01 * kt:
            print("%s %s: kernel_ns %s, TraceLens %.0f" % (name, dims, m["kernel_ns"], kt)); bad = 1
        if abs(float(m["tflops"]) - tf) > 0.01 * tf:
            print("%s %s: TFLOP/s %s, TraceLens %.6f" % (name, dims, m["tflops"], tf)); bad = 1
seen = {(k[0], k[1]) for k in groups}
for k, r in mine.items():
    if r["category"] in ("GEMM", "SDPA_fwd") and k not in seen and groups:
        print("%s %s: in tracedoc's op_perf, not in TraceLens's output" % k)
        bad = 1
print("%d (op, shapes) rows checked" % n)
sys.exit(1 if bad or not n else 0)
