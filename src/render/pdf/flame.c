/* render/pdf/flame.c - the PDF's flamegraph section (icicle of the summary's stored
 * flamegraph, laid out by summary/flame.c). */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include "base/alloc.h"
#include "summary/flame.h"
#include <stdlib.h>
#include <string.h>

/* Kernels by their short names (issue 21: the short name in documents, the full name in
 * the SVG tooltip and the workbook): the kernels table's name -> short_name pairs, sorted
 * by name. analyse/names.c gives them; a frame whose name is a kernel's is labelled with
 * its short name. */
typedef struct kshort {
    const char *name, *shortn;
} kshort;

static int cmp_kshort(const void *x, const void *y)
{
    return strcmp(((const kshort *)x)->name, ((const kshort *)y)->name);
}

static kshort *short_names(const td_summary *s, size_t *n)
{
    *n = 0;
    const td_table *t = td_sum_find_table(s, "kernels");
    if (!t || !t->nrows || td_table_col(t, "short_name") < 0 || td_table_col(t, "name") < 0)
        return NULL;
    kshort *k = td_xcalloc(t->nrows, sizeof *k);
    for (size_t r = 0; r < t->nrows; r++) {
        const char *nm = td_row_get_str(t, r, "name"), *sh = td_row_get_str(t, r, "short_name");
        if (nm && sh && sh[0] && strcmp(nm, sh))
            k[(*n)++] = (kshort){nm, sh};
    }
    if (*n)
        qsort(k, *n, sizeof *k, cmp_kshort);
    return k;
}

static const char *shown_name(const kshort *k, size_t n, const char *name)
{
    if (!name || !n)
        return name;
    kshort key = {name, NULL};
    const kshort *hit = bsearch(&key, k, n, sizeof *k, cmp_kshort);
    return hit ? hit->shortn : name;
}

/* Device time by module of three bands or fewer (all, the module, the kernels: every
 * Kineto graph; MTIA's all and kernels): the kernel level is the kernels table's shares
 * again, the module level the modules table's, so the graph says nothing the tables do
 * not (issue 21); the SVG is still written. */
static int few_bands(const char *kind, const td_flamelayout *L)
{
    return !strcmp(kind, "device") && L->maxdepth <= 2;
}

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
        if (!branch || few_bands(kind, &L)) {
            td_flame_layout_free(&L);
            return 0;
        }
    }
    size_t nks;
    kshort *ks = short_names(d->s, &nks);
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
        } else {
            const char *nm = shown_name(ks, nks, f->name);
            snprintf(lb, sizeof lb, "%s", nm ? nm : "");
        }
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
    free(ks);
    td_flame_layout_free(&L);
    return 1;
}
