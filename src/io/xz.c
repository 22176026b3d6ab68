/* io/xz.c - see io/xz.h.
 *
 * Page faults were most of the time of decompressing an nsys-jax archive (each 4 KiB
 * page of a fresh dictionary or output buffer is a fault, about 20 us each in a VM
 * under load): the dictionary and the output buffer, whose sizes the stream's index
 * tells, are faulted in by one madvise(MADV_POPULATE_WRITE) call instead (half the
 * cost per page where the kernel has it; nothing where it does not). */
#define _DEFAULT_SOURCE /* MADV_POPULATE_WRITE */
#include "io/xz.h"
#include "base/alloc.h"
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Fault in the pages wholly inside p[0..n) at once (only when large enough to matter). */
static void populate(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0 || n < ((size_t)1 << 20))
        return;
    uintptr_t a = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
    uintptr_t b = ((uintptr_t)p + n) & ~((uintptr_t)pg - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* liblzma's allocations through malloc, a large one (the dictionary) faulted in up to
 * the output size expected (*hint bytes; no more of it is touched). */
static void *xz_alloc(void *opaque, size_t nmemb, size_t size)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    size_t n = nmemb * size, hint = *(const size_t *)opaque;
    void *p = malloc(n ? n : 1);
    if (p && hint)
        populate(p, n < hint ? n : hint);
    return p;
}

static void xz_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

struct td_xzdec {
    lzma_stream z;
    int used;
    size_t hint;
    lzma_allocator al;
};

td_xzdec *td_xzdec_new(void)
{
    td_xzdec *d = td_xcalloc(1, sizeof *d);
    lzma_stream init = LZMA_STREAM_INIT;
    d->z = init;
    d->al = (lzma_allocator){xz_alloc, xz_free, &d->hint};
    d->z.allocator = &d->al;
    return d;
}

void td_xzdec_free(td_xzdec *d)
{
    if (!d)
        return;
    if (d->used)
        lzma_end(&d->z);
    free(d);
}

/* Uncompressed size of a one-stream .xz buffer from its index (SIZE_MAX: unknown). */
size_t td_xz_size(const uint8_t *in, size_t n)
{
    if (n < 2 * LZMA_STREAM_HEADER_SIZE)
        return SIZE_MAX;
    lzma_stream_flags f;
    if (lzma_stream_footer_decode(&f, in + n - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
        f.backward_size > n - 2 * LZMA_STREAM_HEADER_SIZE)
        return SIZE_MAX;
    const uint8_t *ix = in + n - LZMA_STREAM_HEADER_SIZE - f.backward_size;
    lzma_index *idx = NULL;
    uint64_t memlimit = 1 << 20;
    size_t pos = 0;
    if (lzma_index_buffer_decode(&idx, &memlimit, NULL, ix, &pos, (size_t)f.backward_size) !=
        LZMA_OK)
        return SIZE_MAX;
    uint64_t u = lzma_index_uncompressed_size(idx);
    lzma_index_end(idx, NULL);
    return u < SIZE_MAX ? (size_t)u : SIZE_MAX;
}

int td_unxz_with(td_xzdec *d, const uint8_t *in, size_t n, size_t guess, size_t max,
                 uint8_t **out, size_t *outn, size_t *at)
{
    *out = NULL;
    *outn = 0;
    td_xzdec own = {LZMA_STREAM_INIT, 0, 0, {xz_alloc, xz_free, NULL}};
    if (!d) {
        d = &own;
        own.al.opaque = &own.hint;
        own.z.allocator = &own.al;
    }
    lzma_stream *z = &d->z;
    size_t exact = td_xz_size(in, n);
    /* a valid stream gives what its index says: no more is decoded (+1: room to see the
     * end of the stream) */
    if (exact < max)
        max = exact + 1;
    if (exact == SIZE_MAX || exact / 1024 > n) /* unknown, or an implausible ratio: not
                                                  worth faulting in */
        exact = 0;
    d->hint = exact;
    /* re-initialising a stream keeps its coder and dictionary when they fit */
    if (lzma_stream_decoder(z, 256u << 20, 0) != LZMA_OK)
        return TD_XZ_INIT;
    d->used = 1;
    if (exact)
        guess = exact + 1; /* room to see the end of the stream without growing */
    size_t cap = guess < 4096 ? 4096 : guess > max ? max : guess, got = 0;
    uint8_t *b = td_xmalloc(cap);
    if (exact)
        populate(b, cap);
    z->next_in = in;
    z->avail_in = n;
    int r = 0;
    for (;;) {
        if (got == cap) {
            if (cap >= max) {
                r = TD_XZ_TOO_BIG;
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            b = td_xrealloc(b, cap);
        }
        z->next_out = b + got;
        z->avail_out = cap - got;
        lzma_ret rc = lzma_code(z, LZMA_FINISH);
        got = cap - z->avail_out;
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            if (at)
                *at = n - z->avail_in;
            r = TD_XZ_CORRUPT;
            break;
        }
        if (rc == LZMA_BUF_ERROR && z->avail_out) { /* input ended inside the stream */
            r = TD_XZ_TRUNCATED;
            break;
        }
    }
    if (d == &own)
        lzma_end(z);
    if (r) {
        free(b);
        return r;
    }
    *out = b;
    *outn = got;
    return 0;
}

int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at)
{
    return td_unxz_with(NULL, in, n, guess, max, out, outn, at);
}

struct td_xzr {
    lzma_stream z;
    lzma_allocator al;
    size_t hint;
    size_t n, max, total;
    int err, end;
    size_t at;
};

td_xzr *td_xzr_new(const uint8_t *in, size_t n, size_t max)
{
    td_xzr *r = td_xcalloc(1, sizeof *r);
    lzma_stream init = LZMA_STREAM_INIT;
    r->z = init;
    r->hint = td_xz_size(in, n);
    if (r->hint == SIZE_MAX || r->hint / 1024 > n)
        r->hint = 0;
    r->al = (lzma_allocator){xz_alloc, xz_free, &r->hint};
    r->z.allocator = &r->al;
    if (lzma_stream_decoder(&r->z, 256u << 20, 0) != LZMA_OK) {
        free(r);
        return NULL;
    }
    r->z.next_in = in;
    r->z.avail_in = n;
    r->n = n;
    r->max = max;
    return r;
}

int td_xzr_read(td_xzr *r, uint8_t *buf, size_t cap, size_t *got, size_t *at)
{
    *got = 0;
    if (r->err) {
        if (at)
            *at = r->at;
        return r->err;
    }
    if (r->end)
        return 0;
    r->z.next_out = buf;
    r->z.avail_out = cap;
    while (r->z.avail_out) {
        lzma_ret rc = lzma_code(&r->z, LZMA_FINISH);
        if (rc == LZMA_STREAM_END) {
            r->end = 1;
            break;
        }
        if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            r->at = r->n - r->z.avail_in;
            r->err = TD_XZ_CORRUPT;
            break;
        }
        if (rc == LZMA_BUF_ERROR && r->z.avail_out) {
            r->err = TD_XZ_TRUNCATED;
            break;
        }
    }
    *got = cap - r->z.avail_out;
    r->total += *got;
    if (!r->err && r->total > r->max)
        r->err = TD_XZ_TOO_BIG;
    if (r->err) {
        *got = 0;
        if (at)
            *at = r->at;
        return r->err;
    }
    return 0;
}

void td_xzr_free(td_xzr *r)
{
    if (!r)
        return;
    lzma_end(&r->z);
    free(r);
}
