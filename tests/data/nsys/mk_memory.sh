#!/usr/bin/env bash
# tests/data/nsys/mk_memory.sh SRC OUT: an Nsight Systems export with device memory rows.
# The shared export (SRC, nsys 2022.2, schema 2.9.1) has an empty
# CUDA_GPU_MEMORY_USAGE_EVENTS table (profiled without --cuda-memory-usage=true); this
# copies it to OUT and fills the table with sqlite3 as nsys would for the program's own
# calls: one allocation row (memoryOperationType 0) inside each of its 15 cudaMalloc calls
# (correlationId of the call, bytes chosen per call), one free (1) inside each of its 3
# cudaFree calls freeing the last three allocations, memKind 3 (CUPTI's DEVICE). Also, to
# exercise the reader: a 1 TiB pinned host allocation (memKind 2: host memory, not counted),
# a row with memoryOperationType 7 (not an allocation or a free: skipped), device 1 rows (a
# second device's own running sum), and at the first cudaFree's time a free then an
# allocation with the same start (row order decides: the free comes first, so the peak is
# not their sum), inside a new NVTX push/pop range "grow_buffers" (the peak's op).
# Column meanings are those of the table's own schema comments (`.schema` of SRC).
set -eu
src=$1 out=$2
cp "$src" "$out"
chmod u+w "$out"
sqlite3 "$out" <<'SQL'
CREATE TEMP TABLE calls AS
  SELECT r.correlationId AS corr, r.globalTid AS tid, (r.start + r.end) / 2 AS mid, s.value AS name
  FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
  WHERE s.value IN ('cudaMalloc', 'cudaFree');
-- the 15 allocations: (corr % 7 + 1) x 4 MiB + corr bytes, at distinct addresses
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  (start, globalPid, deviceId, contextId, address, pc, bytes, memKind, memoryOperationType, name, correlationId)
  SELECT mid, tid / 16777216 * 16777216, 0, 1, 140000000000 + corr * 1048576 * 64, 0,
         (corr % 7 + 1) * 4194304 + corr, 3, 0, NULL, corr
  FROM calls WHERE name = 'cudaMalloc' ORDER BY mid;
-- a pinned host allocation inside the second cudaMalloc: host memory, not counted
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid + 1, tid / 16777216 * 16777216, 0, 1, 150000000000, 0, 1099511627776, 2, 0, NULL, corr
  FROM calls WHERE corr = 136;
-- an operation type that is neither allocation nor free: skipped
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid + 2, tid / 16777216 * 16777216, 0, 1, 150000000000, 0, 1099511627776, 3, 7, NULL, corr
  FROM calls WHERE corr = 136;
-- device 1: 3 MiB then 5 MiB allocated, the 3 MiB freed
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid + 3, tid / 16777216 * 16777216, 1, 2, 160000000000, 0, 3145728, 3, 0, NULL, corr
  FROM calls WHERE corr = 137;
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid + 3, tid / 16777216 * 16777216, 1, 2, 160100000000, 0, 5242880, 3, 0, NULL, corr
  FROM calls WHERE corr = 152;
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid + 3, tid / 16777216 * 16777216, 1, 2, 160000000000, 0, 3145728, 3, 1, NULL, corr
  FROM calls WHERE corr = 210;
-- the frees of the last three allocations (corr 199, 200, 201) inside cudaFree 209, 210,
-- 211; at 209 the free row comes first, then a 40 MiB allocation with the same start
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT f.mid, f.tid / 16777216 * 16777216, 0, 1, 140000000000 + a.corr * 1048576 * 64, 0,
         (a.corr % 7 + 1) * 4194304 + a.corr, 3, 1, NULL, f.corr
  FROM calls f JOIN calls a ON a.corr = f.corr - 10 WHERE f.name = 'cudaFree' ORDER BY f.mid;
INSERT INTO CUDA_GPU_MEMORY_USAGE_EVENTS
  SELECT mid, tid / 16777216 * 16777216, 0, 1, 170000000000, 0, 41943040, 3, 0, NULL, corr
  FROM calls WHERE corr = 209;
-- the NVTX push/pop range around the first cudaFree call
INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid)
  SELECT r.start - 1000, r.end + 1000, 59, 'grow_buffers', r.globalTid
  FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId
  WHERE s.value = 'cudaFree' AND r.correlationId = 209;
SQL
