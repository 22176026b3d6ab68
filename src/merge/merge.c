/* merge/merge.c - the summary tables computed from a merged partial summary
 * (td_partial_finish; building one: partial/build.c) by the same definitions as the
 * passes (formats.md): sums and counts exactly, sample standard deviations from exact
 * 128-bit sums of squares, medians from the DDSketch (relative error TD_SKETCH_ALPHA),
 * cuts (top modules, compile phases) applied after merging, per-rank tables sorted by
 * rank, job-wide gpu_timeline rows re-summed, the straggler wait of each collective
 * from the merged per-instance extremes, and the findings from the merged tables. */
#include "analyse/internal.h"
#include "analyse/rows.h"
#include "merge/internal.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int is_int_type(td_type t)
{
    return t != TD_T_TEXT && t != TD_T_SHARE && t != TD_T_F64 && t != TD_T_GBPS;
}

/* ---- the summary of a merged partial ---------------------------------------------- */

static const td_table *g_sort_t;
static int g_sort_path, g_rank_col, g_path_col; /* columns: -1 none (as td_row_get_*) */

static int64_t sort_rank(size_t r)
{
    return g_rank_col < 0 ? TD_NA : td_table_cell(g_sort_t, r, g_rank_col)->i;
}

static const char *sort_path(size_t r)
{
    return g_path_col < 0 ? NULL : td_table_cell(g_sort_t, r, g_path_col)->s;
}

static int rank_cmp(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int64_t ra = sort_rank(a), rb = sort_rank(b);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (g_sort_path) {
        const char *pa = sort_path(a), *pb = sort_path(b);
        int c = strcmp(pa ? pa : "", pb ? pb : "");
        if (c)
            return c;
    }
    return (a > b) - (a < b);
}

/* Row r of t appended to d (same columns), text in d's arena (d->a NULL: shared). */
static void copy_row(td_table *d, const td_table *t, size_t r)
{
    size_t x = td_table_add_row(d);
    for (int c = 0; c < t->ncols; c++) {
        td_cell v = *td_table_cell(t, r, c);
        if (t->cols[c].type == TD_T_TEXT && v.s && d->a)
            v.s = td_arena_strdup(d->a, v.s);
        *td_table_cell(d, x, c) = v;
    }
}

/* Per-rank rows in rank order (stable), copied into d. */
static void copy_by_rank(td_table *d, const td_table *t, int by_path)
{
    size_t *ix = td_xmalloc((t->nrows + 1) * sizeof *ix);
    for (size_t i = 0; i < t->nrows; i++)
        ix[i] = i;
    g_sort_t = t;
    g_sort_path = by_path;
    /* the column lookups td_row_get_int/str make, once */
    g_rank_col = td_table_col(t, "rank");
    if (g_rank_col >= 0 && (t->cols[g_rank_col].type == TD_T_TEXT ||
                            td_tds_is_dbl(t->cols[g_rank_col].type)))
        g_rank_col = -1;
    g_path_col = td_table_col(t, "path");
    if (g_path_col >= 0 && t->cols[g_path_col].type != TD_T_TEXT)
        g_path_col = -1;
    qsort(ix, t->nrows, sizeof *ix, rank_cmp);
    for (size_t i = 0; i < t->nrows; i++)
        copy_row(d, t, ix[i]);
    free(ix);
}

static void gpu_timeline(td_summary *s, const td_table *t)
{
    td_table *d = td_part_like(s, t);
    int dev = td_table_col(t, "device"), scope = td_table_col(t, "scope");
    if (dev < 0 || scope < 0 || !is_int_type(t->cols[dev].type) ||
        t->cols[scope].type != TD_T_TEXT) { /* not the table report writes: rows as they are */
        copy_by_rank(d, t, 0);
        return;
    }
    td_table tmp = *t; /* sorted copy first, to find each rank's trace and steady rows */
    tmp.cells = NULL, tmp.nrows = 0, tmp.cap = 0, tmp.a = NULL;
    copy_by_rank(&tmp, t, 0);
    int64_t job[2][TD_MAXCOLS] = {{0}};
    size_t nranks = 0;
    int any_steady = 0;
    for (size_t r = 0; r < tmp.nrows; r++) {
        if (td_table_cell(&tmp, r, dev)->i != -1)
            continue;
        const char *sc = td_table_cell(&tmp, r, scope)->s;
        if (sc && !strcmp(sc, "steady")) {
            any_steady = 1;
            continue;
        }
        nranks++;
        size_t st = r + 1 < tmp.nrows && td_table_cell(&tmp, r + 1, dev)->i == -1 &&
                            td_table_cell(&tmp, r + 1, scope)->s &&
                            !strcmp(td_table_cell(&tmp, r + 1, scope)->s, "steady")
                        ? r + 1 : r;
        for (int c = 0; c < t->ncols; c++)
            if (t->cols[c].type == TD_T_NS) {
                job[0][c] += td_table_cell(&tmp, r, c)->i;
                job[1][c] += td_table_cell(&tmp, st, c)->i;
            }
    }
    for (int k = 0; nranks >= 2 && k < 1 + any_steady; k++) {
        size_t r = td_table_add_row(d);
        td_row_int(s, d, r, "device", -1);
        td_row_str(s, d, r, "scope", k ? "steady" : "trace");
        for (int c = 0; c < t->ncols; c++)
            if (t->cols[c].type == TD_T_NS)
                td_table_cell(d, r, c)->i = job[k][c];
    }
    for (size_t r = 0; r < tmp.nrows; r++)
        copy_row(d, &tmp, r);
    free(tmp.cells);
}

static void ops_table(td_summary *s, const td_partial *p, const td_table *t)
{
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_OP, &n);
    td_table *d = td_part_like(s, t);
    int64_t selfsum = 0;
    for (size_t i = 0; i < n; i++)
        selfsum += v[i]->v[1];
    for (size_t i = 0; i < n; i++) {
        const int64_t *x = v[i]->v;
        const char *nm = td_part_kstr(s, v[i], 0);
        const td_rec *g = td_part_find(p, TD_R_OPGRAPH, nm, strlen(nm));
        td_op_stat st = {x[0], x[1], x[2], x[3], x[4], g ? g->v[0] : 0};
        size_t r = td_table_add_row(d);
        td_row_op(s, d, r, td_part_kstr(s, v[i], 0), &st, selfsum);
    }
    td_table_sort(d, "self_ns", 1);
    free(v);
}

/* A kernel record's statistics, as the kernels pass takes them from the samples: the
 * median from the record's sketch, kept within [min, max]. */
typedef struct kstat {
    const td_rec *r;
    int64_t dev;
    td_stats st;
} kstat;

static void kstat_of(const td_rec *r, kstat *k)
{
    k->r = r;
    td_stats *st = &k->st;
    st->n = (size_t)r->v[0];
    st->total = r->v[1];
    st->min = r->v[2];
    st->max = r->v[3];
    td_part_mean_std(r->v[0], r->v[1], r->v + 4, &st->mean, &st->std);
    st->median = r->sk ? td_sketch_median(r->sk) : st->mean;
    if (st->median < (double)r->v[2])
        st->median = (double)r->v[2];
    if (st->median > (double)r->v[3])
        st->median = (double)r->v[3];
}

static int kdev_cmp(const void *x, const void *y)
{
    const kstat *a = x, *b = y;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->r->v[1] != b->r->v[1])
        return a->r->v[1] > b->r->v[1] ? -1 : 1;
    return strcmp(a->r->key, b->r->key);
}

static void kernel_tables(td_summary *s, const td_partial *p, const td_table *t)
{
    size_t n;
    if (!strcmp(t->name, "kernels_by_device")) {
        td_rec **v = td_part_recs(p, TD_R_KDEV, &n);
        kstat *k = td_xmalloc((n + 1) * sizeof *k);
        for (size_t i = 0; i < n; i++) {
            kstat_of(v[i], &k[i]);
            k[i].dev = td_part_kint(v[i], 0);
        }
        qsort(k, n, sizeof *k, kdev_cmp);
        td_table *d = td_part_like(s, t);
        for (size_t i = 0; i < n;) {
            size_t j = i;
            int64_t dsum = 0;
            while (j < n && k[j].dev == k[i].dev)
                dsum += k[j++].r->v[1];
            for (; i < j; i++) {
                size_t r = td_table_add_row(d);
                td_row_int(s, d, r, "device", k[i].dev);
                td_row_kernel(s, d, r, td_part_kstr(s, k[i].r, 1), &k[i].st, dsum);
            }
        }
        free(k);
        free(v);
        return;
    }
    td_rec **v = td_part_recs(p, TD_R_KERN, &n);
    int64_t sum = 0, twice = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i]->v[1];
        twice += v[i]->v[0] >= 2;
    }
    if (!twice && !strcmp(t->name, "variability")) { /* report leaves it out: no rows */
        free(v);
        return;
    }
    td_table *d = td_part_like(s, t);
    for (size_t i = 0; i < n; i++) {
        kstat k;
        kstat_of(v[i], &k);
        const char *nm = td_part_kstr(s, v[i], 0);
        const int64_t *x = v[i]->v;
        if (!strcmp(t->name, "kernels"))
            td_row_kernel(s, d, td_table_add_row(d), nm, &k.st, sum);
        else if (!strcmp(t->name, "cuda_gpu_kern_sum"))
            td_row_kern_sum(s, d, td_table_add_row(d), nm, &k.st, sum);
        else if (x[0] >= 2) /* variability */
            td_row_variability(s, d, td_table_add_row(d), nm, &k.st);
    }
    if (!strcmp(t->name, "kernels"))
        td_table_sort(d, "total_ns", 1);
    else if (!strcmp(t->name, "cuda_gpu_kern_sum"))
        td_table_sort(d, "Total Time (ns)", 1);
    else
        td_table_sort(d, "cov", 1);
    free(v);
}

static int coll_cmp(const void *x, const void *y)
{
    const td_rec *a = *(td_rec *const *)x, *b = *(td_rec *const *)y;
    char fa[256], fb[256];
    int c = strcmp(td_part_kfield(a, 0, fa, sizeof fa), td_part_kfield(b, 0, fb, sizeof fb));
    if (c)
        return c;
    if (td_part_kint(a, 1) != td_part_kint(b, 1))
        return td_part_kint(a, 1) < td_part_kint(b, 1) ? -1 : 1;
    c = strcmp(td_part_kfield(a, 2, fa, sizeof fa), td_part_kfield(b, 2, fb, sizeof fb));
    if (c)
        return c;
    return (td_part_kint(a, 3) > td_part_kint(b, 3)) - (td_part_kint(a, 3) < td_part_kint(b, 3));
}

/* Kineto collectives (XLA: td_xm_collectives) */
static void collectives(td_summary *s, const td_partial *p, const td_table *t)
{
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_KCOLL, &n);
    qsort(v, n, sizeof *v, coll_cmp);
    td_table *d = td_part_like(s, t);
    for (size_t i = 0; i < n; i++) {
        const int64_t *x = v[i]->v;
        const char *type = td_part_kstr(s, v[i], 0);
        int64_t bytes = td_part_kint(v[i], 1), group = td_part_kint(v[i], 3);
        const char *dtype = td_part_kstr(s, v[i], 2);
        int64_t w = TD_NA;
        if (x[3] > 0 && x[4] >= 2 && v[i]->inst) {
            w = 0;
            for (int64_t k = 0; k < x[3]; k++) {
                const int64_t *in = v[i]->inst + 3 * k;
                if (in[1] - in[0] - in[2] > 0)
                    w += in[1] - in[0] - in[2];
            }
        }
        td_coll_stat st = {type, *dtype ? dtype : NULL, bytes, (int)group, x[0], x[1], x[2], w};
        td_row_coll(s, d, td_table_add_row(d), &st);
    }
    td_table_sort(d, "total_ns", 1);
    free(v);
}

typedef struct mrow {
    const td_rec *r;
    const char *name;
    int64_t program, total;
    int dropped;
} mrow;

static int mrow_cmp(const void *x, const void *y)
{
    const mrow *a = x, *b = y;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    if (a->program != b->program)
        return a->program < b->program ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* modules (top-module cut after merging), then thunks and the XLA device flame. */
static void modules(td_summary *s, const td_partial *p, const td_table *t, const td_opts *o,
                    mrow **kept, size_t *nkept, int *xla)
{
    size_t n;
    *xla = td_part_has_type(p, TD_R_XMOD);
    td_rec **v = td_part_recs(p, *xla ? TD_R_XMOD : TD_R_KMOD, &n);
    mrow *m = td_xmalloc((n + 1) * sizeof *m);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        m[i].r = v[i];
        m[i].program = *xla ? td_part_kint(v[i], 0) : TD_NA;
        m[i].name = td_part_kstr(s, v[i], *xla ? 1 : 0);
        m[i].total = v[i]->v[1];
        m[i].dropped = 0;
        sum += m[i].total;
    }
    free(v);
    qsort(m, n, sizeof *m, mrow_cmp);
    size_t keep = 0;
    td_table *d = td_modules_cut(s, t->title, o->threshold, n ? &m[0].total : NULL, sizeof *m, n,
                                 sum, &keep);
    if (!*xla)
        td_modules_kineto(d);
    int below = td_table_col(t, "below_cut") >= 0; /* XLA: every module, the small ones marked */
    if (below)
        td_table_cols(d, "below_cut:bool:Below cut", NULL);
    for (size_t k = 0; k < (below ? n : keep); k++) {
        const int64_t *x = m[k].r->v;
        /* XLA leaves the std cells empty for one execution; Kineto's table has no below_cut */
        td_mod_stat st = {m[k].name, m[k].program, x[0], m[k].total, 0, 0, 0, 0,
                          !*xla || x[0] > 1, below ? k >= keep : -1};
        td_part_mean_std(x[0], x[1], x + 2, &st.mean, &st.std);
        td_part_mean_std(x[0], x[4], x + 5, &st.tmean, &st.tstd);
        td_row_module(s, d, td_table_add_row(d), &st, sum);
    }
    *kept = m;
    *nkept = keep;
}

static const mrow *kept_module(const mrow *m, size_t n, const td_rec *r)
{
    char b[4096];
    td_part_kfield(r, 0, b, sizeof b);
    for (size_t k = 0; k < n; k++)
        if (!strcmp(m[k].name, b))
            return &m[k];
    return NULL;
}

/* Kineto thunks (XLA: td_xm_thunks) */
static void thunks(td_summary *s, const td_partial *p, const td_table *t, const mrow *m,
                   size_t nm)
{
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_KTHUNK, &n);
    td_table *d = td_part_like(s, t);
    /* module totals over every thunk of the module (the share's denominator) */
    int64_t *mt = td_xcalloc(nm + 1, sizeof *mt);
    for (size_t i = 0; i < n; i++) {
        const mrow *k = kept_module(m, nm, v[i]);
        if (k)
            mt[k - m] += v[i]->v[1];
    }
    for (size_t i = 0; i < n; i++) {
        const mrow *k = kept_module(m, nm, v[i]);
        if (!k)
            continue;
        const int64_t *x = v[i]->v;
        td_thunk_stat st = {k->name, td_part_kstr(s, v[i], 1), NULL, NULL, x[0], x[1], 0};
        td_row_thunk(s, d, td_table_add_row(d), &st, mt[k - m]);
    }
    td_table_sort(d, "total_ns", 1);
    free(mt);
    free(v);
}

static int by_total_name(const void *x, const void *y)
{
    const td_rec *a = *(td_rec *const *)x, *b = *(td_rec *const *)y;
    if (a->v[0] != b->v[0])
        return a->v[0] > b->v[0] ? -1 : 1;
    return strcmp(a->key, b->key);
}

static void phases(td_summary *s, const td_partial *p, const td_table *t)
{
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_PHASE, &n);
    qsort(v, n, sizeof *v, by_total_name);
    int64_t tot = 0, acc = 0;
    for (size_t i = 0; i < n; i++)
        tot += v[i]->v[0];
    td_sum_set_int(s, "compile.total_ns", "Compile time", TD_T_NS, tot);
    td_table *d = td_part_like(s, t);
    for (size_t i = 0; i < n && tot > 0; i++) {
        if ((double)acc >= 0.99 * (double)tot || v[i]->v[0] <= 0)
            break;
        td_row_phase(s, d, td_table_add_row(d), td_part_kstr(s, v[i], 0), v[i]->v[0], tot);
        acc += v[i]->v[0];
    }
    free(v);
}

static int input_cmp(const void *x, const void *y)
{
    const td_rec *a = *(td_rec *const *)x, *b = *(td_rec *const *)y;
    if (a->v[0] != b->v[0])
        return a->v[0] < b->v[0] ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int is_dbl_type(td_type t)
{
    return t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS;
}

/* A scalar of the merged summary: recomputed ones, else the merged value. */
static void scalar(td_summary *s, const td_partial *p, const td_kv *k, const td_opts *o,
                   size_t nranks)
{
    const td_table *in = td_sum_find_table(p->acc, "inputs");
    if (!strcmp(k->key, "inputs_label") && in) {
        /* the analysis' label from each trace's input, in rank order */
        size_t n;
        td_rec **v = td_part_recs(p, TD_R_INPUT, &n);
        qsort(v, n, sizeof *v, input_cmp);
        const char **ins = td_xmalloc((n + 1) * sizeof *ins), **paths = td_xmalloc((n + 1) * sizeof *paths);
        for (size_t i = 0; i < n; i++) {
            paths[i] = td_part_kstr(s, v[i], 0);
            ins[i] = td_part_kstr(s, v[i], 1);
        }
        td_buf b = {0};
        if (n)
            td_run_label(&b, ins, paths, n);
        td_sum_set_str(s, k->key, k->title, b.n ? td_buf_cstr(&b) : "");
        td_buf_free(&b);
        free(ins);
        free(paths);
        free(v);
        return;
    }
    if (!strcmp(k->key, "date")) {
        time_t ep = (time_t)td_source_date_epoch();
        struct tm tm;
        char date[32];
        if (gmtime_r(&ep, &tm) && strftime(date, sizeof date, "%Y-%m-%d", &tm))
            td_sum_set_str(s, "date", k->title, date);
        return;
    }
    if (!strcmp(k->key, "trace.world_size")) {
        td_sum_set_int(s, k->key, k->title, k->type, p->world ? p->world : (int64_t)nranks);
        return;
    }
    if (!strcmp(k->key, "trace.devices") && td_part_has_type(p, TD_R_XDEV) && !td_part_has_type(p, TD_R_KERN)) {
        size_t n;
        free(td_part_recs(p, TD_R_XDEV, &n));
        td_sum_set_int(s, k->key, k->title, k->type, (int64_t)n);
        return;
    }
    if (!strcmp(k->key, "warmup.rule") && !td_part_has_type(p, TD_R_XMOD)) {
        const td_table *st = td_sum_find_table(p->acc, "steps");
        const td_kv *dr = td_sum_get(p->acc, "warmup.dropped");
        td_sum_set_str(s, k->key, k->title,
                       td_warmup_rule(s, o, st ? st->nrows : 0, dr ? (size_t)dr->v.i : 0, nranks));
        return;
    }
    if (k->type == TD_T_TEXT)
        td_sum_set_str(s, k->key, k->title, k->v.s ? k->v.s : "");
    else if (is_dbl_type(k->type))
        td_sum_set_f64(s, k->key, k->title, k->type, k->v.f);
    else
        td_sum_set_int(s, k->key, k->title, k->type, k->v.i);
}

static void options_of(const td_partial *p, td_opts *o)
{
    td_opts_default(o);
    const char *w = p->options ? strstr(p->options, "warmup=") : NULL;
    const char *t = p->options ? strstr(p->options, ";threshold=") : NULL;
    if (w)
        o->warmup = !strncmp(w + 7, "auto", 4) ? TD_WARMUP_AUTO
                    : !strncmp(w + 7, "none", 4) ? TD_WARMUP_NONE : atoi(w + 7);
    if (t)
        o->threshold = strtod(t + 11, NULL);
}

/* XLA state of the finish: the programs kept by the top-module cut, the records grouped
 * per (program, instruction), the runtime totals (computed once, when first needed). */
typedef struct xfin {
    int on, rt_done, coll_done;
    td_xkept k;
    int64_t *keys;
    const char **names;
    td_xstate *X;
    int64_t rt[4];
} xfin;

static void xfin_kept(xfin *f, const mrow *m, size_t n)
{
    f->keys = td_xmalloc((n + 1) * sizeof *f->keys);
    f->names = td_xmalloc((n + 1) * sizeof *f->names);
    for (size_t i = 0; i < n; i++)
        f->keys[i] = m[i].program, f->names[i] = m[i].name;
    f->k = (td_xkept){f->keys, f->names, n};
}

static const int64_t *xfin_rt(xfin *f, td_summary *s, const td_partial *p)
{
    if (!f->rt_done)
        td_xm_runtime(s, p, f->X, &f->k, f->rt);
    f->rt_done = 1;
    return f->rt;
}

/* The XLA tables (0 when t is not one of them). */
static int xla_table(xfin *f, td_summary *s, const td_partial *p, const td_table *t)
{
    const char *n = t->name;
    if (!f->on)
        return 0;
    if (!strcmp(n, "thunks"))
        td_xm_thunks(s, t, f->X, &f->k);
    else if (!strcmp(n, "hlo_ops"))
        td_xm_hlo_ops(s, t, f->X, &f->k);
    else if (!strcmp(n, "hlo_opcodes"))
        td_xm_opcodes(s, t, f->X, &f->k, xfin_rt(f, s, p));
    else if (!strcmp(n, "variability"))
        td_xm_variability(s, p, f->X);
    else if (!strcmp(n, "collective_instances") || !strcmp(n, "collective_wait_histogram") ||
             !strcmp(n, "collectives")) {
        /* the three tables at once, when some part had communication (as report) */
        if (!f->coll_done && td_part_has(p, TD_R_XFLAG, "comm"))
            td_xm_collectives(s, p);
        f->coll_done = 1;
    } else
        return 0;
    return 1;
}

td_summary *td_partial_finish(td_partial *p, td_opts *o)
{
    options_of(p, o);
    td_summary *s = td_summary_new();
    const td_summary *acc = p->acc;
    const td_kv *rk = td_sum_get(acc, "trace.ranks");
    /* (a damaged part may say anything: a rank count the findings can loop over) */
    size_t nranks = rk && is_int_type(rk->type) && rk->v.i >= 0 && rk->v.i <= (1 << 24)
                        ? (size_t)rk->v.i : 0;
    mrow *kept = NULL;
    size_t nkept = 0;
    int xla = 0;
    xfin xf;
    memset(&xf, 0, sizeof xf);
    xf.on = td_part_has_type(p, TD_R_XMOD);
    if (xf.on)
        xf.X = td_xm_state(s, p);
    /* every flamegraph in the parts' order; the XLA ones are filled by their tables */
    for (size_t i = 0; i < acc->nflames; i++)
        td_sum_flame(s, acc->flames[i]->kind, acc->flames[i]->title);
    size_t ik = 0, it = 0;
    while (ik < acc->nkv || it < acc->ntables) {
        if (ik < acc->nkv && (it >= acc->ntables || acc->kv[ik].seq < acc->tables[it]->seq)) {
            const td_kv *k = &acc->kv[ik++];
            if (xf.on && !strncmp(k->key, "runtime.", 8))
                td_xm_runtime_kv(s, k->key, k->title, xfin_rt(&xf, s, p));
            else
                scalar(s, p, k, o, nranks);
            continue;
        }
        const td_table *t = acc->tables[it++];
        const char *n = t->name;
        if (xla_table(&xf, s, p, t))
            continue;
        if (!strcmp(n, "inputs"))
            copy_by_rank(td_part_like(s, t), t, 1);
        else if (!strcmp(n, "steps") || !strcmp(n, "outlier_steps"))
            copy_by_rank(td_part_like(s, t), t, 0);
        else if (!strcmp(n, "gpu_timeline"))
            gpu_timeline(s, t);
        else if (!strcmp(n, "ops"))
            ops_table(s, p, t);
        else if (!strcmp(n, "kernels") || !strcmp(n, "kernels_by_device") ||
                 !strcmp(n, "cuda_gpu_kern_sum") || !strcmp(n, "variability"))
            kernel_tables(s, p, t);
        else if (!strcmp(n, "collectives"))
            collectives(s, p, t);
        else if (!strcmp(n, "modules")) {
            modules(s, p, t, o, &kept, &nkept, &xla);
            if (xf.on)
                xfin_kept(&xf, kept, nkept);
        } else if (!strcmp(n, "thunks"))
            thunks(s, p, t, kept, nkept);
        else if (!strcmp(n, "compile.phases"))
            phases(s, p, t);
        else if (!strcmp(n, "critical_path_collectives"))
            ; /* from the merged arrivals, after the loop (analyse/critpath_coll.c) */
        else {
            td_table *d = td_part_like(s, t);
            copy_by_rank(d, t, 0);
            td_diag_nodoc(d); /* op_perf, memory (analyse/op_perf.c) */
        }
    }
    td_cp_collectives(s, td_sum_find_table(s, "critical_path_arrivals"));
    /* flames of stacks: summed over the parts (one rank: no "rank N " root prefix, as
     * the analysis of one trace names its threads) */
    for (size_t i = 0; i < acc->nflames; i++) {
        const td_flame *af = acc->flames[i];
        td_flame *fl = td_sum_find_flame(s, af->kind);
        if (xf.on && td_part_xla_flame(af->kind)) {
            td_flame_finish(fl); /* again: idempotent */
            continue;
        }
        size_t kl = strlen(af->kind);
        td_buf b = {0};
        for (size_t r = 0; !p->no_stacks && r < p->stk.n; r++) {
            td_pstack x;
            td_part_stack_get(p, r, &x);
            if (x.hlen <= kl || strncmp(x.head, af->kind, kl) || x.head[kl] != '\x1f')
                continue;
            b.n = 0;
            td_buf_put(&b, x.head + kl + 1, x.hlen - kl - 1);
            td_buf_put(&b, x.tail, x.tlen);
            const char *st = td_buf_cstr(&b);
            if (nranks == 1 && !strcmp(af->kind, "cpu") && !strncmp(st, "rank ", 5)) {
                const char *sp = strchr(st + 5, ' ');
                if (sp)
                    st = sp + 1;
            }
            td_flame_add(s, fl, st, x.value);
        }
        td_buf_free(&b);
        td_flame_finish(fl);
    }
    free(kept);
    for (size_t i = 0; i < acc->nwarnings; i++)
        td_sum_warning(s, acc->warnings[i]);
    if (xf.on)
        td_xm_check_devices(s, p);
    td_xm_state_free(xf.X);
    free(xf.keys);
    free(xf.names);
    td_actx a;
    memset(&a, 0, sizeof a);
    a.s = s;
    a.n = nranks;
    a.o = o;
    td_an_headline(&a); /* the step time of the merged steps table, not a part's */
    td_an_names(&a);    /* short kernel names of the merged kernels */
    td_an_findings(&a);
    return s;
}
