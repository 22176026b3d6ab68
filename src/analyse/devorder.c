/* analyse/devorder.c - one ordering of a trace's device work by (stream, start), shared
 * by the passes that walk each stream in time (idle causes, queue lengths): each of
 * them used to copy and qsort every device event. The events are sorted by start
 * (td_read_finish), so a stable bucketing by stream gives the order in one pass; a
 * stream whose work is not in start order (a reader that does not sort) is sorted by
 * start, ties in event order. */
#include "analyse/internal.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

static int i32_cmp(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

void td_dev_order(td_tctx *c)
{
    if (c->devix)
        return;
    const td_trace *t = c->t;
    c->devix = td_xmalloc((c->ndev + 1) * sizeof *c->devix);
    /* the distinct streams, in order, and each track's bucket */
    int32_t *sid = td_xmalloc((t->ntracks + 1) * sizeof *sid);
    size_t ns = 0;
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].stream >= 0)
            sid[ns++] = t->tracks[i].stream;
    qsort(sid, ns, sizeof *sid, i32_cmp);
    size_t nu = 0;
    for (size_t i = 0; i < ns; i++)
        if (!nu || sid[nu - 1] != sid[i])
            sid[nu++] = sid[i];
    int32_t *bucket = td_xmalloc((t->ntracks + 1) * sizeof *bucket);
    for (size_t i = 0; i < t->ntracks; i++) {
        bucket[i] = -1;
        int32_t st = t->tracks[i].stream;
        if (st < 0)
            continue;
        size_t lo = 0, hi = nu;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sid[mid] < st)
                lo = mid + 1;
            else
                hi = mid;
        }
        bucket[i] = (int32_t)lo;
    }
    size_t *at = td_xcalloc(nu + 1, sizeof *at);
    for (size_t i = 0, k = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        if (!td_kind_is_device(ev->kind))
            continue;
        c->devix[k++] = (int32_t)i;
        if (ev->track < t->ntracks && bucket[ev->track] >= 0)
            at[bucket[ev->track] + 1]++;
    }
    for (size_t b = 0; b < nu; b++)
        at[b + 1] += at[b];
    c->nbystream = at[nu];
    c->bystream = td_xmalloc((c->nbystream + 1) * sizeof *c->bystream);
    size_t *fill = td_xmalloc((nu + 1) * sizeof *fill);
    memcpy(fill, at, (nu + 1) * sizeof *fill);
    for (size_t k = 0; k < c->ndev; k++) {
        const td_event *ev = &t->ev[c->devix[k]];
        if (ev->track < t->ntracks && bucket[ev->track] >= 0)
            c->bystream[fill[bucket[ev->track]]++] = (int32_t)k;
    }
    free(fill);
    /* each stream in start order (already so when the events are sorted by start) */
    for (size_t b = 0; b < nu; b++) {
        size_t lo = at[b], hi = at[b + 1], j = lo + 1;
        while (j < hi && t->ev[c->devix[c->bystream[j - 1]]].ts <= t->ev[c->devix[c->bystream[j]]].ts)
            j++;
        if (j >= hi)
            continue;
        td_keyed *kv = td_xmalloc((hi - lo) * sizeof *kv);
        for (size_t i = lo; i < hi; i++)
            kv[i - lo] = (td_keyed){t->ev[c->devix[c->bystream[i]]].ts, c->bystream[i]};
        td_sort_keyed(kv, hi - lo);
        for (size_t i = lo; i < hi; i++)
            c->bystream[i] = (int32_t)kv[i - lo].val;
        free(kv);
    }
    free(at);
    free(bucket);
    free(sid);
}

size_t td_count_kernels(const td_actx *a)
{
    size_t n = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        const td_tctx *c = &a->tc[ti];
        for (size_t k = 0; k < c->ndev; k++)
            n += c->t->ev[c->devix[k]].kind == TD_K_KERNEL ||
                 c->t->ev[c->devix[k]].kind == TD_K_DEVICE_OTHER;
    }
    return n;
}
