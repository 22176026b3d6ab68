/* analyse/op_perf.c - the per-op performance model for ops with input shapes
 * (record_shapes=True; read/chrome_event.c keeps "Input Dims", "Input type" and
 * "Concrete Inputs" of the ops td_shape_op_wanted names), as TraceLens models them
 * (perf_model.py at 171dd747; doc/summary-json.md "op_perf"):
 *   the models (GEMM, SDPA forward and backward, convolution, elementwise,
 *   normalisation, reductions) are in analyse/op_models.c.
 * Time of a call = the union of the device intervals (kernels, memcpy, memset) launched
 * from the op's subtree (tree_perf.py:395-404). One row per (rank, op, shapes, types):
 * calls, FLOPs and bytes of one call, kernel_ns summed over the calls, TFLOP/s and TB/s
 * over that time, intensity, and the roofline (tree_perf.py:482-505) against the device's
 * peaks (analyse/peaks.c) or --peak.
 * `op_perf_bwd`, the same columns: TraceLens's *_bwdpass sheets, the time of the backward
 * functions autograd links to a Reduce, SDPA or convolution forward op (the link and the
 * times in analyse/op_perf_bwd.c), with the backward model of the forward op. */
#include "analyse/internal.h"
#include "base/hash.h"
#include "analyse/op_models.h"
#include "analyse/op_perf_bwd.h"
#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t sh;                /* index into t->shapes */
    uint32_t ev;                /* the op's event */
    int valid;
    const char *cat;            /* "GEMM", "SDPA_fwd"... (td_opm.cat) */
    double flops;               /* one call */
    int64_t bytes;              /* one call, -1 unknown */
    const char *dtype;          /* short name (summary arena) */
    int64_t kernel_ns;          /* union of its device intervals */
    td_str shape, types;        /* normalised "Input Dims" ("[[512], [141, 512]]") and
                                   "Input type" texts: the row's key with the name */
    int32_t outer;              /* the outermost modelled call around this one with the
                                   same device time (aten::layer_norm around
                                   aten::native_layer_norm), -1 none */
} call_t;

/* dims as Python prints them (TraceLens's "Input Dims" column) */
static td_str dims_text(td_actx *a, const td_opm_dims *d)
{
    td_buf b = {0};
    td_buf_printf(&b, "[");
    for (int i = 0; i < d->n; i++) {
        td_buf_printf(&b, "%s[", i ? ", " : "");
        for (int k = 0; k < d->nd[i]; k++)
            td_buf_printf(&b, "%s%lld", k ? ", " : "", (long long)d->d[i][k]);
        td_buf_printf(&b, "]");
    }
    td_buf_printf(&b, "]");
    td_str r = td_intern(a->set->strs, b.p, b.n);
    td_buf_free(&b);
    return r;
}

/* a JSON text without the white space outside its strings */
static td_str compact(td_actx *a, const char *p)
{
    td_buf b = {0};
    int in = 0;
    for (; p && *p; p++) {
        if (in && *p == '\\' && p[1]) {
            td_buf_printf(&b, "%c%c", p[0], p[1]);
            p++;
            continue;
        }
        if (*p == '"')
            in = !in;
        if (in || !isspace((unsigned char)*p))
            td_buf_printf(&b, "%c", *p);
    }
    td_str r = b.n ? td_intern(a->set->strs, b.p, b.n) : 0;
    td_buf_free(&b);
    return r;
}

static int model(td_actx *a, const td_shape *sh, call_t *c)
{
    td_opm_dims d;
    td_opm m;
    if (!td_opm_parse_dims(td_name(a, sh->dims), &d))
        return 0;
    const char *types = sh->types ? td_name(a, sh->types) : NULL;
    const char *con = sh->concrete ? td_name(a, sh->concrete) : NULL;
    if (!td_opm_model(td_name(a, sh->name), &d, types, con, &m))
        return 0;
    c->shape = dims_text(a, &d);
    c->types = compact(a, types);
    c->cat = m.cat;
    c->dtype = td_arena_strdup(a->s->a, m.dtype ? m.dtype : "");
    c->flops = m.flops;
    c->bytes = m.bytes >= 0 ? (int64_t)m.bytes : -1;
    return 1;
}

/* model() per distinct (name, dims, types, concrete inputs): a trace's calls repeat a
 * few hundred shapes hundreds of thousands of times, and the text work of one call
 * (parsing its dims, printing them back) was most of this pass on a 1 GB trace. */
typedef struct {
    uint32_t k[4];
    int used, ok;
    call_t c;
} memo_ent;

typedef struct {
    memo_ent *v;
    size_t n, cap; /* cap: a power of two */
} memo_t;

static int model_memo(td_actx *a, memo_t *mt, const td_shape *sh, call_t *c)
{
    uint32_t k[4] = {sh->name, sh->dims, sh->types, sh->concrete};
    if (2 * (mt->n + 1) > mt->cap) {
        memo_t nw = {td_xcalloc(mt->cap ? 2 * mt->cap : 256, sizeof *nw.v), mt->n,
                     mt->cap ? 2 * mt->cap : 256};
        for (size_t i = 0; i < mt->cap; i++)
            if (mt->v[i].used) {
                size_t j = td_hash_words(0, (const char *)mt->v[i].k, sizeof k) & (nw.cap - 1);
                while (nw.v[j].used)
                    j = (j + 1) & (nw.cap - 1);
                nw.v[j] = mt->v[i];
            }
        free(mt->v);
        *mt = nw;
    }
    size_t j = td_hash_words(0, (const char *)k, sizeof k) & (mt->cap - 1);
    for (; mt->v[j].used; j = (j + 1) & (mt->cap - 1))
        if (!memcmp(mt->v[j].k, k, sizeof k))
            break;
    memo_ent *e = &mt->v[j];
    if (!e->used) {
        e->used = 1;
        memcpy(e->k, k, sizeof k);
        e->ok = model(a, sh, &e->c);
        mt->n++;
    }
    if (e->ok) { /* the model's fields; the call's own (sh, ev, kernel_ns) stay */
        c->cat = e->c.cat;
        c->flops = e->c.flops;
        c->bytes = e->c.bytes;
        c->dtype = e->c.dtype;
        c->shape = e->c.shape;
        c->types = e->c.types;
    }
    return e->ok;
}

/* Each call's kernel time: the union of the device work launched under it. */
static void kernel_times(const td_tctx *cx, call_t *calls, size_t nc)
{
    uint64_t *pairs = td_xmalloc(nc * sizeof *pairs);
    int64_t *ns = td_xcalloc(nc, sizeof *ns);
    for (size_t i = 0; i < nc; i++)
        pairs[i] = (uint64_t)calls[i].ev << 32 | (uint32_t)i;
    td_opp_sort_pairs(pairs, nc);
    td_opp_union(cx, pairs, nc, ns);
    for (size_t i = 0; i < nc; i++)
        calls[i].kernel_ns = ns[i];
    free(ns);
    free(pairs);
}

/* Issue 38: a modelled call inside another with the same device time (aten::layer_norm
 * -> aten::native_layer_norm: one kernel, both modelled) is the same work twice. Each
 * call's outermost such caller, as TraceLens's unified summary keeps the outer op; the
 * rows stay (TraceLens's per-op sheets have both) with the outer row's name in `inside`,
 * and the documents show the outer row only. */
static void outer_calls(const td_tctx *cx, call_t *calls, size_t nc)
{
    uint64_t *pairs = td_xmalloc((nc ? nc : 1) * sizeof *pairs);
    for (size_t i = 0; i < nc; i++) {
        pairs[i] = (uint64_t)calls[i].ev << 32 | (uint32_t)i;
        calls[i].outer = -1;
    }
    td_opp_sort_pairs(pairs, nc);
    for (size_t i = 0; i < nc; i++) {
        if (calls[i].kernel_ns <= 0)
            continue;
        for (int32_t p = cx->parent[calls[i].ev]; p >= 0; p = cx->parent[p]) {
            size_t lo = 0, hi = nc; /* the call whose event is p, if any */
            while (lo < hi) {
                size_t m = lo + (hi - lo) / 2;
                if ((uint32_t)(pairs[m] >> 32) < (uint32_t)p)
                    lo = m + 1;
                else
                    hi = m;
            }
            if (lo < nc && (uint32_t)(pairs[lo] >> 32) == (uint32_t)p) {
                uint32_t j = (uint32_t)pairs[lo];
                /* of another row: an op calling its own overload with the same shapes
                 * (aten::div -> aten::div) stays one row */
                if (calls[j].kernel_ns == calls[i].kernel_ns &&
                    (cx->t->shapes[calls[j].sh].name != cx->t->shapes[calls[i].sh].name ||
                     calls[j].shape != calls[i].shape || calls[j].types != calls[i].types))
                    calls[i].outer = (int32_t)j;
            }
        }
    }
    free(pairs);
}

/* rows are grouped by (op name, dims, types) and ordered by kernel time, largest first */
typedef struct {
    td_str name, dims, types;
    size_t first, n;            /* calls[first..] of the group after sorting */
    int64_t kernel_ns;
    int64_t with_kernel;        /* calls that launched device work */
    int64_t graph;              /* calls copied from a graph capture (analyse/graphs) */
    size_t inner;               /* calls with an outer call of the same device time */
} group_t;

static const td_trace *g_t; /* for the qsort comparators below */

static int call_key_cmp(const void *x, const void *y)
{
    const call_t *a = x, *b = y;
    td_str na = g_t->shapes[a->sh].name, nb = g_t->shapes[b->sh].name;
    if (na != nb)
        return na < nb ? -1 : 1;
    if (a->shape != b->shape)
        return a->shape < b->shape ? -1 : 1;
    if (a->types != b->types)
        return a->types < b->types ? -1 : 1;
    return (a->sh > b->sh) - (a->sh < b->sh);
}

static int group_cmp(const void *x, const void *y)
{
    const group_t *a = x, *b = y;
    if (a->kernel_ns != b->kernel_ns)
        return a->kernel_ns > b->kernel_ns ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

/* The one writer of the columns of `op_perf` and `op_perf_bwd` (the merge copies the
 * partial summaries' rows into the same schema). */
static td_table *table(td_summary *s, int bwd, int graph)
{
    td_table *tb = bwd ? td_sum_table(s, "op_perf_bwd", "Op performance model, backward pass")
                       : td_sum_table(s, "op_perf", "Op performance model");
    td_table_cols(tb, "rank:int:Rank", "name:text:Op and input shapes", "op:text:Op", "category:text:Category",
                  "shape:text:Input shapes", "dtype:text:Type", "calls:int:Calls",
                  "flops:int:FLOPs (one call)", "bytes:bytes:Bytes (one call)",
                  "kernel_ns:ns:Device time", "tflops:f64:TFLOP/s", "tbps:f64:TB/s",
                  "intensity:f64:FLOPs/byte", "peak_tflops:f64:Peak TFLOP/s",
                  "peak_tbps:f64:Peak TB/s", "roofline_ns:ns:Roofline time",
                  "roofline_share:share:Of roofline", "bound:text:Bound",
                  "inside:text:Inside", NULL);
    if (graph) /* calls that are a graph replay's captured ops */
        td_table_cols(tb, "graph:int:Graph calls", NULL);
    td_diag_nodoc(tb);
    return tb;
}

/* The PDF and workbook show the measured figures (op and shapes in `name`); the model's
 * inputs are in the JSON and CSV. Also used by the merge (merge/merge.c), whose partial
 * summaries do not carry the flag. */
void td_diag_nodoc(td_table *t)
{
    static const char *const op[] = {"op", "shape", "category", "flops", "bytes", "intensity",
                                     "peak_tflops", "peak_tbps", "roofline_ns", "inside"};
    if (t && (!strcmp(t->name, "op_perf") || !strcmp(t->name, "op_perf_bwd")))
        for (size_t i = 0; i < sizeof op / sizeof op[0]; i++)
            td_table_nodoc(t, op[i]);
    if (t && !strcmp(t->name, "memory"))
        td_table_nodoc(t, "events");
}

static const char *device_name(const td_actx *a, const td_trace *t)
{
    for (size_t d = 0; d < t->ndevices; d++)
        if (t->devices[d].name)
            return td_name(a, t->devices[d].name);
    return NULL;
}

typedef struct {
    struct { const char *dtype; double pf, pb; } r[16];
    size_t n;
    const td_peak *pk;
} roofs_t;

/* One row per (op, shapes, types) of calls[nc] (sorted by call_key_cmp), largest device
 * time first, into *tbp (made on the first row). */
static void write_rows(td_actx *a, const td_trace *t, td_table **tbp, int bwd, call_t *calls,
                       size_t nc, roofs_t *rf)
{
    td_summary *s = a->s;
    group_t *g = td_xcalloc(nc + 1, sizeof *g);
    size_t ng = 0;
    for (size_t i = 0; i < nc; i++) {
        const td_shape *sh = &t->shapes[calls[i].sh];
        td_str nm = sh->name;
        if (!ng || g[ng - 1].name != nm || g[ng - 1].dims != calls[i].shape ||
            g[ng - 1].types != calls[i].types) {
            g[ng].name = nm;
            g[ng].dims = calls[i].shape;
            g[ng].types = calls[i].types;
            g[ng].first = i;
            ng++;
        }
        g[ng - 1].n++;
        g[ng - 1].kernel_ns += calls[i].kernel_ns;
        g[ng - 1].with_kernel += calls[i].kernel_ns > 0;
        g[ng - 1].graph += t->ev[calls[i].ev].ph == 'g';
        g[ng - 1].inner += !bwd && calls[i].outer >= 0;
    }
    qsort(g, ng, sizeof *g, group_cmp);
    const td_peak *pk = rf->pk;
    for (size_t k = 0; k < ng; k++) {
        const call_t *c = &calls[g[k].first];
        td_table *tb = *tbp ? *tbp : (*tbp = table(s, bwd, a->graph_ops && !bwd));
        size_t r = td_table_add_row(tb);
        td_row_int(s, tb, r, "rank", t->rank);
        td_row_str(s, tb, r, "op", td_name(a, g[k].name));
        td_row_str(s, tb, r, "category", c->cat);
        td_row_str(s, tb, r, "shape", td_name(a, g[k].dims));
        td_row_str(s, tb, r, "name", td_arena_printf(s->a, "%s %s", td_name(a, g[k].name),
                                                     td_name(a, g[k].dims)));
        td_row_str(s, tb, r, "dtype", c->dtype);
        td_row_int(s, tb, r, "calls", (int64_t)g[k].n);
        td_row_int(s, tb, r, "graph", g[k].graph); /* only with graph replays (table()) */
        if (g[k].inner == g[k].n) { /* every call is inside another's row */
            const call_t *o = &calls[c->outer];
            td_row_str(s, tb, r, "inside", td_arena_printf(s->a, "%s %s",
                       td_name(a, t->shapes[o->sh].name), td_name(a, o->shape)));
        }
        td_row_int(s, tb, r, "flops", c->flops >= 0 ? llround(c->flops) : TD_NA);
        td_row_int(s, tb, r, "bytes", c->bytes >= 0 ? c->bytes : TD_NA);
        if (!g[k].with_kernel)
            continue; /* CPU-only calls: no device time, nothing measured */
        int64_t kns = g[k].kernel_ns;
        td_row_int(s, tb, r, "kernel_ns", kns);
        if (c->flops < 0)
            continue; /* timed, not modelled */
        /* the rates over the calls' summed time, each call's FLOPs and bytes counted */
        double fl = c->flops * (double)g[k].n, by = c->bytes >= 0 ? (double)c->bytes * (double)g[k].n : -1;
        td_row_f64(s, tb, r, "tflops", fl / (double)kns / 1e3);
        if (by >= 0) {
            td_row_f64(s, tb, r, "tbps", by / (double)kns / 1e3);
            if (by > 0)
                td_row_f64(s, tb, r, "intensity", c->flops / (double)c->bytes);
        }
        double pf = a->o->peak_tflops > 0 ? a->o->peak_tflops : td_peak_tflops(pk, c->dtype);
        double pb = a->o->peak_tflops > 0 ? a->o->peak_tbps : pk ? pk->tbps : 0;
        if (pf > 0 && pb > 0 && by >= 0) {
            double tc = fl / (pf * 1e3), tm = by / (pb * 1e3); /* ns */
            double rt = tc > tm ? tc : tm;
            td_row_f64(s, tb, r, "peak_tflops", pf);
            td_row_f64(s, tb, r, "peak_tbps", pb);
            td_row_int(s, tb, r, "roofline_ns", llround(rt));
            td_row_f64(s, tb, r, "roofline_share", rt / (double)kns);
            td_row_str(s, tb, r, "bound", tc >= tm ? "compute" : "memory");
            size_t k2 = 0;
            while (k2 < rf->n && strcmp(rf->r[k2].dtype, c->dtype))
                k2++;
            if (k2 == rf->n && rf->n < 16) {
                rf->r[rf->n].dtype = c->dtype;
                rf->r[rf->n].pf = pf;
                rf->r[rf->n++].pb = pb;
            }
        }
    }
    free(g);
}

/* The backward pass of the calls of the categories TraceLens writes *_bwdpass sheets
 * for: the device time of the backward functions linked to each call's subtree, for the
 * calls linked themselves (TraceLens leaves out the others), with the backward model of
 * the forward op (op_models.h td_opm_model_bwd). */
static void bwd_rows(td_actx *a, const td_tctx *cx, const call_t *calls, size_t nc, td_table **tbp,
                     roofs_t *rf)
{
    const td_trace *t = cx->t;
    if (!t->nseqs)
        return;
    uint32_t *evs = td_xmalloc(nc * sizeof *evs);
    uint8_t *own = td_xcalloc(nc, 1);
    for (size_t i = 0; i < nc; i++)
        evs[i] = calls[i].ev;
    uint64_t *pairs = NULL;
    size_t np = td_opp_bwd_pairs(cx, evs, nc, own, &pairs);
    int64_t *ns = td_xcalloc(nc, sizeof *ns);
    td_opp_union(cx, pairs, np, ns);
    call_t *b = td_xcalloc(nc + 1, sizeof *b);
    size_t nb = 0;
    for (size_t i = 0; i < nc; i++) {
        const call_t *c = &calls[i];
        if (!own[i] || (strcmp(c->cat, "Reduce") && strcmp(c->cat, "SDPA_fwd") && strcmp(c->cat, "CONV_fwd")))
            continue;
        const td_shape *sh = &t->shapes[c->sh];
        td_opm_dims d;
        td_opm m;
        if (!td_opm_parse_dims(td_name(a, sh->dims), &d) ||
            !td_opm_model_bwd(td_name(a, sh->name), &d, sh->types ? td_name(a, sh->types) : NULL,
                              sh->concrete ? td_name(a, sh->concrete) : NULL, &m))
            continue;
        b[nb] = *c;
        b[nb].flops = m.flops;
        b[nb].bytes = m.bytes >= 0 ? (int64_t)m.bytes : -1;
        b[nb].kernel_ns = ns[i];
        nb++;
    }
    if (nb) /* calls[] is sorted by key: so is b[] */
        write_rows(a, t, tbp, 1, b, nb, rf);
    free(b);
    free(ns);
    free(pairs);
    free(own);
    free(evs);
}

static void perf_trace(td_actx *a, const td_tctx *cx, td_table **tbp, td_table **bwdp, td_table **roofp,
                       const td_peak **used)
{
    const td_trace *t = cx->t;
    td_summary *s = a->s;
    call_t *calls = td_xcalloc(t->nshapes + 1, sizeof *calls);
    size_t nc = 0;
    memo_t mt = {0};
    for (size_t i = 0; i < t->nshapes; i++) {
        call_t *c = &calls[nc];
        c->sh = (uint32_t)i;
        const td_shape *sh = &t->shapes[i];
        int32_t ev = td_opp_host_event(t, sh->ts, sh->track, sh->name, 1);
        if (ev >= 0 && model_memo(a, &mt, &t->shapes[i], c)) {
            c->ev = (uint32_t)ev;
            nc++;
        }
    }
    free(mt.v);
    if (!nc) {
        free(calls);
        return;
    }
    if (cx->ndev)
        kernel_times(cx, calls, nc);
    g_t = t;
    qsort(calls, nc, sizeof *calls, call_key_cmp);
    outer_calls(cx, calls, nc); /* indices into the sorted calls */
    /* the roofs of the rows' types (table `roofline`, the PDF's roofline chart) */
    roofs_t rf = {.n = 0};
    rf.pk = a->o->peak_tflops > 0 ? NULL : td_peak_for(device_name(a, t));
    if (rf.pk)
        *used = rf.pk;
    write_rows(a, t, tbp, 0, calls, nc, &rf);
    if (cx->ndev)
        bwd_rows(a, cx, calls, nc, bwdp, &rf);
    for (size_t k = 0; k < rf.n; k++) {
        if (!*roofp) {
            *roofp = td_sum_table(s, "op_perf_roofs", "Roofline");
            td_table_cols(*roofp, "rank:int:Rank", "dtype:text:Type", "peak_tflops:f64:Peak TFLOP/s",
                          "peak_tbps:f64:Peak TB/s", "ridge:f64:Ridge (FLOPs/byte)", NULL);
        }
        size_t r = td_table_add_row(*roofp);
        td_row_int(s, *roofp, r, "rank", t->rank);
        td_row_str(s, *roofp, r, "dtype", rf.r[k].dtype);
        td_row_f64(s, *roofp, r, "peak_tflops", rf.r[k].pf);
        td_row_f64(s, *roofp, r, "peak_tbps", rf.r[k].pb);
        td_row_f64(s, *roofp, r, "ridge", rf.r[k].pf / rf.r[k].pb);
    }
    free(calls);
}

/* The table only when some trace has modelled ops with shapes. */
void td_an_op_perf(td_actx *a)
{
    td_table *tb = NULL, *bwd = NULL, *roof = NULL;
    const td_peak *used = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->nshapes)
            perf_trace(a, &a->tc[i], &tb, &bwd, &roof, &used);
    if (!tb)
        return;
    if (a->o->peak_tflops > 0)
        td_sum_set_str(a->s, "roofline.peaks", "Roofline peaks",
                       td_arena_printf(a->s->a, "--peak %g TFLOP/s, %g TB/s", a->o->peak_tflops,
                                       a->o->peak_tbps));
    else if (used)
        td_sum_set_str(a->s, "roofline.peaks", "Roofline peaks",
                       td_arena_printf(a->s->a, "%s: %s", used->device, used->source));
}
