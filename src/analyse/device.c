/* analyse/device.c - device kernel statistics: `kernels` (all devices of all ranks),
 * `kernels_by_device`, and `cuda_gpu_kern_sum` with the columns and content of
 * `nsys stats --report cuda_gpu_kern_sum` (Time (%) = total / sum of totals x 100,
 * Avg/Med/StdDev as reals, median = mean of the two middle values for even counts,
 * StdDev the sample standard deviation, sorted by total time). */
#include "analyse/internal.h"
#include "partial/partial.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kev {
    td_str name;
    int32_t device;
    int64_t dur;
} kev;

static int kev_cmp_name(const void *x, const void *y)
{
    const kev *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->dur > b->dur) - (a->dur < b->dur);
}

static int kev_cmp_dev(const void *x, const void *y)
{
    const kev *a = x, *b = y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return kev_cmp_name(x, y);
}

/* k, in (name, dur) order, by (device, name, dur) (kev_cmp_dev): stable buckets per
 * device when there are a few (device numbers below 4096), else qsort. */
static void sort_by_device(kev *k, size_t m)
{
    enum { MAXDEV = 4096 };
    for (size_t i = 0; i < m; i++)
        if (k[i].device < 0 || k[i].device >= MAXDEV) {
            qsort(k, m, sizeof *k, kev_cmp_dev);
            return;
        }
    size_t *at = td_xcalloc(MAXDEV + 1, sizeof *at);
    for (size_t i = 0; i < m; i++)
        at[k[i].device + 1]++;
    for (size_t d = 0; d < MAXDEV; d++)
        at[d + 1] += at[d];
    kev *v = td_xmalloc((m + 1) * sizeof *v);
    for (size_t i = 0; i < m; i++)
        v[at[k[i].device]++] = k[i];
    memcpy(k, v, m * sizeof *k);
    free(v);
    free(at);
}

/* k by (name, dur) as kev_cmp_name orders it (td_sort_name_dur). Kernels of one name
 * and duration are alike for every use below. */
static void sort_by_name(td_actx *a, kev *k, size_t m)
{
    td_str *nm = td_xmalloc((m + 1) * sizeof *nm);
    td_keyed *kv = td_xmalloc((m + 1) * sizeof *kv);
    for (size_t i = 0; i < m; i++) {
        nm[i] = k[i].name;
        kv[i] = (td_keyed){k[i].dur, k[i].device};
    }
    td_sort_name_dur(a, nm, kv, m);
    for (size_t i = 0; i < m; i++)
        k[i] = (kev){nm[i], (int32_t)kv[i].val, kv[i].key};
    free(kv);
    free(nm);
}

/* Stats of a run of kev with equal name, already sorted by dur. */
static void run_stats(const kev *k, size_t n, td_stats *st, int64_t *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = k[i].dur;
    td_stats_of(scratch, n, st);
}

typedef struct krun {
    const char *name;
    td_stats st;
} krun;

static int krun_cmp(const void *x, const void *y)
{
    const krun *a = x, *b = y;
    if (a->st.total != b->st.total)
        return a->st.total > b->st.total ? -1 : 1;
    return strcmp(a->name, b->name);
}

void td_an_kernels(td_actx *a)
{
    size_t n = td_count_kernels(a);
    if (!n)
        return;
    kev *k = td_xmalloc(n * sizeof *k);
    int64_t *scratch = td_xmalloc(n * sizeof *scratch);
    size_t m = 0;
    int64_t sum = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        const td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        for (size_t j = 0; j < c->ndev; j++) {
            const td_event *ev = &t->ev[c->devix[j]];
            if (ev->kind != TD_K_KERNEL && ev->kind != TD_K_DEVICE_OTHER)
                continue;
            int32_t dev = ev->track < t->ntracks ? t->tracks[ev->track].device : -1;
            k[m++] = (kev){ev->name, dev < 0 ? 0 : dev, ev->dur};
            sum += ev->dur;
        }
    }
    td_summary *s = a->s;
    td_table *tk = td_sum_table(s, "kernels", "Top kernels");
    td_rows_kernel_cols(tk);
    td_table *ns = td_rows_kern_sum_table(s);
    sort_by_name(a, k, m);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && k[j].name == k[i].name)
            j++;
        td_stats st;
        run_stats(k + i, j - i, &st, scratch);
        const char *nm = td_name(a, k[i].name);
        if (a->part)
            td_part_kernels(a->part, -1, nm, scratch, j - i);
        td_row_kernel(s, tk, td_table_add_row(tk), nm, &st, sum);
        td_row_kern_sum(s, ns, td_table_add_row(ns), nm, &st, sum);
        i = j;
    }
    td_table_sort(tk, "total_ns", 1);
    td_table_sort(ns, "Total Time (ns)", 1);

    td_table *td = td_sum_table(s, "kernels_by_device", "Top kernels by device");
    td_table_cols(td, "device:device:Device", NULL);
    td_rows_kernel_cols(td);
    sort_by_device(k, m);
    krun *runs = td_xmalloc(m * sizeof *runs);
    for (size_t i = 0; i < m;) {
        size_t j = i, nr = 0;
        int64_t dsum = 0;
        while (j < m && k[j].device == k[i].device)
            dsum += k[j++].dur;
        for (size_t p = i; p < j;) {
            size_t q = p;
            while (q < j && k[q].name == k[p].name)
                q++;
            runs[nr].name = td_name(a, k[p].name);
            run_stats(k + p, q - p, &runs[nr].st, scratch);
            if (a->part)
                td_part_kernels(a->part, k[i].device, runs[nr].name, scratch, q - p);
            nr++;
            p = q;
        }
        /* rows by device ascending, then total descending, then name */
        qsort(runs, nr, sizeof *runs, krun_cmp);
        for (size_t p = 0; p < nr; p++) {
            size_t r = td_table_add_row(td);
            td_row_int(s, td, r, "device", k[i].device);
            td_row_kernel(s, td, r, runs[p].name, &runs[p].st, dsum);
        }
        i = j;
    }
    free(runs);
    free(k);
    free(scratch);
}
