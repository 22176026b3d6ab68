/* summary/json_write.h - a summary as summary.json. */
#ifndef TD_JSON_WRITE_H
#define TD_JSON_WRITE_H
#include "summary/summary.h"
#include <stdio.h>

/* Write s to f. JSON is deterministic: insertion order, integers as integers, doubles
 * with %.17g-free stable formatting (shares and ratios rounded to 6 decimals), then the
 * findings, warnings and "labels". Refused with TD_E_FORMAT, before anything is written,
 * when a key is both a value and an object ("warmup" and "warmup.mode") or a table had a
 * column refused (td_table.bad): only damaged partial summaries make those. TD_E_OUTPUT
 * on a write error. Allocates nothing that outlives the call. */
td_status td_summary_write_json(const td_summary *s, FILE *f, td_err *e);

#endif
