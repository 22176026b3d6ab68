/* analyse/var.c - variability: coefficient of variation (sample std / mean) of each
 * kernel name with at least 2 calls, sorted by CoV descending; outlier steps: kept steps
 * whose wall time is over 1.5x the median of their rank's kept steps. */
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OUTLIER_RATIO 1.5

typedef struct kd {
    td_str name;
    int64_t dur;
} kd;

static void kernel_cov(td_actx *a)
{
    size_t n = td_count_kernels(a);
    if (!n || td_sum_find_table(a->s, "variability")) /* XLA: thunk variability */
        return;
    kd *k = td_xmalloc(n * sizeof *k);
    int64_t *v = td_xmalloc(n * sizeof *v);
    size_t m = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        const td_tctx *c = &a->tc[ti];
        for (size_t j = 0; j < c->ndev; j++) {
            const td_event *ev = &c->t->ev[c->devix[j]];
            if (ev->kind == TD_K_KERNEL || ev->kind == TD_K_DEVICE_OTHER)
                k[m++] = (kd){ev->name, ev->dur};
        }
    }
    { /* by (name, dur), as kd_cmp orders them */
        td_str *nm = td_xmalloc((m + 1) * sizeof *nm);
        td_keyed *kv = td_xmalloc((m + 1) * sizeof *kv);
        for (size_t i = 0; i < m; i++) {
            nm[i] = k[i].name;
            kv[i] = (td_keyed){k[i].dur, 0};
        }
        td_sort_name_dur(a, nm, kv, m);
        for (size_t i = 0; i < m; i++) {
            k[i].name = nm[i];
            k[i].dur = kv[i].key;
        }
        free(kv);
        free(nm);
    }
    td_summary *s = a->s;
    td_table *tb = NULL;
    int schema = a->part != NULL; /* summarize: the schema travels even without rows, since
                                   * parts merged may give a kernel its second call */
    for (size_t p = 0; p < m;) {
        size_t q = p;
        while (q < m && k[q].name == k[p].name)
            q++;
        if (q - p >= 2 || (schema && !tb)) {
            if (!tb) {
                tb = td_sum_table(s, "variability", "Kernel variability");
                td_table_cols(tb, "name:text:Kernel", "calls:int:Calls", "mean_ns:ns:Mean",
                              "std_ns:ns:Std dev", "cov:f64:CoV", NULL);
            }
            if (q - p < 2) {
                p = q;
                continue;
            }
            for (size_t i = p; i < q; i++)
                v[i - p] = k[i].dur;
            td_stats st;
            td_stats_of(v, q - p, &st);
            td_row_variability(s, tb, td_table_add_row(tb), td_name(a, k[p].name), &st);
        }
        p = q;
    }
    if (tb)
        td_table_sort(tb, "cov", 1);
    free(k);
    free(v);
}

static int i64_cmp(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static void outlier_steps(td_actx *a)
{
    td_summary *s = a->s;
    td_table *tb = NULL;
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        size_t nk = 0;
        for (size_t k = 0; k < c->nsteps; k++)
            nk += td_step_steady(&c->steps[k]);
        if (nk < 2)
            continue;
        int64_t *w = td_xmalloc(nk * sizeof *w);
        for (size_t k = 0, j = 0; k < c->nsteps; k++)
            if (td_step_steady(&c->steps[k]))
                w[j++] = c->steps[k].end - c->steps[k].start;
        qsort(w, nk, sizeof *w, i64_cmp);
        double med = nk % 2 ? (double)w[nk / 2] : ((double)w[nk / 2 - 1] + (double)w[nk / 2]) / 2.0;
        free(w);
        for (size_t k = 0; k < c->nsteps; k++) {
            const td_step *st = &c->steps[k];
            if (!td_step_steady(st))
                continue;
            double wall = (double)(st->end - st->start);
            if (!(med > 0 && wall > OUTLIER_RATIO * med))
                continue;
            if (!tb) {
                tb = td_sum_table(s, "outlier_steps", "Outlier steps");
                td_table_cols(tb, "rank:int:Rank", "name:text:Step", "wall_ns:ns:Wall",
                              "median_ns:ns:Median", "ratio:f64:Ratio", NULL);
            }
            size_t r = td_table_add_row(tb);
            td_row_int(s, tb, r, "rank", c->t->rank);
            td_row_str(s, tb, r, "name", td_name(a, st->name));
            td_row_int(s, tb, r, "wall_ns", st->end - st->start);
            td_row_int(s, tb, r, "median_ns", llround(med));
            td_row_f64(s, tb, r, "ratio", wall / med);
        }
    }
}

void td_an_var(td_actx *a)
{
    kernel_cov(a);
    outlier_steps(a);
}
