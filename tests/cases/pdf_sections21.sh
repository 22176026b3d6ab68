# Issue 21's leftovers in the PDF, on the shared real traces. Expected values come from
# the traces' own events (read here by Python) and from the definitions in doc/outputs.md
# and doc/templates.md:
# 1. a CPU-only trace's bug report has its CPU flamegraph (`flame cpu when=cpu-only`); a
#    GPU trace's bug report does not, although it has CPU stacks; a bad `when=` is a
#    template error (exit 2) naming the file and line;
# 2. a device-by-module flamegraph of three bands or fewer (MTIA: all and the kernels) is
#    left out of the PDF, flame-device.svg is still written; MTIA's op performance model
#    without device time too, and its checklist is not alone on a last page;
# 3. a one-rank input's PDF tables have no Rank column reading 0 in every row;
# 4. no time cell reads "0.00x" (the MTIA, nsys and A100 tables did), and a cell under a
#    hundredth of its column's unit reads in its own unit, with the events' value;
# 5. the nsys-jax straggler chart's ratio axis has no "1e+06" beside "100000";
# 6. no exponent in the MI250 report (roofline list, op performance table).
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
export SOURCE_DATE_EPOCH=1700000000
CPU=$TRACES/torch-cpu/torch_transformer_cpu_5steps.json
H100=$TRACES/kineto-shapes/tl_h100_bert_small.json.gz
MTIA=$TRACES/kineto/hta_mtia_inference_rank0.json.gz
NSYS=$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite
A100=$TRACES/kineto/hta_a100_ws16_rank0.json.gz

# 1. the CPU flamegraph: in the CPU-only trace's bug report, not in the H100's
"$TD" report "$CPU" -o "$WORK/c" --format pdf,json 2>/dev/null || die "report cpu"
"$TD" report "$H100" -o "$WORK/h" --format pdf,folded 2>/dev/null || die "report h100"
[ -s "$WORK/h/cpu.folded" ] || die "the H100 trace has no CPU stacks: the check below proves nothing"
pdftotext "$WORK/c/report.pdf" "$WORK/c.txt" && pdftotext -layout "$WORK/h/report.pdf" "$WORK/h.txt" ||
    die pdftotext
$PY - "$CPU" "$H100" "$WORK/c.txt" "$WORK/h.txt" <<'PY' || exit 1
import gzip, json, sys
cpu = json.load(open(sys.argv[1]))               # torch 1.13's legacy export: a list
cpu = cpu["traceEvents"] if isinstance(cpu, dict) else cpu
gpu = json.load(gzip.open(sys.argv[2]))["traceEvents"]
dev = lambda ev: [e for e in ev if str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")]
assert not dev(cpu) and dev(gpu), "the traces are not what this test assumes"
assert "Flamegraph: CPU call stacks" in open(sys.argv[3]).read(), "CPU-only PDF without its CPU flamegraph"
assert "Flamegraph: CPU call stacks" not in open(sys.argv[4]).read(), "GPU bug report with a CPU flamegraph"
PY
# when=device: the other way round
printf '[pdf]\nsection header\nsection flame cpu when=device\n' >"$WORK/dev.tdt"
"$TD" report "$CPU" --template "$WORK/dev.tdt" -o "$WORK/cd" --format pdf 2>/dev/null || die "report cpu when=device"
"$TD" report "$H100" --template "$WORK/dev.tdt" -o "$WORK/hd" --format pdf 2>/dev/null || die "report h100 when=device"
pdftotext "$WORK/cd/report.pdf" - | grep -q "Flamegraph: CPU call stacks" && die "when=device drawn for a CPU-only trace"
pdftotext "$WORK/hd/report.pdf" - | grep -q "Flamegraph: CPU call stacks" || die "when=device not drawn for the H100 trace"
printf '[pdf]\nsection flame cpu when=gpu\n' >"$WORK/bad.tdt"
"$TD" report "$CPU" --template "$WORK/bad.tdt" -o "$WORK/b" 2>"$WORK/bad.err"
[ $? = 2 ] || die "when=gpu: expected exit 2"
grep -q "bad.tdt:2: expected when=cpu-only or when=device" "$WORK/bad.err" || die "when=gpu: $(cat "$WORK/bad.err")"
printf '[xlsx]\nsection table ops when=device\n' >"$WORK/bad2.tdt"
"$TD" report "$CPU" --template "$WORK/bad2.tdt" -o "$WORK/b" 2>"$WORK/bad2.err"
[ $? = 2 ] && grep -q "bad2.tdt:2: when= applies to \[pdf\] sections only" "$WORK/bad2.err" ||
    die "when= in [xlsx]: $(cat "$WORK/bad2.err")"

# 2. MTIA's device flamegraph: two bands (all, the kernels)
"$TD" report "$MTIA" -o "$WORK/m" --format pdf,svg,folded,json 2>/dev/null || die "report mtia"
[ -s "$WORK/m/flame-device.svg" ] || die "flame-device.svg not written"
pdftotext -layout "$WORK/m/report.pdf" "$WORK/m.txt" || die pdftotext
$PY - "$MTIA" "$WORK/m/device.folded" "$WORK/m.txt" <<'PY' || exit 1
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
kern = {e["name"] for e in ev if e.get("cat") == "mtia_ccp_events"}   # its device ops
st = [l.rsplit(" ", 1)[0].split(";") for l in open(sys.argv[2])]
assert st and max(len(s) for s in st) <= 2, "more than three bands: %s" % st[:3]
assert {s[-1] for s in st} <= kern, "the leaves are not the trace's kernels"
txt = open(sys.argv[3]).read()
assert "Flamegraph: Device time by module" not in txt, "few-band flamegraph drawn"
# its ops have no device time (kernel_ns null in every op_perf row):
# the op performance model models nothing, and the checklist is not left alone on a page
s = json.load(open(sys.argv[3].replace("m.txt", "m/summary.json")))
assert s["op_perf"] and not any(r["kernel_ns"] for r in s["op_perf"]), s["op_perf"][:2]
assert "Op performance model" not in txt, "op performance model without device time"
pages = [p for p in txt.split("\f") if p.strip()]
body = [l for l in pages[-1].splitlines() if l.strip() and "Performance report:" not in l
        and "tracedoc 0" not in l]
assert len(body) > 12, "last page nearly empty: %s" % body
PY

# 3. no constant Rank column in the one-rank H100 report (op performance, memory peaks)
$PY - "$H100" "$WORK/h.txt" <<'PY' || exit 1
import gzip, json, re, sys
d = json.load(gzip.open(sys.argv[1]))
assert d.get("distributedInfo", {}).get("rank", 0) == 0
txt = open(sys.argv[2]).read()
hdr = [l for l in txt.splitlines() if "Op and input shapes" in l or "Peak allocated" in l]
assert len(hdr) >= 2, hdr
for l in hdr:
    assert not re.match(r"\s*Rank\s", l), "constant Rank column: " + l
PY

# 4. no "0.00x" time cell; a small cell in its own unit. The MTIA kernels table's
#    dma_request median (6.376 us among ms) and the nsys cuModuleGetLoadingMode op
#    (1.213 us; it read 0.001 ms three times)
"$TD" report "$NSYS" -o "$WORK/n" --format pdf 2>/dev/null || die "report nsys"
"$TD" report "$A100" -o "$WORK/a" --format pdf 2>/dev/null || die "report a100"
pdftotext -layout "$WORK/n/report.pdf" "$WORK/n.txt" && pdftotext -layout "$WORK/a/report.pdf" "$WORK/a.txt" ||
    die pdftotext
$PY - "$MTIA" "$WORK/m.txt" "$WORK/n.txt" "$WORK/a.txt" <<'PY' || exit 1
import gzip, json, re, statistics, sys
for f in sys.argv[2:]:
    bad = re.findall(r"(?<![\d.])0\.00\d+ ?(?:s|ms|\u00b5s)\b", open(f).read())
    assert not bad, (f, bad)
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
dma = sorted(e["dur"] for e in ev if e.get("cat") == "mtia_ccp_events" and e["name"] == "dma_request")
med = statistics.median(dma)                     # us
txt = open(sys.argv[2]).read()
hdr = next(l for l in txt.splitlines() if l.strip().startswith("Kernel ") and "Median" in l)
row = next(l for l in txt.splitlines() if l.strip().startswith("dma_request "))
cols, cells = re.split(r"\s{2,}", hdr.strip()), re.split(r"\s{2,}", row.strip())
cell = cells[cols.index("Median")]
m = re.fullmatch(r"(\d+\.\d{3}) \u00b5s", cell)
assert m and abs(float(m.group(1)) - med) <= 0.01 * med, (cell, med)
top = re.split(r"\s{2,}", next(l for l in txt.splitlines() if l.strip().startswith("event_wait ")).strip())
assert top[cols.index("Median")].endswith(" ms"), top      # the column's unit stays ms
PY

# 5. the straggler chart's axis: thousands grouped, no exponent
J=$TRACES/nsys-jax
"$TD" report "$J"/pax_fsdp4_4proc_proc0.zip "$J"/pax_fsdp4_4proc_proc1.zip \
    "$J"/pax_fsdp4_4proc_proc2.zip "$J"/pax_fsdp4_4proc_proc3.zip -o "$WORK/j" --format pdf,json \
    2>/dev/null || die "report nsys-jax"
pdftotext -layout "$WORK/j/report.pdf" "$WORK/j.txt" || die pdftotext
$PY - "$WORK/j/summary.json" "$WORK/j.txt" <<'PY' || exit 1
import json, math, re, sys
s = json.load(open(sys.argv[1]))
top = max(r["wait_multiple"] for r in s["collective_instances"] if r["wait_multiple"])
txt = open(sys.argv[2]).read()
chart = txt[txt.index("Straggler wait / fastest duration"):txt.index("Straggler wait (instances")]
assert not re.search(r"\de[+-]\d", chart), "exponent on the axis"
want = "{:,}".format(10 ** math.ceil(math.log10(top)))    # the axis' top power of ten
assert want in chart.split(), (want, chart[:400])
PY

# 6. numbers without exponents: the MI250 roofline's list gives a rate with the prefix
#    that makes it read 1 to 999 (FLOPs x calls / device time, the definition in
#    doc/summary-json.md), the op performance table a rate under 0.0005 TFLOP/s as
#    "<0.001", not "0.000"
MI=$TRACES/kineto/hta_mi250_minitoy.json.gz
"$TD" report "$MI" -o "$WORK/mi" --format pdf,json 2>/dev/null || die "report mi250"
pdftotext -layout "$WORK/mi/report.pdf" "$WORK/mi.txt" || die pdftotext
$PY - "$WORK/mi/summary.json" "$WORK/mi.txt" <<'PY' || exit 1
import json, re, sys
s = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
assert not re.search(r"\de[+-]\d", txt), re.findall(r".{30}\de[+-]\d.{10}", txt)
r = s["op_perf"][0]
rate = r["flops"] * r["calls"] / (r["kernel_ns"] * 1e-9)           # FLOP/s
pre = next((p, f) for p, f in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1))
           if rate >= f)
want = "%s (%s): %.3g %sFLOP/s" % (r["name"], r["dtype"], rate / pre[1], pre[0])
assert want in " ".join(txt.split()), (want, [l for l in txt.splitlines() if "FLOP/s," in l][:3])
row = next(l for l in txt.splitlines() if l.strip().startswith(r["name"] + " ") and "\u00b5s" in l)
assert r["tflops"] < 0.0005 and "<0.001" in row.split(), row
PY
exit 0
