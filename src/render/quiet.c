/* render/quiet.c - which summary tables say nothing for the input, so that neither the
 * PDF nor the workbook shows them (issue 21): a "Top modules" table of one module at
 * 100% (the ProfilerStep range of a Kineto trace: the step table says it better), and
 * a thunks table on input without XLA modules (on PyTorch input it is the device work
 * per step range, repeating the kernels table under an XLA word). */
#include "render/render.h"
#include <string.h>

int td_render_says_nothing(const td_summary *s, const char *table)
{
    const td_table *t = td_sum_find_table(s, table);
    if (!t || !t->nrows)
        return 0; /* absent or empty: the caller's own rule (some sections say "none") */
    if (!strcmp(table, "modules")) {
        int cs = td_table_col(t, "share");
        return t->nrows == 1 && cs >= 0 && t->cols[cs].type == TD_T_SHARE &&
               td_table_cell(t, 0, cs)->f >= 0.999;
    }
    if (!strcmp(table, "thunks"))
        return td_sum_get(s, "runtime.thunks_ns") == NULL;
    return 0;
}
