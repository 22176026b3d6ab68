/* cli/commands.c - the commands' run functions (cli/internal.h): each runs the pipeline
 * (run/pipeline.h), writes what the command writes, says what went wrong and returns the
 * exit status (cli/exit.h); cli/main.c's main() exits with it. */
#define _GNU_SOURCE
#include "cli/internal.h"
#include "cli/outdir.h"
#include "analyse/checklist.h"
#include "compare/baseline.h"
#include "compare/changes.h"
#include "compare/history.h"
#include "compare/series.h"
#include "read/folded.h"
#include "run/documents.h"
#include "summary/flame.h"
#include "summary/template.h"
#include <errno.h>
#include "base/fmt.h"
#include "base/text.h"
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ---- */

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
    snprintf(fontdir, sizeof fontdir, "%s/fonts", td_cli_datadir);
    r.fontdir = fontdir;
    return r;
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

/* ---- summary ---- */

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
    if (strcmp(so->fmt, "csv") == 0) {
        /* --top N: the first N rows (rows are in the table's order, largest first) */
        td_table t = *td_sum_find_table(s, c->table);
        if (c->top > 0 && (size_t)c->top < t.nrows)
            t.nrows = (size_t)c->top;
        return td_table_write_csv(&t, f, e);
    }
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
        /* --top N for every table shown, --table's too (issue 21); without it 15 rows a
         * table, every row of the one --table asks for */
        td_table_write_text(t, f, c->top > 0 ? (size_t)c->top : c->table ? 0 : 15);
    }
    return TD_OK;
}

int td_cmd_summary(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    const char *fmt = c.format ? c.format : "text";
    if (strcmp(fmt, "csv") == 0 && !c.table)
        return td_cli_usage_error("summary: --format csv needs --table NAME");
    int rc = td_cli_out_file(c.out);
    if (rc != TD_EXIT_OK)
        return rc;
    td_err e = {0};
    td_summary *s = NULL;
    if (td_run_summary(&c.run, c.inputs, c.ninputs, &s, NULL, NULL, &e) != TD_OK)
        return td_cli_fail(&e);
    if (c.table && !td_sum_find_table(s, c.table)) {
        td_buf b = {0};
        for (size_t i = 0; i < s->ntables; i++)
            td_buf_printf(&b, "%s%s", i ? ", " : "", s->tables[i]->name);
        td_cli_say("summary: no table '%s' for this input (tables: %s)", c.table,
                   td_buf_cstr(&b));
        td_buf_free(&b);
        td_summary_free(s);
        return TD_EXIT_USAGE;
    }
    summary_out so = {s, &c, fmt};
    td_status st = td_write_atomic_cb(c.out ? c.out : "-", write_summary_cb, &so, &e);
    td_summary_free(s);
    return st != TD_OK ? td_cli_fail(&e) : TD_EXIT_OK;
}

/* ---- fold and flame ---- */

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
            td_cli_say("no cpu stacks in this input; using the %s stacks (--stacks chooses)",
                       order[i]);
            return fl;
        }
    return NULL;
}

/* The checklist items the report lacks, told to the author (the PDF shows only what the
 * report contains; summary.json keeps every item with ok = 0 or 1). */
static void checklist_notes(const td_summary *s, const td_template *tp)
{
    /* only for a template whose PDF has the checklist (the bug report): a nightly or
     * manager document is not a report an author completes */
    int has = 0;
    for (size_t i = 0; tp && i < tp->npdf; i++)
        has |= tp->pdf[i].kind.pdf == TD_PDF_CHECKLIST;
    const td_table *t = has ? td_sum_find_table(s, "checklist") : NULL;
    int ci = t ? td_table_col(t, "item") : -1, co = t ? td_table_col(t, "ok") : -1;
    int cd = t ? td_table_col(t, "detail") : -1;
    for (size_t r = 0; t && ci >= 0 && co >= 0 && cd >= 0 && r < t->nrows; r++)
        if (td_table_cell(t, r, co)->i != 1)
            td_cli_say("note: the report has no %s: %s", td_table_cell(t, r, ci)->s,
                       td_table_cell(t, r, cd)->s);
}

static void no_stacks(const td_summary *s, const char *asked)
{
    td_buf b = {0};
    for (size_t i = 0; i < s->nflames; i++)
        if (s->flames[i]->n)
            td_buf_printf(&b, "%s%s", b.n ? ", " : "", s->flames[i]->kind);
    td_cli_say("warning: no %s stacks in this input (it has: %s)", asked ? asked : "cpu",
               b.n ? td_buf_cstr(&b) : "none");
    td_buf_free(&b);
}

int td_cmd_fold(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    int rc = td_cli_out_file(c.out);
    if (rc != TD_EXIT_OK)
        return rc;
    td_err e = {0};
    td_summary *s = NULL;
    if (td_run_summary(&c.run, c.inputs, c.ninputs, &s, NULL, NULL, &e) != TD_OK)
        return td_cli_fail(&e);
    const char *kind = c.stacks ? c.stacks : "cpu";
    td_flame *fl = pick_flame(s, c.stacks);
    td_flame empty = {kind, kind, NULL, 0, 0};
    if (!fl) {
        no_stacks(s, c.stacks);
        fl = &empty; /* an input without stacks folds to nothing */
    }
    td_status st = td_write_atomic_cb(c.out ? c.out : "-", write_folded_cb, fl, &e);
    td_summary_free(s);
    return st != TD_OK ? td_cli_fail(&e) : TD_EXIT_OK;
}

/* The stacks of one `flame` input (folded text or a trace) of the kind asked for (or
 * the first the input has) into *out and *fl; the exit status when there are none. */
static int flame_input(const cli *c, const char *path, const char *kind, td_summary **out,
                       td_flame **fl)
{
    td_err e = {0};
    td_summary *s = NULL;
    *out = NULL;
    td_folded_how how;
    int64_t t0 = td_now_ns();
    if (td_folded_try_read(path, kind ? kind : "cpu", &s, fl, &how, &e) != TD_OK)
        return td_cli_fail(&e);
    if (s && c->timings)
        td_cli_say("timings: %-14s %10.3f ms (%s: folded stacks, %s)", "read",
                   (double)(td_now_ns() - t0) / 1e6, path,
                   how.threads < 2 ? "in order"
                   : how.again ? "on two threads, then again in order"
                               : "on two threads");
    if (s && c->timings && how.threads == 2)
        td_cli_say("timings: %lld chunks, %lld of them by the second thread", how.chunks,
                   how.second);
    for (size_t i = 0; s && i < s->nwarnings; i++)
        td_cli_say("warning: %s", s->warnings[i]);
    if (!s) {
        char *in[1] = {(char *)path};
        if (td_run_summary(&c->run, in, 1, &s, NULL, NULL, &e) != TD_OK)
            return td_cli_fail(&e);
        if (c->timings)
            td_cli_say("timings: %-14s %10.3f ms (%s)", "read, analyse",
                       (double)(td_now_ns() - t0) / 1e6, path);
        *fl = pick_flame(s, kind);
        if (!*fl) {
            no_stacks(s, kind);
            td_summary_free(s);
            return td_cli_stop(TD_EXIT_INPUT, "%s: no %s stacks to draw", path,
                               kind ? kind : "cpu");
        }
    }
    *out = s;
    return TD_EXIT_OK;
}

int td_cmd_flame(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    if (!c.out)
        return td_cli_usage_error("flame: expected -o FILE.svg ('-o -' for stdout)");
    if (c.normalize && !c.diff)
        return td_cli_usage_error("flame: --normalize needs --diff BASE");
    int rc = td_cli_out_file(c.out);
    if (rc != TD_EXIT_OK)
        return rc;
    td_err e = {0};
    td_flame *fl = NULL;
    td_summary *s = NULL, *bs = NULL;
    int code = flame_input(&c, c.inputs[0], c.stacks, &s, &fl);
    if (code != TD_EXIT_OK)
        return code;
    if (c.diff) {
        if (fl->diff) {
            code = td_cli_stop(TD_EXIT_USAGE, "%s: already differential (two counts a line); "
                               "--diff needs plain stacks", c.inputs[0]);
            goto done;
        }
        td_flame *bfl = NULL;
        /* the baseline's stacks of the same kind as the current ones */
        if ((code = flame_input(&c, c.diff, c.stacks ? c.stacks : fl->kind, &bs, &bfl)) !=
            TD_EXIT_OK)
            goto done;
        if (bfl->diff) {
            code = td_cli_stop(TD_EXIT_USAGE, "%s: already differential (two counts a line); "
                               "--diff needs plain stacks", c.diff);
            goto done;
        }
        if (bfl->cycles != fl->cycles) {
            code = td_cli_stop(TD_EXIT_USAGE, "%s and %s: one counts cycles, the other time: "
                               "no difference can be drawn", c.diff, c.inputs[0]);
            goto done;
        }
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
        bs = NULL;
        if (!d) {
            code = td_cli_fail(&e);
            goto done;
        }
        fl = d;
    }
    if (c.title)
        fl->title = td_arena_strdup(s->a, c.title);
    td_render_opts r = render_opts(&c, NULL);
    int64_t t0 = td_now_ns();
    if (td_render_svg(s, fl, &r, c.out, &e) != TD_OK)
        code = td_cli_fail(&e);
    else
        td_cli_timing(c.timings, "render svg", td_now_ns() - t0);
done:
    td_summary_free(bs);
    td_summary_free(s);
    return code;
}

/* ---- report (and merge -o DIR) ---- */

int td_cmd_report(void *ctx, char **args, int nargs)
{
    static const td_cli_opt format_opt = {"format", 0, "LIST", 0, "", NULL, 0};
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    const char *out = c.out ? c.out : "out";
    td_err e = {0};
    char tdir[PATH_MAX + 16];
    snprintf(tdir, sizeof tdir, "%s/templates", td_cli_datadir);
    td_template *t = NULL;
    td_summary *base = NULL, *s = NULL;
    td_histdb *hdb = NULL;
    int code = TD_EXIT_OK;
    if (td_template_load(c.tpl ? c.tpl : "bug-report", tdir, &t, &e) != TD_OK)
        return td_cli_fail(&e);
    /* -o a/b/out: a and a/b made now, before the work (a run that cannot write its
     * documents fails in a second, not after the analysis); -o report.pdf refused */
    if ((code = td_cli_out_dir("report", out)) != TD_EXIT_OK)
        goto done;
    unsigned docs = t->documents;
    if (c.format && (code = td_cli_formats(&format_opt, c.format, &docs)) != TD_EXIT_OK)
        goto done;
    int64_t t_read = 0, t_an = 0;
    if (c.baseline && c.history) {
        code = td_cli_usage_error("report: give --baseline or --history, not both");
        goto done;
    }
    /* the baseline: a summary.json, or a trace summarised here as `diff` does */
    if (c.baseline && td_run_summary_of(&c.run, (char *)c.baseline, &base, &e) != TD_OK) {
        code = td_cli_fail(&e);
        if (code != TD_EXIT_INTERNAL)
            td_cli_say("--baseline %s: a baseline is an earlier run's summary.json or its "
                       "trace", c.baseline);
        goto done;
    }
    if (c.history && td_history_open(c.history, 1, &hdb, &e) != TD_OK)
        goto fail;
    /* no document draws or writes stacks, nothing compares them: a merge skips them */
    c.run.no_stacks = !(docs & (TD_DOC_PDF | TD_DOC_SVG | TD_DOC_FOLDED)) && !base && !hdb;
    td_cli_passes pt = {.n = 0};
    if (c.timings) {
        c.run.o.pass_time = td_cli_pass_time;
        c.run.o.pass_time_ctx = &pt;
    }
    td_status rs = td_run_summary(&c.run, c.inputs, c.ninputs, &s, &t_read, &t_an, &e);
    c.run.o.pass_time = NULL;
    if (rs != TD_OK)
        goto fail;
    set_template_name(s, c.tpl ? c.tpl : "bug-report");
    td_detect_opts dopt = detect_opts(&c, t);
    int verdict = TD_CHG_OK;
    if (base || hdb) /* a stored run compared before is compared anew */
        td_summary_drop_comparison(s);
    if (base) {
        verdict = td_changes_two(base, c.baseline, s, &dopt);
        td_run_stacks_beside(&c.run, base, c.baseline);
        if (verdict != TD_CHG_NOT_COMPARABLE)
            td_run_diff_flames(&c.run, s, base, c.baseline);
        td_summary_free(base);
        base = NULL;
    }
    if (hdb) {
        td_hist *h = NULL;
        if (td_history_load(hdb, s, 100, &h, &e) != TD_OK)
            goto fail;
        dopt.max_p = TD_HISTORY_MAX_P;
        verdict = td_changes_series(h, c.history, s, &dopt);
        int made = 0;
        td_status hs = TD_OK;
        if (verdict != TD_CHG_NOT_COMPARABLE)
            hs = td_history_diff_flames(hdb, h, s, &made, &e);
        td_hist_free(h);
        if (hs != TD_OK)
            goto fail;
    }
    if (c.expect)
        td_sum_set_str(s, "report.expect", "Expected", c.expect);
    td_checklist(s);
    checklist_notes(s, t);
    td_outdir od; /* the documents go to a stage, switched in at the end (cli/outdir.h) */
    if (td_outdir_begin(&od, out, &e) != TD_OK)
        goto fail;
    td_cli_timing(c.timings, "read", t_read);
    td_cli_timing(c.timings, "analyse", t_an);
    if (c.timings)
        td_cli_passes_print(&pt);
    td_render_opts r = render_opts(&c, t);
    int64_t t_render = td_now_ns();
    char msg[PATH_MAX + 32];
    snprintf(msg, sizeof msg, "writing the documents to %s", out);
    td_cli_note(NULL, TD_RUN_PROGRESS, msg);
    if ((code = td_cli_write_documents(s, t, &r, od.stage, od.target, docs,
                                       c.timings)) != TD_EXIT_OK) {
        td_outdir_end(&od);
        goto done;
    }
    size_t nnames;
    char **names = td_docs_files(s, docs, &nnames);
    td_status st = td_outdir_commit(&od, names, nnames, &e);
    td_docs_files_free(names, nnames);
    td_outdir_end(&od);
    if (st != TD_OK)
        goto fail;
    td_cli_timing(c.timings, "render (all)", td_now_ns() - t_render);
    if (hdb) { /* recorded once its documents are written */
        if (td_history_append(hdb, s, &e) != TD_OK)
            goto fail;
        td_history_close(hdb);
        hdb = NULL;
    }
    const td_kv *v = td_sum_get(s, "verdict"); /* one line for the CI log */
    if (v && v->type == TD_T_TEXT && v->v.s)
        printf("%s\n", v->v.s);
    code = exit_for_changes(verdict);
    goto done;
fail:
    code = td_cli_fail(&e);
done:
    if (hdb)
        td_history_close(hdb);
    td_summary_free(base);
    td_summary_free(s);
    td_template_free(t);
    return code;
}

/* ---- summarize and merge ---- */

int td_cmd_summarize(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    if (!c.out)
        return td_cli_stop(TD_EXIT_USAGE, "summarize: expected -o FILE.tds");
    int rc = td_cli_make_parents(c.out, 0); /* parts/ of a job's first task */
    if (rc != TD_EXIT_OK)
        return rc;
    td_err e = {0};
    int parts = 0;
    if (td_run_partial_inputs(args, nargs, "summarize", &parts, &e) != TD_OK)
        return td_cli_fail(&e);
    if (parts)
        return td_cli_stop(TD_EXIT_USAGE, "summarize: the inputs are partial summaries already "
                           "(use merge)");
    if (td_run_summarize(&c.run, args, nargs, c.out, &e) != TD_OK)
        return td_cli_fail(&e);
    return TD_EXIT_OK;
}

int td_cmd_merge(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    if (!c.out)
        return td_cli_stop(TD_EXIT_USAGE, "merge: expected -o DIR (documents) or -o FILE.tds "
                           "(a partial)");
    td_cli_list in;
    int rc = td_cli_merge_inputs(args, nargs, c.files_from, &in);
    if (rc != TD_EXIT_OK)
        return rc;
    td_err e = {0};
    size_t n = strlen(c.out);
    int ni = (int)in.n;
    if (n < 4 || strcmp(c.out + n - 4, ".tds")) {
        int parts = 0;
        if ((rc = td_cli_out_dir("merge", c.out)) != TD_EXIT_OK)
            ;
        else if (td_run_partial_inputs(in.v, ni, "merge", &parts, &e) != TD_OK)
            rc = td_cli_fail(&e);
        else if (!parts)
            rc = td_cli_stop(TD_EXIT_USAGE, "merge: the inputs are not partial summaries "
                             "(.tds); make them with 'tracedoc summarize'");
        else
            rc = td_cmd_report(ctx, in.v, ni);
        td_cli_list_free(&in);
        return rc;
    }
    td_partial *p = NULL;
    if ((rc = td_cli_make_parents(c.out, 0)) != TD_EXIT_OK) { /* before the work */
        td_cli_list_free(&in);
        return rc;
    }
    td_status st = td_run_merge(&c.run, in.v, ni, "merge", &p, &e);
    td_cli_list_free(&in);
    if (st == TD_OK) {
        st = td_partial_write(p, c.out, &e);
        td_partial_free(p);
    }
    return st != TD_OK ? td_cli_fail(&e) : TD_EXIT_OK;
}

/* ---- diff ---- */

/* diff -o DIR: regression.csv and changes.csv (both the `changes` table: the one
 * judgement, regression.csv kept for the scripts that read it), summary.json, report.md,
 * junit.xml and the differential flamegraphs. */
static td_status write_diff(const cli *c, td_summary *cur, const td_template *tp, td_err *e)
{
    char path[PATH_MAX + 64];
    td_status st;
    const td_table *ch = td_sum_find_table(cur, "changes");
    snprintf(path, sizeof path, "%s/summary.json", c->out);
    if ((st = td_write_atomic_cb(path, write_json_cb, cur, e)) != TD_OK)
        return st;
    if (ch) { /* none when the runs are not comparable: nothing was judged */
        snprintf(path, sizeof path, "%s/regression.csv", c->out);
        if ((st = td_write_atomic_cb(path, write_csv_cb, (void *)ch, e)) != TD_OK)
            return st;
        snprintf(path, sizeof path, "%s/changes.csv", c->out);
        if ((st = td_write_atomic_cb(path, write_csv_cb, (void *)ch, e)) != TD_OK)
            return st;
    }
    snprintf(path, sizeof path, "%s/report.md", c->out);
    if ((st = td_render_md(cur, path, e)) != TD_OK)
        return st;
    snprintf(path, sizeof path, "%s/junit.xml", c->out);
    if ((st = td_render_junit(cur, path, e)) != TD_OK)
        return st;
    td_render_opts r = render_opts(c, tp);
    for (size_t i = 0; i < cur->nflames; i++) /* flame-diff.svg, flame-diff-KIND.svg */
        if (cur->flames[i]->diff) {
            snprintf(path, sizeof path, "%s/flame-%s.svg", c->out, cur->flames[i]->kind);
            if ((st = td_render_svg(cur, cur->flames[i], &r, path, e)) != TD_OK)
                return st;
        }
    return TD_OK;
}

/* The changes as a reader reads them: the metric's name (not its key), before and after in
 * readable units (td_fmt_ns: "76.8 ms"), the change; since only where a history gave one. */
static void print_changes(const td_table *ch)
{
    int cn = td_table_col(ch, "name"), cm = td_table_col(ch, "metric");
    int cd = td_table_col(ch, "direction"), cu = td_table_col(ch, "unit");
    int cb = td_table_col(ch, "before"), ca = td_table_col(ch, "after");
    int cc = td_table_col(ch, "change"), cs = td_table_col(ch, "since");
    int wname = 6;
    for (size_t r = 0; r < ch->nrows; r++) {
        const char *n = td_table_cell(ch, r, cn >= 0 ? cn : cm)->s;
        int l = n ? (int)td_utf8_len(n) : 0;
        wname = l > wname ? (l < 90 ? l : 90) : wname;
    }
    printf("Changes\n%-*s  %-9s  %10s  %10s  %7s\n", wname, "Metric", "Direction", "Before",
           "After", "Change");
    for (size_t r = 0; r < ch->nrows; r++) {
        const char *n = td_table_cell(ch, r, cn >= 0 ? cn : cm)->s;
        const char *u = cu >= 0 ? td_table_cell(ch, r, cu)->s : "ns";
        char v[2][48], pct[32];
        for (int k = 0; k < 2; k++) {
            const td_cell *x = td_table_cell(ch, r, k ? ca : cb);
            int ns = ch->cols[k ? ca : cb].type == TD_T_NS;
            double d = ns ? (x->i == TD_NA ? NAN : (double)x->i) : x->f;
            if (isnan(d))
                snprintf(v[k], sizeof v[k], "-");
            else if (!u || !strcmp(u, "ns"))
                td_fmt_ns(v[k], sizeof v[k], (int64_t)llround(d));
            else if (!strcmp(u, "bytes"))
                td_fmt_bytes(v[k], sizeof v[k], (int64_t)llround(d));
            else
                snprintf(v[k], sizeof v[k], "%.4g %s", d, u);
        }
        td_cell_format(&ch->cols[cc], td_table_cell(ch, r, cc), pct, sizeof pct);
        const char *since = cs >= 0 ? td_table_cell(ch, r, cs)->s : NULL;
        int pad = wname - (int)td_utf8_len(n ? n : "");
        printf("%s%*s  %-9s  %10s  %10s  %7s%s%s\n", n ? n : "", pad > 0 ? pad : 0, "",
               td_table_cell(ch, r, cd)->s ? td_table_cell(ch, r, cd)->s : "", v[0], v[1],
               pct[0] ? pct : "-", since ? "  since " : "", since ? since : "");
    }
}

int td_cmd_diff(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    c.inputs = args;
    c.ninputs = nargs;
    td_err e = {0};
    td_template *tp = NULL;
    td_summary *base = NULL, *cur = NULL;
    int code = TD_EXIT_OK;
    if (c.tpl) {
        char tdir[PATH_MAX + 16];
        snprintf(tdir, sizeof tdir, "%s/templates", td_cli_datadir);
        if (td_template_load(c.tpl, tdir, &tp, &e) != TD_OK)
            return td_cli_fail(&e);
    }
    /* -o DIR checked (and its parents made) before the work */
    if (c.out && (code = td_cli_out_dir("diff", c.out)) != TD_EXIT_OK)
        goto done;
    if (td_run_summary_of(&c.run, c.inputs[0], &base, &e) != TD_OK ||
        td_run_summary_of(&c.run, c.inputs[1], &cur, &e) != TD_OK)
        goto fail;
    td_summary_drop_comparison(cur);   /* a stored run that was compared before */
    if (td_run_apply_meta(&c.run, cur, &e) != TD_OK)
        goto fail;
    td_detect_opts dopt = detect_opts(&c, tp);
    int verdict = td_changes_two(base, c.inputs[0], cur, &dopt);
    if (c.out && verdict != TD_CHG_NOT_COMPARABLE) {
        td_run_stacks_beside(&c.run, base, c.inputs[0]);
        td_run_stacks_beside(&c.run, cur, c.inputs[1]);
        td_run_diff_flames(&c.run, cur, base, c.inputs[0]);
    }
    /* one judgement (issue 21): the changes and nothing else; runs that are not
     * comparable judge no metric, only what differs is printed */
    const td_table *ch = td_sum_find_table(cur, "changes");
    if (verdict != TD_CHG_NOT_COMPARABLE && ch && ch->nrows)
        print_changes(ch);
    const td_table *cmpt = td_sum_find_table(cur, "comparability");
    if (verdict == TD_CHG_NOT_COMPARABLE && cmpt)
        td_table_write_text(cmpt, stdout, 0);
    printf("%s\n", td_sum_get(cur, "verdict")->v.s);
    if (c.out) {
        if (mkdir(c.out, 0777) != 0 && errno != EEXIST) {
            code = td_cli_stop(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", c.out,
                               strerror(errno));
            goto done;
        }
        if (write_diff(&c, cur, tp, &e) != TD_OK)
            goto fail;
    }
    code = exit_for_changes(verdict);
    goto done;
fail:
    code = td_cli_fail(&e);
done:
    td_template_free(tp);
    td_summary_free(base);
    td_summary_free(cur);
    return code;
}

/* ---- history ---- */

/* history --detect SERIES.csv: the change points of the history's detector over the
 * whole series, one row index a line (bench/cpd/run.sh). */
static int detect(const cli *c, const char *path)
{
    td_err e = {0};
    td_series s;
    if (access(path, F_OK) != 0)
        return td_cli_stop(TD_EXIT_INPUT, "%s: %s", path, strerror(errno));
    if (td_series_read(path, &s, &e) != TD_OK)
        return td_cli_fail(&e);
    size_t *cp;
    size_t k = td_series_detect(&s, TD_HISTORY_MAX_P, c->tol_set ? c->tolerance : 0.05, &cp);
    for (size_t i = 0; i < k; i++)
        printf("%zu\n", cp[i]);
    free(cp);
    td_series_free(&s);
    if (fflush(stdout) != 0)
        return td_cli_stop(TD_EXIT_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    return TD_EXIT_OK;
}

/* tracedoc history DB: list runs, export a metric's series as CSV, prune. */
int td_cmd_history(void *ctx, char **args, int nargs)
{
    cli c = *(cli *)ctx;
    (void)nargs;
    const char *db_path = args[0];
    const char *fmt = c.format ? c.format : (c.metric ? "csv" : "text");
    td_err e = {0};
    td_histdb *db = NULL;
    if (c.detect)
        return detect(&c, db_path);
    if (access(db_path, F_OK) != 0)
        return td_cli_stop(TD_EXIT_INPUT, "%s: %s", db_path, strerror(errno));
    if (td_history_open(db_path, 0, &db, &e) != TD_OK)
        return td_cli_fail(&e);
    if (c.keep || c.older_days > 0) {
        long removed = 0;
        if (td_history_prune(db, c.keep, c.older_days, &removed, &e) != TD_OK) {
            td_history_close(db);
            return td_cli_fail(&e);
        }
        td_cli_say("history: removed %ld run%s", removed, removed == 1 ? "" : "s");
        if (!c.metric) {
            td_history_close(db);
            return TD_EXIT_OK;
        }
    }
    td_summary *s = td_summary_new();
    td_status st = c.metric ? td_history_series(db, c.metric, s, &e) : td_history_runs(db, s, &e);
    td_history_close(db);
    if (st != TD_OK) {
        td_summary_free(s);
        return td_cli_fail(&e);
    }
    td_table *t = td_sum_find_table(s, c.metric ? "history.series" : "history.runs");
    if (c.metric && !t->nrows) {
        td_summary_free(s);
        return td_cli_stop(TD_EXIT_USAGE, "history: no metric '%s' in %s (names as in "
                           "summary.json `comparisons`, e.g. step.median_ns)", c.metric, db_path);
    }
    if (c.out && strcmp(c.out, "-"))
        st = td_write_atomic_cb(c.out, !strcmp(fmt, "csv") ? write_csv_cb : write_text_cb, t, &e);
    else if (!strcmp(fmt, "csv"))
        st = td_table_write_csv(t, stdout, &e);
    else
        td_table_write_text(t, stdout, 0);
    if (fflush(stdout) != 0 && st == TD_OK)
        st = td_fail(&e, TD_E_OUTPUT, "standard output: cannot write: %s", strerror(errno));
    td_summary_free(s);
    return st != TD_OK ? td_cli_fail(&e) : TD_EXIT_OK;
}

/* ---- stack-trace and export ---- */

static int write_chrome(const cli *c, char **args, int nargs, const char *out, int stack)
{
    td_err e = {0};
    int rc = td_cli_out_file(out);
    if (rc != TD_EXIT_OK)
        return rc;
    if (td_run_chrome(&c->run, args, nargs, out, stack, TD_VERSION, &e) != TD_OK)
        return td_cli_fail(&e);
    return TD_EXIT_OK;
}

/* stack-trace ARTIFACTS [-o NAME_chrome_tracing_report.json] */
int td_cmd_stack_trace(void *ctx, char **args, int nargs)
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
int td_cmd_export(void *ctx, char **args, int nargs)
{
    const cli *c = ctx;
    return write_chrome(c, args, nargs, c->out ? c->out : "-", 0);
}
