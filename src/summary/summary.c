/* summary/summary.c - the summary container: scalars, tables, findings, flames and their
 * getters, and the folded-stack writer. See summary/summary.h. The JSON writer is
 * summary/json_write.c, the CSV and text writers summary/table_text.c. */
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

/* The lists and the arena (what td_sum_adopt leaves of a summary it took from). */
static void free_shell(td_summary *s)
{
    free(s->kv);
    free(s->tables);
    free(s->findings);
    free(s->warnings);
    free(s->flames);
    td_arena_free(s->a);
    free(s);
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
    free_shell(s);
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
    "ipu_timeline", "lwp_blocks", "memcpy", "idle_breakdown", "launches", "queue_length",
    "comm_overlap", "memory", "op_perf", "op_perf_roofs", "op_perf_bwd", "memory_timeline", "critical_path",
    "critical_path_segments", "critical_path_collectives", "critical_path_arrivals",
    "critical_path_waits", "serving_steps", NULL};

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

/* A column appended to a table that has rows already (a pass that adds what another
 * pass's rows lack, analyse/names.c): the cells are laid out again, the new ones empty. */
void td_table_add_col(td_table *t, const char *spec)
{
    size_t klen;
    td_type ty;
    const char *title;
    if (t->ncols >= TD_MAXCOLS || !t->a) {
        refuse_col(t, "too many columns", spec);
        return;
    }
    if (!td_col_spec_parse(spec, &klen, &ty, &title)) {
        refuse_col(t, "malformed column spec", spec);
        return;
    }
    int n = t->ncols;
    td_cell *cells = td_xcalloc(t->nrows * (size_t)(n + 1) + 1, sizeof *cells);
    for (size_t r = 0; r < t->nrows; r++) {
        memcpy(cells + r * (size_t)(n + 1), t->cells + r * (size_t)n, (size_t)n * sizeof *cells);
        cells[r * (size_t)(n + 1) + (size_t)n] = (td_cell){.i = TD_NA, .f = NAN, .s = NULL};
    }
    free(t->cells);
    t->cells = cells;
    t->cap = t->nrows * (size_t)(n + 1) + 1;
    td_col *c = &t->cols[t->ncols++];
    memset(c, 0, sizeof *c);
    c->key = td_arena_strndup(t->a, spec, klen);
    c->type = ty;
    c->title = title;
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
    for (int i = 0; i < t->ncols; i++)
        r[i] = (td_cell){.i = TD_NA, .f = NAN, .s = NULL}; /* every field missing */
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

int td_steps_row_steady(const td_table *st, size_t row)
{
    int cw = td_table_col(st, "warmup"), cc = td_table_col(st, "cut");
    return !(cw >= 0 && td_table_cell(st, row, cw)->i == 1) &&
           !(cc >= 0 && td_table_cell(st, row, cc)->i == 1);
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

int td_sum_adopt(td_summary *s, td_summary *from)
{
    for (size_t i = 0; i < from->ntables; i++)
        if (td_sum_find_table(s, from->tables[i]->name))
            return 0;
    for (size_t i = 0; i < from->nflames; i++)
        if (td_sum_find_flame(s, from->flames[i]->kind))
            return 0;
    /* scalars and tables interleaved by from's insertion order */
    for (size_t i = 0, j = 0; i < from->nkv || j < from->ntables;) {
        if (j >= from->ntables || (i < from->nkv && from->kv[i].seq < from->tables[j]->seq)) {
            const td_kv *k = &from->kv[i++];
            td_kv *d = kv_slot(s, k->key, k->title, k->type);
            d->v = k->v;
        } else {
            td_table *t = from->tables[j++];
            t->seq = s->seq++;
            t->a = s->a;
            *TD_PUSH(s->tables, s->ntables, s->tables_cap) = t;
        }
    }
    for (size_t i = 0; i < from->nfindings; i++)
        *TD_PUSH(s->findings, s->nfindings, s->findings_cap) = from->findings[i];
    for (size_t i = 0; i < from->nwarnings; i++)
        *TD_PUSH(s->warnings, s->nwarnings, s->warnings_cap) = from->warnings[i];
    for (size_t i = 0; i < from->nflames; i++)
        *TD_PUSH(s->flames, s->nflames, s->flames_cap) = from->flames[i];
    td_arena_adopt(s->a, from->a);
    from->a = NULL;
    free_shell(from);
    return 1;
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
