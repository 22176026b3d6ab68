/* read/chrome_seq.c - the Kineto reader's sequence numbers (td_seqrec): of the records
 * read/chrome_event.c collects, td_chrome_finish keeps per number only what
 * analyse/op_perf_bwd.c links (doc/summary-json.md "op_perf_bwd"). */
#include "read/chrome_int.h"
#include "base/sort.h"
#include <stdlib.h>

static int bo_cmp(const void *x, const void *y)
{
    const bwdop *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

/* whether an event starting at ts on track lies in one of bo[n] (sorted by bo_cmp, end the
 * running maximum within a track) */
static int in_bwdop(const bwdop *bo, size_t n, uint32_t track, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first after (track, ts) */
        size_t m = lo + (hi - lo) / 2;
        if (bo[m].track < track || (bo[m].track == track && bo[m].ts <= ts))
            lo = m + 1;
        else
            hi = m;
    }
    return lo > 0 && bo[lo - 1].track == track && bo[lo - 1].end >= ts;
}

/* Of the sequence numbers keep, per number, the first evaluate_function event and the
 * leaf TraceLens links it to (the latest event with the number on another thread, the
 * first of equal starts), only when the leaf lies in an op whose backward pass op_perf_bwd
 * times: all the analysis needs (analyse/op_perf_bwd.c). */
void td_chrome_keep_linked_seqs(cj *c)
{
    td_trace *t = c->t;
    size_t n = 0, nq = t->nseqs;
    if (c->nbo && nq && nq <= UINT32_MAX) {
        qsort(c->bo, c->nbo, sizeof *c->bo, bo_cmp);
        for (size_t i = 1; i < c->nbo; i++)
            if (c->bo[i].track == c->bo[i - 1].track && c->bo[i - 1].end > c->bo[i].end)
                c->bo[i].end = c->bo[i - 1].end;
        /* records by sequence number, then in file order (a stable sort) */
        td_keyed *kv = td_xmalloc(nq * sizeof *kv);
        for (size_t i = 0; i < nq; i++)
            kv[i] = (td_keyed){t->seqs[i].seq2 >> 1, (int64_t)i};
        td_sort_keyed(kv, nq);
        uint32_t *ix = td_xmalloc(nq * sizeof *ix);
        for (size_t i = 0; i < nq; i++)
            ix[i] = (uint32_t)kv[i].val;
        free(kv);
        const td_seqrec *q = t->seqs;
        uint32_t *keep = NULL; /* record indices kept: function, leaf, ... */
        size_t kcap = 0;
        for (size_t i = 0; i < nq;) {
            size_t j = i;
            while (j < nq && q[ix[j]].seq2 >> 1 == q[ix[i]].seq2 >> 1)
                j++;
            uint32_t e = UINT32_MAX, leaf = UINT32_MAX;
            for (size_t k = i; k < j && e == UINT32_MAX; k++)
                if (q[ix[k]].seq2 & 1)
                    e = ix[k];
            for (size_t k = i; k < j && e != UINT32_MAX; k++)
                if (q[ix[k]].track != q[e].track && (leaf == UINT32_MAX || q[ix[k]].ts > q[leaf].ts))
                    leaf = ix[k];
            if (leaf != UINT32_MAX && in_bwdop(c->bo, c->nbo, q[leaf].track, q[leaf].ts)) {
                *TD_PUSH(keep, n, kcap) = e;
                *TD_PUSH(keep, n, kcap) = leaf;
            }
            i = j;
        }
        free(ix);
        if (n) {
            td_seqrec *kept = td_xmalloc(n * sizeof *kept);
            for (size_t i = 0; i < n; i++)
                kept[i] = q[keep[i]];
            free(t->seqs);
            t->seqs = kept;
        }
        free(keep);
    }
    t->nseqs = n;
    if (!n) {
        free(t->seqs);
        t->seqs = NULL;
        t->seqs_cap = 0;
    } else
        t->seqs_cap = n;
    free(c->bo);
    c->bo = NULL;
    c->nbo = c->bo_cap = 0;
}
