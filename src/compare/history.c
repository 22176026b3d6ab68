/* compare/history.c - the run history database (SQLite). See compare/history.h. */
#define _GNU_SOURCE /* timegm */
#include "compare/history.h"
#include "summary/flame.h"
#include "read/folded.h"
#include "io/sqlite_lib.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define TD_STR2_(x) #x
#define TD_STR_(x) TD_STR2_(x)

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
    "unit TEXT, value REAL, PRIMARY KEY(run, metric)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS stacks(run INTEGER NOT NULL, kind TEXT NOT NULL, title TEXT, "
    "unit INTEGER, cycles INTEGER, total INTEGER, nstacks INTEGER, small INTEGER, "
    "bytes INTEGER, folded BLOB, PRIMARY KEY(run, kind)) WITHOUT ROWID;";

/* The version this tracedoc writes (compare/history.h); a newer database is refused. */
#define TD_HISTORY_VERSION 1
#define BUSY_MS 10000

/* How long to wait for another writer's lock: BUSY_MS, or TD_TEST_BUSY_MS (tests). */
static int busy_ms(void)
{
    const char *t = getenv("TD_TEST_BUSY_MS");
    return t && atoi(t) > 0 ? atoi(t) : BUSY_MS;
}

static td_status dberr(td_histdb *h, td_err *e, const char *what)
{
    int code = sqlite3_errcode(h->db);
    if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
        return td_fail(e, TD_E_BUSY, "%s: busy: another process has held the database's lock "
                       "for more than %.1f s", h->path, busy_ms() / 1000.0);
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

/* One integer from a query; -1 on error, 0 for NULL. */
static int64_t query_int(td_histdb *h, const char *sql, int col, int64_t *out)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, col);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : -1;
}

/* Inside the open's transaction: is it ours, undamaged, not newer; the schema made. */
static td_status check_and_create(td_histdb *h, int create, td_err *e)
{
    int64_t ntab = 0, runs = 0, mets = 0, ver = 0;
    const char *q = "SELECT count(*), coalesce(sum(name='runs'),0), "
                    "coalesce(sum(name='metrics'),0) FROM sqlite_master WHERE type='table'";
    if (query_int(h, q, 0, &ntab) || query_int(h, q, 1, &runs) || query_int(h, q, 2, &mets))
        return dberr(h, e, "not a tracedoc history database");
    if (ntab && (!runs || !mets))
        return td_fail(e, TD_E_FORMAT, "%s: not a tracedoc history database (no runs and "
                       "metrics tables)", h->path);
    if (!ntab && !create)
        return td_fail(e, TD_E_FORMAT, "%s: empty database: no runs recorded", h->path);
    if (ntab) { /* before anything is written into it */
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(h->db, "PRAGMA quick_check", -1, &st, NULL) != SQLITE_OK)
            return dberr(h, e, "damaged database");
        int rc = sqlite3_step(st);
        const unsigned char *r = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
        td_status bad = TD_OK;
        if (rc != SQLITE_ROW)
            bad = dberr(h, e, "damaged database");
        else if (!r || strcmp((const char *)r, "ok")) {
            char why[300]; /* its first finding, on one line */
            snprintf(why, sizeof why, "%s", r ? (const char *)r : "?");
            for (char *c = why; *c; c++)
                if (*c == '\n')
                    *c = ' ';
            bad = td_fail(e, TD_E_FORMAT, "%s: damaged database (PRAGMA quick_check: %s): "
                          "restore it from a copy", h->path, why);
        }
        sqlite3_finalize(st);
        if (bad != TD_OK)
            return bad;
    }
    char *msg = NULL;
    if (sqlite3_exec(h->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
        sqlite3_free(msg);
        return dberr(h, e, "cannot create the tables");
    }
    if (query_int(h, "SELECT coalesce(max(version),0) FROM tracedoc_history", 0, &ver))
        return dberr(h, e, "not a tracedoc history database");
    if (ver > TD_HISTORY_VERSION)
        return td_fail(e, TD_E_FORMAT, "%s: history database version %lld is newer than this "
                       "tracedoc knows (%d): use a newer tracedoc", h->path, (long long)ver,
                       TD_HISTORY_VERSION);
    if (!ver && create && sqlite3_exec(h->db, "INSERT INTO tracedoc_history(version) VALUES("
                                       TD_STR_(TD_HISTORY_VERSION) ")",
                                       NULL, NULL, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot write the version");
    return TD_OK;
}

td_status td_history_open(const char *path, int create, td_histdb **out, td_err *e)
{
    *out = NULL;
    td_status ls = td_sqlite_load(path, e);
    if (ls != TD_OK)
        return ls;
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
    sqlite3_busy_timeout(h->db, busy_ms()); /* two nightly jobs on one file wait for each other */
    /* the check and the schema in one transaction: concurrent creators wait for the
     * first (IMMEDIATE takes the write lock at once), and a failure half way (a full
     * disk) leaves no half schema */
    td_status r;
    if (sqlite3_exec(h->db, create ? "BEGIN IMMEDIATE" : "BEGIN", NULL, NULL, NULL) !=
        SQLITE_OK)
        r = dberr(h, e, "not a tracedoc history database");
    else if ((r = check_and_create(h, create, e)) == TD_OK &&
             sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        r = dberr(h, e, "cannot create the tables");
    if (r != TD_OK) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
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


/* ---- stacks ---- */
typedef struct sline {
    const char *s;
    size_t len;
    int64_t v;
    size_t ord;
} sline;

static int cmp_larger(const void *a, const void *b)
{
    const sline *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? 1 : -1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

static int cmp_ord(const void *a, const void *b)
{
    const sline *x = a, *y = b;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

#define SMALL_STACKS "(small stacks not stored)"

/* The stacks of fl as stored: folded text with raw integer values, stacks by name; the
 * stacks under the share or past the count limit summed into one SMALL_STACKS line. */
static char *compact(const td_flame *fl, size_t *len, int64_t *total, int64_t *small,
                     int64_t *nstacks)
{
    *len = 0;
    *total = *small = *nstacks = 0;
    td_flametree *own = NULL;
    const td_flametree *t = td_flame_tree(fl, &own);
    if (!t)
        return NULL;
    char *text = NULL;
    size_t n = 0;
    FILE *mf = open_memstream(&text, &n);
    td_err e = {0};
    td_status st = mf ? td_flametree_write_folded(t, 0, 1, mf, &e) : TD_E_INTERNAL;
    if (mf)
        fclose(mf);
    td_flametree_free(own);
    if (st != TD_OK || !text) {
        free(text);
        return NULL;
    }
    sline *L = NULL;
    size_t nl = 0, cap = 0;
    for (char *p = text; p < text + n;) {
        char *end = memchr(p, '\n', (size_t)(text + n - p));
        size_t ll = end ? (size_t)(end - p) : (size_t)(text + n - p);
        char *sp = memrchr(p, ' ', ll);
        if (sp) {
            sline *x = TD_PUSH(L, nl, cap);
            *x = (sline){p, (size_t)(sp - p), strtoll(sp + 1, NULL, 10), nl};
            *total += x->v;
        }
        p += ll + 1;
    }
    size_t keep = 0;
    if (nl) {
        qsort(L, nl, sizeof *L, cmp_larger);
        double min = TD_HISTORY_STACKS_MIN_SHARE * (double)*total;
        while (keep < nl && keep < TD_HISTORY_STACKS_MAX && (double)L[keep].v >= min)
            keep++;
        for (size_t i = keep; i < nl; i++)
            *small += L[i].v;
        qsort(L, keep, sizeof *L, cmp_ord);
    }
    td_buf b = {0};
    for (size_t i = 0; i < keep; i++) {
        td_buf_put(&b, L[i].s, L[i].len);
        td_buf_printf(&b, " %lld\n", (long long)L[i].v);
    }
    if (*small > 0)
        td_buf_printf(&b, SMALL_STACKS " %lld\n", (long long)*small);
    *nstacks = (int64_t)keep;
    free(L);
    free(text);
    *len = b.n;
    if (!b.p)
        return td_xcalloc(1, 1);
    return b.p;
}

char *td_history_compact_stacks(const td_flame *fl, size_t *len)
{
    int64_t total, small, nst;
    return compact(fl, len, &total, &small, &nst);
}

/* A flame of kind in s from stored folded text (raw values in unit). */
static td_status flame_from_text(td_summary *s, const char *name, const char *kind,
                                 const char *title, int64_t unit, int cycles, const char *text,
                                 size_t n, td_err *e)
{
    td_flame *fl = td_sum_flame(s, kind, title);
    td_status st = td_folded_parse(name, text, n, s, fl, e);
    fl->unit = unit > 1 ? unit : 0;
    fl->cycles = cycles;
    return st;
}

/* The stacks stored with run id into s (kinds as stored). *found: how many kinds. */
static td_status load_stacks(td_histdb *h, int64_t id, td_summary *s, int *found, td_err *e)
{
    *found = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT kind, title, unit, cycles, bytes, folded FROM stacks "
                           "WHERE run = ? ORDER BY kind", -1, &st, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot read the stacks");
    sqlite3_bind_int64(st, 1, id);
    int rc;
    td_status r = TD_OK;
    while (r == TD_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 bytes = sqlite3_column_int64(st, 4);
        const void *z = sqlite3_column_blob(st, 5);
        int zn = sqlite3_column_bytes(st, 5);
        char name[1200];
        snprintf(name, sizeof name, "%s (run %lld, %s stacks)", h->path, (long long)id,
                 col_text(st, 0));
        if (bytes < 0 || bytes > ((sqlite3_int64)1 << 32) || (!z && bytes)) {
            r = td_fail(e, TD_E_FORMAT, "%s: damaged stacks row", name);
            break;
        }
        char *text = td_xmalloc((size_t)bytes + 1);
        uLongf tn = (uLongf)bytes;
        if (bytes && (uncompress((Bytef *)text, &tn, z, (uLong)zn) != Z_OK ||
                      tn != (uLongf)bytes)) {
            free(text);
            r = td_fail(e, TD_E_FORMAT, "%s: damaged stacks (zlib data)", name);
            break;
        }
        r = flame_from_text(s, name, col_text(st, 0), col_text(st, 1), sqlite3_column_int64(st, 2),
                            sqlite3_column_int(st, 3), text, (size_t)bytes, e);
        free(text);
        if (r == TD_OK)
            (*found)++;
    }
    sqlite3_finalize(st);
    if (r == TD_OK && rc != SQLITE_DONE)
        r = dberr(h, e, "cannot read the stacks");
    return r;
}

td_status td_history_diff_flames(td_histdb *h, const td_hist *hist, td_summary *cur, int *made,
                                 td_err *e)
{
    *made = 0;
    if (!hist || !hist->nruns)
        return TD_OK;
    /* runs before lim: before the change point of the most severe regression */
    size_t lim = hist->nruns;
    const td_table *ch = td_sum_find_table(cur, "changes");
    int cd = ch ? td_table_col(ch, "direction") : -1, cs = ch ? td_table_col(ch, "since") : -1;
    for (size_t r = 0; cd >= 0 && cs >= 0 && r < ch->nrows; r++) {
        const char *dir = td_table_cell(ch, r, cd)->s, *since = td_table_cell(ch, r, cs)->s;
        if (!dir || strcmp(dir, "regressed") || !since)
            continue;
        for (size_t k = hist->nruns; k-- > 0;)
            if (!strcmp(hist->label[k], since)) {
                lim = k;
                break;
            }
        break;
    }
    td_summary *base = td_summary_new();
    td_status st = TD_OK;
    size_t at = lim;
    for (size_t k = lim; k-- > 0;) {
        int found = 0;
        if ((st = load_stacks(h, hist->id[k], base, &found, e)) != TD_OK)
            break;
        if (found) {
            at = k;
            break;
        }
    }
    if (st == TD_OK && at < lim) {
        td_summary *cc = td_summary_new(); /* this run's stacks compacted the same way */
        for (size_t i = 0; st == TD_OK && i < cur->nflames; i++) {
            const td_flame *fl = cur->flames[i];
            if (fl->diff || !td_flame_has_stacks(fl))
                continue;
            size_t n = 0;
            char *text = td_history_compact_stacks(fl, &n);
            if (text)
                st = flame_from_text(cc, fl->kind, fl->kind, fl->title ? fl->title : fl->kind,
                                     fl->unit, fl->cycles, text, n, e);
            free(text);
        }
        char label[512];
        snprintf(label, sizeof label, "run %lld (%s)", (long long)hist->id[at], hist->label[at]);
        int k = st == TD_OK ? td_flame_diffs(cur, cc, base, label, e) : 0;
        if (k < 0)
            st = TD_E_FORMAT;
        else
            *made = k;
        td_summary_free(cc);
    }
    td_summary_free(base);
    return st;
}

td_status td_history_append(td_histdb *h, const td_summary *cur, td_err *e)
{
    td_runkey k;
    td_runkey_of(cur, &k);
    int64_t rec = now_s();
    int64_t cap = parse_iso(td_sum_text(cur, "trace.captured"));
    json_t *meta = json_object();
    for (size_t i = 0; i < cur->nkv; i++)
        if (!strncmp(cur->kv[i].key, "meta.", 5) && cur->kv[i].type == TD_T_TEXT)
            json_object_set_new(meta, cur->kv[i].key + 5,
                                json_string(cur->kv[i].v.s ? cur->kv[i].v.s : ""));
    char *mj = json_dumps(meta, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(meta);
    const char *inputs = td_sum_text(cur, "inputs_label");
    const char *commit = td_sum_text(cur, "meta.commit");
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
        /* the run's own standard error, for the step rule of the next run (changes.c) */
        double se = td_metric_se(&ms->m[i]);
        if (isnan(se))
            continue;
        char sek[1400];
        snprintf(sek, sizeof sek, "se:%s", ms->m[i].name);
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, sek, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, ms->m[i].unit, -1, SQLITE_STATIC);
        sqlite3_bind_double(st, 4, se);
        if (sqlite3_step(st) != SQLITE_DONE) {
            td_metrics_free(ms);
            goto fail;
        }
    }
    td_metrics_free(ms);
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(h->db, "INSERT OR REPLACE INTO stacks(run, kind, title, unit, cycles, "
                           "total, nstacks, small, bytes, folded) VALUES(?,?,?,?,?,?,?,?,?,?)",
                           -1, &st, NULL) != SQLITE_OK)
        goto fail;
    for (size_t i = 0; i < cur->nflames; i++) {
        const td_flame *fl = cur->flames[i];
        if (fl->diff || !td_flame_has_stacks(fl))
            continue;
        size_t n = 0;
        int64_t total = 0, small = 0, nst = 0;
        char *text = compact(fl, &n, &total, &small, &nst);
        uLongf zn = compressBound((uLong)n);
        unsigned char *z = text ? td_xmalloc(zn) : NULL;
        int ok = z && compress2(z, &zn, (const Bytef *)text, (uLong)n, 6) == Z_OK;
        free(text);
        if (!ok) { /* too large for one blob: the run keeps its metrics, not its stacks */
            free(z);
            continue;
        }
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, fl->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, fl->title ? fl->title : fl->kind, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, fl->unit > 1 ? fl->unit : 1);
        sqlite3_bind_int(st, 5, fl->cycles);
        sqlite3_bind_int64(st, 6, total);
        sqlite3_bind_int64(st, 7, nst);
        sqlite3_bind_int64(st, 8, small);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)n);
        sqlite3_bind_blob(st, 10, z, (int)zn, free);
        if (sqlite3_step(st) != SQLITE_DONE)
            goto fail;
    }
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
    hs->next_id = 1;
    hs->a = td_arena_new();
    int64_t *ids = NULL, *times = NULL;
    const char **labs = NULL, **commits = NULL;
    size_t nids = 0, cap = 0, lcap = 0, nlabs = 0, ccap = 0, ncom = 0, tcap0 = 0, ntim = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        if (rid >= hs->next_id)
            hs->next_id = rid + 1;
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
        *TD_PUSH(ids, nids, cap) = rid;
        *TD_PUSH(times, ntim, tcap0) = sqlite3_column_int64(st, 1);
        *TD_PUSH(commits, ncom, ccap) = td_arena_strdup(hs->a, col_text(st, 3));
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
        free(times);
        free(commits);
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
    hs->id = td_arena_alloc(hs->a, (hs->nruns + 1) * sizeof *hs->id);
    hs->commit = td_arena_alloc(hs->a, (hs->nruns + 1) * sizeof *hs->commit);
    hs->time = td_arena_alloc(hs->a, (hs->nruns + 1) * sizeof *hs->time);
    if (hs->nruns) {
        memcpy(hs->label, labs + from, hs->nruns * sizeof *hs->label);
        memcpy(hs->id, ids + from, hs->nruns * sizeof *hs->id);
        memcpy(hs->commit, commits + from, hs->nruns * sizeof *hs->commit);
        memcpy(hs->time, times + from, hs->nruns * sizeof *hs->time);
    }
    free(labs);
    free(commits);
    free(times);
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

/* A new row of t from a query row whose first two columns are the run id and its time:
 * id_key and "time" (UTC) set. */
static size_t run_row(td_summary *s, td_table *t, sqlite3_stmt *st, const char *id_key)
{
    size_t r = td_table_add_row(t);
    char when[32];
    fmt_time(sqlite3_column_int64(st, 1), when, sizeof when, "%Y-%m-%dT%H:%M:%SZ");
    td_row_int(s, t, r, id_key, sqlite3_column_int64(st, 0));
    td_row_str(s, t, r, "time", when);
    return r;
}

td_status td_history_runs(td_histdb *h, td_summary *s, td_err *e)
{
    td_table *t = td_sum_table(s, "history.runs", "Runs");
    td_table_cols(t, "id:int:Run", "time:text:Time (UTC)", "commit:text:Commit",
                  "device:text:Device", "world_size:text:World size", "format:text:Format",
                  "steps:text:Steps", "metrics:int:Metrics", "meta:text:Meta", NULL);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h->db, "SELECT id, run_time, commit_id, device, world, format, steps, "
                           "(SELECT count(*) FROM metrics WHERE run = runs.id AND metric NOT LIKE 'se:%'), meta FROM runs "
                           "ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return dberr(h, e, "cannot read the runs");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        size_t r = run_row(s, t, st, "id");
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
        size_t r = run_row(s, t, st, "run");
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
                     "DELETE FROM stacks WHERE run IN (SELECT id FROM gone);"
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
