# PDF summary of the renderer fixture (tests/unit/fixture.h) with every template:
# valid PDF (qpdf), only the project's fonts and all embedded (pdffonts), values and
# hostile names as literal text (pdftotext), page counts and text golden, byte-identical
# reruns, letter paper.
. "$ROOT/tests/lib.sh"
bin=$(dirname "$TD")/tests/test_render_pdf
[ -x "$bin" ] || die "missing $bin"
command -v qpdf >/dev/null && command -v pdftotext >/dev/null || { echo "no qpdf/poppler"; exit 77; }
cd "$ROOT" || exit 1
mkdir -p "$WORK/a" "$WORK/b"
"$bin" --write "$WORK/a" || die "render failed"
"$bin" --write "$WORK/b" || die "second render failed"
docs="bug-report manager nightly nightly-letter empty long orphan xla hostile"
: >"$WORK/pages.txt"
for f in $docs; do
    p=$WORK/a/$f.pdf
    qpdf --check "$p" >"$WORK/qpdf.txt" 2>&1 || { cat "$WORK/qpdf.txt"; die "qpdf --check $f"; }
    grep -q "No syntax or stream encoding errors found" "$WORK/qpdf.txt" || die "qpdf $f"
    # name type... emb sub uni object ID: every font embedded, a subset of our DejaVu
    pdffonts "$p" | tail -n +3 | awk -v f="$f" '
        { n++
          if ($(NF-4) != "yes") { print f ": not embedded: " $1; bad = 1 }
          if ($1 !~ /^[A-Z][A-Z][A-Z][A-Z][A-Z][A-Z]\+DejaVuSans(-Bold|Mono)?$/) {
              print f ": unexpected font " $1; bad = 1 } }
        END { if (!n) { print f ": no fonts"; bad = 1 }; exit bad }' || exit 1
    cmp -s "$p" "$WORK/b/$f.pdf" || die "$f.pdf differs between two runs"
    echo "$f $(pdfinfo "$p" | sed -n 's/^Pages: *//p') $(pdfinfo "$p" | sed -n 's/^Page size: *//p')" >>"$WORK/pages.txt"
done
golden pdf/pages.txt "$WORK/pages.txt" || exit 1

# paper sizes from the MediaBox
pdfinfo "$WORK/a/nightly.pdf" | grep -q '^Page size: *595.276 x 841.89 pts (A4)' || die "A4"
pdfinfo "$WORK/a/nightly-letter.pdf" | grep -q '^Page size: *612 x 792 pts (letter)' || die "letter"
qpdf --show-pages "$WORK/a/nightly-letter.pdf" >/dev/null || die "qpdf pages"
# metadata: creator, fixed creation date (epoch 1700000000 = 2023-11-14 22:13:20 UTC)
pdfinfo "$WORK/a/nightly.pdf" >"$WORK/info.txt"
grep -q '^Creator: *tracedoc 0.1.0$' "$WORK/info.txt" || die "creator"
grep -q '^CreationDate: *Tue Nov 14 22:13:20 2023 UTC$' "$WORK/info.txt" || die "date"
grep -q '^Title: *Nightly performance: resnet50_rank0.json.gz, resnet50_rank1.json.gz$' \
    "$WORK/info.txt" || die "title"

# text: values formatted from the fixture's raw numbers (python, not tracedoc)
pdftotext "$WORK/a/nightly.pdf" "$WORK/nightly.txt" || die pdftotext
pdftotext -layout "$WORK/a/bug-report.pdf" "$WORK/bug.txt" || die pdftotext
$PY - "$WORK/nightly.txt" "$WORK/bug.txt" <<'EOF' || exit 1
import sys
night = open(sys.argv[1], encoding="utf-8").read()
bug = open(sys.argv[2], encoding="utf-8").read()
def ms(ns): return "%.3f ms" % (ns / 1e6)
def s(ns): return "%.3f s" % (ns / 1e9)
want = [
    "volta_sgemm_128x64_nn", ms(700000000), ms(700000000 / 2),   # top kernels' totals
    "41.0%",                                                    # kernel share 0.41
    "pjit__wrapped_step_fn", ms(381636000), "88.0%",            # top module
    s(2480000000), s(35400000000),                              # traced time, compile
    "XlaAutotunerMeasurement", s(20000000000),                  # compile phase
    "GPU idle 31% of the traced time, most of it between steps.",
    "truncated at byte 1159569",                                # warning
    # hostile name, literally (the variability table has room for all of it)
    "=cmd|' /C calc'!A0 <script>alert(\"x\")</script> & ]]>",
    "+SUM(A1:A9)", "@import", "-1+2",
    "page 1 of 4", "page 4 of 4",
]
bad = [w for w in want if w not in night]
for w in ["Top kernels", "volta_sgemm_128x64_nn", ms(700000000), "Findings"]:
    if w not in bug:
        bad.append("bug-report: " + w)
if bad:
    print("missing from the PDF text:", bad)
    sys.exit(1)
EOF
golden pdf/nightly.txt "$WORK/nightly.txt" || exit 1
# the empty summary renders only the header (no empty headings)
pdftotext "$WORK/a/empty.pdf" - | grep -Eq 'Findings|Key figures|Kernels|Warnings' && die "empty headings"
# the fixture's tolerance-only table (regression.metrics, no changes, no verdict) is not
# shown: the changes are the one judgement (issue 21)
pdftotext -layout "$WORK/a/long.pdf" "$WORK/long.txt"
grep -qF "Regression against the baseline" "$WORK/long.txt" && die "tolerance table shown"
# hostile names, title and invalid UTF-8: literal text, in the metadata too
pdfinfo "$WORK/a/hostile.pdf" | grep -qF 'Title:           Evil ) \ ( <b>x</b> =cmd|'"'"' /C calc'"'"'!A0 <script>alert("x")</script> & ]]>' || die "hostile title"
pdftotext "$WORK/a/hostile.pdf" - | grep -qF '<script>alert("x")</script> & ]]>' || die "hostile text"
pdftotext "$WORK/a/hostile.pdf" - | grep -qF '{{no.such.key}}' || die "unknown placeholder kept"
# a right-to-left override cannot reorder a name: it is shown as U+FFFD
pdftotext "$WORK/a/hostile.pdf" - | grep -qF "rtl$(printf '\357\277\275')txt.exe" || die "bidi override"
# fonts come only from fonts/ (never the system's, which has DejaVu Sans too): with only
# the mono font there, every font in the PDF is the mono one
mkdir -p "$WORK/mono/fonts" "$WORK/mono/out"
cp "$ROOT/fonts/DejaVuSansMono.ttf" "$WORK/mono/fonts/"
ln -s "$ROOT/templates" "$WORK/mono/templates"
(cd "$WORK/mono" && "$bin" --write "$WORK/mono/out") || die "mono render"
pdffonts "$WORK/mono/out/manager.pdf" | tail -n +3 | awk '
    { n++; if ($1 !~ /\+DejaVuSansMono$/) { print "system font used: " $1; bad = 1 } }
    END { exit bad || !n }' || exit 1
# and no fonts at all is an error naming the directory, with no file left
mkdir -p "$WORK/nofonts/fonts" "$WORK/nofonts/out"
ln -s "$ROOT/templates" "$WORK/nofonts/templates"
(cd "$WORK/nofonts" && "$bin" --write "$WORK/nofonts/out" 2>"$WORK/nofonts/err") && die "rendered without fonts"
grep -q 'fonts: no usable fonts' "$WORK/nofonts/err" || { cat "$WORK/nofonts/err"; die "no-fonts message"; }
[ -z "$(ls -A "$WORK/nofonts/out")" ] || die "partial output without fonts"
# threshold=0.15 keeps the kernels whose share is at least 15% (0.41, 0.205 of 156)
grep -A1 '^Kernels above 15%' "$WORK/long.txt" >/dev/null || die "threshold title"
grep -q 'Top 2 of 156 rows' "$WORK/long.txt" || die "threshold rows"
# a table's note stays with its last rows: no page starts with a note (tables of 54..62
# rows, each from the top of a page, one of which fills its page exactly)
n=$(pdfinfo "$WORK/a/orphan.pdf" | sed -n 's/^Pages: *//p')
for p in $(seq 1 "$n"); do
    first=$(pdftotext -layout -f "$p" -l "$p" "$WORK/a/orphan.pdf" - | grep -v '^ *$' | sed -n 2p)
    case "$first" in
    *"Top "*" rows."*|*"Not shown for width"*|*"The workbook has every"*) die "page $p starts with a note: $first" ;;
    esac
done
for k in 54 55 56 57 58 59 60 61 62; do
    pdftotext "$WORK/a/orphan.pdf" - | grep -q "^Top $k of 156 rows" || die "orphan: no note for top=$k"
done
# XLA set without gpu_timeline: the device-time bar from the runtime.* scalars, shares
# computed here from the raw numbers; the long title ellipsized on two lines
pdftotext "$WORK/a/xla.pdf" "$WORK/xla.txt" || die pdftotext
pdftotext -bbox -f 1 -l 1 "$WORK/a/xla.pdf" "$WORK/xla.html" || die pdftotext
$PY - "$WORK/xla.txt" "$WORK/xla.html" <<'EOF' || exit 1
import re, sys
text = " ".join(open(sys.argv[1], encoding="utf-8").read().split())
busy, inside, between = 1000e6 - 100e6, 100e6, 400e6
tot = busy + inside + between
assert tot == 1400e6                                    # = runtime.wall_ns of the fixture
bad = []
for label, v in (("Busy in modules", busy), ("Idle inside modules", inside),
                 ("Idle between modules", between)):
    w = "%s %.3f ms (%.1f%%)" % (label, v / 1e6, 100 * v / tot)
    if w not in text:
        bad.append(w)
# six inputs: one line each with the SHA-256 (as the fixture makes them), then the shared
# facts: sizes and events summed
for k in range(6):
    sha = "".join("0123456789abcdef"[(k * 7 + j * 3) % 16] for j in range(64))
    if sha not in text or "rank %d" % k not in text:
        bad.append("input %d" % k)
size = sum(1000000 + k for k in range(6)) / 1024 / 1024
events = sum(40000 + k for k in range(6))
for w in ("6 inputs, all nsys-jax %.2f MiB in all %d events world size 8 NVIDIA A100-SXM4-40GB"
          % (size, events),):
    if w not in text:
        bad.append(w)
for w in ("Device time breakdown (XLA)", "summed over 2 devices: 1.400 s",
          "Thunk time added up without merging: 1.100 s", "overlaps counted twice"):
    if w not in text:
        bad.append(w)
# title: 17 pt bold words (taller than anything else on the page) on two lines, inside
# the right margin (the names would take five lines; cairo maps the ellipsis to the text
# it stands for, so the extracted text is whole)
words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                   open(sys.argv[2], encoding="utf-8").read())
title = [(float(y0), t) for x0, y0, x1, y1, t in words if float(y1) - float(y0) > 17]
lines = sorted(set(round(y) for y, t in title))
if len(lines) != 2:
    bad.append("title on %d lines" % len(lines))
if any(float(x1) > 595.2756 - 50 + 0.5 for x0, y0, x1, y1, t in words if float(y1) - float(y0) > 17):
    bad.append("title beyond the margin")
if bad:
    print("xla.pdf:", bad)
    sys.exit(1)
EOF
# long table: header row repeated on every page of the table
[ "$(pdftotext "$WORK/a/long.pdf" - | grep -c '^Kernel$')" -ge 3 ] || die "table header not repeated"
exit 0
