/* cli/cli.h - the command-line machinery, driven by two tables that cli/main.c owns: the
 * commands and the options. Adding an option is one td_cli_opt row (plus a field in
 * cli/internal.h's cli struct); adding a command is one td_cli_cmd row and its run function.
 *
 * What it does with the tables: picks the command (did-you-mean on a misspelling),
 * parses long (--name VALUE, --name=VALUE, unique prefixes) and short (-o VALUE, -oVALUE)
 * options anywhere among the arguments, '--' ends the options, '-' is an argument;
 * rejects an option that exists but does not apply to the command (status 2, naming the
 * commands it applies to); prints each command's own --help from the rows that apply to
 * it; every message is prefixed "tracedoc: " and usage errors are status 2. Nothing here
 * exits: every function returns the exit status (cli/exit.h) for main() to exit with. */
#ifndef TD_CLI_H
#define TD_CLI_H
#include <stddef.h>
#include <stdio.h>
#include "cli/exit.h"

#define TD_CMD(i) (1u << (i)) /* an option's cmds mask bit for command row i */
#define TD_ALL_CMDS (~0u)

struct td_cli_opt;
/* Stores a parsed value into ctx (cli/internal.h's cli struct): returns TD_EXIT_OK, or the
 * exit status after saying why (a bad value: return td_cli_bad_value(...)). */
typedef int (*td_cli_set)(void *ctx, const struct td_cli_opt *o, const char *arg);

typedef struct td_cli_opt {
    const char *name;   /* long name without "--" */
    int shortc;         /* one-letter alias ('o'), or 0 */
    const char *arg;    /* value placeholder for the help ("DIR"); NULL: a flag */
    unsigned cmds;      /* TD_CMD(i) bits of the commands it applies to */
    const char *help;   /* help text; '\n' starts a continuation line */
    td_cli_set set;     /* NULL for help and version */
    size_t off;         /* offsetof the field the generic setters below write */
} td_cli_opt;

typedef struct td_cli_cmd {
    const char *name;     /* "report" */
    const char *synopsis; /* "TRACE... [-o DIR]" */
    const char *summary;  /* one line for the global help */
    const char *detail;   /* paragraph for the command's own help, or NULL */
    int min_args, max_args; /* positional arguments (max -1: any number) */
    const char *args_help;  /* "at least one TRACE": the usage error when the count is off */
    int (*run)(void *ctx, char **args, int nargs); /* returns the exit status (cli/exit.h) */
} td_cli_cmd;

typedef struct td_cli {
    const char *prog;     /* "tracedoc" */
    const char *version;
    const td_cli_cmd *cmds;
    size_t ncmds;
    const td_cli_opt *opts;
    size_t nopts;
    const char *epilogue; /* printed at the end of every help (inputs, exit status) */
} td_cli;

/* Parses argv, then runs the command and returns its exit status. --help and --version
 * return 0 here, usage errors 2, without running the command. */
int td_cli_main(const td_cli *cl, int argc, char **argv, void *ctx);

/* Generic setters: a const char * / an int set to 1 / a double fraction in [0,1)
 * at o->off in ctx. */
int td_cli_set_str(void *ctx, const td_cli_opt *o, const char *arg);
int td_cli_set_flag(void *ctx, const td_cli_opt *o, const char *arg);
int td_cli_set_fraction(void *ctx, const td_cli_opt *o, const char *arg);

/* A usage error about the value of option o: prints "tracedoc: --name: MESSAGE" and the
 * "Try" line, returns TD_EXIT_USAGE. */
int td_cli_bad_value(const td_cli_opt *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));
/* Any other usage error of the current command (returns TD_EXIT_USAGE). */
int td_cli_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), warn_unused_result));

/* The help of command i (or the global help when i < 0) on f. */
void td_cli_help(const td_cli *cl, int i, FILE *f);

#endif
