# The diagnosis metrics in `diff` (issue 24) and kernel labels by short name (issue 21), on
# a real H100 trace with shapes and memory events. b: a copy whose GEMM kernel
# (cutlass ... 32x32_128x2, the 17 calls of aten::addmm [[512], [141, 512], [512, 512]])
# runs 1.5x longer and whose allocator totals are 1.25x; c: a copy whose kernels and copies all start
# 2 us later (every launch delay +2000 ns); v: a copy without the large GEMM kernel. Expected values computed here in Python from
# the trace events by doc/nightly.md's definitions: peak memory = the largest "Total
# Allocated" of the device's [memory] events; the op's achieved TFLOP/s = calls x
# (2MNK + MN, addmm with bias) / the union of its kernels' intervals; the launch delay
# median moves by the shift. Rows must be reported regressed with those before/after
# values, labels for people (the kernel by its short name, never the demangled "void
# cutlass::"), bytes and TFLOP/s readable on stdout and in report.md; the trace against
# itself raises nothing.
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
A="$TRACES/kineto-shapes/tl_h100_bert_small.json.gz"
[ -f "$A" ] || { echo "no $A"; exit 77; }
K='void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)'
SHORT='Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>'
$PY - "$A" "$K" <<'PYEOF' || die "editing the trace"
import gzip, json, sys
src, kern = sys.argv[1], sys.argv[2]
def edit(dst, kf=1.0, mf=1.0, shift=0.0):
    d = json.load(gzip.open(src))
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and e.get("name") == kern:
            e["dur"] = round(e["dur"] * kf, 3)
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            e["ts"] = e["ts"] + shift
        if e.get("name") == "[memory]":
            for k in ("Total Allocated", "Total Reserved"):
                if k in e["args"]:
                    e["args"][k] = int(round(e["args"][k] * mf))
    with gzip.open(dst, "wt") as f:
        json.dump(d, f)
edit("b.json.gz", kf=1.5, mf=1.25)
edit("c.json.gz", shift=2.0)
# v: the large GEMM kernel removed (a vanished kernel is named by the baseline's short name)
d = json.load(gzip.open(src))
d["traceEvents"] = [e for e in d["traceEvents"] if not (e.get("cat") == "kernel" and
                    "256x128_64x3_tn_align2" in e.get("name", ""))]
with gzip.open("v.json.gz", "wt") as f:
    json.dump(d, f)
PYEOF
"$TD" diff "$A" b.json.gz -o d >out 2>err; rc=$?
[ $rc = 1 ] || { cat err out; die "diff: exit $rc (want 1, regressed)"; }
$PY - "$A" b.json.gz d/summary.json "$K" <<'PYEOF' || exit 1
import gzip, json, sys
def ref(path, kern):
    ev = json.load(gzip.open(path))["traceEvents"]
    peak = max(e["args"]["Total Allocated"] for e in ev
               if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1
               and e["args"].get("Device Id") == 0)
    calls = sum(1 for e in ev if e.get("cat") == "cpu_op" and e.get("name") == "aten::addmm"
                and e["args"].get("Input Dims") == [[512], [141, 512], [512, 512], [], []])
    iv = sorted((round(e["ts"] * 1000), round(e["ts"] * 1000) + round(e["dur"] * 1000))
                for e in ev if e.get("cat") == "kernel" and e.get("name") == kern)
    union, end = 0, None
    for s, t in iv:
        if end is None or s >= end:
            union += t - s
            end = t
        elif t > end:
            union += t - end
            end = t
    M, N, K = 141, 512, 512
    return peak, calls * (2 * M * N * K + M * N) / union / 1e3, len(iv), calls
pa, ta, na, ca = ref(sys.argv[1], sys.argv[4])
pb, tb, nb, cb = ref(sys.argv[2], sys.argv[4])
assert na == ca == 17 and nb == cb == 17, (na, ca, nb, cb)
s = json.load(open(sys.argv[3]))
cmp = {c["metric"]: c for c in s["comparisons"]}
ch = {c["metric"]: c for c in s["changes"]}
mem = "memory.peak_allocated_bytes:cuda:0"
op = "op_perf.tflops:aten::addmm [[512], [141, 512], [512, 512], [], []] bf16"
kmean = "kernel.mean_ns:" + sys.argv[4]
for k in (mem, op, kmean):
    assert k in ch and ch[k]["direction"] == "regressed", (k, ch.get(k), sorted(ch))
c = ch[mem]
assert c["before"] == pa and c["after"] == pb and c["unit"] == "bytes", (c, pa, pb)
assert abs(pb / pa - 1.25) < 1e-6, (pa, pb)
assert c["name"] == "Peak memory allocated on cuda:0", c["name"]
c = ch[op]
assert abs(c["before"] / ta - 1) < 1e-3 and abs(c["after"] / tb - 1) < 1e-3, (c, ta, tb)
assert c["unit"] == "TFLOP/s" and c["change"] < -0.3, c
assert c["name"] == "Op aten::addmm [[512], [141, 512], [512, 512], [], []] bf16: achieved TFLOP/s", c["name"]
# the kernel: its short name for people, the full name in the key
short = {k["name"]: k["short_name"] for k in s["kernels"]}[sys.argv[4]]
assert ch[kmean]["name"] == "Kernel %s: mean per call" % short, ch[kmean]["name"]
for c in s["changes"]:
    assert "void cutlass::" not in c["name"], c["name"]
# readable text for the documents; the launch delay compared and unchanged
assert ch[mem]["before_text"] == "96.61 MiB" and ch[op]["before_text"] == "12.74 TFLOP/s", ch[mem]
lm = cmp["launch.delay_median_ns"]
assert lm["direction"] == "same" and lm["before"] == lm["after"], lm
assert lm["name"] == "Kernel launch delay (median)", lm
# nothing improved, nothing else about memory or TFLOP/s
assert not [c for c in s["changes"] if c["direction"] != "regressed"], s["changes"]
PYEOF
grep -q "^Peak memory allocated on cuda:0 .* regressed  *96.61 MiB  *120.77 MiB" out ||
    die "stdout: peak memory row not readable: $(cat out)"
grep -q "^Kernel $SHORT: mean per call .*regressed" out || die "stdout: kernel not by short name: $(cat out)"
grep -q "void cutlass::" out && die "stdout: a demangled full name: $(cat out)"
grep -q "| 96.61 MiB | 120.77 MiB |" d/report.md || die "report.md: memory not readable"
SHORT_MD=$(printf '%s' "$SHORT" | sed 's/</\&lt;/g')
grep -qF "Kernel $SHORT_MD: mean per call" d/report.md || die "report.md: kernel not by short name"
grep -q "void cutlass::" d/report.md && die "report.md: a demangled full name"
grep -q "classname=\"kernel.mean_ns\"\|kernel.mean_ns:void cutlass::Kernel2" d/junit.xml ||
    die "junit.xml: the kernel's key (full name) missing"
grep -q 'message="regressed: 96.61 MiB -&gt; 120.77 MiB' d/junit.xml || die "junit.xml: memory not readable"
# the launch delay: every kernel 2 us later, the median delay 2000 ns longer
"$TD" diff "$A" c.json.gz -o dc >cout 2>cerr; rc=$?
[ $rc = 1 ] || { cat cerr cout; die "diff c: exit $rc (want 1)"; }
$PY - dc/summary.json <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
c = {c["metric"]: c for c in s["changes"]}["launch.delay_median_ns"]
assert c["direction"] == "regressed" and abs(c["after"] - c["before"] - 2000) <= 1, c
assert c["unit"] == "ns" and c["name"] == "Kernel launch delay (median)", c
PYEOF
grep -q "^Kernel launch delay (median) .*regressed" cout || die "stdout: launch delay: $(cat cout)"
"$TD" diff "$A" v.json.gz -o dv >vout 2>verr
grep -q "^Kernel Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>: total time  *vanished" vout ||
    die "stdout: the vanished kernel not by its short name: $(cat vout)"
# the same trace: quiet
"$TD" diff "$A" "$A" -o s >sout 2>serr; rc=$?
[ $rc = 0 ] || { cat serr sout; die "same trace: exit $rc (want 0)"; }
grep -qi "regressed  \|improved  " sout && die "same trace: a change: $(cat sout)"
$PY - s/summary.json <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
assert not s.get("changes"), s.get("changes")
m = {c["metric"] for c in s["comparisons"]}
assert "memory.peak_allocated_bytes:cuda:0" in m and "launch.delay_median_ns" in m, m
assert any(k.startswith("op_perf.tflops:") for k in m), m
PYEOF
exit 0
