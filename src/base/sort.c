/* base/sort.c - LSD radix sorts, 8 bits a pass over the key's bytes, skipping the
 * passes where every key has the same byte (times within a trace share their high
 * bytes, delays and durations are small), the sign bit flipped so negative keys sort
 * first; an array already in order is left as is. Records of 8 or 16 bytes whose first 8 bytes are the int64 key; one scratch
 * array of the input's size. */
#include "base/sort.h"
#include "base/alloc.h"
#include <stdlib.h>
#include <string.h>

#define SMALL 48

static inline uint64_t key_at(const char *rec)
{
    int64_t k;
    memcpy(&k, rec, sizeof k);
    return (uint64_t)k ^ (UINT64_C(1) << 63);
}

/* Insertion sort, stable. */
static inline void small_sort(char *v, size_t n, size_t size)
{
    char x[16];
    for (size_t i = 1; i < n; i++) {
        memcpy(x, v + i * size, size);
        uint64_t kx = key_at(x);
        size_t j = i;
        for (; j > 0 && key_at(v + (j - 1) * size) > kx; j--)
            memcpy(v + j * size, v + (j - 1) * size, size);
        memcpy(v + j * size, x, size);
    }
}

static inline void radix(char *v, size_t n, size_t size)
{
    if (n < SMALL) {
        small_sort(v, n, size);
        return;
    }
    /* already in order (times of events read in order, usually): nothing to do */
    size_t i0 = 1;
    while (i0 < n && key_at(v + (i0 - 1) * size) <= key_at(v + i0 * size))
        i0++;
    if (i0 == n)
        return;
    size_t(*cnt)[256] = td_xcalloc(8, sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = key_at(v + i * size);
        for (int b = 0; b < 8; b++)
            cnt[b][(u >> (8 * b)) & 0xff]++;
    }
    /* a pass only where the keys' bytes differ */
    unsigned need = 0;
    for (int b = 0; b < 8; b++)
        if (cnt[b][(key_at(v) >> (8 * b)) & 0xff] != n)
            need |= 1u << b;
    char *tmp = need ? td_xmalloc(n * size) : NULL;
    char *src = v, *dst = tmp;
    for (int b = 0; b < 8; b++) {
        if (!(need & (1u << b)))
            continue;
        size_t at = 0;
        for (int d = 0; d < 256; d++) {
            size_t c = cnt[b][d];
            cnt[b][d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            memcpy(dst + size * cnt[b][(key_at(src + i * size) >> (8 * b)) & 0xff]++,
                   src + i * size, size);
        char *x = src;
        src = dst;
        dst = x;
    }
    if (src != v)
        memcpy(v, src, n * size);
    free(tmp);
    free(cnt);
}

void td_sort_i64(int64_t *v, size_t n)
{
    radix((char *)v, n, 8);
}

void td_sort_keyed(td_keyed *v, size_t n)
{
    radix((char *)v, n, 16);
}

void td_sort_rec16(void *v, size_t n)
{
    radix(v, n, 16);
}
