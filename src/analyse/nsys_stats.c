/* analyse/nsys_stats.c - the `nsys stats` reports users expect beside
 * cuda_gpu_kern_sum (analyse/device.c), for Nsight Systems inputs, with nsys's column
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
 * (sample) in ns, sorted by total time. A report is made only when its table had rows.
 *
 * For the documents: the `memcpy` table (td_an_nsys_memcpy, after the GPU timeline) and
 * host communication in MPI/UCX/NCCL ranges (comm.host_*, and the device work launched
 * inside them marked as communication for the GPU timeline). */
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct nv {
    td_str name;
    int64_t v;
} nv;

/* The values grouped by name, in name-id order (a counting sort: a qsort of the 18 M
 * runtime calls of a 1 GB export was a tenth of its report): name j's values are
 * (*v)[lo, hi) with lo = j ? (*end)[j - 1] : 0 and hi = (*end)[j], for j < *nn. Only the
 * values are moved (8 bytes each, not the 16-byte pairs and a copy back); a name's
 * values stay in any order: td_stats_of sorts them. */
static void by_name(const td_actx *a, const nv *x, size_t n, int64_t **v, size_t **end,
                    size_t *nn)
{
    size_t m = td_strtab_count(a->set->strs) + 1;
    for (size_t i = 0; i < n; i++)
        if (x[i].name >= m)
            m = (size_t)x[i].name + 1;
    size_t *at = td_xcalloc(m + 1, sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[x[i].name + 1]++;
    for (size_t j = 0; j < m; j++)
        at[j + 1] += at[j];
    int64_t *y = td_xmalloc((n ? n : 1) * sizeof *y);
    for (size_t i = 0; i < n; i++)
        y[at[x[i].name]++] = x[i].v; /* at[j] ends as name j's end */
    *v = y;
    *end = at;
    *nn = m;
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
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i].v;
    int64_t *v;
    size_t *end, nn;
    by_name(a, x, n, &v, &end, &nn);
    for (size_t name = 0; name < nn; name++) {
        size_t lo = name ? end[name - 1] : 0;
        if (end[name] == lo)
            continue;
        td_stats st;
        td_stats_of(v + lo, end[name] - lo, &st);
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
        td_row_str(s, t, r, label, td_name(a, (td_str)name));
    }
    free(v);
    free(end);
    td_table_sort(t, mb ? "Total (MB)" : "Total Time (ns)", 1);
}

/* Communication ranges: NVTX ranges of the MPI, UCX or NCCL domains (nsys names ranges
 * "Domain:text": "MPI:MPI_Send", "NCCL:ncclAllReduce"), or ranges without a domain
 * named MPI_*, ucp_*, uct_* or nccl*; not MPI_Init, MPI_Init_thread, MPI_Finalize. */
static int comm_range(const char *n)
{
    /* setting MPI up and down is not communication */
    if (!strncmp(n, "MPI:MPI_Init", 12) || !strcmp(n, "MPI:MPI_Finalize"))
        return 0;
    static const char *const pre[] = {"MPI:", "UCX:", "NCCL:", "MPI_", "ucp_", "uct_", "nccl"};
    for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++)
        if (!strncmp(n, pre[k], strlen(pre[k])))
            return 1;
    return 0;
}

/* Host communication (comm.host_* scalars): per rank, the union over its threads of the
 * communication ranges (nested or concurrent ranges count once), summed over ranks; its
 * share of the ranks' traced time (each rank's first to last event, summed); the
 * outermost ranges counted. Device work launched inside such a range by a CUDA call on
 * that thread (the nsys GPU projection) is communication in the GPU timeline
 * (c->iscomm, as NCCL kernels are): this runs before td_an_timeline. */
void td_an_host_comm(td_actx *a, td_host_comm *out)
{
    int64_t total = 0, span = 0, nranges = 0;
    /* per name id: 0 not looked at, 1 no, 2 a communication range (a 1 GB export has
     * 4.5 M ranges over a few names) */
    size_t nn = td_strtab_count(a->set->strs);
    uint8_t *memo = NULL;
    for (size_t i = 0; i < a->n; i++) {
        td_tctx *c = &a->tc[i];
        const td_trace *t = c->t;
        if (!t->nev)   /* NVTX ranges: nsys exports and their `tracedoc export` */
            continue;
        uint8_t *isc = td_xcalloc(t->nev + 1, 1);
        int any = 0;
        for (size_t k = 0; k < t->nev; k++) {
            if (t->ev[k].kind != TD_K_RANGE || !c->isop[k])
                continue;
            td_str id = t->ev[k].name;
            int yes;
            if (id < nn) {
                if (!memo)
                    memo = td_xcalloc(nn, 1);
                if (!memo[id])
                    memo[id] = (uint8_t)(1 + comm_range(td_name(a, id)));
                yes = memo[id] == 2;
            } else {
                yes = comm_range(td_name(a, id));
            }
            if (yes)
                isc[k] = any = 1;
        }
        span += c->t1 - c->t0;
        if (!any) {
            free(isc);
            continue;
        }
        td_iv *v = NULL;
        size_t n = 0, cap = 0;
        for (size_t k = 0; k < t->nev; k++) {
            if (!isc[k])
                continue;
            int32_t p = c->parent[k];
            while (p >= 0 && !isc[p])
                p = c->parent[p];
            if (p >= 0)
                continue;   /* inside another communication range */
            *TD_PUSH(v, n, cap) = (td_iv){t->ev[k].ts, t->ev[k].ts + t->ev[k].dur};
            nranges++;
        }
        n = td_iv_merge(v, n);
        total += td_iv_len(v, n);
        free(v);
        for (size_t k = 0, d = 0; k < t->nev; k++) {
            if (!td_kind_is_device(t->ev[k].kind))
                continue;
            int32_t p = c->launch[d++];
            while (p >= 0 && !isc[p])
                p = c->parent[p];
            if (p >= 0)
                c->iscomm[k] = 1;
        }
        free(isc);
    }
    free(memo);
    *out = (td_host_comm){total, span, nranges};
}

void td_an_host_comm_scalars(td_actx *a, const td_host_comm *h)
{
    if (!h->nranges)
        return;
    td_summary *s = a->s;
    td_sum_set_int(s, "comm.host_ns", "Host time in MPI/UCX/NCCL ranges", TD_T_NS, h->total);
    td_sum_set_f64(s, "comm.host_share", "Share of the traced time", TD_T_SHARE,
                   h->span ? (double)h->total / (double)h->span : 0);
    td_sum_set_int(s, "comm.host_ranges", "MPI/UCX/NCCL ranges", TD_T_INT, h->nranges);
}

/* The device timeline's total (gpu_timeline, trace scope, the job-wide row with several
 * ranks, else the ranks' "all" rows summed): what the breakdown's shares are of. */
static int64_t timeline_total(const td_summary *s)
{
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    int cr = tl ? td_table_col(tl, "rank") : -1, cd = tl ? td_table_col(tl, "device") : -1,
        cs = tl ? td_table_col(tl, "scope") : -1, ct = tl ? td_table_col(tl, "total_ns") : -1;
    if (cr < 0 || cd < 0 || cs < 0 || ct < 0)
        return 0;
    int job = 0;
    for (size_t r = 0; r < tl->nrows; r++)
        job |= td_table_cell(tl, r, cr)->i == TD_NA;
    int64_t total = 0;
    for (size_t r = 0; r < tl->nrows; r++) {
        const char *sc = td_table_cell(tl, r, cs)->s;
        if (td_table_cell(tl, r, cd)->i == -1 && (td_table_cell(tl, r, cr)->i == TD_NA) == job &&
            sc && !strcmp(sc, "trace"))
            total += td_table_cell(tl, r, ct)->i;
    }
    return total;
}

typedef struct mrec {
    td_str name;
    int64_t dur, bytes;
} mrec;

static int mrec_cmp(const void *x, const void *y)
{
    const mrec *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->dur > b->dur) - (a->dur < b->dur);
}

void td_an_nsys_memcpy(td_actx *a)
{
    mrec *m = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < a->n; i++) {
        const td_tctx *c = &a->tc[i];
        const td_trace *t = c->t;
        /* nsys exports, and their `tracedoc export` read back (the only Chrome traces
         * with NVTX ranges), so that both give the same summary */
        int nsys = t->format == TD_FMT_NSYS_SQLITE;
        for (size_t k = 0; k < t->nev && !nsys; k++)
            nsys = t->ev[k].kind == TD_K_RANGE && c->isop[k];
        if (!nsys)
            continue;
        for (size_t k = 0; k < t->nev; k++) {
            const td_event *e = &t->ev[k];
            if (e->kind != TD_K_MEMCPY && e->kind != TD_K_MEMSET)
                continue;
            int64_t b = e->aux && t->aux[e->aux].bytes >= 0 ? t->aux[e->aux].bytes : 0;
            *TD_PUSH(m, n, cap) = (mrec){e->name, e->dur, b};
        }
    }
    if (!n)
        return;
    td_summary *s = a->s;
    int64_t tl = timeline_total(s);
    td_table *t = td_sum_table(s, "memcpy", "Memory copies and sets");
    td_table_cols(t, "operation:text:Operation", "count:int:Count", "total_ns:ns:Total",
                  "mean_ns:ns:Mean", "median_ns:ns:Median", "bytes:bytes:Bytes",
                  "gbps:gbps:Bandwidth", "share:share:Share of timeline", NULL);
    t->note = "Share: of the device timeline (each device's first to last activity, summed "
              "over ranks), as in the time breakdown; a copy that overlaps computation counts "
              "in full here. Bandwidth: bytes / copy time.";
    qsort(m, n, sizeof *m, mrec_cmp);
    int64_t *v = td_xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t bytes = 0;
        while (j < n && m[j].name == m[i].name) {
            v[j - i] = m[j].dur;
            bytes += m[j].bytes;
            j++;
        }
        td_stats st;
        td_stats_of(v, j - i, &st);
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "operation", td_name(a, m[i].name));
        td_row_int(s, t, r, "count", (int64_t)st.n);
        td_row_int(s, t, r, "total_ns", st.total);
        td_row_int(s, t, r, "mean_ns", llround(st.mean));
        td_row_int(s, t, r, "median_ns", llround(st.median));
        td_row_int(s, t, r, "bytes", bytes);
        td_row_f64(s, t, r, "gbps", st.total > 0 ? (double)bytes / (double)st.total : 0);
        td_row_f64(s, t, r, "share", tl > 0 ? (double)st.total / (double)tl : 0);
        i = j;
    }
    free(v);
    free(m);
    td_table_sort(t, "total_ns", 1);
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
