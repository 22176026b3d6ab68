/* compare/baseline.h - compare a run against a baseline (regression report for `report
 * --baseline` and `diff`); the baseline is loaded by summary/json_read.h, included here
 * for the callers that load one. */
#ifndef TD_BASELINE_H
#define TD_BASELINE_H
#include "summary/json_read.h"
#include "summary/summary.h"

/* A stored run (summary.json) compared again: its comparison with its own baseline or
 * history (tables, verdict, counts and the findings it added) is taken out first. */
void td_summary_drop_comparison(td_summary *s);

/* Compare cur against base and add to cur: table `regression.metrics` (metric, name, unit,
 * base, current, change, status) and scalars regression.tolerance, regression.regressed,
 * regression.improved, regression.baseline. Times: lower is better; a metric regressed
 * when current > base * (1 + tolerance) and the difference is at least 1 us.
 * Returns the number of regressed metrics. */
int td_regression(const td_summary *base, const char *base_label, td_summary *cur,
                  double tolerance);

#endif
