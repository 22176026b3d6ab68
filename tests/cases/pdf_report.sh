# PDF from real traces through `tracedoc report`: valid (qpdf), fonts embedded, the top
# kernel of summary.json with its formatted total in the text, byte-identical reruns,
# --paper letter, no partial file when the output cannot be written.
. "$ROOT/tests/lib.sh"
need_traces
command -v qpdf >/dev/null && command -v pdftotext >/dev/null || { echo "no qpdf/poppler"; exit 77; }
tr=$TRACES/kineto/hta_mi250_minitoy.json.gz
[ -f "$tr" ] || { echo "missing $tr"; exit 77; }
export TRACEDOC_DATA=$ROOT
# options before the trace: cli/main.c stops option parsing at the first file
if ! "$TD" report -o "$WORK/o" --format pdf,json "$tr" 2>"$WORK/err"; then
    if grep -q 'not implemented' "$WORK/err"; then
        echo "reader or analysis not implemented yet: $(head -1 "$WORK/err")"
        exit 77
    fi
    cat "$WORK/err"
    die "report failed"
fi
pdf=$WORK/o/report.pdf
[ -f "$pdf" ] || die "no report.pdf"
ls "$WORK/o" | grep -q '\.tmp\.' && die "temporary file left"
qpdf --check "$pdf" >"$WORK/q" 2>&1 || { cat "$WORK/q"; die "qpdf --check"; }
pdffonts "$pdf" | tail -n +3 | awk '
    { n++; if ($(NF-4) != "yes" || $1 !~ /\+DejaVuSans(-Bold|Mono)?$/) { print; bad = 1 } }
    END { exit bad || !n }' || die "fonts not embedded or not ours"
pdftotext "$pdf" "$WORK/t.txt" || die pdftotext
# the top kernel and its total as the contract's units give them (td_fmt_ns rules)
$PY - "$WORK/o/summary.json" "$WORK/t.txt" <<'EOF' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
def fmt_ns(ns):
    a = abs(ns)
    if a >= 1e9: return "%.3f s" % (ns / 1e9)
    if a >= 1e6: return "%.3f ms" % (ns / 1e6)
    if a >= 1e3: return "%.3f \u00b5s" % (ns / 1e3)
    return "%d ns" % ns
bad = []
k = s.get("kernels") or []
if k:
    # tables show a kernel's short name (issue 21), the full name is in the workbook
    name = " ".join((k[0].get("short_name") or k[0]["name"]).split())
    # long names are ellipsized in the middle: their first characters stay
    if name[:18] not in text:
        bad.append("top kernel name " + name[:18])
    if fmt_ns(k[0]["total_ns"]) not in text:
        bad.append("top kernel total " + fmt_ns(k[0]["total_ns"]))
span = (s.get("trace") or {}).get("span_ns")
if span is not None and fmt_ns(span) not in text:
    bad.append("traced time " + fmt_ns(span))
for f in s.get("findings", [])[:3]:
    if " ".join(f.split()) not in " ".join(text.split()):
        bad.append("finding: " + f)
if bad:
    print("missing from the PDF text:", bad)
    sys.exit(1)
EOF
"$TD" report -o "$WORK/o2" --format pdf "$tr" 2>/dev/null || die "second run"
cmp "$pdf" "$WORK/o2/report.pdf" || die "two runs differ"
"$TD" report -o "$WORK/o3" --format pdf --paper letter "$tr" 2>/dev/null || die "letter run"
pdfinfo "$WORK/o3/report.pdf" | grep -q '^Page size: *612 x 792 pts (letter)' || die "letter"
pdfinfo "$pdf" | grep -q '^Page size: *595.276 x 841.89 pts (A4)' || die "a4"
# an output directory that cannot be written: error, no report.pdf, no temporary file
mkdir -p "$WORK/ro" && chmod 555 "$WORK/ro"
if [ "$(id -u)" != 0 ]; then
    "$TD" report -o "$WORK/ro" --format pdf "$tr" 2>/dev/null && die "wrote into read-only dir"
    [ -z "$(ls -A "$WORK/ro")" ] || die "partial output left"
fi
exit 0
