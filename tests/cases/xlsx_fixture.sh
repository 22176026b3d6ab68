# Workbook from the renderer fixture (tests/unit/fixture.h) with every template and a
# hostile template/summary: openpyxl dump compared with tests/golden/xlsx/*.txt, names written
# as strings, frozen headers and autofilters, charts, number formats and values checked
# against the fixture's own numbers, byte-identical runs (also under another TZ).
. "$ROOT/tests/lib.sh"
W=$(dirname "$TD")/tests/test_render_xlsx
[ -x "$W" ] || die "missing $W"
cd "$ROOT" || exit 1
mkdir -p "$WORK/a" "$WORK/b"
# the writer is the unit test program; its leak report belongs to the unit test run
ASAN_OPTIONS=detect_leaks=0 "$W" --write "$WORK/a" || die "writing the workbooks failed"
sleep 1
ASAN_OPTIONS=detect_leaks=0 TZ=Asia/Kolkata "$W" --write "$WORK/b" || die "second run failed"
for f in "$WORK"/a/*.xlsx; do
    n=$(basename "$f" .xlsx)
    cmp -s "$f" "$WORK/b/$n.xlsx" || die "$n.xlsx differs between two runs"
    $PY "$ROOT/tests/xlsx_dump.py" "$f" --check >"$WORK/$n.txt" || die "$n: dump/check failed"
    golden "xlsx/$n.txt" "$WORK/$n.txt" || exit 1
done
ls "$WORK"/a | grep -v '\.xlsx$' && die "stray files next to the workbooks"

# Independent checks: the fixture's numbers (ns) -> ms, fractions; strings stay strings.
$PY - "$WORK/a" <<'EOF' || exit 1
import sys, zipfile, openpyxl
d = sys.argv[1]
fail = []
def check(cond, msg):
    if not cond:
        fail.append(msg)

wb = openpyxl.load_workbook(d + "/fixture-nightly.xlsx")
names = wb.sheetnames
# template order, absent tables (thunks, hlo_ops, kernels_by_device, regression) skipped
check(names == ["Summary", "GPU timeline", "Steps", "Modules", "Kernels", "Ops",
                "Collectives", "Variability", "Compile", "Inputs"], "sheets %s" % names)
for ws in wb.worksheets[1:]:
    check(ws.freeze_panes == "A2", ws.title + " frozen")
    check(ws.auto_filter.ref and ws.auto_filter.ref.startswith("A1:"), ws.title + " filter")

k = wb["Kernels"]
hdr = [c.value for c in k[1]]
# each time column in one unit (issue 38): the one in which its first rows read 0.1 to
# 999 units, the statistics of one distribution (mean, median, min, max, std) in the
# mean's; the fixture's values (tests/unit/fixture.h) recomputed here: totals of 700 ms
# and down, means of 7 ms and down, so every time column reads ms, and the 1-6 us minima
# read 0.00100-0.00600 ms (five decimals: three significant digits, never 0.001)
cols = {"Total": [700000000 // (k + 1) for k in range(6)],
        "Mean": [7000000 // ((k + 1) ** 2) for k in range(6)],
        "Median": [6900000 // ((k + 1) ** 2) for k in range(6)],
        "Min": [1000 * (k + 1) for k in range(6)], "Max": [9000000] * 6, "Std": [120000] * 6}
want = ["Kernel", "Calls"] + ["%s (ms)" % n for n in cols] + ["Share (%)"]
check(hdr == want, "kernel header %s, expected %s" % (hdr, want))
check(k.max_row == 7, "6 kernels + header")
for r in range(6):                      # fixture: total_ns = 700000000/(k+1), share 0.41/(k+1)
    row = [c for c in k[r + 2]]
    check(abs(row[2].value - 700000000 // (r + 1) / 1e6) < 1e-9, "kernel %d total" % r)
    check(row[2].number_format == "#,##0.000", "ms format")
    check(abs(row[8].value - 0.41 / (r + 1)) < 1e-12 and row[8].number_format == "0.0%", "share")
    check(row[1].value == 100 * (r + 1) and row[1].number_format == "#,##0", "calls")
    check(abs(row[3].value - 7000000 // ((r + 1) ** 2) / 1e6) < 1e-9, "kernel %d mean in ms" % r)
    check(abs(row[5].value - 1000 * (r + 1) / 1e6) < 1e-12, "kernel %d min in ms" % r)
    check(row[5].number_format == "#,##0.00000", "kernel %d min: three significant digits" % r)
hostile = k["A5"]
check(hostile.data_type == "s" and hostile.value.startswith("=cmd|"), "hostile kernel name is text")

o = wb["Ops"]
for ref, want in (("A4", "+SUM(A1:A9)"), ("A5", "@import"), ("A6", "-1+2")):
    check(o[ref].data_type == "s" and o[ref].value == want, "op %s is the string %s" % (ref, want))

c = wb["Collectives"]
hdr = [x.value for x in c[1]]
check(hdr[1] == "Message size (bytes)" and hdr[5] == "Alg BW (GB/s)", "collective header %s" % hdr)
check(c["B6"].value == 268435456 and c["B6"].number_format == "#,##0", "bytes as integers")
check(abs(c["F3"].value - 0.8) < 1e-12 and c["F3"].number_format == "#,##0.00", "GB/s")

st = wb["Steps"]
check(st["F2"].value == "yes" and st["F3"].value == "no", "warm-up flag")
check(st["J2"].value == 900 and st["I2"].value is None and st["I3"].value == 290 + 7,
      "chart data: warm-up step in its own series")
# the chart's helper columns (H:J; the single rank's constant Rank column is left out) are hidden, and the chart still plots them
hid = [k for k, dim in st.column_dimensions.items() if dim.hidden]
check(hid and all(st.column_dimensions[k].min <= 8 and st.column_dimensions[k].max >= 10 for k in hid),
      "chart helper columns hidden: %s" % hid)
check(not st.column_dimensions["A"].hidden and not st.column_dimensions["G"].hidden,
      "table columns stay visible")

s = wb["Summary"]
rows = {r[0].value: r for r in s.iter_rows() if r[0].value}
# one value in the unit the PDF gives it: seconds from 1 s (fixture: 2480 ms)
check(rows["Traced time"][1].value == 2.48 and rows["Traced time"][2].value == "s", "span")
check(rows["Warm-up rule"][1].value.startswith("dropped the first step"), "warm-up rule")
check(rows["Module cut-off"][1].value == 0.01, "module cut-off")
check(rows["Compile time"][1].value == 35.4 and rows["Compile time"][2].value == "s", "compile total")
# breakdown: the gpu_timeline row with device -1 (fixture: d=-1)
# (in seconds: the total, 2480 ms, is over a second)
parts = {"Computation": 1390, "Exposed communication": 300, "Exposed memcpy": 20, "Idle": 770}
check(rows["GPU time breakdown (all devices)"][1].value == "Time (s)", "breakdown unit")
for name, ms in parts.items():
    check(abs(rows[name][1].value - ms / 1e3) < 1e-12 and abs(rows[name][2].value - ms / 2480) < 1e-12, name)
check(any(isinstance(r[1].value, str) and r[1].value.startswith("GPU idle 31%")
          for r in rows.values()), "findings")

z = zipfile.ZipFile(d + "/fixture-nightly.xlsx")
check("xl/charts/chart1.xml" in z.namelist() and "xl/charts/chart2.xml" in z.namelist(),
      "two charts")
pie = z.read("xl/charts/chart1.xml").decode()
check("<c:pieChart>" in pie and "Summary!$B$" in pie, "pie chart reads the Summary cells")
bar = z.read("xl/charts/chart2.xml").decode()
check("<c:barChart>" in bar and bar.count("<c:ser>") == 2 and "Steps!$J$2" in bar,
      "steps chart with a warm-up series")
check("<c:plotVisOnly val=\"1\"/>" not in bar, "steps chart plots the hidden helper columns")
# Summary order: headline figures, then findings, then settings and every input
order = [r[0].value for r in s.iter_rows() if r[0].value]
check(order.index("Findings") < order.index("Settings and details") and
      order.index("Traced time") < order.index("Findings") and
      order.index("Warm-up rule") > order.index("Findings"), "summary order %s" % order)
ins = [v for v in order if isinstance(v, str) and v.startswith("rank ")]
check(ins == ["rank 0", "rank 1"], "every input listed: %s" % ins)
for n in z.namelist():
    check(z.getinfo(n).date_time == (1980, 1, 1, 0, 0, 0), "fixed zip time " + n)
check(wb.properties.created.isoformat() == "2023-11-14T22:13:20", "created from the epoch")

# XLA set without gpu_timeline: the device-time breakdown from the runtime.* scalars
# (busy = modules - idle inside), shares of their sum = the wall time, and the pie
x = openpyxl.load_workbook(d + "/xla-manager.xlsx")
xr = {r[0].value: r for r in x["Summary"].iter_rows() if r[0].value}
check("Device time breakdown (XLA)" in xr, "XLA breakdown heading")
wall = 1400
check(xr["Device time breakdown (XLA)"][1].value == "Time (s)", "XLA breakdown unit")
for name, ms in (("Busy in modules (thunk intervals merged)", 1000 - 100),
                 ("Idle inside modules", 100), ("Idle between modules", 400)):
    check(name in xr and abs(xr[name][1].value - ms / 1e3) < 1e-12 and
          abs(xr[name][2].value - ms / wall) < 1e-12, "XLA " + name)
xz = zipfile.ZipFile(d + "/xla-manager.xlsx")
xpie = xz.read("xl/charts/chart1.xml").decode()
check("<c:pieChart>" in xpie and "Device time breakdown (XLA)" in xpie, "XLA pie chart")

h = openpyxl.load_workbook(d + "/hostile.xlsx")
# no "Regression against the baseline" sheet: the tolerance table is gone (issue 21)
check(h.sheetnames == ["Sum_mary__1___", "Kernels",
                       "kernels (2)", "A very long sheet title that is",
                       "A very long sheet title tha (2)", "History (2)", "Step's times",
                       "GPU timeline"], "hostile sheet names %s" % h.sheetnames)
hn = h["History (2)"]
vals = [hn.cell(row=r, column=1).value for r in range(2, 13)]
check(vals[:4] == ["=1+1", "+A1", "-2", "@SUM(A1)"], "formula-like names %s" % vals[:4])
check(all(hn.cell(row=r, column=1).data_type == "s" for r in range(2, 6)), "string cells")
check(vals[4] == "ctl\ufffd\ufffd\ufffd\ufffd end", "control characters replaced")
check(vals[6] is None, "empty name is a blank cell")
check(vals[7] == "_x0041_ literal", "literal _x0041_ kept")
check(vals[8] == "\u20ac euro, \U0001f525 fire", "UTF-8 kept")
check(len(vals[9]) <= 32767 and vals[9].endswith("[truncated by tracedoc: 40000 characters in all]"),
      "long name truncated with a note")
check(hn["C6"].value is None and hn["D7"].value is None and hn["E8"].value is None and
      hn["B5"].value is None, "missing, NaN and infinite values are blank")
check(h["Step's times"].max_row == 4, "top=3 limits the rows")
links = {c.value: c.hyperlink.location for c in h.worksheets[0]["A"] if c.hyperlink is not None}
check(links.get("Step's times") == "'Step''s times'!A1" and
      links.get("History (2)") == "'History (2)'!A1" and len(links) == 7,
      "contents links %s" % links)
for ws in h.worksheets:
    for row in ws.iter_rows():
        for cell in row:
            check(cell.data_type != "f", "no formula: %s!%s" % (ws.title, cell.coordinate))
if fail:
    print("\n".join(fail))
    sys.exit(1)
EOF
exit 0
