/* render/pdf/chart.c - the PDF's chart primitives, above render/pdf/page.c: rules,
 * legends, marker shapes, segmented bars, axes, scatter plots, tick labels, and the
 * gpu_timeline lookup several sections share. The section files draw their charts with
 * these; nothing here draws a section. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pd_fmt_tick_ns(char *dst, size_t cap, double ns)
{
    double a = fabs(ns);
    if (a >= 1e9)
        snprintf(dst, cap, "%g s", ns / 1e9);
    else if (a >= 1e6)
        snprintf(dst, cap, "%g ms", ns / 1e6);
    else if (a >= 1e3)
        snprintf(dst, cap, "%g " TD_US, ns / 1e3);
    else
        snprintf(dst, cap, "%g ns", ns);
}

void pd_fmt_tick_bytes(char *dst, size_t cap, double b)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (fabs(b) >= 1024 && i < 4) {
        b /= 1024;
        i++;
    }
    snprintf(dst, cap, "%g %s", b, u[i]);
}

const td_table *pd_timeline_all(const td_summary *s, size_t *row)
{
    const td_table *t = td_sum_find_table(s, "gpu_timeline");
    if (!t)
        return NULL;
    int cdev = td_table_col(t, "device"), cscope = td_table_col(t, "scope");
    int ctot = td_table_col(t, "total_ns");
    if (cdev < 0 || ctot < 0)
        return NULL;
    long best = -1;
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, cdev)->i != -1 || td_table_cell(t, r, ctot)->i <= 0 ||
            td_table_cell(t, r, ctot)->i == TD_NA)
            continue;
        const char *sc = cscope >= 0 ? td_table_cell(t, r, cscope)->s : NULL;
        int is_trace = sc && strcmp(sc, "trace") == 0;
        if (best < 0 || is_trace)
            best = (long)r;
        if (is_trace)
            break;
    }
    if (best < 0)
        return NULL;
    *row = (size_t)best;
    return t;
}

/* 1, 2, 2.5, 5 x 10^k at or above v */
double pd_nice_step(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    double m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

void pd_hline(pdoc *d, double x0, double x1, double y, double lw, uint32_t c)
{
    pd_rgb(d, c);
    cairo_set_line_width(d->cr, lw);
    cairo_move_to(d->cr, x0, y);
    cairo_line_to(d->cr, x1, y);
    cairo_stroke(d->cr);
}

static void swatch(pdoc *d, double x, double y, uint32_t c)
{
    pd_rgb(d, c);
    cairo_rectangle(d->cr, x, y + 1.5, 7, 7);
    cairo_fill(d->cr);
}

/* A row of legend entries (swatch + label), wrapping; advances d->y. */
void pd_legend(pdoc *d, const char *const *label, const uint32_t *color, int n)
{
    double x = d->x0;
    for (int i = 0; i < n; i++) {
        double w = pd_text_w(d, label[i], PF_SANS, 7.5) + 11 + 16;
        if (x > d->x0 && x + w > d->x1) {
            x = d->x0;
            d->y += 12;
        }
        swatch(d, x, d->y, color[i]);
        pd_text(d, x + 11, d->y, label[i], PF_SANS, 7.5, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_TEXT);
        x += w;
    }
    d->y += 13;
}

static void marker(pdoc *d, double x, double y, int shape, uint32_t color)
{
    cairo_t *cr = d->cr;
    double r = 2.9;
    cairo_new_path(cr);
    switch (shape % 4) {
    case 0:
        cairo_arc(cr, x, y, r, 0, 2 * G_PI);
        break;
    case 1:
        cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
        break;
    case 2:
        cairo_move_to(cr, x, y - r * 1.15);
        cairo_line_to(cr, x + r * 1.1, y + r * 0.85);
        cairo_line_to(cr, x - r * 1.1, y + r * 0.85);
        cairo_close_path(cr);
        break;
    default:
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r * 1.2, y);
        cairo_line_to(cr, x, y + r * 1.2);
        cairo_line_to(cr, x - r * 1.2, y);
        cairo_close_path(cr);
    }
    pd_rgb(d, color);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_set_line_width(cr, 0.5);
    cairo_stroke(cr);
}

/* Legend with marker shapes (scatter series). */
void pd_legend_shapes(pdoc *d, const char *const *label, const uint32_t *color, int n)
{
    double x = d->x0;
    for (int i = 0; i < n; i++) {
        double w = pd_text_w(d, label[i], PF_SANS, 7.5) + 11 + 16;
        if (x > d->x0 && x + w > d->x1) {
            x = d->x0;
            d->y += 12;
        }
        marker(d, x + 3.5, d->y + 5, i, color[i]);
        pd_text(d, x + 11, d->y, label[i], PF_SANS, 7.5, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_TEXT);
        x += w;
    }
    d->y += 13;
}

/* ---- segmented bars ---- */

void pd_seg_bar(pdoc *d, double x, double y, double w, double h, const double *frac,
                const uint32_t *col, int n, int labels)
{
    double cx = x;
    for (int i = 0; i < n; i++) {
        double sw = frac[i] * w;
        if (sw <= 0)
            continue;
        pd_rgb(d, col[i]);
        cairo_rectangle(d->cr, cx, y, sw, h);
        cairo_fill(d->cr);
        if (labels && sw > 30) {
            char p[32];
            snprintf(p, sizeof p, "%.1f%%", frac[i] * 100);
            pd_text(d, cx, y + (h - 9) / 2, p, PF_BOLD, 7.5, sw, PANGO_ALIGN_CENTER,
                    PANGO_ELLIPSIZE_END, col[i] == C_IDLE ? C_TEXT : 0xffffffu);
        }
        cx += sw;
    }
}

/* ---- axes ---- */

/* A plain number on an axis whose largest tick is top, in one format for the whole
 * axis: digits grouped by thousands ("100,000", "1,000,000") up to seven digits, else
 * every tick from a thousand up with its suffix ("100 k", "1 M", "10 M"); fractions
 * without an exponent ("0.0001"). %g wrote "1e+06" beside "100000" (issue 21). */
static void fmt_plain(char *dst, size_t cap, double v, double top)
{
    double a = fabs(v);
    if (a > 0 && a < 1) {
        int dec = (int)ceil(-log10(a) - 1e-9);
        char b[48];
        snprintf(b, sizeof b, "%.*f", dec + 2, v);
        char *e = b + strlen(b) - 1;   /* "0.0500" -> "0.05" */
        while (*e == '0')
            *e-- = 0;
        snprintf(dst, cap, "%s", b);
        return;
    }
    if (fabs(top) >= 1e7 && a >= 1e3) {
        static const char *suf[] = {"k", "M", "G", "T", "P"};
        int i = 0;
        while (a >= 1e3 * 1e3 && i < 4) {
            a /= 1e3;
            v /= 1e3;
            i++;
        }
        snprintf(dst, cap, "%g %s", v / 1e3, suf[i]);
        return;
    }
    if (a >= 1e15) {
        snprintf(dst, cap, "%g", v);
        return;
    }
    char b[48];
    snprintf(b, sizeof b, "%.0f", a);
    size_t n = strlen(b), o = 0;
    if (v < 0 && o + 1 < cap)
        dst[o++] = '-';
    for (size_t i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            dst[o++] = ',';
        dst[o++] = b[i];
    }
    dst[o] = 0;
    /* a linear axis' fractional steps (2.5, 7.5) keep their decimals */
    if (a < 1e3 && a != floor(a))
        snprintf(dst, cap, "%g", v);
}

/* 10 to the power e with a superscript exponent: "10⁻⁷" */
static void fmt_pow10(char *dst, size_t cap, int e)
{
    static const char *sup[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    char digits[16];
    snprintf(digits, sizeof digits, "%d", e < 0 ? -e : e);
    size_t o = (size_t)snprintf(dst, cap, "10%s", e < 0 ? "\u207b" : "");
    for (const char *c = digits; *c && o < cap; c++)
        o += (size_t)snprintf(dst + o, cap - o, "%s", sup[*c - '0']);
}

static void tick_label(const pd_axis *a, double v, char *dst, size_t cap)
{
    double top = a->log == 10 ? pow(10, a->hi) : a->log == 2 ? exp2(a->hi) : a->hi;
    /* a log axis reaching below a thousandth or to ten billion: every tick a power of
     * ten ("10⁻⁷" rather than "0.0000001") */
    if (a->kind != 1 && a->kind != 2 && a->log == 10 && (a->lo < -3 || a->hi >= 10)) {
        fmt_pow10(dst, cap, (int)lround(log10(v)));
        return;
    }
    if (a->kind == 1)
        pd_fmt_tick_ns(dst, cap, v);
    else if (a->kind == 2)
        pd_fmt_tick_bytes(dst, cap, v);
    else
        fmt_plain(dst, cap, v, top);
}

double pd_axis_pos(const pd_axis *a, double v, double p0, double p1)
{
    double t;
    if (a->log == 10)
        t = (log10(v) - a->lo) / (a->hi - a->lo);
    else if (a->log == 2)
        t = (log2(v) - a->lo) / (a->hi - a->lo);
    else
        t = (v - a->lo) / (a->hi - a->lo);
    return p0 + t * (p1 - p0);
}

/* Linear axis from 0 to a round value at or above max; returns the tick step. */
double pd_lin_axis(pd_axis *a, double max)
{
    double step = pd_nice_step((max > 0 ? max : 1) / 4);
    a->lo = 0;
    a->hi = ceil((max > 0 ? max : 1) / step - 1e-9) * step;
    a->log = 0;
    return step;
}

/* Log axis over [mn, mx] > 0 in whole exponents of base. */
static void log_axis(pd_axis *a, double mn, double mx, int base)
{
    double l0 = base == 2 ? log2(mn) : log10(mn), l1 = base == 2 ? log2(mx) : log10(mx);
    a->log = base;
    a->lo = floor(l0);
    a->hi = ceil(l1);
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
}

/* Frame, grid lines and tick labels for a plot in [px0,px1] x [py0,py1] (py0 top). */
void pd_axes(pdoc *d, const pd_axis *ax, const pd_axis *ay, double ystep, double px0,
             double px1, double py0, double py1, const char *xlabel, const char *ylabel)
{
    char lb[48];
    cairo_t *cr = d->cr;
    /* y grid (log axes: one line per power of ten) */
    for (double e = ay->lo; e <= ay->hi + ystep * 1e-6; e += ystep) {
        double v = ay->log ? pow(10, e) : e;
        double y = pd_axis_pos(ay, v, py1, py0);
        pd_hline(d, px0, px1, y, 0.4, e == ay->lo ? C_MUTED : C_RULE);
        tick_label(ay, v, lb, sizeof lb);
        pd_text(d, px0 - 44, y - 4.5, lb, PF_SANS, 6.5, 40, PANGO_ALIGN_RIGHT,
                PANGO_ELLIPSIZE_END, C_MUTED);
    }
    if (ax) {
        int step = 1;
        int span = (int)(ax->hi - ax->lo);
        while (span / step > 8)
            step++;
        if (ax->log == 2)
            while (step % 2 && span / step > 4)
                step++;
        for (int k = 0; k <= span; k += step) {
            double e = ax->lo + k;
            double v = ax->log == 2 ? exp2(e) : pow(10, e);
            double x = pd_axis_pos(ax, v, px0, px1);
            pd_rgb(d, C_RULE);
            cairo_set_line_width(cr, 0.4);
            cairo_move_to(cr, x, py0);
            cairo_line_to(cr, x, py1);
            cairo_stroke(cr);
            tick_label(ax, v, lb, sizeof lb);
            pd_text(d, x - 30, py1 + 3, lb, PF_SANS, 6.5, 60, PANGO_ALIGN_CENTER,
                    PANGO_ELLIPSIZE_END, C_MUTED);
        }
        if (xlabel)
            pd_text(d, px0, py1 + 13, xlabel, PF_SANS, 7, px1 - px0, PANGO_ALIGN_CENTER,
                    PANGO_ELLIPSIZE_END, C_TEXT);
    }
    if (ylabel)
        pd_text(d, px0 - 44, py0 - 19, ylabel, PF_SANS, 7, 200, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_TEXT);
}

/* ---- scatter plots ---- */

static void scatter_y(pdoc *d, const spt *p, size_t n, const pd_axis *axk, int ykind, int ylog,
                      const char *xlabel, const char *ylabel);

void pd_scatter(pdoc *d, const spt *p, size_t n, int xkind, int ykind, int ylog,
                const char *xlabel, const char *ylabel)
{
    pd_axis ax = {0, 0, xkind == 2 ? 2 : 10, xkind};   /* bytes: powers of two */
    scatter_y(d, p, n, &ax, ykind, ylog, xlabel, ylabel);
}

/* ylog: log10 y axis over the positive values (the others are left out) */
static void scatter_y(pdoc *d, const spt *p, size_t n, const pd_axis *axk, int ykind, int ylog,
                      const char *xlabel, const char *ylabel)
{
    double mnx = 0, mxx = 0, mxy = 0, mny = 0;
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (ylog && !(p[i].y > 0))
            continue;
        if (first || p[i].y < mny)
            mny = p[i].y;
        if (first || p[i].x < mnx)
            mnx = p[i].x;
        if (first || p[i].x > mxx)
            mxx = p[i].x;
        if (p[i].y > mxy)
            mxy = p[i].y;
        first = 0;
    }
    pd_axis ax = *axk, ay;
    log_axis(&ax, mnx, mxx, ax.log);
    double ystep = 1;
    if (ylog && !first)
        log_axis(&ay, mny, mxy, 10);
    else
        ystep = pd_lin_axis(&ay, mxy * 1.05);
    ay.kind = ykind;
    double H = 130;
    double px0 = d->x0 + 46, px1 = d->x1 - 6, py0 = d->y + 20, py1 = d->y + 20 + H;
    pd_axes(d, &ax, &ay, ystep, px0, px1, py0, py1, xlabel, ylabel);
    for (size_t i = 0; i < n; i++) {
        if (ylog && !(p[i].y > 0))
            continue;
        double x = pd_axis_pos(&ax, p[i].x, px0, px1), y = pd_axis_pos(&ay, p[i].y, py1, py0);
        marker(d, x, y, p[i].shape, p[i].color);
    }
    d->y = py1 + 28;
}
