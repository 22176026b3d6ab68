/* Unit tests for the nsys-jax reader (read/nsysjax.c) and the XLA pass (analyse/xla/xla.c).
 *
 * Without arguments:
 *  1. The real archive pax_fsdp4_4proc_proc0.zip: the acceptance numbers computed
 *     independently with nsys-jax's own code (pjit__wrapped_step_fn: 3 steady executions
 *     of 2610 thunks, mean 127.212 ms); reader counts checked against `unzip -p | xz -dc
 *     | wc -l` (27891 CSV rows) and the Parquet row count (14305 rows, one without a
 *     RangeId); devices from the XlaLauncher thread; --warmup none / N.
 *  2. A small synthetic trace with hand-computed expectations (deepest thunks, a last
 *     execution cut short, warm-up, hidden communication, runtime totals, compile
 *     phases with a parallel region and a folded cuBLAS range), and a large synthetic
 *     trace that must be analysed quickly (no quadratic passes).
 *  3. Dumps with the same compressed bytes (the ranks of one job) are decoded once and
 *     shared; what a later job finds in the shared module equals what it finds in its
 *     own decode of the same bytes; a dump of the same size but other bytes is not shared.
 *  4. Damaged inputs: truncated zip, a zip whose CSV member is not xz, a zip whose
 *     Parquet member is truncated, an empty zip: a clear TD_E_FORMAT error naming the
 *     file and member; never a crash.
 * With arguments (used by tests/cases/xla_*.sh):
 *   test_xla dump ZIP          ranges of the projected trace as TSV
 *   test_xla json [-wN] ZIP... summary.json of the XLA pass alone
 *   test_xla fold KIND ZIP...  folded stacks of flame KIND (compile, device) */
#define _POSIX_C_SOURCE 200809L /* open_memstream in support.h */
#include "analyse/analyse.h"
#include "analyse/xla/xla.h"
#include "read/read.h"
#include "unit.h"
#include "support.h"
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

static const char *traces(void)
{
    const char *t = getenv("TRACES");
    return t && *t ? t : "../shared/traces";
}

static int load(td_traceset *set, const char *path, const void *d, size_t n, td_err *e)
{
    td_trace *t = td_traceset_add(set, path);
    return td_read_nsys_jax(set, t, path, d, n, e);
}

static int load_file(td_traceset *set, const char *path, td_err *e)
{
    char *d;
    size_t n;
    if (td_read_small_file(path, &d, &n, e)) return e->code;
    int rc = load(set, path, d, n, e);
    free(d);
    return rc;
}

static double f64_cell(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? -1 : td_table_cell(t, r, c)->f;
}
static int64_t int_cell(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? -1 : td_table_cell(t, r, c)->i;
}
static const char *str_cell(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? NULL : td_table_cell(t, r, c)->s;
}

/* Write a zip in memory with the given members (name, data, size). */
static void *make_zip(size_t *outn, int nm, const char **names, const void **data,
                      const size_t *sizes)
{
    size_t cap = 1 << 22;
    void *buf = malloc(cap);
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    archive_write_open_memory(a, buf, cap, outn);
    for (int i = 0; i < nm; i++) {
        struct archive_entry *en = archive_entry_new();
        archive_entry_set_pathname(en, names[i]);
        archive_entry_set_size(en, (la_int64_t)sizes[i]);
        archive_entry_set_filetype(en, AE_IFREG);
        archive_entry_set_perm(en, 0644);
        archive_write_header(a, en);
        archive_write_data(a, data[i], sizes[i]);
        archive_entry_free(en);
    }
    archive_write_close(a);
    archive_write_free(a);
    return buf;
}

/* Extract one member of a zip (test helper only: in memory). */

static void test_real(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nsys-jax/pax_fsdp4_4proc_proc0.zip", traces());
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "skip: %s missing\n", path); return; }
    fclose(f);
    td_traceset *set = td_traceset_new();
    td_err e;
    CHECK_EQ_INT(load_file(set, path, &e), TD_OK);
    td_trace *t = set->tr[0];
    CHECK_EQ_INT(t->format, TD_FMT_NSYS_JAX);
    CHECK_EQ_INT(t->ncompile, 27891);     /* xz -dc | wc -l = 27892 with the header */
    CHECK_EQ_INT(t->nranges, 14304);      /* 14305 Parquet rows, one without RangeId */
    CHECK_EQ_INT(t->rank, 0);             /* XlaLauncher:#global=0,local=0,process=0 */
    CHECK_EQ_INT(t->ndevices, 1);
    CHECK_EQ_INT(t->devices[0].id, 0);
    CHECK_EQ_STR(td_strget(set->strs, t->devices[0].name), "NVIDIA A100-SXM4-40GB");
    /* first CSV row: XlaDumpHloModule 26940649047..26940822025 */
    CHECK_EQ_INT(t->compile[0].start, 26940649047LL);
    CHECK_EQ_INT(t->compile[0].end, 26940822025LL);
    CHECK_EQ_STR(td_strget(set->strs, t->compile[0].name),
                 "TSL:XlaDumpHloModule:#module=jit__psum,program_id=1#");

    td_opts o;
    td_opts_default(&o);
    td_summary *s = td_summary_new();
    td_analyse_xla(set, &o, s);
    const td_table *m = td_sum_find_table(s, "modules");
    CHECK(m != NULL);
    if (m && m->nrows) {
        CHECK_EQ_STR(str_cell(m, 0, "name"), "pjit__wrapped_step_fn");
        CHECK_EQ_INT(int_cell(m, 0, "program_id"), 40);
        CHECK_EQ_INT(int_cell(m, 0, "executions"), 3);
        CHECK(f64_cell(m, 0, "thunks_mean") == 2610.0);
        /* 127.212 ms as nsys-jax prints it (3 decimals of ms) */
        CHECK_EQ_INT((int_cell(m, 0, "mean_ns") + 500) / 1000, 127212);
    }
    const td_kv *kv = td_sum_get(s, "warmup.mode");
    CHECK(kv && !strcmp(kv->v.s, "auto"));
    kv = td_sum_get(s, "compile.total_ns");
    /* sum of the 17 XlaCompile durations in the CSV (python: 69.38840488 s) */
    CHECK(kv && kv->v.i == 69388404880LL);
    CHECK(td_sum_find_table(s, "collectives") != NULL);
    CHECK(td_sum_find_flame(s, "compile") != NULL);
    CHECK(td_sum_find_flame(s, "device") != NULL);
    td_summary_free(s);

    /* --warmup none: the step function keeps all 5 executions */
    o.warmup = TD_WARMUP_NONE;
    s = td_summary_new();
    td_analyse_xla(set, &o, s);
    m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows && int_cell(m, 0, "executions") == 5);
    kv = td_sum_get(s, "warmup.dropped");
    CHECK(kv && kv->v.i == 0);
    td_summary_free(s);
    /* --warmup 1 */
    o.warmup = 1;
    s = td_summary_new();
    td_analyse_xla(set, &o, s);
    m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows && int_cell(m, 0, "executions") == 4);
    td_summary_free(s);
    td_traceset_free(set);

    /* damaged copies */
    char *d;
    size_t n;
    CHECK_EQ_INT(td_read_small_file(path, &d, &n, &e), TD_OK);
    size_t cuts[] = { 4, 30, 1000, 100000, n / 2, n - 100, n - 1 };
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        set = td_traceset_new();
        int rc = load(set, "cut.zip", d, cuts[k], &e);
        CHECK(rc == TD_E_FORMAT);
        CHECK(rc == TD_OK || strstr(e.msg, "cut.zip") != NULL);
        td_traceset_free(set);
    }
    /* flipped bytes: CRC or format errors, never a crash */
    for (size_t k = 0; k < 16; k++) {
        size_t at = (k * 2654435761u) % n;
        d[at] ^= 0x5a;
        set = td_traceset_new();
        int rc = load(set, "flip.zip", d, n, &e);
        CHECK(rc == TD_OK || (rc == TD_E_FORMAT && strstr(e.msg, "flip.zip")));
        td_traceset_free(set);
        d[at] ^= 0x5a;
    }
    free(d);
}

static td_range *rng(td_traceset *set, td_trace *t, int compile, uint32_t track, int64_t id,
                     int64_t parent, int64_t s, int64_t e, int ops, const char *name)
{
    td_range *r = compile ? TD_PUSH(t->compile, t->ncompile, t->compile_cap)
                          : TD_PUSH(t->ranges, t->nranges, t->ranges_cap);
    memset(r, 0, sizeof *r);
    r->start = s; r->end = e;
    r->gpu_start = compile ? -1 : s; r->gpu_end = compile ? -1 : e;
    r->name = td_intern_cstr(set->strs, name);
    r->track = track; r->device = -1; r->range_id = id; r->parent_id = parent;
    r->num_gpu_ops = ops;
    return r;
}

static const td_kv *kv(const td_summary *s, const char *k)
{
    const td_kv *v = td_sum_get(s, k);
    if (!v) fprintf(stderr, "missing %s\n", k);
    return v;
}
#define KV_I(s, k, want) do { const td_kv *_v = kv(s, k); CHECK(_v != NULL); \
    if (_v) CHECK_EQ_INT(_v->v.i, want); } while (0)

static void synthetic(td_traceset *set, td_trace *t, int nexec, int nthunk, int ncomp)
{
    uint32_t L = td_trace_track(t, 1, 2), M = td_trace_track(t, 1, 1);
    uint32_t W1 = td_trace_track(t, 1, 5), W2 = td_trace_track(t, 1, 6);
    t->tracks[L].device = 0;
    td_trace_device(t, 0);
    int64_t id = 100;
    for (int k = 0; k < nexec; k++) {
        int last = k == nexec - 1;
        int64_t s = 1000 * (int64_t)k + 10000, d = last ? 30 : 100 + 10 * k;
        int64_t mid = id++;
        rng(set, t, 0, L, mid, -1, s, s + d, last ? 1 : 3,
            "TSL:XlaModule:#hlo_module=m,program_id=7#");
        if (last) {
            rng(set, t, 0, L, id++, mid, s, s + 10, 1, "TSL:Thunk:#hlo_op=fusion.1#");
            continue;
        }
        rng(set, t, 0, L, id++, mid, s, s + 40, 1, "TSL:Thunk:#hlo_op=fusion.1#");
        rng(set, t, 0, L, id++, mid, s + 30, s + 60, 1,
            "TSL:Thunk:#name=jit(f)/all_gather,hlo_op=all-gather-start.3#");
        int64_t w = id++;
        rng(set, t, 0, L, w, mid, s + 70, s + 90, 1, "TSL:Thunk:#hlo_op=while.2#");
        rng(set, t, 0, L, id++, w, s + 70, s + 90, 1, "TSL:Thunk:#hlo_op=fusion.5#");
        for (int j = 0; j < nthunk; j++)    /* the large variant: many small thunks */
            rng(set, t, 0, L, id++, mid, s + 91 + j % 8, s + 92 + j % 8, 1,
                "TSL:Thunk:#hlo_op=copy.9#");
    }
    for (int k = 0; k < ncomp; k++) {
        int64_t o = 1000000 * (int64_t)k, b = 1000 * (int64_t)k;
        rng(set, t, 1, M, b + 1, -1, o, o + 1000, 0, "TSL:XlaCompile:#module=m,program_id=7#");
        rng(set, t, 1, M, b + 2, b + 1, o + 100, o + 900, 0,
            "TSL:XlaCompileBackend:#module=m,program_id=7#");
        rng(set, t, 1, M, b + 3, b + 2, o + 100, o + 200, 0,
            "TSL:XlaPass:#name=p,module=m,program_id=7#");
        rng(set, t, 1, M, b + 4, b + 2, o + 300, o + 700, 0, "TSL:XlaEmitLlvmIr");
        rng(set, t, 1, M, b + 5, b + 2, o + 750, o + 800, 0, "cuBLAS:x");
        rng(set, t, 1, W1, b + 10, -1, o + 310, o + 510, 0, "TSL:XlaCompileGpuAsm");
        rng(set, t, 1, W2, b + 11, -1, o + 320, o + 420, 0, "TSL:XlaCompileGpuAsm");
        rng(set, t, 1, W2, b + 12, -1, o + 430, o + 630, 0, "TSL:XlaOptimizeLlvmIr");
    }
}

static void test_synthetic(void)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "synthetic");
    t->format = TD_FMT_NSYS_JAX;
    synthetic(set, t, 4, 0, 1);
    td_opts o;
    td_opts_default(&o);
    td_summary *s = td_summary_new();
    td_analyse_xla(set, &o, s);
    /* execution 3 is cut short (1 GPU op < 3 - 0) and dropped; auto warm-up drops
     * executions 0 and 1 (compiled in the profile, communication present) */
    const td_table *m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows == 1);
    if (m && m->nrows) {
        CHECK_EQ_STR(str_cell(m, 0, "name"), "m");
        CHECK_EQ_INT(int_cell(m, 0, "executions"), 1);
        CHECK(f64_cell(m, 0, "thunks_mean") == 3.0);   /* fusion.1, all-gather, fusion.5 */
        CHECK_EQ_INT(int_cell(m, 0, "mean_ns"), 120);
    }
    KV_I(s, "warmup.dropped", 2);
    /* (1) 40 + 30 + 20 less the 10 of the all-gather hidden behind fusion.1 */
    KV_I(s, "runtime.thunks_ns", 80);
    KV_I(s, "runtime.modules_ns", 120);
    KV_I(s, "runtime.wall_ns", 120);            /* first module start .. last module end */
    KV_I(s, "runtime.idle_in_modules_ns", 40);  /* 120 - |[0,60) u [70,90)| */
    KV_I(s, "runtime.busy_in_modules_ns", 80); /* |[0,60) u [70,90)| */
    KV_I(s, "runtime.idle_between_modules_ns", 0);
    const td_table *h = td_sum_find_table(s, "hlo_ops");
    CHECK(h && h->nrows == 2);
    if (h && h->nrows == 2) {
        CHECK_EQ_STR(str_cell(h, 0, "hlo_op"), "fusion");
        CHECK_EQ_INT(int_cell(h, 0, "total_ns"), 60);
        CHECK_EQ_INT(int_cell(h, 0, "calls"), 2);
        CHECK_EQ_STR(str_cell(h, 1, "hlo_op"), "all-gather-start");
    }
    const td_table *c = td_sum_find_table(s, "collectives");
    CHECK(c && c->nrows == 1);
    if (c && c->nrows) {
        CHECK_EQ_STR(str_cell(c, 0, "name"), "allgather");
        CHECK_EQ_INT(int_cell(c, 0, "calls"), 1);
        CHECK_EQ_INT(int_cell(c, 0, "total_ns"), 30);
        CHECK_EQ_INT(int_cell(c, 0, "hidden_ns"), 10);   /* overlap with fusion.1 */
    }
    /* compile: XlaCompile 1000 = 200 own + Backend 300 (800 - 100 - 400; cuBLAS folded
     * in) + pass 100 + EmitLlvmIr 400 - 320 parallel region [310, 630) shared by worker
     * non-child time: GpuAsm (200 + 100) / 500 * 320 = 192, OptimizeLlvmIr 128; the
     * notebook's groups: the first XlaCompile's own time is library loading, passes
     * are lumped as XlaPass */
    KV_I(s, "compile.total_ns", 1000);
    const td_table *p = td_sum_find_table(s, "compile.phases");
    static const char *names[] = { "XlaCompileBackend", "[non-leaf time in 0th XlaCompile range]",
                                   "XlaCompileGpuAsm", "XlaOptimizeLlvmIr", "XlaPass",
                                   "XlaEmitLlvmIr" };
    static const int64_t vals[] = { 300, 200, 192, 128, 100, 80 };
    CHECK(p && p->nrows == 6);
    for (size_t r = 0; p && r < p->nrows && r < 6; r++) {
        CHECK_EQ_STR(str_cell(p, r, "name"), names[r]);
        CHECK_EQ_INT(int_cell(p, r, "non_child_ns"), vals[r]);
    }
    td_summary_free(s);
    /* --warmup none: executions 0..2, mean 110, sample std 10 */
    o.warmup = TD_WARMUP_NONE;
    s = td_summary_new();
    td_analyse_xla(set, &o, s);
    m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows == 1 && int_cell(m, 0, "executions") == 3);
    if (m && m->nrows) {
        CHECK_EQ_INT(int_cell(m, 0, "mean_ns"), 110);
        CHECK_EQ_INT(int_cell(m, 0, "std_ns"), 10);
    }
    td_summary_free(s);
    td_traceset_free(set);

    /* large: 3000 executions x 100 thunks, 20000 compiles (160000 ranges) */
    set = td_traceset_new();
    t = td_traceset_add(set, "large");
    synthetic(set, t, 3000, 100, 20000);
    o.warmup = TD_WARMUP_AUTO;
    s = td_summary_new();
    int64_t t0 = td_now_ns();
    td_analyse_xla(set, &o, s);
    int64_t dt = td_now_ns() - t0;
    fprintf(stderr, "large synthetic trace (%zu ranges, %zu compile ranges): %.0f ms\n",
            t->nranges, t->ncompile, dt / 1e6);
    CHECK(dt < 20000000000LL);
    m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows == 1 && int_cell(m, 0, "executions") == 2997);
    KV_I(s, "compile.total_ns", 20000 * 1000LL);
    td_summary_free(s);
    td_traceset_free(set);
}

static void test_built(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nsys-jax/pax_fsdp4_4proc_proc0.zip", traces());
    size_t pn = 0, tn = 0;
    void *pq = zip_member(path, "nvtx_gpu_proj_trace/trace.parquet", &pn);
    void *th = zip_member(path, "thread-metadata.parquet", &tn);
    td_err e;
    td_traceset *set;
    size_t zn;
    void *z;
    /* CSV member that is not xz */
    {
        const char *names[] = { "report_nvtx_pushpop_trace.csv.xz" };
        const void *data[] = { "Start (ns),End (ns)\n1,2\n" };
        size_t sizes[] = { 24 };
        z = make_zip(&zn, 1, names, data, sizes);
        set = td_traceset_new();
        CHECK_EQ_INT(load(set, "notxz.zip", z, zn, &e), TD_E_FORMAT);
        CHECK(strstr(e.msg, "notxz.zip") && strstr(e.msg, "report_nvtx_pushpop_trace.csv.xz"));
        td_traceset_free(set);
        free(z);
    }
    /* push/pop CSV problems: a missing column, a bad integer (line number named) */
    {
        static const char *csvs[] = {
            "Start (ns),End (ns),Name,PID,TID,RangeId\n1,2,a,3,4,5\n",
            "Start (ns),End (ns),Name,PID,TID,RangeId,ParentId\n1,2,a,3,4,5,\n7,x8,b,3,4,6,5\n",
            "Start (ns),End (ns),Name,PID,TID,RangeId,ParentId\n9,2,a,3,4,5,\n",
            "Start (ns),End (ns),Name,PID,TID,RangeId,ParentId\n1,2,\"a,\"\"b\n" };
        static const char *want[] = { "missing column 'ParentId'", "line 3: column 'End (ns)'",
                                      "line 2: range ends before it starts", "line" };
        for (int k = 0; k < 4; k++) {
            uint8_t xz[4096];
            size_t xn = 0;
            lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, (const uint8_t *)csvs[k],
                                    strlen(csvs[k]), xz, &xn, sizeof xz);
            const char *names[] = { "report_nvtx_pushpop_trace.csv.xz" };
            const void *data[] = { xz };
            size_t sizes[] = { xn };
            z = make_zip(&zn, 1, names, data, sizes);
            set = td_traceset_new();
            int rc = load(set, "csv.zip", z, zn, &e);
            if (k < 3) {
                CHECK_EQ_INT(rc, TD_E_FORMAT);
                CHECK(strstr(e.msg, "csv.zip") && strstr(e.msg, want[k]));
                if (!strstr(e.msg, want[k])) fprintf(stderr, "message: %s\n", e.msg);
            } else
                CHECK(rc == TD_OK || (rc == TD_E_FORMAT && strstr(e.msg, want[k])));
            td_traceset_free(set);
            free(z);
        }
    }
    /* nsys-jax-combine layout: a clear "not supported" */
    {
        const char *names[] = { "nvtx_gpu_proj_trace/trace.parquet/a.parquet" };
        const void *data[] = { "PAR1" };
        size_t sizes[] = { 4 };
        z = make_zip(&zn, 1, names, data, sizes);
        set = td_traceset_new();
        CHECK_EQ_INT(load(set, "comb.zip", z, zn, &e), TD_E_FORMAT);
        CHECK(strstr(e.msg, "nsys-jax-combine") != NULL);
        td_traceset_free(set);
        free(z);
    }
    /* zip without nsys-jax members */
    {
        const char *names[] = { "hello.txt" };
        const void *data[] = { "hi" };
        size_t sizes[] = { 2 };
        z = make_zip(&zn, 1, names, data, sizes);
        set = td_traceset_new();
        CHECK_EQ_INT(load(set, "other.zip", z, zn, &e), TD_E_FORMAT);
        CHECK(strstr(e.msg, "not an nsys-jax report") != NULL);
        td_traceset_free(set);
        free(z);
    }
    if (!pq || !th) { free(pq); free(th); return; }
    /* truncated Parquet member: the error names the member */
    for (size_t cut = 0; cut < pn; cut += pn / 7 + 1) {
        const char *names[] = { "nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet" };
        const void *data[] = { pq, th };
        size_t sizes[] = { cut, tn };
        z = make_zip(&zn, 2, names, data, sizes);
        set = td_traceset_new();
        CHECK_EQ_INT(load(set, "trunc.zip", z, zn, &e), TD_E_FORMAT);
        CHECK(strstr(e.msg, "trunc.zip:nvtx_gpu_proj_trace/trace.parquet") != NULL);
        td_traceset_free(set);
        free(z);
    }
    /* damaged HLO dump of jit__psum (program 1, an all-reduce): the decoded HloProto is
     * truncated or has bytes flipped, then recompressed; the all-reduce row must still
     * be there (message size known or not), never a crash */
    size_t hn = 0;
    void *hx = zip_member(path, "dump/module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb.xz",
                      &hn);
    if (hx) {
        uint8_t *raw = malloc(1 << 20), *bad = malloc(1 << 20), *xz = malloc(1 << 21);
        size_t rawn = 0, inpos = 0;
        uint64_t lim = UINT64_MAX;
        CHECK(lzma_stream_buffer_decode(&lim, 0, NULL, hx, &inpos, hn, raw, &rawn, 1 << 20)
              == LZMA_OK);
        for (int k = 0; k < 24 && rawn; k++) {
            memcpy(bad, raw, rawn);
            size_t bn = rawn;
            if (k % 3 == 0) bn = (rawn * (size_t)k) / 24;
            else for (int j = 0; j < 4; j++) bad[(k * 7919u + j * 104729u) % rawn] ^= (uint8_t)(0x41 + k);
            size_t xn = 0;
            lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, bad, bn, xz, &xn, 1 << 21);
            const char *names[] = { "nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet",
                                    "dump/module_0001.jit__psum.sm_8.0_gpu_after_optimizations.hlo.pb.xz" };
            const void *data[] = { pq, th, xz };
            size_t sizes[] = { pn, tn, xn };
            z = make_zip(&zn, 3, names, data, sizes);
            set = td_traceset_new();
            CHECK_EQ_INT(load(set, "hlo.zip", z, zn, &e), TD_OK);
            CHECK_EQ_INT(set->tr[0]->nhlo, 1);
            td_opts o;
            td_opts_default(&o);
            o.warmup = TD_WARMUP_NONE;
            td_summary *s = td_summary_new();
            td_analyse_xla(set, &o, s);
            const td_table *c = td_sum_find_table(s, "collectives");
            int found = 0;
            for (size_t r = 0; c && r < c->nrows; r++)
                found |= !strcmp(str_cell(c, r, "name"), "allreduce");
            CHECK(found);
            td_summary_free(s);
            td_traceset_free(set);
            free(z);
        }
        free(raw); free(bad); free(xz); free(hx);
    }
    /* the nsys 2024.5+ layout (tests/data/parquet/alt_trace.parquet, from gen.py): module m
     * run 3 times for 100, 200, 300 ns on the main thread, which takes device 0 */
    {
        char *ad;
        size_t an;
        if (td_read_small_file("tests/data/parquet/alt_trace.parquet", &ad, &an, &e) == TD_OK) {
            const char *names[] = { "nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet" };
            const void *data[] = { ad, th };
            size_t sizes[] = { an, tn };
            z = make_zip(&zn, 2, names, data, sizes);
            set = td_traceset_new();
            CHECK_EQ_INT(load(set, "alt.zip", z, zn, &e), TD_OK);
            td_opts o;
            td_opts_default(&o);
            td_summary *s = td_summary_new();
            td_analyse_xla(set, &o, s);
            const td_table *m = td_sum_find_table(s, "modules");
            CHECK(m && m->nrows == 1);
            if (m && m->nrows) {
                CHECK_EQ_STR(str_cell(m, 0, "name"), "m");
                CHECK_EQ_INT(int_cell(m, 0, "program_id"), 5);
                CHECK_EQ_INT(int_cell(m, 0, "executions"), 3);
                CHECK_EQ_INT(int_cell(m, 0, "mean_ns"), 200);
                CHECK_EQ_INT(int_cell(m, 0, "std_ns"), 100);
                CHECK(f64_cell(m, 0, "thunks_mean") == 2.0);
            }
            td_summary_free(s);
            td_traceset_free(set);
            free(z);
            free(ad);
        } else
            CHECK(!"tests/data/parquet/alt_trace.parquet missing");
    }
    /* only the Parquet members: modules without compile data (no warm-up dropped) */
    {
        const char *names[] = { "nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet" };
        const void *data[] = { pq, th };
        size_t sizes[] = { pn, tn };
        z = make_zip(&zn, 2, names, data, sizes);
        set = td_traceset_new();
        CHECK_EQ_INT(load(set, "proj.zip", z, zn, &e), TD_OK);
        td_opts o;
        td_opts_default(&o);
        td_summary *s = td_summary_new();
        td_analyse_xla(set, &o, s);
        const td_table *m = td_sum_find_table(s, "modules");
        CHECK(m && m->nrows && int_cell(m, 0, "executions") == 5);
        td_summary_free(s);
        td_traceset_free(set);
        free(z);
    }
    free(pq);
    free(th);
}

static void dump_trace(const td_traceset *set, const td_trace *t, FILE *f)
{
    fprintf(f, "range_id\tparent_id\tproj_start\tproj_dur\tnum_gpu_ops\tpid\ttid\tthread\tname\n");
    for (size_t i = 0; i < t->nranges; i++) {
        const td_range *r = &t->ranges[i];
        const td_track *k = &t->tracks[r->track];
        fprintf(f, "%lld\t%lld\t%lld\t%lld\t%d\t%lld\t%lld\t%s\t%s\n", (long long)r->range_id,
                (long long)r->parent_id, (long long)r->gpu_start,
                (long long)(r->gpu_end - r->gpu_start), r->num_gpu_ops, (long long)k->pid,
                (long long)k->tid, td_strget(set->strs, k->thread_name),
                td_strget(set->strs, r->name));
    }
}

static int dump(const char *path)
{
    td_traceset *set = td_traceset_new();
    td_err e;
    if (load_file(set, path, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    dump_trace(set, set->tr[0], stdout);
    td_traceset_free(set);
    return 0;
}

/* "all DIR FILE...": the archives read once into one set, then DIR/dumpI.tsv of the
 * I-th (what dump prints for it alone) and DIR/all.json (what json prints for them all):
 * tests/cases/xla_modules.sh, which read each archive twice for these before */
static int dump_all(const char *dir, int argc, char **argv)
{
    td_traceset *set = td_traceset_new();
    td_opts o;
    td_opts_default(&o);
    td_err e;
    char path[4096];
    int rc = 0;
    for (int i = 0; i < argc; i++)
        if (load_file(set, argv[i], &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    for (size_t i = 0; i < set->n && !rc; i++) {
        snprintf(path, sizeof path, "%s/dump%zu.tsv", dir, i);
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); rc = 1; break; }
        dump_trace(set, set->tr[i], f);
        rc = fclose(f) != 0;
    }
    td_summary *s = td_summary_new();
    td_analyse_xla(set, &o, s);
    snprintf(path, sizeof path, "%s/all.json", dir);
    FILE *f = rc ? NULL : fopen(path, "w");
    if (!rc && (!f || td_summary_write_json(s, f, &e) != TD_OK || fclose(f) != 0))
        rc = 1;
    td_summary_free(s);
    td_traceset_free(set);
    return rc;
}

static int json(int argc, char **argv, const char *fold)
{
    td_traceset *set = td_traceset_new();
    td_opts o;
    td_opts_default(&o);
    td_err e;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "-w", 2)) { o.warmup = atoi(argv[i] + 2); continue; }
        if (load_file(set, argv[i], &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    }
    td_summary *s = td_summary_new();
    td_analyse_xla(set, &o, s);
    int rc;
    if (fold) {
        const td_flame *fl = td_sum_find_flame(s, fold);
        rc = !fl || td_flame_write_folded(fl, stdout, &e) != TD_OK;
    } else
        rc = td_summary_write_json(s, stdout, &e) != TD_OK;
    td_summary_free(s);
    td_traceset_free(set);
    return rc;
}

/* Byte-identical dumps decoded once (xla_hlo_decode_all): the real archive's step
 * function (400 KB of xz, 6.5 MB decoded) as three jobs at three addresses, the third
 * with one byte changed, plus a small program; then a fifth job, in a later call, with
 * the first's bytes. */
static void test_shared_dumps(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/nsys-jax/pax_fsdp4_4proc_proc0.zip", traces());
    size_t n = 0, sn = 0;
    uint8_t *a = zip_member(path,
        "dump/module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_optimizations.hlo.pb.xz", &n);
    uint8_t *small = zip_member(path,
        "dump/module_0011.jit__threefry_split_original.sm_8.0_gpu_after_optimizations.hlo.pb.xz", &sn);
    if (!a || !small) { free(a); free(small); return; }
    uint8_t *b = malloc(n), *c = malloc(n);
    memcpy(b, a, n);
    memcpy(c, a, n);
    c[n / 2] ^= 0x55; /* same size, other bytes: the xz check fails, read as empty */
    td_hlo_dump d[5] = {{40, a, n}, {11, small, sn}, {40, b, n}, {41, c, n}, {42, b, n}};
    xla_hlo all[5], own[1];
    memset(all, 0, sizeof all);
    memset(own, 0, sizeof own);
    for (int i = 0; i < 5; i++) { all[i].d = &d[i]; all[i].tr = i; }
    xla_hlo_decode_all(all, 0, 4);
    xla_hlo_decode_all(all, 4, 1);
    own[0].d = &d[2];
    xla_hlo_decode_all(own, 0, 1);
    CHECK(!all[0].shared && !all[1].shared && !all[3].shared);
    CHECK(all[2].shared && all[4].shared);
    CHECK(all[2].in == all[0].in && all[4].in == all[0].in);
    CHECK_EQ_INT(all[2].tr, 2);
    CHECK(all[2].d == &d[2] && all[4].d == &d[4]);
    CHECK(all[0].nin > 10000);
    CHECK(all[1].nin > 0 && all[1].nin < 1000);
    CHECK_EQ_INT(all[3].nin, 0);
    /* the shared module answers as the job's own decode does */
    CHECK_EQ_INT(all[2].nin, own[0].nin);
    CHECK(!strcmp(all[2].fingerprint, own[0].fingerprint));
    CHECK_EQ_INT(all[2].nfrm, own[0].nfrm);
    for (size_t k = 0; k < own[0].nin; k += 97) {
        const xla_hinst *p = &own[0].in[k];
        const xla_hinst *q = xla_hlo_find(&all[2], p->name, p->namel);
        CHECK(q && q->id == p->id && q->comp == p->comp && q->bytes == p->bytes &&
              q->opl == p->opl && !memcmp(q->op, p->op, p->opl));
        td_buf f1 = {0}, f2 = {0};
        CHECK_EQ_INT(xla_hlo_frames(&all[2], q ? q->frame : 0, &f1),
                     xla_hlo_frames(&own[0], p->frame, &f2));
        CHECK(!strcmp(td_buf_cstr(&f1), td_buf_cstr(&f2)));
        td_buf_free(&f1);
        td_buf_free(&f2);
    }
    for (int i = 0; i < 5; i++) xla_hlo_free(&all[i]);
    xla_hlo_free(&own[0]);
    free(a); free(b); free(c); free(small);
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "dump")) return dump(argv[2]);
    if (argc > 3 && !strcmp(argv[1], "all")) return dump_all(argv[2], argc - 3, argv + 3);
    if (argc > 2 && !strcmp(argv[1], "json")) return json(argc - 2, argv + 2, NULL);
    if (argc > 3 && !strcmp(argv[1], "fold")) return json(argc - 3, argv + 3, argv[2]);
    test_synthetic();
    test_real();
    test_shared_dumps();
    test_built();
    return UNIT_DONE();
}
