# PDF names wrapped where a reader splits them (issue 13): in the flamegraph's tall frames
# and in table name columns a long C++ kernel name breaks after "::", "_", ",", spaces...
# and never inside a word that fits a line; a name too long for its three table lines keeps
# its head and its end around a "..." (never cut off at the end of the third line, as a
# 512-byte buffer once did); and a one-kernel trace gets a sentence, not a Variability
# chart or a one-row table that repeats the kernels table.
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
export SOURCE_DATE_EPOCH=1700000000
DLRM="$TRACES/kineto/param_dlrm_8ranks.tar.gz"
NSYS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"

# 1. DLRM (8 ranks, C++ template kernel names of up to ~600 bytes); three record_function
#    ranges as modules. Its device-by-module flamegraph (three bands) is left out of the
#    PDF (issue 21): the frames' labels are checked on the CPU-only trace's CPU
#    flamegraph below (part 4)
"$TD" report "$DLRM" -o "$WORK/d" --format pdf,json \
    --module-pattern '^## (backward|sparse_data_dist|copy_batch_to_gpu) ##$' 2>/dev/null || die "report dlrm"
pdftotext -layout "$WORK/d/report.pdf" "$WORK/d.txt" || die "pdftotext"
$PY - "$WORK/d/summary.json" "$WORK/d.txt" <<'PY' || exit 1
import json, re, sys
s = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
WORD = re.compile(r"[A-Za-z0-9]+\u2026?")
names = [k["name"] for k in s["kernels"]] + [m["name"] for m in s["modules"]]
words = set()
for n in names:
    words.update(WORD.findall(n))

def fragments(text, extra=()):
    """alphanumeric runs that are not a whole word of any name: a word split over two
    lines shows up as two fragments (an ellipsized end "unsi..." is allowed)"""
    bad = []
    for w in WORD.findall(text):
        if w.endswith("\u2026") or w in words or w.isdigit() or w in extra:
            continue
        bad.append(w)
    return bad

# the Variability table (15 rows, names of 100-600 bytes over up to three lines): no word
# split, and every name keeps its end (the last 12 characters of the name as in the trace)
var = txt[txt.index("\nVariability") + 1:]
var = var[:var.index("Top 15 of")]
var = "\n".join(l for l in var.splitlines()[1:]
                if "Performance report:" not in l and "tracedoc 0" not in l)  # page head/foot
bad = fragments(var, {"Kernel", "Calls", "Mean", "Std", "dev", "CoV", "ms", "us", "ns",
                      "Coefficient", "of", "variation", "std", "mean", "duration", "log", "scale",
                      "s"})  # "s" of "\u00b5s"
assert not bad, "words split in the Variability table: %s" % bad
nows = re.sub(r"\s+", "", var)
# the title keeps "8 ranks" together (it read "..., 8" / "ranks")
head = [l.strip() for l in txt.splitlines()[:6]]
assert "8 ranks" in " ".join(head) and not any(l.endswith(", 8") for l in head), head
for row in s["variability"][:15]:
    # tables show the short name (issue 21)
    tail = re.sub(r"\s+", "", row.get("short_name") or row["name"])[-12:]
    assert tail in nows, "name cut at the end of its lines: %r (end %r)" % (row["name"][:80], tail)
PY

# 2. nsys saxpy: one kernel (checked in the SQLite export) -> no variability section
"$TD" report "$NSYS" -o "$WORK/n" --format pdf 2>/dev/null || die "report nsys"
pdftotext "$WORK/n/report.pdf" "$WORK/n.txt" || die "pdftotext"
$PY - "$NSYS" "$WORK/n.txt" <<'PY' || exit 1
import re, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
durs = [e - b for b, e in db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL")]
names = {r[0] for r in db.execute("SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL")}
assert len(names) == 1 and len(durs) == 5, (names, len(durs))
cov = statistics.stdev(durs) / statistics.mean(durs)
txt = open(sys.argv[2]).read()
flat = " ".join(txt.split())
# issue 21: a variability section of one kernel says nothing: left out, sentence and all
assert "Variability" not in flat and "too few to compare" not in flat, flat[:300]
# no chart (its axis title) and no table header
assert "Coefficient of variation (std / mean)" not in flat and "CoV" not in flat
PY

# 3. the nightly template's Inputs table: 8 member paths of ~110 bytes in a narrow column;
#    a path too long for three lines is cut in the middle, but never through the part
#    that tells the ranks apart ("worker0_step..."): once it read "dlrm_k...er0_step"
"$TD" report "$(cd "$(dirname "$DLRM")" && pwd)/$(basename "$DLRM")" --template nightly \
    -o "$WORK/dn" --format pdf 2>/dev/null || die "nightly dlrm"
pdftotext -layout "$WORK/dn/report.pdf" "$WORK/dn.txt" || die "pdftotext"
$PY - "$WORK/dn.txt" <<'PY' || exit 1
import re, sys
txt = open(sys.argv[1]).read()
sec = txt[txt.rindex("\nInputs\n"):]
for n in range(8):
    assert "worker%d_" % n in sec, ("rank %d's path" % n, sec[:1500])
PY

# 4. flamegraph frame labels: the CPU-only trace's call stacks (autograd::engine::
#    evaluate_function: AddmmBackward0 ...) break at "::" and spaces, never inside a word
#    that fits a line: every word of the labels is a whole word of a frame name (cpu.folded)
CPU="$TRACES/torch-cpu/torch_transformer_cpu_5steps.json"
"$TD" report "$CPU" -o "$WORK/c" --format pdf,folded 2>/dev/null || die "report cpu"
pdftotext -layout "$WORK/c/report.pdf" "$WORK/c.txt" || die "pdftotext"
$PY - "$WORK/c/cpu.folded" "$WORK/c.txt" <<'PY' || exit 1
import re, sys
WORD = re.compile(r"[A-Za-z0-9]+\u2026?")
words = set()
for l in open(sys.argv[1]):
    for fr in l.rsplit(" ", 1)[0].split(";"):
        words.update(WORD.findall(fr))
txt = open(sys.argv[2]).read()
fl = txt[txt.index("Flamegraph: CPU call stacks"):]
fl = fl[:fl.index("Width is")].split("\n", 1)[1]
bad = [w for w in WORD.findall(fl) if not (w.endswith("\u2026") or w in words or w.isdigit()
                                           or w in ("all", "s", "ms"))]
assert not bad, "words split in the flamegraph labels: %s\n%s" % (bad, fl)
assert "AddmmBackward0" in fl.split(), fl
PY
