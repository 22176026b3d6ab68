# Workbooks of real traces (`report --template nightly`): every table sheet holds the
# same rows and values as summary.json of the same run (ns -> ms, shares, bytes, flags),
# the key figures and the time breakdown match the summary, the regression sheet appears
# with --baseline, two runs are byte-identical, and the layout of one trace matches
# tests/golden/xlsx/trace-hta_mi250_minitoy.txt (structure only: the analysis owns the numbers).
# (The dump of a workbook byte-identical to one already dumped in this run, the release
# build's, is not redone: tests/lib.sh checked.)
. "$ROOT/tests/lib.sh"
need_traces
export TRACEDOC_DATA=$ROOT
cd "$WORK" || exit 1
traces="kineto/hta_mi250_minitoy.json.gz kineto/tbplugin_resnet50_v100_oldformat.json.gz
torch-cpu/torch_transformer_cpu_5steps.json nsys/pipit_saxpy_mpi_cuda_a100.sqlite
nsys-jax/pax_fsdp4_4proc_proc0.zip kineto/param_dlrm_8ranks.tar.gz"
for t in $traces; do
    n=$(basename "$t"); n=${n%.json} # a directory, not a name like a document (issue 21)
    "$TD" report -o "$WORK/$n" --format xlsx,json --template nightly "$TRACES/$t" ||
        die "$t: report failed"
done
# a regression section: the same trace against its own summary as the baseline
n=hta_mi250_minitoy.json.gz
"$TD" report -o "$WORK/again" --format xlsx,json --template nightly \
    --baseline "$WORK/$n/summary.json" "$TRACES/kineto/$n" || die "report --baseline failed"
# same bytes on a second run (the first run above had no baseline: compare like with like)
"$TD" report -o "$WORK/again2" --format xlsx --template nightly \
    --baseline "$WORK/$n/summary.json" "$TRACES/kineto/$n" || die "second run failed"
cmp "$WORK/again/report.xlsx" "$WORK/again2/report.xlsx" || die "two runs differ"

checked $PY "$ROOT/tests/xlsx_dump.py" "$WORK/$n/report.xlsx" --check --structure >"$WORK/structure.txt" ||
    die "dump/check failed"
golden xlsx/trace-hta_mi250_minitoy.txt "$WORK/structure.txt" || exit 1

$PY - "$ROOT/templates/nightly.tdt" "$WORK" $traces again <<'EOF' || exit 1
import json, math, os, re, shlex, sys, openpyxl
tdt, work, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
sections = []                       # (table name, sheet title) in template order
block = None
for line in open(tdt):
    line = line.strip()
    if line.startswith("["):
        block = line
    elif block == "[xlsx]" and line.startswith("section "):
        w = shlex.split(line)
        opts = dict(x.split("=", 1) for x in w[2:] if "=" in x)
        if w[1] == "table":
            sections.append((w[2], opts.get("title")))
        elif w[1] == "regression":
            sections.append(("regression", opts.get("title")))
fail = []
compared = [0]
def check(cond, msg):
    compared[0] += 1
    if not cond:
        fail.append(msg)
def close(a, b, tol):
    return isinstance(a, (int, float)) and abs(a - b) <= tol * max(1.0, abs(b))
def table(js, name):
    o = js
    for part in name.split("."):
        o = o.get(part) if isinstance(o, dict) else None
    return o if isinstance(o, list) and o else None
ctl = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
for r in runs:
    d = os.path.join(work, re.sub(r"\.json$", "", os.path.basename(r)))  # the shell strips .json
    js = json.load(open(os.path.join(d, "summary.json")))
    wb = openpyxl.load_workbook(os.path.join(d, "report.xlsx"))
    want = []
    for name, title in sections:
        if name == "regression":   # the changes and comparability sheets (issue 21: one judgement)
            for extra, t2 in (("changes", "Changes"), ("comparability", "Comparability")):
                if table(js, extra):
                    want.append((extra, t2, table(js, extra)))
            continue
        if name == "gpu_timeline" and not title:   # titled by the device: "GPU timeline", "SPYRE timeline"
            title = js.get("trace", {}).get("device_word", "GPU") + " timeline"
        rows = table(js, name)
        if name == "thunks" and not title and rows:   # named after the table: Kineto's kernels per module
            title = "Thunks of the top modules" if any(x.get("hlo_op") for x in rows) else "Device work per top module"
        # issue 21: sheets that say nothing are left out: thunks without XLA modules
        # (runtime.thunks_ns absent), one module at 100%
        if name == "thunks" and "thunks_ns" not in js.get("runtime", {}):
            rows = []
        if name == "modules" and rows and len(rows) == 1 and (rows[0].get("share") or 0) >= 0.999:
            rows = []
        # variability of one or two names repeats the kernels sheet; a timeline of one
        # device shows its row, not the job-wide "all" row that repeats it; the checklist
        # lists what the report has (not the trace file alone); a table none of whose
        # measures has a value (op_perf without device work) is no sheet
        if name == "variability" and rows and len(rows) < 3:
            rows = []
        if rows and "device" in rows[0] and sum(1 for x in rows if x.get("device") != "all") == 1:
            rows = [x for x in rows if x.get("device") != "all"]
        if name == "checklist" and rows:
            rows = [x for x in rows if x.get("ok")]
            if all(x.get("item") == "The trace file" for x in rows):
                rows = []
        if name == "op_perf" and rows and all(x.get("kernel_ns") is None for x in rows):
            rows = []
        if name.endswith("_by_device") and rows and len(set(x.get("device") for x in rows)) == 1:
            rows = []
        if rows:
            want.append((name, title, rows))
    check(wb.sheetnames == ["Summary"] + [w[1] for w in want],
          "%s: sheets %s, expected Summary + %s" % (r, wb.sheetnames, [w[1] for w in want]))
    for name, title, rows in want:
        if title not in wb.sheetnames or rows is None:
            continue
        ws = wb[title]
        keys = list(rows[0].keys())
        note = None
        if name == "modules":
            # a note under the rows says what Total adds up (issue 13); Kineto: XLA's
            # program and thunk columns are not in the documents
            if all(x.get("program_id") is None for x in rows):
                keys = [k for k in keys if k not in ("program_id", "thunks_mean", "thunks_std")]
            note = ws.cell(row=len(rows) + 3, column=1).value or ""
            check("Total can exceed the traced time" in note, "%s: modules note %r" % (r, note))
        if name == "memcpy":   # what the share is of, under the rows
            note = ws.cell(row=len(rows) + 3, column=1).value or ""
            check(note.startswith("Share: of the device timeline"), "%s: memcpy note %r" % (r, note))
        # columns that say nothing for this input are not in the sheet (doc/outputs.md
        # "Workbook"): no value in any row, or the rank of a single-rank input
        ranks = js.get("trace", {}).get("ranks")
        keys = [k for k in keys if any(x.get(k) is not None for x in rows) and
                not (k == "rank" and ranks == 1)]
        # a qualifier with one value in every row (issue 21): "Scope trace", "Warm-up no",
        # "Active window 1"; the rank when two rows or more share it; the checklist's flag
        keys = [k for k in keys if not (k in ("scope", "warmup", "window", "cut", "rank") and
                                        len(set(json.dumps(x.get(k)) for x in rows)) == 1 and
                                        (k != "rank" or len(rows) > 1)) and
                not (name == "checklist" and k == "ok")]
        hdr = [c.value for c in ws[1]][:len(keys)]
        check(ws.max_row == len(rows) + (3 if note else 1), "%s %s: %d rows, summary.json has %d" % (
            r, title, ws.max_row - 1, len(rows)))
        for i, row in enumerate(rows):
            cells = [c.value for c in ws[i + 2]][:len(keys)]
            for k, h, v in zip(keys, hdr, cells):
                j = row.get(k)
                where = "%s %s row %d %s" % (r, title, i + 1, k)
                if name == "regression.metrics" and k in ("unit", "base", "current") and \
                        row["unit"] in ("ns", "fraction"):
                    # one unit per row: a time in ms (us below 1 ms), a fraction in %
                    big = max(abs(row["base"]), abs(row["current"]))
                    u = "%" if row["unit"] == "fraction" else "\u00b5s" if big < 1e6 else "ms"
                    div = {"%": 1, "\u00b5s": 1e3, "ms": 1e6}[u]
                    ok = v == u if k == "unit" else close(v, j / div, 1e-12 if div > 1 else 1e-6)
                elif j is None and k == "rank" and row.get("device") == "all":
                    ok = v == "all"             # the job-wide row: every rank
                elif j is None:
                    ok = v is None
                elif isinstance(j, bool):
                    ok = v == ("yes" if j else "no")
                elif isinstance(j, str):
                    ok = v == (ctl.sub("\ufffd", j) or None)
                elif h.endswith("(s)"):     # issue 38: the unit of the rows read first
                    ok = close(v, j / 1e9, 1e-12)
                elif h.endswith("(ms)"):
                    ok = close(v, j / 1e6, 1e-12)
                elif h.endswith("(\u00b5s)"):   # microsecond columns (median below 1 ms)
                    ok = close(v, j / 1e3, 1e-12)
                elif h.endswith("(ns)"):
                    ok = close(v, j, 1e-12)
                elif h.endswith("(bytes)") or isinstance(j, int):
                    ok = v == j
                else:                       # shares, GB/s, ratios: JSON keeps 6 decimals
                    ok = close(v, j, 1e-6)
                check(ok, "%s: workbook %r, summary.json %r" % (where, v, j))
    s = {c[0].value: c for c in wb["Summary"].iter_rows() if c[0].value}
    unit = {"s": 1e9, "ms": 1e6, "\u00b5s": 1e3}
    check(close(s["Traced time"][1].value, js["trace"]["span_ns"] / unit[s["Traced time"][2].value], 1e-12),
          r + " span")
    tl = [x for x in (table(js, "gpu_timeline") or []) if x["device"] == "all"]
    if tl:
        tl = [x for x in tl if x["scope"] == "trace"] or tl
        # one "all" row per rank: the first rank's is shown, and named
        multi = len(set(x["rank"] for x in tl)) > 1
        # with several ranks the first row is the job-wide one (rank null: sums over ranks)
        head = "GPU time breakdown (all devices)" if not multi else \
            "GPU time breakdown (all ranks, all devices)" if tl[0]["rank"] is None else \
            "GPU time breakdown (rank %d, all devices)" % tl[0]["rank"]
        check(head in s, "%s: breakdown titled %r" % (r, head))
        bu = unit[s[head][1].value[len("Time ("):-1]]
        # a part of 0 has no row (nor a 0% slice in the pie)
        for label, key in (("Computation", "computation_ns"), ("Exposed communication", "exposed_comm_ns"),
                           ("Exposed memcpy", "exposed_memcpy_ns"), ("Idle", "idle_ns")):
            if tl[0][key] == 0:
                check(label not in s, "%s breakdown %s: 0 but shown" % (r, label))
            else:
                check(close(s[label][1].value, tl[0][key] / bu, 1e-12), "%s breakdown %s" % (r, label))
    for f in js.get("findings", []):
        check(any(c[1].value == f for c in s.values()), "%s: finding %r" % (r, f))
names = openpyxl.load_workbook(os.path.join(work, "again", "report.xlsx")).sheetnames
check("Regression against the baseline" not in names, "the tolerance sheet is gone: %s" % names)
print("%d checks, %d failed" % (compared[0], len(fail)))
if fail:
    print("\n".join(fail[:40]))
    sys.exit(1)
EOF
exit 0
