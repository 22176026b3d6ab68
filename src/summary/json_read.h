/* summary/json_read.h - a summary.json read back (the inverse of summary/json_write.h). */
#ifndef TD_JSON_READ_H
#define TD_JSON_READ_H
#include "summary/summary.h"

/* True when the file starts like a tracedoc summary.json ("schema": "tracedoc.summary/1"
 * in its first bytes). */
int td_is_summary_json(const char *path);

/* Load a summary.json written by tracedoc (any version of schema tracedoc.summary/1):
 * scalars become kv (type from the key: *_ns -> ns, share -> share, integers -> int,
 * reals -> f64, strings -> text), arrays of objects become tables, findings/warnings
 * are kept. Caller frees with td_summary_free. */
td_status td_summary_load_json(const char *path, td_summary **out, td_err *e);

#endif
