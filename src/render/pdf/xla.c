/* render/pdf/xla.c - the PDF's XLA collectives-per-instance section, the nsys-jax
 * notebook's three plots: bus bandwidth of the fastest device against message size, the
 * straggler-wait histogram, and wait as a multiple of the fastest duration against
 * message size; then the instances with the longest waits. Every number comes from the
 * summary tables collective_instances and collective_wait_histogram. */
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NTYPES 8
static const uint32_t pal[NTYPES] = {C_COMP, C_COMM, C_MEMCPY, 0x8e5ea2u,
                                     0xc0392bu, 0x17a2b8u, 0x7f6a3bu, 0x5f6670u};

static int type_index(const char **names, int *nn, const char *nm)
{
    for (int k = 0; k < *nn; k++)
        if (!strcmp(names[k], nm))
            return k;
    if (*nn < NTYPES) {
        names[*nn] = nm;
        return (*nn)++;
    }
    return NTYPES - 1;
}

/* The histogram: one bar per bin, stacked by collective type. */
static void histogram(pdoc *d, const td_table *h, const char **names, int *nn)
{
    int cl = td_table_col(h, "low_ns"), ci = td_table_col(h, "instances"),
        cn = td_table_col(h, "name");
    if (cl < 0 || ci < 0 || cn < 0)
        return;
    /* the distinct bins, in order of their lower edge */
    int64_t lo[64];
    int nb = 0;
    for (size_t r = 0; r < h->nrows; r++) {
        int64_t l = td_table_cell(h, r, cl)->i;
        int k;
        for (k = 0; k < nb; k++)
            if (lo[k] == l)
                break;
        if (k == nb && nb < 64) {
            int j = nb++;
            while (j > 0 && lo[j - 1] > l) {
                lo[j] = lo[j - 1];
                j--;
            }
            lo[j] = l;
        }
    }
    if (!nb)
        return;
    double (*cnt)[NTYPES] = td_xcalloc((size_t)nb, sizeof *cnt);
    double mx = 0;
    for (size_t r = 0; r < h->nrows; r++) {
        int64_t l = td_table_cell(h, r, cl)->i;
        int k;
        for (k = 0; k < nb && lo[k] != l; k++)
            ;
        if (k == nb)
            continue;
        const char *nm = td_table_cell(h, r, cn)->s;
        cnt[k][type_index(names, nn, nm ? nm : "")] += (double)td_table_cell(h, r, ci)->i;
    }
    for (int k = 0; k < nb; k++) {
        double t = 0;
        for (int j = 0; j < NTYPES; j++)
            t += cnt[k][j];
        if (t > mx)
            mx = t;
    }
    double H = 110, px0 = d->x0 + 46, px1 = d->x1 - 6, py0 = d->y + 18, py1 = py0 + H;
    pd_text(d, d->x0, d->y, "Straggler wait (instances per bin)", PF_SANS, 7, 300,
            PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
    /* y grid: 4 steps */
    double step = mx > 4 ? ceil(mx / 4) : 1;
    double top = step * ceil(mx / step);
    for (double v = 0; v <= top + 1e-9; v += step) {
        double y = py1 - v / top * H;
        pd_hline(d, px0, px1, y, 0.4, v == 0 ? C_MUTED : C_RULE);
        char lb[32];
        snprintf(lb, sizeof lb, "%.0f", v);
        pd_text(d, px0 - 44, y - 4.5, lb, PF_SANS, 6.5, 40, PANGO_ALIGN_RIGHT,
                PANGO_ELLIPSIZE_END, C_MUTED);
    }
    double bw = (px1 - px0) / nb;
    for (int k = 0; k < nb; k++) {
        double y = py1, x = px0 + k * bw + bw * 0.12;
        for (int j = 0; j < NTYPES; j++) {
            if (!cnt[k][j])
                continue;
            double hh = cnt[k][j] / top * H;
            pd_rgb(d, pal[j]);
            cairo_rectangle(d->cr, x, y - hh, bw * 0.76, hh);
            cairo_fill(d->cr);
            y -= hh;
        }
        char a[32], lb[80];
        pd_fmt_tick_ns(a, sizeof a, (double)lo[k]);
        snprintf(lb, sizeof lb, "%s", lo[k] ? a : "0");
        if (nb <= 16 || k % 2 == 0)
            pd_text(d, px0 + k * bw - 10, py1 + 3, lb, PF_SANS, 6, bw + 20, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
    }
    pd_text(d, px0, py1 + 13, "wait (bin lower edge; bins 1, 2, 5 x 10^k ns)", PF_SANS, 7,
            px1 - px0, PANGO_ALIGN_CENTER, PANGO_ELLIPSIZE_END, C_TEXT);
    d->y = py1 + 28;
    free(cnt);
}

int pd_xla_collectives(pdoc *d, const td_section *sec)
{
    const td_table *t = td_sum_find_table(d->s, "collective_instances");
    if (!t || !t->nrows)
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Collectives per instance", 190);
    int cn = td_table_col(t, "name"), cb = td_table_col(t, "bytes"),
        cbw = td_table_col(t, "busbw_gbps"), cm = td_table_col(t, "wait_multiple");
    const char *names[NTYPES];
    int nn = 0;
    spt *p = td_xmalloc(t->nrows * sizeof *p);
    for (int plot = 0; plot < 2; plot++) {
        size_t n = 0;
        int cy = plot ? cm : cbw;
        for (size_t r = 0; cb >= 0 && cy >= 0 && r < t->nrows; r++) {
            int64_t b = td_table_cell(t, r, cb)->i;
            double y = td_table_cell(t, r, cy)->f;
            if (b == TD_NA || b <= 0 || !isfinite(y) || y < 0 || (plot && y <= 0))
                continue;
            const char *nm = cn >= 0 && td_table_cell(t, r, cn)->s ? td_table_cell(t, r, cn)->s : "";
            int k = type_index(names, &nn, nm);
            p[n].x = (double)b;
            p[n].y = y;
            p[n].color = pal[k];
            p[n].shape = k;
            n++;
        }
        if (!n)
            continue;
        pd_need(d, 190);
        if (plot == 0)
            pd_scatter(d, p, n, 2, 3, 0, "message size (log scale), one point per instance",
                       "Bus bandwidth of the fastest device (GB/s)");
        else
            pd_scatter(d, p, n, 2, 0, 1, "message size (log scale)",
                       "Straggler wait / fastest duration (log scale)");
        uint32_t cols[NTYPES];
        for (int k = 0; k < nn; k++)
            cols[k] = pal[k];
        pd_legend_shapes(d, names, cols, nn);
        d->y += 6;
    }
    free(p);
    const td_table *h = td_sum_find_table(d->s, "collective_wait_histogram");
    if (h && h->nrows) {
        pd_need(d, 170);
        histogram(d, h, names, &nn);
        uint32_t cols[NTYPES];
        for (int k = 0; k < nn; k++)
            cols[k] = pal[k];
        pd_legend_shapes(d, names, cols, nn);
        d->y += 6;
    }
    pd_table(d, t, sec->top ? sec->top : 10, "Collective instances, longest straggler wait first");
    return 1;
}
