/* analyse_findings.c - three to six plain sentences derived from the tables already in
 * the summary (never from the traces directly, so they agree with the documents). */
#include "analyse_int.h"
#include <math.h>
#include <string.h>

static int64_t ci(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? TD_NA : td_table_cell(t, r, c)->i;
}

static double cf(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? NAN : td_table_cell(t, r, c)->f;
}

static const char *cs(const td_table *t, size_t r, const char *key)
{
    int c = td_table_col(t, key);
    return c < 0 ? NULL : td_table_cell(t, r, c)->s;
}

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

void td_an_findings(td_actx *a)
{
    td_summary *s = a->s;
    size_t nf = 0;
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    if (tl && tl->nrows) {
        int steady = 0;
        for (size_t r = 0; r < tl->nrows; r++)
            if (cs(tl, r, "scope") && !strcmp(cs(tl, r, "scope"), "steady"))
                steady = 1;
        int64_t idle = 0, total = 0, xcomm = 0, comm = 0;
        for (size_t r = 0; r < tl->nrows; r++) {
            if (ci(tl, r, "device") != -1 || strcmp(cs(tl, r, "scope"), steady ? "steady" : "trace"))
                continue;
            idle += ci(tl, r, "idle_ns");
            total += ci(tl, r, "total_ns");
            xcomm += ci(tl, r, "exposed_comm_ns");
            comm += ci(tl, r, "total_comm_ns");
        }
        if (total > 0) {
            td_sum_finding(s, "GPU idle %.0f%% of the traced time%s.", 100.0 * (double)idle / (double)total,
                           steady ? " after warm-up" : "");
            nf++;
            if (comm > 0) {
                td_sum_finding(s, "Exposed communication is %.0f%% of the traced time.",
                               100.0 * (double)xcomm / (double)total);
                nf++;
            }
        }
    }
    const td_table *tk = td_sum_find_table(s, "kernels");
    if (tk && tk->nrows) {
        td_sum_finding(s, "The top kernel (%s) is %.0f%% of device time.",
                       shorten(s, cs(tk, 0, "name")), 100.0 * cf(tk, 0, "share"));
        nf++;
    }
    const td_table *to = td_sum_find_table(s, "ops");
    if (to && to->nrows) {
        td_sum_finding(s, "The top op by self CPU time (%s) is %.0f%% of CPU time.",
                       shorten(s, cs(to, 0, "name")), 100.0 * cf(to, 0, "self_share"));
        nf++;
    }
    const td_kv *wd = td_sum_get(s, "warmup.dropped");
    if (wd && wd->v.i > 0 && nf < 6) {
        td_sum_finding(s, "%lld warm-up step%s dropped from the statistics.", (long long)wd->v.i,
                       wd->v.i == 1 ? " was" : "s were");
        nf++;
    }
    const td_table *ou = td_sum_find_table(s, "outlier_steps");
    if (ou && ou->nrows && nf < 6) {
        td_sum_finding(s, "%zu step%s took over 1.5x the median step time.", ou->nrows,
                       ou->nrows == 1 ? "" : "s");
        nf++;
    }
    const td_table *st = td_sum_find_table(s, "steps");
    if (st && st->nrows && nf < 6) {
        int64_t sum = 0, n = 0;
        for (size_t r = 0; r < st->nrows; r++)
            if (!ci(st, r, "warmup")) {
                sum += ci(st, r, "wall_ns");
                n++;
            }
        if (n) {
            char buf[64];
            td_fmt_ns(buf, sizeof buf, sum / n);
            td_sum_finding(s, "%lld step%s kept, %s per step on average.", (long long)n,
                           n == 1 ? "" : "s", buf);
            nf++;
        }
    }
    if (nf < 3) {
        const td_kv *sp = td_sum_get(s, "trace.span_ns");
        if (sp) {
            char buf[64];
            td_fmt_ns(buf, sizeof buf, sp->v.i);
            td_sum_finding(s, "The trace spans %s over %zu rank%s.", buf, a->n, a->n == 1 ? "" : "s");
        }
    }
}
