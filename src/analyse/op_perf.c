/* analyse/op_perf.c - the per-op performance model for ops with input shapes
 * (record_shapes=True; read/chrome_event.c keeps "Input Dims", "Input type" and
 * "Concrete Inputs" of the ops td_shape_op_wanted names), as TraceLens models them
 * (perf_model.py at 171dd747; doc/summary-json.md "op_perf"):
 *   GEMM: aten::mm A[M,K] B[K,N]; aten::addmm bias, A, B; aten::bmm A[b,M,K] B[b,K,N];
 *   aten::baddbmm bias, A, B. FLOPs = b (2MNK + MN with a bias), bytes = b (MK + KN + MN
 *   + N with a bias) x the bytes of A's element type (perf_model.py:85-114, 341-643).
 *   SDPA forward (aten::_scaled_dot_product_{flash,efficient,cudnn}_attention): q, k, v
 *   [B,H,N,d]; FLOPs = B Hq (2 Nq Nkv dqk + 2 Nq Nkv dv), halved when causal; bytes =
 *   (q + k + v + out elements) x the element bytes (perf_model.py:1779-1821; TraceLens
 *   always counts 2 bytes an element there: tracedoc uses the input's type).
 * Time of a call = the union of the device intervals (kernels, memcpy, memset) launched
 * from the op's subtree (tree_perf.py:395-404). One row per (rank, op, shapes, types):
 * calls, FLOPs and bytes of one call, kernel_ns summed over the calls, TFLOP/s and TB/s
 * over that time, intensity, and the roofline (tree_perf.py:482-505) against the device's
 * peaks (analyse/peaks.c) or --peak. */
#include "analyse/internal.h"
#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAXIN 8
#define MAXD 8

typedef struct {
    int n;                      /* inputs */
    int nd[MAXIN];              /* dims of each input */
    int64_t d[MAXIN][MAXD];
} dims_t;

/* "[[512], [141, 512], [], ...]" -> dims; 0 on anything else. */
static int parse_dims(const char *p, dims_t *o)
{
    memset(o, 0, sizeof *o);
    while (isspace((unsigned char)*p))
        p++;
    if (*p++ != '[')
        return 0;
    for (;;) {
        while (isspace((unsigned char)*p) || *p == ',')
            p++;
        if (*p == ']')
            return 1;
        if (*p != '[')
            return 0;
        p++;
        int k = o->n < MAXIN ? o->n : -1;
        for (;;) {
            while (isspace((unsigned char)*p) || *p == ',')
                p++;
            if (*p == ']') {
                p++;
                break;
            }
            char *e;
            long long v = strtoll(p, &e, 10);
            if (e == p)
                return 0;
            if (k >= 0 && o->nd[k] < MAXD)
                o->d[k][o->nd[k]++] = v;
            p = e;
        }
        if (k >= 0)
            o->n++;
    }
}

/* The i-th string of a JSON array of strings, copied to buf (escapes kept as they are);
 * "" when absent. */
static const char *nth_str(const char *p, int i, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!p)
        return buf;
    int k = 0;
    while (*p) {
        if (*p == '"') {
            const char *q = ++p;
            while (*q && *q != '"')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            if (k++ == i) {
                size_t n = (size_t)(q - p) < cap - 1 ? (size_t)(q - p) : cap - 1;
                memcpy(buf, p, n);
                buf[n] = 0;
                return buf;
            }
            p = *q ? q + 1 : q;
        } else
            p++;
    }
    return buf;
}

/* torch's scalar type name -> short dtype and bytes an element (TraceLens name2bpe). */
static const char *short_dtype(const char *t, int *bpe)
{
    static const struct { const char *t, *s; int b; } M[] = {
        {"double", "fp64", 8}, {"float", "fp32", 4}, {"c10::BFloat16", "bf16", 2},
        {"c10::Half", "fp16", 2}, {"c10::Float8_e4m3fn", "fp8", 1},
        {"c10::Float8_e4m3fnuz", "fp8", 1}, {"c10::Float8_e5m2", "fp8", 1},
        {"c10::Float8_e5m2fnuz", "fp8", 1}, {"signed char", "int8", 1},
        {"unsigned char", "uint8", 1}, {"long int", "int64", 8}, {"int", "int32", 4},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
        if (!strcasecmp(t, M[i].t)) {
            *bpe = M[i].b;
            return M[i].s;
        }
    *bpe = 0;
    return t;
}

typedef struct {
    uint32_t sh;                /* index into t->shapes */
    uint32_t ev;                /* the op's event */
    int valid;
    const char *cat;            /* "GEMM", "SDPA_fwd" */
    double flops;               /* one call */
    int64_t bytes;              /* one call, -1 unknown */
    const char *dtype;          /* short name (summary arena) */
    int64_t kernel_ns;          /* union of its device intervals */
    td_str shape, types;        /* normalised "Input Dims" ("[[512], [141, 512]]") and
                                   "Input type" texts: the row's key with the name */
} call_t;

/* dims as Python prints them (TraceLens's "Input Dims" column) */
static td_str dims_text(td_actx *a, const dims_t *d)
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

/* dimensions a model can use: none negative, none absurd (the products stay exact in a
 * double and far from int64's limit) */
static int sane(int64_t a, int64_t b, int64_t c, int64_t d)
{
    const int64_t L = (int64_t)1 << 40;
    return a >= 0 && b >= 0 && c >= 0 && d >= 0 && a < L && b < L && c < L && d < L;
}

static int model(td_actx *a, const td_shape *sh, call_t *c)
{
    const char *name = td_name(a, sh->name);
    dims_t d;
    if (!parse_dims(td_name(a, sh->dims), &d))
        return 0;
    const char *types = sh->types ? td_name(a, sh->types) : NULL;
    c->shape = dims_text(a, &d);
    c->types = compact(a, types);
    char tb[64];
    int bpe = 0;
    if (!strcmp(name, "aten::mm") || !strcmp(name, "aten::addmm") || !strcmp(name, "aten::bmm") ||
        !strcmp(name, "aten::baddbmm")) {
        int bias = name[6] == 'a' || (name[6] == 'b' && name[7] == 'a');
        int batched = strstr(name, "bmm") != NULL;
        int ia = bias ? 1 : 0, ib = ia + 1, w = batched ? 3 : 2;
        if (d.n <= ib || d.nd[ia] != w || d.nd[ib] != w)
            return 0;
        int64_t B = batched ? d.d[ia][0] : 1, M = d.d[ia][w - 2], K = d.d[ia][w - 1],
                N = d.d[ib][w - 1];
        c->cat = "GEMM";
        c->dtype = td_arena_strdup(a->s->a, short_dtype(nth_str(types, ia, tb, sizeof tb), &bpe));
        c->flops = (double)B * (2.0 * (double)M * (double)N * (double)K + (bias ? (double)M * (double)N : 0));
        double by = (double)B * ((double)M * (double)K + (double)K * (double)N +
                                 (double)M * (double)N + (bias ? (double)N : 0)) * bpe;
        c->bytes = bpe ? (int64_t)by : -1;
        return sane(B, M, N, K) && sane(1, 1, 1, 1) && c->flops < 4e18 && by < 4e18;
    }
    if (!strncmp(name, "aten::_scaled_dot_product_", 26)) {
        if (d.n < 3 || d.nd[0] != 4 || d.nd[1] != 4 || d.nd[2] != 4)
            return 0;
        int64_t B = d.d[0][0], Hq = d.d[0][1], Nq = d.d[0][2], dqk = d.d[0][3];
        int64_t Hkv = d.d[1][1], Nkv = d.d[1][2], dv = d.d[2][3];
        /* is_causal: argument 4 (flash), 6 (efficient, cudnn) */
        char cb[16];
        const char *con = sh->concrete ? td_name(a, sh->concrete) : NULL;
        nth_str(con, strstr(name, "flash") ? 4 : 6, cb, sizeof cb);
        int causal = !strcasecmp(cb, "true");
        c->cat = "SDPA_fwd";
        c->dtype = td_arena_strdup(a->s->a, short_dtype(nth_str(types, 0, tb, sizeof tb), &bpe));
        c->flops = (double)B * (double)Hq * (2.0 * (double)Nq * (double)Nkv * (double)dqk +
                                              2.0 * (double)Nq * (double)dv * (double)Nkv);
        if (causal)
            c->flops /= 2;
        double by = ((double)B * (double)Nq * (double)Hq * (double)dqk +
                     (double)B * (double)Nkv * (double)Hkv * (double)dqk +
                     (double)B * (double)Nkv * (double)Hkv * (double)dv +
                     (double)B * (double)Nq * (double)Hq * (double)dv) * bpe;
        c->bytes = bpe ? (int64_t)by : -1;
        return sane(B, Hq, Nq, dqk) && sane(Hkv, Nkv, dv, 1) && c->flops < 4e18 && by < 4e18;
    }
    return 0;
}

typedef struct {
    uint32_t call;
    int64_t s, e;
} civ;

static int civ_cmp(const void *x, const void *y)
{
    const civ *a = x, *b = y;
    if (a->call != b->call)
        return a->call < b->call ? -1 : 1;
    return (a->s > b->s) - (a->s < b->s);
}

static int u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* The event of a shape record: the CPU op with its start, track and name (events are
 * sorted by start, longer first), -1 none. */
static int32_t find_op(const td_trace *t, const td_shape *sh)
{
    size_t lo = 0, hi = t->nev;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->ev[m].ts < sh->ts)
            lo = m + 1;
        else
            hi = m;
    }
    for (size_t i = lo; i < t->nev && t->ev[i].ts == sh->ts; i++)
        if (t->ev[i].track == sh->track && t->ev[i].name == sh->name &&
            t->ev[i].kind == TD_K_CPU_OP && i <= INT32_MAX)
            return (int32_t)i;
    return -1;
}

/* Each call's kernel time: the union of the device work launched under it. */
static void kernel_times(const td_tctx *cx, call_t *calls, size_t nc)
{
    const td_trace *t = cx->t;
    /* the calls' op events, sorted, each with its call */
    uint64_t *evs = td_xmalloc((nc + 1) * sizeof *evs);
    for (size_t i = 0; i < nc; i++)
        evs[i] = (uint64_t)calls[i].ev << 32 | (uint32_t)i;
    qsort(evs, nc, sizeof *evs, u64_cmp);
    civ *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t i = 0, k = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        if (!td_kind_is_device(ev->kind))
            continue;
        int32_t r = cx->launch[k++];
        for (int32_t p = r >= 0 ? cx->parent[r] : -1; p >= 0; p = cx->parent[p]) {
            size_t lo = 0, hi = nc;
            while (lo < hi) {
                size_t m = lo + (hi - lo) / 2;
                if ((evs[m] >> 32) < (uint64_t)p)
                    lo = m + 1;
                else
                    hi = m;
            }
            if (lo < nc && (evs[lo] >> 32) == (uint64_t)p) {
                civ *x = TD_PUSH(v, nv, cap);
                x->call = (uint32_t)evs[lo];
                x->s = ev->ts;
                x->e = ev->ts + ev->dur;
            }
        }
    }
    qsort(v, nv, sizeof *v, civ_cmp);
    for (size_t i = 0; i < nv;) {
        size_t j = i;
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
        calls[v[i].call].kernel_ns = tot;
        i = j;
    }
    free(v);
    free(evs);
}

/* rows are grouped by (op name, dims, types) and ordered by kernel time, largest first */
typedef struct {
    td_str name, dims, types;
    size_t first, n;            /* calls[first..] of the group after sorting */
    int64_t kernel_ns;
    int64_t with_kernel;        /* calls that launched device work */
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

static td_table *table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "op_perf", "Op performance model");
    td_table_cols(tb, "rank:int:Rank", "name:text:Op and input shapes", "op:text:Op", "category:text:Category",
                  "shape:text:Input shapes", "dtype:text:Type", "calls:int:Calls",
                  "flops:int:FLOPs (one call)", "bytes:bytes:Bytes (one call)",
                  "kernel_ns:ns:Device time", "tflops:f64:TFLOP/s", "tbps:f64:TB/s",
                  "intensity:f64:FLOPs/byte", "peak_tflops:f64:Peak TFLOP/s",
                  "peak_tbps:f64:Peak TB/s", "roofline_ns:ns:Roofline time",
                  "roofline_share:share:Of roofline", "bound:text:Bound", NULL);
    td_diag_nodoc(tb);
    return tb;
}

/* The PDF and workbook show the measured figures (op and shapes in `name`); the model's
 * inputs are in the JSON and CSV. Also used by the merge (merge/merge.c), whose partial
 * summaries do not carry the flag. */
void td_diag_nodoc(td_table *t)
{
    static const char *const op[] = {"op", "shape", "category", "flops", "bytes", "intensity",
                                     "peak_tflops", "peak_tbps", "roofline_ns"};
    if (t && !strcmp(t->name, "op_perf"))
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

static void perf_trace(td_actx *a, const td_tctx *cx, td_table **tbp, const td_peak **used)
{
    const td_trace *t = cx->t;
    td_summary *s = a->s;
    call_t *calls = td_xcalloc(t->nshapes + 1, sizeof *calls);
    size_t nc = 0;
    for (size_t i = 0; i < t->nshapes; i++) {
        call_t *c = &calls[nc];
        c->sh = (uint32_t)i;
        int32_t ev = find_op(t, &t->shapes[i]);
        if (ev >= 0 && model(a, &t->shapes[i], c)) {
            c->ev = (uint32_t)ev;
            nc++;
        }
    }
    if (!nc) {
        free(calls);
        return;
    }
    if (cx->ndev)
        kernel_times(cx, calls, nc);
    g_t = t;
    qsort(calls, nc, sizeof *calls, call_key_cmp);
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
    }
    qsort(g, ng, sizeof *g, group_cmp);
    const td_peak *pk = a->o->peak_tflops > 0 ? NULL : td_peak_for(device_name(a, t));
    if (pk)
        *used = pk;
    for (size_t k = 0; k < ng; k++) {
        const call_t *c = &calls[g[k].first];
        td_table *tb = *tbp ? *tbp : (*tbp = table(s));
        size_t r = td_table_add_row(tb);
        td_row_int(s, tb, r, "rank", t->rank);
        td_row_str(s, tb, r, "op", td_name(a, g[k].name));
        td_row_str(s, tb, r, "category", c->cat);
        td_row_str(s, tb, r, "shape", td_name(a, g[k].dims));
        td_row_str(s, tb, r, "name", td_arena_printf(s->a, "%s %s", td_name(a, g[k].name),
                                                     td_name(a, g[k].dims)));
        td_row_str(s, tb, r, "dtype", c->dtype);
        td_row_int(s, tb, r, "calls", (int64_t)g[k].n);
        td_row_int(s, tb, r, "flops", llround(c->flops));
        td_row_int(s, tb, r, "bytes", c->bytes >= 0 ? c->bytes : TD_NA);
        if (!g[k].with_kernel)
            continue; /* CPU-only calls: no device time, nothing measured */
        int64_t kns = g[k].kernel_ns;
        /* the rates over the calls' summed time, each call's FLOPs and bytes counted */
        double fl = c->flops * (double)g[k].n, by = c->bytes >= 0 ? (double)c->bytes * (double)g[k].n : -1;
        td_row_int(s, tb, r, "kernel_ns", kns);
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
        }
    }
    free(g);
    free(calls);
}

/* The table only when some trace has modelled ops with shapes. */
void td_an_op_perf(td_actx *a)
{
    td_table *tb = NULL;
    const td_peak *used = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->nshapes)
            perf_trace(a, &a->tc[i], &tb, &used);
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
