# The workbook as a reader sees it (issue 13's sheet-by-sheet review), on one real input of
# each kind and the manager and bug-report templates:
# - every table sheet: no column without a value in any row, no "Rank" column for a
#   single-rank input, time columns of whole numbers shown without decimals, no chart on a
#   sheet of one row; Kineto's kernels per module not called thunks; notes under the rows
#   wrapped within the table's width;
# - the Summary: headline figures and findings on the first screen (before row 30), then
#   settings; every input listed; labels wider than column A wrap in a row tall enough; no
#   0% part in the time breakdown; what the breakdown's shares are of; the module cut-off
#   as a percentage;
# - no "GPU" in any cell of a non-GPU accelerator's workbook (MTIA, Spyre, AIU, IPU, RDU);
# - a baseline comparison: the regression row in ms, the changes without a "Unit: ns" column;
#   a history: the Summary lists the changes after the findings, named for a reader;
# - a stored run (report SUMMARY.json): the same headline labels and sheet names.
# Expected values come from the raw inputs read here in Python (the tar's members, the
# traces' events), not from tracedoc.
. "$ROOT/tests/lib.sh"
need_traces
cd "$WORK" || exit 1
$PY "$ROOT/tests/data/aiu/gen_spyre_kineto.py" "$WORK/spyre.json" >/dev/null || die "spyre generator"
run() { # NAME TEMPLATE INPUT...
    n=$1 t=$2
    shift 2
    "$TD" report -o "$WORK/$n-$t" --template "$t" --format xlsx,json "$@" >"$WORK/$n-$t.log" 2>&1 ||
        { cat "$WORK/$n-$t.log"; die "$n $t: report failed"; }
}
for t in manager bug-report; do
    run cpu $t "$TRACES/torch-cpu/torch_transformer_cpu_5steps.json"
    run dlrm $t "$TRACES/kineto/param_dlrm_8ranks.tar.gz"
    run mtia $t "$TRACES/kineto/hta_mtia_inference_rank0.json.gz"
    run nsys $t "$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
    run spyre $t "$WORK/spyre.json"
    run aiu $t "$TRACES/aiu/allreduce_tp4.json"
    run ipu $t "$ROOT/examples/ipu/detailed.jsonl"
    run samba $t "$ROOT/examples/sambanova/decoder"
done
# stored runs (report SUMMARY.json): the manager workbook of each bug-report summary.json
for n in cpu dlrm mtia nsys spyre; do
    "$TD" report "$WORK/$n-bug-report/summary.json" -o "$WORK/$n-stored" --template manager \
        --format xlsx >/dev/null 2>&1 || die "$n: report of the stored run"
done
# a baseline comparison (two stored nightly runs, a real slowdown from run 21 on)
D="$ROOT/tests/data/nightly"
"$TD" report "$D/run21.summary.json" -o "$WORK/base" --template manager --format xlsx \
    --baseline "$D/run20.summary.json" >/dev/null 2>&1
[ $? = 1 ] || die "run21 against run20: exit 1 (regressed) expected"
# a history: runs 1-22 stored, then run 23 (tests/data/nightly: the feed-forward layer is
# 4x wider from run 21 on, gen_nightly.py) with the manager template
for i in $(seq -w 1 22); do
    SOURCE_DATE_EPOCH=$((1767225600 + 10#$i * 86400)) "$TD" report "$D/run$i.summary.json" \
        -o "$WORK/h$i" --format json --template nightly --history "$WORK/h.db" >/dev/null 2>&1
done
SOURCE_DATE_EPOCH=$((1767225600 + 23 * 86400)) "$TD" report "$D/run23.summary.json" -o "$WORK/hist" \
    --format json,xlsx --template manager --history "$WORK/h.db" >/dev/null 2>&1
[ $? = 1 ] || die "run 23 against the history: exit 1 (regressed) expected"

$PY - "$WORK" "$TRACES" "$D" <<'EOF' || exit 1
import collections, json, os, re, sys, tarfile, openpyxl
work, traces = sys.argv[1], sys.argv[2]
fail = []
def check(cond, msg):
    if not cond:
        fail.append(msg)
NONGPU = {"mtia", "spyre", "aiu", "ipu", "samba"}
A_WIDTH = 44            # characters that fit in the Summary's label column (width 42 of '0's)

def lines(text, width):
    n, col = 1, 0
    for ch in text:
        if ch == "\n":
            n, col = n + 1, 0
        else:
            col += 1
            if col > width:
                n, col = n + 1, 1
    return n

def generic(name, wb, js):
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if name in NONGPU and isinstance(c.value, str) and re.search(r"\bGPU", c.value):
                    check(False, "%s %s!%s says GPU: %r" % (name, ws.title, c.coordinate, c.value[:60]))
        if ws.freeze_panes != "A2" or not ws.auto_filter.ref:
            continue
        last = int(re.sub(r"[A-Z]+", "", ws.auto_filter.ref.split(":")[1]))
        hdr = [c.value for c in ws[1]]
        for ci, h in enumerate(hdr, 1):
            if h is None or h.startswith("Chart:"):
                continue
            cells = [ws.cell(r, ci) for r in range(2, last + 1)]
            vals = [c for c in cells if c.value is not None]
            check(vals, "%s %s: column %r has no value" % (name, ws.title, h))
            if h == "Rank":
                check(js["trace"]["ranks"] > 1, "%s %s: a Rank column for one rank" % (name, ws.title))
            m = re.search(r"\((\u00b5s|ms|s)\)$", h)
            if m:
                nums = [c for c in vals if isinstance(c.value, (int, float))]
                # the unit comes from the rows read first (issue 38, doc/outputs.md; the
                # top rows' digits are checked in workbook_units.sh); here: no non-zero
                # cell reads as 0 in its number format
                for c in nums:
                    dec = len(c.number_format.split(".")[1]) if "." in c.number_format else 0
                    check(not c.value or abs(c.value) * 10 ** dec >= 0.5,
                          "%s %s: %r %r reads as 0 in %s" % (name, ws.title, h, c.value, c.number_format))
                if nums and all(float(c.value).is_integer() for c in nums):
                    check(all("." not in c.number_format for c in nums),
                          "%s %s: %r is whole numbers shown with decimals" % (name, ws.title, h))
        if ws._charts:
            check(last > 2, "%s %s: a chart of one row" % (name, ws.title))
        # a note under the rows stays within the table's width: merged over its columns,
        # wrapped, in a row tall enough (it ran far right of the table in one line)
        for r in range(last + 1, ws.max_row + 1):
            c = ws.cell(r, 1)
            if isinstance(c.value, str):
                ncol = len([h for h in hdr if h and not h.startswith("Chart:")])
                width = sum(ws.column_dimensions[openpyxl.utils.get_column_letter(k)].width or 8
                            for k in range(1, ncol + 1))
                merged = [m for m in ws.merged_cells.ranges if m.min_row == r]
                check(c.alignment.wrap_text and (ncol == 1 or (merged and merged[0].max_col == ncol)) and
                      (ws.row_dimensions[r].height or 15) >= 15 * lines(c.value, width - 6) - 0.01,
                      "%s %s!A%d: note not wrapped within the table" % (name, ws.title, r))
    s = wb["Summary"]
    col_a = [(c.row, c) for c in s["A"] if c.value is not None]
    labels = {c.value: r for r, c in col_a}
    check(labels.get("Key figure", 99) <= 5, "%s: key figures start at row %s" % (name, labels.get("Key figure")))
    if js.get("findings"):
        check(labels.get("Findings", 99) < 30, "%s: findings start at row %s" % (name, labels.get("Findings")))
        check(labels["Findings"] < labels["Settings and details"], name + ": settings before findings")
    # the title spans A:D and wraps in a row tall enough (14 pt: about 80 characters a line)
    check("A1:D1" in [str(m) for m in s.merged_cells.ranges] and s["A1"].alignment.wrap_text and
          s.row_dimensions[1].height >= 20 * lines(s["A1"].value, 80), name + ": title cut")
    for r, c in col_a[1:]:
        if isinstance(c.value, str) and len(c.value) > A_WIDTH:
            h = s.row_dimensions[r].height or 15
            check(c.alignment.wrap_text and h >= 15 * lines(c.value, A_WIDTH) - 0.01,
                  "%s Summary!A%d: %r is cut (height %s)" % (name, r, c.value, h))
    # the module cut-off (doc/commands.md: --threshold, default 0.01 of the time) as a percentage
    if "Top-module cut-off" in labels:
        c = s.cell(labels["Top-module cut-off"], 2)
        check(c.value == 0.01 and c.number_format == "0.0%", "%s: cut-off %r %s" % (name, c.value, c.number_format))
    # inputs: one "rank N" row per input, and every input's SHA-256
    ins = [c for r, c in col_a if isinstance(c.value, str) and c.value.startswith("rank ")]
    check(len(ins) == len(js["inputs"]), "%s: %d inputs listed, %d read" % (name, len(ins), len(js["inputs"])))
    for r, c in col_a:
        if c.value in ("Computation", "Exposed communication", "Exposed memcpy", "Idle"):
            check(s.cell(r, 2).value, "%s: breakdown part %r of 0" % (name, c.value))
    return s, labels

for t in ("manager", "bug-report"):
    books = {}
    for name in ("cpu", "dlrm", "mtia", "nsys", "spyre", "aiu", "ipu", "samba"):
        d = os.path.join(work, "%s-%s" % (name, t))
        js = json.load(open(os.path.join(d, "summary.json")))
        wb = openpyxl.load_workbook(os.path.join(d, "report.xlsx"))
        books[name] = (wb, generic(name + "/" + t, wb, js))

    # CPU-only trace: no device event in it, so "none (CPU only)" and no device columns
    ev = json.load(open(os.path.join(traces, "torch-cpu/torch_transformer_cpu_5steps.json")))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    check(not any(e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") for e in ev), "cpu trace has kernels?")
    wb, (s, labels) = books["cpu"]
    check(s.cell(labels["Devices"], 2).value == "none (CPU only)", "cpu: Devices %r" % s.cell(labels["Devices"], 2).value)
    hdr = [c.value for c in wb["Steps"][1]]
    check(not any(h and h.startswith("Device busy") for h in hdr) and "Rank" not in hdr, "cpu steps header %s" % hdr)
    # traced time: first event start to last event end (formats), over a second -> seconds
    xs = [e for e in ev if "ts" in e and e.get("ph") in ("X", "B", "E", "i", "I")]
    span = (max(float(e["ts"]) + float(e.get("dur", 0)) for e in xs) - min(float(e["ts"]) for e in xs)) / 1e6
    r = labels["Traced time"]
    check(s.cell(r, 3).value == "s" and abs(s.cell(r, 2).value - span) < 2e-6,
          "cpu traced time %r %r, trace says %.6f s" % (s.cell(r, 2).value, s.cell(r, 3).value, span))

    # 8 ranks from a tar: every rank listed, the breakdown says it sums over 8 ranks;
    # kernel totals are whole microseconds (Kineto's dur), summed over the ranks' kernels
    tf = tarfile.open(os.path.join(traces, "kineto/param_dlrm_8ranks.tar.gz"))
    members = [m for m in tf.getmembers() if m.isfile() and m.name.endswith(".json")]
    tot = collections.Counter()
    sized = False
    for m in members:
        for e in json.load(tf.extractfile(m))["traceEvents"]:
            if e.get("cat") == "kernel":
                tot[e["name"]] += e["dur"]
                sized |= "In msg nelems" in e.get("args", {}) or "Collective name" in e.get("args", {})
    wb, (s, labels) = books["dlrm"]
    ins = sorted(c.value for c in s["A"] if isinstance(c.value, str) and c.value.startswith("rank "))
    check(ins == ["rank %d" % i for i in range(len(members))], "dlrm inputs %s" % ins)
    notes = [c.value for c in s["B"] if isinstance(c.value, str) and c.value.startswith("Shares of the device timeline")]
    check(notes and "summed over %d ranks" % len(members) in notes[0], "dlrm breakdown note %s" % notes)
    k = wb["Kernels"]
    hdr = [c.value for c in k[1]]
    # the column's unit is chosen from its top rows (doc/outputs.md); the trace's durations are µs
    tk = [h for h in hdr if isinstance(h, str) and h.startswith("Total (")]
    check(len(tk) == 1, "dlrm Kernels total column: %s" % hdr)
    ct = hdr.index(tk[0])
    per_us = {"ns": 1e-3, "\u00b5s": 1, "ms": 1e3, "s": 1e6}[tk[0][7:-1]]
    for row in k.iter_rows(min_row=2, max_row=k.max_row):
        if row[0].value is None:
            continue
        want = tot[row[0].value]
        check(abs(row[ct].value * per_us - want) <= 1e-9 * max(want, 1) and row[ct].number_format.startswith("#,##0"),
              "dlrm kernel %r total %r (%s, %s), trace %r µs" % (row[0].value[:40], row[ct].value, tk[0], row[ct].number_format, want))
    # the figures the PDF's key figures give (IPU tile balance) and the SambaNova run's
    # host share and TFLOP utilisation are headline figures, before the findings
    for name, want in (("ipu", ("Tile balance (all IPUs)", "Active tile balance (all IPUs)")),
                       ("samba", ("Host share", "TFLOP utilisation (time-weighted)"))):
        s2, lab2 = books[name][1]
        for w in want:
            check(lab2.get(w, 99) < lab2["Findings"] and s2.cell(lab2[w], 2).number_format == "0.0%",
                  "%s/%s: %r at row %s, findings at %s" % (name, t, w, lab2.get(w), lab2["Findings"]))
    if t == "bug-report":
        # a Kineto trace has kernels, not XLA thunks, and one module (ProfilerStep) at 100%:
        # the per-module and module sheets say nothing and are left out (issue 21)
        check("Thunks" not in wb.sheetnames and "Device work per top module" not in wb.sheetnames
              and "Modules" not in wb.sheetnames, "dlrm sheets %s" % wb.sheetnames)
        # no message sizes in the trace: no size, bandwidth or type column that would be empty
        check(not sized, "dlrm trace has collective sizes?")
        hdr = [c.value for c in wb["Collectives"][1]]
        check(not any(h and (h.startswith("Message size") or "bandwidth" in h or h == "Type") for h in hdr),
              "dlrm collectives header %s" % hdr)
# a stored run reads as the trace's report: the same headline labels and sheet names
# (summary.json keeps no titles; they were "trace.span_ns", "gpu_timeline")
for name in ("cpu", "dlrm", "mtia", "nsys", "spyre"):
    a = openpyxl.load_workbook(os.path.join(work, name + "-manager", "report.xlsx"))
    b = openpyxl.load_workbook(os.path.join(work, name + "-stored", "report.xlsx"))
    check(a.sheetnames == b.sheetnames, "%s stored: sheets %s, trace %s" % (name, b.sheetnames, a.sheetnames))
    def head(wb):
        col = [c.value for c in wb["Summary"]["A"]]
        return col[col.index("Key figure"):col.index("Findings")]
    check(head(a) == head(b), "%s stored: labels %s, trace %s" % (name, head(b), head(a)))
# One judgement (issue 21): no tolerance-only "Regression" sheet beside "Changes"; the
# Changes sheet's step-time row is the median steady step of each run (doc/nightly.md:
# step.median_ns), computed here from the runs' steps; its times carry their unit in the
# header (no "Unit" column of "ns" beside "Before (ms)")
import statistics
med = [statistics.median(r["wall_ns"] for r in json.load(open("%s/run%d.summary.json" % (sys.argv[3], k)))["steps"]
                         if not r["warmup"]) for k in (20, 21)]
wb = openpyxl.load_workbook(os.path.join(work, "base", "report.xlsx"))
check("Regression" not in wb.sheetnames, "a Regression sheet beside Changes: %s" % wb.sheetnames)
chs = wb["Changes"]
hdr = [c.value for c in chs[1]]
rows = [dict(zip(hdr, [c.value for c in r])) for r in chs.iter_rows(min_row=2)]
step = [r for r in rows if r.get("Metric") == "Step time (median of the steady steps)"]
bk = [h for h in hdr if h and h.startswith("Before (")]
ak = [h for h in hdr if h and h.startswith("After (")]
if step and bk and ak:
    scale = {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}[bk[0][8:-1]]
    got = step[0]
    check(abs(got[bk[0]] * scale - med[0]) <= 1e-6 * med[0] and abs(got[ak[0]] * scale - med[1]) <= 1e-6 * med[1]
          and got["Direction"] == "regressed", "step row %s, medians %s ns" % (got, med))
else:
    check(False, "no step-time row in Changes (%s) or no Before/After unit: %s" % ([r.get("Metric") for r in rows], hdr))
ch = [c.value for c in wb["Changes"][1]]
check("Unit" not in ch and "Before (ms)" in ch, "changes header %s" % ch)
# with a history the Summary compares too (issue 13: "then the trend or baseline
# comparison"): after the findings, before the settings, the changes most severe first,
# named for a reader; the slower step time among them
js = json.load(open(os.path.join(work, "hist", "summary.json")))
s = openpyxl.load_workbook(os.path.join(work, "hist", "report.xlsx"))["Summary"]
col = [c.value for c in s["A"]]
i0 = col.index("Compared with the earlier runs") + 1
check(col.index("Findings") < i0 < col.index("Settings and details"), "history section placed %d" % i0)
rows = [(s.cell(r, 1).value, s.cell(r, 2).value, s.cell(r, 3).value) for r in range(i0 + 2, i0 + 2 + 15)]
rows = [x for x in rows if x[2] is not None]
check(len(rows) == min(15, len(js["changes"])), "history rows %d" % len(rows))
for (lab, d, ch), c in zip(rows, js["changes"]):
    check(d == c["direction"] and abs(ch - c["change"]) < 1e-6, "history row %r vs %r" % ((lab, d, ch), c))
    if c["metric"].startswith("op.total_ns:"):
        check(lab == "Op %s: total time" % c["metric"][12:], "label %r for %s" % (lab, c["metric"]))
check(("Step time (median of the steady steps)", "regressed") in [(x[0], x[1]) for x in rows],
      "step time not among the regressions: %s" % rows)
print("%d failed" % len(fail))
if fail:
    print("\n".join(fail[:40]))
    sys.exit(1)
EOF
exit 0
