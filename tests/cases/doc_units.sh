# Issue 21: units, page 1 after the step time, the device count's reason, the manager
# page. Expected values are computed here from the summary's own tables by the
# definitions (doc/summary-json.md), or read from the traces:
# - the workbook's time cells never read "0.006 ms" (the A100 trace's Ops sheet had four):
#   a non-zero cell under 0.1 units shows three significant digits (issue 38: the unit
#   is the top rows', and a small cell further down gets the decimals it needs);
# - step_time.device_busy_ns: median device_busy_ns of the steady steps;
#   step_time.device_busy_share: their busy time over their wall time;
# - idle.*_share: the idle_breakdown rows' idle_ns by category over their sum;
# - an nsys-jax archive without thread-metadata.parquet says why its device count may be
#   wrong on page 1, where the figure is;
# - the CPU-only manager page is filled (step times and top ops) and stays one page.
. "$ROOT/tests/lib.sh"
need_traces
T=$TRACES/kineto/hta_a100_ws16_rank0.json.gz
"$TD" report "$T" -o "$WORK/a" --format pdf,json,xlsx >/dev/null 2>"$WORK/err" || die "report failed: $(cat "$WORK/err")"
$PY - "$WORK/a/summary.json" "$WORK/a/report.xlsx" <<'PYEOF' || exit 1
import json, sys, openpyxl
s = json.load(open(sys.argv[1]))
steady = [r for r in s["steps"] if not r["warmup"]]
b = sorted(r["device_busy_ns"] for r in steady)
n = len(b)
med = b[n // 2] if n % 2 else b[n // 2 - 1] + (b[n // 2] - b[n // 2 - 1]) // 2
st = s["step_time"]
assert st["device_busy_ns"] == med, (st, med)
share = sum(r["device_busy_ns"] for r in steady) / sum(r["wall_ns"] for r in steady)
assert abs(st["device_busy_share"] - share) < 1e-6, (st, share)
ib = s["idle_breakdown"]
tot = sum(r["idle_ns"] for r in ib)
for c in ("host_wait", "kernel_wait", "other"):
    want = sum(r["idle_ns"] for r in ib if r["category"] == c) / tot
    assert abs(s["idle"][c + "_share"] - want) < 1e-6, (c, s["idle"], want)
wb = openpyxl.load_workbook(sys.argv[2])
small = []
for ws in wb.worksheets:
    rows = list(ws.iter_rows())
    if not rows or not rows[0]:
        continue
    for c, h in enumerate(rows[0]):
        h = h.value
        if isinstance(h, str) and h.endswith(("(s)", "(ms)", "(\u00b5s)")):
            for r in rows[1:]:
                v = r[c].value
                if not isinstance(v, (int, float)) or v == 0 or abs(v) >= 0.1:
                    continue
                f = r[c].number_format
                dec = len(f.split(".")[1]) if "." in f else 0
                if abs(v) * 10 ** dec < 99.5:
                    small.append((ws.title, h, v, f))
assert not small, small[:8]
ops = [ws for ws in wb.worksheets if ws.title == "Ops"]
assert ops, [ws.title for ws in wb.worksheets]
hdr = [h for h in next(ops[0].iter_rows(values_only=True)) if h]
assert any(h.endswith("(\u00b5s)") for h in hdr), hdr
PYEOF
pdftotext -f 1 -l 1 "$WORK/a/report.pdf" "$WORK/p1.txt"
grep -q "GPU busy per step" "$WORK/p1.txt" || die "no device busy per step on page 1"
grep -q "What the GPU idle time is: 33% waiting for the CPU" "$WORK/p1.txt" ||
    die "page 1 does not say what the idle time is"
grep -q " us\b" "$WORK/p1.txt" && die "page 1 writes us for microseconds"
# nsys-jax before mid-2024: no thread-metadata.parquet
Z=$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip
$PY - "$Z" "$WORK/old.zip" <<'PYEOF'
import sys, zipfile
src, dst = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2], "w")
for n in src.namelist():
    if n != "thread-metadata.parquet": dst.writestr(n, src.read(n))
dst.close()
PYEOF
"$TD" report "$WORK/old.zip" -o "$WORK/o" --format pdf,json >/dev/null 2>&1 || die "old archive report failed"
pdftotext -f 1 -l 1 "$WORK/o/report.pdf" "$WORK/o1.txt"
tr '\n' ' ' <"$WORK/o1.txt" | grep -q "Devices: one per thread that launches XLA modules" ||
    die "page 1 does not say how the old archive's devices were counted"
"$TD" report "$Z" -o "$WORK/n" --format json >/dev/null 2>&1 || die "new archive report failed"
grep -q devices_note "$WORK/n/summary.json" && die "a devices note for an archive with thread metadata"
# the CPU-only manager page: one page, with the step times and the top ops
"$TD" report "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json" --template manager -o "$WORK/m" >/dev/null 2>&1 ||
    die "manager report failed"
pdfinfo "$WORK/m/report.pdf" | grep -q "^Pages: *1$" || die "the manager PDF is not one page"
pdftotext "$WORK/m/report.pdf" "$WORK/m.txt"
grep -q "Step times" "$WORK/m.txt" && grep -q "Top ops" "$WORK/m.txt" || die "the CPU-only manager page is not filled"
# a GPU job's manager page stays one page too
"$TD" report "$T" --template manager -o "$WORK/g" >/dev/null 2>&1 || die "manager report failed"
pdfinfo "$WORK/g/report.pdf" | grep -q "^Pages: *1$" || die "the A100 manager PDF is not one page"
exit 0
