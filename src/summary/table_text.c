/* summary/table_text.c - tables as CSV and as aligned text: see summary/table_text.h. */
#include "summary/table_text.h"
#include "base/util.h"
#include <csv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CSV ---- */
static void csv_field(FILE *f, const char *s)
{
    /* libcsv's csv_fwrite always quotes; that keeps every field unambiguous. A field
     * starting with = + - @ is prefixed by a quote mark? No: CSV is for scripts, so the
     * value stays exact; spreadsheets get the xlsx. */
    csv_fwrite(f, s, strlen(s));
}

static void raw_cell(const td_col *c, const td_cell *v, char *b, size_t cap)
{
    switch (c->type) {
    case TD_T_TEXT:
        snprintf(b, cap, "%s", v->s ? v->s : "");
        break;
    case TD_T_SHARE:
    case TD_T_F64:
    case TD_T_GBPS:
        if (!isfinite(v->f))
            b[0] = 0;
        else {
            snprintf(b, cap, "%.6f", v->f);
            char *dot = strchr(b, '.');
            char *e2 = b + strlen(b) - 1;
            while (dot && e2 > dot + 1 && *e2 == '0')
                *e2-- = 0;
        }
        break;
    case TD_T_DEVICE:
        if (v->i == TD_NA)
            b[0] = 0;
        else if (v->i < 0)
            snprintf(b, cap, "all");
        else
            snprintf(b, cap, "%lld", (long long)v->i);
        break;
    default:
        if (v->i == TD_NA)
            b[0] = 0;
        else
            snprintf(b, cap, "%lld", (long long)v->i);
    }
}

td_status td_table_write_csv(const td_table *t, FILE *f, td_err *e)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->cols[c].key);
    }
    fputc('\n', f);
    char b[256];
    for (size_t r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            const td_cell *v = td_table_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT)
                csv_field(f, v->s ? v->s : "");
            else {
                raw_cell(&t->cols[c], v, b, sizeof b);
                fputs(b, f);
            }
        }
        fputc('\n', f);
    }
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

void td_cell_format(const td_col *c, const td_cell *v, char *dst, size_t cap)
{
    switch (c->type) {
    case TD_T_NS:
        if (v->i == TD_NA)
            dst[0] = 0;
        else
            td_fmt_ns(dst, cap, v->i);
        break;
    case TD_T_SHARE:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.1f%%", v->f * 100.0);
        break;
    case TD_T_BYTES:
        if (v->i == TD_NA)
            dst[0] = 0;
        else
            td_fmt_bytes(dst, cap, v->i);
        break;
    case TD_T_GBPS:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.2f GB/s", v->f);
        break;
    case TD_T_F64:
        if (!isfinite(v->f))
            dst[0] = 0;
        else
            snprintf(dst, cap, "%.3f", v->f);
        break;
    case TD_T_BOOL:
        snprintf(dst, cap, "%s", v->i == TD_NA ? "" : v->i ? "yes" : "no");
        break;
    default:
        raw_cell(c, v, dst, cap);
    }
}

/* ---- cells as documents show them ---- */

int td_col_shown_elsewhere(const td_table *t, int ci)
{
    return !strcmp(t->cols[ci].key, "short_name") && td_table_col(t, "name") >= 0;
}

const td_cell *td_shown_cell(const td_table *t, size_t r, int ci)
{
    if (!strcmp(t->cols[ci].key, "name")) {
        int cs = td_table_col(t, "short_name");
        if (cs >= 0 && t->cols[cs].type == TD_T_TEXT) {
            const td_cell *c = td_table_cell(t, r, cs);
            if (c->s && c->s[0])
                return c;
        }
    }
    return td_table_cell(t, r, ci);
}

typedef struct {
    td_table t;      /* first: the view is freed as one block with its note */
    char note[1536];
} doc_view;

td_table *td_doc_view(const td_table *t)
{
    int ci = td_table_col(t, "inside");
    if (ci < 0 || t->cols[ci].type != TD_T_TEXT)
        return NULL;
    size_t drop = 0, first = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *in = td_table_cell(t, r, ci)->s;
        if (in && in[0] && !drop++)
            first = r;
    }
    if (!drop)
        return NULL;
    doc_view *v = td_xcalloc(1, sizeof *v);
    v->t = *t;
    v->t.cells = td_xmalloc((t->nrows - drop + 1) * (size_t)t->ncols * sizeof *v->t.cells);
    v->t.nrows = v->t.cap = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *in = td_table_cell(t, r, ci)->s;
        if (in && in[0])
            continue;
        memcpy(v->t.cells + v->t.nrows * (size_t)t->ncols, t->cells + r * (size_t)t->ncols,
               (size_t)t->ncols * sizeof *t->cells);
        v->t.nrows++;
    }
    v->t.cap = v->t.nrows;
    const char *nm = td_row_get_str(t, first, "name");
    int o = snprintf(v->note, sizeof v->note, "%s%s", t->note ? t->note : "", t->note ? " " : "");
    if (o < 0 || (size_t)o >= sizeof v->note)
        o = 0;
    char more[48] = "";
    if (drop > 1)
        snprintf(more, sizeof more, " and %zu more", drop - 1);
    snprintf(v->note + o, sizeof v->note - (size_t)o,
             "Shown once: %s%s runs inside %s with the same device time; the outer op is "
             "shown (summary.json and the CSV keep both).",
             nm ? nm : "an op", more, td_table_cell(t, first, ci)->s);
    v->t.note = v->note;
    return &v->t;
}

void td_doc_view_free(td_table *v)
{
    if (!v)
        return;
    free(v->cells);
    free(v); /* the doc_view holding it */
}

static int64_t abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* ns per unit for a magnitude: 1 ns, 1e3 us, 1e6 ms, 1e9 s */
static double unit_of(int64_t a)
{
    return a >= 1000000000 ? 1e9 : a >= 1000000 ? 1e6 : a >= 1000 ? 1e3 : 1;
}

/* the i-th shown row: rows[i], or i when the rows shown are the first n */
#define ROW(rows, i) ((rows) ? (rows)[i] : (i))

/* What the shown cells of a time column cost a reader in unit u (ns per unit), cell by
 * cell: 0 for 0.100 to 999.999 units; 1 for "0.0xx" or four digits ("4426 µs"); 2 for
 * a cell under a hundredth of a unit, which td_fmt_ns_in writes in its own unit (a
 * second unit in the column: "4.000 µs" among ms, never "0.004 ms"); 4 for five digits
 * ("12664 µs"), 8 for six or more ("127212 µs": a step function's mean above five
 * modules of 2 µs reads 127.212 ms, they 2.271 µs); twice that in the first three rows. */
static size_t unit_cost(const td_table *t, int ci, const size_t *rows, size_t n, double u)
{
    size_t cost = 0;
    for (size_t r = 0; r < n; r++) {
        int64_t x = td_table_cell(t, ROW(rows, r), ci)->i;
        if (x == TD_NA || x == 0)
            continue;
        double a = (double)abs64(x);
        size_t c = u > 1 && a < u / 100 ? 2 : u > 1 && a < u / 10 ? 1
                 : a >= u * 100000 ? 8 : a >= u * 10000 ? 4 : a >= u * 1000 ? 1 : 0;
        cost += r < 3 ? 2 * c : c; /* the top rows, which a reader looks at, count twice */
    }
    return cost;
}

static const double UNITS[] = {1e9, 1e6, 1e3, 1};
#define NUNITS (sizeof UNITS / sizeof UNITS[0])

/* the unit of the largest of the first three non-zero values (0 when there is none):
 * the rows a reader looks at read 1 to 999 units, not 37935.000 us */
static double top_unit(const td_table *t, int ci, const size_t *rows, size_t n)
{
    int64_t mx = 0;
    size_t k = 0;
    for (size_t r = 0; r < n && k < 3; r++) {
        int64_t x = td_table_cell(t, ROW(rows, r), ci)->i;
        if (x != TD_NA && x != 0) {
            k++;
            if (abs64(x) > mx)
                mx = abs64(x);
        }
    }
    return k ? unit_of(mx) : 0;
}

double td_col_scale_rows(const td_table *t, int ci, const size_t *rows, size_t n)
{
    if (t->cols[ci].type != TD_T_NS)
        return 0;
    double u = top_unit(t, ci, rows, n);
    if (u == 0)
        return 1e3;
    /* ... unless another unit reads better over the shown rows (unit_cost): an op
     * table's average column under a ProfilerStep row of 4.426 ms read 0.003-0.032 ms in
     * every other row; a kernel mean column read 0.004 ms in its fourth row (issue 21).
     * Ties keep the top rows' unit, then the larger unit. */
    double best = u;
    size_t bc = unit_cost(t, ci, rows, n, u);
    for (size_t i = 0; i < NUNITS; i++) {
        size_t c = unit_cost(t, ci, rows, n, UNITS[i]);
        if (c < bc) {
            bc = c;
            best = UNITS[i];
        }
    }
    return best;
}

double td_col_scale(const td_table *t, int ci, size_t top)
{
    size_t n = top && top < t->nrows ? top : t->nrows;
    return td_col_scale_rows(t, ci, NULL, n);
}

/* A time column that is one statistic of a per-call distribution: the mean, median,
 * minimum, maximum, a percentile or the standard deviation of the same durations. */
static int per_call_stat(const td_col *c)
{
    static const char *const keys[] = {"mean_ns", "median_ns", "min_ns", "max_ns", "std_ns",
                                       "avg_ns", "p50_ns", "p90_ns", "p95_ns", "p99_ns",
                                       "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                                       "StdDev (ns)", NULL};
    if (c->type != TD_T_NS)
        return 0;
    for (int i = 0; keys[i]; i++)
        if (!strcmp(c->key, keys[i]))
            return 1;
    return 0;
}

void td_table_scales(const td_table *t, const size_t *rows, size_t n, double *sc)
{
    for (int ci = 0; ci < t->ncols; ci++)
        sc[ci] = td_col_scale_rows(t, ci, rows, n);
    /* issue 38: the statistics of one distribution side by side read in one unit (a
     * kernel's Mean "7.766 ms" beside its Median "7760 µs" made a reader compare 7.766
     * with 7760): the unit of the first of them (the mean, where there is one), which a
     * reader reads first; a cell far under it keeps its own unit (td_fmt_ns_in) */
    int first = -1;
    for (int ci = 0; ci < t->ncols && first < 0; ci++)
        if (per_call_stat(&t->cols[ci]) && top_unit(t, ci, rows, n) > 0)
            first = ci;
    if (first >= 0) {
        double best = sc[first];
        for (int ci = 0; ci < t->ncols; ci++)
            if (per_call_stat(&t->cols[ci]))
                sc[ci] = best;
    }
    /* a comparison's Before and After are one quantity: the After column reads in the
     * Before column's unit (a step time "742.943 ms" beside "2.068 s" hid a 2.8x) */
    int bi = -1, ai = -1;
    for (int ci = 0; ci < t->ncols; ci++) {
        if (t->cols[ci].type != TD_T_NS)
            continue;
        if (!strcmp(t->cols[ci].key, "before"))
            bi = ci;
        else if (!strcmp(t->cols[ci].key, "after"))
            ai = ci;
    }
    if (bi >= 0 && ai >= 0)
        sc[ai] = sc[bi];
}

/* Columns whose values are keys of a fixed set, and the words documents give them: the
 * PDF's words (render/pdf/critpath.c's legend, page 1's idle line), so a workbook cell
 * reads as the PDF does. */
static const struct {
    const char *col, *key, *words;
} WORDS[] = {
    {"bound_by", "cpu_bound", "CPU-bound"},
    {"bound_by", "gpu_compute_bound", "GPU-compute bound"},
    {"bound_by", "gpu_communication_bound", "communication bound"},
    {"bound_by", "gpu_kernel_launch_overhead", "kernel launch delay"},
    {"bound_by", "gpu_kernel_kernel_overhead", "gaps between kernels"},
    {"category", "host_wait", "waiting for the CPU to launch work"},
    {"category", "kernel_wait", "short gaps between back-to-back kernels"},
    {"category", "other", "other"},
    {"kind", "collective_send", "collective send"},
    {"kind", "collective_recv", "collective receive"},
    {"kind", "collective_protocol", "collective protocol"},
    {"kind", "data_in", "data in"},
    {"kind", "data_out", "data out"},
};

const char *td_cell_words(const td_table *t, size_t r, int ci, char *buf, size_t cap)
{
    const td_col *c = &t->cols[ci];
    if (c->type != TD_T_TEXT)
        return NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        known |= !strcmp(c->key, WORDS[i].col);
    const char *v = td_table_cell(t, r, ci)->s;
    if (!known || !v || !v[0] || !cap)
        return NULL;
    for (size_t i = 0; i < sizeof WORDS / sizeof WORDS[0]; i++)
        if (!strcmp(c->key, WORDS[i].col) && !strcmp(v, WORDS[i].key))
            return WORDS[i].words;
    /* a class of the critical path this table does not know yet: a key of small
     * letters, digits and underscores reads with spaces (the other columns hold names) */
    size_t n = 0;
    if (strcmp(c->key, "bound_by"))
        return NULL;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return NULL;
    if (!strchr(v, '_'))
        return NULL;
    for (const char *p = v; *p && n + 1 < cap; p++)
        buf[n++] = *p == '_' ? ' ' : *p;
    buf[n] = 0;
    return buf;
}

void td_fmt_ns_in(char *dst, size_t cap, int64_t ns, double scale)
{
    if (ns == 0) /* nothing: no unit to read ("0.000 us" beside a CPU op) */
        snprintf(dst, cap, "0");
    else if (scale <= 1)
        snprintf(dst, cap, "%lld ns", (long long)ns);
    else if ((double)abs64(ns) < scale / 100) /* would read 0.00x: its own unit */
        td_fmt_ns(dst, cap, ns);
    else if ((double)abs64(ns) >= scale * 1000) /* four digits are precise enough */
        snprintf(dst, cap, "%.0f %s", (double)ns / scale, td_unit_name(scale));
    else
        snprintf(dst, cap, "%.3f %s", (double)ns / scale, td_unit_name(scale));
}

/* A standard deviation of fewer than two values, a bandwidth or ratio that could not be
 * computed: undefined, shown as a dash (an empty cell means "not recorded"). */
static int undefined(const td_table *t, size_t r, int ci)
{
    const td_col *c = &t->cols[ci];
    const td_cell *v = td_table_cell(t, r, ci);
    if (c->type == TD_T_GBPS)
        return !isfinite(v->f);
    if (c->type == TD_T_NS && (!strcmp(c->key, "std_ns") || !strcmp(c->key, "StdDev (ns)"))) {
        int64_t calls = td_row_get_int(t, r, "calls");
        return v->i == TD_NA || (calls != TD_NA && calls < 2);
    }
    return 0;
}

void td_doc_cell(const td_table *t, size_t r, int ci, double scale, char *dst, size_t cap)
{
    const td_col *c = &t->cols[ci];
    const td_cell *v = td_shown_cell(t, r, ci);
    if (undefined(t, r, ci)) {
        snprintf(dst, cap, "\xe2\x80\x94");
        return;
    }
    const char *w = td_cell_words(t, r, ci, dst, cap);
    if (w) {
        if (w != dst)
            snprintf(dst, cap, "%s", w);
        return;
    }
    if (c->type == TD_T_NS && scale > 0) {
        if (v->i == TD_NA)
            dst[0] = 0;
        else
            td_fmt_ns_in(dst, cap, v->i, scale);
        return;
    }
    /* a plain number of 1000 or more needs no decimals ("214076", "2610" thunks per
     * execution); one that is not 0 but would read 0.000 says so ("<0.001" TFLOP/s) */
    if (c->type == TD_T_F64 && isfinite(v->f) && fabs(v->f) >= 1000) {
        snprintf(dst, cap, "%.0f", v->f);
        return;
    }
    if (c->type == TD_T_F64 && isfinite(v->f) && v->f != 0 && fabs(v->f) < 0.0005) {
        snprintf(dst, cap, "%s0.001", v->f < 0 ? ">-" : "<");
        return;
    }
    td_cell_format(c, v, dst, cap);
}

/* Text table: display width counts UTF-8 code points; names are cut in the middle. */
#define u8len td_utf8_len

static void put_clean(FILE *f, const char *s, size_t maxw)
{
    /* control characters (newlines in hostile names) are shown as spaces */
    size_t w = u8len(s);
    if (w <= maxw) {
        for (; *s; s++)
            fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
        return;
    }
    size_t head = (maxw - 3) / 2, tail = maxw - 3 - head, k = 0;
    const char *p = s;
    for (; *p && k < head; p++) {
        fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
        if (((unsigned char)p[1] & 0xC0) != 0x80)
            k++;
    }
    fputs("...", f);
    size_t skip = w - tail;
    k = 0;
    for (p = s; *p; p++) {
        if (((unsigned char)*p & 0xC0) != 0x80)
            k++;
        if (k > skip)
            fputc((unsigned char)*p < 0x20 ? ' ' : *p, f);
    }
}

void td_table_write_text(const td_table *t, FILE *f, size_t top)
{
    size_t n = top && top < t->nrows ? top : t->nrows;
    size_t w[TD_MAXCOLS];
    double sc[TD_MAXCOLS];
    char b[256];
    const size_t maxname = 60;
    td_table_scales(t, NULL, n, sc);
    for (int c = 0; c < t->ncols; c++) {
        w[c] = u8len(t->cols[c].title);
        for (size_t r = 0; r < n; r++) {
            const td_cell *v = td_shown_cell(t, r, c);
            size_t l;
            if (t->cols[c].type == TD_T_TEXT)
                l = v->s ? u8len(v->s) : 0;
            else {
                td_doc_cell(t, r, c, sc[c], b, sizeof b);
                l = u8len(b);
            }
            if (l > w[c])
                w[c] = l;
        }
        if (t->cols[c].type == TD_T_TEXT && w[c] > maxname)
            w[c] = maxname;
    }
    fprintf(f, "%s", t->title);
    if (top && t->nrows > n)
        fprintf(f, " (top %zu of %zu)", n, t->nrows);
    fputc('\n', f);
    int first = 1;
    for (int c = 0; c < t->ncols; c++) {
        if (td_col_shown_elsewhere(t, c))
            continue;
        if (!first)
            fputs("  ", f);
        first = 0;
        if (t->cols[c].type == TD_T_TEXT)
            fprintf(f, "%-*s", (int)w[c], t->cols[c].title);
        else
            fprintf(f, "%*s", (int)(w[c] + strlen(t->cols[c].title) - u8len(t->cols[c].title)),
                    t->cols[c].title);
    }
    fputc('\n', f);
    for (size_t r = 0; r < n; r++) {
        first = 1;
        for (int c = 0; c < t->ncols; c++) {
            if (td_col_shown_elsewhere(t, c))
                continue;
            if (!first)
                fputs("  ", f);
            first = 0;
            const td_cell *v = td_shown_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT) {
                const char *s = v->s ? v->s : "";
                put_clean(f, s, w[c]);
                size_t l = u8len(s);
                for (size_t k = l < w[c] ? l : w[c]; k < w[c]; k++)
                    fputc(' ', f);
            } else {
                td_doc_cell(t, r, c, sc[c], b, sizeof b);
                /* printf pads bytes: the micro sign and the dash take more than one */
                fprintf(f, "%*s", (int)(w[c] + strlen(b) - u8len(b)), b);
            }
        }
        fputc('\n', f);
    }
}
