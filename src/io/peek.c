/* io/peek.c - a look at an input's first bytes that loses nothing (see io/peek.h). */
#define _GNU_SOURCE /* fopencookie */
#include "io/peek.h"
#include "base/alloc.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *path;
    int fd;
    unsigned char *pre;
    size_t n, cap;
    int eof;
} kept;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static kept *tab;
static size_t ntab, captab;

static kept *find(const char *path)
{
    for (size_t i = 0; i < ntab; i++)
        if (tab[i].path && !strcmp(tab[i].path, path))
            return &tab[i];
    return NULL;
}

/* The descriptor N of "-" (0), /dev/stdin (0), /dev/fd/N and /proc/self/fd/N; else -1. */
static int fd_of(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdin"))
        return 0;
    const char *d = !strncmp(path, "/dev/fd/", 8) ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    if (!d || !*d)
        return -1;
    char *end;
    long v = strtol(d, &end, 10);
    return *end || v < 0 || v > INT_MAX ? -1 : (int)v;
}

/* 1 when path is read once: a descriptor ("-", /dev/fd/N: its offset is shared with
 * whoever gave it, even on a regular file), or not a regular file or directory. */
static int once(const char *path, int *fd_out)
{
    struct stat sb;
    int fd = fd_of(path);
    *fd_out = fd;
    if (fd >= 0)
        return 1;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

int td_peek_once(const char *path)
{
    int fd;
    return once(path, &fd);
}

static ssize_t read_full(int fd, unsigned char *p, size_t cap, int *eof)
{
    size_t n = 0;
    while (n < cap) {
        ssize_t r = read(fd, p + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0) {
            *eof = 1;
            break;
        }
        n += (size_t)r;
    }
    return (ssize_t)n;
}

ssize_t td_peek(const char *path, void *buf, size_t cap)
{
    int dfd;
    if (!once(path, &dfd)) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        int eof = 0;
        ssize_t n = read_full(fd, buf, cap, &eof);
        int er = errno;
        close(fd);
        errno = er;
        return n;
    }
    pthread_mutex_lock(&mu);
    kept *k = find(path);
    ssize_t ret = -1;
    if (!k) {
        int fd = dfd >= 0 ? fcntl(dfd, F_DUPFD_CLOEXEC, 3) : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            goto out;
        if (ntab == captab) {
            captab = captab ? 2 * captab : 8;
            tab = td_xrealloc(tab, captab * sizeof *tab);
        }
        k = &tab[ntab++];
        memset(k, 0, sizeof *k);
        k->path = td_xstrdup(path);
        k->fd = fd;
    }
    if (k->n < cap && !k->eof) {
        if (k->cap < cap) {
            k->pre = td_xrealloc(k->pre, cap);
            k->cap = cap;
        }
        ssize_t r = read_full(k->fd, k->pre + k->n, cap - k->n, &k->eof);
        if (r < 0)
            goto out;
        k->n += (size_t)r;
    }
    ret = (ssize_t)(k->n < cap ? k->n : cap);
    if (ret)
        memcpy(buf, k->pre, (size_t)ret);
out:
    pthread_mutex_unlock(&mu);
    return ret;
}

int td_peek_take(const char *path, int *fd, unsigned char **pre, size_t *npre)
{
    pthread_mutex_lock(&mu);
    kept *k = find(path);
    if (k) {
        *fd = k->fd;
        *pre = k->pre;
        *npre = k->n;
        free(k->path);
        *k = tab[--ntab];
    }
    pthread_mutex_unlock(&mu);
    return k != NULL;
}

/* the stdio stream of a taken input: the kept bytes, then the descriptor */
typedef struct {
    int fd;
    unsigned char *pre;
    size_t n, pos;
} cookie;

static ssize_t ck_read(void *c, char *buf, size_t size)
{
    cookie *k = c;
    if (k->pos < k->n) {
        size_t m = k->n - k->pos < size ? k->n - k->pos : size;
        memcpy(buf, k->pre + k->pos, m);
        k->pos += m;
        return (ssize_t)m;
    }
    for (;;) {
        ssize_t r = read(k->fd, buf, size);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

static int ck_close(void *c)
{
    cookie *k = c;
    int r = close(k->fd);
    free(k->pre);
    free(k);
    return r;
}

FILE *td_peek_fopen(const char *path)
{
    int fd;
    unsigned char *pre;
    size_t n;
    if (!td_peek_take(path, &fd, &pre, &n))
        return fopen(path, "rb");
    cookie *k = td_xcalloc(1, sizeof *k);
    k->fd = fd;
    k->pre = pre;
    k->n = n;
    cookie_io_functions_t io = {.read = ck_read, .close = ck_close};
    FILE *f = fopencookie(k, "rb", io);
    if (!f)
        ck_close(k);
    return f;
}

void td_peek_reset(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < ntab; i++) {
        close(tab[i].fd);
        free(tab[i].pre);
        free(tab[i].path);
    }
    free(tab);
    tab = NULL;
    ntab = captab = 0;
    pthread_mutex_unlock(&mu);
}
