/* render/pdf/draw.c - the PDF's device-time sections: the GPU (or XLA device) time
 * breakdown, the steps chart, collectives and variability. Tables are in
 * render/pdf/table.c, the flamegraph in render/pdf/flame.c; the chart primitives
 * (axes, scatter, legends) in render/pdf/chart.c.
 * Every number comes from the summary; the only arithmetic here is layout (widths,
 * percentages of a bar, axis ranges) and the median line of the steps chart. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- GPU time breakdown ---- */

/* the parts of the breakdown: synchronization work (waits, barriers) is its own part */
#define NPART 5
static int bar_fracs(const td_table *t, size_t r, double *frac)
{
    static const char *keys[] = {"computation_ns", "sync_ns", "exposed_comm_ns",
                                 "exposed_memcpy_ns", "idle_ns"};
    int ct = td_table_col(t, "total_ns");
    int64_t tot = td_table_cell(t, r, ct)->i;
    if (tot <= 0 || tot == TD_NA)
        return 0;
    for (int i = 0; i < NPART; i++) {
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
    double frac[NPART];
    if (!t)
        return xla_breakdown(d, title);
    if (!bar_fracs(t, row, frac))
        return 0;
    static const uint32_t col[NPART] = {C_COMP, 0x8e5ea2u, C_COMM, C_MEMCPY, C_IDLE};
    static const char *names[NPART] = {"Computation", "Sync wait", "Exposed communication",
                                       "Exposed memcpy", "Idle"};
    static const char *keys[NPART] = {"computation_ns", "sync_ns", "exposed_comm_ns",
                                      "exposed_memcpy_ns", "idle_ns"};
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
    pd_seg_bar(d, d->x0, d->y, W, 20, frac, col, NPART, 1);
    d->y += 26;
    char lab[NPART][128];
    const char *lp[NPART];
    uint32_t lc[NPART];
    int nleg = 0;
    for (int i = 0; i < NPART; i++) {
        int ci = td_table_col(t, keys[i]);
        if (i == 1 && frac[i] <= 0)
            continue; /* no synchronization work: the part is not named */
        char v[64] = "";
        if (ci >= 0)
            td_cell_format(&t->cols[ci], td_table_cell(t, row, ci), v, sizeof v);
        snprintf(lab[nleg], sizeof lab[nleg], "%s  %s (%.1f%%)", names[i], v[0] ? v : "-",
                 frac[i] * 100);
        lp[nleg] = lab[nleg];
        lc[nleg++] = col[i];
    }
    pd_legend(d, lp, lc, nleg);

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
            double f[NPART];
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
            pd_seg_bar(d, d->x0 + 95, d->y + 1, W - 95, 8, f, col, NPART, 0);
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
    int cstep = td_table_col(t, "step"), cwu = td_table_col(t, "warmup"),
        ccut = td_table_col(t, "cut");
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
        if (td_steps_row_steady(t, r))
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
            if (td_steps_row_steady(t, r))
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
    pd_axis ay;
    double ystep = pd_lin_axis(&ay, max);
    ay.kind = 1;
    pd_axes(d, NULL, &ay, ystep, px0, px1, py0, py1, NULL, "Wall time per step");
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
        int wu = !td_steps_row_steady(t, r);
        double x = px0 + slot * (double)i + (slot - bw) / 2;
        double y = pd_axis_pos(&ay, w, py1, py0);
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
        double y = pd_axis_pos(&ay, m, py1, py0);
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
    int anywu = 0, anycut = 0;
    for (size_t i = 0; i < nr; i++) {
        anywu |= cwu >= 0 && td_table_cell(t, rows[i], cwu)->i == 1;
        anycut |= ccut >= 0 && td_table_cell(t, rows[i], ccut)->i == 1;
    }
    const char *labs[3] = {"steady steps",
                           anycut ? (anywu ? "warm-up or cut short (dropped)"
                                           : "cut short by the trace (dropped)")
                                  : "warm-up (dropped)",
                           med};
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

int pd_collectives(pdoc *d, const td_section *sec)
{
    const td_table *t = td_sum_find_table(d->s, "collectives");
    if (!t || t->nrows < 2)
        return 0; /* one dot makes no chart; the workbook has the row */
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
        pd_scatter(d, p, n, 2, 3, 0, "message size (log scale)", "Bus bandwidth (GB/s)");
        pd_legend_shapes(d, names, ncol, nn);
        d->y += 4;
    }
    free(p);
    pd_table(d, t, sec->top ? sec->top : 20, NULL);
    return 1;
}

#define VAR_MATTERS 0.25

int pd_variability(pdoc *d, const td_section *sec)
{
    const td_table *t = td_sum_find_table(d->s, "variability");
    const td_table *o = td_sum_find_table(d->s, "outlier_steps");
    /* shown when something varies enough to matter: some name with a coefficient of
     * variation of at least VAR_MATTERS (std dev a quarter of the mean), or outlier steps;
     * one name, or every name below the rule, says nothing */
    if (t && t->nrows) {
        int cv = td_table_col(t, "cov");
        double mx = 0;
        for (size_t r = 0; cv >= 0 && r < t->nrows; r++) {
            double c = td_table_cell(t, r, cv)->f;
            if (isfinite(c) && c > mx)
                mx = c;
        }
        if (t->nrows < 2 || mx < VAR_MATTERS)
            t = NULL;
    }
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
            const char *nm = cn >= 0 ? td_shown_cell(t, r, cn)->s : NULL;
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
            pd_scatter(d, p, n, 1, 0, 0, "mean duration (log scale)",
                    "Coefficient of variation (std / mean)");
        }
        free(p);
        pd_table(d, t, sec->top ? sec->top : 15, NULL);
        char note[160];
        snprintf(note, sizeof note, "Shown because some name's coefficient of variation "
                 "is at least %.2f (std dev a quarter of the mean); below that for every "
                 "name, this section is left out.", VAR_MATTERS);
        pd_note(d, note);
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
