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
 * with steps; torch.profiler gives every rank the same schedule). */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

#define AUTO_RATIO 1.5

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
        c->ndropped = warmup_count(a->o, c->steps, c->nsteps);
        for (size_t k = 0; k < c->ndropped; k++)
            c->steps[k].warmup = 1;
        dropped += c->ndropped;
        if (c->ndropped && c->ndropped < c->nsteps)
            c->steady0 = c->steps[c->ndropped].start;
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
                  "window:int:Active window", NULL);
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
        }
        free(dv);
    }
    return TD_OK;
}
