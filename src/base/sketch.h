/* base/sketch.h - a mergeable quantile sketch: DDSketch (Masson, Rim, Lee, "DDSketch: a fast
 * and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019),
 * implemented from the paper's definitions for non-negative integer values (ns).
 *
 * With relative accuracy alpha, gamma = (1 + alpha) / (1 - alpha); a value x > 0 goes
 * to bucket i = ceil(log_gamma(x)) and bucket i stands for 2 gamma^i / (gamma + 1),
 * which is within alpha x of every value in (gamma^(i-1), gamma^i]. Zero has its own
 * count. The q-quantile (the value of rank floor(q (n - 1)), 0-based) is therefore
 * returned within a relative error alpha, for every input distribution. Two sketches
 * of the same alpha merge by adding their bucket counts: the merge is exact (the
 * merged sketch is the sketch of the union), hence associative and commutative. */
#ifndef TD_SKETCH_H
#define TD_SKETCH_H
#include "base/util.h"

#define TD_SKETCH_ALPHA 0.005   /* relative accuracy of every quantile (0.5%) */

typedef struct td_sketch {
    int32_t lo;          /* index of counts[0] */
    uint32_t n;          /* buckets held (dense from lo) */
    uint64_t *counts;
    uint64_t zero;       /* values <= 0 */
    uint64_t total;      /* all values */
} td_sketch;

void td_sketch_add(td_sketch *s, int64_t x, uint64_t count);
void td_sketch_merge(td_sketch *dst, const td_sketch *src);
void td_sketch_free(td_sketch *s);
/* The value of 0-based rank r (r < total), within TD_SKETCH_ALPHA relative error;
 * 0 for an empty sketch. */
double td_sketch_rank(const td_sketch *s, uint64_t r);
/* Median as the exact computation defines it (mean of the two middle values for an
 * even count), from the sketch: within TD_SKETCH_ALPHA relative error. */
double td_sketch_median(const td_sketch *s);
/* Text form "zero;lo;c,c,c..." (counts of buckets lo, lo+1, ...; empty runs written
 * as "*N" for N zero buckets) and back. Parse returns 0 on bad text. */
void td_sketch_write(const td_sketch *s, td_buf *b);
int td_sketch_parse(td_sketch *s, const char *p, size_t n);

#endif
