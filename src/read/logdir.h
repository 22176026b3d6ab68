/* read/logdir.h - TensorBoard / XProf log directories: `LOGDIR/plugins/profile/RUN/HOST.*`
 * (jax.profiler, the TensorBoard profile plugin and torch's tensorboard_trace_handler write
 * one file per host per run: HOST.xplane.pb, HOST.pt.trace.json.gz). */
#ifndef TD_READ_LOGDIR_H
#define TD_READ_LOGDIR_H
#include "base/util.h"

/* The run directory to read for dir (malloc'd), when dir is a log directory (it has
 * plugins/profile/, or is one) with at least one run: the newest, the last by name (runs
 * are named by their start time); a warning says which run of how many was read.
 * NULL otherwise. */
char *td_logdir_run(const char *dir, td_warnings *w);

/* The files of a directory to read, of its n sorted names (malloc'd; dropped ones are
 * freed): when some are XPlanes (HOST.xplane.pb[.gz]), the other files of those hosts
 * (XProf's conversions: HOST.trace.json.gz, HOST.overview_page.pb, ...) are left out,
 * with a warning. Returns the count kept. */
size_t td_logdir_filter(const char *dir, char **names, size_t n, td_warnings *w);

#endif
