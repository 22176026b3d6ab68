/* render/pdf/check.c - the PDF "checklist" section: the perf-report checklist (summary
 * table `checklist`): the items the report has, ticked, with what it has; the missing
 * ones are not drawn (the CLI tells the author on stderr). */
#include "render/pdf/internal.h"
#include <string.h>

int pd_checklist(pdoc *d, const char *title)
{
    const td_table *t = td_sum_find_table(d->s, "checklist");
    if (!t || !t->nrows)
        return 0;
    int ci = td_table_col(t, "item"), co = td_table_col(t, "ok"), cd = td_table_col(t, "detail");
    if (ci < 0 || co < 0 || cd < 0)
        return 0;
    /* the document is for the reader: it shows what the report contains; what is
     * missing is told to the author on stderr and stays in summary.json (ok = 0). The
     * trace file alone is on page 1 already: then nothing is left to show. */
    size_t done = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *item = td_table_cell(t, r, ci)->s;
        if (td_table_cell(t, r, co)->i == 1 && !(item && !strcmp(item, "The trace file")))
            done++;
    }
    if (!done)
        return 0;
    double tx = d->x0 + 20, W = d->x1 - tx, all = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, co)->i != 1)
            continue;
        const char *item = td_table_cell(t, r, ci)->s, *det = td_table_cell(t, r, cd)->s;
        all += pd_text_h(d, item ? item : "", PF_BOLD, 9.5, W) +
               pd_text_h(d, det ? det : "", PF_SANS, 8.5, W) + 10;
    }
    /* a short list (two or three items) follows the last section on its page, kept
     * whole: a page of its own for two lines was near empty (issue 21) */
    pd_heading(d, title ? title : "What this report contains", all < 300 ? all : 60);
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, co)->i != 1)
            continue;
        const char *item = td_table_cell(t, r, ci)->s, *det = td_table_cell(t, r, cd)->s;
        double h = pd_text_h(d, item ? item : "", PF_BOLD, 9.5, W) +
                   pd_text_h(d, det ? det : "", PF_SANS, 8.5, W) + 10;
        pd_need(d, h);
        pd_text(d, d->x0, d->y - 1, "\xE2\x9C\x93", PF_BOLD, 11, 16, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_GOOD);
        d->y += pd_text(d, tx, d->y, item ? item : "", PF_BOLD, 9.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += pd_text(d, tx, d->y + 1, det ? det : "", PF_SANS, 8.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_MUTED) + 9;
    }
    return 1;
}
