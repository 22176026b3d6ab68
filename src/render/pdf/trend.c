/* render/pdf/trend.c - PDF sections of nightly regression reports: the one-line verdict
 * (`section verdict`), the change table with counts and comparability (`section
 * regression`, when the summary has `changes`), and trend charts of the last runs
 * (`section trends`: one small line chart per metric of the `trends` table, the run
 * where the series changed marked). Every number comes from the summary. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include "compare/metrics.h"
#include <math.h>
#include <string.h>

/* A history's regression (compare/triage.h): the bisect line and the two commits, links
 * to them when the run has meta.commit_url (PDF link annotations). */
static void pd_suspect(pdoc *d)
{
    const char *bis = td_sum_text(d->s, "suspect.bisect");
    if (!td_sum_text(d->s, "suspect.range"))
        return;
    char line[2400];
    if (bis) {
        snprintf(line, sizeof line, "Bisect: %s", bis);
        pd_note(d, line);
    }
    static const char *const k[][3] = {
        {"suspect.first_bad_commit", "suspect.first_bad_url", "First bad commit"},
        {"suspect.last_good_commit", "suspect.last_good_url", "Last good commit"}};
    for (int i = 0; i < 2; i++) {
        const char *c = td_sum_text(d->s, k[i][0]), *u = td_sum_text(d->s, k[i][1]);
        if (!c || !*c || !u || strlen(u) > 2000)
            continue;
        snprintf(line, sizeof line, "%s %s: %s", k[i][2], c, u);
        double y0 = d->y;
        pd_note(d, line);
        struct pd_link *l = TD_PUSH(d->links, d->nlinks, d->links_cap);
        *l = (struct pd_link){d->page, d->x0, y0, d->x1 - d->x0, d->y - y0, td_xstrdup(u)};
        if (d->y < y0) /* the note began a page */
            l->y = d->ytop, l->h = d->y - d->ytop;
    }
    d->y += 4;
}

int pd_verdict(pdoc *d)
{
    const td_kv *v = td_sum_get(d->s, "verdict");
    if (!v || v->type != TD_T_TEXT || !v->v.s)
        return 0;
    const char *t = v->v.s;
    uint32_t c = !strncmp(t, "REGRESSED", 9) ? C_BAD : !strncmp(t, "OK", 2) ? C_GOOD
                 : !strncmp(t, "NOT COMPARABLE", 14)                       ? C_WARM
                                                                           : C_TEXT;
    double W = d->x1 - d->x0;
    double h = pd_text_h(d, t, PF_BOLD, 10.5, W - 12);
    pd_need(d, h + 10);
    pd_rgb(d, c);
    cairo_rectangle(d->cr, d->x0, d->y, 4, h + 6);
    cairo_fill(d->cr);
    pd_text(d, d->x0 + 10, d->y + 3, t, PF_BOLD, 10.5, W - 12, PANGO_ALIGN_LEFT,
            PANGO_ELLIPSIZE_NONE, c);
    d->y += h + 8;
    pd_suspect(d);
    return 1;
}

int pd_changes(pdoc *d, const td_section *sec)
{
    const td_summary *s = d->s;
    const td_table *ch = td_sum_find_table(s, "changes");
    const td_kv *v = td_sum_get(s, "verdict");
    if (!ch && !v)
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Changes against the baseline", 40);
    char line[512];
    const td_kv *b = td_sum_get(s, "regression.baseline"), *br = td_sum_get(s, "regression.baseline_run");
    if (b && b->type == TD_T_TEXT && b->v.s) {
        snprintf(line, sizeof line, "Compared with %s%s%s%s.", b->v.s,
                 br && br->v.s ? " (run " : "", br && br->v.s ? br->v.s : "",
                 br && br->v.s ? ")" : "");
        pd_note(d, line);
    }
    static const char *const cnt[] = {"change_counts.regressed", "change_counts.improved",
                                      "change_counts.new", "change_counts.vanished",
                                      "change_counts.same", "change_counts.not_judged"};
    static const char *const lab[] = {"regressed", "improved", "new", "vanished",
                                      "same (not listed)", "not judged (under 1% of time)"};
    size_t n = 0;
    line[0] = 0;
    for (size_t i = 0; i < 6; i++) {
        const td_kv *k = td_sum_get(s, cnt[i]);
        if (k && k->v.i != TD_NA)
            n += (size_t)snprintf(line + n, n < sizeof line ? sizeof line - n : 0, "%s%lld %s",
                                  n ? ", " : "", (long long)k->v.i, lab[i]);
    }
    if (n)
        pd_note(d, line);
    const td_kv *rule = td_sum_get(s, "change_rule");
    if (rule && rule->type == TD_T_TEXT && rule->v.s) {
        snprintf(line, sizeof line, "Rule: %s.", rule->v.s);
        pd_note(d, line);
    }
    d->y += 4;
    if (ch && ch->nrows)
        pd_table(d, ch, sec->top ? sec->top : 25, NULL);
    const td_table *cp = td_sum_find_table(s, "comparability");
    int differs = 0, cs = cp ? td_table_col(cp, "status") : -1;
    for (size_t r = 0; cs >= 0 && r < cp->nrows; r++) {
        const char *st = td_table_cell(cp, r, cs)->s;
        differs |= st && !strncmp(st, "differs", 7);
    }
    if (cp && differs) {
        d->y += 6;
        pd_table(d, cp, 10, "Comparability");
    }
    return 1;
}

/* One line chart in the box (x, y, w, h) of rows [r0, r1) of the trends table. */
static void chart(pdoc *d, const td_table *t, size_t r0, size_t r1, double x, double y, double w,
                  double h, const char *since)
{
    int cv = td_table_col(t, "value_ns"), cl = td_table_col(t, "label"), cm = td_table_col(t, "metric");
    double lo = INFINITY, hi = -INFINITY;
    for (size_t r = r0; r < r1; r++) {
        double v = (double)td_table_cell(t, r, cv)->i;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (!(hi > lo)) {
        hi = lo * 1.05 + 1;
        lo = lo * 0.95;
    }
    /* the axis ends on round values ("18.4 ms", not "18.4752 ms") */
    double step = pd_nice_step((hi - lo) / 3);
    lo = floor(lo / step) * step;
    hi = ceil(hi / step) * step;
    if (lo < 0)
        lo = 0;
    if (!(hi > lo))
        hi = lo + step;
    /* the metric as the documents name it ("Op aten::mm: total time"), not its key */
    const char *metric = td_table_cell(t, r0, cm)->s;
    char title[600] = "";
    if (metric)
        td_metric_label(strncmp(metric, "kernel.", 7) ? d->s : NULL, metric, title,
                        sizeof title);
    pd_text(d, x, y, title, PF_BOLD, 7.5, w, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_MIDDLE,
            C_TEXT);
    double gx = x + 38, gy = y + 12, gw = w - 42, gh = h - 26;
    char tick[32];
    pd_fmt_tick_ns(tick, sizeof tick, hi);
    pd_text(d, x, gy - 3, tick, PF_SANS, 6, 36, PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END, C_MUTED);
    pd_fmt_tick_ns(tick, sizeof tick, lo);
    pd_text(d, x, gy + gh - 6, tick, PF_SANS, 6, 36, PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END, C_MUTED);
    pd_hline(d, gx, gx + gw, gy, 0.4, C_RULE);
    pd_hline(d, gx, gx + gw, gy + gh, 0.6, C_RULE);
    size_t n = r1 - r0;
    double dx = n > 1 ? gw / (double)(n - 1) : 0;
    pd_rgb(d, C_ACCENT);
    cairo_set_line_width(d->cr, 1.1);
    for (size_t r = r0; r < r1; r++) {
        double v = (double)td_table_cell(t, r, cv)->i;
        double px = gx + dx * (double)(r - r0), py = gy + gh - (v - lo) / (hi - lo) * gh;
        if (r == r0)
            cairo_move_to(d->cr, px, py);
        else
            cairo_line_to(d->cr, px, py);
    }
    cairo_stroke(d->cr);
    for (size_t r = r0; r < r1; r++) {
        double v = (double)td_table_cell(t, r, cv)->i;
        double px = gx + dx * (double)(r - r0), py = gy + gh - (v - lo) / (hi - lo) * gh;
        const char *lb = td_table_cell(t, r, cl)->s;
        int mark = since && lb && !strcmp(lb, since);
        pd_rgb(d, mark ? C_BAD : C_ACCENT);
        cairo_arc(d->cr, px, py, mark ? 2.6 : 1.4, 0, 2 * G_PI);
        cairo_fill(d->cr);
        if (mark)
            pd_text(d, px - 30, gy + gh + 2, lb, PF_SANS, 6, 60, PANGO_ALIGN_CENTER,
                    PANGO_ELLIPSIZE_END, C_BAD);
    }
    const char *first = td_table_cell(t, r0, cl)->s, *last = td_table_cell(t, r1 - 1, cl)->s;
    if (first && !(since && !strcmp(first, since)))
        pd_text(d, gx - 10, gy + gh + 2, first, PF_SANS, 6, 60, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_MUTED);
    if (last && r1 - r0 > 1 && !(since && !strcmp(last, since)))
        pd_text(d, gx + gw - 50, gy + gh + 2, last, PF_SANS, 6, 60, PANGO_ALIGN_RIGHT,
                PANGO_ELLIPSIZE_END, C_MUTED);
}

int pd_trends(pdoc *d, const td_section *sec)
{
    const td_summary *s = d->s;
    const td_table *t = td_sum_find_table(s, "trends");
    if (!t || !t->nrows)
        return 0;
    int cm = td_table_col(t, "metric");
    const td_table *ch = td_sum_find_table(s, "changes");
    int chm = ch ? td_table_col(ch, "metric") : -1, chs = ch ? td_table_col(ch, "since") : -1;
    pd_heading(d, sec->title[0] ? sec->title : "Trends over the last runs", 90);
    double W = d->x1 - d->x0, cw = (W - 14) / 2, chh = 78;
    int top = sec->top ? sec->top : 8, k = 0;
    for (size_t r0 = 0; r0 < t->nrows && k < top;) {
        size_t r1 = r0;
        const char *m = td_table_cell(t, r0, cm)->s;
        while (r1 < t->nrows && m && td_table_cell(t, r1, cm)->s &&
               !strcmp(td_table_cell(t, r1, cm)->s, m))
            r1++;
        if (r1 == r0)
            r1 = r0 + 1;
        const char *since = NULL;
        for (size_t q = 0; chm >= 0 && q < ch->nrows; q++)
            if (m && td_table_cell(ch, q, chm)->s && !strcmp(td_table_cell(ch, q, chm)->s, m))
                since = td_table_cell(ch, q, chs)->s;
        if (k % 2 == 0)
            pd_need(d, chh + 4);
        chart(d, t, r0, r1, d->x0 + (k % 2) * (cw + 14), d->y, cw, chh, since);
        if (k % 2 == 1)
            d->y += chh + 6;
        k++;
        r0 = r1;
    }
    if (k % 2 == 1)
        d->y += chh + 6;
    pd_note(d, "Each point is one run (oldest left); a red point marks the run where the "
               "series changed.");
    return 1;
}
