#!/usr/bin/python3
"""tests/op_perf_check.py OP_PERF.csv TRACELENS_DIR: the rows of tracedoc's `op_perf`
table (summary --format csv --table op_perf, one rank) against TraceLens's own per-op
output (perf_<SHEET>_raw.csv, one row per op event: GEMM, SDPA_fwdpass, UnaryElementwise,
BinaryElementwise, Normalization, Reduce_fwdpass). TraceLens's rows are grouped here by
(name, Input Dims, Input type) as tracedoc groups them. Exact: the calls, FLOPs of one
call (GFLOPS x 1e9) and bytes of one call (Data Moved (MB) x 2^20, TraceLens's MB being
MiB); within 1%: the device time (sum of "Kernel Time (us)") and TFLOP/s over it.
Differences on purpose (doc/summary-json.md "op_perf"), not compared:
- SDPA bytes: TraceLens counts 2 bytes an element whatever the type, tracedoc the
  input's: compared only for 2-byte types.
- Reduce bytes: TraceLens never reads the dim argument (it compares the trace's strings
  with ints), so it counts one output element; compared only where no dim is given.
- TraceLens rows without Input Dims (it models those with 0 elements; tracedoc has no
  shapes there) are skipped.
A tracedoc row of a category whose TraceLens sheet exists but that TraceLens lacks is an
error (TraceLens's elementwise and normalisation models need "Input Strides", so on traces
without them it writes no sheet, and tracedoc's rows there are not compared).
With --bwd: tracedoc's `op_perf_bwd` against TraceLens's backward-pass sheets
(perf_Reduce_bwdpass_raw.csv, perf_SDPA_bwdpass_raw.csv, perf_CONV_bwdpass_raw.csv: per
forward op the device time of the backward functions autograd links to it, with the op's
backward FLOPs and bytes), the same rules; for SDPA and convolution only the calls and the
time (tracedoc's SDPA backward counts the recomputed QK^T, and it does not model a
convolution's backward from its forward op); the device time there exactly (to the ns).
Prints each difference; exit 1 on any, or when nothing was compared."""
import ast, csv, os, sys
from collections import defaultdict

mine = defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])) if os.path.getsize(sys.argv[1]) else ():
    mine[(r["op"], r["shape"])].append(r)
SHORT = {"double": "fp64", "float": "fp32", "c10::bfloat16": "bf16", "c10::half": "fp16",
         "long int": "int64", "int": "int32", "signed char": "int8", "unsigned char": "uint8"}

def pick(key, types):
    """tracedoc's row for TraceLens's (name, dims) and Input type: rows of one (op, shapes)
    differ by type"""
    rows = mine.get(key, [])
    if len(rows) <= 1:
        return rows[0] if rows else None
    want = {SHORT.get(t.lower(), t) for t in ast.literal_eval(types)} if types else set()
    rows = [r for r in rows if r["dtype"] in want]
    return rows[0] if len(rows) == 1 else None
BWD = "--bwd" in sys.argv[3:]
TABLE = "op_perf_bwd" if BWD else "op_perf"
SHEETS = {"perf_GEMM_raw.csv": ("GEMM",), "perf_SDPA_fwdpass_raw.csv": ("SDPA_fwd",),
          "perf_UnaryElementwise_raw.csv": ("UnaryElementwise",),
          "perf_BinaryElementwise_raw.csv": ("BinaryElementwise",),
          "perf_Normalization_raw.csv": ("NORM_fwd", "NORM_bwd"),
          "perf_Reduce_fwdpass_raw.csv": ("Reduce",)}
if BWD:
    SHEETS = {"perf_Reduce_bwdpass_raw.csv": ("Reduce",), "perf_SDPA_bwdpass_raw.csv": ("SDPA_fwd",),
              "perf_CONV_bwdpass_raw.csv": ("CONV_fwd",)}
groups = defaultdict(list)
two_byte = ("c10::bfloat16", "c10::half")
cats = set()
skipped = 0
for sheet in SHEETS:
    p = os.path.join(sys.argv[2], sheet)
    if not os.path.exists(p):
        continue
    cats.update(SHEETS[sheet])
    for r in csv.DictReader(open(p)):
        if not r["Input Dims"]:
            skipped += 1
            continue
        dims = str(ast.literal_eval(r["Input Dims"]))
        groups[(r["name"], dims, r["Input type"], sheet)].append(r)

def reduce_has_dim(name, concrete):
    """whether a reduction names its dims (argument 1, 2 for norm) in its concrete inputs"""
    if not concrete or "cum" in name:
        return False
    c = ast.literal_eval(concrete)
    at = 2 if name in ("aten::norm", "aten::linalg_norm") else 1
    return len(c) > at and c[at] not in ("", "[]", "None")
if not groups:
    print("no TraceLens rows with Input Dims (%d without)" % skipped)
    sys.exit(3)
bad = n = 0
for (name, dims, types, sheet), rows in sorted(groups.items()):
    m = pick((name, dims), types)
    if m is None:
        print("%s %s: not in tracedoc's %s" % (name, dims, TABLE))
        bad = 1
        continue
    n += 1
    flops = {round(float(r["GFLOPS"]) * 1e9) for r in rows}
    byts = {round(float(r["Data Moved (MB)"]) * 2**20) if r["Data Moved (MB)"] else None for r in rows}
    kt = sum(float(r["Kernel Time (µs)"]) for r in rows) * 1e3
    tf = sum(float(r["GFLOPS"]) for r in rows) * 1e9 / kt / 1e3 if kt > 0 else None
    if int(m["calls"]) != len(rows):
        print("%s %s: calls %s, TraceLens %d" % (name, dims, m["calls"], len(rows))); bad = 1
    model = not BWD or "Reduce" in sheet
    if model and flops != {int(m["flops"])}:
        print("%s %s: FLOPs %s, TraceLens %s" % (name, dims, m["flops"], flops)); bad = 1
    first = ast.literal_eval(types)[0].lower() if types else ""
    cmp_bytes = model and ("SDPA" not in sheet or first in two_byte)
    if "Reduce" in sheet and reduce_has_dim(name, rows[0]["Concrete Inputs"]):
        cmp_bytes = False
        print("%s %s: bytes %s, TraceLens %s (it ignores the dim argument)" % (name, dims, m["bytes"], byts))
    if cmp_bytes and byts != {int(m["bytes"]) if m["bytes"] else None}:
        print("%s %s: bytes %s, TraceLens %s" % (name, dims, m["bytes"], byts)); bad = 1
    if kt > 0:
        # --bwd: the time exactly (to the ns; TraceLens keeps float microseconds)
        if abs(int(m["kernel_ns"]) - kt) > (max(0.5, 1e-9 * kt) if BWD else 0.01 * kt):
            print("%s %s: kernel_ns %s, TraceLens %.0f" % (name, dims, m["kernel_ns"], kt)); bad = 1
        if model and abs(float(m["tflops"]) - tf) > max(0.01 * tf, 1e-6):  # the CSV keeps 6 decimals
            print("%s %s: TFLOP/s %s, TraceLens %.6f" % (name, dims, m["tflops"], tf)); bad = 1
seen = {(k[0], k[1]) for k in groups}
for k, rs in mine.items():
    if rs[0]["category"] in cats and k not in seen and groups:
        print("%s %s: in tracedoc's %s, not in TraceLens's output" % (k + (TABLE,)))
        bad = 1
print("%d (op, shapes) rows checked (%d TraceLens rows without Input Dims skipped)" % (n, skipped))
sys.exit(1 if bad or not n else 0)
