/* cli/main.c - command line: parse options, run read -> analyse -> render, print errors,
 * exit with the documented status. The only file that prints or exits. */
#define _GNU_SOURCE
#include "analyse/analyse.h"
#include "read/read.h"
#include "model/job.h"
#include "read/aiu.h"
#include "read/telemetry.h"
#include "analyse/checklist.h"
#include <math.h>
#include "render/render.h"
#include "summary/summary.h"
#include "summary/template.h"
#include "read/folded.h"
#include "summary/flame.h"
#include "compare/baseline.h"
#include "compare/changes.h"
#include "compare/history.h"
#include "partial/partial.h"
#include "cli/cli.h"
#include "export/chrome.h"
#include "export/stacktrace.h"
#include "cli/outdir.h"
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#ifndef TD_VERSION
#define TD_VERSION "0.1.0"
#endif

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

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    exit(code);
}

static int exit_for(td_status s)
{
    switch (s) {
    case TD_OK: return TD_EXIT_OK;
    case TD_E_USAGE: return TD_EXIT_USAGE;
    case TD_E_IO:
    case TD_E_FORMAT: return TD_EXIT_INPUT;
    case TD_E_OUTPUT: return TD_EXIT_OUTPUT;
    default: return TD_EXIT_INTERNAL;
    }
}

static void fail(const td_err *e)
{
    die(exit_for(e->code), "%s", e->msg);
}

/* Where templates/ and fonts/ are: $TRACEDOC_DATA; else beside the executable as
 * installed (PREFIX/bin/tracedoc -> PREFIX/share/tracedoc) or as built (build/tracedoc ->
 * the source tree); else the source tree it was built from. */
static char datadir[PATH_MAX];
static int has_templates(const char *dir)
{
    char cand[PATH_MAX + 32];
    struct stat st;
    snprintf(cand, sizeof cand, "%s/templates", dir);
    return stat(cand, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_datadir(void)
{
    const char *env = getenv("TRACEDOC_DATA");
    if (env && *env) {
        snprintf(datadir, sizeof datadir, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *d = dirname(exe);
        static const char *const rel[] = {"/../share/tracedoc", "/.."};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(datadir, sizeof datadir, "%.*s%s", (int)(sizeof datadir - 32), d, rel[i]);
            if (has_templates(datadir))
                return;
        }
    }
#ifdef TD_DATADIR
    snprintf(datadir, sizeof datadir, "%s", TD_DATADIR); /* the source tree it was built from */
#else
    snprintf(datadir, sizeof datadir, ".");
#endif
}

typedef struct cli {
    td_opts o;
    const char *out;
    const char *tpl;
    const char *format;
    const char *table;
    const char *stacks;
    const char *title;
    const char *paper;
    double minwidth;
    const char *baseline;
    double tolerance;
    int icicle, timings, top_set;
    char **inputs;
    int ninputs;
    const char *meta[64]; /* --meta KEY=VALUE, in order */
    int nmeta;
    const char *complog[16]; /* --compile-log FILE, in order */
    int ncomplog;
    const char *telemetry[16]; /* --telemetry FILE, in order */
    int ntelemetry;
    int64_t telemetry_start; /* --telemetry-start, ns since the epoch; INT64_MIN none */
    const char *expect;      /* --expect TEXT */
    const char *history;  /* --history runs.db */
    const char *metric;   /* history: --metric NAME */
    long keep;            /* history: --keep N */
    double older_days;    /* history: --older-than DAYS */
    int tol_set;          /* --tolerance given */
    const char *diff;     /* flame: --diff BASE (folded stacks or a trace) */
    int normalize;        /* flame --diff: scale the baseline to the current total */
} cli;

static unsigned parse_formats(const td_cli_opt *opt, const char *v)
{
    unsigned m = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        if (!strcmp(tok, "pdf")) m |= TD_DOC_PDF;
        else if (!strcmp(tok, "xlsx")) m |= TD_DOC_XLSX;
        else if (!strcmp(tok, "svg")) m |= TD_DOC_SVG;
        else if (!strcmp(tok, "json")) m |= TD_DOC_JSON;
        else if (!strcmp(tok, "csv")) m |= TD_DOC_CSV;
        else if (!strcmp(tok, "folded")) m |= TD_DOC_FOLDED;
        else if (!strcmp(tok, "md")) m |= TD_DOC_MD;
        else if (!strcmp(tok, "junit")) m |= TD_DOC_JUNIT;
        else
            td_cli_bad_value(opt, "unknown document '%s' (expected pdf, xlsx, svg, json, csv, "
                             "folded, md, junit)", tok);
    }
    if (!m)
        td_cli_bad_value(opt, "expected a list such as pdf,xlsx");
    return m;
}

/* ---- option values (each setter checks its value; td_cli_bad_value exits 2) ---- */

static void set_warmup(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (strcmp(v, "auto") == 0)
        c->o.warmup = TD_WARMUP_AUTO;
    else if (strcmp(v, "none") == 0)
        c->o.warmup = TD_WARMUP_NONE;
    else {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || end == v || n < 0 || n > 1000000)
            td_cli_bad_value(opt, "expected auto, none or a step count, got '%s'", v);
        c->o.warmup = (int)n;
    }
}

static void set_paper(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "a4") && strcmp(v, "letter"))
        td_cli_bad_value(opt, "expected a4 or letter, got '%s'", v);
    ((cli *)ctx)->paper = v;
}

static void set_top(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 1000000)
        td_cli_bad_value(opt, "expected a positive number, got '%s'", v);
    c->o.top = (int)n;
    c->top_set = 1;
}

static void set_stacks(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (!td_flame_kind_known(v))
        td_cli_bad_value(opt, "expected cpu, device, ops, compile, source, opname, ipu or "
                         "sections, got '%s'", v);
    ((cli *)ctx)->stacks = v;
}

static void set_summary_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv"))
        td_cli_bad_value(opt, "expected text, json or csv, got '%s'", v);
    ((cli *)ctx)->format = v;
}

static void set_report_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    (void)parse_formats(opt, v); /* checked now, used after the template is loaded */
    ((cli *)ctx)->format = v;
}

static void set_meta(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->nmeta >= (int)(sizeof c->meta / sizeof c->meta[0]))
        td_cli_bad_value(opt, "at most %d pairs", (int)(sizeof c->meta / sizeof c->meta[0]));
    td_summary *chk = td_summary_new(); /* checked now, before any reading */
    td_err me = {0};
    td_status ms = td_sum_set_meta(chk, v, &me);
    td_summary_free(chk);
    if (ms != TD_OK)
        fail(&me);
    c->meta[c->nmeta++] = v;
}

/* --aiu-freq SOC[:CORE] in MHz, both positive */
static void set_aiu_freq(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    char *end;
    errno = 0;
    double soc = strtod(v, &end), core = 0;
    int ok = !errno && end != v && soc > 0 && soc < 1e6;
    if (ok && *end == ':') {
        char *e2;
        core = strtod(end + 1, &e2);
        ok = e2 != end + 1 && !*e2 && core > 0 && core < 1e6;
    } else if (ok && *end) {
        ok = 0;
    }
    if (!ok)
        td_cli_bad_value(opt, "expected SOC[:CORE] in MHz (e.g. 560:800)");
    c->o.aiu_soc_mhz = soc;
    c->o.aiu_core_mhz = core;
}

static void set_compile_log(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->ncomplog >= (int)(sizeof c->complog / sizeof c->complog[0]))
        td_cli_bad_value(opt, "at most %d files", (int)(sizeof c->complog / sizeof c->complog[0]));
    c->complog[c->ncomplog++] = v;
}

static void set_telemetry(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->ntelemetry >= (int)(sizeof c->telemetry / sizeof c->telemetry[0]))
        td_cli_bad_value(opt, "at most %d files",
                         (int)(sizeof c->telemetry / sizeof c->telemetry[0]));
    c->telemetry[c->ntelemetry++] = v;
}

static void set_telemetry_offset(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    errno = 0;
    double sec = strtod(v, &end);
    if (errno || *end || end == v || !(fabs(sec) < 1e9))
        td_cli_bad_value(opt, "expected seconds (e.g. -3.5)");
    ((cli *)ctx)->o.telemetry_offset_ns = (int64_t)llround(sec * 1e9);
}

static void set_telemetry_start(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (!td_parse_wallclock(v, strlen(v), &((cli *)ctx)->telemetry_start))
        td_cli_bad_value(opt, "expected a UTC time such as 2025-11-22T08:26:41Z or seconds "
                         "since 1970");
}

static void set_expect(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strlen(v) > 1024)
        td_cli_bad_value(opt, "at most 1024 bytes");
    ((cli *)ctx)->expect = v;
}

static void set_tolerance(void *ctx, const td_cli_opt *opt, const char *v)
{
    td_cli_set_fraction(ctx, opt, v);
    ((cli *)ctx)->tol_set = 1;
}

static void set_keep(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 100000000)
        td_cli_bad_value(opt, "expected a positive number of runs, got '%s'", v);
    ((cli *)ctx)->keep = n;
}

static void set_older(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || *end || end == v || !(d > 0 && d < 1e6))
        td_cli_bad_value(opt, "expected a positive number of days, got '%s'", v);
    ((cli *)ctx)->older_days = d;
}

static void set_history_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "text") && strcmp(v, "csv"))
        td_cli_bad_value(opt, "expected text or csv, got '%s'", v);
    ((cli *)ctx)->format = v;
}

static void set_export_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "chrome"))
        td_cli_bad_value(opt, "expected chrome (Chrome Trace Event JSON), got '%s'", v);
    ((cli *)ctx)->format = v;
}

static void set_out_dir(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "-") == 0)
        td_cli_bad_value(opt, "this command writes several files into a directory; "
                         "'-' (standard output) is for fold, flame and summary");
    ((cli *)ctx)->out = v;
}

/* ---- the tables: a new command is a row in cmds (its bit is its index), a new option a
 * row in opts (same name twice is fine when the rows apply to different commands) ---- */

enum { C_REPORT, C_SUMMARY, C_FOLD, C_FLAME, C_DIFF, C_STACK, C_SUMMARIZE, C_MERGE, C_HISTORY,
       C_EXPORT };
#define REPORT TD_CMD(C_REPORT)
#define SUMMARY TD_CMD(C_SUMMARY)
#define FOLD TD_CMD(C_FOLD)
#define FLAME TD_CMD(C_FLAME)
#define DIFF TD_CMD(C_DIFF)
#define HISTORY TD_CMD(C_HISTORY)
#define STACK TD_CMD(C_STACK)
#define SUMMARIZE TD_CMD(C_SUMMARIZE)
#define MERGE TD_CMD(C_MERGE)
#define EXPORT TD_CMD(C_EXPORT)
/* commands that analyse traces (merge takes the options the parts were made with) */
#define ANALYSIS (REPORT | SUMMARY | FOLD | FLAME | DIFF | SUMMARIZE)
#define OFF(f) offsetof(cli, f)

static int cmd_report(void *ctx, char **args, int nargs);
static int cmd_summary(void *ctx, char **args, int nargs);
static int cmd_fold(void *ctx, char **args, int nargs);
static int cmd_flame(void *ctx, char **args, int nargs);
static int cmd_diff(void *ctx, char **args, int nargs);
static int cmd_history(void *ctx, char **args, int nargs);
static int cmd_stack_trace(void *ctx, char **args, int nargs);
static int cmd_summarize(void *ctx, char **args, int nargs);
static int cmd_merge(void *ctx, char **args, int nargs);
static int cmd_export(void *ctx, char **args, int nargs);

static const td_cli_cmd cmds[] = {
    [C_REPORT] = {"report", "TRACE... [-o DIR] [OPTIONS]",
                  "PDF, workbook, SVG flamegraphs, summary.json, CSV and folded stacks in DIR.",
                  "The template says which documents and sections; --format picks documents.",
                  1, -1, "at least one TRACE", cmd_report},
    [C_SUMMARY] = {"summary", "TRACE... [OPTIONS]",
                   "Readable tables on stdout (or --format json|csv).", NULL, 1, -1,
                   "at least one TRACE", cmd_summary},
    [C_FOLD] = {"fold", "TRACE... [-o FILE] [OPTIONS]",
                "Folded stacks ('a;b;c VALUE', ns) on stdout or in FILE.",
                "Without --stacks: the cpu stacks, else the stacks the input has.", 1, -1,
                "at least one TRACE", cmd_fold},
    [C_FLAME] = {"flame", "FOLDED|TRACE -o F.svg [OPTIONS]",
                 "One interactive SVG flamegraph from folded stacks or a trace.", NULL, 1, 1,
                 "one FOLDED or TRACE file", cmd_flame},
    [C_DIFF] = {"diff", "BASE CURRENT [-o DIR] [OPTIONS]",
                "Regression report; exit 1 when a metric regressed.",
                "BASE and CURRENT are summary.json files written by tracedoc, or traces.\n"
                "-o DIR writes DIR/regression.csv and DIR/summary.json.",
                2, 2, "BASE and CURRENT (summary.json files or traces)", cmd_diff},
    [C_STACK] = {"stack-trace", "ARTIFACTS [-o NAME_chrome_tracing_report.json]",
                 "SambaTune-style stack-tracing report (Chrome trace JSON).",
                 "ARTIFACTS is a stack-tracing artifact set (a directory or .tar.gz of the\n"
                 "layer CSV files, README \"SambaNova stack tracing\") or such a report.\n"
                 "Without -o: NAME_chrome_tracing_report.json, NAME from the input's name.",
                 1, 1, "one ARTIFACTS directory, archive or report", cmd_stack_trace},
    [C_SUMMARIZE] = {"summarize", "TRACE... -o PART.tds [OPTIONS]",
                     "Partial summary of some ranks (usually one), for merge.",
                     "Run it where each rank's trace is; then 'tracedoc merge' the parts.", 1, -1,
                     "at least one TRACE", cmd_summarize},
    [C_MERGE] = {"merge", "PART.tds... -o DIR|MERGED.tds [OPTIONS]",
                 "The report of partial summaries, or one partial of them.",
                 "-o DIR writes the documents as report does (report's options apply);\n"
                 "-o NAME.tds writes the merged partial (merge in a tree). Analysis options\n"
                 "are those the parts were made with.", 1, -1, "at least one PART.tds",
                 cmd_merge},
    [C_HISTORY] = {"history", "RUNS.db [--metric NAME] [--keep N] [--older-than DAYS]",
                   "List the runs of a --history database, export a metric's series, prune.",
                   "Without options: one line per run. --metric NAME: the metric's series as\n"
                   "CSV (names as in summary.json `comparisons`, e.g. step.median_ns).\n"
                   "--keep N / --older-than DAYS delete older runs.",
                   1, 1, "one history database (runs.db)", cmd_history},
    [C_EXPORT] = {"export", "TRACE... --format chrome [-o FILE|-]",
                  "What tracedoc read, as Chrome Trace Event JSON (Perfetto, chrome://tracing).",
                  "Every input kind: Kineto/Chrome JSON (as read), Nsight Systems SQLite,\n"
                  "nsys-jax archives, IBM AIU traces (host pairs and device time), Graphcore\n"
                  "IPU exports (steps, lightweight profiling), SambaTune artifacts (as\n"
                  "stack-trace writes them). Several inputs: one file, pids per input.\n"
                  "Without -o: standard output.",
                  1, -1, "at least one TRACE", cmd_export},
};

static const td_cli_opt opts[] = {
    {"output", 'o', "DIR", REPORT, "output directory (default out)", set_out_dir, 0},
    {"output", 'o', "DIR", DIFF, "also write regression.csv, changes.csv, summary.json,\n"
     "report.md and junit.xml in DIR",
     set_out_dir, 0},
    {"output", 'o', "FILE", FOLD | SUMMARY, "output file ('-': stdout, the default)",
     td_cli_set_str, OFF(out)},
    {"output", 'o', "FILE", FLAME, "output SVG file ('-': stdout)", td_cli_set_str, OFF(out)},
    {"output", 'o', "FILE", EXPORT, "the Chrome trace ('-': stdout, the default)", td_cli_set_str,
     OFF(out)},
    {"format", 0, "chrome", EXPORT, "output format (chrome: Chrome Trace Event JSON, the default)",
     set_export_format, 0},
    {"output", 'o', "FILE", STACK, "the report (default NAME_chrome_tracing_report.json)",
     td_cli_set_str, OFF(out)},
    {"output", 'o', "PART.tds", SUMMARIZE, "the partial summary to write", td_cli_set_str,
     OFF(out)},
    {"output", 'o', "DIR|NAME.tds", MERGE, "documents directory, or a merged partial (.tds)",
     td_cli_set_str, OFF(out)},
    {"template", 0, "NAME|FILE", REPORT | MERGE | DIFF, "bug-report (default), nightly, manager, or a .tdt\n"
     "file (diff: its tolerances)",
     td_cli_set_str, OFF(tpl)},
    {"format", 0, "LIST", REPORT | MERGE, "subset of pdf,xlsx,svg,json,csv,folded,md,junit (default:\n"
     "the template's)", set_report_format, 0},
    {"format", 0, "text|json|csv", SUMMARY, "output format (default text); csv needs --table",
     set_summary_format, 0},
    {"table", 0, "NAME", SUMMARY, "one table (ops, kernels, steps, modules, collectives,\n"
     "gpu_timeline, ...)", td_cli_set_str, OFF(table)},
    {"top", 0, "N", SUMMARY, "rows per table in text output (default 15)", set_top, 0},
    {"baseline", 0, "SUMMARY.json", REPORT | MERGE, "compare with a baseline summary (changes table,\n"
     "exit 1 when a metric regressed, 6 when nothing is comparable)", td_cli_set_str,
     OFF(baseline)},
    {"history", 0, "RUNS.db", REPORT, "compare with the comparable runs of a SQLite history\n"
     "(change points; exit 1 / 6 as --baseline) and record this run", td_cli_set_str,
     OFF(history)},
    {"tolerance", 0, "F", REPORT | DIFF | MERGE, "smallest relative change reported (default 0.05, or\n"
     "the template's `tolerance`)", set_tolerance, 0},
    {"metric", 0, "NAME", HISTORY, "one metric's series as CSV", td_cli_set_str, OFF(metric)},
    {"keep", 0, "N", HISTORY, "delete all but the newest N runs", set_keep, 0},
    {"older-than", 0, "DAYS", HISTORY, "delete runs older than DAYS days", set_older, 0},
    {"format", 0, "text|csv", HISTORY, "run list format (default text; csv with --metric)",
     set_history_format, 0},
    {"output", 'o', "FILE", HISTORY, "output file (default stdout)", td_cli_set_str, OFF(out)},
    {"stacks", 0, "KIND", FOLD | FLAME, "cpu, device, ops, compile, source or opname (XLA:\n"
     "the notebook's Python source and HLO op_name views), ipu (IPU step names, cycles)\n"
     "(default cpu)", set_stacks, 0},
    {"title", 0, "TEXT", FLAME, "SVG title", td_cli_set_str, OFF(title)},
    {"diff", 0, "BASE", FLAME, "differential flamegraph: the input against BASE (folded\n"
     "stacks or a trace); red grew, blue shrank", td_cli_set_str, OFF(diff)},
    {"normalize", 0, NULL, FLAME, "with --diff: scale BASE to the input's total (as\n"
     "difffolded.pl -n)", td_cli_set_flag, OFF(normalize)},
    {"paper", 0, "a4|letter", REPORT | MERGE, "PDF paper size (default a4, or the template's)", set_paper,
     0},
    {"minwidth", 0, "F", REPORT | FLAME | MERGE, "prune flamegraph frames narrower than F of the total\n"
     "(default 0.001)", td_cli_set_fraction, OFF(minwidth)},
    {"icicle", 0, NULL, REPORT | FLAME | MERGE, "SVG flamegraphs top-down", td_cli_set_flag, OFF(icicle)},
    {"timings", 0, NULL, REPORT | MERGE, "print read/analyse/render times on stderr", td_cli_set_flag,
     OFF(timings)},
    {"meta", 0, "KEY=VALUE", REPORT | SUMMARY | DIFF | MERGE | SUMMARIZE, "run metadata (commit, branch, workload...),\n"
     "repeatable; diff: the CURRENT side; summarize: kept in the part", set_meta, 0},
    {"warmup", 0, "auto|N|none", ANALYSIS, "drop warm-up steps/executions (default auto)",
     set_warmup, 0},
    {"threshold", 0, "F", ANALYSIS, "top-module cut-off, fraction of time (default 0.01)",
     td_cli_set_fraction, OFF(o.threshold)},
    {"compile-passes", 0, NULL, ANALYSIS, "XLA compile phases: keep XlaPass ranges apart",
     td_cli_set_flag, OFF(o.compile_passes)},
    {"step-pattern", 0, "REGEX", ANALYSIS, "user iteration ranges (default ProfilerStep#N,\n"
     "iteration_N)", td_cli_set_str, OFF(o.step_pattern)},
    {"module-pattern", 0, "REGEX", ANALYSIS, "Kineto module ranges (default: the steps)",
     td_cli_set_str, OFF(o.module_pattern)},
    {"aiu-freq", 0, "SOC[:CORE]", ANALYSIS | EXPORT, "IBM AIU clocks in MHz (default: SoC implied by the\n"
     "trace, core 1100)", set_aiu_freq, 0},
    {"compile-log", 0, "FILE", ANALYSIS, "DeepRT compile log (ideal cycles per kernel),\n"
     "repeatable", set_compile_log, 0},
    {"telemetry", 0, "FILE", ANALYSIS, "aiu-smi / nvidia-smi (dmon or --query-gpu csv) or CSV\n"
     "with a timestamp column, sampled while profiling; repeatable", set_telemetry, 0},
    {"telemetry-offset", 0, "S", ANALYSIS, "seconds added to every telemetry sample time",
     set_telemetry_offset, 0},
    {"telemetry-start", 0, "TIME", ANALYSIS, "first sample's UTC time for monitors that print\n"
     "no dates", set_telemetry_start, 0},
    {"expect", 0, "TEXT", REPORT, "what you expected (\"latency 12 ms\"), for the perf-report\n"
     "checklist", set_expect, 0},
    {"show-flushes", 0, NULL, ANALYSIS | EXPORT, "IPU lightweight profiling: keep buffer-flush blocks",
     td_cli_set_flag, OFF(o.show_flushes)},
    {"help", 'h', NULL, TD_ALL_CMDS, "this help", NULL, 0},
    {"version", 0, NULL, TD_ALL_CMDS, "print the version", NULL, 0},
};

static const td_cli the_cli = {
    "tracedoc", TD_VERSION, cmds, sizeof cmds / sizeof cmds[0], opts, sizeof opts / sizeof opts[0],
    "TRACE is a file (Chrome/Kineto JSON, plain or gzip; Nsight Systems SQLite;\n"
    "nsys-jax .zip; IBM AIU runtime trace or DeepRT compile log; stack-tracing CSV;\n"
    "tracedoc.ipu/1 export of a Graphcore PopVision report), '-' for stdin, a\n"
    "directory, or a .tar/.tar.gz of traces.\n"
    "Exit status: 0 ok, 1 a metric regressed (diff, report --baseline/--history),\n"
    "2 usage error or bad template, 3 unreadable or invalid input (or inputs that are\n"
    "not ranks of one job), 4 cannot write output, 5 internal error, 6 nothing\n"
    "comparable (diff, report --baseline/--history).\n"};

/* Progress for long work, only when stderr is a terminal (quiet in scripts and CI). */
static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(STDERR_FILENO);
    if (!tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

/* one_job: refuse traces that are not ranks of one job (model/job.h); export, which lays
 * inputs side by side in a viewer, takes any. */
static td_traceset *read_all(const cli *c, char **inputs, int ninputs, td_err *e,
                             td_status *st, int one_job)
{
    td_traceset *set = td_traceset_new();
    for (int i = 0; i < c->ncomplog; i++) {
        *st = td_read_complog_file(set, c->complog[i], e);
        if (*st != TD_OK) {
            td_traceset_free(set);
            return NULL;
        }
    }
    for (int i = 0; i < ninputs; i++) {
        progress("reading %s (%d of %d)", inputs[i], i + 1, ninputs);
        *st = td_read_input(set, inputs[i], e);
        if (*st != TD_OK) {
            td_traceset_free(set);
            return NULL;
        }
    }
    for (int i = 0; i < c->ntelemetry; i++) {
        *st = td_read_telemetry_file(set, c->telemetry[i], c->telemetry_start, e);
        if (*st != TD_OK) {
            td_traceset_free(set);
            return NULL;
        }
    }
    /* before td_read_finish numbers the ranks: the ranks as the traces declare them */
    if (one_job && (*st = td_job_check(set, e)) != TD_OK) {
        td_traceset_free(set);
        return NULL;
    }
    td_read_finish(set);
    return set;
}

static void print_warnings(const td_traceset *set)
{
    size_t shown = set->warnings.n < 20 ? set->warnings.n : 20;
    for (size_t i = 0; i < shown; i++)
        say("warning: %s", set->warnings.msg[i]);
    if (set->warnings.n > shown)
        say("warning: %zu more warnings (see summary.json)",
                set->warnings.n - shown);
}

static td_summary *analyse_inputs(const cli *c, char **inputs, int ninputs, int64_t *t_read,
                                  int64_t *t_an)
{
    td_err e = {0};
    td_status st = TD_OK;
    int64_t t0 = td_now_ns();
    td_traceset *set = read_all(c, inputs, ninputs, &e, &st, 1);
    if (!set)
        fail(&e);
    int64_t t1 = td_now_ns();
    print_warnings(set);
    td_summary *s = td_summary_new();
    progress("analysing %zu trace%s", set->n, set->n == 1 ? "" : "s");
    st = td_analyse(set, &c->o, s, &e);
    if (st != TD_OK)
        fail(&e);
    /* the analysis's own warnings (limits reached...), not the reader's again */
    for (size_t i = 0; i < s->nwarnings; i++) {
        size_t k = 0;
        while (k < set->warnings.n && strcmp(set->warnings.msg[k], s->warnings[i]))
            k++;
        if (k == set->warnings.n)
            say("warning: %s", s->warnings[i]);
    }
    td_traceset_free(set);
    int64_t t2 = td_now_ns();
    if (t_read)
        *t_read = t1 - t0;
    if (t_an)
        *t_an = t2 - t1;
    return s;
}

/* --meta pairs become meta.KEY scalars (validated by set_meta). */
static void apply_meta(const cli *c, td_summary *s)
{
    for (int i = 0; i < c->nmeta; i++) {
        td_err e = {0};
        if (td_sum_set_meta(s, c->meta[i], &e) != TD_OK)
            fail(&e);
    }
}

/* 1 when every input is a partial summary (.tds), 0 when none is; mixing is an error. */
static int partial_inputs(const cli *c, const char *cmd)
{
    int np = 0;
    for (int i = 0; i < c->ninputs; i++)
        np += td_is_partial(c->inputs[i]);
    if (np && np != c->ninputs)
        die(TD_EXIT_USAGE, "%s: partial summaries (.tds) and traces cannot be mixed (run "
            "'tracedoc summarize' on the traces first)", cmd);
    return np > 0;
}

/* Merge the partial summaries given, one file at a time (bounded memory). */
static td_partial *merge_parts(const cli *c, const char *cmd)
{
    td_opts def;
    td_opts_default(&def);
    if (c->o.warmup != def.warmup || c->o.threshold != def.threshold || c->o.step_pattern ||
        c->o.module_pattern)
        die(TD_EXIT_USAGE, "%s: analysis options are those the parts were made with (give "
            "them to 'tracedoc summarize')", cmd);
    td_partial *p = td_partial_new();
    for (int i = 0; i < c->ninputs; i++) {
        td_err e = {0};
        if (!td_is_partial(c->inputs[i])) {
            if (access(c->inputs[i], R_OK) != 0)
                die(TD_EXIT_INPUT, "%s: cannot open: %s", c->inputs[i], strerror(errno));
            die(TD_EXIT_INPUT, "%s: not a partial summary (.tds); make one with 'tracedoc "
                "summarize'", c->inputs[i]);
        }
        progress("merging %s (%d of %d)", c->inputs[i], i + 1, c->ninputs);
        if (td_partial_merge_file(p, c->inputs[i], &e) != TD_OK)
            fail(&e);
    }
    return p;
}

static td_summary *merged_summary(const cli *c, const char *cmd, int64_t *t_read)
{
    int64_t t0 = td_now_ns();
    td_partial *p = merge_parts(c, cmd);
    td_opts o;
    td_summary *s = td_partial_finish(p, &o);
    td_partial_free(p);
    if (t_read)
        *t_read = td_now_ns() - t0;
    return s;
}

static td_summary *summary_of(const cli *c, char *input);
static void stacks_beside(td_summary *s, const char *json_path);

/* Traces are read and analysed; partial summaries (.tds) are merged; one summary.json
 * input is loaded as it is (report and summary from a stored run). */
static td_summary *read_and_analyse(const cli *c, int64_t *t_read, int64_t *t_an)
{
    int json = c->ninputs == 1 && td_is_summary_json(c->inputs[0]);
    td_summary *s = json ? summary_of(c, c->inputs[0])
                    : partial_inputs(c, "tracedoc") ? merged_summary(c, "tracedoc", t_read)
                                                    : analyse_inputs(c, c->inputs, c->ninputs,
                                                                     t_read, t_an);
    if (json) /* a stored run: its stacks when they were stored beside it */
        stacks_beside(s, c->inputs[0]);
    apply_meta(c, s);
    return s;
}

/* A summary.json is loaded as it is; anything else is read as a trace and analysed. */
static td_summary *summary_of(const cli *c, char *input)
{
    if (td_is_summary_json(input)) {
        td_err e = {0};
        td_summary *s = NULL;
        if (td_summary_load_json(input, &s, &e) != TD_OK)
            fail(&e);
        return s;
    }
    return analyse_inputs(c, &input, 1, NULL, NULL);
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stacks stored beside a summary.json: the KIND.folded files that a report with the
 * folded document (the nightly template writes it) left in the same directory. */
static void stacks_beside(td_summary *s, const char *json_path)
{
    if (!td_is_summary_json(json_path))
        return;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", json_path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        const char *const *kinds = td_flame_kinds; /* not "diff": a drawing, not stacks */
        for (size_t k = 0; kinds[k]; k++)
            if (strcmp(kinds[k], "diff") && l == strlen(kinds[k]) + 7 &&
                !strncmp(de->d_name, kinds[k], l - 7) && !strcmp(de->d_name + l - 7, ".folded"))
                *TD_PUSH(names, n, cap) = td_xstrdup(de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_cstr);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX + 300], kind[256];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        snprintf(kind, sizeof kind, "%.*s", (int)(strlen(names[i]) - 7), names[i]);
        td_summary *fs = NULL;
        td_flame *ffl = NULL;
        td_err e = {0};
        const td_flame *had = td_sum_find_flame(s, kind); /* titled by summary.json */
        if (td_folded_try_read(path, kind, &fs, &ffl, &e) != TD_OK)
            say("warning: baseline stacks not used: %s", e.msg);
        else if (fs && !ffl->diff && (!had || (!had->n && !had->tree))) {
            td_flame *fl = td_sum_flame(s, kind, kind);
            fl->tree = ffl->tree;
            ffl->tree = NULL;
            fl->unit = ffl->unit;
            fl->cycles = ffl->cycles;
        }
        td_summary_free(fs);
        free(names[i]);
    }
    free(names);
}

/* Differential flames of cur against base (report --baseline, diff): said on stderr. */
static void diff_flames(td_summary *cur, const td_summary *base, const char *label)
{
    td_err e = {0};
    if (td_flame_diffs(cur, cur, base, label, &e) < 0)
        say("warning: no differential flamegraph: %s", e.msg);
}

static td_status write_json_cb(FILE *f, void *ctx, td_err *e)
{
    return td_summary_write_json(ctx, f, e);
}

static td_status write_folded_cb(FILE *f, void *ctx, td_err *e)
{
    return td_flame_write_folded(ctx, f, e);
}

static td_status write_csv_cb(FILE *f, void *ctx, td_err *e)
{
    return td_table_write_csv(ctx, f, e);
}

static td_status write_text_cb(FILE *f, void *ctx, td_err *e)
{
    (void)e;
    td_table_write_text(ctx, f, 0);
    return TD_OK;
}

typedef struct summary_out {
    const td_summary *s;
    const cli *c;
    const char *fmt;
} summary_out;

/* summary's output: JSON, one table as CSV, or the readable text (scalar key figures
 * first, then the findings and the tables). */
static td_status write_summary_cb(FILE *f, void *ctx, td_err *e)
{
    const summary_out *so = ctx;
    const td_summary *s = so->s;
    const cli *c = so->c;
    if (strcmp(so->fmt, "json") == 0)
        return td_summary_write_json(s, f, e);
    if (strcmp(so->fmt, "csv") == 0)
        return td_table_write_csv(td_sum_find_table(s, c->table), f, e);
    for (size_t i = 0; i < s->nkv; i++) {
        char v[256];
        td_col col = {s->kv[i].key, s->kv[i].title, s->kv[i].type};
        td_cell_format(&col, &s->kv[i].v, v, sizeof v);
        if (strcmp(s->kv[i].key, "schema") != 0)
            fprintf(f, "%-32s %s\n", s->kv[i].title, v);
    }
    for (size_t i = 0; i < s->nfindings; i++)
        fprintf(f, "%s %s\n", i ? "  " : "\nFindings:\n  ", s->findings[i]);
    for (size_t i = 0; i < s->ntables; i++) {
        const td_table *t = s->tables[i];
        if ((c->table && strcmp(t->name, c->table)) || !t->nrows)
            continue;
        fputc('\n', f);
        td_table_write_text(t, f, c->table ? 0 : (size_t)c->o.top);
    }
    return TD_OK;
}

static int cmd_summary(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    const char *fmt = c.format ? c.format : "text";
    if (strcmp(fmt, "csv") == 0 && !c.table)
        td_cli_usage_error("summary: --format csv needs --table NAME");
    td_summary *s = read_and_analyse(&c, NULL, NULL);
    td_err e = {0};
    td_status st = TD_OK;
    if (c.table && !td_sum_find_table(s, c.table)) {
        td_buf b = {0};
        for (size_t i = 0; i < s->ntables; i++)
            td_buf_printf(&b, "%s%s", i ? ", " : "", s->tables[i]->name);
        say("summary: no table '%s' for this input (tables: %s)", c.table,
                td_buf_cstr(&b));
        td_buf_free(&b);
        td_summary_free(s);
        return TD_EXIT_USAGE;
    }
    summary_out so = {s, &c, fmt};
    st = td_write_atomic_cb(c.out ? c.out : "-", write_summary_cb, &so, &e);
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

/* The stacks to fold or draw: the kind asked for, else "cpu", else the first kind the
 * input has (an nsys-jax archive has device and compile stacks but no CPU stacks). */
static td_flame *pick_flame(const td_summary *s, const char *asked)
{
    td_flame *fl = td_sum_find_flame(s, asked ? asked : "cpu");
    if ((fl && fl->n) || asked)
        return fl && fl->n ? fl : NULL;
    static const char *const order[] = {"device", "compile", "ops", "ipu"};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if ((fl = td_sum_find_flame(s, order[i])) && fl->n) {
            say("no cpu stacks in this input; using the %s stacks (--stacks chooses)", order[i]);
            return fl;
        }
    return NULL;
}

static void no_stacks(const td_summary *s, const char *asked)
{
    td_buf b = {0};
    for (size_t i = 0; i < s->nflames; i++)
        if (s->flames[i]->n)
            td_buf_printf(&b, "%s%s", b.n ? ", " : "", s->flames[i]->kind);
    say("warning: no %s stacks in this input (it has: %s)",
            asked ? asked : "cpu", b.n ? td_buf_cstr(&b) : "none");
    td_buf_free(&b);
}

static int cmd_fold(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    td_summary *s = read_and_analyse(&c, NULL, NULL);
    const char *kind = c.stacks ? c.stacks : "cpu";
    td_flame *fl = pick_flame(s, c.stacks);
    td_flame empty = {kind, kind, NULL, 0, 0};
    if (!fl) {
        no_stacks(s, c.stacks);
        fl = &empty; /* an input without stacks folds to nothing */
    }
    td_err e = {0};
    td_status st;
    st = td_write_atomic_cb(c.out ? c.out : "-", write_folded_cb, fl, &e);
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

static td_render_opts render_opts(const cli *c, const td_template *t)
{
    td_render_opts r;
    memset(&r, 0, sizeof r);
    r.paper = c->paper ? c->paper : (t && t->paper[0]) ? t->paper : "a4";
    r.epoch = td_source_date_epoch();
    r.minwidth = c->minwidth >= 0 ? c->minwidth : (t && t->minwidth >= 0) ? t->minwidth : 0.001;
    r.icicle = c->icicle || (t && t->icicle);
    r.version = TD_VERSION;
    static char fontdir[PATH_MAX + 16];
    snprintf(fontdir, sizeof fontdir, "%s/fonts", datadir);
    r.fontdir = fontdir;
    return r;
}

/* The stacks of one `flame` input (folded text or a trace) of the kind asked for (or
 * the first the input has); exits when there are none. */
static td_summary *flame_input(const cli *c, const char *path, const char *kind, td_flame **fl)
{
    td_err e = {0};
    td_summary *s = NULL;
    td_status st = td_folded_try_read(path, kind ? kind : "cpu", &s, fl, &e);
    if (st != TD_OK)
        fail(&e);
    for (size_t i = 0; s && i < s->nwarnings; i++)
        say("warning: %s", s->warnings[i]);
    if (!s) {
        cli one = *c;
        char *in[1] = {(char *)path};
        one.inputs = in;
        one.ninputs = 1;
        s = read_and_analyse(&one, NULL, NULL);
        *fl = pick_flame(s, kind);
        if (!*fl) {
            no_stacks(s, kind);
            die(TD_EXIT_INPUT, "%s: no %s stacks to draw", path, kind ? kind : "cpu");
        }
    }
    return s;
}

static int cmd_flame(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    if (!c.out)
        td_cli_usage_error("flame: expected -o FILE.svg ('-o -' for stdout)");
    if (c.normalize && !c.diff)
        td_cli_usage_error("flame: --normalize needs --diff BASE");
    td_err e = {0};
    td_flame *fl = NULL;
    td_summary *s = flame_input(&c, c.inputs[0], c.stacks, &fl);
    td_status st;
    if (c.diff) {
        if (fl->diff)
            die(TD_EXIT_USAGE, "%s: already differential (two counts a line); --diff needs "
                "plain stacks", c.inputs[0]);
        td_flame *bfl = NULL;
        /* the baseline's stacks of the same kind as the current ones */
        td_summary *bs = flame_input(&c, c.diff, c.stacks ? c.stacks : fl->kind, &bfl);
        if (bfl->diff)
            die(TD_EXIT_USAGE, "%s: already differential (two counts a line); --diff needs "
                "plain stacks", c.diff);
        if (bfl->cycles != fl->cycles)
            die(TD_EXIT_USAGE, "%s and %s: one counts cycles, the other time: no difference "
                "can be drawn", c.diff, c.inputs[0]);
        td_flametree *o1 = NULL, *o2 = NULL;
        const td_flametree *t1 = td_flame_tree(bfl, &o1), *t2 = td_flame_tree(fl, &o2);
        double k = 1;
        if (c.normalize && t1 && t2 && td_flametree_total(t1) > 0) {
            k = (double)td_flametree_total(t2) / (double)td_flametree_total(t1);
            /* totals in each input's own unit (1 or 1/1000) */
            k *= (double)(bfl->unit > 1 ? bfl->unit : 1) / (double)(fl->unit > 1 ? fl->unit : 1);
        }
        td_flametree_free(o1);
        td_flametree_free(o2);
        char label[PATH_MAX + 64];
        snprintf(label, sizeof label, "%s%s", c.diff, c.normalize ? " (scaled to this total)" : "");
        td_flame *d = td_flame_make_diff(s, "diff", fl, bfl, k, label, &e);
        td_summary_free(bs);
        if (!d)
            fail(&e);
        fl = d;
    }
    if (c.title)
        fl->title = td_arena_strdup(s->a, c.title);
    td_render_opts r = render_opts(&c, NULL);
    st = td_render_svg(s, fl, &r, c.out, &e);
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

static void timing(int on, const char *what, int64_t ns)
{
    if (on)
        say("timings: %-14s %10.3f ms", what, (double)ns / 1e6);
}

/* Write the documents in mask (TD_DOC_*) into out, in a fixed order. */
static td_status render_docs(const td_summary *s, const td_template *t, const td_render_opts *r,
                             const char *out, unsigned mask, int timings, td_err *e)
{
    char path[PATH_MAX + 64];
    td_status st = TD_OK;
    int64_t t0 = td_now_ns();
    if (mask & TD_DOC_XLSX) {
        snprintf(path, sizeof path, "%s/report.xlsx", out);
        if ((st = td_render_xlsx(s, t, r, path, e)) != TD_OK)
            return st;
        timing(timings, "render xlsx", td_now_ns() - t0);
    }
    if (mask & TD_DOC_JSON) {
        t0 = td_now_ns();
        snprintf(path, sizeof path, "%s/summary.json", out);
        if ((st = td_write_atomic_cb(path, write_json_cb, (void *)s, e)) != TD_OK)
            return st;
        timing(timings, "render json", td_now_ns() - t0);
    }
    if (mask & TD_DOC_CSV) {
        t0 = td_now_ns();
        for (size_t i = 0; i < s->ntables; i++) {
            char name[256];
            td_outdir_csv_name(s->tables[i]->name, name, sizeof name);
            snprintf(path, sizeof path, "%s/%s", out, name);
            if ((st = td_write_atomic_cb(path, write_csv_cb, s->tables[i], e)) != TD_OK)
                return st;
        }
        timing(timings, "render csv", td_now_ns() - t0);
    }
    if (mask & TD_DOC_MD) {
        t0 = td_now_ns();
        snprintf(path, sizeof path, "%s/report.md", out);
        if ((st = td_render_md(s, path, e)) != TD_OK)
            return st;
        timing(timings, "render md", td_now_ns() - t0);
    }
    if (mask & TD_DOC_JUNIT) {
        t0 = td_now_ns();
        snprintf(path, sizeof path, "%s/junit.xml", out);
        if ((st = td_render_junit(s, path, e)) != TD_OK)
            return st;
        timing(timings, "render junit", td_now_ns() - t0);
    }
    if (mask & TD_DOC_FOLDED) {
        t0 = td_now_ns();
        for (size_t i = 0; i < s->nflames; i++) {
            if (!s->flames[i]->n && !s->flames[i]->tree)
                continue;   /* no stacks (a stored run's title without its stacks) */
            snprintf(path, sizeof path, "%s/%s.folded", out, s->flames[i]->kind);
            if ((st = td_write_atomic_cb(path, write_folded_cb, s->flames[i], e)) != TD_OK)
                return st;
        }
        timing(timings, "render folded", td_now_ns() - t0);
    }
    if (mask & TD_DOC_SVG) {
        t0 = td_now_ns();
        for (size_t i = 0; i < s->nflames; i++) {
            if (!td_flame_has_stacks(s->flames[i]))
                continue;
            snprintf(path, sizeof path, "%s/flame-%s.svg", out, s->flames[i]->kind);
            if ((st = td_render_svg(s, s->flames[i], r, path, e)) != TD_OK)
                return st;
        }
        timing(timings, "render svg", td_now_ns() - t0);
    }
    if (mask & TD_DOC_PDF) {
        t0 = td_now_ns();
        snprintf(path, sizeof path, "%s/report.pdf", out);
        if ((st = td_render_pdf(s, t, r, path, e)) != TD_OK)
            return st;
        timing(timings, "render pdf", td_now_ns() - t0);
    }
    return TD_OK;
}

/* Detection options: --tolerance, else the template's `tolerance`, else 5%; the
 * template's per-metric tolerances. */
static td_detect_opts detect_opts(const cli *c, const td_template *t)
{
    td_detect_opts o;
    td_detect_opts_default(&o);
    o.min_effect = c->tol_set ? c->tolerance : (t && t->tolerance >= 0) ? t->tolerance : 0.05;
    if (t) {
        o.tols = t->tols;
        o.ntols = t->ntols;
    }
    return o;
}

static int exit_for_changes(int r)
{
    return r == TD_CHG_REGRESSED ? TD_EXIT_REGRESSED
           : r == TD_CHG_NOT_COMPARABLE ? TD_EXIT_NOT_COMPARABLE
                                        : TD_EXIT_OK;
}

/* The template's name for comparability: NAME, or the file's base name without .tdt. */
static void set_template_name(td_summary *s, const char *tpl)
{
    char name[256];
    const char *b = strrchr(tpl, '/');
    snprintf(name, sizeof name, "%s", b ? b + 1 : tpl);
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, ".tdt"))
        name[n - 4] = 0;
    td_sum_set_str(s, "report.template", "Template", name);
}

static int cmd_report(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    const char *out = c.out ? c.out : "out";
    td_err e = {0};
    char tdir[PATH_MAX + 16];
    snprintf(tdir, sizeof tdir, "%s/templates", datadir);
    td_template *t = NULL;
    td_status st = td_template_load(c.tpl ? c.tpl : "bug-report", tdir, &t, &e);
    if (st != TD_OK)
        fail(&e);
    unsigned docs = c.format ? parse_formats(&opts[0], c.format) : t->documents;
    int64_t t_read = 0, t_an = 0;
    td_summary *base = NULL;
    if (c.baseline) {
        if (td_summary_load_json(c.baseline, &base, &e) != TD_OK)
            fail(&e);
    }
    if (c.baseline && c.history)
        td_cli_usage_error("report: give --baseline or --history, not both");
    td_histdb *hdb = NULL;
    if (c.history && td_history_open(c.history, 1, &hdb, &e) != TD_OK)
        fail(&e);
    td_summary *s = read_and_analyse(&c, &t_read, &t_an);
    set_template_name(s, c.tpl ? c.tpl : "bug-report");
    td_detect_opts dopt = detect_opts(&c, t);
    int verdict = TD_CHG_OK;
    if (base || hdb) /* a stored run compared before is compared anew */
        td_summary_drop_comparison(s);
    if (base) {
        td_regression(base, c.baseline, s, dopt.min_effect);
        verdict = td_changes_two(base, c.baseline, s, &dopt);
        stacks_beside(base, c.baseline);
        if (verdict != TD_CHG_NOT_COMPARABLE)
            diff_flames(s, base, c.baseline);
        td_summary_free(base);
    }
    if (hdb) {
        td_hist *h = NULL;
        if (td_history_load(hdb, s, 100, &h, &e) != TD_OK)
            fail(&e);
        dopt.max_p = 0.001;
        verdict = td_changes_series(h, c.history, s, &dopt);
        int made = 0;
        if (verdict != TD_CHG_NOT_COMPARABLE && td_history_diff_flames(hdb, h, s, &made, &e) != TD_OK)
            fail(&e);
        td_hist_free(h);
    }
    if (c.expect)
        td_sum_set_str(s, "report.expect", "Expected", c.expect);
    td_checklist(s);
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        die(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", out, strerror(errno));
    timing(c.timings, "read", t_read);
    timing(c.timings, "analyse", t_an);
    td_render_opts r = render_opts(&c, t);
    int64_t t_render = td_now_ns();
    progress("writing the documents to %s", out);
    /* Two cores share the rendering (the summary is read-only from here on): a child
     * process writes the workbook and the text outputs while this one writes the SVGs
     * and the PDF, the costliest document. If fork fails, everything is written here. */
    const unsigned in_child = TD_DOC_XLSX | TD_DOC_JSON | TD_DOC_CSV | TD_DOC_FOLDED | TD_DOC_MD |
                              TD_DOC_JUNIT;
    pid_t kid = -1;
    int pfd[2] = {-1, -1}; /* the child's error message, printed by this process */
    if ((docs & in_child) && (docs & ~in_child) && pipe(pfd) == 0) {
        fflush(stdout);
        fflush(stderr);
        kid = fork();
        if (kid == 0) {
            close(pfd[0]);
            st = render_docs(s, t, &r, out, docs & in_child, c.timings, &e);
            if (st != TD_OK && write(pfd[1], e.msg, strnlen(e.msg, sizeof e.msg)) < 0)
                st = TD_E_INTERNAL;
            _exit(exit_for(st)); /* no atexit handlers: the parent owns the cleanup */
        }
        close(pfd[1]);
        if (kid < 0)
            close(pfd[0]);
    }
    st = render_docs(s, t, &r, out, kid > 0 ? docs & ~in_child : docs, c.timings, &e);
    int code = exit_for(st);
    if (st != TD_OK)
        say("%s", e.msg);
    if (kid > 0) {
        int status = 0;
        while (waitpid(kid, &status, 0) < 0 && errno == EINTR)
            ;
        char msg[sizeof e.msg];
        ssize_t n = read(pfd[0], msg, sizeof msg - 1);
        close(pfd[0]);
        msg[n > 0 ? n : 0] = 0;
        if (n > 0 && (st == TD_OK || strcmp(msg, e.msg)))
            say("%s", msg);
        if (code == TD_EXIT_OK && (!WIFEXITED(status) || WEXITSTATUS(status) != 0))
            code = WIFEXITED(status) ? WEXITSTATUS(status) : TD_EXIT_INTERNAL;
    }
    if (code != TD_EXIT_OK)
        exit(code);
    /* the directory now holds this run's documents: what an earlier run left there
     * and this one did not write again goes (cli/outdir.h) */
    size_t nnames;
    char **names = td_outdir_names(s, docs, &nnames);
    st = td_outdir_sweep(out, names, nnames, &e);
    td_outdir_names_free(names, nnames);
    if (st != TD_OK)
        fail(&e);
    timing(c.timings, "render (all)", td_now_ns() - t_render);
    if (hdb) { /* recorded once its documents are written */
        if (td_history_append(hdb, s, &e) != TD_OK)
            fail(&e);
        td_history_close(hdb);
    }
    const td_kv *v = td_sum_get(s, "verdict"); /* one line for the CI log */
    if (v && v->type == TD_T_TEXT && v->v.s)
        printf("%s\n", v->v.s);
    td_template_free(t);
    td_summary_free(s);
    return exit_for_changes(verdict);
}

static int cmd_summarize(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    if (!c.out)
        die(TD_EXIT_USAGE, "summarize: expected -o FILE.tds");
    if (partial_inputs(&c, "summarize"))
        die(TD_EXIT_USAGE, "summarize: the inputs are partial summaries already (use merge)");
    td_err e = {0};
    td_status st = TD_OK;
    td_traceset *set = read_all(&c, c.inputs, c.ninputs, &e, &st, 1);
    if (!set)
        fail(&e);
    print_warnings(set);
    td_summary *s = td_summary_new();
    td_partial *p = td_partial_new();
    progress("analysing %zu trace%s", set->n, set->n == 1 ? "" : "s");
    st = td_analyse_partial(set, &c.o, s, p, &e);
    td_traceset_free(set);
    if (st == TD_OK) {
        apply_meta(&c, s); /* --meta travels in the part (README: merge's rule) */
        td_partial_from_summary(p, s, &c.o);
        st = td_partial_write(p, c.out, &e);
    }
    td_partial_free(p);
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

static int cmd_merge(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    if (!c.out)
        die(TD_EXIT_USAGE, "merge: expected -o DIR (documents) or -o FILE.tds (a partial)");
    size_t n = strlen(c.out);
    if (n < 4 || strcmp(c.out + n - 4, ".tds")) {
        if (!partial_inputs(&c, "merge"))
            die(TD_EXIT_USAGE, "merge: the inputs are not partial summaries (.tds); make them "
                "with 'tracedoc summarize'");
        return cmd_report(ctx, args, nargs);
    }
    td_partial *p = merge_parts(&c, "merge");
    td_err e = {0};
    if (td_partial_write(p, c.out, &e) != TD_OK)
        fail(&e);
    td_partial_free(p);
    return 0;
}

static int cmd_diff(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    td_err e = {0};
    td_template *tp = NULL;
    if (c.tpl) {
        char tdir[PATH_MAX + 16];
        snprintf(tdir, sizeof tdir, "%s/templates", datadir);
        if (td_template_load(c.tpl, tdir, &tp, &e) != TD_OK)
            fail(&e);
    }
    td_summary *base = summary_of(&c, c.inputs[0]);
    td_summary *cur = summary_of(&c, c.inputs[1]);
    td_summary_drop_comparison(cur);   /* a stored run that was compared before */
    apply_meta(&c, cur);
    td_detect_opts dopt = detect_opts(&c, tp);
    td_regression(base, c.inputs[0], cur, dopt.min_effect);
    int verdict = td_changes_two(base, c.inputs[0], cur, &dopt);
    if (c.out && verdict != TD_CHG_NOT_COMPARABLE) {
        stacks_beside(base, c.inputs[0]);
        stacks_beside(cur, c.inputs[1]);
        diff_flames(cur, base, c.inputs[0]);
    }
    td_table *t = td_sum_find_table(cur, "regression.metrics");
    const td_table *ch = td_sum_find_table(cur, "changes");
    if (t) /* the README's contract: diff prints regression.metrics, then the changes */
        td_table_write_text(t, stdout, 0);
    if (ch && ch->nrows)
        td_table_write_text(ch, stdout, 0);
    const td_table *cmpt = td_sum_find_table(cur, "comparability");
    if (verdict == TD_CHG_NOT_COMPARABLE && cmpt)
        td_table_write_text(cmpt, stdout, 0);
    printf("%s\n", td_sum_get(cur, "verdict")->v.s);
    if (c.out) {
        if (mkdir(c.out, 0777) != 0 && errno != EEXIST)
            die(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", c.out, strerror(errno));
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/regression.csv", c.out);
        if (td_write_atomic_cb(path, write_csv_cb, t, &e) != TD_OK)
            fail(&e);
        snprintf(path, sizeof path, "%s/summary.json", c.out);
        if (td_write_atomic_cb(path, write_json_cb, cur, &e) != TD_OK)
            fail(&e);
        if (ch) {
            snprintf(path, sizeof path, "%s/changes.csv", c.out);
            if (td_write_atomic_cb(path, write_csv_cb, (void *)ch, &e) != TD_OK)
                fail(&e);
        }
        snprintf(path, sizeof path, "%s/report.md", c.out);
        if (td_render_md(cur, path, &e) != TD_OK)
            fail(&e);
        snprintf(path, sizeof path, "%s/junit.xml", c.out);
        if (td_render_junit(cur, path, &e) != TD_OK)
            fail(&e);
        td_render_opts r = render_opts(&c, tp);
        for (size_t i = 0; i < cur->nflames; i++) /* flame-diff.svg, flame-diff-KIND.svg */
            if (cur->flames[i]->diff) {
                snprintf(path, sizeof path, "%s/flame-%s.svg", c.out, cur->flames[i]->kind);
                if (td_render_svg(cur, cur->flames[i], &r, path, &e) != TD_OK)
                    fail(&e);
            }
    }
    td_template_free(tp);
    td_summary_free(base);
    td_summary_free(cur);
    return exit_for_changes(verdict);
}

/* tracedoc history DB: list runs, export a metric's series as CSV, prune. */
static int cmd_history(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    (void)nargs;
    const char *db_path = args[0];
    const char *fmt = c.format ? c.format : (c.metric ? "csv" : "text");
    td_err e = {0};
    td_histdb *db = NULL;
    if (access(db_path, F_OK) != 0)
        die(TD_EXIT_INPUT, "%s: %s", db_path, strerror(errno));
    if (td_history_open(db_path, 0, &db, &e) != TD_OK)
        fail(&e);
    if (c.keep || c.older_days > 0) {
        long removed = 0;
        if (td_history_prune(db, c.keep, c.older_days, &removed, &e) != TD_OK)
            fail(&e);
        say("history: removed %ld run%s", removed, removed == 1 ? "" : "s");
        if (!c.metric) {
            td_history_close(db);
            return 0;
        }
    }
    td_summary *s = td_summary_new();
    td_status st = c.metric ? td_history_series(db, c.metric, s, &e) : td_history_runs(db, s, &e);
    td_history_close(db);
    if (st != TD_OK)
        fail(&e);
    td_table *t = td_sum_find_table(s, c.metric ? "history.series" : "history.runs");
    if (c.metric && !t->nrows) {
        td_summary_free(s);
        die(TD_EXIT_USAGE, "history: no metric '%s' in %s (names as in summary.json "
            "`comparisons`, e.g. step.median_ns)", c.metric, db_path);
    }
    if (c.out && strcmp(c.out, "-"))
        st = td_write_atomic_cb(c.out, !strcmp(fmt, "csv") ? write_csv_cb : write_text_cb, t, &e);
    else if (!strcmp(fmt, "csv"))
        st = td_table_write_csv(t, stdout, &e);
    else
        td_table_write_text(t, stdout, 0);
    if (fflush(stdout) != 0 && st == TD_OK)
        st = td_fail(&e, TD_E_OUTPUT, "stdout: write error");
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

/* stack-trace and export: read and analyse the inputs, write one Chrome trace to out
 * (stack: the SambaTune-style report, else every input). */
static int write_chrome(const cli *c, char **args, int nargs, const char *out, int stack)
{
    td_err e = {0};
    td_status st = TD_OK;
    td_traceset *set = read_all(c, args, nargs, &e, &st, stack);
    if (!set)
        fail(&e);
    print_warnings(set);
    td_summary *s = td_summary_new();
    st = td_analyse(set, &c->o, s, &e);
    if (st == TD_OK)
        st = stack ? td_render_stacktrace(set, s, TD_VERSION, out, &e)
                   : td_render_chrome(set, s, &c->o, TD_VERSION, out, &e);
    td_traceset_free(set);
    td_summary_free(s);
    if (st != TD_OK)
        fail(&e);
    return 0;
}

/* stack-trace ARTIFACTS [-o NAME_chrome_tracing_report.json] */
static int cmd_stack_trace(void *ctx, char **args, int nargs)
{
    const cli *c = ctx;
    if (c->out)
        return write_chrome(c, args, nargs, c->out, 1);
    /* NAME from the input's base name, up to its first dot */
    char *tmp = td_xstrdup(args[0]);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = 0;
    const char *b = strrchr(tmp, '/');
    b = b ? b + 1 : tmp;
    size_t bl = strcspn(b, ".");
    char *def = td_xmalloc(bl + 32);
    snprintf(def, bl + 32, "%.*s_chrome_tracing_report.json", (int)bl, b);
    free(tmp);
    int rc = write_chrome(c, args, nargs, def, 1);
    free(def);
    return rc;
}

/* export TRACE... --format chrome [-o FILE|-] */
static int cmd_export(void *ctx, char **args, int nargs)
{
    const cli *c = ctx;
    return write_chrome(c, args, nargs, c->out ? c->out : "-", 0);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    find_datadir();
    cli c;
    memset(&c, 0, sizeof c);
    td_opts_default(&c.o);
    c.minwidth = -1;
    c.tolerance = 0.05;
    c.telemetry_start = INT64_MIN;
    return td_cli_main(&the_cli, argc, argv, &c);
}
