/* analyse/critpath.c - the critical path of each steady step of each rank, on the graph
 * Holistic Trace Analysis builds (critical_path_analysis.py; doc/summary-json.md
 * "critical_path"), with its defect that device work launched by calls it does not name
 * (cudaGraphLaunch's kernels, cudaMemcpy...) has no launch edge fixed.
 *
 * The window is the step's CPU range: CPU ops, runtime and driver calls (not annotations)
 * that start in it with a duration, and the device work their calls launched. Each is a
 * start node and an end node. Edges (weight = destination time - source time, except
 * where 0 is said):
 *  - per CPU thread, in call-stack order: from the last node to the next start (weight 0
 *    between top-level ops) and from the last node to an op's end (0 for a blocking
 *    call: cudaDeviceSynchronize, cudaStreamSynchronize, cudaEvent{Query,Synchronize},
 *    cudaMemcpy, cudaMemcpyAsync);
 *  - cudaHostAlloc/cudaLaunchKernel/cudaMemcpyAsync hold the runtime's lock: across
 *    threads, in the order they end (HTA's lock path);
 *  - a device start to its end; from its launching call's start when the stream's queue
 *    was empty at the launch and at the start and the previous work on the stream ended
 *    before the call began (launch delay), else from the previous work's end on the
 *    stream when the gap is under 1.5 ms (kernel-kernel delay).
 * The path is the longest path of that graph. Each of its edges is attributed to an
 * event as HTA does (an edge from a start node: that event; into an end node: that
 * event; between an end and a next start: the op around them) and classed by what bounds
 * it: cpu_bound, gpu_compute_bound, gpu_communication_bound, gpu_kernel_launch_overhead,
 * gpu_kernel_kernel_overhead. Synchronisation edges (cuda_sync events) are not drawn:
 * the readers keep no cuda_sync event. Across ranks: analyse/critpath_coll.c. */
#include "analyse/critpath.h"
#include "base/sort.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define KK_DELAY_NS 1500000 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */

enum { E_OP, E_DEP, E_LAUNCH, E_KK, E_SYNC };

typedef struct cnode {
    int64_t ts;
    int32_t e;     /* local event */
    uint8_t start;
} cnode;

/* 16 bytes: the weight is not stored but follows from the nodes (edge_w), which keeps
 * the whole-trace graph of an export without steps (millions of edges) a third smaller */
typedef struct cedge {
    int32_t u, v;
    int32_t attr;  /* trace event the edge is attributed to, -1 none */
    uint8_t type;
    uint8_t zero;  /* weight 0 whatever the nodes' times */
} cedge;

typedef struct cgraph {
    int32_t *ev;           /* local event -> trace event */
    int32_t *sn, *en;      /* local event -> start/end node */
    size_t ne, cap_e;
    cnode *nd;
    size_t nn;
    cedge *ed;
    size_t ned, cap_ed;
} cgraph;

static int is_name(const char *n, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(n, *list))
            return 1;
    return 0;
}

static const char *const LOCK_CALLS[] = {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync",
                                         NULL};
static const char *const BLOCKING_CALLS[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                             "cudaEventQuery", "cudaEventSynchronize",
                                             "cudaMemcpy", "cudaMemcpyAsync", NULL};

/* Whether a runtime or driver call of this name holds the runtime lock (bit 1) or blocks
 * (bit 2), looked up once per name and trace (p->callmemo, bit 0: looked up). */
static unsigned call_bits(td_actx *a, td_cptrace *p, td_str name)
{
    if (!p->callmemo) {
        p->ncallmemo = td_strtab_count(a->set->strs) + 1;
        p->callmemo = td_xcalloc(p->ncallmemo, 1);
    }
    if (name < p->ncallmemo && p->callmemo[name])
        return p->callmemo[name];
    const char *nm = td_name(a, name);
    unsigned m = 1u | (is_name(nm, LOCK_CALLS) ? 2u : 0u) | (is_name(nm, BLOCKING_CALLS) ? 4u : 0u);
    if (name < p->ncallmemo)
        p->callmemo[name] = (uint8_t)m;
    return m;
}

/* An edge's weight: the time from its source node to its destination (never negative),
 * 0 for dependency edges and those made with zero set. */
static inline int64_t edge_w(const cgraph *g, const cedge *e)
{
    int64_t w = e->zero ? 0 : g->nd[e->v].ts - g->nd[e->u].ts;
    return w < 0 ? 0 : w;
}

static void add_edge(cgraph *g, int32_t u, int32_t v, uint8_t type, int zero, int32_t attr)
{
    if (u == v)
        return;
    if (g->ned == g->cap_ed) {
        g->cap_ed = g->cap_ed ? 2 * g->cap_ed : 256;
        g->ed = td_xrealloc(g->ed, g->cap_ed * sizeof *g->ed);
    }
    g->ed[g->ned++] = (cedge){u, v, attr, type, (uint8_t)(zero != 0)};
}

/* An edge of a span (HTA's _add_edge_helper and _attribute_edge): weight by time unless
 * zero; attributed from a start node to its event, into an end node to its event, else
 * to parent (the op around an end -> start step). */
static void span_edge(cgraph *g, int32_t u, int32_t v, uint8_t type, int zero, int32_t parent)
{
    const cnode *a = &g->nd[u], *b = &g->nd[v];
    int32_t attr = -1;
    if (type == E_OP || type == E_KK)
        attr = type == E_KK || a->start ? g->ev[a->e] : !b->start ? g->ev[b->e] : parent;
    add_edge(g, u, v, type, type == E_DEP || zero, attr);
}

/* Nodes by (time, event, start first). They are made in event order, each event's start
 * before its end, so a stable sort by time alone gives that order. */
_Static_assert(sizeof(cnode) == 16 && offsetof(cnode, ts) == 0, "td_sort_rec16's record");
static void sort_nodes(cgraph *g)
{
    td_sort_rec16(g->nd, g->nn);
}

static int is_cpu_node(const td_trace *t, const td_event *ev)
{
    return (ev->kind == TD_K_CPU_OP || ev->kind == TD_K_RUNTIME || ev->kind == TD_K_DRIVER) &&
           ev->dur > 0 && ev->track < t->ntracks && t->tracks[ev->track].device < 0;
}

/* A local event for trace event i: CPU event (k < 0, in the window) or the k-th device
 * event. */
static int32_t local(cgraph *g, td_cptrace *p, int32_t i, int32_t k)
{
    if (g->ne == g->cap_e) {
        g->cap_e = g->cap_e ? 2 * g->cap_e : 256;
        g->ev = td_xrealloc(g->ev, g->cap_e * sizeof *g->ev);
    }
    if (k >= 0)
        p->dloc[k] = (int32_t)g->ne;
    else
        p->wloc[(size_t)i - p->wlo] = (int32_t)g->ne;
    g->ev[g->ne] = i;
    return (int32_t)g->ne++;
}

/* The runtime lock path (HTA _construct_graph_from_cuda_runtime_events); a call that
 * blocked until device work ended (synced, not in HTA's mode) weighs nothing there, as in
 * its call stack. */
static void lock_edges(cgraph *g, const uint8_t *lock, const uint8_t *synced)
{
    int32_t *open = td_xmalloc((g->nn + 1) * sizeof *open);
    size_t no = 0;
    int32_t last = -1;
    for (size_t j = 0; j < g->nn; j++) {
        const cnode *x = &g->nd[j];
        if (!lock[x->e])
            continue;
        if (x->start)
            open[no++] = (int32_t)j;
        else {
            while (no) {
                int32_t s = open[--no];
                if (g->nd[s].e == x->e)
                    span_edge(g, s, (int32_t)j, E_OP, synced[x->e], -1);
                else
                    span_edge(g, s, (int32_t)j, E_DEP, 0, -1);
            }
            if (last >= 0 && !g->nd[last].start)
                span_edge(g, last, (int32_t)j, E_DEP, 0, -1);
        }
        last = (int32_t)j;
    }
    free(open);
}

/* Per CPU thread, the call-stack walk (HTA _construct_graph_from_call_stack) over HTA's
 * call stack (call_stack.py): every CPU event of the window with a duration, starts and
 * ends sorted (ties: an end before a start; longer starts first, shorter ends first), a
 * start's parent is the top of the stack, an end pops the top; then a depth-first walk.
 * The backward thread is walked as part of the forward thread when each is one thread
 * (HTA: the one thread with an op named "...autograd...", the one with "...forward..."). */
/* HTA's order of one group's starts and ends (call_stack.py): by time; at one time an
 * end before a start; starts longer first (then by event), ends shorter first (then the
 * later event first). The events are sorted by (start, longer first) already, so the
 * starts are taken in event order (checked; sorted when not), and the ends come out of a
 * heap of the open events' ends: every end at or before a start belongs to an event that
 * started before it. */
typedef struct cend {
    int64_t t;     /* end time */
    int64_t dur;
    int32_t i;     /* trace event */
} cend;

static int cend_less(const cend *a, const cend *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->dur != b->dur)
        return a->dur < b->dur;
    return a->i > b->i;
}

typedef struct cheap {
    cend *v;
    size_t n, cap;
} cheap;

static void heap_push(cheap *h, cend x)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 64;
        h->v = td_xrealloc(h->v, h->cap * sizeof *h->v);
    }
    size_t j = h->n++;
    while (j && cend_less(&x, &h->v[(j - 1) / 2])) {
        h->v[j] = h->v[(j - 1) / 2];
        j = (j - 1) / 2;
    }
    h->v[j] = x;
}

static void heap_pop(cheap *h)
{
    cend x = h->v[--h->n];
    size_t j = 0;
    for (;;) {
        size_t c = 2 * j + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && cend_less(&h->v[c + 1], &h->v[c]))
            c++;
        if (!cend_less(&h->v[c], &x))
            break;
        h->v[j] = h->v[c];
        j = c;
    }
    if (h->n)
        h->v[j] = x;
}

static const td_trace *g_t; /* for start_cmp */

/* starts: time, longer first, then by event */
static int start_before(const td_trace *t, int32_t x, int32_t y)
{
    const td_event *a = &t->ev[x], *b = &t->ev[y];
    if (a->ts != b->ts)
        return a->ts < b->ts;
    if (a->dur != b->dur)
        return a->dur > b->dur;
    return x < y;
}

static int start_cmp(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a == b ? 0 : start_before(g_t, a, b) ? -1 : 1;
}

typedef struct walk {
    cgraph *g;
    const td_cptrace *p;
    const uint8_t *lock, *blk;
    int32_t last;      /* node, -1 */
    int depth;
    int32_t lparent;   /* trace event around the last event walked */
} walk;

static int shares_lock(const cgraph *g, const uint8_t *lock, int32_t a, int32_t b)
{
    return lock[g->nd[a].e] && lock[g->nd[b].e] && (g->nd[a].start || !g->nd[b].start);
}

static void w_enter(walk *w, int32_t i, int32_t parent)
{
    int32_t le = td_cp_loc_cpu(w->p, i);
    if (le < 0)
        return;
    int32_t sn = w->g->sn[le];
    if (w->last >= 0 && !shares_lock(w->g, w->lock, w->last, sn))
        span_edge(w->g, w->last, sn, w->depth == 0 ? E_DEP : E_OP, 0, parent >= 0 ? parent : -1);
    w->last = sn;
    w->lparent = parent;
    w->depth++;
}

static void w_exit(walk *w, int32_t i, int32_t parent)
{
    int32_t le = td_cp_loc_cpu(w->p, i);
    if (le < 0)
        return;
    int32_t en = w->g->en[le];
    if (w->last >= 0 && !shares_lock(w->g, w->lock, w->last, en))
        span_edge(w->g, w->last, en, E_OP, w->blk[le], w->lparent);
    w->last = en;
    w->lparent = parent;
    w->depth--;
}

static const char *const WT_WORD[2] = {"forward", "autograd"};

/* The thread of the one track whose ops (cpu_op, user_annotation) from event lo to the
 * trace's end have a name containing WT_WORD[w]; -1 when none or several. One scan of
 * the trace (names looked at once each) serves every window. */
static int64_t word_track(td_actx *a, td_cptrace *p, size_t lo, int w)
{
    const td_trace *t = p->c->t;
    if (!p->wt_done) {
        size_t nn = td_strtab_count(a->set->strs) + 1;
        uint8_t *memo = td_xcalloc(nn, 1); /* bit 0 looked at, bits 1-2 the words */
        for (int k = 0; k < 2; k++)
            p->wt_last[k] = p->wt_track[k] = p->wt_other[k] = -1;
        for (size_t i = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if ((ev->kind != TD_K_CPU_OP && ev->kind != TD_K_USER_ANNOT) ||
                ev->track >= t->ntracks || t->tracks[ev->track].device >= 0)
                continue;
            uint8_t m;
            if (ev->name < nn && memo[ev->name])
                m = memo[ev->name];
            else {
                const char *nm = td_name(a, ev->name);
                m = (uint8_t)(1 | (strstr(nm, WT_WORD[0]) ? 2 : 0) | (strstr(nm, WT_WORD[1]) ? 4 : 0));
                if (ev->name < nn)
                    memo[ev->name] = m;
            }
            for (int k = 0; k < 2; k++) {
                if (!(m & (2 << k)))
                    continue;
                if (p->wt_last[k] >= 0 && p->wt_track[k] != ev->track)
                    p->wt_other[k] = p->wt_last[k];
                p->wt_last[k] = (int64_t)i;
                p->wt_track[k] = ev->track;
            }
        }
        free(memo);
        p->wt_done = 1;
    }
    /* the ops from lo on are on one track when none after lo is on another track than
     * the last one's */
    if (p->wt_last[w] < 0 || (int64_t)lo > p->wt_last[w] || (int64_t)lo <= p->wt_other[w])
        return -1;
    return p->wt_track[w];
}

static int is_stack_ev(const td_trace *t, const td_event *ev)
{
    return ev->dur > 0 && ev->track < t->ntracks && t->tracks[ev->track].device < 0 &&
           !td_kind_is_device(ev->kind);
}

/* The call stack of each group, walked depth first: a start enters (its parent is the
 * top of the stack) and an end exits the top; the enter/exit sequence of that sweep is
 * the depth-first walk of the tree it builds (children in start order), so no tree is
 * kept. Groups in ascending order, one after the other. */
static void stack_edges(td_actx *a, cgraph *g, td_cptrace *p, const uint8_t *lock,
                        const uint8_t *blk, size_t lo, const int32_t *win, size_t ne)
{
    const td_trace *t = p->c->t;
    int64_t fwd = word_track(a, p, lo, 0), bwd = word_track(a, p, lo, 1);
#define GRP(ev) (fwd >= 0 && bwd >= 0 && (int64_t)(ev)->track == bwd ? (int32_t)fwd : (int32_t)(ev)->track)
    /* win[ne]: the window's stack events (is_stack_ev) in event order */
    int one = 1;
    int32_t g0 = ne ? GRP(&t->ev[win[0]]) : -1;
    for (size_t j = 1; j < ne && one; j++)
        one = GRP(&t->ev[win[j]]) == g0;
    int32_t *sv = td_xmalloc((ne + 1) * sizeof *sv);
    if (one)
        memcpy(sv, win, ne * sizeof *sv);
    else { /* counting sort of the starts by group (groups are track numbers), stable */
        size_t *cnt = td_xcalloc(t->ntracks + 2, sizeof *cnt);
        for (size_t j = 0; j < ne; j++)
            cnt[GRP(&t->ev[win[j]]) + 1]++;
        for (size_t k = 0; k <= t->ntracks; k++)
            cnt[k + 1] += cnt[k];
        for (size_t j = 0; j < ne; j++)
            sv[cnt[GRP(&t->ev[win[j]])]++] = win[j];
        free(cnt);
    }
    cheap h = {0};
    int32_t *stk = NULL;
    size_t scap = 0;
    g_t = t;
    for (size_t j = 0; j < ne;) {
        size_t k = j;
        int32_t grp = GRP(&t->ev[sv[j]]);
        while (k < ne && GRP(&t->ev[sv[k]]) == grp)
            k++;
        for (size_t q = j + 1; q < k; q++)
            if (!start_before(t, sv[q - 1], sv[q])) { /* not in HTA's order: sort them */
                qsort(sv + j, k - j, sizeof *sv, start_cmp);
                break;
            }
        walk w = {g, p, lock, blk, -1, 0, -1};
        size_t ns = 0;
        h.n = 0;
        for (size_t q = j; q <= k; q++) {
            /* the ends at or before this start (all of them after the last) */
            while (h.n && (q == k || h.v[0].t <= t->ev[sv[q]].ts)) {
                heap_pop(&h);
                if (!ns)
                    continue;
                int32_t x = stk[--ns];
                w_exit(&w, x, ns ? stk[ns - 1] : -1);
            }
            if (q == k)
                break;
            const td_event *ev = &t->ev[sv[q]];
            w_enter(&w, sv[q], ns ? stk[ns - 1] : -1);
            if (ns == scap) {
                scap = scap ? 2 * scap : 64;
                stk = td_xrealloc(stk, scap * sizeof *stk);
            }
            stk[ns++] = sv[q];
            heap_push(&h, (cend){ev->ts + ev->dur, ev->dur, sv[q]});
        }
        j = k;
    }
#undef GRP
    free(h.v);
    free(stk);
    free(sv);
}

typedef struct slast {
    int32_t dev, stream, node;
} slast;

/* Device work (HTA _construct_graph_from_kernels, without the synchronisation events);
 * work that waited for another stream (dwait[j], the k-th device event; NULL none) is
 * reached from that work's end, not by a launch or kernel-kernel edge. */
static void kernel_edges(cgraph *g, const td_cptrace *p, const int32_t *dk, size_t nd,
                         const int32_t *dwait)
{
    const td_trace *t = p->c->t;
    slast *ls = NULL;
    size_t nls = 0, cls = 0;
    for (size_t j = 0; j < nd; j++) {
        int32_t k = dk[j], i = p->devix[k], le = p->dloc[k];
        const td_event *ev = &t->ev[i];
        const td_track *tk = &t->tracks[ev->track];
        int32_t sn = g->sn[le], en = g->en[le];
        span_edge(g, sn, en, E_OP, 0, -1);
        slast *l = NULL;
        for (size_t m = 0; m < nls; m++)
            if (ls[m].dev == tk->device && ls[m].stream == tk->stream)
                l = &ls[m];
        if (!l) {
            if (nls == cls) {
                cls = cls ? 2 * cls : 8;
                ls = td_xrealloc(ls, cls * sizeof *ls);
            }
            l = &ls[nls++];
            *l = (slast){tk->device, tk->stream, -1};
        }
        int32_t r = p->c->launch[k], rl = td_cp_loc_cpu(p, r);
        const td_event *call = &t->ev[r];
        if (dwait && dwait[j] >= 0)
            add_edge(g, g->en[p->dloc[dwait[j]]], sn, E_SYNC, 1, -1);
        else if (p->qrt[k] == 1 && p->qdev[k] == 0 && (l->node < 0 || g->nd[l->node].ts < call->ts) &&
            rl >= 0)
            span_edge(g, g->sn[rl], sn, E_LAUNCH, 0, -1);
        else if (l->node >= 0 && g->nd[sn].ts - g->nd[l->node].ts < KK_DELAY_NS)
            span_edge(g, l->node, sn, E_KK, 0, -1);
        l->node = en;
    }
    free(ls);
}

/* Longest path by dynamic programming in topological order; path[] receives its edges
 * in order (malloc'd), returns their count (0: no edge, or a cycle). */
static size_t longest(const cgraph *g, int32_t **path)
{
    size_t n = g->nn, m = g->ned;
    *path = NULL;
    if (!m)
        return 0;
    int32_t *indeg = td_xcalloc(n + 1, sizeof *indeg), *off = td_xcalloc(n + 2, sizeof *off);
    int32_t *adj = td_xmalloc((m + 1) * sizeof *adj), *q = td_xmalloc((n + 1) * sizeof *q);
    int64_t *dist = td_xcalloc(n + 1, sizeof *dist);
    int32_t *pred = td_xmalloc((n + 1) * sizeof *pred);
    for (size_t j = 0; j < m; j++) {
        indeg[g->ed[j].v]++;
        off[g->ed[j].u + 1]++;
    }
    for (size_t j = 0; j < n; j++)
        off[j + 1] += off[j];
    /* each node's edges in edge order: filled from the last edge down, from the end of
     * the node's run (off[u + 1]) to its start (off[u] again, once all are placed) */
    for (size_t j = 0; j < n; j++)
        off[j] = off[j + 1];
    for (size_t j = m; j-- > 0;)
        adj[--off[g->ed[j].u]] = (int32_t)j;
    size_t qh = 0, qt = 0;
    for (size_t j = 0; j < n; j++) {
        pred[j] = -1;
        if (!indeg[j])
            q[qt++] = (int32_t)j;
    }
    int32_t best = -1;
    while (qh < qt) {
        int32_t u = q[qh++];
        if (best < 0 || dist[u] > dist[best])
            best = u;
        for (int32_t a = off[u]; a < off[u + 1]; a++) {
            const cedge *e = &g->ed[adj[a]];
            int64_t w = edge_w(g, e);
            if (pred[e->v] < 0 || dist[u] + w > dist[e->v]) {
                dist[e->v] = dist[u] + w;
                pred[e->v] = adj[a];
            }
            if (--indeg[e->v] == 0)
                q[qt++] = e->v;
        }
    }
    /* the order and the lengths are done with: only pred and the edges make the path */
    free(indeg);
    free(off);
    free(adj);
    free(dist);
    size_t np = 0;
    if (qt == n && best >= 0) { /* the path from its end back (one walk: on the graph of
                                 * a whole export it is millions of cache misses), reversed */
        int32_t *pv = q;         /* the queue is done with, and has room for n entries */
        for (int32_t v = best; pred[v] >= 0; v = g->ed[pred[v]].u)
            pv[np++] = pred[v];
        *path = td_xmalloc((np + 1) * sizeof **path);
        for (size_t k = 0; k < np; k++)
            (*path)[k] = pv[np - 1 - k];
    }
    free(q);
    free(pred);
    return np;
}

const char *const td_cp_bound_names[TD_CP__N] = {
    "cpu_bound", "gpu_compute_bound", "gpu_communication_bound", "gpu_kernel_launch_overhead",
    "gpu_kernel_kernel_overhead"};

/* What a path edge is bound by; -1: a zero-weight dependency. */
static int bound_of(const td_tctx *c, const cedge *e)
{
    if (e->type == E_KK)
        return TD_CP_KK;
    if (e->type == E_LAUNCH)
        return TD_CP_LAUNCH;
    if (e->type == E_DEP || e->type == E_SYNC || e->attr < 0)
        return -1;
    const td_event *ev = &c->t->ev[e->attr];
    if (!td_kind_is_device(ev->kind))
        return TD_CP_CPU;
    return c->iscomm[e->attr] ? TD_CP_COMM : TD_CP_COMPUTE;
}

/* The name a path edge is reported under: device work by its name; CPU time by the
 * outermost op around the attributed event, below the step ("aten::embedding"). The
 * outermost op above each event is kept, so that a path through deeply nested ops
 * walks each parent chain once, not once per edge. */
static int names_op(td_actx *a, const td_tctx *c, int32_t p)
{
    return c->t->ev[p].kind == TD_K_CPU_OP &&
           strncmp(td_name(a, c->t->ev[p].name), "ProfilerStep", 12) != 0;
}

/* outer[] of event k from its parent's (known): the outermost op above the parent, else
 * the parent itself when it names an op, else none */
static int32_t outer_of(td_actx *a, const td_tctx *c, const int32_t *outer, int32_t k)
{
    int32_t q = c->parent[k];
    if (q < 0)
        return -1;
    return outer[q] >= 2 ? outer[q] - 2 : names_op(a, c, q) ? q : -1;
}

static int32_t report_event(td_actx *a, const td_tctx *c, td_cptrace *pt, int32_t i)
{
    const td_event *ev = &c->t->ev[i];
    if (td_kind_is_device(ev->kind))
        return i;
    if (!pt->outer)
        pt->outer = td_xcalloc(c->t->nev + 1, sizeof *pt->outer);
    if (pt->outer[i] == 0) {
        /* the chain from i up to the first event whose parent's answer is known (or
         * that has no parent), then filled from its top down */
        size_t n = 1;
        int32_t j = i;
        while (c->parent[j] >= 0 && pt->outer[c->parent[j]] == 0) {
            j = c->parent[j];
            n++;
        }
        int32_t *chain = td_xmalloc(n * sizeof *chain);
        size_t m = 0;
        for (int32_t k = i;; k = c->parent[k]) {
            chain[m++] = k;
            if (k == j)
                break;
        }
        while (m-- > 0)
            pt->outer[chain[m]] = 2 + outer_of(a, c, pt->outer, chain[m]);
        free(chain);
    }
    return pt->outer[i] >= 2 ? pt->outer[i] - 2 : i;
}

int td_cp_step(td_actx *a, const td_tctx *c, void *state, int64_t s0, int64_t s1,
               td_cp_result *res)
{
    td_cptrace *p = state;
    const td_trace *t = c->t;
    cgraph g = {0};
    memset(res, 0, sizeof *res);
    /* CPU events starting in [s0, s1] (events are sorted by start) */
    size_t lo = 0, hi = t->nev;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ev[mid].ts < s0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t whi = lo, wend = t->nev; /* the first event after s1 */
    while (whi < wend) {
        size_t mid = whi + (wend - whi) / 2;
        if (t->ev[mid].ts <= s1)
            whi = mid + 1;
        else
            wend = mid;
    }
    p->wlo = lo;
    p->wn = whi - lo;
    p->wloc = td_xmalloc((p->wn + 1) * sizeof *p->wloc);
    for (size_t j = 0; j < p->wn; j++)
        p->wloc[j] = -1;
    /* device work launched by a call that starts in the window: from b0 on */
    size_t b0 = 0, b1 = p->nbyl;
    while (b0 < b1) {
        size_t mid = b0 + (b1 - b0) / 2;
        if (t->ev[c->launch[p->bylaunch[mid]]].ts < s0)
            b0 = mid + 1;
        else
            b1 = mid;
    }
    /* local events: at most the window's events and that device work (sized once: the
     * whole-trace window of an export holds millions, and a grown array is copied) */
    g.cap_e = p->wn + (p->nbyl - b0) + 1;
    g.ev = td_xmalloc(g.cap_e * sizeof *g.ev);
    /* one scan of the window: its CPU nodes and its call-stack events (stack_edges) */
    int32_t *win = td_xmalloc((p->wn + 1) * sizeof *win);
    int32_t *calls = p->hta ? NULL : td_xmalloc((p->wn + 1) * sizeof *calls);
    size_t nwin = 0, ncalls = 0;
    for (size_t i = lo; i < whi; i++) {
        const td_event *ev = &t->ev[i];
        if (is_cpu_node(t, ev)) {
            local(&g, p, (int32_t)i, -1);
            if (calls && ev->kind != TD_K_CPU_OP)
                calls[ncalls++] = (int32_t)i;
        }
        if (is_stack_ev(t, ev))
            win[nwin++] = (int32_t)i;
    }
    size_t ncpu = g.ne;
    int32_t *dk = NULL;
    size_t nd = 0, dcap = 0;
    for (size_t j = b0; j < p->nbyl; j++) {
        int32_t k = p->bylaunch[j], r = c->launch[k];
        if (t->ev[r].ts > s1)
            break;
        if (t->ev[r].dur <= 0 || td_cp_loc_cpu(p, r) < 0)
            continue;
        if (nd == dcap) {
            dcap = dcap ? 2 * dcap : 256;
            dk = td_xrealloc(dk, dcap * sizeof *dk);
        }
        dk[nd++] = k;
        local(&g, p, p->devix[k], k);
    }
    (void)ncpu;
    /* nodes */
    g.nn = 2 * g.ne;
    g.nd = td_xmalloc((g.nn + 1) * sizeof *g.nd);
    uint8_t *lock = td_xcalloc(g.ne + 1, 1), *blk = td_xcalloc(g.ne + 1, 1);
    for (size_t le = 0; le < g.ne; le++) {
        const td_event *ev = &t->ev[g.ev[le]];
        g.nd[2 * le] = (cnode){ev->ts, (int32_t)le, 1};
        g.nd[2 * le + 1] = (cnode){ev->ts + ev->dur, (int32_t)le, 0};
        if (ev->kind == TD_K_RUNTIME || ev->kind == TD_K_DRIVER) {
            unsigned m = call_bits(a, p, ev->name);
            lock[le] = (uint8_t)((m >> 1) & 1);
            blk[le] = (uint8_t)((m >> 2) & 1);
        }
    }
    sort_nodes(&g);
    /* edges: at most two per lock event (lock_edges: an end pops each open start once,
     * plus one dependency), two per call-stack event (an enter and an exit) and two per
     * device event (its span, a launch or kernel-kernel edge); sized once */
    g.cap_ed = 2 * (g.ne + nwin + nd) + 1;
    g.ed = td_xmalloc(g.cap_ed * sizeof *g.ed);
    g.sn = td_xmalloc((g.ne + 1) * sizeof *g.sn);
    g.en = td_xmalloc((g.ne + 1) * sizeof *g.en);
    for (size_t j = 0; j < g.nn; j++)
        (g.nd[j].start ? g.sn : g.en)[g.nd[j].e] = (int32_t)j;
    if (nd) { /* by (start, k): two stable sorts, the second key first */
        td_keyed *kv = td_xmalloc(nd * sizeof *kv);
        for (size_t j = 0; j < nd; j++)
            kv[j] = (td_keyed){dk[j], dk[j]};
        td_sort_keyed(kv, nd);
        for (size_t j = 0; j < nd; j++)
            kv[j].key = t->ev[p->devix[kv[j].val]].ts;
        td_sort_keyed(kv, nd);
        for (size_t j = 0; j < nd; j++)
            dk[j] = (int32_t)kv[j].val;
        free(kv);
    }
    /* the waits without cuda_sync events (analyse/critpath_sync.c): a blocking call weighs
     * nothing (its end is reached from the work it waited for) */
    int32_t *dwait = NULL;
    td_cp_wait *cw = NULL;
    size_t ncw = 0;
    uint8_t *synced = td_xcalloc(g.ne + 1, 1);
    if (calls) {
        dwait = td_xmalloc((nd + 1) * sizeof *dwait);
        ncw = td_cp_infer_waits(a, p, dk, nd, calls, ncalls, dwait, &cw);
        for (size_t j = 0; j < ncw; j++) {
            int32_t le = td_cp_loc_cpu(p, cw[j].call);
            synced[le] = blk[le] = 1;
        }
    }
    free(calls);
    lock_edges(&g, lock, synced);
    stack_edges(a, &g, p, lock, blk, lo, win, nwin);
    free(win);
    free(synced);
    kernel_edges(&g, p, dk, nd, dwait);
    free(dwait);
    res->nsync = ncw;
    res->sync = ncw ? td_xmalloc(ncw * sizeof *res->sync) : NULL;
    for (size_t j = 0; j < ncw; j++) {
        add_edge(&g, g.en[p->dloc[cw[j].dev]], g.en[td_cp_loc_cpu(p, cw[j].call)], E_SYNC, 1,
                 cw[j].call);
        res->sync[j] = (td_cp_sync){cw[j].call, -1};
    }
    free(cw);
    /* what the path and the result no longer need, freed before the longest path's arrays */
    free(g.sn);
    free(g.en);
    free(lock);
    free(blk);
    g.sn = g.en = NULL;
    lock = blk = NULL;
    /* and the window's maps: the path and the result read neither */
    for (size_t j = 0; j < nd; j++)
        p->dloc[dk[j]] = -1;
    free(dk);
    dk = NULL;
    free(p->wloc);
    p->wloc = NULL;
    p->wn = 0;
    int32_t *path;
    size_t np = longest(&g, &path);
    /* the result: time per class with its top event, and the path's segments */
    res->nseg = 0;
    res->seg = np ? td_xmalloc(np * sizeof *res->seg) : NULL;
    for (size_t j = 0; j < np; j++) {
        const cedge *e = &g.ed[path[j]];
        int b = bound_of(c, e);
        int64_t w = edge_w(&g, e);
        if (b < 0 || w <= 0)
            continue;
        res->ns[b] += w;
        res->total += w;
        /* the lane: the destination's thread or stream (a launch delay is drawn on the
         * stream it launches onto); named after the attributed event, a launch delay
         * after the work it launches */
        int32_t lev = g.ev[g.nd[e->v].e];
        int32_t nev = e->type == E_LAUNCH ? lev : e->attr;
        td_cp_seg *sg = &res->seg[res->nseg++];
        sg->track = t->ev[lev].track;
        sg->start = g.nd[e->u].ts;
        sg->end = g.nd[e->v].ts;
        sg->bound = b;
        sg->event = report_event(a, c, p, nev);
    }
    for (size_t j = 0; j < res->nsync; j++) {
        int32_t o = report_event(a, c, p, res->sync[j].call);
        res->sync[j].op = o;
    }
    free(path);
    free(lock);
    free(blk);
    free(g.ev);
    free(g.sn);
    free(g.en);
    free(g.nd);
    free(g.ed);
    return np > 0;
}
