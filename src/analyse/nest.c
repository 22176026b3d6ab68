/* analyse/nest.c - nesting per thread (from which self time follows), and the links
 * from device work to the runtime call that launched it (td_owner: and the op around
 * that call).
 *
 * Ops are the events torch's key_averages() counts: cpu_op (Operator, legacy "CPU
 * functions"), user_annotation (record_function, ProfilerStep#N), and runtime/driver
 * calls, on host tracks; NVTX push/pop ranges of Nsight Systems reports count like
 * user_annotation (they are the user's own markup, as record_function is in Kineto).
 * Events arrive sorted by (ts, -dur) (td_read_finish), so a stack per track finds each
 * op's parent: the innermost op on the same track that contains it. Self = dur - sum
 * of the direct children's dur (torch's rule; the passes compute it from parent[]).
 * Device work is linked by correlation id to the runtime OR driver call that launched
 * it (XLA and Triton launch through cuLaunchKernel, cuMemcpy*Async... with no runtime
 * call around), and belongs to the innermost cpu_op/user_annotation/NVTX range around
 * that call (as torch's "Self CUDA"), or to the launching call when there is none. */
#include "analyse/internal.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_op_kind(const td_trace *t, int k)
{
    if (k == TD_K_RANGE)
        /* nsys-jax archives: the push/pop ranges are read as compile-statistics input
         * (t->compile, analysed by analyse/xla/xla.c) and stay out of the op table */
        return t->format != TD_FMT_NSYS_JAX;
    return k == TD_K_CPU_OP || k == TD_K_USER_ANNOT || k == TD_K_RUNTIME || k == TD_K_DRIVER;
}

/* Calls that launch device work: linked to it by correlation id. */
static int is_launcher(int k)
{
    return k == TD_K_RUNTIME || k == TD_K_DRIVER;
}

typedef struct stk {
    int32_t *v;
    size_t n, cap;
} stk;

void td_an_nest(td_actx *a, td_tctx *c)
{
    td_trace *t = c->t;
    size_t n = t->nev;
    c->isop = td_xcalloc(n + 1, 1);
    c->iscomm = td_xcalloc(n + 1, 1);
    c->parent = td_xmalloc((n + 1) * sizeof *c->parent);
    stk *st = td_xcalloc(t->ntracks + 1, sizeof *st);
    size_t nrt = 0;
    c->t0 = INT64_MAX;
    c->t1 = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const td_event *ev = &t->ev[i];
        c->parent[i] = -1;
        if (ev->ts < c->t0)
            c->t0 = ev->ts;
        if (ev->ts + ev->dur > c->t1)
            c->t1 = ev->ts + ev->dur;
        if (td_kind_is_device(ev->kind)) {
            c->ndev++;
            if (ev->kind == TD_K_KERNEL || ev->kind == TD_K_DEVICE_OTHER) {
                const td_nccl *x = td_aux_nccl(t, ev->aux);
                c->iscomm[i] = (x && x->coll) || td_is_comm_id(a, ev->name);
            }
            continue;
        }
        if (!is_op_kind(t, ev->kind) || ev->track >= t->ntracks || t->tracks[ev->track].device >= 0)
            continue;
        c->isop[i] = 1;
        if (is_launcher(ev->kind) && ev->corr)
            nrt++;
        stk *s = &st[ev->track];
        int64_t end = ev->ts + ev->dur;
        while (s->n) {
            const td_event *p = &t->ev[s->v[s->n - 1]];
            if (p->ts + p->dur <= ev->ts || end > p->ts + p->dur)
                s->n--;
            else
                break;
        }
        if (s->n)
            c->parent[i] = s->v[s->n - 1];
        *TD_PUSH(s->v, s->n, s->cap) = (int32_t)i;
    }
    if (!n)
        c->t0 = c->t1 = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        free(st[k].v);
    free(st);
    if (c->ndev)
        a->any_device = 1;
    c->launch = td_xmalloc((c->ndev + 1) * sizeof *c->launch);
    memset(c->launch, 0xff, (c->ndev + 1) * sizeof *c->launch);
    if (!c->ndev || !nrt)
        return;
    /* device work -> launching runtime or driver call, by correlation id (the first
     * call with that id in event order wins: a driver call nested in a runtime call
     * with the same id, or a duplicated launch record, counts once, for the outer) */
    /* device events sorted by correlation id (usually fewer than the launchers: a
     * smaller table and sort keep this pass's peak memory down), then the launchers
     * in event order claim theirs */
    td_keyed *cx = td_xmalloc((c->ndev + 1) * sizeof *cx);
    size_t m = 0;
    for (size_t i = 0, k = 0; i < n; i++)
        if (td_kind_is_device(t->ev[i].kind)) {
            if (t->ev[i].corr) /* val: the device event's ordinal */
                cx[m++] = (td_keyed){t->ev[i].corr, (int64_t)k};
            k++;
        }
    td_sort_keyed(cx, m); /* by (corr, ordinal): stable */
    /* the first entry with the call's id: ids grow with time, so the search starts at
     * the last call's entry and gallops (the calls walk cx nearly in order) */
    size_t hint = 0;
    for (size_t i = 0; i < n && m; i++) {
        const td_event *ev = &t->ev[i];
        if (!c->isop[i] || !is_launcher(ev->kind) || !ev->corr)
            continue;
        size_t lo = 0, hi = m;
        if (hint < m && cx[hint].key < ev->corr) { /* after hint: gallop forward */
            size_t d = 1;
            while (hint + d < m && cx[hint + d].key < ev->corr)
                d *= 2;
            lo = hint + d / 2 + 1;
            hi = hint + d < m ? hint + d : m; /* cx[hi].key >= corr, or hi == m */
        } else if (hint < m) { /* at or before hint: gallop backward */
            size_t d = 1;
            while (d <= hint && cx[hint - d].key >= ev->corr)
                d *= 2;
            lo = d <= hint ? hint - d + 1 : 0;
            hi = hint - d / 2; /* cx[hi].key >= corr */
        }
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cx[mid].key < ev->corr)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* taken already by an earlier call with this id (all its device events are
         * set together) */
        hint = lo;
        if (lo == m || cx[lo].key != ev->corr || c->launch[cx[lo].val] >= 0)
            continue;
        /* the owner (td_owner) is found from here when a pass needs it; with no op
         * around the launch (nsys traces without NVTX, launches outside any cpu_op)
         * the launching call itself owns the device time */
        for (size_t k = lo; k < m && cx[k].key == ev->corr; k++)
            c->launch[cx[k].val] = (int32_t)i;
    }
    free(cx);
}
