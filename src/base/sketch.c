/* base/sketch.c - DDSketch; see base/sketch.h. */
#include "base/sketch.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double gamma_(void)
{
    return (1.0 + TD_SKETCH_ALPHA) / (1.0 - TD_SKETCH_ALPHA);
}

static int32_t index_of(int64_t x)
{
    static double lg;
    if (!lg)
        lg = log(gamma_());
    return (int32_t)ceil(log((double)x) / lg);
}

/* Make bucket i addressable. */
static void cover(td_sketch *s, int32_t i)
{
    if (!s->n) {
        s->counts = td_xcalloc(1, sizeof *s->counts);
        s->lo = i;
        s->n = 1;
        return;
    }
    if (i >= s->lo && i < s->lo + (int32_t)s->n)
        return;
    int32_t lo = i < s->lo ? i : s->lo;
    int32_t hi = i >= s->lo + (int32_t)s->n ? i : s->lo + (int32_t)s->n - 1;
    uint64_t *c = td_xcalloc((size_t)(hi - lo + 1), sizeof *c);
    memcpy(c + (s->lo - lo), s->counts, s->n * sizeof *c);
    free(s->counts);
    s->counts = c;
    s->lo = lo;
    s->n = (uint32_t)(hi - lo + 1);
}

void td_sketch_add(td_sketch *s, int64_t x, uint64_t count)
{
    s->total += count;
    if (x <= 0) {
        s->zero += count;
        return;
    }
    int32_t i = index_of(x);
    cover(s, i);
    s->counts[i - s->lo] += count;
}

void td_sketch_merge(td_sketch *dst, const td_sketch *src)
{
    if (src->n) {
        cover(dst, src->lo);
        cover(dst, src->lo + (int32_t)src->n - 1);
        for (uint32_t k = 0; k < src->n; k++)
            dst->counts[src->lo + (int32_t)k - dst->lo] += src->counts[k];
    }
    dst->zero += src->zero;
    dst->total += src->total;
}

void td_sketch_free(td_sketch *s)
{
    free(s->counts);
    memset(s, 0, sizeof *s);
}

double td_sketch_rank(const td_sketch *s, uint64_t r)
{
    if (!s->total)
        return 0;
    if (r < s->zero)
        return 0;
    uint64_t cum = s->zero;
    for (uint32_t k = 0; k < s->n; k++) {
        cum += s->counts[k];
        if (cum > r)
            return 2.0 * pow(gamma_(), s->lo + (int32_t)k) / (gamma_() + 1.0);
    }
    return 2.0 * pow(gamma_(), s->lo + (int32_t)s->n - 1) / (gamma_() + 1.0);
}

double td_sketch_median(const td_sketch *s)
{
    uint64_t n = s->total;
    if (!n)
        return 0;
    if (n % 2)
        return td_sketch_rank(s, n / 2);
    return (td_sketch_rank(s, n / 2 - 1) + td_sketch_rank(s, n / 2)) / 2.0;
}

void td_sketch_write(const td_sketch *s, td_buf *b)
{
    td_buf_printf(b, "%llu;%d;", (unsigned long long)s->zero, s->n ? s->lo : 0);
    uint32_t k = 0;
    int first = 1;
    while (k < s->n) {
        if (!first)
            td_buf_putc(b, ',');
        first = 0;
        if (!s->counts[k]) {
            uint32_t z = k;
            while (z < s->n && !s->counts[z])
                z++;
            td_buf_printf(b, "*%u", z - k);
            k = z;
        } else {
            td_buf_printf(b, "%llu", (unsigned long long)s->counts[k++]);
        }
    }
}

static int num(const char **p, const char *end, uint64_t *v)
{
    const char *q = *p;
    uint64_t x = 0;
    if (q >= end || *q < '0' || *q > '9')
        return 0;
    while (q < end && *q >= '0' && *q <= '9') {
        if (x > (UINT64_MAX - 9) / 10)
            return 0;
        x = x * 10 + (uint64_t)(*q++ - '0');
    }
    *p = q;
    *v = x;
    return 1;
}

int td_sketch_parse(td_sketch *s, const char *p, size_t n)
{
    memset(s, 0, sizeof *s);
    const char *end = p + n;
    uint64_t zero, v;
    int neg = 0;
    if (!num(&p, end, &zero) || p >= end || *p++ != ';')
        return 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (!num(&p, end, &v) || v > 100000 || p >= end || *p++ != ';')
        return 0;
    int32_t lo = neg ? -(int32_t)v : (int32_t)v;
    s->zero = zero;
    s->total = zero;
    int32_t i = lo;
    while (p < end) {
        if (*p == '*') {
            p++;
            if (!num(&p, end, &v) || v == 0 || v > 100000)
                goto bad;
            i += (int32_t)v;
        } else {
            if (!num(&p, end, &v))
                goto bad;
            if (i > 100000 || i < -100000)
                goto bad;
            cover(s, i);
            s->counts[i - s->lo] += v;
            s->total += v;
            i++;
        }
        if (p < end && *p++ != ',')
            goto bad;
    }
    return 1;
bad:
    td_sketch_free(s);
    return 0;
}
