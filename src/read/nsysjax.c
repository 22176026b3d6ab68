/* read/nsysjax.c - nsys-jax archive reader (.zip written by NVIDIA JAX-Toolbox nsys-jax).
 *
 * Members are read in memory with libarchive (never extracted to disk by their paths),
 * each bounded in size:
 *   nvtx_gpu_proj_trace/trace.parquet  GPU-projected NVTX ranges  -> t->ranges
 *   report_nvtx_pushpop_trace.csv.xz   CPU push/pop NVTX ranges   -> t->compile
 *                                      (and TD_K_RANGE events, for time span / CPU view)
 *   thread-metadata.parquet            thread names; XlaLauncher:#global=G,local=L,
 *                                      process=P,...# threads give devices
 *   device-metadata.parquet            GPU names (optional)
 *   dump/module_NNNN.*_gpu_after_optimizations.hlo.pb.xz
 *                                      kept compressed in t->hlo; analyse/xla/xla.c decodes
 *                                      the programs that communicate (message sizes)
 * Both trace.parquet layouts are read: nsys-jax's (Name, Projected Start, ...) and the
 * nsys 2024.5+ one (Text, Start, End, Range ID, ...).
 * Row order is kept as in the files: nsys-jax numbers module executions in that order.
 * One archive = one process = one td_trace; its rank is the launcher threads' process. */
#include "read/read.h"
#include "io/parquet.h"
#include "io/archive_lib.h"
#include "io/bound.h"
#include "io/xz.h"
#include <csv.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MEMBER ((size_t)1 << 30)   /* bound on any decompressed member */

/* What the archive's members may hold in memory (io/bound.h): td_bound_allow of the
 * archive's size, for the members read whole together, and as much again for the HLO
 * dumps that analyse/xla decodes (their sizes as their xz indexes record them). */
typedef struct {
    uint64_t size, allow, members, dumps;
} jbound;

/* Read one archive member fully into a malloc'd buffer, at most MAX_MEMBER bytes and
 * what the archive's bound has left. */
static td_status read_member(struct archive *ar, struct archive_entry *en, const char *name,
                             const char *member, jbound *jb, uint8_t **out, size_t *outn,
                             td_err *e)
{
    size_t max = MAX_MEMBER;
    if (jb->allow - jb->members < max)
        max = (size_t)(jb->allow - jb->members);
    size_t cap = 1 << 16, n = 0;
    /* the size the zip records, +1 to see the end without growing */
    if (archive_entry_size_is_set(en) && archive_entry_size(en) >= 0 &&
        (uint64_t)archive_entry_size(en) < max)
        cap = (size_t)archive_entry_size(en) + 1;
    uint8_t *b = td_xmalloc(cap);
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                free(b);
                if (max < MAX_MEMBER)
                    return td_fail(e, TD_E_FORMAT, "%s: member %s: decompresses to more "
                                   "than %zu MiB, more than this %.1f MiB archive may hold "
                                   "in memory: refused as a decompression bomb", name, member,
                                   max >> 20, (double)jb->size / 1048576);
                return td_fail(e, TD_E_FORMAT, "%s: member %s: larger than %zu MiB", name,
                               member, MAX_MEMBER >> 20);
            }
            cap = cap * 2 > max ? max : cap * 2;
            b = td_xrealloc(b, cap);
        }
        la_ssize_t r = archive_read_data(ar, b + n, cap - n);
        if (r < 0) {
            td_status st = td_fail(e, TD_E_FORMAT, "%s: member %s: %s", name, member,
                                   archive_error_string(ar) ? archive_error_string(ar)
                                                            : "corrupt zip data");
            free(b);
            return st;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    jb->members += n;
    *out = b;
    *outn = n;
    return TD_OK;
}

static td_status xz_error(const char *name, const char *member, int code, size_t at,
                         td_err *e)
{
    switch (code) {
    case TD_XZ_TOO_BIG:
        return td_fail(e, TD_E_FORMAT, "%s: member %s: decompresses to more than the "
                       "archive may hold in memory (%d times its size, at least %llu MiB): "
                       "refused as a decompression bomb", name, member, TD_BOUND_RATIO,
                       (unsigned long long)(TD_BOUND_FLOOR >> 20));
    case TD_XZ_CORRUPT:
        return td_fail(e, TD_E_FORMAT, "%s: member %s: byte %zu: corrupt xz data", name,
                       member, at);
    case TD_XZ_TRUNCATED:
        return td_fail(e, TD_E_FORMAT, "%s: member %s: truncated xz data", name, member);
    default:
        return td_fail(e, TD_E_INTERNAL, "%s: member %s: cannot start xz decoder", name,
                       member);
    }
}

/* ---- the push/pop CSV's xz, decompressed on a second thread ------------------------- */

/* The decoder thread fills pieces of a small ring while the reader goes on with the
 * archive's other members and then parses the pieces as they come: no buffer of the
 * whole CSV (7 MB per archive), and the xz time (most of an archive's) overlaps the
 * rest. Without a thread the pieces are decoded as they are parsed. */
#define PIECE ((size_t)256 << 10)
#define NPIECE 4

typedef struct xzpipe {
    td_xzr *r;
    pthread_t th;
    int thread;   /* a decoder thread runs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint8_t *buf[NPIECE];
    size_t len[NPIECE];
    size_t head, tail; /* pieces made, pieces taken */
    int done, err, stop;
    size_t at;
} xzpipe;

/* Decode the next piece into the free slot (head's): outside the lock, as only the
 * decoding side touches that slot and the decoder. Returns 1 when the stream ended. */
static int decode_piece(xzpipe *p, size_t *got, int *err, size_t *at)
{
    *at = 0;
    *err = td_xzr_read(p->r, p->buf[p->head % NPIECE], PIECE, got, at);
    return *err || !*got;
}

/* Record a decoded piece (under the lock when there is a thread). */
static void put_piece(xzpipe *p, size_t got, int err, size_t at)
{
    if (err || !got) {
        p->done = 1;
        p->err = err;
        p->at = at;
    } else
        p->len[p->head++ % NPIECE] = got;
}

static void *pipe_run(void *arg)
{
    xzpipe *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->head - p->tail == NPIECE && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        int stop = p->stop;
        pthread_mutex_unlock(&p->mu);
        if (stop)
            return NULL;
        size_t got, at;
        int err, end = decode_piece(p, &got, &err, &at);
        pthread_mutex_lock(&p->mu);
        put_piece(p, got, err, at);
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (end)
            return NULL;
    }
}

/* 0 when the decoder cannot start (TD_XZ_INIT). The first piece is decoded here, on
 * the calling thread: the dictionary is allocated then, in its malloc arena (from the
 * decoder thread's own arena it would stay resident after free: +10 MB peak). */
static int pipe_open(xzpipe *p, const uint8_t *in, size_t n, size_t max)
{
    memset(p, 0, sizeof *p);
    if (!(p->r = td_xzr_new(in, n, max)))
        return 0;
    for (int i = 0; i < NPIECE; i++)
        p->buf[i] = td_xmalloc(PIECE);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    size_t got, at;
    int err;
    decode_piece(p, &got, &err, &at);
    put_piece(p, got, err, at);
    if (!p->done)
        p->thread = pthread_create(&p->th, NULL, pipe_run, p) == 0;
    return 1;
}
/* Next piece (*len 0 at the end); an xz error code, or 0. Give it back with pipe_done. */
static int pipe_next(xzpipe *p, const uint8_t **d, size_t *len, size_t *at)
{
    if (!p->thread && p->tail == p->head && !p->done) { /* no thread: decode it now */
        size_t got, a;
        int err;
        decode_piece(p, &got, &err, &a);
        put_piece(p, got, err, a);
    }
    if (p->thread) {
        pthread_mutex_lock(&p->mu);
        while (p->tail == p->head && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
    }
    int err = 0;
    if (p->tail == p->head) { /* done */
        *len = 0;
        err = p->err;
        *at = p->at;
    } else {
        *d = p->buf[p->tail % NPIECE];
        *len = p->len[p->tail % NPIECE];
    }
    if (p->thread)
        pthread_mutex_unlock(&p->mu);
    return err;
}

static void pipe_done(xzpipe *p)
{
    if (!p->thread) {
        p->tail++;
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->tail++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void pipe_close(xzpipe *p)
{
    if (!p->r)
        return;
    if (p->thread) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        pthread_join(p->th, NULL);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    for (int i = 0; i < NPIECE; i++)
        free(p->buf[i]);
    td_xzr_free(p->r);
    p->r = NULL;
}

/* ---- push/pop CSV --------------------------------------------------------------- */

enum { C_START, C_END, C_NAME, C_PID, C_TID, C_LVL, C_NCHILD, C_RID, C_PARENT, C__N };
static const char *const csv_cols[C__N] = { "Start (ns)", "End (ns)", "Name", "PID", "TID",
                                            "Lvl", "NumChild", "RangeId", "ParentId" };

typedef struct csvctx {
    td_traceset *set;
    td_trace *t;
    const char *name;
    int map[64];          /* field index -> C_* or -1 */
    int nfields;
    size_t line;
    int header_done;
    const char *val[C__N];
    size_t len[C__N];
    char *store;          /* copies of the current row's fields */
    size_t store_n, store_cap;
    size_t off[C__N];
    int have[C__N];
    td_status st;
    td_err *e;
} csvctx;

static int parse_i64(const char *s, size_t n, int64_t *v)
{
    if (!n) return 0;
    int neg = 0;
    size_t i = 0;
    if (s[0] == '-') { neg = 1; i = 1; }
    if (i == n) return 0;
    uint64_t x = 0;
    for (; i < n; i++) {
        if (s[i] == '.') {     /* "123.0": accept a zero fraction only */
            for (size_t j = i + 1; j < n; j++) if (s[j] != '0') return 0;
            break;
        }
        if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - 9) / 10) return 0;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    if (x > (uint64_t)INT64_MAX) return 0;
    *v = neg ? -(int64_t)x : (int64_t)x;
    return 1;
}

static void csv_field(void *s, size_t n, void *data)
{
    csvctx *c = data;
    int idx = c->nfields++;
    if (c->st) return;
    if (!c->header_done) {
        if (idx < 64) {
            c->map[idx] = -1;
            for (int k = 0; k < C__N; k++)
                if (strlen(csv_cols[k]) == n && !memcmp(s, csv_cols[k], n)) c->map[idx] = k;
        }
        return;
    }
    if (idx >= 64 || c->map[idx] < 0) return;
    int k = c->map[idx];
    if (c->store_n + n + 1 > c->store_cap) {
        c->store_cap = (c->store_n + n + 1) * 2;
        c->store = td_xrealloc(c->store, c->store_cap);
    }
    memcpy(c->store + c->store_n, s, n);
    c->off[k] = c->store_n;
    c->len[k] = n;
    c->have[k] = 1;
    c->store_n += n;
    c->store[c->store_n++] = 0;
}

static void csv_row(int ch, void *data)
{
    (void)ch;
    csvctx *c = data;
    c->line++;
    int nf = c->nfields;
    c->nfields = 0;
    if (c->st) return;
    if (!c->header_done) {
        c->header_done = 1;
        int seen[C__N] = {0};
        for (int i = 0; i < nf && i < 64; i++) if (c->map[i] >= 0) seen[c->map[i]] = 1;
        for (int k = 0; k < C__N; k++)
            if (!seen[k] && k != C_LVL && k != C_NCHILD) {
                c->st = td_fail(c->e, TD_E_FORMAT, "%s: report_nvtx_pushpop_trace.csv: line 1:"
                                " missing column '%s'", c->name, csv_cols[k]);
                return;
            }
        return;
    }
    int64_t v[C__N] = {0};
    for (int k = 0; k < C__N; k++) {
        c->val[k] = c->have[k] ? c->store + c->off[k] : "";
        if (!c->have[k]) c->len[k] = 0;
    }
    for (int k = 0; k < C__N; k++) {
        if (k == C_NAME) continue;
        if (!c->len[k] && (k == C_PARENT || k == C_LVL || k == C_NCHILD)) { v[k] = -1; continue; }
        if (!parse_i64(c->val[k], c->len[k], &v[k])) {
            c->st = td_fail(c->e, TD_E_FORMAT, "%s: report_nvtx_pushpop_trace.csv: line %zu: "
                            "column '%s': expected an integer", c->name, c->line, csv_cols[k]);
            return;
        }
    }
    if (v[C_END] < v[C_START]) {
        c->st = td_fail(c->e, TD_E_FORMAT, "%s: report_nvtx_pushpop_trace.csv: line %zu: "
                        "range ends before it starts", c->name, c->line);
        return;
    }
    td_trace *t = c->t;
    td_range *r = TD_PUSH(t->compile, t->ncompile, t->compile_cap);
    memset(r, 0, sizeof *r);
    r->start = v[C_START];
    r->end = v[C_END];
    r->gpu_start = -1;
    r->gpu_end = -1;
    r->name = td_intern(c->set->strs, c->val[C_NAME], c->len[C_NAME]);
    r->track = td_trace_track(t, v[C_PID], v[C_TID]);
    r->device = -1;
    r->level = (int32_t)v[C_LVL];
    r->range_id = v[C_RID];
    r->parent_id = v[C_PARENT];
    r->num_gpu_ops = 0;
    r->num_child = (int32_t)v[C_NCHILD];
    td_event *ev = td_trace_push_event(t);
    ev->ts = r->start;
    ev->dur = r->end - r->start;
    ev->name = r->name;
    ev->track = r->track;
    ev->kind = TD_K_RANGE;
    ev->ph = 'X';
    memset(c->have, 0, sizeof c->have);
    c->store_n = 0;
}

/* The CSV, a piece at a time. An xz error comes first (as when the whole member was
 * decompressed before parsing): after a CSV error the rest is still decoded to find it. */
static td_status read_pushpop(td_traceset *set, td_trace *t, const char *name,
                              const char *member, xzpipe *xp, td_err *e)
{
    struct csv_parser p;
    if (csv_init(&p, CSV_APPEND_NULL) != 0)
        return td_fail(e, TD_E_INTERNAL, "%s: cannot start CSV parser", name);
    csvctx c;
    memset(&c, 0, sizeof c);
    c.set = set; c.t = t; c.name = name; c.e = e;
    for (int i = 0; i < 64; i++) c.map[i] = -1;
    int xerr;
    size_t at = 0, len;
    const uint8_t *d = NULL;
    while (!(xerr = pipe_next(xp, &d, &len, &at)) && len) {
        size_t done = c.st ? len : csv_parse(&p, d, len, csv_field, csv_row, &c);
        if (!c.st && done != len)
            c.st = td_fail(e, TD_E_FORMAT, "%s: report_nvtx_pushpop_trace.csv: line %zu: %s",
                           name, c.line + 1, csv_strerror(csv_error(&p)));
        pipe_done(xp);
    }
    if (xerr)
        c.st = xz_error(name, member, xerr, at, e);
    if (!c.st) csv_fini(&p, csv_field, csv_row, &c);
    csv_free(&p);
    free(c.store);
    if (!c.st && !c.header_done)
        c.st = td_fail(e, TD_E_FORMAT, "%s: report_nvtx_pushpop_trace.csv is empty", name);
    return c.st;
}

/* ---- Parquet members ---------------------------------------------------------------- */

/* Column by name, NULL (and an error) when absent and required. */
static td_status pq_col(td_pq_file *f, const char *name, const char *member, const char *col,
                        int required, const td_pq_col **out, td_err *e)
{
    *out = NULL;
    int i = td_pq_find(f, col);
    if (i < 0)
        return required ? td_fail(e, TD_E_FORMAT, "%s: member %s: no column '%s'", name,
                                  member, col) : TD_OK;
    return td_pq_read(f, i, out, e);
}

/* Numeric cell as int64 (INT32/INT64 or DOUBLE written by pandas for nullable ints). */
static int pq_int(const td_pq_col *c, size_t i, int64_t *v)
{
    if (!c || (c->valid && !c->valid[i])) return 0;
    if (c->i64) { *v = c->i64[i]; return 1; }
    if (c->f64) {
        double x = c->f64[i];
        if (!(x >= -9.2e18 && x <= 9.2e18)) return 0;
        *v = (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
        return 1;
    }
    return 0;
}

static td_status read_gpu_proj(td_traceset *set, td_trace *t, const char *name,
                               const uint8_t *d, size_t n, td_err *e)
{
    static const char *member = "nvtx_gpu_proj_trace/trace.parquet";
    char *mname = td_arena_printf(set->arena, "%s:%s", name, member);
    td_pq_file *f;
    td_status st = td_pq_open(mname, d, n, &f, e);
    if (st) return st;
    const td_pq_col *cn, *cps, *cpd, *cos, *cod, *cpid, *ctid, *cops, *clvl, *cnc, *crid, *cpar;
    /* nsys 2024.5+ writes another layout (Text, Start, End, Range ID, ...), with no
     * projection columns of its own: its Start/End are already GPU-projected */
    int alt = td_pq_find(f, "Name") < 0 && td_pq_find(f, "Text") >= 0;
    const td_pq_col *cend = NULL;
    cos = cod = cops = NULL;
    if (alt) {
        if ((st = pq_col(f, name, member, "Text", 1, &cn, e))
            || (st = pq_col(f, name, member, "Start", 1, &cps, e))
            || (st = pq_col(f, name, member, "End", 1, &cend, e))
            || (st = pq_col(f, name, member, "PID", 1, &cpid, e))
            || (st = pq_col(f, name, member, "TID", 1, &ctid, e))
            || (st = pq_col(f, name, member, "Stack Level", 0, &clvl, e))
            || (st = pq_col(f, name, member, "Children Count", 0, &cnc, e))
            || (st = pq_col(f, name, member, "Range ID", 1, &crid, e))
            || (st = pq_col(f, name, member, "Parent ID", 1, &cpar, e)))
            goto out;
        cpd = NULL;
    } else if ((st = pq_col(f, name, member, "Name", 1, &cn, e))
        || (st = pq_col(f, name, member, "Projected Start", 1, &cps, e))
        || (st = pq_col(f, name, member, "Projected Duration", 1, &cpd, e))
        || (st = pq_col(f, name, member, "Orig Start", 0, &cos, e))
        || (st = pq_col(f, name, member, "Orig Duration", 0, &cod, e))
        || (st = pq_col(f, name, member, "PID", 1, &cpid, e))
        || (st = pq_col(f, name, member, "TID", 1, &ctid, e))
        || (st = pq_col(f, name, member, "NumGPUOps", 0, &cops, e))
        || (st = pq_col(f, name, member, "Lvl", 0, &clvl, e))
        || (st = pq_col(f, name, member, "NumChild", 0, &cnc, e))
        || (st = pq_col(f, name, member, "RangeId", 1, &crid, e))
        || (st = pq_col(f, name, member, "ParentId", 1, &cpar, e)))
        goto out;
    if (!cn->str) {
        st = td_fail(e, TD_E_FORMAT, "%s: column 'Name' is not a string column", mname);
        goto out;
    }
    size_t rows = td_pq_nrows(f);
    for (size_t i = 0; i < rows; i++) {
        int64_t rid, ps, pd, pid, tid, v;
        if (!pq_int(crid, i, &rid)) continue;      /* nsys-jax drops rows without RangeId */
        int64_t pe;
        if (alt && pq_int(cend, i, &pe) && pq_int(cps, i, &ps)) pd = pe - ps;
        else if (alt) pd = -1;
        if (!pq_int(cps, i, &ps) || (!alt && !pq_int(cpd, i, &pd)) || !pq_int(cpid, i, &pid)
            || !pq_int(ctid, i, &tid) || pd < 0) {
            st = td_fail(e, TD_E_FORMAT, "%s: row %zu: missing or invalid projected time, "
                         "PID or TID", mname, i);
            goto out;
        }
        td_range *r = TD_PUSH(t->ranges, t->nranges, t->ranges_cap);
        memset(r, 0, sizeof *r);
        r->gpu_start = ps;
        r->gpu_end = ps + pd;
        int64_t os, od;
        if (pq_int(cos, i, &os) && pq_int(cod, i, &od) && od >= 0) {
            r->start = os; r->end = os + od;
        } else {
            r->start = ps; r->end = ps + pd;
        }
        r->name = td_intern(set->strs, cn->str[i], cn->len[i]);
        r->track = td_trace_track(t, pid, tid);
        r->device = -1;
        r->level = pq_int(clvl, i, &v) ? (int32_t)v : -1;
        r->range_id = rid;
        r->parent_id = pq_int(cpar, i, &v) ? v : -1;
        r->num_gpu_ops = pq_int(cops, i, &v) ? (int32_t)v : -1;
        r->num_child = pq_int(cnc, i, &v) ? (int32_t)v : 0;
    }
out:
    td_pq_close(f);
    return st;
}

/* Parse "XlaLauncher:#global=G,local=L,process=P,..." (digits only). */
static int launcher(const char *s, size_t n, int *g, int *p)
{
    static const char pre[] = "XlaLauncher:#";
    if (n < sizeof pre || memcmp(s, pre, sizeof pre - 1) || s[n - 1] != '#') return 0;
    *g = -1; *p = -1;
    const char *q = s + sizeof pre - 1, *end = s + n - 1;
    while (q < end) {
        const char *eq = memchr(q, '=', (size_t)(end - q));
        if (!eq) return 0;
        const char *v = eq + 1, *ve = v;
        long x = 0;
        while (ve < end && *ve >= '0' && *ve <= '9' && x < 1000000) x = x * 10 + (*ve++ - '0');
        if (ve == v || (ve < end && *ve != ',')) return 0;
        if (eq - q == 6 && !memcmp(q, "global", 6)) *g = (int)x;
        if (eq - q == 7 && !memcmp(q, "process", 7)) *p = (int)x;
        q = ve < end ? ve + 1 : ve;
    }
    return *g >= 0;
}

static td_status read_threads(td_traceset *set, td_trace *t, const char *name,
                              const uint8_t *d, size_t n, td_err *e)
{
    static const char *member = "thread-metadata.parquet";
    char *mname = td_arena_printf(set->arena, "%s:%s", name, member);
    td_pq_file *f;
    td_status st = td_pq_open(mname, d, n, &f, e);
    if (st) return st;
    const td_pq_col *cn, *cpid, *ctid;
    if ((st = pq_col(f, name, member, "Name", 1, &cn, e))
        || (st = pq_col(f, name, member, "PID", 1, &cpid, e))
        || (st = pq_col(f, name, member, "TID", 1, &ctid, e)))
        goto out;
    if (!cn->str) {
        st = td_fail(e, TD_E_FORMAT, "%s: column 'Name' is not a string column", mname);
        goto out;
    }
    size_t ntracks = t->ntracks;   /* name only tracks that have ranges */
    int proc = -1;
    for (size_t i = 0; i < td_pq_nrows(f); i++) {
        int64_t pid, tid;
        if (!pq_int(cpid, i, &pid) || !pq_int(ctid, i, &tid) || (cn->valid && !cn->valid[i]))
            continue;
        int g, p;
        int isl = launcher(cn->str[i], cn->len[i], &g, &p);
        for (size_t k = 0; k < ntracks; k++) {
            td_track *tk = &t->tracks[k];
            if (tk->pid != pid || tk->tid != tid) continue;
            tk->thread_name = td_intern(set->strs, cn->str[i], cn->len[i]);
            if (isl) tk->device = g;
        }
        if (isl) {
            /* launcher threads without ranges still tell the devices and process */
            uint32_t k = td_trace_track(t, pid, tid);
            t->tracks[k].thread_name = td_intern(set->strs, cn->str[i], cn->len[i]);
            t->tracks[k].device = g;
            td_trace_device(t, g);
            if (p >= 0 && (proc < 0 || p < proc)) proc = p;
        }
    }
    if (proc >= 0) t->rank = proc;
out:
    td_pq_close(f);
    return st;
}

static void read_devices(td_traceset *set, td_trace *t, const char *name,
                         const uint8_t *d, size_t n)
{
    /* Optional: only the GPU name is used; any problem just leaves it unknown. */
    td_err e2;
    td_pq_file *f;
    char *mname = td_arena_printf(set->arena, "%s:device-metadata.parquet", name);
    if (td_pq_open(mname, d, n, &f, &e2)) {
        td_warn(&set->warnings, "%s", e2.msg);
        return;
    }
    int in = td_pq_find(f, "('TARGET_INFO_GPU', 'name')");
    int ii = td_pq_find(f, "('TARGET_INFO_GPU', 'id')");
    const td_pq_col *cn = NULL, *ci = NULL;
    if (in >= 0 && !td_pq_read(f, in, &cn, &e2) && cn->str && ii >= 0
        && !td_pq_read(f, ii, &ci, &e2)) {
        for (size_t i = 0; i < cn->n; i++) {
            int64_t id;
            if (!pq_int(ci, i, &id) || id < 0 || id > 1 << 20 || (cn->valid && !cn->valid[i]))
                continue;
            /* nsys device ids are local; with one device per process map it onto the
             * launcher's global id */
            td_device *dv = t->ndevices == 1 ? &t->devices[0] : td_trace_device(t, (int32_t)id);
            dv->name = td_intern(set->strs, cn->str[i], cn->len[i]);
        }
    }
    td_pq_close(f);
}

/* Program id of an after-optimization HLO dump member
 * ("dump/module_0040.NAME.sm_8.0_gpu_after_optimizations.hlo.pb.xz"), or -1. */
static int64_t hlo_member(const char *p)
{
    static const char suf[] = "_gpu_after_optimizations.hlo.pb.xz";
    const char *b = strrchr(p, '/');
    b = b ? b + 1 : p;
    size_t l = strlen(b);
    if (strncmp(b, "module_", 7) || l < sizeof suf || strcmp(b + l - (sizeof suf - 1), suf))
        return -1;
    int64_t v = 0;
    const char *q = b + 7;
    if (*q < '0' || *q > '9') return -1;
    while (*q >= '0' && *q <= '9' && v < 1000000000) v = v * 10 + (*q++ - '0');
    return *q == '.' ? v : -1;
}

td_status td_read_nsys_jax(td_traceset *set, td_trace *t, const char *name,
                           const void *data, size_t n, td_err *e)
{
    td_status ls = td_archive_load(name, e);
    if (ls != TD_OK)
        return ls;
    struct archive *ar = archive_read_new();
    /* seekable: reads the central directory, so a truncated archive is an error */
    archive_read_support_format_zip_seekable(ar);
    if (archive_read_open_memory(ar, data, n) != ARCHIVE_OK) {
        td_status st = td_fail(e, TD_E_FORMAT, "%s: not a readable zip archive (%s)", name,
                               archive_error_string(ar) ? archive_error_string(ar) : "?");
        archive_read_free(ar);
        return st;
    }
    enum { M_PROJ, M_CSV, M_THREADS, M_DEVICES, M__N };
    static const char *const want[M__N] = { "nvtx_gpu_proj_trace/trace.parquet",
                                            "report_nvtx_pushpop_trace.csv.xz",
                                            "thread-metadata.parquet",
                                            "device-metadata.parquet" };
    uint8_t *buf[M__N] = {0};
    xzpipe xp = {0};
    int combined = 0;
    td_hlo_dump *hlo = NULL;
    size_t nhlo = 0, hlocap = 0;
    size_t len[M__N] = {0};
    jbound jb = {n, td_bound_allow(n), 0, 0};
    /* the CSV is decoded as it is parsed: its rows are what it holds */
    size_t xz_max = jb.allow < MAX_MEMBER ? (size_t)jb.allow : MAX_MEMBER;
    td_status st = TD_OK;
    struct archive_entry *en;
    int rc;
    while ((rc = archive_read_next_header(ar, &en)) == ARCHIVE_OK
           || rc == ARCHIVE_WARN) {
        const char *p = archive_entry_pathname(en);
        if (!p) continue;
        if (strstr(p, "nvtx_gpu_proj_trace/trace.parquet/")) combined = 1;
        int64_t prog = hlo_member(p);
        if (prog >= 0) {   /* kept compressed; analyse/xla/xla.c decodes what it needs */
            uint8_t *b;
            size_t bn;
            if ((st = read_member(ar, en, name, p, &jb, &b, &bn, e))) goto out;
            /* what it will decode to, as its index says (td_unxz decodes no more) */
            size_t dn = td_xz_size(b, bn);
            if (dn == SIZE_MAX || dn > jb.allow - jb.dumps) {
                if (dn != SIZE_MAX)
                    td_warn(&set->warnings, "%s: member %s: decompresses to %zu MiB, more than "
                            "this %.1f MiB archive may hold in memory: skipped (no message "
                            "sizes from program %lld)", name, p, dn >> 20,
                            (double)n / 1048576, (long long)prog);
                else
                    td_warn(&set->warnings, "%s: member %s: not a readable xz stream: "
                            "skipped (no message sizes from program %lld)", name, p,
                            (long long)prog);
                free(b);
                continue;
            }
            jb.dumps += dn;
            td_hlo_dump *h = TD_PUSH(hlo, nhlo, hlocap);
            h->program = prog;
            uint8_t *copy = td_arena_alloc(set->arena, bn ? bn : 1);
            memcpy(copy, b, bn);
            h->xz = copy;
            h->n = bn;
            free(b);
            continue;
        }
        /* archives made by nsys-jax may sit under one top directory */
        for (int m = 0; m < M__N; m++) {
            size_t pl = strlen(p), wl = strlen(want[m]);
            if (pl < wl || strcmp(p + pl - wl, want[m]) || (pl > wl && p[pl - wl - 1] != '/'))
                continue;
            if (buf[m]) break;
            if ((st = read_member(ar, en, name, p, &jb, &buf[m], &len[m], e))) goto out;
            if (m == M_CSV && !pipe_open(&xp, buf[m], len[m], xz_max)) {
                st = xz_error(name, want[M_CSV], TD_XZ_INIT, 0, e);
                goto out;
            }
            break;
        }
    }
    if (rc != ARCHIVE_EOF) {
        st = td_fail(e, TD_E_FORMAT, "%s: corrupt zip archive (%s)", name,
                     archive_error_string(ar) ? archive_error_string(ar) : "?");
        goto out;
    }
    if (combined && !buf[M_PROJ]) {
        st = td_fail(e, TD_E_FORMAT, "%s: an nsys-jax-combine archive (one folder of Parquet "
                     "files per process) is not supported: give the per-process nsys-jax "
                     "archives instead", name);
        goto out;
    }
    if (!buf[M_PROJ] && !buf[M_CSV]) {
        st = td_fail(e, TD_E_FORMAT, "%s: zip archive without %s or %s: not an nsys-jax "
                     "report", name, want[M_PROJ], want[M_CSV]);
        goto out;
    }
    t->format = TD_FMT_NSYS_JAX;
    if (buf[M_CSV]) {
        if ((st = read_pushpop(set, t, name, want[M_CSV], &xp, e))) goto out;
    } else
        td_warn(&set->warnings, "%s: no %s: no compile statistics", name, want[M_CSV]);
    if (buf[M_PROJ]) {
        if ((st = read_gpu_proj(set, t, name, buf[M_PROJ], len[M_PROJ], e))) goto out;
    } else
        td_warn(&set->warnings, "%s: no %s: no module statistics", name, want[M_PROJ]);
    if (buf[M_THREADS]) {
        if ((st = read_threads(set, t, name, buf[M_THREADS], len[M_THREADS], e))) goto out;
    } else {
        /* archives of nsys-jax before thread-metadata.parquet (mid-2024): each thread
         * launching modules stands for one device, numbered in order of appearance;
         * the main thread (TID = PID) only when it is the only one. With several GPUs
         * PjRt runs a program of several devices on each device's launcher thread and a
         * single-device program on the calling thread, which is no device of its own
         * (analyse/xla/xla.c puts its modules on the first device, as with thread
         * metadata). Devices are local to the archive (t->devices_local). */
        int32_t next = 0;
        int others = 0, main_launches = 0;
        for (size_t i = 0; i < t->nranges; i++) {
            const td_track *tk = &t->tracks[t->ranges[i].track];
            const char *nm = td_strget(set->strs, t->ranges[i].name);
            if (strncmp(nm, "TSL:XlaModule:", 14) && strncmp(nm, "XlaModule:", 10))
                continue;
            if (tk->pid == tk->tid) main_launches = 1;
            else others = 1;
        }
        for (size_t i = 0; i < t->nranges; i++) {
            td_track *tk = &t->tracks[t->ranges[i].track];
            const char *nm = td_strget(set->strs, t->ranges[i].name);
            if (tk->device >= 0 || (strncmp(nm, "TSL:XlaModule:", 14) && strncmp(nm, "XlaModule:", 10)))
                continue;
            if (others && tk->pid == tk->tid)
                continue;
            tk->device = next++;
            td_trace_device(t, tk->device);
        }
        t->devices_local = 1;
        td_warn(&set->warnings, "%s: no %s (an archive of nsys-jax before mid-2024): each "
                "thread launching modules is taken as its own device%s (%d)", name,
                want[M_THREADS], others && main_launches ? ", the main thread's modules "
                "as the first device's" : "", (int)next);
    }
    if (buf[M_DEVICES]) read_devices(set, t, name, buf[M_DEVICES], len[M_DEVICES]);
    /* device of each projected range = its launching thread's device (the main thread
     * case is resolved by analyse/xla/xla.c, as nsys-jax does) */
    for (size_t i = 0; i < t->nranges; i++) t->ranges[i].device = t->tracks[t->ranges[i].track].device;
    t->nevents = t->ncompile + t->nranges;
    if (nhlo) {
        t->hlo = td_arena_alloc(set->arena, nhlo * sizeof *hlo);
        memcpy(t->hlo, hlo, nhlo * sizeof *hlo);
        t->nhlo = nhlo;
    }
out:
    pipe_close(&xp);
    free(hlo);
    for (int m = 0; m < M__N; m++) free(buf[m]);
    archive_read_free(ar);
    return st;
}
