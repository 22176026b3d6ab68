/* render/pdf/draw.c - the PDF's charts and flamegraphs (see render/pdf/pdf.c); tables are
 * in render/pdf/table.c.
 * Every number comes from the summary; the only arithmetic here is layout (widths,
 * percentages of a bar, axis ranges) and the median line of the steps chart. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include "summary/flame.h"
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
        snprintf(dst, cap, "%g us", ns / 1e3);
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
static double nice_step(double v)
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
static void legend_shapes(pdoc *d, const char *const *label, const uint32_t *color, int n)
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

/* ---- GPU time breakdown ---- */

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

static int bar_fracs(const td_table *t, size_t r, double *frac)
{
    static const char *keys[] = {"computation_ns", "exposed_comm_ns", "exposed_memcpy_ns",
                                 "idle_ns"};
    int ct = td_table_col(t, "total_ns");
    int64_t tot = td_table_cell(t, r, ct)->i;
    if (tot <= 0 || tot == TD_NA)
        return 0;
    for (int i = 0; i < 4; i++) {
        int ci = td_table_col(t, keys[i]);
        int64_t v = ci >= 0 ? td_table_cell(t, r, ci)->i : 0;
        frac[i] = v == TD_NA || v < 0 ? 0 : (double)v / (double)tot;
    }
    return 1;
}


/* XLA sets have no gpu_timeline: the runtime totals of formats.md sec. 4 split the
 * devices' wall time into busy (thunk intervals merged), idle inside modules and idle
 * between modules, which add up to runtime.wall_ns. */
static int xla_breakdown(pdoc *d, const char *title)
{
    int64_t part[3];
    if (!td_sum_xla_breakdown(d->s, part))
        return 0;
    double tot = (double)(part[0] + part[1] + part[2]);
    double frac[3];
    for (int i = 0; i < 3; i++)
        frac[i] = (double)part[i] / tot;
    static const uint32_t col[3] = {C_COMP, C_WARM, C_IDLE};
    static const char *names[3] = {"Busy in modules", "Idle inside modules",
                                   "Idle between modules"};
    pd_heading(d, title ? title : "Device time breakdown (XLA)", 95);
    pd_seg_bar(d, d->x0, d->y, d->x1 - d->x0, 20, frac, col, 3, 1);
    d->y += 26;
    char lab[3][128];
    const char *lp[3];
    for (int i = 0; i < 3; i++) {
        char v[64];
        td_fmt_ns(v, sizeof v, part[i]);
        snprintf(lab[i], sizeof lab[i], "%s  %s (%.1f%%)", names[i], v, frac[i] * 100);
        lp[i] = lab[i];
    }
    pd_legend(d, lp, col, 3);
    d->y += 2;
    char wall[64], thunks[64], note[700];
    td_fmt_ns(wall, sizeof wall, part[0] + part[1] + part[2]);
    const td_kv *nd = td_sum_get(d->s, "trace.devices");
    int64_t ndev = nd && nd->type != TD_T_TEXT && nd->v.i != TD_NA ? nd->v.i : 0;
    char over[48] = "the devices";
    if (ndev > 0)
        snprintf(over, sizeof over, "%lld device%s", (long long)ndev, ndev == 1 ? "" : "s");
    int o = snprintf(note, sizeof note, "Shares of the devices' wall time after warm-up "
                     "(first to last thunk on each device, summed over %s: %s). "
                     "Busy = the thunks' intervals merged (overlapping thunks counted once); "
                     "idle inside modules = module time with no thunk running; idle between "
                     "modules = the rest.", over, wall);
    int64_t th = td_sum_ns(d->s, "runtime.thunks_ns");
    if (th >= 0 && o > 0 && (size_t)o < sizeof note) {
        td_fmt_ns(thunks, sizeof thunks, th);
        snprintf(note + o, sizeof note - (size_t)o, " Thunk time added up without merging: "
                 "%s.", thunks);
    }
    pd_note(d, note);
    return 1;
}

int pd_breakdown(pdoc *d, const char *title)
{
    size_t row;
    const td_table *t = pd_timeline_all(d->s, &row);
    double frac[4];
    if (!t)
        return xla_breakdown(d, title);
    if (!bar_fracs(t, row, frac))
        return 0;
    static const uint32_t col[4] = {C_COMP, C_COMM, C_MEMCPY, C_IDLE};
    static const char *names[4] = {"Computation", "Exposed communication", "Exposed memcpy",
                                   "Idle"};
    static const char *keys[4] = {"computation_ns", "exposed_comm_ns", "exposed_memcpy_ns",
                                  "idle_ns"};
    double W = d->x1 - d->x0;
    int cdev0 = td_table_col(t, "device");
    size_t nrows_dev = 0;
    for (size_t r = 0; r < t->nrows; r++)
        if (td_table_cell(t, r, cdev0)->i >= 0)
            nrows_dev++;
    if (nrows_dev > 16)
        nrows_dev = 16;
    if (d->brief)
        nrows_dev = 0;
    char dtitle[64];
    snprintf(dtitle, sizeof dtitle, "%s time breakdown", td_sum_device_word(d->s));
    pd_heading(d, title ? title : dtitle,
               60 + (nrows_dev >= 2 ? 12.0 * (double)nrows_dev + 14 : 0));
    pd_seg_bar(d, d->x0, d->y, W, 20, frac, col, 4, 1);
    d->y += 26;
    char lab[4][128];
    const char *lp[4];
    for (int i = 0; i < 4; i++) {
        int ci = td_table_col(t, keys[i]);
        char v[64] = "";
        if (ci >= 0)
            td_cell_format(&t->cols[ci], td_table_cell(t, row, ci), v, sizeof v);
        snprintf(lab[i], sizeof lab[i], "%s  %s (%.1f%%)", names[i], v[0] ? v : "-",
                 frac[i] * 100);
        lp[i] = lab[i];
    }
    pd_legend(d, lp, col, 4);

    /* one thin bar per device of the same scope, when there are several */
    int cdev = td_table_col(t, "device"), crank = td_table_col(t, "rank");
    int cscope = td_table_col(t, "scope");
    const char *scope = cscope >= 0 ? td_table_cell(t, row, cscope)->s : NULL;
    size_t ndev = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *sc = cscope >= 0 ? td_table_cell(t, r, cscope)->s : NULL;
        if (td_table_cell(t, r, cdev)->i >= 0 &&
            (!scope || (sc && strcmp(sc, scope) == 0)))
            ndev++;
    }
    if (ndev >= 2 && !d->brief) {
        d->y += 3;
        size_t drawn = 0;
        for (size_t r = 0; r < t->nrows && drawn < 16; r++) {
            const char *sc = cscope >= 0 ? td_table_cell(t, r, cscope)->s : NULL;
            if (td_table_cell(t, r, cdev)->i < 0 || (scope && !(sc && strcmp(sc, scope) == 0)))
                continue;
            double f[4];
            if (!bar_fracs(t, r, f))
                continue;
            pd_need(d, 12);
            char lb[64];
            if (crank >= 0 && td_table_cell(t, r, crank)->i != TD_NA)
                snprintf(lb, sizeof lb, "rank %lld, device %lld",
                         (long long)td_table_cell(t, r, crank)->i,
                         (long long)td_table_cell(t, r, cdev)->i);
            else
                snprintf(lb, sizeof lb, "device %lld", (long long)td_table_cell(t, r, cdev)->i);
            pd_text(d, d->x0, d->y + 0.5, lb, PF_SANS, 7, 90, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            pd_seg_bar(d, d->x0 + 95, d->y + 1, W - 95, 8, f, col, 4, 0);
            d->y += 12;
            drawn++;
        }
        if (drawn < ndev) {
            char buf[96];
            snprintf(buf, sizeof buf, "First %zu of %zu devices.", drawn, ndev);
            pd_note(d, buf);
        }
    }
    d->y += 2;
    /* several ranks each have their own all-devices row: say which one the big bar is */
    size_t nall = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *sc = cscope >= 0 ? td_table_cell(t, r, cscope)->s : NULL;
        if (td_table_cell(t, r, cdev)->i == -1 && (!scope || (sc && strcmp(sc, scope) == 0)))
            nall++;
    }
    char note[512] = "";
    if (nall > 1 && crank >= 0 && td_table_cell(t, row, crank)->i == TD_NA)
        snprintf(note, sizeof note, "Top bar: all ranks, device time summed over ranks. ");
    else if (nall > 1 && crank >= 0)
        snprintf(note, sizeof note, "Top bar: rank %lld, all its devices. ",
                 (long long)td_table_cell(t, row, crank)->i);
    size_t nl = strlen(note);
    snprintf(note + nl, sizeof note - nl,
             "Shares of the device timeline%s: for each device, the time from its first to "
             "its last activity (idle time between them included, time before and after "
             "not). Exposed = not overlapped with computation.",
             scope && strcmp(scope, "steady") == 0 ? " after warm-up removal" : "");
    pd_note(d, note);
    return 1;
}

/* ---- axes ---- */

typedef struct axis {
    double lo, hi;  /* data range (log10 / log2 exponents when log) */
    int log;        /* 0 linear, 10 or 2 */
    int kind;       /* 0 plain, 1 ns, 2 bytes, 3 GB/s */
} axis;

static void tick_label(const axis *a, double v, char *dst, size_t cap)
{
    if (a->kind == 1)
        pd_fmt_tick_ns(dst, cap, v);
    else if (a->kind == 2)
        pd_fmt_tick_bytes(dst, cap, v);
    else if (a->kind == 3)
        snprintf(dst, cap, "%g", v);
    else
        snprintf(dst, cap, "%g", v);
}

static double axis_pos(const axis *a, double v, double p0, double p1)
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
static double lin_axis(axis *a, double max)
{
    double step = nice_step((max > 0 ? max : 1) / 4);
    a->lo = 0;
    a->hi = ceil((max > 0 ? max : 1) / step - 1e-9) * step;
    a->log = 0;
    return step;
}

/* Log axis over [mn, mx] > 0 in whole exponents of base. */
static void log_axis(axis *a, double mn, double mx, int base)
{
    double l0 = base == 2 ? log2(mn) : log10(mn), l1 = base == 2 ? log2(mx) : log10(mx);
    a->log = base;
    a->lo = floor(l0);
    a->hi = ceil(l1);
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
}

/* Frame, grid lines and tick labels for a plot in [px0,px1] x [py0,py1] (py0 top). */
static void axes(pdoc *d, const axis *ax, const axis *ay, double ystep, double px0,
                 double px1, double py0, double py1, const char *xlabel, const char *ylabel)
{
    char lb[48];
    cairo_t *cr = d->cr;
    /* y grid (log axes: one line per power of ten) */
    for (double e = ay->lo; e <= ay->hi + ystep * 1e-6; e += ystep) {
        double v = ay->log ? pow(10, e) : e;
        double y = axis_pos(ay, v, py1, py0);
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
            double x = axis_pos(ax, v, px0, px1);
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

/* ---- steps ---- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int pd_steps(pdoc *d, const char *title)
{
    const td_table *t = td_sum_find_table(d->s, "steps");
    if (!t || !t->nrows)
        return 0;
    int cw = td_table_col(t, "wall_ns"), crank = td_table_col(t, "rank");
    int cstep = td_table_col(t, "step"), cwu = td_table_col(t, "warmup");
    if (cw < 0)
        return 0;
    int64_t rank = crank >= 0 ? td_table_cell(t, 0, crank)->i : 0;
    size_t nr = 0, nranks_rows = 0;
    size_t *rows = td_xmalloc(t->nrows * sizeof *rows);
    int64_t *steady = td_xmalloc(t->nrows * sizeof *steady);
    size_t nsteady = 0;
    double max = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (crank >= 0 && td_table_cell(t, r, crank)->i != rank) {
            nranks_rows++;
            continue;
        }
        int64_t w = td_table_cell(t, r, cw)->i;
        if (w == TD_NA || w < 0)
            continue;
        if (nr >= 400)
            break;
        rows[nr++] = r;
        if ((double)w > max)
            max = (double)w;
        if (!(cwu >= 0 && td_table_cell(t, r, cwu)->i == 1))
            steady[nsteady++] = w;
    }
    /* one step per rank (a profile of a single step on each of several ranks): one bar
     * per rank rather than a chart with a single bar */
    int byrank = 0;
    if (nr == 1 && nranks_rows > 0) {
        byrank = 1;
        nr = nsteady = 0;
        nranks_rows = 0;
        for (size_t r = 0; r < t->nrows && nr < 400; r++) {
            int64_t w = td_table_cell(t, r, cw)->i;
            if (w == TD_NA || w < 0)
                continue;
            rows[nr++] = r;
            if ((double)w > max)
                max = (double)w;
            if (!(cwu >= 0 && td_table_cell(t, r, cwu)->i == 1))
                steady[nsteady++] = w;
        }
    }
    if (!nr || max <= 0) {
        free(rows);
        free(steady);
        return 0;
    }
    if (nr == 1) {
        /* a single step: a sentence, not a chart */
        char v[64], buf[256];
        size_t r = rows[0];
        int cn = td_table_col(t, "name");
        td_fmt_ns(v, sizeof v, td_table_cell(t, r, cw)->i);
        const char *nm = cn >= 0 ? td_table_cell(t, r, cn)->s : NULL;
        snprintf(buf, sizeof buf, "One step in the trace%s%s: %s wall time.",
                 nm && nm[0] ? ", " : "", nm && nm[0] ? nm : "", v);
        pd_heading(d, title ? title : "Step times", 14);
        d->y += pd_text(d, d->x0, d->y, buf, PF_SANS, 9, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_END, C_TEXT);
        free(rows);
        free(steady);
        return 1;
    }
    double W = d->x1 - d->x0, H = 130;
    pd_heading(d, title ? title : "Step times", H + 50 + 13 + (nranks_rows ? 10 : 0));
    double px0 = d->x0 + 46, px1 = d->x1, py0 = d->y + 20, py1 = d->y + 20 + H;
    axis ay;
    double ystep = lin_axis(&ay, max);
    ay.kind = 1;
    axes(d, NULL, &ay, ystep, px0, px1, py0, py1, NULL, "Wall time per step");
    /* gaps between bars while they are wide enough to see; touching bars beyond */
    double slot = (px1 - px0) / (double)nr, bw = slot > 4 ? slot * 0.72 : slot;
    if (bw > 36)
        bw = 36;
    char lb[48];
    double lw = pd_text_w(d, "0000", PF_SANS, 6.5) + 4;
    size_t every = (size_t)ceil(lw / slot);
    if (every < 1)
        every = 1;
    for (size_t i = 0; i < nr; i++) {
        size_t r = rows[i];
        double w = (double)td_table_cell(t, r, cw)->i;
        int wu = cwu >= 0 && td_table_cell(t, r, cwu)->i == 1;
        double x = px0 + slot * (double)i + (slot - bw) / 2;
        double y = axis_pos(&ay, w, py1, py0);
        pd_rgb(d, wu ? C_WARM : C_COMP);
        cairo_rectangle(d->cr, x, y, bw, py1 - y);
        cairo_fill(d->cr);
        if (i % every == 0) {
            int64_t sn = byrank && crank >= 0 ? td_table_cell(t, r, crank)->i
                         : cstep >= 0          ? td_table_cell(t, r, cstep)->i
                                               : (int64_t)i;
            snprintf(lb, sizeof lb, "%lld", (long long)(sn == TD_NA ? (int64_t)i : sn));
            pd_text(d, x + bw / 2 - 20, py1 + 3, lb, PF_SANS, 6.5, 40, PANGO_ALIGN_CENTER,
                    PANGO_ELLIPSIZE_END, C_MUTED);
        }
    }
    char med[64] = "";
    if (nsteady) {
        qsort(steady, nsteady, sizeof *steady, cmp_i64);
        double m = nsteady % 2 ? (double)steady[nsteady / 2]
                               : ((double)steady[nsteady / 2 - 1] + (double)steady[nsteady / 2]) / 2;
        double y = axis_pos(&ay, m, py1, py0);
        static const double dash[] = {3, 2};
        cairo_set_dash(d->cr, dash, 2, 0);
        pd_hline(d, px0, px1, y, 0.9, C_TEXT);
        cairo_set_dash(d->cr, NULL, 0, 0);
        td_fmt_ns(lb, sizeof lb, (int64_t)llround(m));
        snprintf(med, sizeof med, "median of steady steps %s", lb);
    }
    pd_text(d, px0, py1 + 12, byrank ? "rank (one step each)" : "step", PF_SANS, 7, px1 - px0,
            PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END, C_TEXT);
    d->y = py1 + 26;
    const char *labs[3] = {"steady steps", "warm-up (dropped)", med};
    uint32_t cols[3] = {C_COMP, C_WARM, C_TEXT};
    int nl = 0;
    if (nsteady)
        nl++;
    if (nsteady < nr) {
        labs[nl] = labs[1];
        cols[nl++] = C_WARM;
    }
    if (med[0]) {
        labs[nl] = med;
        cols[nl++] = C_TEXT;
    }
    pd_legend(d, labs, cols, nl);
    if (!byrank && (nranks_rows || nr >= 400)) {
        char buf[160];
        snprintf(buf, sizeof buf, "Rank %lld only%s; the workbook has every rank's steps.",
                 (long long)rank, nr >= 400 ? ", first 400 steps" : "");
        pd_note(d, buf);
    }
    (void)W;
    free(rows);
    free(steady);
    return 1;
}

/* ---- scatter plots ---- */

static void scatter_y(pdoc *d, const spt *p, size_t n, const axis *axk, int ykind, int ylog,
                      const char *xlabel, const char *ylabel);
static void scatter(pdoc *d, const spt *p, size_t n, const axis *axk, int ykind,
                    const char *xlabel, const char *ylabel)
{
    scatter_y(d, p, n, axk, ykind, 0, xlabel, ylabel);
}

void pd_scatter(pdoc *d, const spt *p, size_t n, int xkind, int ykind, int ylog,
                const char *xlabel, const char *ylabel)
{
    axis ax = {0, 0, xkind == 2 ? 2 : 10, xkind};   /* bytes: powers of two */
    scatter_y(d, p, n, &ax, ykind, ylog, xlabel, ylabel);
}

void pd_legend_shapes(pdoc *d, const char *const *label, const uint32_t *color, int n)
{
    legend_shapes(d, label, color, n);
}

/* ylog: log10 y axis over the positive values (the others are left out) */
static void scatter_y(pdoc *d, const spt *p, size_t n, const axis *axk, int ykind, int ylog,
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
    axis ax = *axk, ay;
    log_axis(&ax, mnx, mxx, ax.log);
    double ystep = 1;
    if (ylog && !first)
        log_axis(&ay, mny, mxy, 10);
    else
        ystep = lin_axis(&ay, mxy * 1.05);
    ay.kind = ykind;
    double H = 130;
    double px0 = d->x0 + 46, px1 = d->x1 - 6, py0 = d->y + 20, py1 = d->y + 20 + H;
    axes(d, &ax, &ay, ystep, px0, px1, py0, py1, xlabel, ylabel);
    for (size_t i = 0; i < n; i++) {
        if (ylog && !(p[i].y > 0))
            continue;
        double x = axis_pos(&ax, p[i].x, px0, px1), y = axis_pos(&ay, p[i].y, py1, py0);
        marker(d, x, y, p[i].shape, p[i].color);
    }
    d->y = py1 + 28;
}

int pd_collectives(pdoc *d, const td_section *sec)
{
    const td_table *t = td_sum_find_table(d->s, "collectives");
    if (!t || !t->nrows)
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Collectives", 190);
    int cn = td_table_col(t, "name"), cb = td_table_col(t, "bytes");
    int cbw = td_table_col(t, "busbw_gbps");
    spt *p = td_xmalloc(t->nrows * sizeof *p);
    size_t n = 0;
    const char *names[8];
    uint32_t ncol[8];
    int nn = 0;
    for (size_t r = 0; cb >= 0 && cbw >= 0 && r < t->nrows; r++) {
        int64_t b = td_table_cell(t, r, cb)->i;
        double bw = td_table_cell(t, r, cbw)->f;
        if (b == TD_NA || b <= 0 || !isfinite(bw) || bw < 0)
            continue;
        const char *nm = cn >= 0 && td_table_cell(t, r, cn)->s ? td_table_cell(t, r, cn)->s : "";
        /* one clearly different colour (and shape) per collective type: the flame
         * palette's "comm" hues are too close to tell apart in a legend */
        static const uint32_t pal[8] = {C_COMP, C_COMM, C_MEMCPY, 0x8e5ea2u,
                                        0xc0392bu, 0x17a2b8u, 0x7f6a3bu, 0x5f6670u};
        p[n].x = (double)b;
        p[n].y = bw;
        int k;
        for (k = 0; k < nn; k++)
            if (!strcmp(names[k], nm))
                break;
        if (k == nn && nn < 8) {
            names[nn] = nm;
            ncol[nn++] = pal[k];
        }
        p[n].color = pal[k < 8 ? k : 7];
        p[n].shape = k;
        n++;
    }
    if (n) {
        axis ax = {0, 0, 2, 2};
        scatter(d, p, n, &ax, 3, "message size (log scale)", "Bus bandwidth (GB/s)");
        legend_shapes(d, names, ncol, nn);
        d->y += 4;
    }
    free(p);
    pd_table(d, t, sec->top ? sec->top : 20, NULL);
    return 1;
}

int pd_variability(pdoc *d, const td_section *sec)
{
    const td_table *t = td_sum_find_table(d->s, "variability");
    const td_table *o = td_sum_find_table(d->s, "outlier_steps");
    if (!(t && t->nrows) && !(o && o->nrows))
        return 0;
    /* one or two names make no picture and a table that repeats the kernels table:
     * a sentence says what there is */
    if (t && t->nrows && t->nrows < 3 && !(o && o->nrows)) {
        int cn = td_table_col(t, "name"), cc = td_table_col(t, "calls");
        int cm = td_table_col(t, "mean_ns"), cs = td_table_col(t, "std_ns");
        int cv = td_table_col(t, "cov");
        const char *what = td_table_col(t, "module") >= 0 ? "compute thunk" : "kernel";
        td_buf b = {0};
        td_buf_printf(&b, "Only %zu %s%s ran more than once, too few to compare:", t->nrows,
                      what, t->nrows > 1 ? "s" : "");
        for (size_t r = 0; r < t->nrows; r++) {
            const char *nm = cn >= 0 ? td_table_cell(t, r, cn)->s : NULL;
            td_buf_printf(&b, "%s %s", r ? ";" : "", nm && nm[0] ? nm : "(no name)");
            int64_t calls = cc >= 0 ? td_table_cell(t, r, cc)->i : TD_NA;
            if (calls != TD_NA)
                td_buf_printf(&b, " ran %lld times", (long long)calls);
            const char *sep = calls != TD_NA ? ", " : ": ";
            for (int k = 0; k < 2; k++) {
                int col = k ? cs : cm;
                int64_t v = col >= 0 ? td_table_cell(t, r, col)->i : TD_NA;
                if (v == TD_NA)
                    continue;
                char tx[64];
                td_fmt_ns(tx, sizeof tx, v);
                td_buf_printf(&b, "%s%s %s", sep, k ? "std dev" : "mean", tx);
                sep = ", ";
            }
            double c = cv >= 0 ? td_table_cell(t, r, cv)->f : NAN;
            if (isfinite(c))
                td_buf_printf(&b, " (coefficient of variation %.3f)", c);
        }
        td_buf_printf(&b, ".");
        double h = pd_text_h(d, b.p, PF_SANS, 8.5, d->x1 - d->x0);
        pd_heading(d, sec->title[0] ? sec->title : "Variability", h + 4);
        d->y += pd_text(d, d->x0, d->y, b.p, PF_SANS, 8.5, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_TEXT) + 6;
        td_buf_free(&b);
        return 1;
    }
    pd_heading(d, sec->title[0] ? sec->title : "Variability", 190);
    if (t && t->nrows) {
        int cm = td_table_col(t, "mean_ns"), cc = td_table_col(t, "cov");
        spt *p = td_xmalloc(t->nrows * sizeof *p);
        size_t n = 0;
        for (size_t r = 0; cm >= 0 && cc >= 0 && r < t->nrows; r++) {
            int64_t m = td_table_cell(t, r, cm)->i;
            double cv = td_table_cell(t, r, cc)->f;
            if (m == TD_NA || m <= 0 || !isfinite(cv) || cv < 0)
                continue;
            p[n].x = (double)m;
            p[n].y = cv;
            p[n].shape = 0;
            p[n++].color = C_ACCENT;
        }
        if (n >= 3) { /* one or two points make no picture: the table says it */
            axis ax = {0, 0, 10, 1};
            scatter(d, p, n, &ax, 0, "mean duration (log scale)",
                    "Coefficient of variation (std / mean)");
        }
        free(p);
        pd_table(d, t, sec->top ? sec->top : 15, NULL);
    }
    if (o && o->nrows) {
        d->y += 8;
        pd_text(d, d->x0, d->y, "Outlier steps", PF_BOLD, 9, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += 14;
        pd_table(d, o, 10, NULL);
    }
    return 1;
}

/* ---- flamegraph ---- */

int pd_flame(pdoc *d, const char *kind, const char *title)
{
    const td_flame *fl = td_sum_find_flame(d->s, kind);
    if (!td_flame_has_stacks(fl))
        return 0;
    char head[300];
    snprintf(head, sizeof head, "Flamegraph: %s", fl->title ? fl->title : kind);
    double W = d->x1 - d->x0;
    td_flamelayout L;
    memset(&L, 0, sizeof L);
    td_err e = {0};
    double minw = d->o->minwidth > 0 ? d->o->minwidth : 0.001;
    if (td_flame_layout(fl, minw, &L, &e) != TD_OK || !L.n) {
        pd_heading(d, title ? title : head, 50);
        static const double dash[] = {3, 2};
        pd_rgb(d, C_RULE);
        cairo_set_dash(d->cr, dash, 2, 0);
        cairo_set_line_width(d->cr, 0.8);
        cairo_rectangle(d->cr, d->x0, d->y, W, 44);
        cairo_stroke(d->cr);
        cairo_set_dash(d->cr, NULL, 0, 0);
        pd_text(d, d->x0 + 10, d->y + 10, "Flamegraph layout not available in this build.",
                PF_SANS, 8, W - 20, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
        d->y += 50;
        td_flame_layout_free(&L);
        return 1;
    }
    /* one frame on every level (all > iteration > sdsc_matmul): a stack of full-width
     * bars that compares nothing; the page leaves it out (the SVG is still written) */
    {
        int branch = 0;
        for (size_t i = 1; i < L.n && !branch; i++) /* pre-order: a sibling or a */
            branch = L.f[i].depth <= L.f[i - 1].depth; /* cousin follows a leaf */
        if (!branch) {
            td_flame_layout_free(&L);
            return 0;
        }
    }
    /* XLA's source and op_name graphs are mostly "[GPU idle ...]" frames under the root
     * (97% of the width for the pax runs): the page would show one wide bar and
     * slivers. When they are more than half of the width, what ran is drawn instead:
     * the root's other children across the page, one level down; the note says so. */
    int zoom = 0, skip = 0;
    double zx = 0, zw = 1;
    {
        double idle = 0, lo = 1, hi = 0;
        for (size_t i = 0; i < L.n; i++) {
            const td_frame *f = &L.f[i];
            if (f->depth != 1)
                continue;
            if (f->name && !strncmp(f->name, "[GPU idle", 9))
                idle += f->w;
            else if (!f->pruned) { /* a grey frame of merged slivers (the pax runs' idle
                                      time inside modules, 0.01%) sits at the right end:
                                      it must not stretch what is shown to the whole width */
                lo = f->x < lo ? f->x : lo;
                hi = f->x + f->w > hi ? f->x + f->w : hi;
            }
        }
        if (idle > 0.5 && hi > lo && L.maxdepth >= 2) {
            zoom = 1;
            zx = lo;
            zw = hi - lo;
        }
    }
    /* room to be read: a shallow graph (Kineto's module;kernel) gets tall rows whose
     * labels wrap over several lines, a deep one rows of 14 points, as many as the page
     * holds; a frame gets a label only when a few characters of it fit (no "nc…") */
    int maxrows = (int)((d->ybot - d->ytop - 60) / 14);
    int levels = L.maxdepth + 1 - zoom;
    int rows = levels < maxrows ? levels : maxrows;
    double rh = 200.0 / rows;
    if (rh > 34)
        rh = 34;
    if (rh < 14)
        rh = 14;
    const double fs = 7, lh = 8.4;   /* label size and line height */
    int lines = (int)((rh - 3) / lh);
    if (lines < 1)
        lines = 1;
    pd_heading(d, title ? title : head, rows * rh + 30);
    double top = d->y;
    for (size_t i = 0; i < L.n; i++) {
        const td_frame *f = &L.f[i];
        if (zoom && f->depth == 1)   /* pre-order: the idle frames' subtrees follow them */
            skip = f->name && !strncmp(f->name, "[GPU idle", 9);
        if (zoom && (f->depth == 0 || skip))
            continue;
        int depth = f->depth - zoom;
        if (depth >= rows)
            continue;
        if (zoom && (f->x >= zx + zw - 1e-12 || f->x + f->w <= zx + 1e-12))
            continue; /* outside the part shown */
        double x = d->x0 + (f->x - zx) / zw * W, w = f->w / zw * W;
        if (w < 0.35)
            continue;
        double y = d->o->icicle ? top + depth * rh : top + (rows - 1 - depth) * rh;
        uint32_t c = f->pruned ? 0xc8ccd2u : f->color;
        pd_rgb(d, c);
        cairo_rectangle(d->cr, x, y, w > 1 ? w - 0.5 : w, rh - 1);
        cairo_fill(d->cr);
        char lb[4096];
        if (f->depth == 0) {
            char v[64];
            td_flame_fmt_value(fl, v, sizeof v, f->value);
            snprintf(lb, sizeof lb, "all (%s)", v);
        } else if (zoom && f->depth == 1) {
            char v[64];
            td_flame_fmt_value(fl, v, sizeof v, f->value);
            snprintf(lb, sizeof lb, "%s (%s)", f->name ? f->name : "", v);
        } else
            snprintf(lb, sizeof lb, "%s", f->name ? f->name : "");
        /* at least about six characters, or the whole (short) name */
        double need = pd_text_w(d, lb, PF_SANS, fs);
        if (w - 4 < need && w - 4 < 6 * fs * 0.6 + fs)
            continue;
        /* dark text on light frames, white on dark ones (relative luminance) */
        double lum = 0.2126 * ((c >> 16) & 255) + 0.7152 * ((c >> 8) & 255) +
                     0.0722 * (c & 255);
        /* wrapped at separators, never inside a word that fits a line; the last line
         * ellipsized when the name needs more lines than the row holds */
        size_t off[8], len[8];
        int nl, ml = lines < 7 ? lines : 7;
        char *wt = pd_wrap(d, lb, PF_SANS, fs, w - 4, ml, &nl, off, len);
        if (nl > ml)
            nl = ml;
        double th = nl * lh;
        pd_lines(d, x + 2, y + (rh - 1 - th) / 2, wt, off, len, nl, PF_SANS, fs, lh, w - 4,
                 lum < 110 ? 0xffffffu : C_TEXT);
        free(wt);
    }
    d->y = top + rows * rh + 4;
    char note[600];
    char tot[64];
    td_flame_fmt_value(fl, tot, sizeof tot, L.total);
    int o = snprintf(note, sizeof note, "Width is %s (total %s); frames narrower than %.2g%% "
                     "are merged into grey ones.", fl->cycles ? "cycles" : "time", tot,
                     minw * 100);
    if (zoom) {
        o = (int)strlen(note);
        snprintf(note + o, sizeof note - (size_t)o, " The [GPU idle ...] frames, more than "
                 "half of the width, are left out here: the page shows the rest across its "
                 "width.");
    }
    if (levels > rows) {
        o = (int)strlen(note);
        snprintf(note + o, sizeof note - (size_t)o, " Frames deeper than %d levels are not "
                 "shown.", rows);
    }
    o = (int)strlen(note);
    snprintf(note + o, sizeof note - (size_t)o, " The interactive version is flame-%s.svg.",
             kind);
    pd_note(d, note);
    td_flame_layout_free(&L);
    return 1;
}
