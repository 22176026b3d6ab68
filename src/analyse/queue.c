/* analyse/queue.c - launch queue length per (rank, stream), as HTA's
 * get_queue_length_summary (trace_counters.py:51-90, 157-165; doc/summary-json.md
 * "queue_length"): +1 when a runtime/driver call launches device work on the stream (at
 * the call's start), -1 when that work starts on the device. HTA summarises the values
 * at the change points unweighted (`mean_changes` here, for comparison); `mean` weights
 * each value by how long it held, over the stream's first to last change, which is what
 * "average queue length" means. Time blocked on a full queue: length >= 1024, the CUDA
 * launch queue depth (HTA's queue_full_blocked uses the same cut). */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

#define QUEUE_DEPTH 1024

typedef struct qc {
    int32_t stream;
    int32_t d;   /* +1 launch, -1 device start */
    int64_t ts;
} qc;

static int qc_cmp(const void *x, const void *y)
{
    const qc *a = x, *b = y;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return b->d - a->d; /* a launch before a start at the same time (HTA orders such ties
                          * either way: its mean over changes can differ by a few ticks) */
}

static td_table *table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "queue_length", "Launch queue length");
    td_table_cols(tb, "rank:int:Rank", "stream:int:Stream", "mean:f64:Mean (time-weighted)",
                  "mean_changes:f64:Mean over changes (HTA)", "max:int:Max",
                  "blocked_ns:ns:Blocked (queue full)", "blocked_share:share:Blocked share",
                  NULL);
    return tb;
}

static void queue_trace(td_actx *a, const td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    qc *v = td_xmalloc((2 * c->ndev + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0, k = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        if (!td_kind_is_device(ev->kind))
            continue;
        int32_t r = c->launch[k++];
        int32_t st = ev->track < t->ntracks ? t->tracks[ev->track].stream : -1;
        if (r < 0 || st < 0)
            continue;
        v[n++] = (qc){st, 1, t->ev[r].ts};
        v[n++] = (qc){st, -1, ev->ts};
    }
    qsort(v, n, sizeof *v, qc_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t q = 0, max = 0, blocked = 0;
        double sumq = 0, wsum = 0;
        for (; j < n && v[j].stream == v[i].stream; j++) {
            q += v[j].d;
            sumq += (double)q;
            if (q > max)
                max = q;
            if (j + 1 < n && v[j + 1].stream == v[i].stream) {
                int64_t held = v[j + 1].ts - v[j].ts;
                wsum += (double)q * (double)held;
                if (q >= QUEUE_DEPTH)
                    blocked += held;
            }
        }
        int64_t span = v[j - 1].ts - v[i].ts;
        td_table *tb = *tbp ? *tbp : (*tbp = table(a->s));
        size_t r = td_table_add_row(tb);
        td_row_int(a->s, tb, r, "rank", t->rank);
        td_row_int(a->s, tb, r, "stream", v[i].stream);
        if (span > 0)
            td_row_f64(a->s, tb, r, "mean", wsum / (double)span);
        td_row_f64(a->s, tb, r, "mean_changes", sumq / (double)(j - i));
        td_row_int(a->s, tb, r, "max", max);
        td_row_int(a->s, tb, r, "blocked_ns", blocked);
        if (span > 0)
            td_row_f64(a->s, tb, r, "blocked_share", (double)blocked / (double)span);
        i = j;
    }
    free(v);
}

void td_an_queue(td_actx *a)
{
    td_table *tb = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].ndev)
            queue_trace(a, &a->tc[i], &tb);
}
