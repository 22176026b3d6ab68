/* compare/changes.h - regression detection for nightly runs: the comparable metrics of a
 * summary (compare/metrics.h), comparability of two runs, and the `changes` table (two runs: rank / t tests
 * and per-step noise; a history of runs: E-divisive change points).
 *
 * Adds to the current summary: table `changes` (metric, direction, before, after,
 * change, noise, confidence, since, unit, rule; with a history a step beyond 5 noise SD
 * is reported the run it appears, "not yet confirmed"), table `comparability` (check, baseline,
 * current, status), table `trends` (history: metric, run, label, value_ns), scalars
 * `verdict`, `change_counts.*`, `change_rule`, and regression.baseline. */
#ifndef TD_ANALYSE_CHANGES_H
#define TD_ANALYSE_CHANGES_H
#include "compare/metrics.h"
#include "summary/summary.h"

/* What makes two runs comparable (from summary scalars and tables). */
typedef struct td_runkey {
    char device[160];  /* trace.device_name, or "none (CPU only)" */
    char world[24];    /* trace.world_size */
    char format[64];   /* input formats, e.g. "chrome-json" */
    char tmpl[64];     /* report.template, "" when unknown (summary/diff) */
    char steps[160];   /* step names with numbers as N, e.g. "ProfilerStep#N"; "none" */
} td_runkey;
void td_runkey_of(const td_summary *s, td_runkey *k);

typedef struct td_tolerance {
    char prefix[128];  /* metric name prefix, e.g. "kernel.mean_ns" or "step" */
    double tol;
} td_tolerance;

typedef struct td_detect_opts {
    double min_effect;          /* smallest relative change reported (--tolerance) */
    const td_tolerance *tols;   /* per-metric minimum effects (template), longest prefix wins */
    size_t ntols;
    double max_p;               /* significance: 0.01 two runs, 0.001 series */
    int recent;                 /* series: change points in the last N runs are reported */
    int confirm;                /* series: ... once the new level held for N runs (>= 1) */
    int trend_runs;             /* series: points per metric in `trends` */
} td_detect_opts;
void td_detect_opts_default(td_detect_opts *o);

/* Result of a detection. */
enum { TD_CHG_OK = 0, TD_CHG_REGRESSED = 1, TD_CHG_NOT_COMPARABLE = 2, TD_CHG_FIRST = 3 };

/* Two runs: base against cur (per-step samples: Mann-Whitney; per-call mean and std:
 * Welch; otherwise the change against the per-step noise of both runs). */
int td_changes_two(const td_summary *base, const char *base_label, td_summary *cur,
                   const td_detect_opts *o);

/* A history of earlier comparable runs, oldest first (compare/history.c fills it). */
typedef struct td_hist_metric {
    const char *name;
    double *v;          /* nruns values, NaN where the run lacks the metric */
} td_hist_metric;
typedef struct td_hist {
    size_t nruns;
    const char **label;  /* per run: its commit meta, else its date */
    int64_t *id;         /* per run: its id in the database (compare/history.c) */
    const char **commit; /* per run: its commit meta ("" when none) */
    int64_t *time;       /* per run: its time (unix s: capture time, else when recorded) */
    int64_t next_id;     /* the id the current run will get when it is recorded */
    size_t nmet;
    td_hist_metric *met; /* sorted by name */
    size_t nother;       /* runs in the database that were not comparable */
    const char *other_why; /* why the last of them was not ("device A vs B") */
    td_arena *a;
} td_hist;

/* The current run against a history: each metric's series (history + this run) through
 * E-divisive; the latest change point within the last o->recent runs is reported. */
int td_changes_series(const td_hist *h, const char *db_label, td_summary *cur,
                      const td_detect_opts *o);

/* The run's label for `since`: meta.commit, else trace.captured's date, else date. */
const char *td_run_since(const td_summary *s);

#endif
