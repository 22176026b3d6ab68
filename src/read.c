/* read.c - input dispatch: files, stdin, directories and tar archives; format detection
 * from content; rank assignment and event ordering once every input is read.
 *
 * Detection looks at the first bytes only: gzip magic (then again at the decompressed
 * bytes), "SQLite format 3", a zip local header, a ustar header, or JSON ('{' / '['
 * after whitespace and a BOM). Archives are read as streams by libarchive (tar format
 * only; gzip is undone by our own ISA-L layer underneath), and their members are never
 * written to disk. */
#define _POSIX_C_SOURCE 200809L
#include "read.h"
#include "instream.h"
#include "read_chrome.h"
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PEEK 1024
/* Formats read whole into memory (SQLite, zip) are refused beyond this size when they
 * come out of a decompressor (a small file must not expand into all of memory). */
#define WHOLE_LIMIT_COMPRESSED ((size_t)4 << 30)
#define WHOLE_LIMIT_PLAIN ((size_t)64 << 30)

enum { C_UNKNOWN, C_JSON, C_SQLITE, C_ZIP, C_TAR, C_EMPTY };

static int classify(const unsigned char *p, size_t n)
{
    if (n == 0)
        return C_EMPTY;
    if (n >= 16 && memcmp(p, "SQLite format 3", 16) == 0)
        return C_SQLITE;
    if (n >= 4 && memcmp(p, "PK\3\4", 4) == 0)
        return C_ZIP;
    if (n >= 262 && memcmp(p + 257, "ustar", 5) == 0)
        return C_TAR;
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i < n && (p[i] == '{' || p[i] == '['))
        return C_JSON;
    return C_UNKNOWN;
}

/* Forget the last trace added (a JSON file in a directory that is not a trace). */
static void drop_last(td_traceset *set)
{
    td_trace *t = set->tr[--set->n];
    free(t->ev);
    free(t->aux);
    free(t->tracks);
    free(t->cats);
    free(t->flows);
    free(t->counters);
    free(t->ranges);
    free(t->compile);
    free(t->devices);
}

typedef struct {
    td_in *in;
    td_err *e;
    unsigned char buf[64 << 10];
    int failed;
} arctx;

static la_ssize_t ar_read(struct archive *a, void *ud, const void **out)
{
    arctx *x = ud;
    ptrdiff_t n = td_in_read(x->in, x->buf, sizeof x->buf, x->e);
    if (n < 0) {
        x->failed = 1;
        archive_set_error(a, EIO, "%s", x->e->msg);
        return -1;
    }
    *out = x->buf;
    return n;
}

static td_status read_stream(td_traceset *set, td_in *in, const char *name, int quiet,
                             int depth, int *found, td_err *e);

/* Each regular member of a tar stream that is a trace becomes one trace. */
static td_status read_tar(td_traceset *set, td_in *in, const char *name, int depth,
                          int *found, td_err *e)
{
    if (depth > 0) {
        td_warn(&set->warnings, "%s: archive inside an archive skipped", name);
        return TD_OK;
    }
    struct archive *a = archive_read_new();
    archive_read_support_format_tar(a);
    arctx *x = td_xcalloc(1, sizeof *x);
    x->in = in;
    x->e = e;
    td_status st = TD_OK;
    if (archive_read_open(a, x, NULL, ar_read, NULL) != ARCHIVE_OK) {
        st = x->failed ? e->code
                       : td_fail(e, TD_E_FORMAT, "%s: byte 0: %s", name, archive_error_string(a));
        goto out;
    }
    int nfound = 0;
    for (;;) {
        struct archive_entry *ent;
        int r = archive_read_next_header(a, &ent);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            long long at = (long long)archive_filter_bytes(a, 0);
            if (nfound && !x->failed) { /* a truncated archive: keep the members read */
                td_warn(&set->warnings, "%s: byte %lld: archive damaged after %d traces (%s)",
                        name, at, nfound, archive_error_string(a));
                break;
            }
            st = x->failed ? e->code
                           : td_fail(e, TD_E_FORMAT, "%s: byte %lld: %s", name, at,
                                     archive_error_string(a));
            goto out;
        }
        if (archive_entry_filetype(ent) != AE_IFREG)
            continue;
        const char *mp = archive_entry_pathname(ent);
        char *mname = td_arena_printf(set->arena, "%s:%s", name, mp ? mp : "?");
        td_in *m = td_in_open_archive_member(a, mname);
        int f = 0;
        st = read_stream(set, m, mname, 1, depth + 1, &f, e);
        td_in_close(m);
        if (st != TD_OK)
            goto out;
        nfound += f;
    }
    if (!nfound)
        st = td_fail(e, TD_E_FORMAT, "%s: no traces in the archive", name);
    *found += nfound;
out:
    archive_read_free(a);
    free(x);
    return st;
}

static td_status read_whole(td_traceset *set, td_in *in, const char *name, int cls,
                            int *found, td_err *e)
{
    unsigned char *data;
    size_t n;
    size_t lim = td_in_is_gzip(in) ? WHOLE_LIMIT_COMPRESSED : WHOLE_LIMIT_PLAIN;
    td_status st = td_in_read_all(in, lim, &data, &n, e);
    if (st != TD_OK)
        return st;
    td_trace *t = td_traceset_add(set, name);
    t->rank = -1;
    t->gzip = td_in_is_gzip(in);
    /* everything was read: size and hash are known before the reader runs (a reader
     * that splits one file into several traces copies them) */
    st = td_in_finish(in, &t->bytes, t->sha256, e);
    if (st != TD_OK) {
        free(data);
        return st;
    }
    if (cls == C_SQLITE) {
        t->format = TD_FMT_NSYS_SQLITE;
        st = td_read_nsys_sqlite(set, t, name, data, n, e);
    } else {
        t->format = TD_FMT_NSYS_JAX;
        st = td_read_nsys_jax(set, t, name, data, n, e);
    }
    free(data);
    if (st == TD_OK)
        (*found)++;
    return st;
}

/* Detect and read one stream. quiet: content that is not a trace is skipped (inside a
 * directory or an archive) instead of being an error. */
static td_status read_stream(td_traceset *set, td_in *in, const char *name, int quiet,
                             int depth, int *found, td_err *e)
{
    const unsigned char *p;
    ptrdiff_t n = td_in_peek(in, PEEK, &p, e);
    if (n < 0)
        return e->code;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
        td_in_gunzip(in);
        n = td_in_peek(in, PEEK, &p, e);
        if (n < 0)
            return e->code;
    }
    int cls = classify(p, (size_t)n);
    switch (cls) {
    case C_TAR:
        return read_tar(set, in, name, depth, found, e);
    case C_SQLITE:
    case C_ZIP:
        return read_whole(set, in, name, cls, found, e);
    case C_JSON: {
        td_trace *t = td_traceset_add(set, name);
        t->rank = -1;
        t->gzip = td_in_is_gzip(in);
        int no_events = 0;
        td_status st = td_read_chrome_ex(set, t, in, &no_events, e);
        if (st != TD_OK) {
            if (quiet && no_events) {
                drop_last(set);
                e->code = TD_OK;
                e->msg[0] = 0;
                return TD_OK;
            }
            return st;
        }
        st = td_in_finish(in, &t->bytes, t->sha256, e);
        if (st == TD_OK)
            (*found)++;
        return st;
    }
    case C_EMPTY:
        if (quiet)
            return TD_OK;
        return td_fail(e, TD_E_FORMAT, "%s: empty file", name);
    default:
        if (quiet)
            return TD_OK;
        return td_fail(e, TD_E_FORMAT,
                       "%s: not a trace (expected Chrome JSON, gzip, tar, SQLite or zip)", name);
    }
}

static td_status read_file(td_traceset *set, const char *path, const char *name, int quiet,
                           int *found, td_err *e)
{
    td_in *in = td_in_open_file(path, name, e);
    if (!in)
        return e->code;
    td_status st = read_stream(set, in, name, quiet, 0, found, e);
    td_in_close(in);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static td_status read_dir(td_traceset *set, const char *dir, td_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return td_fail(e, TD_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        *TD_PUSH(names, n, cap) = td_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    td_status st = TD_OK;
    int found = 0;
    size_t dl = strlen(dir);
    for (size_t i = 0; i < n && st == TD_OK; i++) {
        char *path = td_arena_printf(set->arena, "%s%s%s", dir,
                                     dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        st = read_file(set, path, path, 1, &found, e);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (st == TD_OK && !found)
        st = td_fail(e, TD_E_FORMAT, "%s: no traces in this directory", dir);
    return st;
}

td_status td_read_input(td_traceset *set, const char *arg, td_err *e)
{
    int found = 0;
    if (strcmp(arg, "-") == 0)
        return read_file(set, "-", "stdin", 0, &found, e);
    struct stat sb;
    if (stat(arg, &sb) != 0)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", arg, strerror(errno));
    if (S_ISDIR(sb.st_mode))
        return read_dir(set, arg, e);
    return read_file(set, arg, arg, 0, &found, e);
}

/* ---- after reading ---- */

static int ev_before(const td_event *a, const td_event *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

/* Stable bottom-up merge sort over natural runs: an already sorted trace costs one
 * scan; the temporary buffer only holds the left run of a merge. (Kineto files have
 * short runs - about 7 events on average - as activity types are written one after
 * the other.) */
static void sort_run(td_event *v, size_t n)
{
    if (n < 2)
        return;
    size_t i = 1;
    while (i < n && !ev_before(&v[i], &v[i - 1]))
        i++;
    if (i == n)
        return; /* already in order */
    /* run boundaries */
    size_t *runs = NULL, nr = 0, rc = 0;
    *TD_PUSH(runs, nr, rc) = 0;
    for (i = 1; i < n; i++)
        if (ev_before(&v[i], &v[i - 1]))
            *TD_PUSH(runs, nr, rc) = i;
    *TD_PUSH(runs, nr, rc) = n;
    td_event *tmp = NULL;
    size_t tcap = 0;
    while (nr > 2) {
        size_t w = 0;
        size_t k;
        for (k = 0; k + 2 < nr; k += 2) {
            size_t lo = runs[k], mid = runs[k + 1], hi = runs[k + 2];
            if (ev_before(&v[mid], &v[mid - 1])) {
                size_t ln = mid - lo;
                if (ln > tcap) {
                    free(tmp);
                    tcap = ln;
                    tmp = td_xmalloc(tcap * sizeof *tmp);
                }
                memcpy(tmp, v + lo, ln * sizeof *tmp);
                size_t a = 0, b = mid, o = lo;
                while (a < ln && b < hi) {
                    if (ev_before(&v[b], &tmp[a]))
                        v[o++] = v[b++];
                    else
                        v[o++] = tmp[a++];
                }
                while (a < ln)
                    v[o++] = tmp[a++];
            }
            runs[w++] = lo;
        }
        if (k + 1 < nr) /* odd run left over */
            runs[w++] = runs[k];
        runs[w++] = n;
        nr = w;
    }
    free(tmp);
    free(runs);
}

/* Merge two sorted adjacent ranges v[0..mid) and v[mid..n), stable. */
static void merge_halves(td_event *v, size_t mid, size_t n)
{
    if (mid == 0 || mid == n || !ev_before(&v[mid], &v[mid - 1]))
        return;
    td_event *tmp = td_xmalloc(mid * sizeof *tmp);
    memcpy(tmp, v, mid * sizeof *tmp);
    size_t a = 0, b = mid, o = 0;
    while (a < mid && b < n) {
        if (ev_before(&v[b], &tmp[a]))
            v[o++] = v[b++];
        else
            v[o++] = tmp[a++];
    }
    while (a < mid)
        v[o++] = tmp[a++];
    free(tmp);
}

typedef struct {
    td_event *v;
    size_t n;
} sort_job;

static void *sort_job_run(void *arg)
{
    sort_job *j = arg;
    sort_run(j->v, j->n);
    return NULL;
}

/* Large traces: the two halves are sorted on two threads (the reader's second core is
 * idle by now), then merged. */
static void sort_events(td_event *v, size_t n)
{
    size_t i = 1;
    while (i < n && !ev_before(&v[i], &v[i - 1]))
        i++;
    if (i >= n)
        return;
    if (n < (1u << 20)) {
        sort_run(v, n);
        return;
    }
    size_t mid = n / 2;
    sort_job j = {v + mid, n - mid};
    pthread_t th;
    int threaded = pthread_create(&th, NULL, sort_job_run, &j) == 0;
    sort_run(v, mid);
    if (threaded)
        pthread_join(th, NULL);
    else
        sort_run(v + mid, n - mid);
    merge_halves(v, mid, n);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void td_read_finish(td_traceset *set)
{
    int distinct = set->n > 0;
    int *r = td_xmalloc((set->n + 1) * sizeof *r);
    for (size_t i = 0; i < set->n; i++) {
        r[i] = set->tr[i]->rank;
        if (r[i] < 0)
            distinct = 0;
    }
    if (distinct) {
        qsort(r, set->n, sizeof *r, cmp_int);
        for (size_t i = 1; i < set->n; i++)
            if (r[i] == r[i - 1])
                distinct = 0;
    }
    free(r);
    if (!distinct)
        for (size_t i = 0; i < set->n; i++)
            set->tr[i]->rank = (int)i;
    for (size_t i = 0; i < set->n; i++)
        sort_events(set->tr[i]->ev, set->tr[i]->nev);
}
