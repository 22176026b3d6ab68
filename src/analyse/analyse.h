/* analyse/analyse.h - analysis passes: traces in, summary out.
 * Each pass lives in its own analyse_*.c; td_analyse runs them in order. */
#ifndef TD_ANALYSE_H
#define TD_ANALYSE_H
#include "model/model.h"
#include "summary/summary.h"

#define TD_WARMUP_AUTO (-1)
#define TD_WARMUP_NONE 0

typedef struct td_opts {
    int warmup;                 /* TD_WARMUP_AUTO, TD_WARMUP_NONE (0), or N steps/executions */
    const char *step_pattern;   /* POSIX ERE for user iteration ranges, NULL = default */
    const char *module_pattern; /* POSIX ERE for Kineto module ranges, NULL = steps */
    double threshold;           /* top-module cut-off (default 0.01) */
    double aiu_soc_mhz;         /* --aiu-freq SOC (MHz); 0 = the frequency the data implies */
    double aiu_core_mhz;        /* --aiu-freq :CORE (MHz); 0 = acelyzer's default 1100 */
    int64_t telemetry_offset_ns; /* --telemetry-offset: added to every telemetry sample time */
    int compile_passes;         /* XLA compile phases: keep XlaPass ranges apart */
    int show_flushes;           /* IPU lightweight profiling: keep buffer-flush blocks */
    double peak_tflops;         /* --peak TFLOPS:TBPS for the roofline (analyse/op_perf.c); */
    double peak_tbps;           /* 0 = the device's row of analyse/peaks.c */
    int critpath_hta;           /* --critical-path hta: HTA's graph, no inferred waits */
    const char *capture_dir;    /* --capture-traces: graph capture traces (analyse/graphs);
                                   NULL = capture_traces/ beside each trace, if there */
    /* --timings: called after each pass with its name and wall time (NULL: not timed) */
    void (*pass_time)(void *ctx, const char *pass, int64_t ns);
    void *pass_time_ctx;
} td_opts;

void td_opts_default(td_opts *o);

/* Run every pass over the set and fill s. Returns TD_OK, or an error for option
 * problems (bad regex: TD_E_USAGE). */
td_status td_analyse(td_traceset *set, const td_opts *o, td_summary *s, td_err *e);

/* XLA / nsys-jax semantics (analyse/xla/xla.c): modules, thunks, compile, runtime totals,
 * XLA collectives. Called by td_analyse for traces with NVTX ranges. */
void td_analyse_xla(td_traceset *set, const td_opts *o, td_summary *s);
struct td_partial;
void td_analyse_xla_part(td_traceset *set, const td_opts *o, td_summary *s,
                         struct td_partial *part);

/* IBM AIU: an instruction's device-side duration in ns, its TS interval (doc/formats.md "IBM
 * AIU") at soc_mhz; the host duration when it has no counters. It ends at host_e. */
int64_t td_aiu_device_ns(const td_aiu_instr *in, double soc_mhz);

/* SambaTune stack-tracing views (analyse/samba.c): hyperfunctions, hypersections, host
 * breakdown, the `sections` flame and findings. Called by td_analyse for traces with
 * stack-tracing data (td_trace.samba). */
void td_analyse_samba(td_traceset *set, const td_opts *o, td_summary *s);

#endif
