/* io/bound.h - how much memory an input may become.
 *
 * A small input must not turn into a large amount of memory (a gzip of zeros, an xz
 * member, a 500 MB string in 0.5 MB of gzip, millions of identical events). One rule
 * for every reader: the data decoded from an input of S bytes as stored (on disk, in
 * the pipe: compressed bytes count as they are) may take at most
 *     td_bound_allow(S) = max(TD_BOUND_FLOOR, TD_BOUND_RATIO * S)
 * bytes in memory at once. Real traces stay far below it (a gzipped Kineto trace holds
 * 2-4 times its compressed size in memory, an nsys-jax archive's HLO dumps 16 times
 * their xz, a gzipped nsys export 4-8 times); a bomb reaches it with a few hundred KB.
 * Beyond it the part is skipped with a warning that names it, or the read fails with an
 * error that names the file (exit 3). One JSON event (or top-level value) is bounded
 * on its own by TD_BOUND_EVENT, and one interned string by TD_BOUND_STRING (cut to
 * that, with a warning). doc/formats.md "Limits" says the same for users. */
#ifndef TD_IO_BOUND_H
#define TD_IO_BOUND_H
#include <stddef.h>
#include <stdint.h>

#define TD_BOUND_FLOOR ((uint64_t)64 << 20)
#define TD_BOUND_RATIO 32
#define TD_BOUND_EVENT ((size_t)64 << 20)
#define TD_BOUND_STRING ((size_t)64 << 10)

static inline uint64_t td_bound_allow(uint64_t stored)
{
    uint64_t r = stored > UINT64_MAX / TD_BOUND_RATIO ? UINT64_MAX : stored * TD_BOUND_RATIO;
    return r > TD_BOUND_FLOOR ? r : TD_BOUND_FLOOR;
}

#endif
