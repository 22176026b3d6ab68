/* cli/outdir.h - the removal of files an earlier report wrote into its output directory
 * that this run did not write again (a stale
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

/* After a successful report: remove what an earlier run wrote into dir and this one
 * did not (see above), then record names (run/documents.h td_docs_files) as the
 * directory's manifest. */
td_status td_outdir_sweep(const char *dir, char *const *names, size_t n, td_err *e);

#endif
