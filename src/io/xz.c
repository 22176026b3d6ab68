/* io/xz.c - see io/xz.h. */
#include "io/xz.h"
#include "base/alloc.h"
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at)
{
    *out = NULL;
    *outn = 0;
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK)
        return TD_XZ_INIT;
    size_t cap = guess < 4096 ? 4096 : guess > max ? max : guess, got = 0;
    uint8_t *b = td_xmalloc(cap);
    z.next_in = in;
    z.avail_in = n;
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
        z.next_out = b + got;
        z.avail_out = cap - got;
        lzma_ret rc = lzma_code(&z, LZMA_FINISH);
        got = cap - z.avail_out;
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            if (at)
                *at = n - z.avail_in;
            r = TD_XZ_CORRUPT;
            break;
        }
        if (rc == LZMA_BUF_ERROR && z.avail_out) { /* input ended inside the stream */
            r = TD_XZ_TRUNCATED;
            break;
        }
    }
    lzma_end(&z);
    if (r) {
        free(b);
        return r;
    }
    *out = b;
    *outn = got;
    return 0;
}
