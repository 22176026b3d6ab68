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
#include <stdlib.h>
#include <string.h>

#define KK_DELAY_NS 1500000 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */

enum { E_OP, E_DEP, E_LAUNCH, E_KK };

typedef struct cnode {
    int64_t ts;
    int32_t e;     /* local event */
    uint8_t start;
} cnode;

typedef struct cedge {
    int32_t u, v;
    int64_t w;
    int32_t attr;  /* trace event the edge is attributed to, -1 none */
    uint8_t type;
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

/* Per-trace state shared by its steps. */
typedef struct cptrace {
    const td_tctx *c;
    int32_t *devix;        /* k-th device event -> trace event */
    int32_t *qrt, *qdev;   /* k-th device event: queue after its launch, after its start */
    int32_t *loc;          /* trace event -> local event, -1 */
    int32_t *bylaunch;     /* device k sorted by launching call start */
    size_t nbyl;
    int32_t *outer; /* trace event -> its outermost op below the step above it, -1 none,
                     * -2 not yet known (made on first use: linear however deep the nesting) */
} cptrace;

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

static void add_edge(cgraph *g, int32_t u, int32_t v, uint8_t type, int64_t w, int32_t attr)
{
    if (u == v)
        return;
    if (g->ned == g->cap_ed) {
        g->cap_ed = g->cap_ed ? 2 * g->cap_ed : 256;
        g->ed = td_xrealloc(g->ed, g->cap_ed * sizeof *g->ed);
    }
    g->ed[g->ned++] = (cedge){u, v, w < 0 ? 0 : w, attr, type};
}

/* An edge of a span (HTA's _add_edge_helper and _attribute_edge): weight by time unless
 * zero; attributed from a start node to its event, into an end node to its event, else
 * to parent (the op around an end -> start step). */
static void span_edge(cgraph *g, int32_t u, int32_t v, uint8_t type, int zero, int32_t parent)
{
    const cnode *a = &g->nd[u], *b = &g->nd[v];
    int64_t w = (type == E_DEP || zero) ? 0 : b->ts - a->ts;
    int32_t attr = -1;
    if (type == E_OP || type == E_KK)
        attr = type == E_KK || a->start ? g->ev[a->e] : !b->start ? g->ev[b->e] : parent;
    add_edge(g, u, v, type, w, attr);
}

static int node_cmp(const void *x, const void *y)
{
    const cnode *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->e != b->e)
        return a->e < b->e ? -1 : 1;
    return (int)b->start - (int)a->start;
}

static int is_cpu_node(const td_trace *t, const td_event *ev)
{
    return (ev->kind == TD_K_CPU_OP || ev->kind == TD_K_RUNTIME || ev->kind == TD_K_DRIVER) &&
           ev->dur > 0 && ev->track < t->ntracks && t->tracks[ev->track].device < 0;
}

typedef struct qc {
    int32_t stream, dev;
    int32_t d;     /* +1 launch, -1 start */
    int32_t k;
    int64_t ts;
} qc;

static int qc_cmp(const void *x, const void *y)
{
    const qc *a = x, *b = y;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return b->d - a->d;
}

static const td_tctx *g_c; /* for the qsort of bylaunch */
static const int32_t *g_devix;

static int byl_cmp(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    const td_trace *t = g_c->t;
    int64_t ta = t->ev[g_c->launch[a]].ts, tb = t->ev[g_c->launch[b]].ts;
    if (ta != tb)
        return ta < tb ? -1 : 1;
    int64_t sa = t->ev[g_devix[a]].ts, sb = t->ev[g_devix[b]].ts;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return (a > b) - (a < b);
}

static void cp_trace_init(cptrace *p, const td_tctx *c)
{
    const td_trace *t = c->t;
    memset(p, 0, sizeof *p);
    p->c = c;
    p->devix = td_xmalloc((c->ndev + 1) * sizeof *p->devix);
    p->qrt = td_xmalloc((c->ndev + 1) * sizeof *p->qrt);
    p->qdev = td_xmalloc((c->ndev + 1) * sizeof *p->qdev);
    p->loc = td_xmalloc((t->nev + 1) * sizeof *p->loc);
    p->bylaunch = td_xmalloc((c->ndev + 1) * sizeof *p->bylaunch);
    for (size_t i = 0; i < t->nev; i++)
        p->loc[i] = -1;
    qc *q = td_xmalloc((2 * c->ndev + 1) * sizeof *q);
    size_t nq = 0;
    for (size_t i = 0, k = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        if (!td_kind_is_device(ev->kind))
            continue;
        p->devix[k] = (int32_t)i;
        p->qrt[k] = p->qdev[k] = -1;
        if (c->launch[k] >= 0)
            p->bylaunch[p->nbyl++] = (int32_t)k;
        k++;
    }
    /* one queue entry per launching call and stream: a CUDA graph's first kernel on a
     * stream (the call starts it; the graph's next kernels follow it on the device) */
    g_c = c;
    g_devix = p->devix;
    qsort(p->bylaunch, p->nbyl, sizeof *p->bylaunch, byl_cmp);
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
        q[nq++] = (qc){tk->stream, tk->device, 1, k, t->ev[r].ts};
        q[nq++] = (qc){tk->stream, tk->device, -1, k, t->ev[p->devix[k]].ts};
    }
    qsort(q, nq, sizeof *q, qc_cmp);
    int32_t len = 0;
    for (size_t j = 0; j < nq; j++) {
        if (j == 0 || q[j].stream != q[j - 1].stream || q[j].dev != q[j - 1].dev)
            len = 0;
        len += q[j].d;
        if (q[j].d > 0)
            p->qrt[q[j].k] = len;
        else
            p->qdev[q[j].k] = len;
    }
    free(q);
}

static void cp_trace_free(cptrace *p)
{
    free(p->devix);
    free(p->qrt);
    free(p->qdev);
    free(p->loc);
    free(p->bylaunch);
    free(p->outer);
}

static int32_t local(cgraph *g, cptrace *p, int32_t i)
{
    if (g->ne == g->cap_e) {
        g->cap_e = g->cap_e ? 2 * g->cap_e : 256;
        g->ev = td_xrealloc(g->ev, g->cap_e * sizeof *g->ev);
    }
    p->loc[i] = (int32_t)g->ne;
    g->ev[g->ne] = i;
    return (int32_t)g->ne++;
}

/* The runtime lock path (HTA _construct_graph_from_cuda_runtime_events). */
static void lock_edges(cgraph *g, const uint8_t *lock)
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
                    span_edge(g, s, (int32_t)j, E_OP, 0, -1);
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
typedef struct cpt {
    int64_t t, dur;
    int32_t i;     /* trace event */
    int32_t grp;
    uint8_t start;
} cpt;

static int cpt_cmp(const void *x, const void *y)
{
    const cpt *a = x, *b = y;
    if (a->grp != b->grp)
        return a->grp < b->grp ? -1 : 1;
    if (a->i == b->i)
        return a->start ? -1 : 1;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->start == b->start) {
        if (a->dur != b->dur)
            return a->start ? (a->dur > b->dur ? -1 : 1) : (a->dur < b->dur ? -1 : 1);
        return a->start ? (a->i < b->i ? -1 : 1) : (a->i > b->i ? -1 : 1);
    }
    return a->start ? 1 : -1;
}

typedef struct walk {
    cgraph *g;
    const cptrace *p;
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
    int32_t le = w->p->loc[i];
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
    int32_t le = w->p->loc[i];
    if (le < 0)
        return;
    int32_t en = w->g->en[le];
    if (w->last >= 0 && !shares_lock(w->g, w->lock, w->last, en))
        span_edge(w->g, w->last, en, E_OP, w->blk[le], w->lparent);
    w->last = en;
    w->lparent = parent;
    w->depth--;
}

/* The thread of the one track whose ops (cpu_op, user_annotation) in [lo, hi) have a
 * name containing word; -1 when none or several. */
static int64_t word_track(td_actx *a, const td_trace *t, size_t lo, size_t hi, const char *word)
{
    int64_t tr = -1;
    for (size_t i = lo; i < hi; i++) {
        const td_event *ev = &t->ev[i];
        if ((ev->kind != TD_K_CPU_OP && ev->kind != TD_K_USER_ANNOT) || ev->track >= t->ntracks ||
            t->tracks[ev->track].device >= 0 || !strstr(td_name(a, ev->name), word))
            continue;
        if (tr >= 0 && tr != ev->track)
            return -1;
        tr = ev->track;
    }
    return tr;
}

static void stack_edges(td_actx *a, cgraph *g, const cptrace *p, const uint8_t *lock,
                        const uint8_t *blk, size_t lo, size_t hi, int64_t s1)
{
    const td_trace *t = p->c->t;
    int64_t fwd = word_track(a, t, lo, hi, "forward"), bwd = word_track(a, t, lo, hi, "autograd");
    cpt *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = lo; i < hi && t->ev[i].ts <= s1; i++) {
        const td_event *ev = &t->ev[i];
        if (ev->dur <= 0 || ev->track >= t->ntracks || t->tracks[ev->track].device >= 0 ||
            td_kind_is_device(ev->kind))
            continue;
        if (n + 2 > cap) {
            cap = cap ? 2 * cap : 1024;
            v = td_xrealloc(v, cap * sizeof *v);
        }
        int32_t grp = fwd >= 0 && bwd >= 0 && (int64_t)ev->track == bwd ? (int32_t)fwd
                                                                        : (int32_t)ev->track;
        v[n++] = (cpt){ev->ts, ev->dur, (int32_t)i, grp, 1};
        v[n++] = (cpt){ev->ts + ev->dur, ev->dur, (int32_t)i, grp, 0};
    }
    if (n)
        qsort(v, n, sizeof *v, cpt_cmp);
    /* the tree: parent, children in order (first, next sibling), per group */
    size_t ne = n / 2;
    int32_t *id = td_xmalloc((ne + 1) * sizeof *id), *par = td_xmalloc((ne + 1) * sizeof *par);
    int32_t *first = td_xmalloc((ne + 1) * sizeof *first), *lastc = td_xmalloc((ne + 1) * sizeof *lastc);
    int32_t *next = td_xmalloc((ne + 1) * sizeof *next), *stk = td_xmalloc((ne + 1) * sizeof *stk);
    for (size_t j = 0; j < n;) {
        size_t k = j, m = 0, ns = 0;
        int32_t rf = -1, rl = -1;
        for (; k < n && v[k].grp == v[j].grp; k++) {
            if (v[k].start) {
                int32_t x = (int32_t)m++;
                id[x] = v[k].i;
                par[x] = ns ? stk[ns - 1] : -1;
                first[x] = lastc[x] = next[x] = -1;
                int32_t *f = par[x] >= 0 ? &first[par[x]] : &rf, *l = par[x] >= 0 ? &lastc[par[x]] : &rl;
                if (*l >= 0)
                    next[*l] = x;
                else
                    *f = x;
                *l = x;
                stk[ns++] = x;
            } else if (ns)
                ns--;
        }
        /* depth-first walk; stk holds the path from the root */
        walk w = {g, p, lock, blk, -1, 0, -1};
        ns = 0;
        int32_t x = rf;
        while (x >= 0) {
            w_enter(&w, id[x], par[x] >= 0 ? id[par[x]] : -1);
            if (first[x] >= 0) {
                stk[ns++] = x;
                x = first[x];
                continue;
            }
            w_exit(&w, id[x], par[x] >= 0 ? id[par[x]] : -1);
            while (next[x] < 0 && ns) {
                x = stk[--ns];
                w_exit(&w, id[x], par[x] >= 0 ? id[par[x]] : -1);
            }
            x = next[x];
        }
        j = k;
    }
    free(id);
    free(par);
    free(first);
    free(lastc);
    free(next);
    free(stk);
    free(v);
}

typedef struct slast {
    int32_t dev, stream, node;
} slast;

/* Device work (HTA _construct_graph_from_kernels, without the synchronisation events). */
static void kernel_edges(cgraph *g, const cptrace *p, const int32_t *dk, size_t nd)
{
    const td_trace *t = p->c->t;
    slast *ls = NULL;
    size_t nls = 0, cls = 0;
    for (size_t j = 0; j < nd; j++) {
        int32_t k = dk[j], i = p->devix[k], le = p->loc[i];
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
        int32_t r = p->c->launch[k], rl = p->loc[r];
        const td_event *call = &t->ev[r];
        if (p->qrt[k] == 1 && p->qdev[k] == 0 && (l->node < 0 || g->nd[l->node].ts < call->ts) &&
            rl >= 0)
            span_edge(g, g->sn[rl], sn, E_LAUNCH, 0, -1);
        else if (l->node >= 0 && g->nd[sn].ts - g->nd[l->node].ts < KK_DELAY_NS)
            span_edge(g, l->node, sn, E_KK, 0, -1);
        l->node = en;
    }
    free(ls);
}

static int dk_cmp(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    int64_t sa = g_c->t->ev[g_devix[a]].ts, sb = g_c->t->ev[g_devix[b]].ts;
    if (sa != sb)
        return sa < sb ? -1 : 1;
    return (a > b) - (a < b);
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
    int32_t *fill = td_xmalloc((n + 1) * sizeof *fill);
    memcpy(fill, off, n * sizeof *fill);
    for (size_t j = 0; j < m; j++)
        adj[fill[g->ed[j].u]++] = (int32_t)j;
    free(fill);
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
            if (pred[e->v] < 0 || dist[u] + e->w > dist[e->v]) {
                dist[e->v] = dist[u] + e->w;
                pred[e->v] = adj[a];
            }
            if (--indeg[e->v] == 0)
                q[qt++] = e->v;
        }
    }
    size_t np = 0;
    if (qt == n && best >= 0) {
        for (int32_t v = best; pred[v] >= 0; v = g->ed[pred[v]].u)
            np++;
        *path = td_xmalloc((np + 1) * sizeof **path);
        size_t k = np;
        for (int32_t v = best; pred[v] >= 0; v = g->ed[pred[v]].u)
            (*path)[--k] = pred[v];
    }
    free(indeg);
    free(off);
    free(adj);
    free(q);
    free(dist);
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
    if (e->type == E_DEP || e->attr < 0)
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
    return outer[q] >= 0 ? outer[q] : names_op(a, c, q) ? q : -1;
}

static int32_t report_event(td_actx *a, const td_tctx *c, cptrace *pt, int32_t i)
{
    const td_event *ev = &c->t->ev[i];
    if (td_kind_is_device(ev->kind))
        return i;
    if (!pt->outer) {
        pt->outer = td_xmalloc((c->t->nev + 1) * sizeof *pt->outer);
        for (size_t k = 0; k < c->t->nev; k++)
            pt->outer[k] = -2;
    }
    if (pt->outer[i] == -2) {
        /* the chain from i up to the first event whose parent's answer is known (or
         * that has no parent), then filled from its top down */
        size_t n = 1;
        int32_t j = i;
        while (c->parent[j] >= 0 && pt->outer[c->parent[j]] == -2) {
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
            pt->outer[chain[m]] = outer_of(a, c, pt->outer, chain[m]);
        free(chain);
    }
    return pt->outer[i] >= 0 ? pt->outer[i] : i;
}

int td_cp_step(td_actx *a, const td_tctx *c, void *state, int64_t s0, int64_t s1,
               td_cp_result *res)
{
    cptrace *p = state;
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
    for (size_t i = lo; i < t->nev && t->ev[i].ts <= s1; i++)
        if (is_cpu_node(t, &t->ev[i]))
            local(&g, p, (int32_t)i);
    size_t ncpu = g.ne;
    /* device work launched by a call that starts in the window */
    size_t b0 = 0, b1 = p->nbyl;
    while (b0 < b1) {
        size_t mid = b0 + (b1 - b0) / 2;
        if (t->ev[c->launch[p->bylaunch[mid]]].ts < s0)
            b0 = mid + 1;
        else
            b1 = mid;
    }
    int32_t *dk = NULL;
    size_t nd = 0;
    for (size_t j = b0; j < p->nbyl; j++) {
        int32_t k = p->bylaunch[j], r = c->launch[k];
        if (t->ev[r].ts > s1)
            break;
        if (t->ev[r].dur <= 0 || p->loc[r] < 0)
            continue;
        dk = td_xrealloc(dk, (nd + 1) * sizeof *dk);
        dk[nd++] = k;
        local(&g, p, p->devix[k]);
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
            const char *nm = td_name(a, ev->name);
            lock[le] = (uint8_t)is_name(nm, LOCK_CALLS);
            blk[le] = (uint8_t)is_name(nm, BLOCKING_CALLS);
        }
    }
    qsort(g.nd, g.nn, sizeof *g.nd, node_cmp);
    g.sn = td_xmalloc((g.ne + 1) * sizeof *g.sn);
    g.en = td_xmalloc((g.ne + 1) * sizeof *g.en);
    for (size_t j = 0; j < g.nn; j++)
        (g.nd[j].start ? g.sn : g.en)[g.nd[j].e] = (int32_t)j;
    lock_edges(&g, lock);
    stack_edges(a, &g, p, lock, blk, lo, t->nev, s1);
    g_c = c;
    g_devix = p->devix;
    if (nd)
        qsort(dk, nd, sizeof *dk, dk_cmp);
    kernel_edges(&g, p, dk, nd);
    int32_t *path;
    size_t np = longest(&g, &path);
    /* the result: time per class with its top event, and the path's segments */
    res->nseg = 0;
    res->seg = np ? td_xmalloc(np * sizeof *res->seg) : NULL;
    for (size_t j = 0; j < np; j++) {
        const cedge *e = &g.ed[path[j]];
        int b = bound_of(c, e);
        if (b < 0 || e->w <= 0)
            continue;
        res->ns[b] += e->w;
        res->total += e->w;
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
    free(path);
    for (size_t le = 0; le < g.ne; le++)
        p->loc[g.ev[le]] = -1;
    free(dk);
    free(lock);
    free(blk);
    free(g.ev);
    free(g.sn);
    free(g.en);
    free(g.nd);
    free(g.ed);
    return np > 0;
}

void *td_cp_trace_new(const td_tctx *c)
{
    cptrace *p = td_xmalloc(sizeof *p);
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
