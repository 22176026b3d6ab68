/* read/read.h - input readers. The format is detected from content, never the file name.
 *
 * td_read_input takes one command-line argument: a file, "-" (stdin), a directory (every
 * regular file in it, sorted by name, that looks like a trace) or a .tar/.tar.gz of traces
 * (each member a trace, kept in member order). Each trace found becomes one td_trace in
 * the set (one rank). Errors name the file and the byte offset (or line/member). */
#ifndef TD_READ_H
#define TD_READ_H
#include "model/model.h"

td_status td_read_input(td_traceset *set, const char *arg, td_err *e);

/* After every input is read: assign ranks (distributedInfo rank when every trace has a
 * distinct one, else file order), sort each trace's events by (ts, -dur). */
void td_read_finish(td_traceset *set);
/* One trace's events sorted again by (ts, -dur), stably (analyse/graphs adds events). */
void td_read_sort(td_trace *t);

/* Format readers, on bytes already in memory or a stream (see read_*.c). They fill t
 * (format, events, tracks...) and add warnings to set->warnings. `name` is the path shown
 * in messages. */
td_status td_read_nsys_sqlite(td_traceset *set, td_trace *t, const char *name,
                              const void *data, size_t n, td_err *e);
/* The same on a regular file opened by SQLite itself (read-only, immutable): memory
 * holds the rows kept, not the file. head: its first bytes (at least 100), size: its
 * size. td_nsys_file_ok(head, n) says whether the file can be read so (not in WAL mode). */
td_status td_read_nsys_sqlite_file(td_traceset *set, td_trace *t, const char *name,
                                   const char *path, const unsigned char *head, uint64_t size,
                                   td_err *e);
int td_nsys_file_ok(const unsigned char *head, size_t n);
td_status td_read_nsys_jax(td_traceset *set, td_trace *t, const char *name,
                           const void *data, size_t n, td_err *e);

#endif
