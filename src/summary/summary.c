/* summary/summary.c - summary container, JSON/CSV/text/folded writers. See summary/summary.h. */
#define _POSIX_C_SOURCE 200809L
#include "summary/summary.h"
#include "summary/flame.h"
#include <ctype.h>
#include <csv.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

td_summary *td_summary_new(void)
{
    td_summary *s = td_xcalloc(1, sizeof *s);
    s->a = td_arena_new();
    td_sum_set_str(s, "schema", "Schema", "tracedoc.summary/1");
    return s;
}

void td_summary_free(td_summary *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ntables; i++)
        free(s->tables[i]->cells);
    for (size_t i = 0; i < s->nflames; i++) {
        free(s->flames[i]->st);
        td_flametree_free(s->flames[i]->tree);
    }
    free(s->kv);
    free(s->tables);
    free(s->findings);
    free(s->warnings);
    free(s->flames);
    td_arena_free(s->a);
    free(s);
}

static td_kv *kv_slot(td_summary *s, const char *key, const char *title, td_type t)
{
    for (size_t i = 0; i < s->nkv; i++)
        if (strcmp(s->kv[i].key, key) == 0) {
            /* a later pass that sets the value also says what it is now (e.g. XLA
             * "Executions dropped" replacing the steps pass's "Warm-up steps dropped") */
            s->kv[i].type = t;
            if (title)
                s->kv[i].title = td_arena_strdup(s->a, title);
            return &s->kv[i];
        }
    td_kv *k = TD_PUSH(s->kv, s->nkv, s->kv_cap);
    k->key = td_arena_strdup(s->a, key);
    k->title = td_arena_strdup(s->a, title ? title : key);
    k->type = t;
    k->seq = s->seq++;
    return k;
}

void td_sum_set_int(td_summary *s, const char *key, const char *title, td_type t, int64_t v)
{
    kv_slot(s, key, title, t)->v.i = v;
}

void td_sum_set_f64(td_summary *s, const char *key, const char *title, td_type t, double v)
{
    kv_slot(s, key, title, t)->v.f = v;
}

void td_sum_set_str(td_summary *s, const char *key, const char *title, const char *v)
{
    kv_slot(s, key, title, TD_T_TEXT)->v.s = v ? td_arena_strdup(s->a, v) : NULL;
}

td_status td_sum_set_meta(td_summary *s, const char *arg, td_err *e)
{
    const char *eq = strchr(arg, '=');
    size_t kl = eq ? (size_t)(eq - arg) : 0;
    if (!eq || kl == 0 || kl > 64 || strlen(eq + 1) > 1024)
        return td_fail(e, TD_E_USAGE, "--meta: expected KEY=VALUE (KEY 1-64 letters, digits, "
                       "'_' or '-'; VALUE at most 1024 bytes), got '%.80s'", arg);
    for (size_t i = 0; i < kl; i++)
        if (!(isalnum((unsigned char)arg[i]) || arg[i] == '_' || arg[i] == '-'))
            return td_fail(e, TD_E_USAGE, "--meta: key '%.*s': only letters, digits, '_' "
                           "and '-' are allowed", (int)kl, arg);
    char key[80], title[72];
    snprintf(key, sizeof key, "meta.%.*s", (int)kl, arg);
    snprintf(title, sizeof title, "%.*s", (int)kl, arg);
    td_sum_set_str(s, key, title, eq + 1);
    return TD_OK;
}

static int64_t kv_ns_or(const td_summary *s, const char *key)
{
    const td_kv *kv = td_sum_get(s, key);
    return kv && kv->type == TD_T_NS && kv->v.i != TD_NA ? kv->v.i : -1;
}

int td_sum_xla_breakdown(const td_summary *s, int64_t part[3])
{
    part[0] = kv_ns_or(s, "runtime.busy_in_modules_ns");
    part[1] = kv_ns_or(s, "runtime.idle_in_modules_ns");
    part[2] = kv_ns_or(s, "runtime.idle_between_modules_ns");
    return part[0] >= 0 && part[1] >= 0 && part[2] >= 0 && part[0] + part[1] > 0;
}

const td_kv *td_sum_get(const td_summary *s, const char *key)
{
    for (size_t i = 0; i < s->nkv; i++)
        if (strcmp(s->kv[i].key, key) == 0)
            return &s->kv[i];
    return NULL;
}

static int kv_is_float(td_type t)
{
    return t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS;
}

const char *td_sum_text(const td_summary *s, const char *key)
{
    const td_kv *kv = td_sum_get(s, key);
    return kv && kv->type == TD_T_TEXT && kv->v.s ? kv->v.s : NULL;
}

int64_t td_sum_int(const td_summary *s, const char *key)
{
    const td_kv *kv = td_sum_get(s, key);
    return kv && kv->type != TD_T_TEXT && !kv_is_float(kv->type) ? kv->v.i : TD_NA;
}

int64_t td_sum_ns(const td_summary *s, const char *key)
{
    const td_kv *kv = td_sum_get(s, key);
    return kv && kv->type == TD_T_NS && kv->v.i != TD_NA ? kv->v.i : -1;
}

double td_sum_num(const td_summary *s, const char *key)
{
    const td_kv *kv = td_sum_get(s, key);
    if (!kv || kv->type == TD_T_TEXT)
        return NAN;
    if (kv_is_float(kv->type))
        return kv->v.f;
    return kv->v.i == TD_NA ? NAN : (double)kv->v.i;
}

td_table *td_sum_find_table(const td_summary *s, const char *name)
{
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i]->name, name) == 0)
            return s->tables[i];
    return NULL;
}

/* Every table the analysis can write (templates name them: an unknown name is a template
 * error). A pass that adds a table adds its name here; tests/cases/cli_tables.sh checks. */
const char *const td_table_names[] = {
    "inputs", "ops", "kernels", "kernels_by_device", "cuda_gpu_kern_sum", "steps",
    "outlier_steps", "modules", "thunks", "hlo_ops", "collectives", "gpu_timeline",
    "variability", "compile.phases", "regression.metrics", "hlo_opcodes", "collective_instances",
    "collective_wait_histogram", "hyperfunctions", "hypersections", "host_breakdown",
    "aiu_devices", "aiu_kernels", "aiu_categories", "aiu_transfers", "aiu_prep_depth",
    "telemetry_metrics", "telemetry_steps", "telemetry_series", "checklist",

    "changes", "comparisons", "comparability", "trends", "history.runs", "history.series",
    "cuda_api_sum", "cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum", "nvtx_sum", "osrt_sum",
    "ipu_step_types", "ipu_runs", "ipu_steps", "ipu_exchanges", "ipu_stream_copies",
    "ipu_timeline", "lwp_blocks", "memcpy", NULL};

/* Every flamegraph kind a pass can write (`section flame KIND`, `--stacks KIND`). A pass
 * that adds a kind adds it here; tests/cases/cli_tables.sh checks. "diff" is the
 * differential flamegraph of a nightly report (summary/flame.h td_flame_diffs). */
const char *const td_flame_kinds[] = {"cpu", "device", "ops", "compile", "source", "opname",
                                      "ipu", "sections", "diff", NULL};

int td_flame_kind_known(const char *kind)
{
    for (size_t i = 0; td_flame_kinds[i]; i++)
        if (strcmp(td_flame_kinds[i], kind) == 0)
            return 1;
    return 0;
}

int td_table_name_known(const char *name)
{
    for (size_t i = 0; td_table_names[i]; i++)
        if (strcmp(td_table_names[i], name) == 0)
            return 1;
    return 0;
}

td_table *td_sum_table(td_summary *s, const char *name, const char *title)
{
    td_table *t = td_sum_find_table(s, name);
    if (t)
        return t;
    t = td_arena_alloc(s->a, sizeof *t);
    t->name = td_arena_strdup(s->a, name);
    t->title = td_arena_strdup(s->a, title ? title : name);
    t->seq = s->seq++;
    t->a = s->a;
    *TD_PUSH(s->tables, s->ntables, s->tables_cap) = t;
    return t;
}

void td_table_reset(td_table *t)
{
    t->ncols = 0;
    t->nrows = 0;
}

static const struct { const char *n; td_type t; } type_names[] = {
    {"text", TD_T_TEXT}, {"int", TD_T_INT}, {"ns", TD_T_NS}, {"share", TD_T_SHARE},
    {"bytes", TD_T_BYTES}, {"f64", TD_T_F64}, {"gbps", TD_T_GBPS},
    {"device", TD_T_DEVICE}, {"bool", TD_T_BOOL}};

int td_type_parse(const char *s, size_t n, td_type *t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i].n) == n && memcmp(type_names[i].n, s, n) == 0) {
            *t = type_names[i].t;
            return 1;
        }
    return 0;
}

const char *td_type_name(td_type t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].t == t)
            return type_names[i].n;
    return "text";
}

int td_col_spec_parse(const char *spec, size_t *klen, td_type *t, const char **title)
{
    const char *c1 = strchr(spec, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || !td_type_parse(c1 + 1, (size_t)(c2 - c1 - 1), t))
        return 0;
    *klen = (size_t)(c1 - spec);
    *title = c2 + 1;
    return 1;
}

/* Remember the first refused column (arena copy: a spec may be a caller's buffer). */
static void refuse_col(td_table *t, const char *why, const char *spec)
{
    if (!t->bad)
        t->bad = t->a ? td_arena_printf(t->a, "%s '%s'", why, spec) : why;
}

/* Column specs are program constants ("key:type:Title"), or specs a partial summary
 * (.tds) carries, which a damaged part can get wrong: a refused one is skipped and
 * recorded in t->bad, which the JSON writer reports (the program never made one, so no
 * output changes). Constant titles live for the program; others in the arena. */
void td_table_cols(td_table *t, ...)
{
    va_list ap;
    va_start(ap, t);
    const char *spec;
    while ((spec = va_arg(ap, const char *)) != NULL) {
        size_t klen;
        td_type ty;
        const char *title;
        if (t->ncols >= TD_MAXCOLS || t->nrows) {
            refuse_col(t, t->nrows ? "column after rows" : "too many columns", spec);
            continue;
        }
        if (!td_col_spec_parse(spec, &klen, &ty, &title)) {
            refuse_col(t, "malformed column spec", spec);
            continue;
        }
        if (!t->a) {
            refuse_col(t, "table without an arena", spec);
            continue;
        }
        td_col *c = &t->cols[t->ncols++];
        c->key = td_arena_strndup(t->a, spec, klen);
        c->type = ty;
        c->title = title; /* points into the spec */
    }
    va_end(ap);
}

void td_table_nodoc(td_table *t, const char *key)
{
    int c = td_table_col(t, key);
    if (c >= 0)
        t->cols[c].nodoc = 1;
}

int td_table_col(const td_table *t, const char *key)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i].key, key) == 0)
            return i;
    return -1;
}

size_t td_table_add_row(td_table *t)
{
    td_grow((void **)&t->cells, &t->cap, (t->nrows + 1) * (size_t)t->ncols, sizeof(td_cell));
    td_cell *r = t->cells + t->nrows * (size_t)t->ncols;
    for (int i = 0; i < t->ncols; i++) {
        if (t->cols[i].type == TD_T_TEXT)
            r[i].s = NULL;
        else if (t->cols[i].type == TD_T_SHARE || t->cols[i].type == TD_T_F64 ||
                 t->cols[i].type == TD_T_GBPS)
            r[i].f = NAN;
        else
            r[i].i = TD_NA;
    }
    return t->nrows++;
}

td_cell *td_table_cell(const td_table *t, size_t row, int col)
{
    return t->cells + row * (size_t)t->ncols + col;
}

static int is_float_type(td_type t);

int64_t td_row_get_int(const td_table *t, size_t row, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 || t->cols[c].type == TD_T_TEXT || is_float_type(t->cols[c].type)
               ? TD_NA : td_table_cell(t, row, c)->i;
}

double td_row_get_f64(const td_table *t, size_t row, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 || !is_float_type(t->cols[c].type) ? NAN : td_table_cell(t, row, c)->f;
}

const char *td_row_get_str(const td_table *t, size_t row, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 || t->cols[c].type != TD_T_TEXT ? NULL : td_table_cell(t, row, c)->s;
}

void td_row_int(td_summary *s, td_table *t, size_t row, const char *key, int64_t v)
{
    (void)s;
    int c = td_table_col(t, key);
    if (c >= 0)
        td_table_cell(t, row, c)->i = v;
}

void td_row_f64(td_summary *s, td_table *t, size_t row, const char *key, double v)
{
    (void)s;
    int c = td_table_col(t, key);
    if (c >= 0)
        td_table_cell(t, row, c)->f = v;
}

void td_row_str(td_summary *s, td_table *t, size_t row, const char *key, const char *v)
{
    int c = td_table_col(t, key);
    if (c >= 0)
        td_table_cell(t, row, c)->s = v ? td_arena_strdup(s->a, v) : NULL;
}

static int is_float_type(td_type t)
{
    return t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS;
}

/* Sorting with a context: a merge sort over row indexes keeps it stable. */
typedef struct {
    const td_table *t;
    int col, desc, tie;
} sortctx;

static int cmp_rows(const sortctx *c, size_t a, size_t b)
{
    const td_cell *x = td_table_cell(c->t, a, c->col), *y = td_table_cell(c->t, b, c->col);
    td_type ty = c->t->cols[c->col].type;
    int r = 0;
    if (ty == TD_T_TEXT) {
        r = strcmp(x->s ? x->s : "", y->s ? y->s : "");
    } else if (is_float_type(ty)) {
        double p = isnan(x->f) ? -INFINITY : x->f, q = isnan(y->f) ? -INFINITY : y->f;
        r = (p > q) - (p < q);
    } else {
        r = (x->i > y->i) - (x->i < y->i);
    }
    if (c->desc)
        r = -r;
    if (r == 0 && c->tie >= 0 && c->tie != c->col) {
        const td_cell *u = td_table_cell(c->t, a, c->tie), *v = td_table_cell(c->t, b, c->tie);
        r = strcmp(u->s ? u->s : "", v->s ? v->s : "");
    }
    return r;
}

static void msort(const sortctx *c, size_t *idx, size_t *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    msort(c, idx, tmp, h);
    msort(c, idx + h, tmp, n - h);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp_rows(c, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

void td_table_sort(td_table *t, const char *key, int desc)
{
    int col = td_table_col(t, key);
    if (col < 0 || t->nrows < 2)
        return;
    int tie = td_table_col(t, "name");
    if (tie < 0)
        for (int i = 0; i < t->ncols; i++)
            if (t->cols[i].type == TD_T_TEXT) {
                tie = i;
                break;
            }
    sortctx c = {t, col, desc, tie};
    size_t *idx = td_xmalloc(t->nrows * sizeof *idx), *tmp = td_xmalloc(t->nrows * sizeof *tmp);
    for (size_t i = 0; i < t->nrows; i++)
        idx[i] = i;
    msort(&c, idx, tmp, t->nrows);
    size_t nc = (size_t)t->ncols;
    td_cell *cells = td_xmalloc(t->nrows * nc * sizeof *cells);
    for (size_t i = 0; i < t->nrows; i++)
        memcpy(cells + i * nc, t->cells + idx[i] * nc, nc * sizeof *cells);
    free(t->cells);
    t->cells = cells;
    t->cap = t->nrows * nc;
    free(idx);
    free(tmp);
}

const char *td_sum_device_word(const td_summary *s)
{
    const td_kv *kv = td_sum_get(s, "trace.device_word");
    return kv && kv->type == TD_T_TEXT && kv->v.s && *kv->v.s ? kv->v.s : "GPU";
}

static void vfinding(td_summary *s, const char *fmt, va_list ap)
{
    char tmp[1024];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    *TD_PUSH(s->findings, s->nfindings, s->findings_cap) = td_arena_strdup(s->a, tmp);
}

void td_sum_finding(td_summary *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(s, fmt, ap);
    va_end(ap);
}

void td_sum_compare_finding(td_summary *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfinding(s, fmt, ap);
    va_end(ap);
    const td_kv *n = td_sum_get(s, "regression.findings");
    td_sum_set_int(s, "regression.findings", "Findings from the comparison (the last ones)",
                   TD_T_INT, (n && n->type == TD_T_INT && n->v.i > 0 ? n->v.i : 0) + 1);
}

void td_sum_drop_table(td_summary *s, const char *name)
{
    size_t w = 0;
    for (size_t i = 0; i < s->ntables; i++) {
        if (strcmp(s->tables[i]->name, name) == 0)
            free(s->tables[i]->cells);   /* the table itself is in the arena */
        else
            s->tables[w++] = s->tables[i];
    }
    s->ntables = w;
}

void td_sum_drop_scalars(td_summary *s, const char *prefix)
{
    size_t n = strlen(prefix), w = 0;
    for (size_t i = 0; i < s->nkv; i++)
        if (strncmp(s->kv[i].key, prefix, n) != 0)
            s->kv[w++] = s->kv[i];
    s->nkv = w;
}

void td_sum_warning(td_summary *s, const char *msg)
{
    *TD_PUSH(s->warnings, s->nwarnings, s->warnings_cap) = td_arena_strdup(s->a, msg);
}

td_flame *td_sum_find_flame(const td_summary *s, const char *kind)
{
    for (size_t i = 0; i < s->nflames; i++)
        if (strcmp(s->flames[i]->kind, kind) == 0)
            return s->flames[i];
    return NULL;
}

int td_flame_has_stacks(const td_flame *fl)
{
    return fl && (fl->n || (fl->tree && td_flametree_total(fl->tree) > 0));
}

td_flame *td_sum_flame(td_summary *s, const char *kind, const char *title)
{
    td_flame *f = td_sum_find_flame(s, kind);
    if (f)
        return f;
    f = td_arena_alloc(s->a, sizeof *f);
    f->kind = td_arena_strdup(s->a, kind);
    f->title = td_arena_strdup(s->a, title ? title : kind);
    *TD_PUSH(s->flames, s->nflames, s->flames_cap) = f;
    return f;
}

void td_flame_add(td_summary *s, td_flame *f, const char *stack, int64_t value)
{
    td_stack *x = TD_PUSH(f->st, f->n, f->cap);
    x->stack = td_arena_strdup(s->a, stack);
    x->value = value;
}

static int cmp_stack(const void *a, const void *b)
{
    return strcmp(((const td_stack *)a)->stack, ((const td_stack *)b)->stack);
}

void td_flame_finish(td_flame *f)
{
    if (f->n == 0)
        return;
    qsort(f->st, f->n, sizeof *f->st, cmp_stack);
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (k && strcmp(f->st[k - 1].stack, f->st[i].stack) == 0)
            f->st[k - 1].value += f->st[i].value;
        else
            f->st[k++] = f->st[i];
    }
    f->n = k;
}

/* ---- JSON ---- */


static void json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char b[64];
    snprintf(b, sizeof b, "%.6f", v);
    /* trim trailing zeros, keep at least one decimal */
    char *dot = strchr(b, '.');
    if (dot) {
        char *e = b + strlen(b) - 1;
        while (e > dot + 1 && *e == '0')
            *e-- = 0;
    }
    if (strcmp(b, "-0.0") == 0)
        strcpy(b, "0.0");
    fputs(b, f);
}

static void json_cell(FILE *f, td_type t, const td_cell *v)
{
    switch (t) {
    case TD_T_TEXT:
        td_json_str(f, v->s);
        break;
    case TD_T_SHARE:
    case TD_T_F64:
    case TD_T_GBPS:
        json_double(f, v->f);
        break;
    case TD_T_DEVICE:
        if (v->i == TD_NA)
            fputs("null", f);
        else if (v->i < 0)
            fputs("\"all\"", f);
        else
            fprintf(f, "%lld", (long long)v->i);
        break;
    case TD_T_BOOL:
        fputs(v->i == TD_NA ? "null" : v->i ? "true" : "false", f);
        break;
    default:
        if (v->i == TD_NA)
            fputs("null", f);
        else
            fprintf(f, "%lld", (long long)v->i);
    }
}

/* Tree of dotted names for nesting. */
typedef struct jnode {
    const char *name; /* path component */
    const td_kv *kv;
    const td_table *tab;
    struct jnode **kids;
    size_t nk, ck;
} jnode;

static jnode *jchild(jnode *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->nk; i++)
        if (!p->kids[i]->kv && !p->kids[i]->tab && strlen(p->kids[i]->name) == len &&
            memcmp(p->kids[i]->name, name, len) == 0)
            return p->kids[i];
    jnode *n = td_xcalloc(1, sizeof *n);
    char *nm = td_xmalloc(len + 1);
    memcpy(nm, name, len);
    nm[len] = 0;
    n->name = nm;
    *TD_PUSH(p->kids, p->nk, p->ck) = n;
    return n;
}

/* A key that is both a value and the prefix of other keys ("warmup" and "warmup.mode")
 * cannot be written as JSON. The program never makes one, but a damaged partial summary
 * (.tds) can: refuse it, naming the key. */
static td_status clash(const char *path, td_err *e)
{
    return td_fail(e, TD_E_FORMAT, "summary key '%s' is both a value and an object", path);
}

static td_status jinsert(jnode *root, const char *path, const td_kv *kv, const td_table *tab,
                         td_err *e)
{
    jnode *p = root;
    const char *s = path, *d;
    while ((d = strchr(s, '.')) != NULL) {
        for (size_t i = 0; i < p->nk; i++)
            if ((p->kids[i]->kv || p->kids[i]->tab) &&
                strlen(p->kids[i]->name) == (size_t)(d - s) &&
                memcmp(p->kids[i]->name, s, (size_t)(d - s)) == 0)
                return clash(path, e);
        p = jchild(p, s, (size_t)(d - s));
        s = d + 1;
    }
    for (size_t i = 0; i < p->nk; i++)
        if (strcmp(p->kids[i]->name, s) == 0)
            return clash(path, e);
    jnode *n = td_xcalloc(1, sizeof *n);
    n->name = td_xstrdup(s);
    n->kv = kv;
    n->tab = tab;
    *TD_PUSH(p->kids, p->nk, p->ck) = n;
    return TD_OK;
}

static void jfree(jnode *n)
{
    for (size_t i = 0; i < n->nk; i++)
        jfree(n->kids[i]);
    free(n->kids);
    free((char *)n->name);
    free(n);
}

static void indent(FILE *f, int d)
{
    for (int i = 0; i < d; i++)
        fputs("  ", f);
}

static void json_table(FILE *f, const td_table *t, int d)
{
    if (t->nrows == 0) {
        fputs("[]", f);
        return;
    }
    fputs("[\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        indent(f, d + 1);
        fputc('{', f);
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs(", ", f);
            td_json_str(f, t->cols[c].key);
            fputs(": ", f);
            json_cell(f, t->cols[c].type, td_table_cell(t, r, c));
        }
        fputs(r + 1 < t->nrows ? "},\n" : "}\n", f);
    }
    indent(f, d);
    fputc(']', f);
}

static void json_strings(FILE *f, const char *const *v, size_t n, int d)
{
    if (!n) {
        fputs("[]", f);
        return;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
        indent(f, d + 1);
        td_json_str(f, v[i]);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    indent(f, d);
    fputc(']', f);
}

/* "labels": what the documents call each value, its type, and each table's title, note
 * and columns ("key:type:Title" as td_table_cols takes them), so that a summary.json
 * given back to report (a stored run) gives the same documents. */
static void label_spec(FILE *f, const char *key, td_type t, const char *title)
{
    char b[1200];
    snprintf(b, sizeof b, "%s%s%s:%s", key ? key : "", key ? ":" : "", td_type_name(t),
             title ? title : "");
    td_json_str(f, b);
}

static int kv_key_cmp(const void *x, const void *y)
{
    return strcmp((*(const td_kv *const *)x)->key, (*(const td_kv *const *)y)->key);
}

static int table_name_cmp(const void *x, const void *y)
{
    return strcmp((*(const td_table *const *)x)->name, (*(const td_table *const *)y)->name);
}

/* by key, so that a summary.json read back and written again is the same bytes */
static void json_labels(FILE *f, const td_summary *s)
{
    const td_kv **kv = td_xmalloc((s->nkv + 1) * sizeof *kv);
    const td_table **tab = td_xmalloc((s->ntables + 1) * sizeof *tab);
    for (size_t i = 0; i < s->nkv; i++)
        kv[i] = &s->kv[i];
    for (size_t i = 0; i < s->ntables; i++)
        tab[i] = s->tables[i];
    qsort(kv, s->nkv, sizeof *kv, kv_key_cmp);
    qsort(tab, s->ntables, sizeof *tab, table_name_cmp);
    fputs("  \"labels\": {\n    \"scalars\": {", f);
    int first = 1;
    for (size_t i = 0; i < s->nkv; i++) {
        if (!strcmp(kv[i]->key, "schema"))
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, kv[i]->key);
        fputs(": ", f);
        label_spec(f, NULL, kv[i]->type, kv[i]->title);
    }
    fputs(first ? "},\n    \"tables\": {" : "\n    },\n    \"tables\": {", f);
    first = 1;
    for (size_t i = 0; i < s->ntables; i++) {
        const td_table *t = tab[i];
        if (t->no_json)
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, t->name);
        fputs(": {\"title\": ", f);
        td_json_str(f, t->title);
        if (t->note) {
            fputs(", \"note\": ", f);
            td_json_str(f, t->note);
        }
        fputs(", \"columns\": [", f);
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs(", ", f);
            label_spec(f, t->cols[c].key, t->cols[c].type, t->cols[c].title);
        }
        fputs("]", f);
        int any = 0;
        for (int c = 0; c < t->ncols; c++)
            if (t->cols[c].nodoc) {
                fputs(any ? ", " : ", \"nodoc\": [", f);
                td_json_str(f, t->cols[c].key);
                any = 1;
            }
        fputs(any ? "]}" : "}", f);
    }
    /* flamegraph titles (the stacks are in KIND.folded files beside, when written; a
     * stored run read back keeps the titles without its stacks) */
    fputs(first ? "},\n    \"flames\": {" : "\n    },\n    \"flames\": {", f);
    first = 1;
    for (const char *const *k = td_flame_kinds; *k; k++) {
        const td_flame *fl = td_sum_find_flame(s, *k);
        if (!fl || fl->diff || !fl->title)
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, *k);
        fputs(": ", f);
        td_json_str(f, fl->title);
    }
    fputs(first ? "}\n  }\n" : "\n    }\n  }\n", f);
    free(kv);
    free(tab);
}

static void json_node(FILE *f, const jnode *n, int d, const td_summary *s, int top)
{
    fputs("{\n", f);
    for (size_t i = 0; i < n->nk; i++) {
        const jnode *k = n->kids[i];
        indent(f, d + 1);
        td_json_str(f, k->name);
        fputs(": ", f);
        if (k->kv)
            json_cell(f, k->kv->type, &k->kv->v);
        else if (k->tab)
            json_table(f, k->tab, d + 1);
        else
            json_node(f, k, d + 1, s, 0);
        if (i + 1 < n->nk || top)
            fputc(',', f);
        fputc('\n', f);
    }
    if (top) {
        indent(f, d + 1);
        fputs("\"findings\": ", f);
        json_strings(f, s->findings, s->nfindings, d + 1);
        fputs(",\n", f);
        indent(f, d + 1);
        fputs("\"warnings\": ", f);
        json_strings(f, s->warnings, s->nwarnings, d + 1);
        fputs(",\n", f);
        json_labels(f, s);
    }
    indent(f, d);
    fputc('}', f);
}

td_status td_summary_write_json(const td_summary *s, FILE *f, td_err *e)
{
    for (size_t k = 0; k < s->ntables; k++)
        if (s->tables[k]->bad)
            return td_fail(e, TD_E_FORMAT, "summary table '%s': %s", s->tables[k]->name,
                           s->tables[k]->bad);
    jnode root = {0};
    td_status st = TD_OK;
    /* merge kv and tables by insertion order; the tree is complete before anything is
     * written, so a refused summary writes nothing */
    size_t i = 0, j = 0;
    while (st == TD_OK && (i < s->nkv || j < s->ntables)) {
        if (j >= s->ntables || (i < s->nkv && s->kv[i].seq < s->tables[j]->seq)) {
            st = jinsert(&root, s->kv[i].key, &s->kv[i], NULL, e);
            i++;
        } else {
            if (!s->tables[j]->no_json)
                st = jinsert(&root, s->tables[j]->name, NULL, s->tables[j], e);
            j++;
        }
    }
    if (st == TD_OK) {
        json_node(f, &root, 0, s, 1);
        fputc('\n', f);
    }
    for (size_t k = 0; k < root.nk; k++)
        jfree(root.kids[k]);
    free(root.kids);
    if (st != TD_OK)
        return st;
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

/* ---- CSV ---- */
static void csv_field(FILE *f, const char *s)
{
    /* libcsv's csv_fwrite always quotes; that keeps every field unambiguous. A field
     * starting with = + - @ is prefixed by a quote mark? No: CSV is for scripts, so the
     * value stays exact; spreadsheets get the xlsx. */
    csv_fwrite(f, s, strlen(s));
}

static void raw_cell(const td_col *c, const td_cell *v, char *b, size_t cap)
{
    switch (c->type) {
    case TD_T_TEXT:
        snprintf(b, cap, "%s", v->s ? v->s : "");
        break;
    case TD_T_SHARE:
    case TD_T_F64:
    case TD_T_GBPS:
        if (!isfinite(v->f))
            b[0] = 0;
        else {
            snprintf(b, cap, "%.6f", v->f);
            char *dot = strchr(b, '.');
            char *e2 = b + strlen(b) - 1;
            while (dot && e2 > dot + 1 && *e2 == '0')
                *e2-- = 0;
        }
        break;
    case TD_T_DEVICE:
        if (v->i == TD_NA)
            b[0] = 0;
        else if (v->i < 0)
            snprintf(b, cap, "all");
        else
            snprintf(b, cap, "%lld", (long long)v->i);
        break;
    default:
        if (v->i == TD_NA)
            b[0] = 0;
        else
            snprintf(b, cap, "%lld", (long long)v->i);
    }
}

td_status td_table_write_csv(const td_table *t, FILE *f, td_err *e)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->cols[c].key);
    }
    fputc('\n', f);
    char b[256];
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            const td_cell *v = td_table_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT)
                csv_field(f, v->s ? v->s : "");
            else {
                raw_cell(&t->cols[c], v, b, sizeof b);
                fputs(b, f);
            }
        }
        fputc('\n', f);
    }
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

void td_cell_format(const td_col *c, const td_cell *v, char *dst, size_t cap)
{
    switch (c->type) {
    case TD_T_NS:
        if (v->i == TD_NA)
            dst[0] = 0;
        else
            td_fmt_ns(dst, cap, v->i);
        break;
    case TD_T_SHARE:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.1f%%", v->f * 100.0);
        break;
    case TD_T_BYTES:
        if (v->i == TD_NA)
            dst[0] = 0;
        else
            td_fmt_bytes(dst, cap, v->i);
        break;
    case TD_T_GBPS:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.2f GB/s", v->f);
        break;
    case TD_T_F64:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.3f", v->f);
        break;
    case TD_T_BOOL:
        snprintf(dst, cap, "%s", v->i == TD_NA ? "" : v->i ? "yes" : "no");
        break;
    default:
        raw_cell(c, v, dst, cap);
    }
}

/* Text table: display width counts UTF-8 code points; names are cut in the middle. */
#define u8len td_utf8_len

static void put_clean(FILE *f, const char *s, size_t maxw)
{
    /* control characters (newlines in hostile names) are shown as spaces */
    size_t w = u8len(s);
    if (w <= maxw) {
        for (; *s; s++)
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        return;
    }
    size_t head = (maxw - 3) / 2, tail = maxw - 3 - head, k = 0;
    const char *p = s;
    for (; *p && k < head; p++) {
        fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
        if (((unsigned char)p[1] & 0xC0) != 0x80)
            k++;
    }
    fputs("...", f);
    size_t skip = w - tail;
    k = 0;
    for (p = s; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80)
            k++;
        if (k > skip)
            fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
    }
}

void td_table_write_text(const td_table *t, FILE *f, size_t top)
{
    size_t n = top && top < t->nrows ? top : t->nrows;
    size_t w[TD_MAXCOLS];
    char b[256];
    const size_t maxname = 60;
    for (int c = 0; c < t->ncols; c++) {
        w[c] = u8len(t->cols[c].title);
        for (size_t r = 0; r < n; r++) {
            const td_cell *v = td_table_cell(t, r, c);
            size_t l;
            if (t->cols[c].type == TD_T_TEXT)
                l = v->s ? u8len(v->s) : 0;
            else {
                td_cell_format(&t->cols[c], v, b, sizeof b);
                l = strlen(b);
            }
            if (l > w[c])
                w[c] = l;
        }
        if (t->cols[c].type == TD_T_TEXT && w[c] > maxname)
            w[c] = maxname;
    }
    fprintf(f, "%s", t->title);
    if (top && t->nrows > n)
        fprintf(f, " (top %zu of %zu)", n, t->nrows);
    fputc('\n', f);
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputs("  ", f);
        if (t->cols[c].type == TD_T_TEXT)
            fprintf(f, "%-*s", (int)w[c], t->cols[c].title);
        else
            fprintf(f, "%*s", (int)w[c], t->cols[c].title);
    }
    fputc('\n', f);
    for (size_t r = 0; r < n; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs("  ", f);
            const td_cell *v = td_table_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT) {
                const char *s = v->s ? v->s : "";
                put_clean(f, s, w[c]);
                size_t l = u8len(s);
                for (size_t k = l < w[c] ? l : w[c]; k < w[c]; k++)
                    fputc(' ', f);
            } else {
                td_cell_format(&t->cols[c], v, b, sizeof b);
                fprintf(f, "%*s", (int)w[c], b);
            }
        }
        fputc('\n', f);
    }
}

td_status td_flame_write_folded(const td_flame *fl, FILE *f, td_err *e)
{
    if (fl->tree) /* a streamed folded file or a differential flame */
        return td_flametree_write_folded(fl->tree, fl->diff, fl->unit, f, e);
    for (size_t i = 0; i < fl->n; i++)
        fprintf(f, "%s %lld\n", fl->st[i].stack, (long long)fl->st[i].value);
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

void td_flame_fmt_value(const td_flame *fl, char *dst, size_t cap, int64_t v)
{
    if (!fl || !fl->cycles) {
        td_fmt_ns(dst, cap, v);
        return;
    }
    char digits[32], out[48];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)v), o = 0;
    for (int i = 0; i < n && o < (int)sizeof out - 2; i++) {
        if (i && digits[i] != '-' && (n - i) % 3 == 0 && digits[i - 1] != '-')
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
    snprintf(dst, cap, "%s cycles", out);
}
