/* render/pdf/samba.c - the PDF's `stacktrace` section (SambaTune stack tracing): the
 * host vs device bar from the host_breakdown table and the measured vs estimated latency
 * scatter (log-log, one point per hypersection with both, the y = x and y = 1.5 x lines
 * marked) from the hypersections table. Every number is the summary's. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C_HOST0 0xd9822bu

static void host_bar(pdoc *d)
{
    const td_table *t = td_sum_find_table(d->s, "host_breakdown");
    if (!t || !t->nrows)
        return;
    int cn = td_table_col(t, "name"), cs = td_table_col(t, "share"), cd = td_table_col(t, "side"),
        ct = td_table_col(t, "total_ns");
    if (cn < 0 || cs < 0 || cd < 0 || ct < 0)
        return;
    static const uint32_t host_col[] = {C_HOST0, 0xe3b35bu, 0x8e5ea2u, 0xc0392bu, 0x7f6a3bu,
                                        0x17a2b8u, 0x5f6670u, 0xa05195u};
    size_t n = t->nrows < 9 ? t->nrows : 9;
    double W = d->x1 - d->x0, x = d->x0;
    double y = d->y;
    int hi = 0;
    for (size_t r = 0; r < n; r++) {
        double f = td_table_cell(t, r, cs)->f;
        const char *side = td_table_cell(t, r, cd)->s;
        uint32_t c = side && !strcmp(side, "device") ? C_COMP : host_col[hi++ % 8];
        double w = isfinite(f) && f > 0 ? f * W : 0;
        pd_rgb(d, c);
        cairo_rectangle(d->cr, x, y, w, 18);
        cairo_fill(d->cr);
        if (w > 34) {
            char p[32];
            snprintf(p, sizeof p, "%.1f%%", f * 100);
            pd_text(d, x, y + 4.5, p, PF_BOLD, 7.5, w, PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END,
                    0xffffffu);
        }
        x += w;
    }
    d->y += 24;
    /* legend: swatch, name, time */
    x = d->x0;
    hi = 0;
    for (size_t r = 0; r < n; r++) {
        const char *side = td_table_cell(t, r, cd)->s;
        uint32_t c = side && !strcmp(side, "device") ? C_COMP : host_col[hi++ % 8];
        char v[64], lab[256];
        td_cell_format(&t->cols[ct], td_table_cell(t, r, ct), v, sizeof v);
        const char *nm = td_table_cell(t, r, cn)->s;
        snprintf(lab, sizeof lab, "%.100s  %s", nm ? nm : "", v);
        double w = pd_text_w(d, lab, PF_SANS, 7.5) + 11 + 16;
        if (x > d->x0 && x + w > d->x1) {
            x = d->x0;
            d->y += 12;
        }
        pd_rgb(d, c);
        cairo_rectangle(d->cr, x, d->y + 1.5, 7, 7);
        cairo_fill(d->cr);
        pd_text(d, x + 11, d->y, lab, PF_SANS, 7.5, 0, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE,
                C_TEXT);
        x += w;
    }
    d->y += 18;
}

static double lpos(double v, double lo, double hi, double p0, double p1)
{
    return p0 + (log10(v) - lo) / (hi - lo) * (p1 - p0);
}

static void scatter(pdoc *d)
{
    const td_table *t = td_sum_find_table(d->s, "hypersections");
    if (!t)
        return;
    int ce = td_table_col(t, "est_ns"), cm = td_table_col(t, "measured_ns");
    if (ce < 0 || cm < 0)
        return;
    double mn = 0, mx = 0;
    size_t n = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        int64_t e = td_table_cell(t, r, ce)->i, m = td_table_cell(t, r, cm)->i;
        if (e == TD_NA || m == TD_NA || e <= 0 || m <= 0)
            continue;
        double lo = e < m ? (double)e : (double)m, hi = e < m ? (double)m : (double)e;
        if (!n || lo < mn)
            mn = lo;
        if (!n || hi > mx)
            mx = hi;
        n++;
    }
    if (!n)
        return;
    double lo = floor(log10(mn)), hi = ceil(log10(mx * 1.5));
    if (hi <= lo)
        hi = lo + 1;
    double H = 190, side = H;
    pd_need(d, H + 60);
    pd_text(d, d->x0, d->y, "Measured vs estimated latency per call (one point per "
            "hypersection)", PF_BOLD, 8.5, 0, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
    d->y += 30;
    double px0 = d->x0 + 50, px1 = px0 + side, py0 = d->y + 6, py1 = py0 + H;
    cairo_t *cr = d->cr;
    char lb[48];
    for (double k = lo; k <= hi + 1e-9; k++) {
        double v = pow(10, k);
        double x = lpos(v, lo, hi, px0, px1), y = lpos(v, lo, hi, py1, py0);
        pd_hline(d, px0, px1, y, 0.4, k == lo ? C_MUTED : C_RULE);
        pd_rgb(d, k == lo ? C_MUTED : C_RULE);
        cairo_set_line_width(cr, 0.4);
        cairo_move_to(cr, x, py0);
        cairo_line_to(cr, x, py1);
        cairo_stroke(cr);
        pd_fmt_tick_ns(lb, sizeof lb, v);
        pd_text(d, px0 - 48, y - 4.5, lb, PF_SANS, 6.5, 44, PANGO_ALIGN_RIGHT,
                PANGO_ELLIPSIZE_END, C_MUTED);
        pd_text(d, x - 30, py1 + 3, lb, PF_SANS, 6.5, 60, PANGO_ALIGN_CENTER,
                PANGO_ELLIPSIZE_END, C_MUTED);
    }
    /* y = x (on estimate) and y = 1.5 x (the "far above" line of the findings) */
    static const double dash[] = {3, 2};
    for (int k = 0; k < 2; k++) {
        double f = k ? 1.5 : 1.0;
        double a = pow(10, lo), b = pow(10, hi) / f;
        pd_rgb(d, k ? C_BAD : C_MUTED);
        cairo_set_line_width(cr, 0.7);
        if (k)
            cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, lpos(a, lo, hi, px0, px1), lpos(a * f, lo, hi, py1, py0));
        cairo_line_to(cr, lpos(b, lo, hi, px0, px1), lpos(b * f, lo, hi, py1, py0));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        int64_t e = td_table_cell(t, r, ce)->i, m = td_table_cell(t, r, cm)->i;
        if (e == TD_NA || m == TD_NA || e <= 0 || m <= 0)
            continue;
        double x = lpos((double)e, lo, hi, px0, px1), y = lpos((double)m, lo, hi, py1, py0);
        int far = (double)m > 1.5 * (double)e;
        cairo_new_path(cr);
        cairo_arc(cr, x, y, 3, 0, 2 * G_PI);
        pd_rgb(d, far ? C_BAD : C_ACCENT);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 0.5);
        cairo_stroke(cr);
    }
    pd_text(d, px0, py1 + 13, "estimated latency (layer 1, log scale)", PF_SANS, 7, side,
            PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END, C_TEXT);
    pd_text(d, px0 - 48, py0 - 17, "measured latency (layer 4)", PF_SANS, 7, 200,
            PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
    /* key, right of the plot */
    double kx = px1 + 20, ky = py0 + 4;
    static const char *const keys[] = {"on the estimate (y = x)",
                                       "1.5x the estimate: above it is \"far above\"",
                                       "hypersection", "hypersection far above its estimate"};
    for (int k = 0; k < 4; k++) {
        if (k < 2) {
            pd_rgb(d, k ? C_BAD : C_MUTED);
            cairo_set_line_width(cr, 0.8);
            if (k)
                cairo_set_dash(cr, dash, 2, 0);
            cairo_move_to(cr, kx, ky + 5);
            cairo_line_to(cr, kx + 14, ky + 5);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        } else {
            cairo_new_path(cr);
            cairo_arc(cr, kx + 7, ky + 5, 3, 0, 2 * G_PI);
            pd_rgb(d, k == 3 ? C_BAD : C_ACCENT);
            cairo_fill(cr);
        }
        pd_text(d, kx + 20, ky, keys[k], PF_SANS, 7.5, d->x1 - kx - 20, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_TEXT);
        ky += 13;
    }
    d->y = py1 + 30;
    if (n < t->nrows) {
        char note[128];
        snprintf(note, sizeof note, "%zu of %zu hypersections have both an estimate and a "
                 "measurement.", n, t->nrows);
        pd_note(d, note);
    }
}

int pd_stacktrace(pdoc *d, const td_section *sec)
{
    const td_kv *model = td_sum_get(d->s, "samba.model");
    if (!model)
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Stack tracing: host vs device", 80);
    const td_kv *miss = td_sum_get(d->s, "samba.missing");
    if (miss && miss->v.s)
        pd_note(d, miss->v.s);
    host_bar(d);
    scatter(d);
    return 1;
}
