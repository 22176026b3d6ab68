/* render/xlsx/internal.h - private to the files of render/xlsx: the workbook being
 * written. The files form layers, each calling only those below it:
 *   xlsx.c                        the workbook driver (switch over td_xlsx_kind)
 *   summary.c table.c trend.c     the sheets; they never call each other
 *   cell.c                        cells, unit names, metric labels, sheet names */
#ifndef TD_RENDER_XLSX_INT_H
#define TD_RENDER_XLSX_INT_H
#include "render/render.h"
#include "render/xlsx/xlsx_lib.h"

#define SUMMARY_A_WIDTH 42 /* width of the Summary sheet's label column */
#define SUMMARY_B_WIDTH 64 /* width of the Summary sheet's value column */

typedef struct {
    lxw_workbook *wb;
    const td_summary *s;
    const td_render_opts *o;
    lxw_format *title, *subtitle, *head, *headr, *wrap, *top, *center, *right;
    lxw_format *bad, *good;     /* regression status */
    lxw_format *ms, *pct, *count, *id, *gbps, *f64;
#define XW_MAXDEC 9
    lxw_format *dec[XW_MAXDEC + 1]; /* "#,##0.0000" and longer, made when first used */
    char (*sheets)[128];        /* sheet names used so far */
    size_t nsheets, sheets_cap;
    size_t *rows;               /* data rows per sheet (0 = not a table sheet) */
    lxw_worksheet *sum_ws;      /* the Summary sheet, and its next free row */
    int sum_row;
    lxw_error err;              /* first libxlsxwriter error */
    char errwhere[160];
} xw;

/* ---- cell.c ---- */

/* Remember the first libxlsxwriter error (and where). */
void xw_note_err(xw *x, lxw_error r, const char *where);
/* Text made safe for a cell (valid UTF-8, XML-legal, at most Excel's limit); malloc'd. */
char *xw_cell_text(const char *in);
/* Cells: text (never a formula), text wrapped in a tall enough row (returns the lines
 * it takes), a Summary label in column A beside a value of blines lines, a number
 * (blank when not finite). */
void xw_put_str(xw *x, lxw_worksheet *ws, int r, int c, const char *v, lxw_format *f);
int xw_put_wrapped(xw *x, lxw_worksheet *ws, int r, int c, const char *v);
void xw_put_label(xw *x, lxw_worksheet *ws, int r, const char *label, int blines);
/* Lines a text takes wrapped in a column of about width characters (at most 27). */
int xw_wrapped_lines(const char *v, size_t width);
void xw_put_num(xw *x, lxw_worksheet *ws, int r, int c, double v, lxw_format *f);
/* A number format with that many decimals (4 to XW_MAXDEC; fewer: x->ms's three): a
 * time far under its column's unit keeps three significant digits. */
lxw_format *xw_dec_format(xw *x, int decimals);
/* "ns" for a scale of 1, "us" (as the micro sign) for 1e3 ns, "ms" for 1e6, "s" for 1e9. */
const char *xw_unit_name(double scale);
/* A reader's name for a metric of the changes table ("Op aten::mm: total time"). */
void xw_metric_label(const td_summary *s, const char *m, char *dst, size_t cap);
/* A new sheet with a valid unique name from title; its name. */
lxw_worksheet *xw_add_sheet(xw *x, const char *title, const char *fallback);
const char *xw_sheet_name(const xw *x);
/* ---- the sheets, called by xlsx.c only ---- */

/* One sheet for one summary table (none when t is NULL or empty): the first sec->top
 * rows (0: all), titled sec->title or the table's title (table.c). */
void xw_table_sheet(xw *x, const td_table *t, const td_section *sec);
/* The Trends sheet: blocks of cells and a native line chart per metric
 * (render/xlsx/trend.c). */
void xw_trends_sheet(xw *x, const td_section *sec);
/* The Summary sheet (render/xlsx/summary.c). */
void xw_summary_sheet(xw *x, const td_template *tp, const td_section *sec);

#endif
