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
    char b[256];
    const size_t maxname = 60;
    for (int c = 0; c < t->ncols; c++) {
        w[c] = u8len(t->cols[c].title);
        for (size_t r = 0; r < n; r++) {
            const td_cell *v = td_table_cell(t, r, c);
            size_t l;
            if (t->cols[c].type == TD_T_TEXT)
                l = v->s ? u8len(v->s) : 0;
            else {
                td_cell_format(&t->cols[c], v, b, sizeof b);
                l = strlen(b);
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
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputs("  ", f);
        if (t->cols[c].type == TD_T_TEXT)
            fprintf(f, "%-*s", (int)w[c], t->cols[c].title);
        else
            fprintf(f, "%*s", (int)w[c], t->cols[c].title);
    }
    fputc('\n', f);
    for (size_t r = 0; r < n; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs("  ", f);
            const td_cell *v = td_table_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT) {
                const char *s = v->s ? v->s : "";
                put_clean(f, s, w[c]);
                size_t l = u8len(s);
                for (size_t k = l < w[c] ? l : w[c]; k < w[c]; k++)
                    fputc(' ', f);
            } else {
                td_cell_format(&t->cols[c], v, b, sizeof b);
                fprintf(f, "%*s", (int)w[c], b);
            }
        }
        fputc('\n', f);
    }
}

