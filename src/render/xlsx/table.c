/* render/xlsx/table.c - one workbook sheet per summary table: every column (header
 * frozen, autofilter; Steps with a column chart, warm-up steps as a second series).
 * Absent or empty tables get no sheet.
 *
 * Numbers stay numbers so people can sort and sum them: times in one unit per column,
 * the one the PDF would give the rows the sheet shows (td_table_scales: the top rows
 * count twice, the statistics of one distribution share a unit; the double keeps the
 * exact ns), a cell far under its column's unit with the decimals that keep three
 * significant digits (0.000341 ms, never 0.000), shares as
 * fractions with a % format, bytes and counts as integers. Every text goes through
 * worksheet_write_string, which libxlsxwriter never turns into a formula or a number,
 * so a trace name such as "=cmd|..." stays text. */
#define _POSIX_C_SOURCE 200809L
#include "render/xlsx/internal.h"
#include "summary/table_text.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


#define UNIT_ROWS 25     /* rows that choose a time column's unit */
#define WIDTH_MIN 8
#define WIDTH_MAX 80
#define CHART_MAX_STEPS 4000    /* steps plotted; the sheet keeps every row */
#define u8len td_utf8_len       /* code points of valid UTF-8 (what Excel counts) */

/* True when every value of a time column is a whole number of its unit (Kineto's
 * microsecond timestamps): shown without decimals, as 37,935 and not 37,935.000. */
static int whole_units(const td_table *t, int c, const size_t *rows, size_t nrows, double scale)
{
    int64_t u = (int64_t)scale;
    for (size_t r = 0; r < nrows; r++) {
        int64_t x = td_table_cell(t, rows[r], c)->i;
        if (x != TD_NA && x % u != 0)
            return 0;
    }
    return 1;
}

/* A column with no value in any row shown (a collective's size when the trace does
 * not record it, XLA's HLO op for a Kineto kernel), or the rank of a single-rank
 * input: it means nothing for this input and is left out of the sheet (summary.json
 * and the CSV keep it). */
static int says_nothing(const xw *x, const td_table *t, int c, const size_t *rows, size_t nrows)
{
    const td_col *col = &t->cols[c];
    if (!strcmp(col->key, "rank") && (col->type == TD_T_INT || col->type == TD_T_DEVICE)) {
        const td_kv *rk = td_sum_get(x->s, "trace.ranks");
        if (rk && rk->type == TD_T_INT && rk->v.i == 1)
            return 1;
    }
    /* issue 21: a column that qualifies the rows (the rank, the scope of a timeline row,
     * the warm-up flag, the profiler's active window) with one value in every row (two
     * or more for the rank: one row's rank says whose it is) tells nothing a reader can sort or compare by: "Scope trace", "Warm-up
     * no", "Active window 1" down the sheet */
    static const char *const qual[] = {"rank", "scope", "warmup", "window", "cut", NULL};
    for (int q = 0; qual[q] && nrows > 0; q++) {
        if (strcmp(col->key, qual[q]) || (q == 0 && nrows < 2)) /* one row's rank tells */
            continue;
        int same = 1;
        const td_cell *a = td_table_cell(t, rows[0], c);
        for (size_t r = 1; r < nrows && same; r++) {
            const td_cell *b = td_table_cell(t, rows[r], c);
            same = col->type == TD_T_TEXT ? (a->s && b->s ? !strcmp(a->s, b->s) : a->s == b->s)
                                          : a->i == b->i;
        }
        if (same)
            return 1;
    }
    for (size_t r = 0; r < nrows; r++) {
        const td_cell *v = td_table_cell(t, rows[r], c);
        switch (col->type) {
        case TD_T_TEXT:
            if (v->s && *v->s)
                return 0;
            break;
        case TD_T_SHARE: case TD_T_GBPS: case TD_T_F64:
            if (isfinite(v->f))
                return 0;
            break;
        default:
            if (v->i != TD_NA)
                return 0;
        }
    }
    return 1;
}

static void col_header(const td_col *c, double scale, char *dst, size_t cap)
{
    const char *t = c->title && *c->title ? c->title : c->key;
    switch (c->type) {
    case TD_T_NS: snprintf(dst, cap, "%s (%s)", t, xw_unit_name(scale)); break;
    case TD_T_BYTES: snprintf(dst, cap, "%s (bytes)", t); break;
    case TD_T_GBPS: snprintf(dst, cap, "%s (GB/s)", t); break;
    case TD_T_SHARE: snprintf(dst, cap, strchr(t, '%') ? "%s" : "%s (%%)", t); break;
    default: snprintf(dst, cap, "%s", t);
    }
}

/* Characters the displayed number takes (for column widths): integer digits with
 * thousands separators, plus the decimals of the format. */
static size_t num_width(double v, int decimals)
{
    char b[64];
    snprintf(b, sizeof b, "%.0f", fabs(v));
    size_t d = strlen(b);
    return d + (d - 1) / 3 + (decimals ? (size_t)decimals + 1 : 0) + (v < 0);
}

/* Integer columns that identify rather than count: no thousands separators. */
static int is_id(const char *key)
{
    static const char *const ids[] = {"rank", "step", "program_id", "world_size",
                                      "group_size", "device", "ipu", "run", "report", NULL};
    for (int i = 0; ids[i]; i++)
        if (strcmp(key, ids[i]) == 0)
            return 1;
    return 0;
}

/* Write one cell of a summary table at (r, c); returns its display width. */
/* True when every finite value of an f64 column is a whole number (counts, ns in the
 * regression table): shown without decimals. */
static int all_integral(const td_table *t, int c, const size_t *rows, size_t nrows)
{
    int any = 0;
    for (size_t r = 0; r < nrows; r++) {
        double f = td_table_cell(t, rows[r], c)->f;
        if (!isfinite(f))
            continue;
        if (f != floor(f) || fabs(f) > 1e15)
            return 0;
        any = 1;
    }
    return any;
}

/* scale: ns per unit of a time column, negative when its values are whole units; for
 * an f64 column, 0 when its values are whole */
static size_t put_cell(xw *x, lxw_worksheet *ws, int r, int c, const td_col *col,
                       const td_cell *v, double scale, int job, const char *words)
{
    if (job && v->i == TD_NA) { /* the rank of a job-wide row: every rank */
        xw_put_str(x, ws, r, c, "all", x->center);
        return 3;
    }
    switch (col->type) {
    case TD_T_TEXT:
        if (!v->s)
            return 0;
        xw_put_str(x, ws, r, c, words ? words : v->s, NULL);
        return u8len(words ? words : v->s);
    case TD_T_NS: { /* a negative scale: whole units, no decimals */
        if (v->i == TD_NA)
            return 0;
        double u = (double)v->i / fabs(scale), a = fabs(u);
        /* a cell under a tenth of the unit (a 341 ns kernel in a column of ms): the
         * decimals that keep three significant digits, not "0.000" */
        int dec = scale < 0 ? 0 : 3;
        while (dec > 0 && a > 0 && a < 0.1 && a * pow(10, dec) < 100 && dec < XW_MAXDEC)
            dec++;
        xw_put_num(x, ws, r, c, u, dec == 0 ? x->count : xw_dec_format(x, dec));
        return num_width(u, dec);
    }
    case TD_T_INT: case TD_T_BYTES:
        if (v->i == TD_NA)
            return 0;
        xw_put_num(x, ws, r, c, (double)v->i, is_id(col->key) ? x->id : x->count);
        return num_width((double)v->i, 0);
    case TD_T_DEVICE:
        if (v->i == TD_NA)
            return 0;
        if (v->i < 0) {
            xw_put_str(x, ws, r, c, "all", x->center);
            return 3;
        }
        xw_put_num(x, ws, r, c, (double)v->i, x->id);
        return num_width((double)v->i, 0);
    case TD_T_BOOL:
        if (v->i == TD_NA)
            return 0;
        xw_put_str(x, ws, r, c, v->i ? "yes" : "no", x->center);
        return 3;
    case TD_T_SHARE:
        if (!isfinite(v->f))
            return 0;
        xw_put_num(x, ws, r, c, v->f, x->pct);
        return num_width(v->f * 100, 1) + 1;
    case TD_T_GBPS:
        if (!isfinite(v->f))
            return 0;
        xw_put_num(x, ws, r, c, v->f, x->gbps);
        return num_width(v->f, 2);
    case TD_T_F64:
        if (!isfinite(v->f))
            return 0;
        xw_put_num(x, ws, r, c, v->f, scale == 0 ? x->count : x->f64);
        return num_width(v->f, scale == 0 ? 0 : 3);
    }
    return 0;
}

static double clampw(size_t w)
{
    w += 2;
    return (double)(w < WIDTH_MIN ? WIDTH_MIN : w > WIDTH_MAX ? WIDTH_MAX : w);
}

/* Steps chart: step wall time per step, warm-up steps in a second series, from three
 * helper columns written right of the table (label, steady ms, warm-up ms). */
static void steps_chart(xw *x, lxw_worksheet *ws, const td_table *t, size_t nrows, int ncols)
{
    int cw = td_table_col(t, "wall_ns"), cs = td_table_col(t, "step"),
        cr = td_table_col(t, "rank"), cu = td_table_col(t, "cut");
    if (cw < 0 || nrows < 2)   /* a chart of one bar says nothing */
        return;
    size_t n = nrows < CHART_MAX_STEPS ? nrows : CHART_MAX_STEPS;
    int multi = 0;
    for (size_t r = 0; cr >= 0 && r < n; r++)
        if (td_table_cell(t, r, cr)->i != td_table_cell(t, 0, cr)->i)
            multi = 1;
    int c0 = ncols + 1; /* one blank column between the table and the chart data */
    xw_put_str(x, ws, 0, c0, "Chart: step", x->head);
    xw_put_str(x, ws, 0, c0 + 1, "Chart: steady step (ms)", x->headr);
    xw_put_str(x, ws, 0, c0 + 2, "Chart: warm-up step (ms)", x->headr);
    int any_warm = 0;
    for (size_t r = 0; r < n; r++) {
        char lab[64];
        int64_t step = cs >= 0 ? td_table_cell(t, r, cs)->i : (int64_t)r;
        if (step == TD_NA)
            step = (int64_t)r;
        if (multi)
            snprintf(lab, sizeof lab, "r%lld s%lld",
                     (long long)td_table_cell(t, r, cr)->i, (long long)step);
        else
            snprintf(lab, sizeof lab, "%lld", (long long)step);
        xw_put_str(x, ws, (int)r + 1, c0, lab, NULL);
        int64_t w = td_table_cell(t, r, cw)->i;
        int warm = !td_steps_row_steady(t, r); /* warm-up, or cut short by the trace's ends */
        any_warm |= warm;
        if (w != TD_NA)
            xw_put_num(x, ws, (int)r + 1, c0 + (warm ? 2 : 1), (double)w / 1e6, x->ms);
    }
    /* the helper columns are for the chart only: hidden, and the chart told to plot
     * hidden cells (Excel and LibreOffice skip them otherwise) */
    lxw_row_col_options hide = {.hidden = 1, .level = 0, .collapsed = 0};
    worksheet_set_column_opt(ws, (lxw_col_t)c0, (lxw_col_t)(c0 + 2), 24, NULL, &hide);
    lxw_chart *ch = workbook_add_chart(x->wb, LXW_CHART_COLUMN_STACKED);
    if (!ch) {
        xw_note_err(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "chart");
        return;
    }
    chart_show_hidden_data(ch);
    const char *sn = xw_sheet_name(x);
    lxw_row_t last = (lxw_row_t)n;
    lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
    chart_series_set_categories(se, sn, 1, (lxw_col_t)c0, last, (lxw_col_t)c0);
    chart_series_set_values(se, sn, 1, (lxw_col_t)(c0 + 1), last, (lxw_col_t)(c0 + 1));
    chart_series_set_name(se, "Steady steps");
    lxw_chart_fill f1 = {.color = 0x4472C4};
    chart_series_set_fill(se, &f1);
    if (any_warm) {
        se = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(se, sn, 1, (lxw_col_t)c0, last, (lxw_col_t)c0);
        chart_series_set_values(se, sn, 1, (lxw_col_t)(c0 + 2), last, (lxw_col_t)(c0 + 2));
        int anycut = 0;
        for (size_t r = 0; cu >= 0 && r < n; r++)
            anycut |= td_table_cell(t, r, cu)->i == 1;
        chart_series_set_name(se, anycut ? "Warm-up or cut short (dropped)"
                                         : "Warm-up steps (dropped)");
        lxw_chart_fill f2 = {.color = 0xED7D31};
        chart_series_set_fill(se, &f2);
    }
    chart_title_set_name(ch, n < nrows ? "Step time (first steps)" : "Step time");
    chart_axis_set_name(ch->x_axis, multi ? "Rank and step" : "Step");
    chart_axis_set_name(ch->y_axis, "Wall time (ms)");
    chart_axis_set_num_format(ch->y_axis, "#,##0");
    chart_axis_set_min(ch->y_axis, 0); /* bars from zero: no exaggerated differences */
    chart_set_series_gap(ch, 50);
    chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
    lxw_chart_options co = {.x_scale = 1.6, .y_scale = 1.3};
    xw_note_err(x, worksheet_insert_chart_opt(ws, 2, (lxw_col_t)(c0 + 3), ch, &co), "chart");
}

/* A note under a table: merged over the table's columns and wrapped in a row tall enough,
 * rather than one line running far right of the table (and shrinking its printout). */
static void table_note(xw *x, lxw_worksheet *ws, const char *note, int r, const size_t *w,
                       int ncols)
{
    double width = 0;
    for (int k = 0; k < ncols; k++)
        width += clampw(w[k]);
    char *t = xw_cell_text(note);
    if (ncols > 1)
        xw_note_err(x, worksheet_merge_range(ws, (lxw_row_t)r, 0, (lxw_row_t)r,
                                             (lxw_col_t)(ncols - 1), t, x->wrap), "note");
    else
        xw_put_str(x, ws, r, 0, t, x->wrap);
    int lines = xw_wrapped_lines(t, width > 12 ? (size_t)width - 6 : 6);
    worksheet_set_row(ws, (lxw_row_t)r, lines >= 27 ? 409.0 : 15.0 * lines, NULL);
    free(t);
}

/* The rows a sheet shows (issue 21), into rows[]; returns their count, 0 for no sheet:
 * - the checklist: the items the report has (the PDF's rule, render/pdf/check.c): what
 *   is missing is told to the author on stderr and stays in summary.json; the trace
 *   file alone is no sheet;
 * - a timeline of one device: its row, not the job-wide row "all" that repeats it. */
static size_t shown_rows(const td_table *t, size_t nrows, size_t *rows)
{
    size_t n = 0;
    int cok = td_table_col(t, "ok"), cit = td_table_col(t, "item");
    if (!strcmp(t->name, "checklist") && cok >= 0) {
        size_t other = 0;
        for (size_t r = 0; r < nrows; r++)
            if (td_table_cell(t, r, cok)->i == 1) {
                rows[n++] = r;
                const char *it = cit >= 0 ? td_table_cell(t, r, cit)->s : NULL;
                other += !(it && !strcmp(it, "The trace file"));
            }
        return other ? n : 0;
    }
    int cdev = td_table_col(t, "device");
    size_t ndev = 0;
    if (cdev >= 0 && t->cols[cdev].type == TD_T_DEVICE)
        for (size_t r = 0; r < nrows; r++)
            ndev += td_table_cell(t, r, cdev)->i >= 0;
    for (size_t r = 0; r < nrows; r++)
        if (!(ndev == 1 && td_table_cell(t, r, cdev)->i < 0))
            rows[n++] = r;
    return n;
}

/* A table of measures none of whose measures has a value (the op performance model of
 * a trace whose ops launched no device work: op, shapes and calls only) says nothing the
 * Ops sheet does not. */
static int no_measure(const xw *x, const td_table *t, const size_t *rows, size_t nrows)
{
    int measures = 0;
    for (int c = 0; c < t->ncols; c++) {
        td_type ty = t->cols[c].type;
        if (t->cols[c].nodoc || !(ty == TD_T_NS || ty == TD_T_F64 || ty == TD_T_SHARE ||
                                   ty == TD_T_GBPS))
            continue;
        measures++;
        if (!says_nothing(x, t, c, rows, nrows))
            return 0;
    }
    return measures > 0;
}

/* A rate column in TFLOP/s or TB/s whose every value is under 1 (a toy model's GEMM at
 * 0.00672 TFLOP/s) reads "0.000" with three decimals: written in GFLOP/s or GB/s
 * instead (x 1000), the unit in the header. Returns the header's unit or NULL. */
static const char *small_rate(const td_table *t, int c, const size_t *rows, size_t nrows)
{
    const td_col *col = &t->cols[c];
    const char *ti = col->title ? col->title : "";
    const char *to = !strcmp(ti, "TFLOP/s") ? "GFLOP/s" : !strcmp(ti, "TB/s") ? "GB/s" : NULL;
    if (col->type != TD_T_F64 || !to)
        return NULL;
    for (size_t r = 0; r < nrows; r++) {
        double f = td_table_cell(t, rows[r], c)->f;
        if (isfinite(f) && fabs(f) >= 1)
            return NULL;
    }
    return to;
}

/* One sheet for one summary table: header row (frozen, filtered), one row per item. */
static void table_sheet(xw *x, const td_table *t, const td_section *sec)
{
    if (!t || t->nrows == 0 || t->ncols == 0)
        return;
    size_t nrows = t->nrows;
    if (sec->top > 0 && (size_t)sec->top < nrows)
        nrows = (size_t)sec->top;
    if (nrows > LXW_ROW_MAX - 1)
        nrows = LXW_ROW_MAX - 1;
    /* variability of one or two names repeats the kernels sheet (the PDF says so in a
     * sentence, render/pdf/draw.c) */
    if (!strcmp(t->name, "variability") && t->nrows < 3)
        return;
    /* a table per device of one device repeats the table of all devices ("Kernels by
     * device" beside "Kernels") */
    size_t ln = strlen(t->name);
    int cd = td_table_col(t, "device");
    if (ln > 10 && !strcmp(t->name + ln - 10, "_by_device") && cd >= 0) {
        int one = 1;
        for (size_t r = 1; r < t->nrows && one; r++)
            one = td_table_cell(t, r, cd)->i == td_table_cell(t, 0, cd)->i;
        if (one)
            return;
    }
    size_t *rows = td_xmalloc((nrows ? nrows : 1) * sizeof *rows);
    nrows = shown_rows(t, nrows, rows);
    if (!nrows || no_measure(x, t, rows, nrows)) {
        free(rows);
        return;
    }
    lxw_worksheet *ws = xw_add_sheet(x, sec->title[0] ? sec->title : t->title, t->name);
    if (!ws) {
        free(rows);
        return;
    }
    size_t w[TD_MAXCOLS];
    double scale[TD_MAXCOLS], tsc[TD_MAXCOLS];
    /* the unit of each time column from the rows a reader looks at, the first screen
     * (the PDF's default table length): ten rows of 2 us modules below a 127 ms step
     * function must not write it 127212.003 us */
    td_table_scales(t, rows, nrows < UNIT_ROWS ? nrows : UNIT_ROWS, tsc);
    const char *rate[TD_MAXCOLS];
    int sc[TD_MAXCOLS], nsc = 0;  /* sheet column -> table column (nodoc columns left out) */
    for (int c = 0; c < t->ncols; c++)
        if (!t->cols[c].nodoc && !says_nothing(x, t, c, rows, nrows) &&
            !(!strcmp(t->name, "checklist") && !strcmp(t->cols[c].key, "ok")))
            sc[nsc++] = c;
    if (nsc == 0)   /* keep the first column rather than an empty sheet */
        sc[nsc++] = 0;
    for (int k = 0; k < nsc; k++) {
        int c = sc[k];
        char h[300];
        scale[k] = t->cols[c].type == TD_T_NS    ? tsc[c]
                   : t->cols[c].type == TD_T_F64 ? (all_integral(t, c, rows, nrows) ? 0 : 1)
                                                 : 1;
        col_header(&t->cols[c], scale[k], h, sizeof h);
        rate[k] = small_rate(t, c, rows, nrows);
        if (rate[k])
            snprintf(h, sizeof h, "%s", rate[k]);
        if (t->cols[c].type == TD_T_NS && whole_units(t, c, rows, nrows, scale[k]))
            scale[k] = -scale[k];
        td_type ty = t->cols[c].type;
        int idc = ty == TD_T_DEVICE || (ty == TD_T_INT && is_id(t->cols[c].key));
        xw_put_str(x, ws, 0, k, h, ty == TD_T_TEXT || ty == TD_T_BOOL || idc ? x->head : x->headr);
        w[k] = u8len(h) + 3; /* room for the filter button, and a space before the next
                                header (bold headers run wider than the digits) */
    }
    /* a row of every device (device "all") with no rank is the job's: rank "all" */
    int cdev = td_table_col(t, "device");
    if (cdev >= 0 && t->cols[cdev].type != TD_T_DEVICE)
        cdev = -1;
    /* a table of metrics (changes, comparisons): the name column reads the metric as the
     * workbook names it, a kernel by its full name (the documents' label has its short
     * name) */
    int cname = td_table_col(t, "name"), cmet = td_table_col(t, "metric");
    if (cname >= 0 && cmet >= 0 && (t->cols[cname].type != TD_T_TEXT ||
                                    t->cols[cmet].type != TD_T_TEXT))
        cmet = -1;
    for (size_t i = 0; i < nrows; i++)
        for (int k = 0; k < nsc; k++) {
            size_t r = rows[i];
            int job = cdev >= 0 && !strcmp(t->cols[sc[k]].key, "rank") &&
                      td_table_cell(t, r, cdev)->i == -1;
            const td_cell *v = td_table_cell(t, r, sc[k]);
            td_cell full;
            char label[1200];
            const char *m = cmet >= 0 && sc[k] == cname ? td_table_cell(t, r, cmet)->s : NULL;
            if (m && !strncmp(m, "kernel.", 7)) {
                xw_metric_label(x->s, m, label, sizeof label);
                full = *v;
                full.s = label;
                v = &full;
            } else if (rate[k]) {
                full = *v;
                full.f = v->f * 1000.0;
                v = &full;
            }
            char wb[128]; /* a category as the PDF words it ("CPU-bound") */
            const char *words = td_cell_words(t, r, sc[k], wb, sizeof wb);
            size_t l = put_cell(x, ws, (int)i + 1, k, &t->cols[sc[k]], v, scale[k], job, words);
            if (l > w[k])
                w[k] = l;
        }
    for (int k = 0; k < nsc; k++)
        worksheet_set_column(ws, (lxw_col_t)k, (lxw_col_t)k, clampw(w[k]), NULL);
    worksheet_freeze_panes(ws, 1, 0);
    worksheet_repeat_rows(ws, 0, 0);
    xw_note_err(x, worksheet_autofilter(ws, 0, 0, (lxw_row_t)nrows, (lxw_col_t)(nsc - 1)),
             "autofilter");
    if (t->note)   /* what the numbers are of, below the rows, wrapped within their width */
        table_note(x, ws, t->note, (int)nrows + 2, w, nsc);
    x->rows[x->nsheets - 1] = nrows;
    if (strcmp(t->name, "steps") == 0)
        steps_chart(x, ws, t, nrows, nsc);
    free(rows);
}

void xw_table_sheet(xw *x, const td_table *t, const td_section *sec)
{
    /* without the rows that repeat another (an op inside an op of the same device time,
     * said in the note); summary.json and the CSV keep them */
    td_table *v = t ? td_doc_view(t) : NULL;
    table_sheet(x, v ? v : t, sec);
    td_doc_view_free(v);
}
