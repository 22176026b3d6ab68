/* read/folded.h - read folded stacks ("a;b;c 123" per line) for `tracedoc flame FOLDED`. */
#ifndef TD_FOLDED_H
#define TD_FOLDED_H
#include "summary/summary.h"

/* How a folded file was read (`flame --timings` says it): in order (threads 1), or in
 * chunks on two threads (threads 2: chunks taken in all, second: by the second thread;
 * again: their result dropped and the file read again in order: an error, counts in
 * different units or a total past 2^63 in it). */
typedef struct td_folded_how {
    int threads, again;
    long long chunks, second;
} td_folded_how;

/* If path holds folded stacks (decided from content), parse them into a new summary
 * with one flame of the given kind: *s and *fl set, TD_OK. If it does not look like
 * folded text, *s = NULL and TD_OK (the caller reads it as a trace). A file that starts
 * as folded text but has a bad line is an error naming the line. how (NULL: not asked)
 * says how it was read. */
td_status td_folded_try_read(const char *path, const char *kind, td_summary **s, td_flame **fl,
                             td_folded_how *how, td_err *e);
/* Parse folded text already in memory. */
td_status td_folded_parse(const char *name, const char *text, size_t n, td_summary *s,
                          td_flame *fl, td_err *e);

#endif
