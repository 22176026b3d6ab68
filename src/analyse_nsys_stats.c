/* analyse_nsys_stats.c - the `nsys stats` reports users expect beside
 * cuda_gpu_kern_sum (analyse_device.c), for Nsight Systems inputs, with nsys's column
 * names (CSV only: `summary --format csv --table NAME`, and the nightly csv files):
 *
 *   cuda_api_sum           CUDA runtime and driver calls by name (the _vNNNN suffix
 *                          dropped, as nsys does)
 *   cuda_gpu_mem_time_sum  memcpy/memset time by operation ("[CUDA memcpy
 *                          Host-to-Device]", "[CUDA memset]")
 *   cuda_gpu_mem_size_sum  memcpy/memset sizes by operation, in MB (10^6 bytes)
 *   nvtx_sum               NVTX push/pop ranges by "Domain:text" name, Style PushPop
 *   osrt_sum               OS runtime calls by name
 *
 * Each time report: Time (%) = total / sum of totals x 100, then Total Time (ns), the
 * count, Avg, Med (mean of the two middle values for even counts), Min, Max and StdDev
 * (sample) in ns, sorted by total time. A report is made only when its table had rows. */
#include "analyse_int.h"
#include <stdlib.h>
#include <string.h>

typedef struct nv {
    td_str name;
    int64_t v;
} nv;

static int nv_cmp(const void *x, const void *y)
{
    const nv *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* One report from (name, value) pairs. count: the count column's title; mb: values are
 * bytes, reported in MB without the time share. */
static void report(td_actx *a, const char *table, nv *x, size_t n, const char *count,
                   const char *label, int mb)
{
    if (!n)
        return;
    td_summary *s = a->s;
    td_table *t = td_sum_table(s, table, table);
    t->no_json = 1;
    char c[8][64];
    if (mb) {
        td_table_cols(t, "Total (MB):f64:Total (MB)", NULL);
        snprintf(c[0], sizeof c[0], "%s:int:%s", count, count);
        td_table_cols(t, c[0], "Avg (MB):f64:Avg (MB)", "Med (MB):f64:Med (MB)",
                      "Min (MB):f64:Min (MB)", "Max (MB):f64:Max (MB)",
                      "StdDev (MB):f64:StdDev (MB)", NULL);
    } else {
        td_table_cols(t, "Time (%):f64:Time (%)", "Total Time (ns):int:Total Time (ns)", NULL);
        snprintf(c[0], sizeof c[0], "%s:int:%s", count, count);
        td_table_cols(t, c[0], "Avg (ns):f64:Avg (ns)", "Med (ns):f64:Med (ns)",
                      "Min (ns):int:Min (ns)", "Max (ns):int:Max (ns)",
                      "StdDev (ns):f64:StdDev (ns)", NULL);
    }
    if (!strcmp(table, "nvtx_sum"))
        td_table_cols(t, "Style:text:Style", NULL);
    snprintf(c[1], sizeof c[1], "%s:text:%s", label, label);
    td_table_cols(t, c[1], NULL);
    qsort(x, n, sizeof *x, nv_cmp);
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i].v;
    int64_t *v = td_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && x[j].name == x[i].name) {
            v[j - i] = x[j].v;
            j++;
        }
        td_stats st;
        td_stats_of(v, j - i, &st);
        size_t r = td_table_add_row(t);
        if (mb) {
            td_row_f64(s, t, r, "Total (MB)", (double)st.total / 1e6);
            td_row_f64(s, t, r, "Avg (MB)", st.mean / 1e6);
            td_row_f64(s, t, r, "Med (MB)", st.median / 1e6);
            td_row_f64(s, t, r, "Min (MB)", (double)st.min / 1e6);
            td_row_f64(s, t, r, "Max (MB)", (double)st.max / 1e6);
            td_row_f64(s, t, r, "StdDev (MB)", st.std / 1e6);
        } else {
            td_row_f64(s, t, r, "Time (%)", sum ? 100.0 * (double)st.total / (double)sum : 0);
            td_row_int(s, t, r, "Total Time (ns)", st.total);
            td_row_f64(s, t, r, "Avg (ns)", st.mean);
            td_row_f64(s, t, r, "Med (ns)", st.median);
            td_row_int(s, t, r, "Min (ns)", st.min);
            td_row_int(s, t, r, "Max (ns)", st.max);
            td_row_f64(s, t, r, "StdDev (ns)", st.std);
        }
        td_row_int(s, t, r, count, (int64_t)st.n);
        td_row_str(s, t, r, "Style", "PushPop");
        td_row_str(s, t, r, label, td_name(a, x[i].name));
        i = j;
    }
    free(v);
    td_table_sort(t, mb ? "Total (MB)" : "Total Time (ns)", 1);
}

enum { R_API, R_MEMT, R_MEMS, R_NVTX, R_OSRT, R_N };

void td_an_nsys_stats(td_actx *a)
{
    nv *x[R_N] = {0};
    size_t n[R_N] = {0}, cap[R_N] = {0};
    int any = 0;
    for (size_t i = 0; i < a->n; i++) {
        const td_trace *t = a->tc[i].t;
        if (t->format != TD_FMT_NSYS_SQLITE)
            continue;
        any = 1;
        td_str osrt = td_intern_cstr(a->set->strs, "osrt");
        for (size_t k = 0; k < t->nev; k++) {
            const td_event *e = &t->ev[k];
            int which = -1;
            if (e->kind == TD_K_RUNTIME || e->kind == TD_K_DRIVER)
                which = R_API;
            else if (e->kind == TD_K_MEMCPY || e->kind == TD_K_MEMSET)
                which = R_MEMT;
            else if (e->kind == TD_K_RANGE)
                which = R_NVTX;
            else if (e->kind == TD_K_OTHER && e->cat && t->cats[e->cat] == osrt)
                which = R_OSRT;
            if (which < 0)
                continue;
            nv *p = TD_PUSH(x[which], n[which], cap[which]);
            p->name = e->name;
            p->v = e->dur;
            if (which == R_MEMT && e->aux && t->aux[e->aux].bytes >= 0) {
                p = TD_PUSH(x[R_MEMS], n[R_MEMS], cap[R_MEMS]);
                p->name = e->name;
                p->v = t->aux[e->aux].bytes;
            }
        }
    }
    if (any) {
        report(a, "cuda_api_sum", x[R_API], n[R_API], "Num Calls", "Name", 0);
        report(a, "cuda_gpu_mem_time_sum", x[R_MEMT], n[R_MEMT], "Count", "Operation", 0);
        report(a, "cuda_gpu_mem_size_sum", x[R_MEMS], n[R_MEMS], "Count", "Operation", 1);
        report(a, "nvtx_sum", x[R_NVTX], n[R_NVTX], "Instances", "Range", 0);
        report(a, "osrt_sum", x[R_OSRT], n[R_OSRT], "Num Calls", "Name", 0);
    }
    for (int k = 0; k < R_N; k++)
        free(x[k]);
}
