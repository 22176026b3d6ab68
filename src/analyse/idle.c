/* analyse/idle.c - idle time by cause per (rank, stream), as HTA's
 * get_idle_time_breakdown defines it (breakdown_analysis.py:764-801; doc/summary-json.md
 * "idle_breakdown"): device work of a stream sorted by start; the gap before each one is
 * "host_wait" when its launching runtime/driver call started after the previous one
 * ended (the device waited for the CPU), else "kernel_wait" when shorter than 30 us
 * (back-to-back launch overhead), else "other". Shares are of the stream's idle time.
 * Unlike HTA a negative gap (work overlapping the previous one on the stream) counts 0:
 * overlap is not idle time; and work whose launching call is not in the trace is never
 * "host_wait" (HTA takes the trace's first event as its launch). tests/diag_idle.py. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay, 30 us */

enum { IC_HOST, IC_KERNEL, IC_OTHER, IC__N };
static const char *const cat_name[IC__N] = {"host_wait", "kernel_wait", "other"};

/* One trace's rows: its device work by (stream, start), td_dev_order. */
static void idle_trace(td_actx *a, td_tctx *c, td_table *tb)
{
    const td_trace *t = c->t;
    const int32_t *v = c->bystream;
    size_t n = c->nbystream;
    for (size_t i = 0; i < n;) {
        const td_event *first = &t->ev[c->devix[v[i]]];
        int32_t stream = t->tracks[first->track].stream;
        size_t j = i + 1;
        int64_t sum[IC__N] = {0};
        int64_t prev = first->ts + first->dur;
        for (; j < n; j++) {
            const td_event *ev = &t->ev[c->devix[v[j]]];
            if (t->tracks[ev->track].stream != stream)
                break;
            int32_t r = c->launch[v[j]];
            int64_t gap = ev->ts - prev;
            int cat = r >= 0 && t->ev[r].ts > prev ? IC_HOST
                      : gap < KERNEL_WAIT_NS       ? IC_KERNEL
                                                   : IC_OTHER;
            sum[cat] += gap > 0 ? gap : 0;
            prev = ev->ts + ev->dur;
        }
        int64_t tot = sum[0] + sum[1] + sum[2];
        for (int k = 0; k < IC__N; k++) {
            size_t r = td_table_add_row(tb);
            td_row_int(a->s, tb, r, "rank", t->rank);
            td_row_int(a->s, tb, r, "stream", stream);
            td_row_str(a->s, tb, r, "category", cat_name[k]);
            td_row_int(a->s, tb, r, "idle_ns", sum[k]);
            if (tot > 0)
                td_row_f64(a->s, tb, r, "share", (double)sum[k] / (double)tot);
        }
        i = j;
    }
}

void td_an_idle(td_actx *a)
{
    if (!a->any_device)
        return;
    td_table *tb = NULL;
    for (size_t i = 0; i < a->n; i++) {
        if (!a->tc[i].ndev)
            continue;
        if (!tb) {
            tb = td_sum_table(a->s, "idle_breakdown", "Idle time by cause");
            td_table_cols(tb, "rank:int:Rank", "stream:int:Stream", "category:text:Cause",
                          "idle_ns:ns:Idle", "share:share:Share of the stream's idle", NULL);
        }
        idle_trace(a, &a->tc[i], tb);
    }
}
