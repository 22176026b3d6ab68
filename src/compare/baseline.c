/* compare/baseline.c - regression comparison against a baseline summary (loaded by
 * summary/json_read.c). */
#define _POSIX_C_SOURCE 200809L
#include "compare/baseline.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void td_summary_drop_comparison(td_summary *s)
{
    static const char *const tables[] = {"regression.metrics", "comparability", "changes",
                                         "comparisons", "trends", "history.runs",
                                         "history.series"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        td_sum_drop_table(s, tables[i]);
    const td_kv *n = td_sum_get(s, "regression.findings");
    if (n && n->type == TD_T_INT && n->v.i > 0)
        s->nfindings -= (size_t)n->v.i < s->nfindings ? (size_t)n->v.i : s->nfindings;
    td_sum_drop_scalars(s, "regression.");
    td_sum_drop_scalars(s, "change_counts.");
    td_sum_drop_scalars(s, "change_rule");
    td_sum_drop_scalars(s, "verdict");
}

/* ---- comparison ---- */
typedef struct {
    td_summary *s;
    td_table *t;
    double tol;
    int regressed, improved;
} cmpctx;

static void add_metric(cmpctx *c, const char *metric, const char *name, const char *unit,
                       double base, double cur, int lower_is_better, double min_abs)
{
    if (!isfinite(base) || !isfinite(cur))
        return;
    size_t r = td_table_add_row(c->t);
    td_row_str(c->s, c->t, r, "metric", metric);
    td_row_str(c->s, c->t, r, "name", name);
    td_row_str(c->s, c->t, r, "unit", unit);
    td_row_f64(c->s, c->t, r, "base", base);
    td_row_f64(c->s, c->t, r, "current", cur);
    double ch = base != 0 ? (cur - base) / fabs(base) : (cur != 0 ? INFINITY : 0);
    td_row_f64(c->s, c->t, r, "change", isfinite(ch) ? ch : NAN);
    double worse = lower_is_better ? cur - base : base - cur;
    const char *st = "same";
    if (fabs(cur - base) >= min_abs) {
        if (worse > 0 && (base == 0 || worse / fabs(base) > c->tol)) {
            st = "regressed";
            c->regressed++;
        } else if (worse < 0 && (base == 0 || -worse / fabs(base) > c->tol)) {
            st = "improved";
            c->improved++;
        }
    }
    td_row_str(c->s, c->t, r, "status", st);
}


static double median_steady_step(const td_summary *s)
{
    const td_table *t = td_sum_find_table(s, "steps");
    if (!t)
        return NAN;
    int cw = td_table_col(t, "wall_ns"), cu = td_table_col(t, "warmup");
    if (cw < 0)
        return NAN;
    double *v = td_xmalloc((t->nrows + 1) * sizeof *v);
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (cu >= 0 && td_table_cell(t, r, cu)->i == 1)
            continue;
        int64_t w = td_table_cell(t, r, cw)->i;
        if (w != TD_NA)
            v[n++] = (double)w;
    }
    double m = NAN;
    if (n) {
        for (size_t i = 1; i < n; i++) /* insertion sort: step counts are small */
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                double x = v[j];
                v[j] = v[j - 1];
                v[j - 1] = x;
            }
        m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    free(v);
    return m;
}

static const td_table *find_all_trace_timeline(const td_summary *s, size_t *row)
{
    const td_table *t = td_sum_find_table(s, "gpu_timeline");
    if (!t)
        return NULL;
    int cd = td_table_col(t, "device"), cs = td_table_col(t, "scope");
    for (size_t r = 0; r < t->nrows; r++)
        if (cd >= 0 && td_table_cell(t, r, cd)->i == -1 && cs >= 0 &&
            td_table_cell(t, r, cs)->s && strcmp(td_table_cell(t, r, cs)->s, "trace") == 0) {
            *row = r;
            return t;
        }
    return NULL;
}

static double timeline_share(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key), ct = td_table_col(t, "total_ns");
    if (c < 0 || ct < 0)
        return NAN;
    int64_t v = td_table_cell(t, r, c)->i, tot = td_table_cell(t, r, ct)->i;
    return v == TD_NA || tot == TD_NA || tot <= 0 ? NAN : (double)v / (double)tot;
}

/* Per-name metric of a table (e.g. modules mean_ns), for the names present in both. */
static void compare_named(cmpctx *c, const td_summary *base, const td_summary *cur,
                          const char *table, const char *col, const char *metric, size_t top)
{
    const td_table *tb = td_sum_find_table(base, table), *tc = td_sum_find_table(cur, table);
    if (!tb || !tc)
        return;
    int nb = td_table_col(tb, "name"), vb = td_table_col(tb, col);
    int nc = td_table_col(tc, "name"), vc = td_table_col(tc, col);
    if (nb < 0 || vb < 0 || nc < 0 || vc < 0)
        return;
    /* base tables are sorted by total time: compare the top rows of the baseline */
    for (size_t r = 0; r < tb->nrows && r < top; r++) {
        const char *name = td_table_cell(tb, r, nb)->s;
        if (!name)
            continue;
        for (size_t q = 0; q < tc->nrows; q++) {
            const char *n2 = td_table_cell(tc, q, nc)->s;
            if (n2 && strcmp(n2, name) == 0) {
                int64_t a = td_table_cell(tb, r, vb)->i, b = td_table_cell(tc, q, vc)->i;
                if (a != TD_NA && b != TD_NA)
                    add_metric(c, metric, name, "ns", (double)a, (double)b, 1, 1000);
                break;
            }
        }
    }
}

int td_regression(const td_summary *base, const char *base_label, td_summary *cur,
                  double tolerance)
{
    cmpctx c = {cur, NULL, tolerance, 0, 0};
    c.t = td_sum_table(cur, "regression.metrics", "Regression against the baseline");
    if (c.t->ncols == 0)
        td_table_cols(c.t, "metric:text:Metric", "name:text:Name", "unit:text:Unit",
                      "base:f64:Baseline", "current:f64:Current", "change:share:Change",
                      "status:text:Status", NULL);
    add_metric(&c, "step time (median, steady)", "", "ns", median_steady_step(base),
               median_steady_step(cur), 1, 1000);
    static const struct { const char *k, *m; } totals[] = {
        {"runtime.wall_ns", "wall time (devices)"},
        {"runtime.modules_ns", "module GPU time"},
        {"runtime.thunks_ns", "thunk GPU time"},
        {"compile.total_ns", "compile time"}};
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        int64_t a = td_sum_int(base, totals[i].k), b = td_sum_int(cur, totals[i].k);
        if (a != TD_NA && b != TD_NA)
            add_metric(&c, totals[i].m, "", "ns", (double)a, (double)b, 1, 1000);
    }
    size_t rb, rc;
    const td_table *gb = find_all_trace_timeline(base, &rb), *gc = find_all_trace_timeline(cur, &rc);
    if (gb && gc) {
        add_metric(&c, "GPU idle share", "", "fraction", timeline_share(gb, rb, "idle_ns"),
                   timeline_share(gc, rc, "idle_ns"), 1, 0.001);
        add_metric(&c, "exposed communication share", "", "fraction",
                   timeline_share(gb, rb, "exposed_comm_ns"),
                   timeline_share(gc, rc, "exposed_comm_ns"), 1, 0.001);
    }
    compare_named(&c, base, cur, "modules", "mean_ns", "module mean", 20);
    compare_named(&c, base, cur, "kernels", "mean_ns", "kernel mean", 20);
    /* SambaTune stack tracing: the model run by hyperfunction, and each hypersection's
     * measured time per call */
    compare_named(&c, base, cur, "hyperfunctions", "total_ns", "hyperfunction total", 20);
    compare_named(&c, base, cur, "hypersections", "measured_ns", "hypersection time per call", 20);
    td_sum_set_str(cur, "regression.baseline", "Baseline", base_label);
    td_sum_set_f64(cur, "regression.tolerance", "Tolerance", TD_T_SHARE, tolerance);
    td_sum_set_int(cur, "regression.regressed", "Regressed metrics", TD_T_INT, c.regressed);
    td_sum_set_int(cur, "regression.improved", "Improved metrics", TD_T_INT, c.improved);
    if (c.regressed)
        td_sum_compare_finding(cur, "%d metric%s regressed by more than %.0f%% against the baseline.",
                       c.regressed, c.regressed == 1 ? "" : "s", tolerance * 100);
    else
        td_sum_compare_finding(cur, "No metric regressed by more than %.0f%% against the baseline.",
                       tolerance * 100);
    return c.regressed;
}
