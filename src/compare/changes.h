/* compare/changes.h - regression detection for nightly runs: the comparable metrics of a
 * summary, comparability of two runs, and the `changes` table (two runs: rank / t tests
 * and per-step noise; a history of runs: E-divisive change points).
 *
 * Adds to the current summary: table `changes` (metric, direction, before, after,
 * change, noise, confidence, since, unit, rule), table `comparability` (check, baseline,
 * current, status), table `trends` (history: metric, run, label, value_ns), scalars
 * `verdict`, `change_counts.*`, `change_rule`, and regression.baseline. */
#ifndef TD_ANALYSE_CHANGES_H
#define TD_ANALYSE_CHANGES_H
#include "summary/summary.h"

/* One comparable metric of a run. Names: "step.median_ns", "gpu.idle_ns",
 * "compile.total_ns", "runtime.wall_ns", "kernel.total_ns:NAME", "kernel.mean_ns:NAME",
 * "op.total_ns:NAME", "op.mean_ns:NAME", "module.total_ns:NAME", "module.mean_ns:NAME",
 * "collective.total_ns:NAME@BYTES", "collective.mean_ns:NAME@BYTES". Every value is
 * a time in ns (unit "ns"); lower is better. Graphcore IPU exports add metrics in
 * cycles, shares and fractions (unit "cycles", "share", "fraction"): "ipu.run_cycles"
 * (median run, per-run samples), "ipu.cycles:IPU N", "ipu.tile_balance:IPU N",
 * "ipu.tile_utilisation:IPU N" (higher is better), "ipu.step_type_cycles:IPU N/TYPE",
 * "ipu.step_type_share:IPU N/TYPE" (higher is better for OnTileExecute, the compute),
 * "lwp.total_cycles:LANE/BLOCK", "lwp.mean_cycles:LANE/BLOCK". */
typedef struct td_metric {
    const char *name;
    const char *unit;
    double value;
    double *samples; size_t nsamples; /* per-step wall times (step.median_ns only) */
    double sd, count;  /* per-call sample std and calls (kernel/module means), else NaN/0 */
    double share;      /* share of its table's time (judged when >= 1%); 1 for run totals */
    int kernel;        /* 1: a kernel.total_ns metric (new/vanished kernels) */
    int higher_better; /* 1: larger is better (IPU tile balance, compute share) */
} td_metric;

typedef struct td_metrics {
    td_metric *m;
    size_t n, cap;
    td_arena *a;
} td_metrics;

td_metrics *td_metrics_of(const td_summary *s);
void td_metrics_free(td_metrics *ms);
const td_metric *td_metrics_find(const td_metrics *ms, const char *name);

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
