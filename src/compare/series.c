/* compare/series.c - a plain series from a CSV file and its change points. See
 * compare/series.h. */
#define _POSIX_C_SOURCE 200809L
#include "compare/series.h"
#include "compare/stats.h"
#include "io/csv.h"
#include "io/instream.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SERIES_LIMIT ((size_t)1 << 30)

td_status td_series_read(const char *path, td_series *s, td_err *e)
{
    memset(s, 0, sizeof *s);
    td_in *in = td_in_open_file(path, path, e);
    if (!in)
        return e->code ? e->code : TD_E_IO;
    unsigned char *data = NULL;
    size_t n = 0;
    td_status st = td_in_read_all(in, SERIES_LIMIT, &data, &n, e);
    td_in_close(in);
    if (st != TD_OK)
        return st;
    td_csv c;
    td_csv_init(&c, path, (const char *)data, n);
    uint32_t line;
    int r = td_csv_next(&c, &line, e), col = -1;
    if (r < 0)
        st = e->code;
    else if (r == 0)
        st = td_fail(e, TD_E_FORMAT, "%s: empty file: expected a header line and one row per "
                     "point", path);
    else {
        for (int i = 0; i < c.nf; i++)
            if (!strcasecmp(td_csv_field(&c, i), "value"))
                col = i;
        if (col < 0 && c.nf == 1)
            col = 0;
        if (col < 0)
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: no column `value` in the header (and "
                         "more than one column)", path, line);
    }
    size_t cap = 0;
    while (st == TD_OK && (r = td_csv_next(&c, &line, e)) > 0) {
        const char *f = col < c.nf ? td_csv_field(&c, col) : "";
        size_t row = s->rows++;
        if (!*f || !strcasecmp(f, "nan") || !strcasecmp(f, "na"))
            continue;
        char *end;
        errno = 0;
        double v = strtod(f, &end);
        if (*end || errno == ERANGE || isnan(v) || isinf(v)) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: value '%.40s' is not a finite number",
                         path, line, f);
            break;
        }
        if (s->n == cap) {
            cap = cap ? 2 * cap : 256;
            s->v = td_xrealloc(s->v, cap * sizeof *s->v);
            s->row = td_xrealloc(s->row, cap * sizeof *s->row);
        }
        s->v[s->n] = v;
        s->row[s->n++] = row;
    }
    if (st == TD_OK && r < 0)
        st = e->code;
    td_csv_free(&c);
    free(data);
    if (st != TD_OK)
        td_series_free(s);
    return st;
}

void td_series_free(td_series *s)
{
    free(s->v);
    free(s->row);
    memset(s, 0, sizeof *s);
}

size_t td_series_detect(const td_series *s, double max_p, double min_effect, size_t **cp)
{
    *cp = td_xmalloc((s->n + 1) * sizeof **cp);
    size_t k = td_edivisive(s->v, s->n, max_p, min_effect, *cp, NULL, s->n + 1);
    for (size_t i = 0; i < k; i++)
        (*cp)[i] = s->row[(*cp)[i]];
    return k;
}
