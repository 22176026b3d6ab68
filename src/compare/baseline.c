/* compare/baseline.c - a stored run compared again: its earlier comparison taken out.
 * The judgement itself is compare/changes.c's, the only one (issue 21). */
#define _POSIX_C_SOURCE 200809L
#include "compare/baseline.h"
#include <string.h>

void td_summary_drop_comparison(td_summary *s)
{
    static const char *const tables[] = {"regression.metrics", "comparability", "changes",
                                         "comparisons", "trends", "history.runs",
                                         "history.series"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        td_sum_drop_table(s, tables[i]);
    const td_kv *n = td_sum_get(s, "regression.findings");
    if (n && n->type == TD_T_INT && n->v.i > 0)
        s->nfindings -= (size_t)n->v.i < s->nfindings ? (size_t)n->v.i : s->nfindings;
    td_sum_drop_scalars(s, "regression.");
    td_sum_drop_scalars(s, "change_counts.");
    td_sum_drop_scalars(s, "change_rule");
    td_sum_drop_scalars(s, "verdict");
}
