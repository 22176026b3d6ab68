/* read/nsys.c - Nsight Systems SQLite export reader (`nsys export --type sqlite`).
 *
 * The database is opened from memory with sqlite3_deserialize (read-only): no temporary
 * file appears next to the input, and stdin or archive members work the same way.
 * Tables and columns differ between nsys versions, so every query is built from what
 * sqlite_master and pragma_table_info report; an absent table is normal, not an error.
 * Facts used are in formats.md section 3.
 *
 * What is read: StringIds, ThreadNames, PROCESSES, TARGET_INFO_GPU,
 * TARGET_INFO_SESSION_START_TIME, CUPTI_ACTIVITY_KIND_{KERNEL,MEMCPY,MEMSET,RUNTIME},
 * NVTX_EVENTS, OSRT_API. Device work goes on one track per (process, device, stream);
 * host calls on one track per (process, thread). Runtime rows that share a correlation
 * id within a process (cudaLaunchKernel + cudaLaunchKernel_v7000) are reduced to the
 * outermost one, and td_event.corr = pid << 32 | correlationId on both sides. NVTX
 * push/pop and start/end ranges become td_range with their GPU projection (push/pop
 * ones also TD_K_RANGE events, and t->compile for XLA programs); marks are instants.
 *
 * Kinds and categories as Kineto names them: kernel, gpu_memcpy, gpu_memset,
 * cuda_runtime, cuda_driver (cu* calls), nvtx, osrt (TD_K_OTHER).
 * A report with several processes that use CUDA or NVTX is split into one trace per
 * process (see split_processes). t->nevents counts the rows read (for a split report:
 * the events each trace holds). */
#include "read/read.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

/* StringIds row: id -> interned value; rt is the value without a "_vNNNN" suffix
 * (runtime API names), computed on first use. */
typedef struct {
    int64_t id;
    td_str s;
    td_str rt;
    uint8_t rt_done;
} strid;

/* Per-thread or per-process name from ThreadNames / PROCESSES / NVTX. */
typedef struct {
    int64_t pid, tid;
    td_str name;
    int64_t prio;   /* several names for one thread: the highest wins */
} tname;

/* A device operation with a correlation id (for the GPU projection). */
typedef struct {
    int64_t corr, start, end;
    int32_t device;
} devop;

/* A kept runtime call (deduplicated) before it becomes an event. */
typedef struct {
    int64_t start, end, pid, tid, corr, cid;
    td_str name;
    uint8_t kind;
} rtcall;

/* A runtime call that launched device work: its track and the work's extent. */
typedef struct {
    uint32_t track;
    int64_t start, end, gmin, gmax;
    int32_t nops, device;
} launch;

/* An NVTX range before nesting. */
typedef struct {
    int64_t start, end;
    td_str name;
    uint32_t track;
    int type;   /* 59 push/pop, 60 start/end */
} nvrange;

typedef struct {
    td_traceset *set;
    td_trace *t;
    const char *name;
    td_err *e;
    sqlite3 *db;
    strid *sid;
    size_t nsid, sid_cap;
    tname *dom;   /* NVTX domains: pid = domainId */
    size_t ndom, dom_cap;
    tname *thr;   /* thread names (ThreadNames, then NVTX thread names) */
    size_t nthr, thr_cap;
    tname *proc;  /* process names */
    size_t nproc, proc_cap;
    devop *ops;
    size_t nops, ops_cap;
    rtcall *rt;
    size_t nrt, rt_cap;
    nvrange *nv;
    size_t nnv, nv_cap;
    uint32_t *tk;       /* (pid, tid) -> track + 1, open addressing; 0 = empty slot */
    size_t tk_cap;
    uint64_t clamped;   /* rows with end < start */
    uint64_t unended;   /* NVTX ranges without an end */
} rd;

#define PID_OF(g) (((g) / 0x1000000) % 0x1000000)
#define TID_OF(g) ((g) % 0x1000000)

static td_status sqlfail(rd *r, const char *what)
{
    return td_fail(r->e, TD_E_FORMAT, "%s: invalid Nsight Systems SQLite database (%s): %s",
                   r->name, what, sqlite3_errmsg(r->db));
}

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

/* ---- small query helpers ---- */

/* qsort without the undefined behaviour of a NULL base for empty arrays */
static void sort(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(p, n, size, cmp);
}

static int64_t col_i64(sqlite3_stmt *st, int i, int64_t def)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? def : sqlite3_column_int64(st, i);
}

static int col_null(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL;
}

/* Which of cols[] exist in table tab (bit i set); *present = 0 when the table is absent.
 * Only ordinary tables count: a view or virtual table of that name in an untrusted file
 * is ignored (it could run code paths we do not need). */
static td_status table_cols(rd *r, const char *tab, const char *const *cols, int ncols,
                            uint32_t *mask, int *present)
{
    sqlite3_stmt *st = NULL;
    *mask = 0;
    *present = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1 "
                           "AND sql LIKE 'CREATE TABLE%'",
                           -1, &st, NULL) != SQLITE_OK)
        return sqlfail(r, "sqlite_master");
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return TD_OK;
    if (rc != SQLITE_ROW)
        return sqlfail(r, "sqlite_master");
    *present = 1;
    if (sqlite3_prepare_v2(r->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL) !=
        SQLITE_OK)
        return sqlfail(r, tab);
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; c && i < ncols; i++)
            if (strcmp(c, cols[i]) == 0)
                *mask |= 1u << i;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sqlfail(r, tab);
    return TD_OK;
}

/* Prepare "SELECT c0, c1, ... FROM tab [tail]" with NULL for absent columns.
 * *st = NULL (and TD_OK) when the table is absent or lacks a column in `need`. */
static td_status select_cols(rd *r, const char *tab, const char *const *cols, int ncols,
                             uint32_t need, const char *tail, sqlite3_stmt **st)
{
    uint32_t mask;
    int present;
    *st = NULL;
    td_status s = table_cols(r, tab, cols, ncols, &mask, &present);
    if (s != TD_OK || !present)
        return s;
    if ((mask & need) != need) {
        td_warn(&r->set->warnings, "%s: table %s lacks expected columns; skipped", r->name, tab);
        return TD_OK;
    }
    td_buf b = {0};
    td_buf_puts(&b, "SELECT ");
    for (int i = 0; i < ncols; i++) {
        if (i)
            td_buf_puts(&b, ", ");
        if (mask & (1u << i))
            td_buf_printf(&b, "\"%s\"", cols[i]);
        else
            td_buf_puts(&b, "NULL");
    }
    td_buf_printf(&b, " FROM \"%s\" %s", tab, tail ? tail : "");
    int rc = sqlite3_prepare_v2(r->db, td_buf_cstr(&b), -1, st, NULL);
    td_buf_free(&b);
    if (rc != SQLITE_OK) {
        *st = NULL;
        return sqlfail(r, tab);
    }
    return TD_OK;
}

/* Event rows must have start/end (columns 0 and 1) within +-2^61 ns (73 years), so
 * that differences and sums downstream cannot overflow; anything else is corrupt. */
#define TIME_LIMIT ((int64_t)1 << 61)

static int bad_col(sqlite3_stmt *st)
{
    for (int i = 0; i < 2; i++) {
        int64_t v = col_i64(st, i, 0);
        if (v < -TIME_LIMIT || v > TIME_LIMIT)
            return i;
    }
    return -1;
}

static int times_ok(sqlite3_stmt *st)
{
    return bad_col(st) < 0;
}

static td_status bad_time(rd *r, sqlite3_stmt *st, const char *tab)
{
    int c = bad_col(st);
    td_status s = td_fail(r->e, TD_E_FORMAT, "%s: table %s: %s %lld out of range", r->name,
                          tab, c ? "end" : "start", (long long)col_i64(st, c, 0));
    sqlite3_finalize(st);
    return s;
}

/* Finish a row loop: rc is the last sqlite3_step result. */
static td_status done(rd *r, sqlite3_stmt *st, int rc, const char *tab)
{
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TD_OK : sqlfail(r, tab);
}

static td_str intern_col(rd *r, sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    if (!s)
        return 0;
    return td_intern(r->set->strs, s, (size_t)sqlite3_column_bytes(st, i));
}

/* ---- StringIds ---- */

static strid *sid_find(rd *r, int64_t id)
{
    if (id >= 0 && (uint64_t)id < r->nsid && r->sid[id].id == id)
        return &r->sid[id];   /* ids are usually dense from 0 */
    size_t lo = 0, hi = r->nsid;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (r->sid[m].id < id)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < r->nsid && r->sid[lo].id == id ? &r->sid[lo] : NULL;
}

static td_str sid_str(rd *r, sqlite3_stmt *st, int i)
{
    if (col_null(st, i))
        return 0;
    strid *x = sid_find(r, sqlite3_column_int64(st, i));
    return x ? x->s : 0;
}

/* Runtime API name without the "_vNNNN" version suffix nsys keeps from CUPTI
 * (cudaLaunchKernel_v7000 -> cudaLaunchKernel), as nsys's own reports show them. */
static td_str sid_rt(rd *r, sqlite3_stmt *st, int i)
{
    if (col_null(st, i))
        return 0;
    strid *x = sid_find(r, sqlite3_column_int64(st, i));
    if (!x)
        return 0;
    if (!x->rt_done) {
        const char *s = td_strget(r->set->strs, x->s);
        size_t n = td_strlen_of(r->set->strs, x->s), k = n;
        while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
            k--;
        if (k < n && k >= 3 && s[k - 1] == 'v' && s[k - 2] == '_')
            x->rt = td_intern(r->set->strs, s, k - 2);
        else
            x->rt = x->s;
        x->rt_done = 1;
    }
    return x->rt;
}

static td_status read_strings(rd *r)
{
    static const char *const c[] = {"id", "value"};
    sqlite3_stmt *st;
    td_status s = select_cols(r, "StringIds", c, 2, 3, "ORDER BY id", &st);
    if (s != TD_OK)
        return s;
    if (!st)   /* every nsys export has it; another SQLite file is not a trace */
        return td_fail(r->e, TD_E_FORMAT, "%s: SQLite database without a StringIds table: "
                       "not an Nsight Systems export", r->name);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        strid *x = TD_PUSH(r->sid, r->nsid, r->sid_cap);
        x->id = col_i64(st, 0, -1);
        x->s = intern_col(r, st, 1);
        x->rt = 0;
        x->rt_done = 0;
    }
    return done(r, st, rc, "StringIds");
}

/* ---- names ---- */

static void name_set(tname **a, size_t *n, size_t *cap, int64_t pid, int64_t tid, td_str s)
{
    for (size_t i = 0; i < *n; i++)
        if ((*a)[i].pid == pid && (*a)[i].tid == tid) {
            (*a)[i].name = s;
            return;
        }
    tname *x = TD_PUSH(*a, *n, *cap);
    x->pid = pid;
    x->tid = tid;
    x->name = s;
    x->prio = 0;
}

static td_str name_get(const tname *a, size_t n, int64_t pid, int64_t tid)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].pid == pid && a[i].tid == tid)
            return a[i].name;
    return 0;
}

static int cmp_tname(const void *x, const void *y)
{
    const tname *a = x, *b = y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Sort by (pid, tid) and keep the highest-priority name of each. */
static int cmp_tname_prio(const void *x, const void *y)
{
    const tname *a = x, *b = y;
    int c = cmp_tname(x, y);
    if (c)
        return c;
    return a->prio > b->prio ? -1 : a->prio < b->prio;
}

static size_t names_index(tname *a, size_t n)
{
    sort(a, n, sizeof *a, cmp_tname_prio);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || cmp_tname(&a[m - 1], &a[i]))
            a[m++] = a[i];
    return m;
}

/* Sorted lookup for the (possibly long) thread and process lists. */
static td_str name_find(const tname *a, size_t n, int64_t pid, int64_t tid)
{
    if (!n)
        return 0;
    tname key = {pid, tid, 0, 0};
    const tname *x = bsearch(&key, a, n, sizeof *a, cmp_tname);
    return x ? x->name : 0;
}

static td_status read_names(rd *r)
{
    static const char *const tc[] = {"nameId", "globalTid", "priority"};
    sqlite3_stmt *st;
    int rc;
    td_status s = select_cols(r, "ThreadNames", tc, 3, 3, "ORDER BY rowid", &st);
    if (s != TD_OK)
        return s;
    if (st) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t g = col_i64(st, 1, 0);
            tname *x = TD_PUSH(r->thr, r->nthr, r->thr_cap);
            x->pid = PID_OF(g);
            x->tid = TID_OF(g);
            x->name = sid_str(r, st, 0);
            x->prio = col_i64(st, 2, 0);
        }
        if ((s = done(r, st, rc, "ThreadNames")) != TD_OK)
            return s;
    }
    static const char *const pc[] = {"globalPid", "pid", "name"};
    s = select_cols(r, "PROCESSES", pc, 3, 4, NULL, &st);
    if (s != TD_OK)
        return s;
    if (st) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            tname *x = TD_PUSH(r->proc, r->nproc, r->proc_cap);
            x->pid = col_null(st, 0) ? col_i64(st, 1, 0) : PID_OF(col_i64(st, 0, 0));
            x->tid = 0;
            x->name = intern_col(r, st, 2);
            x->prio = 0;
        }
        if ((s = done(r, st, rc, "PROCESSES")) != TD_OK)
            return s;
    }
    return TD_OK;
}

/* ---- devices and session ---- */

static td_status read_devices(rd *r)
{
    static const char *const c[] = {"id", "name", "totalMemory", "smCount", "cuDevice"};
    sqlite3_stmt *st;
    td_status s = select_cols(r, "TARGET_INFO_GPU", c, 5, 0, "ORDER BY rowid", &st);
    if (s != TD_OK || !st)
        return s;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* CUPTI's deviceId is the CUDA ordinal, which TARGET_INFO_GPU keeps as cuDevice;
         * older exports only have id. */
        int64_t id = col_i64(st, 4, col_i64(st, 0, (int64_t)r->t->ndevices));
        td_device *d = td_trace_device(r->t, (int32_t)id);
        d->name = intern_col(r, st, 1);
        d->total_mem = col_i64(st, 2, 0);
        d->num_sms = (int32_t)col_i64(st, 3, 0);
    }
    if ((s = done(r, st, rc, "TARGET_INFO_GPU")) != TD_OK)
        return s;
    static const char *const sc[] = {"utcEpochNs"};
    s = select_cols(r, "TARGET_INFO_SESSION_START_TIME", sc, 1, 1, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    /* nsys times count from the session start; this is its wall clock. */
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        r->t->base_time_ns = col_i64(st, 0, 0);
        rc = SQLITE_DONE;
    }
    return done(r, st, rc, "TARGET_INFO_SESSION_START_TIME");
}

/* Track of (pid, tid) through a hash table: td_trace_track scans linearly, and nsys
 * reports of data-loader-heavy jobs have thousands of threads. */
static uint32_t track_of(rd *r, int64_t pid, int64_t tid)
{
    td_trace *t = r->t;
    if (2 * (t->ntracks + 1) > r->tk_cap) {
        size_t cap = r->tk_cap ? 2 * r->tk_cap : 256;
        while (2 * (t->ntracks + 1) > cap)
            cap *= 2;
        free(r->tk);
        r->tk = td_xcalloc(cap, sizeof *r->tk);
        r->tk_cap = cap;
        for (size_t i = 0; i < t->ntracks; i++) {
            uint64_t h = (uint64_t)t->tracks[i].pid * 0x9e3779b97f4a7c15u ^
                         (uint64_t)t->tracks[i].tid * 0xc2b2ae3d27d4eb4fu;
            size_t j = (size_t)(h >> 20) & (cap - 1);
            while (r->tk[j])
                j = (j + 1) & (cap - 1);
            r->tk[j] = (uint32_t)i + 1;
        }
    }
    uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15u ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4fu;
    size_t j = (size_t)(h >> 20) & (r->tk_cap - 1);
    while (r->tk[j]) {
        td_track *k = &t->tracks[r->tk[j] - 1];
        if (k->pid == pid && k->tid == tid)
            return r->tk[j] - 1;
        j = (j + 1) & (r->tk_cap - 1);
    }
    uint32_t id = td_trace_track(t, pid, tid);   /* not present: appends */
    r->tk[j] = id + 1;
    return id;
}

/* ---- device work ---- */

static uint32_t device_track(rd *r, int64_t pid, int64_t dev, int64_t stream)
{
    /* Device tracks get a negative tid so they never meet a host thread's (pid, tid). */
    int64_t tid = -1 - (int64_t)(((uint64_t)dev & 0xffffffu) << 32 | (uint32_t)stream);
    size_t before = r->t->ntracks;
    uint32_t k = track_of(r, pid, tid);
    if (r->t->ntracks != before) {
        td_track *tr = &r->t->tracks[k];
        tr->device = (int32_t)dev;
        tr->stream = (int32_t)stream;
        char buf[48];
        snprintf(buf, sizeof buf, "Stream %" PRId64, stream);
        tr->thread_name = td_intern_cstr(r->set->strs, buf);
    }
    return k;
}

static int64_t make_corr(int64_t pid, int64_t cid)
{
    return cid ? (int64_t)((uint64_t)pid << 32 | (uint32_t)cid) : 0;
}

static int64_t clamp_dur(rd *r, int64_t start, int64_t end)
{
    if (end < start) {
        r->clamped++;
        return 0;
    }
    return end - start;
}

/* Collective name of an NCCL kernel ("ncclKernel_AllReduce_RING_LL_Sum_float",
 * "ncclDevKernel_AllGather_RING_LL"), lower-cased as Kineto writes it; 0 otherwise. */
static td_str nccl_coll(rd *r, td_str name)
{
    static const char *const k[][2] = {
        {"AllReduce", "allreduce"}, {"AllGather", "allgather"},
        {"ReduceScatter", "reducescatter"}, {"Broadcast", "broadcast"},
        {"SendRecv", "sendrecv"}, {"AllToAll", "alltoall"}, {"Reduce", "reduce"},
    };
    const char *s = td_strget(r->set->strs, name);
    if (strncmp(s, "nccl", 4) != 0)
        return 0;
    const char *u = strchr(s, '_');
    if (!u)
        return 0;
    u++;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strncmp(u, k[i][0], strlen(k[i][0])) == 0)
            return td_intern_cstr(r->set->strs, k[i][1]);
    return 0;
}

enum { K_KERNEL, K_MEMCPY, K_MEMSET };

static const char *copy_kind(int64_t k)
{
    /* CUpti_ActivityMemcpyKind */
    switch (k) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "unknown";
    }
}

static td_status read_device_table(rd *r, int which)
{
    static const char *const kc[] = {"start", "end", "deviceId", "streamId", "correlationId",
        "globalPid", "demangledName", "shortName", "mangledName", "gridX", "gridY", "gridZ",
        "blockX", "blockY", "blockZ"};
    static const char *const mc[] = {"start", "end", "deviceId", "streamId", "correlationId",
        "globalPid", "bytes", "copyKind"};
    static const char *const tabs[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"};
    const char *tab = tabs[which];
    sqlite3_stmt *st;
    td_status s = which == K_KERNEL ? select_cols(r, tab, kc, 15, 3, NULL, &st)
                                    : select_cols(r, tab, mc, which == K_MEMCPY ? 8 : 7, 3,
                                                  NULL, &st);
    if (s != TD_OK || !st)
        return s;
    td_strtab *S = r->set->strs;
    static const char *const catname[] = {"kernel", "gpu_memcpy", "gpu_memset"};
    static const uint8_t kinds[] = {TD_K_KERNEL, TD_K_MEMCPY, TD_K_MEMSET};
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(S, catname[which]));
    td_str memset_name = td_intern_cstr(S, "[CUDA memset]");
    td_str copy_names[11] = {0};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!times_ok(st))
            return bad_time(r, st, tab);
        r->t->nevents++;
        int64_t start = col_i64(st, 0, 0), end = col_i64(st, 1, start);
        int64_t dev = col_i64(st, 2, 0), stream = col_i64(st, 3, 0);
        int64_t pid = PID_OF(col_i64(st, 5, 0));
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = start;
        ev->dur = clamp_dur(r, start, end);
        ev->corr = make_corr(pid, col_i64(st, 4, 0));
        ev->track = device_track(r, pid, dev, stream);
        ev->cat = cat;
        ev->kind = kinds[which];
        ev->ph = 'X';
        td_aux *a;
        ev->aux = td_trace_push_aux(r->t, &a);
        if (which == K_KERNEL) {
            /* nsys's kernel reports name kernels by their demangled name */
            ev->name = sid_str(r, st, 6);
            if (!ev->name)
                ev->name = sid_str(r, st, 7);
            if (!ev->name)
                ev->name = sid_str(r, st, 8);
            for (int i = 0; i < 3; i++) {
                a->grid[i] = (int32_t)col_i64(st, 9 + i, 0);
                a->block[i] = (int32_t)col_i64(st, 12 + i, 0);
            }
            a->coll = nccl_coll(r, ev->name);
        } else if (which == K_MEMCPY) {
            int64_t k = col_i64(st, 7, 0);
            if (k < 0 || k > 10)
                k = 0;
            if (!copy_names[k]) {
                char buf[48];
                snprintf(buf, sizeof buf, "[CUDA memcpy %s]", copy_kind(k));
                copy_names[k] = td_intern_cstr(S, buf);
            }
            ev->name = copy_names[k];
            a->bytes = col_i64(st, 6, -1);
        } else {
            ev->name = memset_name;
            a->bytes = col_i64(st, 6, -1);
        }
        if (ev->corr) {
            devop *o = TD_PUSH(r->ops, r->nops, r->ops_cap);
            o->corr = ev->corr;
            o->start = start;
            o->end = start + ev->dur;
            o->device = (int32_t)dev;
        }
    }
    return done(r, st, rc, tab);
}

/* ---- host calls ---- */

static int cmp_rt(const void *x, const void *y)
{
    const rtcall *a = x, *b = y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->cid != b->cid)
        return a->cid < b->cid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    int64_t da = a->end - a->start, db = b->end - b->start;
    if (da != db)
        return da > db ? -1 : 1;   /* the outermost first */
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static td_status read_runtime(rd *r)
{
    static const char *const c[] = {"start", "end", "globalTid", "correlationId", "nameId"};
    sqlite3_stmt *st;
    td_status s = select_cols(r, "CUPTI_ACTIVITY_KIND_RUNTIME", c, 5, 3, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!times_ok(st))
            return bad_time(r, st, "CUPTI_ACTIVITY_KIND_RUNTIME");
        r->t->nevents++;
        int64_t g = col_i64(st, 2, 0);
        rtcall *x = TD_PUSH(r->rt, r->nrt, r->rt_cap);
        x->start = col_i64(st, 0, 0);
        x->end = col_i64(st, 1, x->start);
        x->pid = PID_OF(g);
        x->tid = TID_OF(g);
        x->cid = col_i64(st, 3, 0);
        x->corr = make_corr(x->pid, x->cid);
        x->name = sid_rt(r, st, 4);
        const char *nm = td_strget(r->set->strs, x->name);
        /* cu* (not cuda*) entries are driver API calls */
        x->kind = nm[0] == 'c' && nm[1] == 'u' && nm[2] >= 'A' && nm[2] <= 'Z'
                      ? TD_K_DRIVER : TD_K_RUNTIME;
    }
    if ((s = done(r, st, rc, "CUPTI_ACTIVITY_KIND_RUNTIME")) != TD_OK)
        return s;
    /* One correlation id can appear on two rows (e.g. cudaLaunchKernel and
     * cudaLaunchKernel_v7000, one inside the other): keep the outermost. */
    sort(r->rt, r->nrt, sizeof *r->rt, cmp_rt);
    uint16_t crt = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_runtime"));
    uint16_t cdrv = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_driver"));
    size_t kept = 0;
    for (size_t i = 0; i < r->nrt; i++) {
        rtcall *x = &r->rt[i];
        if (kept && x->cid && r->rt[kept - 1].cid == x->cid && r->rt[kept - 1].pid == x->pid)
            continue;
        r->rt[kept++] = *x;
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = x->start;
        ev->dur = clamp_dur(r, x->start, x->end);
        ev->corr = x->corr;
        ev->name = x->name;
        ev->track = track_of(r, x->pid, x->tid);
        ev->cat = x->kind == TD_K_DRIVER ? cdrv : crt;
        ev->kind = x->kind;
        ev->ph = 'X';
    }
    r->nrt = kept;
    return TD_OK;
}

static td_status read_osrt(rd *r)
{
    static const char *const c[] = {"start", "end", "globalTid", "nameId"};
    sqlite3_stmt *st;
    td_status s = select_cols(r, "OSRT_API", c, 4, 3, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "osrt"));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!times_ok(st))
            return bad_time(r, st, "OSRT_API");
        r->t->nevents++;
        int64_t g = col_i64(st, 2, 0), start = col_i64(st, 0, 0);
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = start;
        ev->dur = clamp_dur(r, start, col_i64(st, 1, start));
        ev->name = sid_str(r, st, 3);
        ev->track = track_of(r, PID_OF(g), TID_OF(g));
        ev->cat = cat;
        ev->kind = TD_K_OTHER;
        ev->ph = 'X';
    }
    return done(r, st, rc, "OSRT_API");
}

/* ---- NVTX ---- */

enum { NVTX_MARK = 34, NVTX_THREAD_NAME = 39, NVTX_PUSHPOP = 59, NVTX_STARTEND = 60,
       NVTX_DOMAIN_CREATE = 75 };

static td_str nvtx_text(rd *r, sqlite3_stmt *st)
{
    td_str s = intern_col(r, st, 4);
    if (!s)
        s = sid_str(r, st, 7);
    return s;
}

static td_status read_nvtx(rd *r)
{
    static const char *const c[] = {"start", "end", "eventType", "rangeId", "text",
        "globalTid", "endGlobalTid", "textId", "domainId"};
    sqlite3_stmt *st;
    td_status s = select_cols(r, "NVTX_EVENTS", c, 9, 1 | 4, "ORDER BY start", &st);
    if (s != TD_OK || !st)
        return s;
    td_strtab *S = r->set->strs;
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(S, "nvtx"));
    int rc;
    /* Domains are created before use (nsys records nvtxDomainCreate as an event), but
     * collect them first anyway so the order of rows does not matter. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (col_i64(st, 2, 0) == NVTX_DOMAIN_CREATE)
            name_set(&r->dom, &r->ndom, &r->dom_cap, col_i64(st, 8, 0), 0, nvtx_text(r, st));
    }
    if (rc != SQLITE_DONE)
        return done(r, st, rc, "NVTX_EVENTS");
    sqlite3_reset(st);
    td_buf b = {0};
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t type = col_i64(st, 2, 0), g = col_i64(st, 5, 0);
        if (!times_ok(st)) {
            td_buf_free(&b);
            return bad_time(r, st, "NVTX_EVENTS");
        }
        r->t->nevents++;
        if (type != NVTX_MARK && type != NVTX_THREAD_NAME && type != NVTX_PUSHPOP &&
            type != NVTX_STARTEND)
            continue;
        td_str name = nvtx_text(r, st);
        if (type == NVTX_THREAD_NAME) {
            if (name) {
                /* a name the program gave its thread beats the OS one; the last wins */
                tname *x = TD_PUSH(r->thr, r->nthr, r->thr_cap);
                x->pid = PID_OF(g);
                x->tid = TID_OF(g);
                x->name = name;
                x->prio = ((int64_t)1 << 62) + (int64_t)r->nthr;
            }
            continue;
        }
        /* Ranges in a named domain read "Domain:text", as nsys reports write them
         * (e.g. TSL:XlaModule:#...#). */
        int64_t dom = col_i64(st, 8, 0);
        td_str dn = dom ? name_get(r->dom, r->ndom, dom, 0) : 0;
        if (dn) {
            b.n = 0;
            td_buf_printf(&b, "%s:%s", td_strget(S, dn), td_strget(S, name));
            name = td_intern(S, b.p, b.n);
        }
        int64_t start = col_i64(st, 0, 0);
        uint32_t track = track_of(r, PID_OF(g), TID_OF(g));
        if (type == NVTX_MARK) {
            td_event *ev = td_trace_push_event(r->t);
            ev->ts = start;
            ev->name = name;
            ev->track = track;
            ev->cat = cat;
            ev->kind = TD_K_INSTANT;
            ev->ph = 'i';
            continue;
        }
        if (col_null(st, 1)) {
            r->unended++;
            continue;
        }
        nvrange *x = TD_PUSH(r->nv, r->nnv, r->nv_cap);
        x->start = start;
        x->end = start + clamp_dur(r, start, col_i64(st, 1, start));
        x->name = name;
        x->track = track;
        x->type = (int)type;
    }
    td_buf_free(&b);
    return done(r, st, rc, "NVTX_EVENTS");
}

/* ---- GPU projection and nesting of NVTX ranges ---- */

static int cmp_devop(const void *x, const void *y)
{
    const devop *a = x, *b = y;
    if (a->corr != b->corr)
        return a->corr < b->corr ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_launch(const void *x, const void *y)
{
    const launch *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_range(const void *x, const void *y)
{
    const td_range *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;   /* enclosing range first */
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->level < b->level ? -1 : a->level > b->level;   /* level holds the type here */
}

/* (thread, range index) pairs: push/pop ranges grouped by thread for nesting */
typedef struct {
    uint32_t track;
    size_t i;
} tix;

static int cmp_tix(const void *x, const void *y)
{
    const tix *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static td_status project_ranges(rd *r)
{
    td_trace *t = r->t;
    if (!r->nnv)
        return TD_OK;
    /* Runtime calls that launched device work, with that work's extent. */
    sort(r->ops, r->nops, sizeof *r->ops, cmp_devop);
    launch *L = NULL;
    size_t nl = 0, lcap = 0;
    for (size_t i = 0; i < r->nrt; i++) {
        rtcall *x = &r->rt[i];
        if (!x->corr)
            continue;
        size_t lo = 0, hi = r->nops;
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (r->ops[m].corr < x->corr)
                lo = m + 1;
            else
                hi = m;
        }
        if (lo >= r->nops || r->ops[lo].corr != x->corr)
            continue;
        launch *l = TD_PUSH(L, nl, lcap);
        l->track = track_of(r, x->pid, x->tid);
        l->start = x->start;
        l->end = x->end;
        l->gmin = INT64_MAX;
        l->gmax = INT64_MIN;
        l->nops = 0;
        l->device = r->ops[lo].device;   /* ops sorted by start within a corr */
        for (size_t j = lo; j < r->nops && r->ops[j].corr == x->corr; j++) {
            l->nops++;
            if (r->ops[j].start < l->gmin)
                l->gmin = r->ops[j].start;
            if (r->ops[j].end > l->gmax)
                l->gmax = r->ops[j].end;
        }
    }
    sort(L, nl, sizeof *L, cmp_launch);

    for (size_t i = 0; i < r->nnv; i++) {
        nvrange *v = &r->nv[i];
        td_range *g = TD_PUSH(t->ranges, t->nranges, t->ranges_cap);
        memset(g, 0, sizeof *g);
        g->start = v->start;
        g->end = v->end;
        g->name = v->name;
        g->track = v->track;
        g->level = v->type;   /* temporarily, for sorting and nesting below */
        g->gpu_start = -1;
        g->gpu_end = -1;
        g->device = -1;
        /* first launch on this thread starting at or after the range start */
        size_t lo = 0, hi = nl;
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (L[m].track < v->track || (L[m].track == v->track && L[m].start < v->start))
                lo = m + 1;
            else
                hi = m;
        }
        int64_t gmin = INT64_MAX, gmax = INT64_MIN;
        for (size_t j = lo; j < nl && L[j].track == v->track && L[j].start <= v->end; j++) {
            if (L[j].end > v->end)
                continue;   /* only calls fully inside the range count */
            if (L[j].gmin < gmin) {
                gmin = L[j].gmin;
                g->device = L[j].device;
            }
            if (L[j].gmax > gmax)
                gmax = L[j].gmax;
            g->num_gpu_ops += L[j].nops;
        }
        if (g->num_gpu_ops) {
            g->gpu_start = gmin;
            g->gpu_end = gmax;
        }
    }
    free(L);

    /* Ids follow the (start, enclosing first) order. Push/pop ranges nest per thread by
     * containment, so ranges of different domains that interleave stay siblings;
     * start/end ranges may cross threads and overlap freely: level 0, no parent. */
    sort(t->ranges, t->nranges, sizeof *t->ranges, cmp_range);
    tix *idx = td_xmalloc((t->nranges + 1) * sizeof *idx);
    uint8_t *pp = td_xcalloc(t->nranges + 1, 1);   /* push/pop (not start/end) */
    size_t m = 0;
    for (size_t i = 0; i < t->nranges; i++) {
        td_range *g = &t->ranges[i];
        g->range_id = (int64_t)i + 1;
        g->parent_id = -1;
        if (g->level == NVTX_PUSHPOP) {
            idx[m++] = (tix){g->track, i};
            pp[i] = 1;
        }
        g->level = 0;
    }
    /* grouped by thread, each thread's ranges stay in (start, enclosing first) order;
     * then one stack pass per thread */
    sort(idx, m, sizeof *idx, cmp_tix);
    size_t *stack = td_xmalloc((m + 1) * sizeof *stack), depth = 0;
    for (size_t k = 0; k < m; k++) {
        td_range *g = &t->ranges[idx[k].i];
        if (k && idx[k - 1].track != idx[k].track)
            depth = 0;
        while (depth) {
            td_range *p = &t->ranges[stack[depth - 1]];
            if (p->start <= g->start && g->end <= p->end)
                break;
            depth--;
        }
        if (depth) {
            td_range *p = &t->ranges[stack[depth - 1]];
            g->parent_id = p->range_id;
            g->level = p->level + 1;
            p->num_child++;
        }
        stack[depth++] = idx[k].i;
    }
    free(stack);
    /* A JAX/XLA program's push/pop ranges also feed the compile statistics (what the
     * nsys-jax reader gets from its push/pop CSV); other programs have no use for them.
     * Kept in range order. */
    int xla = 0;
    for (size_t k = 0; k < m && !xla; k++)
        xla = strncmp(td_strget(r->set->strs, t->ranges[idx[k].i].name), "TSL:XlaCompile",
                      14) == 0;
    for (size_t i = 0; xla && i < t->nranges; i++)
        if (pp[i])
            *TD_PUSH(t->compile, t->ncompile, t->compile_cap) = t->ranges[i];
    free(pp);
    free(idx);
    return TD_OK;
}

/* Push/pop ranges also become TD_K_RANGE events (CPU flamegraph, time span). */
static void range_events(rd *r)
{
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "nvtx"));
    for (size_t i = 0; i < r->nnv; i++) {
        if (r->nv[i].type != NVTX_PUSHPOP)
            continue;
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = r->nv[i].start;
        ev->dur = r->nv[i].end - r->nv[i].start;
        ev->name = r->nv[i].name;
        ev->track = r->nv[i].track;
        ev->cat = cat;
        ev->kind = TD_K_RANGE;
        ev->ph = 'X';
    }
}

static void name_tracks(rd *r)
{
    r->nthr = names_index(r->thr, r->nthr);
    r->nproc = names_index(r->proc, r->nproc);
    for (size_t i = 0; i < r->t->ntracks; i++) {
        td_track *k = &r->t->tracks[i];
        if (!k->process_name)
            k->process_name = name_find(r->proc, r->nproc, k->pid, 0);
        if (k->device < 0 && !k->thread_name)
            k->thread_name = name_find(r->thr, r->nthr, k->pid, k->tid);
    }
}

/* MPI rank of a process from nsys's MPI tracing thread name "MPI Rank N"; -1 none. */
static int mpi_rank(rd *r, int64_t pid)
{
    for (size_t i = 0; i < r->nthr; i++) {
        if (r->thr[i].pid != pid)
            continue;
        const char *s = td_strget(r->set->strs, r->thr[i].name);
        if (strncmp(s, "MPI Rank ", 9) == 0 && s[9] >= '0' && s[9] <= '9') {
            char *end;
            long v = strtol(s + 9, &end, 10);
            if (!*end && v < 1000000)
                return (int)v;
        }
    }
    return -1;
}

typedef struct {
    int64_t pid;
    int rank;
} proc;

static int cmp_proc(const void *x, const void *y)
{
    const proc *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* One report can hold several processes (`nsys profile mpirun -np 4 ...`). Each process
 * with CUDA or NVTX activity becomes its own trace (one rank), in MPI rank order when
 * every such process has a distinct "MPI Rank N" thread, else in pid order. The first
 * stays in t; the others are appended to the set as "PATH:pid N". Processes with only
 * OS runtime calls stay with the first. */
static void split_processes(rd *r)
{
    td_trace *t = r->t;
    proc *P = NULL;
    size_t np = 0, pcap = 0;
    for (size_t i = 0; i < t->nev; i++) {
        if (t->ev[i].kind == TD_K_OTHER)
            continue;
        int64_t pid = t->tracks[t->ev[i].track].pid;
        size_t k = 0;
        while (k < np && P[k].pid != pid)
            k++;
        if (k == np)
            *TD_PUSH(P, np, pcap) = (proc){pid, 0};
    }
    int distinct = np > 0;
    for (size_t k = 0; k < np; k++) {
        P[k].rank = mpi_rank(r, P[k].pid);
        if (P[k].rank < 0)
            distinct = 0;
        for (size_t j = 0; j < k; j++)
            if (P[j].rank == P[k].rank)
                distinct = 0;
    }
    if (!distinct)
        for (size_t k = 0; k < np; k++)
            P[k].rank = 0;
    sort(P, np, sizeof *P, cmp_proc);
    if (np == 1 && distinct)
        t->rank = P[0].rank;
    if (np < 2) {
        free(P);
        return;
    }
    /* Take t's arrays and deal them out again. */
    td_trace old = *t;
    t->ev = NULL, t->nev = t->ev_cap = 0;
    t->aux = NULL, t->naux = t->aux_cap = 0;
    t->tracks = NULL, t->ntracks = t->tracks_cap = 0;
    t->ranges = NULL, t->nranges = t->ranges_cap = 0;
    t->compile = NULL, t->ncompile = t->compile_cap = 0;
    TD_PUSH(t->aux, t->naux, t->aux_cap);   /* aux id 0 = none */
    memset(&t->aux[0], 0, sizeof t->aux[0]);
    td_trace **dst = td_xcalloc(np, sizeof *dst);
    dst[0] = t;
    for (size_t k = 1; k < np; k++) {
        char *path = td_arena_printf(r->set->arena, "%s:pid %" PRId64, t->path, P[k].pid);
        td_trace *d = td_traceset_add(r->set, path);
        d->format = TD_FMT_NSYS_SQLITE;
        d->gzip = t->gzip;
        d->bytes = t->bytes;
        memcpy(d->sha256, t->sha256, sizeof d->sha256);
        d->base_time_ns = t->base_time_ns;
        d->ncats = 0;
        for (size_t c = 0; c < old.ncats; c++)
            *TD_PUSH(d->cats, d->ncats, d->cats_cap) = old.cats[c];
        for (size_t c = 0; c < old.ndevices; c++)
            *TD_PUSH(d->devices, d->ndevices, d->devices_cap) = old.devices[c];
        dst[k] = d;
    }
    for (size_t k = 0; k < np; k++) {
        dst[k]->world_size = (int)np;
        if (distinct)
            dst[k]->rank = P[k].rank;
        else if (k && t->rank < 0)
            dst[k]->rank = -1;   /* unknown like the first: td_read_finish numbers them */
    }
    /* old track -> (trace, new track) */
    uint32_t *tmap = td_xmalloc((old.ntracks + 1) * sizeof *tmap);
    uint32_t *twho = td_xmalloc((old.ntracks + 1) * sizeof *twho);
    for (size_t i = 0; i < old.ntracks; i++) {
        size_t k = 0;
        while (k < np && P[k].pid != old.tracks[i].pid)
            k++;
        if (k == np)
            k = 0;
        twho[i] = (uint32_t)k;
        tmap[i] = td_trace_track(dst[k], old.tracks[i].pid, old.tracks[i].tid);
        dst[k]->tracks[tmap[i]] = old.tracks[i];
    }
    for (size_t i = 0; i < old.nev; i++) {
        td_trace *d = dst[twho[old.ev[i].track]];
        td_event *ev = td_trace_push_event(d);
        *ev = old.ev[i];
        ev->track = tmap[old.ev[i].track];
        if (ev->aux) {
            td_aux *a;
            ev->aux = td_trace_push_aux(d, &a);
            *a = old.aux[old.ev[i].aux];
        }
    }
    for (size_t i = 0; i < old.nranges; i++) {
        td_trace *d = dst[twho[old.ranges[i].track]];
        td_range *g = TD_PUSH(d->ranges, d->nranges, d->ranges_cap);
        *g = old.ranges[i];
        g->track = tmap[old.ranges[i].track];
    }
    for (size_t i = 0; i < old.ncompile; i++) {
        td_trace *d = dst[twho[old.compile[i].track]];
        td_range *g = TD_PUSH(d->compile, d->ncompile, d->compile_cap);
        *g = old.compile[i];
        g->track = tmap[old.compile[i].track];
    }
    /* rows read are not attributable after deduplication: count what each holds */
    for (size_t k = 0; k < np; k++)
        dst[k]->nevents = dst[k]->nev;
    free(old.ev);
    free(old.aux);
    free(old.tracks);
    free(old.ranges);
    free(old.compile);
    free(tmap);
    free(twho);
    free(dst);
    free(P);
}

static td_status read_all(rd *r)
{
    td_status s;
    if ((s = read_strings(r)) != TD_OK || (s = read_names(r)) != TD_OK ||
        (s = read_devices(r)) != TD_OK || (s = read_device_table(r, K_KERNEL)) != TD_OK ||
        (s = read_device_table(r, K_MEMCPY)) != TD_OK ||
        (s = read_device_table(r, K_MEMSET)) != TD_OK || (s = read_runtime(r)) != TD_OK ||
        (s = read_osrt(r)) != TD_OK || (s = read_nvtx(r)) != TD_OK ||
        (s = project_ranges(r)) != TD_OK)
        return s;
    range_events(r);
    /* devices seen in the work but absent from TARGET_INFO_GPU */
    for (size_t i = 0; i < r->t->ntracks; i++)
        if (r->t->tracks[i].device >= 0)
            td_trace_device(r->t, r->t->tracks[i].device);
    name_tracks(r);
    split_processes(r);
    return TD_OK;
}

td_status td_read_nsys_sqlite(td_traceset *set, td_trace *t, const char *name,
                              const void *data, size_t n, td_err *e)
{
    td_status s = check_header(name, data, n, e);
    if (s != TD_OK)
        return s;
    rd r = {.set = set, .t = t, .name = name, .e = e};
    if (sqlite3_open_v2(":memory:", &r.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        sqlite3_close(r.db);
        return td_fail(e, TD_E_NOMEM, "%s: cannot open an in-memory SQLite database", name);
    }
    /* The file is untrusted: no schema-defined functions or views with side effects,
     * no writes. */
    sqlite3_db_config(r.db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    sqlite3_db_config(r.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
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
    if (rc != SQLITE_OK)
        s = sqlfail(&r, "open");
    else if (sqlite3_exec(r.db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL) != SQLITE_OK)
        s = sqlfail(&r, "open");
    else
        s = read_all(&r);
    sqlite3_close(r.db);
    if (s == TD_OK) {
        t->format = TD_FMT_NSYS_SQLITE;
        if (r.clamped)
            td_warn(&set->warnings, "%s: %" PRIu64 " rows end before they start; duration "
                    "set to 0", name, r.clamped);
        if (r.unended)
            td_warn(&set->warnings, "%s: %" PRIu64 " NVTX ranges have no end; skipped",
                    name, r.unended);
    }
    free(r.sid);
    free(r.dom);
    free(r.thr);
    free(r.proc);
    free(r.ops);
    free(r.rt);
    free(r.nv);
    free(r.tk);
    return s;
}
