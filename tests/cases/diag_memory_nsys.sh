# Issue 24 item 6, nsys: the `memory` and `memory_timeline` tables from an Nsight Systems
# export's CUDA_GPU_MEMORY_USAGE_EVENTS, against the rows' own running sums computed in
# SQL by sqlite3 (not by tracedoc): per device, the rows counted (memKind not 1/2, host
# memory; memoryOperationType 0 = +bytes, 1 = -bytes), the largest running sum in
# (start, row) order, the first row reaching it, and the innermost NVTX push/pop range
# around it on the thread of its cudaMalloc/cudaFree call (by correlationId). The shared
# export's table is empty, so tests/data/nsys/mk_memory.sh fills a copy (see there); the
# shared export itself gets no memory table.
. "$ROOT/tests/lib.sh"
need_traces
command -v sqlite3 >/dev/null || { echo "needs the sqlite3 CLI"; exit 77; }
SRC=$TRACES/nsys/pipit_saxpy_mpi_cuda_a100.sqlite
DB=$WORK/mem.sqlite
"$ROOT/tests/data/nsys/mk_memory.sh" "$SRC" "$DB" || die "mk_memory.sh"
"$TD" summary --format csv --table memory "$DB" >"$WORK/mem.csv" || die "no memory table"
"$TD" summary --format csv --table memory_timeline "$DB" >"$WORK/tl.csv" || die "no memory_timeline"
# every counted row with its running sum, in order
sqlite3 -csv -header "$DB" >"$WORK/rows.csv" <<'SQL' || die sqlite3
WITH d AS (
  SELECT rowid AS r, start, deviceId AS dev, correlationId AS corr,
         globalPid / 16777216 % 16777216 AS pid,
         CASE memoryOperationType WHEN 0 THEN bytes ELSE -bytes END AS delta
  FROM CUDA_GPU_MEMORY_USAGE_EVENTS
  WHERE memKind NOT IN (1, 2) AND memoryOperationType IN (0, 1))
SELECT r, start, dev, corr, pid,
       SUM(delta) OVER (PARTITION BY dev ORDER BY start, r ROWS UNBOUNDED PRECEDING) AS run,
       (SELECT n.text FROM CUPTI_ACTIVITY_KIND_RUNTIME c JOIN NVTX_EVENTS n
          ON n.globalTid = c.globalTid AND n.eventType = 59
         WHERE c.correlationId = d.corr AND c.globalTid / 16777216 % 16777216 = d.pid
           AND n.start <= d.start AND d.start <= n.end
         ORDER BY n.start DESC, n.end - n.start LIMIT 1) AS op
FROM d ORDER BY dev, start, r;
SQL
$PY - "$WORK/rows.csv" "$WORK/mem.csv" "$WORK/tl.csv" <<'PYEOF' || die "memory tables differ from the rows' own sums"
import csv, sys
from collections import defaultdict
rows, mem, tl = (list(csv.DictReader(open(p))) for p in sys.argv[1:4])
ev = defaultdict(list)
for r in rows:
    ev["cuda:%s" % r["dev"]].append((int(r["start"]), int(r["run"]), r["op"] or ""))
mine = {m["device"]: m for m in mem}
assert set(mine) == set(ev) == {"cuda:0", "cuda:1"}, (set(mine), set(ev))
tls = defaultdict(list)
for r in tl:
    tls[r["device"]].append(r)
for d, e in ev.items():
    m = mine[d]
    peak = max(x[1] for x in e)
    first = next(x for x in e if x[1] == peak)
    # the timeline's first interval starts at the device's first row: the time offset
    off = int(tls[d][0]["from_ns"]) - e[0][0]
    assert int(m["events"]) == len(e), (d, m["events"], len(e))
    assert int(m["peak_allocated_bytes"]) == peak, (d, m["peak_allocated_bytes"], peak)
    assert int(m["peak_ns"]) == first[0] + off, (d, m["peak_ns"], first[0] + off)
    assert m["peak_op"] == first[2], (d, m["peak_op"], first[2])
    assert m["allocated_from"] == "Bytes since the trace start" and m["peak_reserved_bytes"] == ""
    assert len(tls[d]) <= 200
    assert sum(int(r["events"]) for r in tls[d]) == len(e), d
    for r in tls[d]:
        lo, hi = int(r["from_ns"]), int(r["to_ns"])
        inside = [x for x in e if lo <= x[0] + off < hi]
        assert len(inside) == int(r["events"]), (d, r, len(inside))
        assert max(x[1] for x in inside) == int(r["allocated_bytes"]), (d, r)
        assert r["reserved_bytes"] == ""
# the constructed rows exercise what they should: a named op at cuda:0's peak, the
# free-then-allocate tie decided by row order, the pinned host row not counted
assert mine["cuda:0"]["peak_op"] == "grow_buffers"
assert int(mine["cuda:0"]["peak_allocated_bytes"]) == 293603601
assert int(mine["cuda:1"]["peak_allocated_bytes"]) == 8388608
print("ok", {d: (m["events"], m["peak_allocated_bytes"]) for d, m in mine.items()})
PYEOF
# a report of two processes (tests/data/nsys/nsys_expect.py synth ... 2: pids 100 and 200,
# MPI ranks 1 and 0, both using correlation ids 1..8): each process's rows go to its own
# trace (rank) with its own running sum, the rows of a process with no host thread are
# skipped with a warning
"$PY" "$ROOT/tests/data/nsys/nsys_expect.py" synth "$WORK/two.sqlite" 2 || die synth
sqlite3 "$WORK/two.sqlite" <<'SQL' || die "sqlite3 two"
CREATE TABLE CUDA_GPU_MEMORY_USAGE_EVENTS (start INTEGER NOT NULL, globalPid INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, address INTEGER NOT NULL,
  pc INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER NOT NULL,
  memoryOperationType INTEGER NOT NULL, name TEXT, correlationId INTEGER);
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT start + 1, globalTid / 16777216 * 16777216, 0, 1, correlationId, 0,
         globalTid / 16777216 % 16777216 * 1000 + correlationId, 3, 0, NULL, correlationId
  FROM CUPTI_ACTIVITY_KIND_RUNTIME GROUP BY globalTid, correlationId;
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS VALUES (5, 999 * 16777216, 0, 1, 0, 0, 7, 3, 0, NULL, 1);
SQL
"$TD" summary --format csv --table memory "$WORK/two.sqlite" >"$WORK/two.csv" 2>"$WORK/two.err" || die "two: $(cat "$WORK/two.err")"
grep -q "1 rows of CUDA_GPU_MEMORY_USAGE_EVENTS belong to a process with no host thread" "$WORK/two.err" ||
    die "no warning for the orphan row: $(cat "$WORK/two.err")"
sqlite3 -csv "$WORK/two.sqlite" "SELECT globalPid / 16777216 % 16777216, count(*), sum(bytes)
  FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE globalPid / 16777216 % 16777216 != 999
  GROUP BY 1 ORDER BY 1" >"$WORK/two.sql" || die sqlite3
$PY - "$WORK/two.csv" "$WORK/two.sql" "$WORK/two.sqlite" <<'PYEOF' || die "two processes: memory rows not per process"
import csv, sqlite3, sys
mine = {int(r["rank"]): r for r in csv.DictReader(open(sys.argv[1]))}
want = {int(p): (int(n), int(b)) for p, n, b in csv.reader(open(sys.argv[2]))}
# the rank of each pid: its "MPI Rank N" thread
db = sqlite3.connect(sys.argv[3])
rank = {}
for tid, sid in db.execute("SELECT globalTid, nameId FROM ThreadNames"):
    v = db.execute("SELECT value FROM StringIds WHERE id = ?", (sid,)).fetchone()[0]
    if v.startswith("MPI Rank "):
        rank[tid // 16777216 % 16777216] = int(v[9:])
assert set(mine) == {rank[p] for p in want}, (mine.keys(), rank, want)
for p, (n, b) in want.items():
    m = mine[rank[p]]
    assert m["device"] == "cuda:0" and int(m["events"]) == n, (p, m, n)
    assert int(m["peak_allocated_bytes"]) == b, (p, m["peak_allocated_bytes"], b)  # allocations only
print("ok", {p: mine[rank[p]]["peak_allocated_bytes"] for p in want})
PYEOF
# the PDF's memory chart: an nsys export records calls, not an allocator's reservations,
# so the chart's legend names only what it draws
"$TD" report --format pdf -o "$WORK/pdf" "$DB" 2>/dev/null || die "report --format pdf"
pdftotext "$WORK/pdf/report.pdf" "$WORK/pdf.txt" || die pdftotext
grep -q "Memory over time" "$WORK/pdf.txt" || die "no memory chart in the PDF"
grep -q "Reserved" "$WORK/pdf.txt" && die "the memory chart's legend names Reserved, which an nsys export has not"
# the shared export (empty table) has no memory table
"$TD" summary --format csv --table memory "$SRC" >/dev/null 2>"$WORK/none.err" && die "memory table from an empty CUDA_GPU_MEMORY_USAGE_EVENTS"
grep -q "no table 'memory'" "$WORK/none.err" || die "$(cat "$WORK/none.err")"
exit 0
