/* base/sha256_ni.h - the SHA-256 compression function on the x86 SHA extensions (SHA-NI):
 * base/hash.c's digests use it where the CPU has them, so that a run needs neither
 * libcrypto nor OpenSSL's start (together ~7 ms of every run that reads a file: 4.5 ms
 * to load the library, 2.5 ms for OpenSSL to initialise) and hashes as fast (1.5 GB/s
 * here). Elsewhere (no SHA-NI, the portable build, other architectures) hash.c uses
 * libcrypto, which has its own code for each CPU. */
#ifndef TD_BASE_SHA256_NI_H
#define TD_BASE_SHA256_NI_H
#include <stddef.h>
#include <stdint.h>

/* 1 when this CPU has the SHA extensions (and SSSE3, SSE4.1), and the build has the code
 * for them (not TD_PORTABLE, x86); else 0. */
int td_sha256_ni_available(void);

/* Compresses nblocks 64-byte blocks of p into the state h (FIPS 180-4 H0..H7). Only when
 * td_sha256_ni_available(). */
void td_sha256_ni_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks);

#endif
