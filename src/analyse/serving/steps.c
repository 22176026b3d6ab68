/* analyse/serving/steps.c - the steps of an LLM serving trace (vLLM, SGLang, ATOM): one per
 * iteration annotation (analyse/serving/annot.c) on a host thread, classified prefill,
 * decode or mixed, with its requests and tokens, wall and device time, model FLOPs, and
 * whether it lies in the steady-state window.
 *
 * Which annotations: as TraceLens's find_iteration_roots_by_priority, the detailed forms
 * (vLLM execute_N_context_..(sq..)_generation_..(sq..), SGLang step[...] with sq/sk
 * aggregates, ATOM with sqsq=) when a trace has any, else the native ones; an annotation
 * inside another one of the same tier is not a step of its own.
 * Device time: the device work (kernels, memcpy, memset) launched from inside the step,
 * summed. FLOPs: the op_perf models (analyse/op_models.c) of the ops with input shapes that
 * start inside the step, graph replays' captured ops included (analyse/graphs).
 * Steady window, TraceLens's split_inference rule (steady_state_window.py at 171dd747): a
 * step is near the peak when its requests are within max(1, 10% of the most requests of
 * any step of the rank); a region starts once more than 5 near-peak steps have been seen
 * (it begins at the first of them) and ends at the step where the misses since have
 * caught up with them; the last region still open at the end stops before the last step.
 * With no region (too few steps), the middle: min(n, 8) / 2 steps dropped at each end,
 * at least one step kept.
 * Summary: table serving_steps; object serving.<phase>.{steps, step_median_ns,
 * tokens_per_s, device_ns, flops, mfu, no_flop_model_share}, serving.peak_tflops. */
#include "analyse/internal.h"
#include "analyse/op_models.h"
#include "analyse/op_perf_bwd.h"
#include "analyse/serving/serving.h"
#include <stdlib.h>
#include <string.h>

typedef struct sstep {
    int64_t ts, end;
    uint32_t track;
    int32_t ev;
    td_srv_annot an;
    int64_t device_ns, flops_dev_ns; /* device time, and that of modelled ops */
    double flops;
    int steady;
} sstep;

/* The steady flags of n steps (TraceLens's rule, above). */
static void steady_window(sstep *st, size_t n)
{
    if (!n)
        return;
    int64_t mx = 0;
    for (size_t i = 0; i < n; i++)
        if (st[i].an.requests > mx)
            mx = st[i].an.requests;
    int64_t tol = mx / 10 > 1 ? mx / 10 : 1;
    int started = 0, any = 0;
    int64_t seen = 0;
    size_t start = 0, i;
    for (i = 0; i < n; i++) {
        int64_t d = st[i].an.requests - mx;
        int near = (d < 0 ? -d : d) <= tol;
        if (near && !started)
            seen++;
        else if (!near && started)
            seen--;
        if (seen > 5 && !started) {
            started = 1;
            start = i + 1 - (size_t)seen;
        }
        if (seen <= 0 && started) {
            for (size_t k = start; k < i; k++)
                st[k].steady = 1;
            any = 1;
            started = 0;
            seen = 0;
        }
    }
    if (started) {
        for (size_t k = start; k + 1 < n; k++)
            st[k].steady = 1;
        any = 1;
    }
    if (!any) {
        size_t delta = n < 8 ? n : 8, s = delta / 2, e = n - delta / 2;
        if (e < s + 1)
            e = s + 1;
        for (size_t k = s; k < e && k < n; k++)
            st[k].steady = 1;
    }
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t median(int64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_i64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the step containing host time ts on track (steps sorted, not nested), -1 none */
static int32_t step_of(const sstep *st, size_t n, int64_t ts, uint32_t track)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (st[m].ts <= ts)
            lo = m + 1;
        else
            hi = m;
    }
    for (size_t k = lo; k-- > 0 && lo - k <= 4;) /* steps of other threads between */
        if (st[k].track == track && ts < st[k].end)
            return (int32_t)k;
    return -1;
}

typedef struct phase_acc {
    int64_t steps, wall, tokens, device, fdev;
    int64_t *gaps;      /* host time from the step's end to the next step's start */
    size_t ng, gcap;
    int tokens_known;
    double flops;
    int64_t *walls;
    size_t nw, wcap;
} phase_acc;

static const char *device_name(const td_actx *a, const td_trace *t)
{
    for (size_t d = 0; d < t->ndevices; d++)
        if (t->devices[d].name)
            return td_name(a, t->devices[d].name);
    return NULL;
}

/* steps of one trace into tb; accumulates the steady ones per phase */
static void serving_trace(td_actx *a, const td_tctx *c, td_table **tbp, phase_acc *ph,
                          const char **dtype_out, double *best_flops)
{
    const td_trace *t = c->t;
    sstep *st = NULL;
    size_t n = 0, cap = 0;
    int tier = 3;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < t->nev; i++) {
            const td_event *e = &t->ev[i];
            td_srv_annot an;
            if (!c->isop[i] || e->kind != TD_K_USER_ANNOT || !td_srv_parse(td_name(a, e->name), &an))
                continue;
            if (!pass) {
                if (an.tier < tier)
                    tier = an.tier;
                continue;
            }
            if (an.tier != tier || (n && st[n - 1].track == e->track && e->ts < st[n - 1].end))
                continue; /* another tier, or inside the previous step */
            sstep *s = TD_PUSH(st, n, cap);
            memset(s, 0, sizeof *s);
            s->ts = e->ts;
            s->end = e->ts + e->dur;
            s->track = e->track;
            s->ev = (int32_t)i;
            s->an = an;
        }
        if (tier == 3)
            return;
    }
    /* device time by launching call */
    for (size_t k = 0; k < c->ndev; k++) {
        int32_t r = c->launch[k];
        if (r < 0)
            continue;
        int32_t si = step_of(st, n, t->ev[r].ts, t->ev[r].track);
        if (si >= 0)
            st[si].device_ns += t->ev[c->devix[k]].dur;
    }
    /* FLOPs: modelled ops with shapes inside a step; their ops marked for the device
     * time that has a model */
    uint8_t *modelled = td_xcalloc(t->nev + 1, 1);
    for (size_t i = 0; i < t->nshapes; i++) {
        const td_shape *sh = &t->shapes[i];
        td_opm_dims d;
        td_opm m;
        int32_t si = step_of(st, n, sh->ts, sh->track);
        if (si < 0 || !td_opm_parse_dims(td_name(a, sh->dims), &d) ||
            !td_opm_model(td_name(a, sh->name), &d, sh->types ? td_name(a, sh->types) : NULL,
                          sh->concrete ? td_name(a, sh->concrete) : NULL, &m) || m.flops < 0)
            continue;
        int32_t ev = td_opp_host_event(t, sh->ts, sh->track, sh->name, 1);
        if (ev < 0)
            continue;
        modelled[ev] = 1;
        st[si].flops += m.flops;
        if (m.flops > *best_flops && m.dtype) {
            *best_flops = m.flops;
            *dtype_out = td_arena_strdup(a->s->a, m.dtype);
        }
    }
    for (size_t k = 0; k < c->ndev; k++) {
        int32_t r = c->launch[k], p = r;
        while (p >= 0 && !modelled[p])
            p = c->parent[p];
        int32_t si = p >= 0 ? step_of(st, n, t->ev[r].ts, t->ev[r].track) : -1;
        if (si >= 0)
            st[si].flops_dev_ns += t->ev[c->devix[k]].dur;
    }
    free(modelled);
    /* steady window per host thread (the engine's scheduler thread) */
    sstep *tmp = td_xmalloc((n + 1) * sizeof *tmp);
    uint8_t *done = td_xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t m = 0;
        for (size_t k = i; k < n; k++)
            if (!done[k] && st[k].track == st[i].track)
                tmp[m++] = st[k];
        steady_window(tmp, m);
        for (size_t k = i, j = 0; k < n; k++)
            if (!done[k] && st[k].track == st[i].track) {
                st[k].steady = tmp[j++].steady;
                done[k] = 1;
            }
    }
    free(tmp);
    free(done);
    td_summary *s = a->s;
    for (size_t i = 0; i < n; i++) {
        if (!*tbp)
            *tbp = td_rows_serving_steps_table(s);
        td_srv_step_row x = {t->rank, (int64_t)i, td_srv_phase_name(st[i].an.phase),
                             st[i].an.requests, st[i].an.tokens, st[i].end - st[i].ts,
                             st[i].device_ns, st[i].steady};
        td_row_serving_step(s, *tbp, td_table_add_row(*tbp), &x);
        if (!st[i].steady || st[i].an.phase == TD_SRV_NONE)
            continue;
        phase_acc *p = &ph[st[i].an.phase];
        p->steps++;
        p->wall += st[i].end - st[i].ts;
        p->device += st[i].device_ns;
        p->fdev += st[i].flops_dev_ns;
        p->flops += st[i].flops;
        if (st[i].an.tokens >= 0) {
            p->tokens += st[i].an.tokens;
            p->tokens_known = 1;
        }
        *TD_PUSH(p->walls, p->nw, p->wcap) = st[i].end - st[i].ts;
        for (size_t k = i + 1; k < n; k++) /* the thread's next step */
            if (st[k].track == st[i].track) {
                *TD_PUSH(p->gaps, p->ng, p->gcap) = st[k].ts > st[i].end ? st[k].ts - st[i].end : 0;
                break;
            }
    }
    free(st);
}

void td_an_serving(td_actx *a)
{
    phase_acc ph[4];
    memset(ph, 0, sizeof ph);
    td_table *tb = NULL;
    const char *dtype = NULL;
    double best = -1;
    const td_peak *pk = NULL;
    for (size_t i = 0; i < a->n; i++) {
        serving_trace(a, &a->tc[i], &tb, ph, &dtype, &best);
        if (!pk && a->o->peak_tflops <= 0)
            pk = td_peak_for(device_name(a, a->tc[i].t));
    }
    if (!tb)
        return;
    td_summary *s = a->s;
    double peak = a->o->peak_tflops > 0 ? a->o->peak_tflops : dtype ? td_peak_tflops(pk, dtype) : 0;
    if (peak > 0)
        td_sum_set_f64(s, "serving.peak_tflops", "Dense peak used for MFU (TFLOP/s)", TD_T_F64, peak);
    for (int p = TD_SRV_PREFILL; p <= TD_SRV_MIXED; p++) {
        phase_acc *x = &ph[p];
        if (!x->steps)
            continue;
        const char *nm = td_srv_phase_name(p);
        char key[64], title[96];
#define KEY(k, tt) (snprintf(key, sizeof key, "serving.%s.%s", nm, k), \
                    snprintf(title, sizeof title, "%s%s", tt, nm), key)
        int64_t med = median(x->walls, x->nw);
        td_sum_set_int(s, KEY("steps", "Steady steps: "), title, TD_T_INT, x->steps);
        td_sum_set_int(s, KEY("step_median_ns", "Median step time: "), title, TD_T_NS, med);
        if (x->tokens_known && x->wall > 0)
            td_sum_set_f64(s, KEY("tokens_per_s", "Tokens per second: "), title, TD_T_F64,
                           (double)x->tokens * 1e9 / (double)x->wall);
        td_sum_set_int(s, KEY("device_ns", "Device time: "), title, TD_T_NS, x->device);
        td_sum_set_f64(s, KEY("flops", "Model FLOPs: "), title, TD_T_F64, x->flops);
        if (peak > 0 && x->wall > 0)
            td_sum_set_f64(s, KEY("mfu", "MFU: "), title, TD_T_SHARE,
                           x->flops / ((double)x->wall * peak * 1e3));
        /* what bounds the phase: the device busy for half its steps' time or more, else
         * the host (the CPU between and around the kernels: scheduling, syncs, launches) */
        double dsh = x->wall > 0 ? (double)x->device / (double)x->wall : 0;
        td_sum_set_f64(s, KEY("device_share", "Device time over step time: "), title, TD_T_SHARE, dsh);
        td_sum_set_str(s, KEY("bound", "Bound by: "), title, dsh >= 0.5 ? "device" : "host");
        if (x->ng)
            td_sum_set_int(s, KEY("between_steps_ns", "Host time between steps (median): "),
                           title, TD_T_NS, median(x->gaps, x->ng));
        if (x->device > 0)
            td_sum_set_f64(s, KEY("no_flop_model_share", "Device time without FLOP model: "),
                           title, TD_T_SHARE, (double)(x->device - x->fdev) / (double)x->device);
#undef KEY
    }
    for (int p = 0; p < 4; p++) {
        free(ph[p].walls);
        free(ph[p].gaps);
    }
}
