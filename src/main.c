/* main.c - command line: parse options, run read -> analyse -> render, print errors,
 * exit with the documented status. The only file that prints or exits. */
#define _GNU_SOURCE
#include "analyse.h"
#include "read.h"
#include "render.h"
#include "summary.h"
#include "template.h"
#include "folded.h"
#include "baseline.h"
#include "outdir.h"
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

#ifndef TD_VERSION
#define TD_VERSION "0.1.0"
#endif

static const char *prog = "tracedoc";

static void usage(FILE *f)
{
    fputs(
        "usage: tracedoc COMMAND [OPTIONS] TRACE...\n"
        "\n"
        "Commands:\n"
        "  report TRACE... [-o DIR]     PDF, workbook, SVG flamegraphs, summary.json, folded\n"
        "  summary TRACE...             readable tables on stdout (or --format json|csv)\n"
        "  fold TRACE...                folded stacks on stdout (or -o FILE)\n"
        "  flame FOLDED|TRACE -o F.svg  one interactive SVG flamegraph\n"
        "  diff BASE CURRENT [-o DIR]   regression report; BASE and CURRENT are summary.json\n"
        "                               files or traces; exit 1 when a metric regressed\n"
        "\n"
        "TRACE is a file (Chrome/Kineto JSON, plain or gzip; Nsight Systems SQLite;\n"
        "nsys-jax .zip; tracedoc.ipu/1 export of a Graphcore PopVision report), '-' for\n"
        "stdin, a directory, or a .tar/.tar.gz of traces.\n"
        "\n"
        "Analysis options (report, summary, fold):\n"
        "  --warmup auto|N|none     drop warm-up steps/executions (default auto)\n"
        "  --threshold F            top-module cut-off, fraction of time (default 0.01)\n"
        "  --step-pattern REGEX     user iteration ranges (default ProfilerStep#N, iteration_N)\n"
        "  --module-pattern REGEX   Kineto module ranges (default: the steps)\n"
        "  --show-flushes           IPU lightweight profiling: keep buffer-flush blocks\n"
        "report options:\n"
        "  -o, --output DIR         output directory (default out)\n"
        "  --template NAME|FILE     bug-report (default), nightly, manager, or a .tdt file\n"
        "  --format LIST            subset of pdf,xlsx,svg,json,csv,folded (default: template's)\n"
        "  --paper a4|letter        PDF paper size (default a4)\n"
        "  --minwidth F             prune flamegraph frames narrower than F of the total\n"
        "                           (default 0.001)\n"
        "  --icicle                 SVG flamegraphs top-down\n"
        "  --timings                print read/analyse/render times on stderr\n"
        "  --baseline SUMMARY.json  add a regression section against a baseline summary\n"
        "  --tolerance F            regression tolerance, fraction (default 0.05)\n"
        "  --meta KEY=VALUE         run metadata (commit, branch, workload...), repeatable;\n"
        "                           report, summary, diff (the CURRENT side)\n"
        "summary options:\n"
        "  --format text|json|csv   (default text); csv needs --table NAME\n"
        "  --table NAME             one table (ops, kernels, steps, modules, collectives,\n"
        "                           gpu_timeline, ...)\n"
        "  --top N                  rows per table in text output (default 15)\n"
        "fold/flame options:\n"
        "  --stacks cpu|device|ops|compile|ipu   which stacks (default cpu)\n"
        "  -o FILE                  output file\n"
        "  --title TEXT             flame: SVG title\n"
        "\n"
        "  -h, --help               this help\n"
        "  --version                print the version\n"
        "\n"
        "Exit status: 0 ok, 1 diff found a regression, 2 usage error or bad template,\n"
        "3 unreadable or invalid input, "
"4 cannot write output, 5 internal error.\n",
        f);
}

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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

/* Where templates/ and fonts/ are: $TRACEDOC_DATA, else the directory above the
 * executable (build/tracedoc -> repo root), else the tree it was built from. */
static char datadir[PATH_MAX];
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
        char *d = dirname(exe);
        char cand[PATH_MAX + 32];
        snprintf(cand, sizeof cand, "%s/../templates", d);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(datadir, sizeof datadir, "%.*s/..", (int)(sizeof datadir - 4), d);
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
} cli;

enum {
    OPT_WARMUP = 256, OPT_THRESHOLD, OPT_STEP, OPT_MODULE, OPT_TEMPLATE, OPT_FORMAT, OPT_PAPER,
    OPT_MINWIDTH, OPT_ICICLE, OPT_TIMINGS, OPT_TABLE, OPT_TOP, OPT_STACKS, OPT_TITLE,
    OPT_VERSION, OPT_BASELINE, OPT_TOLERANCE, OPT_META, OPT_SHOW_FLUSHES
};

static double parse_fraction(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || *end || end == v || !(d >= 0 && d < 1))
        die(TD_EXIT_USAGE, "%s: expected a fraction from 0 to 1, got '%s'", opt, v);
    return d;
}

static void parse_cli(int argc, char **argv, cli *c)
{
    static const struct option lo[] = {
        {"warmup", required_argument, 0, OPT_WARMUP},
        {"threshold", required_argument, 0, OPT_THRESHOLD},
        {"step-pattern", required_argument, 0, OPT_STEP},
        {"module-pattern", required_argument, 0, OPT_MODULE},
        {"output", required_argument, 0, 'o'},
        {"template", required_argument, 0, OPT_TEMPLATE},
        {"format", required_argument, 0, OPT_FORMAT},
        {"paper", required_argument, 0, OPT_PAPER},
        {"minwidth", required_argument, 0, OPT_MINWIDTH},
        {"icicle", no_argument, 0, OPT_ICICLE},
        {"timings", no_argument, 0, OPT_TIMINGS},
        {"table", required_argument, 0, OPT_TABLE},
        {"top", required_argument, 0, OPT_TOP},
        {"stacks", required_argument, 0, OPT_STACKS},
        {"title", required_argument, 0, OPT_TITLE},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, OPT_VERSION},
        {"baseline", required_argument, 0, OPT_BASELINE},
        {"tolerance", required_argument, 0, OPT_TOLERANCE},
        {"meta", required_argument, 0, OPT_META},
        {"show-flushes", no_argument, 0, OPT_SHOW_FLUSHES},
        {0, 0, 0, 0}};
    memset(c, 0, sizeof *c);
    td_opts_default(&c->o);
    c->minwidth = -1;
    c->tolerance = 0.05;
    int ch;
    optind = 2; /* argv[1] is the command */
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case OPT_WARMUP:
            if (strcmp(optarg, "auto") == 0)
                c->o.warmup = TD_WARMUP_AUTO;
            else if (strcmp(optarg, "none") == 0)
                c->o.warmup = TD_WARMUP_NONE;
            else {
                char *end;
                long n = strtol(optarg, &end, 10);
                if (*end || end == optarg || n < 0 || n > 1000000)
                    die(TD_EXIT_USAGE, "--warmup: expected auto, none or a step count, got '%s'",
                        optarg);
                c->o.warmup = (int)n;
            }
            break;
        case OPT_THRESHOLD: c->o.threshold = parse_fraction("--threshold", optarg); break;
        case OPT_STEP: c->o.step_pattern = optarg; break;
        case OPT_MODULE: c->o.module_pattern = optarg; break;
        case 'o': c->out = optarg; break;
        case OPT_TEMPLATE: c->tpl = optarg; break;
        case OPT_FORMAT: c->format = optarg; break;
        case OPT_PAPER:
            if (strcmp(optarg, "a4") && strcmp(optarg, "letter"))
                die(TD_EXIT_USAGE, "--paper: expected a4 or letter, got '%s'", optarg);
            c->paper = optarg;
            break;
        case OPT_MINWIDTH: c->minwidth = parse_fraction("--minwidth", optarg); break;
        case OPT_ICICLE: c->icicle = 1; break;
        case OPT_TIMINGS: c->timings = 1; break;
        case OPT_TABLE: c->table = optarg; break;
        case OPT_TOP: {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end || end == optarg || n < 1 || n > 1000000)
                die(TD_EXIT_USAGE, "--top: expected a positive number, got '%s'", optarg);
            c->o.top = (int)n;
            c->top_set = 1;
            break;
        }
        case OPT_STACKS:
            if (strcmp(optarg, "cpu") && strcmp(optarg, "device") && strcmp(optarg, "ops") &&
                strcmp(optarg, "compile") && strcmp(optarg, "ipu"))
                die(TD_EXIT_USAGE, "--stacks: expected cpu, device, ops, compile or ipu, got '%s'",
                    optarg);
            c->stacks = optarg;
            break;
        case OPT_TITLE: c->title = optarg; break;
        case OPT_BASELINE: c->baseline = optarg; break;
        case OPT_TOLERANCE: c->tolerance = parse_fraction("--tolerance", optarg); break;
        case OPT_SHOW_FLUSHES: c->o.show_flushes = 1; break;
        case OPT_META: {
            if (c->nmeta >= (int)(sizeof c->meta / sizeof c->meta[0]))
                die(TD_EXIT_USAGE, "--meta: at most %d pairs",
                    (int)(sizeof c->meta / sizeof c->meta[0]));
            td_summary *chk = td_summary_new(); /* checked now, before any reading */
            td_err me = {0};
            td_status ms = td_sum_set_meta(chk, optarg, &me);
            td_summary_free(chk);
            if (ms != TD_OK)
                fail(&me);
            c->meta[c->nmeta++] = optarg;
            break;
        }
        case 'h': usage(stdout); exit(0);
        case OPT_VERSION: printf("tracedoc %s\n", TD_VERSION); exit(0);
        default:
            fprintf(stderr, "Try 'tracedoc --help'.\n");
            exit(TD_EXIT_USAGE);
        }
    }
    c->inputs = argv + optind;
    c->ninputs = argc - optind;
    if (c->minwidth >= 0)
        c->o.minwidth = c->minwidth;
}

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
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static td_traceset *read_all(char **inputs, int ninputs, td_err *e, td_status *st)
{
    td_traceset *set = td_traceset_new();
    for (int i = 0; i < ninputs; i++) {
        progress("reading %s (%d of %d)", inputs[i], i + 1, ninputs);
        *st = td_read_input(set, inputs[i], e);
        if (*st != TD_OK) {
            td_traceset_free(set);
            return NULL;
        }
    }
    td_read_finish(set);
    return set;
}

static void print_warnings(const td_traceset *set)
{
    size_t shown = set->warnings.n < 20 ? set->warnings.n : 20;
    for (size_t i = 0; i < shown; i++)
        fprintf(stderr, "%s: warning: %s\n", prog, set->warnings.msg[i]);
    if (set->warnings.n > shown)
        fprintf(stderr, "%s: warning: %zu more warnings (see summary.json)\n", prog,
                set->warnings.n - shown);
}

static td_summary *analyse_inputs(const cli *c, char **inputs, int ninputs, int64_t *t_read,
                                  int64_t *t_an)
{
    td_err e = {0};
    td_status st = TD_OK;
    int64_t t0 = td_now_ns();
    td_traceset *set = read_all(inputs, ninputs, &e, &st);
    if (!set)
        fail(&e);
    int64_t t1 = td_now_ns();
    print_warnings(set);
    td_summary *s = td_summary_new();
    progress("analysing %zu trace%s", set->n, set->n == 1 ? "" : "s");
    st = td_analyse(set, &c->o, s, &e);
    td_traceset_free(set);
    if (st != TD_OK)
        fail(&e);
    int64_t t2 = td_now_ns();
    if (t_read)
        *t_read = t1 - t0;
    if (t_an)
        *t_an = t2 - t1;
    return s;
}

/* --meta pairs become meta.KEY scalars (validated by parse_cli). */
static void apply_meta(const cli *c, td_summary *s)
{
    for (int i = 0; i < c->nmeta; i++) {
        td_err e = {0};
        if (td_sum_set_meta(s, c->meta[i], &e) != TD_OK)
            fail(&e);
    }
}

static td_summary *read_and_analyse(const cli *c, int64_t *t_read, int64_t *t_an)
{
    td_summary *s = analyse_inputs(c, c->inputs, c->ninputs, t_read, t_an);
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

static void need_inputs(const cli *c, const char *cmd)
{
    if (c->ninputs < 1)
        die(TD_EXIT_USAGE, "%s: expected at least one TRACE (try 'tracedoc --help')", cmd);
}

static int cmd_summary(int argc, char **argv)
{
    cli c;
    parse_cli(argc, argv, &c);
    need_inputs(&c, "summary");
    const char *fmt = c.format ? c.format : "text";
    if (strcmp(fmt, "text") && strcmp(fmt, "json") && strcmp(fmt, "csv"))
        die(TD_EXIT_USAGE, "summary: --format: expected text, json or csv, got '%s'", fmt);
    if (strcmp(fmt, "csv") == 0 && !c.table)
        die(TD_EXIT_USAGE, "summary: --format csv needs --table NAME");
    td_summary *s = read_and_analyse(&c, NULL, NULL);
    td_err e = {0};
    td_status st = TD_OK;
    if (c.table && !td_sum_find_table(s, c.table)) {
        td_buf b = {0};
        for (size_t i = 0; i < s->ntables; i++)
            td_buf_printf(&b, "%s%s", i ? ", " : "", s->tables[i]->name);
        fprintf(stderr, "%s: summary: no table '%s' for this input (tables: %s)\n", prog, c.table,
                td_buf_cstr(&b));
        td_buf_free(&b);
        td_summary_free(s);
        return TD_EXIT_USAGE;
    }
    if (strcmp(fmt, "json") == 0)
        st = td_summary_write_json(s, stdout, &e);
    else if (strcmp(fmt, "csv") == 0)
        st = td_table_write_csv(td_sum_find_table(s, c.table), stdout, &e);
    else {
        /* scalar key figures first, then the tables */
        for (size_t i = 0; i < s->nkv; i++) {
            char v[256];
            td_col col = {s->kv[i].key, s->kv[i].title, s->kv[i].type};
            td_cell_format(&col, &s->kv[i].v, v, sizeof v);
            if (strcmp(s->kv[i].key, "schema") != 0)
                printf("%-32s %s\n", s->kv[i].title, v);
        }
        for (size_t i = 0; i < s->nfindings; i++)
            printf("%s %s\n", i ? "  " : "\nFindings:\n  ", s->findings[i]);
        for (size_t i = 0; i < s->ntables; i++) {
            const td_table *t = s->tables[i];
            if (c.table && strcmp(t->name, c.table))
                continue;
            if (!t->nrows)
                continue;
            putchar('\n');
            td_table_write_text(t, stdout, c.table ? 0 : (size_t)c.o.top);
        }
    }
    if (fflush(stdout) != 0 && st == TD_OK)
        st = td_fail(&e, TD_E_OUTPUT, "stdout: write error");
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
            fprintf(stderr, "%s: no cpu stacks in this input; using the %s stacks "
                    "(--stacks chooses)\n", prog, order[i]);
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
    fprintf(stderr, "%s: warning: no %s stacks in this input (it has: %s)\n", prog,
            asked ? asked : "cpu", b.n ? td_buf_cstr(&b) : "none");
    td_buf_free(&b);
}

static int cmd_fold(int argc, char **argv)
{
    cli c;
    parse_cli(argc, argv, &c);
    need_inputs(&c, "fold");
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
    if (c.out)
        st = td_write_atomic_cb(c.out, write_folded_cb, fl, &e);
    else {
        st = td_flame_write_folded(fl, stdout, &e);
        if (fflush(stdout) != 0 && st == TD_OK)
            st = td_fail(&e, TD_E_OUTPUT, "stdout: write error");
    }
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

static int cmd_flame(int argc, char **argv)
{
    cli c;
    parse_cli(argc, argv, &c);
    if (c.ninputs != 1)
        die(TD_EXIT_USAGE, "flame: expected one FOLDED or TRACE file");
    if (!c.out)
        die(TD_EXIT_USAGE, "flame: expected -o FILE.svg");
    td_err e = {0};
    td_summary *s = NULL;
    td_flame *fl = NULL;
    td_status st = td_folded_try_read(c.inputs[0], c.stacks ? c.stacks : "cpu", &s, &fl, &e);
    if (st != TD_OK)
        fail(&e);
    if (!s) {
        s = read_and_analyse(&c, NULL, NULL);
        fl = pick_flame(s, c.stacks);
        if (!fl) {
            no_stacks(s, c.stacks);
            die(TD_EXIT_INPUT, "%s: no %s stacks to draw", c.inputs[0],
                c.stacks ? c.stacks : "cpu");
        }
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

static unsigned parse_formats(const char *v)
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
        else
            die(TD_EXIT_USAGE, "--format: unknown document '%s' (expected pdf, xlsx, svg, json, "
                "csv, folded)", tok);
    }
    if (!m)
        die(TD_EXIT_USAGE, "--format: expected a list such as pdf,xlsx");
    return m;
}

static void timing(int on, const char *what, int64_t ns)
{
    if (on)
        fprintf(stderr, "%s: timings: %-14s %10.3f ms\n", prog, what, (double)ns / 1e6);
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
    if (mask & TD_DOC_FOLDED) {
        t0 = td_now_ns();
        for (size_t i = 0; i < s->nflames; i++) {
            snprintf(path, sizeof path, "%s/%s.folded", out, s->flames[i]->kind);
            if ((st = td_write_atomic_cb(path, write_folded_cb, s->flames[i], e)) != TD_OK)
                return st;
        }
        timing(timings, "render folded", td_now_ns() - t0);
    }
    if (mask & TD_DOC_SVG) {
        t0 = td_now_ns();
        for (size_t i = 0; i < s->nflames; i++) {
            if (!s->flames[i]->n)
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

static int cmd_report(int argc, char **argv)
{
    cli c;
    parse_cli(argc, argv, &c);
    need_inputs(&c, "report");
    const char *out = c.out ? c.out : "out";
    td_err e = {0};
    char tdir[PATH_MAX + 16];
    snprintf(tdir, sizeof tdir, "%s/templates", datadir);
    td_template *t = NULL;
    td_status st = td_template_load(c.tpl ? c.tpl : "bug-report", tdir, &t, &e);
    if (st != TD_OK)
        fail(&e);
    unsigned docs = c.format ? parse_formats(c.format) : t->documents;
    int64_t t_read = 0, t_an = 0;
    td_summary *base = NULL;
    if (c.baseline) {
        if (td_summary_load_json(c.baseline, &base, &e) != TD_OK)
            fail(&e);
    }
    td_summary *s = read_and_analyse(&c, &t_read, &t_an);
    if (base) {
        td_regression(base, c.baseline, s, c.tolerance);
        td_summary_free(base);
    }
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
    const unsigned in_child = TD_DOC_XLSX | TD_DOC_JSON | TD_DOC_CSV | TD_DOC_FOLDED;
    pid_t kid = -1;
    if ((docs & in_child) && (docs & ~in_child)) {
        fflush(stdout);
        fflush(stderr);
        kid = fork();
        if (kid == 0) {
            st = render_docs(s, t, &r, out, docs & in_child, c.timings, &e);
            if (st != TD_OK)
                fprintf(stderr, "%s: %s\n", prog, e.msg);
            fflush(stderr);
            _exit(exit_for(st)); /* no atexit handlers: the parent owns the cleanup */
        }
    }
    if ((st = render_docs(s, t, &r, out, kid > 0 ? docs & ~in_child : docs, c.timings, &e)) !=
        TD_OK)
        fail(&e);
    if (kid > 0) {
        int status = 0;
        while (waitpid(kid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            exit(WIFEXITED(status) ? WEXITSTATUS(status) : TD_EXIT_INTERNAL);
    }
    /* the directory now holds this run's documents: what an earlier run left there
     * and this one did not write again goes (outdir.h) */
    size_t nnames;
    char **names = td_outdir_names(s, docs, &nnames);
    st = td_outdir_sweep(out, names, nnames, &e);
    td_outdir_names_free(names, nnames);
    if (st != TD_OK)
        fail(&e);
    timing(c.timings, "render (all)", td_now_ns() - t_render);
    td_template_free(t);
    td_summary_free(s);
    return 0;
}

static int cmd_diff(int argc, char **argv)
{
    cli c;
    parse_cli(argc, argv, &c);
    if (c.ninputs != 2)
        die(TD_EXIT_USAGE, "diff: expected BASE and CURRENT (summary.json files or traces)");
    td_summary *base = summary_of(&c, c.inputs[0]);
    td_summary *cur = summary_of(&c, c.inputs[1]);
    apply_meta(&c, cur);
    int regressed = td_regression(base, c.inputs[0], cur, c.tolerance);
    td_err e = {0};
    td_table *t = td_sum_find_table(cur, "regression.metrics");
    td_table_write_text(t, stdout, 0);
    printf("%d regressed, %lld improved (tolerance %.1f%%)\n", regressed,
           (long long)td_sum_get(cur, "regression.improved")->v.i, c.tolerance * 100);
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
    }
    td_summary_free(base);
    td_summary_free(cur);
    return regressed ? TD_EXIT_REGRESSED : TD_EXIT_OK;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "C");
    find_datadir();
    if (argc < 2) {
        usage(stderr);
        return TD_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("tracedoc %s\n", TD_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "report"))
        return cmd_report(argc, argv);
    if (!strcmp(cmd, "summary"))
        return cmd_summary(argc, argv);
    if (!strcmp(cmd, "fold"))
        return cmd_fold(argc, argv);
    if (!strcmp(cmd, "flame"))
        return cmd_flame(argc, argv);
    if (!strcmp(cmd, "diff"))
        return cmd_diff(argc, argv);
    fprintf(stderr, "%s: unknown command '%s' (expected report, summary, fold, flame, diff)\n", prog,
            cmd);
    fprintf(stderr, "Try 'tracedoc --help'.\n");
    return TD_EXIT_USAGE;
}
