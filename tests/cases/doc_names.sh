# Documents fit to attach (issue 13): run names, dates, names kept whole in the PDF,
# share wording, stale outputs swept from a used directory.
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
DLRM="$TRACES/kineto/param_dlrm_8ranks.tar.gz"
NSYS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"

# 1. a multi-file run is titled by its archive, not by a comma list of members
"$TD" report "$DLRM" -o "$WORK/d" --format pdf,json 2>/dev/null || die "report dlrm"
$PY - "$WORK/d" <<'PY' || exit 1
import json, sys, subprocess
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
assert s["inputs_label"] == "param_dlrm_8ranks.tar.gz, 8 ranks", s["inputs_label"]
txt = subprocess.run(["pdftotext", d + "/report.pdf", "-"], capture_output=True, text=True).stdout
assert "Performance report: param_dlrm_8ranks.tar.gz, 8" in txt, txt[:300]
# every input row keeps what tells it apart (the workerN part of the member name)
for n in range(8):
    assert "worker%d_step_12" % n in txt, "input row of worker%d cut" % n
# names copied from the PDF read as in the trace: no split word, no inserted hyphen
assert "u nsigned" not in txt and "un signed" not in txt
flat = txt.replace("\n", "")
for k in s["kernels"][:2]:   # the PDF names kernels by their short names (issue 21)
    n = k.get("short_name") or k["name"]
    assert n in flat, "kernel name not whole in the PDF text: " + n
PY

# several archives given together: named by what their names share
"$TD" summary "$TRACES"/nsys-jax/pax_fsdp4_4proc_proc0.zip "$TRACES"/nsys-jax/pax_fsdp4_4proc_proc1.zip \
    --format json 2>/dev/null | $PY -c '
import json, sys
s = json.load(sys.stdin)
assert s["inputs_label"] == "pax_fsdp4_4proc_proc*.zip, 2 ranks", s["inputs_label"]' || die "label of two archives"

# 2. dates: the current date without SOURCE_DATE_EPOCH, the capture time the trace states
today=$(date -u +%Y-%m-%d)
env -u SOURCE_DATE_EPOCH "$TD" summary "$NSYS" --format json 2>/dev/null > "$WORK/n.json" || die "summary nsys"
# expected capture time: nsys's session start (TARGET_INFO_SESSION_START_TIME) plus the
# first event, computed here with sqlite3
cap=$($PY - "$NSYS" <<'PY'
import sqlite3, sys, datetime
c = sqlite3.connect(sys.argv[1])
base = c.execute("select utcEpochNs from TARGET_INFO_SESSION_START_TIME").fetchone()[0]
t0 = None
for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_MEMCPY",
           "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "OSRT_API", "CUPTI_ACTIVITY_KIND_DRIVER"):
    try:
        v = c.execute("select min(start) from %s" % tb).fetchone()[0]
    except sqlite3.Error:
        continue
    if v is not None and (t0 is None or v < t0):
        t0 = v
t = datetime.datetime.fromtimestamp((base + t0) // 10**9, datetime.timezone.utc)
print(t.strftime("%Y-%m-%dT%H:%M"))
PY
)
$PY - "$WORK/n.json" "$today" "$cap" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
assert s["date"] == sys.argv[2], "date %s, expected today %s" % (s["date"], sys.argv[2])
c = s["trace"]["captured"]
assert c.startswith(sys.argv[3]) and c.endswith("Z"), (c, sys.argv[3])
PY
SOURCE_DATE_EPOCH=86400 "$TD" summary "$NSYS" --format json 2>/dev/null | grep -q '"date": "1970-01-02"' \
    || die "SOURCE_DATE_EPOCH not used"

# 3. shares say what they are of
grep -q 'GPU idle [0-9]*% of the device timeline' "$WORK/n.json" || die "idle share wording"
# (host time in MPI ranges is a share of the traced time, and says "on the host")
grep -Eq '(idle|busy|[Cc]ommunication|[Cc]opies|memcpy)[^"]* of the traced time' "$WORK/n.json" &&
    die "a device-timeline share called 'of the traced time'"

# 4. a used directory keeps no other run's outputs, and nothing it did not write
"$TD" report "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip" -o "$WORK/u" --format svg,json 2>/dev/null || die "report jax"
[ -f "$WORK/u/flame-compile.svg" ] || die "no compile flamegraph for the nsys-jax archive"
echo mine > "$WORK/u/kernels.csv"; echo mine > "$WORK/u/notes.txt"; echo mine > "$WORK/u/my.folded"
"$TD" report "$NSYS" -o "$WORK/u" --format svg,json 2>/dev/null || die "report nsys into used dir"
[ -e "$WORK/u/flame-compile.svg" ] && die "stale flame-compile.svg kept"
[ -e "$WORK/u/flame-device.svg" ] && die "stale flame-device.svg kept"
[ -f "$WORK/u/flame-cpu.svg" ] || die "this run's flamegraph missing"
for f in kernels.csv notes.txt my.folded; do
    [ "$(cat "$WORK/u/$f")" = mine ] || die "a file tracedoc did not write was touched: $f"
done
# a directory from before manifests: the known flamegraph files go, others stay
mkdir -p "$WORK/old" && echo x > "$WORK/old/summary.json" && echo x > "$WORK/old/flame-ops.svg" \
    && echo x > "$WORK/old/flame-mine.svg"
"$TD" report "$NSYS" -o "$WORK/old" --format json 2>/dev/null || die "report into old dir"
[ -e "$WORK/old/flame-ops.svg" ] && die "stale flame-ops.svg kept"
[ -f "$WORK/old/flame-mine.svg" ] || die "removed a file tracedoc does not write"

# 5. manager: a one-page PDF in plain words (no hashes or rules), and a Summary sheet
# that opens with the headline figures and findings and lists every input at the end
"$TD" report "$DLRM" -o "$WORK/m" --template manager 2>/dev/null || die "manager report"
[ "$(pdfinfo "$WORK/m/report.pdf" | awk '/^Pages:/{print $2}')" = 1 ] || die "manager PDF is not one page"
pdftotext "$WORK/m/report.pdf" "$WORK/m.txt"
grep -qi 'sha256\|warm-up: ' "$WORK/m.txt" && die "manager PDF shows hashes or the warm-up rule"
grep -q 'What we found' "$WORK/m.txt" || die "manager PDF lacks the findings"
$PY - "$WORK/m/report.xlsx" <<'PY' || exit 1
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
ws = wb["Summary"]
assert ws.merged_cells.ranges and str(list(ws.merged_cells.ranges)[0]).startswith("A1:"), "title not spread"
labels = [r[0].value for r in ws.iter_rows() if r[0].value]
assert labels.index("Findings") < 15, "findings start at row %d" % labels.index("Findings")
assert labels.index("Findings") < labels.index("Settings and details"), labels
ranks = [v for v in labels if isinstance(v, str) and v.startswith("rank ")]
assert ranks == ["rank %d" % i for i in range(8)], ranks
# microsecond kernels read in microseconds
k = wb["Kernels"]
hdr = [c.value for c in k[1]]
assert "Mean (\u00b5s)" in hdr, hdr
PY
exit 0
