/* summary/table_text.h - summary tables as CSV and aligned text, and the cell formatting
 * every renderer shares. Output goes to the caller's FILE or buffer. */
#ifndef TD_TABLE_TEXT_H
#define TD_TABLE_TEXT_H
#include "summary/summary.h"
#include <stdio.h>

/* One table as CSV (libcsv quoting), header = column keys. */
td_status td_table_write_csv(const td_table *t, FILE *f, td_err *e);
/* One table as aligned text (for `tracedoc summary`), at most top rows (0 = all). */
void td_table_write_text(const td_table *t, FILE *f, size_t top);

/* Cell formatting shared by every renderer (so the PDF, workbook and text agree):
 * NS -> "127.212 ms", SHARE -> "41.2%", BYTES -> "1.50 MiB", GBPS -> "12.34 GB/s". */
void td_cell_format(const td_col *c, const td_cell *v, char *dst, size_t cap);

/* Cells as documents (PDF, stdout, Markdown) show them:
 * td_shown_cell: a kernel's short name (column short_name, analyse/names.c) in place of
 *   its name, else the cell itself; td_col_shown_elsewhere: 1 for that short_name column
 *   (documents leave it out, the name column shows it);
 * td_col_scale: a time column's one unit (ns per unit: 1, 1e3, 1e6, 1e9), chosen from
 *   the rows shown (top; 0 = all): the unit in which they read best (0.100 to 999.999
 *   units; "0.0xx" and four digits cost a little, five digits much, six more, a cell
 *   under a hundredth of the unit, which keeps its own unit, more; the first three rows
 *   count twice; a tie keeps the unit of the largest of the first three); 0 for other
 *   columns; td_col_scale_rows: the same over the rows rows[0..n-1] (rows NULL: the
 *   first n), the rows a workbook sheet shows;
 * td_table_scales: every column's td_col_scale_rows into sc[], with the statistics of
 *   one per-call distribution (mean, median, min, max, percentiles, std dev) in one
 *   unit, the first one's (the mean's) (PDF, stdout and workbook tables);
 * td_cell_words: the words a document shows for a category value of a table (the
 *   critical path's "cpu_bound" -> "CPU-bound", an AIU transfer's "collective_send" ->
 *   "collective send"; another key of such a column with its underscores as spaces, in
 *   buf), or NULL for any other cell (summary.json and CSV keep the keys);
 * td_doc_cell: the cell's text in that unit ("\u2014" for a standard deviation of fewer
 *   than two calls or a bandwidth that could not be computed; a plain number of 1000 or
 *   more without decimals, one under 0.0005 but not 0 as "<0.001");
 * td_fmt_ns_in: a time in a given unit ("0.060 ms" when the unit is ms; "0" for 0; a
 *   time under a hundredth of the unit in its own unit, "4.000 µs", "341 ns", never
 *   "0.004 ms"; 1000 units or more without decimals, "4426 µs"). */
const td_cell *td_shown_cell(const td_table *t, size_t r, int ci);
/* The rows documents show (PDF, workbook): NULL when they are all of t's rows, else a
 * copy of t (sharing its strings; free with td_doc_view_free) without the rows that
 * repeat another (an op_perf row whose `inside` names the outer op that has the same
 * device time: issue 38), its note saying which were left out. */
td_table *td_doc_view(const td_table *t);
void td_doc_view_free(td_table *v);
int td_col_shown_elsewhere(const td_table *t, int ci);
double td_col_scale(const td_table *t, int ci, size_t top);
double td_col_scale_rows(const td_table *t, int ci, const size_t *rows, size_t n);
void td_table_scales(const td_table *t, const size_t *rows, size_t n, double *sc);
const char *td_cell_words(const td_table *t, size_t r, int ci, char *buf, size_t cap);
void td_doc_cell(const td_table *t, size_t r, int ci, double scale, char *dst, size_t cap);
void td_fmt_ns_in(char *dst, size_t cap, int64_t ns, double scale);

#endif
