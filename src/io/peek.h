/* io/peek.h - a look at an input's first bytes that loses nothing.
 *
 * Which kind of input a path holds (trace, partial summary, summary.json) is decided from
 * its first bytes. A regular file is simply read again from the start by its reader. A
 * pipe, FIFO, character device, "-" (standard input) or /dev/fd/N (process substitution,
 * `<(zcat trace.json.gz)`) can be read only once: the first look opens it (a /dev/fd/N by
 * duplicating the descriptor: opening a pipe whose writer has gone blocks forever), reads
 * the bytes asked for and keeps them with the descriptor, and the reader that opens the
 * path later gets those bytes back first, then the rest. So every input is read once,
 * through one descriptor, whatever its kind. Not for concurrent use on one path. */
#ifndef TD_IO_PEEK_H
#define TD_IO_PEEK_H
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Up to cap first bytes of path into buf; the count, or -1 (errno set) when it cannot be
 * opened or read. */
ssize_t td_peek(const char *path, void *buf, size_t cap);

/* When path was looked at and is read once: hands over the descriptor and the bytes read
 * (the caller closes the one and frees the other; *pre may be NULL when *npre is 0) and
 * returns 1; else 0 (open the path as usual). */
int td_peek_take(const char *path, int *fd, unsigned char **pre, size_t *npre);

/* A stdio stream over path that gives the bytes looked at first, then the rest
 * (fopen(path, "rb") for what was not looked at); NULL with errno set. */
FILE *td_peek_fopen(const char *path);

/* 1 when path can be read only once (what td_peek keeps the first bytes of): "-",
 * /dev/fd/N, a pipe, FIFO or character device. */
int td_peek_once(const char *path);

/* Forgets every kept input (closes the descriptors). */
void td_peek_reset(void);

#endif
