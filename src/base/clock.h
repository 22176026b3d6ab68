/* base/clock.h - the time: a monotonic clock for --timings and the documents' date. */
#ifndef TD_CLOCK_H
#define TD_CLOCK_H
#include <stdint.h>

/* Monotonic clock in ns, for --timings. */
int64_t td_now_ns(void);

/* Date of the documents: SOURCE_DATE_EPOCH (reproducible builds), or the current time
 * when it is unset or invalid. */
int64_t td_source_date_epoch(void);

#endif
