/* render/pdf/check.c - the PDF "checklist" section: the perf-report checklist (summary
 * table `checklist`), one ticked or open box per item with what the report has or what
 * to add, wrapped. */
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
    size_t done = 0;
    for (size_t r = 0; r < t->nrows; r++)
        done += td_table_cell(t, r, co)->i == 1;
    pd_heading(d, title ? title : "Performance report checklist", 60);
    char head[128];
    snprintf(head, sizeof head, "%zu of %zu items in this report.", done, t->nrows);
    d->y += pd_text(d, d->x0, d->y, head, PF_SANS, 9, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_NONE, C_MUTED) + 6;
    double tx = d->x0 + 20, W = d->x1 - tx;
    for (size_t r = 0; r < t->nrows; r++) {
        int ok = td_table_cell(t, r, co)->i == 1;
        const char *item = td_table_cell(t, r, ci)->s, *det = td_table_cell(t, r, cd)->s;
        double h = pd_text_h(d, item ? item : "", PF_BOLD, 9.5, W) +
                   pd_text_h(d, det ? det : "", PF_SANS, 8.5, W) + 10;
        pd_need(d, h);
        pd_text(d, d->x0, d->y - 1, ok ? "\xE2\x9C\x93" : "\xE2\x98\x90", PF_BOLD, 11, 16,
                PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, ok ? C_GOOD : C_BAD);
        d->y += pd_text(d, tx, d->y, item ? item : "", PF_BOLD, 9.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += pd_text(d, tx, d->y + 1, det ? det : "", PF_SANS, 8.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, ok ? C_MUTED : C_TEXT) + 9;
    }
    return 1;
}
