/* run/pipeline.h - the pipeline the commands run: read -> analyse -> summary (or
 * summarize -> partial, partials -> merge -> summary), and what a summary gets from
 * beside it (stored stacks, differential flames). Returns td_status with td_err and never
 * prints: progress and warnings go to the caller's note callback, in the order they
 * happen, as the text the command line shows. Returned summaries, sets and partials
 * belong to the caller. */
#ifndef TD_RUN_PIPELINE_H
#define TD_RUN_PIPELINE_H
#include "analyse/analyse.h"
#include "partial/partial.h"

enum { TD_RUN_PROGRESS, TD_RUN_WARNING };

/* kind TD_RUN_PROGRESS: "reading X (1 of 3)" (a terminal shows it, scripts need not);
 * TD_RUN_WARNING: "warning: ..." (always shown). */
typedef void td_run_note(void *ctx, int kind, const char *msg);

/* The inputs' options besides the traces: the analysis options and what the command
 * line adds to every run. */
typedef struct td_run {
    td_opts o;
    const char *complog[16];   /* --compile-log FILE, in order */
    int ncomplog;
    const char *telemetry[16]; /* --telemetry FILE, in order */
    int ntelemetry;
    int64_t telemetry_start;   /* --telemetry-start, ns since the epoch; INT64_MIN none */
    const char *meta[64];      /* --meta KEY=VALUE, in order */
    int nmeta;
    int no_stacks;             /* merged parts: no flame stacks (td_partial_skip_stacks) */
    td_run_note *note;         /* NULL: nothing is said */
    void *ctx;
} td_run;

/* Read the inputs (and the compile logs and telemetry) into *out, finished (ranks
 * numbered). one_job: refuse traces that are not ranks of one job (model/job.h); export,
 * which lays inputs side by side in a viewer, takes any. */
td_status td_run_read(const td_run *r, char **inputs, int n, int one_job, td_traceset **out,
                      td_err *e);
/* The reader's warnings of set (the first 20, then how many more) to the note. */
void td_run_read_warnings(const td_run *r, const td_traceset *set);

/* Read and analyse traces into *out; the times of each stage when t_read/t_an. */
td_status td_run_analyse(const td_run *r, char **inputs, int n, td_summary **out,
                         int64_t *t_read, int64_t *t_an, td_err *e);

/* *all = 1 when every input is a partial summary (.tds), 0 when none is; mixing them is
 * a usage error of command cmd. */
td_status td_run_partial_inputs(char **inputs, int n, const char *cmd, int *all, td_err *e);
/* Merge the partial summaries inputs, one file at a time (bounded memory). */
td_status td_run_merge(const td_run *r, char **inputs, int n, const char *cmd,
                       td_partial **out, td_err *e);
/* Read and analyse traces into the partial summary written at path (summarize). */
td_status td_run_summarize(const td_run *r, char **inputs, int n, const char *path, td_err *e);

/* The summary of the inputs: traces are read and analysed; partial summaries (.tds)
 * merged; one summary.json loaded as it is, with the stacks stored beside it. Then
 * --meta. t_read/t_an as td_run_analyse (may be NULL). */
td_status td_run_summary(const td_run *r, char **inputs, int n, td_summary **out,
                         int64_t *t_read, int64_t *t_an, td_err *e);
/* One input's summary: a summary.json loaded as it is, else the trace analysed. */
td_status td_run_summary_of(const td_run *r, char *input, td_summary **out, td_err *e);
/* --meta pairs become meta.KEY scalars. */
td_status td_run_apply_meta(const td_run *r, td_summary *s, td_err *e);

/* The stacks stored beside a summary.json: the KIND.folded files a report with the folded
 * document left in its directory (a stacks file that cannot be read: a warning). */
void td_run_stacks_beside(const td_run *r, td_summary *s, const char *json_path);
/* Differential flames of cur against base (a warning when none can be drawn). */
void td_run_diff_flames(const td_run *r, td_summary *cur, const td_summary *base,
                        const char *label);

/* stack-trace and export: read and analyse the inputs, write one Chrome trace to out
 * (stack: the SambaTune-style report, else every input). */
td_status td_run_chrome(const td_run *r, char **inputs, int n, const char *out, int stack,
                        const char *version, td_err *e);

#endif
