/* analyse/timeline.c - the GPU timeline breakdown
 * (formats.md sec.5, TraceLens gpu_timeline definitions), per device and for all
 * devices of a rank, over the whole trace and over the steady window (after warm-up).
 *
 * Job-wide rows: with device work on 2+ ranks, the table starts with one row per scope
 * with rank null and device "all" holding the SUMS over ranks of each rank's "all" row
 * (the steady row takes a rank's trace row when that rank dropped no warm-up: its whole
 * trace is steady). Times add up across ranks (GPU-time, not wall time), so shares of
 * the job row (x / total_ns) are the job's shares, the breakdown identity computation +
 * exposed_comm + exposed_memcpy + idle = total still holds, and renderers that show the
 * first device=-1 trace row show the whole job rather than rank 0. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

static td_iv *dup_merge(const td_iv *v, size_t n, size_t *m)
{
    td_iv *c = td_xmalloc((n + 1) * sizeof *c);
    if (n)
        memcpy(c, v, n * sizeof *c);
    *m = td_iv_merge(c, n);
    return c;
}

/* The union of up to three merged lists, produced interval by interval (merged the
 * way td_iv_union merges: touching intervals join), so that nothing as large as the
 * lists themselves is allocated. */
typedef struct uni {
    const td_iv *v[3];
    size_t n[3], i[3];
} uni;

static int uni_next(uni *u, td_iv *out)
{
    int b = -1;
    for (int k = 0; k < 3; k++)
        if (u->i[k] < u->n[k] && (b < 0 || u->v[k][u->i[k]].s < u->v[b][u->i[b]].s))
            b = k;
    if (b < 0)
        return 0;
    td_iv x = u->v[b][u->i[b]++];
    for (int more = 1; more;) {
        more = 0;
        for (int k = 0; k < 3; k++)
            while (u->i[k] < u->n[k] && u->v[k][u->i[k]].s <= x.e) {
                if (u->v[k][u->i[k]].e > x.e)
                    x.e = u->v[k][u->i[k]].e;
                u->i[k]++;
                more = 1;
            }
    }
    *out = x;
    return 1;
}

/* td_timeline_compute on lists that are merged already (sorted, disjoint). */
static void compute_merged(const td_iv *c, size_t nc, const td_iv *m, size_t nm,
                           const td_iv *p, size_t np, int64_t out[TL__N])
{
    int64_t lc = td_iv_len(c, nc), lm = td_iv_len(m, nm), lp = td_iv_len(p, np);
    /* |P n (C u M)|: P against the union of C and M as it streams by */
    int64_t pcm = 0;
    uni u = {{c, m, NULL}, {nc, nm, 0}, {0, 0, 0}};
    td_iv x;
    size_t j = 0;
    while (j < np && uni_next(&u, &x)) {
        while (j < np && p[j].e <= x.s)
            j++;
        for (size_t k = j; k < np && p[k].s < x.e; k++) {
            int64_t s = p[k].s > x.s ? p[k].s : x.s, e = p[k].e < x.e ? p[k].e : x.e;
            if (e > s)
                pcm += e - s;
        }
    }
    /* busy = |C u M u P|; total from the first start to the last end */
    uni all = {{c, m, p}, {nc, nm, np}, {0, 0, 0}};
    int64_t busy = 0, first = 0, last = 0;
    int any = 0;
    while (uni_next(&all, &x)) {
        if (!any)
            first = x.s;
        any = 1;
        last = x.e;
        busy += x.e - x.s;
    }
    out[TL_COMP] = lc;
    out[TL_XCOMM] = lm - td_iv_overlap(m, nm, c, nc);
    out[TL_XMEMCPY] = lp - pcm;
    out[TL_BUSY] = busy;
    out[TL_TOTAL] = any ? last - first : 0;
    out[TL_IDLE] = out[TL_TOTAL] - out[TL_BUSY];
    out[TL_COMM] = lm;
    out[TL_MEMCPY] = lp;
}

void td_timeline_compute(const td_iv *comp, size_t ncomp, const td_iv *comm, size_t ncomm,
                         const td_iv *mcpy, size_t nmcpy, int64_t out[TL__N])
{
    size_t nc, nm, np;
    td_iv *c = dup_merge(comp, ncomp, &nc);
    td_iv *m = dup_merge(comm, ncomm, &nm);
    td_iv *p = dup_merge(mcpy, nmcpy, &np);
    compute_merged(c, nc, m, nm, p, np, out);
    free(c);
    free(m);
    free(p);
}

/* Device event class for the timeline: synchronization work (td_is_sync_work) is its own
 * part, sync_ns: the time it takes that no computation overlaps; communication and
 * copies are exposed when neither computation nor sync work overlaps them. */
enum { C_COMP, C_COMM, C_MCPY, C_SYNC, C__N };

typedef struct devlists {
    td_iv *v[C__N];
    size_t n[C__N], cap[C__N];
} devlists;

/* A computed row, emitted once every rank is done (job-wide rows go first). */
typedef struct tlrow {
    int64_t rank;   /* TD_NA for job-wide rows */
    int dev;
    int steady;
    int64_t o[TL__N];
} tlrow;

typedef struct tlrows {
    tlrow *v;
    size_t n, cap;
} tlrows;

static void row(td_actx *a, td_table *tb, const tlrow *x)
{
    td_summary *s = a->s;
    const int64_t *o = x->o;
    size_t r = td_table_add_row(tb);
    td_row_int(s, tb, r, "rank", x->rank);
    td_row_int(s, tb, r, "device", x->dev);
    td_row_str(s, tb, r, "scope", x->steady ? "steady" : "trace");
    td_row_int(s, tb, r, "computation_ns", o[TL_COMP]);
    td_row_int(s, tb, r, "sync_ns", o[TL_SYNC]);
    td_row_int(s, tb, r, "exposed_comm_ns", o[TL_XCOMM]);
    td_row_int(s, tb, r, "exposed_memcpy_ns", o[TL_XMEMCPY]);
    td_row_int(s, tb, r, "busy_ns", o[TL_BUSY]);
    td_row_int(s, tb, r, "idle_ns", o[TL_IDLE]);
    td_row_int(s, tb, r, "total_ns", o[TL_TOTAL]);
    td_row_int(s, tb, r, "total_comm_ns", o[TL_COMM]);
    td_row_int(s, tb, r, "total_memcpy_ns", o[TL_MEMCPY]);
}

static int int_cmp(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Clip a list to [w0, inf) in place; returns the new count. */
static size_t clip(td_iv *v, size_t n, int64_t w0)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].e <= w0)
            continue;
        v[m] = v[i];
        if (v[m].s < w0)
            v[m].s = w0;
        m++;
    }
    return m;
}

static void emit(tlrows *out, int64_t rank, int dev, devlists *L, int64_t steady0)
{
    /* the lists are scratch: merged in place (no copies), then clipped in place for the
     * steady window (clipping a merged list leaves it merged, and gives the merge of
     * the clipped raw list) */
    size_t n[C__N], ncs = 0;
    for (int k = 0; k < C__N; k++)
        n[k] = td_iv_merge(L->v[k], L->n[k]);
    /* computation and sync work together hide communication and copies */
    td_iv *cs = n[C_SYNC] ? td_iv_union(L->v[C_COMP], n[C_COMP], L->v[C_SYNC], n[C_SYNC], &ncs)
                          : L->v[C_COMP];
    if (!n[C_SYNC])
        ncs = n[C_COMP];
    tlrow *x = TD_PUSH(out->v, out->n, out->cap);
    *x = (tlrow){rank, dev, 0, {0}};
    compute_merged(cs, ncs, L->v[C_COMM], n[C_COMM], L->v[C_MCPY], n[C_MCPY], x->o);
    x->o[TL_COMP] = td_iv_len(L->v[C_COMP], n[C_COMP]);
    x->o[TL_SYNC] = td_iv_len(cs, ncs) - x->o[TL_COMP];
    if (steady0 != INT64_MIN) {
        for (int k = 0; k < C__N; k++)
            n[k] = clip(L->v[k], n[k], steady0);
        ncs = n[C_SYNC] ? clip(cs, ncs, steady0) : n[C_COMP];
        x = TD_PUSH(out->v, out->n, out->cap);
        *x = (tlrow){rank, dev, 1, {0}};
        compute_merged(cs, ncs, L->v[C_COMM], n[C_COMM], L->v[C_MCPY], n[C_MCPY], x->o);
        x->o[TL_COMP] = td_iv_len(L->v[C_COMP], n[C_COMP]);
        x->o[TL_SYNC] = td_iv_len(cs, ncs) - x->o[TL_COMP];
    }
    if (cs != L->v[C_COMP])
        free(cs);
}

/* The job-wide rows (see the header comment), first in the table. */
static void job_rows(td_actx *a, td_table *tb, const tlrows *rs)
{
    tlrow job[2] = {{TD_NA, -1, 0, {0}}, {TD_NA, -1, 1, {0}}};
    size_t nranks = 0;
    int any_steady = 0;
    for (size_t i = 0; i < rs->n; i++) {
        if (rs->v[i].dev != -1)
            continue;
        if (rs->v[i].steady) {
            any_steady = 1;
            continue;
        }
        nranks++;
        /* a rank's steady row follows its trace row when it has one */
        const tlrow *st = i + 1 < rs->n && rs->v[i + 1].dev == -1 && rs->v[i + 1].steady
                              ? &rs->v[i + 1] : &rs->v[i];
        for (int k = 0; k < TL__N; k++) {
            job[0].o[k] += rs->v[i].o[k];
            job[1].o[k] += st->o[k];
        }
    }
    if (nranks < 2)
        return;
    row(a, tb, &job[0]);
    if (any_steady)
        row(a, tb, &job[1]);
}

void td_an_timeline(td_actx *a)
{
    if (!a->any_device)
        return;
    td_table *tb = td_sum_table(a->s, "gpu_timeline",
                                td_arena_printf(a->s->a, "%s timeline", td_devword(a)));
    td_table_cols(tb, "rank:int:Rank", "device:device:Device", "scope:text:Scope",
                  "computation_ns:ns:Computation", "sync_ns:ns:Sync wait",
                  "exposed_comm_ns:ns:Exposed comm",
                  "exposed_memcpy_ns:ns:Exposed memcpy", "busy_ns:ns:Busy", "idle_ns:ns:Idle",
                  "total_ns:ns:Total", "total_comm_ns:ns:Total comm",
                  "total_memcpy_ns:ns:Total memcpy", NULL);
    tlrows rs = {0};
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        if (!c->ndev)
            continue;
        /* distinct device ids, sorted */
        int *ids = td_xmalloc((t->ntracks + 1) * sizeof *ids);
        size_t nids = 0;
        for (size_t k = 0; k < t->ntracks; k++)
            if (t->tracks[k].device >= 0)
                ids[nids++] = t->tracks[k].device;
        qsort(ids, nids, sizeof *ids, int_cmp);
        size_t u = 0;
        for (size_t k = 0; k < nids; k++)
            if (!u || ids[u - 1] != ids[k])
                ids[u++] = ids[k];
        nids = u;
        int *tdev = td_xmalloc((t->ntracks + 1) * sizeof *tdev); /* track -> index in ids */
        for (size_t k = 0; k < t->ntracks; k++) {
            tdev[k] = -1;
            for (size_t j = 0; j < nids; j++)
                if (ids[j] == t->tracks[k].device)
                    tdev[k] = (int)j;
        }
        devlists *L = td_xcalloc(nids + 1, sizeof *L);
        devlists *all = &L[nids];
        for (size_t k = 0; k < c->ndev; k++) { /* the device events (td_dev_order) */
            size_t i = (size_t)c->devix[k];
            const td_event *ev = &t->ev[i];
            if (ev->track >= t->ntracks || tdev[ev->track] < 0)
                continue;
            /* communication first: a copy made inside an MPI/UCX/NCCL range
             * (analyse/nsys_stats.c) is communication, as NCCL kernels are */
            int cl = td_is_sync_work(a, c, i) ? C_SYNC : c->iscomm[i] ? C_COMM
                     : ev->kind == TD_K_MEMCPY ? C_MCPY : C_COMP;
            td_iv iv = {ev->ts, ev->ts + ev->dur};
            devlists *d = &L[tdev[ev->track]];
            *TD_PUSH(d->v[cl], d->n[cl], d->cap[cl]) = iv;
            if (nids > 1)
                *TD_PUSH(all->v[cl], all->n[cl], all->cap[cl]) = iv;
        }
        for (size_t j = 0; j <= nids; j++) {
            size_t r0 = rs.n;
            if (L[j].n[0] + L[j].n[1] + L[j].n[2] + L[j].n[3] == 0)
                continue;
            emit(&rs, t->rank, j == nids ? -1 : ids[j], &L[j], c->steady0);
            /* one device: its rows are the rank's "all" rows (same lists, not kept twice) */
            if (nids == 1)
                for (size_t r = r0, r1 = rs.n; r < r1; r++) {
                    tlrow *y = TD_PUSH(rs.v, rs.n, rs.cap);
                    *y = rs.v[r];
                    y->dev = -1;
                }
        }
        for (size_t j = 0; j <= nids; j++)
            for (int k = 0; k < C__N; k++)
                free(L[j].v[k]);
        free(L);
        free(tdev);
        free(ids);
    }
    job_rows(a, tb, &rs);
    for (size_t i = 0; i < rs.n; i++)
        row(a, tb, &rs.v[i]);
    free(rs.v);
}
