/* io/parquet.c - Apache Parquet reader for flat schemas (see io/parquet.h): the footer,
 * the schema and the metadata; pages and column decoding are io/parquet_page.c.
 *
 * Layout facts (from the Parquet format spec): a file is "PAR1" pages... footer
 * "<thrift FileMetaData><u32 LE length>PAR1". Metadata and page headers use the Thrift
 * compact protocol. Column chunks are sequences of pages: an optional dictionary page,
 * then data pages. Data page v1 = [def levels: u32 length + RLE hybrid][values], all
 * compressed together; v2 = [rep levels][def levels] uncompressed (lengths in the
 * header), then the values, compressed unless is_compressed is false.
 *
 * Hostile input: every read goes through a cursor with an end pointer; sizes from the
 * file are checked against the bytes that really exist before anything is allocated,
 * and decompressed sizes and value counts are capped. */
#include "io/parquet_int.h"
#include "io/bound.h"
#include <stdlib.h>
#include <string.h>

typedef struct schel {
    int type, rep, nchild;
    char *name;
} schel;

static td_status meta_fail(td_pq_file *f, td_err *e, const td_thrift *r, const char *what)
{
    return td_fail(e, TD_E_FORMAT, "%s: byte %zu: invalid Parquet metadata (%s)", f->name,
                   (size_t)(r->p - f->d), what);
}

static char *arena_bin(td_arena *a, const uint8_t *s, size_t n)
{
    return td_arena_strndup(a, (const char *)s, n);
}

static void parse_schel(td_thrift *r, td_arena *a, schel *s)
{
    int last = 0, ty, id;
    s->type = -1; s->rep = 0; s->nchild = 0; s->name = NULL;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 1) s->type = (int)td_thrift_int(r, ty);
        else if (id == 3) s->rep = (int)td_thrift_int(r, ty);
        else if (id == 4 && ty == 8) { size_t l; const uint8_t *b = td_thrift_bin(r, &l);
            if (b) s->name = arena_bin(a, b, l); }
        else if (id == 5) s->nchild = (int)td_thrift_int(r, ty);
        else td_thrift_skip(r, ty, 1);
    }
}

static void parse_colmeta(td_thrift *r, td_arena *a, chunk *c)
{
    int last = 0, ty, id;
    int64_t data_off = -1, dict_off = -1;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 1) c->type = (int)td_thrift_int(r, ty);
        else if (id == 3 && ty == 9) {
            int et;
            uint64_t n = td_thrift_list(r, &et);
            td_buf b = {0};
            for (uint64_t i = 0; i < n && !r->bad; i++) {
                size_t l;
                const uint8_t *s = et == 8 ? td_thrift_bin(r, &l) : NULL;
                if (!s) { r->bad = 1; break; }
                if (i) td_buf_putc(&b, '.');
                td_buf_put(&b, s, l);
            }
            c->path = td_arena_strdup(a, td_buf_cstr(&b));
            td_buf_free(&b);
        } else if (id == 4) c->codec = (int)td_thrift_int(r, ty);
        else if (id == 5) c->num_values = td_thrift_int(r, ty);
        else if (id == 7) c->size = td_thrift_int(r, ty);
        else if (id == 9) data_off = td_thrift_int(r, ty);
        else if (id == 11) dict_off = td_thrift_int(r, ty);
        else td_thrift_skip(r, ty, 1);
    }
    /* Some writers set dictionary_page_offset to 0 when there is none. */
    c->start = (dict_off > 0 && dict_off < data_off) ? dict_off : data_off;
    c->has_meta = 1;
}

static void parse_colchunk(td_thrift *r, td_arena *a, chunk *c)
{
    int last = 0, ty, id;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 3 && ty == 12) parse_colmeta(r, a, c);
        else if (id == 1) { td_thrift_skip(r, ty, 1); c->has_meta = -1; } /* external file */
        else td_thrift_skip(r, ty, 1);
    }
}

static void parse_rowgroup(td_thrift *r, td_arena *a, rowgroup *g)
{
    int last = 0, ty, id;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 1 && ty == 9) {
            int et;
            uint64_t n = td_thrift_list(r, &et);
            if (et != 12) { r->bad = 1; return; }
            g->ch = td_arena_alloc(a, (n ? n : 1) * sizeof *g->ch);
            g->nch = (size_t)n;
            for (uint64_t i = 0; i < n && !r->bad; i++) parse_colchunk(r, a, &g->ch[i]);
        } else if (id == 3) g->num_rows = td_thrift_int(r, ty);
        else td_thrift_skip(r, ty, 1);
    }
}

/* Walk the depth-first schema list, producing leaves with their definition/repetition
 * levels. Returns the next schema index, or -1 when the tree is malformed. */
static int walk_schema(td_pq_file *f, const schel *s, int ns, int i, const char *prefix,
                       int def, int rep, int depth, leaf **lv, size_t *nl, size_t *cap)
{
    if (i >= ns || depth > MAX_DEPTH) return -1;
    const schel *el = &s[i];
    const char *nm = el->name ? el->name : "";
    char *path = depth <= 1 ? td_arena_strdup(f->a, nm)
                            : td_arena_printf(f->a, "%s.%s", prefix, nm);
    if (depth > 0) {
        if (el->rep == 1) def++;
        else if (el->rep == 2) { def++; rep++; }
    }
    if (el->nchild <= 0 && depth > 0) {
        leaf *l = TD_PUSH(*lv, *nl, *cap);
        l->name = path; l->type = el->type; l->max_def = def; l->max_rep = rep;
        l->nested = depth > 1;
        return i + 1;
    }
    if (el->nchild > ns) return -1;
    int j = i + 1;
    for (int c = 0; c < el->nchild; c++) {
        j = walk_schema(f, s, ns, j, path, def, rep, depth + 1, lv, nl, cap);
        if (j < 0) return -1;
    }
    return j;
}

td_status td_pq_open(const char *name, const void *data, size_t n, td_pq_file **out,
                     td_err *e)
{
    *out = NULL;
    const uint8_t *d = data;
    if (n < 12 || memcmp(d, "PAR1", 4) || memcmp(d + n - 4, "PAR1", 4)) {
        if (n >= 4 && !memcmp(d + (n >= 4 ? n - 4 : 0), "PARE", 4))
            return td_fail(e, TD_E_FORMAT, "%s: encrypted Parquet files are not supported",
                           name);
        return td_fail(e, TD_E_FORMAT, "%s: not a Parquet file (missing PAR1 magic at %s)",
                       name, n >= 4 && !memcmp(d, "PAR1", 4) ? "the end" : "byte 0");
    }
    uint32_t mlen = (uint32_t)d[n - 8] | (uint32_t)d[n - 7] << 8 | (uint32_t)d[n - 6] << 16
                    | (uint32_t)d[n - 5] << 24;
    if ((uint64_t)mlen > n - 12)
        return td_fail(e, TD_E_FORMAT, "%s: byte %zu: footer length %u exceeds the file",
                       name, n - 8, mlen);
    td_pq_file *f = td_xcalloc(1, sizeof *f);
    f->name = name; f->d = d; f->n = n; f->a = td_arena_new();
    td_thrift r = { d + n - 8 - mlen, d + n - 8, 0 };
    schel *sch = NULL; size_t nsch = 0;
    int last = 0, ty, id, have_schema = 0;
    td_status st = TD_OK;
    while ((id = td_thrift_field(&r, &last, &ty))) {
        if (id == 2 && ty == 9) {
            int et;
            uint64_t cnt = td_thrift_list(&r, &et);
            if (et != 12) { r.bad = 1; break; }
            sch = td_arena_alloc(f->a, (cnt ? cnt : 1) * sizeof *sch);
            nsch = (size_t)cnt;
            for (uint64_t i = 0; i < cnt && !r.bad; i++) parse_schel(&r, f->a, &sch[i]);
            have_schema = 1;
        } else if (id == 3) f->num_rows = td_thrift_int(&r, ty);
        else if (id == 4 && ty == 9) {
            int et;
            uint64_t cnt = td_thrift_list(&r, &et);
            if (et != 12) { r.bad = 1; break; }
            f->rg = td_arena_alloc(f->a, (cnt ? cnt : 1) * sizeof *f->rg);
            f->nrg = (size_t)cnt;
            for (uint64_t i = 0; i < cnt && !r.bad; i++) parse_rowgroup(&r, f->a, &f->rg[i]);
        } else if (id == 8 || id == 9) {
            st = td_fail(e, TD_E_FORMAT, "%s: encrypted Parquet files are not supported",
                         name);
            goto fail;
        } else td_thrift_skip(&r, ty, 1);
    }
    if (r.bad) { st = meta_fail(f, e, &r, "truncated or malformed FileMetaData"); goto fail; }
    if (!have_schema || nsch == 0) { st = meta_fail(f, e, &r, "no schema"); goto fail; }
    if (f->num_rows < 0 || f->num_rows > (int64_t)MAX_VALUES) {
        st = td_fail(e, TD_E_FORMAT, "%s: unsupported row count %lld", name,
                     (long long)f->num_rows);
        goto fail;
    }
    /* a column of these rows (16 bytes a value at most, decoded) within what the file
     * may hold (io/bound.h): run-length encoding makes millions of rows of a few bytes */
    if ((uint64_t)f->num_rows * 16 > td_bound_allow(n)) {
        st = td_fail(e, TD_E_FORMAT, "%s: %lld rows in %zu bytes: a column would hold more "
                     "than %d times the file's size in memory (at least %llu MiB): refused "
                     "as a decompression bomb", name, (long long)f->num_rows, n,
                     TD_BOUND_RATIO, (unsigned long long)(TD_BOUND_FLOOR >> 20));
        goto fail;
    }
    {
        size_t nl = 0, cap = 0;
        leaf *lv = NULL;
        if (walk_schema(f, sch, (int)nsch, 0, "", 0, 0, 0, &lv, &nl, &cap) != (int)nsch) {
            free(lv);
            st = meta_fail(f, e, &r, "schema tree does not match num_children");
            goto fail;
        }
        f->lv = td_arena_alloc(f->a, (nl ? nl : 1) * sizeof *lv);
        if (nl) memcpy(f->lv, lv, nl * sizeof *lv);
        f->nleaves = (int)nl;
        free(lv);
    }
    int64_t rows = 0;
    for (size_t g = 0; g < f->nrg; g++) {
        if (f->rg[g].nch != (size_t)f->nleaves || f->rg[g].num_rows < 0) {
            st = td_fail(e, TD_E_FORMAT, "%s: row group %zu has %zu column chunks for %d "
                         "schema columns", name, g, f->rg[g].nch, f->nleaves);
            goto fail;
        }
        rows += f->rg[g].num_rows;
        if (rows > (int64_t)MAX_VALUES) break;
    }
    if (rows != f->num_rows) {
        st = td_fail(e, TD_E_FORMAT, "%s: row groups hold %lld rows, footer says %lld",
                     name, (long long)rows, (long long)f->num_rows);
        goto fail;
    }
    f->cols = td_arena_alloc(f->a, (size_t)(f->nleaves ? f->nleaves : 1) * sizeof *f->cols);
    *out = f;
    return TD_OK;
fail:
    td_pq_close(f);
    return st;
}

void td_pq_close(td_pq_file *f)
{
    if (!f) return;
    for (int i = 0; f->cols && i < f->nleaves; i++) {
        td_pq_col *c = f->cols[i];
        if (!c) continue;
        free(c->valid); free(c->i64); free(c->f64); free(c->str); free(c->len);
        free(c);
    }
    td_arena_free(f->a);
    free(f);
}

size_t td_pq_nrows(const td_pq_file *f) { return (size_t)f->num_rows; }
int td_pq_ncols(const td_pq_file *f) { return f->nleaves; }
const char *td_pq_colname(const td_pq_file *f, int i)
{
    return i >= 0 && i < f->nleaves ? f->lv[i].name : NULL;
}
int td_pq_find(const td_pq_file *f, const char *name)
{
    for (int i = 0; i < f->nleaves; i++)
        if (!strcmp(f->lv[i].name, name)) return i;
    return -1;
}
