/* analyse/steps.c - steps (ProfilerStep#N, else iteration_N, or --step-pattern
 * ranges on host threads), warm-up removal, and the steps table.
 *
 * Warm-up rule for --warmup auto, per rank: with at least 3 steps, the first step is
 * dropped when its wall time exceeds 1.5x the median wall time of the other steps
 * (first-iteration costs: allocator growth, cuDNN autotuning, lazy init, compilation).
 * Nothing else is dropped: torch.profiler's schedule already discards its own warm-up
 * steps, so later steps are steady state unless they show otherwise (see outlier_steps).
 *
 * The schedule (wait, warmup, active, repeat, skip_first) runs every step but records
 * only the active ones, so the recorded step numbers show it: a run of consecutive
 * numbers is one active window; a first number above 0 and the gaps between windows are
 * steps that ran unrecorded (skip_first, wait and warm-up, or before profiling began;
 * how ProfilerStep# numbers map to loop iterations differs by one between torch
 * versions, so the count is of missing numbers, not a claim about the schedule).
 * schedule.windows / .first_step / .missing_steps / .steps say so (the first rank
 * with steps; torch.profiler gives every rank the same schedule).
 *
 * Steps cut short by the trace's ends, per rank (column cut of `steps`; doc/summary-json.md): the
 * profiler's stop ends the step range that is open at that moment (leaving
 * `with profile(...)` right after prof.step() records a ProfilerStep#N+1 holding little
 * or nothing), and a trace that begins during a step records only its tail. The last
 * step is cut by the trace's end when the trace ends less than half a typical step (the
 * median wall time of the rank's other steps) after it began: t1 - start < 0.5 median,
 * t1 the end of the trace's last event; a complete last step has t1 - start >= its own
 * wall time. The first step is cut by the trace's start when it ends less than half a
 * typical step after the trace's first event: end - t0 < 0.5 median. With only one other
 * step the median is that step, which may be a long first iteration: then the candidate
 * must also hold no work (no device work and no op of its thread begins inside it).
 * A cut step stays in the steps table (cut 1) but not in any step statistic (the step
 * time, outliers, warm-up, critical path, telemetry coverage); analyse/headline.c counts
 * them (step_time.cut_steps) and says so (step_time.cut_note). */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

#define AUTO_RATIO 1.5
#define CUT_RATIO 0.5 /* a step cut by the trace's ends: under half a typical step recorded */

/* n is prefix followed by one or more digits (ProfilerStep#12, iteration_3) */
static int is_numbered(const char *n, const char *prefix)
{
    size_t k = strlen(prefix);
    if (strncmp(n, prefix, k))
        return 0;
    n += k;
    if (!*n)
        return 0;
    for (; *n; n++)
        if (*n < '0' || *n > '9')
            return 0;
    return 1;
}

static int step_cmp(const void *x, const void *y)
{
    const td_step *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return (a->track > b->track) - (a->track < b->track);
}

static int i64_cmp(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int host_range(const td_trace *t, const td_event *ev)
{
    return !td_kind_is_device(ev->kind) && ev->kind != TD_K_INSTANT && ev->kind != TD_K_GPU_ANNOT &&
           ev->dur > 0 && ev->track < t->ntracks && t->tracks[ev->track].device < 0;
}

/* Collect steps of one trace. cache: per name id, 0 unknown, 1 no, 2 yes (regex). */
static void find_steps(td_actx *a, td_tctx *c, uint8_t *cache)
{
    td_trace *t = c->t;
    size_t cap = 0;
    for (int pass = 0; pass < 2 && !c->nsteps; pass++) {
        if (a->has_step_re && pass)
            break;
        for (size_t i = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if (!host_range(t, ev))
                continue;
            int hit;
            if (a->has_step_re) {
                if (!cache[ev->name])
                    cache[ev->name] =
                        regexec(&a->step_re, td_name(a, ev->name), 0, NULL, 0) == 0 ? 2 : 1;
                hit = cache[ev->name] == 2;
            } else {
                const char *nm = td_name(a, ev->name);
                hit = is_numbered(nm, pass == 0 ? "ProfilerStep#" : "iteration_");
            }
            if (!hit)
                continue;
            td_step *st = TD_PUSH(c->steps, c->nsteps, cap);
            memset(st, 0, sizeof *st);
            st->start = ev->ts;
            st->end = ev->ts + ev->dur;
            st->name = ev->name;
            st->track = ev->track;
            st->num = td_trailing_num(td_name(a, ev->name));
        }
    }
    if (c->nsteps)
        qsort(c->steps, c->nsteps, sizeof *c->steps, step_cmp);
    for (size_t k = 0; k < c->nsteps; k++)
        if (c->steps[k].num < 0)
            c->steps[k].num = (int64_t)k;
    for (size_t k = 0; k < c->nsteps; k++)
        c->steps[k].window = k == 0 ? 1
                             : c->steps[k - 1].window +
                                   (c->steps[k].num != c->steps[k - 1].num + 1);
}

/* steps.* scalars of the schedule as the step numbers show it (see the top comment). */
static void schedule_scalars(td_actx *a, const td_tctx *c)
{
    td_summary *s = a->s;
    const td_step *st = c->steps;
    size_t n = c->nsteps;
    int64_t windows = st[n - 1].window, unrec = st[0].num > 0 ? st[0].num : 0;
    for (size_t k = 1; k < n; k++)
        if (st[k].window != st[k - 1].window && st[k].num > st[k - 1].num)
            unrec += st[k].num - st[k - 1].num - 1;
    td_sum_set_int(s, "schedule.first_step", "First recorded step", TD_T_INT, st[0].num);
    td_sum_set_int(s, "schedule.windows", "Active windows (runs of consecutive steps)", TD_T_INT,
                   windows);
    td_sum_set_int(s, "schedule.missing_steps", "Step numbers missing before and between the "
                   "windows", TD_T_INT, unrec);
    const char *nm = td_name(a, st[0].name);
    size_t pl = strlen(nm);
    while (pl > 0 && nm[pl - 1] >= '0' && nm[pl - 1] <= '9')
        pl--;
    td_buf b = {0};
    td_buf_printf(&b, "%zu step%s recorded in %lld active window%s (", n, n == 1 ? "" : "s",
                  (long long)windows, windows == 1 ? "" : "s");
    for (size_t k = 0, shown = 0; k < n; k++) {
        if (k + 1 < n && st[k + 1].window == st[k].window)
            continue; /* k ends a window */
        size_t f = k;
        while (f > 0 && st[f - 1].window == st[k].window)
            f--;
        if (shown++ == 4) {
            td_buf_puts(&b, ", ...");
            break;
        }
        td_buf_printf(&b, "%s%.*s%lld", shown > 1 ? ", " : "", (int)pl, nm,
                      (long long)st[f].num);
        if (k > f)
            td_buf_printf(&b, "-%lld", (long long)st[k].num);
    }
    td_buf_puts(&b, ")");
    if (unrec)
        td_buf_printf(&b, "; %lld step number%s missing %s: those steps ran unrecorded "
                      "(torch.profiler's schedule records only its active steps, not its "
                      "wait and warm-up steps) or before profiling began", (long long)unrec,
                      unrec == 1 ? " is" : "s are",
                      windows > 1 ? "before and between the windows" : "before the first");
    td_buf_puts(&b, ".");
    td_sum_set_str(s, "schedule.steps", "Recorded steps", td_arena_strdup(s->a, td_buf_cstr(&b)));
    td_buf_free(&b);
}

/* Median wall time of the steps other than skip and those already cut; 0 when none. */
static double median_other(const td_step *st, size_t n, size_t skip, size_t *nother)
{
    int64_t *w = td_xmalloc((n + 1) * sizeof *w);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (k != skip && !st[k].cut)
            w[m++] = st[k].end - st[k].start;
    double med = 0;
    if (m) {
        qsort(w, m, sizeof *w, i64_cmp);
        med = m % 2 ? (double)w[m / 2] : ((double)w[m / 2 - 1] + (double)w[m / 2]) / 2.0;
    }
    free(w);
    *nother = m;
    return med;
}

/* Did anything run in the step: device work overlapping it, or an op of its thread
 * (other than the step's own range) beginning inside it. */
static int step_has_work(const td_tctx *c, const td_step *sp)
{
    const td_trace *t = c->t;
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        if (td_kind_is_device(ev->kind)) {
            if (ev->ts < sp->end && ev->ts + ev->dur > sp->start)
                return 1;
        } else if (c->isop && c->isop[i] && ev->track == sp->track && ev->ts >= sp->start &&
                   ev->ts < sp->end && !(ev->ts == sp->start && ev->name == sp->name))
            return 1;
    }
    return 0;
}

/* Mark the steps cut short by the trace's end or start (see the top comment). */
static void mark_cut(td_tctx *c)
{
    td_step *st = c->steps;
    size_t n = c->nsteps, nother;
    if (n < 2)
        return;
    size_t last = n - 1;
    for (size_t k = 0; k < n; k++) /* the step that began last */
        if (st[k].start >= st[last].start)
            last = k;
    double med = median_other(st, n, last, &nother);
    if (med > 0 && (double)(c->t1 - st[last].start) < CUT_RATIO * med &&
        (nother >= 2 || !step_has_work(c, &st[last])))
        st[last].cut = 1;
    if (st[0].cut)
        return;
    med = median_other(st, n, 0, &nother);
    if (nother && med > 0 && (double)(st[0].end - c->t0) < CUT_RATIO * med &&
        (nother >= 2 || !step_has_work(c, &st[0])))
        st[0].cut = 2;
}

/* Number of warm-up steps to drop for one rank. */
static size_t warmup_count(const td_opts *o, const td_step *st, size_t n)
{
    if (o->warmup == TD_WARMUP_NONE || n == 0)
        return 0;
    if (o->warmup > 0)
        return (size_t)o->warmup < n ? (size_t)o->warmup : n;
    if (n < 3)
        return 0;
    int64_t *w = td_xmalloc((n - 1) * sizeof *w);
    for (size_t k = 1; k < n; k++)
        w[k - 1] = st[k].end - st[k].start;
    qsort(w, n - 1, sizeof *w, i64_cmp);
    size_t m = n - 1;
    double med = m % 2 ? (double)w[m / 2] : ((double)w[m / 2 - 1] + (double)w[m / 2]) / 2.0;
    free(w);
    return (double)(st[0].end - st[0].start) > AUTO_RATIO * med ? 1 : 0;
}

td_status td_an_steps(td_actx *a, td_err *e)
{
    (void)e;
    td_summary *s = a->s;
    size_t nstr = td_strtab_count(a->set->strs);
    uint8_t *cache = a->has_step_re ? td_xcalloc(nstr + 1, 1) : NULL;
    size_t total = 0, dropped = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        c->steady0 = INT64_MIN;
        find_steps(a, c, cache);
        total += c->nsteps;
        mark_cut(c);
        /* warm-up among the steps that are not cut (cut ones are only at either end) */
        size_t f = 0, m = 0;
        while (f < c->nsteps && c->steps[f].cut)
            f++;
        for (size_t k = f; k < c->nsteps; k++)
            m += !c->steps[k].cut;
        c->ndropped = c->nsteps ? warmup_count(a->o, c->steps + f, m) : 0;
        for (size_t k = 0; k < c->ndropped; k++)
            c->steps[f + k].warmup = 1;
        dropped += c->ndropped;
        if ((c->ndropped || f) && f + c->ndropped < c->nsteps)
            c->steady0 = c->steps[f + c->ndropped].start;
    }
    free(cache);

    const char *mode = a->o->warmup == TD_WARMUP_AUTO ? "auto"
                       : a->o->warmup == TD_WARMUP_NONE
                           ? "none"
                           : td_arena_printf(s->a, "%d", a->o->warmup);
    td_sum_set_str(s, "warmup.mode", "Warm-up removal", mode);
    td_sum_set_int(s, "warmup.dropped", "Warm-up steps dropped", TD_T_INT, (int64_t)dropped);
    const char *rule = td_warmup_rule(s, a->o, total, dropped, a->n);
    td_sum_set_str(s, "warmup.rule", "Warm-up rule", rule);
    if (!total)
        return TD_OK;

    for (size_t ti = 0; ti < a->n; ti++)
        if (a->tc[ti].nsteps) {
            schedule_scalars(a, &a->tc[ti]);
            break;
        }
    td_table *tb = td_sum_table(s, "steps", "Steps");
    td_table_cols(tb, "rank:int:Rank", "name:text:Step", "step:int:#", "start_ns:ns:Start",
                  "wall_ns:ns:Wall", "device_busy_ns:ns:Device busy", "warmup:bool:Warm-up",
                  "window:int:Active window", "cut:bool:Cut short", NULL);
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        if (!c->nsteps)
            continue;
        td_iv *dv = NULL;
        size_t nd = 0;
        if (c->ndev) {
            dv = td_xmalloc(c->ndev * sizeof *dv);
            for (size_t i = 0; i < t->nev; i++)
                if (td_kind_is_device(t->ev[i].kind))
                    dv[nd++] = (td_iv){t->ev[i].ts, t->ev[i].ts + t->ev[i].dur};
            nd = td_iv_merge(dv, nd);
        }
        for (size_t k = 0; k < c->nsteps; k++) {
            const td_step *st = &c->steps[k];
            size_t r = td_table_add_row(tb);
            td_row_int(s, tb, r, "rank", t->rank);
            td_row_str(s, tb, r, "name", td_name(a, st->name));
            td_row_int(s, tb, r, "step", st->num);
            td_row_int(s, tb, r, "start_ns", st->start - c->t0);
            td_row_int(s, tb, r, "wall_ns", st->end - st->start);
            td_row_int(s, tb, r, "device_busy_ns",
                       c->ndev ? td_iv_overlap1(dv, nd, st->start, st->end) : TD_NA);
            td_row_int(s, tb, r, "warmup", st->warmup);
            td_row_int(s, tb, r, "window", st->window);
            td_row_int(s, tb, r, "cut", st->cut != 0);
        }
        free(dv);
    }
    return TD_OK;
}
