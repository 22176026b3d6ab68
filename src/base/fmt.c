/* base/fmt.c - see base/fmt.h. */
#include "base/fmt.h"
#include <stdio.h>

void td_fmt_ns(char *dst, size_t cap, int64_t ns)
{
    double v = (double)ns;
    double a = v < 0 ? -v : v;
    if (a >= 1e9)
        snprintf(dst, cap, "%.3f s", v / 1e9);
    else if (a >= 1e6)
        snprintf(dst, cap, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
        snprintf(dst, cap, "%.3f " TD_US, v / 1e3);
    else
        snprintf(dst, cap, "%lld ns", (long long)ns);
}

void td_fmt_bytes(char *dst, size_t cap, int64_t bytes)
{
    double v = (double)bytes;
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while ((v >= 1024 || v <= -1024) && i < 4) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(dst, cap, "%lld B", (long long)bytes);
    else
        snprintf(dst, cap, "%.2f %s", v, u[i]);
}

const char *td_unit_name(double scale)
{
    return scale >= 1e9 ? "s" : scale >= 1e6 ? "ms" : scale >= 1e3 ? TD_US : "ns";
}
