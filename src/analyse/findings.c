/* analyse/findings.c - up to six plain sentences derived from the tables already in
 * the summary (never from the traces directly, so they agree with the documents).
 * With several ranks they speak of the job: the GPU timeline sentences use the
 * job-wide rows (rank null, sums over ranks), and a straggler sentence names the
 * slowest rank when its median step time is over 10% above the median rank's. */
#include "analyse/internal.h"
#include "analyse/op_models.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STRAGGLER_RATIO 1.10

/* Long kernel names (C++ templates) shortened for a sentence. */
static const char *shorten(td_summary *s, const char *n)
{
    if (!n)
        return "?";
    size_t len = strcspn(n, "(<");
    if (len == 0 || len > 80)
        len = strlen(n) > 80 ? 80 : strlen(n);
    return td_arena_strndup(s->a, n, len);
}

static int dbl_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median of v[0..n-1], n > 0 (sorts v). */
static double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* The slowest rank by median kept step wall time, when that median is over
 * STRAGGLER_RATIO x the median over ranks of the ranks' medians (2+ ranks with kept
 * steps). Returns 1 and fills *rank, *ratio. */
static int straggler(const td_table *st, int64_t *rank, double *ratio)
{
    size_t n = st->nrows, nr = 0;
    int64_t *ranks = td_xmalloc((n + 1) * sizeof *ranks);
    double *med = td_xmalloc((n + 1) * sizeof *med), *w = td_xmalloc((n + 1) * sizeof *w);
    for (size_t r = 0; r < n; r++) {
        int64_t x = td_row_get_int(st, r, "rank");
        if (!td_steps_row_steady(st, r) || x == TD_NA)
            continue;
        size_t k = 0;
        while (k < nr && ranks[k] != x)
            k++;
        if (k == nr)
            ranks[nr++] = x;
    }
    int found = 0;
    if (nr >= 2) {
        size_t worst = 0;
        for (size_t k = 0; k < nr; k++) {
            size_t m = 0;
            for (size_t r = 0; r < n; r++)
                if (td_steps_row_steady(st, r) && td_row_get_int(st, r, "rank") == ranks[k])
                    w[m++] = (double)td_row_get_int(st, r, "wall_ns");
            med[k] = median_of(w, m);
            if (med[k] > med[worst])
                worst = k;
        }
        double slow = med[worst];
        memcpy(w, med, nr * sizeof *w);
        double mm = median_of(w, nr);
        if (mm > 0 && slow > STRAGGLER_RATIO * mm) {
            *rank = ranks[worst];
            *ratio = slow / mm;
            found = 1;
        }
    }
    free(ranks);
    free(med);
    free(w);
    return found;
}

/* XLA: whether program prog is a barrier, not work: every collective instance of it
 * moves at most 16 bytes and its module runs at most 4 thunks (jit__psum of a 4-byte value
 * under sync_global_devices, as a checkpoint does): its time is the processes waiting for
 * each other. */
static int xla_barrier(const td_summary *s, int64_t prog)
{
    const td_table *tm = td_sum_find_table(s, "modules"), *ti = td_sum_find_table(s, "collective_instances");
    if (prog == TD_NA || !tm || !ti)
        return 0;
    int any = 0;
    for (size_t r = 0; r < ti->nrows; r++) {
        if (td_row_get_int(ti, r, "program_id") != prog)
            continue;
        int64_t b = td_row_get_int(ti, r, "bytes");
        if (b == TD_NA || b > 16)
            return 0;
        any = 1;
    }
    for (size_t r = 0; any && r < tm->nrows; r++)
        if (td_row_get_int(tm, r, "program_id") == prog)
            return td_row_get_f64(tm, r, "thunks_mean") <= 4.0;
    return 0;
}

/* XLA: idle time of the top modules, compile share of the profile, worst straggler */
static void xla_findings(td_actx *a, size_t *nf)
{
    td_summary *s = a->s;
    const td_kv *w = td_sum_get(s, "runtime.wall_ns"), *ii = td_sum_get(s, "runtime.idle_in_modules_ns"),
                *ib = td_sum_get(s, "runtime.idle_between_modules_ns");
    if (w && ii && ib && w->v.i > 0 && *nf < 6) {
        td_sum_finding(s, "Over the top modules the GPU is idle %.0f%% of the time inside modules "
                       "and %.0f%% between them.", 100.0 * (double)ii->v.i / (double)w->v.i,
                       100.0 * (double)ib->v.i / (double)w->v.i);
        (*nf)++;
    }
    const td_kv *ct = td_sum_get(s, "compile.total_ns"), *sp = td_sum_get(s, "trace.span_ns");
    if (ct && sp && sp->v.i > 0 && ct->v.i > 0 && *nf < 6) {
        size_t np = 0;
        for (size_t i = 0; i < a->n; i++) np += a->tc ? a->tc[i].t->ncompile > 0 : 1;
        /* (a merge of partial summaries has no traces: every rank counts) */
        char buf[64];
        td_fmt_ns(buf, sizeof buf, ct->v.i / (int64_t)(np ? np : 1));
        td_sum_finding(s, "XLA compilation takes %s%s, %.0f%% of the profile's span.", buf,
                       np > 1 ? " per process" : "",
                       100.0 * (double)ct->v.i / (double)(np ? np : 1) / (double)sp->v.i);
        (*nf)++;
    }
    const td_table *ti = td_sum_find_table(s, "collective_instances");
    /* the worst wait of a collective that is work: a barrier's wait is the processes
     * arriving at it at different times (a checkpoint, the end of the run) */
    size_t w0 = 0;
    while (ti && w0 < ti->nrows && xla_barrier(s, td_row_get_int(ti, w0, "program_id")))
        w0++;
    if (ti && w0 < ti->nrows && *nf < 6 && td_row_get_int(ti, w0, "wait_ns") != TD_NA && td_row_get_int(ti, w0, "wait_ns") > 0) {
        char buf[64];
        td_fmt_ns(buf, sizeof buf, td_row_get_int(ti, w0, "wait_ns"));
        double m = td_row_get_f64(ti, w0, "wait_multiple");
        int64_t fast = td_row_get_int(ti, w0, "fastest_ns");
        /* a multiple reads well up to 100x; beyond ("214076.1x") the fastest device's
         * own time says it plainly */
        char tail[96];
        if (isfinite(m) && m < 100)
            snprintf(tail, sizeof tail, "%.1fx its fastest device's time", m);
        else if (fast != TD_NA && fast > 0) {
            char f[64];
            td_fmt_ns(f, sizeof f, fast);
            snprintf(tail, sizeof tail, "where its fastest device took %s", f);
        } else
            snprintf(tail, sizeof tail, "beside its fastest device");
        td_sum_finding(s, "The worst straggler wait is %s on %s %s (program %lld), %s%s.", buf,
                       td_row_get_str(ti, w0, "name"),
                       shorten(s, td_row_get_str(ti, w0, "instruction")),
                       (long long)td_row_get_int(ti, w0, "program_id"), tail,
                       w0 ? " (the barriers' waits left out)" : "");
        (*nf)++;
    }
}

/* The end of the idle sentence: what the streams' idle time is (the idle.*_share scalars
 * analyse/headline.c sets from idle_breakdown before the findings), or "." without them. */
static const char *idle_causes(td_summary *s)
{
    double host = td_sum_num(s, "idle.host_wait_share"), kern = td_sum_num(s, "idle.kernel_wait_share");
    if (isnan(host) || isnan(kern))
        return ".";
    return td_arena_printf(s->a, ": of the streams' idle time, %.0f%% is waiting for the next "
                           "kernel (gaps under 30 \xc2\xb5s), %.0f%% for the CPU to launch (HTA's "
                           "causes; the rest other).",
                           100.0 * kern, 100.0 * host);
}

/* A kernel's short name (kernels.short_name, analyse/names.c), else shorten(). */
static const char *short_kernel(td_summary *s, const char *n)
{
    const td_table *k = td_sum_find_table(s, "kernels");
    for (size_t r = 0; k && n && r < k->nrows; r++) {
        const char *kn = td_row_get_str(k, r, "name"), *sn = td_row_get_str(k, r, "short_name");
        if (kn && sn && !strcmp(kn, n))
            return sn;
    }
    return shorten(s, n);
}

static const char *bound_words(const char *b)
{
    static const char *const W[][2] = {
        {"cpu_bound", "CPU-bound"}, {"gpu_compute_bound", "GPU-compute bound"},
        {"gpu_communication_bound", "communication bound"},
        {"gpu_kernel_launch_overhead", "waiting for kernel launches"},
        {"gpu_kernel_kernel_overhead", "in gaps between kernels"}};
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        if (!strcmp(b, W[i][0]))
            return W[i][1];
    return b;
}

/* Issue 24, one finding: what bounds the drawn step's critical path (critical_path_segments
 * names the step; critical_path its classes, largest first) and, across ranks, the
 * collective whose last rank made the others wait the longest (critical_path_collectives). */
static void cp_findings(td_summary *s, size_t *nf)
{
    const td_table *cp = td_sum_find_table(s, "critical_path");
    const td_table *sg = td_sum_find_table(s, "critical_path_segments");
    const td_table *cc = td_sum_find_table(s, "critical_path_collectives");
    if (!cp || !cp->nrows || *nf >= 6)
        return;
    int64_t rank = td_row_get_int(cp, 0, "rank"), step = td_row_get_int(cp, 0, "step");
    if (sg && sg->nrows) {
        rank = td_row_get_int(sg, 0, "rank");
        step = td_row_get_int(sg, 0, "step");
    }
    size_t top = (size_t)-1, cpu = (size_t)-1;
    for (size_t r = 0; r < cp->nrows; r++) {
        if (td_row_get_int(cp, r, "rank") != rank || td_row_get_int(cp, r, "step") != step)
            continue;
        if (top == (size_t)-1)
            top = r;
        else if (cpu == (size_t)-1 && !strcmp(td_row_get_str(cp, r, "bound_by"), "cpu_bound"))
            cpu = r;
    }
    if (top == (size_t)-1)
        return;
    const char *tb = td_row_get_str(cp, top, "bound_by"), *tn = td_row_get_str(cp, top, "top");
    const char *who = step == TD_NA ? "The trace's critical path"
                                    : td_arena_printf(s->a, "Step %lld's critical path", (long long)step);
    const char *more = "", *across = "";
    if (cpu != (size_t)-1 && td_row_get_f64(cp, cpu, "share") >= 0.01)
        more = td_arena_printf(s->a, "; %.0f%% CPU-bound, most in %s",
                               100.0 * td_row_get_f64(cp, cpu, "share"),
                               shorten(s, td_row_get_str(cp, cpu, "top")));
    /* across ranks: the collective whose last rank made the others wait the longest */
    size_t best = (size_t)-1;
    for (size_t r = 0; cc && r < cc->nrows; r++)
        if (best == (size_t)-1 || td_row_get_int(cc, r, "caused_wait_ns") > td_row_get_int(cc, best, "caused_wait_ns"))
            best = r;
    if (best != (size_t)-1 && td_row_get_int(cc, best, "caused_wait_ns") > 0) {
        char w[64];
        td_fmt_ns(w, sizeof w, td_row_get_int(cc, best, "caused_wait_ns"));
        across = td_arena_printf(s->a, "; across ranks, %s waits for rank %lld (last to start %.0f%% "
                                 "of %lld instances): ranks %s wait %s on it",
                                 short_kernel(s, td_row_get_str(cc, best, "name")),
                                 (long long)td_row_get_int(cc, best, "culprit_rank"),
                                 100.0 * td_row_get_f64(cc, best, "last_share"),
                                 (long long)td_row_get_int(cc, best, "instances"),
                                 td_row_get_str(cc, best, "victims"), w);
    }
    /* the CPU blocked in synchronizing calls (critical_path_waits): waiting for the device,
     * not busy; said first when it is a fifth of the step or more */
    const td_table *wt = td_sum_find_table(s, "critical_path_waits");
    const char *wait = NULL;
    double wshare = 0;
    for (size_t r = 0; wt && r < wt->nrows; r++)
        if (td_row_get_int(wt, r, "rank") == rank && td_row_get_int(wt, r, "step") == step) {
            wshare = td_row_get_f64(wt, r, "share");
            const char *dw = td_sum_device_word(s);
            wait = td_arena_printf(s->a, "the CPU is waiting for the %s %.0f%% of the %s (sync in %s)",
                                   dw ? dw : "device", 100.0 * wshare,
                                   step == TD_NA ? "trace" : "step", shorten(s, td_row_get_str(wt, r, "op")));
        }
    const char *rk = rank == TD_NA ? "" : td_arena_printf(s->a, " (rank %lld)", (long long)rank);
    const char *topn = !strcmp(tb, "cpu_bound") ? shorten(s, tn) : short_kernel(s, tn);
    if (wait && wshare >= 0.2)
        td_sum_finding(s, "%s%s: %s; the path is %.0f%% %s (most in %s)%s%s.", who, rk, wait,
                       100.0 * td_row_get_f64(cp, top, "share"), bound_words(tb), topn, more, across);
    else
        td_sum_finding(s, "%s%s is %.0f%% %s (most in %s)%s%s%s.", who, rk,
                       100.0 * td_row_get_f64(cp, top, "share"), bound_words(tb), topn, more,
                       wait && wshare >= 0.05 ? td_arena_printf(s->a, "; %s", wait) : "", across);
    (*nf)++;
}

/* A FLOP rate in the unit that puts it at 1 or more: "12.7 TFLOP/s", "6.72 GFLOP/s". */
static const char *flop_rate(td_summary *s, double tflops)
{
    static const char *const unit[] = {"TFLOP/s", "GFLOP/s", "MFLOP/s", "kFLOP/s"};
    size_t u = 0;
    while (u + 1 < sizeof unit / sizeof unit[0] && tflops < 1.0 && tflops > 0) {
        tflops *= 1000.0;
        u++;
    }
    return td_arena_printf(s->a, "%.3g %s", tflops, unit[u]);
}

/* Issue 24: the top op of the performance model against its peak (op_perf, by device
 * time) and the memory peak (memory: the device closest to its capacity, else the
 * largest reserve). Issue 21: the op's rate is a finding only when the op's device time
 * is at least OPM_MIN_SHARE of the traced time (of its rank): making it infinitely fast
 * saves at most that share, so below it the rate stays in the table and the roofline. */
#define OPM_MIN_SHARE 0.05
static void diag_findings(td_summary *s, size_t *nf)
{
    const td_table *op = td_sum_find_table(s, "op_perf");
    size_t best = (size_t)-1;
    for (size_t r = 0; op && r < op->nrows; r++)
        if (td_opm_matrix(td_row_get_str(op, r, "category")) && /* FLOP/s of memory-bound ops say little */
            td_row_get_int(op, r, "kernel_ns") != TD_NA && isfinite(td_row_get_f64(op, r, "tflops")) &&
            (best == (size_t)-1 || td_row_get_int(op, r, "kernel_ns") > td_row_get_int(op, best, "kernel_ns")))
            best = r;
    const td_kv *span = td_sum_get(s, "trace.span_ns");
    double share = best != (size_t)-1 && span && span->v.i > 0
                       ? (double)td_row_get_int(op, best, "kernel_ns") / (double)span->v.i : 0;
    if (best != (size_t)-1 && share >= OPM_MIN_SHARE && *nf < 6) {
        double tf = td_row_get_f64(op, best, "tflops"), pk = td_row_get_f64(op, best, "peak_tflops");
        const char *dt = td_row_get_str(op, best, "dtype");
        const td_kv *pv = td_sum_get(s, "roofline.peaks");
        const char *head = td_arena_printf(s->a, "The top %s op by device time (%s %s, %s) takes %.0f%% of the "
                                           "traced time and runs at %s",
                                           td_row_get_str(op, best, "category"), td_row_get_str(op, best, "op"),
                                           td_row_get_str(op, best, "shape"), dt ? dt : "?", 100.0 * share,
                                           flop_rate(s, tf));
        if (isfinite(pk) && pk > 0)
            td_sum_finding(s, "%s, %.*f%% of the %s peak of %s; %s-bound at %.0f%% of its roofline.", head,
                           tf < 0.01 * pk ? 1 : 0, 100.0 * tf / pk,
                           dt ? dt : "?", pv && pv->v.s ? td_arena_strndup(s->a, pv->v.s, strcspn(pv->v.s, ":")) : "the device",
                           td_row_get_str(op, best, "bound"), 100.0 * td_row_get_f64(op, best, "roofline_share"));
        else
            td_sum_finding(s, "%s (no peak known for this device: --peak TFLOPS:TBPS).", head);
        (*nf)++;
    }
    const td_table *mt = td_sum_find_table(s, "memory");
    best = (size_t)-1;
    for (size_t r = 0; mt && r < mt->nrows; r++) {
        double sh = td_row_get_f64(mt, r, "peak_share");
        if (best == (size_t)-1 ||
            (isfinite(sh) && !(sh <= td_row_get_f64(mt, best, "peak_share"))) ||
            (!isfinite(td_row_get_f64(mt, best, "peak_share")) &&
             td_row_get_int(mt, r, "peak_allocated_bytes") > td_row_get_int(mt, best, "peak_allocated_bytes")))
            best = r;
    }
    if (best != (size_t)-1 && *nf < 6) {
        char al[32], re[32] = "";
        td_fmt_bytes(al, sizeof al, td_row_get_int(mt, best, "peak_allocated_bytes"));
        if (td_row_get_int(mt, best, "peak_reserved_bytes") != TD_NA)
            td_fmt_bytes(re, sizeof re, td_row_get_int(mt, best, "peak_reserved_bytes"));
        const char *pop = td_row_get_str(mt, best, "peak_op"), *st = td_row_get_str(mt, best, "peak_step");
        double sh = td_row_get_f64(mt, best, "peak_share");
        const char *from = td_row_get_str(mt, best, "allocated_from");
        int totals = !from || !strcmp(from, "Total Allocated");
        td_sum_finding(s, "Memory peaks at %s allocated%s on %s%s%s%s%s%s%s%s.", al,
                       totals ? "" : " (more than at the trace's start: the trace gives no totals)",
                       td_row_get_str(mt, best, "device"), pop && *pop ? " in " : "", pop && *pop ? pop : "",
                       st && *st ? " (" : "", st && *st ? st : "", st && *st ? ")" : "",
                       re[0] ? td_arena_printf(s->a, "; %s reserved", re) : "",
                       isfinite(sh) ? td_arena_printf(s->a, ", %.*f%% of the device's memory",
                                                       sh < 0.01 ? 1 : 0, 100.0 * sh) : "");
        (*nf)++;
    }
}

void td_an_findings(td_actx *a)
{
    td_summary *s = a->s;
    size_t nf = 0;
    const char *job = a->n > 1 ? td_arena_printf(s->a, " across %zu ranks", a->n) : "";
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    if (tl && tl->nrows) {
        /* the job-wide rows when there are any (2+ ranks), else the rank's "all" rows;
         * the steady scope when some warm-up was dropped */
        int steady = 0, jobrows = 0;
        size_t nranks = 0;
        for (size_t r = 0; r < tl->nrows; r++) {
            if (td_row_get_int(tl, r, "device") != -1)
                continue;
            if (td_row_get_str(tl, r, "scope") && !strcmp(td_row_get_str(tl, r, "scope"), "steady"))
                steady = 1;
            if (td_row_get_int(tl, r, "rank") == TD_NA)
                jobrows = 1;
            else if (td_row_get_str(tl, r, "scope") && !strcmp(td_row_get_str(tl, r, "scope"), "trace"))
                nranks++;
        }
        int64_t idle = 0, total = 0, xcomm = 0, comm = 0, mem = 0, xmem = 0;
        for (size_t r = 0; r < tl->nrows; r++) {
            if (td_row_get_int(tl, r, "device") != -1 || (td_row_get_int(tl, r, "rank") == TD_NA) != jobrows ||
                !td_row_get_str(tl, r, "scope") || strcmp(td_row_get_str(tl, r, "scope"), steady ? "steady" : "trace"))
                continue;
            idle += td_row_get_int(tl, r, "idle_ns");
            total += td_row_get_int(tl, r, "total_ns");
            xcomm += td_row_get_int(tl, r, "exposed_comm_ns");
            comm += td_row_get_int(tl, r, "total_comm_ns");
            mem += td_row_get_int(tl, r, "total_memcpy_ns");
            xmem += td_row_get_int(tl, r, "exposed_memcpy_ns");
        }
        /* the shares are of the device timeline (formats.md sec. 5: each device's first
         * to last activity), not of the traced time: say so */
        const char *of = nranks > 1
            ? td_arena_printf(s->a, "the device timeline (first to last device activity, "
                              "summed over %zu ranks)", nranks)
            : "the device timeline (first to last device activity)";
        if (total > 0) {
            td_sum_finding(s, "%s idle %.0f%% of %s%s%s", td_devword(a), 100.0 * (double)idle / (double)total,
                           of, steady ? " after warm-up" : "", idle_causes(s));
            nf++;
            if (comm > 0) {
                td_sum_finding(s, "Exposed communication (not overlapped with computation) is "
                               "%.0f%% of the same timeline.",
                               100.0 * (double)xcomm / (double)total);
                nf++;
            }
            /* memory copies worth a look (the memcpy table, nsys, lists them) */
            if (mem > 0 && (double)mem >= 0.10 * (double)total) {
                td_sum_finding(s, "Memory copies take %.0f%% of the same timeline (%.0f%% not "
                               "overlapped with computation or communication).",
                               100.0 * (double)mem / (double)total,
                               100.0 * (double)xmem / (double)total);
                nf++;
            }
        }
    }
    const td_kv *hc = td_sum_get(s, "comm.host_ns"), *hs = td_sum_get(s, "comm.host_share");
    if (hc && hs && hc->v.i > 0) {
        td_sum_finding(s, "MPI/UCX/NCCL ranges take %.0f%% of the traced time on the host%s.",
                       100.0 * hs->v.f, a->n > 1 ? " (summed over ranks)" : "");
        nf++;
    }
    const td_table *tk = td_sum_find_table(s, "kernels");
    if (tk && tk->nrows) {
        /* a wait or barrier on top is named as one, with the top kernel that computes */
        const char *k0 = td_row_get_str(tk, 0, "short_name") ? td_row_get_str(tk, 0, "short_name")
                                                            : shorten(s, td_row_get_str(tk, 0, "name"));
        size_t kc = 0;
        while (kc < tk->nrows && td_is_sync_name(td_row_get_str(tk, kc, "name")))
            kc++;
        if (kc == 0 || kc == tk->nrows)
            td_sum_finding(s, "The top kernel (%s) is %.0f%% of all kernel time.", k0,
                           100.0 * td_row_get_f64(tk, 0, "share"));
        else
            td_sum_finding(s, "The top kernel (%s, %.0f%% of all kernel time) is synchronization: "
                           "waiting, not computing (the breakdown's sync wait); the top kernel "
                           "that computes (%s) is %.0f%%.", k0, 100.0 * td_row_get_f64(tk, 0, "share"),
                           td_row_get_str(tk, kc, "short_name") ? td_row_get_str(tk, kc, "short_name")
                                                                : shorten(s, td_row_get_str(tk, kc, "name")),
                           100.0 * td_row_get_f64(tk, kc, "share"));
        nf++;
    }
    const td_table *to = td_sum_find_table(s, "ops");
    /* issue 38: a step range (ProfilerStep#6, the steps table's names) is not an op: its
     * self time is the step's time outside every op */
    size_t top = 0;
    const td_table *tst = td_sum_find_table(s, "steps");
    for (; to && top < to->nrows; top++) {
        const char *n = td_row_get_str(to, top, "name");
        int step = n && !strncmp(n, "ProfilerStep#", 13);
        for (size_t k = 0; n && !step && tst && k < tst->nrows; k++) {
            const char *sn = td_row_get_str(tst, k, "name");
            step = sn && !strcmp(sn, n);
        }
        if (!step)
            break;
    }
    if (to && top < to->nrows) {
        td_sum_finding(s, "The top op by self CPU time (%s) is %.0f%% of the self CPU time of all ops.",
                       shorten(s, td_row_get_str(to, top, "name")), 100.0 * td_row_get_f64(to, top, "self_share"));
        nf++;
    }
    /* XLA (modules with program ids, HLO op kinds): nsys-jax archives have no kernel,
     * op or timeline tables, so these carry the findings */
    const td_table *tm = td_sum_find_table(s, "modules"), *th = td_sum_find_table(s, "hlo_ops");
    int xla = th != NULL;
    for (size_t r = 0; tm && r < tm->nrows; r++)
        if (td_row_get_int(tm, r, "program_id") != TD_NA)
            xla = 1;
    if (xla && tm && tm->nrows && nf < 6) {
        /* the step: the top module that is not a barrier (xla_barrier) */
        size_t m0 = 0;
        while (m0 < tm->nrows && xla_barrier(s, td_row_get_int(tm, m0, "program_id")))
            m0++;
        if (m0 == tm->nrows)
            m0 = 0;
        char buf[64];
        td_fmt_ns(buf, sizeof buf, td_row_get_int(tm, m0, "mean_ns"));
        if (m0 == 0)
            td_sum_finding(s, "The top module (%s) is %.0f%% of module time, %s per execution on "
                           "average.", shorten(s, td_row_get_str(tm, 0, "name")), 100.0 * td_row_get_f64(tm, 0, "share"), buf);
        else {
            td_sum_finding(s, "The step (%s, the top module that is not a barrier) takes %s per "
                           "execution on average, %.0f%% of module time; %s (%.0f%%) is a barrier: "
                           "a collective of at most 16 bytes whose time is the processes waiting "
                           "for each other (as at a checkpoint), not work.",
                           shorten(s, td_row_get_str(tm, m0, "name")), buf,
                           100.0 * td_row_get_f64(tm, m0, "share"),
                           shorten(s, td_row_get_str(tm, 0, "name")), 100.0 * td_row_get_f64(tm, 0, "share"));
        }
        /* step first, then the barrier: one order whatever summaries a merge starts from */
        if (td_row_get_int(tm, m0, "mean_ns") != TD_NA && !td_sum_get(s, "step_time.median_ns"))
            td_sum_set_int(s, "xla.step_ns", "Step time (the step module, mean)", TD_T_NS,
                           td_row_get_int(tm, m0, "mean_ns"));
        if (m0)
            td_sum_set_str(s, "xla.barrier_module", "Barrier module", td_row_get_str(tm, 0, "name"));
        nf++;
    }
    const td_table *toc = td_sum_find_table(s, "hlo_opcodes");
    if (xla && toc && toc->nrows && nf < 6) {
        /* the notebook's opcode view: the top opcode (not the idle row) */
        for (size_t r = 0; r < toc->nrows; r++) {
            const char *op = td_row_get_str(toc, r, "opcode");
            if (!op || !strcmp(op, "GPU idle during modules"))
                continue;
            td_sum_finding(s, "The top HLO opcode (%s) is %.0f%% of the top modules' GPU time.",
                           shorten(s, op), 100.0 * td_row_get_f64(toc, r, "share"));
            nf++;
            break;
        }
    } else if (xla && th && th->nrows && nf < 6) {
        td_sum_finding(s, "The top HLO operation kind (%s) is %.0f%% of thunk time.",
                       shorten(s, td_row_get_str(th, 0, "hlo_op")), 100.0 * td_row_get_f64(th, 0, "share"));
        nf++;
    }
    /* a rank that holds the job back comes before the critical path and the diagnosis */
    const td_table *st = td_sum_find_table(s, "steps");
    int64_t srank;
    double sratio;
    if (st && st->nrows && nf < 6 && straggler(st, &srank, &sratio)) {
        td_sum_finding(s, "Rank %lld's steps are %.0f%% slower than the median rank.",
                       (long long)srank, 100.0 * (sratio - 1.0));
        nf++;
    }
    xla_findings(a, &nf);
    cp_findings(s, &nf);
    diag_findings(s, &nf);
    const td_kv *wd = td_sum_get(s, "warmup.dropped");
    if (wd && wd->v.i > 0 && nf < 6) {
        /* XLA counts dropped module executions, Kineto dropped steps */
        td_sum_finding(s, "%lld warm-up %s%s dropped from the statistics%s.", (long long)wd->v.i,
                       xla ? "module execution" : "step", wd->v.i == 1 ? " was" : "s were", job);
        nf++;
    }
    const td_table *ou = td_sum_find_table(s, "outlier_steps");
    if (ou && ou->nrows && nf < 6) {
        td_sum_finding(s, "%zu step%s took over 1.5x the median step time%s.", ou->nrows,
                       ou->nrows == 1 ? "" : "s", a->n > 1 ? " of their rank" : "");
        nf++;
    }
    /* Issue 21: no filler sentences. The mean step time and the traced time are page 1's
     * figures (the step time as median and p90): a sentence repeating them, with another
     * statistic, says nothing new and disagrees in the last digits. */
    /* IBM AIU: how busy the AIUs were (acelyzer's active share, per device) */
    const td_table *ad = td_sum_find_table(s, "aiu_devices");
    const td_kv *as = td_sum_get(s, "aiu.active_share");
    if (ad && ad->nrows && as && as->type == TD_T_SHARE && nf < 6) {
        size_t lo = 0;
        for (size_t r = 1; r < ad->nrows; r++)
            if (td_row_get_f64(ad, r, "active_share") < td_row_get_f64(ad, lo, "active_share"))
                lo = r;
        if (ad->nrows > 1)
            td_sum_finding(s, "The AIUs run kernels %.0f%% of their kernel span (first kernel "
                           "start to last kernel end) over %zu AIUs; the least busy, AIU %lld, "
                           "%.0f%%.", 100.0 * as->v.f, ad->nrows,
                           (long long)td_row_get_int(ad, lo, "device"), 100.0 * td_row_get_f64(ad, lo, "active_share"));
        else
            td_sum_finding(s, "The AIU runs kernels %.0f%% of its kernel span (first kernel "
                           "start to last kernel end).", 100.0 * as->v.f);
        nf++;
    }
}
