-- bench/sql/kern_sum_min.sql - the least of the kernel summary (bench/sql/kern_sum.sql
-- without median and standard deviation): one GROUP BY pass over the kernel rows.
SELECT sum("end" - "start") AS "Total Time (ns)", count(*) AS "Instances",
       round(avg("end" - "start"), 1) AS "Avg (ns)", min("end" - "start") AS "Min (ns)",
       max("end" - "start") AS "Max (ns)", ids.value AS "Name"
FROM CUPTI_ACTIVITY_KIND_KERNEL LEFT JOIN StringIds AS ids ON ids.id = coalesce(demangledName, shortName)
GROUP BY coalesce(demangledName, shortName) ORDER BY 1 DESC;
