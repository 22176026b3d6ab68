/* analyse/interval.c - sets of half-open time intervals (td_iv): merge, length, overlap,
 * union. The GPU timeline, the collectives' hidden time, the XLA views and the merge
 * all measure time with them. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

static int iv_cmp(const void *x, const void *y)
{
    const td_iv *a = x, *b = y;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

size_t td_iv_merge(td_iv *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].e > v[i].s)
            v[m++] = v[i];
    if (!m)
        return 0;
    /* lists made in event order are sorted by start already (the merge below does not
     * depend on the order of equal starts): no sort, and no sort buffer as large as
     * the list */
    size_t i0 = 1;
    while (i0 < m && v[i0 - 1].s <= v[i0].s)
        i0++;
    if (i0 < m)
        qsort(v, m, sizeof *v, iv_cmp);
    size_t k = 0;
    for (size_t i = 1; i < m; i++) {
        if (v[i].s <= v[k].e) {
            if (v[i].e > v[k].e)
                v[k].e = v[i].e;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

int64_t td_iv_len(const td_iv *v, size_t n)
{
    int64_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += v[i].e - v[i].s;
    return t;
}

int64_t td_iv_overlap(const td_iv *a, size_t na, const td_iv *b, size_t nb)
{
    int64_t t = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (e > s)
            t += e - s;
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return t;
}

int64_t td_iv_overlap1(const td_iv *a, size_t na, int64_t s, int64_t e)
{
    /* first interval whose end is after s */
    size_t lo = 0, hi = na;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].e <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < na && a[i].s < e; i++) {
        int64_t x = a[i].s > s ? a[i].s : s, y = a[i].e < e ? a[i].e : e;
        if (y > x)
            t += y - x;
    }
    return t;
}

td_iv *td_iv_union(const td_iv *a, size_t na, const td_iv *b, size_t nb, size_t *n)
{
    td_iv *u = td_xmalloc((na + nb + 1) * sizeof *u);
    size_t i = 0, j = 0, k = 0;
    while (i < na || j < nb) {
        td_iv x = (j >= nb || (i < na && a[i].s <= b[j].s)) ? a[i++] : b[j++];
        if (k && x.s <= u[k - 1].e) {
            if (x.e > u[k - 1].e)
                u[k - 1].e = x.e;
        } else {
            u[k++] = x;
        }
    }
    *n = k;
    return u;
}
