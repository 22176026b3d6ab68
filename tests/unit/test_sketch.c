/* Unit tests: the DDSketch (base/sketch.c) against exact quantiles of random samples (every
 * rank within the relative accuracy alpha), its exact merge (the merge of two sketches
 * has the counts of the sketch of the union, in any order), the even-count median, and
 * its text form; bad text is refused. */
#include "base/sketch.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>

static int cmp64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static int same(const td_sketch *a, const td_sketch *b)
{
    if (a->total != b->total || a->zero != b->zero)
        return 0;
    for (int32_t i = -5000; i < 5000; i++) {
        uint64_t ca = i >= a->lo && i < a->lo + (int32_t)a->n ? a->counts[i - a->lo] : 0;
        uint64_t cb = i >= b->lo && i < b->lo + (int32_t)b->n ? b->counts[i - b->lo] : 0;
        if (ca != cb)
            return 0;
    }
    return 1;
}

int main(void)
{
    enum { N = 20000 };
    int64_t *v = malloc(N * sizeof *v);
    for (int dist = 0; dist < 3; dist++) {
        td_sketch s = {0}, a = {0}, b = {0}, ab = {0}, ba = {0};
        for (int i = 0; i < N; i++) {
            uint64_t r = next();
            /* uniform 1..1e6 ns, log-uniform 1 ns..10 s, a few values with zeros */
            v[i] = dist == 0 ? (int64_t)(r % 1000000) + 1
                 : dist == 1 ? (int64_t)exp((double)(r % 1000000) / 1e6 * log(1e10))
                             : (int64_t)(r % 4) * 1000;
            td_sketch_add(&s, v[i], 1);
            td_sketch_add(i % 3 ? &a : &b, v[i], 1);
        }
        qsort(v, N, sizeof *v, cmp64);
        int bad = 0;
        for (int r = 0; r < N; r += 97) {
            double est = td_sketch_rank(&s, (uint64_t)r);
            if (fabs(est - (double)v[r]) > TD_SKETCH_ALPHA * (double)v[r] * (1 + 1e-12))
                bad++;
        }
        CHECK_EQ_INT(bad, 0);
        double med = ((double)v[N / 2 - 1] + (double)v[N / 2]) / 2.0;
        CHECK(fabs(td_sketch_median(&s) - med) <= TD_SKETCH_ALPHA * med + 1e-9);
        td_sketch_merge(&ab, &a);
        td_sketch_merge(&ab, &b);
        td_sketch_merge(&ba, &b);
        td_sketch_merge(&ba, &a);
        CHECK(same(&ab, &s));
        CHECK(same(&ba, &s));
        td_buf t = {0};
        td_sketch_write(&s, &t);
        td_sketch back;
        CHECK(td_sketch_parse(&back, t.p, t.n));
        CHECK(same(&back, &s));
        td_sketch_free(&back);
        td_buf_free(&t);
        td_sketch_free(&s), td_sketch_free(&a), td_sketch_free(&b);
        td_sketch_free(&ab), td_sketch_free(&ba);
    }
    /* two values: the median is their mean (as the exact computation defines it) */
    td_sketch two = {0};
    td_sketch_add(&two, 1000, 1);
    td_sketch_add(&two, 3000, 1);
    CHECK(fabs(td_sketch_median(&two) - 2000) <= 2000 * TD_SKETCH_ALPHA);
    td_sketch_free(&two);
    td_sketch bad;
    CHECK(!td_sketch_parse(&bad, "1;2", 3));
    CHECK(!td_sketch_parse(&bad, "x;1;2", 5));
    CHECK(!td_sketch_parse(&bad, "0;1;2,*0,3", 10));
    CHECK(!td_sketch_parse(&bad, "0;999999;1", 10));
    free(v);
    return UNIT_DONE();
}
