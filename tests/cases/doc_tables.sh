# Tables fit for the input (issue 13): a Kineto "Top modules" table without XLA's program
# and thunk columns and with a note saying why its Total can exceed the traced time
# (it adds every execution of every rank: checked against summary.json's numbers); an nsys
# memcpy table in the PDF and the workbook, and MPI/UCX/NCCL ranges as communication, both
# checked against python sqlite3 computations on the export; the PDF flamegraph labels
# (the CPU-only trace's).
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
# issue 21: one module (ProfilerStep) at 100% says nothing: the table is left out
m = s["modules"]
assert len(m) == 1 and m[0]["share"] >= 0.999, m
assert "Top modules" not in txt, "Top modules of one ProfilerStep row at 100% in the PDF"
# the device-by-module flamegraph of that one module is three bands (all, ProfilerStep,
# the kernels table's shares again): left out too (issue 21)
assert "Flamegraph: Device time by module" not in txt, "3-band module flamegraph drawn"
PY
# the flamegraph labels can be read (issue 13 saw "ncc.." in a three-row strip): no label
# cut to fewer than six characters, and a wide frame shows its name wrapped at "::" and
# spaces, not cut. A device-by-module graph with a module level is three bands and left
# out (issue 21), so the CPU-only trace's CPU call stacks (autograd::engine::
# evaluate_function: AddmmBackward0, 33% of the width, in cpu.folded)
CPU="$TRACES/torch-cpu/torch_transformer_cpu_5steps.json"
"$TD" report "$CPU" -o "$WORK/dm" --format pdf,folded 2>/dev/null || die "report cpu"
pdftotext -layout "$WORK/dm/report.pdf" "$WORK/dm.txt" || die "pdftotext"
$PY - "$WORK/dm.txt" "$WORK/dm/cpu.folded" <<'PY' || exit 1
import re, sys
txt = open(sys.argv[1]).read()
name = "autograd::engine::evaluate_function: AddmmBackward0"
assert any(name in l for l in open(sys.argv[2])), "the trace is not what this test assumes"
fl = txt[txt.index("Flamegraph:"):]
fl = fl[:fl.index("Width is")]
short = re.findall(r"(?:^|\s)(\S{1,5}\u2026)", fl)
assert not short, short
assert "autograd::engine::evaluate_function:" in fl and "AddmmBackward0" in fl, fl   # wrapped, not cut
PY

# 2. nsys: the memcpy table (memcpy is 26% of the saxpy export's GPU timeline) and the host
#    time in MPI ranges, from the SQLite export by Python
NSYS="$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite"
"$TD" report "$NSYS" -o "$WORK/n" --format pdf,xlsx,json 2>/dev/null || die "report nsys"
pdftotext -layout "$WORK/n/report.pdf" "$WORK/n.txt" || die "pdftotext"
$PY - "$WORK/n" "$WORK/n.txt" "$NSYS" <<'PY' || exit 1
import json, sqlite3, sys, openpyxl
s = json.load(open(sys.argv[1] + "/summary.json"))
txt = open(sys.argv[2]).read()
db = sqlite3.connect(sys.argv[3])
kind = {1: "[CUDA memcpy HtoD]", 2: "[CUDA memcpy DtoH]", 8: "[CUDA memcpy DtoD]"}
want = {}
for k, n, t, b in db.execute("SELECT copyKind, count(*), sum(end - start), sum(bytes) "
                              "FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY copyKind"):
    want[kind[k]] = (n, t, b)
# the device timeline: first to last device activity (one GPU here)
lo, hi = db.execute("SELECT min(s), max(e) FROM (SELECT start s, end e FROM CUPTI_ACTIVITY_KIND_KERNEL "
                    "UNION ALL SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY)").fetchone()
got = {r["operation"]: r for r in s["memcpy"]}
assert set(got) == set(want), (got, want)
for op, (n, t, b) in want.items():
    r = got[op]
    assert (r["count"], r["total_ns"], r["bytes"]) == (n, t, b), (r, n, t, b)
    assert abs(r["share"] - t / (hi - lo)) < 1e-6, (r, t / (hi - lo))
    assert abs(r["gbps"] - b / t) < 1e-6, r
assert abs(sum(r["share"] for r in s["memcpy"]) - 0.259) < 0.001   # the issue's 25.9%
# the PDF and the workbook show it
sec = txt[txt.index("Memory copies\n"):]
for op in want:
    assert op in sec, op
assert "Share: of the device timeline" in " ".join(sec.split())
ws = openpyxl.load_workbook(sys.argv[1] + "/report.xlsx")["Memcpy"]
assert [c.value for c in ws[1]][:2] == ["Operation", "Count"], [c.value for c in ws[1]]
assert {ws.cell(row=i, column=1).value for i in (2, 3)} == set(want)
# MPI ranges (the domain named "MPI"; MPI_Init/MPI_Finalize are set-up, not communication):
# union of the push/pop ranges of the process
dom = [d for (d,) in db.execute("SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'MPI'")]
iv = []
for st, en, name in db.execute(
        "SELECT n.start, n.end, coalesce(n.text, s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds s "
        "ON s.id = n.textId WHERE n.eventType = 59 AND n.domainId IN (%s)" % ",".join(map(str, dom))):
    if not name.startswith("MPI_Init") and name != "MPI_Finalize":
        iv.append((st, en))
iv.sort()
tot, cur = 0, None
for a, b in iv:
    if cur and a <= cur[1]:
        cur[1] = max(cur[1], b)
    else:
        if cur:
            tot += cur[1] - cur[0]
        cur = [a, b]
tot += cur[1] - cur[0]
c = s["comm"]
assert c["host_ns"] == tot and c["host_ranges"] == len(iv), (c, tot, len(iv))
assert abs(c["host_share"] - tot / s["trace"]["span_ns"]) < 1e-6, c
assert "MPI/UCX/NCCL ranges take %.0f%% of the traced time on the host." % (100 * tot / s["trace"]["span_ns"]) in s["findings"]
PY

# 3. device work launched inside an MPI range is communication in the GPU timeline: a
#    cudaMemcpy inside MPI_Send (CUDA-aware MPI staging a buffer), a kernel outside
$PY - "$WORK/mpi.sqlite" <<'PY' || exit 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,
  globalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO StringIds VALUES(1, 'cudaMemcpy_v3020'), (2, 'cudaLaunchKernel_v7000'), (3, 'k');
""")
gp = 7 * 0x1000000
gt = gp + 7
db.execute("INSERT INTO NVTX_EVENTS VALUES(0, NULL, 75, 'MPI', ?, NULL, 1)", (gt,))
db.execute("INSERT INTO NVTX_EVENTS VALUES(1000, 9000, 59, 'MPI_Send', ?, NULL, 1)", (gt,))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(2000, 8000, 0, ?, 1, 1)", (gt,))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(3000, 7000, 0, 7, 1, ?, 4096, 2)", (gp,))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(10000, 10100, 0, ?, 2, 2)", (gt,))
db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(11000, 14000, 0, 7, 2, ?, 3)", (gp,))
db.commit()
PY
"$TD" summary --format json "$WORK/mpi.sqlite" >"$WORK/mpi.json" 2>/dev/null || die "summary mpi"
$PY - "$WORK/mpi.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
row = [r for r in s["gpu_timeline"] if r["device"] == "all"][0]
# the copy (3000-7000) is communication, the kernel (11000-14000) computation
assert (row["total_comm_ns"], row["exposed_comm_ns"], row["total_memcpy_ns"],
        row["computation_ns"], row["total_ns"]) == (4000, 4000, 0, 3000, 11000), row
assert s["comm"] == {"host_ns": 8000, "host_share": round(8000 / 13000, 6), "host_ranges": 1}, s["comm"]
PY
exit 0
