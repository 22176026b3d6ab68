/* base/hash.c - see base/hash.h. */
#include "base/hash.h"
#include "base/alloc.h"
#include "base/dynlib.h"
#include "base/sha256_ni.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t td_hash64(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* ---- sha256: on the CPU's SHA extensions (base/sha256_ni.c) where it has them, else
 * OpenSSL's libcrypto, which has code for each CPU (~1.5 GB/s here either way, against
 * ~0.3 GB/s for libmd's portable code, which made hashing half of the run time on large
 * traces). libcrypto is loaded when first used (base/dynlib.h): linked, it was a seventh
 * of every run's start, and OpenSSL's own start takes 2.5 ms more. ---- */
#define CRYPTO_FUNCS(X, T) \
    X(T, EVP_DigestFinal_ex) \
    X(T, EVP_DigestInit_ex) \
    X(T, EVP_DigestUpdate) \
    X(T, EVP_MD_CTX_free) \
    X(T, EVP_MD_CTX_new) \
    X(T, EVP_sha256)
typedef struct crypto_fns {
    CRYPTO_FUNCS(TD_DYNLIB_PTR, crypto_fns)
} crypto_fns;
td_status td_hash_crypto_load(const char *file, td_err *e); /* this file's only */
TD_DYNLIB_DEFINE(td_hash_crypto, crypto_fns, CRYPTO_FUNCS, td_hash_crypto_load,
                 "SHA-256 is not available", TD_E_INTERNAL, {"libcrypto.so.3", "libssl3"})
#define C (&td_hash_crypto)

/* where the CPU has the SHA extensions, the digest is computed here and libcrypto is not
 * loaded; TD_SHA256=libcrypto in the environment takes libcrypto anyway (for the tests:
 * the two give the same digests; what a libcrypto that cannot be loaded does) */
static int use_ni(void)
{
    static int ni = -1;
    int v = __atomic_load_n(&ni, __ATOMIC_RELAXED);
    if (v < 0) {
        const char *force = getenv("TD_SHA256");
        v = !(force && !strcmp(force, "libcrypto")) && td_sha256_ni_available();
        __atomic_store_n(&ni, v, __ATOMIC_RELAXED);
    }
    return v;
}

struct td_sha256 {
    EVP_MD_CTX *ctx; /* NULL: ours */
    uint32_t h[8];
    uint64_t total; /* bytes */
    size_t nbuf;
    uint8_t buf[64];
};

td_sha256 *td_sha256_new(void)
{
    if (use_ni()) {
        static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        td_sha256 *s = td_xcalloc(1, sizeof *s);
        memcpy(s->h, h0, sizeof h0);
        return s;
    }
    if (td_hash_crypto_load(NULL, NULL) != TD_OK)
        return NULL;
    td_sha256 *s = td_xcalloc(1, sizeof *s);
    s->ctx = C->EVP_MD_CTX_new();
    if (!s->ctx || C->EVP_DigestInit_ex(s->ctx, C->EVP_sha256(), NULL) != 1) {
        C->EVP_MD_CTX_free(s->ctx);
        free(s);
        return NULL;
    }
    return s;
}

void td_sha256_update(td_sha256 *s, const void *p, size_t n)
{
    if (!s)
        return;
    if (s->ctx) {
        C->EVP_DigestUpdate(s->ctx, p, n);
        return;
    }
    const uint8_t *b = p;
    s->total += n;
    if (s->nbuf) {
        size_t k = 64 - s->nbuf < n ? 64 - s->nbuf : n;
        memcpy(s->buf + s->nbuf, b, k);
        s->nbuf += k, b += k, n -= k;
        if (s->nbuf < 64)
            return;
        td_sha256_ni_blocks(s->h, s->buf, 1);
        s->nbuf = 0;
    }
    if (n >= 64) {
        td_sha256_ni_blocks(s->h, b, n / 64);
        b += n & ~(size_t)63, n &= 63;
    }
    memcpy(s->buf, b, n);
    s->nbuf = n;
}

void td_sha256_final(td_sha256 *s, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!s) {
        hex[0] = 0;
        return;
    }
    if (s->ctx) {
        C->EVP_DigestFinal_ex(s->ctx, d, &n);
        C->EVP_MD_CTX_free(s->ctx);
    } else {
        /* FIPS 180-4 5.1.1: a 1 bit, zeros to 56 bytes mod 64, the length in bits */
        uint64_t bits = s->total * 8;
        uint8_t pad[72] = {0x80};
        size_t k = (s->nbuf < 56 ? 56 : 120) - s->nbuf;
        for (int i = 0; i < 8; i++)
            pad[k + i] = (uint8_t)(bits >> (56 - 8 * i));
        td_sha256_update(s, pad, k + 8);
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 4; j++)
                d[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
        n = 32;
    }
    for (unsigned int i = 0; i < 32 && i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    hex[64] = 0;
    free(s);
}

td_status td_sha256_fail(const char *file, td_err *e)
{
    td_status st = td_hash_crypto_load(file, e);
    if (st != TD_OK)
        return st;
    return td_fail(e, TD_E_INTERNAL, "%s%sSHA-256 is not available", file ? file : "",
                   file ? ": " : "");
}
