/* compare/baseline.h - load a summary.json back, and compare a run against a baseline
 * (regression report for `report --baseline` and `diff`). */
#ifndef TD_BASELINE_H
#define TD_BASELINE_H
#include "summary/summary.h"

/* True when the file starts like a tracedoc summary.json ("schema": "tracedoc.summary/1"
 * in its first bytes). */
int td_is_summary_json(const char *path);

/* Load a summary.json written by tracedoc (any version of schema tracedoc.summary/1):
 * scalars become kv (type from the key: *_ns -> ns, share -> share, integers -> int,
 * reals -> f64, strings -> text), arrays of objects become tables, findings/warnings
 * are kept. Caller frees with td_summary_free. */
td_status td_summary_load_json(const char *path, td_summary **out, td_err *e);

/* Compare cur against base and add to cur: table `regression.metrics` (metric, name, unit,
 * base, current, change, status) and scalars regression.tolerance, regression.regressed,
 * regression.improved, regression.baseline. Times: lower is better; a metric regressed
 * when current > base * (1 + tolerance) and the difference is at least 1 us.
 * Returns the number of regressed metrics. */
/* A stored run (summary.json) compared again: its comparison with its own baseline or
 * history (tables, verdict, counts and the findings it added) is taken out first. */
void td_summary_drop_comparison(td_summary *s);

int td_regression(const td_summary *base, const char *base_label, td_summary *cur,
                  double tolerance);

#endif
