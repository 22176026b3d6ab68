/* base/err.h - error codes (td_status) and their names, the error record
 * modules fill (td_err) and the warnings list of a run.
 * Modules return a td_status and describe the failure in a td_err; only src/cli prints
 * and exits. Memory: a td_err is the caller's; a td_warnings owns its messages (malloc'd,
 * freed by td_warnings_free). */
#ifndef TD_ERR_H
#define TD_ERR_H
#include <stddef.h>

/* Error codes returned by modules; cli/main.c maps them to exit codes. */
typedef enum {
    TD_OK = 0,
    TD_E_NOMEM,
    TD_E_IO,       /* cannot open/read a file */
    TD_E_FORMAT,   /* invalid or unsupported input */
    TD_E_USAGE,    /* bad option / bad template */
    TD_E_OUTPUT,   /* cannot write output */
    TD_E_INTERNAL,
    TD_E_BUSY,     /* another run holds the lock of an output directory or database */
    TD_E_EMPTY     /* the input holds no events (a capture that recorded nothing) */
} td_status;

/* The name of a status ("TD_E_FORMAT"), a static string; "TD_E_UNKNOWN" for a value
 * outside the enum. For logs and tests; messages for users are in td_err.msg. */
const char *td_status_name(td_status s);

/* An error with a message; modules fill it, cli/main.c prints it.
 * Message style: "FILE: byte 1234: expected ',' or '}'" (no "tracedoc: " prefix). */
typedef struct td_err {
    td_status code;
    char msg[1024];
} td_err;
/* Fill e (when not NULL) with code and the formatted message; returns code. */
td_status td_fail(td_err *e, td_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Warnings collected during a run (owned by the list; kept in order; at most 1,000). */
typedef struct td_warnings {
    char **msg;
    size_t n, cap;
} td_warnings;
void td_warn(td_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void td_warnings_free(td_warnings *w);

#endif
