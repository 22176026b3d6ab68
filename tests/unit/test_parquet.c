/* Unit tests for the Parquet reader (io/parquet.c).
 * 1. Files written by an independent writer (tests/data/parquet/gen.py): every column
 *    decoded equals FILE.expected (v1/v2 pages, PLAIN/dictionary, RLE and bit-packed
 *    runs, uncompressed/snappy/gzip/zstd, nulls, several row groups and pages).
 * 2. Unsupported features (LZ4, DELTA_BINARY_PACKED, nested columns): TD_E_FORMAT
 *    naming the file, the column and the feature.
 * 3. The real members of the pax nsys-jax archive: row and column counts, and every
 *    range's Orig Start / Orig Duration equal to the Start/Duration that nsys wrote for
 *    the same RangeId in report_nvtx_pushpop_trace.csv.xz (read by the CSV path).
 * 4. Truncated and byte-flipped copies: OK or a TD_E_FORMAT error naming the file;
 *    never a crash (run under ASan/UBSan). */
#define _POSIX_C_SOURCE 200809L /* open_memstream in support.h */
#include "io/parquet.h"
#include "read/read.h"
#include "unit.h"
#include "support.h"
#include <stdlib.h>
#include <string.h>

static const char *traces(void)
{
    const char *t = getenv("TRACES");
    return t && *t ? t : "../shared/traces";
}

/* Decode every column; returns the first error code (0 = all OK). */
static int read_all(const char *name, const void *d, size_t n, td_err *e)
{
    td_pq_file *f;
    int rc = td_pq_open(name, d, n, &f, e);
    if (rc) return rc;
    for (int i = 0; i < td_pq_ncols(f) && !rc; i++) {
        const td_pq_col *c;
        rc = td_pq_read(f, i, &c, e);
        if (!rc && c->n != td_pq_nrows(f)) rc = -1;
    }
    td_pq_close(f);
    return rc;
}

static const char *tname(td_pq_type t)
{
    switch (t) {
    case TD_PQ_BOOLEAN: return "BOOLEAN";
    case TD_PQ_INT32: return "INT32";
    case TD_PQ_INT64: return "INT64";
    case TD_PQ_FLOAT: return "FLOAT";
    case TD_PQ_DOUBLE: return "DOUBLE";
    case TD_PQ_BYTE_ARRAY: return "BYTE_ARRAY";
    default: return "?";
    }
}

static void render(const td_pq_col *c, td_buf *b)
{
    td_buf_printf(b, "%s\t%s", c->name, tname(c->type));
    for (size_t i = 0; i < c->n; i++) {
        if (c->valid && !c->valid[i]) td_buf_puts(b, "\tNULL");
        else if (c->str) { td_buf_putc(b, '\t'); td_buf_put(b, c->str[i], c->len[i]); }
        else if (c->f64) td_buf_printf(b, "\t%.6f", c->f64[i]);
        else td_buf_printf(b, "\t%lld", (long long)c->i64[i]);
    }
    td_buf_putc(b, '\n');
}

static void fuzz(const char *name, const unsigned char *d, size_t n)
{
    unsigned char *c = malloc(n ? n : 1);
    td_err e;
    /* truncations: a spread over the file and every one of the last 80 bytes */
    for (size_t cut = 0; cut < n; cut += (cut + 80 >= n) ? 1 : n / 60 + 1) {
        memcpy(c, d, cut);
        int rc = read_all(name, c, cut, &e);
        CHECK(rc == TD_E_FORMAT);
        if (rc == TD_E_FORMAT) CHECK(strstr(e.msg, name) != NULL);
    }
    /* flips: footer bytes often, page bytes sometimes */
    uint32_t seed = 12345;
    for (int k = 0; k < 300; k++) {
        memcpy(c, d, n);
        seed = seed * 1103515245u + 12345u;
        size_t at = k < 200 && n > 400 ? n - 1 - (seed >> 8) % 400 : (seed >> 8) % n;
        c[at] ^= (unsigned char)(1u << (k % 8));
        if (k % 3 == 0) c[(at * 7) % n] = 0xff;
        int rc = read_all(name, c, n, &e);
        CHECK(rc == TD_OK || rc == TD_E_FORMAT);
        if (rc == TD_E_FORMAT) CHECK(strstr(e.msg, name) != NULL);
    }
    free(c);
}

static void test_generated(void)
{
    static const char *good[] = { "plain_v1", "multi_rg_snappy", "dict_v2_gzip", "dict_v1_zstd",
                                  "plain_dict_v2", "alt_trace" };
    static const char *bad[] = { "bad_lz4", "bad_delta", "bad_nested" };
    char path[512];
    td_err e;
    for (size_t g = 0; g < sizeof good / sizeof *good; g++) {
        char *d, *exp;
        size_t n, en;
        snprintf(path, sizeof path, "tests/data/parquet/%s.parquet", good[g]);
        if (td_read_small_file(path, &d, &n, &e)) { CHECK(!"missing test file"); continue; }
        snprintf(path, sizeof path, "tests/data/parquet/%s.parquet.expected", good[g]);
        CHECK_EQ_INT(td_read_small_file(path, &exp, &en, &e), TD_OK);
        td_pq_file *f;
        CHECK_EQ_INT(td_pq_open(good[g], d, n, &f, &e), TD_OK);
        td_buf b = {0};
        for (int i = 0; i < td_pq_ncols(f); i++) {
            const td_pq_col *c;
            if (td_pq_read(f, i, &c, &e)) { fprintf(stderr, "%s\n", e.msg); CHECK(0); continue; }
            render(c, &b);
        }
        if (strcmp(td_buf_cstr(&b), exp)) {
            fprintf(stderr, "%s: decoded columns differ from the .expected file\n", good[g]);
            CHECK(0);
        }
        td_buf_free(&b);
        td_pq_close(f);
        fuzz(good[g], (unsigned char *)d, n);
        free(d);
        free(exp);
    }
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *d, *exp;
        size_t n, en;
        snprintf(path, sizeof path, "tests/data/parquet/%s.parquet", bad[k]);
        if (td_read_small_file(path, &d, &n, &e)) { CHECK(!"missing test file"); continue; }
        snprintf(path, sizeof path, "tests/data/parquet/%s.parquet.expected", bad[k]);
        CHECK_EQ_INT(td_read_small_file(path, &exp, &en, &e), TD_OK);
        char *tab = strchr(exp, '\t'), *nl = strchr(exp, '\n');
        if (!tab || !nl) { CHECK(0); continue; }
        *tab = 0;
        *nl = 0;
        CHECK_EQ_INT(read_all(bad[k], d, n, &e), TD_E_FORMAT);
        CHECK(strstr(e.msg, bad[k]) && strstr(e.msg, exp) && strstr(e.msg, tab + 1));
        if (!strstr(e.msg, tab + 1)) fprintf(stderr, "message: %s\n", e.msg);
        free(d);
        free(exp);
    }
}


static void test_real(void)
{
    char zip[4096];
    snprintf(zip, sizeof zip, "%s/nsys-jax/pax_fsdp4_4proc_proc0.zip", traces());
    size_t n, tn;
    unsigned char *d = zip_member(zip, "nvtx_gpu_proj_trace/trace.parquet", &n);
    unsigned char *th = zip_member(zip, "thread-metadata.parquet", &tn);
    if (!d || !th) { fprintf(stderr, "skip: %s missing\n", zip); free(d); free(th); return; }
    td_err e;
    td_pq_file *f;
    CHECK_EQ_INT(td_pq_open("trace.parquet", d, n, &f, &e), TD_OK);
    CHECK_EQ_INT(td_pq_nrows(f), 14305);
    CHECK_EQ_INT(td_pq_ncols(f), 15);
    static const char *cols[] = { "Name", "Projected Start", "Projected Duration", "Orig Start",
                                  "Orig Duration", "Style", "PID", "TID", "NumGPUOps", "Lvl",
                                  "NumChild", "RangeId", "ParentId", "RangeStack", "Rank" };
    for (int i = 0; i < 15; i++) CHECK_EQ_STR(td_pq_colname(f, i), cols[i]);
    td_pq_close(f);
    CHECK_EQ_INT(read_all("trace.parquet", d, n, &e), TD_OK);
    CHECK_EQ_INT(td_pq_open("thread-metadata.parquet", th, tn, &f, &e), TD_OK);
    CHECK_EQ_INT(td_pq_nrows(f), 7526);
    const td_pq_col *c;
    CHECK_EQ_INT(td_pq_read(f, td_pq_find(f, "Name"), &c, &e), TD_OK);
    int launchers = 0;
    for (size_t i = 0; i < c->n; i++)
        launchers += !strcmp(c->str[i], "XlaLauncher:#global=0,local=0,process=0,slice=0#");
    CHECK_EQ_INT(launchers, 1);
    td_pq_close(f);

    /* Parquet Orig Start/Duration against the CSV's Start/End of the same RangeId */
    char *zd;
    size_t zn;
    CHECK_EQ_INT(td_read_small_file(zip, &zd, &zn, &e), TD_OK);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, zip);
    CHECK_EQ_INT(td_read_nsys_jax(set, t, zip, zd, zn, &e), TD_OK);
    free(zd);
    size_t matched = 0, differ = 0;
    int64_t maxid = 0;
    for (size_t i = 0; i < t->ncompile; i++)
        if (t->compile[i].range_id > maxid) maxid = t->compile[i].range_id;
    size_t *byid = calloc((size_t)maxid + 1, sizeof *byid);
    for (size_t i = 0; i < t->ncompile; i++) byid[t->compile[i].range_id] = i + 1;
    for (size_t i = 0; i < t->nranges; i++) {
        const td_range *r = &t->ranges[i];
        if (r->range_id < 0 || r->range_id > maxid || !byid[r->range_id]) continue;
        const td_range *q = &t->compile[byid[r->range_id] - 1];
        matched++;
        if (q->start != r->start || q->end != r->end || q->name != r->name) differ++;
    }
    free(byid);
    CHECK(matched > 14000);
    CHECK_EQ_INT(differ, 0);
    td_traceset_free(set);

    fuzz("thread-metadata.parquet", th, tn);
    free(d);
    free(th);
}

int main(void)
{
    test_generated();
    test_real();
    return UNIT_DONE();
}
