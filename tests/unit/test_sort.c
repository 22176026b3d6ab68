/* Unit tests: base/sort.h against qsort with the obvious comparison (and, for the keyed
 * sort, the input position as the tie-break: stability), on arrays of every size class
 * (insertion sort below 48, radix above), sorted and nearly sorted input, negative keys, keys that differ only in high
 * bytes, constant keys and many ties. */
#include "base/sort.h"
#include "unit.h"
#include <stdlib.h>

static int i64_cmp(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int keyed_cmp(const void *x, const void *y)
{
    const td_keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->val > b->val) - (a->val < b->val); /* val: the input position */
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t draw(int kind)
{
    switch (kind) {
    case 0: return (int64_t)next();                                /* any, negatives too */
    case 1: return (int64_t)(next() % 7) - 3;                      /* many ties around 0 */
    case 2: return 1700000000000000000ll + (int64_t)(next() % 1000000); /* trace times */
    case 3: return (int64_t)(next() & 0xff00000000000000ull);      /* high byte only */
    default: return 42;                                            /* constant */
    }
}

int main(void)
{
    const size_t sizes[] = {0, 1, 2, 47, 48, 49, 1000, 70000};
    for (int kind = 0; kind < 7; kind++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            int64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
            td_keyed *ka = malloc((n + 1) * sizeof *ka), *kb = malloc((n + 1) * sizeof *kb);
            for (size_t i = 0; i < n; i++) {
                /* 5: already in order, with ties; 6: in order but for the last */
                a[i] = b[i] = kind == 5 ? (int64_t)(i / 3) : kind == 6 ? (int64_t)(i + 1 < n ? i : 0)
                                                                      : draw(kind);
                ka[i] = kb[i] = (td_keyed){a[i], (int64_t)i};
            }
            td_sort_i64(a, n);
            qsort(b, n, sizeof *b, i64_cmp);
            td_sort_keyed(ka, n);
            qsort(kb, n, sizeof *kb, keyed_cmp);
            size_t bad = 0, kbad = 0;
            for (size_t i = 0; i < n; i++) {
                bad += a[i] != b[i];
                kbad += ka[i].key != kb[i].key || ka[i].val != kb[i].val;
            }
            CHECK_EQ_INT(bad, 0);
            CHECK_EQ_INT(kbad, 0);
            free(a);
            free(b);
            free(ka);
            free(kb);
        }
    return UNIT_DONE();
}
