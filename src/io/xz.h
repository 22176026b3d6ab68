/* io/xz.h - decompress a whole .xz buffer (liblzma). */
#ifndef TD_XZ_H
#define TD_XZ_H
#include <stddef.h>
#include <stdint.h>

/* Decompress in[0..n) into a malloc'd buffer (*out, *outn; the caller frees it), at most
 * max bytes; guess is the first output size tried. Returns 0, or TD_XZ_TOO_BIG,
 * TD_XZ_CORRUPT (*at, when at is not NULL, = input byte where decoding stopped),
 * TD_XZ_TRUNCATED, TD_XZ_INIT; on error *out is NULL. */
enum { TD_XZ_TOO_BIG = 1, TD_XZ_CORRUPT, TD_XZ_TRUNCATED, TD_XZ_INIT };
int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at);

#endif
