/* compare/history.h - the run history database (`--history runs.db`, SQLite): each run's
 * metadata and comparable metrics; loading the comparable runs for detection; listing,
 * CSV export of one metric's series, pruning (`tracedoc history`).
 *
 * Schema (version 1):
 *   runs(id INTEGER PRIMARY KEY, run_time INTEGER  -- capture time, else when recorded (unix s)
 *        recorded_at INTEGER, label TEXT, commit_id TEXT, device TEXT, world TEXT,
 *        format TEXT, template TEXT, steps TEXT, inputs TEXT, meta TEXT  -- JSON object)
 *   metrics(run INTEGER, metric TEXT, unit TEXT, value REAL, PRIMARY KEY(run, metric))
 *   stacks(run INTEGER, kind TEXT, title TEXT, unit INTEGER, cycles INTEGER,
 *          total INTEGER, nstacks INTEGER, small INTEGER, bytes INTEGER, folded BLOB,
 *          PRIMARY KEY(run, kind))  -- the run's folded stacks per kind, compacted
 *          (td_history_compact_stacks) and zlib-compressed; added to older databases
 *   tracedoc_history(version INTEGER)  -- one row, 1; written when the schema is made
 *   (older databases without the row are version 1 and get it on their next append) */
#ifndef TD_HISTORY_H
#define TD_HISTORY_H
#include "compare/changes.h"
#include "summary/summary.h"
#include <stdio.h>

typedef struct td_histdb td_histdb;

/* The significance of a change point in a history's series (report --history, and
 * history --detect, which runs the same detector over one series). */
#define TD_HISTORY_MAX_P 0.001

/* Open (create = 1: create the file and schema when missing, in one transaction that
 * concurrent creators wait for). A file that is not a SQLite database, a database
 * without the tracedoc tables, of a newer version, or failing PRAGMA quick_check is
 * TD_E_FORMAT naming the file; a lock another process holds past the wait (10 s) is
 * TD_E_BUSY. */
td_status td_history_open(const char *path, int create, td_histdb **out, td_err *e);
void td_history_close(td_histdb *db);

/* The runs comparable with cur (same device type, world size, input format and step
 * definition), the last max_runs of them, oldest first, with every metric's values. */
td_status td_history_load(td_histdb *db, const td_summary *cur, size_t max_runs, td_hist **out,
                          td_err *e);
void td_hist_free(td_hist *h);

/* Stacks kept per run and kind: every stack with at least STACKS_MIN_SHARE of the
 * total, at most STACKS_MAX of them (the largest); the rest is one stack
 * "(small stacks not stored)" so the total is kept. */
#define TD_HISTORY_STACKS_MAX 20000
#define TD_HISTORY_STACKS_MIN_SHARE 1e-6
/* The folded text (raw integer values, stacks by name) of fl compacted as stored. */
char *td_history_compact_stacks(const td_flame *fl, size_t *len);

/* Differential flames (summary/flame.h: "diff", "diff-KIND") of cur against the stacks stored
 * with an earlier comparable run of h: the run just before the change point of cur's
 * most severe regression (its `changes` table), else the latest run with stacks. Both
 * sides compacted alike. *made: how many (0 when no comparable run has stacks). */
td_status td_history_diff_flames(td_histdb *db, const td_hist *h, td_summary *cur, int *made,
                                 td_err *e);

/* Append cur: a runs row, one metrics row per comparable metric and its stacks. */
td_status td_history_append(td_histdb *db, const td_summary *cur, td_err *e);

/* `tracedoc history`: the runs as a table (id, time, commit, device, world size, format,
 * steps, metrics, meta) into s as table "history.runs"; one metric's series as table
 * "history.series" (run, time, label, metric, unit, value); pruning: delete all but the
 * newest keep runs (keep > 0) and runs older than older_days days (> 0) before now
 * (SOURCE_DATE_EPOCH or the clock). *removed receives the count. */
td_status td_history_runs(td_histdb *db, td_summary *s, td_err *e);
td_status td_history_series(td_histdb *db, const char *metric, td_summary *s, td_err *e);
td_status td_history_prune(td_histdb *db, long keep, double older_days, long *removed, td_err *e);

#endif
