# rocprofv3 JSON input (issue 39). The shared sample (MI350X, 43,915 dispatches) against
# TraceLens's rocprof report and the independent reading in ../shared/oracles/rocprof/908
# (kernel table: counts exact, times 1%; GPU timeline; tests/rocprof_check.py reads every
# expected figure from those files). Small hand-made files (tests/gen/rocprof_small.py,
# figures computed by hand there): HIP launches joined to dispatches by correlation id,
# ROCTx ranges as steps and modules, a memory copy, names read when their tables come
# after the records, every record straddling a refill. Damaged files: truncated (kept,
# warned), a syntax error (exit 3, the byte offset), no records (exit 7).
. "$ROOT/tests/lib.sh"
need_traces
T=$TRACES/rocprof/908_results.json.gz
O=$TRACES/../oracles/rocprof/908
[ -f "$T" ] && [ -d "$O" ] || { echo "rocprof sample or oracle missing"; exit 77; }
"$TD" summary --format json "$T" >"$WORK/s.json" 2>"$WORK/s.err" || { cat "$WORK/s.err"; die summary; }
[ -s "$WORK/s.err" ] && { cat "$WORK/s.err"; die "warnings on the sample"; }
checked $PY "$ROOT/tests/rocprof_check.py" "$WORK/s.json" "$O" "$T" || die "sample vs oracles"
$PY - "$WORK/s.json" <<'EOF' || die "sample: format, device, accelerator"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["inputs"][0]["format"] == "rocprof-json", d["inputs"]
assert d["trace"]["accelerator"] == "ROCm" and d["trace"]["device_name"] == "AMD Instinct MI350X", d["trace"]
EOF

$PY "$ROOT/tests/gen/rocprof_small.py" "$WORK" || die gen
"$TD" summary --format json "$WORK/small.json" >"$WORK/a.json" || die small
"$TD" summary --format json "$WORK/reordered.json" >"$WORK/b.json" || die reordered
TD_READ_BUF=16 "$TD" summary --format json "$WORK/small.json" >"$WORK/c.json" || die "small, 16-byte buffer"
$PY - "$WORK/a.json" "$WORK/b.json" "$WORK/c.json" <<'EOF' || die "small files"
import json, sys
a, b, c = (json.load(open(p)) for p in sys.argv[1:4])
for o in (b, c):
    for k in a:
        if k not in ("inputs", "inputs_label"):
            assert a[k] == o.get(k), k
k = a["kernels"]
assert [(r["name"], r["calls"], r["total_ns"]) for r in k] == [("gemm_kernel", 6, 1200)], k
l = a["launches"][0]
assert l["launches"] == 7 and l["launch_delay_mean_ns"] == 50 and l["launch_delay_max_ns"] == 50, l
st = a["steps"]
assert [(s["name"], s["wall_ns"]) for s in st] == [("ProfilerStep#%d" % i, 1000) for i in (1, 2, 3)], st
assert [m["executions"] for m in a["modules"]] == [3], a["modules"]
g = next(r for r in a["gpu_timeline"] if r["device"] == "all")
assert g["total_memcpy_ns"] == 400 and g["computation_ns"] == 1200, g
assert a["trace"]["device_name"] == "AMD Instinct MI300X" and a["trace"]["accelerator"] == "ROCm"
EOF

# named as ROCm names things: no CUDA in the PDF of the small file (HIP launches, steps,
# critical path) nor in its Chrome export (HIP calls as hip_runtime), which reads back
# to the same kernels and launches
"$TD" report --format pdf -o "$WORK/pdf" "$WORK/small.json" 2>/dev/null || die "report pdf"
pdftotext -layout "$WORK/pdf/report.pdf" "$WORK/pdf.txt" || die pdftotext
grep -q "hipLaunchKernel" "$WORK/pdf.txt" || die "the PDF does not name the HIP call"
grep -i -n "cuda" "$WORK/pdf.txt" && die "the PDF of a rocprofv3 input says CUDA"
"$TD" export --format chrome -o "$WORK/x.json" "$WORK/small.json" || die export
grep -i -q "cuda" "$WORK/x.json" && die "the export of a rocprofv3 input says CUDA"
"$TD" summary --format json "$WORK/x.json" >"$WORK/x.s.json" || die "export read back"
$PY - "$WORK/a.json" "$WORK/x.s.json" <<'EOF2' || die "export round trip"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["kernels"] == b["kernels"], (a["kernels"], b["kernels"])
assert a["launches"] == b["launches"], (a["launches"], b["launches"])
EOF2

# damaged: truncated inside the records (kept, a warning with the byte), a syntax error
# (exit 3, file and byte offset), a tool object without records (exit 7)
head -c 5000 "$WORK/small.json" >"$WORK/trunc.json"
"$TD" summary "$WORK/trunc.json" >/dev/null 2>"$WORK/t.err" || die "truncated: exit"
grep -q "trunc.json: truncated at byte 5000; kept [0-9]* events" "$WORK/t.err" || { cat "$WORK/t.err"; die "truncated: warning"; }
sed 's/"end_timestamp": \([0-9]*\)/"end_timestamp" \1/' "$WORK/small.json" | head -c 100000 >"$WORK/bad.json"
expect_exit 3 "$TD" summary "$WORK/bad.json" >/dev/null 2>"$WORK/b.err" || exit 1
grep -q "bad.json: byte [0-9]*: expected ':'" "$WORK/b.err" || { cat "$WORK/b.err"; die "syntax error message"; }
printf '{"rocprofiler-sdk-tool":[{"metadata":{"pid":1},"buffer_records":{"kernel_dispatch":[]}}]}' >"$WORK/none.json"
expect_exit 7 "$TD" summary "$WORK/none.json" >/dev/null 2>&1 || exit 1
exit 0
