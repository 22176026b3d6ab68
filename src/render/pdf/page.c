/* render/pdf/page.c - the lowest layer of the PDF: colours, plain text (cleaning,
 * layout, wrapping names), the page cursor (pages, their header and footer, breaks,
 * headings, notes). Every other render/pdf file draws through these; they call nothing
 * above them. See render/pdf/internal.h. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include "base/text.h"
#include <stdlib.h>
#include <string.h>

/* ---- text helpers ---- */

void pd_rgb(pdoc *d, uint32_t c)
{
    cairo_set_source_rgb(d->cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
                         (c & 255) / 255.0);
}

/* Plain text only: invalid UTF-8 is repaired and control characters (newlines and tabs
 * in hostile names) become spaces, so one name is always one line. */
char *pd_clean_text(const char *s)
{
    char *v = g_utf8_make_valid(s ? s : "", -1);
    for (unsigned char *p = (unsigned char *)v; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            *p = ' ';
        /* bidi embedding/override/isolate controls (U+202A-202E, U+2066-2069) could
         * make a name display as something else: shown as U+FFFD, same length */
        else if (p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
                                  (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9))) {
            p[0] = 0xef;
            p[1] = 0xbf;
            p[2] = 0xbd;
            p += 2;
        }
    }
    return v;
}

PangoLayout *pd_layout(pdoc *d, const char *text, int font, double size, double width,
                       PangoAlignment al, PangoEllipsizeMode ell)
{
    PangoLayout *l = pango_layout_new(d->pc);
    pango_font_description_set_size(d->font[font], (gint)(size * PANGO_SCALE + 0.5));
    pango_layout_set_font_description(l, d->font[font]);
    char *v = pd_clean_text(text);
    pango_layout_set_text(l, v, -1);
    g_free(v);
    if (width > 0) {
        pango_layout_set_width(l, (int)(width * PANGO_SCALE));
        pango_layout_set_alignment(l, al);
        if (ell != PANGO_ELLIPSIZE_NONE)
            pango_layout_set_ellipsize(l, ell);
        else {
            pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
            /* a name broken inside a word gets no hyphen: copied from the PDF it reads
             * as it is in the trace (pango would add "-" that is not part of it) */
            PangoAttrList *al2 = pango_attr_list_new();
            pango_attr_list_insert(al2, pango_attr_insert_hyphens_new(FALSE));
            pango_layout_set_attributes(l, al2);
            pango_attr_list_unref(al2);
        }
    }
    return l;
}

double pd_text(pdoc *d, double x, double y, const char *text, int font, double size,
               double width, PangoAlignment al, PangoEllipsizeMode ell, uint32_t color)
{
    PangoLayout *l = pd_layout(d, text, font, size, width, al, ell);
    int w, h;
    pango_layout_get_size(l, &w, &h);
    pd_rgb(d, color);
    cairo_move_to(d->cr, x, y);
    pango_cairo_show_layout(d->cr, l);
    g_object_unref(l);
    return (double)h / PANGO_SCALE;
}

double pd_text_w(pdoc *d, const char *text, int font, double size)
{
    PangoLayout *l = pd_layout(d, text, font, size, 0, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE);
    int w, h;
    pango_layout_get_size(l, &w, &h);
    g_object_unref(l);
    return (double)w / PANGO_SCALE;
}

double pd_text_h(pdoc *d, const char *text, int font, double size, double width)
{
    PangoLayout *l = pd_layout(d, text, font, size, width, PANGO_ALIGN_LEFT,
                               PANGO_ELLIPSIZE_NONE);
    int w, h;
    pango_layout_get_size(l, &w, &h);
    g_object_unref(l);
    return (double)h / PANGO_SCALE;
}

/* Names wrap where a reader splits them: a break before p is allowed after a space,
 * ',', '/', '.', '_', ';', '|', '=', '#' or ':' (after the second of "::"), and before
 * '(', '<', '[' or '-' (a line ending in '-' would read as a hyphenated word, and
 * pdftotext would join it without the '-'); never inside a number ("57.576"). */
static int wrap_ok(const char *t, size_t p)
{
    char a = t[p - 1], b = t[p];
    if (a == '.' && b >= '0' && b <= '9')
        return 0; /* "57.576 ms" */
    if (a == ' ' || a == ',' || a == '/' || a == '.' || a == '_' || a == ';' || a == '|' ||
        a == '=' || a == '#')
        return b != ' ';
    if (a == ':')
        return b != ':' && b != ' ';
    return (b == '(' || b == '<' || b == '[' || b == '-') && a != ' ' && a != b;
}

/* width of t[s..e) without its trailing spaces */
static double span_w(pdoc *d, const char *t, size_t s, size_t e, int font, double size)
{
    while (e > s && t[e - 1] == ' ')
        e--;
    char *v = td_xmalloc(e - s + 1);
    memcpy(v, t + s, e - s);
    v[e - s] = 0;
    double w = pd_text_w(d, v, font, size);
    free(v);
    return w;
}

char *pd_wrap(pdoc *d, const char *text, int font, double size, double width, int maxlines,
              int *nlines, size_t *off, size_t *len)
{
    char *g = pd_clean_text(text);
    char *t = td_xstrdup(g);
    g_free(g);
    size_t n = strlen(t), s = 0;
    int k = 0;
    while (s < n && t[s] == ' ')
        s++;
    while (s < n) {
        if (k == maxlines) { /* more than maxlines: the last one takes the rest */
            len[k - 1] = n - off[k - 1];
            k++;
            break;
        }
        size_t e = n;
        if (width > 0 && span_w(d, t, s, n, font, size) > width) {
            /* the last break opportunity whose line fits; widths grow with the line */
            size_t best = 0, first = 0, space = 0;
            double space_w = 0;
            for (size_t p = s + 1; p < n; p++) {
                if (!wrap_ok(t, p))
                    continue;
                if (!first)
                    first = p;
                double pw = span_w(d, t, s, p, font, size);
                if (pw > width)
                    break;
                best = p;
                if (t[p - 1] == ' ') {
                    space = p;
                    space_w = pw;
                }
            }
            /* between words rather than inside a "::" path when that fills most of it */
            if (space && space_w >= 0.7 * width)
                e = space;
            else if (best)
                e = best;
            else { /* one token wider than the line: as many characters as fit, ending
                      before a capital that follows a small letter when one is on the
                      line ("XlaMemory" / "Scheduler", not "XlaMemoryS" / "cheduler") */
                size_t lim = first ? first : n, lo = s, p = s, camel = 0;
                uint32_t cp;
                while (p < lim) {
                    p += td_utf8_next((const unsigned char *)t + p, &cp); /* t is valid UTF-8 */
                    if (p > lim || span_w(d, t, s, p, font, size) > width)
                        break;
                    lo = p;
                    if (p < lim && t[p - 1] >= 'a' && t[p - 1] <= 'z' && t[p] >= 'A' && t[p] <= 'Z')
                        camel = p;
                }
                e = camel > s ? camel : lo > s ? lo : s + td_utf8_next((const unsigned char *)t + s, &cp);
            }
        }
        off[k] = s;
        len[k] = e - s;
        while (len[k] > 0 && t[s + len[k] - 1] == ' ')
            len[k]--;
        k++;
        s = e;
        while (s < n && t[s] == ' ')
            s++;
    }
    if (!k) {
        off[0] = len[0] = 0;
        k = 1;
    }
    *nlines = k;
    return t;
}

void pd_lines(pdoc *d, double x, double y, const char *t, const size_t *off,
              const size_t *len, int n, int font, double size, double lh, double width,
              uint32_t color)
{
    char *v = td_xmalloc(strlen(t) + 1);
    for (int i = 0; i < n; i++) {
        memcpy(v, t + off[i], len[i]);
        v[len[i]] = 0;
        pd_text(d, x, y + i * lh, v, font, size, width, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, color);
    }
    free(v);
}

/* ---- pages ---- */

static void page_decor(pdoc *d)
{
    cairo_t *cr = d->cr;
    double fs = 7;
    double yh = 26;
    double wdate = pd_text_w(d, d->date, PF_SANS, fs);
    pd_text(d, d->x0, yh, d->title, PF_SANS, fs, d->x1 - d->x0 - wdate - 24, PANGO_ALIGN_LEFT,
            PANGO_ELLIPSIZE_END, C_MUTED);
    pd_text(d, d->x1 - wdate, yh, d->date, PF_SANS, fs, 0, PANGO_ALIGN_LEFT,
            PANGO_ELLIPSIZE_NONE, C_MUTED);
    pd_rgb(d, C_RULE);
    cairo_set_line_width(cr, 0.5);
    cairo_move_to(cr, d->x0, yh + 13);
    cairo_line_to(cr, d->x1, yh + 13);
    cairo_stroke(cr);

    double yf = d->ph - 32;
    cairo_move_to(cr, d->x0, yf - 6);
    cairo_line_to(cr, d->x1, yf - 6);
    cairo_stroke(cr);
    char buf[96];
    snprintf(buf, sizeof buf, "tracedoc %s", d->version);
    pd_text(d, d->x0, yf, buf, PF_SANS, fs, 0, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_LIGHT);
}

/* "page N of M", drawn on the PDF page itself once M is known */
void pd_page_number(pdoc *d)
{
    double fs = 7, yf = d->ph - 32;
    char buf[64];
    snprintf(buf, sizeof buf, "page %d of %d", d->page, d->npages);
    double w = pd_text_w(d, buf, PF_SANS, fs);
    pd_text(d, d->x1 - w, yf, buf, PF_SANS, fs, 0, PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE,
            C_LIGHT);
}

static void begin_page(pdoc *d)
{
    cairo_rectangle_t ext = {0, 0, d->pw, d->ph};
    cairo_surface_t *rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
    *TD_PUSH(d->rec, d->nrec, d->rec_cap) = rec;
    d->cr = cairo_create(rec);
    pango_cairo_update_context(d->cr, d->pc);
}

void pd_page_end(pdoc *d)
{
    if (!d->cr)
        return;
    if (d->cst == CAIRO_STATUS_SUCCESS)
        d->cst = cairo_status(d->cr);
    cairo_destroy(d->cr);
    d->cr = NULL;
}

void pd_break(pdoc *d)
{
    pd_page_end(d);
    d->page++;
    begin_page(d);
    page_decor(d);
    d->y = d->ytop;
}

void pd_need(pdoc *d, double h)
{
    if (d->y + h > d->ybot && d->y > d->ytop + 1)
        pd_break(d);
}

/* A pending "section pagebreak" takes effect only when something follows it, so a
 * break at the end (or before sections without data) adds no empty page. */
void pd_pending_break(pdoc *d)
{
    if (d->pending_break) {
        d->pending_break = 0;
        if (d->y > d->ytop + 1)
            pd_break(d);
    }
}

void pd_heading(pdoc *d, const char *title, double keep)
{
    pd_pending_break(d);
    double h = pd_text_h(d, title, PF_BOLD, 11.5, d->x1 - d->x0);
    pd_need(d, h + 6 + keep);
    d->y += pd_text(d, d->x0, d->y, title, PF_BOLD, 11.5, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_NONE, C_TEXT);
    d->y += 6;
}

void pd_note(pdoc *d, const char *text)
{
    double h = pd_text_h(d, text, PF_SANS, 7, d->x1 - d->x0);
    /* a note belongs to what is above it: rather than starting a page alone, it may
     * reach a few points into the bottom margin (the footer rule is 12 points below) */
    if (d->y + h > d->ybot && d->y + h <= d->ybot + 8)
        h = 0;
    pd_need(d, h);
    d->y += pd_text(d, d->x0, d->y, text, PF_SANS, 7, d->x1 - d->x0, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_NONE, C_MUTED);
}

void pd_page_first(pdoc *d)
{
    d->page = 1;
    d->pending_break = 0;
    begin_page(d);
    page_decor(d);
    d->y = d->ytop;
}
