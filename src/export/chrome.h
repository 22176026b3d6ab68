/* export/chrome.h - `tracedoc export --format chrome`: what tracedoc read, as one Chrome
 * Trace Event JSON file (chrome://tracing, Perfetto, and tracedoc itself); doc/commands.md
 * "export" says the layout. */
#ifndef TD_RENDER_CHROME_H
#define TD_RENDER_CHROME_H
#include "analyse/analyse.h"
#include "model/model.h"
#include "summary/summary.h"

/* Write every trace of set to path (atomically; "-" is standard output). s is the
 * summary of the same set (the AIU clock, the stack-tracing rows); o its options
 * (--show-flushes for IPU lightweight profiling). A set made only of one SambaTune
 * artifact set is written as `stack-trace` writes it. */
td_status td_render_chrome(const td_traceset *set, const td_summary *s, const td_opts *o,
                           const char *version, const char *path, td_err *e);

#endif
