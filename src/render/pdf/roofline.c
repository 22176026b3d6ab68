/* render/pdf/roofline.c - the PDF's roofline chart (section kind "roofline"): arithmetic
 * intensity (FLOPs/byte, log) against achieved TFLOP/s (log), one point per op_perf row
 * with device time, coloured by category; the device's roof per data type (the
 * bandwidth slope up to the ridge, then the compute ceiling) from table `op_perf_roofs`; the
 * top rows by device time numbered and listed under the chart. Every number comes from
 * the summary (analyse/op_perf.c). Nothing is drawn without op_perf rows. */
#include "render/pdf/internal.h"
#include "summary/table_text.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define NLABEL 6 /* the top rows numbered */

static const struct { const char *prefix; const char *label; uint32_t color; } CATS[] = {
    {"GEMM", "GEMM", C_COMP},        {"SDPA", "Attention", 0x8e5ea2u},
    {"CONV", "Convolution", 0x17a2b8u}, {"NORM", "Normalisation", C_MEMCPY},
    {"Reduce", "Reduction", 0x7f6a3bu}, {"", "Elementwise", C_COMM},
};
#define NCATS (sizeof CATS / sizeof CATS[0])

static size_t cat_of(const char *c)
{
    for (size_t i = 0; i + 1 < NCATS; i++)
        if (c && !strncmp(c, CATS[i].prefix, strlen(CATS[i].prefix)))
            return i;
    return NCATS - 1;
}

/* v > 0 with three significant digits and no exponent: "0.000256", "19.5", "2039" */
static void sig3(char *dst, size_t cap, double v)
{
    int dec = isfinite(v) && v > 0 ? 2 - (int)floor(log10(v)) : 0;
    snprintf(dst, cap, "%.*f", dec > 0 ? dec : 0, v);
}

/* an achieved rate given in TFLOP/s, with the prefix that makes it read 1 to 999:
 * "33.5 MFLOP/s", not "3.35e-05 TFLOP/s" */
static void flops(char *dst, size_t cap, double tflops)
{
    static const char *pre[] = {"T", "G", "M", "k", ""};
    double v = tflops;
    size_t i = 0;
    while (isfinite(v) && v > 0 && v < 1 && i + 1 < sizeof pre / sizeof pre[0]) {
        v *= 1e3;
        i++;
    }
    char n[32];
    sig3(n, sizeof n, v);
    snprintf(dst, cap, "%s %sFLOP/s", n, pre[i]);
}

static void dot(pdoc *d, double x, double y, uint32_t color)
{
    cairo_new_path(d->cr);
    cairo_arc(d->cr, x, y, 2.8, 0, 2 * G_PI);
    pd_rgb(d, color);
    cairo_fill_preserve(d->cr);
    cairo_set_source_rgb(d->cr, 1, 1, 1);
    cairo_set_line_width(d->cr, 0.5);
    cairo_stroke(d->cr);
}

/* a point of row r: its intensity and TFLOP/s, both positive */
static int point(const td_table *t, size_t r, double *x, double *y)
{
    *x = td_row_get_f64(t, r, "intensity");
    *y = td_row_get_f64(t, r, "tflops");
    return isfinite(*x) && isfinite(*y) && *x > 0 && *y > 0;
}

/* 1 when roof row r repeats an earlier one (the same type and peaks on another rank) */
static int repeated(const td_table *rf, size_t r)
{
    for (size_t k = 0; k < r; k++) {
        const char *a = td_row_get_str(rf, k, "dtype"), *b = td_row_get_str(rf, r, "dtype");
        if (a && b && !strcmp(a, b) &&
            td_row_get_f64(rf, k, "peak_tflops") == td_row_get_f64(rf, r, "peak_tflops") &&
            td_row_get_f64(rf, k, "peak_tbps") == td_row_get_f64(rf, r, "peak_tbps"))
            return 1;
    }
    return 0;
}

static int roofline(pdoc *d, const td_table *t, const char *title);

int pd_roofline(pdoc *d, const char *title)
{
    /* one point per piece of work: an op inside another with the same device time
     * (aten::native_layer_norm in aten::layer_norm) is the outer op's point */
    const td_table *t = td_sum_find_table(d->s, "op_perf");
    td_table *v = t ? td_doc_view(t) : NULL;
    int drawn = roofline(d, v ? v : t, title);
    td_doc_view_free(v);
    return drawn;
}

static int roofline(pdoc *d, const td_table *t, const char *title)
{
    const td_table *rf = td_sum_find_table(d->s, "op_perf_roofs");
    if (!t || !t->nrows)
        return 0;
    double xmn = INFINITY, xmx = 0, ymn = INFINITY, ymx = 0, x, y;
    size_t npts = 0;
    for (size_t r = 0; r < t->nrows; r++)
        if (point(t, r, &x, &y)) {
            xmn = fmin(xmn, x), xmx = fmax(xmx, x), ymn = fmin(ymn, y), ymx = fmax(ymx, y);
            npts++;
        }
    if (!npts)
        return 0;
    for (size_t r = 0; rf && r < rf->nrows; r++) {
        double pf = td_row_get_f64(rf, r, "peak_tflops"), rg = td_row_get_f64(rf, r, "ridge");
        if (isfinite(pf) && pf > 0 && isfinite(rg) && rg > 0)
            ymx = fmax(ymx, pf), xmx = fmax(xmx, rg * 4), xmn = fmin(xmn, rg / 4);
    }
    pd_axis ax = {floor(log10(xmn)), ceil(log10(xmx)), 10, 0};
    pd_axis ay = {floor(log10(ymn)), ceil(log10(ymx * 1.05)), 10, 0};
    if (ax.hi <= ax.lo)
        ax.hi = ax.lo + 1;
    if (ay.hi <= ay.lo)
        ay.hi = ay.lo + 1;
    double ystep = ay.hi - ay.lo > 8 ? 2 : 1;
    double H = 190;
    pd_heading(d, title ? title : "Roofline", H + 110);
    pd_note(d, "Each point is an op with its input shapes (table \"Op performance model\"): "
               "its FLOPs per byte moved against the TFLOP/s it achieved over its device "
               "time. The lines are the device's roof for each data type: memory bandwidth "
               "up to the ridge, then the compute peak. The further below the roof, the more "
               "room.");
    double px0 = d->x0 + 46, px1 = d->x1 - 6, py0 = d->y + 22, py1 = py0 + H;
    pd_axes(d, &ax, &ay, ystep, px0, px1, py0, py1, "Arithmetic intensity (FLOPs per byte)",
            "Achieved TFLOP/s");
    cairo_t *cr = d->cr;
    cairo_save(cr);
    cairo_rectangle(cr, px0, py0, px1 - px0, py1 - py0);
    cairo_clip(cr);
    /* the roofs: from the left edge along the bandwidth slope to the ridge, then flat */
    for (size_t r = 0; rf && r < rf->nrows; r++) {
        double pf = td_row_get_f64(rf, r, "peak_tflops"), pb = td_row_get_f64(rf, r, "peak_tbps"),
               rg = td_row_get_f64(rf, r, "ridge");
        if (!(pf > 0 && pb > 0 && rg > 0))
            continue;
        double xl = pow(10, ax.lo), xr = pow(10, ax.hi);
        pd_rgb(d, C_TEXT);
        cairo_set_line_width(cr, 1.1);
        cairo_move_to(cr, pd_axis_pos(&ax, xl, px0, px1), pd_axis_pos(&ay, pb * xl, py1, py0));
        cairo_line_to(cr, pd_axis_pos(&ax, rg, px0, px1), pd_axis_pos(&ay, pf, py1, py0));
        cairo_line_to(cr, pd_axis_pos(&ax, xr, px0, px1), pd_axis_pos(&ay, pf, py1, py0));
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    double used_y[16];
    size_t nused = 0;
    for (size_t r = 0; rf && r < rf->nrows; r++) {
        double pf = td_row_get_f64(rf, r, "peak_tflops"), pb = td_row_get_f64(rf, r, "peak_tbps");
        const char *dt = td_row_get_str(rf, r, "dtype");
        if (!(pf > 0 && pb > 0) || repeated(rf, r))
            continue;
        char lb[96];
        /* the data sheet's figures as given (989.4, 2.039): never tiny, no exponent */
        snprintf(lb, sizeof lb, "%s peak %g TFLOP/s, %g TB/s", dt ? dt : "", pf, pb);
        /* above its roof, clear of the labels already placed (roofs less than half a
         * decade apart drew their labels over each other) */
        double yy = pd_axis_pos(&ay, pf, py1, py0) - 10;
        for (int moved = 1; moved;) {
            moved = 0;
            for (size_t k = 0; k < nused; k++)
                if (fabs(yy - used_y[k]) < 8.5) {
                    yy = used_y[k] - 8.5;
                    moved = 1;
                }
        }
        if (nused < sizeof used_y / sizeof used_y[0])
            used_y[nused++] = yy;
        pd_text(d, px1 - 200, yy, lb, PF_SANS, 6.5, 198, PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END,
                C_TEXT);
    }
    /* the points, the smallest device times first so the top ones are drawn on top */
    int used[NCATS] = {0};
    for (size_t k = t->nrows; k-- > 0;) {
        if (!point(t, k, &x, &y))
            continue;
        size_t c = cat_of(td_row_get_str(t, k, "category"));
        used[c] = 1;
        dot(d, pd_axis_pos(&ax, x, px0, px1), pd_axis_pos(&ay, y, py1, py0), CATS[c].color);
    }
    /* the top rows (the table's order: device time, largest first) numbered */
    size_t lab[NLABEL], nl = 0;
    for (size_t r = 0; r < t->nrows && nl < NLABEL; r++)
        if (point(t, r, &x, &y)) {
            char n[8];
            snprintf(n, sizeof n, "%zu", nl + 1);
            pd_text(d, pd_axis_pos(&ax, x, px0, px1) + 3, pd_axis_pos(&ay, y, py1, py0) - 11, n,
                    PF_BOLD, 7, 20, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
            lab[nl++] = r;
        }
    d->y = py1 + 26;
    const char *names[NCATS];
    uint32_t cols[NCATS];
    int nc = 0;
    for (size_t c = 0; c < NCATS; c++)
        if (used[c]) {
            names[nc] = CATS[c].label;
            cols[nc++] = CATS[c].color;
        }
    pd_legend(d, names, cols, nc);
    for (size_t i = 0; i < nl; i++) {
        size_t r = lab[i];
        char line[400], share[32] = "";
        double sh = td_row_get_f64(t, r, "roofline_share");
        if (isfinite(sh))
            snprintf(share, sizeof share, ", %.0f%% of its roofline", 100 * sh);
        const char *nm = td_row_get_str(t, r, "name"), *dt = td_row_get_str(t, r, "dtype");
        char fl[48], in[32];
        flops(fl, sizeof fl, td_row_get_f64(t, r, "tflops"));
        sig3(in, sizeof in, td_row_get_f64(t, r, "intensity"));
        snprintf(line, sizeof line, "%zu  %s (%s): %s, %s FLOPs/byte%s", i + 1,
                 nm ? nm : "", dt ? dt : "", fl, in, share);
        pd_need(d, 10);
        d->y += pd_text(d, d->x0, d->y, line, PF_SANS, 7, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_MIDDLE, C_TEXT) + 1;
    }
    d->y += 8;
    return 1;
}
