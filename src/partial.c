/* partial.c - the partial summary state, its records and the .tds file format (see
 * partial.h; the tables are built from the state by analyse_merge.c). */
#define _GNU_SOURCE
#include "partial_int.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Per type: tag in the file, value count, merge rule per value:
 * s sum, n min, x max, Q/q 128-bit sum (lo, hi), w sum where null (TD_NA) wins,
 * c equal or -1 (TD_R_KCOLL instances per rank). */
const td_rtype td_rtypes[TD_R__N] = {
    [TD_R_OP] = {"op", 5, "sssss"},
    [TD_R_KERN] = {"kern", 6, "ssnxQq"},
    [TD_R_KDEV] = {"kdev", 6, "ssnxQq"},
    [TD_R_KCOLL] = {"kcoll", 5, "ssscs"},
    [TD_R_KMOD] = {"kmod", 7, "ssQqsQq"},
    [TD_R_KTHUNK] = {"kthunk", 2, "ss"},
    [TD_R_FLAME] = {"flame", 1, "s"},
    [TD_R_XMOD] = {"xmod", 7, "ssQqsQq"},
    [TD_R_XTHUNK] = {"xthunk", 5, "sssQq"},
    [TD_R_XATTR] = {"xattr", 1, "n"},
    [TD_R_XLOC] = {"xloc", 1, "x"},
    [TD_R_PHASE] = {"phase", 1, "s"},
    [TD_R_XWALL] = {"xwall", 2, "nx"},
    [TD_R_XBUSY] = {"xbusy", 1, "s"},
    [TD_R_XCI] = {"xci", 5, "nxsxx"},
    [TD_R_XFLAG] = {"xflag", 1, "x"},
    [TD_R_XDEV] = {"xdev", 1, "s"},
    [TD_R_INPUT] = {"input", 1, "x"},
};

td_partial *td_partial_new(void)
{
    td_partial *p = td_xcalloc(1, sizeof *p);
    p->acc = td_summary_new();
    p->a = td_arena_new();
    return p;
}

void td_partial_free(td_partial *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nr; i++) {
        if (p->r[i].sk) {
            td_sketch_free(p->r[i].sk);
            free(p->r[i].sk);
        }
        free(p->r[i].inst);
    }
    free(p->r);
    free(p->slot);
    free(p->seen);
    free(p->seen_slot);
    td_summary_free(p->acc);
    td_arena_free(p->a);
    free(p);
}

void td_part_key(td_buf *b, int nf, ...)
{
    va_list ap;
    va_start(ap, nf);
    b->n = 0;
    for (int i = 0; i < nf; i++) {
        const char *f = va_arg(ap, const char *);
        if (i)
            td_buf_putc(b, '\x1f');
        if (f)
            td_buf_puts(b, f);
    }
    va_end(ap);
    td_buf_cstr(b);
}

static uint64_t rec_hash(int type, const char *key, size_t klen)
{
    return td_hash64(key, klen) ^ ((uint64_t)type * 0x9e3779b97f4a7c15ull);
}

static size_t rec_slot(const td_partial *p, int type, const char *key, size_t klen, uint64_t h)
{
    size_t i = (size_t)(h >> 7) & (p->nslot - 1);
    for (;;) {
        uint32_t k = p->slot[i];
        if (!k)
            return i;
        const td_rec *r = &p->r[k - 1];
        if (r->h == h && r->type == type && r->klen == klen && !memcmp(r->key, key, klen))
            return i;
        i = (i + 1) & (p->nslot - 1);
    }
}

int td_part_has(const td_partial *p, int type, const char *key)
{
    size_t klen = strlen(key);
    return p->nslot && p->slot[rec_slot(p, type, key, klen, rec_hash(type, key, klen))];
}

void td_part_sq(int64_t *lo_hi, int64_t x)
{
    unsigned __int128 sq = (unsigned __int128)((__int128)x * x);
    uint64_t lo = (uint64_t)sq, hi = (uint64_t)(sq >> 64);
    uint64_t nlo = (uint64_t)lo_hi[0] + lo;
    lo_hi[1] = (int64_t)((uint64_t)lo_hi[1] + hi + (nlo < lo));
    lo_hi[0] = (int64_t)nlo;
}

void td_part_exec(td_partial *p, int type, const char *key, int64_t gpu, int64_t thunks)
{
    int64_t v[TD_R_NV] = {1, gpu, 0, 0, thunks, 0, 0};
    td_part_sq(v + 2, gpu);
    td_part_sq(v + 5, thunks);
    td_part_add(p, type, key, strlen(key), v);
}

static void merge_vals(td_rec *d, const int64_t *v)
{
    const td_rtype *t = &td_rtypes[d->type];
    for (int k = 0; k < t->nv; k++) {
        switch (t->ops[k]) {
        case 's': d->v[k] += v[k]; break;
        case 'n': if (v[k] < d->v[k]) d->v[k] = v[k]; break;
        case 'x': if (v[k] > d->v[k]) d->v[k] = v[k]; break;
        case 'w':
            d->v[k] = d->v[k] == TD_NA || v[k] == TD_NA ? TD_NA : d->v[k] + v[k];
            break;
        case 'c':
            if (d->v[k] != v[k])
                d->v[k] = -1;
            break;
        case 'Q': {
            uint64_t lo = (uint64_t)d->v[k] + (uint64_t)v[k];
            d->v[k + 1] = (int64_t)((uint64_t)d->v[k + 1] + (uint64_t)v[k + 1] +
                                    (lo < (uint64_t)v[k]));
            d->v[k] = (int64_t)lo;
            k++;
            break;
        }
        default: break;
        }
    }
}

td_rec *td_part_add(td_partial *p, int type, const char *key, size_t klen, const int64_t *v)
{
    if ((p->nr + 1) * 2 > p->nslot) {
        free(p->slot);
        p->nslot = p->nslot ? p->nslot * 2 : 1024;
        p->slot = td_xcalloc(p->nslot, sizeof *p->slot);
        for (size_t k = 0; k < p->nr; k++)
            p->slot[rec_slot(p, p->r[k].type, p->r[k].key, p->r[k].klen, p->r[k].h)] =
                (uint32_t)k + 1;
    }
    uint64_t h = rec_hash(type, key, klen);
    size_t i = rec_slot(p, type, key, klen, h);
    if (p->slot[i]) {
        td_rec *r = &p->r[p->slot[i] - 1];
        merge_vals(r, v);
        return r;
    }
    td_rec *r = TD_PUSH(p->r, p->nr, p->rcap);
    memset(r, 0, sizeof *r);
    r->key = td_arena_strndup(p->a, key, klen);
    r->klen = (uint32_t)klen;
    r->type = (uint8_t)type;
    r->h = h;
    memcpy(r->v, v, (size_t)td_rtypes[type].nv * sizeof *v);
    p->slot[i] = (uint32_t)p->nr;
    return r;
}

/* KCOLL instances: merge src (per x 3 values, or NULL) into r, whose per value was
 * already merged (-1 when the counts differ). */
void td_part_inst(td_rec *r, const int64_t *inst, int64_t per, int fresh)
{
    int64_t have = r->v[3];
    if (fresh) {
        free(r->inst);
        r->inst = NULL;
        if (per > 0 && inst) {
            r->inst = td_xmalloc((size_t)per * 3 * sizeof *r->inst);
            memcpy(r->inst, inst, (size_t)per * 3 * sizeof *r->inst);
        }
        return;
    }
    if (have < 0 || !inst || !r->inst) {
        free(r->inst);
        r->inst = NULL;
        r->v[3] = -1;
        return;
    }
    for (int64_t k = 0; k < have; k++) {
        if (inst[3 * k] < r->inst[3 * k])
            r->inst[3 * k] = inst[3 * k];
        if (inst[3 * k + 1] > r->inst[3 * k + 1])
            r->inst[3 * k + 1] = inst[3 * k + 1];
        if (inst[3 * k + 2] < r->inst[3 * k + 2])
            r->inst[3 * k + 2] = inst[3 * k + 2];
    }
}

/* ---- writing ------------------------------------------------------------------- */

void td_tds_esc(td_buf *b, const char *s)
{
    if (!s) {
        td_buf_puts(b, "\\N");
        return;
    }
    for (; *s; s++) {
        switch (*s) {
        case '\\': td_buf_puts(b, "\\\\"); break;
        case '\t': td_buf_puts(b, "\\t"); break;
        case '\n': td_buf_puts(b, "\\n"); break;
        case '\r': td_buf_puts(b, "\\r"); break;
        case '\x1f': td_buf_puts(b, "\\u"); break;
        default: td_buf_putc(b, *s);
        }
    }
}

static const char *type_name(td_type t)
{
    static const char *const N[] = {"text", "int", "ns", "share", "bytes", "f64", "gbps",
                                    "device", "bool"};
    return (unsigned)t < sizeof N / sizeof *N ? N[t] : "text";
}

static int is_dbl(td_type t)
{
    return t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS;
}

static void put_cell(td_buf *b, td_type t, const td_cell *c)
{
    if (t == TD_T_TEXT)
        td_tds_esc(b, c->s);
    else if (is_dbl(t)) {
        if (isnan(c->f))
            td_buf_puts(b, "\\N");
        else
            td_buf_printf(b, "%.17g", c->f);
    } else if (c->i == TD_NA)
        td_buf_puts(b, "\\N");
    else
        td_buf_printf(b, "%" PRId64, c->i);
}

typedef struct wctx {
    const td_partial *p;
    size_t lines;
} wctx;

static td_status flush_buf(FILE *f, td_buf *b, td_err *e)
{
    if (b->n && fwrite(b->p, 1, b->n, f) != b->n)
        return td_fail(e, TD_E_OUTPUT, "write error: %s", strerror(errno));
    b->n = 0;
    return TD_OK;
}

static td_status write_cb(FILE *f, void *ctx, td_err *e)
{
    wctx *w = ctx;
    const td_partial *p = w->p;
    const td_summary *s = p->acc;
    td_buf b = {0};
    size_t L = 0;
#define LINE() (td_buf_putc(&b, '\n'), L++)
    td_buf_printf(&b, "%s\t%d", TD_TDS_MAGIC, TD_TDS_VERSION);
    LINE();
    td_buf_puts(&b, "tool\t");
    td_tds_esc(&b, p->tool);
    LINE();
    td_buf_puts(&b, "options\t");
    td_tds_esc(&b, p->options);
    LINE();
    td_buf_printf(&b, "sketch\tddsketch\t%g", TD_SKETCH_ALPHA);
    LINE();
    td_buf_puts(&b, "format\t");
    td_tds_esc(&b, p->format);
    LINE();
    td_buf_printf(&b, "world_size\t%" PRId64, p->world);
    LINE();
    td_buf_puts(&b, "device\t");
    td_tds_esc(&b, p->device);
    LINE();
    td_buf_printf(&b, "timebase\tns\nparts\t%" PRId64, p->parts);
    L++;
    LINE();
    /* scalars and tables in their summary order */
    size_t ik = 0, it = 0;
    while (ik < s->nkv || it < s->ntables) {
        if (ik < s->nkv && (it >= s->ntables || s->kv[ik].seq < s->tables[it]->seq)) {
            const td_kv *k = &s->kv[ik++];
            td_buf_puts(&b, "kv\t");
            td_tds_esc(&b, k->key);
            td_buf_printf(&b, "\t%s\t", type_name(k->type));
            td_tds_esc(&b, k->title);
            td_buf_putc(&b, '\t');
            put_cell(&b, k->type, &k->v);
            LINE();
            continue;
        }
        const td_table *t = s->tables[it++];
        td_buf_puts(&b, "table\t");
        td_tds_esc(&b, t->name);
        td_buf_putc(&b, '\t');
        td_tds_esc(&b, t->title);
        td_buf_printf(&b, "\t%d", t->no_json);
        for (int c = 0; c < t->ncols; c++) {
            td_buf_putc(&b, '\t');
            td_tds_esc(&b, t->cols[c].key);
            td_buf_printf(&b, ":%s:", type_name(t->cols[c].type));
            td_tds_esc(&b, t->cols[c].title);
        }
        LINE();
        for (size_t r = 0; r < t->nrows; r++) {
            td_buf_puts(&b, "row\t");
            td_tds_esc(&b, t->name);
            for (int c = 0; c < t->ncols; c++) {
                td_buf_putc(&b, '\t');
                put_cell(&b, t->cols[c].type, td_table_cell(t, r, c));
            }
            LINE();
            if (b.n > (1u << 20) && flush_buf(f, &b, e) != TD_OK)
                goto fail;
        }
    }
    for (size_t i = 0; i < s->nflames; i++) {
        td_buf_puts(&b, "flame\t");
        td_tds_esc(&b, s->flames[i]->kind);
        td_buf_putc(&b, '\t');
        td_tds_esc(&b, s->flames[i]->title);
        LINE();
    }
    for (size_t i = 0; i < s->nwarnings; i++) {
        td_buf_puts(&b, "warn\t");
        td_tds_esc(&b, s->warnings[i]);
        LINE();
    }
    for (size_t i = 0; i < p->nr; i++) {
        const td_rec *r = &p->r[i];
        const td_rtype *t = &td_rtypes[r->type];
        td_buf_printf(&b, "rec\t%s\t", t->tag);
        td_tds_esc(&b, r->key);
        for (int k = 0; k < t->nv; k++)
            td_buf_printf(&b, "\t%" PRId64, r->v[k]);
        if (r->sk) {
            td_buf_putc(&b, '\t');
            td_sketch_write(r->sk, &b);
        } else if (r->type == TD_R_KCOLL) {
            td_buf_putc(&b, '\t');
            if (r->inst && r->v[3] > 0)
                for (int64_t k = 0; k < 3 * r->v[3]; k++)
                    td_buf_printf(&b, "%s%" PRId64, k ? "," : "", r->inst[k]);
            else
                td_buf_putc(&b, '-');
        }
        LINE();
        if (b.n > (1u << 20) && flush_buf(f, &b, e) != TD_OK)
            goto fail;
    }
    td_buf_printf(&b, "end\t%zu\n", L);
#undef LINE
    if (flush_buf(f, &b, e) != TD_OK)
        goto fail;
    td_buf_free(&b);
    w->lines = L;
    return TD_OK;
fail:
    td_buf_free(&b);
    return e->code;
}

td_status td_partial_write(const td_partial *p, const char *path, td_err *e)
{
    wctx w = {p, 0};
    return td_write_atomic_cb(path, write_cb, &w, e);
}

/* ---- reading ------------------------------------------------------------------- */

int td_is_partial(const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char head[32];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t m = strlen(TD_TDS_MAGIC);
    return n > m && !memcmp(head, TD_TDS_MAGIC, m) && head[m] == '\t';
}

/* Unescape a field in place; returns 0 on a bad escape. *null set for \N. */
static int unesc(char *s, int *null)
{
    *null = 0;
    if (s[0] == '\\' && s[1] == 'N' && !s[2]) {
        *null = 1;
        return 1;
    }
    char *o = s;
    for (char *i = s; *i; i++) {
        if (*i != '\\') {
            *o++ = *i;
            continue;
        }
        switch (*++i) {
        case '\\': *o++ = '\\'; break;
        case 't': *o++ = '\t'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 'u': *o++ = '\x1f'; break;
        default: return 0;
        }
    }
    *o = 0;
    return 1;
}

static int parse_type_name(const char *s, td_type *t)
{
    for (int k = 0; k <= TD_T_BOOL; k++)
        if (!strcmp(s, type_name((td_type)k))) {
            *t = (td_type)k;
            return 1;
        }
    return 0;
}

static int parse_i64(const char *s, int64_t *v)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

static int parse_cell(char *s, td_type t, td_cell *c, td_arena *a)
{
    int null;
    if (!unesc(s, &null))
        return 0;
    if (t == TD_T_TEXT) {
        c->s = null ? NULL : td_arena_strdup(a, s);
        return 1;
    }
    if (is_dbl(t)) {
        if (null) {
            c->f = NAN;
            return 1;
        }
        char *end;
        c->f = strtod(s, &end);
        return *s && !*end;
    }
    if (null) {
        c->i = TD_NA;
        return 1;
    }
    return parse_i64(s, &c->i);
}

/* A warning of the merged state, once (at most 200). */
static void part_warn(td_summary *s, const char *msg)
{
    for (size_t k = 0; k < s->nwarnings; k++)
        if (!strcmp(s->warnings[k], msg))
            return;
    if (s->nwarnings < 200)
        td_sum_warning(s, msg);
}

/* Scalars: how two parts' values combine (anything recomputed from the tables at
 * finish is taken from the first part here). */
static int kv_rule(const char *key)
{
    static const char *const SUM[] = {"trace.ranks", "trace.devices", "warmup.dropped",
                                      "compile.total_ns", "module_cut.dropped_modules",
                                      "module_cut.dropped_ns"};
    for (size_t i = 0; i < sizeof SUM / sizeof *SUM; i++)
        if (!strcmp(key, SUM[i]))
            return 's';
    if (!strncmp(key, "runtime.", 8))
        return 's';
    if (!strcmp(key, "trace.span_ns") || !strcmp(key, "trace.world_size"))
        return 'x';
    return 'f';
}

void td_part_kv(td_partial *p, const char *key, const char *title, td_type t, td_cell v)
{
    td_summary *s = p->acc;
    const td_kv *k = td_sum_get(s, key);
    if (k) {
        int rule = kv_rule(key);
        if (!strncmp(key, "meta.", 5) && t == TD_T_TEXT && k->v.s && v.s && strcmp(k->v.s, v.s)) {
            /* summarize --meta: the first part's value is kept (README) */
            td_buf b = {0};
            td_buf_printf(&b, "%s: the parts disagree ('%.200s', then '%.200s'); the merge keeps "
                          "the first part's '%.200s' (merge --meta %s=VALUE sets it)", key, k->v.s,
                          v.s, k->v.s, key + 5);
            part_warn(s, td_buf_cstr(&b));
            td_buf_free(&b);
            return;
        }
        if (t == TD_T_TEXT || is_dbl(t) || rule == 'f' || k->v.i == TD_NA || v.i == TD_NA)
            return;
        int64_t x = rule == 's' ? k->v.i + v.i : k->v.i > v.i ? k->v.i : v.i;
        td_sum_set_int(s, key, NULL, t, x);
        return;
    }
    title = td_arena_strdup(s->a, title ? title : key);
    if (t == TD_T_TEXT)
        td_sum_set_str(s, key, title, v.s ? v.s : "");
    else if (is_dbl(t))
        td_sum_set_f64(s, key, title, t, v.f);
    else
        td_sum_set_int(s, key, title, t, v.i);
}

/* A table schema from a part: create it or add missing columns (only tables without
 * rows get columns added). map[k] = column in the accumulated table of the part's k-th. */
td_table *td_part_schema(td_partial *p, const char *name, const char *title, int no_json,
                         int ncols, char **specs, int *map)
{
    td_summary *s = p->acc;
    td_table *t = td_sum_find_table(s, name);
    if (!t) {
        t = td_sum_table(s, td_arena_strdup(s->a, name), td_arena_strdup(s->a, title));
        t->no_json = no_json;
    }
    for (int k = 0; k < ncols; k++) {
        const char *c1 = strchr(specs[k], ':');
        char key[256];
        snprintf(key, sizeof key, "%.*s", c1 ? (int)(c1 - specs[k]) : 0, specs[k]);
        int c = td_table_col(t, key);
        if (c < 0 && !t->nrows && t->ncols < TD_MAXCOLS) {
            td_table_cols(t, td_arena_strdup(s->a, specs[k]), NULL);
            c = t->ncols - 1;
        }
        map[k] = c;
    }
    return t;
}

typedef struct pmap {        /* a part's table: its columns in the accumulated table */
    td_table *t;
    int ncols;
    int map[TD_MAXCOLS];
    td_type type[TD_MAXCOLS];
} pmap;

/* Seen inputs (rank + SHA-256): a rank given twice is refused. */
static const char *seen_add(td_partial *p, const char *key, const char *path)
{
    if ((p->nseen + 1) * 2 > p->nseen_slot) {
        size_t ns = p->nseen_slot ? p->nseen_slot * 2 : 256;
        uint32_t *sl = td_xcalloc(ns, sizeof *sl);
        for (size_t k = 0; k < p->nseen; k++) {
            size_t i = td_hash64(p->seen[k].key, strlen(p->seen[k].key)) & (ns - 1);
            while (sl[i])
                i = (i + 1) & (ns - 1);
            sl[i] = (uint32_t)k + 1;
        }
        free(p->seen_slot);
        p->seen_slot = sl;
        p->nseen_slot = ns;
    }
    size_t i = td_hash64(key, strlen(key)) & (p->nseen_slot - 1);
    while (p->seen_slot[i]) {
        if (!strcmp(p->seen[p->seen_slot[i] - 1].key, key))
            return p->seen[p->seen_slot[i] - 1].path;
        i = (i + 1) & (p->nseen_slot - 1);
    }
    size_t cap = p->seen_cap;
    struct td_seen *x = TD_PUSH(p->seen, p->nseen, cap);
    p->seen_cap = cap;
    x->key = td_arena_strdup(p->a, key);
    x->path = path;
    p->seen_slot[i] = (uint32_t)p->nseen;
    return NULL;
}

/* Header fields that must agree between parts. */
static td_status check_meta(td_partial *p, const char *path, const char *what, char **slot,
                            const char *v, int allow_empty, td_err *e)
{
    if (!p->parts || !*slot) {
        if (!*slot || !**slot)
            *slot = td_arena_strdup(p->a, v);
        return TD_OK;
    }
    if (allow_empty && (!*v || !**slot)) {
        if (!**slot)
            *slot = td_arena_strdup(p->a, v);
        return TD_OK;
    }
    if (strcmp(*slot, v))
        return td_fail(e, TD_E_FORMAT, "%s: does not belong with %s: %s '%s' here, '%s' there",
                       path, p->first_path, what, v, *slot);
    return TD_OK;
}

#define MAXF (TD_MAXCOLS + 8)

td_status td_partial_merge_file(td_partial *p, const char *path, td_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    const char *ppath = td_arena_strdup(p->a, path);
    char *line = NULL;
    size_t lcap = 0, lno = 0;
    ssize_t len;
    int header = 1, ended = 0, have_parts = 0;
    int64_t parts = 1;
    td_status st = TD_OK;
    pmap *pm = NULL;
    size_t npm = 0, pmcap = 0;
    char *fld[MAXF];
    int64_t v[TD_R_NV];
#define BAD(...) do { st = td_fail(e, TD_E_FORMAT, __VA_ARGS__); goto out; } while (0)
    while ((len = getline(&line, &lcap, f)) > 0) {
        lno++;
        if (ended)
            BAD("%s: line %zu: text after the end line", path, lno);
        if (line[len - 1] != '\n')
            BAD("%s: line %zu: truncated (no end of line)", path, lno);
        line[--len] = 0;
        int nf = 0;
        char *q = line;
        for (;;) {
            if (nf == MAXF)
                BAD("%s: line %zu: too many fields", path, lno);
            fld[nf++] = q;
            char *t = strchr(q, '\t');
            if (!t)
                break;
            *t = 0;
            q = t + 1;
        }
        int null;
        if (lno == 1) {
            if (strcmp(fld[0], TD_TDS_MAGIC))
                BAD("%s: not a tracedoc partial summary (.tds)", path);
            if (nf < 2 || atoi(fld[1]) != TD_TDS_VERSION || strspn(fld[1], "0123456789") != strlen(fld[1]))
                BAD("%s: line 1: partial summary version %s; this tracedoc reads version %d",
                    path, nf > 1 ? fld[1] : "?", TD_TDS_VERSION);
            continue;
        }
        const char *tag = fld[0];
        if (header && (!strcmp(tag, "kv") || !strcmp(tag, "table") || !strcmp(tag, "rec") ||
                       !strcmp(tag, "flame") || !strcmp(tag, "warn") || !strcmp(tag, "end"))) {
            header = 0;
            if (!p->first_path)
                p->first_path = ppath;
        }
        if (header) {
            if (nf != 2 && !(nf == 3 && !strcmp(tag, "sketch")))
                BAD("%s: line %zu: bad header line", path, lno);
            if (!unesc(fld[1], &null))
                BAD("%s: line %zu: bad escape", path, lno);
            const char *val = null ? "" : fld[1];
            if (!strcmp(tag, "tool"))
                st = check_meta(p, path, "tracedoc version", &p->tool, val, 0, e);
            else if (!strcmp(tag, "options"))
                st = check_meta(p, path, "analysis options", &p->options, val, 0, e);
            else if (!strcmp(tag, "format"))
                st = check_meta(p, path, "input format", &p->format, val, 1, e);
            else if (!strcmp(tag, "device"))
                st = check_meta(p, path, "device", &p->device, val, 1, e);
            else if (!strcmp(tag, "sketch")) {
                char a[64];
                snprintf(a, sizeof a, "%g", TD_SKETCH_ALPHA);
                if (nf != 3 || strcmp(fld[1], "ddsketch") || strcmp(fld[2], a))
                    BAD("%s: line %zu: sketch %s %s; this tracedoc uses ddsketch %s", path, lno,
                        fld[1], nf > 2 ? fld[2] : "", a);
            } else if (!strcmp(tag, "world_size")) {
                int64_t w;
                if (!parse_i64(val, &w) || w < 0)
                    BAD("%s: line %zu: bad world_size", path, lno);
                if (p->parts && w && p->world && w != p->world)
                    BAD("%s: does not belong with %s: world size %" PRId64 " here, %" PRId64
                        " there", path, p->first_path, w, p->world);
                if (w)
                    p->world = w;
            } else if (!strcmp(tag, "parts")) {
                if (!parse_i64(val, &parts) || parts < 1)
                    BAD("%s: line %zu: bad parts count", path, lno);
                have_parts = 1;
            } else if (strcmp(tag, "timebase") || strcmp(val, "ns"))
                BAD("%s: line %zu: unknown header '%s'", path, lno, tag);
            if (st != TD_OK)
                goto out;
            continue;
        }
        for (int k = 1; k < nf; k++)
            if (strcmp(tag, "row") && strcmp(tag, "rec") && !unesc(fld[k], &null))
                BAD("%s: line %zu: bad escape in field %d", path, lno, k + 1);
        if (!strcmp(tag, "kv")) {
            td_type t;
            td_cell c;
            if (nf != 5 || !parse_type_name(fld[2], &t) || !parse_cell(fld[4], t, &c, p->acc->a))
                BAD("%s: line %zu: bad kv line", path, lno);
            td_part_kv(p, fld[1], fld[3], t, c);
        } else if (!strcmp(tag, "table")) {
            if (nf < 4 || nf - 4 > TD_MAXCOLS)
                BAD("%s: line %zu: bad table line", path, lno);
            pmap *m = TD_PUSH(pm, npm, pmcap);
            m->ncols = nf - 4;
            for (int k = 0; k < m->ncols; k++) {
                char *c1 = strchr(fld[4 + k], ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                    BAD("%s: line %zu: bad column '%s'", path, lno, fld[4 + k]);
                *c2 = 0;
                int ok = parse_type_name(c1 + 1, &m->type[k]);
                *c2 = ':';
                if (!ok)
                    BAD("%s: line %zu: bad column type in '%s'", path, lno, fld[4 + k]);
            }
            m->t = td_part_schema(p, fld[1], fld[2], fld[3][0] == '1', m->ncols, fld + 4, m->map);
        } else if (!strcmp(tag, "row")) {
            if (nf < 2 || !unesc(fld[1], &null))
                BAD("%s: line %zu: bad row line", path, lno);
            pmap *m = NULL;
            for (size_t k = npm; k-- > 0;)
                if (!strcmp(pm[k].t->name, fld[1])) {
                    m = &pm[k];
                    break;
                }
            if (!m || nf - 2 != m->ncols)
                BAD("%s: line %zu: row of table '%s' before its table line or with %d cells",
                    path, lno, fld[1], nf - 2);
            size_t r = td_table_add_row(m->t);
            for (int k = 0; k < m->ncols; k++) {
                td_cell c;
                if (!parse_cell(fld[2 + k], m->type[k], &c, p->acc->a))
                    BAD("%s: line %zu: bad cell %d", path, lno, k + 1);
                if (m->map[k] >= 0 && m->t->cols[m->map[k]].type == m->type[k])
                    *td_table_cell(m->t, r, m->map[k]) = c;
            }
            if (!strcmp(fld[1], "inputs")) {
                int cr = td_table_col(m->t, "rank"), cs = td_table_col(m->t, "sha256"),
                    cp = td_table_col(m->t, "path");
                const td_cell *sh = cs >= 0 ? td_table_cell(m->t, r, cs) : NULL;
                if (cr >= 0 && sh && sh->s) {
                    char key[128];
                    snprintf(key, sizeof key, "%" PRId64 ":%s", td_table_cell(m->t, r, cr)->i,
                             sh->s);
                    const char *other = seen_add(p, key, ppath);
                    if (other)
                        BAD("%s: does not belong with %s: both hold rank %" PRId64 " of the same "
                            "trace (%s)", path, other, td_table_cell(m->t, r, cr)->i,
                            cp >= 0 && td_table_cell(m->t, r, cp)->s
                                ? td_table_cell(m->t, r, cp)->s : "?");
                }
            }
        } else if (!strcmp(tag, "flame")) {
            if (nf != 3)
                BAD("%s: line %zu: bad flame line", path, lno);
            if (!td_sum_find_flame(p->acc, fld[1]))
                td_sum_flame(p->acc, td_arena_strdup(p->acc->a, fld[1]),
                             td_arena_strdup(p->acc->a, fld[2]));
        } else if (!strcmp(tag, "warn")) {
            if (nf != 2)
                BAD("%s: line %zu: bad warn line", path, lno);
            part_warn(p->acc, fld[1]);
        } else if (!strcmp(tag, "rec")) {
            int type = -1;
            for (int k = 0; k < TD_R__N && nf >= 3; k++)
                if (!strcmp(fld[1], td_rtypes[k].tag))
                    type = k;
            if (type < 0)
                BAD("%s: line %zu: unknown record '%s'", path, lno, nf > 1 ? fld[1] : "");
            const td_rtype *rt = &td_rtypes[type];
            int extra = type == TD_R_KERN || type == TD_R_KDEV || type == TD_R_KCOLL;
            if (nf != 3 + rt->nv + extra || !unesc(fld[2], &null) || null)
                BAD("%s: line %zu: bad %s record", path, lno, rt->tag);
            for (int k = 0; k < rt->nv; k++)
                if (!parse_i64(fld[3 + k], &v[k]))
                    BAD("%s: line %zu: bad number '%s'", path, lno, fld[3 + k]);
            size_t before = p->nr;
            td_rec *r = td_part_add(p, type, fld[2], strlen(fld[2]), v);
            int fresh = p->nr != before;
            if (type == TD_R_KERN || type == TD_R_KDEV) {
                td_sketch sk;
                const char *x = fld[3 + rt->nv];
                if (!td_sketch_parse(&sk, x, strlen(x)))
                    BAD("%s: line %zu: bad sketch", path, lno);
                if (!r->sk)
                    r->sk = td_xcalloc(1, sizeof *r->sk);
                td_sketch_merge(r->sk, &sk);
                td_sketch_free(&sk);
            } else if (type == TD_R_KCOLL) {
                const char *x = fld[3 + rt->nv];
                int64_t per = v[3];
                int64_t *inst = NULL;
                if (per > 0 && strcmp(x, "-")) {
                    if (per > 100000000)
                        BAD("%s: line %zu: too many instances", path, lno);
                    inst = td_xmalloc((size_t)per * 3 * sizeof *inst);
                    const char *c = x;
                    for (int64_t k = 0; k < 3 * per; k++) {
                        char *end;
                        errno = 0;
                        inst[k] = strtoll(c, &end, 10);
                        if (errno || end == c || (k + 1 < 3 * per ? *end != ',' : *end != 0)) {
                            free(inst);
                            BAD("%s: line %zu: bad collective instances", path, lno);
                        }
                        c = end + 1;
                    }
                }
                td_part_inst(r, inst, per, fresh);
                free(inst);
            }
        } else if (!strcmp(tag, "end")) {
            int64_t n;
            if (nf != 2 || !parse_i64(fld[1], &n) || (size_t)n != lno - 1)
                BAD("%s: line %zu: the end line says %s lines, the file has %zu (damaged)", path,
                    lno, nf > 1 ? fld[1] : "?", lno - 1);
            ended = 1;
        } else
            BAD("%s: line %zu: unknown line '%s'", path, lno, tag);
    }
    if (ferror(f))
        BAD("%s: read error: %s", path, strerror(errno));
    if (!lno)
        BAD("%s: empty file (not a partial summary)", path);
    if (!ended)
        BAD("%s: truncated: no end line after line %zu", path, lno);
    p->parts += have_parts ? parts : 1;
#undef BAD
out:
    free(line);
    free(pm);
    fclose(f);
    return st;
}
