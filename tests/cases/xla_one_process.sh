# Issue 21: an nsys-jax archive of before mid-2024 (no thread-metadata.parquet) of one
# process driving 4 GPUs (tests/data/nsysjax/one_process_4gpu.zip, made by
# tests/gen/jax_one_process.py from the 4 shared one-GPU archives: each one's multi-device
# programs on its own launcher thread, proc0's single-device programs on the main thread,
# as PjRt runs them). 4 devices by construction: the main thread (TID = PID) is no device
# of its own when launcher threads exist (its modules go to the first device, as with
# thread metadata); before, it counted as a 5th. The step function's collectives ran on 4
# devices. Page 1 gives the reason beside the figure. And the 4 shared archives without
# their thread metadata are 4 processes with one GPU each (their XlaLauncher threads say
# global=0..3): 4 devices, not 1.
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
Z=$ROOT/tests/data/nsysjax/one_process_4gpu.zip
"$TD" report "$Z" -o r --format pdf,json >/dev/null 2>err || die "report failed: $(cat err)"
$PY - r/summary.json err <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
assert s["trace"]["devices"] == 4, s["trace"]
note = s["trace"]["devices_note"]
assert "main thread" in note and "fewer" not in note, note
assert "taken as its own device, the main thread's modules as the first device's (4)" in err, err
inst = s["collective_instances"]
assert inst and max(r["devices"] for r in inst) == 4, [r["devices"] for r in inst][:8]
m = {r["name"]: r for r in s["modules"]}
assert m["jit_convert_element_type"]["executions"] == 3, m["jit_convert_element_type"]
assert s["trace"]["span_ns"] > 0, s["trace"]
PYEOF
pdftotext -f 1 -l 1 r/report.pdf p1.txt
tr '\n' ' ' <p1.txt | grep -q "Devices *[0-9.]* s *4 *Devices: one per thread that launches XLA modules" ||
    { cat p1.txt; die "page 1: no device count of 4 with its reason beside it"; }
grep -q "may have fewer" p1.txt && die "page 1 says the job may have fewer devices"
$PY - "$TRACES/nsys-jax" <<'PYEOF' || die "copying the archives"
import sys, zipfile
for i in range(4):
    src = zipfile.ZipFile("%s/pax_fsdp4_4proc_proc%d.zip" % (sys.argv[1], i))
    dst = zipfile.ZipFile("old%d.zip" % i, "w")
    for n in src.namelist():
        if n not in ("thread-metadata.parquet",) and not n.startswith(("dump/", "sources/", "protos/")):
            dst.writestr(n, src.read(n))
    dst.close()
PYEOF
"$TD" summary --format json old0.zip old1.zip old2.zip old3.zip >o.json 2>/dev/null || die "summary failed"
$PY - o.json <<'PYEOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["trace"]["ranks"] == 4 and s["trace"]["devices"] == 4, s["trace"]
PYEOF
exit 0
