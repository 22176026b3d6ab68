/* io/instream.c - input byte streams (see io/instream.h).
 *
 * Three layers, pulled by the reader: the source (fd, memory, archive member, another
 * stream), which counts and hashes the raw bytes exactly once as they arrive; an
 * optional gunzip layer (ISA-L inflate, one member after another); and a peek window
 * that sniffing code fills and later reads drain first. For files and stdin, once the
 * peeked bytes are drained, a read-ahead thread runs the first two layers into a ring
 * of chunks (the caller copies out of it), so reading, hashing and inflating overlap
 * with parsing. */
#define _POSIX_C_SOURCE 200809L
#include "io/instream.h"
#include "io/peek.h"
#include "io/archive_lib.h"
#include "io/bound.h"
#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SRC_FD, SRC_MEM, SRC_AR, SRC_STREAM };

#define ZIN_CAP (256u << 10)
#define RING_N 4
#define RING_CHUNK (1u << 20)

struct td_in {
    int kind;
    int fd, own_fd;
    const unsigned char *mem;
    size_t mem_n, mem_pos;
    struct archive *ar;
    td_in *src;
    td_in *outer;           /* the stream an archive member is read from (td_in_set_outer) */
    uint64_t held_base;     /* td_in_set_held_base */
    char *name;

    td_sha256 *sha;
    int no_sha; /* libcrypto gave no SHA-256: td_in_finish reports it */
    char hex[65];
    uint64_t raw_bytes;
    int raw_eof;

    /* raw bytes already pulled (and hashed) but not consumed: the peek window moves
     * here when gunzip is switched on */
    unsigned char *rpb;
    size_t rpb_n, rpb_pos;

    int gz, gz_member_done, gz_end;
    struct inflate_state *inf;
    unsigned char *zin;
    uint64_t zin_base;      /* offset in the compressed data of zin[0] */

    unsigned char *pk;      /* decoded peek window */
    size_t pk_pos, pk_n, pk_cap;

    /* Read-ahead thread (files and stdin): reads, hashes and gunzips into a ring of
     * chunks while the caller parses, so the two cores share the work. While it runs
     * it owns the source, hash, raw and gunzip fields above; the caller only touches
     * the (by then drained) peek window and the ring, under mu. */
    int th_on, th_off;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *ring[RING_N];
    size_t ring_len[RING_N];
    size_t head, count, rpos;
    uint64_t ring_raw[RING_N]; /* raw bytes pulled when the chunk was made */
    uint64_t seen_raw;         /* ring_raw of the chunk the caller reads (under mu) */
    int th_done, th_stop, th_fail;
    td_err th_err;
};

static void ra_stop(td_in *in);

static td_in *in_new(int kind, const char *name)
{
    td_in *in = td_xcalloc(1, sizeof *in);
    in->kind = kind;
    in->fd = -1;
    in->name = td_xstrdup(name);
    in->sha = td_sha256_new();
    in->no_sha = !in->sha;
    return in;
}

td_in *td_in_open_file(const char *path, const char *name, td_err *e)
{
    int fd;
    unsigned char *pre;
    size_t npre;
    if (td_peek_take(path, &fd, &pre, &npre)) {
        /* looked at before (a pipe, read once): its first bytes come back first, counted
         * and hashed here as raw_pull does with what it reads */
        td_in *in = in_new(SRC_FD, name);
        in->fd = fd;
        in->own_fd = 1;
        in->rpb = pre;
        in->rpb_n = npre;
        if (npre) {
            td_sha256_update(in->sha, pre, npre);
            in->raw_bytes = npre;
        }
        return in;
    }
    if (strcmp(path, "-") == 0) {
        fd = 0;
    } else {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            td_fail(e, TD_E_IO, "%s: cannot open: %s", name, strerror(errno));
            return NULL;
        }
#ifdef POSIX_FADV_SEQUENTIAL
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    td_in *in = in_new(SRC_FD, name);
    in->fd = fd;
    in->own_fd = fd != 0;
    return in;
}

td_in *td_in_open_mem(const void *p, size_t n, const char *name)
{
    td_in *in = in_new(SRC_MEM, name);
    in->mem = p;
    in->mem_n = n;
    return in;
}

td_in *td_in_open_archive_member(struct archive *a, const char *name)
{
    td_in *in = in_new(SRC_AR, name);
    in->ar = a;
    return in;
}

td_in *td_in_open_stream(td_in *src, const char *name)
{
    td_in *in = in_new(SRC_STREAM, name);
    in->src = src;
    return in;
}

void td_in_close(td_in *in)
{
    if (!in)
        return;
    ra_stop(in);
    if (in->own_fd)
        close(in->fd);
    if (in->sha)
        td_sha256_final(in->sha, in->hex);
    free(in->rpb);
    free(in->inf);
    free(in->zin);
    free(in->pk);
    free(in->name);
    free(in);
}

const char *td_in_name(const td_in *in) { return in->name; }
int td_in_is_gzip(const td_in *in) { return in->gz; }

/* Pull raw bytes from the source; every byte is hashed and counted here, once. */
static ptrdiff_t raw_pull(td_in *in, unsigned char *dst, size_t cap, td_err *e)
{
    ptrdiff_t n = 0;
    if (in->raw_eof || cap == 0)
        return 0;
    switch (in->kind) {
    case SRC_FD:
        for (;;) {
            n = read(in->fd, dst, cap);
            if (n >= 0)
                break;
            if (errno != EINTR) {
                td_fail(e, TD_E_IO, "%s: read error: %s", in->name, strerror(errno));
                return -1;
            }
        }
        break;
    case SRC_MEM:
        n = (ptrdiff_t)(in->mem_n - in->mem_pos < cap ? in->mem_n - in->mem_pos : cap);
        memcpy(dst, in->mem + in->mem_pos, (size_t)n);
        in->mem_pos += (size_t)n;
        break;
    case SRC_AR: {
        la_ssize_t r = archive_read_data(in->ar, dst, cap);
        if (r < 0) {
            /* a damaged or truncated archive: the member ends here; the reader sees
             * short data and says so (a truncated trace keeps what was read) */
            in->raw_eof = 1;
            return 0;
        }
        n = r;
        break;
    }
    case SRC_STREAM:
        n = td_in_read(in->src, dst, cap, e);
        if (n < 0)
            return -1;
        break;
    }
    if (n == 0) {
        in->raw_eof = 1;
        return 0;
    }
    td_sha256_update(in->sha, dst, (size_t)n);
    in->raw_bytes += (uint64_t)n;
    return n;
}

static ptrdiff_t raw_read(td_in *in, unsigned char *dst, size_t cap, td_err *e)
{
    if (in->rpb_pos < in->rpb_n) {
        size_t k = in->rpb_n - in->rpb_pos;
        if (k > cap)
            k = cap;
        memcpy(dst, in->rpb + in->rpb_pos, k);
        in->rpb_pos += k;
        return (ptrdiff_t)k;
    }
    return raw_pull(in, dst, cap, e);
}

static int is_gz_magic(const unsigned char *p) { return p[0] == 0x1f && p[1] == 0x8b; }

/* Refill the compressed input so that at least `need` bytes are available (or EOF). */
static int zin_fill(td_in *in, uint32_t need, td_err *e)
{
    struct inflate_state *s = in->inf;
    while (s->avail_in < need) {
        size_t off = (size_t)(s->next_in - in->zin);
        if (off) {
            in->zin_base += off;
            memmove(in->zin, s->next_in, s->avail_in);
            s->next_in = in->zin;
        }
        ptrdiff_t n = raw_read(in, in->zin + s->avail_in, ZIN_CAP - s->avail_in, e);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        s->avail_in += (uint32_t)n;
    }
    return 0;
}

static ptrdiff_t gz_read(td_in *in, unsigned char *dst, size_t cap, td_err *e)
{
    struct inflate_state *s = in->inf;
    if (cap > (1u << 30))
        cap = 1u << 30;
    for (;;) {
        if (in->gz_end)
            return 0;
        if (in->gz_member_done) {
            /* Multi-member gzip: another member follows only if its magic does;
             * anything else after a complete member (zero padding) ends the data. */
            if (zin_fill(in, 2, e) < 0)
                return -1;
            if (s->avail_in < 2 || !is_gz_magic(s->next_in)) {
                in->gz_end = 1;
                return 0;
            }
            unsigned char *ni = s->next_in;
            uint32_t ai = s->avail_in;
            isal_inflate_reset(s);
            s->crc_flag = ISAL_GZIP;
            s->next_in = ni;
            s->avail_in = ai;
            in->gz_member_done = 0;
        }
        if (s->avail_in == 0) {
            if (zin_fill(in, 1, e) < 0)
                return -1;
            if (s->avail_in == 0) {
                /* compressed data ended inside a member: the reader sees a short
                 * stream and reports the truncation where its data stops */
                in->gz_end = 1;
                return 0;
            }
        }
        s->next_out = dst;
        s->avail_out = (uint32_t)cap;
        uint32_t ai0 = s->avail_in;
        int r = isal_inflate(s);
        if (r < 0) {
            uint64_t at = in->zin_base + (uint64_t)(s->next_in - in->zin);
            return td_fail(e, TD_E_FORMAT, "%s: compressed byte %llu: corrupt gzip data (%s)",
                           in->name, (unsigned long long)at,
                           r == ISAL_INCORRECT_CHECKSUM ? "checksum mismatch"
                           : r == ISAL_INVALID_WRAPPER  ? "bad gzip header"
                                                        : "invalid deflate stream"),
                   -1;
        }
        if (s->block_state == ISAL_BLOCK_FINISH)
            in->gz_member_done = 1;
        size_t got = cap - s->avail_out;
        if (got)
            return (ptrdiff_t)got;
        if (s->avail_in == ai0 && !in->gz_member_done) {
            /* no progress: inflate wants more input than is buffered */
            if (zin_fill(in, ai0 + 1, e) < 0)
                return -1;
            if (s->avail_in == ai0) {
                in->gz_end = 1;
                return 0;
            }
        }
    }
}

static ptrdiff_t dec_read(td_in *in, unsigned char *dst, size_t cap, td_err *e)
{
    return in->gz ? gz_read(in, dst, cap, e) : raw_read(in, dst, cap, e);
}

ptrdiff_t td_in_peek(td_in *in, size_t want, const unsigned char **p, td_err *e)
{
    if (in->pk_pos > 0) {
        memmove(in->pk, in->pk + in->pk_pos, in->pk_n - in->pk_pos);
        in->pk_n -= in->pk_pos;
        in->pk_pos = 0;
    }
    if (want > in->pk_cap) {
        in->pk = td_xrealloc(in->pk, want);
        in->pk_cap = want;
    }
    while (in->pk_n < want) {
        ptrdiff_t n = dec_read(in, in->pk + in->pk_n, want - in->pk_n, e);
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        in->pk_n += (size_t)n;
    }
    *p = in->pk;
    return (ptrdiff_t)in->pk_n;
}

void td_in_gunzip(td_in *in)
{
    if (in->gz)
        return;
    /* the peeked bytes are compressed: hand them back to the raw layer */
    size_t k = in->pk_n - in->pk_pos;
    if (k) {
        size_t left = in->rpb_n - in->rpb_pos;
        unsigned char *nb = td_xmalloc(k + left);
        memcpy(nb, in->pk + in->pk_pos, k);
        if (left)
            memcpy(nb + k, in->rpb + in->rpb_pos, left);
        free(in->rpb);
        in->rpb = nb;
        in->rpb_n = k + left;
        in->rpb_pos = 0;
    }
    in->pk_pos = in->pk_n = 0;
    in->gz = 1;
    in->inf = td_xmalloc(sizeof *in->inf);
    isal_inflate_init(in->inf);
    in->inf->crc_flag = ISAL_GZIP;
    in->zin = td_xmalloc(ZIN_CAP);
    in->inf->next_in = in->zin;
    in->inf->avail_in = 0;
}

static void *th_main(void *arg)
{
    td_in *in = arg;
    size_t slot = 0;
    for (;;) {
        pthread_mutex_lock(&in->mu);
        while (in->count == RING_N && !in->th_stop)
            pthread_cond_wait(&in->cv, &in->mu);
        int stop = in->th_stop;
        slot = (in->head + in->count) % RING_N;
        pthread_mutex_unlock(&in->mu);
        if (stop)
            break;
        size_t len = 0;
        int fail = 0, eof = 0;
        while (len < RING_CHUNK) {
            ptrdiff_t n = dec_read(in, in->ring[slot] + len, RING_CHUNK - len, &in->th_err);
            if (n < 0) {
                fail = 1;
                break;
            }
            if (n == 0) {
                eof = 1;
                break;
            }
            len += (size_t)n;
        }
        pthread_mutex_lock(&in->mu);
        if (len) {
            in->ring_len[slot] = len;
            in->ring_raw[slot] = in->raw_bytes;
            in->count++;
        }
        in->th_fail = fail;
        in->th_done = fail || eof;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
        if (fail || eof)
            break;
    }
    return NULL;
}

static void th_start(td_in *in)
{
    pthread_mutex_init(&in->mu, NULL);
    pthread_cond_init(&in->cv, NULL);
    for (int i = 0; i < RING_N; i++)
        in->ring[i] = td_xmalloc(RING_CHUNK);
    in->th_on = 1;
    if (pthread_create(&in->th, NULL, th_main, in) != 0) {
        in->th_on = 0;
        in->th_off = 1;
        for (int i = 0; i < RING_N; i++)
            free(in->ring[i]);
        pthread_cond_destroy(&in->cv);
        pthread_mutex_destroy(&in->mu);
    }
}

/* Stop the read-ahead (if any) and take its state back; unread ring data is lost, so
 * only call this when the caller is done reading decoded bytes. */
static void ra_stop(td_in *in)
{
    if (!in->th_on)
        return;
    pthread_mutex_lock(&in->mu);
    in->th_stop = 1;
    pthread_cond_broadcast(&in->cv);
    pthread_mutex_unlock(&in->mu);
    pthread_join(in->th, NULL);
    for (int i = 0; i < RING_N; i++)
        free(in->ring[i]);
    pthread_cond_destroy(&in->cv);
    pthread_mutex_destroy(&in->mu);
    in->th_on = 0;
    in->th_off = 1;
}

static ptrdiff_t th_read(td_in *in, unsigned char *dst, size_t cap, td_err *e)
{
    pthread_mutex_lock(&in->mu);
    while (in->count == 0 && !in->th_done)
        pthread_cond_wait(&in->cv, &in->mu);
    if (in->count == 0) {
        int fail = in->th_fail;
        pthread_mutex_unlock(&in->mu);
        if (fail) {
            *e = in->th_err;
            return -1;
        }
        return 0;
    }
    size_t h = in->head;
    in->seen_raw = in->ring_raw[h];
    pthread_mutex_unlock(&in->mu);
    /* the head chunk is ours until we release it */
    size_t k = in->ring_len[h] - in->rpos;
    if (k > cap)
        k = cap;
    memcpy(dst, in->ring[h] + in->rpos, k);
    in->rpos += k;
    if (in->rpos == in->ring_len[h]) {
        pthread_mutex_lock(&in->mu);
        in->head = (in->head + 1) % RING_N;
        in->count--;
        in->rpos = 0;
        pthread_cond_broadcast(&in->cv);
        pthread_mutex_unlock(&in->mu);
    }
    return (ptrdiff_t)k;
}

ptrdiff_t td_in_read(td_in *in, void *dst, size_t cap, td_err *e)
{
    if (in->pk_pos < in->pk_n) {
        size_t k = in->pk_n - in->pk_pos;
        if (k > cap)
            k = cap;
        memcpy(dst, in->pk + in->pk_pos, k);
        in->pk_pos += k;
        return (ptrdiff_t)k;
    }
    if (!in->th_on && !in->th_off && in->kind == SRC_FD && cap >= (64u << 10) &&
        !getenv("TD_NO_READ_THREAD"))
        th_start(in);
    if (in->th_on)
        return th_read(in, dst, cap, e);
    return dec_read(in, dst, cap, e);
}

void td_in_set_outer(td_in *in, td_in *outer) { in->outer = outer; }

/* The outermost stream: the input as stored. */
static const td_in *root(const td_in *in)
{
    while (in->outer || in->kind == SRC_STREAM)
        in = in->outer ? in->outer : in->src;
    return in;
}

uint64_t td_in_stored(const td_in *in)
{
    in = root(in);
    /* while the read-ahead thread runs, raw_bytes is its own: the count published with
     * the chunk being read is the caller's */
    return in->th_on ? in->seen_raw : in->raw_bytes;
}

void td_in_set_held_base(td_in *in, uint64_t held) { in->held_base = held; }
uint64_t td_in_held_base(const td_in *in) { return root(in)->held_base; }

td_status td_in_read_all(td_in *in, size_t limit, unsigned char **out, size_t *n, td_err *e)
{
    size_t cap = 1 << 20, len = 0;
    unsigned char *b = td_xmalloc(cap);
    for (;;) {
        if (len == cap) {
            if (cap >= limit) {
                free(b);
                return td_fail(e, TD_E_FORMAT, "%s: larger than %zu MiB in memory (refused)",
                               in->name, limit >> 20);
            }
            uint64_t stored = td_in_stored(in), allow = td_bound_allow(stored);
            if (cap >= allow) {
                free(b);
                return td_fail(e, TD_E_FORMAT, "%s: decompresses to more than %llu MiB, "
                               "from the first %llu KiB of the input as stored (more than "
                               "%d times that): refused as a decompression bomb", in->name,
                               (unsigned long long)(cap >> 20),
                               (unsigned long long)(stored >> 10), TD_BOUND_RATIO);
            }
            cap = cap * 2 > limit ? limit : cap * 2;
            if (cap > allow)
                cap = (size_t)allow;
            b = td_xrealloc(b, cap);
        }
        ptrdiff_t r = td_in_read(in, b + len, cap - len, e);
        if (r < 0) {
            free(b);
            return e->code;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    *out = b;
    *n = len;
    return TD_OK;
}

td_status td_in_finish(td_in *in, uint64_t *raw_bytes, char sha256[65], td_err *e)
{
    unsigned char tmp[1 << 16];
    ra_stop(in);
    for (;;) {
        ptrdiff_t r = raw_pull(in, tmp, sizeof tmp, e);
        if (r < 0)
            return e->code;
        if (r == 0)
            break;
    }
    if (in->no_sha)
        return td_sha256_fail(in->name, e);
    if (in->sha) {
        td_sha256_final(in->sha, in->hex);
        in->sha = NULL;
    }
    *raw_bytes = in->raw_bytes;
    memcpy(sha256, in->hex, 65);
    return TD_OK;
}
