/* io/parquet_page.c - Parquet pages and column decoding (td_pq_read, see io/parquet.h):
 * page headers, decompression, the RLE/bit-packed hybrid, PLAIN and dictionary values.
 * Sizes and counts from the file are checked against the bytes present before use. */
#include "io/parquet_int.h"
#include "io/bound.h"
#include "io/snappy_lib.h"
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zlib.h>

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
static void parse_dph(td_thrift *r, pagehdr *h, int v2)
{
    int last = 0, ty, id;
    h->has_sub = 1;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 1) h->nvals = td_thrift_int(r, ty);
        else if (v2 != 1 && id == 2) h->enc = (int)td_thrift_int(r, ty);
        else if (v2 == 0 && id == 3) h->def_enc = (int)td_thrift_int(r, ty);
        else if (v2 == 1 && id == 4) h->enc = (int)td_thrift_int(r, ty);
        else if (v2 == 1 && id == 5) h->v2_def_len = td_thrift_int(r, ty);
        else if (v2 == 1 && id == 6) h->v2_rep_len = td_thrift_int(r, ty);
        else if (v2 == 1 && id == 7) h->v2_compressed = ty == 1;
        else td_thrift_skip(r, ty, 1);
    }
}

static void parse_pagehdr(td_thrift *r, pagehdr *h)
{
    int last = 0, ty, id;
    memset(h, 0, sizeof *h);
    h->type = -1; h->v2_compressed = 1; h->def_enc = ENC_RLE;
    while ((id = td_thrift_field(r, &last, &ty))) {
        if (id == 1) h->type = (int)td_thrift_int(r, ty);
        else if (id == 2) h->usize = td_thrift_int(r, ty);
        else if (id == 3) h->csize = td_thrift_int(r, ty);
        else if (id == 5 && ty == 12) parse_dph(r, h, 0);
        else if (id == 7 && ty == 12) parse_dph(r, h, 2);   /* dictionary: ids 1,2 */
        else if (id == 8 && ty == 12) parse_dph(r, h, 1);
        else td_thrift_skip(r, ty, 1);
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
    /* a small file's page of zeros must not fill memory (io/bound.h) */
    if (usize > td_bound_allow(x->f->n))
        return col_fail(x, "%s (%lld bytes): refused as a decompression bomb",
                        "page larger than the file may hold in memory", (long long)usize);
    uint8_t *dst = td_xmalloc(usize ? usize : 1);
    if (codec == CODEC_NONE) {
        if (n != usize) { free(dst);
            return col_fail(x, "%s: %lld", "uncompressed page size mismatch", (long long)n); }
        memcpy(dst, src, n);
    } else if (codec == CODEC_SNAPPY) {
        size_t ulen = 0;
        td_status ls = td_snappy_load(x->f->name, x->e);
        if (ls != TD_OK) {
            free(dst);
            return ls;
        }
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
        td_thrift r = { h->p, h->end, 0 };
        uint64_t hd = td_thrift_varint(&r);
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
        td_thrift r = { p, end, 0 };
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

