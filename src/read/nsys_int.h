/* read/nsys_int.h - shared by the Nsight Systems SQLite reader's files; not exported.
 *
 * read/nsys.c opens the export and runs the steps in order; nsys_db.c holds the query
 * helpers, StringIds, thread/process names, devices and the track table that the row
 * readers use; nsys_gpu.c reads kernel/memcpy/memset rows, nsys_host.c the runtime
 * (deduplicated by correlation id) and OS runtime rows, nsys_nvtx.c the NVTX ranges and
 * their GPU projection, nsys_split.c deals a multi-process report out into one trace per
 * process. The per-row helpers are static inline here so the row loops stay as fast as
 * when they were one file. Every array in rd is malloc'd and freed by
 * td_read_nsys_sqlite. */
#ifndef TD_READ_NSYS_INT_H
#define TD_READ_NSYS_INT_H
#include "read/read.h"
#include "io/sqlite_lib.h"
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>


/* StringIds row: id -> interned value; rt is the value without a "_vNNNN" suffix
 * (runtime API names) and rt_kind its kind (TD_K_DRIVER for cu* names, else
 * TD_K_RUNTIME), computed on first use. */
typedef struct {
    int64_t id;
    td_str s;
    td_str rt;
    uint8_t rt_done, rt_kind;
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

/* A host thread seen in CUPTI_ACTIVITY_KIND_RUNTIME (nsys_host.c): runtime events
 * carry its index in td_event.track until the thread's trace track is made. */
typedef struct {
    int64_t pid, tid;
    int64_t kcid, kstart, kdur;   /* its least kept row in (correlationId, start, longest)
                                     order: tracks are made in that order */
    uint32_t track;
    uint8_t has;                  /* 1: k* hold a kept row */
} rthread;

/* A runtime call that launched device work: its track and the work's extent. */
typedef struct {
    uint32_t track;
    int64_t start, end, gmin, gmax;
    int32_t nops, device;
} launch;

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
    /* kept runtime calls: t->ev[rt_first .. rt_end); durations stay end - start (may be
     * negative) until td_nsys_runtime_finish */
    size_t rt_first, rt_end;
    uint32_t *rh;       /* corr -> runtime event index + 1, open addressing; 0 = empty */
    size_t rh_cap, rh_n;
    rthread *rth;       /* host threads of the runtime rows */
    size_t nrth, rth_cap;
    uint32_t *rth_h;    /* (pid, tid) -> rth index + 1 */
    size_t rth_hcap;
    size_t nnv;         /* NVTX ranges read: t->ranges[nv_first ..], level = their type
                           (59 push/pop, 60 start/end) until td_nsys_project_ranges */
    size_t nv_first;
    uint32_t *tk;       /* (pid, tid) -> track + 1, open addressing; 0 = empty slot */
    size_t tk_cap;
    uint64_t clamped;   /* rows with end < start */
    uint64_t unended;   /* NVTX ranges without an end */
} rd;

#define PID_OF(g) (((g) / 0x1000000) % 0x1000000)
#define TID_OF(g) ((g) % 0x1000000)

/* Device tables, in the order td_nsys_read_device_table takes them. */
enum { K_KERNEL, K_MEMCPY, K_MEMSET };

/* ---- per-row helpers ---- */

/* qsort without the undefined behaviour of a NULL base for empty arrays. Arrays already
 * in order (rows as nsys writes them usually are) are left as they are, which is what
 * glibc's stable merge sort gives, after one pass instead of a sort. */
static inline void sort(void *p, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    const char *a = p;
    size_t i = 1;
    while (i < n && cmp(a + (i - 1) * size, a + i * size) <= 0)
        i++;
    if (i < n)
        qsort(p, n, size, cmp);
}

/* Column i as an integer, def when NULL. sqlite3_column_int64 gives 0 for NULL, so a
 * default of 0 (a constant at nearly every call) needs no sqlite3_column_type call. */
static inline int64_t col_i64(sqlite3_stmt *st, int i, int64_t def)
{
    if (def == 0)
        return sqlite3_column_int64(st, i);
    return sqlite3_column_type(st, i) == SQLITE_NULL ? def : sqlite3_column_int64(st, i);
}

static inline int col_null(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL;
}


/* Event rows must have start/end (columns 0 and 1) within +-2^61 ns (73 years), so
 * that differences and sums downstream cannot overflow; anything else is corrupt. */
#define TIME_LIMIT ((int64_t)1 << 61)

static inline int bad_col(sqlite3_stmt *st)
{
    for (int i = 0; i < 2; i++) {
        int64_t v = col_i64(st, i, 0);
        if (v < -TIME_LIMIT || v > TIME_LIMIT)
            return i;
    }
    return -1;
}

static inline int times_ok(sqlite3_stmt *st)
{
    return bad_col(st) < 0;
}

static inline td_str intern_col(rd *r, sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    if (!s)
        return 0;
    return td_intern(r->set->strs, s, (size_t)sqlite3_column_bytes(st, i));
}

static inline strid *sid_find(rd *r, int64_t id)
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

static inline td_str sid_str(rd *r, sqlite3_stmt *st, int i)
{
    if (col_null(st, i))
        return 0;
    strid *x = sid_find(r, sqlite3_column_int64(st, i));
    return x ? x->s : 0;
}

static inline int64_t make_corr(int64_t pid, int64_t cid)
{
    return cid ? (int64_t)((uint64_t)pid << 32 | (uint32_t)cid) : 0;
}

/* The kept runtime call with correlation key corr (make_corr), or NULL. */
static inline size_t rh_slot(int64_t corr, size_t mask)
{
    /* consecutive correlation ids (the usual case) fill consecutive slots, 64 at a time,
     * so the table is walked nearly in order; blocks of 64 are spread by a
     * multiplicative hash */
    uint64_t c = (uint64_t)corr;
    return (size_t)(((c >> 6) * 0x9e3779b97f4a7c15u >> 26 << 6 | (c & 63)) & mask);
}

static inline td_event *rh_find(rd *r, int64_t corr)
{
    if (!corr || !r->rh_cap)
        return NULL;
    size_t mask = r->rh_cap - 1;
    for (size_t j = rh_slot(corr, mask); r->rh[j]; j = (j + 1) & mask)
        if (r->t->ev[r->rh[j] - 1].corr == corr)
            return &r->t->ev[r->rh[j] - 1];
    return NULL;
}

/* Room for n more events in r->t->ev, then events are appended with ev_push. */
static inline void ev_reserve(rd *r, size_t n)
{
    td_grow((void **)&r->t->ev, &r->t->ev_cap, r->t->nev + n, sizeof *r->t->ev);
}

static inline td_event *ev_push(rd *r)
{
    td_trace *t = r->t;
    if (t->nev == t->ev_cap)
        ev_reserve(r, 1);
    return &t->ev[t->nev++];
}

static inline int64_t clamp_dur(rd *r, int64_t start, int64_t end)
{
    if (end < start) {
        r->clamped++;
        return 0;
    }
    return end - start;
}


/* ---- nsys_db.c: queries, StringIds, names, devices, tracks ---- */

/* A TD_E_FORMAT error naming what failed and SQLite's message. */
td_status td_nsys_sqlfail(rd *r, const char *what);
/* Prepare "SELECT c0, c1, ... FROM tab [tail]" with NULL for absent columns.
 * *st = NULL (and TD_OK) when the table is absent or lacks a column in `need`. */
td_status td_nsys_select_cols(rd *r, const char *tab, const char *const *cols, int ncols,
                              uint32_t need, const char *tail, sqlite3_stmt **st);
/* The error for a row whose start or end is out of range; finalizes st. */
td_status td_nsys_bad_time(rd *r, sqlite3_stmt *st, const char *tab);
/* Finish a row loop: rc is the last sqlite3_step result; finalizes st. */
td_status td_nsys_done(rd *r, sqlite3_stmt *st, int rc, const char *tab);
td_status td_nsys_read_strings(rd *r);
/* Set (or replace) the name of (pid, tid) in a small unsorted list. */
void td_nsys_name_set(tname **a, size_t *n, size_t *cap, int64_t pid, int64_t tid,
                      td_str s);
td_str td_nsys_name_get(const tname *a, size_t n, int64_t pid, int64_t tid);
td_status td_nsys_read_names(rd *r);
td_status td_nsys_read_devices(rd *r);
/* Track of (pid, tid), appended to r->t when new. */
uint32_t td_nsys_track_of(rd *r, int64_t pid, int64_t tid);
/* Drop the tracks made after the first n (a pass read again). */
void td_nsys_tracks_truncate(rd *r, size_t n);
/* Sort r->thr and r->proc and give the tracks their thread and process names. */
void td_nsys_name_tracks(rd *r);

/* An upper bound on the rows of table tab (its largest rowid, capped by the file's
 * size), 0 when unknown; for sizing arrays before reading. */
size_t td_nsys_rows_hint(rd *r, const char *tab);

/* ---- nsys_gpu.c, nsys_host.c: CUPTI activity and OS runtime rows ---- */

td_status td_nsys_read_device_table(rd *r, int which);
td_status td_nsys_read_runtime(rd *r);
/* Clamp the kept runtime calls' negative durations to 0 (counted in r->clamped); after
 * the last use of their end (td_nsys_project_ranges). */
void td_nsys_runtime_finish(rd *r);
td_status td_nsys_read_osrt(rd *r);
/* CUDA_GPU_MEMORY_USAGE_EVENTS -> t->mem; after td_nsys_read_runtime (nsys_gpu.c) */
td_status td_nsys_read_memory(rd *r);

/* ---- nsys_nvtx.c: NVTX events, GPU projection and nesting of ranges ---- */

td_status td_nsys_read_nvtx(rd *r);
td_status td_nsys_project_ranges(rd *r);

/* ---- nsys_split.c ---- */

void td_nsys_split_processes(rd *r);

#endif
