/* cli/messages.c - what tracedoc says on stderr, and the exit status of a module's
 * td_status (cli/internal.h). */
#define _GNU_SOURCE
#include "cli/internal.h"
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "tracedoc";

/* One message on stderr in one write (another process may be writing there too). */
static void vsay(const char *fmt, va_list ap)
{
    char msg[2048];
    int n = snprintf(msg, sizeof msg, "%s: ", prog);
    vsnprintf(msg + n, sizeof msg - (size_t)n - 1, fmt, ap);
    size_t len = strlen(msg);
    msg[len++] = '\n';
    fflush(stderr);
    if (write(STDERR_FILENO, msg, len) < 0)
        return;
}

void td_cli_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

int td_cli_stop(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    return code;
}

int td_cli_exit_for(td_status s)
{
    switch (s) {
    case TD_OK: return TD_EXIT_OK;
    case TD_E_USAGE: return TD_EXIT_USAGE;
    case TD_E_IO:
    case TD_E_FORMAT: return TD_EXIT_INPUT;
    case TD_E_OUTPUT: return TD_EXIT_OUTPUT;
    case TD_E_BUSY: return TD_EXIT_BUSY;
    case TD_E_EMPTY: return TD_EXIT_EMPTY;
    default: return TD_EXIT_INTERNAL;
    }
}

int td_cli_fail(const td_err *e)
{
    td_cli_say("%s", e->msg);
    return td_cli_exit_for(e->code);
}

int td_cli_progress;

/* Progress for long work, only when stderr is a terminal (quiet in scripts and CI) or
 * --progress asked for it (batch jobs' logs). */
void td_cli_note(void *ctx, int kind, const char *msg)
{
    static int tty = -1;
    (void)ctx;
    if (kind == TD_RUN_PROGRESS && !td_cli_progress) {
        if (tty < 0)
            tty = isatty(STDERR_FILENO);
        if (!tty)
            return;
    }
    td_cli_say("%s", msg);
}

