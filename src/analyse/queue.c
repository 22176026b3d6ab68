/* analyse/queue.c - launch queue length per (rank, stream), as HTA's
 * get_queue_length_summary (trace_counters.py:51-90, 157-165; doc/summary-json.md
 * "queue_length"): +1 when a runtime/driver call launches device work on the stream (at
 * the call's start), -1 when that work starts on the device. HTA summarises the values
 * at the change points unweighted (`mean_changes` here, for comparison); `mean` weights
 * each value by how long it held, over the stream's first to last change, which is what
 * "average queue length" means. Time blocked on a full queue: length >= 1024, the CUDA
 * launch queue depth (HTA's queue_full_blocked uses the same cut). */
#include "analyse/internal.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

#define QUEUE_DEPTH 1024

static td_table *table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "queue_length", "Launch queue length");
    td_table_cols(tb, "rank:int:Rank", "stream:int:Stream", "mean:f64:Mean (time-weighted)",
                  "mean_changes:f64:Mean over changes (HTA)", "max:int:Max",
                  "blocked_ns:ns:Blocked (queue full)", "blocked_share:share:Blocked share",
                  NULL);
    return tb;
}

/* One trace's rows. Per stream (td_dev_order: its work by start), the launches of that
 * work (usually already in time order: a stream runs its work in launch order; sorted
 * when not) are merged with the starts, a launch before a start at the same time (HTA
 * orders such ties either way: its mean over changes can differ by a few ticks). */
static void queue_trace(td_actx *a, td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    const int32_t *v = c->bystream;
    size_t n = c->nbystream;
    int64_t *lts = td_xmalloc((n + 1) * sizeof *lts), *sts = td_xmalloc((n + 1) * sizeof *sts);
    for (size_t i = 0; i < n;) {
        int32_t stream = t->tracks[t->ev[c->devix[v[i]]].track].stream;
        size_t j = i, m = 0;
        int sorted = 1;
        for (; j < n; j++) {
            const td_event *ev = &t->ev[c->devix[v[j]]];
            if (t->tracks[ev->track].stream != stream)
                break;
            int32_t r = c->launch[v[j]];
            if (r < 0)
                continue;
            lts[m] = t->ev[r].ts;
            sts[m] = ev->ts;
            if (m && lts[m] < lts[m - 1])
                sorted = 0;
            m++;
        }
        i = j;
        if (!m)
            continue;
        if (!sorted)
            td_sort_i64(lts, m);
        /* the changes in time order: +1 at each launch, -1 at each start; each value
         * holds until the next change */
        int64_t q = 0, max = 0, blocked = 0, t0 = 0, prev = 0;
        double sumq = 0, wsum = 0;
        for (size_t li = 0, si = 0; li < m || si < m;) {
            int64_t ts;
            int d;
            if (li < m && (si >= m || lts[li] <= sts[si]))
                ts = lts[li++], d = 1;
            else
                ts = sts[si++], d = -1;
            if (li + si == 1)
                t0 = ts;
            else {
                int64_t held = ts - prev;
                wsum += (double)q * (double)held;
                if (q >= QUEUE_DEPTH)
                    blocked += held;
            }
            q += d;
            sumq += (double)q;
            if (q > max)
                max = q;
            prev = ts;
        }
        int64_t span = prev - t0;
        td_table *tb = *tbp ? *tbp : (*tbp = table(a->s));
        size_t r = td_table_add_row(tb);
        td_row_int(a->s, tb, r, "rank", t->rank);
        td_row_int(a->s, tb, r, "stream", stream);
        if (span > 0)
            td_row_f64(a->s, tb, r, "mean", wsum / (double)span);
        td_row_f64(a->s, tb, r, "mean_changes", sumq / (double)(2 * m));
        td_row_int(a->s, tb, r, "max", max);
        td_row_int(a->s, tb, r, "blocked_ns", blocked);
        if (span > 0)
            td_row_f64(a->s, tb, r, "blocked_share", (double)blocked / (double)span);
    }
    free(lts);
    free(sts);
}

void td_an_queue(td_actx *a)
{
    td_table *tb = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].ndev)
            queue_trace(a, &a->tc[i], &tb);
}
