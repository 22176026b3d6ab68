/* read/telemetry.h - device monitors sampled beside a trace (--telemetry FILE):
 * `aiu-smi dmon` / `nvidia-smi dmon` text (`#` header lines: names, then units; rows
 * whitespace separated; with or without the Date/Time columns), `nvidia-smi
 * --query-gpu=... --format=csv` and any CSV with a timestamp column. Columns are
 * recognised by name and unit; unknown numeric columns are kept as metrics of kind
 * "other". Samples go into the trace set (set->tm*, set->ts*, set->tf*). */
#ifndef TD_READ_TELEMETRY_H
#define TD_READ_TELEMETRY_H
#include "model/model.h"

/* Read one telemetry file. start_ns: wall-clock time (ns since the epoch) of the first
 * sample for monitors that print no dates (--telemetry-start), or INT64_MIN when not
 * given. Errors name the file and line (TD_E_FORMAT, exit 3). */
td_status td_read_telemetry_file(td_traceset *set, const char *path, int64_t start_ns,
                                 td_err *e);

/* Parse "2025-11-22T08:26:41Z", "2025-11-22 08:26:41.5", "2025/11/22 08:26:41.123" (UTC,
 * years 1900-2261: the range of 64-bit nanoseconds)
 * or seconds since the epoch ("1763800001.5") into ns since the epoch. 0 on failure. */
int td_parse_wallclock(const char *s, size_t n, int64_t *ns);

#endif
