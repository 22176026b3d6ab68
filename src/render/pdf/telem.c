/* render/pdf/telem.c - the PDF "telemetry" section: a step timeline strip, then one line
 * chart per telemetry metric and device under it, on the same time axis (the traced
 * time), steps shaded. Every number comes from the summary (telemetry_series,
 * telemetry_metrics, steps, trace.span_ns); samples outside the trace are only counted. */
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHARTS 8

static const uint32_t line_col[] = {0x3a6ea5u, 0xd9822bu, 0x6a9f58u, 0x8e5ea2u, 0xb42318u,
                                    0x2f8f8fu, 0x7a6a3au, 0x5f6670u};

static void shade_steps(pdoc *d, const td_table *st, double px0, double px1, double y0,
                        double y1, double span, int label)
{
    int cs = td_table_col(st, "start_ns"), cw = td_table_col(st, "wall_ns");
    int cr = td_table_col(st, "rank"), cn = td_table_col(st, "name");
    if (cs < 0 || cw < 0)
        return;
    int64_t rank0 = cr >= 0 && st->nrows ? td_table_cell(st, 0, cr)->i : 0;
    for (size_t r = 0; r < st->nrows && r < 400; r++) {
        if (cr >= 0 && td_table_cell(st, r, cr)->i != rank0)
            continue;
        double s = (double)td_table_cell(st, r, cs)->i, w = (double)td_table_cell(st, r, cw)->i;
        double xa = px0 + (px1 - px0) * s / span, xb = px0 + (px1 - px0) * (s + w) / span;
        if (xb <= px0 || xa >= px1)
            continue;
        xa = fmax(xa, px0);
        xb = fmin(xb, px1);
        int wu = !td_steps_row_steady(st, r); /* warm-up, or cut short */
        pd_rgb(d, label ? (wu ? C_WARM : C_COMP) : C_ZEBRA);
        cairo_rectangle(d->cr, xa, y0, fmax(xb - xa - (label ? 0.6 : 0), 0.4), y1 - y0);
        cairo_fill(d->cr);
        if (label && cn >= 0 && td_table_cell(st, r, cn)->s && xb - xa > 30)
            pd_text(d, xa + 2, y0 + 1.5, td_table_cell(st, r, cn)->s, PF_SANS, 6, xb - xa - 4,
                    PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, 0xffffffu);
    }
}

int pd_telemetry(pdoc *d, const char *title)
{
    const td_table *se = td_sum_find_table(d->s, "telemetry_series");
    const td_table *st = td_sum_find_table(d->s, "steps");
    const td_kv *sp = td_sum_get(d->s, "trace.span_ns");
    if (!se || !se->nrows || !sp || sp->v.i <= 0)
        return 0;
    double span = (double)sp->v.i;
    int cm = td_table_col(se, "metric"), cu = td_table_col(se, "unit");
    int cd = td_table_col(se, "device"), ct = td_table_col(se, "t_ns");
    int cv = td_table_col(se, "value");
    /* series: runs of equal (metric, device) rows, as the analysis wrote them */
    size_t first[MAX_CHARTS], count[MAX_CHARTS], ns = 0, dropped = 0;
    for (size_t r = 0; r < se->nrows;) {
        size_t k = r;
        while (k < se->nrows && !strcmp(td_table_cell(se, k, cm)->s, td_table_cell(se, r, cm)->s) &&
               td_table_cell(se, k, cd)->i == td_table_cell(se, r, cd)->i)
            k++;
        if (ns < MAX_CHARTS) {
            first[ns] = r;
            count[ns++] = k - r;
        } else {
            dropped++;
        }
        r = k;
    }
    double W = d->x1 - d->x0, px0 = d->x0 + 52, px1 = d->x1 - 4, H = 58;
    pd_heading(d, title ? title : "Telemetry during the trace", 40 + H + 30);
    /* the step timeline strip */
    double y = d->y;
    if (st && st->nrows) {
        pd_text(d, d->x0, y + 1, "Steps", PF_SANS, 7, 50, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END,
                C_MUTED);
        shade_steps(d, st, px0, px1, y, y + 11, span, 1);
        y += 16;
    }
    d->y = y;
    for (size_t c = 0; c < ns; c++) {
        pd_need(d, H + 24);
        y = d->y;
        double mn = INFINITY, mx = -INFINITY;
        for (size_t r = first[c]; r < first[c] + count[c]; r++) {
            double v = td_table_cell(se, r, cv)->f;
            mn = fmin(mn, v);
            mx = fmax(mx, v);
        }
        if (mn > 0 && mn < mx * 0.5)
            mn = 0;
        if (mx <= mn)
            mx = mn + 1;
        double y0 = y + 4, y1 = y + 4 + H;
        if (st && st->nrows)
            shade_steps(d, st, px0, px1, y0, y1, span, 0);
        pd_hline(d, px0, px1, y1, 0.6, C_RULE);
        pd_hline(d, px0, px1, y0, 0.3, C_RULE);
        char lab[96], v0[32], v1[32];
        const char *unit = cu >= 0 && td_table_cell(se, first[c], cu)->s ? td_table_cell(se, first[c], cu)->s : "";
        int64_t dev = cd >= 0 ? td_table_cell(se, first[c], cd)->i : TD_NA;
        snprintf(v1, sizeof v1, "%.4g %s", mx, unit);
        snprintf(v0, sizeof v0, "%.4g", mn);
        pd_text(d, d->x0, y0 - 2, v1, PF_SANS, 6, 50, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
        pd_text(d, d->x0, y1 - 8, v0, PF_SANS, 6, 50, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
        if (dev != TD_NA)
            snprintf(lab, sizeof lab, "%s, device %lld", td_table_cell(se, first[c], cm)->s,
                     (long long)dev);
        else
            snprintf(lab, sizeof lab, "%s", td_table_cell(se, first[c], cm)->s);
        pd_text(d, px0 + 3, y0 + 1, lab, PF_BOLD, 7, px1 - px0 - 6, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_TEXT);
        pd_rgb(d, line_col[c % (sizeof line_col / sizeof line_col[0])]);
        cairo_set_line_width(d->cr, 1.2);
        for (size_t r = first[c]; r < first[c] + count[c]; r++) {
            double x = px0 + (px1 - px0) * (double)td_table_cell(se, r, ct)->i / span;
            double yy = y1 - (y1 - y0) * (td_table_cell(se, r, cv)->f - mn) / (mx - mn);
            if (r == first[c])
                cairo_move_to(d->cr, x, yy);
            else
                cairo_line_to(d->cr, x, yy);
        }
        if (count[c] == 1) { /* one sample: a dot */
            double x = px0 + (px1 - px0) * (double)td_table_cell(se, first[c], ct)->i / span;
            double yy = y1 - (y1 - y0) * (td_table_cell(se, first[c], cv)->f - mn) / (mx - mn);
            cairo_arc(d->cr, x, yy, 1.8, 0, 2 * G_PI);
            cairo_fill(d->cr);
        } else {
            cairo_stroke(d->cr);
        }
        d->y = y1 + 6;
    }
    /* time axis */
    char t0[32], t1[32];
    pd_fmt_tick_ns(t0, sizeof t0, 0);
    pd_fmt_tick_ns(t1, sizeof t1, span);
    pd_text(d, px0, d->y - 4, t0, PF_SANS, 6, 60, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
    pd_text(d, px1 - 60, d->y - 4, t1, PF_SANS, 6, 60, PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END,
            C_MUTED);
    d->y += 8;
    const td_kv *out = td_sum_get(d->s, "telemetry.outside");
    char note[256];
    snprintf(note, sizeof note, "Time from the trace's first event; steps shaded. %lld samples "
             "outside the traced time are counted, not drawn.%s",
             out ? (long long)out->v.i : 0LL,
             dropped ? " More series are in the workbook and summary.json." : "");
    (void)W;
    pd_note(d, note);
    return 1;
}
