/* render/pdf/pdf.c - the PDF summary (cairo + pango), the top of render/pdf: the section
 * dispatcher (a switch over the template's td_pdf_kind), the fonts and the writing of
 * the laid-out pages. The sections are drawn by overview.c (text sections), table.c,
 * draw.c, flame.c, trend.c, telem.c, check.c, samba.c, ipu.c and xla.c, through the
 * primitives of chart.c and page.c; see render/pdf/internal.h for the layers.
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
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- document ---- */

/* Without a template (or one without a [pdf] block). */
static const td_section default_sections[] = {
    {.kind.pdf = TD_PDF_HEADER, .threshold = -1},
    {.kind.pdf = TD_PDF_FINDINGS, .threshold = -1},
    {.kind.pdf = TD_PDF_KEYFIGURES, .threshold = -1},
    {.kind.pdf = TD_PDF_BREAKDOWN, .threshold = -1},
    {.kind.pdf = TD_PDF_TABLE, .arg = "kernels", .title = "Top kernels", .top = 15,
     .threshold = -1},
    {.kind.pdf = TD_PDF_TABLE, .arg = "ops", .title = "Top ops", .top = 15, .threshold = -1},
    {.kind.pdf = TD_PDF_WARNINGS, .threshold = -1}};

/* One-page documents: room a chart needs; a table's heading, header and note; a row */
#define ONE_PAGE_CHART 230
#define ONE_PAGE_TABLE 70
#define ONE_PAGE_ROW 19

/* A table section: the top rows of a summary table (threshold=F: only the leading rows
 * whose share is at least F). */
static int sec_table(pdoc *d, const td_section *sec, const char *title)
{
    const td_table *tb = td_sum_find_table(d->s, sec->arg);
    int top = sec->top ? sec->top : 25;
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
    if (td_render_says_nothing(d->s, sec->arg))
        tb = NULL;
    /* the op performance model of ops without device time (MTIA's: shapes and calls,
     * no time, FLOP/s or roofline) models nothing */
    if (tb && !strcmp(sec->arg, "op_perf") && td_table_col(tb, "kernel_ns") >= 0) {
        size_t r = 0;
        while (r < tb->nrows && !(td_row_get_int(tb, r, "kernel_ns") > 0))
            r++;
        if (r == tb->nrows)
            tb = NULL;
    }
    if (tb && d->one_page && !d->brief) {
        /* the rows that fit in what is left of the page (a row may wrap over two lines;
         * the heading, the header row and a note take ONE_PAGE_TABLE), at least three */
        int fit = (int)((d->ybot - d->y - ONE_PAGE_TABLE) / ONE_PAGE_ROW);
        if (fit < 3)
            return 0;
        if (top > fit)
            top = fit;
    }
    if (tb && tb->nrows && top > 0)
        return pd_table(d, tb, top, title ? title : tb->title);
    return 0;
}

/* One section; returns 1 when it drew something. No default case: a kind added to
 * td_pdf_kind without a renderer here is a -Wswitch error. */
static int draw_section(pdoc *d, const td_template *t, const td_section *sec)
{
    const char *title = sec->title[0] ? sec->title : NULL;
    switch (sec->kind.pdf) {
    case TD_PDF_HEADER:
        return pd_header(d, t);
    case TD_PDF_FINDINGS:
        return pd_findings(d, title);
    case TD_PDF_KEYFIGURES:
        return pd_keyfigures(d, title);
    case TD_PDF_BREAKDOWN:
        return pd_breakdown(d, title);
    case TD_PDF_STEPS:
        return pd_steps(d, title);
    case TD_PDF_TELEMETRY:
        return pd_telemetry(d, title);
    case TD_PDF_CHECKLIST:
        return pd_checklist(d, title);
    case TD_PDF_TABLE:
        return sec_table(d, sec, title);
    case TD_PDF_COLLECTIVES:
        return pd_collectives(d, sec);
    case TD_PDF_XLACOLLECTIVES:
        return pd_xla_collectives(d, sec);
    case TD_PDF_VARIABILITY:
        return pd_variability(d, sec);
    case TD_PDF_COMPILE:
        return pd_compile(d, sec);
    case TD_PDF_STACKTRACE:
        return pd_stacktrace(d, sec);
    case TD_PDF_IPU:
        return pd_ipu(d, title);
    case TD_PDF_IPU_TIMELINE:
        return pd_ipu_timeline(d, title);
    case TD_PDF_CRITPATH:
        return pd_critpath(d, title);
    case TD_PDF_FLAME:
        return pd_flame(d, sec->arg, title);
    case TD_PDF_REGRESSION:
        /* the changes and their verdict, nothing without them (issue 21: one judgement) */
        return pd_changes(d, sec);
    case TD_PDF_VERDICT:
        return pd_verdict(d);
    case TD_PDF_TRENDS:
        return pd_trends(d, sec);
    case TD_PDF_WARNINGS:
        return pd_warnings(d, title);
    case TD_PDF_ROOFLINE:
        return pd_roofline(d, title);
    case TD_PDF_MEMORY:
        return pd_memory(d, title);
    case TD_PDF_PAGEBREAK:
        d->pending_break = 1;
        return 0;
    case TD_PDF_NKINDS:
        break;
    }
    return 0;
}

/* A section's `when=` (summary/template.h): the input has no device time when page 1
 * says "Devices none (CPU only)", i.e. trace.devices is 0. */
static int when_holds(const pdoc *d, int when)
{
    if (when == TD_WHEN_ALWAYS)
        return 1;
    const td_kv *kv = td_sum_get(d->s, "trace.devices");
    int cpu_only = kv && kv->v.i == 0;
    return when == TD_WHEN_CPU_ONLY ? cpu_only : !cpu_only;
}

static void draw_doc(pdoc *d, const td_template *t)
{
    pd_page_first(d);
    const td_section *secs = default_sections;
    size_t n = sizeof default_sections / sizeof default_sections[0];
    if (t && t->npdf) {
        secs = t->pdf;
        n = t->npdf;
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(secs[i].arg, "brief"))
            d->one_page = 1;
    for (size_t i = 0; i < n; i++) {
        d->brief = !strcmp(secs[i].arg, "brief");
        if (!when_holds(d, secs[i].when))
            continue;
        /* a one-page document: what does not fit on its page is left out (the workbook
         * has it) */
        if (d->one_page && !d->brief && d->page > 1)
            break;
        if (d->one_page && !d->brief && secs[i].kind.pdf != TD_PDF_TABLE &&
            secs[i].kind.pdf != TD_PDF_REGRESSION && secs[i].kind.pdf != TD_PDF_FINDINGS &&
            d->ybot - d->y < ONE_PAGE_CHART)
            continue;
        if (draw_section(d, t, &secs[i]))
            d->y += 16;
    }
    pd_page_end(d);
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
    /* the font map takes its own reference to the configuration; a FreeType map is a
     * PangoFcFontMap (a plain cast: GObject's checked one is not among gfx.h's calls) */
    pango_fc_font_map_set_config((PangoFcFontMap *)fm, cfg);
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
    char *title = pd_clean_text(d->title);
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
        for (size_t li = 0; li < d->nlinks; li++) {
            const struct pd_link *l = &d->links[li];
            if (l->page != d->page)
                continue;
            /* uri='...' with ' and \ escaped */
            td_buf a = {0};
            td_buf_printf(&a, "rect=[%.2f %.2f %.2f %.2f] uri='", l->x, l->y, l->w, l->h);
            for (const char *p = l->uri; *p; p++) {
                if (*p == '\'' || *p == '\\')
                    td_buf_putc(&a, '\\');
                td_buf_putc(&a, *p);
            }
            td_buf_putc(&a, '\'');
            cairo_tag_begin(d->cr, CAIRO_TAG_LINK, td_buf_cstr(&a));
            cairo_tag_end(d->cr, CAIRO_TAG_LINK);
            td_buf_free(&a);
        }
        pd_page_number(d);
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

/* e's message (status st) named after the output: "PATH: message" */
static td_status named(td_err *e, td_status st, const char *path)
{
    char m[sizeof e->msg];
    snprintf(m, sizeof m, "%s", e->msg);
    return td_fail(e, st, "%s: %s", path, m);
}

td_status td_render_pdf(const td_summary *s, const td_template *t, const td_render_opts *o,
                        const char *path, td_err *e)
{
    td_status st = td_gfx_load(path, e);
    if (st != TD_OK)
        return st;
    PangoFontMap *fm = NULL;
    st = load_fonts(o->fontdir, &fm, e);
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
            st = td_tmp_fail(path, tmp, errno, e);
        else {
            st = write_pdf(&d, &k2, e);
            if (st != TD_OK)
                named(e, st, path);
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
    for (size_t i = 0; i < d.nlinks; i++)
        free(d.links[i].uri);
    free(d.links);
    for (int i = 0; i < PF_N; i++)
        pango_font_description_free(d.font[i]);
    g_object_unref(d.pc);
    /* drop the fonts cached by the map (and with them the configuration) now rather
     * than leaving them to the process exit */
    pango_fc_font_map_shutdown((PangoFcFontMap *)fm);
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
