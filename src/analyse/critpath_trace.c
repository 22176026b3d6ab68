/* analyse/critpath_trace.c - the critical path's per-trace state (analyse/critpath.h
 * td_cptrace), made once per trace and shared by its steps' windows: the device events in
 * order, sorted by their launching call's start, and each one's launch queue length on
 * its stream after its launch and after its start (HTA's queue: a launch edge only when
 * the stream's queue was empty), one entry per launching call and stream (a CUDA graph's
 * first kernel on a stream). */
#include "analyse/critpath.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

/* Queue lengths per (device, stream): +1 at each kept launch, -1 at its work's start, in
 * time order, a launch before a start at one time, else in launch order (bylaunch). The
 * launches of a stream are in time order already (bylaunch is sorted by launch time);
 * only its starts are sorted (base/sort.h). */
typedef struct qstream {
    int32_t dev, stream;
    size_t n, at;  /* kept launches on it; its first slot in the bucketed order */
} qstream;

static void cp_trace_init(td_cptrace *p, const td_tctx *c)
{
    const td_trace *t = c->t;
    memset(p, 0, sizeof *p);
    p->c = c;
    p->devix = c->devix; /* td_dev_order (analyse.c) */
    p->qrt = td_xmalloc((c->ndev + 1) * sizeof *p->qrt);
    p->qdev = td_xmalloc((c->ndev + 1) * sizeof *p->qdev);
    p->dloc = td_xmalloc((c->ndev + 1) * sizeof *p->dloc);
    p->bylaunch = td_xmalloc((c->ndev + 1) * sizeof *p->bylaunch);
    for (size_t k = 0; k < c->ndev; k++) {
        p->dloc[k] = -1;
        p->qrt[k] = p->qdev[k] = -1;
        if (c->launch[k] >= 0)
            p->bylaunch[p->nbyl++] = (int32_t)k;
    }
    /* one queue entry per launching call and stream: a CUDA graph's first kernel on a
     * stream (the call starts it; the graph's next kernels follow it on the device) */
    /* by (launch start, work start, k): two stable sorts, the second key first (the
     * list is in k order) */
    td_keyed *kv = td_xmalloc((p->nbyl + 1) * sizeof *kv);
    for (size_t j = 0; j < p->nbyl; j++)
        kv[j] = (td_keyed){t->ev[p->devix[p->bylaunch[j]]].ts, p->bylaunch[j]};
    td_sort_keyed(kv, p->nbyl);
    for (size_t j = 0; j < p->nbyl; j++)
        kv[j].key = t->ev[c->launch[kv[j].val]].ts;
    td_sort_keyed(kv, p->nbyl);
    for (size_t j = 0; j < p->nbyl; j++)
        p->bylaunch[j] = (int32_t)kv[j].val;
    int32_t *kept = td_xmalloc((p->nbyl + 1) * sizeof *kept);
    int32_t *qsid = td_xmalloc((p->nbyl + 1) * sizeof *qsid);
    size_t nk = 0;
    qstream *qs = NULL;
    size_t nqs = 0, cqs = 0, lastq = 0;
    int32_t seen[16][2], nseen = 0, cur = -1; /* the current call's (device, stream)s */
    for (size_t j = 0; j < p->nbyl; j++) {
        int32_t k = p->bylaunch[j], r = c->launch[k];
        const td_track *tk = &t->tracks[t->ev[p->devix[k]].track];
        if (r != cur)
            nseen = 0, cur = r;
        int first = 1;
        for (int32_t m = 0; m < nseen; m++)
            if (seen[m][0] == tk->device && seen[m][1] == tk->stream)
                first = 0;
        if (!first)
            continue;
        if (nseen < 16)
            seen[nseen][0] = tk->device, seen[nseen++][1] = tk->stream;
        /* its stream (the last one looked up first: launches come in runs) */
        if (!(lastq < nqs && qs[lastq].dev == tk->device && qs[lastq].stream == tk->stream)) {
            for (lastq = 0; lastq < nqs; lastq++)
                if (qs[lastq].dev == tk->device && qs[lastq].stream == tk->stream)
                    break;
            if (lastq == nqs)
                *TD_PUSH(qs, nqs, cqs) = (qstream){tk->device, tk->stream, 0, 0};
        }
        qs[lastq].n++;
        qsid[nk] = (int32_t)lastq;
        kept[nk++] = k;
    }
    /* bucket the kept launches by stream, in launch order within each */
    size_t at = 0;
    for (size_t m = 0; m < nqs; m++) {
        qs[m].at = at;
        at += qs[m].n;
    }
    int32_t *ord = td_xmalloc((nk + 1) * sizeof *ord);
    for (size_t j = 0; j < nk; j++)
        ord[qs[qsid[j]].at++] = kept[j];
    free(qsid);
    free(kept);
    int32_t *sp = td_xmalloc((nk + 1) * sizeof *sp);
    int64_t *sts = td_xmalloc((nk + 1) * sizeof *sts);
    for (size_t m = 0; m < nqs; m++)
        qs[m].at -= qs[m].n;
    for (size_t j = 0; j < nk; j++)
        sts[j] = t->ev[p->devix[ord[j]]].ts;
    for (size_t m = 0; m < nqs; m++) {
        size_t b = qs[m].at, n = qs[m].n;
        /* the starts by (time, position) */
        for (size_t j = 0; j < n; j++)
            kv[j] = (td_keyed){sts[b + j], (int64_t)(b + j)};
        td_sort_keyed(kv, n);
        for (size_t j = 0; j < n; j++)
            sp[b + j] = (int32_t)kv[j].val;
        /* launches ord[b..b+n) (by time) and starts sp[b..b+n) (by time) merged */
        int32_t len = 0;
        size_t li = b, si = b;
        while (li < b + n || si < b + n) {
            if (li < b + n && (si >= b + n || t->ev[c->launch[ord[li]]].ts <= sts[sp[si]])) {
                p->qrt[ord[li++]] = ++len;
            } else {
                p->qdev[ord[sp[si++]]] = --len;
            }
        }
    }
    free(ord);
    free(sp);
    free(sts);
    free(qs);
    free(kv);
}

static void cp_trace_free(td_cptrace *p)
{
    free(p->qrt);
    free(p->qdev);
    free(p->dloc);
    free(p->bylaunch);
    free(p->outer);
    free(p->callmemo);
}

void *td_cp_trace_new(const td_tctx *c)
{
    td_cptrace *p = td_xmalloc(sizeof *p);
    cp_trace_init(p, c);
    return p;
}

void td_cp_trace_free(void *state)
{
    if (!state)
        return;
    cp_trace_free(state);
    free(state);
}
