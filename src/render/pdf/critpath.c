/* render/pdf/critpath.c - the PDF "critpath" section: the drawn step's critical path on
 * its timeline, one lane per CPU thread or stream the path visits, each segment coloured
 * by what bounds it, a thin line where the path changes lane; the step's CPU range
 * shaded. Every number comes from the summary (critical_path_segments, critical_path,
 * steps); the analysis chose the step (analyse/critpath_pass.c). */
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LANES 12

/* the path's classes, then sync_wait: a blocking call, drawn under the path (not part
 * of it: the CPU waiting for the device work the path follows) */
static const char *const BOUND[] = {"cpu_bound", "gpu_compute_bound", "gpu_communication_bound",
                                    "gpu_kernel_launch_overhead", "gpu_kernel_kernel_overhead",
                                    "sync_wait"};
static const char *const WORDS[] = {"CPU", "GPU compute", "communication", "launch delay",
                                    "kernel-kernel gap", "CPU waiting for the device"};
static const uint32_t COLOR[] = {0x8e5ea2u, C_COMP, C_COMM, C_BAD, C_LIGHT, C_MUTED};
#define NB (sizeof BOUND / sizeof BOUND[0])
#define WAIT_IX ((int)NB - 1)

static int bound_ix(const char *b)
{
    for (size_t i = 0; b && i < NB; i++)
        if (!strcmp(b, BOUND[i]))
            return (int)i;
    return WAIT_IX - 1;
}

int pd_critpath(pdoc *d, const char *title)
{
    const td_table *sg = td_sum_find_table(d->s, "critical_path_segments");
    if (!sg || !sg->nrows)
        return 0;
    int cr = td_table_col(sg, "rank"), cs = td_table_col(sg, "step"), cl = td_table_col(sg, "lane");
    int c0 = td_table_col(sg, "start_ns"), c1 = td_table_col(sg, "end_ns");
    int cb = td_table_col(sg, "bound_by");
    if (cr < 0 || cs < 0 || cl < 0 || c0 < 0 || c1 < 0 || cb < 0)
        return 0;
    int64_t rank = td_table_cell(sg, 0, cr)->i, step = td_table_cell(sg, 0, cs)->i;
    /* the first rank's rows; its lanes in the order the path reaches them */
    const char *lane[MAX_LANES];
    size_t nl = 0, nr = 0, hidden = 0;
    double t0 = INFINITY, t1 = -INFINITY;
    for (size_t r = 0; r < sg->nrows; r++) {
        if (td_table_cell(sg, r, cr)->i != rank)
            break;
        nr++;
        t0 = fmin(t0, (double)td_table_cell(sg, r, c0)->i);
        t1 = fmax(t1, (double)td_table_cell(sg, r, c1)->i);
        const char *l = td_table_cell(sg, r, cl)->s;
        size_t k = 0;
        while (k < nl && strcmp(lane[k], l ? l : ""))
            k++;
        if (k == nl && nl < MAX_LANES)
            lane[nl++] = l ? l : "";
        else if (k == nl)
            hidden++;
    }
    /* the step's CPU range, from the steps table */
    const td_table *st = td_sum_find_table(d->s, "steps");
    double s0 = NAN, s1 = NAN;
    for (size_t r = 0; st && step != TD_NA && r < st->nrows; r++)
        if (td_row_get_int(st, r, "rank") == rank && td_row_get_int(st, r, "step") == step) {
            s0 = (double)td_row_get_int(st, r, "start_ns");
            s1 = s0 + (double)td_row_get_int(st, r, "wall_ns");
            t0 = fmin(t0, s0);
            t1 = fmax(t1, s1);
            break;
        }
    if (!(t1 > t0) || !nl)
        return 0;
    double lh = 13, gap = 3, H = (double)nl * (lh + gap);
    char head[128];
    if (step == TD_NA)
        snprintf(head, sizeof head, "Critical path of the trace (rank %lld)", (long long)rank);
    else
        snprintf(head, sizeof head, "Critical path of step %lld (rank %lld)", (long long)step,
                 (long long)rank);
    pd_heading(d, title ? title : head, H + 70);
    double px0 = d->x0 + 120, px1 = d->x1 - 4, y0 = d->y + 2;
#define X(v) (px0 + (px1 - px0) * ((v) - t0) / (t1 - t0))
    if (isfinite(s0)) {
        pd_rgb(d, C_ZEBRA);
        cairo_rectangle(d->cr, X(s0), y0 - 2, X(s1) - X(s0), H + 2);
        cairo_fill(d->cr);
    }
    for (size_t k = 0; k < nl; k++) {
        double y = y0 + (double)k * (lh + gap);
        pd_text(d, d->x0, y + 1.5, lane[k], PF_SANS, 6.5, 116, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_TEXT);
        pd_hline(d, px0, px1, y + lh / 2, 0.3, C_RULE);
    }
    double px = NAN, py = NAN;
    for (size_t r = 0; r < nr; r++) {
        const char *l = td_table_cell(sg, r, cl)->s;
        size_t k = 0;
        while (k < nl && strcmp(lane[k], l ? l : ""))
            k++;
        if (k == nl)
            continue;
        double y = y0 + (double)k * (lh + gap);
        double xa = X((double)td_table_cell(sg, r, c0)->i), xb = X((double)td_table_cell(sg, r, c1)->i);
        if (bound_ix(td_table_cell(sg, r, cb)->s) == WAIT_IX) { /* a thin bar, no path line */
            pd_rgb(d, COLOR[WAIT_IX]);
            cairo_rectangle(d->cr, xa, y + lh - 3, fmax(xb - xa, 0.5), 2);
            cairo_fill(d->cr);
            continue;
        }
        if (isfinite(px) && fabs(py - y) > 0.1) {
            /* the path changes lane */
            pd_rgb(d, C_TEXT);
            cairo_set_line_width(d->cr, 0.5);
            cairo_move_to(d->cr, px, py + lh / 2);
            cairo_line_to(d->cr, xa, y + lh / 2);
            cairo_stroke(d->cr);
        }
        pd_rgb(d, COLOR[bound_ix(td_table_cell(sg, r, cb)->s)]);
        cairo_rectangle(d->cr, xa, y + 1, fmax(xb - xa, 0.5), lh - 2);
        cairo_fill(d->cr);
        px = xb;
        py = y;
    }
    d->y = y0 + H + 2;
    char a[32], b[32];
    pd_fmt_tick_ns(a, sizeof a, t0);
    pd_fmt_tick_ns(b, sizeof b, t1);
    pd_text(d, px0, d->y, a, PF_SANS, 6, 80, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
    pd_text(d, px1 - 80, d->y, b, PF_SANS, 6, 80, PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END, C_MUTED);
    d->y += 12;
#undef X
    /* legend: the classes of this step with their share (critical_path) */
    const td_table *cp = td_sum_find_table(d->s, "critical_path");
    const char *lab[NB];
    uint32_t col[NB];
    int n = 0;
    for (size_t r = 0; cp && r < cp->nrows && n < (int)NB; r++) {
        if (td_row_get_int(cp, r, "rank") != rank || td_row_get_int(cp, r, "step") != step)
            continue;
        int i = bound_ix(td_row_get_str(cp, r, "bound_by"));
        lab[n] = td_arena_printf(d->s->a, "%s %.1f%%", WORDS[i], 100.0 * td_row_get_f64(cp, r, "share"));
        col[n++] = COLOR[i];
    }
    /* the CPU's wait for the device in this step (critical_path_waits) */
    const td_table *wt = td_sum_find_table(d->s, "critical_path_waits");
    for (size_t r = 0; wt && r < wt->nrows && n < (int)NB; r++)
        if (td_row_get_int(wt, r, "rank") == rank && td_row_get_int(wt, r, "step") == step) {
            lab[n] = td_arena_printf(d->s->a, "%s %.1f%% of the step (%s)", WORDS[WAIT_IX],
                                     100.0 * td_row_get_f64(wt, r, "share"), td_row_get_str(wt, r, "op"));
            col[n++] = COLOR[WAIT_IX];
        }
    if (n)
        pd_legend(d, lab, col, n);
    int waits = 0;
    for (size_t r = 0; r < nr && !waits; r++)
        waits = bound_ix(td_table_cell(sg, r, cb)->s) == WAIT_IX;
    char note[512];
    snprintf(note, sizeof note, "The longest path through the step's CPU ops, launches and device "
             "work (HTA's critical-path graph); time from the trace's first event, the step's CPU "
             "range shaded. Shares of the path's length: table critical_path.%s%s",
             waits ? " Thin bars: the CPU blocked in a synchronizing call until the device work "
                     "the path follows ended (table critical_path_waits)." : "",
             hidden ? " Lanes past the twelfth are not drawn (critical_path_segments.csv has them)." : "");
    pd_note(d, note);
    return 1;
}
