/* cli/exit.h - tracedoc's exit statuses, the one place they are named: doc/commands.md's
 * "Exit status" table, row for row. Only main() exits; the commands return one of these,
 * and td_exit_for maps a module's td_status to one. */
#ifndef TD_CLI_EXIT_H
#define TD_CLI_EXIT_H

typedef enum td_exit {
    TD_EXIT_OK = 0,             /* success */
    TD_EXIT_REGRESSED = 1,      /* diff, report --baseline/--history: a metric regressed */
    TD_EXIT_USAGE = 2,          /* bad command line, bad option value, bad template */
    TD_EXIT_INPUT = 3,          /* unreadable or invalid input; traces (or .tds parts) that
                                 * are not ranks of one job */
    TD_EXIT_OUTPUT = 4,         /* cannot write an output */
    TD_EXIT_INTERNAL = 5,       /* internal error (bug, out of memory) */
    TD_EXIT_NOT_COMPARABLE = 6, /* diff, report --baseline/--history: nothing comparable */
    TD_EXIT_EMPTY = 7,          /* the input holds no events (a capture that recorded
                                 * nothing): nothing is written */
    TD_EXIT_BUSY = 8            /* another run holds the lock of the output directory or
                                 * history database */
} td_exit;

#endif
