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
