/* io/xz.h - decompress .xz data (liblzma): a whole buffer at once, or a piece at a time. */
#ifndef TD_XZ_H
#define TD_XZ_H
#include <stddef.h>
#include <stdint.h>

/* Decompress in[0..n) into a malloc'd buffer (*out, *outn; the caller frees it), at most
 * max bytes; guess is the first output size tried (the size the stream's index records
 * is used instead when it has one). Returns 0, or TD_XZ_TOO_BIG, TD_XZ_CORRUPT (*at,
 * when at is not NULL, = input byte where decoding stopped), TD_XZ_TRUNCATED,
 * TD_XZ_INIT; on error *out is NULL. */
enum { TD_XZ_TOO_BIG = 1, TD_XZ_CORRUPT, TD_XZ_TRUNCATED, TD_XZ_INIT };
int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at);

/* The uncompressed size a one-stream .xz buffer's index records (SIZE_MAX: no readable
 * index). Cheap: reads the footer and index only. td_unxz decodes no more than it. */
size_t td_xz_size(const uint8_t *in, size_t n);

/* A decoder kept across members: td_unxz_with reuses its dictionary (several MiB, whose
 * pages would otherwise be faulted in again for every member). Not shared by threads. */
typedef struct td_xzdec td_xzdec;
td_xzdec *td_xzdec_new(void);
void td_xzdec_free(td_xzdec *d);
/* td_unxz with decoder d (NULL: a decoder of its own). */
int td_unxz_with(td_xzdec *d, const uint8_t *in, size_t n, size_t guess, size_t max,
                 uint8_t **out, size_t *outn, size_t *at);

/* Streaming: the output a piece at a time (no buffer of the whole output). */
typedef struct td_xzr td_xzr;
td_xzr *td_xzr_new(const uint8_t *in, size_t n, size_t max); /* NULL: TD_XZ_INIT */
/* Next bytes into buf[0..cap): *got = 0 at the end of the stream. Returns 0 or an error
 * as td_unxz (TD_XZ_TOO_BIG past max bytes); errors repeat once returned. */
int td_xzr_read(td_xzr *r, uint8_t *buf, size_t cap, size_t *got, size_t *at);
void td_xzr_free(td_xzr *r);

#endif
