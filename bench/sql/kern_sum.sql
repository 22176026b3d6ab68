-- bench/sql/kern_sum.sql - the kernel summary of an Nsight Systems SQLite export
-- (nsys stats --report cuda_gpu_kern_sum) in plain SQL for the sqlite3 CLI: per kernel
-- name (demangledName, as the report's default) total, count, mean, median (mean of the
-- two middle values for an even count), min, max and sample standard deviation of
-- end - start, and the share of the total; largest total first. The report itself
-- calls median() and stdev(), which nsys registers in its own process and the sqlite3
-- CLI does not have: here the median is a window function and the deviation a second
-- pass over the rows.
WITH
    d AS (
        SELECT coalesce(demangledName, shortName) AS nameId, "end" - "start" AS dur
        FROM CUPTI_ACTIVITY_KIND_KERNEL),
    s AS (
        SELECT nameId, sum(dur) AS total, count(*) AS num, avg(dur) AS mean,
               min(dur) AS lo, max(dur) AS hi
        FROM d GROUP BY nameId),
    ranked AS (
        SELECT nameId, dur,
               row_number() OVER (PARTITION BY nameId ORDER BY dur) AS i,
               count(*) OVER (PARTITION BY nameId) AS n
        FROM d),
    med AS (
        SELECT nameId, avg(dur) AS med FROM ranked
        WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY nameId),
    sd AS (
        SELECT d.nameId,
               CASE WHEN count(*) > 1
                    THEN sqrt(sum((d.dur - s.mean) * (d.dur - s.mean)) / (count(*) - 1))
                    ELSE 0 END AS sd
        FROM d JOIN s USING (nameId) GROUP BY d.nameId)
SELECT round(s.total * 100.0 / (SELECT sum(total) FROM s), 1) AS "Time (%)",
       s.total AS "Total Time (ns)", s.num AS "Instances", round(s.mean, 1) AS "Avg (ns)",
       round(med.med, 1) AS "Med (ns)", s.lo AS "Min (ns)", s.hi AS "Max (ns)",
       round(sd.sd, 1) AS "StdDev (ns)", ids.value AS "Name"
FROM s JOIN med USING (nameId) JOIN sd USING (nameId)
LEFT JOIN StringIds AS ids ON ids.id = s.nameId
ORDER BY 2 DESC;
