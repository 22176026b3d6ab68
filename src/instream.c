/* instream.c - input byte streams (see instream.h).
 *
 * Three layers, pulled by the reader: the source (fd, memory, archive member, another
 * stream), which counts and hashes the raw bytes exactly once as they arrive; an
 * optional gunzip layer (ISA-L inflate, one member after another); and a peek window
 * that sniffing code fills and later reads drain first. */
#define _POSIX_C_SOURCE 200809L
#include "instream.h"
#include <archive.h>
#include <cpuid.h>
#include <errno.h>
#include <immintrin.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- SHA-256 of the raw bytes ----
 * libmd's portable SHA-256 runs at ~370 MB/s here, slower than the JSON scanner; the
 * x86 SHA extensions (present on these machines) do ~2 GB/s. Written from the
 * instruction definitions (FIPS 180-4 rounds in the ABEF/CDGH register layout that
 * SHA256RNDS2 uses); td_sha256 (libmd) is the fallback and the unit test reference. */
typedef struct {
    uint32_t h[8];
    unsigned char blk[64];
    size_t nblk;
    uint64_t total;
    td_sha256 *slow; /* non-NULL: no SHA extensions, use libmd */
} hasher;

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static int have_sha_ext(void)
{
    static int cached = -1;
    if (cached < 0) {
        unsigned a, b, c, d;
        int sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && ((b >> 29) & 1);
        int ok1 = __get_cpuid(1, &a, &b, &c, &d) && ((c >> 19) & 1) && ((c >> 9) & 1);
        cached = sha && ok1 && !getenv("TD_NO_SHA_EXT");
    }
    return cached;
}

__attribute__((target("sha,sse4.1,ssse3")))
static void sha_blocks(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);  /* D C B A */
    __m128i s1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]); /* H G F E */
    t = _mm_shuffle_epi32(t, 0xB1);                                  /* C D A B */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                                /* E F G H */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);                          /* A B E F */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                               /* C D G H */
    while (nblocks--) {
        __m128i a0 = s0, c0 = s1, m[4];
        for (int g = 0; g < 16; g++) {
            __m128i w;
            if (g < 4) {
                w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)),
                                     bswap);
            } else {
                /* W[i] = s1(W[i-2]) + W[i-7] + s0(W[i-15]) + W[i-16], four at a time */
                __m128i x = _mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
                w = _mm_sha256msg2_epu32(x, m[(g + 3) & 3]);
            }
            m[g & 3] = w;
            __m128i k = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)(const void *)&K256[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, k);
            k = _mm_shuffle_epi32(k, 0x0E);
            s0 = _mm_sha256rnds2_epu32(s0, s1, k);
        }
        s0 = _mm_add_epi32(s0, a0);
        s1 = _mm_add_epi32(s1, c0);
        p += 64;
    }
    t = _mm_shuffle_epi32(s0, 0x1B);      /* F E B A */
    s1 = _mm_shuffle_epi32(s1, 0xB1);     /* D C H G */
    s0 = _mm_blend_epi16(t, s1, 0xF0);    /* D C B A */
    s1 = _mm_alignr_epi8(s1, t, 8);       /* H G F E */
    _mm_storeu_si128((__m128i *)(void *)&h[0], s0);
    _mm_storeu_si128((__m128i *)(void *)&h[4], s1);
}

static void hasher_init(hasher *x)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memset(x, 0, sizeof *x);
    memcpy(x->h, iv, sizeof iv);
    if (!have_sha_ext())
        x->slow = td_sha256_new();
}

static void hasher_update(hasher *x, const unsigned char *p, size_t n)
{
    if (x->slow) {
        td_sha256_update(x->slow, p, n);
        return;
    }
    x->total += n;
    if (x->nblk) {
        size_t k = 64 - x->nblk < n ? 64 - x->nblk : n;
        memcpy(x->blk + x->nblk, p, k);
        x->nblk += k;
        p += k;
        n -= k;
        if (x->nblk < 64)
            return;
        sha_blocks(x->h, x->blk, 1);
        x->nblk = 0;
    }
    if (n >= 64) {
        sha_blocks(x->h, p, n / 64);
        p += n & ~(size_t)63;
        n &= 63;
    }
    memcpy(x->blk, p, n);
    x->nblk = n;
}

static void hasher_final(hasher *x, char hex[65])
{
    if (x->slow) {
        td_sha256_final(x->slow, hex);
        x->slow = NULL;
        return;
    }
    uint64_t bits = x->total * 8;
    unsigned char pad[128] = {0x80};
    size_t padn = (x->nblk < 56 ? 56 : 120) - x->nblk;
    for (int i = 0; i < 8; i++)
        pad[padn + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    uint64_t keep = x->total;
    hasher_update(x, pad, padn + 8);
    x->total = keep;
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", x->h[i]);
}

void td_in_sha256_selftest(const void *p, size_t n, size_t step, char hex[65])
{
    hasher x;
    hasher_init(&x);
    for (size_t i = 0; i < n; i += step)
        hasher_update(&x, (const unsigned char *)p + i, n - i < step ? n - i : step);
    hasher_final(&x, hex);
}

enum { SRC_FD, SRC_MEM, SRC_AR, SRC_STREAM };

#define ZIN_CAP (256u << 10)

struct td_in {
    int kind;
    int fd, own_fd;
    const unsigned char *mem;
    size_t mem_n, mem_pos;
    struct archive *ar;
    td_in *src;
    char *name;

    hasher sha;
    int sha_done;
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
};

static td_in *in_new(int kind, const char *name)
{
    td_in *in = td_xcalloc(1, sizeof *in);
    in->kind = kind;
    in->fd = -1;
    in->name = td_xstrdup(name);
    hasher_init(&in->sha);
    return in;
}

td_in *td_in_open_file(const char *path, const char *name, td_err *e)
{
    int fd;
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
    if (in->own_fd)
        close(in->fd);
    if (!in->sha_done)
        hasher_final(&in->sha, in->hex);
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
    hasher_update(&in->sha, dst, (size_t)n);
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
    return dec_read(in, dst, cap, e);
}

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
            cap = cap * 2 > limit ? limit : cap * 2;
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
    for (;;) {
        ptrdiff_t r = raw_pull(in, tmp, sizeof tmp, e);
        if (r < 0)
            return e->code;
        if (r == 0)
            break;
    }
    if (!in->sha_done) {
        hasher_final(&in->sha, in->hex);
        in->sha_done = 1;
    }
    *raw_bytes = in->raw_bytes;
    memcpy(sha256, in->hex, 65);
    return TD_OK;
}
