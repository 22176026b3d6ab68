/* read/folded.h - read folded stacks ("a;b;c 123" per line) for `tracedoc flame FOLDED`. */
#ifndef TD_FOLDED_H
#define TD_FOLDED_H
#include "summary/summary.h"

/* If path holds folded stacks (decided from content), parse them into a new summary
 * with one flame of the given kind: *s and *fl set, TD_OK. If it does not look like
 * folded text, *s = NULL and TD_OK (the caller reads it as a trace). A file that starts
 * as folded text but has a bad line is an error naming the line. */
td_status td_folded_try_read(const char *path, const char *kind, td_summary **s, td_flame **fl,
                             td_err *e);
/* Parse folded text already in memory. */
td_status td_folded_parse(const char *name, const char *text, size_t n, td_summary *s,
                          td_flame *fl, td_err *e);

#endif
