/* analyse/telemetry.c - telemetry samples (read/telemetry.c) aligned with the trace by
 * wall clock, per metric and per step (doc/formats.md "Telemetry").
 *
 * Alignment: a sample's trace time is its wall-clock time minus the trace's time base
 * (Kineto baseTimeNanoseconds, nsys session start) plus --telemetry-offset. A trace
 * without a time base, or a file without dates and no --telemetry-start, is aligned by
 * taking its first sample at the trace's first event (plus the offset). Samples outside
 * the traced time are counted, not used. Per step: mean and max of the samples inside it
 * (the last earlier sample when none falls inside: monitors sample once a second) and,
 * for power, energy = mean power x step time. */
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kind_name[] = {"other", "power", "temperature", "utilisation",
                                        "memory", "bandwidth", "clock"};

static void fmt_wall(char *b, size_t cap, int64_t ns, int dated)
{
    if (!dated) {
        snprintf(b, cap, "%.3f s", (double)ns / 1e9);
        return;
    }
    time_t t = (time_t)(ns / 1000000000);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(b, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(b, cap, "?");
}

typedef struct {
    uint32_t metric;
    int32_t device;
} key;

static int cmp_key(const void *x, const void *y)
{
    const td_tsample *a = x, *b = y;
    if (a->metric != b->metric)
        return a->metric < b->metric ? -1 : 1;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

void td_an_telemetry(td_actx *a)
{
    td_traceset *set = a->set;
    td_summary *s = a->s;
    if (!set->nts || !a->n)
        return;
    /* the trace the samples are aligned with: the first (by rank) with a time base */
    const td_tctx *c = &a->tc[0];
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->base_time_ns > 0) {
            c = &a->tc[i];
            break;
        }
    const int64_t base = c->t->base_time_ns, off = a->o->telemetry_offset_ns;
    td_table *tm = td_sum_table(s, "telemetry_metrics", "Telemetry");
    td_table_cols(tm, "file:text:File", "device:int:Device", "metric:text:Metric",
                  "unit:text:Unit", "kind:text:Kind", "samples:int:Samples",
                  "outside:int:Outside the trace", "mean:f64:Mean", "min:f64:Min",
                  "max:f64:Max", NULL);
    td_table *ts = td_sum_table(s, "telemetry_steps", "Telemetry per step");
    td_table_cols(ts, "rank:int:Rank", "step:text:Step", "device:int:Device",
                  "metric:text:Metric", "unit:text:Unit", "samples:int:Samples",
                  "mean:f64:Mean", "max:f64:Max", "energy_j:f64:Energy (J)", NULL);
    td_table *se = td_sum_table(s, "telemetry_series", "Telemetry samples");
    td_table_cols(se, "metric:text:Metric", "unit:text:Unit", "kind:text:Kind",
                  "device:int:Device", "t_ns:ns:Time", "value:f64:Value", NULL);
    int64_t in_total = 0, out_total = 0;
    uint8_t *covered = td_xcalloc(c->nsteps + 1, 1); /* kept steps inside a file's samples */
    int any_relative = 0;
    for (size_t f = 0; f < set->ntf; f++) {
        const td_tfile *tf = &set->tf[f];
        td_tsample *v = td_xmalloc((tf->n + 1) * sizeof *v);
        memcpy(v, set->ts + tf->first, tf->n * sizeof *v);
        int relative = !(base > 0 && tf->dated);
        any_relative |= relative;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (size_t i = 0; i < tf->n; i++)
            if (v[i].t < first)
                first = v[i].t;
        /* to trace time (the events' clock) */
        for (size_t i = 0; i < tf->n; i++) {
            v[i].t = relative ? v[i].t - first + c->t0 + off : v[i].t - base + off;
            if (v[i].t > last)
                last = v[i].t;
        }
        int64_t lo = relative ? c->t0 : INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < tf->n; i++)
            if (v[i].t < lo)
                lo = v[i].t;
        hi = last;
        for (size_t k = 0; k < c->nsteps; k++)
            if (td_step_steady(&c->steps[k]) && c->steps[k].start >= lo && c->steps[k].end <= hi)
                covered[k] = 1;
        qsort(v, tf->n, sizeof *v, cmp_key);
        int overlap = 0;
        for (size_t i = 0; i < tf->n;) {
            size_t j = i;
            while (j < tf->n && v[j].metric == v[i].metric && v[j].device == v[i].device)
                j++;
            const td_tmetric *m = &set->tm[v[i].metric];
            const char *mname = td_name(a, m->name), *unit = td_name(a, m->unit);
            int64_t nin = 0, nout = 0;
            double sum = 0, mn = INFINITY, mx = -INFINITY;
            for (size_t k = i; k < j; k++) {
                if (v[k].t < c->t0 || v[k].t > c->t1) {
                    nout++;
                    continue;
                }
                nin++;
                sum += v[k].v;
                mn = fmin(mn, v[k].v);
                mx = fmax(mx, v[k].v);
                size_t r = td_table_add_row(se);
                td_row_str(s, se, r, "metric", mname);
                td_row_str(s, se, r, "unit", unit);
                td_row_str(s, se, r, "kind", kind_name[m->kind]);
                td_row_int(s, se, r, "device", v[k].device >= 0 ? v[k].device : TD_NA);
                td_row_int(s, se, r, "t_ns", v[k].t - c->t0);
                td_row_f64(s, se, r, "value", v[k].v);
            }
            in_total += nin;
            out_total += nout;
            size_t r = td_table_add_row(tm);
            td_row_str(s, tm, r, "file", tf->path);
            td_row_int(s, tm, r, "device", v[i].device >= 0 ? v[i].device : TD_NA);
            td_row_str(s, tm, r, "metric", mname);
            td_row_str(s, tm, r, "unit", unit);
            td_row_str(s, tm, r, "kind", kind_name[m->kind]);
            td_row_int(s, tm, r, "samples", nin);
            td_row_int(s, tm, r, "outside", nout);
            if (nin) {
                td_row_f64(s, tm, r, "mean", sum / (double)nin);
                td_row_f64(s, tm, r, "min", mn);
                td_row_f64(s, tm, r, "max", mx);
            }
            /* per step */
            for (size_t st = 0; st < c->nsteps; st++) {
                const td_step *sp = &c->steps[st];
                int64_t cnt = 0;
                double ssum = 0, smax = -INFINITY, hold = NAN;
                for (size_t k = i; k < j; k++) {
                    if (v[k].t < sp->start)
                        hold = v[k].v;
                    else if (v[k].t < sp->end) {
                        cnt++;
                        ssum += v[k].v;
                        smax = fmax(smax, v[k].v);
                    }
                }
                if (cnt)
                    overlap = 1;
                if (!cnt && isnan(hold))
                    continue;
                double mean = cnt ? ssum / (double)cnt : hold;
                size_t q = td_table_add_row(ts);
                td_row_int(s, ts, q, "rank", c->t->rank);
                td_row_str(s, ts, q, "step", td_name(a, sp->name));
                td_row_int(s, ts, q, "device", v[i].device >= 0 ? v[i].device : TD_NA);
                td_row_str(s, ts, q, "metric", mname);
                td_row_str(s, ts, q, "unit", unit);
                td_row_int(s, ts, q, "samples", cnt);
                td_row_f64(s, ts, q, "mean", mean);
                td_row_f64(s, ts, q, "max", cnt ? smax : hold);
                if (m->kind == TD_TM_POWER) {
                    double w = strcmp(unit, "mW") ? mean : mean / 1000;
                    td_row_f64(s, ts, q, "energy_j", w * (double)(sp->end - sp->start) / 1e9);
                }
            }
            i = j;
        }
        if (!overlap) {
            /* name both time ranges: the samples' and the steps' (or the trace's) */
            int64_t s0 = c->nsteps ? c->steps[0].start : c->t0;
            int64_t s1 = c->nsteps ? c->steps[c->nsteps - 1].end : c->t1;
            int dated = !relative && base > 0;
            char a0[40], a1[40], b0[40], b1[40];
            fmt_wall(a0, sizeof a0, dated ? lo + base : lo - c->t0, dated);
            fmt_wall(a1, sizeof a1, dated ? hi + base : hi - c->t0, dated);
            fmt_wall(b0, sizeof b0, dated ? s0 + base : s0 - c->t0, dated);
            fmt_wall(b1, sizeof b1, dated ? s1 + base : s1 - c->t0, dated);
            char *w = td_arena_printf(s->a, "telemetry %s: its samples (%s to %s) overlap no %s "
                                      "of the trace (%s to %s)%s", tf->path, a0, a1,
                                      c->nsteps ? "step" : "part", b0, b1,
                                      dated ? "" : " (times from the trace's first event)");
            td_sum_warning(s, w);
        }
        free(v);
    }
    int64_t ncov = 0;
    for (size_t k = 0; k < c->nsteps; k++)
        ncov += covered[k];
    free(covered);
    td_sum_set_int(s, "telemetry.samples", "Telemetry samples in the trace", TD_T_INT, in_total);
    td_sum_set_int(s, "telemetry.covered_steps", "Kept steps inside the telemetry", TD_T_INT,
                   ncov);
    td_sum_set_int(s, "telemetry.outside", "Telemetry samples outside the trace", TD_T_INT,
                   out_total);
    td_sum_set_str(s, "telemetry.alignment", "Telemetry aligned by",
                   any_relative ? "first sample at the trace's first event"
                                : "wall clock (the trace's time base)");
}
