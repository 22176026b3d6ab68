/* base/clock.c - see base/clock.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "base/clock.h"
#include <errno.h>
#include <stdlib.h>
#include <time.h>

int64_t td_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The reproducible-builds convention: SOURCE_DATE_EPOCH when set (documents are then
 * byte-identical run to run), else the current time. A malformed value is ignored. */
int64_t td_source_date_epoch(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (!errno && !*end && v >= 0 && v <= 253402300799LL)
            return v;
    }
    time_t now = time(NULL);
    return now < 0 ? 0 : (int64_t)now;
}
