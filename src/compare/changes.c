/* compare/changes.c - comparability, and the `changes` table for two runs or a history of
 * runs, judged on the metrics compare/metrics.c collects. See compare/changes.h. */
#define _POSIX_C_SOURCE 200809L
#include "compare/changes.h"
#include "compare/stats.h"
#include "compare/triage.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JUDGE_SHARE 0.01 /* table rows below 1% of their table's time are not judged */
#define NEW_SHARE 0.001  /* new / vanished kernels: listed from 0.1% of the kernel time */
#define TD_STEP_SD 5.0       /* a step reported the night it appears: beyond 5 noise SD */
#define TD_PCT_RATIO 100.0   /* a change of more than 100x is given as before -> after */
#define TD_STEP_MIN_RUNS 5   /* ... against at least 5 runs of the current level */

void td_detect_opts_default(td_detect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->min_effect = 0.05;
    o->max_p = 0.01;
    o->recent = 5;
    o->confirm = 2;
    o->trend_runs = 20;
}

/* ---- comparability ---- */
void td_runkey_of(const td_summary *s, td_runkey *k)
{
    memset(k, 0, sizeof *k);
    const td_kv *kv = td_sum_get(s, "trace.device_name");
    int64_t ndev = td_sum_int(s, "trace.devices");
    if (kv && kv->type == TD_T_TEXT && kv->v.s && *kv->v.s)
        snprintf(k->device, sizeof k->device, "%s", kv->v.s);
    else
        snprintf(k->device, sizeof k->device, "%s",
                 ndev == 0 ? "none (CPU only)" : "unknown");
    int64_t w = td_sum_int(s, "trace.world_size");
    if (w == TD_NA)
        w = td_sum_int(s, "trace.ranks");
    snprintf(k->world, sizeof k->world, "%lld", (long long)(w == TD_NA ? 0 : w));
    const td_table *in = td_sum_find_table(s, "inputs");
    int cf = in ? td_table_col(in, "format") : -1;
    for (size_t r = 0; cf >= 0 && r < in->nrows; r++) {
        const char *f = td_table_cell(in, r, cf)->s;
        if (f && !strstr(k->format, f)) {
            size_t n = strlen(k->format);
            snprintf(k->format + n, sizeof k->format - n, "%s%s", n ? "," : "", f);
        }
    }
    kv = td_sum_get(s, "report.template");
    if (kv && kv->type == TD_T_TEXT && kv->v.s)
        snprintf(k->tmpl, sizeof k->tmpl, "%s", kv->v.s);
    /* step definition: the step names with their numbers replaced by N */
    const td_table *st = td_sum_find_table(s, "steps");
    int cn = st ? td_table_col(st, "name") : -1;
    for (size_t r = 0; cn >= 0 && r < st->nrows; r++) {
        const char *nm = td_table_cell(st, r, cn)->s;
        if (!nm)
            continue;
        char d[160];
        size_t j = 0;
        for (const char *p = nm; *p && j + 2 < sizeof d; p++) {
            if (*p >= '0' && *p <= '9') {
                if (!j || d[j - 1] != 'N')
                    d[j++] = 'N';
            } else
                d[j++] = *p;
        }
        d[j] = 0;
        if (!strstr(k->steps, d)) {
            size_t n = strlen(k->steps);
            snprintf(k->steps + n, sizeof k->steps - n, "%s%s", n ? "," : "", d);
        }
    }
    if (!k->steps[0])
        snprintf(k->steps, sizeof k->steps, "none");
}

/* Fill the `comparability` table; returns 1 when the runs are comparable. Template
 * differences are said but do not stop the comparison (they change no number). */
static int comparability(td_summary *cur, const td_runkey *b, const td_runkey *c, char *why,
                         size_t cap)
{
    td_table *t = td_sum_table(cur, "comparability", "Comparability");
    if (!t->ncols)
        td_table_cols(t, "check:text:Check", "baseline:text:Baseline", "current:text:Current",
                      "status:text:Status", NULL);
    struct { const char *what, *x, *y; int hard; } ck[] = {
        {"device type", b->device, c->device, 1},
        {"world size", b->world, c->world, 1},
        {"input format", b->format, c->format, 1},
        {"step definition", b->steps, c->steps, 1},
        {"template", b->tmpl, c->tmpl, 0}};
    int ok = 1;
    why[0] = 0;
    for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++) {
        int unknown = !ck[i].x[0] || !ck[i].y[0];
        int same = unknown || strcmp(ck[i].x, ck[i].y) == 0;
        size_t r = td_table_add_row(t);
        td_row_str(cur, t, r, "check", ck[i].what);
        td_row_str(cur, t, r, "baseline", ck[i].x[0] ? ck[i].x : "unknown");
        td_row_str(cur, t, r, "current", ck[i].y[0] ? ck[i].y : "unknown");
        td_row_str(cur, t, r, "status", unknown ? "unknown" : same ? "same"
                                        : ck[i].hard ? "differs: not comparable"
                                                     : "differs (numbers still compared)");
        if (!same && ck[i].hard) {
            size_t n = strlen(why);
            snprintf(why + n, cap - n, "%s%s %s vs %s", n ? "; " : "", ck[i].what, ck[i].x,
                     ck[i].y);
            ok = 0;
        }
    }
    return ok;
}

/* ---- the changes table ---- */
typedef struct chg {
    const char *metric, *dir, *rule, *since, *unit;
    const char *label; /* the reader's name, when the current run cannot give it (a kernel
                        * that vanished: its short name is the baseline's) */
    double before, after, change, noise, conf;
    int pending;       /* a step reported the night it appeared, not yet confirmed */
    int floored;       /* the baseline is under the metric's floor: no percentage */
    size_t bad, good;  /* history: the first run of the new level and the run before it
                        * (indices of td_hist, nruns = this run; SIZE_MAX: none) */
} chg;

typedef struct chgset {
    chg *c;
    size_t n, cap;
    int same, notcmp;
    int recovered;              /* steps of the previous run that did not hold */
    const char *recovered_name; /* the first of them (its key) */
    size_t wbad, wgood;         /* finish: bad and good of the regression the verdict names */
    int still;                  /* regressions that left the reported window this run */
    const char *still_since;    /* ... the run the first of them began */
} chgset;

static double min_effect_for(const td_detect_opts *o, const char *metric)
{
    double t = o->min_effect;
    size_t best = 0;
    for (size_t i = 0; i < o->ntols; i++) {
        size_t n = strlen(o->tols[i].prefix);
        if (n >= best && strncmp(metric, o->tols[i].prefix, n) == 0) {
            best = n;
            t = o->tols[i].tol;
        }
    }
    return t;
}

static chg *push(chgset *cs, const char *metric, const char *dir, double before, double after,
                 double noise, double conf, const char *rule, const char *since)
{
    chg *c = TD_PUSH(cs->c, cs->n, cs->cap);
    c->unit = "ns";
    c->metric = metric;
    c->dir = dir;
    c->before = before;
    c->after = after;
    c->change = before != 0 && !isnan(before) && !isnan(after) ? (after - before) / fabs(before)
                                                                : NAN;
    c->noise = noise;
    c->conf = conf;
    c->rule = rule;
    c->since = since;
    c->pending = 0;
    c->floored = 0;
    c->label = NULL;
    c->bad = c->good = SIZE_MAX;
    return c;
}

static int dir_rank(const char *d)
{
    return !strcmp(d, "regressed") ? 0 : !strcmp(d, "new") ? 1 : !strcmp(d, "vanished") ? 2
           : !strcmp(d, "improved") ? 3 : 4;
}

static int cmp_chg(const void *a, const void *b)
{
    const chg *x = a, *y = b;
    int dx = dir_rank(x->dir), dy = dir_rank(y->dir);
    if (dx != dy)
        return dx - dy;
    /* a reader's order (issue 21): step time leads, then the largest share of the step
     * (the time involved), then the largest change */
    int px = !strcmp(x->metric, "step.median_ns"), py = !strcmp(y->metric, "step.median_ns");
    if (px != py)
        return py - px;
    double tx = isnan(x->after) ? x->before : x->after, ty = isnan(y->after) ? y->before : y->after;
    if (tx != ty && !isnan(tx) && !isnan(ty) && !strcmp(x->unit, y->unit))
        return tx > ty ? -1 : 1;
    double sx = isnan(x->change) ? 0 : fabs(x->change), sy = isnan(y->change) ? 0 : fabs(y->change);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return strcmp(x->metric, y->metric);
}

static void fmt_pct(char *dst, size_t cap, double f)
{
    snprintf(dst, cap, "%+.1f%%", 100 * f);
}

/* "p=0.00083 < 0.001", "p=0.5, not < 0.01": a true statement (%.2g may round 0.00096 up
 * to "0.001", then more digits are shown) */
static void fmt_p(char *dst, size_t cap, double p, double max_p)
{
    if (isnan(p)) {
        snprintf(dst, cap, "p unknown");
        return;
    }
    int lt = p < max_p;
    for (int d = 2; d <= 9; d++) {
        snprintf(dst, cap, "p=%.*g", d, p);
        double shown = strtod(dst + 2, NULL);
        if ((shown < max_p) == lt)
            break;
    }
    size_t n = strlen(dst);
    snprintf(dst + n, cap - n, lt ? " < %.2g" : ", not < %.2g", max_p);
}

/* A change from a baseline under the metric's floor (td_metric_floor), or of more than
 * TD_PCT_RATIO times, has no usable percentage ("+954256075.0%" from a CPU's 2 MiB): its
 * change is left empty and the documents give before -> after ("2.0 MiB -> 18.5 GiB");
 * the rule says so. */
static void apply_floors(td_summary *s, chgset *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        chg *c = &cs->c[i];
        double fl = td_metric_floor(c->metric, c->unit);
        if (isnan(c->before) || isnan(c->after) ||
            !(fabs(c->before) < fl || fabs(c->after) > TD_PCT_RATIO * fabs(c->before)))
            continue;
        char b[64], a[64], f[64];
        td_metric_format(c->unit, c->before, b, sizeof b);
        td_metric_format(c->unit, c->after, a, sizeof a);
        td_metric_format(c->unit, fl, f, sizeof f);
        c->change = NAN;
        c->floored = 1;
        c->rule = fabs(c->before) < fl
                      ? td_arena_printf(s->a, "%s; %s -> %s: no percentage from a baseline "
                                        "under this metric's floor (%s)", c->rule ? c->rule : "",
                                        b, a, f)
                      : td_arena_printf(s->a, "%s; %s -> %s: no percentage for a change of "
                                        "more than %.0fx", c->rule ? c->rule : "", b, a,
                                        TD_PCT_RATIO);
    }
}

/* "+37.7%", or for a change from under the floor "2.0 MiB -> 18.5 GiB" */
static void fmt_change(char *dst, size_t cap, const chg *c)
{
    if (!c->floored) {
        fmt_pct(dst, cap, c->change);
        return;
    }
    char b[64], a[64];
    td_metric_format(c->unit, c->before, b, sizeof b);
    td_metric_format(c->unit, c->after, a, sizeof a);
    snprintf(dst, cap, "%s -> %s", b, a);
}

/* Writes the sorted changes, the counts and the verdict. Returns TD_CHG_*. */
static int finish(td_summary *s, chgset *cs, const char *against, const char *rule_text,
                  double min_effect)
{
    cs->wbad = cs->wgood = SIZE_MAX;
    apply_floors(s, cs);
    if (cs->n)
        qsort(cs->c, cs->n, sizeof *cs->c, cmp_chg);
    td_table *tc = td_sum_table(s, "changes", "Changes");
    td_table *ta = td_sum_table(s, "comparisons", "Every judged metric");
    td_table *tabs[2] = {tc, ta};
    /* times (ns) show with their units; other units (IPU cycles, shares) as numbers,
     * named by the unit column */
    int all_ns = 1, readable = 0;
    for (size_t i = 0; i < cs->n; i++) {
        all_ns &= !strcmp(cs->c[i].unit, "ns");
        readable |= !strcmp(cs->c[i].unit, "ns") || !strcmp(cs->c[i].unit, "bytes") ||
                    !strcmp(cs->c[i].unit, "TFLOP/s");
    }
    /* times mixed with bytes or TFLOP/s (issue 24's metrics): before and after stay numbers
     * in the unit of the row (summary.json, CSV); the documents show them as text in
     * readable units ("76.8 ms", "96.6 MiB", "12.7 TFLOP/s") */
    int text = !all_ns && readable;
    for (int k = 0; k < 2; k++) {
        if (tabs[k]->ncols)
            continue;
        if (text) { /* the text beside the numbers; the documents show the text */
            td_table_cols(tabs[k], "name:text:Metric", "metric:text:Key", "direction:text:Direction",
                          "before:f64:Before", "after:f64:After", "before_text:text:Before",
                          "after_text:text:After", "change:share:Change", "noise:share:Noise",
                          "confidence:share:Confidence", "since:text:Since", "unit:text:Unit",
                          "rule:text:Rule", NULL);
            td_table_nodoc(tabs[k], "before");
            td_table_nodoc(tabs[k], "after");
            td_table_nodoc(tabs[k], "unit");
        } else
            td_table_cols(tabs[k], "name:text:Metric", "metric:text:Key", "direction:text:Direction",
                          all_ns ? "before:ns:Before" : "before:f64:Before",
                          all_ns ? "after:ns:After" : "after:f64:After", "change:share:Change",
                          "noise:share:Noise", "confidence:share:Confidence",
                          "since:text:Since", "unit:text:Unit", "rule:text:Rule", NULL);
    }
    /* times: the documents' Before and After headers say the unit (ms, us); documents name
     * a metric for people (`name`), the key stays in summary.json and CSV */
    for (int k = 0; k < 2; k++) {
        if (all_ns)
            td_table_nodoc(tabs[k], "unit");
        td_table_nodoc(tabs[k], "metric");
    }
    int n[5] = {0};
    for (size_t i = 0; i < cs->n * 2; i++) {
        const chg *c = &cs->c[i % cs->n];
        td_table *t = i < cs->n ? ta : tc;
        if (i < cs->n)
            n[dir_rank(c->dir)]++;
        else if (dir_rank(c->dir) == 4)
            continue; /* "same" rows: counted, listed only in comparisons */
        size_t r = td_table_add_row(t);
        char label[600];
        if (c->label)
            snprintf(label, sizeof label, "%s", c->label);
        else
            td_metric_label(s, c->metric, label, sizeof label);
        td_row_str(s, t, r, "name", label);
        td_row_str(s, t, r, "metric", c->metric);
        td_row_str(s, t, r, "direction", c->dir);
        if (t->cols[td_table_col(t, "before")].type == TD_T_NS) {
            td_row_int(s, t, r, "before", isnan(c->before) ? TD_NA : (int64_t)llround(c->before));
            td_row_int(s, t, r, "after", isnan(c->after) ? TD_NA : (int64_t)llround(c->after));
        } else {
            td_row_f64(s, t, r, "before", c->before);
            td_row_f64(s, t, r, "after", c->after);
        }
        for (int k = 0; k < 2 && text; k++) {
            char x[64];
            td_metric_format(c->unit, k ? c->after : c->before, x, sizeof x);
            td_row_str(s, t, r, k ? "after_text" : "before_text", x);
        }
        td_row_f64(s, t, r, "change", c->change);
        td_row_f64(s, t, r, "noise", c->noise);
        td_row_f64(s, t, r, "confidence", c->conf);
        td_row_str(s, t, r, "since", c->since);
        td_row_str(s, t, r, "unit", c->unit);
        td_row_str(s, t, r, "rule", c->rule);
    }
    td_sum_set_int(s, "change_counts.regressed", "Regressed", TD_T_INT, n[0]);
    td_sum_set_int(s, "change_counts.improved", "Improved", TD_T_INT, n[3]);
    td_sum_set_int(s, "change_counts.new", "New kernels", TD_T_INT, n[1]);
    td_sum_set_int(s, "change_counts.vanished", "Vanished kernels", TD_T_INT, n[2]);
    cs->same = n[4];
    td_sum_set_int(s, "change_counts.same", "Same", TD_T_INT, cs->same);
    td_sum_set_int(s, "change_counts.not_judged", "Not judged (under 1% of time)", TD_T_INT,
                   cs->notcmp);
    td_sum_set_str(s, "change_rule", "Detection rule", rule_text);
    td_sum_set_int(s, "regression.regressed", "Regressed metrics", TD_T_INT, n[0]);
    td_sum_set_int(s, "regression.improved", "Improved metrics", TD_T_INT, n[3]);
    td_sum_set_f64(s, "regression.tolerance", "Tolerance", TD_T_SHARE, min_effect);
    char v[1024];
    if (n[0]) {
        /* the worst: the largest regression with a percentage; one from under its floor
         * only when no other has one */
        const chg *w = &cs->c[0];
        for (size_t i = 1; i < cs->n && dir_rank(cs->c[i].dir) == 0; i++)
            if (!cs->c[i].floored && (w->floored || fabs(cs->c[i].change) > fabs(w->change)))
                w = &cs->c[i];
        cs->wbad = w->bad;
        cs->wgood = w->good;
        char pct[160];
        fmt_change(pct, sizeof pct, w);
        char label[600];
        td_metric_label(s, w->metric, label, sizeof label);
        int pending = 0;
        for (size_t i = 0; i < cs->n && dir_rank(cs->c[i].dir) == 0; i++)
            pending += cs->c[i].pending;
        /* since: only where a history tells the run it began with */
        snprintf(v, sizeof v, "REGRESSED: %d metric%s regressed against %s (worst %s %s%s%s%s); "
                 "%d improved, %d new, %d vanished, %d same.%s", n[0], n[0] == 1 ? "" : "s",
                 against, label, pct, w->since ? " since " : "", w->since ? w->since : "",
                 w->pending ? ", a step on this run, not yet confirmed" : "", n[3], n[1], n[2],
                 cs->same, pending == n[0] && !w->pending ? "" : pending == n[0] ?
                 " Not yet confirmed: the next run confirms it or says it recovered." : "");
    } else
        snprintf(v, sizeof v, "OK: no metric regressed against %s; %d improved, %d new, "
                 "%d vanished, %d same.", against, n[3], n[1], n[2], cs->same);
    if (cs->still) {
        size_t l = strlen(v);
        snprintf(v + l, sizeof v - l, " Still regressed: %d metric%s changed on %s, no longer "
                 "reported (see the comparisons).", cs->still, cs->still == 1 ? "" : "s",
                 cs->still_since);
    }
    if (cs->recovered) {
        char label[600];
        td_metric_label(s, cs->recovered_name, label, sizeof label);
        size_t l = strlen(v);
        snprintf(v + l, sizeof v - l, " Recovered: %d step%s of the previous run did not hold "
                 "(%s%s).", cs->recovered, cs->recovered == 1 ? "" : "s", label,
                 cs->recovered > 1 ? ", ..." : "");
    }
    td_sum_set_str(s, "verdict", "Verdict", v);
    td_sum_compare_finding(s, "%s", v);
    free(cs->c);
    return n[0] ? TD_CHG_REGRESSED : TD_CHG_OK;
}

static int not_comparable(td_summary *s, const char *against, const char *why)
{
    char v[1024];
    snprintf(v, sizeof v, "NOT COMPARABLE: %s differs from this run (%s); nothing was compared.",
             against, why);
    td_sum_set_str(s, "verdict", "Verdict", v);
    td_sum_compare_finding(s, "%s", v);
    return TD_CHG_NOT_COMPARABLE;
}

const char *td_run_since(const td_summary *s)
{
    const td_kv *kv = td_sum_get(s, "meta.commit");
    if (kv && kv->type == TD_T_TEXT && kv->v.s && *kv->v.s)
        return kv->v.s;
    kv = td_sum_get(s, "trace.captured");
    if (kv && kv->type == TD_T_TEXT && kv->v.s && *kv->v.s)
        return kv->v.s;
    kv = td_sum_get(s, "date");
    return kv && kv->type == TD_T_TEXT && kv->v.s ? kv->v.s : "this run";
}

static double cov(const double *v, size_t n)
{
    if (n < 2)
        return NAN;
    double m = 0, q = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        q += (v[i] - m) * (v[i] - m);
    return m != 0 ? sqrt(q / (double)(n - 1)) / fabs(m) : NAN;
}

int td_changes_two(const td_summary *base, const char *base_label, td_summary *cur,
                   const td_detect_opts *o)
{
    td_runkey kb, kc;
    td_runkey_of(base, &kb);
    td_runkey_of(cur, &kc);
    char why[800];
    char against[600];
    const char *bl = td_run_since(base);
    snprintf(against, sizeof against, "the baseline %s (%s)", base_label, bl);
    td_sum_set_str(cur, "regression.baseline", "Baseline", base_label);
    td_sum_set_str(cur, "regression.baseline_run", "Baseline run", bl);
    if (!comparability(cur, &kb, &kc, why, sizeof why))
        return not_comparable(cur, against, why);
    td_metrics *mb = td_metrics_of(base), *mc = td_metrics_of(cur);
    const char *since = NULL; /* two runs: no history says when a change began */
    /* the per-step noise of the two runs: the larger step CoV */
    const td_metric *sb = td_metrics_lookup(mb, "step.median_ns"),
                    *sc = td_metrics_lookup(mc, "step.median_ns");
    if (!sb && !sc) { /* IPU exports: the run-to-run spread of the run cycles */
        sb = td_metrics_lookup(mb, "ipu.run_cycles");
        sc = td_metrics_lookup(mc, "ipu.run_cycles");
    }
    double step_noise = NAN;
    if (sb && sc) {
        double a = cov(sb->samples, sb->nsamples), b = cov(sc->samples, sc->nsamples);
        step_noise = isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
    }
    chgset cs = {0};
    char rule[256];
    for (size_t i = 0; i < mc->n; i++) {
        const td_metric *c = &mc->m[i];
        const td_metric *b = td_metrics_lookup(mb, c->name);
        const char *metric = td_arena_strdup(cur->a, c->name);
        double eff = min_effect_for(o, c->name);
        if (!b) {
            if (c->kernel && c->share >= NEW_SHARE)
                push(&cs, metric, "new", NAN, c->value, NAN, NAN, "kernel absent from the "
                     "baseline", since);
            else
                cs.notcmp++;
            continue;
        }
        if (!(b->share >= JUDGE_SHARE || c->share >= JUDGE_SHARE)) {
            cs.notcmp++;
            continue;
        }
        /* per-name metrics need their own noise: per-call std (Welch on the mean); a
         * per-name total or an op (no per-call spread) is judged only in a history. IPU
         * metrics (cycles, shares: sums over every run) go against the run-to-run noise. */
        int per_name = strchr(c->name, ':') != NULL && !strcmp(c->unit, "ns");
        if (per_name && !c->whole && (strstr(c->name, ".total_ns:") || isnan(b->sd) || isnan(c->sd) ||
                         b->count < 2 || c->count < 2)) {
            cs.notcmp++;
            continue;
        }
        double ch = b->value != 0 ? (c->value - b->value) / fabs(b->value) : NAN;
        double p = NAN, noise = NAN;
        const char *how;
        if (b->nsamples >= 2 && c->nsamples >= 2) {
            double u;
            p = td_mannwhitney(b->samples, b->nsamples, c->samples, c->nsamples, &u);
            noise = step_noise;
            snprintf(rule, sizeof rule, "Mann-Whitney U=%.1f on %zu+%zu steps", u,
                     b->nsamples, c->nsamples);
            how = rule;
        } else if (!isnan(b->sd) && !isnan(c->sd) && b->count >= 2 && c->count >= 2) {
            p = td_welch(b->value, b->sd, b->count, c->value, c->sd, c->count);
            noise = b->value > 0 ? b->sd / b->value / sqrt(b->count) : NAN;
            snprintf(rule, sizeof rule, "Welch t test on %.0f+%.0f calls", b->count,
                     c->count);
            how = rule;
        } else {
            /* no samples: the change against the runs' per-step noise (normal approx.) */
            noise = step_noise;
            if (!isnan(noise) && noise > 0 && !isnan(ch))
                p = erfc(fabs(ch) / noise / sqrt(2.0));
            snprintf(rule, sizeof rule, "change vs per-step noise");
            how = rule;
        }
        int sig = !isnan(p) ? p < o->max_p : 0;
        if (isnan(p) && isnan(noise))
            sig = 1; /* nothing to judge the noise by: the minimum effect alone */
        char full[400], pt[64];
        fmt_p(pt, sizeof pt, p, o->max_p);
        snprintf(full, sizeof full, "%s, %s and |change| %s %.1f%%", how, pt,
                 !isnan(ch) && fabs(ch) >= eff ? ">=" : "<", 100 * eff);
        if (isnan(p) && isnan(noise))
            snprintf(full, sizeof full, "no noise estimate: |change| >= %.1f%%", 100 * eff);
        int hit = sig && !isnan(ch) && fabs(ch) >= eff;
        push(&cs, metric, !hit ? "same" : (ch > 0) != c->higher_better ? "regressed" : "improved",
             b->value, c->value, noise, isnan(p) ? NAN : 1 - p, td_arena_strdup(cur->a, full),
             since)->unit = c->unit;
    }
    for (size_t i = 0; i < mb->n; i++) {
        const td_metric *b = &mb->m[i];
        if (b->kernel && b->share >= NEW_SHARE && !td_metrics_lookup(mc, b->name))
        {
            char label[600];
            td_metric_label(base, b->name, label, sizeof label);
            push(&cs, td_arena_strdup(cur->a, b->name), "vanished", b->value, NAN, NAN, NAN,
                 "kernel absent from this run", since)->label = td_arena_strdup(cur->a, label);
        }
    }
    td_metrics_free(mb);
    td_metrics_free(mc);
    char rt[400];
    snprintf(rt, sizeof rt, "two runs: per-step times by Mann-Whitney U, per-call means of "
             "kernels/modules/collectives by Welch's t test, run totals (and the launch delay, "
             "top ops' TFLOP/s, peak memory) against the per-step noise (CoV %.1f%%); significant at p < %.2g and at least %.1f%% (template "
             "tolerances per metric); ops and per-name totals (no per-call spread) and metrics "
             "under 1%% of their table's time are not judged", 100 * (isnan(step_noise) ? 0 : step_noise),
             o->max_p, 100 * o->min_effect);
    return finish(cur, &cs, against, rt, o->min_effect);
}

/* ---- series ---- */
static const td_hist_metric *hist_find(const td_hist *h, const char *name)
{
    size_t lo = 0, hi = h->nmet;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(h->met[mid].name, name);
        if (!c)
            return &h->met[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int is_key_metric(const char *name)
{
    return !strcmp(name, "step.median_ns") || !strncmp(name, "gpu.", 4) ||
           !strcmp(name, "compile.total_ns") || !strcmp(name, "runtime.wall_ns");
}

static void trend_rows(td_summary *s, td_table *t, const td_hist *h, const char *metric,
                       const double *x, const size_t *idx, size_t n, size_t npts,
                       const char *cur_label)
{
    size_t from = n > npts ? n - npts : 0;
    for (size_t k = from; k < n; k++) {
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "metric", metric);
        td_row_int(s, t, r, "run", (int64_t)(k - from + 1));
        td_row_str(s, t, r, "label", idx[k] < h->nruns ? h->label[idx[k]] : cur_label);
        td_row_int(s, t, r, "value_ns", (int64_t)llround(x[k]));
    }
}

/* A metric's place among the trend charts: the key metrics first (step time, device
 * breakdown, compile, runtime), then the changed metrics in the order of `changes`
 * (most severe first). */
static size_t trend_rank(const td_table *ch, const char *m)
{
    static const char *const key[] = {"step.median_ns", "gpu.", "compile.total_ns",
                                      "runtime.wall_ns"};
    for (size_t k = 0; m && k < sizeof key / sizeof *key; k++)
        if (!strncmp(m, key[k], strlen(key[k])))
            return k;
    int cm = ch ? td_table_col(ch, "metric") : -1;
    for (size_t r = 0; m && cm >= 0 && r < ch->nrows; r++)
        if (td_table_cell(ch, r, cm)->s && !strcmp(td_table_cell(ch, r, cm)->s, m))
            return 16 + r;
    return SIZE_MAX;
}

typedef struct tgroup {
    size_t r0, r1, rank;
} tgroup;

static int cmp_tgroup(const void *a, const void *b)
{
    const tgroup *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->r0 > y->r0) - (x->r0 < y->r0);
}

/* The trends table's metric groups in trend_rank order (rows of one metric together). */
static void order_trends(td_summary *s)
{
    td_table *t = td_sum_find_table(s, "trends");
    int cm = t ? td_table_col(t, "metric") : -1;
    if (!t || cm < 0 || t->nrows < 2)
        return;
    const td_table *ch = td_sum_find_table(s, "changes");
    tgroup *g = NULL;
    size_t ng = 0, gcap = 0;
    for (size_t r0 = 0; r0 < t->nrows;) {
        const char *m = td_table_cell(t, r0, cm)->s;
        size_t r1 = r0 + 1;
        while (r1 < t->nrows && m && td_table_cell(t, r1, cm)->s &&
               !strcmp(td_table_cell(t, r1, cm)->s, m))
            r1++;
        *TD_PUSH(g, ng, gcap) = (tgroup){r0, r1, trend_rank(ch, m)};
        r0 = r1;
    }
    qsort(g, ng, sizeof *g, cmp_tgroup);
    size_t nc = (size_t)t->ncols;
    td_cell *cells = td_xmalloc(t->nrows * nc * sizeof *cells);
    size_t at = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t r = g[k].r0; r < g[k].r1; r++)
            memcpy(cells + (at++) * nc, t->cells + r * nc, nc * sizeof *cells);
    memcpy(t->cells, cells, t->nrows * nc * sizeof *cells);
    free(cells);
    free(g);
}

/* The night it happens (issue 21): value v against the baseline values b[0..nb) of the
 * current level. A step when |v - m| > TD_STEP_SD * sqrt(s^2 + se^2) (m, s: the
 * baseline's mean and sample standard deviation, the run-to-run noise; se: the run's own
 * standard error, compare/metrics.h td_metric_se) and |v - m| >= eff * |m|, with at
 * least TD_STEP_MIN_RUNS baseline runs. Returns +1 (up), -1 (down) or 0; *m, *cv (the
 * baseline's CoV) and *z (the step in noise standard deviations) are set. */
static int step_vs(const double *b, size_t nb, double v, double se, double eff, double *m,
                   double *cv, double *z)
{
    *m = *cv = *z = NAN;
    if (nb < TD_STEP_MIN_RUNS || isnan(v) || isnan(se))
        return 0;
    double mean = 0, q = 0;
    for (size_t i = 0; i < nb; i++)
        mean += b[i];
    mean /= (double)nb;
    for (size_t i = 0; i < nb; i++)
        q += (b[i] - mean) * (b[i] - mean);
    double s = sqrt(q / (double)(nb - 1)), sig = sqrt(s * s + se * se), d = v - mean;
    *m = mean;
    *cv = mean != 0 ? s / fabs(mean) : NAN;
    *z = sig > 0 ? fabs(d) / sig : d != 0 ? INFINITY : 0;
    if (*z > TD_STEP_SD && mean != 0 && fabs(d) >= eff * fabs(mean))
        return d > 0 ? 1 : -1;
    return 0;
}

int td_changes_series(const td_hist *h, const char *db_label, td_summary *cur,
                      const td_detect_opts *o)
{
    char against[700];
    snprintf(against, sizeof against, "the history %s (%zu comparable run%s)", db_label,
             h->nruns, h->nruns == 1 ? "" : "s");
    td_sum_set_str(cur, "regression.baseline", "Baseline", db_label);
    if (h->nruns == 0) {
        char v[1024];
        if (h->nother) {
            snprintf(v, sizeof v, "NOT COMPARABLE: none of the %zu runs in %s is comparable "
                     "with this run (%s); nothing was compared.", h->nother, db_label,
                     h->other_why ? h->other_why : "");
            td_sum_set_str(cur, "verdict", "Verdict", v);
            td_sum_compare_finding(cur, "%s", v);
            return TD_CHG_NOT_COMPARABLE;
        }
        snprintf(v, sizeof v, "FIRST RUN: %s has no earlier run; this run starts the history.",
                 db_label);
        td_sum_set_str(cur, "verdict", "Verdict", v);
        td_sum_compare_finding(cur, "%s", v);
        return TD_CHG_FIRST;
    }
    td_metrics *mc = td_metrics_of(cur);
    const char *cur_label = td_arena_strdup(cur->a, td_run_since(cur));
    size_t N = h->nruns + 1;
    double *x = td_xmalloc(N * sizeof *x);
    size_t *idx = td_xmalloc(N * sizeof *idx);
    size_t cp[64];
    double pv[64];
    chgset cs = {0};
    td_table *tr = td_sum_table(cur, "trends", "Trends");
    if (!tr->ncols)
        td_table_cols(tr, "metric:text:Metric", "run:int:Run", "label:text:Label",
                      "value_ns:ns:Value", NULL);
    for (size_t i = 0; i < mc->n; i++) {
        const td_metric *c = &mc->m[i];
        const td_hist_metric *hm = hist_find(h, c->name);
        const char *metric = td_arena_strdup(cur->a, c->name);
        /* the series: the runs that have the metric, then this run */
        size_t n = 0;
        for (size_t r = 0; hm && r < h->nruns; r++)
            if (!isnan(hm->v[r])) {
                idx[n] = r;
                x[n++] = hm->v[r];
            }
        int in_last = hm && !isnan(hm->v[h->nruns - 1]);
        if (!n || !in_last) {
            /* new: absent from the previous run */
            if (c->kernel && c->share >= NEW_SHARE)
                push(&cs, metric, "new", NAN, c->value, NAN, NAN, "kernel absent from the "
                     "previous run", cur_label);
            else
                cs.notcmp++;
            continue;
        }
        idx[n] = h->nruns;
        x[n++] = c->value;
        if (c->share < JUDGE_SHARE && !is_key_metric(c->name)) {
            cs.notcmp++;
            continue;
        }
        double eff = min_effect_for(o, c->name);
        size_t k = td_edivisive(x, n, o->max_p, eff, cp, pv, 64);
        int reported = 0;
        /* the latest change point, when recent and confirmed by o->confirm runs (a single
         * slow night is an outlier, not yet a change) */
        size_t conf = o->confirm > 1 ? (size_t)o->confirm : 1;
        while (k && cp[k - 1] + conf > n)
            k--;
        /* the step rule's noise: this run's own standard error (NaN: the metric has no
         * within-run spread, the rule does not apply) and the previous run's, stored in
         * the history as "se:NAME" (0 for runs recorded without it) */
        double se_now = td_metric_se(c), se_prev = 0;
        char sek[1400];
        snprintf(sek, sizeof sek, "se:%s", c->name);
        const td_hist_metric *hse = hist_find(h, sek);
        if (hse && n >= 2 && !isnan(hse->v[idx[n - 2]]))
            se_prev = hse->v[idx[n - 2]];
        const char *prev_label = n >= 2 && idx[n - 2] < h->nruns ? h->label[idx[n - 2]] : "";
        double sm, scv, sz;
        if (k && cp[k - 1] + (size_t)o->recent >= n) {
            size_t at = cp[k - 1], lo = k >= 2 ? cp[k - 2] : 0;
            double before = 0, after = 0;
            for (size_t j = lo; j < at; j++)
                before += x[j];
            before /= (double)(at - lo);
            for (size_t j = at; j < n; j++)
                after += x[j];
            after /= (double)(n - at);
            double noise = cov(x + lo, at - lo);
            char rule[600];
            char pt[64];
            fmt_p(pt, sizeof pt, pv[k - 1], o->max_p);
            snprintf(rule, sizeof rule, "E-divisive change point, t test %s and "
                     "|change| >= %.1f%%", pt, 100 * eff);
            /* the new level's second run: it confirms the step reported the night before */
            if (!isnan(se_now) && at == n - 2 && at >= lo &&
                step_vs(x + lo, at - lo, x[at], se_prev, eff, &sm, &scv, &sz) != 0) {
                size_t l = strlen(rule);
                snprintf(rule + l, sizeof rule - l, "; confirms the step first reported on %s",
                         prev_label);
            }
            push(&cs, metric, (after > before) != c->higher_better ? "regressed" : "improved",
                 before, after, noise, 1 - pv[k - 1], td_arena_strdup(cur->a, rule),
                 idx[at] < h->nruns ? h->label[idx[at]] : cur_label)->unit = c->unit;
            cs.c[cs.n - 1].bad = idx[at];
            cs.c[cs.n - 1].good = at ? idx[at - 1] : SIZE_MAX;
            reported = 1;
        } else if (!isnan(se_now) && n >= 3 && (size_t)(n - 2) >= (k ? cp[k - 1] : 0) &&
                   step_vs(x + (k ? cp[k - 1] : 0), n - 2 - (k ? cp[k - 1] : 0), x[n - 2],
                           se_prev, eff, &sm, &scv, &sz) != 0) {
            /* the previous run was a step, not yet confirmed: this run confirms it (a step
             * of the same sign against the same baseline) or it recovered */
            size_t lvl = k ? cp[k - 1] : 0;
            int dy = step_vs(x + lvl, n - 2 - lvl, x[n - 2], se_prev, eff, &sm, &scv, &sz);
            int dt = step_vs(x + lvl, n - 2 - lvl, x[n - 1], se_now, eff, &sm, &scv, &sz);
            char rule[600];
            if (dt == dy) {
                snprintf(rule, sizeof rule, "step of %.1f noise SD held on two runs: confirmed "
                         "(first reported on %s); > %.0f SD (run-to-run SD and the run's own "
                         "standard error) and |change| >= %.1f%%", sz, prev_label, TD_STEP_SD,
                         100 * eff);
                push(&cs, metric, (dt > 0) != c->higher_better ? "regressed" : "improved", sm,
                     (x[n - 2] + x[n - 1]) / 2, scv, 1 - erfc(sz / sqrt(2.0)),
                     td_arena_strdup(cur->a, rule), prev_label)->unit = c->unit;
                cs.c[cs.n - 1].bad = idx[n - 2];
                cs.c[cs.n - 1].good = n >= 3 ? idx[n - 3] : SIZE_MAX;
                reported = 1;
            } else {
                snprintf(rule, sizeof rule, "recovered: the step first reported on %s did not "
                         "hold (%.1f noise SD now, %.0f needed)", prev_label, sz, TD_STEP_SD);
                if (!cs.recovered++)
                    cs.recovered_name = metric;
                push(&cs, metric, "same", sm, x[n - 1], scv, NAN, td_arena_strdup(cur->a, rule),
                     cur_label)->unit = c->unit;
            }
        } else if (!isnan(se_now) && (size_t)(n - 1) >= (k ? cp[k - 1] : 0) &&
                   step_vs(x + (k ? cp[k - 1] : 0), n - 1 - (k ? cp[k - 1] : 0), x[n - 1],
                           se_now, eff, &sm, &scv, &sz) != 0) {
            /* the night it happens: a step far beyond the series' noise, reported now */
            int dt = x[n - 1] > sm ? 1 : -1;
            char rule[600];
            snprintf(rule, sizeof rule, "not yet confirmed: a step of %.1f noise SD on this run "
                     "(> %.0f: run-to-run SD and the run's own standard error) and |change| >= "
                     "%.1f%%; the next run confirms it or says it recovered", sz, TD_STEP_SD,
                     100 * eff);
            push(&cs, metric, (dt > 0) != c->higher_better ? "regressed" : "improved", sm,
                 x[n - 1], scv, 1 - erfc(sz / sqrt(2.0)), td_arena_strdup(cur->a, rule),
                 cur_label)->unit = c->unit;
            cs.c[cs.n - 1].pending = 1;
            cs.c[cs.n - 1].bad = idx[n - 1];
            cs.c[cs.n - 1].good = idx[n - 2];
            reported = 1;
        } else {
            size_t lo = k ? cp[k - 1] : 0;
            if (lo >= n - 1)
                lo = 0;
            double before = 0;
            for (size_t j = lo; j < n - 1; j++)
                before += x[j];
            before /= (double)(n - 1 - lo);
            char rule[600];
            snprintf(rule, sizeof rule, "no recent E-divisive change point (p < %.2g, "
                     "|change| >= %.1f%%)", o->max_p, 100 * eff);
            /* an older change point no longer reported (out of the last o->recent runs):
             * the level it began still holds, so say so rather than fall silent, and in
             * the verdict on the first run after it left the window */
            if (k && cp[k - 1] + (size_t)o->recent < n) {
                size_t at = cp[k - 1], l0 = k >= 2 ? cp[k - 2] : 0;
                double lb = 0, la = 0;
                for (size_t j = l0; j < at; j++)
                    lb += x[j];
                lb /= (double)(at - l0);
                for (size_t j = at; j < n; j++)
                    la += x[j];
                la /= (double)(n - at);
                int worse = (la > lb) != c->higher_better;
                if (lb != 0 && fabs(la - lb) / fabs(lb) >= eff) {
                    char vb[64], va[64];
                    td_metric_format(c->unit, lb, vb, sizeof vb);
                    td_metric_format(c->unit, la, va, sizeof va);
                    const char *lab = idx[at] < h->nruns ? h->label[idx[at]] : cur_label;
                    size_t l = strlen(rule);
                    snprintf(rule + l, sizeof rule - l, "; still %s since %s (%s -> %s), "
                             "no longer reported after %d runs", worse ? "regressed" : "improved",
                             lab, vb, va, o->recent);
                    if (worse && at + (size_t)o->recent + 1 == n && !cs.still++)
                        cs.still_since = lab;
                }
            }
            push(&cs, metric, "same", before, x[n - 1], cov(x + lo, n - 1 - lo), NAN,
                 td_arena_strdup(cur->a, rule), cur_label)->unit = c->unit;
        }
        if ((reported || is_key_metric(c->name)) && !strcmp(c->unit, "ns")) /* trends: times */
            trend_rows(cur, tr, h, metric, x, idx, n, (size_t)o->trend_runs, cur_label);
    }
    /* vanished: kernels of the previous run (at least NEW_SHARE of its kernel time)
     * missing now */
    double ktot = 0;
    for (size_t m = 0; m < h->nmet; m++)
        if (!strncmp(h->met[m].name, "kernel.total_ns:", 16) && !isnan(h->met[m].v[h->nruns - 1]))
            ktot += h->met[m].v[h->nruns - 1];
    for (size_t m = 0; m < h->nmet; m++) {
        const td_hist_metric *hm = &h->met[m];
        if (strncmp(hm->name, "kernel.total_ns:", 16) || isnan(hm->v[h->nruns - 1]) ||
            td_metrics_lookup(mc, hm->name))
            continue;
        if (!(hm->v[h->nruns - 1] >= NEW_SHARE * ktot)) {
            cs.notcmp++;
            continue;
        }
        push(&cs, td_arena_strdup(cur->a, hm->name), "vanished", hm->v[h->nruns - 1], NAN, NAN,
             NAN, "kernel absent from this run", cur_label);
    }
    free(x);
    free(idx);
    td_metrics_free(mc);
    char rt[700];
    snprintf(rt, sizeof rt, "history: each metric's series (%zu earlier comparable runs and "
             "this one) by E-divisive means with a Student t test, p < %.2g and at least "
             "%.1f%% (template tolerances per metric); change points in the last %d runs are "
             "reported once the new level held %d runs; a step beyond %.0f noise SD (run-to-run "
             "and the run's own) is reported on the run it appears, not yet confirmed; metrics "
             "under 1%% of their table's time are not judged", h->nruns, o->max_p,
             100 * o->min_effect, o->recent, o->confirm > 1 ? o->confirm : 1, TD_STEP_SD);
    int verdict = finish(cur, &cs, against, rt, o->min_effect);
    /* the morning after (compare/triage.h): the runs between which the regression the
     * verdict names appeared */
    if (cs.wbad != SIZE_MAX) {
        td_triage_suspect(cur, h, cs.wbad, cs.wgood);
        td_triage_verdict(cur);
    }
    order_trends(cur);
    return verdict;
}
