/* io/parquet.c - Apache Parquet reader for flat schemas (see io/parquet.h).
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
#include "io/parquet.h"
#include <stdlib.h>
#include <string.h>
#include <snappy-c.h>
#include <zstd.h>
#include <zlib.h>

#define MAX_PAGE (256u << 20)      /* largest decompressed page we accept */
#define MAX_VALUES (64u << 20)     /* largest column (values) we accept */
#define MAX_DEPTH 32               /* Thrift nesting */

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICT = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4,
       ENC_RLE_DICT = 8 };
enum { CODEC_NONE = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_ZSTD = 6 };

static const char *codec_name(int c)
{
    static const char *n[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4",
                               "ZSTD", "LZ4_RAW" };
    return c >= 0 && c < 8 ? n[c] : "unknown codec";
}
static const char *enc_name(int c)
{
    static const char *n[] = { "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
                               "BIT_PACKED", "DELTA_BINARY_PACKED",
                               "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                               "RLE_DICTIONARY", "BYTE_STREAM_SPLIT" };
    return c >= 0 && c < 10 ? n[c] : "unknown encoding";
}
static const char *type_name(int t)
{
    static const char *n[] = { "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                               "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY" };
    return t >= 0 && t < 8 ? n[t] : "unknown type";
}

/* ---- Thrift compact protocol ------------------------------------------------------ */

typedef struct tr {
    const uint8_t *p, *end;
    int bad;
} tr;

static uint64_t tr_varint(tr *r)
{
    return td_varint(&r->p, r->end, &r->bad);
}
static int64_t tr_zz(tr *r)
{
    uint64_t v = tr_varint(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
/* Binary/string: returns a pointer into the buffer and its length. */
static const uint8_t *tr_bin(tr *r, size_t *len)
{
    uint64_t n = tr_varint(r);
    if (r->bad || n > (uint64_t)(r->end - r->p)) { r->bad = 1; *len = 0; return NULL; }
    const uint8_t *s = r->p;
    r->p += n;
    *len = (size_t)n;
    return s;
}
static void tr_skip(tr *r, int type, int depth);
static void tr_skip_struct(tr *r, int depth)
{
    if (depth > MAX_DEPTH) { r->bad = 1; return; }
    for (;;) {
        if (r->bad || r->p >= r->end) { r->bad = 1; return; }
        uint8_t h = *r->p++;
        if (h == 0) return;
        if (!(h >> 4)) tr_zz(r);
        tr_skip(r, h & 15, depth + 1);
    }
}
/* List header: element type and count. */
static uint64_t tr_list(tr *r, int *et)
{
    if (r->p >= r->end) { r->bad = 1; return 0; }
    uint8_t h = *r->p++;
    *et = h & 15;
    uint64_t n = h >> 4;
    if (n == 15) n = tr_varint(r);
    /* every element takes at least one byte, except booleans take one byte too */
    if (n > (uint64_t)(r->end - r->p)) { r->bad = 1; return 0; }
    return n;
}
static void tr_skip(tr *r, int type, int depth)
{
    if (depth > MAX_DEPTH) { r->bad = 1; return; }
    switch (type) {
    case 1: case 2: return;                    /* bool in a field header */
    case 3: if (r->p < r->end) r->p++; else r->bad = 1; return;
    case 4: case 5: case 6: tr_varint(r); return;
    case 7: if (r->end - r->p >= 8) r->p += 8; else r->bad = 1; return;
    case 8: { size_t l; tr_bin(r, &l); return; }
    case 9: case 10: {
        int et;
        uint64_t n = tr_list(r, &et);
        for (uint64_t i = 0; i < n && !r->bad; i++) {
            if (et == 1 || et == 2) { if (r->p < r->end) r->p++; else r->bad = 1; }
            else tr_skip(r, et, depth + 1);
        }
        return;
    }
    case 11: {
        uint64_t n = tr_varint(r);
        if (n == 0) return;
        if (r->p >= r->end || n > (uint64_t)(r->end - r->p)) { r->bad = 1; return; }
        uint8_t kv = *r->p++;
        for (uint64_t i = 0; i < n && !r->bad; i++) {
            tr_skip(r, kv >> 4, depth + 1);
            tr_skip(r, kv & 15, depth + 1);
        }
        return;
    }
    case 12: tr_skip_struct(r, depth + 1); return;
    default: r->bad = 1; return;
    }
}
/* Next field of a struct: returns its id (0 at STOP), *type its compact type. */
static int tr_field(tr *r, int *last, int *type)
{
    if (r->bad || r->p >= r->end) { r->bad = 1; return 0; }
    uint8_t h = *r->p++;
    if (h == 0) return 0;
    *type = h & 15;
    int id = (h >> 4) ? *last + (h >> 4) : (int)tr_zz(r);
    *last = id;
    if (id <= 0) { r->bad = 1; return 0; }
    return id;
}
static int64_t tr_int(tr *r, int type)
{
    if (type == 5 || type == 6 || type == 4) return tr_zz(r);
    if (type == 3) { if (r->p < r->end) return (int8_t)*r->p++; r->bad = 1; return 0; }
    r->bad = 1;
    return 0;
}

/* ---- metadata ------------------------------------------------------------------- */

typedef struct leaf {
    char *name;        /* dotted path */
    int type;
    int max_def, max_rep;
    int nested;        /* below a group: not supported for reading */
} leaf;

typedef struct chunk {
    int type, codec;
    int64_t num_values, start, size;
    int has_meta;
    char *path;        /* path_in_schema joined by '.' */
} chunk;

typedef struct rowgroup {
    int64_t num_rows;
    chunk *ch;
    size_t nch;
} rowgroup;

struct td_pq_file {
    const char *name;
    const uint8_t *d;
    size_t n;
    td_arena *a;
    int64_t num_rows;
    leaf *lv; int nleaves;
    rowgroup *rg; size_t nrg;
    td_pq_col **cols;   /* decoded columns, by leaf index, NULL until read */
};

typedef struct schel {
    int type, rep, nchild;
    char *name;
} schel;

static td_status meta_fail(td_pq_file *f, td_err *e, const tr *r, const char *what)
{
    return td_fail(e, TD_E_FORMAT, "%s: byte %zu: invalid Parquet metadata (%s)", f->name,
                   (size_t)(r->p - f->d), what);
}

static char *arena_bin(td_arena *a, const uint8_t *s, size_t n)
{
    return td_arena_strndup(a, (const char *)s, n);
}

static void parse_schel(tr *r, td_arena *a, schel *s)
{
    int last = 0, ty, id;
    s->type = -1; s->rep = 0; s->nchild = 0; s->name = NULL;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 1) s->type = (int)tr_int(r, ty);
        else if (id == 3) s->rep = (int)tr_int(r, ty);
        else if (id == 4 && ty == 8) { size_t l; const uint8_t *b = tr_bin(r, &l);
            if (b) s->name = arena_bin(a, b, l); }
        else if (id == 5) s->nchild = (int)tr_int(r, ty);
        else tr_skip(r, ty, 1);
    }
}

static void parse_colmeta(tr *r, td_arena *a, chunk *c)
{
    int last = 0, ty, id;
    int64_t data_off = -1, dict_off = -1;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 1) c->type = (int)tr_int(r, ty);
        else if (id == 3 && ty == 9) {
            int et;
            uint64_t n = tr_list(r, &et);
            td_buf b = {0};
            for (uint64_t i = 0; i < n && !r->bad; i++) {
                size_t l;
                const uint8_t *s = et == 8 ? tr_bin(r, &l) : NULL;
                if (!s) { r->bad = 1; break; }
                if (i) td_buf_putc(&b, '.');
                td_buf_put(&b, s, l);
            }
            c->path = td_arena_strdup(a, td_buf_cstr(&b));
            td_buf_free(&b);
        } else if (id == 4) c->codec = (int)tr_int(r, ty);
        else if (id == 5) c->num_values = tr_int(r, ty);
        else if (id == 7) c->size = tr_int(r, ty);
        else if (id == 9) data_off = tr_int(r, ty);
        else if (id == 11) dict_off = tr_int(r, ty);
        else tr_skip(r, ty, 1);
    }
    /* Some writers set dictionary_page_offset to 0 when there is none. */
    c->start = (dict_off > 0 && dict_off < data_off) ? dict_off : data_off;
    c->has_meta = 1;
}

static void parse_colchunk(tr *r, td_arena *a, chunk *c)
{
    int last = 0, ty, id;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 3 && ty == 12) parse_colmeta(r, a, c);
        else if (id == 1) { tr_skip(r, ty, 1); c->has_meta = -1; } /* external file */
        else tr_skip(r, ty, 1);
    }
}

static void parse_rowgroup(tr *r, td_arena *a, rowgroup *g)
{
    int last = 0, ty, id;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 1 && ty == 9) {
            int et;
            uint64_t n = tr_list(r, &et);
            if (et != 12) { r->bad = 1; return; }
            g->ch = td_arena_alloc(a, (n ? n : 1) * sizeof *g->ch);
            g->nch = (size_t)n;
            for (uint64_t i = 0; i < n && !r->bad; i++) parse_colchunk(r, a, &g->ch[i]);
        } else if (id == 3) g->num_rows = tr_int(r, ty);
        else tr_skip(r, ty, 1);
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
    tr r = { d + n - 8 - mlen, d + n - 8, 0 };
    schel *sch = NULL; size_t nsch = 0;
    int last = 0, ty, id, have_schema = 0;
    td_status st = TD_OK;
    while ((id = tr_field(&r, &last, &ty))) {
        if (id == 2 && ty == 9) {
            int et;
            uint64_t cnt = tr_list(&r, &et);
            if (et != 12) { r.bad = 1; break; }
            sch = td_arena_alloc(f->a, (cnt ? cnt : 1) * sizeof *sch);
            nsch = (size_t)cnt;
            for (uint64_t i = 0; i < cnt && !r.bad; i++) parse_schel(&r, f->a, &sch[i]);
            have_schema = 1;
        } else if (id == 3) f->num_rows = tr_int(&r, ty);
        else if (id == 4 && ty == 9) {
            int et;
            uint64_t cnt = tr_list(&r, &et);
            if (et != 12) { r.bad = 1; break; }
            f->rg = td_arena_alloc(f->a, (cnt ? cnt : 1) * sizeof *f->rg);
            f->nrg = (size_t)cnt;
            for (uint64_t i = 0; i < cnt && !r.bad; i++) parse_rowgroup(&r, f->a, &f->rg[i]);
        } else if (id == 8 || id == 9) {
            st = td_fail(e, TD_E_FORMAT, "%s: encrypted Parquet files are not supported",
                         name);
            goto fail;
        } else tr_skip(&r, ty, 1);
    }
    if (r.bad) { st = meta_fail(f, e, &r, "truncated or malformed FileMetaData"); goto fail; }
    if (!have_schema || nsch == 0) { st = meta_fail(f, e, &r, "no schema"); goto fail; }
    if (f->num_rows < 0 || f->num_rows > (int64_t)MAX_VALUES) {
        st = td_fail(e, TD_E_FORMAT, "%s: unsupported row count %lld", name,
                     (long long)f->num_rows);
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

/* ---- pages ---------------------------------------------------------------------- */

typedef struct pagehdr {
    int type;
    int64_t usize, csize;
    int64_t nvals;
    int enc, def_enc;
    int64_t v2_def_len, v2_rep_len;
    int v2_compressed;
    int has_sub;
} pagehdr;

/* v2: 0 = DataPageHeader, 1 = DataPageHeaderV2, 2 = DictionaryPageHeader */
static void parse_dph(tr *r, pagehdr *h, int v2)
{
    int last = 0, ty, id;
    h->has_sub = 1;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 1) h->nvals = tr_int(r, ty);
        else if (v2 != 1 && id == 2) h->enc = (int)tr_int(r, ty);
        else if (v2 == 0 && id == 3) h->def_enc = (int)tr_int(r, ty);
        else if (v2 == 1 && id == 4) h->enc = (int)tr_int(r, ty);
        else if (v2 == 1 && id == 5) h->v2_def_len = tr_int(r, ty);
        else if (v2 == 1 && id == 6) h->v2_rep_len = tr_int(r, ty);
        else if (v2 == 1 && id == 7) h->v2_compressed = ty == 1;
        else tr_skip(r, ty, 1);
    }
}

static void parse_pagehdr(tr *r, pagehdr *h)
{
    int last = 0, ty, id;
    memset(h, 0, sizeof *h);
    h->type = -1; h->v2_compressed = 1; h->def_enc = ENC_RLE;
    while ((id = tr_field(r, &last, &ty))) {
        if (id == 1) h->type = (int)tr_int(r, ty);
        else if (id == 2) h->usize = tr_int(r, ty);
        else if (id == 3) h->csize = tr_int(r, ty);
        else if (id == 5 && ty == 12) parse_dph(r, h, 0);
        else if (id == 7 && ty == 12) parse_dph(r, h, 2);   /* dictionary: ids 1,2 */
        else if (id == 8 && ty == 12) parse_dph(r, h, 1);
        else tr_skip(r, ty, 1);
    }
}

/* Decoding context for one column. */
typedef struct dec {
    td_pq_file *f;
    const leaf *lf;
    td_pq_col *c;
    size_t cap;
    td_err *e;
    /* dictionary */
    int64_t *di; double *dd; const char **ds; uint32_t *dl; size_t nd;
} dec;

static td_status col_fail(dec *x, const char *fmt, const char *what, long long v)
{
    char buf[256];
    snprintf(buf, sizeof buf, fmt, what, v);
    return td_fail(x->e, TD_E_FORMAT, "%s: column '%s': %s", x->f->name, x->lf->name, buf);
}

static td_status decompress(dec *x, int codec, const uint8_t *src, size_t n, size_t usize,
                            uint8_t **out)
{
    *out = NULL;
    if (usize > MAX_PAGE)
        return col_fail(x, "%s (%lld bytes)", "page too large", (long long)usize);
    uint8_t *dst = td_xmalloc(usize ? usize : 1);
    if (codec == CODEC_NONE) {
        if (n != usize) { free(dst);
            return col_fail(x, "%s: %lld", "uncompressed page size mismatch", (long long)n); }
        memcpy(dst, src, n);
    } else if (codec == CODEC_SNAPPY) {
        size_t ulen = 0;
        if (snappy_uncompressed_length((const char *)src, n, &ulen) != SNAPPY_OK
            || ulen != usize) { free(dst);
            return col_fail(x, "%s%lld", "corrupt snappy page", 0 * (long long)n); }
        ulen = usize;
        if (snappy_uncompress((const char *)src, n, (char *)dst, &ulen) != SNAPPY_OK
            || ulen != usize) { free(dst);
            return col_fail(x, "%s%lld", "corrupt snappy page", 0 * (long long)n); }
    } else if (codec == CODEC_ZSTD) {
        size_t got = ZSTD_decompress(dst, usize, src, n);
        if (ZSTD_isError(got) || got != usize) { free(dst);
            return col_fail(x, "%s%lld", "corrupt zstd page", 0 * (long long)n); }
    } else if (codec == CODEC_GZIP) {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 15 + 32) != Z_OK) { free(dst);
            return col_fail(x, "%s%lld", "zlib init failed", 0 * (long long)n); }
        z.next_in = (Bytef *)(uintptr_t)src; z.avail_in = (uInt)n;
        z.next_out = dst; z.avail_out = (uInt)usize;
        int rc = inflate(&z, Z_FINISH);
        size_t got = usize - z.avail_out;
        inflateEnd(&z);
        if (rc != Z_STREAM_END || got != usize) { free(dst);
            return col_fail(x, "%s%lld", "corrupt gzip page", 0 * (long long)n); }
    } else {
        free(dst);
        return td_fail(x->e, TD_E_FORMAT, "%s: column '%s': unsupported compression codec %s",
                       x->f->name, x->lf->name, codec_name(codec));
    }
    *out = dst;
    return TD_OK;
}

/* RLE / bit-packed hybrid decoder (bit width 0..32). */
typedef struct hyb {
    const uint8_t *p, *end;
    int bw;
    uint32_t rle_left, bp_left;
    uint32_t rle_val;
    const uint8_t *bp, *bp_end;
    size_t bp_idx;
} hyb;

static int hyb_next(hyb *h, uint32_t *out)
{
    while (!h->rle_left && !h->bp_left) {
        if (h->p >= h->end) return 0;
        tr r = { h->p, h->end, 0 };
        uint64_t hd = tr_varint(&r);
        if (r.bad || hd >> 1 == 0 || hd >> 1 > MAX_VALUES) return 0;
        h->p = r.p;
        if (hd & 1) {
            uint64_t groups = hd >> 1;
            size_t nb = (size_t)(groups * (uint64_t)h->bw);
            h->bp = h->p; h->bp_idx = 0;
            h->bp_left = (uint32_t)(groups * 8);
            /* the final run may be cut short by the writer: clamp to what exists */
            h->bp_end = nb <= (size_t)(h->end - h->p) ? h->p + nb : h->end;
            h->p = h->bp_end;
        } else {
            int nb = (h->bw + 7) / 8;
            if (h->end - h->p < nb) return 0;
            uint32_t v = 0;
            for (int i = 0; i < nb; i++) v |= (uint32_t)h->p[i] << (8 * i);
            h->p += nb;
            h->rle_val = v;
            h->rle_left = (uint32_t)(hd >> 1);
        }
    }
    if (h->rle_left) { h->rle_left--; *out = h->rle_val; return 1; }
    size_t bit = h->bp_idx * (size_t)h->bw;
    size_t byte = bit >> 3;
    int sh = (int)(bit & 7);
    int need = (sh + h->bw + 7) / 8;
    if ((size_t)(h->bp_end - h->bp) < byte + (size_t)need) return 0;
    uint64_t v = 0;
    for (int i = 0; i < need; i++) v |= (uint64_t)h->bp[byte + i] << (8 * i);
    *out = h->bw ? (uint32_t)((v >> sh) & ((1ull << h->bw) - 1)) : 0;
    h->bp_idx++;
    h->bp_left--;
    return 1;
}

static int bit_width(int v)
{
    int w = 0;
    while (v >> w) w++;
    return w;
}

static void col_reserve(dec *x, size_t need)
{
    if (need <= x->cap) return;
    size_t nc = x->cap ? x->cap * 2 : 1024;
    while (nc < need) nc *= 2;
    td_pq_col *c = x->c;
    c->valid = td_xrealloc(c->valid, nc);
    if (x->lf->type == TD_PQ_FLOAT || x->lf->type == TD_PQ_DOUBLE)
        c->f64 = td_xrealloc(c->f64, nc * sizeof *c->f64);
    else if (x->lf->type == TD_PQ_BYTE_ARRAY) {
        c->str = td_xrealloc(c->str, nc * sizeof *c->str);
        c->len = td_xrealloc(c->len, nc * sizeof *c->len);
    } else
        c->i64 = td_xrealloc(c->i64, nc * sizeof *c->i64);
    x->cap = nc;
}

/* Decode nv PLAIN values from [p, end) into the dictionary (dict=1) or the column
 * slots marked by defs (NULL = all present). */
static td_status plain_values(dec *x, const uint8_t *p, const uint8_t *end, size_t nv,
                              int dict)
{
    int t = x->lf->type;
    size_t w = t == TD_PQ_INT32 || t == TD_PQ_FLOAT ? 4 : t == TD_PQ_INT64
               || t == TD_PQ_DOUBLE ? 8 : 0;
    if (w && nv > (size_t)(end - p) / w)
        return col_fail(x, "%s (%lld values)", "page shorter than its values",
                        (long long)nv);
    if (t == TD_PQ_BOOLEAN && (nv + 7) / 8 > (size_t)(end - p))
        return col_fail(x, "%s (%lld values)", "page shorter than its values",
                        (long long)nv);
    if (dict) {
        x->nd = nv;
        if (t == TD_PQ_FLOAT || t == TD_PQ_DOUBLE) x->dd = td_xcalloc(nv + 1, sizeof *x->dd);
        else if (t == TD_PQ_BYTE_ARRAY) {
            x->ds = td_xcalloc(nv + 1, sizeof *x->ds);
            x->dl = td_xcalloc(nv + 1, sizeof *x->dl);
        } else x->di = td_xcalloc(nv + 1, sizeof *x->di);
    }
    td_pq_col *c = x->c;
    for (size_t k = 0; k < nv; k++) {
        size_t i = dict ? k : c->n;
        int64_t iv = 0; double dv = 0; const char *sv = NULL; uint32_t sl = 0;
        switch (t) {
        case TD_PQ_BOOLEAN: iv = (p[k >> 3] >> (k & 7)) & 1; break;
        case TD_PQ_INT32: { uint32_t u; memcpy(&u, p, 4); p += 4; iv = (int32_t)u; break; }
        case TD_PQ_INT64: { uint64_t u; memcpy(&u, p, 8); p += 8; iv = (int64_t)u; break; }
        case TD_PQ_FLOAT: { float fv; memcpy(&fv, p, 4); p += 4; dv = fv; break; }
        case TD_PQ_DOUBLE: memcpy(&dv, p, 8); p += 8; break;
        case TD_PQ_BYTE_ARRAY: {
            if (end - p < 4) return col_fail(x, "%s at value %lld", "truncated string",
                                             (long long)k);
            uint32_t l = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16
                         | (uint32_t)p[3] << 24;
            p += 4;
            if (l > (size_t)(end - p)) return col_fail(x, "%s at value %lld",
                                                      "string longer than its page",
                                                      (long long)k);
            sv = td_arena_strndup(x->f->a, (const char *)p, l);
            sl = l;
            p += l;
            break;
        }
        default: break;
        }
        if (dict) {
            if (x->dd) x->dd[i] = dv;
            else if (x->ds) { x->ds[i] = sv; x->dl[i] = sl; }
            else x->di[i] = iv;
        } else {
            c->valid[i] = 1;
            if (c->f64) c->f64[i] = dv;
            else if (c->str) { c->str[i] = sv; c->len[i] = sl; }
            else c->i64[i] = iv;
            c->n++;
        }
    }
    return TD_OK;
}

/* Decode one data page's levels and values (buffer = page payload after levels for v2
 * handled by the caller: lv/lvend are the def levels, vp/vend the values). */
static td_status data_page(dec *x, const pagehdr *h, const uint8_t *lv, const uint8_t *lvend,
                           const uint8_t *vp, const uint8_t *vend)
{
    size_t nv = (size_t)h->nvals;
    td_pq_col *c = x->c;
    /* name an unsupported encoding before anything is decoded */
    if (h->enc != ENC_PLAIN && h->enc != ENC_PLAIN_DICT && h->enc != ENC_RLE_DICT
        && !(h->enc == ENC_RLE && x->lf->type == TD_PQ_BOOLEAN))
        return td_fail(x->e, TD_E_FORMAT, "%s: column '%s': unsupported encoding %s",
                       x->f->name, x->lf->name, enc_name(h->enc));
    if (c->n + nv > MAX_VALUES)
        return col_fail(x, "%s (%lld)", "too many values", (long long)(c->n + nv));
    col_reserve(x, c->n + nv);
    /* definition levels -> which slots hold values */
    uint8_t *present = NULL;
    size_t nn = nv;
    if (x->lf->max_def > 0) {
        present = td_xmalloc(nv ? nv : 1);
        hyb hh = { lv, lvend, bit_width(x->lf->max_def), 0, 0, 0, NULL, NULL, 0 };
        nn = 0;
        for (size_t k = 0; k < nv; k++) {
            uint32_t dl;
            if (!hyb_next(&hh, &dl)) { free(present);
                return col_fail(x, "%s at value %lld", "corrupt definition levels",
                                (long long)k); }
            present[k] = dl == (uint32_t)x->lf->max_def;
            nn += present[k];
        }
    }
    td_status st = TD_OK;
    size_t base = c->n;
    if (h->enc == ENC_PLAIN) {
        st = plain_values(x, vp, vend, nn, 0);
    } else if (h->enc == ENC_PLAIN_DICT || h->enc == ENC_RLE_DICT) {
        if (!x->nd && nn) { st = col_fail(x, "%s%lld", "dictionary-encoded page without a "
                                          "dictionary page", 0LL); goto out; }
        if (vp >= vend && nn) { st = col_fail(x, "%s%lld", "empty dictionary page", 0LL);
            goto out; }
        int bw = nn ? *vp : 0;
        if (bw > 32) { st = col_fail(x, "%s %lld", "bad dictionary index bit width",
                                     (long long)bw); goto out; }
        hyb hh = { vp + (nn ? 1 : 0), vend, bw, 0, 0, 0, NULL, NULL, 0 };
        for (size_t k = 0; k < nn; k++) {
            uint32_t ix;
            if (!hyb_next(&hh, &ix)) { st = col_fail(x, "%s at value %lld",
                                                     "corrupt dictionary indices",
                                                     (long long)k); goto out; }
            if (ix >= x->nd) { st = col_fail(x, "%s %lld", "dictionary index out of range",
                                             (long long)ix); goto out; }
            size_t i = c->n++;
            c->valid[i] = 1;
            if (c->f64) c->f64[i] = x->dd[ix];
            else if (c->str) { c->str[i] = x->ds[ix]; c->len[i] = x->dl[ix]; }
            else c->i64[i] = x->di[ix];
        }
    } else if (h->enc == ENC_RLE && x->lf->type == TD_PQ_BOOLEAN) {
        if (vend - vp < 4) { st = col_fail(x, "%s%lld", "truncated RLE booleans", 0LL);
            goto out; }
        hyb hh = { vp + 4, vend, 1, 0, 0, 0, NULL, NULL, 0 };
        for (size_t k = 0; k < nn; k++) {
            uint32_t b;
            if (!hyb_next(&hh, &b)) { st = col_fail(x, "%s at value %lld",
                                                    "corrupt RLE booleans", (long long)k);
                goto out; }
            size_t i = c->n++;
            c->valid[i] = 1;
            c->i64[i] = b;
        }
    } else {
        st = td_fail(x->e, TD_E_FORMAT, "%s: column '%s': unsupported encoding %s",
                     x->f->name, x->lf->name, enc_name(h->enc));
        goto out;
    }
    if (st != TD_OK) goto out;
    /* spread the nn values over the nv slots, back to front, inserting nulls */
    if (present && nn < nv) {
        size_t src = base + nn, dst = base + nv;
        c->n = base + nv;
        for (size_t k = nv; k-- > 0;) {
            dst--;
            if (present[k]) {
                src--;
                c->valid[dst] = 1;
                if (c->f64) c->f64[dst] = c->f64[src];
                else if (c->str) { c->str[dst] = c->str[src]; c->len[dst] = c->len[src]; }
                else c->i64[dst] = c->i64[src];
            } else {
                c->valid[dst] = 0;
                if (c->f64) c->f64[dst] = 0;
                else if (c->str) { c->str[dst] = ""; c->len[dst] = 0; }
                else c->i64[dst] = 0;
            }
        }
    }
out:
    free(present);
    return st;
}

static td_status read_chunk(dec *x, const chunk *ch, int64_t rows)
{
    td_pq_file *f = x->f;
    if (ch->has_meta != 1)
        return col_fail(x, "%s%lld", "column chunk without metadata (external file)", 0LL);
    if (ch->type != x->lf->type)
        return col_fail(x, "%s %lld", "chunk type differs from schema type",
                        (long long)ch->type);
    if (ch->start < 4 || ch->size < 0 || (uint64_t)ch->start >= f->n
        || (uint64_t)ch->size > f->n - (uint64_t)ch->start)
        return col_fail(x, "%s (offset %lld)", "column chunk outside the file",
                        (long long)ch->start);
    const uint8_t *p = f->d + ch->start, *end = p + ch->size;
    size_t want = x->c->n + (size_t)rows;
    free(x->di); free(x->dd); free(x->ds); free(x->dl);
    x->di = NULL; x->dd = NULL; x->ds = NULL; x->dl = NULL; x->nd = 0;
    while (x->c->n < want) {
        if (p >= end)
            return col_fail(x, "%s (%lld values missing)", "column chunk ends early",
                            (long long)(want - x->c->n));
        tr r = { p, end, 0 };
        pagehdr h;
        parse_pagehdr(&r, &h);
        if (r.bad || h.csize < 0 || h.usize < 0 || h.nvals < 0
            || h.csize > end - r.p)
            return td_fail(x->e, TD_E_FORMAT, "%s: byte %zu: column '%s': corrupt page header",
                           f->name, (size_t)(p - f->d), x->lf->name);
        const uint8_t *pay = r.p;
        p = r.p + h.csize;
        if (h.type == PAGE_INDEX) continue;
        if (!h.has_sub)
            return td_fail(x->e, TD_E_FORMAT, "%s: byte %zu: column '%s': page type %d "
                           "without its header", f->name, (size_t)(pay - f->d), x->lf->name,
                           h.type);
        if (h.type == PAGE_DICT) {
            if (x->nd || x->di || x->dd || x->ds)
                return col_fail(x, "%s%lld", "second dictionary page", 0LL);
            if (h.enc != ENC_PLAIN && h.enc != ENC_PLAIN_DICT)
                return td_fail(x->e, TD_E_FORMAT, "%s: column '%s': unsupported dictionary "
                               "encoding %s", f->name, x->lf->name, enc_name(h.enc));
            if ((uint64_t)h.nvals > MAX_VALUES)
                return col_fail(x, "%s (%lld)", "dictionary too large", (long long)h.nvals);
            uint8_t *buf;
            td_status st = decompress(x, ch->codec, pay, (size_t)h.csize, (size_t)h.usize, &buf);
            if (st) return st;
            st = plain_values(x, buf, buf + h.usize, (size_t)h.nvals, 1);
            free(buf);
            if (st) return st;
        } else if (h.type == PAGE_DATA) {
            if ((uint64_t)h.nvals > want - x->c->n)
                return col_fail(x, "%s (%lld)", "page has more values than its row group",
                                (long long)h.nvals);
            uint8_t *buf;
            td_status st = decompress(x, ch->codec, pay, (size_t)h.csize, (size_t)h.usize, &buf);
            if (st) return st;
            const uint8_t *q = buf, *qe = buf + h.usize, *lv = q, *lve = q;
            if (x->lf->max_def > 0) {
                if (h.def_enc != ENC_RLE) { free(buf);
                    return td_fail(x->e, TD_E_FORMAT, "%s: column '%s': unsupported "
                                   "definition level encoding %s", f->name, x->lf->name,
                                   enc_name(h.def_enc)); }
                if (qe - q < 4) { free(buf);
                    return col_fail(x, "%s%lld", "truncated definition levels", 0LL); }
                uint32_t l = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16
                             | (uint32_t)q[3] << 24;
                if (l > (size_t)(qe - q - 4)) { free(buf);
                    return col_fail(x, "%s%lld", "definition levels longer than the page",
                                    0LL); }
                lv = q + 4; lve = lv + l; q = lve;
            }
            st = data_page(x, &h, lv, lve, q, qe);
            free(buf);
            if (st) return st;
        } else if (h.type == PAGE_DATA_V2) {
            if ((uint64_t)h.nvals > want - x->c->n)
                return col_fail(x, "%s (%lld)", "page has more values than its row group",
                                (long long)h.nvals);
            if (h.v2_rep_len < 0 || h.v2_def_len < 0
                || h.v2_rep_len + h.v2_def_len > h.csize)
                return col_fail(x, "%s%lld", "v2 level lengths exceed the page", 0LL);
            const uint8_t *lv = pay + h.v2_rep_len, *lve = lv + h.v2_def_len;
            size_t lvl = (size_t)(h.v2_rep_len + h.v2_def_len);
            if ((uint64_t)h.usize < lvl)
                return col_fail(x, "%s%lld", "v2 page smaller than its levels", 0LL);
            uint8_t *buf;
            td_status st = decompress(x, h.v2_compressed ? ch->codec : CODEC_NONE, pay + lvl,
                                      (size_t)h.csize - lvl, (size_t)h.usize - lvl, &buf);
            if (st) return st;
            st = data_page(x, &h, lv, lve, buf, buf + (h.usize - (int64_t)lvl));
            free(buf);
            if (st) return st;
        } else
            return td_fail(x->e, TD_E_FORMAT, "%s: byte %zu: column '%s': unknown page type %d",
                           f->name, (size_t)(pay - f->d), x->lf->name, h.type);
    }
    return TD_OK;
}

td_status td_pq_read(td_pq_file *f, int i, const td_pq_col **out, td_err *e)
{
    *out = NULL;
    if (i < 0 || i >= f->nleaves)
        return td_fail(e, TD_E_INTERNAL, "%s: no column %d", f->name, i);
    if (f->cols[i]) { *out = f->cols[i]; return TD_OK; }
    const leaf *lf = &f->lv[i];
    if (lf->max_rep > 0 || lf->nested)
        return td_fail(e, TD_E_FORMAT, "%s: column '%s': nested or repeated columns are "
                       "not supported", f->name, lf->name);
    if (lf->type != TD_PQ_BOOLEAN && lf->type != TD_PQ_INT32 && lf->type != TD_PQ_INT64
        && lf->type != TD_PQ_FLOAT && lf->type != TD_PQ_DOUBLE && lf->type != TD_PQ_BYTE_ARRAY)
        return td_fail(e, TD_E_FORMAT, "%s: column '%s': unsupported physical type %s",
                       f->name, lf->name, type_name(lf->type));
    td_pq_col *c = td_xcalloc(1, sizeof *c);
    c->name = lf->name;
    c->type = (td_pq_type)lf->type;
    dec x = { f, lf, c, 0, e, NULL, NULL, NULL, NULL, 0 };
    col_reserve(&x, 1);
    td_status st = TD_OK;
    for (size_t g = 0; g < f->nrg && st == TD_OK; g++)
        st = read_chunk(&x, &f->rg[g].ch[i], f->rg[g].num_rows);
    free(x.di); free(x.dd); free(x.ds); free(x.dl);
    if (st != TD_OK) {
        free(c->valid); free(c->i64); free(c->f64); free(c->str); free(c->len); free(c);
        return st;
    }
    int allvalid = 1;
    for (size_t k = 0; k < c->n; k++) if (!c->valid[k]) { allvalid = 0; break; }
    if (allvalid) { free(c->valid); c->valid = NULL; }
    f->cols[i] = c;
    *out = c;
    return TD_OK;
}
