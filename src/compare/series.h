/* compare/series.h - a plain series of numbers from a CSV file, for the detector the
 * history uses (`tracedoc history --detect SERIES.csv`, bench/cpd/run.sh).
 *
 * The file: a header line naming the columns, then one row per point. The values are
 * the column `value` (TCPD's `index,value,time`), else the only column; a row's index is
 * its position among the rows (0-based). Empty cells and `nan` are missing: they are left
 * out of the series, and a change point is reported at the row of its first point. */
#ifndef TD_COMPARE_SERIES_H
#define TD_COMPARE_SERIES_H
#include "base/util.h"

typedef struct td_series {
    double *v;     /* n values, the missing ones left out */
    size_t *row;   /* per value: its row index (0-based, header not counted) */
    size_t n;
    size_t rows;   /* data rows in the file */
} td_series;

/* Read path. Errors (TD_E_IO, TD_E_FORMAT) name the file and, for a bad cell, its line. */
td_status td_series_read(const char *path, td_series *s, td_err *e);
void td_series_free(td_series *s);

/* The change points of s as the history's detector finds them over the whole series
 * (td_edivisive with max_p and min_effect): the row indices of the first point of each
 * new segment, increasing, into *cp (malloc'd); returns how many. */
size_t td_series_detect(const td_series *s, double max_p, double min_effect, size_t **cp);

#endif
