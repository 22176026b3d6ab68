/* base/hash.c - see base/hash.h. */
#include "base/hash.h"
#include "base/alloc.h"
#include "base/dynlib.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

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

/* ---- sha256 (OpenSSL's libcrypto: it uses the CPU's SHA extensions, ~2 GB/s here
 * against ~0.3 GB/s for libmd's portable code, which made hashing half of the run time
 * on large traces; loaded when first used, base/dynlib.h: linked, it was a seventh of
 * every run's start) ---- */
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

struct td_sha256 {
    EVP_MD_CTX *ctx;
};

td_sha256 *td_sha256_new(void)
{
    if (td_hash_crypto_load(NULL, NULL) != TD_OK)
        return NULL;
    td_sha256 *s = td_xmalloc(sizeof *s);
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
    if (s)
        C->EVP_DigestUpdate(s->ctx, p, n);
}

void td_sha256_final(td_sha256 *s, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (!s) {
        hex[0] = 0;
        return;
    }
    C->EVP_DigestFinal_ex(s->ctx, d, &n);
    C->EVP_MD_CTX_free(s->ctx);
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
