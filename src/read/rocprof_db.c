/* read/rocprof_db.c - the rocpd SQLite database of rocprofv3 (`--output-format rocpd`,
 * schema 3: ../shared/docs/rocprof/rocpd_tables.sql and rocpd_views.sql), read through the
 * `rocpd_*` views every rocpd database has (each `SELECT * FROM rocpd_<table>_<uuid>`).
 *
 * The same model as the JSON reader (read/rocprof_json.c): agents (rocpd_info_agent: GPU
 * agents numbered by type_index) are devices; rocpd_kernel_dispatch rows kernels on one
 * track per (agent, stream), named by rocpd_info_kernel_symbol truncated as rocprofv3
 * truncates (td_rp_truncated), with the internal correlation id (rocpd_event.stack_id,
 * as rocprofv3 writes it) and the external one (rocpd_event.correlation_id);
 * rocpd_memory_copy rows device copies; rocpd_region rows, by their event's category, HIP
 * calls, HSA calls, ROCTx ranges (named by their message; regions named roctx* are the API
 * calls themselves and are left out) or other host calls. Rows are read in id order, so a
 * database converted from a JSON file reads as that file. A file on disk is opened by
 * SQLite itself, read-only and immutable (nothing written beside it); other inputs are
 * read into memory. One database is one process (the first of rocpd_info_process). */
#define _POSIX_C_SOURCE 200809L
#include "read/rocprof_int.h"
#include "io/sqlite_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t id;
    int32_t dev;   /* -1 not a GPU */
} dbagent;

typedef struct {
    td_traceset *set;
    td_trace *t;
    const char *name;
    td_err *e;
    sqlite3 *db;
    dbagent *ag; size_t nag, agcap;
    td_rp_tracks tk;
    int64_t pid;
    uint64_t negdur, range, rows;
} rdb;

static td_status sqlfail(rdb *r, const char *what)
{
    return td_fail(r->e, TD_E_FORMAT, "%s: rocpd database: %s: %s", r->name, what,
                   r->db ? sqlite3_errmsg(r->db) : "cannot open");
}

static const char *col_text(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(st, i);
}

static int64_t col_int(sqlite3_stmt *st, int i, int64_t dflt)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

static td_str intern(rdb *r, const char *s)
{
    return s && *s ? td_intern_cstr(r->set->strs, s) : 0;
}

static int32_t agent_dev(const void *ctx, int64_t id)
{
    const rdb *r = ctx;
    for (size_t i = 0; i < r->nag; i++)
        if (r->ag[i].id == id)
            return r->ag[i].dev;
    return -1;
}

static td_status prepare(rdb *r, const char *sql, sqlite3_stmt **st)
{
    if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
        return sqlfail(r, "a required view is missing or damaged");
    return TD_OK;
}

static td_status step_end(rdb *r, sqlite3_stmt *st, int rc)
{
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TD_OK : sqlfail(r, "reading rows");
}

static td_event *push(rdb *r, int64_t ts, int64_t te, int kind, uint32_t track, int64_t corr)
{
    r->rows++;
    return td_rp_push(r->t, ts, te, kind, track, corr, &r->negdur, &r->range);
}

static td_status read_agents(rdb *r)
{
    sqlite3_stmt *st;
    td_status s = prepare(r, "SELECT id, type, type_index, product_name, name FROM rocpd_info_agent "
                             "ORDER BY id", &st);
    if (s != TD_OK)
        return s;
    int rc, ngpu = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        dbagent *a = TD_PUSH(r->ag, r->nag, r->agcap);
        a->id = sqlite3_column_int64(st, 0);
        a->dev = -1;
        const char *type = col_text(st, 1);
        if (!type || strcmp(type, "GPU"))
            continue;
        int64_t ti = col_int(st, 2, -1);
        a->dev = ti >= 0 && ti < 65536 ? (int32_t)ti : ngpu;
        ngpu++;
        td_device *d = td_trace_device(r->t, a->dev);
        const char *pn = col_text(st, 3), *nm = col_text(st, 4);
        d->name = intern(r, pn && *pn ? pn : nm);
    }
    return step_end(r, st, rc);
}

static td_status read_kernels(rdb *r)
{
    sqlite3_stmt *st;
    td_status s = prepare(r,
        "SELECT K.start, K.end, K.agent_id, K.stream_id, K.queue_id, S.kernel_name, S.display_name, "
        "E.stack_id, E.correlation_id, K.grid_size_x, K.grid_size_y, K.grid_size_z, "
        "K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z, K.kernel_id "
        "FROM rocpd_kernel_dispatch K LEFT JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id "
        "LEFT JOIN rocpd_event E ON E.id = K.event_id ORDER BY K.id", &st);
    if (s != TD_OK)
        return s;
    td_str cat = td_intern_cstr(r->set->strs, "KERNEL_DISPATCH");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t stream = col_int(st, 3, -1);
        uint32_t tr = stream >= 0 ? td_rp_track(&r->tk, r->t, col_int(st, 2, -1), stream, TD_RP_STREAM)
                                  : td_rp_track(&r->tk, r->t, col_int(st, 2, -1), col_int(st, 4, 0),
                                                TD_RP_QUEUE);
        td_event *ev = push(r, col_int(st, 0, 0), col_int(st, 1, 0), TD_K_KERNEL, tr, col_int(st, 7, 0));
        ev->cat = td_trace_cat(r->t, cat);
        ev->name = td_rp_truncated(r->set->strs, col_text(st, 5), col_text(st, 6));
        if (!ev->name) {
            char b[48];
            snprintf(b, sizeof b, "kernel_id %lld", (long long)col_int(st, 15, -1));
            ev->name = td_intern_cstr(r->set->strs, b);
        }
        int64_t ext = col_int(st, 8, 0);
        if (!ext && r->set->analysis_only)
            continue; /* nothing to keep in an aux record (see read/rocprof_rec.c) */
        td_aux *a;
        ev->aux = td_trace_push_aux(r->t, &a);
        a->bytes = -1;
        a->ext_id = ext;
        if (!r->set->analysis_only) {
            int32_t g[3], w[3];
            for (int i = 0; i < 3; i++) {
                int64_t gv = col_int(st, 9 + i, 0), wv = col_int(st, 12 + i, 0);
                g[i] = gv < 0 ? 0 : gv > INT32_MAX ? INT32_MAX : (int32_t)gv;
                w[i] = wv < 0 ? 0 : wv > INT32_MAX ? INT32_MAX : (int32_t)wv;
            }
            td_trace_set_dims(r->t, ev->aux, g, w);
        }
    }
    return step_end(r, st, rc);
}

static td_status read_regions(rdb *r)
{
    sqlite3_stmt *st;
    td_status s = prepare(r,
        "SELECT R.start, R.end, T.tid, S.string, C.string, E.stack_id, R.tid "
        "FROM rocpd_region R LEFT JOIN rocpd_string S ON S.id = R.name_id "
        "LEFT JOIN rocpd_event E ON E.id = R.event_id LEFT JOIN rocpd_string C ON C.id = E.category_id "
        "LEFT JOIN rocpd_info_thread T ON T.id = R.tid ORDER BY R.id", &st);
    if (s != TD_OK)
        return s;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = col_text(st, 3), *dom = col_text(st, 4);
        int kind = td_rp_domain_kind(dom);
        if (kind == TD_K_USER_ANNOT && (!name || !strncmp(name, "roctx", 5)))
            continue; /* a ROCTx call without a message: not a range */
        int64_t ts = col_int(st, 0, 0), te = col_int(st, 1, 0);
        if (kind == TD_K_USER_ANNOT && te <= ts)
            kind = TD_K_INSTANT;
        uint32_t tr = td_trace_track(r->t, r->pid, col_int(st, 2, col_int(st, 6, 0)));
        td_event *ev = push(r, ts, te, kind, tr,
                            kind == TD_K_USER_ANNOT || kind == TD_K_INSTANT ? 0 : col_int(st, 5, 0));
        ev->name = intern(r, name);
        if (dom && *dom)
            ev->cat = td_trace_cat(r->t, td_intern_cstr(r->set->strs, dom));
    }
    return step_end(r, st, rc);
}

static td_status read_copies(rdb *r)
{
    sqlite3_stmt *st;
    td_status s = prepare(r,
        "SELECT M.start, M.end, M.size, S.string, M.dst_agent_id, M.src_agent_id, M.stream_id, "
        "E.stack_id, E.correlation_id FROM rocpd_memory_copy M "
        "LEFT JOIN rocpd_string S ON S.id = M.name_id LEFT JOIN rocpd_event E ON E.id = M.event_id "
        "ORDER BY M.id", &st);
    if (s != TD_OK)
        return s;
    td_str cat = td_intern_cstr(r->set->strs, "MEMORY_COPY");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t dst = col_int(st, 4, -1), src = col_int(st, 5, -1);
        int64_t on = agent_dev(r, dst) < 0 && agent_dev(r, src) >= 0 ? src : dst;
        int64_t stream = col_int(st, 6, -1);
        uint32_t tr = stream >= 0 ? td_rp_track(&r->tk, r->t, on, stream, TD_RP_STREAM)
                                  : td_rp_track(&r->tk, r->t, on, 0, TD_RP_COPY);
        td_event *ev = push(r, col_int(st, 0, 0), col_int(st, 1, 0), TD_K_MEMCPY, tr, col_int(st, 7, 0));
        ev->cat = td_trace_cat(r->t, cat);
        ev->name = intern(r, col_text(st, 3));
        td_aux *a;
        ev->aux = td_trace_push_aux(r->t, &a);
        a->bytes = col_int(st, 2, -1);
        a->ext_id = col_int(st, 8, 0);
    }
    return step_end(r, st, rc);
}

static td_status read_all(rdb *r)
{
    sqlite3_stmt *st;
    td_status s = prepare(r, "SELECT pid FROM rocpd_info_process ORDER BY id LIMIT 1", &st);
    if (s != TD_OK)
        return s;
    if (sqlite3_step(st) == SQLITE_ROW)
        r->pid = col_int(st, 0, 0);
    sqlite3_finalize(st);
    if ((s = read_agents(r)) != TD_OK || (s = read_kernels(r)) != TD_OK ||
        (s = read_regions(r)) != TD_OK || (s = read_copies(r)) != TD_OK)
        return s;
    td_rp_tracks_finish(&r->tk, r->set, r->t, agent_dev, r, r->pid);
    if (r->negdur)
        td_warn(&r->set->warnings, "%s: %llu rows end before they start (duration set to 0)",
                r->name, (unsigned long long)r->negdur);
    if (r->range)
        td_warn(&r->set->warnings, "%s: %llu rows with times out of range (duration set to 0)",
                r->name, (unsigned long long)r->range);
    return TD_OK;
}

static td_status run(rdb *r, int opened)
{
    td_status s = opened ? TD_OK : sqlfail(r, "open");
    if (s == TD_OK) {
        sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_exec(r->db, "PRAGMA cell_size_check=ON", NULL, NULL, NULL);
        r->t->format = TD_FMT_ROCPD;
        s = read_all(r);
    }
    sqlite3_close(r->db);
    free(r->ag);
    td_rp_tracks_free(&r->tk);
    return s;
}

/* Whether the open database has rocpd's views. */
static int has_rocpd(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = 'rocpd_kernel_dispatch' "
                               "OR name = 'rocpd_info_agent'", -1, &st, NULL) != SQLITE_OK)
        return 0;
    int yes = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return yes;
}

static int open_mem(sqlite3 **db, const void *data, size_t n)
{
    if (sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        return 0;
    /* a copy: the in-memory VFS cannot read WAL, so a WAL file is marked rollback-journal */
    unsigned char *c = sqlite3_malloc64(n ? n : 1);
    if (!c)
        return 0;
    memcpy(c, data, n);
    if (n > 19 && (c[18] == 2 || c[19] == 2))
        c[18] = c[19] = 1;
    return sqlite3_deserialize(*db, "main", c, (sqlite3_int64)n, (sqlite3_int64)n,
                               SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE) == SQLITE_OK;
}

static int open_file(sqlite3 **db, const char *path)
{
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
    int rc = sqlite3_open_v2(td_buf_cstr(&u), db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                             NULL);
    td_buf_free(&u);
    return rc == SQLITE_OK;
}

int td_rocpd_probe_file(const char *path)
{
    td_err e = {0};
    if (td_sqlite_load(path, &e) != TD_OK)
        return 0;
    sqlite3 *db = NULL;
    int yes = open_file(&db, path) && has_rocpd(db);
    sqlite3_close(db);
    return yes;
}

int td_rocpd_probe_mem(const void *data, size_t n)
{
    td_err e = {0};
    if (n < 100 || td_sqlite_load("rocpd", &e) != TD_OK)
        return 0;
    sqlite3 *db = NULL;
    int yes = open_mem(&db, data, n) && has_rocpd(db);
    sqlite3_close(db);
    return yes;
}

td_status td_read_rocpd_file(td_traceset *set, td_trace *t, const char *name, const char *path,
                             td_err *e)
{
    td_status s = td_sqlite_load(name, e);
    if (s != TD_OK)
        return s;
    rdb r = {.set = set, .t = t, .name = name, .e = e};
    int ok = open_file(&r.db, path);
    return run(&r, ok);
}

td_status td_read_rocpd_mem(td_traceset *set, td_trace *t, const char *name, const void *data,
                            size_t n, td_err *e)
{
    td_status s = td_sqlite_load(name, e);
    if (s != TD_OK)
        return s;
    rdb r = {.set = set, .t = t, .name = name, .e = e};
    int ok = open_mem(&r.db, data, n);
    return run(&r, ok);
}
