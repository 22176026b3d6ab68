/* base/hash.h - FNV-1a 64 for tables and colours, SHA-256 (libcrypto) for input digests. */
#ifndef TD_HASH_H
#define TD_HASH_H
#include <stddef.h>
#include <stdint.h>

/* Hash of bytes (FNV-1a 64); stable across runs and platforms (used for colours). */
uint64_t td_hash64(const void *p, size_t n);

/* SHA-256 of a byte range, as 64 lowercase hex chars + NUL. td_sha256_new returns NULL
 * when libcrypto cannot give SHA-256 (no memory, or a configuration without it): the
 * caller reports that; update on NULL does nothing and final on NULL gives "" so that a
 * caller that does not check records no digest rather than a wrong one. final frees s. */
typedef struct td_sha256 td_sha256;
td_sha256 *td_sha256_new(void);
void td_sha256_update(td_sha256 *s, const void *p, size_t n);
void td_sha256_final(td_sha256 *s, char hex[65]);

#endif
