/* render/xlsx/trend.c - the workbook's Trends sheet (template `section trends`): the
 * last runs of every metric of the summary's `trends` table (the key metrics and the
 * metrics that changed) as one block of cells and one native line chart per metric,
 * like the PDF's trend charts (render/pdf/trend.c). The run where the series changed
 * (the metric's `since` in table `changes`) is a second series of one red point.
 * Every number comes from the summary; times are shown in ms or us per metric. */
#define _POSIX_C_SOURCE 200809L
#include "render/xlsx/internal.h"
#include <stdlib.h>
#include <string.h>

#define BLOCK_MIN 17   /* rows per metric block: the chart's height */
#define CHART_COL 4    /* the charts start in column E */

/* ns per unit shown for values up to max: ms from 1 ms up, else us. */
static double scale_for(double max)
{
    return max >= 1e6 ? 1e6 : 1e3;
}

/* The run where metric m changed (table `changes`), or NULL. */
static const char *since_of(const td_summary *s, const char *m)
{
    const td_table *ch = td_sum_find_table(s, "changes");
    int cm = ch ? td_table_col(ch, "metric") : -1, cs = ch ? td_table_col(ch, "since") : -1;
    for (size_t r = 0; m && cm >= 0 && cs >= 0 && r < ch->nrows; r++) {
        const char *x = td_table_cell(ch, r, cm)->s;
        if (x && !strcmp(x, m))
            return td_table_cell(ch, r, cs)->s;
    }
    return NULL;
}

static void one_chart(xw *x, lxw_worksheet *ws, const char *metric, int r0, size_t n,
                      const char *unit, int marked)
{
    lxw_chart *ch = workbook_add_chart(x->wb, LXW_CHART_LINE);
    if (!ch) {
        xw_note_err(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "trend chart");
        return;
    }
    const char *sn = xw_sheet_name(x);
    lxw_row_t first = (lxw_row_t)(r0 + 2), last = (lxw_row_t)(r0 + 1 + (int)n);
    lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
    chart_series_set_categories(se, sn, first, 0, last, 0);
    chart_series_set_values(se, sn, first, 1, last, 1);
    chart_series_set_name(se, "Value");
    lxw_chart_line ln = {.color = 0x2F5597, .width = 1.5};
    chart_series_set_line(se, &ln);
    chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
    chart_series_set_marker_size(se, 4);
    lxw_chart_fill mf = {.color = 0x2F5597};
    chart_series_set_marker_fill(se, &mf);
    chart_series_set_marker_line(se, &ln);
    if (marked) { /* the run where the series changed: one red point */
        se = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(se, sn, first, 0, last, 0);
        chart_series_set_values(se, sn, first, 2, last, 2);
        chart_series_set_name(se, "Changed here");
        lxw_chart_line none = {.none = 1};
        chart_series_set_line(se, &none);
        chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(se, 8);
        lxw_chart_fill red = {.color = 0xC00000};
        lxw_chart_line redl = {.color = 0xC00000};
        chart_series_set_marker_fill(se, &red);
        chart_series_set_marker_line(se, &redl);
        chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
        chart_legend_delete_series(ch, (int16_t[]){0, -1});
    } else
        chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
    char *title = xw_cell_text(metric);
    chart_title_set_name(ch, title);
    lxw_chart_font tf = {.size = 10, .bold = 1};
    chart_title_set_name_font(ch, &tf);
    chart_axis_set_name(ch->x_axis, "Run");
    char yn[32];
    snprintf(yn, sizeof yn, "%s", unit);
    chart_axis_set_name(ch->y_axis, yn);
    chart_axis_set_num_format(ch->y_axis, "#,##0.0");
    lxw_chart_options co = {.x_scale = 1.25, .y_scale = 1.1};
    xw_note_err(x, worksheet_insert_chart_opt(ws, (lxw_row_t)r0, CHART_COL, ch, &co),
                "trend chart");
    free(title);
}

void xw_trends_sheet(xw *x, const td_section *sec)
{
    const td_summary *s = x->s;
    const td_table *t = td_sum_find_table(s, "trends");
    int cm = t ? td_table_col(t, "metric") : -1, cl = t ? td_table_col(t, "label") : -1,
        cv = t ? td_table_col(t, "value_ns") : -1;
    if (!t || !t->nrows || cm < 0 || cl < 0 || cv < 0)
        return;
    lxw_worksheet *ws = xw_add_sheet(x, sec->title[0] ? sec->title : "Trends", "Trends");
    if (!ws)
        return;
    xw_note_err(x, worksheet_merge_range(ws, 0, 0, 0, 11, "Trends over the last runs", x->title),
                "trends title");
    xw_put_str(x, ws, 1, 0, "One chart per metric (the key metrics and those that changed), "
               "oldest run left; a red point marks the run where the series changed.",
               x->subtitle);
    worksheet_set_column(ws, 0, 0, 18, NULL);
    worksheet_set_column(ws, 1, 2, 13, NULL);
    int row = 3, top = sec->top > 0 ? sec->top : 0, k = 0;
    for (size_t r0 = 0; r0 < t->nrows && (!top || k < top);) {
        const char *m = td_table_cell(t, r0, cm)->s;
        size_t r1 = r0 + 1;
        while (r1 < t->nrows && m && td_table_cell(t, r1, cm)->s &&
               !strcmp(td_table_cell(t, r1, cm)->s, m))
            r1++;
        double max = 0;
        for (size_t r = r0; r < r1; r++) {
            int64_t v = td_table_cell(t, r, cv)->i;
            if (v != TD_NA && (double)v > max)
                max = (double)v;
        }
        double sc = scale_for(max);
        const char *since = since_of(s, m);
        char h[64], label[600];
        xw_metric_label(s, m ? m : "", label, sizeof label);
        xw_put_str(x, ws, row, 0, label, x->head);
        worksheet_write_blank(ws, (lxw_row_t)row, 1, x->head);
        worksheet_write_blank(ws, (lxw_row_t)row, 2, x->head);
        xw_put_str(x, ws, row + 1, 0, "Run", x->head);
        snprintf(h, sizeof h, "Value (%s)", xw_unit_name(sc));
        xw_put_str(x, ws, row + 1, 1, h, x->headr);
        xw_put_str(x, ws, row + 1, 2, "Changed here", x->headr);
        int marked = 0;
        for (size_t r = r0; r < r1; r++) {
            int rr = row + 2 + (int)(r - r0);
            const char *lb = td_table_cell(t, r, cl)->s;
            int64_t v = td_table_cell(t, r, cv)->i;
            xw_put_str(x, ws, rr, 0, lb ? lb : "", NULL);
            if (v == TD_NA)
                continue;
            xw_put_num(x, ws, rr, 1, (double)v / sc, x->ms);
            if (since && lb && !strcmp(lb, since)) {
                xw_put_num(x, ws, rr, 2, (double)v / sc, x->ms);
                marked = 1;
            }
        }
        one_chart(x, ws, label, row, r1 - r0, xw_unit_name(sc), marked);
        int used = (int)(r1 - r0) + 3;
        row += used > BLOCK_MIN ? used : BLOCK_MIN;
        k++;
        r0 = r1;
    }
    x->rows[x->nsheets - 1] = t->nrows;
}
