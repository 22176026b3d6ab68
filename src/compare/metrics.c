/* compare/metrics.c - the comparable metrics of a summary (compare/metrics.h): what
 * `changes` and the history judge, collected from the summary's scalars and tables. */
#define _POSIX_C_SOURCE 200809L
#include "compare/metrics.h"
#include "compare/stats.h"
#include "base/fmt.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static td_metric *add(td_metrics *ms, const char *name, double v)
{
    td_metric *m = TD_PUSH(ms->m, ms->n, ms->cap);
    memset(m, 0, sizeof *m);
    m->name = td_arena_strdup(ms->a, name);
    m->unit = "ns";
    m->value = v;
    m->sd = NAN;
    m->share = 1;
    return m;
}


static double cell_num(const td_table *t, size_t r, int c)
{
    if (c < 0)
        return NAN;
    const td_col *col = &t->cols[c];
    const td_cell *x = td_table_cell(t, r, c);
    if (col->type == TD_T_SHARE || col->type == TD_T_F64 || col->type == TD_T_GBPS)
        return x->f;
    if (col->type == TD_T_TEXT)
        return NAN;
    return x->i == TD_NA ? NAN : (double)x->i;
}

static void steps_metric(td_metrics *ms, const td_summary *s)
{
    const td_table *t = td_sum_find_table(s, "steps");
    if (!t)
        return;
    int cw = td_table_col(t, "wall_ns");
    if (cw < 0 || !t->nrows)
        return;
    double *v = td_arena_alloc(ms->a, t->nrows * sizeof *v);
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (!td_steps_row_steady(t, r)) /* warm-up, or cut short by the trace's ends */
            continue;
        double w = cell_num(t, r, cw);
        if (!isnan(w))
            v[n++] = w;
    }
    if (!n)
        return;
    double *tmp = td_xmalloc(n * sizeof *tmp);
    memcpy(tmp, v, n * sizeof *tmp);
    td_metric *m = add(ms, "step.median_ns", td_median(tmp, n));
    free(tmp);
    m->samples = v;
    m->nsamples = n;
}

/* The GPU timeline row of the whole run: the job-wide row (rank null) or the first
 * device-all row, scope "trace". */
static void timeline_metrics(td_metrics *ms, const td_summary *s)
{
    const td_table *t = td_sum_find_table(s, "gpu_timeline");
    if (!t)
        return;
    int cd = td_table_col(t, "device"), cs = td_table_col(t, "scope");
    for (size_t r = 0; r < t->nrows; r++) {
        const char *scope = cs >= 0 ? td_table_cell(t, r, cs)->s : NULL;
        if (cd < 0 || td_table_cell(t, r, cd)->i != -1 || !scope || strcmp(scope, "trace"))
            continue;
        static const char *const parts[] = {"computation_ns", "exposed_comm_ns",
                                            "exposed_memcpy_ns", "idle_ns", "sync_ns"};
        for (size_t k = 0; k < 5; k++) {
            double v = cell_num(t, r, td_table_col(t, parts[k]));
            if (!isnan(v)) {
                char name[64];
                snprintf(name, sizeof name, "gpu.%s", parts[k]);
                add(ms, name, v);
            }
        }
        return;
    }
}

/* Per-name metrics of a table: total and mean; std and count when the table has them. */
static int is_step_name(const td_summary *s, const char *nm)
{
    const td_table *st = td_sum_find_table(s, "steps");
    int cn = st ? td_table_col(st, "name") : -1;
    for (size_t r = 0; cn >= 0 && r < st->nrows; r++) {
        const char *x = td_table_cell(st, r, cn)->s;
        if (x && !strcmp(x, nm))
            return 1;
    }
    return 0;
}

static void named_metrics(td_metrics *ms, const td_summary *s, const char *table,
                          const char *prefix, const char *mean_col, const char *count_col,
                          const char *share_col)
{
    const td_table *t = td_sum_find_table(s, table);
    if (!t)
        return;
    int ops = strcmp(prefix, "op") == 0;
    int cn = td_table_col(t, "name"), ct = td_table_col(t, "total_ns");
    int cm = td_table_col(t, mean_col), csd = td_table_col(t, "std_ns");
    int cc = count_col ? td_table_col(t, count_col) : -1;
    int csh = share_col ? td_table_col(t, share_col) : -1;
    int cb = strcmp(prefix, "collective") == 0 ? td_table_col(t, "bytes") : -1;
    if (cn < 0 || ct < 0)
        return;
    double sum = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        double v = cell_num(t, r, ct);
        if (!isnan(v))
            sum += v;
    }
    for (size_t r = 0; r < t->nrows; r++) {
        const char *nm = td_table_cell(t, r, cn)->s;
        if (!nm || (ops && is_step_name(s, nm))) /* a numbered step range is not a metric */
            continue;
        char key[1200];
        if (cb >= 0) {
            double b = cell_num(t, r, cb);
            snprintf(key, sizeof key, "%s@%.0f", nm, isnan(b) ? 0.0 : b);
        } else
            snprintf(key, sizeof key, "%s", nm);
        char name[1300];
        snprintf(name, sizeof name, "%s.total_ns:%s", prefix, key);
        if (td_metrics_find(ms, name))
            continue; /* the first row of a name wins (rows are by time) */
        double tot = cell_num(t, r, ct);
        double share = csh >= 0 ? cell_num(t, r, csh) : (sum > 0 ? tot / sum : NAN);
        if (!isnan(tot)) {
            td_metric *m = add(ms, name, tot);
            m->share = share;
            m->kernel = strcmp(prefix, "kernel") == 0;
        }
        double mean = cell_num(t, r, cm);
        if (!isnan(mean)) {
            snprintf(name, sizeof name, "%s.mean_ns:%s", prefix, key);
            td_metric *m = add(ms, name, mean);
            m->share = share;
            m->sd = cell_num(t, r, csd);
            m->count = cc >= 0 ? cell_num(t, r, cc) : 0;
        }
    }
}


static td_metric *add_unit(td_metrics *ms, const char *name, double v, const char *unit,
                           int higher_better, double share)
{
    td_metric *m = add(ms, name, v);
    m->unit = unit;
    m->higher_better = higher_better;
    m->share = share;
    return m;
}

/* Graphcore IPU exports (analyse/ipu.c's tables and scalars): run cycles with per-run
 * samples, per IPU cycles, tile balance and utilisation, step-type cycles and shares,
 * lightweight-profiling blocks. */
static void ipu_metrics(td_metrics *ms, const td_summary *s)
{
    char name[1400], key[64];
    const td_table *t = td_sum_find_table(s, "ipu_runs");
    int cc = t ? td_table_col(t, "cycles") : -1;
    if (cc >= 0 && t->nrows) {
        double *v = td_arena_alloc(ms->a, t->nrows * sizeof *v);
        size_t n = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (!isnan(cell_num(t, r, cc)))
                v[n++] = cell_num(t, r, cc);
        if (n) {
            double *tmp = td_xmalloc(n * sizeof *tmp);
            memcpy(tmp, v, n * sizeof *tmp);
            td_metric *m = add_unit(ms, "ipu.run_cycles", td_median(tmp, n), "cycles", 0, 1);
            free(tmp);
            m->samples = v;
            m->nsamples = n;
        }
    }
    int64_t nipu = td_sum_int(s, "ipu.count");
    for (int64_t i = 0; nipu != TD_NA && i < nipu && i < 4096; i++) {
        static const char *const what[][3] = {{"cycles", "cycles", "0"},
                                              {"tile_balance", "fraction", "1"},
                                              {"tile_utilisation", "fraction", "1"}};
        for (size_t k = 0; k < 3; k++) {
            snprintf(key, sizeof key, "ipu.%lld.%s", (long long)i, what[k][0]);
            double v = td_sum_num(s, key);
            if (isnan(v))
                continue;
            snprintf(name, sizeof name, "ipu.%s:IPU %lld", what[k][0], (long long)i);
            add_unit(ms, name, v, what[k][1], what[k][2][0] == '1', 1);
        }
    }
    t = td_sum_find_table(s, "ipu_step_types");
    int ci = t ? td_table_col(t, "ipu") : -1, ct = t ? td_table_col(t, "type") : -1,
        cy = t ? td_table_col(t, "cycles") : -1, cs = t ? td_table_col(t, "share") : -1;
    for (size_t r = 0; ci >= 0 && ct >= 0 && cy >= 0 && cs >= 0 && r < t->nrows; r++) {
        const char *ty = td_table_cell(t, r, ct)->s;
        double ipu = cell_num(t, r, ci), cyc = cell_num(t, r, cy), sh = cell_num(t, r, cs);
        if (!ty || isnan(ipu))
            continue;
        char who[32]; /* the "all" rows (device -1) add the IPUs up */
        if (ipu < 0)
            snprintf(who, sizeof who, "all IPUs");
        else
            snprintf(who, sizeof who, "IPU %.0f", ipu);
        snprintf(name, sizeof name, "ipu.step_type_cycles:%s/%s", who, ty);
        if (!isnan(cyc) && !td_metrics_find(ms, name))
            add_unit(ms, name, cyc, "cycles", 0, sh);
        snprintf(name, sizeof name, "ipu.step_type_share:%s/%s", who, ty);
        if (!isnan(sh) && !td_metrics_find(ms, name))
            add_unit(ms, name, sh, "share", !strcmp(ty, "OnTileExecute"), sh);
    }
    t = td_sum_find_table(s, "lwp_blocks");
    int cl = t ? td_table_col(t, "lane") : -1, cn = t ? td_table_col(t, "name") : -1,
        cb = t ? td_table_col(t, "cycles") : -1, cm = t ? td_table_col(t, "mean_cycles") : -1,
        cmeas = t ? td_table_col(t, "measured") : -1;
    double sum = 0;
    for (size_t r = 0; cb >= 0 && r < t->nrows; r++)
        if (!isnan(cell_num(t, r, cb)))
            sum += cell_num(t, r, cb);
    for (size_t r = 0; cl >= 0 && cn >= 0 && cb >= 0 && r < t->nrows; r++) {
        const char *lane = td_table_cell(t, r, cl)->s, *nm = td_table_cell(t, r, cn)->s;
        double tot = cell_num(t, r, cb), mean = cell_num(t, r, cm);
        if (!lane || !nm)
            continue;
        double sh = sum > 0 && !isnan(tot) ? tot / sum : NAN;
        snprintf(name, sizeof name, "lwp.total_cycles:%s/%s", lane, nm);
        if (!isnan(tot) && !td_metrics_find(ms, name))
            add_unit(ms, name, tot, "cycles", 0, sh);
        snprintf(name, sizeof name, "lwp.mean_cycles:%s/%s", lane, nm);
        if (!isnan(mean) && !td_metrics_find(ms, name)) {
            td_metric *m = add_unit(ms, name, mean, "cycles", 0, sh);
            m->count = cmeas >= 0 ? cell_num(t, r, cmeas) : 0;
        }
    }
}

/* The diagnosis tables (issue 24): the kernel launch delay, the achieved TFLOP/s of the top
 * modelled ops, the peak memory allocated per device. None has a per-run spread in the
 * summary: each is judged as a run total (doc/nightly.md "Judged metrics"). */
#define TOP_OPS 5
static void diag_metrics(td_metrics *ms, const td_summary *s)
{
    char name[1400];
    /* launch delay, job-wide: the median of the ranks' median launch delays (one rank:
     * its own median) */
    const td_table *t = td_sum_find_table(s, "launches");
    int cd = t ? td_table_col(t, "launch_delay_median_ns") : -1;
    if (cd >= 0 && t->nrows) {
        double *v = td_xmalloc(t->nrows * sizeof *v);
        size_t n = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (!isnan(cell_num(t, r, cd)))
                v[n++] = cell_num(t, r, cd);
        if (n)
            add(ms, "launch.delay_median_ns", td_median(v, n));
        free(v);
    }
    /* achieved TFLOP/s of the TOP_OPS op_perf rows with the most device time (rows come
     * by device time; the first row of a name wins, as in the other tables); share: the
     * row's part of the modelled ops' device time */
    t = td_sum_find_table(s, "op_perf");
    int cn = t ? td_table_col(t, "name") : -1, ct = t ? td_table_col(t, "tflops") : -1,
        ck = t ? td_table_col(t, "kernel_ns") : -1, cy = t ? td_table_col(t, "dtype") : -1;
    if (cn >= 0 && ct >= 0 && ck >= 0) {
        double sum = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (!isnan(cell_num(t, r, ck)))
                sum += cell_num(t, r, ck);
        size_t *idx = td_xmalloc((t->nrows + 1) * sizeof *idx);
        size_t n = 0;
        for (size_t r = 0; r < t->nrows; r++)
            if (td_table_cell(t, r, cn)->s && !isnan(cell_num(t, r, ct)) &&
                !isnan(cell_num(t, r, ck)))
                idx[n++] = r;
        for (size_t i = 1; i < n; i++) /* by device time, stable */
            for (size_t j = i; j > 0 && cell_num(t, idx[j], ck) > cell_num(t, idx[j - 1], ck); j--) {
                size_t x = idx[j];
                idx[j] = idx[j - 1];
                idx[j - 1] = x;
            }
        size_t k = 0;
        for (size_t i = 0; i < n && k < TOP_OPS; i++) {
            size_t r = idx[i];
            const char *dt = cy >= 0 ? td_table_cell(t, r, cy)->s : NULL;
            snprintf(name, sizeof name, "op_perf.tflops:%s%s%s", td_table_cell(t, r, cn)->s,
                     dt && *dt ? " " : "", dt ? dt : "");
            if (td_metrics_find(ms, name))
                continue;
            td_metric *m = add_unit(ms, name, cell_num(t, r, ct), "TFLOP/s", 1,
                                    sum > 0 ? cell_num(t, r, ck) / sum : NAN);
            m->whole = 1;
            k++;
        }
        free(idx);
    }
    /* peak allocated bytes per device ("rank R/DEVICE" when the table has several ranks);
     * share: the part of the largest peak of the table (a CPU's few bytes beside a GPU's
     * gigabytes are not judged) */
    t = td_sum_find_table(s, "memory");
    int cv = t ? td_table_col(t, "device") : -1, cp = t ? td_table_col(t, "peak_allocated_bytes") : -1,
        cr = t ? td_table_col(t, "rank") : -1;
    if (cv >= 0 && cp >= 0) {
        double top = 0, rank0 = NAN;
        int ranks = 0;
        for (size_t r = 0; r < t->nrows; r++) {
            double v = cell_num(t, r, cp), rk = cell_num(t, r, cr);
            if (!isnan(v) && v > top)
                top = v;
            if (r == 0)
                rank0 = rk;
            else if (!(rk == rank0 || (isnan(rk) && isnan(rank0))))
                ranks = 1;
        }
        for (size_t r = 0; r < t->nrows; r++) {
            const char *dev = td_table_cell(t, r, cv)->s;
            double v = cell_num(t, r, cp), rk = cell_num(t, r, cr);
            if (!dev || isnan(v) || v <= 0)
                continue;
            if (ranks && !isnan(rk))
                snprintf(name, sizeof name, "memory.peak_allocated_bytes:rank %.0f/%s", rk, dev);
            else
                snprintf(name, sizeof name, "memory.peak_allocated_bytes:%s", dev);
            if (!td_metrics_find(ms, name))
                add_unit(ms, name, v, "bytes", 0, top > 0 ? v / top : NAN)->whole = 1;
        }
    }
}

/* LLM serving traces (analyse/serving/steps.c): per phase the median steady step, tokens
 * per second and MFU (both higher is better), as run totals. */
static void serving_metrics(td_metrics *ms, const td_summary *s)
{
    static const char *const ph[] = {"prefill", "decode", "mixed"};
    char key[64];
    for (size_t p = 0; p < 3; p++) {
        snprintf(key, sizeof key, "serving.%s.step_median_ns", ph[p]);
        int64_t v = td_sum_int(s, key);
        if (v != TD_NA && v >= 0)
            add(ms, key, (double)v);
        snprintf(key, sizeof key, "serving.%s.tokens_per_s", ph[p]);
        const td_kv *kv = td_sum_get(s, key);
        if (kv && kv->type == TD_T_F64 && isfinite(kv->v.f))
            add_unit(ms, key, kv->v.f, "tokens/s", 1, 1);
        snprintf(key, sizeof key, "serving.%s.mfu", ph[p]);
        kv = td_sum_get(s, key);
        if (kv && kv->type == TD_T_SHARE && isfinite(kv->v.f))
            add_unit(ms, key, 100.0 * kv->v.f, "%", 1, 1); /* a share's floor (0.01) would
                                                             hide a decode MFU of 0.1% */
    }
}

static int cmp_metric(const void *a, const void *b)
{
    return strcmp(((const td_metric *)a)->name, ((const td_metric *)b)->name);
}

td_metrics *td_metrics_of(const td_summary *s)
{
    td_metrics *ms = td_xcalloc(1, sizeof *ms);
    ms->a = td_arena_new();
    steps_metric(ms, s);
    timeline_metrics(ms, s);
    static const char *const totals[] = {"compile.total_ns", "runtime.thunks_ns",
                                         "runtime.modules_ns", "runtime.wall_ns"};
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        int64_t v = td_sum_int(s, totals[i]);
        if (v != TD_NA)
            add(ms, totals[i], (double)v);
    }
    named_metrics(ms, s, "kernels", "kernel", "mean_ns", "calls", "share");
    named_metrics(ms, s, "ops", "op", "avg_ns", "calls", "total_share");
    named_metrics(ms, s, "modules", "module", "mean_ns", "executions", "share");
    named_metrics(ms, s, "collectives", "collective", "mean_ns", "calls", NULL);
    /* SambaNova stack tracing: a hyperfunction's total device time (no per-call mean),
     * judged as a run total; the device and host time of the run */
    size_t h0 = ms->n;
    named_metrics(ms, s, "hyperfunctions", "hyperfunction", "mean_ns", "calls", "share");
    for (size_t i = h0; i < ms->n; i++)
        ms->m[i].whole = 1;
    /* a hypersection's measured time per call (layer 4; null without it: not compared) */
    const td_table *hs = td_sum_find_table(s, "hypersections");
    int hn = hs ? td_table_col(hs, "name") : -1, hm = hs ? td_table_col(hs, "measured_ns") : -1;
    for (size_t r = 0; hn >= 0 && hm >= 0 && r < hs->nrows; r++) {
        const char *nm = td_table_cell(hs, r, hn)->s;
        double v = cell_num(hs, r, hm);
        char name[1300];
        snprintf(name, sizeof name, "hypersection.mean_ns:%s", nm ? nm : "");
        if (nm && !isnan(v) && !td_metrics_find(ms, name))
            add(ms, name, v)->whole = 1;
    }
    static const char *const samba[] = {"samba.device_ns", "samba.host_ns"};
    for (size_t i = 0; i < 2; i++) {
        int64_t v = td_sum_int(s, samba[i]);
        if (v != TD_NA)
            add(ms, samba[i], (double)v);
    }
    ipu_metrics(ms, s);
    diag_metrics(ms, s);
    serving_metrics(ms, s);
    if (ms->n)
        qsort(ms->m, ms->n, sizeof *ms->m, cmp_metric);
    return ms;
}

void td_metrics_free(td_metrics *ms)
{
    if (!ms)
        return;
    free(ms->m);
    td_arena_free(ms->a);
    free(ms);
}

const td_metric *td_metrics_find(const td_metrics *ms, const char *name)
{
    /* sorted after td_metrics_of; linear while it is being built */
    for (size_t i = 0; i < ms->n; i++)
        if (strcmp(ms->m[i].name, name) == 0)
            return &ms->m[i];
    return NULL;
}

const td_metric *td_metrics_lookup(const td_metrics *ms, const char *name)
{
    td_metric key = {.name = name};
    return ms->n ? bsearch(&key, ms->m, ms->n, sizeof *ms->m, cmp_metric) : NULL;
}

/* A kernel's short name (the kernels table's short_name column, analyse/names.c) for
 * documents; its full name when s has no short name for it (a kernel of the other run). */
static const char *short_kernel(const td_summary *s, const char *full)
{
    const td_table *t = s ? td_sum_find_table(s, "kernels") : NULL;
    int cn = t ? td_table_col(t, "name") : -1, cs = t ? td_table_col(t, "short_name") : -1;
    for (size_t r = 0; cn >= 0 && cs >= 0 && r < t->nrows; r++) {
        const char *x = td_table_cell(t, r, cn)->s, *y = td_table_cell(t, r, cs)->s;
        if (x && y && *y && !strcmp(x, full))
            return y;
    }
    return full;
}

/* A reader's name for a metric of the changes table (doc/nightly.md "Nightly regression reports"):
 * "Kernel NAME: total time" for kernel.total_ns:NAME, "GPU idle time" for gpu.idle_ns
 * (the device's word); the metric's own name when it is none of these. The one naming
 * helper of every document, stdout and report.md (issue 21); keys stay in summary.json. */
void td_metric_label(const td_summary *s, const char *m, char *dst, size_t cap)
{
    static const struct { const char *k, *l; int dev; } whole[] = {
        {"step.median_ns", "Step time (median of the steady steps)", 0},
        {"gpu.computation_ns", " computation", 1},
        {"gpu.exposed_comm_ns", " exposed communication", 1},
        {"gpu.exposed_memcpy_ns", " exposed memcpy", 1},
        {"gpu.idle_ns", " idle time", 1},
        {"compile.total_ns", "Compile time", 0},
        {"runtime.thunks_ns", "Thunk device time", 0},
        {"runtime.modules_ns", "Module device time", 0},
        {"runtime.wall_ns", "Device wall time", 0},
        {"samba.device_ns", "Device time (section calls)", 0},
        {"samba.host_ns", "Host time", 0},
        {"launch.delay_median_ns", "Kernel launch delay (median)", 0},
        {"serving.decode.step_median_ns", "Decode step time (median of the steady steps)", 0},
        {"serving.prefill.step_median_ns", "Prefill step time (median of the steady steps)", 0},
        {"serving.mixed.step_median_ns", "Mixed step time (median of the steady steps)", 0},
        {"serving.decode.tokens_per_s", "Decode tokens per second", 0},
        {"serving.prefill.tokens_per_s", "Prefill tokens per second", 0},
        {"serving.mixed.tokens_per_s", "Mixed-step tokens per second", 0},
        {"serving.decode.mfu", "Decode MFU", 0},
        {"serving.prefill.mfu", "Prefill MFU", 0},
        {"serving.mixed.mfu", "Mixed-step MFU", 0}};
    static const struct { const char *k, *what, *stat; } named[] = {
        {"kernel.total_ns:", "Kernel", "total time"},
        {"kernel.mean_ns:", "Kernel", "mean per call"},
        {"op.total_ns:", "Op", "total time"},
        {"op.mean_ns:", "Op", "mean per call"},
        {"module.total_ns:", "Module", "total time"},
        {"module.mean_ns:", "Module", "mean per execution"},
        {"collective.total_ns:", "Collective", "total time"},
        {"collective.mean_ns:", "Collective", "mean per call"},
        {"hyperfunction.total_ns:", "Hyperfunction", "total time"},
        {"hypersection.mean_ns:", "Hypersection", "time per call"},
        {"op_perf.tflops:", "Op", "achieved TFLOP/s"}};
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
        if (!strcmp(m, whole[i].k)) {
            snprintf(dst, cap, "%s%s", whole[i].dev ? td_sum_device_word(s) : "", whole[i].l);
            return;
        }
    static const char mem[] = "memory.peak_allocated_bytes:";
    if (!strncmp(m, mem, sizeof mem - 1)) {
        snprintf(dst, cap, "Peak memory allocated on %s", m + sizeof mem - 1);
        return;
    }
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i].k);
        if (!strncmp(m, named[i].k, n)) {
            const char *nm = m + n;
            if (!strcmp(named[i].what, "Kernel"))
                nm = short_kernel(s, nm);
            snprintf(dst, cap, "%s %s: %s", named[i].what, nm, named[i].stat);
            return;
        }
    }
    snprintf(dst, cap, "%s", m);
}

double td_metric_se(const td_metric *m)
{
    if (m->nsamples >= 2) {
        double mean = 0, q = 0;
        for (size_t i = 0; i < m->nsamples; i++)
            mean += m->samples[i];
        mean /= (double)m->nsamples;
        for (size_t i = 0; i < m->nsamples; i++)
            q += (m->samples[i] - mean) * (m->samples[i] - mean);
        return sqrt(q / (double)(m->nsamples - 1)) / sqrt((double)m->nsamples);
    }
    if (!isnan(m->sd) && m->count >= 2)
        return m->sd / sqrt(m->count);
    return NAN;
}

void td_metric_format(const char *unit, double v, char *dst, size_t cap)
{
    if (isnan(v))
        snprintf(dst, cap, "%s", "");
    else if (!strcmp(unit, "ns"))
        td_fmt_ns(dst, cap, (int64_t)llround(v));
    else if (!strcmp(unit, "bytes"))
        td_fmt_bytes(dst, cap, (int64_t)llround(v));
    else
        snprintf(dst, cap, "%.4g %s", v, unit);
}

double td_metric_floor(const char *metric, const char *unit)
{
    (void)metric; /* one floor per unit: every metric of a unit has the same scale of noise */
    if (!unit || !strcmp(unit, "ns"))
        return 1000.0; /* 1 us: below the timers' resolution plus launch jitter */
    if (!strcmp(unit, "bytes"))
        return 16.0 * 1048576.0; /* 16 MiB: allocator blocks and bookkeeping */
    if (!strcmp(unit, "TFLOP/s"))
        return 0.001; /* 1 GFLOP/s */
    if (!strcmp(unit, "cycles"))
        return 1000.0;
    if (!strcmp(unit, "share") || !strcmp(unit, "fraction"))
        return 0.01;
    return 0.0;
}
