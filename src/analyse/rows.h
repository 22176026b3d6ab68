/* analyse/rows.h - the row writers of the summary tables that a pass and the merge both
 * fill (analyse/rows.c): one writer per table, fed by the same statistics from the pass
 * (the samples of one trace set) and from the merge (a merged partial summary). */
#ifndef TD_ANALYSE_ROWS_H
#define TD_ANALYSE_ROWS_H
#include "analyse/analyse.h"

/* Summary statistics of a list of durations: a pass takes them from the samples
 * (td_stats_of, analyse/common.c), the merge from a merged record (the median from its
 * sketch). */
typedef struct td_stats {
    size_t n;
    int64_t total, min, max;
    double mean, median, std;  /* median: mean of the two middle values for even n;
                                  std: sample (n-1), 0 for n < 2 */
} td_stats;

/* `kernels` and `kernels_by_device` (the caller adds the device cell and column first):
 * columns, and one row of a kernel `name`; sum is the total of every row of the table
 * (of the device), the share's denominator. */
void td_rows_kernel_cols(td_table *t);
void td_row_kernel(td_summary *s, td_table *t, size_t r, const char *name, const td_stats *st,
                   int64_t sum);
/* `cuda_gpu_kern_sum` (nsys stats' columns; not in summary.json): the table with its
 * columns, and one row. */
td_table *td_rows_kern_sum_table(td_summary *s);
void td_row_kern_sum(td_summary *s, td_table *t, size_t r, const char *name, const td_stats *st,
                     int64_t sum);
/* `variability`: one row of a kernel called twice or more. */
void td_row_variability(td_summary *s, td_table *t, size_t r, const char *name,
                        const td_stats *st);

/* `ops`: the additive statistics of one op name over every rank. */
typedef struct td_op_stat {
    int64_t calls, self, total, dself, dtotal; /* ns; device times 0 without device work */
    int64_t graph;                             /* calls copied from a graph capture */
} td_op_stat;
/* One row; selfsum: self time of every op (the shares' denominator). The device cells
 * are written when the table has their columns. */
void td_row_op(td_summary *s, td_table *t, size_t r, const char *name, const td_op_stat *st,
               int64_t selfsum);

/* `collectives` (Kineto): one (type, message bytes, dtype, group size) over every rank. */
typedef struct td_coll_stat {
    const char *type;
    const char *dtype;         /* NULL unknown */
    int64_t bytes;             /* -1 unknown */
    int group;                 /* 0 unknown */
    int64_t calls, total, hidden;
    int64_t wait;              /* straggler wait, TD_NA when not known */
} td_coll_stat;
void td_row_coll(td_summary *s, td_table *t, size_t r, const td_coll_stat *st);

/* `modules` (Kineto and XLA): one module. */
typedef struct td_mod_stat {
    const char *name;
    int64_t program;           /* XLA program key, TD_NA for Kineto */
    int64_t execs, total;
    double mean, std;          /* device time of one execution */
    double tmean, tstd;        /* thunks per execution */
    int has_std;               /* XLA leaves the std cells empty for one execution */
    int below_cut;             /* -1: no below_cut cell (Kineto) */
} td_mod_stat;
/* One row; sum: total of every module, those below the cut-off included. */
void td_row_module(td_summary *s, td_table *t, size_t r, const td_mod_stat *st, int64_t sum);

/* The top-module cut of formats.md sec. 4, shared by the Kineto and XLA module passes.
 * Module totals are read at first_total, stride bytes apart, n modules sorted by total
 * time, largest first; sum is their sum. The smallest modules that together make less
 * than threshold x sum are dropped: *keep is how many leading modules stay. Sets the
 * module_cut.* scalars and returns the `modules` table (contract columns, no rows). */
td_table *td_modules_cut(td_summary *s, const char *title, double threshold,
                         const int64_t *first_total, size_t stride, size_t n, int64_t sum,
                         size_t *keep);

/* Kineto's modules table for documents: a module is a step or a --module-pattern range,
 * so XLA's columns (program, thunks per execution) are left out of the documents, and
 * the note says what the times add up (why Total can exceed the traced time). */
void td_modules_kineto(td_table *t);

/* `thunks` (Kineto: kernels per module; XLA: thunks per module): one (module, kernel or
 * instruction). */
typedef struct td_thunk_stat {
    const char *module, *name;
    const char *hlo_op, *op_name;  /* XLA; NULL: no cell */
    int64_t calls, total;
    int round_mean;                /* XLA: mean rounded to the nearest ns; Kineto truncates */
} td_thunk_stat;
/* One row; module_total: the module's total over all its thunks (the share's denominator). */
void td_row_thunk(td_summary *s, td_table *t, size_t r, const td_thunk_stat *st,
                  int64_t module_total);

/* `hlo_ops` (XLA): one HLO op; sum: total of every op. */
void td_row_hlo_op(td_summary *s, td_table *t, size_t r, const char *op, int64_t calls,
                   int64_t total, int64_t sum);

/* `hlo_opcodes` (XLA): one opcode's thunk time (ns, summed as reals) over modules_ns, the
 * time of the top modules; the last row, "GPU idle during modules", has ns = modules_ns
 * less their thunk time. */
#define TD_ROW_GPU_IDLE "GPU idle during modules"
void td_row_opcode(td_summary *s, td_table *t, size_t r, const char *opcode, double ns,
                   int64_t modules_ns);

/* `compile.phases` (XLA): one compile phase's non-child time over the total. */
void td_row_phase(td_summary *s, td_table *t, size_t r, const char *name, int64_t non_child,
                  int64_t total);

/* `critical_path` (analyse/critpath_pass.c): one (rank, step, bound_by) of a step's
 * critical path; total: the path's length (the share's denominator); top: the event
 * with the most of that time (CPU time under its outermost op), top_ns its time. */
typedef struct td_cp_row {
    int64_t rank, step;
    const char *bound;
    int64_t ns, total;
    const char *top;
    int64_t top_ns;
} td_cp_row;
td_table *td_rows_critpath_table(td_summary *s);
void td_row_critpath(td_summary *s, td_table *t, size_t r, const td_cp_row *x);
/* `critical_path_segments`: the drawn step's path, one merged run of edges on one lane
 * (a CPU thread or a stream); times from the trace's first event. */
typedef struct td_cp_seg_row {
    int64_t rank, step;
    const char *lane;
    int64_t stream;                /* -1: a CPU thread */
    int64_t start, end;
    const char *bound, *name;
} td_cp_seg_row;
td_table *td_rows_cp_segments_table(td_summary *s);
/* `critical_path_collectives` from `critical_path_arrivals` (rank, name, start_ns: every
 * collective kernel's start), by the pass and the merge (analyse/critpath_coll.c). */
void td_cp_collectives(td_summary *s, const td_table *arrivals);
void td_row_cp_segment(td_summary *s, td_table *t, size_t r, const td_cp_seg_row *x);

/* `serving_steps` (analyse/serving/steps.c): one LLM serving step; requests and tokens
 * -1 unknown (JSON null). */
typedef struct td_srv_step_row {
    int64_t rank, step;
    const char *phase;
    int64_t batch_size, tokens, wall_ns, device_ns;
    int steady;
} td_srv_step_row;
td_table *td_rows_serving_steps_table(td_summary *s);
void td_row_serving_step(td_summary *s, td_table *t, size_t r, const td_srv_step_row *x);

#endif
