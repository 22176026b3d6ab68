/* cli/outdir.h - the files a report writes into its output directory, and the removal of
 * files an earlier run wrote there that this run did not write again (a stale
 * flame-compile.svg from another trace would otherwise sit beside the new report).
 *
 * Only files tracedoc itself wrote are ever removed: those listed in the directory's
 * manifest `.tracedoc-files` (written by every report), and, in a directory that has no
 * manifest yet but holds a tracedoc report, the flamegraph and folded-stack files of
 * the kinds tracedoc writes. Anything else in the directory is left alone. */
#ifndef TD_OUTDIR_H
#define TD_OUTDIR_H
#include "summary/summary.h"

#define TD_MANIFEST ".tracedoc-files"

/* CSV file name of a summary table: dots become '_' ("compile.phases" ->
 * "compile_phases.csv"). */
void td_outdir_csv_name(const char *table, char *dst, size_t cap);

/* Names (no directory) of every file `report` writes for the documents in mask
 * (TD_DOC_*), malloc'd array of malloc'd strings; free with td_outdir_names_free. */
char **td_outdir_names(const td_summary *s, unsigned mask, size_t *n);
void td_outdir_names_free(char **names, size_t n);

/* After a successful report: remove what an earlier run wrote into dir and this one
 * did not (see above), then record names as the directory's manifest. */
td_status td_outdir_sweep(const char *dir, char *const *names, size_t n, td_err *e);

#endif
