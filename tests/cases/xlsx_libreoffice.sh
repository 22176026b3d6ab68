# LibreOffice round trip: the fixture workbooks (every template, and the hostile one)
# open headless without repair and every sheet converts to CSV holding the names and
# numbers. Skips only when soffice is not installed. One soffice converts every workbook
# (its start is most of the time). On the ASan/UBSan and portable builds the workbooks are
# written by that build and required byte-identical to the release build's, whose run of
# this case opens them in LibreOffice (tests/lib.sh looks_elsewhere).
. "$ROOT/tests/lib.sh"
command -v soffice >/dev/null || { echo "soffice not installed (libreoffice-calc-nogui)"; exit 77; }
W=$(dirname "$TD")/tests/test_render_xlsx
[ -x "$W" ] || die "missing $W"
cd "$ROOT" || exit 1
mkdir -p "$WORK/x" "$WORK/csv"
ASAN_OPTIONS=detect_leaks=0 "$W" --write "$WORK/x" || die "writing the workbooks failed"
if looks_elsewhere; then
    mkdir -p "$WORK/rel"
    "$TD_RELEASE/tests/test_render_xlsx" --write "$WORK/rel" >/dev/null || die "the release build's writer failed"
    for f in "$WORK"/x/*.xlsx; do same_as_release "$f" "$WORK/rel/$(basename "$f")" || exit 1; done
    echo "the workbooks are the release build's, byte for byte: LibreOffice opens them in its run"
    exit 0
fi
profile="file://$WORK/lo-profile"
# filter options: comma, '"', UTF-8, from line 1, default cell formats, language,
# quoted fields as text, detect numbers, formatted values, ..., -1 = every sheet
opts='csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1'
# the CSVs are named WORKBOOK-SHEET.csv
timeout -k 10 240 soffice -env:UserInstallation="$profile" --headless --norestore \
    --convert-to "$opts" --outdir "$WORK/csv" "$WORK"/x/*.xlsx >"$WORK/lo.log" 2>&1 ||
    { cat "$WORK/lo.log"; die "soffice failed"; }
grep -qi "repair\|corrupt\|error" "$WORK/lo.log" && { cat "$WORK/lo.log"; die "soffice complained"; }
for f in "$WORK"/x/*.xlsx; do
    n=$(basename "$f" .xlsx)
    grep -q "$n\.xlsx" "$WORK/lo.log" || { cat "$WORK/lo.log"; die "$n: not converted"; }
done
$PY - "$WORK/x" "$WORK/csv" <<'EOF' || exit 1
import csv, os, sys, openpyxl
xdir, cdir = sys.argv[1], sys.argv[2]
fail = []
for fn in sorted(os.listdir(xdir)):
    n = fn[:-5]
    wb = openpyxl.load_workbook(os.path.join(xdir, fn))
    for ws in wb.worksheets:
        p = os.path.join(cdir, "%s-%s.csv" % (n, ws.title))
        if not os.path.exists(p):
            fail.append("%s: no CSV for sheet %r" % (n, ws.title))
            continue
        with open(p, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        # every string cell of the workbook appears as the same text in LibreOffice's CSV
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "s" or c.value is None:
                    continue
                r, k = c.row - 1, c.column - 1
                got = rows[r][k] if r < len(rows) and k < len(rows[r]) else None
                if got != c.value:
                    fail.append("%s %s!%s: openpyxl %r, LibreOffice %r" % (
                        n, ws.title, c.coordinate, c.value[:80], (got or "")[:80]))
# formatted numbers: ms with 3 decimals, shares in %, bytes with separators
with open(os.path.join(cdir, "fixture-nightly-Kernels.csv"), encoding="utf-8") as f:
    k = list(csv.reader(f))
if k[2][:3] != ["ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "200", "350.000"] or k[1][8] != "41.0%":
    fail.append("kernels as LibreOffice shows them: %r %r" % (k[1], k[2]))
with open(os.path.join(cdir, "fixture-nightly-Collectives.csv"), encoding="utf-8") as f:
    c = list(csv.reader(f))
if c[5][1] != "268,435,456":
    fail.append("bytes as LibreOffice shows them: %r" % c[5])
if fail:
    print("\n".join(fail[:40]))
    sys.exit(1)
EOF
exit 0
