/* analyse/rows.c - one writer per summary table that both a pass and the merge fill
 * (merge/merge.c, merge/xla.c): the columns and each row's cells are written here only,
 * from the same statistics, so a column added for the passes is there for the merge. */
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

td_table *td_modules_cut(td_summary *s, const char *title, double threshold,
                         const int64_t *first_total, size_t stride, size_t n, int64_t sum,
                         size_t *keep)
{
#define TOTAL(k) (*(const int64_t *)((const char *)first_total + (k) * stride))
    size_t k = n;
    int64_t cut = 0;
    while (k > 0 && (double)(cut + TOTAL(k - 1)) < threshold * (double)sum) {
        cut += TOTAL(k - 1);
        k--;
    }
#undef TOTAL
    *keep = k;
    td_sum_set_f64(s, "module_cut.threshold", "Top-module cut-off", TD_T_F64, threshold);
    td_sum_set_int(s, "module_cut.dropped_modules", "Modules below the cut-off", TD_T_INT,
                   (int64_t)(n - k));
    td_sum_set_int(s, "module_cut.dropped_ns", "Time below the cut-off", TD_T_NS, cut);
    td_table *t = td_sum_table(s, "modules", title);
    td_table_cols(t, "name:text:Module", "program_id:int:Program", "executions:int:Executions",
                  "thunks_mean:f64:Thunks/exec", "thunks_std:f64:Thunks std",
                  "mean_ns:ns:Mean", "std_ns:ns:Std dev", "total_ns:ns:Total",
                  "share:share:Share", NULL);
    t->note = "Mean and Total: device time of one execution, added over every execution on "
              "every device, so Total can exceed the traced time. Share: of the Total of all "
              "modules, those below the cut-off included.";
    return t;
}

void td_modules_kineto(td_table *t)
{
    td_table_nodoc(t, "program_id");
    td_table_nodoc(t, "thunks_mean");
    td_table_nodoc(t, "thunks_std");
    t->note = "A module is a step (or a --module-pattern range). Mean and Total: device time "
              "of one execution, from the start of the first device activity it launched to "
              "the end of the last, gaps included; added over every execution of every rank, "
              "so Total can exceed the traced time, and ranges that nest or overlap each count "
              "in full. Share: of the Total of all modules, those below the cut-off included.";
}

void td_rows_kernel_cols(td_table *t)
{
    td_table_cols(t, "name:text:Kernel", "calls:int:Calls", "total_ns:ns:Total", "mean_ns:ns:Mean",
                  "median_ns:ns:Median", "min_ns:ns:Min", "max_ns:ns:Max", "std_ns:ns:Std dev",
                  "share:share:Share", NULL);
}

void td_row_kernel(td_summary *s, td_table *t, size_t r, const char *name, const td_stats *st,
                   int64_t sum)
{
    td_row_str(s, t, r, "name", name);
    td_row_int(s, t, r, "calls", (int64_t)st->n);
    td_row_int(s, t, r, "total_ns", st->total);
    td_row_int(s, t, r, "mean_ns", llround(st->mean));
    td_row_int(s, t, r, "median_ns", llround(st->median));
    td_row_int(s, t, r, "min_ns", st->min);
    td_row_int(s, t, r, "max_ns", st->max);
    td_row_int(s, t, r, "std_ns", llround(st->std));
    td_row_f64(s, t, r, "share", sum ? (double)st->total / (double)sum : 0);
}

td_table *td_rows_kern_sum_table(td_summary *s)
{
    td_table *t = td_sum_table(s, "cuda_gpu_kern_sum", "cuda_gpu_kern_sum");
    t->no_json = 1;
    td_table_cols(t, "Time (%):f64:Time (%)", "Total Time (ns):int:Total Time (ns)",
                  "Instances:int:Instances", "Avg (ns):f64:Avg (ns)", "Med (ns):f64:Med (ns)",
                  "Min (ns):int:Min (ns)", "Max (ns):int:Max (ns)", "StdDev (ns):f64:StdDev (ns)",
                  "Name:text:Name", NULL);
    return t;
}

void td_row_kern_sum(td_summary *s, td_table *t, size_t r, const char *name, const td_stats *st,
                     int64_t sum)
{
    td_row_f64(s, t, r, "Time (%)", sum ? 100.0 * (double)st->total / (double)sum : 0);
    td_row_int(s, t, r, "Total Time (ns)", st->total);
    td_row_int(s, t, r, "Instances", (int64_t)st->n);
    td_row_f64(s, t, r, "Avg (ns)", st->mean);
    td_row_f64(s, t, r, "Med (ns)", st->median);
    td_row_int(s, t, r, "Min (ns)", st->min);
    td_row_int(s, t, r, "Max (ns)", st->max);
    td_row_f64(s, t, r, "StdDev (ns)", st->std);
    td_row_str(s, t, r, "Name", name);
}

void td_row_variability(td_summary *s, td_table *t, size_t r, const char *name,
                        const td_stats *st)
{
    td_row_str(s, t, r, "name", name);
    td_row_int(s, t, r, "calls", (int64_t)st->n);
    td_row_int(s, t, r, "mean_ns", llround(st->mean));
    td_row_int(s, t, r, "std_ns", llround(st->std));
    td_row_f64(s, t, r, "cov", st->mean > 0 ? st->std / st->mean : 0);
}

void td_row_op(td_summary *s, td_table *t, size_t r, const char *name, const td_op_stat *st,
               int64_t selfsum)
{
    td_row_str(s, t, r, "name", name);
    td_row_int(s, t, r, "calls", st->calls);
    td_row_int(s, t, r, "self_ns", st->self);
    td_row_int(s, t, r, "total_ns", st->total);
    td_row_int(s, t, r, "avg_ns", st->calls ? (st->total + st->calls / 2) / st->calls : 0);
    td_row_f64(s, t, r, "self_share", selfsum ? (double)st->self / (double)selfsum : 0);
    td_row_f64(s, t, r, "total_share", selfsum ? (double)st->total / (double)selfsum : 0);
    td_row_int(s, t, r, "device_self_ns", st->dself);
    td_row_int(s, t, r, "device_total_ns", st->dtotal);
    td_row_int(s, t, r, "device_avg_ns", st->calls ? (st->dtotal + st->calls / 2) / st->calls : 0);
    td_row_int(s, t, r, "graph", st->graph); /* only tables with graph replays have it */
}

void td_row_coll(td_summary *s, td_table *t, size_t r, const td_coll_stat *st)
{
    double mean = (double)st->total / (double)st->calls;
    td_row_str(s, t, r, "name", st->type);
    td_row_int(s, t, r, "bytes", st->bytes >= 0 ? st->bytes : TD_NA);
    td_row_int(s, t, r, "calls", st->calls);
    td_row_int(s, t, r, "total_ns", st->total);
    td_row_int(s, t, r, "mean_ns", (int64_t)(mean + 0.5));
    if (st->bytes >= 0 && mean > 0) {
        double alg = (double)st->bytes / mean; /* bytes per ns = GB/s */
        td_row_f64(s, t, r, "algbw_gbps", alg);
        double f = td_bus_factor(st->type, st->group);
        if (f >= 0)
            td_row_f64(s, t, r, "busbw_gbps", alg * f);
    }
    td_row_int(s, t, r, "group_size", st->group ? st->group : TD_NA);
    td_row_str(s, t, r, "dtype", st->dtype);
    td_row_int(s, t, r, "hidden_ns", st->hidden);
    td_row_int(s, t, r, "wait_ns", st->wait);
}

void td_row_module(td_summary *s, td_table *t, size_t r, const td_mod_stat *st, int64_t sum)
{
    td_row_str(s, t, r, "name", st->name);
    td_row_int(s, t, r, "program_id", st->program);
    td_row_int(s, t, r, "executions", st->execs);
    td_row_f64(s, t, r, "thunks_mean", st->tmean);
    td_row_int(s, t, r, "mean_ns", llround(st->mean));
    td_row_int(s, t, r, "total_ns", st->total);
    td_row_f64(s, t, r, "share", sum ? (double)st->total / (double)sum : 0);
    if (st->below_cut >= 0)
        td_row_int(s, t, r, "below_cut", st->below_cut);
    if (st->has_std) {
        td_row_f64(s, t, r, "thunks_std", st->tstd);
        td_row_int(s, t, r, "std_ns", llround(st->std));
    }
}

void td_row_thunk(td_summary *s, td_table *t, size_t r, const td_thunk_stat *st,
                  int64_t module_total)
{
    td_row_str(s, t, r, "module", st->module);
    td_row_str(s, t, r, "name", st->name);
    if (st->hlo_op)
        td_row_str(s, t, r, "hlo_op", st->hlo_op);
    td_row_int(s, t, r, "calls", st->calls);
    td_row_int(s, t, r, "mean_ns", st->round_mean ? llround((double)st->total / (double)st->calls)
                                                  : st->total / st->calls);
    td_row_int(s, t, r, "total_ns", st->total);
    td_row_f64(s, t, r, "share", module_total ? (double)st->total / (double)module_total : 0);
    if (st->op_name)
        td_row_str(s, t, r, "op_name", st->op_name);
}

void td_row_hlo_op(td_summary *s, td_table *t, size_t r, const char *op, int64_t calls,
                   int64_t total, int64_t sum)
{
    td_row_str(s, t, r, "hlo_op", op);
    td_row_int(s, t, r, "calls", calls);
    td_row_int(s, t, r, "total_ns", total);
    td_row_f64(s, t, r, "share", sum ? (double)total / (double)sum : 0);
}

void td_row_opcode(td_summary *s, td_table *t, size_t r, const char *opcode, double ns,
                   int64_t modules_ns)
{
    td_row_str(s, t, r, "opcode", opcode);
    td_row_int(s, t, r, "total_ns", llround(ns));
    td_row_f64(s, t, r, "share", modules_ns ? ns / (double)modules_ns : 0);
}

void td_row_phase(td_summary *s, td_table *t, size_t r, const char *name, int64_t non_child,
                  int64_t total)
{
    td_row_str(s, t, r, "name", name);
    td_row_int(s, t, r, "non_child_ns", non_child);
    td_row_f64(s, t, r, "share", (double)non_child / (double)total);
}

td_table *td_rows_critpath_table(td_summary *s)
{
    td_table *t = td_sum_table(s, "critical_path", "Critical path per step");
    td_table_cols(t, "rank:int:Rank", "step:int:Step", "bound_by:text:Bound by", "ns:ns:Time",
                  "share:share:Share of the path", "top:text:Most of it in",
                  "top_ns:ns:Its time", NULL);
    return t;
}

void td_row_critpath(td_summary *s, td_table *t, size_t r, const td_cp_row *x)
{
    td_row_int(s, t, r, "rank", x->rank);
    td_row_int(s, t, r, "step", x->step);
    td_row_str(s, t, r, "bound_by", x->bound);
    td_row_int(s, t, r, "ns", x->ns);
    td_row_f64(s, t, r, "share", x->total ? (double)x->ns / (double)x->total : 0);
    td_row_str(s, t, r, "top", x->top);
    td_row_int(s, t, r, "top_ns", x->top_ns);
}

td_table *td_rows_cp_segments_table(td_summary *s)
{
    td_table *t = td_sum_table(s, "critical_path_segments", "Critical path of the drawn step");
    td_table_cols(t, "rank:int:Rank", "step:int:Step", "lane:text:Lane", "stream:int:Stream",
                  "start_ns:ns:Start", "end_ns:ns:End", "bound_by:text:Bound by",
                  "name:text:Name", NULL);
    return t;
}

void td_row_cp_segment(td_summary *s, td_table *t, size_t r, const td_cp_seg_row *x)
{
    td_row_int(s, t, r, "rank", x->rank);
    td_row_int(s, t, r, "step", x->step);
    td_row_str(s, t, r, "lane", x->lane);
    td_row_int(s, t, r, "stream", x->stream);
    td_row_int(s, t, r, "start_ns", x->start);
    td_row_int(s, t, r, "end_ns", x->end);
    td_row_str(s, t, r, "bound_by", x->bound);
    td_row_str(s, t, r, "name", x->name);
}

td_table *td_rows_serving_steps_table(td_summary *s)
{
    td_table *t = td_sum_table(s, "serving_steps", "Serving steps");
    td_table_cols(t, "rank:int:Rank", "step:int:Step", "phase:text:Phase", "batch_size:int:Requests",
                  "tokens:int:Tokens", "wall_ns:ns:Wall time", "device_ns:ns:Device time",
                  "steady:bool:Steady", NULL);
    return t;
}

void td_row_serving_step(td_summary *s, td_table *t, size_t r, const td_srv_step_row *x)
{
    td_row_int(s, t, r, "rank", x->rank);
    td_row_int(s, t, r, "step", x->step);
    td_row_str(s, t, r, "phase", x->phase);
    td_row_int(s, t, r, "batch_size", x->batch_size >= 0 ? x->batch_size : TD_NA);
    td_row_int(s, t, r, "tokens", x->tokens >= 0 ? x->tokens : TD_NA);
    td_row_int(s, t, r, "wall_ns", x->wall_ns);
    td_row_int(s, t, r, "device_ns", x->device_ns);
    td_row_int(s, t, r, "steady", x->steady != 0);
}
