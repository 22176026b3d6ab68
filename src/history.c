/* history.c - the run history database (SQLite). See history.h. */
#define _GNU_SOURCE /* timegm */
#include "history.h"
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct td_histdb {
    sqlite3 *db;
    char path[1024];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS tracedoc_history(version INTEGER);"
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, run_time INTEGER, "
    "recorded_at INTEGER, label TEXT, commit_id TEXT, device TEXT, world TEXT, format TEXT, "
    "template TEXT, steps TEXT, inputs TEXT, meta TEXT);"
    "CREATE TABLE IF NOT EXISTS metrics(run INTEGER NOT NULL, metric TEXT NOT NULL, "
    "unit TEXT, value REAL, PRIMARY KEY(run, metric)) WITHOUT ROWID;";

static td_status dberr(td_histdb *h, td_err *e, const char *what)
{
    int code = sqlite3_errcode(h->db);
    td_status st = code == SQLITE_NOTADB || code == SQLITE_CORRUPT ? TD_E_FORMAT
                   : code == SQLITE_READONLY || code == SQLITE_FULL || code == SQLITE_IOERR ||
                           code == SQLITE_CANTOPEN
                       ? TD_E_OUTPUT
                       : TD_E_FORMAT;
    return td_fail(e, st, "%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

static int64_t now_s(void)
{
    int64_t ep = td_source_date_epoch();
    return ep ? ep : (int64_t)time(NULL);
}

td_status td_history_open(const char *path, int create, td_histdb **out, td_err *e)
{
    *out = NULL;
    td_histdb *h = td_xcalloc(1, sizeof *h);
    snprintf(h->path, sizeof h->path, "%s", path);
    int fl = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
    if (sqlite3_open_v2(path, &h->db, fl, NULL) != SQLITE_OK) {
        td_status st = td_fail(e, create ? TD_E_OUTPUT : TD_E_IO, "%s: cannot open the history "
                               "database: %s", path, h->db ? sqlite3_errmsg(h->db)
                                                            : "out of memory");
        td_history_close(h);
        return st;
    }
    sqlite3_busy_timeout(h->db, 10000); /* two nightly jobs on one file wait for each other */
    /* is it ours? an existing database must have the runs table (or be empty) */
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT count(*), sum(name='runs'), sum(name='metrics') "
                           "FROM sqlite_master WHERE type='table'", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        td_status r = dberr(h, e, "not a tracedoc history database");
        sqlite3_finalize(st);
        td_history_close(h);
        return r;
    }
    int ntab = sqlite3_column_int(st, 0), runs = sqlite3_column_int(st, 1),
        mets = sqlite3_column_int(st, 2);
    sqlite3_finalize(st);
    if (ntab && (!runs || !mets)) {
        td_history_close(h);
        return td_fail(e, TD_E_FORMAT, "%s: not a tracedoc history database (no runs and "
                       "metrics tables)", path);
    }
    if (!ntab && !create) {
        td_history_close(h);
        return td_fail(e, TD_E_FORMAT, "%s: empty database: no runs recorded", path);
    }
    char *msg = NULL;
    if (sqlite3_exec(h->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
        td_status r = td_fail(e, TD_E_OUTPUT, "%s: %s", path, msg ? msg : "cannot create tables");
        sqlite3_free(msg);
        td_history_close(h);
        return r;
    }
    *out = h;
    return TD_OK;
}

void td_history_close(td_histdb *h)
{
    if (!h)
        return;
    sqlite3_close(h->db);
    free(h);
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const unsigned char *t = sqlite3_column_text(st, c);
    return t ? (const char *)t : "";
}

static int64_t parse_iso(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm))
        return 0;
    return (int64_t)timegm(&tm);
}

static const char *kv_text(const td_summary *s, const char *k)
{
    const td_kv *kv = td_sum_get(s, k);
    return kv && kv->type == TD_T_TEXT && kv->v.s ? kv->v.s : NULL;
}

td_status td_history_append(td_histdb *h, const td_summary *cur, td_err *e)
{
    td_runkey k;
    td_runkey_of(cur, &k);
    int64_t rec = now_s();
    int64_t cap = parse_iso(kv_text(cur, "trace.captured"));
    json_t *meta = json_object();
    for (size_t i = 0; i < cur->nkv; i++)
        if (!strncmp(cur->kv[i].key, "meta.", 5) && cur->kv[i].type == TD_T_TEXT)
            json_object_set_new(meta, cur->kv[i].key + 5,
                                json_string(cur->kv[i].v.s ? cur->kv[i].v.s : ""));
    char *mj = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(meta);
    const char *inputs = kv_text(cur, "inputs_label");
    const char *commit = kv_text(cur, "meta.commit");
    td_status r = TD_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        free(mj);
        return dberr(h, e, "cannot write");
    }
    if (sqlite3_prepare_v2(h->db, "INSERT INTO runs(run_time, recorded_at, label, commit_id, "
                           "device, world, format, template, steps, inputs, meta) "
                           "VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_int64(st, 1, cap ? cap : rec);
    sqlite3_bind_int64(st, 2, rec);
    sqlite3_bind_text(st, 3, td_run_since(cur), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, commit ? commit : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, k.device, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 6, k.world, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 7, k.format, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 8, k.tmpl, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 9, k.steps, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 10, inputs ? inputs : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 11, mj ? mj : "{}", -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE)
        goto fail;
    sqlite3_finalize(st);
    st = NULL;
    int64_t id = sqlite3_last_insert_rowid(h->db);
    if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO metrics(run, metric, unit, value) "
                           "VALUES(?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        goto fail;
    td_metrics *ms = td_metrics_of(cur);
    for (size_t i = 0; i < ms->n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, ms->m[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, ms->m[i].unit, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, ms->m[i].value);
        if (sqlite3_step(st) != SQLITE_DONE) {
            td_metrics_free(ms);
            goto fail;
        }
    }
    td_metrics_free(ms);
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    free(mj);
    return TD_OK;
fail:
    r = dberr(h, e, "cannot record the run");
    sqlite3_finalize(st);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    free(mj);
    return r;
}

typedef struct trip {
    const char *name;
    size_t run;
    double v;
} trip;

static int cmp_trip(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->run > y->run) - (x->run < y->run);
}

static void fmt_time(int64_t t, char *dst, size_t cap, const char *fmt)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(dst, cap, fmt, &tm))
        snprintf(dst, cap, "?");
}

td_status td_history_load(td_histdb *h, const td_summary *cur, size_t max_runs, td_hist **out,
                          td_err *e)
{
    *out = NULL;
    td_runkey k;
    td_runkey_of(cur, &k);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT id, run_time, label, commit_id, device, world, format, "
                           "steps FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot read the runs");
    td_hist *hs = td_xcalloc(1, sizeof *hs);
    hs->a = td_arena_new();
    int64_t *ids = NULL;
    const char **labs = NULL;
    size_t nids = 0, cap = 0, lcap = 0, nlabs = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *dev = col_text(st, 4), *world = col_text(st, 5), *fmt = col_text(st, 6),
                   *steps = col_text(st, 7);
        if (strcmp(dev, k.device) || strcmp(world, k.world) || strcmp(fmt, k.format) ||
            strcmp(steps, k.steps)) {
            hs->nother++;
            hs->other_why = td_arena_printf(
                hs->a, "%s%s%s%s", strcmp(dev, k.device) ? td_arena_printf(hs->a, "device %s vs %s; ", dev, k.device) : "",
                strcmp(world, k.world) ? td_arena_printf(hs->a, "world size %s vs %s; ", world, k.world) : "",
                strcmp(fmt, k.format) ? td_arena_printf(hs->a, "input format %s vs %s; ", fmt, k.format) : "",
                strcmp(steps, k.steps) ? td_arena_printf(hs->a, "step definition %s vs %s; ", steps, k.steps) : "");
            continue;
        }
        *TD_PUSH(ids, nids, cap) = sqlite3_column_int64(st, 0);
        const char *lab = col_text(st, 3);
        char when[32];
        if (!*lab) {
            fmt_time(sqlite3_column_int64(st, 1), when, sizeof when, "%Y-%m-%d %H:%M");
            lab = when;
        }
        *TD_PUSH(labs, nlabs, lcap) = td_arena_strdup(hs->a, lab);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(ids);
        free(labs);
        td_hist_free(hs);
        return dberr(h, e, "cannot read the runs");
    }
    if (hs->other_why) { /* drop the trailing "; " */
        size_t n = strlen(hs->other_why);
        if (n >= 2)
            ((char *)hs->other_why)[n - 2] = 0;
    }
    size_t from = nids > max_runs ? nids - max_runs : 0;
    hs->nruns = nids - from;
    hs->label = td_arena_alloc(hs->a, (hs->nruns + 1) * sizeof *hs->label);
    if (hs->nruns)
        memcpy(hs->label, labs + from, hs->nruns * sizeof *hs->label);
    free(labs);
    trip *tr = NULL;
    size_t ntr = 0, tcap = 0;
    if (sqlite3_prepare_v2(h->db, "SELECT metric, value FROM metrics WHERE run = ?", -1, &st,
                           NULL) != SQLITE_OK) {
        free(ids);
        td_hist_free(hs);
        return dberr(h, e, "cannot read the metrics");
    }
    for (size_t r = 0; r < hs->nruns; r++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, ids[from + r]);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            trip *t = TD_PUSH(tr, ntr, tcap);
            t->name = td_arena_strdup(hs->a, col_text(st, 0));
            t->run = r;
            t->v = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
        }
        if (rc != SQLITE_DONE)
            break;
    }
    sqlite3_finalize(st);
    free(ids);
    if (rc != SQLITE_DONE) {
        free(tr);
        td_hist_free(hs);
        return dberr(h, e, "cannot read the metrics");
    }
    if (ntr)
        qsort(tr, ntr, sizeof *tr, cmp_trip);
    size_t mcap = 0;
    for (size_t i = 0; i < ntr;) {
        size_t j = i;
        while (j < ntr && strcmp(tr[j].name, tr[i].name) == 0)
            j++;
        td_hist_metric *m = TD_PUSH(hs->met, hs->nmet, mcap);
        m->name = tr[i].name;
        m->v = td_arena_alloc(hs->a, (hs->nruns + 1) * sizeof *m->v);
        for (size_t r = 0; r < hs->nruns; r++)
            m->v[r] = NAN;
        for (size_t q = i; q < j; q++)
            m->v[tr[q].run] = tr[q].v;
        i = j;
    }
    free(tr);
    *out = hs;
    return TD_OK;
}

void td_hist_free(td_hist *h)
{
    if (!h)
        return;
    free(h->met);
    td_arena_free(h->a);
    free(h);
}

td_status td_history_runs(td_histdb *h, td_summary *s, td_err *e)
{
    td_table *t = td_sum_table(s, "history.runs", "Runs");
    td_table_cols(t, "id:int:Run", "time:text:Time (UTC)", "commit:text:Commit",
                  "device:text:Device", "world_size:text:World size", "format:text:Format",
                  "steps:text:Steps", "metrics:int:Metrics", "meta:text:Meta", NULL);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT id, run_time, commit_id, device, world, format, steps, "
                           "(SELECT count(*) FROM metrics WHERE run = runs.id), meta FROM runs "
                           "ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot read the runs");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t r = td_table_add_row(t);
        char when[32];
        fmt_time(sqlite3_column_int64(st, 1), when, sizeof when, "%Y-%m-%dT%H:%M:%SZ");
        td_row_int(s, t, r, "id", sqlite3_column_int64(st, 0));
        td_row_str(s, t, r, "time", when);
        td_row_str(s, t, r, "commit", col_text(st, 2));
        td_row_str(s, t, r, "device", col_text(st, 3));
        td_row_str(s, t, r, "world_size", col_text(st, 4));
        td_row_str(s, t, r, "format", col_text(st, 5));
        td_row_str(s, t, r, "steps", col_text(st, 6));
        td_row_int(s, t, r, "metrics", sqlite3_column_int64(st, 7));
        td_row_str(s, t, r, "meta", col_text(st, 8));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TD_OK : dberr(h, e, "cannot read the runs");
}

td_status td_history_series(td_histdb *h, const char *metric, td_summary *s, td_err *e)
{
    td_table *t = td_sum_table(s, "history.series", "Series");
    td_table_cols(t, "run:int:Run", "time:text:Time (UTC)", "label:text:Label",
                  "metric:text:Metric", "unit:text:Unit", "value:f64:Value", NULL);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT runs.id, run_time, label, unit, value FROM metrics "
                           "JOIN runs ON runs.id = metrics.run WHERE metric = ? ORDER BY runs.id",
                           -1, &st, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot read the metrics");
    sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t r = td_table_add_row(t);
        char when[32];
        fmt_time(sqlite3_column_int64(st, 1), when, sizeof when, "%Y-%m-%dT%H:%M:%SZ");
        td_row_int(s, t, r, "run", sqlite3_column_int64(st, 0));
        td_row_str(s, t, r, "time", when);
        td_row_str(s, t, r, "label", col_text(st, 2));
        td_row_str(s, t, r, "metric", metric);
        td_row_str(s, t, r, "unit", col_text(st, 3));
        td_row_f64(s, t, r, "value", sqlite3_column_double(st, 4));
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? TD_OK : dberr(h, e, "cannot read the metrics");
}

td_status td_history_prune(td_histdb *h, long keep, double older_days, long *removed, td_err *e)
{
    *removed = 0;
    if (sqlite3_exec(h->db, "BEGIN IMMEDIATE; CREATE TEMP TABLE IF NOT EXISTS gone(id INTEGER);"
                     "DELETE FROM gone;", NULL, NULL, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot prune");
    sqlite3_stmt *st = NULL;
    if (keep > 0) {
        if (sqlite3_prepare_v2(h->db, "INSERT INTO gone SELECT id FROM runs WHERE id NOT IN "
                               "(SELECT id FROM runs ORDER BY id DESC LIMIT ?)", -1, &st,
                               NULL) != SQLITE_OK)
            goto fail;
        sqlite3_bind_int64(st, 1, keep);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto fail;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (older_days > 0) {
        if (sqlite3_prepare_v2(h->db, "INSERT INTO gone SELECT id FROM runs WHERE run_time < ?",
                               -1, &st, NULL) != SQLITE_OK)
            goto fail;
        sqlite3_bind_int64(st, 1, now_s() - (int64_t)(older_days * 86400));
        if (sqlite3_step(st) != SQLITE_DONE)
            goto fail;
        sqlite3_finalize(st);
        st = NULL;
    }
    if (sqlite3_exec(h->db, "DELETE FROM metrics WHERE run IN (SELECT id FROM gone);"
                     "DELETE FROM runs WHERE id IN (SELECT id FROM gone);", NULL, NULL,
                     NULL) != SQLITE_OK)
        goto fail;
    *removed = (long)sqlite3_changes(h->db);
    if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    return TD_OK;
fail:;
    td_status r = dberr(h, e, "cannot prune");
    sqlite3_finalize(st);
    sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
    return r;
}
