/* render/pdf/pdf.c - the PDF summary (cairo + pango): fonts, pages, header/footer and the
 * text sections (header, findings, key figures, compile, regression, warnings).
 * Tables, charts and flamegraphs are drawn by render/pdf/draw.c.
 *
 * Fonts come only from o->fontdir through a private fontconfig configuration, so the
 * document looks the same on every machine and never depends on system fonts; cairo
 * embeds the subsets used. The document is laid out once, each page onto its own
 * recording surface; when the page count is known the recordings are replayed into the
 * PDF surface with "page N of M" added (text stays text: cairo emits each recording as
 * a form of the same vector operations). Laying out twice, as first written, cost
 * twice the text shaping, which is most of the rendering time.
 * Every byte is a function of the summary, the template and the options: the creation
 * date comes from o->epoch, and cairo 1.16 writes nothing else that varies (font subset
 * tags are derived from the glyphs used; there is no /ID or ModDate), so two runs are
 * byte-identical without any normalisation. cairo 1.16 writes the CreationDate without
 * the "D:" prefix ("(20231114221320Z)"); poppler and qpdf read it as is. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <cairo-pdf.h>
#include <dirent.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangofc-fontmap.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- text helpers ---- */

void pd_rgb(pdoc *d, uint32_t c)
{
    cairo_set_source_rgb(d->cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
                         (c & 255) / 255.0);
}

/* Plain text only: invalid UTF-8 is repaired and control characters (newlines and tabs
 * in hostile names) become spaces, so one name is always one line. */
static char *clean_text(const char *s)
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
    char *v = clean_text(text);
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
    if (a == '.' && g_ascii_isdigit(b))
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
    char *g = clean_text(text);
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
                while (p < lim) {
                    p = (size_t)(g_utf8_next_char(t + p) - t);
                    if (p > lim || span_w(d, t, s, p, font, size) > width)
                        break;
                    lo = p;
                    if (p < lim && g_ascii_islower(t[p - 1]) && g_ascii_isupper(t[p]))
                        camel = p;
                }
                e = camel > s ? camel : lo > s ? lo : (size_t)(g_utf8_next_char(t + s) - t);
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
static void page_number(pdoc *d)
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

static void end_page(pdoc *d)
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
    end_page(d);
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
static void pending_break(pdoc *d)
{
    if (d->pending_break) {
        d->pending_break = 0;
        if (d->y > d->ytop + 1)
            pd_break(d);
    }
}

void pd_heading(pdoc *d, const char *title, double keep)
{
    pending_break(d);
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

/* ---- small formatting helpers ---- */

static void fmt_kv(const td_kv *kv, char *dst, size_t cap)
{
    td_col c = {kv->key, kv->title, kv->type};
    td_cell_format(&c, &kv->v, dst, cap);
}

/* ---- text sections ---- */

/* Length of the leading part of every input path up to a '/' or ':' (directory,
 * archive), when every row has a path and something is left after it. */
static size_t common_dir(const td_table *in, int cp)
{
    const char *p0 = td_table_cell(in, 0, cp)->s;
    if (!p0)
        return 0;
    size_t n = strlen(p0);
    for (size_t r = 1; r < in->nrows; r++) {
        const char *p = td_table_cell(in, r, cp)->s;
        if (!p)
            return 0;
        size_t k = 0;
        while (k < n && p[k] == p0[k])
            k++;
        n = k;
    }
    while (n > 0 && p0[n - 1] != '/' && p0[n - 1] != ':')
        n--;
    for (size_t r = 0; r < in->nrows; r++)
        if (!td_table_cell(in, r, cp)->s[n])
            return 0;
    return n;
}

static int sec_header(pdoc *d, const td_template *t)
{
    pending_break(d);
    const td_summary *s = d->s;
    double W = d->x1 - d->x0;
    /* at most two lines of title, ellipsized at the end (many inputs make long titles;
     * page 1 lists them all below) */
    /* a count stays with its noun ("8 ranks" is not split over two lines): the space
     * after a number that stands alone becomes a no-break space */
    td_buf tb = {0};
    for (const char *p = d->title; *p; p++) {
        const char *q = p;
        while (q > d->title && g_ascii_isdigit(q[-1]))
            q--;
        if (*p == ' ' && q < p && (q == d->title || q[-1] == ' '))
            td_buf_printf(&tb, "\xc2\xa0");
        else
            td_buf_printf(&tb, "%c", *p);
    }
    PangoLayout *tl = pd_layout(d, td_buf_cstr(&tb), PF_BOLD, 17, W, PANGO_ALIGN_LEFT,
                                PANGO_ELLIPSIZE_NONE);
    td_buf_free(&tb);
    pango_layout_set_height(tl, -2);
    pango_layout_set_ellipsize(tl, PANGO_ELLIPSIZE_END);
    int tw, th;
    pango_layout_get_size(tl, &tw, &th);
    pd_rgb(d, C_TEXT);
    cairo_move_to(d->cr, d->x0, d->y);
    pango_cairo_show_layout(d->cr, tl);
    g_object_unref(tl);
    d->y += (double)th / PANGO_SCALE;
    /* what the subtitle says ("tracedoc 0.1.0, 2026-11-23") is not repeated below */
    int has_date = 0, has_tool = 0;
    if (t && t->subtitle[0]) {
        char *sub = td_template_fill(t->subtitle, s);
        char tool[64];
        snprintf(tool, sizeof tool, "tracedoc %s", d->version);
        has_date = d->date[0] && strstr(sub, d->date) != NULL;
        has_tool = strstr(sub, tool) != NULL;
        d->y += 2;
        d->y += pd_text(d, d->x0, d->y, sub, PF_SANS, 9.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_MUTED);
        free(sub);
    }
    d->y += 10;

    /* facts line: label value pairs */
    char buf[512];
    struct { const char *label; char val[256]; } fact[8 + 16];
    int nf = 0;
    const td_kv *kv;
    if ((kv = td_sum_get(s, "trace.span_ns")) && kv->type == TD_T_NS && kv->v.i != TD_NA) {
        fact[nf].label = "Traced time";
        fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    if ((kv = td_sum_get(s, "trace.ranks")) && kv->v.i != TD_NA) {
        fact[nf].label = "Ranks";
        fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    const td_kv *dn = td_sum_get(s, "trace.device_name");
    if ((kv = td_sum_get(s, "trace.devices")) && kv->v.i != TD_NA) {
        fact[nf].label = "Devices";
        if (dn && dn->type == TD_T_TEXT && dn->v.s && dn->v.s[0] && kv->v.i <= 0)
            snprintf(fact[nf++].val, sizeof fact[0].val, "%s", dn->v.s);
        else if (dn && dn->type == TD_T_TEXT && dn->v.s && dn->v.s[0])
            snprintf(fact[nf++].val, sizeof fact[0].val, "%lld \xc3\x97 %s",
                     (long long)kv->v.i, dn->v.s);
        else if (kv->v.i == 0)
            snprintf(fact[nf++].val, sizeof fact[0].val, "none (CPU only)");
        else
            fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    if (!d->brief && !has_tool) {
        fact[nf].label = "Tool";
        snprintf(fact[nf++].val, sizeof fact[0].val, "tracedoc %s", d->version);
    }
    if (!has_date) {
        fact[nf].label = "Date";
        snprintf(fact[nf++].val, sizeof fact[0].val, "%s", d->date);
    }
    /* when the trace was captured, and the run metadata (--meta), after the fixed facts */
    if ((kv = td_sum_get(s, "trace.captured")) && kv->type == TD_T_TEXT && kv->v.s) {
        fact[nf].label = "Captured";
        snprintf(fact[nf++].val, sizeof fact[0].val, "%s", kv->v.s);
    }
    /* generated data says so on page 1 (e.g. ipu.synthetic of tools/gen_ipu.py) */
    for (size_t i = 0; i < s->nkv; i++) {
        size_t kl = strlen(s->kv[i].key);
        if (kl > 10 && !strcmp(s->kv[i].key + kl - 10, ".synthetic") &&
            s->kv[i].type == TD_T_TEXT && s->kv[i].v.s) {
            fact[nf].label = "Data";
            snprintf(fact[nf++].val, sizeof fact[0].val, "SYNTHETIC (generated, not measured)");
            break;
        }
    }
    for (size_t i = 0; i < s->nkv && nf < (int)(sizeof fact / sizeof fact[0]); i++)
        if (strncmp(s->kv[i].key, "meta.", 5) == 0 && s->kv[i].type == TD_T_TEXT) {
            fact[nf].label = s->kv[i].title;
            snprintf(fact[nf++].val, sizeof fact[0].val, "%s", s->kv[i].v.s ? s->kv[i].v.s : "");
        }
    double x = d->x0, rowh = 0;
    for (int i = 0; i < nf; i++) {
        double wl = pd_text_w(d, fact[i].label, PF_SANS, 7);
        double wv = pd_text_w(d, fact[i].val, PF_BOLD, 8.5);
        double wi = (wl > wv ? wl : wv) + 18;
        if (x > d->x0 && x + wi > d->x1) {
            x = d->x0;
            d->y += rowh + 4;
        }
        pd_text(d, x, d->y, fact[i].label, PF_SANS, 7, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_MUTED);
        double h = pd_text(d, x, d->y + 9, fact[i].val, PF_BOLD, 8.5, d->x1 - x,
                           PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
        rowh = 9 + h;
        x += wi;
    }
    d->y += rowh + 10;

    /* inputs: one line each with path and facts, the SHA-256 below in mono */
    /* brief: the run's name in the title says what was read; paths and hashes are in
     * the workbook and summary.json */
    const td_table *in = d->brief ? NULL : td_sum_find_table(s, "inputs");
    if (in && in->nrows) {
        int cp = td_table_col(in, "path"), cf = td_table_col(in, "format");
        int cb = td_table_col(in, "bytes"), ch = td_table_col(in, "sha256");
        int ce = td_table_col(in, "events"), cr = td_table_col(in, "rank");
        int cw = td_table_col(in, "world_size"), cd = td_table_col(in, "device_name");
        pd_text(d, d->x0, d->y, in->nrows == 1 ? "Input" : "Inputs", PF_BOLD, 8, 0,
                PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += 13;
        size_t shown = in->nrows > 8 ? 6 : in->nrows;
        /* several inputs: the part of the paths they share (directory, archive) is
         * said once, so that each line keeps what distinguishes it (worker3_...) */
        size_t common = in->nrows > 1 && cp >= 0 ? common_dir(in, cp) : 0;
        /* more than four inputs: one line each (path, rank, SHA-256 as sha256sum prints
         * it) and what they share on one line below, so that page 1 keeps room */
        int compact = in->nrows > 4;
        d->inputs_listed = !compact; /* each with every fact the inputs table has */
        if (common) {
            snprintf(buf, sizeof buf, "in %.*s", (int)common, td_table_cell(in, 0, cp)->s);
            pd_text(d, d->x0, d->y, buf, PF_SANS, 7.5, W, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_MIDDLE, C_MUTED);
            d->y += 11;
        }
        for (size_t r = 0; compact && r < shown; r++) {
            const char *path = cp >= 0 && td_table_cell(in, r, cp)->s
                                   ? td_table_cell(in, r, cp)->s + common : "";
            const char *sha = ch >= 0 ? td_table_cell(in, r, ch)->s : NULL;
            char rk[48] = "";
            if (cr >= 0 && td_table_cell(in, r, cr)->i != TD_NA)
                snprintf(rk, sizeof rk, "rank %lld", (long long)td_table_cell(in, r, cr)->i);
            pd_need(d, 11);
            double wsha = sha && sha[0] ? pd_text_w(d, sha, PF_MONO, 6) : 0;
            double wrk = 46;
            pd_text(d, d->x0, d->y, path, PF_SANS, 7.5, W - wsha - wrk - 16, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
            pd_text(d, d->x1 - wsha - wrk - 6, d->y + 0.5, rk, PF_SANS, 7, wrk,
                    PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END, C_MUTED);
            if (wsha > 0)
                pd_text(d, d->x1 - wsha, d->y + 1.2, sha, PF_MONO, 6, 0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_LIGHT);
            d->y += 10.5;
        }
        if (compact) {
            /* shared facts: format and device when the same for all, sums of sizes and
             * events, the world size */
            td_buf b = {0};
            char v[128];
            int64_t bytes = 0, events = 0;
            const char *fmt0 = NULL, *dev0 = NULL;
            int fsame = 1, dsame = 1;
            int64_t world = TD_NA;
            for (size_t r = 0; r < in->nrows; r++) {
                if (cb >= 0 && td_table_cell(in, r, cb)->i != TD_NA)
                    bytes += td_table_cell(in, r, cb)->i;
                if (ce >= 0 && td_table_cell(in, r, ce)->i != TD_NA)
                    events += td_table_cell(in, r, ce)->i;
                const char *f = cf >= 0 ? td_table_cell(in, r, cf)->s : NULL;
                const char *dv = cd >= 0 ? td_table_cell(in, r, cd)->s : NULL;
                if (r == 0) {
                    fmt0 = f;
                    dev0 = dv;
                }
                fsame &= (f && fmt0 && !strcmp(f, fmt0));
                dsame &= (dv && dev0 && !strcmp(dv, dev0));
                if (cw >= 0 && td_table_cell(in, r, cw)->i != TD_NA)
                    world = td_table_cell(in, r, cw)->i;
            }
            td_buf_printf(&b, "%zu inputs", in->nrows);
            if (fsame && fmt0 && fmt0[0])
                td_buf_printf(&b, ", all %s", fmt0);
            if (cb >= 0) {
                td_cell c = {.i = bytes};
                td_cell_format(&in->cols[cb], &c, v, sizeof v);
                td_buf_printf(&b, "   %s in all", v);
            }
            if (ce >= 0) {
                td_cell c = {.i = events};
                td_cell_format(&in->cols[ce], &c, v, sizeof v);
                td_buf_printf(&b, "   %s events", v);
            }
            if (world != TD_NA)
                td_buf_printf(&b, "   world size %lld", (long long)world);
            if (dsame && dev0 && dev0[0])
                td_buf_printf(&b, "   %s", dev0);
            pd_text(d, d->x0, d->y + 1, td_buf_cstr(&b), PF_SANS, 7.5, W, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            d->y += 13;
            td_buf_free(&b);
        }
        for (size_t r = 0; !compact && r < shown; r++) {
            td_buf b = {0};
            char v[128];
#define INFO(col, fmt)                                                             \
    if ((col) >= 0) {                                                              \
        td_cell_format(&in->cols[col], td_table_cell(in, r, col), v, sizeof v);    \
        if (v[0])                                                                  \
            td_buf_printf(&b, "%s" fmt, b.n ? "   " : "", v);                      \
    }
            INFO(cf, "%s");
            INFO(cb, "%s");
            INFO(ce, "%s events");
            if (cr >= 0 && td_table_cell(in, r, cr)->i != TD_NA) {
                if (cw >= 0 && td_table_cell(in, r, cw)->i != TD_NA)
                    td_buf_printf(&b, "%srank %lld of %lld", b.n ? "   " : "",
                                  (long long)td_table_cell(in, r, cr)->i,
                                  (long long)td_table_cell(in, r, cw)->i);
                else
                    td_buf_printf(&b, "%srank %lld", b.n ? "   " : "",
                                  (long long)td_table_cell(in, r, cr)->i);
            }
            INFO(cd, "%s");
#undef INFO
            const char *info = td_buf_cstr(&b);
            const char *path = cp >= 0 && td_table_cell(in, r, cp)->s
                                   ? td_table_cell(in, r, cp)->s + common : "";
            pd_need(d, 22);
            double wi = pd_text_w(d, info, PF_SANS, 7.5);
            if (wi > W * 0.62)
                wi = W * 0.62;
            /* a path too long for the line loses part of its directory, never of
             * its file name ("/work/shared/tr…/nsys/pipit_saxpy_mpi_cuda_a100.sqlite") */
            double room = W - wi - 12;
            const char *base = strrchr(path, '/');
            double wb = base ? pd_text_w(d, base, PF_SANS, 8) : 0;
            if (base && base > path && pd_text_w(d, path, PF_SANS, 8) > room &&
                wb + 24 < room) {
                char dir[1024];
                snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
                PangoLayout *dl = pd_layout(d, dir, PF_SANS, 8, room - wb, PANGO_ALIGN_LEFT,
                                            PANGO_ELLIPSIZE_MIDDLE);
                int dw, dh;
                pango_layout_get_size(dl, &dw, &dh);
                g_object_unref(dl);
                pd_text(d, d->x0, d->y, dir, PF_SANS, 8, room - wb, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
                pd_text(d, d->x0 + (double)dw / PANGO_SCALE, d->y, base, PF_SANS, 8, 0,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
            } else
                pd_text(d, d->x0, d->y, path, PF_SANS, 8, room, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
            pd_text(d, d->x1 - wi, d->y + 0.5, info, PF_SANS, 7.5, wi, PANGO_ALIGN_RIGHT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            d->y += 11;
            const char *sha = ch >= 0 ? td_table_cell(in, r, ch)->s : NULL;
            if (sha && sha[0]) {
                snprintf(buf, sizeof buf, "sha256 %s", sha);
                pd_text(d, d->x0, d->y, buf, PF_MONO, 6.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_END, C_LIGHT);
                d->y += 9;
            }
            d->y += 3;
            td_buf_free(&b);
        }
        if (shown < in->nrows) {
            snprintf(buf, sizeof buf, "and %zu more inputs (all listed in the workbook and "
                     "summary.json)", in->nrows - shown);
            pd_note(d, buf);
        }
    }
    return 1;
}

static int sec_findings(pdoc *d, const char *title)
{
    const td_summary *s = d->s;
    if (!s->nfindings)
        return 0;
    double W = d->x1 - d->x0;
    pd_heading(d, title ? title : "Findings", 14);
    for (size_t i = 0; i < s->nfindings; i++) {
        double h = pd_text_h(d, s->findings[i], PF_SANS, 9, W - 14);
        pd_need(d, h + 3);
        pd_rgb(d, C_ACCENT);
        cairo_new_path(d->cr);
        cairo_arc(d->cr, d->x0 + 4, d->y + 6.2, 1.7, 0, 2 * G_PI);
        cairo_fill(d->cr);
        d->y += pd_text(d, d->x0 + 14, d->y, s->findings[i], PF_SANS, 9, W - 14,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT) + 3;
    }
    return 1;
}

typedef struct card {
    const char *label;
    char val[128];
    char sub[128];
} card;

/* cards: four a row, 8 points apart */
static double card_w(const pdoc *d)
{
    return (d->x1 - d->x0 - 8 * 3) / 4;
}

/* tail: the height of the notes drawn under the cards, kept with the last row */
static void draw_cards(pdoc *d, const card *c, int n, double tail)
{
    double gap = 8;
    int per = 4;
    double cw = card_w(d), chh = 40;
    for (int i = 0; i < n; i += per) {
        pd_need(d, chh + gap + (i + per >= n ? tail : 0));
        for (int k = 0; k < per && i + k < n; k++) {
            const card *q = &c[i + k];
            double x = d->x0 + k * (cw + gap);
            pd_rgb(d, C_ZEBRA);
            cairo_rectangle(d->cr, x, d->y, cw, chh);
            cairo_fill(d->cr);
            pd_rgb(d, C_ACCENT);
            cairo_rectangle(d->cr, x, d->y, 2, chh);
            cairo_fill(d->cr);
            pd_text(d, x + 8, d->y + 5, q->label, PF_SANS, 7, cw - 12, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            pd_text(d, x + 8, d->y + 14, q->val, PF_BOLD, 11.5, cw - 12, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_TEXT);
            if (q->sub[0])
                pd_text(d, x + 8, d->y + 29, q->sub, PF_SANS, 6.5, cw - 12, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_END, C_MUTED);
        }
        d->y += chh + gap;
    }
}

static int sec_keyfigures(pdoc *d, const char *title)
{
    char busy[48], idle[48]; /* card labels, used until the cards are drawn */
    char lab[24][80];        /* labels without their bracketed part */
    const td_summary *s = d->s;
    card c[24];
    int n = 0;
    const td_kv *span = td_sum_get(s, "trace.span_ns");
    if (span && span->type == TD_T_NS && span->v.i != TD_NA) {
        c[n].label = span->title ? span->title : "Traced time";
        fmt_kv(span, c[n].val, sizeof c[n].val);
        c[n++].sub[0] = 0;
    }
    size_t row;
    const td_table *tl = pd_timeline_all(s, &row);
    if (tl) {
        int64_t tot = td_table_cell(tl, row, td_table_col(tl, "total_ns"))->i;
        const char *dw = td_sum_device_word(s);
        snprintf(busy, sizeof busy, "%s busy", dw);
        snprintf(idle, sizeof idle, "%s idle", dw);
        const struct { const char *key, *label; } g[] = {
            {"busy_ns", busy}, {"idle_ns", idle},
            {"exposed_comm_ns", "Exposed communication"}};
        /* with several ranks the row is the first rank's: say so */
        int crank = td_table_col(tl, "rank"), cdev = td_table_col(tl, "device");
        size_t nall = 0;
        for (size_t r = 0; r < tl->nrows; r++)
            if (td_table_cell(tl, r, cdev)->i == -1)
                nall++;
        char who[64] = "of device timeline";
        if (nall > 1 && crank >= 0 && td_table_cell(tl, row, crank)->i != TD_NA)
            snprintf(who, sizeof who, "of rank %lld's timeline",
                     (long long)td_table_cell(tl, row, crank)->i);
        else if (nall > 1 && crank >= 0)
            /* the job-wide row: times summed over ranks, not wall time */
            snprintf(who, sizeof who, "of all ranks' timelines");
        for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
            int ci = td_table_col(tl, g[k].key);
            if (ci < 0 || td_table_cell(tl, row, ci)->i == TD_NA)
                continue;
            int64_t v = td_table_cell(tl, row, ci)->i;
            c[n].label = g[k].label;
            td_fmt_ns(c[n].val, sizeof c[n].val, v);
            snprintf(c[n++].sub, sizeof c[0].sub, "%.1f%% %s", 100.0 * (double)v / (double)tot,
                     who);
        }
    }
    static const char *keys[] = {"runtime.wall_ns", "runtime.modules_ns", "runtime.thunks_ns",
                                 "compile.total_ns", "aiu.active_share", "comm.host_ns",
                                 "trace.ranks", "trace.devices",
                                 "warmup.dropped", "module_cut.dropped_modules",
                                 "ipu.all.tile_balance", "ipu.all.active_tile_balance",
                                 "lwp.blocks", "lwp.not_recorded", NULL};
    for (const char **k = keys; *k; k++) {
        const td_kv *kv = td_sum_get(s, *k);
        if (!kv || kv->type == TD_T_TEXT || (kv->type != TD_T_F64 && kv->v.i == TD_NA))
            continue;
        if (kv->type == TD_T_NS && kv->v.i == 0)
            continue; /* e.g. module/thunk times of a trace without XLA modules */
        if (!strcmp(*k, "trace.devices") && kv->v.i == 0)
            continue; /* a CPU-only trace: the header says so */
        if (!strcmp(*k, "warmup.dropped") && kv->v.i == 0 && !td_sum_find_table(s, "steps") &&
            !td_sum_find_table(s, "modules"))
            continue; /* nothing the warm-up rule could drop (AIU, IPU, stack tracing) */
        if (d->brief && (!strcmp(*k, "warmup.dropped") ||
                         !strcmp(*k, "module_cut.dropped_modules")))
            continue; /* rules, not results: the one-page summary leaves them out */
        if (!strcmp(*k, "module_cut.dropped_modules") && kv->v.i == 0)
            continue; /* no module below the cut-off: the note under the cards says the rule */
        c[n].label = kv->title ? kv->title : kv->key;
        fmt_kv(kv, c[n].val, sizeof c[n].val);
        c[n].sub[0] = 0;
        /* "AIU kernels active (share of the kernel span)": the words in brackets under
         * the value, so that the card's label is not cut */
        const char *br = kv->title ? strstr(kv->title, " (") : NULL;
        size_t tlen = kv->title ? strlen(kv->title) : 0;
        if (br && kv->title[tlen - 1] == ')') {
            snprintf(lab[n], sizeof lab[n], "%.*s", (int)(br - kv->title), kv->title);
            c[n].label = lab[n];
            snprintf(c[n].sub, sizeof c[n].sub, "%.*s", (int)(tlen - (size_t)(br - kv->title) - 3),
                     br + 2);
        }
        if (strcmp(*k, "runtime.thunks_ns") == 0) {
            /* async collectives overlap other thunks: the plain sum can exceed the
             * module time */
            const td_kv *mk = td_sum_get(s, "runtime.modules_ns");
            if (mk && mk->v.i != TD_NA && kv->v.i > mk->v.i)
                snprintf(c[n].sub, sizeof c[n].sub, "overlaps counted twice");
        }
        if (strcmp(*k, "module_cut.dropped_modules") == 0) {
            const td_kv *dn = td_sum_get(s, "module_cut.dropped_ns");
            if (dn && dn->v.i != TD_NA) {
                char t[64];
                fmt_kv(dn, t, sizeof t);
                snprintf(c[n].sub, sizeof c[n].sub, "%s left out", t);
            }
        }
        n++;
    }
    /* a label wider than its card ("Host time in MPI/UCX/NCCL ranges"): the words that
     * do not fit go under the value when nothing else is there */
    double cwid = card_w(d) - 12;
    for (int i = 0; i < n; i++) {
        if (c[i].sub[0] || pd_text_w(d, c[i].label, PF_SANS, 7) <= cwid)
            continue;
        const char *l = c[i].label;
        size_t cut_at = 0;
        for (size_t p = 1; l[p]; p++)
            if (l[p] == ' ') {
                char t[80];
                snprintf(t, sizeof t, "%.*s", (int)p, l);
                if (pd_text_w(d, t, PF_SANS, 7) > cwid)
                    break;
                cut_at = p;
            }
        if (!cut_at)
            continue;
        snprintf(c[i].sub, sizeof c[i].sub, "%s", l + cut_at + 1);
        snprintf(lab[i], sizeof lab[i], "%.*s", (int)cut_at, l);
        c[i].label = lab[i];
    }
    const td_kv *rule = td_sum_get(s, "warmup.rule");
    const td_kv *cut = td_sum_get(s, "module_cut.threshold");
    if (!n && !(rule && rule->v.s && rule->v.s[0]))
        return 0;
    char n1[1024] = "", n2[256] = "";
    if (rule && rule->type == TD_T_TEXT && rule->v.s && rule->v.s[0] && !d->brief) {
        /* the schedule sentence when steps are missing (a schedule, or a late start) */
        const td_kv *miss = td_sum_get(s, "schedule.missing_steps");
        const td_kv *sch = td_sum_get(s, "schedule.steps");
        if (miss && miss->v.i > 0 && sch && sch->type == TD_T_TEXT && sch->v.s)
            snprintf(n1, sizeof n1, "Steps: %s Warm-up: %s", sch->v.s, rule->v.s);
        else
            snprintf(n1, sizeof n1, "Warm-up: %s", rule->v.s);
    }
    if (cut && cut->type == TD_T_F64 && !d->brief)
        snprintf(n2, sizeof n2, "Modules below %.2g%% of device time are left out of the "
                 "module tables.", cut->v.f * 100.0);
    double W = d->x1 - d->x0;
    double tail = (n1[0] ? pd_text_h(d, n1, PF_SANS, 7, W) : 0) +
                  (n2[0] ? pd_text_h(d, n2, PF_SANS, 7, W) : 0);
    pd_heading(d, title ? title : "Key figures", 48 + (n <= 4 ? tail : 0));
    draw_cards(d, c, n, tail);
    if (n1[0])
        pd_note(d, n1);
    if (n2[0])
        pd_note(d, n2);
    return 1;
}

static int sec_compile(pdoc *d, const td_section *sec)
{
    const td_kv *tot = td_sum_get(d->s, "compile.total_ns");
    const td_table *ph = td_sum_find_table(d->s, "compile.phases");
    int have_tot = tot && tot->v.i != TD_NA && tot->v.i > 0;
    if (!have_tot && !(ph && ph->nrows))
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Compilation", 40);
    if (have_tot) {
        char v[64], buf[160];
        fmt_kv(tot, v, sizeof v);
        snprintf(buf, sizeof buf, "Total compile time: %s", v);
        d->y += pd_text(d, d->x0, d->y, buf, PF_SANS, 9, 0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_TEXT) + 6;
    }
    if (ph && ph->nrows)
        pd_table(d, ph, sec->top ? sec->top : 15, NULL);
    return 1;
}

static int sec_regression(pdoc *d, const td_section *sec)
{
    const td_summary *s = d->s;
    const td_table *rt = td_sum_find_table(s, "regression.metrics");
    int nkv = 0;
    for (size_t i = 0; i < s->nkv; i++)
        if (strncmp(s->kv[i].key, "regression.", 11) == 0)
            nkv++;
    if (!nkv && !(rt && rt->nrows))
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Regression against the baseline", 30);
    double W = d->x1 - d->x0;
    for (size_t i = 0; i < s->nkv; i++) {
        const td_kv *kv = &s->kv[i];
        if (strncmp(kv->key, "regression.", 11) != 0)
            continue;
        char v[512];
        if (kv->type == TD_T_TEXT)
            snprintf(v, sizeof v, "%s", kv->v.s ? kv->v.s : "");
        else
            fmt_kv(kv, v, sizeof v);
        pd_need(d, 12);
        const char *label = kv->title ? kv->title : kv->key + 11;
        pd_text(d, d->x0, d->y, label, PF_SANS, 8.5, W * 0.4, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_MUTED);
        double h = pd_text(d, d->x0 + W * 0.4, d->y, v, PF_BOLD, 8.5, W * 0.6,
                           PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += (h > 11 ? h : 11) + 1;
    }
    if (rt && rt->nrows) {
        d->y += 4;
        pd_table(d, rt, sec->top ? sec->top : 25, NULL);
    }
    return 1;
}

static int sec_warnings(pdoc *d, const char *title)
{
    const td_summary *s = d->s;
    if (!s->nwarnings)
        return 0;
    double W = d->x1 - d->x0;
    pd_heading(d, title ? title : "Warnings", 12);
    size_t shown = s->nwarnings > 20 ? 20 : s->nwarnings;
    for (size_t i = 0; i < shown; i++) {
        double h = pd_text_h(d, s->warnings[i], PF_SANS, 7.5, W - 12);
        pd_need(d, h + 2);
        pd_text(d, d->x0, d->y, "\xe2\x80\x93", PF_SANS, 7.5, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_COMM);
        d->y += pd_text(d, d->x0 + 12, d->y, s->warnings[i], PF_SANS, 7.5, W - 12,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT) + 2;
    }
    if (shown < s->nwarnings) {
        char buf[128];
        snprintf(buf, sizeof buf, "and %zu more warnings (all in summary.json)",
                 s->nwarnings - shown);
        pd_note(d, buf);
    }
    return 1;
}

/* ---- document ---- */

static const td_section default_sections[] = {
    {"header", "", "", 0, -1, 0},   {"findings", "", "", 0, -1, 0},
    {"keyfigures", "", "", 0, -1, 0}, {"breakdown", "", "", 0, -1, 0},
    {"table", "kernels", "Top kernels", 15, -1, 0}, {"table", "ops", "Top ops", 15, -1, 0},
    {"warnings", "", "", 0, -1, 0}};

static void draw_doc(pdoc *d, const td_template *t)
{
    d->page = 1;
    d->pending_break = 0;
    begin_page(d);
    page_decor(d);
    d->y = d->ytop;
    const td_section *secs = default_sections;
    size_t n = sizeof default_sections / sizeof default_sections[0];
    if (t && t->npdf) {
        secs = t->pdf;
        n = t->npdf;
    }
    for (size_t i = 0; i < n; i++) {
        const td_section *sec = &secs[i];
        const char *title = sec->title[0] ? sec->title : NULL;
        const char *k = sec->kind;
        int drew = 0;
        d->brief = !strcmp(sec->arg, "brief");
        if (!strcmp(k, "header"))
            drew = sec_header(d, t);
        else if (!strcmp(k, "findings"))
            drew = sec_findings(d, title);
        else if (!strcmp(k, "keyfigures"))
            drew = sec_keyfigures(d, title);
        else if (!strcmp(k, "breakdown"))
            drew = pd_breakdown(d, title);
        else if (!strcmp(k, "steps"))
            drew = pd_steps(d, title);
        else if (!strcmp(k, "telemetry"))
            drew = pd_telemetry(d, title);
        else if (!strcmp(k, "checklist"))
            drew = pd_checklist(d, title);
        else if (!strcmp(k, "table")) {
            const td_table *tb = td_sum_find_table(d->s, sec->arg);
            int top = sec->top ? sec->top : 25;
            /* threshold=F: only the leading rows whose share is at least F */
            int cs = tb ? td_table_col(tb, "share") : -1;
            if (tb && sec->threshold >= 0 && cs >= 0 && tb->cols[cs].type == TD_T_SHARE) {
                int nk = 0;
                while (nk < top && (size_t)nk < tb->nrows &&
                       td_table_cell(tb, (size_t)nk, cs)->f >= sec->threshold)
                    nk++;
                top = nk;
            }
            /* page 1 already gave every input with all its facts: not again */
            if (!strcmp(sec->arg, "inputs") && d->inputs_listed)
                tb = NULL;
            if (tb && tb->nrows && top > 0)
                drew = pd_table(d, tb, top, title ? title : tb->title);
        } else if (!strcmp(k, "collectives"))
            drew = pd_collectives(d, sec);
        else if (!strcmp(k, "xlacollectives"))
            drew = pd_xla_collectives(d, sec);
        else if (!strcmp(k, "variability"))
            drew = pd_variability(d, sec);
        else if (!strcmp(k, "compile"))
            drew = sec_compile(d, sec);
        else if (!strcmp(k, "stacktrace"))
            drew = pd_stacktrace(d, sec);
        else if (!strcmp(k, "ipu"))
            drew = pd_ipu(d, title);
        else if (!strcmp(k, "ipu_timeline"))
            drew = pd_ipu_timeline(d, title);
        else if (!strcmp(k, "flame"))
            drew = pd_flame(d, sec->arg, title);
        else if (!strcmp(k, "regression"))
            drew = td_sum_find_table(d->s, "changes") || td_sum_get(d->s, "verdict")
                       ? pd_changes(d, sec)
                       : sec_regression(d, sec);
        else if (!strcmp(k, "verdict"))
            drew = pd_verdict(d);
        else if (!strcmp(k, "trends"))
            drew = pd_trends(d, sec);
        else if (!strcmp(k, "warnings"))
            drew = sec_warnings(d, title);
        else if (!strcmp(k, "pagebreak"))
            d->pending_break = 1;
        if (drew)
            d->y += 16;
    }
    end_page(d);
}

typedef struct sink {
    FILE *f;
    int err;
} sink;

static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
    sink *k = closure;
    if (fwrite(data, 1, len, k->f) != len) {
        k->err = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int font_file(const char *n)
{
    size_t l = strlen(n);
    return l > 4 && (!strcmp(n + l - 4, ".ttf") || !strcmp(n + l - 4, ".otf"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A private fontconfig configuration holding only the font files of dir. Files are
 * added one by one (FcConfigAppFontAddFile, in name order) rather than with
 * FcConfigAppFontAddDir, which would try to write a cache and complain on stderr when
 * it has no cache directory. */
static td_status load_fonts(const char *dir, PangoFontMap **out, td_err *e)
{
    if (!dir || !dir[0])
        return td_fail(e, TD_E_INTERNAL, "PDF: no font directory given");
    DIR *dd = opendir(dir);
    if (!dd)
        return td_fail(e, TD_E_IO, "%s: cannot open the font directory: %s", dir,
                       strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(dd)))
        if (font_file(de->d_name))
            *TD_PUSH(names, n, cap) = td_xstrdup(de->d_name);
    closedir(dd);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    FcConfig *cfg = FcConfigCreate();
    int ok = cfg != NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(dir) + strlen(names[i]) + 2;
        char *p = td_xmalloc(l);
        snprintf(p, l, "%s/%s", dir, names[i]);
        if (ok && !FcConfigAppFontAddFile(cfg, (const FcChar8 *)p))
            ok = 0;
        free(p);
        free(names[i]);
    }
    free(names);
    FcFontSet *set = ok ? FcConfigGetFonts(cfg, FcSetApplication) : NULL;
    if (!set || set->nfont == 0) {
        if (cfg)
            FcConfigDestroy(cfg);
        return td_fail(e, TD_E_IO, "%s: no usable fonts (expected the DejaVu *.ttf files of "
                       "the project's fonts/ directory)", dir);
    }
    /* pango's font map starts a thread that calls FcInit(), which would load the
     * system's configuration and scan its fonts (and print to stderr when there is
     * none), although the map only ever uses ours: make ours the current one first */
    FcConfigSetCurrent(cfg);
    PangoFontMap *fm = pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
    if (!fm) {
        FcConfigDestroy(cfg);
        return td_fail(e, TD_E_INTERNAL, "PDF: pango has no FreeType font map");
    }
    /* the font map takes its own reference to the configuration */
    pango_fc_font_map_set_config(PANGO_FC_FONT_MAP(fm), cfg);
    FcConfigDestroy(cfg);
    *out = fm;
    return TD_OK;
}

/* Replay the laid-out pages into the PDF, adding "page N of M". */
static td_status write_pdf(pdoc *d, sink *k, td_err *e)
{
    cairo_surface_t *surf = cairo_pdf_surface_create_for_stream(sink_write, k, d->pw, d->ph);
    char date[32], creator[96];
    time_t ep = (time_t)d->o->epoch;
    struct tm tm;
    gmtime_r(&ep, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(creator, sizeof creator, "tracedoc %s", d->version);
    char *title = clean_text(d->title);
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_TITLE, title);
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATOR, creator);
    cairo_pdf_surface_set_metadata(surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
    g_free(title);
    d->cr = cairo_create(surf);
    pango_cairo_update_context(d->cr, d->pc);
    d->npages = (int)d->nrec;
    for (size_t i = 0; i < d->nrec; i++) {
        cairo_save(d->cr);
        cairo_set_source_surface(d->cr, d->rec[i], 0, 0);
        cairo_paint(d->cr);
        cairo_restore(d->cr);
        d->page = (int)i + 1;
        page_number(d);
        cairo_show_page(d->cr);
    }
    cairo_status_t cs = cairo_status(d->cr);
    cairo_destroy(d->cr);
    d->cr = NULL;
    cairo_surface_finish(surf);
    if (cs == CAIRO_STATUS_SUCCESS)
        cs = cairo_surface_status(surf);
    cairo_surface_destroy(surf);
    if (k->err)
        return td_fail(e, TD_E_OUTPUT, "cannot write: %s", strerror(k->err));
    if (cs != CAIRO_STATUS_SUCCESS)
        return td_fail(e, TD_E_OUTPUT, "cairo: %s", cairo_status_to_string(cs));
    return TD_OK;
}

td_status td_render_pdf(const td_summary *s, const td_template *t, const td_render_opts *o,
                        const char *path, td_err *e)
{
    PangoFontMap *fm = NULL;
    td_status st = load_fonts(o->fontdir, &fm, e);
    if (st != TD_OK)
        return st;
    pdoc d;
    memset(&d, 0, sizeof d);
    d.s = s;
    d.o = o;
    d.version = o->version ? o->version : "";
    int letter = o->paper && strcmp(o->paper, "letter") == 0;
    d.pw = letter ? 612 : 595.2756;
    d.ph = letter ? 792 : 841.8898;
    d.x0 = 50;
    d.x1 = d.pw - 50;
    d.ytop = 58;
    d.ybot = d.ph - 50;
    const td_kv *il = td_sum_get(s, "inputs_label");
    char *title = td_template_fill(t && t->title[0] ? t->title
                                   : il ? "Performance report: {{inputs_label}}"
                                        : "Performance report", s);
    d.title = title;
    char date[32];
    const td_kv *dk = td_sum_get(s, "date");
    if (dk && dk->type == TD_T_TEXT && dk->v.s && dk->v.s[0])
        snprintf(date, sizeof date, "%s", dk->v.s);
    else {
        time_t ep = (time_t)o->epoch;
        struct tm tm;
        gmtime_r(&ep, &tm);
        strftime(date, sizeof date, "%Y-%m-%d", &tm);
    }
    d.date = date;

    d.pc = pango_font_map_create_context(fm);
    pango_cairo_context_set_resolution(d.pc, 72);
    /* unhinted metrics: text positions do not depend on a device resolution */
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(d.pc, fo);
    cairo_font_options_destroy(fo);
    pango_context_set_round_glyph_positions(d.pc, FALSE);
    d.font[PF_SANS] = pango_font_description_from_string("DejaVu Sans");
    d.font[PF_BOLD] = pango_font_description_from_string("DejaVu Sans Bold");
    d.font[PF_MONO] = pango_font_description_from_string("DejaVu Sans Mono");

    draw_doc(&d, t);
    if (d.cst != CAIRO_STATUS_SUCCESS)
        st = td_fail(e, TD_E_INTERNAL, "%s: cairo: %s", path, cairo_status_to_string(d.cst));
    char *tmp = NULL;
    if (st == TD_OK) {
        tmp = td_tmp_name(path);
        sink k2 = {fopen(tmp, "wb"), 0};
        if (!k2.f)
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        else {
            st = write_pdf(&d, &k2, e);
            if (st != TD_OK) {
                char m[sizeof e->msg];
                snprintf(m, sizeof m, "%s", e->msg);
                td_fail(e, st, "%s: %s", path, m);
            }
            if (fclose(k2.f) != 0 && st == TD_OK)
                st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
            if (st == TD_OK)
                st = td_commit_tmp(tmp, path, e);
            else
                unlink(tmp);
        }
    }
    free(tmp);
    for (size_t i = 0; i < d.nrec; i++)
        cairo_surface_destroy(d.rec[i]);
    free(d.rec);
    for (int i = 0; i < PF_N; i++)
        pango_font_description_free(d.font[i]);
    g_object_unref(d.pc);
    /* drop the fonts cached by the map (and with them the configuration) now rather
     * than leaving them to the process exit */
    pango_fc_font_map_shutdown(PANGO_FC_FONT_MAP(fm));
    g_object_unref(fm);
    free(title);
    return st;
}

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer, sanitizer builds only: fontconfig 2.14 leaks the character sets and
 * patterns it builds while scanning font files (FcConfigAppFontAddFile ->
 * FcFreeTypeQueryAll), about 30 KB per render, even after the configuration is
 * destroyed. Weak, so that a test program may define its own list. */
const char *__lsan_default_suppressions(void) __attribute__((weak));
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}
#endif
