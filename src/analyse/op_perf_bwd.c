/* analyse/op_perf_bwd.c - device time of the per-op performance model's calls
 * (analyse/op_perf.c): the union of the device work launched under a set of host events,
 * and the link from a forward op to the backward functions autograd ran for it, as
 * TraceLens makes its *_bwdpass sheets (trace_to_tree.py link_all_fwd_bwd_events,
 * get_subtree_bwd_events; tree_perf.py compute_perf_metrics(bwd=True) at 171dd747;
 * doc/summary-json.md "op_perf_bwd"). */
#include "analyse/op_perf_bwd.h"
#include "base/sort.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t call;
    int64_t s, e;
} civ;

void td_opp_sort_pairs(uint64_t *pairs, size_t n)
{
    /* event indices are below 2^31: every pair is a non-negative int64 */
    td_sort_i64((int64_t *)pairs, n);
}

/* the first pair of event p, np when none */
static size_t first_of(const uint64_t *pairs, size_t np, uint32_t p)
{
    size_t lo = 0, hi = np;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if ((pairs[m] >> 32) < (uint64_t)p)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < np && (pairs[lo] >> 32) == (uint64_t)p ? lo : np;
}

/* one bit per event: is it paired (most ancestors are not: no search for them) */
static uint8_t *bits_of(const td_trace *t, const uint64_t *pairs, size_t np)
{
    uint8_t *b = td_xcalloc(t->nev / 8 + 1, 1);
    for (size_t i = 0; i < np; i++) {
        uint32_t e = (uint32_t)(pairs[i] >> 32);
        b[e >> 3] |= (uint8_t)(1u << (e & 7));
    }
    return b;
}

void td_opp_union(const td_tctx *cx, const uint64_t *pairs, size_t np, int64_t *out)
{
    const td_trace *t = cx->t;
    if (!np || !cx->ndev)
        return;
    uint8_t *is = bits_of(t, pairs, np);
    civ *v = NULL;
    size_t nv = 0, cap = 0;
    /* the device events in event order (devix) */
    for (size_t k = 0; k < cx->ndev; k++) {
        const td_event *ev = &t->ev[cx->devix[k]];
        int32_t r = cx->launch[k];
        for (int32_t p = r >= 0 ? cx->parent[r] : -1; p >= 0; p = cx->parent[p]) {
            if (!(is[p >> 3] & (1u << (p & 7))))
                continue;
            for (size_t j = first_of(pairs, np, (uint32_t)p); j < np && (pairs[j] >> 32) == (uint64_t)p; j++) {
                civ *x = TD_PUSH(v, nv, cap);
                x->call = (uint32_t)pairs[j];
                x->s = ev->ts;
                x->e = ev->ts + ev->dur;
            }
        }
    }
    if (nv) { /* v is NULL without device work under any event */
        /* by call, each call's intervals in start order: they were appended in start
         * order (the device events', sorted by td_read_finish), so a stable sort by call
         * is enough */
        td_keyed *kv = td_xmalloc(nv * sizeof *kv);
        for (size_t j = 0; j < nv; j++)
            kv[j] = (td_keyed){v[j].call, (int64_t)j};
        td_sort_keyed(kv, nv);
        civ *w = td_xmalloc(nv * sizeof *w);
        for (size_t j = 0; j < nv; j++)
            w[j] = v[kv[j].val];
        free(kv);
        free(v);
        v = w;
    }
    for (size_t i = 0; i < nv;) {
        size_t j;
        int64_t tot = 0, s = v[i].s, e = v[i].e;
        for (j = i + 1; j < nv && v[j].call == v[i].call; j++) {
            if (v[j].s > e) {
                tot += e - s;
                s = v[j].s;
                e = v[j].e;
            } else if (v[j].e > e)
                e = v[j].e;
        }
        tot += e - s;
        out[v[i].call] = tot;
        i = j;
    }
    free(v);
    free(is);
}

int32_t td_opp_host_event(const td_trace *t, int64_t ts, uint32_t track, td_str name, int cpu_op)
{
    size_t lo = 0, hi = t->nev;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->ev[m].ts < ts)
            lo = m + 1;
        else
            hi = m;
    }
    for (size_t i = lo; i < t->nev && t->ev[i].ts == ts; i++)
        if (t->ev[i].track == track && t->ev[i].name == name && i <= INT32_MAX &&
            (cpu_op ? t->ev[i].kind == TD_K_CPU_OP : !td_kind_is_device(t->ev[i].kind)))
            return (int32_t)i;
    return -1;
}

static const td_seqrec *g_q; /* for seq_cmp */

/* records by sequence number, then in file order */
static int seq_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int64_t sa = g_q[a].seq2 >> 1, sb = g_q[b].seq2 >> 1;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return (a > b) - (a < b);
}

size_t td_opp_bwd_pairs(const td_tctx *cx, const uint32_t *evs, size_t nc, uint8_t *own,
                        uint64_t **out)
{
    const td_trace *t = cx->t;
    *out = NULL;
    if (!t->nseqs || !nc || t->nseqs > UINT32_MAX)
        return 0;
    uint32_t *ix = td_xmalloc(t->nseqs * sizeof *ix);
    for (size_t i = 0; i < t->nseqs; i++)
        ix[i] = (uint32_t)i;
    g_q = t->seqs;
    qsort(ix, t->nseqs, sizeof *ix, seq_cmp);
    /* the calls by op event */
    uint64_t *cp = td_xmalloc(nc * sizeof *cp);
    for (size_t i = 0; i < nc; i++)
        cp[i] = (uint64_t)evs[i] << 32 | (uint32_t)i;
    td_opp_sort_pairs(cp, nc);
    uint8_t *iscall = bits_of(t, cp, nc);
    uint64_t *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t i = 0; i < t->nseqs;) {
        size_t j = i;
        while (j < t->nseqs && t->seqs[ix[j]].seq2 >> 1 == t->seqs[ix[i]].seq2 >> 1)
            j++;
        /* the number's first evaluate_function, and the latest record on another thread
         * (the first of equal starts) */
        const td_seqrec *e = NULL, *leaf = NULL;
        for (size_t k = i; k < j && !e; k++)
            if (t->seqs[ix[k]].seq2 & 1)
                e = &t->seqs[ix[k]];
        for (size_t k = i; k < j && e; k++) {
            const td_seqrec *q = &t->seqs[ix[k]];
            if (q->track != e->track && (!leaf || q->ts > leaf->ts))
                leaf = q;
        }
        i = j;
        int32_t fe = leaf ? td_opp_host_event(t, e->ts, e->track, e->name, 0) : -1;
        int32_t le = fe >= 0 ? td_opp_host_event(t, leaf->ts, leaf->track, leaf->name, 0) : -1;
        if (le < 0)
            continue;
        /* the leaf and its enclosing ops: each call among them gets the function */
        for (int32_t p = le; p >= 0; p = cx->parent[p]) {
            if (!(iscall[p >> 3] & (1u << (p & 7))))
                continue;
            for (size_t k = first_of(cp, nc, (uint32_t)p); k < nc && (cp[k] >> 32) == (uint64_t)p; k++) {
                uint32_t c = (uint32_t)cp[k];
                *TD_PUSH(v, nv, cap) = (uint64_t)(uint32_t)fe << 32 | c;
                if (p == le)
                    own[c] = 1;
            }
        }
    }
    if (nv)
        td_opp_sort_pairs(v, nv);
    free(ix);
    free(cp);
    free(iscall);
    *out = v;
    return nv;
}
