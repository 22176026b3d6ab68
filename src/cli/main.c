/* cli/main.c - the command line: the option and command tables, the option values, and
 * main(), the one place tracedoc exits (with the status td_cli_main or the command
 * returns, cli/exit.h). What tracedoc says is cli/messages.c, the commands are
 * cli/commands.c, the pipeline they run is run/pipeline.c. */
#define _GNU_SOURCE
#include "cli/internal.h"
#include "read/telemetry.h"
#include "summary/template.h"
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- option values (each setter checks its value: a bad one is td_cli_bad_value's
 * status 2) ---- */

static int set_warmup(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (strcmp(v, "auto") == 0)
        c->run.o.warmup = TD_WARMUP_AUTO;
    else if (strcmp(v, "none") == 0)
        c->run.o.warmup = TD_WARMUP_NONE;
    else {
        char *end;
        long n = strtol(v, &end, 10);
        if (*end || end == v || n < 0 || n > 1000000)
            return td_cli_bad_value(opt, "expected auto, none or a step count, got '%s'", v);
        c->run.o.warmup = (int)n;
    }
    return TD_EXIT_OK;
}

static int set_critpath(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "sync") && strcmp(v, "hta"))
        return td_cli_bad_value(opt, "expected sync or hta, got '%s'", v);
    ((cli *)ctx)->run.o.critpath_hta = !strcmp(v, "hta");
    return TD_EXIT_OK;
}

static int set_paper(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "a4") && strcmp(v, "letter"))
        return td_cli_bad_value(opt, "expected a4 or letter, got '%s'", v);
    ((cli *)ctx)->paper = v;
    return TD_EXIT_OK;
}

static int set_top(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 1000000)
        return td_cli_bad_value(opt, "expected a positive number, got '%s'", v);
    c->top = (int)n;
    return TD_EXIT_OK;
}

static int set_stacks(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (!td_flame_kind_known(v))
        return td_cli_bad_value(opt, "expected cpu, device, ops, compile, source, opname, ipu "
                                "or sections, got '%s'", v);
    ((cli *)ctx)->stacks = v;
    return TD_EXIT_OK;
}

static int set_summary_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "text") && strcmp(v, "json") && strcmp(v, "csv"))
        return td_cli_bad_value(opt, "expected text, json or csv, got '%s'", v);
    ((cli *)ctx)->format = v;
    return TD_EXIT_OK;
}

static int set_report_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    unsigned m;
    int rc = td_cli_formats(opt, v, &m); /* checked now, used after the template is loaded */
    if (rc != TD_EXIT_OK)
        return rc;
    ((cli *)ctx)->format = v;
    return TD_EXIT_OK;
}

static int set_meta(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->run.nmeta >= (int)(sizeof c->run.meta / sizeof c->run.meta[0]))
        return td_cli_bad_value(opt, "at most %d pairs",
                                (int)(sizeof c->run.meta / sizeof c->run.meta[0]));
    td_summary *chk = td_summary_new(); /* checked now, before any reading */
    td_err me = {0};
    td_status ms = td_sum_set_meta(chk, v, &me);
    td_summary_free(chk);
    if (ms != TD_OK)
        return td_cli_fail(&me);
    c->run.meta[c->run.nmeta++] = v;
    return TD_EXIT_OK;
}

/* --aiu-freq SOC[:CORE] in MHz, both positive */
static int set_aiu_freq(void *ctx, const td_cli_opt *opt, const char *v)
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
        return td_cli_bad_value(opt, "expected SOC[:CORE] in MHz (e.g. 560:800)");
    c->run.o.aiu_soc_mhz = soc;
    c->run.o.aiu_core_mhz = core;
    return TD_EXIT_OK;
}

/* --peak TFLOPS:TBPS for the roofline, both positive */
static int set_peak(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    char *end, *e2 = NULL;
    errno = 0;
    double tf = strtod(v, &end), tb = 0;
    int ok = !errno && end != v && tf > 0 && tf < 1e7 && *end == ':';
    if (ok) {
        tb = strtod(end + 1, &e2);
        ok = e2 != end + 1 && !*e2 && tb > 0 && tb < 1e5;
    }
    if (!ok)
        return td_cli_bad_value(opt, "expected TFLOPS:TBPS (e.g. 989.4:3.35)");
    c->run.o.peak_tflops = tf;
    c->run.o.peak_tbps = tb;
    return TD_EXIT_OK;
}

static int set_compile_log(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->run.ncomplog >= (int)(sizeof c->run.complog / sizeof c->run.complog[0]))
        return td_cli_bad_value(opt, "at most %d files",
                                (int)(sizeof c->run.complog / sizeof c->run.complog[0]));
    c->run.complog[c->run.ncomplog++] = v;
    return TD_EXIT_OK;
}

static int set_telemetry(void *ctx, const td_cli_opt *opt, const char *v)
{
    cli *c = ctx;
    if (c->run.ntelemetry >= (int)(sizeof c->run.telemetry / sizeof c->run.telemetry[0]))
        return td_cli_bad_value(opt, "at most %d files",
                                (int)(sizeof c->run.telemetry / sizeof c->run.telemetry[0]));
    c->run.telemetry[c->run.ntelemetry++] = v;
    return TD_EXIT_OK;
}

static int set_telemetry_offset(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    errno = 0;
    double sec = strtod(v, &end);
    if (errno || *end || end == v || !(fabs(sec) < 1e9))
        return td_cli_bad_value(opt, "expected seconds (e.g. -3.5)");
    ((cli *)ctx)->run.o.telemetry_offset_ns = (int64_t)llround(sec * 1e9);
    return TD_EXIT_OK;
}

static int set_telemetry_start(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (!td_parse_wallclock(v, strlen(v), &((cli *)ctx)->run.telemetry_start))
        return td_cli_bad_value(opt, "expected a UTC time such as 2025-11-22T08:26:41Z or "
                                "seconds since 1970");
    return TD_EXIT_OK;
}

static int set_expect(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strlen(v) > 1024)
        return td_cli_bad_value(opt, "at most 1024 bytes");
    ((cli *)ctx)->expect = v;
    return TD_EXIT_OK;
}

static int set_tolerance(void *ctx, const td_cli_opt *opt, const char *v)
{
    int rc = td_cli_set_fraction(ctx, opt, v);
    ((cli *)ctx)->tol_set = 1;
    return rc;
}

static int set_keep(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || end == v || n < 1 || n > 100000000)
        return td_cli_bad_value(opt, "expected a positive number of runs, got '%s'", v);
    ((cli *)ctx)->keep = n;
    return TD_EXIT_OK;
}

static int set_older(void *ctx, const td_cli_opt *opt, const char *v)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || *end || end == v || !(d > 0 && d < 1e6))
        return td_cli_bad_value(opt, "expected a positive number of days, got '%s'", v);
    ((cli *)ctx)->older_days = d;
    return TD_EXIT_OK;
}

static int set_history_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "text") && strcmp(v, "csv"))
        return td_cli_bad_value(opt, "expected text or csv, got '%s'", v);
    ((cli *)ctx)->format = v;
    return TD_EXIT_OK;
}

static int set_export_format(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "chrome"))
        return td_cli_bad_value(opt, "expected chrome (Chrome Trace Event JSON), got '%s'", v);
    ((cli *)ctx)->format = v;
    return TD_EXIT_OK;
}

static int set_progress(void *ctx, const td_cli_opt *opt, const char *v)
{
    (void)ctx, (void)opt, (void)v;
    td_cli_progress = 1;
    return TD_EXIT_OK;
}

static int set_out_dir(void *ctx, const td_cli_opt *opt, const char *v)
{
    if (strcmp(v, "-") == 0)
        return td_cli_bad_value(opt, "this command writes several files into a directory; "
                                "'-' (standard output) is for fold, flame and summary");
    ((cli *)ctx)->out = v;
    return TD_EXIT_OK;
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

static const td_cli_cmd cmds[] = {
    [C_REPORT] = {"report", "TRACE... [-o DIR] [OPTIONS]",
                  "PDF, workbook, SVG flamegraphs, summary.json, CSV and folded stacks in DIR.",
                  "The template says which documents and sections; --format picks documents.",
                  1, -1, "at least one TRACE", td_cmd_report},
    [C_SUMMARY] = {"summary", "TRACE... [OPTIONS]",
                   "Readable tables on stdout (or --format json|csv).", NULL, 1, -1,
                   "at least one TRACE", td_cmd_summary},
    [C_FOLD] = {"fold", "TRACE... [-o FILE] [OPTIONS]",
                "Folded stacks ('a;b;c VALUE', ns) on stdout or in FILE.",
                "Without --stacks: the cpu stacks, else the stacks the input has.", 1, -1,
                "at least one TRACE", td_cmd_fold},
    [C_FLAME] = {"flame", "FOLDED|TRACE -o F.svg [OPTIONS]",
                 "One interactive SVG flamegraph from folded stacks or a trace.", NULL, 1, 1,
                 "one FOLDED or TRACE file", td_cmd_flame},
    [C_DIFF] = {"diff", "BASE CURRENT [-o DIR] [OPTIONS]",
                "Regression report; exit 1 when a metric regressed.",
                "BASE and CURRENT are summary.json files written by tracedoc, or traces.\n"
                "-o DIR writes DIR/regression.csv and DIR/summary.json.",
                2, 2, "BASE and CURRENT (summary.json files or traces)", td_cmd_diff},
    [C_STACK] = {"stack-trace", "ARTIFACTS [-o NAME_chrome_tracing_report.json]",
                 "SambaTune-style stack-tracing report (Chrome trace JSON).",
                 "ARTIFACTS is a stack-tracing artifact set (a directory or .tar.gz of the\n"
                 "layer CSV files, doc/formats.md \"SambaNova stack tracing\") or such a report.\n"
                 "Without -o: NAME_chrome_tracing_report.json, NAME from the input's name.",
                 1, 1, "one ARTIFACTS directory, archive or report", td_cmd_stack_trace},
    [C_SUMMARIZE] = {"summarize", "TRACE... -o PART.tds [OPTIONS]",
                     "Partial summary of some ranks (usually one), for merge.",
                     "Run it where each rank's trace is; then 'tracedoc merge' the parts.", 1, -1,
                     "at least one TRACE", td_cmd_summarize},
    [C_MERGE] = {"merge", "PART.tds...|PARTS_DIR -o DIR|MERGED.tds [OPTIONS]",
                 "The report of partial summaries, or one partial of them.",
                 "-o DIR writes the documents as report does (report's options apply);\n"
                 "-o NAME.tds writes the merged partial (merge in a tree). Analysis options\n"
                 "are those the parts were made with. A directory stands for its *.tds files\n"
                 "(sorted by name); --files-from adds a list of parts.", 0, -1,
                 "at least one PART.tds", td_cmd_merge},
    [C_HISTORY] = {"history", "RUNS.db [--metric NAME] [--keep N] [--older-than DAYS] | --detect SERIES.csv",
                   "List the runs of a --history database, export a metric's series, prune.",
                   "Without options: one line per run. --metric NAME: the metric's series as\n"
                   "CSV (names as in summary.json `comparisons`, e.g. step.median_ns).\n"
                   "--keep N / --older-than DAYS delete older runs.\n"
                   "--detect SERIES.csv: the change points of a series (doc/nightly.md).",
                   1, 1, "one history database (runs.db), or a series with --detect", td_cmd_history},
    [C_EXPORT] = {"export", "TRACE... --format chrome [-o FILE|-]",
                  "What tracedoc read, as Chrome Trace Event JSON (Perfetto, chrome://tracing).",
                  "Every input kind: Kineto/Chrome JSON (as read), Nsight Systems SQLite,\n"
                  "nsys-jax archives, IBM AIU traces (host pairs and device time), Graphcore\n"
                  "IPU exports (steps, lightweight profiling), SambaTune artifacts (as\n"
                  "stack-trace writes them). Several inputs: one file, pids per input.\n"
                  "Without -o: standard output.",
                  1, -1, "at least one TRACE", td_cmd_export},
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
    {"top", 0, "N", SUMMARY, "rows per table in text output, and of --table\n"
     "(text or CSV; default 15, every row of --table)", set_top, 0},
    {"baseline", 0, "BASE", REPORT | MERGE, "compare with a baseline: an earlier run's\n"
     "summary.json or its trace (summarised as diff does);\n"
     "changes table, exit 1 when a metric regressed, 6 when\n"
     "nothing is comparable", td_cli_set_str,
     OFF(baseline)},
    {"history", 0, "RUNS.db", REPORT, "compare with the comparable runs of a SQLite history\n"
     "(change points; exit 1 / 6 as --baseline) and record this run", td_cli_set_str,
     OFF(history)},
    {"tolerance", 0, "F", REPORT | DIFF | MERGE | HISTORY, "smallest relative change reported (default 0.05, or\n"
     "the template's `tolerance`)", set_tolerance, OFF(tolerance)},
    {"detect", 0, NULL, HISTORY, "the argument is a series (CSV, column `value`): print\n"
     "the change points the history's detector finds in it", td_cli_set_flag, OFF(detect)},
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
    {"timings", 0, NULL, REPORT | MERGE | FLAME, "print read/analyse/render times on stderr", td_cli_set_flag,
     OFF(timings)},
    {"meta", 0, "KEY=VALUE", REPORT | SUMMARY | DIFF | MERGE | SUMMARIZE, "run metadata (commit, branch, workload...),\n"
     "repeatable; diff: the CURRENT side; summarize: kept in the part", set_meta, 0},
    {"warmup", 0, "auto|N|none", ANALYSIS, "drop warm-up steps/executions (default auto)",
     set_warmup, 0},
    {"threshold", 0, "F", ANALYSIS, "top-module cut-off, fraction of time (default 0.01)",
     td_cli_set_fraction, OFF(run.o.threshold)},
    {"compile-passes", 0, NULL, ANALYSIS, "XLA compile phases: keep XlaPass ranges apart",
     td_cli_set_flag, OFF(run.o.compile_passes)},
    {"step-pattern", 0, "REGEX", ANALYSIS, "user iteration ranges (default ProfilerStep#N,\n"
     "iteration_N)", td_cli_set_str, OFF(run.o.step_pattern)},
    {"module-pattern", 0, "REGEX", ANALYSIS, "Kineto module ranges (default: the steps)",
     td_cli_set_str, OFF(run.o.module_pattern)},
    {"capture-traces", 0, "DIR", ANALYSIS, "CUDA/HIP graph capture traces (default: capture_traces/\n"
     "beside the trace)", td_cli_set_str, OFF(run.o.capture_dir)},
    {"aiu-freq", 0, "SOC[:CORE]", ANALYSIS | EXPORT, "IBM AIU clocks in MHz (default: SoC implied by the\n"
     "trace, core 1100)", set_aiu_freq, 0},
    {"peak", 0, "TFLOPS:TBPS", ANALYSIS, "roofline peaks (TFLOP/s, TB/s) for op_perf (default: the\n"
     "device's datasheet)", set_peak, 0},
    {"critical-path", 0, "sync|hta", ANALYSIS, "critical path graph: sync follows synchronizing calls\n"
     "to the device work they wait for; hta is HTA's graph (default sync)", set_critpath, 0},
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
     td_cli_set_flag, OFF(run.o.show_flushes)},
    {"files-from", 0, "FILE|-", MERGE, "the parts listed in FILE, one path a line ('-':\n"
     "standard input), after those of the command line", td_cli_set_str, OFF(files_from)},
    {"progress", 0, NULL, REPORT | MERGE | SUMMARIZE, "progress lines on stderr even when it is not a\n"
     "terminal (batch jobs' logs)", set_progress, 0},
    {"help", 'h', NULL, TD_ALL_CMDS, "this help", NULL, 0},
    {"version", 0, NULL, TD_ALL_CMDS, "print the version", NULL, 0},
};

static const td_cli the_cli = {
    "tracedoc", TD_VERSION, cmds, sizeof cmds / sizeof cmds[0], opts, sizeof opts / sizeof opts[0],
    "TRACE is a file (Chrome/Kineto JSON, plain or gzip; Nsight Systems SQLite;\n"
    "nsys-jax .zip; rocprofv3 JSON, CSV or rocpd SQLite; IBM AIU runtime trace or\n"
    "DeepRT compile log; stack-tracing CSV;\n"
    "tracedoc.ipu/1 export of a Graphcore PopVision report), '-' for stdin, a\n"
    "directory, or a .tar/.tar.gz of traces.\n"
    "Exit status: 0 ok, 1 a metric regressed (diff, report --baseline/--history),\n"
    "2 usage error or bad template, 3 unreadable or invalid input (or inputs that are\n"
    "not ranks of one job), 4 cannot write output, 5 internal error, 6 nothing\n"
    "comparable (diff, report --baseline/--history), 7 the input holds no events,\n"
    "8 busy (another run holds the output directory or history database).\n"};


/* Out of memory anywhere: the run cannot produce its documents (base/alloc.h). */
static void out_of_memory(size_t n)
{
    fprintf(stderr, "tracedoc: out of memory (allocating %zu bytes)\n", n);
    exit(TD_EXIT_INTERNAL);
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    td_oom_set_handler(out_of_memory);
    td_cli_find_datadir();
    cli c;
    memset(&c, 0, sizeof c);
    td_opts_default(&c.run.o);
    c.run.telemetry_start = INT64_MIN;
    c.run.note = td_cli_note;
    c.minwidth = -1;
    c.tolerance = 0.05;
    c.top = 0; /* not given: 15 rows a table (summary) */
    return td_cli_main(&the_cli, argc, argv, &c); /* the exit status: cli/exit.h */
}
