/* read/read.c - input dispatch: files, stdin, directories and tar archives; format detection
 * from content through one table of formats (formats[]: name, sniff, read); rank
 * assignment and event ordering once every input is read.
 *
 * Detection looks at the first bytes only: gzip magic (then again at the decompressed
 * bytes), then each format's sniff in the table's order: "SQLite format 3", a zip local
 * header, a ustar header, the JSON-looking formats ('{' / '[' after whitespace and a BOM),
 * the text ones. Archives are read as streams by libarchive (tar format
 * only; gzip is undone by our own ISA-L layer underneath), and their members are never
 * written to disk. */
#define _POSIX_C_SOURCE 200809L
#include "read/read.h"
#include "io/instream.h"
#include "read/chrome.h"
#include "read/aiu.h"
#include "read/samba.h"
#include "read/ipu.h"
#include "read/rocprof.h"
#include "read/xplane.h"
#include "read/logdir.h"
#include "io/archive_lib.h"
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

/* ---- the formats ----
 *
 * Detection tries formats[] in order on the first PEEK bytes (after gzip is undone): the
 * first row whose sniff says yes reads the stream. Every reader has the same signature
 * (a rd, the error); adding a format is adding a row here and the reader's file. The
 * order matters: the binary magics first, then the JSON-looking formats that are not
 * Chrome traces, then Chrome JSON (any other JSON), then the text ones. */

/* What a reader is given. */
typedef struct {
    td_traceset *set;
    td_in *in;        /* peeked, gzip undone */
    const char *name; /* shown in messages */
    const char *path; /* a file on disk (not stdin, not an archive member), or NULL */
    int quiet;        /* content that is not a trace is skipped, not an error */
    int depth;        /* 0, or 1 inside an archive */
    int *found;       /* traces read: the reader adds to it */
} rd;

typedef struct {
    const char *name;
    int (*sniff)(const unsigned char *p, size_t n);
    td_status (*read)(const rd *x, td_err *e);
} format;

static int sniff_sqlite(const unsigned char *p, size_t n)
{
    return n >= 16 && memcmp(p, "SQLite format 3", 16) == 0;
}

static int sniff_zip(const unsigned char *p, size_t n)
{
    return n >= 4 && memcmp(p, "PK\3\4", 4) == 0;
}

static int sniff_tar(const unsigned char *p, size_t n)
{
    return n >= 262 && memcmp(p + 257, "ustar", 5) == 0;
}

/* '{' or '[' after whitespace and a BOM */
static int sniff_json(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i < n && (p[i] == '{' || p[i] == '[');
}

static int sniff_aiu_flex(const unsigned char *p, size_t n)
{
    return sniff_json(p, n) && td_aiu_looks_flex(p, n);
}

static int sniff_ipu(const unsigned char *p, size_t n)
{
    return sniff_json(p, n) && td_ipu_sniff(p, n);
}

/* tracedoc's stack-trace report */
static int sniff_samba_report(const unsigned char *p, size_t n)
{
    return sniff_json(p, n) && td_samba_is_report(p, n);
}

/* A trace added for the stream x reads; rank and gzip as read. */
static td_trace *new_trace(const rd *x)
{
    td_trace *t = td_traceset_add(x->set, x->name);
    t->rank = -1;
    t->gzip = td_in_is_gzip(x->in);
    return t;
}

typedef td_status (*whole_fn)(td_traceset *set, td_trace *t, const char *name,
                              const unsigned char *data, size_t n, td_err *e);

/* Formats read whole into memory: one trace from the bytes. */
static td_status read_whole(const rd *x, whole_fn fn, td_err *e)
{
    unsigned char *data;
    size_t n;
    size_t lim = td_in_is_gzip(x->in) ? WHOLE_LIMIT_COMPRESSED : WHOLE_LIMIT_PLAIN;
    td_status st = td_in_read_all(x->in, lim, &data, &n, e);
    if (st != TD_OK)
        return st;
    td_trace *t = new_trace(x);
    /* everything was read: size and hash are known before the reader runs (a reader
     * that splits one file into several traces copies them) */
    st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st != TD_OK) {
        free(data);
        return st;
    }
    st = fn(x->set, t, x->name, data, n, e);
    free(data);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

static td_status whole_nsys(td_traceset *set, td_trace *t, const char *name,
                            const unsigned char *data, size_t n, td_err *e)
{
    if (td_rocpd_probe_mem(data, n)) /* rocprofv3's rocpd database */
        return td_read_rocpd_mem(set, t, name, data, n, e);
    t->format = TD_FMT_NSYS_SQLITE;
    return td_read_nsys_sqlite(set, t, name, data, n, e);
}

static td_status whole_nsys_jax(td_traceset *set, td_trace *t, const char *name,
                                const unsigned char *data, size_t n, td_err *e)
{
    t->format = TD_FMT_NSYS_JAX;
    return td_read_nsys_jax(set, t, name, data, n, e);
}

static td_status whole_samba_report(td_traceset *set, td_trace *t, const char *name,
                                    const unsigned char *data, size_t n, td_err *e)
{
    return td_samba_read_report(set, t, name, data, n, e);
}

/* A file on disk is opened by SQLite itself (memory holds the rows kept, not the file);
 * stdin, gzip, archive members and WAL-mode files are read whole. An SQLite file with
 * rocpd's views is rocprofv3's database, any other an Nsight Systems export. */
static td_status read_nsys(const rd *x, td_err *e)
{
    const unsigned char *p;
    struct stat sb;
    if (x->path && !td_in_is_gzip(x->in) && stat(x->path, &sb) == 0 && S_ISREG(sb.st_mode) &&
        td_rocpd_probe_file(x->path)) {
        td_trace *t = new_trace(x);
        td_status st = td_in_finish(x->in, &t->bytes, t->sha256, e);
        if (st == TD_OK)
            st = td_read_rocpd_file(x->set, t, x->name, x->path, e);
        if (st == TD_OK)
            (*x->found)++;
        return st;
    }
    if (x->path && !td_in_is_gzip(x->in) && td_in_peek(x->in, 100, &p, e) >= 100 &&
        td_nsys_file_ok(p, 100) && stat(x->path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        unsigned char head[100];
        memcpy(head, p, sizeof head);
        td_trace *t = new_trace(x);
        t->format = TD_FMT_NSYS_SQLITE;
        /* size and hash first: a report split into processes copies them */
        td_status st = td_in_finish(x->in, &t->bytes, t->sha256, e);
        if (st == TD_OK)
            st = td_read_nsys_sqlite_file(x->set, t, x->name, x->path, head,
                                          (uint64_t)sb.st_size, e);
        if (st == TD_OK)
            (*x->found)++;
        return st;
    }
    return read_whole(x, whole_nsys, e);
}

static td_status read_nsys_jax(const rd *x, td_err *e)
{
    return read_whole(x, whole_nsys_jax, e);
}

/* Read as a stream (read/aiu.c); size and hash are known at the end. */
static td_status read_aiu(const rd *x, td_err *e)
{
    td_trace *t = new_trace(x);
    td_status st = td_read_aiu_in(x->set, t, x->in, e);
    if (st == TD_OK)
        st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

static td_status read_samba_report(const rd *x, td_err *e)
{
    return read_whole(x, whole_samba_report, e);
}

/* A DeepRT compile log given among the inputs: its ideal-cycle tables join the set (it
 * is not a trace of its own). */
static td_status read_complog(const rd *x, td_err *e)
{
    unsigned char *data;
    size_t n;
    td_status st = td_in_read_all(x->in, (size_t)1 << 30, &data, &n, e);
    if (st != TD_OK)
        return st;
    st = td_read_complog(x->set, x->name, (const char *)data, n, e);
    free(data);
    return st;
}

/* Read as a stream; size and hash are known at the end. */
static td_status read_ipu(const rd *x, td_err *e)
{
    td_trace *t = new_trace(x);
    td_status st = td_read_ipu(x->set, t, x->in, e);
    if (st == TD_OK)
        st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

/* Read as a stream; size and hash are known at the end. */
static td_status read_rocprof_json(const rd *x, td_err *e)
{
    td_trace *t = new_trace(x);
    td_status st = td_read_rocprof_json(x->set, t, x->in, e);
    if (st == TD_OK)
        st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

static td_status read_chrome(const rd *x, td_err *e)
{
    td_trace *t = new_trace(x);
    int no_events = 0;
    td_status st = td_read_chrome_ex(x->set, t, x->in, &no_events, e);
    if (st != TD_OK) {
        if (x->quiet && no_events) {
            td_traceset_drop_last(x->set); /* a JSON file in a directory that is not a trace */
            e->code = TD_OK;
            e->msg[0] = 0;
            return TD_OK;
        }
        return st;
    }
    st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

/* A stack-tracing artifact (CSV): collected, the trace is made by td_samba_input_done. */
static td_status read_samba(const rd *x, td_err *e)
{
    td_status st = td_samba_collect(x->set, x->in, x->name, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

/* A rocprofv3 CSV file: read into its prefix's trace, finished by td_rocprof_csv_done. */
static td_status read_rocprof_csv(const rd *x, td_err *e)
{
    td_status st = td_rocprof_csv_collect(x->set, x->in, x->name, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

/* XPlane: read twice (read/xplane.h); a regular file is opened again for the first
 * reading, anything else is held in memory */
static td_status read_xplane(const rd *x, td_err *e)
{
    struct stat sb;
    const char *path = x->path && stat(x->path, &sb) == 0 && S_ISREG(sb.st_mode) ? x->path : NULL;
    td_trace *t = new_trace(x);
    size_t lim = td_in_is_gzip(x->in) ? WHOLE_LIMIT_COMPRESSED : WHOLE_LIMIT_PLAIN;
    td_status st = td_read_xplane(x->set, t, x->in, path, lim, e);
    if (st == TD_OK)
        st = td_in_finish(x->in, &t->bytes, t->sha256, e);
    if (st == TD_OK)
        (*x->found)++;
    return st;
}

static td_status read_tar(const rd *x, td_err *e);

static const format formats[] = {
    {"Nsight Systems SQLite or rocpd", sniff_sqlite, read_nsys},
    {"nsys-jax zip", sniff_zip, read_nsys_jax},
    {"tar archive", sniff_tar, read_tar},
    {"XPlane (XSpace protobuf)", td_xplane_sniff, read_xplane},
    {"IBM AIU flex trace", sniff_aiu_flex, read_aiu},
    {"DeepRT compile log", td_aiu_looks_complog, read_complog}, /* "[DeepRT] ..." may look like JSON */
    {"PopVision (IPU) JSON", sniff_ipu, read_ipu},
    {"tracedoc stack-trace report", sniff_samba_report, read_samba_report},
    {"rocprofv3 JSON", td_rocprof_json_sniff, read_rocprof_json},
    {"Chrome trace JSON", sniff_json, read_chrome},
    {"rocprofv3 CSV", td_rocprof_csv_sniff, read_rocprof_csv},
    {"SambaTune stack-trace artifact", td_samba_sniff, read_samba},
};

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

static td_status read_stream(td_traceset *set, td_in *in, const char *name,
                             const char *path, int quiet, int depth, int *found, td_err *e);

/* Each regular member of a tar stream that is a trace becomes one trace. */
static td_status read_tar(const rd *arg, td_err *e)
{
    td_traceset *set = arg->set;
    td_in *in = arg->in;
    const char *name = arg->name;
    int depth = arg->depth, *found = arg->found;
    if (depth > 0) {
        td_warn(&set->warnings, "%s: archive inside an archive skipped", name);
        return TD_OK;
    }
    td_status ls = td_archive_load(name, e);
    if (ls != TD_OK)
        return ls;
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
        td_in_set_outer(m, in); /* the archive as stored bounds what its members hold */
        int f = 0;
        st = read_stream(set, m, mname, NULL, 1, depth + 1, &f, e);
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

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether the stream holds nothing but white space (and a BOM): p/n are its first peeked
 * bytes. 1: blank; 0: not blank, nothing consumed. When the peeked start is blank the rest
 * is read (a stream that starts with PEEK blank bytes is no trace either way): -1 when a
 * non-blank byte follows (the stream is consumed), -2 on a read error (e filled). */
static int only_space(td_in *in, const unsigned char *p, ptrdiff_t n, td_err *e)
{
    ptrdiff_t i = n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    for (; i < n; i++)
        if (!is_space(p[i]))
            return 0;
    if (n < PEEK)
        return 1;
    unsigned char buf[4096];
    ptrdiff_t got;
    while ((got = td_in_read(in, buf, sizeof buf, e)) > 0)
        for (ptrdiff_t k = 0; k < got; k++)
            if (!is_space(buf[k]))
                return -1;
    return got == 0 ? 1 : -2;
}

/* Detect and read one stream. quiet: content that is not a trace is skipped (inside a
 * directory or an archive) instead of being an error. */
static td_status read_stream(td_traceset *set, td_in *in, const char *name,
                             const char *path, int quiet, int depth, int *found, td_err *e)
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
    int blank = n == 0 ? 1 : only_space(in, p, n, e);
    if (blank == 1) {
        if (quiet)
            return TD_OK;
        /* a capture that wrote nothing: TD_E_EMPTY like a trace without events (issue 21) */
        return td_fail(e, TD_E_EMPTY, "%s: the input holds no events (%s); nothing written",
                       name, n == 0 ? "an empty file" : "only white space");
    }
    if (blank == -2)
        return e->code;
    if (blank == -1) {
        if (quiet)
            return TD_OK;
        return td_fail(e, TD_E_FORMAT, "%s: not a trace (more than 1 KiB of white space before any content)", name);
    }
    const rd x = {set, in, name, path, quiet, depth, found};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (formats[i].sniff(p, (size_t)n))
            return formats[i].read(&x, e);
    if (quiet)
        return TD_OK;
    return td_fail(e, TD_E_FORMAT,
                   "%s: not a trace (expected Chrome JSON, gzip, tar, SQLite, zip or XPlane)", name);
}

static td_status read_file(td_traceset *set, const char *path, const char *name, int quiet,
                           int *found, td_err *e)
{
    td_in *in = td_in_open_file(path, name, e);
    if (!in)
        return e->code;
    td_in_set_held_base(in, td_traceset_bytes(set));
    td_status st = read_stream(set, in, name, strcmp(path, "-") ? path : NULL, quiet, 0, found,
                               e);
    td_in_close(in);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static td_status read_dir_files(td_traceset *set, const char *dir, td_err *e)
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
    n = td_logdir_filter(dir, names, n, &set->warnings);
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

/* A directory: its files, or the newest run's of a TensorBoard log directory */
static td_status read_dir(td_traceset *set, const char *dir, td_err *e)
{
    char *run = td_logdir_run(dir, &set->warnings);
    if (!run)
        return read_dir_files(set, dir, e);
    td_status st = read_dir_files(set, run, e);
    free(run);
    return st;
}

static td_status read_input(td_traceset *set, const char *arg, td_err *e)
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

td_status td_read_input(td_traceset *set, const char *arg, td_err *e)
{
    size_t before = set->n;
    /* stack-tracing artifacts met while reading arg become one trace */
    td_status st = td_samba_input_done(set, arg, read_input(set, arg, e), e);
    st = td_rocprof_csv_done(set, st, e); /* rocprofv3 CSV files met while reading arg */
    const char *in = td_arena_strdup(set->arena, arg);
    for (size_t i = before; i < set->n; i++)
        set->tr[i]->input = in;
    return st;
}

/* ---- after reading ---- */

static int ev_before(const td_event *a, const td_event *b)
{
    return a->ts < b->ts || (a->ts == b->ts && a->dur > b->dur);
}

static void reverse(td_event *v, size_t a, size_t b)
{
    while (a + 1 < b) {
        td_event x = v[a];
        v[a++] = v[--b];
        v[b] = x;
    }
}

/* Merge sorted v[lo..mid) and v[mid..hi) stably, with a temporary buffer of tcap events.
 * A left run larger than the buffer is split (SymMerge style): its middle element's
 * place in the right run is found by binary search, the two blocks in between swap
 * places by rotation, and two smaller merges remain. Memory stays at tcap whatever the
 * run sizes. */
static void merge(td_event *v, size_t lo, size_t mid, size_t hi, td_event *tmp, size_t tcap)
{
    for (;;) {
        if (lo == mid || mid == hi || !ev_before(&v[mid], &v[mid - 1]))
            return;
        size_t ln = mid - lo;
        if (ln <= tcap) {
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
            return;
        }
        size_t a = lo + ln / 2, l = mid, r = hi;
        while (l < r) { /* first right element not before v[a] */
            size_t m = l + (r - l) / 2;
            if (ev_before(&v[m], &v[a]))
                l = m + 1;
            else
                r = m;
        }
        size_t b = l;
        reverse(v, a, mid);
        reverse(v, mid, b);
        reverse(v, a, b);
        size_t m2 = a + (b - mid); /* v[a..mid) now starts here */
        merge(v, lo, a, m2, tmp, tcap);
        lo = m2;
        mid = m2 + (mid - a);
    }
}

/* Stable bottom-up merge sort over natural runs: an already sorted trace costs one
 * scan. (Kineto files have short runs - about 7 events on average - as activity types
 * are written one after the other.) */
static void sort_run(td_event *v, size_t n, size_t tcap)
{
    if (n < 2)
        return;
    size_t i = 1;
    while (i < n && !ev_before(&v[i], &v[i - 1]))
        i++;
    if (i == n)
        return; /* already in order */
    size_t *runs = NULL, nr = 0, rc = 0;
    *TD_PUSH(runs, nr, rc) = 0;
    for (i = 1; i < n; i++)
        if (ev_before(&v[i], &v[i - 1]))
            *TD_PUSH(runs, nr, rc) = i;
    *TD_PUSH(runs, nr, rc) = n;
    if (tcap > n / 2 + 1)
        tcap = n / 2 + 1;
    td_event *tmp = td_xmalloc(tcap * sizeof *tmp);
    while (nr > 2) {
        size_t w = 0, k;
        for (k = 0; k + 2 < nr; k += 2) {
            merge(v, runs[k], runs[k + 1], runs[k + 2], tmp, tcap);
            runs[w++] = runs[k];
        }
        if (k + 1 < nr) /* odd run left over */
            runs[w++] = runs[k];
        runs[w++] = n;
        nr = w;
    }
    free(tmp);
    free(runs);
}

typedef struct {
    td_event *v;
    size_t lo, mid, hi, tcap;
    int whole; /* 1: sort v[lo..hi); 0: merge at mid */
} sort_job;

static void *sort_job_run(void *arg)
{
    sort_job *j = arg;
    if (j->whole) {
        sort_run(j->v + j->lo, j->hi - j->lo, j->tcap);
    } else {
        td_event *tmp = td_xmalloc((j->tcap ? j->tcap : 1) * sizeof *tmp);
        merge(j->v, j->lo, j->mid, j->hi, tmp, j->tcap);
        free(tmp);
    }
    return NULL;
}

/* Run two jobs, the second on a thread when one can be made. */
static void run2(sort_job *a, sort_job *b)
{
    pthread_t th;
    int threaded = pthread_create(&th, NULL, sort_job_run, b) == 0;
    sort_job_run(a);
    if (threaded)
        pthread_join(th, NULL);
    else
        sort_job_run(b);
}

/* Large traces use both cores: the halves are sorted on two threads, then the final
 * merge is split in two independent merges (one rotation), again on two threads. The
 * temporary buffers hold an eighth of the events each, so the sort adds a quarter of the
 * event array at most. TD_SORT_TMP (events) shrinks them for tests. */
static void sort_events(td_event *v, size_t n)
{
    size_t i = 1;
    while (i < n && !ev_before(&v[i], &v[i - 1]))
        i++;
    if (i >= n)
        return;
    size_t tcap = n / 8 > 65536 ? n / 8 : 65536;
    const char *tt = getenv("TD_SORT_TMP");
    if (tt && atol(tt) > 0)
        tcap = (size_t)atol(tt);
    if (n < (1u << 20)) {
        sort_run(v, n, tcap);
        return;
    }
    size_t mid = n / 2;
    sort_job a = {v, 0, 0, mid, tcap, 1}, b = {v, mid, 0, n, tcap, 1};
    run2(&a, &b);
    if (!ev_before(&v[mid], &v[mid - 1]))
        return;
    /* split the final merge like merge() does, then do the two parts in parallel */
    size_t x = mid / 2, l = mid, r = n;
    while (l < r) {
        size_t m = l + (r - l) / 2;
        if (ev_before(&v[m], &v[x]))
            l = m + 1;
        else
            r = m;
    }
    reverse(v, x, mid);
    reverse(v, mid, l);
    reverse(v, x, l);
    size_t m2 = x + (l - mid);
    sort_job c = {v, 0, x, m2, tcap, 0}, d = {v, m2, m2 + (mid - x), n, tcap, 0};
    run2(&c, &d);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void td_read_sort(td_trace *t)
{
    sort_events(t->ev, t->nev);
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
