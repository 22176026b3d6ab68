/* compare/metrics.h - the comparable metrics of a summary: what `changes` (two runs) and
 * the history of nightly runs judge. */
#ifndef TD_COMPARE_METRICS_H
#define TD_COMPARE_METRICS_H
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
 * "lwp.total_cycles:LANE/BLOCK", "lwp.mean_cycles:LANE/BLOCK". Diagnosis tables (issue 24):
 * "launch.delay_median_ns" (job-wide median of the ranks' medians), "op_perf.tflops:NAME
 * DTYPE" (unit "TFLOP/s", higher is better; the 5 op_perf rows with most device time),
 * "memory.peak_allocated_bytes:DEVICE" (unit "bytes"; "rank R/DEVICE" with several
 * ranks); all judged as run totals. LLM serving traces (issue 40):
 * "serving.PHASE.step_median_ns", "serving.PHASE.tokens_per_s" (unit "tokens/s", higher is
 * better), "serving.PHASE.mfu" (unit "%", percent, higher is better), PHASE prefill, decode or
 * mixed, run totals. */
typedef struct td_metric {
    const char *name;
    const char *unit;
    double value;
    double *samples; size_t nsamples; /* per-step wall times (step.median_ns only) */
    double sd, count;  /* per-call sample std and calls (kernel/module means), else NaN/0 */
    double share;      /* share of its table's time (judged when >= 1%); 1 for run totals */
    int kernel;        /* 1: a kernel.total_ns metric (new/vanished kernels) */
    int higher_better; /* 1: larger is better (IPU tile balance, compute share) */
    int whole;         /* 1: a per-name total judged as a run total (SambaNova
                        * hyperfunctions: section calls times a per-call time, no spread) */
} td_metric;

typedef struct td_metrics {
    td_metric *m;
    size_t n, cap;
    td_arena *a;
} td_metrics;

/* The metrics of s, sorted by name; the caller frees them with td_metrics_free (names
 * live in the set's arena). */
td_metrics *td_metrics_of(const td_summary *s);
void td_metrics_free(td_metrics *ms);
/* The run's own standard error of m's value: sd/sqrt(n) of the per-step (per-run)
 * samples, else the per-call sd/sqrt(calls) of a mean; NaN when the run gives no spread
 * (totals, the device breakdown). The history stores it as the metric "se:NAME". */
double td_metric_se(const td_metric *m);
/* A metric by name, NULL when absent: td_metrics_find by a linear scan (also while the
 * set is being built), td_metrics_lookup by binary search (once td_metrics_of returned).
 * The result points into ms. */
const td_metric *td_metrics_find(const td_metrics *ms, const char *name);
const td_metric *td_metrics_lookup(const td_metrics *ms, const char *name);

/* A reader's name for metric key m ("Step time (median of the steady steps)", "Kernel
 * NAME: mean per call", "GPU idle time"), written to dst; the key itself when unknown. */
void td_metric_label(const td_summary *s, const char *m, char *dst, size_t cap);

/* A value of a metric in unit as a reader reads it: "76.8 ms" (ns), "96.61 MiB" (bytes),
 * "12.74 TFLOP/s" (other units: 4 digits and the unit); "" for NaN. */
void td_metric_format(const char *unit, double v, char *dst, size_t cap);

/* The floor of a metric: a baseline whose magnitude is below it is near zero for that
 * metric, and a change from it is given as before -> after, never as a percentage
 * (doc/nightly.md "Percentages"): 16 MiB for bytes, 1 us for times, 0.001 TFLOP/s,
 * 1000 cycles, 0.01 for shares and fractions, else 0 (any nonzero baseline).
 * compare/changes.c also gives before -> after for a change of more than 100x. */
double td_metric_floor(const char *metric, const char *unit);

#endif
