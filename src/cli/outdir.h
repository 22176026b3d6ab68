/* cli/outdir.h - a report's output directory, which holds one run or the other.
 *
 * A report writes its documents into a staging directory beside the target
 * (`DIR.tmp.PID.d`) and, once every document is written, exchanges the two directories
 * in one step (renameat2 RENAME_EXCHANGE): a reader of DIR sees the whole old run or
 * the whole new one, never a mix, whatever happens to the writer (killed, disk full).
 * Files in DIR that tracedoc did not write are carried over (hard links) first.
 *
 * Only files tracedoc itself wrote are ever dropped: those listed in the directory's
 * manifest `.tracedoc-files` (written by every report), and, in a directory that has no
 * manifest yet but holds a tracedoc report, the flamegraph and folded-stack files of
 * the kinds tracedoc writes. Anything else in the directory is carried over.
 *
 * Where the exchange cannot be done the documents are written as before, each file whole
 * but the set not atomic: straight into DIR when it is the working directory, holds
 * anything but regular files (a subdirectory, a symbolic link or device a document is
 * written through) or its parent is not writable; renamed from the stage one by one when
 * the exchange itself fails (a mount point, a file system without RENAME_EXCHANGE).
 *
 * One writer at a time: the directory itself is locked (flock) for the whole run; a
 * second report into it is refused with TD_E_BUSY. On every start, temporaries that a
 * killed run left (`DIR.tmp.PID.d`, `DIR/NAME.tmp.PID.N`)
 * are removed when process PID no longer exists. */
#ifndef TD_OUTDIR_H
#define TD_OUTDIR_H
#include "summary/summary.h"
#include <limits.h>

#define TD_MANIFEST ".tracedoc-files"

typedef struct td_outdir {
    char target[PATH_MAX]; /* the directory as given */
    char stage[PATH_MAX];  /* where the documents go: write them here */
    int lock;              /* descriptor of the locked target, -1 when none */
    int inplace;           /* 1: written straight into target (stage == target) */
} td_outdir;

/* Create dir when missing, lock it (TD_E_BUSY when another run holds it), sweep stale
 * temporaries and make the staging directory (o->stage). */
td_status td_outdir_begin(td_outdir *o, const char *dir, td_err *e);
/* The documents names (run/documents.h td_docs_files) are in o->stage: make them dir's
 * content in one step (see above), record the manifest, unlock. */
td_status td_outdir_commit(td_outdir *o, char *const *names, size_t n, td_err *e);
/* After a failure (or after commit, harmless): remove the staging directory, unlock. */
void td_outdir_end(td_outdir *o);

#endif
