/* run/pipeline.c - read -> analyse -> summary, summarize and merge (see run/pipeline.h). */
#define _GNU_SOURCE
#include "run/pipeline.h"
#include "compare/baseline.h"
#include "export/chrome.h"
#include "export/stacktrace.h"
#include "model/job.h"
#include "read/aiu.h"
#include "read/folded.h"
#include "read/read.h"
#include "read/telemetry.h"
#include "summary/flame.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const td_run *r, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(const td_run *r, int kind, const char *fmt, ...)
{
    if (!r->note)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->note(r->ctx, kind, msg);
}

/* A trace that holds something to report: events, counters, ranges, AIU instructions,
 * HLO dumps, SambaNova or IPU data (metadata alone is not). */
static int trace_holds_events(const td_trace *t)
{
    return t->nev || t->ncounters || t->nranges || t->ncompile || t->naiu || t->nhlo ||
           t->samba || t->ipu;
}

/* keep_flows: 0 when only the analysis reads the model (no pass reads flow events) */
static td_status read_set(const td_run *r, char **inputs, int n, int one_job, int keep_flows,
                          td_traceset **out, td_err *e)
{
    td_traceset *set = td_traceset_new();
    set->analysis_only = !keep_flows;
    td_status st = TD_OK;
    *out = NULL;
    for (int i = 0; st == TD_OK && i < r->ncomplog; i++)
        st = td_read_complog_file(set, r->complog[i], e);
    for (int i = 0; st == TD_OK && i < n; i++) {
        note(r, TD_RUN_PROGRESS, "reading %s (%d of %d)", inputs[i], i + 1, n);
        size_t from = set->n;
        st = td_read_input(set, inputs[i], e);
        /* a capture that recorded nothing is an error of its own (issue 21): a nightly
         * that lost its capture fails instead of reporting "0 ns" */
        int any = 0;
        for (size_t k = from; k < set->n; k++)
            any |= trace_holds_events(set->tr[k]);
        if (st == TD_OK && set->n > from && !any)
            st = td_fail(e, TD_E_EMPTY, "%s: the input holds no events (nothing was captured); "
                         "nothing written", inputs[i]);
    }
    for (int i = 0; st == TD_OK && i < r->ntelemetry; i++)
        st = td_read_telemetry_file(set, r->telemetry[i], r->telemetry_start, e);
    /* before td_read_finish numbers the ranks: the ranks as the traces declare them */
    if (st == TD_OK && one_job)
        st = td_job_check(set, e);
    if (st != TD_OK) {
        td_traceset_free(set);
        return st;
    }
    td_read_finish(set);
    *out = set;
    return TD_OK;
}

td_status td_run_read(const td_run *r, char **inputs, int n, int one_job, td_traceset **out,
                      td_err *e)
{
    return read_set(r, inputs, n, one_job, 1, out, e);
}

void td_run_read_warnings(const td_run *r, const td_traceset *set)
{
    size_t shown = set->warnings.n < 20 ? set->warnings.n : 20;
    for (size_t i = 0; i < shown; i++)
        note(r, TD_RUN_WARNING, "warning: %s", set->warnings.msg[i]);
    if (set->warnings.n > shown)
        note(r, TD_RUN_WARNING, "warning: %zu more warnings (see summary.json)",
             set->warnings.n - shown);
}

td_status td_run_analyse(const td_run *r, char **inputs, int n, td_summary **out,
                         int64_t *t_read, int64_t *t_an, td_err *e)
{
    *out = NULL;
    int64_t t0 = td_now_ns();
    td_traceset *set = NULL;
    td_status st = read_set(r, inputs, n, 1, 0, &set, e);
    if (st != TD_OK)
        return st;
    int64_t t1 = td_now_ns();
    td_run_read_warnings(r, set);
    td_summary *s = td_summary_new();
    note(r, TD_RUN_PROGRESS, "analysing %zu trace%s", set->n, set->n == 1 ? "" : "s");
    st = td_analyse(set, &r->o, s, e);
    if (st != TD_OK) {
        td_traceset_free(set);
        td_summary_free(s);
        return st;
    }
    /* the analysis's own warnings (limits reached...), not the reader's again */
    for (size_t i = 0; i < s->nwarnings; i++) {
        size_t k = 0;
        while (k < set->warnings.n && strcmp(set->warnings.msg[k], s->warnings[i]))
            k++;
        if (k == set->warnings.n)
            note(r, TD_RUN_WARNING, "warning: %s", s->warnings[i]);
    }
    td_traceset_free(set);
    int64_t t2 = td_now_ns();
    if (t_read)
        *t_read = t1 - t0;
    if (t_an)
        *t_an = t2 - t1;
    *out = s;
    return TD_OK;
}

td_status td_run_apply_meta(const td_run *r, td_summary *s, td_err *e)
{
    for (int i = 0; i < r->nmeta; i++) {
        td_status st = td_sum_set_meta(s, r->meta[i], e);
        if (st != TD_OK)
            return st;
    }
    return TD_OK;
}

td_status td_run_partial_inputs(char **inputs, int n, const char *cmd, int *all, td_err *e)
{
    int np = 0;
    for (int i = 0; i < n; i++)
        np += td_is_partial(inputs[i]);
    *all = np > 0;
    if (np && np != n)
        return td_fail(e, TD_E_USAGE, "%s: partial summaries (.tds) and traces cannot be mixed "
                       "(run 'tracedoc summarize' on the traces first)", cmd);
    return TD_OK;
}

td_status td_run_merge(const td_run *r, char **inputs, int n, const char *cmd,
                       td_partial **out, td_err *e)
{
    td_opts def;
    td_opts_default(&def);
    *out = NULL;
    if (r->o.warmup != def.warmup || r->o.threshold != def.threshold || r->o.step_pattern ||
        r->o.module_pattern)
        return td_fail(e, TD_E_USAGE, "%s: analysis options are those the parts were made "
                       "with (give them to 'tracedoc summarize')", cmd);
    td_partial *p = td_partial_new();
    int64_t said = 0; /* a part takes milliseconds: a line a second, the first and the last */
    for (int i = 0; i < n; i++) {
        td_status st = TD_OK;
        int64_t now = td_now_ns();
        if (i == 0 || i == n - 1 || now - said >= 1000000000) {
            note(r, TD_RUN_PROGRESS, "merge: %d/%d parts (%s)", i + 1, n, inputs[i]);
            said = now;
        }
        if (!td_is_partial(inputs[i])) {
            if (access(inputs[i], R_OK) != 0)
                st = td_fail(e, TD_E_IO, "%s: cannot open: %s", inputs[i], strerror(errno));
            else
                st = td_fail(e, TD_E_IO, "%s: not a partial summary (.tds); make one with "
                             "'tracedoc summarize'", inputs[i]);
        } else
            st = td_partial_merge_file(p, inputs[i], e);
        if (st != TD_OK) {
            td_partial_free(p);
            return st;
        }
    }
    *out = p;
    return TD_OK;
}

static td_status merged_summary(const td_run *r, char **inputs, int n, const char *cmd,
                                td_summary **out, int64_t *t_read, td_err *e)
{
    int64_t t0 = td_now_ns();
    td_partial *p = NULL;
    td_status st = td_run_merge(r, inputs, n, cmd, &p, e);
    if (st != TD_OK)
        return st;
    td_opts o;
    if (r->no_stacks)
        td_partial_skip_stacks(p);
    *out = td_partial_finish(p, &o);
    td_partial_free(p);
    if (t_read)
        *t_read = td_now_ns() - t0;
    return TD_OK;
}

td_status td_run_summarize(const td_run *r, char **inputs, int n, const char *path, td_err *e)
{
    td_traceset *set = NULL;
    td_status st = read_set(r, inputs, n, 1, 0, &set, e);
    if (st != TD_OK)
        return st;
    td_run_read_warnings(r, set);
    td_summary *s = td_summary_new();
    td_partial *p = td_partial_new();
    note(r, TD_RUN_PROGRESS, "analysing %zu trace%s", set->n, set->n == 1 ? "" : "s");
    st = td_analyse_partial(set, &r->o, s, p, e);
    td_traceset_free(set);
    if (st == TD_OK)
        st = td_run_apply_meta(r, s, e); /* --meta travels in the part (README: merge's rule) */
    if (st == TD_OK) {
        td_partial_from_summary(p, s, &r->o);
        st = td_partial_write(p, path, e);
    }
    td_partial_free(p);
    td_summary_free(s);
    return st;
}

td_status td_run_summary_of(const td_run *r, char *input, td_summary **out, td_err *e)
{
    *out = NULL;
    if (td_is_summary_json(input))
        return td_summary_load_json(input, out, e);
    return td_run_analyse(r, &input, 1, out, NULL, NULL, e);
}

td_status td_run_summary(const td_run *r, char **inputs, int n, td_summary **out,
                         int64_t *t_read, int64_t *t_an, td_err *e)
{
    int json = n == 1 && td_is_summary_json(inputs[0]);
    td_status st;
    *out = NULL;
    if (json) {
        st = td_run_summary_of(r, inputs[0], out, e);
    } else {
        int parts = 0;
        st = td_run_partial_inputs(inputs, n, "tracedoc", &parts, e);
        if (st == TD_OK)
            st = parts ? merged_summary(r, inputs, n, "tracedoc", out, t_read, e)
                       : td_run_analyse(r, inputs, n, out, t_read, t_an, e);
    }
    if (st != TD_OK)
        return st;
    if (json) /* a stored run: its stacks when they were stored beside it */
        td_run_stacks_beside(r, *out, inputs[0]);
    st = td_run_apply_meta(r, *out, e);
    if (st != TD_OK) {
        td_summary_free(*out);
        *out = NULL;
    }
    return st;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void td_run_stacks_beside(const td_run *r, td_summary *s, const char *json_path)
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
        if (td_folded_try_read(path, kind, &fs, &ffl, NULL, &e) != TD_OK)
            note(r, TD_RUN_WARNING, "warning: baseline stacks not used: %s", e.msg);
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

void td_run_diff_flames(const td_run *r, td_summary *cur, const td_summary *base,
                        const char *label)
{
    td_err e = {0};
    if (td_flame_diffs(cur, cur, base, label, &e) < 0)
        note(r, TD_RUN_WARNING, "warning: no differential flamegraph: %s", e.msg);
}

td_status td_run_chrome(const td_run *r, char **inputs, int n, const char *out, int stack,
                        const char *version, td_err *e)
{
    td_traceset *set = NULL;
    td_status st = td_run_read(r, inputs, n, stack, &set, e);
    if (st != TD_OK)
        return st;
    td_run_read_warnings(r, set);
    td_summary *s = td_summary_new();
    st = td_analyse(set, &r->o, s, e);
    if (st == TD_OK)
        st = stack ? td_render_stacktrace(set, s, version, out, e)
                   : td_render_chrome(set, s, &r->o, version, out, e);
    td_traceset_free(set);
    td_summary_free(s);
    return st;
}
