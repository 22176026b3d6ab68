/* base/files.h - writing output files safely, reading small input files. */
#ifndef TD_FILES_H
#define TD_FILES_H
#include "base/err.h"
#include <stddef.h>
#include <stdio.h>

/* Write a whole output file safely. A regular file (new, or the target of a symbolic
 * link, which is kept) is written to a temporary name beside it and renamed when
 * complete: on failure nothing is left at PATH or the temporary name. A character device
 * or FIFO is written directly (never replaced); "-", /dev/stdout, /dev/stderr and
 * /dev/fd/N write to that descriptor. A directory, block device, socket or dangling
 * symbolic link is refused (TD_E_OUTPUT). */
td_status td_write_file_atomic(const char *path, const void *data, size_t n, td_err *e);
/* Atomic write through a callback writing to a FILE*. cb returns TD_OK or an error. */
td_status td_write_atomic_cb(const char *path, td_status (*cb)(FILE *f, void *ctx, td_err *e),
                             void *ctx, td_err *e);
/* For writers that need a file name (PDF, workbook): a temporary name (malloc'd, the
 * caller frees it) beside path's real file, or a private one in $TMPDIR when path is a
 * device, FIFO or stream, and the commit: rename, or copy into the device/stream; it
 * removes tmp either way. */
char *td_tmp_name(const char *path);
td_status td_commit_tmp(const char *tmp, const char *path, td_err *e);
/* The error when tmp (from td_tmp_name(path)) cannot be created (errno err): blames
 * TMPDIR when tmp is the private one there, else path. */
td_status td_tmp_fail(const char *path, const char *tmp, int err, td_err *e);

/* Read a whole small file (templates, summaries). *out malloc'd (the caller frees it),
 * NUL-terminated. */
td_status td_read_small_file(const char *path, char **out, size_t *n, td_err *e);

#endif
