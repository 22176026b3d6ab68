# Issue 38 (section 4, "Workbook columns"): a time column reads in the unit of the rows a
# reader looks at, not the unit one small value further down forces (MTIA's kernels read
# "Total (µs) 352,569.592", the nsys-jax step function "Mean (µs) 127,212.003"); the
# statistics of one distribution side by side share a unit (the A100 PDF read a kernel's
# Mean "2.379 ms" beside its Median "452.500 µs"); category values read as words
# ("CPU-bound", "collective send"), never as keys ("cpu_bound", "collective_send").
# Expected values: each cell times its header's unit equals the summary.json figure in
# ns (the analysis's, not the renderer's), and a cell a reader reads first has at most
# five integer digits.
. "$ROOT/tests/lib.sh"
need_traces
run() { # NAME TRACE FORMATS
    "$TD" report "$2" -o "$WORK/$1" --format "$3" >/dev/null 2>"$WORK/$1.err" ||
        die "report $1 failed: $(cat "$WORK/$1.err")"
}
run mtia "$TRACES/kineto/hta_mtia_inference_rank0.json.gz" xlsx,json
run a100 "$TRACES/kineto/hta_a100_ws16_rank0.json.gz" xlsx,json,pdf
run jax "$TRACES/nsys-jax/pax_fsdp4_4proc_proc0.zip" xlsx,json
run aiu "$TRACES/aiu/allreduce_tp4.json" xlsx,pdf
checked $PY - "$WORK/mtia" "$WORK/a100" "$WORK/jax" "$WORK/aiu" <<'PYEOF' || exit 1
import json, re, sys
import openpyxl
UNIT = {"s": 1e9, "ms": 1e6, "\u00b5s": 1e3, "ns": 1.0}
bad = []

books = {}
def sheet(d, name):
    if d not in books:
        books[d] = openpyxl.load_workbook(d + "/report.xlsx", read_only=True)
    return books[d][name]

def col(ws, title):
    for c in ws[1]:
        m = re.fullmatch(r"(.*) \((s|ms|\u00b5s|ns)\)", str(c.value or ""))
        if m and m.group(1) == title:
            return c.column, UNIT[m.group(2)]
    raise SystemExit("no time column %r in %s: %s" % (title, ws.title, [c.value for c in ws[1]]))

def check_top(d, sheetname, table, title, key, rows=3):
    ws = sheet(d, sheetname)
    c, u = col(ws, title)
    s = json.load(open(d + "/summary.json"))[table]
    for r in range(rows):
        v = ws.cell(row=2 + r, column=c).value
        ns = s[r][key]
        if v is None or ns is None:
            continue
        if abs(v * u - ns) > 1:
            bad.append("%s %s row %d: %r %s is not %d ns" % (sheetname, title, r + 1, v, u, ns))
        if abs(v) >= 100000:
            bad.append("%s %s row %d reads %r: six digits where a larger unit reads %g"
                       % (sheetname, title, r + 1, v, ns / (u * 1000)))

mtia, a100, jax, aiu = sys.argv[1:5]
check_top(mtia, "Kernels", "kernels", "Total", "total_ns")
check_top(mtia, "Kernels", "kernels", "Mean", "mean_ns")
check_top(jax, "Modules", "modules", "Mean", "mean_ns")
check_top(jax, "Modules", "modules", "Total", "total_ns")
check_top(a100, "Ops", "ops", "CPU avg", "avg_ns")
# the statistics of one distribution share one unit
for d in (mtia, a100):
    ws = sheet(d, "Kernels")
    units = {re.sub(r".*\((.*)\)", r"\1", str(c.value)) for c in ws[1]
             if re.match(r"(Mean|Median|Min|Max|Std dev) \(", str(c.value or ""))}
    if len(units) != 1:
        bad.append("%s Kernels: statistics in %s" % (d, sorted(units)))
# categories as words
ws = sheet(a100, "Critical path")
hdr = [c.value for c in ws[1]]
for row in ws.iter_rows(min_row=2, values_only=True):
    b = row[hdr.index("Bound by")]
    if b is not None and re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", b):
        bad.append("Critical path: bound by %r" % b)
ws = sheet(aiu, "AIU transfers")
kinds = [r[1] for r in ws.iter_rows(min_row=2, values_only=True) if r[1]]
if "collective send" not in kinds or any("_" in k for k in kinds):
    bad.append("AIU transfers kinds %s" % kinds)
if bad:
    print("\n".join(bad))
    sys.exit(1)
PYEOF
# the PDF: a kernel's Mean and Median in one unit (on the row of the NCCL kernel, whose
# median is a fifth of its mean)
pdftotext -layout "$WORK/a100/report.pdf" "$WORK/a100.txt"
line=$(grep -m1 "^ *ncclKernel_SendRecv" "$WORK/a100.txt") || die "no NCCL kernel row in the A100 PDF"
units=$(echo "$line" | grep -oE "[0-9.]+ (ms|µs|ns)" | sed 1d | awk '{print $2}' | sort -u | wc -l)
[ "$units" = 1 ] || die "Mean and Median in different units: $line"
pdftotext -layout "$WORK/aiu/report.pdf" - | grep -q "collective_send" && die "the AIU PDF reads collective_send"
exit 0
