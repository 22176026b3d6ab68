/* render/junit.c - JUnit XML for CI dashboards (`--format junit`, junit.xml): one test
 * case per judged metric (table `comparisons`), named as the documents name it with its
 * unit and the key in parentheses, failing when it regressed or its kernel vanished; one failing case "comparability" when nothing was comparable. Every number
 * comes from the summary. */
#define _POSIX_C_SOURCE 200809L
#include "render/render.h"
#include <string.h>


static void cell(const td_table *t, size_t r, const char *key, char *dst, size_t cap)
{
    int c = td_table_col(t, key);
    if (c < 0) {
        dst[0] = 0;
        return;
    }
    td_cell_format(&t->cols[c], td_table_cell(t, r, c), dst, cap);
}

static td_status write_junit(FILE *f, void *ctx, td_err *e)
{
    const td_summary *s = ctx;
    const td_table *t = td_sum_find_table(s, "comparisons");
    const char *verdict = td_sum_text(s, "verdict");
    int notcmp = verdict && !strncmp(verdict, "NOT COMPARABLE", 14);
    size_t tests = t ? t->nrows : 0, fails = 0;
    int cd = t ? td_table_col(t, "direction") : -1;
    for (size_t r = 0; cd >= 0 && r < tests; r++) {
        const char *d = td_table_cell(t, r, cd)->s;
        fails += d && (!strcmp(d, "regressed") || !strcmp(d, "vanished"));
    }
    if (notcmp) {
        tests++;
        fails++;
    }
    td_buf b = {0};
    const char *label = td_sum_text(s, "meta.commit");
    if (!label)
        label = td_sum_text(s, "inputs_label");
    td_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    td_buf_printf(&b, "<testsuites name=\"tracedoc\" tests=\"%zu\" failures=\"%zu\" "
                  "errors=\"0\">\n", tests, fails);
    td_buf_puts(&b, "<testsuite name=\"tracedoc regression");
    if (label) {
        td_buf_puts(&b, ": ");
        td_buf_xml(&b, label, 200);
    }
    td_buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", tests,
                  fails);
    td_buf_puts(&b, "<properties>\n");
    for (size_t i = 0; i < s->nkv; i++) {
        const td_kv *kv = &s->kv[i];
        if (kv->type != TD_T_TEXT || !kv->v.s ||
            (strncmp(kv->key, "meta.", 5) && strcmp(kv->key, "verdict") &&
             strcmp(kv->key, "trace.captured") && strcmp(kv->key, "regression.baseline") &&
             strcmp(kv->key, "inputs_label") && strcmp(kv->key, "tool.version")))
            continue;
        td_buf_puts(&b, "<property name=\"");
        td_buf_xml(&b, kv->key, 0);
        td_buf_puts(&b, "\" value=\"");
        td_buf_xml(&b, kv->v.s, 0);
        td_buf_puts(&b, "\"/>\n");
    }
    td_buf_puts(&b, "</properties>\n");
    if (notcmp) {
        td_buf_puts(&b, "<testcase classname=\"tracedoc\" name=\"comparability\">\n"
                    "<failure type=\"not comparable\" message=\"");
        td_buf_xml(&b, verdict, 0);
        td_buf_puts(&b, "\"/>\n</testcase>\n");
    }
    for (size_t r = 0; t && r < t->nrows; r++) {
        char metric[1400], dir[32], before[64], after[64], change[32], noise[32], conf[32],
            since[256], rule[400];
        cell(t, r, "metric", metric, sizeof metric);
        cell(t, r, "direction", dir, sizeof dir);
        cell(t, r, "before", before, sizeof before);
        cell(t, r, "after", after, sizeof after);
        if (td_table_col(t, "before_text") >= 0) { /* mixed units: the readable text */
            cell(t, r, "before_text", before, sizeof before);
            cell(t, r, "after_text", after, sizeof after);
        }
        cell(t, r, "change", change, sizeof change);
        cell(t, r, "noise", noise, sizeof noise);
        cell(t, r, "confidence", conf, sizeof conf);
        cell(t, r, "since", since, sizeof since);
        cell(t, r, "rule", rule, sizeof rule);
        /* classname: the metric's family, e.g. tracedoc.kernel */
        char fam[64];
        size_t k = strcspn(metric, ".:");
        snprintf(fam, sizeof fam, "%.*s", (int)(k < 40 ? k : 40), metric);
        td_buf_puts(&b, "<testcase classname=\"tracedoc.");
        td_buf_xml(&b, fam, 0);
        /* the name a reader reads (the metric's display name and unit), the key kept in
         * parentheses: "Step time (median of the steady steps), ms (step.median_ns)" */
        char mlabel[1400], unit[32] = "";
        cell(t, r, "name", mlabel, sizeof mlabel);
        const char *u = td_row_get_str(t, r, "unit");
        const char *sp = strrchr(after[0] ? after : before, ' ');
        if (u && !strcmp(u, "ns") && sp && td_table_col(t, "before_text") < 0)
            snprintf(unit, sizeof unit, "%s", sp + 1); /* the unit the values are shown in */
        else if (u && strcmp(u, "ns"))
            snprintf(unit, sizeof unit, "%s", u);
        else if (sp)
            snprintf(unit, sizeof unit, "%s", sp + 1);
        td_buf_puts(&b, "\" name=\"");
        if (mlabel[0]) {
            td_buf_xml(&b, mlabel, 0);
            if (unit[0]) {
                td_buf_puts(&b, ", ");
                td_buf_xml(&b, unit, 0);
            }
            td_buf_puts(&b, " (");
            td_buf_xml(&b, metric, 0);
            td_buf_puts(&b, ")");
        } else
            td_buf_xml(&b, metric, 0);
        td_buf_puts(&b, "\" time=\"0\">\n");
        char msg[1200];
        snprintf(msg, sizeof msg, "%s: %s -> %s (%s; noise %s; confidence %s) since %s", dir,
                 before[0] ? before : "-", after[0] ? after : "-", change[0] ? change : "-",
                 noise[0] ? noise : "-", conf[0] ? conf : "-", since);
        int bad = !strcmp(dir, "regressed") || !strcmp(dir, "vanished");
        td_buf_puts(&b, bad ? "<failure type=\"" : "<system-out>");
        if (bad) {
            td_buf_xml(&b, dir, 0);
            td_buf_puts(&b, "\" message=\"");
            td_buf_xml(&b, msg, 0);
            td_buf_puts(&b, "\">");
            td_buf_xml(&b, rule, 0);
            td_buf_puts(&b, "</failure>\n");
        } else {
            td_buf_xml(&b, msg, 0);
            td_buf_puts(&b, "; ");
            td_buf_xml(&b, rule, 0);
            td_buf_puts(&b, "</system-out>\n");
        }
        td_buf_puts(&b, "</testcase>\n");
    }
    td_buf_puts(&b, "</testsuite>\n</testsuites>\n");
    return td_buf_flush(&b, f, e);
}

td_status td_render_junit(const td_summary *s, const char *path, td_err *e)
{
    return td_write_atomic_cb(path, write_junit, (void *)s, e);
}
