/* analyse/launches.c - kernel launch statistics per rank, as HTA's
 * get_cuda_kernel_launch_stats (cuda_kernel_analysis.py:609-620; doc/summary-json.md
 * "launches"): every device kernel, memcpy and memset joined to the runtime or driver
 * call that launched it (correlation id, analyse/nest.c); launch delay = device start -
 * the call's end, clipped at 0. HTA's three rules: short kernels (call <= 50 us and
 * device time < call time), runtime outliers (call > 50 us), launch-delay outliers
 * (delay > 100 us). Unlike HTA every launching call counts (cudaGraphLaunch's kernels,
 * cuLaunchKernel, cudaMemcpy, hipLaunchKernel, hipExtModuleLaunchKernel ...), not only
 * cudaLaunchKernel[ExC] and cudaMemcpyAsync/cudaMemsetAsync. */
#include "analyse/internal.h"
#include "base/sort.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_CPU_NS 50000     /* HTA runtime_cutoff, 50 us */
#define DELAY_OUTLIER_NS 100000 /* HTA launch_delay_cutoff, 100 us */

/* The q-quantile of a sorted list, interpolated linearly between ranks (as pandas's
 * describe(), which HTA's figures come from). */
static double quantile(const int64_t *v, size_t n, double q)
{
    double x = q * (double)(n - 1);
    size_t lo = (size_t)x;
    if (lo + 1 >= n)
        return (double)v[n - 1];
    return (double)v[lo] + (x - (double)lo) * (double)(v[lo + 1] - v[lo]);
}

static td_table *table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "launches", "Kernel launches");
    td_table_cols(tb, "rank:int:Rank", "launches:int:Launches",
                  "launch_delay_mean_ns:ns:Launch delay (mean)",
                  "launch_delay_median_ns:ns:Launch delay (median)",
                  "launch_delay_p90_ns:ns:Launch delay (p90)",
                  "launch_delay_max_ns:ns:Launch delay (max)",
                  "cpu_mean_ns:ns:Launch call (mean)", "gpu_mean_ns:ns:Device time (mean)",
                  "short_kernels:int:Short kernels", "runtime_outliers:int:Launch calls > 50 \xc2\xb5s",
                  "launch_delay_outliers:int:Launch delays > 100 \xc2\xb5s", NULL);
    return tb;
}

static void launch_trace(td_actx *a, const td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    int64_t *d = td_xmalloc((c->ndev + 1) * sizeof *d);
    size_t n = 0, nshort = 0, nrt = 0, ndel = 0;
    double cpu = 0, gpu = 0, dsum = 0;
    for (size_t k = 0; k < c->ndev; k++) { /* the device events (td_dev_order) */
        const td_event *ev = &t->ev[c->devix[k]];
        int32_t r = c->launch[k];
        if (r < 0)
            continue;
        const td_event *call = &t->ev[r];
        int64_t delay = ev->ts - (call->ts + call->dur);
        if (delay < 0)
            delay = 0;
        d[n++] = delay;
        cpu += (double)call->dur;
        gpu += (double)ev->dur;
        dsum += (double)delay;
        nshort += call->dur <= SHORT_CPU_NS && ev->dur < call->dur;
        nrt += call->dur > SHORT_CPU_NS;
        ndel += delay > DELAY_OUTLIER_NS;
    }
    if (n) {
        td_sort_i64(d, n);
        td_table *tb = *tbp ? *tbp : (*tbp = table(a->s));
        size_t r = td_table_add_row(tb);
        td_row_int(a->s, tb, r, "rank", t->rank);
        td_row_int(a->s, tb, r, "launches", (int64_t)n);
        td_row_int(a->s, tb, r, "launch_delay_mean_ns", llround(dsum / (double)n));
        td_row_int(a->s, tb, r, "launch_delay_median_ns", llround(quantile(d, n, 0.5)));
        td_row_int(a->s, tb, r, "launch_delay_p90_ns", llround(quantile(d, n, 0.9)));
        td_row_int(a->s, tb, r, "launch_delay_max_ns", d[n - 1]);
        td_row_int(a->s, tb, r, "cpu_mean_ns", llround(cpu / (double)n));
        td_row_int(a->s, tb, r, "gpu_mean_ns", llround(gpu / (double)n));
        td_row_int(a->s, tb, r, "short_kernels", (int64_t)nshort);
        td_row_int(a->s, tb, r, "runtime_outliers", (int64_t)nrt);
        td_row_int(a->s, tb, r, "launch_delay_outliers", (int64_t)ndel);
    }
    free(d);
}

/* The table only when some device work is linked to its launching call. */
void td_an_launches(td_actx *a)
{
    td_table *tb = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].ndev)
            launch_trace(a, &a->tc[i], &tb);
}
