/* cli/internal.h - what the files of src/cli share, from the bottom up: cli/messages.c
 * (what tracedoc says, exit statuses), cli/paths.c (input lists, -o checks, the data
 * directory), cli/timings.c (--timings), cli/commands.c (the commands' run functions), cli/main.c (options, the
 * tables, main). Private to src/cli. */
#ifndef TD_CLI_INTERNAL_H
#define TD_CLI_INTERNAL_H
#include "cli/cli.h"
#include "cli/exit.h"
#include "render/render.h"
#include "run/pipeline.h"
#include <limits.h>

#ifndef TD_VERSION
#define TD_VERSION "0.1.0"
#endif

/* The parsed command line: one per run, copied by each command. */
typedef struct cli {
    td_run run;           /* analysis options, --compile-log, --telemetry, --meta */
    const char *out;
    const char *tpl;
    const char *format;
    const char *table;
    const char *stacks;
    const char *title;
    const char *paper;
    double minwidth;      /* -1: the template's, else 0.001 */
    const char *baseline;
    double tolerance;
    int icicle, timings;
    int top;              /* summary: rows per table in text and CSV output (--top; 0: not
                           * given, 15 a table in text, every row of --table) */
    char **inputs;
    int ninputs;
    const char *expect;   /* --expect TEXT */
    const char *history;  /* --history runs.db */
    const char *metric;   /* history: --metric NAME */
    long keep;            /* history: --keep N */
    double older_days;    /* history: --older-than DAYS */
    int tol_set;          /* --tolerance given */
    int detect;           /* history --detect: the argument is a series (CSV) */
    const char *diff;     /* flame: --diff BASE (folded stacks or a trace) */
    int normalize;        /* flame --diff: scale the baseline to the current total */
    const char *files_from; /* merge: --files-from FILE|- (one part a line) */
} cli;

/* Where templates/ and fonts/ are, found by td_cli_find_datadir (main, before parsing). */
extern char td_cli_datadir[PATH_MAX];
void td_cli_find_datadir(void);

/* "tracedoc: MESSAGE" on stderr in one write. */
void td_cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Says e's message; returns the exit status of its code. */
int td_cli_fail(const td_err *e);
/* Says the message; returns code. */
int td_cli_stop(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The exit status of a module's status. */
int td_cli_exit_for(td_status s);
/* cli/timings.c, what --timings prints: "timings: WHAT MS ms" when on; and for report
 * each analysis pass's wall time and the process's peak RSS after it, collected by
 * td_cli_pass_time (a td_opts.pass_time) into a td_cli_passes and printed in the order
 * the passes first ran, a name seen again (the heap's trims between passes) summed. */
void td_cli_timing(int on, const char *what, int64_t ns);
typedef struct td_cli_passes {
    char name[64][32];
    int64_t ns[64], hwm[64]; /* hwm: peak RSS (KiB) after the pass */
    int n;
} td_cli_passes;
void td_cli_pass_time(void *ctx, const char *pass, int64_t ns);
void td_cli_passes_print(const td_cli_passes *p);
/* cli/docproc.c: the documents in docs (TD_DOC_*) into the directory out, rendered in
 * child processes (a renderer's death is exit 5 with a message); messages name the
 * directory shown instead of out (the stage of cli/outdir.h). Returns the exit status,
 * having said what went wrong. */
int td_cli_write_documents(const td_summary *s, const td_template *t, const td_render_opts *r,
                           const char *out, const char *shown, unsigned docs, int timings);
/* The pipeline's notes (run/pipeline.h): progress only on a terminal, warnings always. */
void td_cli_note(void *ctx, int kind, const char *msg);

/* --progress: the progress notes on stderr even when it is not a terminal (a batch job's
 * log). Set by the option, read by td_cli_note. */
extern int td_cli_progress;

/* A list of paths the caller owns (td_cli_list_free). */
typedef struct td_cli_list {
    char **v;
    size_t n, cap;
} td_cli_list;
/* merge's inputs into *l (cli/paths.c): each argument as it is, a directory as its *.tds
 * files sorted by name, then the lines of files_from ("-": standard input) when not
 * NULL. Returns the exit status, having said what went wrong (no parts is a usage error). */
int td_cli_merge_inputs(char **args, int nargs, const char *files_from, td_cli_list *l);
void td_cli_list_free(td_cli_list *l);
/* mkdir -p of path (self) or of the directory path is in (!self); returns the exit
 * status, having said which directory could not be made. */
int td_cli_make_parents(const char *path, int self);
/* Before any work (issue 21): the output directory out of command cmd (report, diff,
 * merge -o DIR): a name ending in a document's extension (.pdf .xlsx .svg .json .csv .md)
 * that is not a directory already is a usage error; a file in the way, or a parent that
 * cannot be made or written, an output error; missing parents are made. Returns the exit
 * status, having said what went wrong. */
int td_cli_out_dir(const char *cmd, const char *out);
/* The same for an output file (NULL or "-": standard output): not a directory; its
 * missing parents made. */
int td_cli_out_file(const char *out);

/* The documents of a --format list ("pdf,xlsx") into *m; a bad list is a usage error of
 * option opt (status 2). */
int td_cli_formats(const td_cli_opt *opt, const char *v, unsigned *m);

/* The commands (cli/commands.c): each returns its exit status. */
int td_cmd_report(void *ctx, char **args, int nargs);
int td_cmd_summary(void *ctx, char **args, int nargs);
int td_cmd_fold(void *ctx, char **args, int nargs);
int td_cmd_flame(void *ctx, char **args, int nargs);
int td_cmd_diff(void *ctx, char **args, int nargs);
int td_cmd_history(void *ctx, char **args, int nargs);
int td_cmd_stack_trace(void *ctx, char **args, int nargs);
int td_cmd_summarize(void *ctx, char **args, int nargs);
int td_cmd_merge(void *ctx, char **args, int nargs);
int td_cmd_export(void *ctx, char **args, int nargs);

#endif
