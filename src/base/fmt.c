/* base/fmt.c - see base/fmt.h. */
#include "base/fmt.h"
#include <math.h>
#include <stdio.h>

size_t td_fmt_int(char *dst, size_t cap, int64_t v)
{
    char t[24];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        t[n++] = (char)('0' + u % 10);
    while ((u /= 10));
    if (v < 0)
        t[n++] = '-';
    if (n + 1 > cap) { /* what fits, as snprintf would cut it */
        int k = cap ? snprintf(dst, cap, "%lld", (long long)v) : 0;
        return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap ? cap - 1 : 0;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = t[n - 1 - i];
    dst[n] = 0;
    return n;
}

size_t td_fmt_fixed(char *dst, size_t cap, double v, int ndec)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    static const uint64_t u10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                   100000000, 1000000000};
    if (ndec < 0 || ndec > 9 || cap < 32 || !isfinite(v))
        goto slow;
    double a = fabs(v), sc = a * p10[ndec];
    /* below 1e9 the product is within 1.2e-7 of v x 10^ndec: a fraction more than 1e-6
     * from one half rounds the way the exact value does */
    if (!(sc < 1e9))
        goto slow;
    double fl = floor(sc), fr = sc - fl;
    if (fabs(fr - 0.5) < 1e-6)
        goto slow;
    uint64_t r = (uint64_t)fl + (fr > 0.5), ip = r / u10[ndec], fp = r % u10[ndec];
    size_t n = 0;
    if (signbit(v))
        dst[n++] = '-';
    n += td_fmt_int(dst + n, cap - n, (int64_t)ip);
    if (ndec) {
        dst[n++] = '.';
        for (int i = ndec - 1; i >= 0; i--, fp /= 10)
            dst[n + (size_t)i] = (char)('0' + fp % 10);
        n += (size_t)ndec;
    }
    dst[n] = 0;
    return n;
slow:;
    int k = snprintf(dst, cap, "%.*f", ndec < 0 ? 0 : ndec, v);
    return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap ? cap - 1 : 0;
}

void td_fmt_ns(char *dst, size_t cap, int64_t ns)
{
    static const struct { double at; const char *unit; } units[] = {
        {1e9, " s"}, {1e6, " ms"}, {1e3, " " TD_US}};
    double v = (double)ns;
    double a = v < 0 ? -v : v;
    char t[40];
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (a >= units[i].at) {
            td_fmt_fixed(t, sizeof t, v / units[i].at, 3);
            snprintf(dst, cap, "%s%s", t, units[i].unit);
            return;
        }
    td_fmt_int(t, sizeof t, ns);
    snprintf(dst, cap, "%s ns", t);
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
