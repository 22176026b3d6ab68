/* base/files.c - see base/files.h. */
#define _GNU_SOURCE /* fopencookie */
#include "base/files.h"
#include "base/alloc.h"
#include "base/buf.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* Where an output path leads. Never replaced by a rename: devices, FIFOs, the standard
 * streams and symbolic links (a link to a regular file is kept and its target replaced). */
enum { OUT_FILE, OUT_FD, OUT_DEVICE };
typedef struct out_target {
    int kind;
    int fd;     /* OUT_FD: the descriptor ("-" is 1, /dev/stderr 2, /dev/fd/N N) */
    char *real; /* OUT_FILE: the file the rename replaces (malloc'd) */
} out_target;

static int fd_path(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *n = NULL;
    if (!strncmp(path, "/dev/fd/", 8))
        n = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        n = path + 14;
    if (!n || !*n)
        return -1;
    char *end;
    long v = strtol(n, &end, 10);
    return *end || v < 0 || v > INT_MAX ? -1 : (int)v;
}

static const char *out_label(const char *path)
{
    return strcmp(path, "-") ? path : "standard output";
}

static td_status out_target_of(const char *path, out_target *t, td_err *e)
{
    memset(t, 0, sizeof *t);
    t->fd = fd_path(path);
    if (t->fd >= 0) {
        t->kind = OUT_FD;
        return TD_OK;
    }
    struct stat ls, st;
    if (lstat(path, &ls) != 0) {
        if (errno != ENOENT)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        t->kind = OUT_FILE;
        t->real = td_xstrdup(path);
        return TD_OK;
    }
    if (stat(path, &st) != 0)
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: a symbolic link to a missing file "
                       "(%s); not replacing the link", path, strerror(errno));
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        t->kind = OUT_DEVICE;
        return TD_OK;
    }
    if (S_ISDIR(st.st_mode))
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: is a directory", path);
    if (!S_ISREG(st.st_mode))
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: not a regular file, character "
                       "device or FIFO; refusing to replace it", path);
    t->kind = OUT_FILE;
    if (S_ISLNK(ls.st_mode)) {
        t->real = realpath(path, NULL);
        if (!t->real)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot resolve the symbolic link: %s", path,
                           strerror(errno));
    } else
        t->real = td_xstrdup(path);
    return TD_OK;
}

/* Opens a device, FIFO or descriptor target for writing (a new descriptor in either case,
 * so fclose does not close the caller's standard streams). */
static int out_open_direct(const char *path, const out_target *t)
{
    if (t->kind == OUT_FD)
        return fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
    return open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
}

char *td_tmp_name(const char *path)
{
    static unsigned seq;
    out_target t;
    td_err e;
    const char *near = path;
    int ok = out_target_of(path, &t, &e) == TD_OK;
    if (ok && t.kind == OUT_FILE)
        near = t.real;
    char *name;
    if (ok && t.kind != OUT_FILE) {
        /* the data is copied to the device at commit; the temporary file is private */
        const char *dir = getenv("TMPDIR");
        size_t n = strlen(dir && *dir ? dir : "/tmp") + 32;
        name = td_xmalloc(n);
        snprintf(name, n, "%s/tracedoc.XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(name);
        if (fd >= 0)
            close(fd);
    } else {
        size_t n = strlen(near) + 48;
        name = td_xmalloc(n);
        snprintf(name, n, "%s.tmp.%ld.%u", near, (long)getpid(), seq++);
    }
    free(t.real);
    return name;
}

td_status td_tmp_fail(const char *path, const char *tmp, int err, td_err *e)
{
    const char *dir = getenv("TMPDIR");
    const char *d = dir && *dir ? dir : "/tmp";
    size_t n = strlen(d);
    /* a private temporary (td_tmp_name: for a device or stream) is in TMPDIR: say so,
     * the output itself is not at fault */
    if (!strncmp(tmp, d, n) && tmp[n] == '/' && !strncmp(tmp + n + 1, "tracedoc.", 9))
        return td_fail(e, TD_E_OUTPUT, "TMPDIR %s: cannot create a temporary file for %s: %s",
                       d, path, strerror(err));
    return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(err));
}

/* Copies the file tmp to the open descriptor fd. */
static td_status copy_to_fd(const char *tmp, int fd, const char *path, td_err *e)
{
    int in = open(tmp, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return td_fail(e, TD_E_OUTPUT, "%s: cannot read back %s: %s", out_label(path), tmp,
                       strerror(errno));
    char buf[65536];
    td_status st = TD_OK;
    for (;;) {
        ssize_t k = read(in, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot read back %s: %s", out_label(path), tmp,
                         strerror(errno));
            break;
        }
        if (k == 0)
            break;
        for (ssize_t off = 0; off < k;) {
            ssize_t w = write(fd, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path),
                             w < 0 ? strerror(errno) : "short write");
                break;
            }
            off += w;
        }
        if (st != TD_OK)
            break;
    }
    close(in);
    return st;
}

td_status td_commit_tmp(const char *tmp, const char *path, td_err *e)
{
    out_target t;
    td_status st = out_target_of(path, &t, e);
    if (st == TD_OK && t.kind == OUT_FILE) {
        if (rename(tmp, t.real) != 0)
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
    } else if (st == TD_OK) {
        int fd = out_open_direct(path, &t);
        if (fd < 0)
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path), strerror(errno));
        else {
            st = copy_to_fd(tmp, fd, path, e);
            if (close(fd) != 0 && st == TD_OK)
                st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path),
                             strerror(errno));
        }
    }
    unlink(tmp); /* after a rename: already gone */
    free(t.real);
    return st;
}

/* A stdio stream over a descriptor that remembers why its first write failed (writers
 * only see ferror; the message says "No space left on device"). */
typedef struct out_stream {
    int fd;
    int err;
} out_stream;

static ssize_t os_write(void *c, const char *buf, size_t n)
{
    out_stream *o = c;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!o->err)
                o->err = w < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int os_close(void *c)
{
    out_stream *o = c;
    int r = close(o->fd);
    if (r != 0 && !o->err)
        o->err = errno;
    return r;
}

static FILE *out_stream_open(int fd, out_stream *o)
{
    o->fd = fd;
    o->err = 0;
    cookie_io_functions_t io = {NULL, os_write, NULL, os_close};
    FILE *f = fopencookie(o, "wb", io);
    if (!f)
        close(fd);
    return f;
}

/* A writer's own output error named after the output ("write error" -> "PATH: cannot
 * write: No space left on device"). */
static td_status name_output_error(td_status s, const char *path, int err, td_err *e)
{
    if (s != TD_E_OUTPUT || strstr(e->msg, out_label(path)))
        return s;
    char m[sizeof e->msg];
    snprintf(m, sizeof m, "%s", e->msg);
    return td_fail(e, s, "%s: cannot write: %s", out_label(path), err ? strerror(err) : m);
}

/* Flushes and closes a stream the writer has filled (status s); names the error; commits
 * or removes tmp when there is one. */
static td_status finish_stream(const char *path, const char *tmp, FILE *f, out_stream *os,
                               td_status s, td_err *e)
{
    if (fflush(f) != 0 && s == TD_OK)
        s = td_fail(e, TD_E_OUTPUT, "write error");
    if (fclose(f) != 0 && s == TD_OK)
        s = td_fail(e, TD_E_OUTPUT, "write error");
    s = name_output_error(s, path, os->err, e);
    if (tmp && s != TD_OK)
        unlink(tmp);
    else if (tmp)
        s = td_commit_tmp(tmp, path, e);
    return s;
}

td_status td_write_atomic_cb(const char *path, td_status (*cb)(FILE *f, void *ctx, td_err *e),
                             void *ctx, td_err *e)
{
    out_target t;
    td_status s = out_target_of(path, &t, e);
    if (s != TD_OK)
        return s;
    if (t.kind != OUT_FILE) {
        /* devices, FIFOs, standard output: streamed straight in, nothing to rename */
        int fd = out_open_direct(path, &t);
        out_stream os;
        FILE *f = fd >= 0 ? out_stream_open(fd, &os) : NULL;
        if (!f)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path), strerror(errno));
        if (t.kind == OUT_FD)
            fflush(stdout); /* what was printed before comes first */
        return finish_stream(path, NULL, f, &os, cb(f, ctx, e), e);
    }
    free(t.real);
    char *tmp = td_tmp_name(path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    out_stream os;
    FILE *f = fd >= 0 ? out_stream_open(fd, &os) : NULL;
    if (!f) {
        s = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return s;
    }
    s = finish_stream(path, tmp, f, &os, cb(f, ctx, e), e);
    free(tmp);
    return s;
}

typedef struct {
    const void *d;
    size_t n;
} blob;

static td_status write_blob(FILE *f, void *ctx, td_err *e)
{
    blob *b = ctx;
    if (b->n && fwrite(b->d, 1, b->n, f) != b->n)
        return td_fail(e, TD_E_OUTPUT, "short write: %s", strerror(errno));
    return TD_OK;
}

td_status td_write_file_atomic(const char *path, const void *data, size_t n, td_err *e)
{
    blob b = {data, n};
    return td_write_atomic_cb(path, write_blob, &b, e);
}

td_status td_read_small_file(const char *path, char **out, size_t *n, td_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    td_buf b = {0};
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        td_buf_put(&b, tmp, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        td_buf_free(&b);
        return td_fail(e, TD_E_IO, "%s: read error", path);
    }
    td_buf_cstr(&b);
    *out = b.p;
    if (n)
        *n = b.n;
    return TD_OK;
}
