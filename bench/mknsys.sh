#!/usr/bin/env bash
# bench/mknsys.sh - a large Nsight Systems SQLite export made by replicating a real one.
#
#   bench/mknsys.sh OUT COPIES [SRC]
#
# SRC (default ../shared/traces/nsys/pipit_saxpy_mpi_cuda_a100.sqlite: 5 kernels, 95
# runtime calls, 24 NVTX events) is copied to OUT, then its CUPTI_ACTIVITY_KIND_KERNEL,
# CUPTI_ACTIVITY_KIND_RUNTIME and NVTX_EVENTS rows are appended COPIES more times, copy k
# (1..COPIES) shifted by k * (span of those rows + 1 ms) in start/end and by
# k * (largest correlationId + 1) in correlationId (kernel and runtime alike, so every
# kernel still finds its launch) and by k * (largest rangeId + 1) in NVTX rangeId. Every
# other column is copied as it is (StringIds, threads, devices are shared). Needs the
# sqlite3 CLI. About 5.5 KB of database per copy.
set -eu
out=$1
copies=$2
src=${3:-../shared/traces/nsys/pipit_saxpy_mpi_cuda_a100.sqlite}
command -v sqlite3 >/dev/null || { echo "mknsys.sh: needs the sqlite3 CLI" >&2; exit 2; }
rm -f "$out"
cp "$src" "$out"
chmod u+w "$out"
q() { sqlite3 "$out" "$1"; }
span=$(q "SELECT max(e) - min(s) + 1000000 FROM (
    SELECT min(start) s, max(end) e FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL
    SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL
    SELECT min(start), max(coalesce(end, start)) FROM NVTX_EVENTS)")
corr=$(q "SELECT max(c) + 1 FROM (SELECT max(correlationId) c FROM CUPTI_ACTIVITY_KIND_KERNEL
    UNION ALL SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME)")
range=$(q "SELECT coalesce(max(rangeId), 0) + 1 FROM NVTX_EVENTS")
# the select list of table $1 with start/end/correlationId/rangeId shifted by copy k.i
cols() {
    q "SELECT group_concat(CASE name
        WHEN 'start' THEN '\"start\" + k.i * $span'
        WHEN 'end' THEN '\"end\" + k.i * $span'
        WHEN 'correlationId' THEN '\"correlationId\" + k.i * $corr'
        WHEN 'rangeId' THEN '\"rangeId\" + k.i * $range'
        ELSE '\"' || name || '\"' END, ', ') FROM pragma_table_info('$1')"
}
sql="PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-262144;
CREATE TEMP TABLE k(i INTEGER PRIMARY KEY);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $copies)
INSERT INTO k SELECT i FROM c;
BEGIN;"
for t in CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME NVTX_EVENTS; do
    sql="$sql
CREATE TEMP TABLE o_$t AS SELECT * FROM $t ORDER BY rowid;
INSERT INTO $t SELECT $(cols $t) FROM k CROSS JOIN o_$t AS o ORDER BY k.i, o.rowid;"
done
sqlite3 "$out" "$sql
COMMIT;" >/dev/null
echo "$out: $(stat -c %s "$out") bytes; kernels $(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL'), runtime $(q 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME'), NVTX $(q 'SELECT count(*) FROM NVTX_EVENTS')" >&2
