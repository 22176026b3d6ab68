/* read/nsys_db.c - the Nsight Systems reader's queries and lookup tables: columns
 * chosen from what the file's schema reports, row-loop endings, StringIds, thread and
 * process names (ThreadNames, PROCESSES), devices and session start (TARGET_INFO_GPU,
 * TARGET_INFO_SESSION_START_TIME), and the (pid, tid) -> track table. */
#include "read/nsys_int.h"
#include <strings.h>
#include <unistd.h>

td_status td_nsys_sqlfail(rd *r, const char *what)
{
    return td_fail(r->e, TD_E_FORMAT, "%s: invalid Nsight Systems SQLite database (%s): %s",
                   r->name, what, sqlite3_errmsg(r->db));
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
        return td_nsys_sqlfail(r, "sqlite_master");
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return TD_OK;
    if (rc != SQLITE_ROW)
        return td_nsys_sqlfail(r, "sqlite_master");
    *present = 1;
    if (sqlite3_prepare_v2(r->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL) !=
        SQLITE_OK)
        return td_nsys_sqlfail(r, tab);
    sqlite3_bind_text(st, 1, tab, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; c && i < ncols; i++)
            if (strcmp(c, cols[i]) == 0)
                *mask |= 1u << i;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return td_nsys_sqlfail(r, tab);
    return TD_OK;
}

/* Prepare "SELECT c0, c1, ... FROM tab [tail]" with NULL for absent columns.
 * *st = NULL (and TD_OK) when the table is absent or lacks a column in `need`. */
td_status td_nsys_select_cols(rd *r, const char *tab, const char *const *cols, int ncols,
                              uint32_t need, const char *tail, sqlite3_stmt **st)
{
    uint32_t mask;
    int present;
    *st = NULL;
    td_status s = table_cols(r, tab, cols, ncols, &mask, &present);
    if (s != TD_OK)
        return s;
    if (!present) {
        /* absent is normal; a view or virtual table of that name is not read, and says so
         * (read as empty, a kernel table that is a view would pass for "no kernels") */
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(r->db, "SELECT type, substr(sql, 1, 14) FROM sqlite_master "
                               "WHERE name=?1", -1, &q, NULL) != SQLITE_OK)
            return td_nsys_sqlfail(r, "sqlite_master");
        sqlite3_bind_text(q, 1, tab, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW) {
            const char *ty = (const char *)sqlite3_column_text(q, 0);
            const char *sq = (const char *)sqlite3_column_text(q, 1);
            int virt = sq && strncasecmp(sq, "CREATE VIRTUAL", 14) == 0;
            char m[512];
            snprintf(m, sizeof m, "%s: %s is %s, not an ordinary table: not read (its rows "
                     "are missing from the report)", r->name, tab,
                     virt ? "a virtual table" : ty && strcmp(ty, "view") == 0 ? "a view"
                                                                             : "no table");
            int seen = 0; /* a table selected twice (NVTX_EVENTS) is said once */
            for (size_t i = 0; i < r->set->warnings.n && !seen; i++)
                seen = strcmp(r->set->warnings.msg[i], m) == 0;
            if (!seen)
                td_warn(&r->set->warnings, "%s", m);
        }
        sqlite3_finalize(q);
        return TD_OK;
    }
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
        return td_nsys_sqlfail(r, tab);
    }
    return TD_OK;
}


/* max(rowid) is one descent of the table's b-tree (count(*) reads every page). Capped
 * at one row per 16 bytes of the file, so a damaged rowid cannot make a huge array; 0
 * for an absent table or anything but an ordinary table. */
size_t td_nsys_rows_hint(rd *r, const char *tab)
{
    char sql[200];
    int64_t v[3] = {0, 0, 0};
    uint32_t mask;
    int present;
    /* only an ordinary table: a view of that name could be costly to evaluate; a failure
     * here is left for the reading itself to report */
    td_err quiet = {0}, *e = r->e;
    r->e = &quiet;
    td_status s = table_cols(r, tab, NULL, 0, &mask, &present);
    r->e = e;
    if (s != TD_OK || !present)
        return 0;
    snprintf(sql, sizeof sql, "SELECT max(rowid) FROM \"%s\"", tab);
    const char *q[3] = {sql, "PRAGMA page_count", "PRAGMA page_size"};
    for (int i = 0; i < 3; i++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(r->db, q[i], -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            v[i] = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0)
        return 0;
    uint64_t cap = (uint64_t)v[1] * (uint64_t)v[2] / 16;
    return (size_t)((uint64_t)v[0] < cap ? (uint64_t)v[0] : cap);
}

td_status td_nsys_bad_time(rd *r, sqlite3_stmt *st, const char *tab)
{
    int c = bad_col(st);
    td_status s = td_fail(r->e, TD_E_FORMAT, "%s: table %s: %s %lld out of range", r->name,
                          tab, c ? "end" : "start", (long long)col_i64(st, c, 0));
    sqlite3_finalize(st);
    return s;
}

/* Finish a row loop: rc is the last sqlite3_step result. */
td_status td_nsys_done(rd *r, sqlite3_stmt *st, int rc, const char *tab)
{
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TD_OK : td_nsys_sqlfail(r, tab);
}

td_status td_nsys_read_strings(rd *r)
{
    static const char *const c[] = {"id", "value"};
    sqlite3_stmt *st;
    td_status s = td_nsys_select_cols(r, "StringIds", c, 2, 3, "ORDER BY id", &st);
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
    return td_nsys_done(r, st, rc, "StringIds");
}

/* ---- names ---- */

void td_nsys_name_set(tname **a, size_t *n, size_t *cap, int64_t pid, int64_t tid,
                      td_str s)
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

td_str td_nsys_name_get(const tname *a, size_t n, int64_t pid, int64_t tid)
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

td_status td_nsys_read_names(rd *r)
{
    static const char *const tc[] = {"nameId", "globalTid", "priority"};
    sqlite3_stmt *st;
    int rc;
    td_status s = td_nsys_select_cols(r, "ThreadNames", tc, 3, 3, "ORDER BY rowid", &st);
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
        if ((s = td_nsys_done(r, st, rc, "ThreadNames")) != TD_OK)
            return s;
    }
    static const char *const pc[] = {"globalPid", "pid", "name"};
    s = td_nsys_select_cols(r, "PROCESSES", pc, 3, 4, NULL, &st);
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
        if ((s = td_nsys_done(r, st, rc, "PROCESSES")) != TD_OK)
            return s;
    }
    return TD_OK;
}

/* ---- devices and session ---- */

td_status td_nsys_read_devices(rd *r)
{
    static const char *const c[] = {"id", "name", "totalMemory", "smCount", "cuDevice"};
    sqlite3_stmt *st;
    td_status s = td_nsys_select_cols(r, "TARGET_INFO_GPU", c, 5, 0, "ORDER BY rowid", &st);
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
    if ((s = td_nsys_done(r, st, rc, "TARGET_INFO_GPU")) != TD_OK)
        return s;
    static const char *const sc[] = {"utcEpochNs"};
    s = td_nsys_select_cols(r, "TARGET_INFO_SESSION_START_TIME", sc, 1, 1, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    /* nsys times count from the session start; this is its wall clock. */
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        r->t->base_time_ns = col_i64(st, 0, 0);
        rc = SQLITE_DONE;
    }
    return td_nsys_done(r, st, rc, "TARGET_INFO_SESSION_START_TIME");
}

/* Track of (pid, tid) through a hash table: td_trace_track scans linearly, and nsys
 * reports of data-loader-heavy jobs have thousands of threads. */
uint32_t td_nsys_track_of(rd *r, int64_t pid, int64_t tid)
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

void td_nsys_tracks_truncate(rd *r, size_t n)
{
    if (n >= r->t->ntracks)
        return;
    r->t->ntracks = n;
    free(r->tk);   /* rebuilt by the next td_nsys_track_of */
    r->tk = NULL;
    r->tk_cap = 0;
}

void td_nsys_name_tracks(rd *r)
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
