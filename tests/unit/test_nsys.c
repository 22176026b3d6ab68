/* Unit tests for the Nsight Systems SQLite reader (read/nsys.c).
 * 1. A small database built here with hand-computed expectations: runtime dedup per
 *    process, correlation ids, NVTX domains, nesting and GPU projection, absent tables.
 * 2. The real sample (../shared/traces/nsys): counts and values checked against the
 *    sqlite3 CLI queries quoted next to them.
 * 3. Damaged copies of the sample (truncated, header and page bytes flipped): a clear
 *    TD_E_FORMAT error naming the file, or a successful read; never a crash. */
#define _POSIX_C_SOURCE 200809L
#include "read/read.h"
#include "unit.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define G(pid, tid) ((int64_t)(pid) * 0x1000000 + (tid))

static const char *S(td_traceset *s, td_str id) { return td_strget(s->strs, id); }

/* Build a database from SQL and return its bytes (sqlite3_malloc'd). */
static unsigned char *make_db(const char *sql, size_t *n)
{
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "make_db: %s\n", err);
        exit(2);
    }
    sqlite3_int64 sz = 0;
    unsigned char *p = sqlite3_serialize(db, "main", &sz, 0);
    sqlite3_close(db);
    *n = (size_t)sz;
    return p;
}

static const td_range *range_named(td_traceset *s, td_trace *t, const char *name)
{
    for (size_t i = 0; i < t->nranges; i++)
        if (strcmp(S(s, t->ranges[i].name), name) == 0)
            return &t->ranges[i];
    return NULL;
}

static void synthetic(void)
{
    char sql[8192];
    snprintf(sql, sizeof sql,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'k1(int)'),(3,'outer'),"
        " (4,'inner'),(6,'cudaMemcpy'),(7,'cudaLaunchKernel'),(8,'k2'),(9,'main thread'),"
        " (1000,'sparse');"
        "CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);"
        "INSERT INTO ThreadNames VALUES(9,5,%lld),(3,1,%lld);"
        /* a kernel table from an older export: no shortName, no grid/block columns */
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(1000,1500,1,3,10,%lld,2),"
        " (2000,2600,1,3,11,%lld,8),(500,900,0,4,12,%lld,1000);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(101,119,0,%lld,10,1),(100,120,67,%lld,10,7),"
        " (300,350,0,%lld,11,1),(390,420,0,%lld,12,6),(100,110,0,%lld,10,1);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER,"
        " text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES(1,NULL,75,NULL,'Dom',%lld,NULL,NULL,2),"
        " (50,400,59,NULL,'outer',%lld,NULL,NULL,0),(90,200,59,NULL,NULL,%lld,NULL,4,2),"
        " (500,600,59,NULL,'lonely',%lld,NULL,NULL,0),(60,70,59,NULL,'t8',%lld,NULL,NULL,0),"
        " (0,5000,60,1,'se',%lld,%lld,NULL,0),(77,NULL,34,NULL,'m',%lld,NULL,NULL,0),"
        " (80,NULL,59,NULL,'unended',%lld,NULL,NULL,0),"
        " (1,NULL,39,NULL,'named by NVTX',%lld,NULL,NULL,0);",
        (long long)G(5, 7), (long long)G(5, 7), (long long)G(5, 0), (long long)G(5, 0),
        (long long)G(5, 0),
        (long long)G(5, 7), (long long)G(5, 7), (long long)G(5, 7), (long long)G(5, 7),
        (long long)G(6, 1), (long long)G(5, 7), (long long)G(5, 7), (long long)G(5, 7),
        (long long)G(5, 7), (long long)G(5, 8), (long long)G(5, 7), (long long)G(5, 8),
        (long long)G(5, 7), (long long)G(5, 7), (long long)G(5, 8));
    size_t n;
    unsigned char *db = make_db(sql, &n);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "syn.sqlite");
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "syn.sqlite", db, n, &e), TD_OK);
    if (e.code)
        fprintf(stderr, "%s\n", e.msg);
    CHECK_EQ_INT(t->format, TD_FMT_NSYS_SQLITE);
    /* pid 6 made its own CUDA call: it is a second process trace (rank) */
    CHECK_EQ_INT(set->n, 2);
    /* split traces count the events they hold: 3 kernels, 3 runtime, 4 ranges, 1 mark */
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].pid == 5 && t->tracks[i].tid == 8)
            CHECK_EQ_STR(S(set, t->tracks[i].thread_name), "named by NVTX");
    CHECK_EQ_INT(t->nevents, 11);

    int nk = 0, nrt = 0, nrange = 0, ninst = 0;
    int64_t corr_k1 = 0, corr_rt10_p5 = -1, corr_rt10_p6 = -1;
    for (size_t i = 0; i < t->nev; i++) {
        td_event *ev = &t->ev[i];
        td_track *k = &t->tracks[ev->track];
        switch (ev->kind) {
        case TD_K_KERNEL:
            nk++;
            CHECK(k->device >= 0);
            if (ev->ts == 1000) {
                CHECK_EQ_STR(S(set, ev->name), "k1(int)");
                CHECK_EQ_INT(k->device, 1);
                CHECK_EQ_INT(k->stream, 3);
                CHECK_EQ_INT(k->pid, 5);
                CHECK_EQ_INT(ev->dur, 500);
                corr_k1 = ev->corr;
            }
            if (ev->ts == 500)
                CHECK_EQ_STR(S(set, ev->name), "sparse");
            break;
        case TD_K_RUNTIME:
            nrt++;
            CHECK_EQ_INT(k->device, -1);
            if (ev->ts == 100 && k->pid == 5) {
                /* the outer of the two rows, with the version suffix stripped */
                CHECK_EQ_INT(ev->dur, 20);
                CHECK_EQ_STR(S(set, ev->name), "cudaLaunchKernel");
                CHECK_EQ_STR(S(set, k->thread_name), "main thread");
                corr_rt10_p5 = ev->corr;
            }
            if (ev->ts == 100 && k->pid == 6)
                corr_rt10_p6 = ev->corr;
            if (ev->ts == 300)
                CHECK_EQ_STR(S(set, ev->name), "cudaLaunchKernel");
            break;
        case TD_K_RANGE:
            nrange++;
            break;
        case TD_K_INSTANT:
            ninst++;
            CHECK_EQ_STR(S(set, ev->name), "m");
            break;
        default:
            CHECK(!"unexpected kind");
        }
    }
    CHECK_EQ_INT(nk, 3);
    CHECK_EQ_INT(nrt, 3);      /* pid 5: corr 10 (deduplicated), 11, 12 */
    if (set->n == 2) {
        td_trace *t6 = set->tr[1];
        CHECK_EQ_INT(t6->nev, 1);
        CHECK_EQ_INT(t6->tracks[t6->ev[0].track].pid, 6);
        corr_rt10_p6 = t6->ev[0].corr;
    }
    CHECK_EQ_INT(nrange, 4);   /* push/pop ranges with an end */
    CHECK_EQ_INT(ninst, 1);
    CHECK(corr_k1 != 0);
    CHECK_EQ_INT(corr_rt10_p5, corr_k1);
    CHECK(corr_rt10_p6 != corr_k1 && corr_rt10_p6 != 0);

    /* devices 0 and 1 come from the work (no TARGET_INFO_GPU) */
    CHECK_EQ_INT(t->ndevices, 2);

    CHECK_EQ_INT(t->nranges, 5);
    const td_range *se = range_named(set, t, "se"), *outer = range_named(set, t, "outer"),
                   *inner = range_named(set, t, "Dom:inner"), *lonely = range_named(set, t, "lonely"),
                   *t8 = range_named(set, t, "t8");
    CHECK(se && outer && inner && lonely && t8);
    if (se && outer && inner && lonely && t8) {
        /* order (start, enclosing first): se, outer, t8, inner, lonely */
        CHECK_EQ_INT(se->range_id, 1);
        CHECK_EQ_INT(outer->range_id, 2);
        CHECK_EQ_INT(t8->range_id, 3);
        CHECK_EQ_INT(inner->range_id, 4);
        CHECK_EQ_INT(lonely->range_id, 5);
        /* calls fully inside [50,400]: 100-120 (k1) and 300-350 (k2); 390-420 sticks out */
        CHECK_EQ_INT(outer->gpu_start, 1000);
        CHECK_EQ_INT(outer->gpu_end, 2600);
        CHECK_EQ_INT(outer->num_gpu_ops, 2);
        CHECK_EQ_INT(outer->device, 1);
        CHECK_EQ_INT(outer->level, 0);
        CHECK_EQ_INT(outer->parent_id, -1);
        CHECK_EQ_INT(outer->num_child, 1);
        CHECK_EQ_INT(inner->gpu_start, 1000);
        CHECK_EQ_INT(inner->gpu_end, 1500);
        CHECK_EQ_INT(inner->num_gpu_ops, 1);
        CHECK_EQ_INT(inner->level, 1);
        CHECK_EQ_INT(inner->parent_id, 2);
        CHECK_EQ_INT(lonely->gpu_start, -1);
        CHECK_EQ_INT(lonely->num_gpu_ops, 0);
        CHECK_EQ_INT(lonely->device, -1);
        CHECK_EQ_INT(lonely->level, 0);
        CHECK_EQ_INT(t8->level, 0);           /* another thread: not inside outer */
        CHECK_EQ_INT(t8->parent_id, -1);
        /* start/end range: all three launches; first op is the 500-900 one on device 0 */
        CHECK_EQ_INT(se->gpu_start, 500);
        CHECK_EQ_INT(se->gpu_end, 2600);
        CHECK_EQ_INT(se->num_gpu_ops, 3);
        CHECK_EQ_INT(se->device, 0);
        CHECK_EQ_INT(se->level, 0);
    }
    CHECK_EQ_INT(t->ncompile, 0);   /* no XLA compile ranges: not filled */
    int warned = 0;
    for (size_t i = 0; i < set->warnings.n; i++)
        warned += strstr(set->warnings.msg[i], "no end") != NULL;
    CHECK_EQ_INT(warned, 1);
    td_traceset_free(set);
    sqlite3_free(db);

    /* ... and neither is a virtual table */
    db = make_db("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE VIRTUAL TABLE NVTX_EVENTS USING fts5(start, end, eventType);", &n);
    set = td_traceset_new();
    t = td_traceset_add(set, "vt.db");
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "vt.db", db, n, &e), TD_OK);
    CHECK_EQ_INT(t->nranges, 0);
    td_traceset_free(set);
    sqlite3_free(db);

    /* Absurd timestamps are an error, not an overflow downstream */
    db = make_db("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER,"
                 " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
                 "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(-9223372036854775808,"
                 " 9223372036854775807, 1, 1, 1);", &n);
    set = td_traceset_new();
    t = td_traceset_add(set, "huge.db");
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "huge.db", db, n, &e), TD_E_FORMAT);
    CHECK(strstr(e.msg, "huge.db: table CUPTI_ACTIVITY_KIND_RUNTIME: start") != NULL);
    td_traceset_free(set);
    sqlite3_free(db);

    /* An SQLite file that is not an nsys export */
    db = make_db("CREATE TABLE x(a);", &n);
    set = td_traceset_new();
    t = td_traceset_add(set, "other.db");
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "other.db", db, n, &e), TD_E_FORMAT);
    CHECK(strstr(e.msg, "other.db") && strstr(e.msg, "StringIds"));
    td_traceset_free(set);
    sqlite3_free(db);

    /* A view named like a table is not read (untrusted schema) */
    db = make_db("CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
                 "CREATE VIEW NVTX_EVENTS AS SELECT 1 AS start, 2 AS end, 59 AS eventType;", &n);
    set = td_traceset_new();
    t = td_traceset_add(set, "view.db");
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "view.db", db, n, &e), TD_OK);
    CHECK_EQ_INT(t->nranges, 0);
    td_traceset_free(set);
    sqlite3_free(db);
}

/* Runtime rows sharing a correlation id, in an order unlike (correlationId, start): the
 * kept row of each id is the earliest start, then the longest, then the lowest thread
 * id, and host threads get their tracks in the order of their first kept row by
 * (correlationId, start), whatever order the rows were stored in. Expectations by hand
 * from the rows below. */
static void runtime_dedup(void)
{
    char sql[4096];
    long long t3 = G(5, 3), t7 = G(5, 7), t9 = G(5, 9);
    snprintf(sql, sizeof sql,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'cudaLaunchKernel'),"
        " (3,'cuMemAlloc');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
        " (500,600,0,%lld,20,2),"   /* cid 20: the only row */
        " (100,200,0,%lld,10,1),"   /* cid 10: loses to the next row, which starts earlier */
        " (90,210,0,%lld,10,2),"
        " (700,650,0,%lld,30,2),"   /* cid 30: ends before it starts, loses to the longer */
        " (700,800,0,%lld,30,2),"
        " (900,950,0,%lld,40,1),"   /* cid 40: same start and length; thread 3 beats 7 */
        " (900,950,0,%lld,40,2),"
        " (1000,990,0,%lld,50,3),"  /* cid 50: kept, ends before it starts: duration 0 */
        " (1100,1200,0,%lld,0,2),(1100,1200,0,%lld,0,2);",   /* no id: both kept */
        t9, t3, t7, t3, t7, t7, t3, t9, t3, t3);
    size_t n;
    unsigned char *db = make_db(sql, &n);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "dedup.sqlite");
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "dedup.sqlite", db, n, &e), TD_OK);
    CHECK_EQ_INT(t->nevents, 10);   /* rows read */
    CHECK_EQ_INT(t->nev, 7);
    /* tracks: thread 3 (the rows without an id come first), 7 (cid 10), 9 (cid 20) */
    CHECK_EQ_INT(t->ntracks, 3);
    static const int64_t want_tid[3] = {3, 7, 9};
    for (size_t i = 0; i < t->ntracks && i < 3; i++)
        CHECK_EQ_INT(t->tracks[i].tid, want_tid[i]);
    /* kept: ts -> (tid, dur, name) */
    static const struct { int64_t ts, tid, dur; const char *name; uint8_t kind; } want[] = {
        {90, 7, 120, "cudaLaunchKernel", TD_K_RUNTIME},
        {500, 9, 100, "cudaLaunchKernel", TD_K_RUNTIME},
        {700, 7, 100, "cudaLaunchKernel", TD_K_RUNTIME},
        {900, 3, 50, "cudaLaunchKernel", TD_K_RUNTIME},
        {1000, 9, 0, "cuMemAlloc", TD_K_DRIVER},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        int found = 0;
        for (size_t i = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if (ev->ts != want[k].ts)
                continue;
            found++;
            CHECK_EQ_INT(t->tracks[ev->track].tid, want[k].tid);
            CHECK_EQ_INT(ev->dur, want[k].dur);
            CHECK_EQ_STR(S(set, ev->name), want[k].name);
            CHECK_EQ_INT(ev->kind, want[k].kind);
        }
        CHECK_EQ_INT(found, 1);
    }
    /* only the kept row that ends before it starts is counted */
    int warned = 0;
    for (size_t i = 0; i < set->warnings.n; i++)
        warned += strstr(set->warnings.msg[i], ": 1 rows end before they start") != NULL;
    CHECK_EQ_INT(warned, 1);
    td_traceset_free(set);
    sqlite3_free(db);
}

/* NVTX rows stored out of time order are taken in time order (the reader reads them as
 * stored, finds the disorder and reads again sorted): nothing from the first reading
 * stays, tracks come in time order (thread 2 at 10 ns before thread 1 at 50 ns), and of
 * a thread's two NVTX names the later one in time wins. By hand from the rows below. */
static void nvtx_unsorted(void)
{
    char sql[2048];
    long long a = G(5, 1), b = G(5, 2);
    snprintf(sql, sizeof sql,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
        " globalTid INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES(50,60,59,'late',%lld),(10,40,59,'early',%lld),"
        " (30,NULL,34,'mark',%lld),(8,NULL,39,'second name',%lld),"
        " (5,NULL,39,'first name',%lld);",
        a, b, b, b, b);
    size_t n;
    unsigned char *db = make_db(sql, &n);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "unsorted.sqlite");
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "unsorted.sqlite", db, n, &e), TD_OK);
    CHECK_EQ_INT(t->nevents, 5);
    CHECK_EQ_INT(t->nev, 3);        /* two range events, one mark */
    CHECK_EQ_INT(t->nranges, 2);
    CHECK_EQ_INT(t->ntracks, 2);
    if (t->ntracks == 2) {
        CHECK_EQ_INT(t->tracks[0].tid, 2);
        CHECK_EQ_INT(t->tracks[1].tid, 1);
        CHECK_EQ_STR(S(set, t->tracks[0].thread_name), "second name");
    }
    td_traceset_free(set);
    sqlite3_free(db);
}

/* Several processes in one report: one trace per process with CUDA/NVTX activity. */
/* An NCCL kernel's collective (td_nccl, apart from its aux record) survives the split of
 * a report into one trace per process; a plain kernel read for the analysis (analysis_only)
 * gets no aux record at all, and one read for export keeps its launch dimensions, each
 * process its own (the first process's trace is the one split: what it is dealt must
 * not land in the arrays being dealt out, nor a memcpy after the last kernel take a
 * kernel's dimensions). 20 collectives a process outgrow the first array's room. */
static void nccl_split(void)
{
    td_buf b = {0};
    td_buf_puts(&b,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'kern'),"
        " (3,'ncclDevKernel_AllGather_RING_LL(ncclDevComm *, unsigned long, ncclWork *)');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
        " gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,"
        " copyKind INTEGER);");
    /* the two processes' rows interleaved: pid 2's first */
    for (int j = 0; j < 20; j++)
        for (int p = 2; p >= 1; p--)
            td_buf_printf(&b,
                "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(%d,%d,0,7,%d,%lld,%d,%d,1,1,%d,1,1);",
                1000 + 100 * j, 1050 + 100 * j, 5 + j, (long long)G(p, 0), j ? 3 : 2,
                j ? 8 * p : 4 * p, j ? 64 : 32 * p);
    for (int p = 1; p <= 2; p++)
        td_buf_printf(&b,
            "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(9000,9100,0,7,0,%lld,%d,1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(100,200,0,%lld,5,1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(300,400,0,%lld,6,1);",
            (long long)G(p, 0), 1000 * p, (long long)G(p, p), (long long)G(p, p));
    size_t n;
    unsigned char *db = make_db(td_buf_cstr(&b), &n);
    td_buf_free(&b);
    for (int no_dims = 0; no_dims <= 1; no_dims++) {
        td_traceset *set = td_traceset_new();
        set->analysis_only = no_dims;
        td_trace *t = td_traceset_add(set, "nccl.sqlite");
        td_err e = {0};
        CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "nccl.sqlite", db, n, &e), TD_OK);
        CHECK_EQ_INT(set->n, 2);
        for (size_t k = 0; k < set->n; k++) {
            const td_trace *d = set->tr[k];
            int p = (int)k + 1, seen = 0, ncoll = 0, ncopy = 0;
            for (size_t i = 0; i < d->nev; i++) {
                const td_event *ev = &d->ev[i];
                const td_nccl *nc = td_aux_nccl(d, ev->aux);
                const td_dims *dm = td_trace_dims(d, ev->aux);
                if (ev->kind == TD_K_MEMCPY) {
                    ncopy++;
                    CHECK(ev->aux != 0 && nc == NULL && dm == NULL);
                    CHECK_EQ_INT(ev->aux ? d->aux[ev->aux].bytes : 0, 1000 * p);
                    continue;
                }
                if (ev->kind != TD_K_KERNEL)
                    continue;
                seen++;
                if (!strncmp(S(set, ev->name), "nccl", 4)) {
                    ncoll++;
                    CHECK(nc != NULL);
                    CHECK_EQ_STR(nc && nc->coll ? S(set, nc->coll) : "", "allgather");
                    CHECK_EQ_INT(nc ? nc->in_nelems : 0, -1);
                    CHECK_EQ_INT(dm ? dm->grid[0] : 0, no_dims ? 0 : 8 * p);
                    CHECK_EQ_INT(dm ? dm->block[0] : 0, no_dims ? 0 : 64);
                } else {
                    CHECK(nc == NULL);
                    CHECK_EQ_INT(ev->aux != 0, !no_dims);
                    CHECK_EQ_INT(dm ? dm->grid[0] : 0, no_dims ? 0 : 4 * p);
                    CHECK_EQ_INT(dm ? dm->block[0] : 0, no_dims ? 0 : 32 * p);
                }
            }
            CHECK_EQ_INT(seen, 20);
            CHECK_EQ_INT(ncoll, 19);
            CHECK_EQ_INT(ncopy, 1);
        }
        td_traceset_free(set);
    }
    sqlite3_free(db);
}

static void multi_process(int with_mpi_names)
{
    td_buf b = {0};
    td_buf_puts(&b,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel_v7000'),(2,'kern'),(3,'poll'),"
        " (10,'MPI Rank 0'),(11,'MPI Rank 1'),(12,'MPI Rank 2');"
        "CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,"
        " gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
        "CREATE TABLE OSRT_API(start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
        " nameId INTEGER);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
        " globalTid INTEGER);");
    /* pids 30, 10, 20 are MPI ranks 2, 0, 1; pid 99 only polls */
    int pids[3] = {30, 10, 20}, ranks[3] = {2, 0, 1};
    for (int i = 0; i < 3; i++) {
        long long gp = G(pids[i], 0), gt = G(pids[i], pids[i] + 1);
        if (with_mpi_names)
            td_buf_printf(&b, "INSERT INTO ThreadNames VALUES(%d,0,%lld);", 10 + ranks[i], gt);
        td_buf_printf(&b,
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(%d,%d,0,7,5,%lld,2,%d,1,1,64,1,1);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(%d,%d,0,%lld,5,1);"
            "INSERT INTO NVTX_EVENTS VALUES(%d,%d,59,'step',%lld);",
            1000 + i, 2000 + i, gp, i + 1, 100 + i, 200 + i, gt, 50, 300, gt);
    }
    td_buf_printf(&b, "INSERT INTO OSRT_API VALUES(0,10,0,%lld,3);", (long long)G(99, 99));
    size_t n;
    unsigned char *db = make_db(td_buf_cstr(&b), &n);
    td_buf_free(&b);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "multi.sqlite");
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "multi.sqlite", db, n, &e), TD_OK);
    CHECK_EQ_INT(set->n, 3);
    /* order: MPI rank order with names, else pid order (10, 20, 30) -> same here */
    int want_pid[3] = {10, 20, 30}, want_grid[3] = {2, 3, 1};
    for (size_t k = 0; k < set->n && k < 3; k++) {
        td_trace *d = set->tr[k];
        CHECK_EQ_INT(d->format, TD_FMT_NSYS_SQLITE);
        CHECK_EQ_INT(d->world_size, 3);
        CHECK_EQ_INT(d->rank, (int)k);
        CHECK_EQ_INT(d->nranges, 1);
        CHECK_EQ_INT(d->ndevices, 1);
        int nk = 0, nr = 0, no = 0;
        int64_t kc = -1, rc = -2;
        for (size_t i = 0; i < d->nev; i++) {
            td_event *ev = &d->ev[i];
            CHECK(ev->track < d->ntracks);
            int64_t pid = d->tracks[ev->track].pid;
            if (ev->kind == TD_K_OTHER) {
                no++;
                CHECK_EQ_INT(pid, 99);
                continue;
            }
            CHECK_EQ_INT(pid, want_pid[k]);
            if (ev->kind == TD_K_KERNEL) {
                nk++;
                kc = ev->corr;
                CHECK(ev->aux > 0 && ev->aux < d->naux);
                /* the launch dimensions follow their kernel into its process's trace */
                const td_dims *dm = td_trace_dims(d, ev->aux);
                CHECK(dm != NULL);
                CHECK_EQ_INT(dm ? dm->block[0] : 0, 64);
                CHECK_EQ_INT(dm ? dm->grid[0] : 0, want_grid[k]);
            }
            if (ev->kind == TD_K_RUNTIME) {
                nr++;
                rc = ev->corr;
            }
        }
        CHECK_EQ_INT(nk, 1);
        CHECK_EQ_INT(nr, 1);
        CHECK_EQ_INT(kc, rc);
        CHECK_EQ_INT(no, k == 0 ? 1 : 0);   /* the OSRT-only process stays with the first */
        if (d->nranges) {
            CHECK_EQ_INT(d->tracks[d->ranges[0].track].pid, want_pid[k]);
            CHECK_EQ_INT(d->ranges[0].num_gpu_ops, 1);
            CHECK_EQ_INT(d->ranges[0].gpu_start, 1000 + want_grid[k] - 1);
        }
    }
    if (set->n == 3) {
        CHECK_EQ_STR(set->tr[1]->path, "multi.sqlite:pid 20");
        CHECK_EQ_STR(set->tr[2]->path, "multi.sqlite:pid 30");
    }
    td_traceset_free(set);
    sqlite3_free(db);
}

/* XLA programs: push/pop ranges in the TSL domain also fill t->compile. */
static void xla_compile(void)
{
    char sql[2048];
    long long g = (long long)G(3, 4);
    snprintf(sql, sizeof sql,
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'XlaCompile:#module=m,program_id=1#');"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, text TEXT,"
        " globalTid INTEGER, textId INTEGER, domainId INTEGER);"
        "INSERT INTO NVTX_EVENTS VALUES(0,NULL,75,'TSL',%lld,NULL,7),"
        " (10,100,59,NULL,%lld,1,7),(20,30,59,'XlaPass:#name=p#',%lld,NULL,7),"
        " (0,200,60,'startend',%lld,NULL,0);", g, g, g, g);
    size_t n;
    unsigned char *db = make_db(sql, &n);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "xla.sqlite");
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, "xla.sqlite", db, n, &e), TD_OK);
    CHECK_EQ_INT(t->nranges, 3);
    CHECK_EQ_INT(t->ncompile, 2);   /* the push/pop ones only */
    if (t->ncompile == 2) {
        CHECK_EQ_STR(S(set, t->compile[0].name), "TSL:XlaCompile:#module=m,program_id=1#");
        CHECK_EQ_STR(S(set, t->compile[1].name), "TSL:XlaPass:#name=p#");
        CHECK_EQ_INT(t->compile[1].level, 1);
        CHECK_EQ_INT(t->compile[1].parent_id, t->compile[0].range_id);
        CHECK_EQ_INT(t->compile[0].num_child, 1);
    }
    td_traceset_free(set);
    sqlite3_free(db);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc((size_t)sz + 1);
    *n = fread(p, 1, (size_t)sz, f);
    fclose(f);
    return p;
}

static td_status read_copy(const unsigned char *p, size_t n, td_err *e, td_traceset **out)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "bad.sqlite");
    /* an exact-size heap copy so that ASan sees any read past the end */
    unsigned char *c = malloc(n ? n : 1);
    memcpy(c, p, n);
    td_status s = td_read_nsys_sqlite(set, t, "bad.sqlite", c, n, e);
    free(c);
    if (out)
        *out = set;
    else
        td_traceset_free(set);
    return s;
}

/* Every range and its projection as tests/data/nsys/nsys_expect.py computes them from
 * the raw tables (python3 sqlite3, independent of this reader). */
static void nvtx_vs_python(td_traceset *set, td_trace *t, const char *path)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/data/nsys/nsys_expect.py nvtx '%s'", path);
    FILE *f = popen(cmd, "r");
    if (!f) {
        fprintf(stderr, "python3 not available: NVTX comparison skipped\n");
        return;
    }
    char line[4096];
    size_t i = 0;
    while (fgets(line, sizeof line, f)) {
        char name[2048];
        long long v[8];
        if (sscanf(line, "%2047[^\t]\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld", name,
                   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9) {
            CHECK(!"bad line from nsys_expect.py");
            break;
        }
        CHECK(i < t->nranges);
        if (i >= t->nranges)
            break;
        const td_range *g = &t->ranges[i++];
        CHECK_EQ_STR(S(set, g->name), name);
        CHECK_EQ_INT(g->start, v[0]);
        CHECK_EQ_INT(g->end, v[1]);
        CHECK_EQ_INT(g->gpu_start, v[2]);
        CHECK_EQ_INT(g->gpu_end, v[3]);
        CHECK_EQ_INT(g->num_gpu_ops, v[4]);
        CHECK_EQ_INT(g->device, v[5]);
        CHECK_EQ_INT(g->level, v[6]);
        CHECK_EQ_INT(g->num_child, v[7]);
    }
    CHECK_EQ_INT(pclose(f), 0);
    CHECK_EQ_INT(i, t->nranges);
}

/* Random NVTX/CUDA layouts (tests/data/nsys/nsys_expect.py synth_nvtx): every range's
 * projection, level and child count equal the independent python computation. */
static void random_nvtx(int seed)
{
    char path[] = "/tmp/td-nsys-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        CHECK(!"mkstemp");
        return;
    }
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 tests/data/nsys/nsys_expect.py synth_nvtx '%s' %d", path, seed);
    if (system(cmd) != 0) {
        fprintf(stderr, "python3 synth_nvtx failed: random NVTX check skipped\n");
        unlink(path);
        return;
    }
    size_t n;
    unsigned char *p = slurp(path, &n);
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, path);
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, path, p, n, &e), TD_OK);
    CHECK(t->nranges > 100);
    nvtx_vs_python(set, t, path);
    td_traceset_free(set);
    free(p);
    unlink(path);
}

static void sample(const char *path)
{
    size_t n;
    unsigned char *p = slurp(path, &n);
    if (!p) {
        fprintf(stderr, "sample %s not found: skipped\n", path);
        return;
    }
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, path);
    td_err e = {0};
    CHECK_EQ_INT(td_read_nsys_sqlite(set, t, path, p, n, &e), TD_OK);
    /* rows: 5 kernels + 15 memcpy + 95 runtime + 24 NVTX */
    CHECK_EQ_INT(t->nevents, 139);
    int nk = 0, nm = 0, nrt = 0, nr = 0;
    int64_t ktotal = 0;
    for (size_t i = 0; i < t->nev; i++) {
        td_event *ev = &t->ev[i];
        if (ev->kind == TD_K_KERNEL) {
            nk++;
            ktotal += ev->dur;
            CHECK_EQ_STR(S(set, ev->name), "saxpy(double *, double *, double *, double, int)");
            const td_dims *dm = td_trace_dims(t, ev->aux);
            CHECK(dm != NULL);
            CHECK_EQ_INT(dm ? dm->grid[0] : 0, 2);
            CHECK_EQ_INT(dm ? dm->block[0] : 0, 512);
            /* the launching call: same corr on the host thread, named cudaLaunchKernel */
            int found = 0;
            for (size_t j = 0; j < t->nev; j++)
                if (t->ev[j].kind == TD_K_RUNTIME && t->ev[j].corr == ev->corr) {
                    found++;
                    CHECK_EQ_STR(S(set, t->ev[j].name), "cudaLaunchKernel");
                }
            CHECK_EQ_INT(found, 1);
        }
        if (ev->kind == TD_K_MEMCPY) {
            nm++;
            CHECK_EQ_INT(t->aux[ev->aux].bytes, 262144000);
        }
        nrt += ev->kind == TD_K_RUNTIME || ev->kind == TD_K_DRIVER;
        nr += ev->kind == TD_K_RANGE;
    }
    CHECK_EQ_INT(nk, 5);
    /* select sum(end-start) from CUPTI_ACTIVITY_KIND_KERNEL */
    CHECK_EQ_INT(ktotal, 88573480);
    CHECK_EQ_INT(nm, 15);
    CHECK_EQ_INT(nrt, 57);   /* select count(distinct correlationId) from ..._RUNTIME */
    CHECK_EQ_INT(nr, 22);
    CHECK_EQ_INT(t->nranges, 22);
    CHECK_EQ_INT(t->ndevices, 1);
    CHECK_EQ_STR(S(set, t->devices[0].name), "NVIDIA A100-SXM4-40GB");
    CHECK_EQ_INT(t->devices[0].total_mem, 42297524224LL);
    CHECK_EQ_INT(t->devices[0].num_sms, 108);
    CHECK_EQ_INT(t->base_time_ns, 1687813257637297504LL);
    int host = 0;
    for (size_t i = 0; i < t->ntracks; i++) {
        td_track *k = &t->tracks[i];
        CHECK_EQ_INT(k->pid, 1230493);
        CHECK_EQ_STR(S(set, k->process_name), "./saxpy-mpi-cuda");
        if (k->device < 0) {
            host++;
            CHECK_EQ_INT(k->tid, 1230493);
            CHECK_EQ_STR(S(set, k->thread_name), "MPI Rank 0");
        } else {
            CHECK_EQ_INT(k->stream, 7);
        }
    }
    CHECK_EQ_INT(host, 1);
    CHECK_EQ_INT(t->ntracks, 2);
    const td_range *init = range_named(set, t, "MPI:MPI_Init");
    CHECK(init != NULL);
    if (init)
        CHECK_EQ_INT(init->gpu_start, -1);
    /* first saxpy range 924881857-924940911 holds cudaLaunchKernel -> kernel
     * 924922186-942626994 */
    int nsax = 0;
    for (size_t i = 0; i < t->nranges; i++) {
        const td_range *g = &t->ranges[i];
        if (strcmp(S(set, g->name), "saxpy") == 0) {
            nsax++;
            CHECK_EQ_INT(g->num_gpu_ops, 1);
            CHECK_EQ_INT(g->device, 0);
            if (g->start == 924881857) {
                CHECK_EQ_INT(g->gpu_start, 924922186);
                CHECK_EQ_INT(g->gpu_end, 942626994);
            }
        }
    }
    CHECK_EQ_INT(nsax, 5);
    nvtx_vs_python(set, t, path);
    td_traceset_free(set);

    /* a file left in WAL mode reads the same */
    {
        unsigned char *q = malloc(n);
        memcpy(q, p, n);
        q[18] = q[19] = 2;
        td_traceset *ws = td_traceset_new();
        td_trace *wt = td_traceset_add(ws, "wal.sqlite");
        CHECK_EQ_INT(td_read_nsys_sqlite(ws, wt, "wal.sqlite", q, n, &e), TD_OK);
        CHECK_EQ_INT(wt->nevents, 139);
        CHECK_EQ_INT(q[18], 2);   /* the caller's bytes are not modified */
        td_traceset_free(ws);
        free(q);
    }
    /* truncated copies: always an error naming the file */
    size_t cuts[] = {0, 15, 99, 100, 1024, 4095, 4096, 4097, n / 2, n - 4096, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        e.code = TD_OK;
        td_status s = read_copy(p, cuts[i], &e, NULL);
        CHECK_EQ_INT(s, TD_E_FORMAT);
        CHECK(strstr(e.msg, "bad.sqlite") != NULL);
    }
    /* header damage */
    size_t hdr[] = {0, 16, 17, 18, 21, 28, 31, 44, 56, 96};
    for (size_t i = 0; i < sizeof hdr / sizeof hdr[0]; i++) {
        unsigned char save = p[hdr[i]];
        p[hdr[i]] ^= 0x5a;
        e.code = TD_OK;
        td_status s = read_copy(p, n, &e, NULL);
        CHECK(s == TD_OK || s == TD_E_FORMAT);
        if (s != TD_OK)
            CHECK(strstr(e.msg, "bad.sqlite") != NULL);
        p[hdr[i]] = save;
    }
    /* page damage: every error names the file; successes are allowed (data bytes) */
    unsigned seed = 12345;
    int errors = 0;
    for (int i = 0; i < 60; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t off = 100 + (seed >> 4) % (n - 100);
        unsigned char save[8];
        memcpy(save, p + off, off + 8 <= n ? 8 : n - off);
        for (size_t j = 0; j < 8 && off + j < n; j++)
            p[off + j] ^= (unsigned char)(0xff >> (j % 3));
        e.code = TD_OK;
        td_status s = read_copy(p, n, &e, NULL);
        CHECK(s == TD_OK || s == TD_E_FORMAT);
        if (s != TD_OK) {
            errors++;
            CHECK(strstr(e.msg, "bad.sqlite") != NULL);
        }
        memcpy(p + off, save, off + 8 <= n ? 8 : n - off);
    }
    /* a whole zeroed page in the middle of the schema or data */
    for (size_t pg = 1; pg < 6; pg++) {
        unsigned char *q = malloc(n);
        memcpy(q, p, n);
        memset(q + pg * 4096, 0, 4096);
        td_status s = read_copy(q, n, &e, NULL);
        CHECK(s == TD_OK || s == TD_E_FORMAT);
        free(q);
    }
    fprintf(stderr, "page damage: %d of 60 reads failed cleanly\n", errors);
    free(p);
}

int main(void)
{
    synthetic();
    runtime_dedup();
    nvtx_unsorted();
    multi_process(1);
    nccl_split();
    multi_process(0);
    xla_compile();
    for (int seed = 1; seed <= 3; seed++)
        random_nvtx(seed);
    const char *tr = getenv("TRACES");
    char path[4096];
    snprintf(path, sizeof path, "%s/nsys/pipit_saxpy_mpi_cuda_a100.sqlite",
             tr && *tr ? tr : "../shared/traces");
    sample(path);
    return UNIT_DONE();
}
