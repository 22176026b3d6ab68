/* analyse/rows.c - one writer per summary table that both a pass and the merge fill
 * (merge/merge.c, merge/xla.c): the columns and each row's cells are written here only,
 * from the same statistics, so a column added for the passes is there for the merge. */
#include "analyse/rows.h"
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
