/* compare/baseline.c - summary.json loading (jansson) and regression comparison. */
#define _POSIX_C_SOURCE 200809L
#include "compare/baseline.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int td_is_summary_json(const char *path)
{
    struct stat sb; /* a pipe is read once, by the trace reader (partial/read.c) */
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = 0;
    return strstr(head, "\"schema\": \"tracedoc.summary/") != NULL;
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static td_type type_for(const char *key, json_t *v)
{
    if (strcmp(key, "device") == 0)
        return TD_T_DEVICE; /* "all" or an id */
    if (json_is_string(v) || json_is_null(v))
        return TD_T_TEXT;
    if (json_is_boolean(v))
        return TD_T_BOOL;
    if (ends_with(key, "_ns"))
        return TD_T_NS;
    if (strcmp(key, "share") == 0 || ends_with(key, "_share"))
        return TD_T_SHARE;
    if (ends_with(key, "_gbps"))
        return TD_T_GBPS;
    if (strcmp(key, "bytes") == 0)
        return TD_T_BYTES;
    if (json_is_integer(v))
        return TD_T_INT;
    return TD_T_F64;
}

static void set_cell(td_summary *s, td_type t, td_cell *c, json_t *v)
{
    if (t == TD_T_TEXT)
        c->s = json_is_string(v) ? td_arena_strdup(s->a, json_string_value(v)) : NULL;
    else if (t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS)
        c->f = json_is_number(v) ? json_number_value(v) : NAN;
    else if (t == TD_T_DEVICE && json_is_string(v))
        c->i = -1;
    else if (t == TD_T_BOOL)
        c->i = json_is_boolean(v) ? json_is_true(v) : TD_NA;
    else
        c->i = json_is_integer(v) ? (int64_t)json_integer_value(v)
               : json_is_real(v)  ? (int64_t)json_real_value(v)
                                  : TD_NA;
}

/* A scalar's label "type:Title": 1 when it parses. */
static int scalar_label(const char *spec, td_type *t, const char **title)
{
    const char *c = strchr(spec, ':');
    if (!c || !td_type_parse(spec, (size_t)(c - spec), t))
        return 0;
    *title = c + 1;
    return 1;
}

/* The labels summary.json keeps ("labels": titles, types, table columns and notes), or
 * NULL (a summary.json from before they were written: names and types are guessed). */
static json_t *g_labels;

static const char *label_of(const char *group, const char *key)
{
    json_t *g = g_labels ? json_object_get(g_labels, group) : NULL;
    json_t *v = g ? json_object_get(g, key) : NULL;
    return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static int table_columns(td_summary *s, td_table *t, const char *name)
{
    json_t *g = g_labels ? json_object_get(g_labels, "tables") : NULL;
    json_t *lt = g ? json_object_get(g, name) : NULL;
    json_t *cols = lt ? json_object_get(lt, "columns") : NULL;
    if (!json_is_array(cols))
        return 0;
    json_t *v = json_object_get(lt, "title");
    if (json_is_string(v))
        t->title = td_arena_strdup(s->a, json_string_value(v));
    v = json_object_get(lt, "note");
    if (json_is_string(v))
        t->note = td_arena_strdup(s->a, json_string_value(v));
    size_t i;
    json_array_foreach(cols, i, v)
    {
        const char *key = json_is_string(v) ? json_string_value(v) : NULL, *title;
        size_t kl;
        td_type ty;
        if (t->ncols >= TD_MAXCOLS || !key || !td_col_spec_parse(key, &kl, &ty, &title) || !kl)
            continue;
        td_col *c = &t->cols[t->ncols++];
        c->key = td_arena_strndup(s->a, key, kl);
        c->title = td_arena_strdup(s->a, title);
        c->type = ty;
    }
    json_t *nd = json_object_get(lt, "nodoc");
    json_array_foreach(nd, i, v) if (json_is_string(v))
        td_table_nodoc(t, json_string_value(v));
    return 1;
}

static void load_obj(td_summary *s, const char *prefix, json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char key[512];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (!*prefix && (strcmp(k, "findings") == 0 || strcmp(k, "warnings") == 0) &&
            json_is_array(v)) {
            size_t i;
            json_t *x;
            json_array_foreach(v, i, x) if (json_is_string(x))
            {
                if (k[0] == 'f')
                    td_sum_finding(s, "%s", json_string_value(x));
                else
                    td_sum_warning(s, json_string_value(x));
            }
            continue;
        }
        if (json_is_object(v)) {
            load_obj(s, key, v);
        } else if (json_is_array(v)) {
            json_t *first = json_array_get(v, 0);
            td_table *t = td_sum_table(s, key, key);
            int labelled = t->ncols == 0 && table_columns(s, t, key);
            if (!json_is_object(first))
                continue;
            /* columns as labelled, else from the first row (names and types guessed) */
            const char *ck;
            json_t *cv;
            json_object_foreach(first, ck, cv)
            {
                if (t->ncols >= TD_MAXCOLS || (labelled && td_table_col(t, ck) >= 0))
                    continue;
                td_col *c = &t->cols[t->ncols++];
                c->key = td_arena_strdup(s->a, ck);
                c->title = c->key;
                c->type = type_for(ck, cv);
            }
            size_t i;
            json_t *row;
            json_array_foreach(v, i, row)
            {
                if (!json_is_object(row))
                    continue;
                size_t r = td_table_add_row(t);
                for (int c = 0; c < t->ncols; c++) {
                    json_t *x = json_object_get(row, t->cols[c].key);
                    if (x)
                        set_cell(s, t->cols[c].type, td_table_cell(t, r, c), x);
                }
            }
        } else {
            td_type t = type_for(k, v);
            /* run metadata is titled by its own key, as --meta does */
            const char *title = strcmp(prefix, "meta") == 0 ? k : key, *lab = label_of("scalars", key);
            td_type lt;
            const char *ltitle;
            if (lab && scalar_label(lab, &lt, &ltitle)) {
                t = lt;
                title = ltitle;
            }
            if (t == TD_T_TEXT)
                td_sum_set_str(s, key, title, json_is_string(v) ? json_string_value(v) : NULL);
            else if (t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS)
                td_sum_set_f64(s, key, title, t, json_is_number(v) ? json_number_value(v) : NAN);
            else {
                td_cell c;
                set_cell(s, t, &c, v);
                td_sum_set_int(s, key, title, t, c.i);
            }
        }
    }
}

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

td_status td_summary_load_json(const char *path, td_summary **out, td_err *e)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return td_fail(e, TD_E_FORMAT, "%s: line %d: %s", path, je.line, je.text);
    json_t *schema = json_object_get(root, "schema");
    if (!json_is_object(root) || !json_is_string(schema) ||
        strncmp(json_string_value(schema), "tracedoc.summary/", 17) != 0) {
        json_decref(root);
        return td_fail(e, TD_E_FORMAT, "%s: not a tracedoc summary.json (no \"schema\": "
                       "\"tracedoc.summary/1\")", path);
    }
    td_summary *s = td_summary_new();
    json_object_del(root, "schema");
    g_labels = json_object_get(root, "labels");
    if (!json_is_object(g_labels))
        g_labels = NULL;
    json_incref(g_labels);
    json_object_del(root, "labels");
    load_obj(s, "", root);
    /* flamegraph titles: empty flames until stacks stored beside fill them */
    json_t *fls = g_labels ? json_object_get(g_labels, "flames") : NULL;
    const char *fk;
    json_t *fv;
    json_object_foreach(fls, fk, fv) if (json_is_string(fv) && td_flame_kind_known(fk))
        td_sum_flame(s, fk, json_string_value(fv));
    json_decref(g_labels);
    g_labels = NULL;
    json_decref(root);
    *out = s;
    return TD_OK;
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
