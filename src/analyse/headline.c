/* analyse/headline.c - the figures page 1 leads with: the step time of the steady steps
 * (those the warm-up rule kept), median and 90th percentile over every rank's kept steps.
 * Scalars step_time.median_ns, step_time.p90_ns, step_time.steps; absent without steps.
 * The median of an even count is the mean of the two middle values; the p90 is the
 * nearest-rank percentile (the smallest value with at least 90% of the steps at or below
 * it), so that it is a step that happened. */
#include "analyse/internal.h"
#include <stdlib.h>

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

void td_an_headline(td_actx *a)
{
    td_summary *s = a->s;
    const td_table *st = td_sum_find_table(s, "steps");
    if (!st || !st->nrows || td_table_col(st, "wall_ns") < 0)
        return;
    int64_t *w = td_xcalloc(st->nrows, sizeof *w);
    size_t n = 0;
    int cw = td_table_col(st, "warmup");
    for (size_t r = 0; r < st->nrows; r++) {
        if (cw >= 0 && td_row_get_int(st, r, "warmup"))
            continue;
        int64_t v = td_row_get_int(st, r, "wall_ns");
        if (v != TD_NA && v >= 0)
            w[n++] = v;
    }
    if (n) {
        qsort(w, n, sizeof *w, cmp_i64);
        int64_t med = n % 2 ? w[n / 2] : w[n / 2 - 1] + (w[n / 2] - w[n / 2 - 1]) / 2;
        size_t k = (9 * n + 9) / 10; /* ceil(0.9 n), 1-based */
        td_sum_set_int(s, "step_time.median_ns", "Step time (median of steady steps)",
                       TD_T_NS, med);
        td_sum_set_int(s, "step_time.p90_ns", "Step time (p90 of steady steps)", TD_T_NS,
                       w[k - 1]);
        td_sum_set_int(s, "step_time.steps", "Steady steps", TD_T_INT, (int64_t)n);
    }
    free(w);
}
