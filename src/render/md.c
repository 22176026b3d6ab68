/* render/md.c - Markdown summary for a CI comment (`--format md`, report.md): the
 * verdict, the run's metadata, the changes sorted by severity ("same" counted, not
 * listed), comparability, findings. Every number comes from the summary. */
#define _POSIX_C_SOURCE 200809L
#include "render/render.h"
#include <string.h>

/* Table-cell text: pipes escaped, newlines and backticks made harmless. */
static void md_cell(td_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            td_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r' || *s == '\t')
            td_buf_putc(b, ' ');
        else if (*s == '`')
            td_buf_putc(b, '\'');
        else if (*s == '<')
            td_buf_puts(b, "&lt;");
        else
            td_buf_putc(b, *s);
    }
}


static void md_table(td_buf *b, const td_table *t, const char *const *cols, size_t ncols,
                     size_t top)
{
    int ci[16];
    size_t n = 0;
    for (size_t i = 0; i < ncols && n < 16; i++)
        if ((ci[n] = td_table_col(t, cols[i])) >= 0 && !t->cols[ci[n]].nodoc)
            n++;
    td_buf_puts(b, "|");
    for (size_t i = 0; i < n; i++) {
        td_buf_putc(b, ' ');
        md_cell(b, t->cols[ci[i]].title);
        td_buf_puts(b, " |");
    }
    td_buf_puts(b, "\n|");
    for (size_t i = 0; i < n; i++) {
        td_type ty = t->cols[ci[i]].type;
        td_buf_puts(b, ty == TD_T_TEXT ? "---|" : "---:|");
    }
    td_buf_putc(b, '\n');
    for (size_t r = 0; r < t->nrows && r < top; r++) {
        td_buf_puts(b, "|");
        for (size_t i = 0; i < n; i++) {
            char v[512];
            td_cell_format(&t->cols[ci[i]], td_table_cell(t, r, ci[i]), v, sizeof v);
            td_buf_putc(b, ' ');
            if (!strcmp(t->cols[ci[i]].key, "metric")) {
                td_buf_putc(b, '`');
                md_cell(b, v);
                td_buf_putc(b, '`');
            } else if (!strcmp(t->cols[ci[i]].key, "direction") && !strcmp(v, "regressed")) {
                td_buf_puts(b, "**regressed**");
            } else
                md_cell(b, v);
            td_buf_puts(b, " |");
        }
        td_buf_putc(b, '\n');
    }
    if (t->nrows > top)
        td_buf_printf(b, "\n%zu more rows in summary.json.\n", t->nrows - top);
}

/* A history's regression (compare/triage.h): the suspect range, the commits as links when
 * the run has meta.commit_url, the bisect line. */
static void md_suspect(td_buf *b, const td_summary *s)
{
    const char *range = td_sum_text(s, "suspect.range");
    if (!range)
        return;
    td_buf_puts(b, "**Suspect range**: ");
    md_cell(b, range);
    td_buf_puts(b, "\n\n");
    static const char *const k[][3] = {
        {"suspect.first_bad_commit", "suspect.first_bad_url", "first bad"},
        {"suspect.last_good_commit", "suspect.last_good_url", "last good"}};
    for (int i = 0; i < 2; i++) {
        const char *c = td_sum_text(s, k[i][0]), *u = td_sum_text(s, k[i][1]);
        if (!c || !*c)
            continue;
        td_buf_printf(b, "- %s: ", k[i][2]);
        if (u) {
            td_buf_puts(b, "[");
            md_cell(b, c);
            td_buf_puts(b, "](<");
            for (const char *p = u; *p; p++) /* no '<', '>' or newline inside <...> */
                if (*p == '<' || *p == '>' || *p == '\n')
                    td_buf_printf(b, "%%%02X", (unsigned char)*p);
                else
                    td_buf_putc(b, *p);
            td_buf_puts(b, ">)\n");
        } else {
            md_cell(b, c);
            td_buf_putc(b, '\n');
        }
    }
    const char *bis = td_sum_text(s, "suspect.bisect");
    if (bis)
        td_buf_printf(b, "- bisect: `%s`\n", bis);
    td_buf_putc(b, '\n');
}

static td_status write_md(FILE *f, void *ctx, td_err *e)
{
    const td_summary *s = ctx;
    td_buf b = {0};
    const char *v = td_sum_text(s, "verdict"), *lab = td_sum_text(s, "inputs_label");
    td_buf_puts(&b, "### tracedoc: ");
    md_cell(&b, v ? v : "performance summary");
    td_buf_puts(&b, "\n\n");
    md_suspect(&b, s);
    /* the run: metadata, capture time, inputs, baseline */
    td_buf_puts(&b, "| run | |\n|---|---|\n");
    for (size_t i = 0; i < s->nkv; i++)
        if (!strncmp(s->kv[i].key, "meta.", 5) && s->kv[i].type == TD_T_TEXT) {
            td_buf_puts(&b, "| ");
            md_cell(&b, s->kv[i].title);
            td_buf_puts(&b, " | ");
            md_cell(&b, s->kv[i].v.s);
            td_buf_puts(&b, " |\n");
        }
    static const char *const facts[] = {"trace.captured", "inputs_label", "trace.device_name",
                                        "regression.baseline", "regression.baseline_run",
                                        "date", "tool.version"};
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const td_kv *kv = td_sum_get(s, facts[i]);
        if (!kv || kv->type != TD_T_TEXT || !kv->v.s || !*kv->v.s)
            continue;
        td_buf_puts(&b, "| ");
        md_cell(&b, kv->title);
        td_buf_puts(&b, " | ");
        md_cell(&b, kv->v.s);
        td_buf_puts(&b, " |\n");
    }
    (void)lab;
    const td_table *ch = td_sum_find_table(s, "changes");
    if (ch && ch->nrows) {
        static const char *const cols[] = {"direction", "name", "before", "before_text", "after",
                                           "after_text", "change",
                                           "noise", "confidence", "since", "rule"};
        td_buf_puts(&b, "\n#### Changes (most severe first)\n\n");
        md_table(&b, ch, cols, sizeof cols / sizeof cols[0], 50);
    }
    const td_kv *same = td_sum_get(s, "change_counts.same");
    const td_kv *nj = td_sum_get(s, "change_counts.not_judged");
    if (same)
        td_buf_printf(&b, "\n%lld metrics the same (not listed)%s", (long long)same->v.i,
                      nj ? "" : ".\n");
    if (same && nj)
        td_buf_printf(&b, "; %lld not judged (under 1%% of their table's time).\n",
                      (long long)nj->v.i);
    const char *rule = td_sum_text(s, "change_rule");
    if (rule) {
        td_buf_puts(&b, "\nRule: ");
        md_cell(&b, rule);
        td_buf_puts(&b, ".\n");
    }
    const td_table *cmp = td_sum_find_table(s, "comparability");
    if (cmp && cmp->nrows) {
        static const char *const cols[] = {"check", "baseline", "current", "status"};
        td_buf_puts(&b, "\n<details><summary>Comparability</summary>\n\n");
        md_table(&b, cmp, cols, 4, 20);
        td_buf_puts(&b, "\n</details>\n");
    }
    if (s->nfindings) {
        td_buf_puts(&b, "\n#### Findings\n\n");
        for (size_t i = 0; i < s->nfindings; i++) {
            td_buf_puts(&b, "- ");
            md_cell(&b, s->findings[i]);
            td_buf_putc(&b, '\n');
        }
    }
    return td_buf_flush(&b, f, e);
}

td_status td_render_md(const td_summary *s, const char *path, td_err *e)
{
    return td_write_atomic_cb(path, write_md, (void *)s, e);
}
