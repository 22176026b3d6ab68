/* analyse/headline.c - the figures page 1 leads with: the step time of the steady steps
 * (those the warm-up rule kept, less any step cut short by the trace's ends), median and 90th percentile over every rank's kept steps.
 * Scalars step_time.median_ns, step_time.p90_ns, step_time.steps; absent without steps.
 * step_time.steps counts the steady steps of every rank; with several ranks,
 * step_time.ranks says how many and step_time.steps_per_rank the count of each (when
 * every rank has the same). step_time.cut_steps / cut_note: the steps cut short by the trace's ends, left out.
 * The median of an even count is the mean of the two middle values; the p90 is the
 * nearest-rank percentile (the smallest value with at least 90% of the steps at or below
 * it), so that it is a step that happened.
 *
 * After the step time, where it goes: step_time.device_busy_ns, the median device-busy
 * time of the steady steps (steps.device_busy_ns: the union of the step's device work),
 * and step_time.device_busy_share, their device-busy time over their wall time (sums,
 * so that it is the share of the steps' time). What the idle time is: idle.host_wait_share,
 * idle.kernel_wait_share and idle.other_share, the shares of every stream's idle time by
 * cause (the idle_breakdown table, HTA's causes; absent without it). When the devices were
 * counted from the threads that launch modules (an nsys-jax archive without
 * thread-metadata.parquet) trace.devices_note says so, beside the figure. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* step_time.cut_steps and step_time.cut_note: the steps cut short by the trace's ends
 * (column cut, analyse/steps.c), left out of the figures above; a cut row that is its
 * rank's last row was cut by the end, else by the start. */
static void cut_note(td_summary *s, const td_table *st)
{
    int cc = td_table_col(st, "cut"), cr = td_table_col(st, "rank");
    if (cc < 0)
        return;
    size_t ncut = 0, nend = 0;
    for (size_t r = 0; r < st->nrows; r++) {
        if (td_table_cell(st, r, cc)->i != 1)
            continue;
        ncut++;
        nend += r + 1 == st->nrows ||
                (cr >= 0 && td_table_cell(st, r + 1, cr)->i != td_table_cell(st, r, cr)->i);
    }
    if (!ncut)
        return;
    td_sum_set_int(s, "step_time.cut_steps", "Steps cut short by the trace's ends", TD_T_INT,
                   (int64_t)ncut);
    td_buf b = {0};
    const char *who = ncut == 1 ? "step was" : "steps were";
    const char *them = ncut == 1 ? "it" : "them";
    if (nend == ncut)
        td_buf_printf(&b, "%zu %s cut short by the trace's end (the profiler stopped during "
                      "%s)", ncut, who, them);
    else if (!nend)
        td_buf_printf(&b, "%zu %s cut short by the trace's start (the profiler began during "
                      "%s)", ncut, who, them);
    else
        td_buf_printf(&b, "%zu %s cut short by the trace's start or end", ncut, who);
    td_buf_puts(&b, ", less than half a typical step recorded: left out of the step time "
                "(column cut of the steps table).");
    td_sum_set_str(s, "step_time.cut_note", "Steps cut short",
                   td_arena_strdup(s->a, td_buf_cstr(&b)));
    td_buf_free(&b);
}

static void step_time(td_actx *a)
{
    td_summary *s = a->s;
    const td_table *st = td_sum_find_table(s, "steps");
    if (!st || !st->nrows || td_table_col(st, "wall_ns") < 0)
        return;
    int64_t *w = td_xcalloc(st->nrows + 1, sizeof *w), *bz = td_xcalloc(st->nrows + 1, sizeof *bz);
    size_t n = 0, nb = 0;
    int64_t wsum = 0, bsum = 0;
    /* ranks with steady steps, and whether each has the same count (rows come by rank) */
    int cr = td_table_col(st, "rank");
    int64_t nranks = 0, per = -1, cur = 0, prev = TD_NA;
    int even = 1;
    for (size_t r = 0; r < st->nrows; r++) {
        if (!td_steps_row_steady(st, r))
            continue;
        int64_t rk = cr >= 0 ? td_table_cell(st, r, cr)->i : 0;
        if (!nranks || rk != prev) {
            if (nranks) {
                even &= per < 0 || cur == per;
                per = cur;
            }
            nranks++;
            prev = rk;
            cur = 0;
        }
        cur++;
    }
    if (nranks > 1)
        even &= cur == per;
    for (size_t r = 0; r < st->nrows; r++) {
        if (!td_steps_row_steady(st, r)) /* warm-up, or cut short by the trace's ends */
            continue;
        int64_t v = td_row_get_int(st, r, "wall_ns");
        if (v != TD_NA && v >= 0)
            w[n++] = v;
        int64_t b = td_row_get_int(st, r, "device_busy_ns");
        if (v != TD_NA && v > 0 && b != TD_NA && b >= 0) {
            bz[nb++] = b;
            wsum += v;
            bsum += b;
        }
    }
    cut_note(s, st);
    if (n) {
        qsort(w, n, sizeof *w, cmp_i64);
        int64_t med = n % 2 ? w[n / 2] : w[n / 2 - 1] + (w[n / 2] - w[n / 2 - 1]) / 2;
        size_t k = (9 * n + 9) / 10; /* ceil(0.9 n), 1-based */
        td_sum_set_int(s, "step_time.median_ns", "Step time (median of steady steps)",
                       TD_T_NS, med);
        td_sum_set_int(s, "step_time.p90_ns", "Step time (p90 of steady steps)", TD_T_NS,
                       w[k - 1]);
        td_sum_set_int(s, "step_time.steps", "Steady steps", TD_T_INT, (int64_t)n);
        if (nranks > 1) { /* one count, one meaning: the steps of every rank, and per rank */
            td_sum_set_int(s, "step_time.ranks", "Ranks with steady steps", TD_T_INT, nranks);
            if (even)
                td_sum_set_int(s, "step_time.steps_per_rank", "Steady steps per rank",
                               TD_T_INT, (int64_t)n / nranks);
        }
    }
    if (nb && wsum > 0) {
        qsort(bz, nb, sizeof *bz, cmp_i64);
        int64_t med = nb % 2 ? bz[nb / 2] : bz[nb / 2 - 1] + (bz[nb / 2] - bz[nb / 2 - 1]) / 2;
        td_sum_set_int(s, "step_time.device_busy_ns", "Device busy per step (median)", TD_T_NS,
                       med);
        td_sum_set_f64(s, "step_time.device_busy_share", "Device busy share of the steps",
                       TD_T_SHARE, (double)bsum / (double)wsum);
    }
    free(w);
    free(bz);
}

static void idle_causes(td_summary *s)
{
    const td_table *ib = td_sum_find_table(s, "idle_breakdown");
    int64_t host = 0, kern = 0, all = 0;
    for (size_t r = 0; ib && r < ib->nrows; r++) {
        const char *c = td_row_get_str(ib, r, "category");
        int64_t v = td_row_get_int(ib, r, "idle_ns");
        if (!c || v == TD_NA)
            continue;
        all += v;
        host += !strcmp(c, "host_wait") ? v : 0;
        kern += !strcmp(c, "kernel_wait") ? v : 0;
    }
    if (all <= 0)
        return;
    td_sum_set_f64(s, "idle.host_wait_share", "Idle waiting for the CPU to launch", TD_T_SHARE,
                   (double)host / (double)all);
    td_sum_set_f64(s, "idle.kernel_wait_share", "Idle between back-to-back kernels",
                   TD_T_SHARE, (double)kern / (double)all);
    td_sum_set_f64(s, "idle.other_share", "Idle for other causes", TD_T_SHARE,
                   (double)(all - host - kern) / (double)all);
}

/* nsys-jax before mid-2024: the reader's warning (read/nsysjax.c) says the devices are
 * the launching threads */
static void devices_note(td_actx *a)
{
    td_summary *s = a->s;
    int hit = 0;
    for (size_t i = 0; a->set && i < a->set->warnings.n && !hit; i++)
        hit = strstr(a->set->warnings.msg[i], "no thread-metadata.parquet") != NULL;
    for (size_t i = 0; i < s->nwarnings && !hit; i++)
        hit = strstr(s->warnings[i], "no thread-metadata.parquet") != NULL;
    if (hit)
        td_sum_set_str(s, "trace.devices_note", "Devices counted",
                       "one per thread that launches XLA modules, the main thread's modules "
                       "on the first device (the nsys-jax archive has no "
                       "thread-metadata.parquet); a device that ran no module is not counted");
}

void td_an_headline(td_actx *a)
{
    step_time(a);
    idle_causes(a->s);
    devices_note(a);
}
