/* export/stacktrace.h - the SambaTune-style *_chrome_tracing_report.json (Chrome Trace
 * Event format, for chrome://tracing, Perfetto and tracedoc itself). */
#ifndef TD_RENDER_STACKTRACE_H
#define TD_RENDER_STACKTRACE_H
#include "model/model.h"
#include "summary/summary.h"

/* Write the report of the first trace in set with stack-tracing data, laid out as
 * doc/commands.md "stack-trace" says; row titles come from the summary s (hyperfunctions and
 * host_breakdown tables). TD_E_FORMAT when no input has stack-tracing data; the file is
 * written atomically. */
td_status td_render_stacktrace(const td_traceset *set, const td_summary *s,
                               const char *version, const char *path, td_err *e);

#endif
