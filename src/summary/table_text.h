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

#endif
