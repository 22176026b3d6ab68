# The PDF renderer's libraries (cairo, pango, fontconfig, glib) are loaded when a PDF is
# first drawn (src/render/pdf/gfx.c), not linked: a run that writes no PDF never maps
# them, and one whose library cannot be loaded fails a PDF run with exit 4, naming the
# library and its Debian package, and writes nothing, while runs without a PDF still work.
. "$ROOT/tests/lib.sh"
EX=$ROOT/examples/hta_nccl_data.json.gz
export TRACEDOC_DATA="$ROOT"

# 1. not among the shared objects the binary needs
need=$(readelf -d "$TD" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
[ -n "$need" ] || die "readelf -d lists no shared library"
bad=$(echo "$need" | grep -E 'cairo|pango|fontconfig|glib|gobject|freetype|harfbuzz') &&
    die "linked against the graphics libraries: $bad"

# 2. loaded for a PDF only (the dynamic linker's own trace of the files it opens)
LD_DEBUG=files "$TD" report "$EX" --format json,svg,xlsx,csv -o "$WORK/nopdf" 2>"$WORK/nopdf.log" >/dev/null ||
    { tail -5 "$WORK/nopdf.log"; die "report without a PDF"; }
grep -q 'file=libcairo.so.2 ' "$WORK/nopdf.log" && die "libcairo loaded by a run that writes no PDF"
LD_DEBUG=files "$TD" report "$EX" --format pdf -o "$WORK/pdf" 2>"$WORK/pdf.log" >/dev/null ||
    { tail -5 "$WORK/pdf.log"; die "report with a PDF"; }
grep -q 'file=libcairo.so.2 ' "$WORK/pdf.log" || die "libcairo not loaded for the PDF (LD_DEBUG shows no dlopen)"
[ -s "$WORK/pdf/report.pdf" ] || die "no report.pdf"

# 3. a library that cannot be loaded: an empty file bound over it in a mount namespace
lib=$(ldconfig -p | awk '$1 == "libpangoft2-1.0.so.0" { print $NF; exit }')
[ -n "$lib" ] || die "ldconfig does not know libpangoft2-1.0.so.0"
if ! unshare -m true 2>/dev/null; then
    echo "unshare -m not permitted here (not root?): the missing-library part is not run"
    exit 0
fi
before=$(cd "$WORK/pdf" && ls -l --time-style=+%s.%N && md5sum ./*)
unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
    "$TD" report "$EX" --format pdf,json -o "$WORK/pdf" >/dev/null 2>"$WORK/err"
rc=$?
[ $rc = 4 ] || { cat "$WORK/err"; die "missing library: exit $rc, expected 4"; }
grep -q "report.pdf: cannot write a PDF: the graphics library libpango.* (Debian package libpango.*) cannot be loaded" "$WORK/err" ||
    { cat "$WORK/err"; die "missing library: message"; }
[ "$(cd "$WORK/pdf" && ls -l --time-style=+%s.%N && md5sum ./*)" = "$before" ] ||
    die "missing library: the output directory of the earlier run changed"
[ ! -e "$WORK/pdf/summary.json" ] || die "missing library: summary.json written"
unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$lib" \
    "$TD" report "$EX" --format json,svg,xlsx -o "$WORK/j" >/dev/null 2>"$WORK/err2" ||
    { cat "$WORK/err2"; die "missing library: a run without a PDF failed"; }
[ -s "$WORK/j/summary.json" ] && [ -s "$WORK/j/report.xlsx" ] || die "missing library: outputs without a PDF missing"
exit 0
