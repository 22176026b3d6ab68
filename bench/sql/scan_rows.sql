-- The least SQLite can do for tracedoc's nsys reader: step every row of the three large
-- tables and read each column the reader reads (total() so that no sum overflows; the
-- values are not used). Compare with `tracedoc report` and bench/sql/kern_sum.sql:
--   /usr/bin/time -v sqlite3 'file:F?immutable=1' < bench/sql/scan_rows.sql
SELECT total(start), total("end"), total(globalTid), total(correlationId), total(nameId)
  FROM CUPTI_ACTIVITY_KIND_RUNTIME;
SELECT total(start), total("end"), total(deviceId), total(streamId), total(correlationId),
       total(globalPid), total(demangledName), total(shortName), total(mangledName),
       total(gridX), total(gridY), total(gridZ), total(blockX), total(blockY), total(blockZ)
  FROM CUPTI_ACTIVITY_KIND_KERNEL;
SELECT total(start), total("end"), total(eventType), total(length(text)), total(globalTid),
       total(textId), total(domainId)
  FROM NVTX_EVENTS;
