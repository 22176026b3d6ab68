/* analyse/critpath_pass.c - the critical-path tables (doc/summary-json.md
 * "critical_path"): per rank and steady step, the path's time by what bounds it
 * (analyse/critpath.c finds the path), and the segments of one step per rank for the PDF
 * (the steady step whose path is the median length); the culprit and victims of each
 * collective across ranks: analyse/critpath_coll.c. */
#include "analyse/critpath.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

static const char *ev_name(td_actx *a, const td_trace *t, int32_t i)
{
    return i >= 0 ? td_name(a, t->ev[i].name) : "";
}

/* The segments' (class, event) keys with their time, for step_rows: event -1 first (key:
 * class, then event + 1). Made before the segments are drawn, so that the segments can be
 * freed before v is sorted (a whole export without steps has tens of millions). */
static td_keyed *step_keys(const td_cp_result *r)
{
    td_keyed *v = td_xmalloc((r->nseg + 1) * sizeof *v);
    for (size_t j = 0; j < r->nseg; j++)
        v[j] = (td_keyed){(int64_t)r->seg[j].bound << 32 | (uint32_t)(r->seg[j].event + 1),
                          r->seg[j].end - r->seg[j].start};
    return v;
}

/* The rows of one step: per class, its time and the event with the most of it (v from
 * step_keys, freed here; r's segments are not read). */
static void step_rows(td_actx *a, const td_tctx *c, td_table *tb, int64_t step,
                      const td_cp_result *r, td_keyed *v)
{
    /* by key: a radix sort, not qsort */
    td_sort_keyed(v, r->nseg);
    int32_t top[TD_CP__N];
    int64_t topns[TD_CP__N] = {0};
    for (int b = 0; b < TD_CP__N; b++)
        top[b] = -1;
    for (size_t j = 0; j < r->nseg;) {
        size_t k = j;
        int64_t sum = 0;
        for (; k < r->nseg && v[k].key == v[j].key; k++)
            sum += v[k].val;
        int b = (int)(v[j].key >> 32);
        if (sum > topns[b]) {
            topns[b] = sum;
            top[b] = (int32_t)((int64_t)(uint32_t)v[j].key - 1);
        }
        j = k;
    }
    free(v);
    /* classes by time, largest first */
    int ord[TD_CP__N];
    for (int b = 0; b < TD_CP__N; b++)
        ord[b] = b;
    for (int i = 1; i < TD_CP__N; i++)
        for (int j = i; j > 0 && r->ns[ord[j]] > r->ns[ord[j - 1]]; j--) {
            int x = ord[j];
            ord[j] = ord[j - 1];
            ord[j - 1] = x;
        }
    for (int i = 0; i < TD_CP__N; i++) {
        int b = ord[i];
        if (!r->ns[b])
            continue;
        td_cp_row x = {c->t->rank, step, td_cp_bound_names[b], r->ns[b], r->total,
                       ev_name(a, c->t, top[b]), topns[b]};
        td_row_critpath(a->s, tb, td_table_add_row(tb), &x);
    }
}

static const char *lane_name(td_actx *a, const td_trace *t, uint32_t track)
{
    const td_track *k = &t->tracks[track];
    if (k->device >= 0)
        return td_arena_printf(a->s->a, "%s %d stream %d", td_devword(a), (int)k->device,
                               (int)k->stream);
    if (k->thread_name && *td_name(a, k->thread_name))
        return td_name(a, k->thread_name);
    return td_arena_printf(a->s->a, "CPU thread %lld", (long long)k->tid);
}

/* The drawn step's segments: consecutive edges on one lane with one class merged, named
 * after the event with the most of the run. */
static void seg_rows(td_actx *a, const td_tctx *c, td_table *tb, int64_t step,
                     const td_cp_result *r)
{
    const td_trace *t = c->t;
    /* a part shorter than 0.1% of the path joins the run before it on its lane (a page
     * draws no finer): the segments are for drawing, critical_path has the times */
    int64_t fine = r->total / 1000;
    for (size_t j = 0; j < r->nseg;) {
        size_t k = j;
        int32_t best = r->seg[j].event;
        int64_t bns = 0;
        for (; k < r->nseg && r->seg[k].track == r->seg[j].track &&
               (r->seg[k].bound == r->seg[j].bound || (k > j && r->seg[k].end - r->seg[k].start < fine));
             k++)
            if (r->seg[k].end - r->seg[k].start > bns) {
                bns = r->seg[k].end - r->seg[k].start;
                best = r->seg[k].event;
            }
        const td_track *tk = &t->tracks[r->seg[j].track];
        td_cp_seg_row x = {t->rank, step, lane_name(a, t, r->seg[j].track),
                           tk->device >= 0 ? tk->stream : -1, r->seg[j].start - c->t0,
                           r->seg[k - 1].end - c->t0, td_cp_bound_names[r->seg[j].bound],
                           ev_name(a, t, best)};
        td_row_cp_segment(a->s, tb, td_table_add_row(tb), &x);
        j = k;
    }
}

/* critical_path_waits: the window's time blocked in synchronizing calls (r->sync), of
 * its length s1 - s0, and the op and call with the most of it. */
static void wait_rows(td_actx *a, const td_tctx *c, td_table **tb, int64_t step, int64_t len,
                      const td_cp_result *r)
{
    const td_trace *t = c->t;
    int64_t total = 0, best = 0, bestcall = 0;
    int32_t op = -1, call = -1;
    int64_t prev_end = INT64_MIN;
    for (size_t j = 0; j < r->nsync; j++) {
        const td_event *e = &t->ev[r->sync[j].call];
        /* calls nested in calls (a driver call under a runtime call) count once */
        int64_t s0 = e->ts > prev_end ? e->ts : prev_end, s1 = e->ts + e->dur;
        if (s1 > s0)
            total += s1 - s0;
        if (s1 > prev_end)
            prev_end = s1;
    }
    if (total <= 0)
        return;
    /* a call inside another (MTIA's synchronize under synchronizeStream) counts once: the
     * list is in event order, so its parent is found by bisection */
    uint8_t *inner = td_xcalloc(r->nsync + 1, 1);
    for (size_t j = 0; j < r->nsync; j++) {
        int32_t q = c->parent[r->sync[j].call];
        size_t lo = 0, hi = j;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->sync[mid].call < q)
                lo = mid + 1;
            else
                hi = mid;
        }
        inner[j] = q >= 0 && lo < j && r->sync[lo].call == q;
    }
    /* the op with the most (calls are few: quadratic is fine) */
    for (size_t j = 0; j < r->nsync; j++) {
        int64_t ns = 0;
        for (size_t k = 0; k < r->nsync; k++)
            if (!inner[k] && t->ev[r->sync[k].op].name == t->ev[r->sync[j].op].name)
                ns += t->ev[r->sync[k].call].dur;
        if (ns > best) {
            best = ns;
            op = r->sync[j].op;
        }
    }
    for (size_t j = 0; j < r->nsync; j++) {
        int64_t ns = 0;
        if (t->ev[r->sync[j].op].name != t->ev[op].name)
            continue;
        for (size_t k = 0; k < r->nsync; k++)
            if (!inner[k] && t->ev[r->sync[k].op].name == t->ev[op].name &&
                t->ev[r->sync[k].call].name == t->ev[r->sync[j].call].name)
                ns += t->ev[r->sync[k].call].dur;
        if (ns > bestcall) {
            bestcall = ns;
            call = r->sync[j].call;
        }
    }
    free(inner);
    if (!*tb) {
        *tb = td_sum_table(a->s, "critical_path_waits", "CPU waiting for the device");
        td_table_cols(*tb, "rank:int:Rank", "step:int:Step", "wait_ns:ns:CPU waiting",
                      "share:share:Share of the step", "op:text:Most in", "call:text:Call",
                      "op_ns:ns:Its time", "calls:int:Calls", NULL);
    }
    size_t row = td_table_add_row(*tb);
    td_row_int(a->s, *tb, row, "rank", t->rank);
    td_row_int(a->s, *tb, row, "step", step);
    td_row_int(a->s, *tb, row, "wait_ns", total);
    td_row_f64(a->s, *tb, row, "share", len > 0 ? (double)total / (double)len : 0);
    td_row_str(a->s, *tb, row, "op", ev_name(a, t, op));
    td_row_str(a->s, *tb, row, "call", ev_name(a, t, call));
    td_row_int(a->s, *tb, row, "op_ns", best);
    td_row_int(a->s, *tb, row, "calls", (int64_t)r->nsync);
}

/* The drawn step's blocking calls as segments of their own class (sync_wait) on their
 * thread, after the path's: the time the CPU waited for the device. */
static void wait_segs(td_actx *a, const td_tctx *c, td_table *sg, int64_t step,
                      const td_cp_result *r)
{
    const td_trace *t = c->t;
    for (size_t j = 0; j < r->nsync; j++) {
        const td_event *e = &t->ev[r->sync[j].call];
        td_cp_seg_row x = {t->rank, step, lane_name(a, t, e->track), -1, e->ts - c->t0,
                           e->ts + e->dur - c->t0, "sync_wait", ev_name(a, t, r->sync[j].op)};
        td_row_cp_segment(a->s, sg, td_table_add_row(sg), &x);
    }
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* One window's rows (a step, or the whole trace: step null); its path length, -1 none.
 * With sg, also its segments when it has a path (one graph built, not two). */
static int64_t window_rows(td_actx *a, const td_tctx *c, void *st, td_table **tb, int64_t s0,
                           int64_t s1, int64_t step, td_table **sg, td_table **wt)
{
    td_cp_result r;
    int64_t len = -1;
    int ok = td_cp_step(a, c, st, s0, s1, &r);
    if (ok && r.total > 0) {
        if (!*tb)
            *tb = td_rows_critpath_table(a->s);
        td_keyed *v = step_keys(&r);
        len = r.total;
        if (sg) {
            if (!*sg)
                *sg = td_rows_cp_segments_table(a->s);
            seg_rows(a, c, *sg, step, &r);
            wait_segs(a, c, *sg, step, &r);
        }
        free(r.seg); /* before v's sort: the two are the peak of a whole-export window */
        r.seg = NULL;
        step_rows(a, c, *tb, step, &r, v);
    }
    wait_rows(a, c, wt, step, s1 - s0, &r);
    free(r.sync);
    free(r.seg);
    return len;
}

static void window_segs(td_actx *a, const td_tctx *c, void *st, td_table **sg, int64_t s0,
                        int64_t s1, int64_t step)
{
    td_cp_result r;
    td_cp_step(a, c, st, s0, s1, &r);
    if (!*sg)
        *sg = td_rows_cp_segments_table(a->s);
    seg_rows(a, c, *sg, step, &r);
    wait_segs(a, c, *sg, step, &r);
    free(r.sync);
    free(r.seg);
}

void td_an_critpath(td_actx *a)
{
    td_table *tb = NULL, *sg = NULL, *wt = NULL;
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        if (!c->ndev)
            continue;
        void *st = td_cp_trace_new(c);
        ((td_cptrace *)st)->hta = a->o->critpath_hta;
        if (!c->nsteps) {
            /* no step: the whole trace (as HTA without an annotation) */
            window_rows(a, c, st, &tb, c->t0, c->t1, TD_NA, &sg, &wt);
            td_cp_trace_free(st);
            continue;
        }
        int64_t *len = td_xmalloc((c->nsteps + 1) * sizeof *len), *sorted;
        size_t nl = 0;
        for (size_t k = 0; k < c->nsteps; k++) {
            const td_step *s = &c->steps[k];
            len[k] = !td_step_steady(s) ? -1 : window_rows(a, c, st, &tb, s->start, s->end, s->num, NULL, &wt);
            nl += len[k] >= 0;
        }
        /* the drawn step: the steady step whose path is the median length */
        if (nl) {
            sorted = td_xmalloc(nl * sizeof *sorted);
            size_t m = 0;
            for (size_t k = 0; k < c->nsteps; k++)
                if (len[k] >= 0)
                    sorted[m++] = len[k];
            qsort(sorted, nl, sizeof *sorted, cmp_i64);
            int64_t med = sorted[(nl - 1) / 2];
            free(sorted);
            for (size_t k = 0; k < c->nsteps; k++)
                if (len[k] == med) {
                    window_segs(a, c, st, &sg, c->steps[k].start, c->steps[k].end, c->steps[k].num);
                    break;
                }
        }
        free(len);
        td_cp_trace_free(st);
    }
    td_an_critpath_coll(a);
}
