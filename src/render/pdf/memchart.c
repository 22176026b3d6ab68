/* render/pdf/memchart.c - the PDF's memory chart (section kind "memory"): the
 * allocator's allocated and reserved bytes over time, one chart per device (accelerators;
 * the CPU only when there is none), from table `memory_timeline` (the largest value of
 * each interval, so the line reaches the true peak), with the peak of table `memory`
 * marked and named by its step and op. Every number comes from the summary
 * (analyse/memory.c). Nothing is drawn without [memory] events. */
#include "render/pdf/internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAXCHARTS 4

static int is_cpu(const char *dev)
{
    return dev && !strcmp(dev, "cpu");
}

/* the memory row of (rank, device), or -1 */
static long peak_row(const td_table *m, int64_t rank, const char *dev)
{
    for (size_t r = 0; m && r < m->nrows; r++) {
        const char *d = td_row_get_str(m, r, "device");
        if (td_row_get_int(m, r, "rank") == rank && d && !strcmp(d, dev))
            return (long)r;
    }
    return -1;
}

/* One device's chart: rows [r0, r1) of the timeline. */
static void chart(pdoc *d, const td_table *t, size_t r0, size_t r1, const td_table *m, int nranks)
{
    cairo_t *cr = d->cr;
    int64_t rank = td_row_get_int(t, r0, "rank");
    const char *dev = td_row_get_str(t, r0, "device");
    double tmax = 0, bmax = 0;
    for (size_t r = r0; r < r1; r++) {
        tmax = fmax(tmax, (double)td_row_get_int(t, r, "to_ns"));
        bmax = fmax(bmax, (double)td_row_get_int(t, r, "allocated_bytes"));
        int64_t rv = td_row_get_int(t, r, "reserved_bytes");
        if (rv != TD_NA)
            bmax = fmax(bmax, (double)rv);
    }
    /* the byte axis in the largest binary unit the values reach, so its ticks are round */
    static const char *const unit[] = {"Bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double sc = 1;
    while (u < 4 && bmax >= 1024 * sc)
        sc *= 1024, u++;
    pd_axis ax = {0}, ay = {0};
    double xstep = pd_lin_axis(&ax, tmax), ystep = pd_lin_axis(&ay, bmax * 1.08 / sc);
    double H = 120;
    pd_need(d, H + 62);
    char cap[160];
    if (nranks > 1)
        snprintf(cap, sizeof cap, "Rank %lld, %s (%s)", (long long)rank, dev ? dev : "", unit[u]);
    else
        snprintf(cap, sizeof cap, "%s (%s)", dev ? dev : "", unit[u]);
    pd_text(d, d->x0, d->y, cap, PF_BOLD, 7.5, 300, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
    double px0 = d->x0 + 46, px1 = d->x1 - 6, py0 = d->y + 22, py1 = py0 + H;
    pd_axes(d, NULL, &ay, ystep, px0, px1, py0, py1, NULL, NULL);
    /* the time axis: linear, from the trace's start */
    char lb[48];
    for (double v = 0; v <= ax.hi + xstep * 1e-6; v += xstep) {
        double x = pd_axis_pos(&ax, v, px0, px1);
        pd_rgb(d, C_RULE);
        cairo_set_line_width(cr, 0.4);
        cairo_move_to(cr, x, py0);
        cairo_line_to(cr, x, py1);
        cairo_stroke(cr);
        pd_fmt_tick_ns(lb, sizeof lb, v);
        pd_text(d, x - 30, py1 + 3, lb, PF_SANS, 6.5, 60, PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END,
                C_MUTED);
    }
    pd_text(d, px0, py1 + 13, "Time since the trace's start", PF_SANS, 7, px1 - px0,
            PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END, C_TEXT);
    /* reserved, then allocated: a step line through each interval's largest value */
    static const char *const key[2] = {"reserved_bytes", "allocated_bytes"};
    static const uint32_t col[2] = {C_COMM, C_COMP};
    for (int s = 0; s < 2; s++) {
        int open = 0;
        for (size_t r = r0; r < r1; r++) {
            int64_t v = td_row_get_int(t, r, key[s]);
            if (v == TD_NA) {
                open = 0;
                continue;
            }
            double y = pd_axis_pos(&ay, (double)v / sc, py1, py0);
            double xa = pd_axis_pos(&ax, (double)td_row_get_int(t, r, "from_ns"), px0, px1);
            double xb = pd_axis_pos(&ax, (double)td_row_get_int(t, r, "to_ns"), px0, px1);
            if (!open)
                cairo_move_to(cr, xa, y);
            else
                cairo_line_to(cr, xa, y);
            cairo_line_to(cr, xb, y);
            open = 1;
        }
        pd_rgb(d, col[s]);
        cairo_set_line_width(cr, s ? 1.3 : 1.0);
        cairo_stroke(cr);
    }
    /* the peak of table `memory` */
    long pr = peak_row(m, rank, dev ? dev : "");
    if (pr >= 0) {
        int64_t pns = td_row_get_int(m, (size_t)pr, "peak_ns");
        int64_t pb = td_row_get_int(m, (size_t)pr, "peak_allocated_bytes");
        if (pns != TD_NA && pb != TD_NA) {
            double x = pd_axis_pos(&ax, (double)pns, px0, px1), y = pd_axis_pos(&ay, (double)pb / sc, py1, py0);
            cairo_new_path(cr);
            cairo_arc(cr, x, y, 3.2, 0, 2 * G_PI);
            pd_rgb(d, C_BAD);
            cairo_fill(cr);
            char b[32], tn[32], txt[300];
            td_fmt_bytes(b, sizeof b, pb);
            td_fmt_ns(tn, sizeof tn, pns);
            const char *st = td_row_get_str(m, (size_t)pr, "peak_step");
            const char *op = td_row_get_str(m, (size_t)pr, "peak_op");
            snprintf(txt, sizeof txt, "peak %s allocated at %s%s%s%s%s", b, tn, st ? ", " : "",
                     st ? st : "", op ? ", in " : "", op ? op : "");
            double w = pd_text_w(d, txt, PF_SANS, 6.5) + 4;
            double tx = x + 5 + w > px1 ? x - 5 - w : x + 5;
            pd_text(d, tx, py0 - 12, txt, PF_SANS, 6.5, w, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END,
                    C_BAD);
        }
    }
    d->y = py1 + 28;
}

int pd_memory(pdoc *d, const char *title)
{
    const td_table *t = td_sum_find_table(d->s, "memory_timeline");
    const td_table *m = td_sum_find_table(d->s, "memory");
    if (!t || !t->nrows)
        return 0;
    int accel = 0, nranks = 1;
    for (size_t r = 0; r < t->nrows; r++) {
        accel |= !is_cpu(td_row_get_str(t, r, "device"));
        if (td_row_get_int(t, r, "rank") != td_row_get_int(t, 0, "rank"))
            nranks = 2;
    }
    /* "Reserved" only where the table has it (an nsys export records calls, not an
     * allocator's reservations) */
    int reserved = 0;
    for (size_t r = 0; r < t->nrows && !reserved; r++)
        reserved = td_row_get_int(t, r, "reserved_bytes") != TD_NA;
    pd_heading(d, title ? title : "Memory over time", 190);
    static const char *const names[2] = {"Allocated", "Reserved"};
    static const uint32_t cols[2] = {C_COMP, C_COMM};
    pd_legend(d, names, cols, reserved ? 2 : 1);
    int drawn = 0, more = 0;
    for (size_t r0 = 0; r0 < t->nrows;) {
        size_t r1 = r0 + 1;
        const char *dev = td_row_get_str(t, r0, "device");
        while (r1 < t->nrows && td_row_get_int(t, r1, "rank") == td_row_get_int(t, r0, "rank") &&
               !strcmp(td_row_get_str(t, r1, "device") ? td_row_get_str(t, r1, "device") : "", dev ? dev : ""))
            r1++;
        if (accel && is_cpu(dev))
            ;
        else if (drawn < MAXCHARTS) {
            chart(d, t, r0, r1, m, nranks);
            drawn++;
        } else
            more++;
        r0 = r1;
    }
    if (more) {
        char n[120];
        snprintf(n, sizeof n, "%d more device%s in the Memory timeline table.", more, more > 1 ? "s" : "");
        pd_note(d, n);
    }
    return drawn > 0;
}
