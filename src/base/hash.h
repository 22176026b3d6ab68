/* base/hash.h - FNV-1a 64 for tables and colours, SHA-256 (the CPU's SHA extensions, else libcrypto) for input digests. */
#ifndef TD_HASH_H
#define TD_HASH_H
#include "base/err.h"
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Hash of bytes (FNV-1a 64); stable across runs and platforms (used for colours). */
uint64_t td_hash64(const void *p, size_t n);

/* Hash of bytes 8 at a time from a seed, for in-memory lookup tables on hot paths (a
 * partial's records, flamegraph frames); never stored, and faster than td_hash64's
 * byte-at-a-time FNV (which was a tenth of a merge's time). */
static inline uint64_t td_hash_words(uint64_t seed, const char *s, size_t len)
{
    uint64_t h = seed;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    uint64_t w = 0;
    memcpy(&w, s + i, len - i);
    h = (h ^ w) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

/* SHA-256 of a byte range, as 64 lowercase hex chars + NUL. td_sha256_new returns NULL
 * when libcrypto cannot give SHA-256 (no memory, or a configuration without it): the
 * caller reports that; update on NULL does nothing and final on NULL gives "" so that a
 * caller that does not check records no digest rather than a wrong one. final frees s. */
typedef struct td_sha256 td_sha256;
/* The error of a td_sha256_new that gave NULL, TD_E_INTERNAL: "FILE: SHA-256 is not
 * available: the library libcrypto.so.3 (Debian package libssl3) cannot be loaded: ..."
 * (libcrypto is loaded when first used, base/dynlib.h), else "FILE: SHA-256 is not
 * available" ("FILE: " left out when file is NULL). */
td_status td_sha256_fail(const char *file, td_err *e);
td_sha256 *td_sha256_new(void);
void td_sha256_update(td_sha256 *s, const void *p, size_t n);
void td_sha256_final(td_sha256 *s, char hex[65]);

#endif
