/* base/err.c - see base/err.h. */
#include "base/err.h"
#include "base/alloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

td_status td_fail(td_err *e, td_status code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

void td_warn(td_warnings *w, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    /* Keep the list bounded: a damaged trace must not produce millions of warnings. */
    if (w->n >= 1000)
        return;
    *TD_PUSH(w->msg, w->n, w->cap) = td_xstrdup(tmp);
}

void td_warnings_free(td_warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->msg[i]);
    free(w->msg);
    memset(w, 0, sizeof *w);
}

const char *td_status_name(td_status s)
{
    /* indexed by the enum; the unit test checks every value has its own name */
    static const char *const names[] = {
        [TD_OK] = "TD_OK",
        [TD_E_NOMEM] = "TD_E_NOMEM",
        [TD_E_IO] = "TD_E_IO",
        [TD_E_FORMAT] = "TD_E_FORMAT",
        [TD_E_USAGE] = "TD_E_USAGE",
        [TD_E_OUTPUT] = "TD_E_OUTPUT",
        [TD_E_INTERNAL] = "TD_E_INTERNAL",
        [TD_E_BUSY] = "TD_E_BUSY",
        [TD_E_EMPTY] = "TD_E_EMPTY",
    };
    if ((unsigned)s < sizeof names / sizeof names[0] && names[s])
        return names[s];
    return "TD_E_UNKNOWN";
}
