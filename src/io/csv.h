/* io/csv.h - CSV records with line numbers, for readers of text tables (read/samba.c).
 *
 * RFC 4180 quoting ("..." with "" for a quote, newlines allowed inside quotes); blank
 * lines and lines starting with '#' are skipped between records; unquoted fields are
 * trimmed of spaces, tabs and CR. Errors (TD_E_FORMAT) name the file and the line:
 * "NAME: line N: quoted field not closed before the end of the file". */
#ifndef TD_CSV_H
#define TD_CSV_H
#include "base/util.h"

#define TD_CSV_MAXF 64 /* fields per record */

typedef struct td_csv {
    const char *p, *end, *name;
    uint32_t line;       /* line of the next character, 1-based */
    td_buf b;            /* the record's fields, NUL-separated (owned; td_csv_free) */
    size_t off[TD_CSV_MAXF];
    int nf;              /* fields in the record */
} td_csv;

/* Read records from data[0..n) (not copied; a UTF-8 BOM is skipped); name is for messages. */
void td_csv_init(td_csv *c, const char *name, const char *data, size_t n);
/* Next record: returns 1 (*line = its first line), 0 at the end, -1 on error (e filled). */
int td_csv_next(td_csv *c, uint32_t *line, td_err *e);
/* Field i (0 <= i < nf) of the current record, NUL-terminated. */
const char *td_csv_field(const td_csv *c, int i);
void td_csv_free(td_csv *c);

#endif
