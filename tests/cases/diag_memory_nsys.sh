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
# the shared export (empty table) has no memory table
"$TD" summary --format csv --table memory "$SRC" >/dev/null 2>"$WORK/none.err" && die "memory table from an empty CUDA_GPU_MEMORY_USAGE_EVENTS"
grep -q "no table 'memory'" "$WORK/none.err" || die "$(cat "$WORK/none.err")"
exit 0
