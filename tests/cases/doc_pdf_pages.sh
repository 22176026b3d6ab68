# Per-kind review of the PDF pages (issue 13): what a reader saw as empty or meaningless.
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
export SOURCE_DATE_EPOCH=1700000000
J="$TRACES/nsys-jax"

# 1. nsys-jax, 4 archives: the source and op_name flamegraphs are 97% "[GPU idle ...]" and
#    are drawn without it; the grey frame of merged slivers (idle inside modules, 0.01%
#    over 4 processes) sits at the right end and once stretched the part shown to the
#    whole width: two pages of unlabelled slivers in the left 3%. Now the frames under
#    "[GPU active]" span the page and carry their names.
"$TD" report "$J"/pax_fsdp4_4proc_proc0.zip "$J"/pax_fsdp4_4proc_proc1.zip \
    "$J"/pax_fsdp4_4proc_proc2.zip "$J"/pax_fsdp4_4proc_proc3.zip -o "$WORK/j" --format pdf \
    2>/dev/null || die "report pax 4 archives"
pdftotext "$WORK/j/report.pdf" "$WORK/j.txt" || die "pdftotext"
$PY - "$WORK/j.txt" <<'PY' || exit 1
import sys
txt = open(sys.argv[1]).read()
for head, least in (("Source code flamegraph", 20), ("op_name flamegraph", 5)):
    sec = txt[txt.index(head + "\n"):]
    sec = sec[len(head):sec.index("Width is")]
    labels = [l for l in sec.splitlines() if l.strip()]
    assert len(labels) >= least, "%s: %d labels\n%s" % (head, len(labels), sec)
    assert any(l.startswith("[GPU active] (") for l in labels), (head, labels)
PY

# 2. the manager page is for reading, not for the record: no warm-up or cut-off rule
#    cards, the date once under the title (not again as a fact), card labels whole
#    ("Host time in MPI/UCX/NCCL ..." was cut; its last word now goes under the value)
NSYS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
DLRM="$TRACES/kineto/param_dlrm_8ranks.tar.gz"
for k in nsys dlrm; do
    in=$NSYS; [ $k = dlrm ] && in=$DLRM
    "$TD" report "$in" --template manager -o "$WORK/m-$k" --format pdf 2>/dev/null || die "manager $k"
    pdftotext "$WORK/m-$k/report.pdf" "$WORK/m-$k.txt" || die "pdftotext"
    $PY - "$WORK/m-$k.txt" "$k" <<'PY' || exit 1
import sys
txt = open(sys.argv[1]).read()
assert "page 1 of 1" in txt, "manager PDF is not one page"
for rule in ("Warm-up steps dropped", "Modules below the cut-off", "Executions dropped"):
    assert rule not in txt, "rule card on the manager page: " + rule
# SOURCE_DATE_EPOCH=1700000000: 2023-11-14, in the running head and under the title only
assert txt.count("2023-11-14") == 2, txt.count("2023-11-14")
assert "\u2026" not in txt, [l for l in txt.splitlines() if "\u2026" in l]
if sys.argv[2] == "nsys":
    kf = txt[txt.index("Key figures"):txt.index("Where the device time goes")].splitlines()
    assert "Host time in MPI/UCX/NCCL" in kf and "ranges" in kf, kf
PY
done

# 3. a flamegraph of one path (all > iteration_N > the one kernel, in the synthetic
#    torch-spyre trace) compares nothing: not on the PDF pages, still written as SVG;
#    a graph that branches (the CPU-only trace's call stacks) is drawn
$PY "$ROOT/tests/data/aiu/gen_spyre_kineto.py" "$WORK/spyre.json" || die "generator"
$PY - "$WORK/spyre.json" <<'PY' || exit 1
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
kernels = {e["name"] for e in ev if e.get("cat") == "privateuse1_kernel"}
assert kernels == {"sdsc_matmul"}, kernels   # one kernel: a single path under each step
PY
"$TD" report "$WORK/spyre.json" -o "$WORK/s" 2>/dev/null || die "report spyre"
[ -s "$WORK/s/flame-device.svg" ] || die "no flame-device.svg"
pdftotext "$WORK/s/report.pdf" - | grep -q "Flamegraph" && die "single-path flamegraph drawn"
"$TD" report "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json" -o "$WORK/mt" --format pdf \
    2>/dev/null || die "report cpu"
pdftotext "$WORK/mt/report.pdf" - | grep -q "Flamegraph: CPU call stacks" || die "cpu flamegraph missing"

# 4. page 1's input line: a path too long for its line loses part of its directory, not
#    of its file name. Cairo maps the "..." glyph to the text it stands for, so pdftotext
#    gives the whole path back, with a gap where the "..." sits: the file name must come
#    out in one piece (it read "tbplugin_resnet5 0_v100_oldformat.json.gz")
V100="$TRACES/kineto/tbplugin_resnet50_v100_oldformat.json.gz"
V100=$(cd "$(dirname "$V100")" && pwd)/$(basename "$V100")
"$TD" report "$V100" -o "$WORK/v" --format pdf 2>/dev/null || die "report v100"
pdftotext -layout -l 1 "$WORK/v/report.pdf" - | grep -A1 '^Input$' | tail -1 |
    grep -q " tbplugin_resnet50_v100_oldformat.json.gz \|/tbplugin_resnet50_v100_oldformat.json.gz " ||
    die "file name cut on page 1: $(pdftotext -layout -l 1 "$WORK/v/report.pdf" - | grep -A1 '^Input$')"

# 5. IPU lightweight profiling (the synthetic example): the lanes chart and the table
#    under it were both headed "Lightweight profiling blocks"
for t in bug-report nightly; do
    "$TD" report "$ROOT/examples/ipu/lwp.jsonl" --template $t -o "$WORK/l-$t" --format pdf \
        2>/dev/null || die "report lwp $t"
    n=$(pdftotext "$WORK/l-$t/report.pdf" - | grep -c '^Lightweight profiling blocks$')
    [ "$n" = 1 ] || die "$t: 'Lightweight profiling blocks' heading $n times"
    pdftotext "$WORK/l-$t/report.pdf" - | grep -q '^Blocks per lane$' || die "$t: no 'Blocks per lane'"
done
# the nightly template ends with the inputs table: for one input it repeated page 1's
# input line (path, format, size, events, rank, SHA-256) alone on a second page
pdftotext "$WORK/l-nightly/report.pdf" - | grep -q '^Inputs$' && die "nightly: inputs table repeats page 1"
pdftotext "$WORK/l-nightly/report.pdf" - | grep -q "$(sha256sum "$ROOT/examples/ipu/lwp.jsonl" | cut -c1-64)" ||
    die "nightly: page 1 lost the input's SHA-256"

# 6. a text column with one value in every shown row is said once in the note: the
#    telemetry summary repeated the telemetry file's path in each of its 12 rows (and
#    dropped the Kind column for width)
TEL="$ROOT/tests/data/telemetry/aiu_smi_dmon.txt"
"$TD" report "$WORK/spyre.json" --telemetry "$TEL" -o "$WORK/st" --format pdf 2>/dev/null ||
    die "report spyre + telemetry"
pdftotext -layout "$WORK/st/report.pdf" "$WORK/st.txt" || die "pdftotext"
$PY - "$WORK/st.txt" "$TEL" <<'PY' || exit 1
import sys
txt, tel = open(sys.argv[1]).read(), sys.argv[2]
sec = txt[txt.index("Telemetry summary\n"):txt.index("Telemetry per step\n")]
assert tel not in sec.replace("Same in every row shown: File " + tel, ""), "path repeated in rows"
assert ("Same in every row shown: File " + tel) in " ".join(sec.split()), sec
head = [l for l in sec.splitlines() if "Metric" in l][0]
assert "File" not in head and "Kind" in head, head
PY
exit 0
