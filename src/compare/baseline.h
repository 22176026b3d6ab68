/* compare/baseline.h - a run compared against a baseline: the baseline is loaded by
 * summary/json_read.h (included here for the callers that load one), judged by
 * compare/changes.h (the one judgement: `changes`, its verdict and exit status). The
 * tolerance-only table `regression.metrics` of earlier versions is no longer made; a stored
 * run that has one loses it here. */
#ifndef TD_BASELINE_H
#define TD_BASELINE_H
#include "summary/json_read.h"
#include "summary/summary.h"

/* A stored run (summary.json) compared again: its comparison with its own baseline or
 * history (tables, verdict, counts and the findings it added) is taken out first. */
void td_summary_drop_comparison(td_summary *s);

#endif
