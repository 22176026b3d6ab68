/* render/xlsx/cell.c - the lowest layer of the workbook (the files of render/xlsx): text
 * made safe for a cell (valid UTF-8, XML-legal, within Excel's limit, never a formula),
 * wrapped text and labels in rows tall enough, numbers, unit names and metric labels,
 * new sheets with valid unique names, and the first libxlsxwriter error. */
#define _POSIX_C_SOURCE 200809L
#include "render/xlsx/internal.h"
#include "compare/metrics.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX 32767          /* Excel's limit on characters in a cell */

void xw_note_err(xw *x, lxw_error r, const char *where)
{
    if (r != LXW_NO_ERROR && x->err == LXW_NO_ERROR) {
        x->err = r;
        snprintf(x->errwhere, sizeof x->errwhere, "%s", where);
    }
}

/* Length in code points of valid UTF-8 (what Excel counts). */
#define u8len td_utf8_len

/* Byte length of one valid UTF-8 sequence at p, or 0 when invalid (overlong forms,
 * surrogates, > U+10FFFF and the XML non-characters U+FFFE/U+FFFF count as invalid). */
static size_t u8seq(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (!n || c > 0xF4)
        return 0;
    uint32_t cp = c & (0x3F >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return n;
}

/* Text safe for a cell (malloc'd): valid UTF-8, XML-legal characters (control
 * characters other than tab and newline become U+FFFD), at most CELL_MAX characters;
 * a longer text is cut and ends with a note saying how long it was; a literal
 * "_xHHHH_" is escaped so that readers do not decode it. */
char *xw_cell_text(const char *in)
{
    static const char rep[] = "\xEF\xBF\xBD";
    td_buf b = {0};
    size_t chars = 0, total = 0;
    const unsigned char *p = (const unsigned char *)in;
    int cut = 0;
    char note[96];
    while (*p) {
        size_t n = u8seq(p);
        const char *put = (const char *)p;
        size_t plen = n;
        if (n == 0 || (n == 1 && ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F))) {
            put = rep;
            plen = 3;
            n = n ? n : 1;
        }
        total++;
        if (!cut && chars < CELL_MAX - 64) {
            /* OOXML reads "_xHHHH_" as an escaped character; keep such text literal by
             * escaping its underscore ("_x005F_") */
            if (*p == '_' && p[1] == 'x' && isxdigit(p[2]) && isxdigit(p[3]) &&
                isxdigit(p[4]) && isxdigit(p[5]) && p[6] == '_')
                put = "_x005F_", plen = 7;
            td_buf_put(&b, put, plen);
            chars++;
        } else
            cut = 1;
        p += n;
    }
    if (cut) {
        snprintf(note, sizeof note, " [truncated by tracedoc: %zu characters in all]", total);
        td_buf_puts(&b, note);
    }
    td_buf_cstr(&b);
    return b.p;
}

void xw_put_str(xw *x, lxw_worksheet *ws, int r, int c, const char *v, lxw_format *f)
{
    if (!v || !*v)
        return;
    char *t = xw_cell_text(v);
    xw_note_err(x, worksheet_write_string(ws, (lxw_row_t)r, (lxw_col_t)c, t, f), "text cell");
    free(t);
}

/* Lines a text takes wrapped in a column of about width characters. */
int xw_wrapped_lines(const char *v, size_t width)
{
    size_t lines = 1, col = 0;
    for (const char *p = v; *p; p++) {
        if (*p == '\n') {
            lines++;
            col = 0;
        } else if (((unsigned char)*p & 0xC0) != 0x80 && ++col > width) {
            lines++;
            col = 1;
        }
    }
    return lines > 27 ? 27 : (int)lines;
}

/* Long text wrapped in column B of the Summary sheet: the row is made tall enough,
 * as readers do not all grow rows for wrapped text by themselves (Excel's limit is
 * 409 points). Returns the lines it takes (0: nothing written). */
int xw_put_wrapped(xw *x, lxw_worksheet *ws, int r, int c, const char *v)
{
    if (!v || !*v)
        return 0;
    int lines = xw_wrapped_lines(v, SUMMARY_B_WIDTH - 4);
    xw_put_str(x, ws, r, c, v, lines > 1 ? x->wrap : NULL);
    if (lines > 1)
        worksheet_set_row(ws, (lxw_row_t)r, lines >= 27 ? 409.0 : 15.0 * lines, NULL);
    return lines;
}

/* The label in column A beside a value that took blines lines: on the value's first
 * line, and wrapped (the row made taller if need be) when wider than the column. */
void xw_put_label(xw *x, lxw_worksheet *ws, int r, const char *label, int blines)
{
    int lines = label ? xw_wrapped_lines(label, SUMMARY_A_WIDTH + 2) : 1;
    xw_put_str(x, ws, r, 0, label, lines > 1 ? x->wrap : blines > 1 ? x->top : NULL);
    if (lines > 1 && lines > blines)
        worksheet_set_row(ws, (lxw_row_t)r, 15.0 * lines, NULL);
}

void xw_put_num(xw *x, lxw_worksheet *ws, int r, int c, double v, lxw_format *f)
{
    /* NaN and infinities have no representation in the file: leave the cell blank */
    if (!isfinite(v))
        return;
    xw_note_err(x, worksheet_write_number(ws, (lxw_row_t)r, (lxw_col_t)c, v, f), "number cell");
}

lxw_format *xw_dec_format(xw *x, int decimals)
{
    if (decimals < 4)
        return x->ms;
    if (decimals > XW_MAXDEC)
        decimals = XW_MAXDEC;
    if (!x->dec[decimals]) {
        char f[32] = "#,##0.";
        for (int i = 0; i < decimals; i++)
            strcat(f, "0");
        x->dec[decimals] = workbook_add_format(x->wb);
        if (x->dec[decimals])
            format_set_num_format(x->dec[decimals], f);
    }
    return x->dec[decimals] ? x->dec[decimals] : x->ms;
}

/* ---- units and labels ---- */

const char *xw_unit_name(double scale)
{
    return td_unit_name(scale == 1 || scale == 1e3 || scale == 1e9 ? scale : 1e6);
}


/* A reader's name for a metric: the one helper, compare/metrics.c's, with a kernel's full
 * name (issue 21: short names in the PDF, stdout and findings, the full name in the
 * workbook). Without a summary the helper finds no short name; kernel keys need nothing
 * else of it (the device word is for the gpu.* keys). */
void xw_metric_label(const td_summary *s, const char *m, char *dst, size_t cap)
{
    td_metric_label(strncmp(m, "kernel.", 7) ? s : NULL, m, dst, cap);
}

/* ---- sheet names ---- */

static int same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char ca = *a >= 'A' && *a <= 'Z' ? *a + 32 : *a;
        char cb = *b >= 'A' && *b <= 'Z' ? *b + 32 : *b;
        if (ca != cb)
            return 0;
    }
    return *a == *b;
}

static int name_used(const xw *x, const char *n)
{
    if (same_name(n, "History")) /* reserved by Excel */
        return 1;
    for (size_t i = 0; i < x->nsheets; i++)
        if (same_name(x->sheets[i], n))
            return 1;
    return 0;
}

/* Copy at most max code points of valid UTF-8 src to dst (cap bytes). */
static void u8copy(char *dst, size_t cap, const char *src, size_t max)
{
    size_t n = 0, k = 0;
    while (src[k] && n < max) {
        size_t l = 1;
        while ((src[k + l] & 0xC0) == 0x80)
            l++;
        if (k + l >= cap)
            break;
        k += l;
        n++;
    }
    memcpy(dst, src, k);
    dst[k] = 0;
}

/* A valid, unique sheet name from a title: Excel's forbidden characters []:*?/\ become
 * '_', a leading or trailing apostrophe goes, at most 31 characters, " (2)" etc. when
 * the name is taken (Excel compares case-insensitively). */
lxw_worksheet *xw_add_sheet(xw *x, const char *title, const char *fallback)
{
    char *t = xw_cell_text(title && *title ? title : fallback);
    for (char *p = t; *p; p++)
        if (strchr("[]:*?/\\\t\n", *p))
            *p = '_';
    /* U+FFFD from control characters is fine; apostrophes may not start or end */
    char *b = t;
    while (*b == '\'')
        b++;
    size_t n = strlen(b);
    while (n && b[n - 1] == '\'')
        b[--n] = 0;
    char base[128], name[128];
    u8copy(base, sizeof base, *b ? b : "Sheet", LXW_SHEETNAME_MAX);
    free(t);
    snprintf(name, sizeof name, "%s", base);
    for (int k = 2; name_used(x, name) || workbook_validate_sheet_name(x->wb, name); k++) {
        char suf[16];
        snprintf(suf, sizeof suf, " (%d)", k);
        u8copy(name, sizeof name, base, LXW_SHEETNAME_MAX - strlen(suf));
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, "%s", suf);
        if (k > 100000)
            return NULL;
    }
    size_t cap = x->sheets_cap;
    snprintf(*TD_PUSH(x->sheets, x->nsheets, x->sheets_cap), 128, "%s", name);
    if (x->sheets_cap != cap)
        x->rows = td_xrealloc(x->rows, x->sheets_cap * sizeof *x->rows);
    x->rows[x->nsheets - 1] = 0;
    lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
    if (!ws) {
        xw_note_err(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "add sheet");
        return NULL;
    }
    /* printed: landscape, one page wide, header row repeated on every page */
    worksheet_set_landscape(ws);
    worksheet_set_paper(ws, x->o->paper && strcmp(x->o->paper, "letter") == 0 ? 1 : 9);
    worksheet_fit_to_pages(ws, 1, 0);
    return ws;
}

const char *xw_sheet_name(const xw *x)
{
    return x->sheets[x->nsheets - 1];
}
