/* base/sha256_ni.c - see base/sha256_ni.h. Written from FIPS 180-4 (the compression
 * function, the message schedule, the constants) and Intel's description of the SHA
 * extensions (SHA256RNDS2: two rounds on the state held as (A,B,E,F) and (C,D,G,H);
 * SHA256MSG1/MSG2: the sigma0 and sigma1 halves of the message schedule). */
#include "base/sha256_ni.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(TD_PORTABLE)
#include <cpuid.h>
#include <immintrin.h>

int td_sha256_ni_available(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    if (!(c & (1u << 9)) || !(c & (1u << 19))) /* SSSE3, SSE4.1 */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1; /* SHA */
}

static const uint32_t K[64] = {
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

__attribute__((target("sha,sse4.1,ssse3"))) void td_sha256_ni_blocks(uint32_t h[8],
                                                                      const uint8_t *p,
                                                                      size_t nblocks)
{
    /* the state as the instructions hold it: lanes 3..0 = A,B,E,F and C,D,G,H */
    __m128i abef = _mm_set_epi32((int)h[0], (int)h[1], (int)h[4], (int)h[5]);
    __m128i cdgh = _mm_set_epi32((int)h[2], (int)h[3], (int)h[6], (int)h[7]);
    /* the message's big-endian words into lanes, word 0 in lane 0 */
    const __m128i bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    for (; nblocks; nblocks--, p += 64) {
        __m128i abef0 = abef, cdgh0 = cdgh, w[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            __m128i wg;
            if (g < 4) {
                wg = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* W[t..t+3] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16] */
                __m128i x = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                x = _mm_add_epi32(x, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                wg = _mm_sha256msg2_epu32(x, w[(g + 3) & 3]);
            }
            w[g & 3] = wg;
            __m128i wk = _mm_add_epi32(wg, _mm_loadu_si128((const __m128i *)(K + 4 * g)));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);                          /* rounds 4g, 4g+1 */
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E)); /* 4g+2, 4g+3 */
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    uint32_t x[4], y[4];
    _mm_storeu_si128((__m128i *)x, abef); /* F, E, B, A */
    _mm_storeu_si128((__m128i *)y, cdgh); /* H, G, D, C */
    h[0] = x[3], h[1] = x[2], h[4] = x[1], h[5] = x[0];
    h[2] = y[3], h[3] = y[2], h[6] = y[1], h[7] = y[0];
}

#else

int td_sha256_ni_available(void)
{
    return 0;
}

void td_sha256_ni_blocks(uint32_t h[8], const uint8_t *p, size_t nblocks)
{
    (void)h, (void)p, (void)nblocks;
}

#endif
