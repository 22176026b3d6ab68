# Tables fit for the input (issue 13): a Kineto "Top modules" table without XLA's program
# and thunk columns and with a note saying why its Total can exceed the traced time
# (it adds every execution of every rank: checked against summary.json's numbers).
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA="$ROOT"
export SOURCE_DATE_EPOCH=1700000000
DLRM="$TRACES/kineto/param_dlrm_8ranks.tar.gz"

# 1. Kineto modules, 8 ranks
"$TD" report "$DLRM" -o "$WORK/d" --format pdf,json 2>/dev/null || die "report dlrm"
pdftotext -layout "$WORK/d/report.pdf" "$WORK/d.txt" || die "pdftotext"
$PY - "$WORK/d" "$WORK/d.txt" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
txt = open(sys.argv[2]).read()
sec = txt[txt.index("Top modules"):]
sec = sec[:sec.index("Top kernels")]
head = sec.splitlines()[1]
for col in ("Thunks", "Program"):
    assert col not in head, "XLA column %s in the Kineto modules table: %s" % (col, head)
for col in ("Module", "Executions", "Mean", "Total", "Share"):
    assert col in head, (col, head)
m = s["modules"]
# the case the note is for: Total (all executions of all ranks) above the traced time
assert sum(x["total_ns"] for x in m) > s["trace"]["span_ns"], (m, s["trace"])
flat = " ".join(sec.split())
for words in ("added over every execution of every rank, so Total can exceed the traced time",
              "Share: of the Total of all modules"):
    assert words in flat, (words, flat)
PY
exit 0
