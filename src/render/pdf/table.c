/* render/pdf/table.c - the PDF's generic table: any summary table, numbers right-aligned
 * with units (td_cell_format), shares with a mini bar, zebra rows, the header repeated
 * on every page, columns chosen to fit the width (the least important dropped, the name
 * column shrunk and its long names wrapped over up to three lines; a name longer than
 * that keeps its head and tail around a "..." that is part of the text, so that copying
 * from the PDF gives what is shown). */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tcol {
    int ci;       /* column index in the table */
    double nat;   /* natural width (widest shown cell or the header) + padding */
    double w;     /* width given */
    int num;      /* right-aligned */
    int imp;      /* importance: the least important is dropped first */
} tcol;

static int importance(const char *key)
{
    static const char *hi[] = {"total_ns", "self_ns", "share", "calls", "busbw_gbps", "bytes",
                               "wall_ns", "non_child_ns", "cov", "executions", "device_self_ns",
                               "Total Time (ns)", "Time (%)", "Instances", "status", "change",
                               "current", "base", "self_share", "wait_ns", "op_name", "measured_ns",
                               "est_ns", "est_error", "tflop_util", NULL};
    static const char *lo[] = {"std_ns", "min_ns", "max_ns", "thunks_std", "program_id",
                               "hidden_ns", "group_size", "dtype", "device_avg_ns",
                               "StdDev (ns)", "Min (ns)", "Max (ns)", "sha256", "events", "global_id",
                               "est_pmus", "est_pcus", "ddr_req_bytes", "hyperfunction", NULL};
    if (!strcmp(key, "metric"))
        return 80;
    for (const char **k = hi; *k; k++)
        if (!strcmp(*k, key))
            return 60;
    for (const char **k = lo; *k; k++)
        if (!strcmp(*k, key))
            return 20;
    return 40;
}

/* Cell text. The regression table keeps its values as numbers with a unit column:
 * those are shown with units ("12.3 ms", "4.5%") and the unit column is left out. */
static void cell_text(const td_table *t, size_t r, int ci, const double *sc, char *v,
                      size_t cap)
{
    const td_col *col = &t->cols[ci];
    const td_cell *cell = td_table_cell(t, r, ci);
    int cu = td_table_col(t, "unit");
    if (cu >= 0 && col->type == TD_T_F64 && isfinite(cell->f) &&
        (!strcmp(col->key, "base") || !strcmp(col->key, "current"))) {
        const char *u = td_table_cell(t, r, cu)->s;
        if (u && !strcmp(u, "ns")) {
            td_fmt_ns(v, cap, (int64_t)llround(cell->f));
            return;
        }
        if (u && !strcmp(u, "fraction")) {
            snprintf(v, cap, "%.1f%%", cell->f * 100);
            return;
        }
        if (u && u[0]) {
            snprintf(v, cap, "%g %s", cell->f, u);
            return;
        }
    }
    td_doc_cell(t, r, ci, sc ? sc[ci] : 0, v, cap);
    if (col->type == TD_T_SHARE && !strcmp(col->key, "change") && isfinite(cell->f) &&
        cell->f > 0) {
        size_t n = strlen(v);
        if (n + 2 < cap) {
            memmove(v + 1, v, n + 1);
            v[0] = '+';
        }
    }
}

/* shares of a whole get a mini bar; changes (which may be negative) do not */
static int share_bar(const td_col *col)
{
    return col->type == TD_T_SHARE && strcmp(col->key, "change") != 0;
}

static int unit_hidden(const td_table *t, int ci)
{
    return !strcmp(t->cols[ci].key, "unit") && td_table_col(t, "base") >= 0;
}

#define PD_MAXROWS 1000 /* at most ~20 pages of one table */
#define TFS 7.5  /* table cell font size */
#define THS 7    /* table header font size */
#define TPAD 10  /* horizontal padding per cell */
#define TROW 12  /* row height */
#define THEAD 15 /* header row height */
#define SHAREBAR 22 /* mini bar left of a share */

static void table_header(pdoc *d, const td_table *t, const tcol *c, int n)
{
    double x = d->x0;
    for (int k = 0; k < n; k++) {
        const td_col *col = &t->cols[c[k].ci];
        const char *h = col->title ? col->title : col->key;
        pd_text(d, x + TPAD / 2, d->y + 3, h, PF_BOLD, THS, c[k].w - TPAD,
                c[k].num ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_MUTED);
        x += c[k].w;
    }
    d->y += THEAD;
    pd_hline(d, d->x0, x, d->y - 1.5, 0.7, C_MUTED);
}

/* The row index at which the table continues on the next page, starting at row r on
 * this page: as many rows as fit, but never fewer than 3 rows (or all the rest) alone
 * on the next page. rh: each row's height. */
static size_t page_rows(const pdoc *d, size_t r, size_t shown, const double *rh, double tail)
{
    double room = d->ybot - d->y, used = 0;
    size_t fit = 0;
    while (r + fit < shown && used + rh[r + fit] <= room)
        used += rh[r + fit++];
    if (fit < 1)
        fit = 1;
    if (r + fit >= shown) {
        /* the rest fits, but the rule and the note below it must fit too: a note never
         * starts a page alone, it goes with the last rows */
        size_t rest = shown - r;
        if (used + tail <= room || rest <= 3)
            return shown;
        return shown - 3;
    }
    size_t left = shown - r - fit;
    if (left < 3 && fit > 3 - left)
        fit -= 3 - left;
    return r + fit;
}

#define NAME_LINES 3 /* a name wraps over at most this many lines */

static int layout_lines(pdoc *d, const char *text, double width)
{
    size_t off[NAME_LINES + 1], len[NAME_LINES + 1];
    int n;
    free(pd_wrap(d, text, PF_SANS, TFS, width, NAME_LINES, &n, off, len));
    return n;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || (c & 0x80);
}

/* name's first and last bytes, k in all, around "\u2026", into out (n + 4 bytes) */
static void cut_middle(char *out, const char *name, size_t n, size_t k)
{
    size_t head = k * 3 / 5, tail = k - head;
    while (head > 0 && (name[head] & 0xc0) == 0x80)
        head--;
    while (tail > 0 && (name[n - tail] & 0xc0) == 0x80)
        tail--;
    /* no word cut on either side of the "\u2026" when a word boundary is near: the tail
     * starts at the beginning of its first word (the "worker0" of "...worker0_step",
     * which tells inputs apart, is kept whole), the head gives up as many bytes and
     * ends between words */
    size_t st = n - tail;
    if (tail > 0 && st > head && word_char(name[st - 1]) && word_char(name[st])) {
        size_t b = st;
        while (b > head && word_char(name[b - 1]))
            b--;
        if (b > head && st - b <= 32) {
            tail += st - b;
            head = head > st - b ? head - (st - b) : 0;
        }
    }
    if (head > 0 && word_char(name[head - 1]) && word_char(name[head])) {
        size_t h = head;
        while (h > 0 && word_char(name[h - 1]))
            h--;
        if (h > 0 && head - h <= 32)
            head = h;
    }
    while (head > 0 && (name[head] & 0xc0) == 0x80)
        head--;
    snprintf(out, n + 4, "%.*s\xe2\x80\xa6%s", (int)head, name, name + n - tail);
}

/* The name as drawn in a column of the given width: itself when it wraps into
 * NAME_LINES lines, else its head and tail around "\u2026" (the longest that fit).
 * malloc'd; *lines: the lines it takes. */
static char *fit_name(pdoc *d, const char *name, double width, int *lines)
{
    *lines = layout_lines(d, name, width);
    if (*lines <= NAME_LINES)
        return td_xstrdup(name);
    size_t n = strlen(name);
    char *out = td_xmalloc(n + 4);
    size_t lo = 0, hi = n; /* bytes kept, head + tail */
    while (lo < hi) {
        size_t k = (lo + hi + 1) / 2;
        cut_middle(out, name, n, k);
        if (layout_lines(d, out, width) <= NAME_LINES)
            lo = k;
        else
            hi = k - 1;
    }
    cut_middle(out, name, n, lo);
    *lines = layout_lines(d, out, width);
    return out;
}

/* 1 when integer column ci holds one value in each of the first n rows */
static int same_int(const td_table *t, int ci, size_t n)
{
    if (t->cols[ci].type == TD_T_TEXT || t->cols[ci].type == TD_T_SHARE ||
        t->cols[ci].type == TD_T_F64 || t->cols[ci].type == TD_T_GBPS)
        return 0;
    for (size_t r = 1; r < n; r++)
        if (td_table_cell(t, r, ci)->i != td_table_cell(t, 0, ci)->i)
            return 0;
    return 1;
}

static int table_body(pdoc *d, const td_table *t, int top, const char *title)
{
    if (!t || !t->nrows || !t->ncols)
        return 0;
    size_t shown = top > 0 && (size_t)top < t->nrows ? (size_t)top : t->nrows;
    if (shown > PD_MAXROWS)
        shown = PD_MAXROWS; /* a PDF is for reading; the workbook has the rest */
    double W = d->x1 - d->x0;
    tcol c[TD_MAXCOLS];
    int n = 0, flex = -1;
    char v[8192]; /* whole names: C++ kernel names run to thousands of bytes */
    char same[1024] = ""; /* columns with one value in every shown row, for the note */
    double sc[TD_MAXCOLS]; /* one unit per time column, from the rows shown first */
    const td_kv *nr = td_sum_get(d->s, "trace.ranks");
    int one_rank = nr && nr->v.i != TD_NA && nr->v.i <= 1;
    td_table_scales(t, NULL, shown, sc);
    for (int ci = 0; ci < t->ncols; ci++) {
        const td_col *col = &t->cols[ci];
        if (unit_hidden(t, ci) || col->nodoc || td_col_shown_elsewhere(t, ci))
            continue;
        tcol *q = &c[n];
        q->ci = ci;
        q->num = col->type != TD_T_TEXT;
        q->imp = importance(col->key);
        q->nat = pd_text_w(d, col->title ? col->title : col->key, PF_BOLD, THS);
        int filled = 0;
        for (size_t r = 0; r < shown; r++) {
            cell_text(t, r, ci, sc, v, sizeof v);
            if (!v[0])
                continue;
            filled = 1;
            double w = pd_text_w(d, v, !strcmp(col->key, "status") ? PF_BOLD : PF_SANS, TFS);
            if (w > q->nat)
                q->nat = w;
        }
        /* a column empty in every shown row (a Kineto module's program id, collectives
         * without sizes) says nothing: left out, the workbook still has it */
        if (!filled && t->ncols > 1 && strcmp(col->key, "name") != 0)
            continue;
        /* the rank of a one-rank input: "0" in every row says nothing (page 1 gives the
         * input's rank) */
        if (!strcmp(col->key, "rank") && one_rank && t->ncols > 1 &&
            same_int(t, ci, shown))
            continue;
        /* a text column with one value in every shown row (the telemetry file, the
         * Kineto thunks' module "ProfilerStep") is said once in the note instead */
        if (col->type == TD_T_TEXT && shown >= 2 && t->ncols > 2 && strcmp(col->key, "name") &&
            strcmp(col->key, "Name") && strcmp(col->key, "status")) {
            const char *v0 = td_table_cell(t, 0, ci)->s;
            size_t r = 1;
            while (v0 && v0[0] && r < shown && td_table_cell(t, r, ci)->s &&
                   !strcmp(td_table_cell(t, r, ci)->s, v0))
                r++;
            if (v0 && v0[0] && r == shown) {
                size_t sl = strlen(same);
                snprintf(same + sl, sizeof same - sl, "%s%s %s",
                         sl ? "; " : "Same in every row shown: ", col->title ? col->title : col->key,
                         v0);
                continue;
            }
        }
        n++;
        if (!q->num && flex < 0)
            flex = n - 1;
        q->nat += TPAD;
        if (share_bar(col))
            q->nat += SHAREBAR + 4;
        if (!q->num && n - 1 != flex && q->nat > 150)
            q->nat = 150; /* other text columns: ellipsized at the end */
    }
    if (!n)
        return 0;
    /* the flexible column: "name" when there is one (thunks: not "module") */
    for (int k = 0; k < n; k++)
        if (!strcmp(t->cols[c[k].ci].key, "name") || !strcmp(t->cols[c[k].ci].key, "Name"))
            flex = k;
    if (flex >= 0) {
        c[flex].imp = 1000;
        c[flex].nat = 0;
        const td_col *col = &t->cols[c[flex].ci];
        c[flex].nat = pd_text_w(d, col->title ? col->title : col->key, PF_BOLD, THS);
        for (size_t r = 0; r < shown; r++) {
            cell_text(t, r, c[flex].ci, sc, v, sizeof v);
            double w = v[0] ? pd_text_w(d, v, PF_SANS, TFS) : 0;
            if (w > c[flex].nat)
                c[flex].nat = w;
        }
        c[flex].nat += TPAD;
    }
    /* fit: shrink the name column down to a minimum, then drop the least important
     * columns (rightmost first among equals) until the rest fit the page width */
    char dropped[512] = "";
    for (;;) {
        double others = 0;
        for (int k = 0; k < n; k++)
            if (k != flex)
                others += c[k].nat;
        /* names matter most: ~45% of the width for them before the least important
         * numbers (std, min, max...) are kept; the important ones (totals, shares, a
         * regression's base and current) give way only below ~35% */
        int worst = -1; /* among equals the widest goes first (one wide SHA-256 rather
                           than two narrow counts), then the rightmost */
        for (int k = 0; k < n; k++)
            if (k != flex && (worst < 0 || c[k].imp < c[worst].imp ||
                              (c[k].imp == c[worst].imp && c[k].nat >= c[worst].nat - 0.5)))
                worst = k;
        double fmin = 0;
        if (flex >= 0) {
            double share = worst >= 0 && c[worst].imp >= 60 ? 0.35 : 0.45;
            fmin = c[flex].nat < W * share ? c[flex].nat : W * share;
        }
        if (others + fmin <= W || n <= 1 || worst < 0) {
            for (int k = 0; k < n; k++)
                c[k].w = c[k].nat;
            if (flex >= 0) {
                c[flex].w = W - others;
                if (c[flex].w < fmin)
                    c[flex].w = fmin;
            }
            break;
        }
        const td_col *col = &t->cols[c[worst].ci];
        size_t dl = strlen(dropped);
        snprintf(dropped + dl, sizeof dropped - dl, "%s%s", dl ? ", " : "",
                 col->title ? col->title : col->key);
        memmove(&c[worst], &c[worst + 1], (size_t)(n - worst - 1) * sizeof c[0]);
        n--;
        if (flex > worst)
            flex--;
    }
    if (flex < 0) {
        /* all numeric: spread spare width so the table spans the page */
        double tot = 0;
        for (int k = 0; k < n; k++)
            tot += c[k].w;
        if (tot < W && tot > W * 0.5)
            for (int k = 0; k < n; k++)
                c[k].w += (W - tot) / n;
    }

    /* the note under the table, written now so that its height is known when the
     * rows are split over pages */
    char note[2500] = "";
    if (shown < t->nrows || dropped[0] || t->note || same[0]) {
        int o = 0;
        if (t->note)
            o = snprintf(note, sizeof note, "%s ", t->note);
        if (same[0])
            o += snprintf(note + o, sizeof note - (size_t)o, "%s. ", same);
        if (shown < t->nrows)
            o += snprintf(note + o, sizeof note - (size_t)o, "Top %zu of %zu rows. ", shown,
                          t->nrows);
        if (dropped[0])
            snprintf(note + o, sizeof note - (size_t)o, "Not shown for width: %s. ", dropped);
        size_t bl = strlen(note);
        if (shown < t->nrows || dropped[0])
            snprintf(note + bl, sizeof note - bl, "The workbook has every row and column.");
        else if (bl)
            note[bl - 1] = 0;
    }
    double tail = 4 + (note[0] ? pd_text_h(d, note, PF_SANS, 7, W) : 0);
    /* the name column wraps: each row is as tall as its name */
    double *rh = td_xmalloc((shown + 1) * sizeof *rh);
    char **names = td_xcalloc(shown + 1, sizeof *names);
    double lh = pd_text_h(d, "Ag", PF_SANS, TFS, 0);
    for (size_t r = 0; r < shown; r++) {
        rh[r] = TROW;
        if (flex < 0)
            continue;
        cell_text(t, r, c[flex].ci, sc, v, sizeof v);
        int lines = 1;
        names[r] = fit_name(d, v, c[flex].w - TPAD, &lines);
        if (lines > 1)
            rh[r] = TROW + (lines - 1) * lh;
    }
    /* at least three rows (or the whole short table with its note) on the first page */
    double keep = THEAD;
    for (size_t r = 0; r < shown && r < 3; r++)
        keep += rh[r];
    if (shown <= 3)
        keep += tail;
    if (title)
        pd_heading(d, title, keep);
    else
        pd_need(d, keep);
    table_header(d, t, c, n);
    size_t brk = page_rows(d, 0, shown, rh, tail);
    for (size_t r = 0; r < shown; r++) {
        if (r == brk) {
            pd_break(d);
            table_header(d, t, c, n);
            brk = page_rows(d, r, shown, rh, tail);
        }
        if (r % 2 == 1) {
            pd_rgb(d, C_ZEBRA);
            cairo_rectangle(d->cr, d->x0, d->y, W, rh[r]);
            cairo_fill(d->cr);
        }
        double x = d->x0;
        for (int k = 0; k < n; k++) {
            const td_col *col = &t->cols[c[k].ci];
            const td_cell *cell = td_table_cell(t, r, c[k].ci);
            if (share_bar(col) && isfinite(cell->f) && c[k].w >= SHAREBAR + 30) {
                double f = cell->f > 1 ? 1 : cell->f < 0 ? 0 : cell->f;
                pd_rgb(d, C_SHAREBAR);
                cairo_rectangle(d->cr, x + TPAD / 2, d->y + 4, SHAREBAR, TROW - 8);
                cairo_fill(d->cr);
                pd_rgb(d, C_ACCENT);
                cairo_rectangle(d->cr, x + TPAD / 2, d->y + 4, SHAREBAR * f, TROW - 8);
                cairo_fill(d->cr);
            }
            cell_text(t, r, c[k].ci, sc, v, sizeof v);
            int font = PF_SANS;
            uint32_t color = C_TEXT;
            if (!strcmp(col->key, "status") && !strcmp(v, "regressed")) {
                font = PF_BOLD;
                color = C_BAD;
            } else if (!strcmp(col->key, "status") && !strcmp(v, "improved"))
                color = C_GOOD;
            if (k == flex && names[r]) {
                size_t off[NAME_LINES + 1], len[NAME_LINES + 1];
                int nl;
                char *wt = pd_wrap(d, names[r], font, TFS, c[k].w - TPAD, NAME_LINES, &nl,
                                   off, len);
                pd_lines(d, x + TPAD / 2, d->y + 1.5, wt, off, len,
                         nl < NAME_LINES ? nl : NAME_LINES, font, TFS, lh, c[k].w - TPAD,
                         color);
                free(wt);
            } else if (v[0])
                pd_text(d, x + TPAD / 2, d->y + 1.5, v, font, TFS, c[k].w - TPAD,
                        c[k].num ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT,
                        /* an XLA op_name path tells most at its end */
                        !strcmp(col->key, "op_name") ? PANGO_ELLIPSIZE_START
                                                     : PANGO_ELLIPSIZE_END, color);
            x += c[k].w;
        }
        d->y += rh[r];
    }
    for (size_t r = 0; r < shown; r++)
        free(names[r]);
    free(names);
    free(rh);
    pd_hline(d, d->x0, d->x1, d->y + 0.5, 0.5, C_RULE);
    d->y += 4;
    if (note[0])
        pd_note(d, note);
    return 1;
}

int pd_table(pdoc *d, const td_table *t, int top, const char *title)
{
    /* without the rows that repeat another (an op inside an op of the same device time) */
    td_table *v = t ? td_doc_view(t) : NULL;
    int drawn = table_body(d, v ? v : t, top, title);
    td_doc_view_free(v);
    return drawn;
}
