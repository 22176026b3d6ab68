/* partial/partial.c - the partial summary state, its records and writing the .tds file format
 * (see partial/partial.h; reading: partial/read.c; the tables are built from the state by
 * merge/merge.c). */
#define _GNU_SOURCE
#include "partial/internal.h"
#include "base/hash.h"
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
    [TD_R_XSTK] = {"xstk", 1, "x"},
    [TD_R_PHASE] = {"phase", 1, "s"},
    [TD_R_XWALL] = {"xwall", 2, "nx"},
    [TD_R_XBUSY] = {"xbusy", 1, "s"},
    [TD_R_XCI] = {"xci", 5, "nxsxx"},
    [TD_R_XFLAG] = {"xflag", 1, "x"},
    [TD_R_XDEV] = {"xdev", 1, "s"},
    [TD_R_INPUT] = {"input", 1, "x"},
    [TD_R_OPGRAPH] = {"opgraph", 1, "s"},
    [TD_R_XBEST] = {"-xbest", 1, "n"},
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
    td_part_stacks_free(&p->stk);
    td_summary_free(p->acc);
    td_arena_free(p->a);
    free(p);
}

void td_partial_skip_stacks(td_partial *p)
{
    p->no_stacks = 1;
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
    return td_part_hash(key, klen) ^ ((uint64_t)type * 0x9e3779b97f4a7c15ull);
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

td_rec *td_part_find(const td_partial *p, int type, const char *key, size_t klen)
{
    if (!p->nslot)
        return NULL;
    uint32_t k = p->slot[rec_slot(p, type, key, klen, rec_hash(type, key, klen))];
    return k ? &p->r[k - 1] : NULL;
}

int td_part_has_type(const td_partial *p, int type)
{
    for (size_t i = 0; i < p->nr; i++)
        if (p->r[i].type == type)
            return 1;
    return 0;
}

int td_part_has(const td_partial *p, int type, const char *key)
{
    return td_part_find(p, type, key, strlen(key)) != NULL;
}

/* XLOC: only the locations of the lowest precedence (rank) of each (program,
 * instruction, kind) are used (merge/xla.c), so the others are neither kept
 * when read after a better part nor written. 1 when the record loses; add: note its
 * precedence. */
int td_part_xloc_loses(td_partial *p, const char *key, size_t klen, int add)
{
    const char *f = key, *end = key + klen;
    for (int i = 0; i < 3 && f; i++) {
        f = memchr(f, '\x1f', (size_t)(end - f));
        if (f)
            f++;
    }
    if (!f)
        return 0;
    char *e;
    int64_t prec = strtoll(f, &e, 10);
    size_t gl = (size_t)(f - 1 - key);
    const td_rec *b = td_part_find(p, TD_R_XBEST, key, gl);
    if (b && prec > b->v[0])
        return 1;
    if (add)
        td_part_add(p, TD_R_XBEST, key, gl, &prec);
    return 0;
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

/* Merge v into d by the type's rules; 1 when a sum overflows 64 bits (the sum is then
 * wrapped: the reader refuses the part, naming it). */
static int merge_vals(td_rec *d, const int64_t *v)
{
    const td_rtype *t = &td_rtypes[d->type];
    int over = 0;
    for (int k = 0; k < t->nv; k++) {
        switch (t->ops[k]) {
        case 's': over |= __builtin_add_overflow(d->v[k], v[k], &d->v[k]); break;
        case 'n': if (v[k] < d->v[k]) d->v[k] = v[k]; break;
        case 'x': if (v[k] > d->v[k]) d->v[k] = v[k]; break;
        case 'w':
            if (d->v[k] == TD_NA || v[k] == TD_NA)
                d->v[k] = TD_NA;
            else
                over |= __builtin_add_overflow(d->v[k], v[k], &d->v[k]);
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
    return over;
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
        if (merge_vals(r, v))
            p->overflow = 1;
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

/* s[0..n) escaped: runs without a character to escape are copied at once. */
static void esc_n(td_buf *b, const char *s, size_t n)
{
    while (n) {
        size_t k = 0;
        while (k < n && s[k] != '\\' && s[k] != '\t' && s[k] != '\n' && s[k] != '\r' &&
               s[k] != '\x1f')
            k++;
        td_buf_put(b, s, k);
        if (k == n)
            return;
        char e[2] = {'\\', s[k]};
        switch (s[k]) {
        case '\t': e[1] = 't'; break;
        case '\n': e[1] = 'n'; break;
        case '\r': e[1] = 'r'; break;
        case '\x1f': e[1] = 'u'; break;
        default: break;
        }
        td_buf_put(b, e, 2);
        s += k + 1;
        n -= k + 1;
    }
}

void td_tds_esc(td_buf *b, const char *s)
{
    if (!s) {
        td_buf_puts(b, "\\N");
        return;
    }
    esc_n(b, s, strlen(s));
}

/* "\t" and v in decimal (as %" PRId64 ") */
static void put_tab_i64(td_buf *b, int64_t v)
{
    char t[24], *e = t + sizeof t, *q = e;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--q = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--q = '-';
    *--q = '\t';
    td_buf_put(b, q, (size_t)(e - q));
}

int td_tds_is_dbl(td_type t)
{
    return t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS;
}

static void put_cell(td_buf *b, td_type t, const td_cell *c)
{
    if (t == TD_T_TEXT)
        td_tds_esc(b, c->s);
    else if (td_tds_is_dbl(t)) {
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

static td_status flush_buf(FILE *f, td_buf *b, td_sha256 *sh, td_err *e)
{
    td_sha256_update(sh, b->p, b->n);
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
    td_sha256 *sh = td_sha256_new(); /* of every line before the sum line */
    if (!sh)
        return td_sha256_fail(NULL, e);
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
            td_buf_printf(&b, "\t%s\t", td_type_name(k->type));
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
            td_buf_printf(&b, ":%s:", td_type_name(t->cols[c].type));
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
            if (b.n > (1u << 20) && flush_buf(f, &b, sh, e) != TD_OK)
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
        if (r->type == TD_R_XBEST ||
            (r->type == TD_R_XLOC && td_part_xloc_loses((td_partial *)p, r->key, r->klen, 0)))
            continue;
        td_buf_printf(&b, "rec\t%s\t", t->tag);
        td_tds_esc(&b, r->key);
        for (int k = 0; k < t->nv; k++)
            put_tab_i64(&b, r->v[k]);
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
        if (b.n > (1u << 20) && flush_buf(f, &b, sh, e) != TD_OK)
            goto fail;
    }
    /* the flame records, after the others (partial/stacks.c) */
    for (size_t i = 0; i < p->stk.n; i++) {
        td_pstack x;
        td_part_stack_get(p, i, &x);
        td_buf_put(&b, "rec\tflame\t", 10);
        esc_n(&b, x.head, x.hlen);
        esc_n(&b, x.tail, x.tlen);
        put_tab_i64(&b, x.value);
        LINE();
        if (b.n > (1u << 20) && flush_buf(f, &b, sh, e) != TD_OK)
            goto fail;
    }
    if (flush_buf(f, &b, sh, e) != TD_OK)
        goto fail;
    char hex[65];
    td_sha256_final(sh, hex);
    sh = NULL;
    td_buf_printf(&b, "sum\tsha256\t%s", hex);
    LINE();
    td_buf_printf(&b, "end\t%zu\n", L);
#undef LINE
    if (flush_buf(f, &b, NULL, e) != TD_OK)
        goto fail;
    td_buf_free(&b);
    w->lines = L;
    return TD_OK;
fail:
    if (sh) {
        char ignore[65];
        td_sha256_final(sh, ignore);
    }
    td_buf_free(&b);
    return e->code;
}

td_status td_partial_write(const td_partial *p, const char *path, td_err *e)
{
    wctx w = {p, 0};
    return td_write_atomic_cb(path, write_cb, &w, e);
}

/* A warning of the merged state, once (at most 200). */
void td_part_warn(td_summary *s, const char *msg)
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
        int meta = !strncmp(key, "meta.", 5);
        if (t == TD_T_TEXT && k->v.s && v.s && strcmp(k->v.s, v.s) &&
            (meta || (!strcmp(key, "warmup.rule") && td_part_has_type(p, TD_R_XMOD)))) {
            /* summarize --meta: the first part's value is kept (README); XLA: the warm-up
             * rule is decided per part (it depends on what the part's traces hold) */
            td_buf b = {0};
            td_buf_printf(&b, "%s: the parts disagree ('%.200s', then '%.200s'); the merge keeps "
                          "the first part's", key, k->v.s, v.s);
            if (meta)
                td_buf_printf(&b, " (merge --meta %s=VALUE sets it)", key + 5);
            else
                td_buf_puts(&b, "; each part dropped its executions by its own rule, where "
                                "report of all the inputs decides once");
            td_part_warn(s, td_buf_cstr(&b));
            td_buf_free(&b);
            return;
        }
        if (t == TD_T_TEXT || td_tds_is_dbl(t) || rule == 'f' || k->v.i == TD_NA || v.i == TD_NA)
            return;
        int64_t x = k->v.i > v.i ? k->v.i : v.i;
        if (rule == 's' && __builtin_add_overflow(k->v.i, v.i, &x))
            p->overflow = 1;
        td_sum_set_int(s, key, NULL, t, x);
        return;
    }
    title = td_arena_strdup(s->a, title ? title : key);
    if (t == TD_T_TEXT)
        td_sum_set_str(s, key, title, v.s ? v.s : "");
    else if (td_tds_is_dbl(t))
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

/* XLA flamegraphs made from the records (merge/xla.c) */
int td_part_xla_flame(const char *kind)
{
    return !strcmp(kind, "device") || !strcmp(kind, "source") || !strcmp(kind, "opname");
}

/* Mean and sample standard deviation from n, sum and the 128-bit sum of squares. */
void td_part_mean_std(int64_t n, int64_t sum, const int64_t *sq, double *mean, double *std)
{
    *mean = n ? (double)sum / (double)n : 0;
    *std = 0;
    if (n < 2)
        return;
    __int128 q = (__int128)(((unsigned __int128)(uint64_t)sq[1] << 64) | (uint64_t)sq[0]);
    __int128 num = q * n - (__int128)sum * sum;
    long double var = (long double)num / ((long double)n * (long double)(n - 1));
    *std = var > 0 ? (double)sqrtl(var) : 0;
}
