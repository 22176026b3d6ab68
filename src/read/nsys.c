/* read/nsys.c - Nsight Systems SQLite export reader (`nsys export --type sqlite`).
 *
 * A file on disk is opened by SQLite itself (read-only, `immutable=1`: no lock, journal
 * or temporary file next to the input), so memory holds the rows kept and SQLite's page
 * cache, not the file; stdin, gzip, archive members and WAL-mode files are read whole
 * and opened from memory with sqlite3_deserialize (read-only). The connection is used
 * by this thread only: opened NOMUTEX, every sqlite3_column_* call skips the
 * connection's mutex (it was 6% of reading a 1.8 M-row export).
 * Tables and columns differ between nsys versions, so every query is built from what
 * sqlite_master and pragma_table_info report; an absent table is normal, not an error.
 * Facts used are in formats.md section 3.
 *
 * What is read: StringIds, ThreadNames, PROCESSES, TARGET_INFO_GPU,
 * TARGET_INFO_SESSION_START_TIME, CUPTI_ACTIVITY_KIND_{KERNEL,MEMCPY,MEMSET,RUNTIME},
 * NVTX_EVENTS, OSRT_API, CUDA_GPU_MEMORY_USAGE_EVENTS (device memory allocations and
 * frees, kept as td_mem like torch's [memory] events, nsys_gpu.c). Device work goes on one track per (process, device, stream);
 * host calls on one track per (process, thread). Runtime rows that share a correlation
 * id within a process (cudaLaunchKernel + cudaLaunchKernel_v7000) are reduced to the
 * outermost one, and td_event.corr = pid << 32 | correlationId on both sides. NVTX
 * push/pop and start/end ranges become td_range with their GPU projection (push/pop
 * ones also TD_K_RANGE events, and t->compile for XLA programs); marks are instants.
 *
 * Kinds and categories as Kineto names them: kernel, gpu_memcpy, gpu_memset,
 * cuda_runtime, cuda_driver (cu* calls), nvtx, osrt (TD_K_OTHER).
 * A report with several processes that use CUDA or NVTX is split into one trace per
 * process (see nsys_split.c). t->nevents counts the rows read (for a split report:
 * the events each trace holds).
 *
 * This file opens the export, checks it and runs the steps, which live in nsys_*.c
 * beside it (read/nsys_int.h says which file holds what). */
#include "read/nsys_int.h"

/* Check the 100-byte SQLite header before handing the bytes to SQLite, so that a
 * truncated file is an error naming the byte offset rather than silently missing rows
 * (SQLite reads a short page as zeros). */
static td_status check_header(const char *name, const unsigned char *p, size_t n, td_err *e)
{
    if (n < 100 || memcmp(p, "SQLite format 3", 16) != 0)
        return td_fail(e, TD_E_FORMAT, "%s: byte 0: expected the SQLite 3 header "
                       "\"SQLite format 3\"", name);
    uint32_t ps = (uint32_t)p[16] << 8 | p[17];
    if (ps == 1)
        ps = 65536;
    if (ps < 512 || (ps & (ps - 1)))
        return td_fail(e, TD_E_FORMAT, "%s: byte 16: invalid SQLite page size %u", name, ps);
    if (n % ps)
        return td_fail(e, TD_E_FORMAT, "%s: byte %zu: truncated SQLite database (size is not "
                       "a multiple of the %u-byte page size)", name, n, ps);
    uint32_t npages = (uint32_t)p[28] << 24 | (uint32_t)p[29] << 16 | (uint32_t)p[30] << 8 | p[31];
    uint32_t change = (uint32_t)p[24] << 24 | (uint32_t)p[25] << 16 | (uint32_t)p[26] << 8 | p[27];
    uint32_t valid = (uint32_t)p[92] << 24 | (uint32_t)p[93] << 16 | (uint32_t)p[94] << 8 | p[95];
    if (npages && change == valid && (uint64_t)npages * ps > n)
        return td_fail(e, TD_E_FORMAT, "%s: byte %zu: truncated SQLite database (header says "
                       "%u pages = %" PRIu64 " bytes)", name, n, npages, (uint64_t)npages * ps);
    return TD_OK;
}

static td_status read_all(rd *r)
{
    td_status s;
    /* Room for every event up front: each row of these tables makes one event at most,
     * and reserving address space costs no memory until it is written; growing the array
     * table by table copied it (a 1.15 GB export has 16 M events, 640 MB). */
    static const char *const tabs[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
        "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS"};
    size_t hint = 0;
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
        hint += td_nsys_rows_hint(r, tabs[i]);
    ev_reserve(r, hint);
    if ((s = td_nsys_read_strings(r)) != TD_OK || (s = td_nsys_read_names(r)) != TD_OK ||
        (s = td_nsys_read_devices(r)) != TD_OK ||
        (s = td_nsys_read_device_table(r, K_KERNEL)) != TD_OK ||
        (s = td_nsys_read_device_table(r, K_MEMCPY)) != TD_OK ||
        (s = td_nsys_read_device_table(r, K_MEMSET)) != TD_OK ||
        (s = td_nsys_read_runtime(r)) != TD_OK || (s = td_nsys_read_memory(r)) != TD_OK ||
        (s = td_nsys_read_osrt(r)) != TD_OK ||
        (s = td_nsys_read_nvtx(r)) != TD_OK || (s = td_nsys_project_ranges(r)) != TD_OK)
        return s;
    td_nsys_runtime_finish(r);
    /* every export's trace has the nvtx category, NVTX_EVENTS or not */
    td_trace_cat(r->t, td_intern_cstr(r->set->strs, "nvtx"));
    /* devices seen in the work but absent from TARGET_INFO_GPU */
    for (size_t i = 0; i < r->t->ntracks; i++)
        if (r->t->tracks[i].device >= 0)
            td_trace_device(r->t, r->t->tracks[i].device);
    td_nsys_name_tracks(r);
    td_nsys_split_processes(r);
    return TD_OK;
}

/* The file is untrusted: no schema-defined functions or views with side effects, no
 * writes. Called before the first statement reads the schema. */
static void harden(sqlite3 *db)
{
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
}

/* Read the opened database and free what rd holds. */
static td_status run(rd *r, td_status s)
{
    if (s != TD_OK)
        ;
    else if (sqlite3_exec(r->db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL) != SQLITE_OK)
        s = td_nsys_sqlfail(r, "open");
    else
        s = read_all(r);
    sqlite3_close(r->db);
    if (s == TD_OK) {
        r->t->format = TD_FMT_NSYS_SQLITE;
        if (r->clamped)
            td_warn(&r->set->warnings, "%s: %" PRIu64 " rows end before they start; duration "
                    "set to 0", r->name, r->clamped);
        if (r->unended)
            td_warn(&r->set->warnings, "%s: %" PRIu64 " NVTX ranges have no end; skipped",
                    r->name, r->unended);
    }
    free(r->sid);
    free(r->dom);
    free(r->thr);
    free(r->proc);
    free(r->ops);
    free(r->rh);
    free(r->rth);
    free(r->rth_h);
    free(r->tk);
    return s;
}

td_status td_read_nsys_sqlite(td_traceset *set, td_trace *t, const char *name,
                              const void *data, size_t n, td_err *e)
{
    td_status s = check_header(name, data, n, e);
    if (s != TD_OK)
        return s;
    s = td_sqlite_load(name, e);
    if (s != TD_OK)
        return s;
    rd r = {.set = set, .t = t, .name = name, .e = e};
    if (sqlite3_open_v2(":memory:", &r.db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        sqlite3_close(r.db);
        return td_fail(e, TD_E_NOMEM, "%s: cannot open an in-memory SQLite database", name);
    }
    harden(r.db);
    /* READONLY means SQLite never writes into the buffer, so the caller's (const)
     * bytes are used in place instead of being copied. */
    unsigned char *bytes = (unsigned char *)(uintptr_t)data;
    unsigned flags = SQLITE_DESERIALIZE_READONLY;
    if (bytes[18] == 2 || bytes[19] == 2) {
        /* A file left in WAL mode (someone opened the export with journal_mode=WAL):
         * the in-memory VFS cannot do WAL, and without the -wal file the main file
         * holds everything there is; read a copy marked as a rollback-journal file. */
        unsigned char *c = sqlite3_malloc64(n);
        if (!c) {
            sqlite3_close(r.db);
            return td_fail(e, TD_E_NOMEM, "%s: out of memory", name);
        }
        memcpy(c, data, n);
        c[18] = c[19] = 1;
        bytes = c;
        flags |= SQLITE_DESERIALIZE_FREEONCLOSE;
    }
    int rc = sqlite3_deserialize(r.db, "main", bytes, (sqlite3_int64)n, (sqlite3_int64)n,
                                 flags);
    return run(&r, rc != SQLITE_OK ? td_nsys_sqlfail(&r, "open") : TD_OK);
}

int td_nsys_file_ok(const unsigned char *head, size_t n)
{
    /* WAL (bytes 18, 19 = 2) needs the -wal and -shm files: read such a file whole */
    return n >= 100 && head[18] == 1 && head[19] == 1;
}

td_status td_read_nsys_sqlite_file(td_traceset *set, td_trace *t, const char *name,
                                   const char *path, const unsigned char *head, uint64_t size,
                                   td_err *e)
{
    td_status s = check_header(name, head, (size_t)size, e);
    if (s != TD_OK)
        return s;
    s = td_sqlite_load(name, e);
    if (s != TD_OK)
        return s;
    /* file:PATH?immutable=1: read-only, no locks, no journal looked for or created next
     * to the input; the path percent-escaped for the URI */
    td_buf u = {0};
    td_buf_puts(&u, "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._-~", *p))
            td_buf_putc(&u, (char)*p);
        else
            td_buf_printf(&u, "%%%02X", *p);
    }
    td_buf_puts(&u, "?immutable=1");
    rd r = {.set = set, .t = t, .name = name, .e = e};
    int rc = sqlite3_open_v2(td_buf_cstr(&u), &r.db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    td_buf_free(&u);
    if (rc == SQLITE_OK)
        harden(r.db);
    return run(&r, rc != SQLITE_OK ? td_nsys_sqlfail(&r, "open") : TD_OK);
}
