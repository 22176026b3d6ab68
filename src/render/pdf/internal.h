/* render/pdf/internal.h - private to the files of render/pdf. They form layers, each
 * calling only the layers below it (tests/deps.py finds no cycle):
 *   pdf.c        the document: section dispatcher (switch over td_pdf_kind), fonts,
 *                writing the pages
 *   overview.c draw.c flame.c trend.c telem.c check.c samba.c ipu.c xla.c roofline.c
 *   memchart.c
 *                the sections; they never call each other nor the dispatcher
 *   table.c      the table drawer (pd_table), used by several sections
 *   chart.c      chart primitives: rules, legends, bars, axes, scatter, ticks
 *   page.c       colours, text, wrapping, the page cursor, headings, notes
 *   gfx.c        loads cairo, pango and fontconfig when the first PDF is drawn (gfx.h)
 * All sizes are PDF points. */
#ifndef TD_RENDER_PDF_INT_H
#define TD_RENDER_PDF_INT_H
#include "render/render.h"
#include "summary/template.h"
#include "render/pdf/gfx.h"

enum { PF_SANS, PF_BOLD, PF_MONO, PF_N };

/* Palette: dark text, greys for rules and zebra rows, one accent per category. */
#define C_TEXT 0x1f2328u
#define C_MUTED 0x5f6670u
#define C_LIGHT 0x8a9099u
#define C_RULE 0xc9ced6u
#define C_ZEBRA 0xf2f4f7u
#define C_ACCENT 0x2f5d8au
#define C_COMP 0x3a6ea5u   /* computation */
#define C_COMM 0xd9822bu   /* exposed communication */
#define C_MEMCPY 0x6a9f58u /* exposed memcpy */
#define C_IDLE 0xd5d9dfu   /* idle */
#define C_WARM 0xe3b35bu   /* warm-up steps */
#define C_SHAREBAR 0xdbe5f0u
#define C_BAD 0xb42318u    /* regressed */
#define C_GOOD 0x2e7d32u   /* improved */

typedef struct pdoc {
    cairo_t *cr;
    PangoContext *pc;
    PangoFontDescription *font[PF_N];
    double pw, ph;        /* page size */
    double x0, x1;        /* content left and right edge */
    double ytop, ybot;    /* content area */
    double y;             /* cursor: top of the next block */
    int page;             /* current page, 1-based */
    int npages;           /* total, known once every page is laid out */
    cairo_surface_t **rec; /* one recording per page, replayed into the PDF at the end */
    size_t nrec, rec_cap;
    struct pd_link {       /* link areas, added to their page when it is replayed (cairo
                            * 1.16 cannot keep tags in a recording) */
        int page;
        double x, y, w, h;
        char *uri;
    } *links;
    size_t nlinks, links_cap;
    cairo_status_t cst;   /* first drawing error of any page */
    int pending_break;    /* "section pagebreak": break before the next thing drawn */
    int brief;            /* the section being drawn was given "brief" (plain-language
                             one-page documents: no hashes, rules or per-device detail) */
    int one_page;         /* a plain-language one-page document (a "brief" section in
                             its template): the sections after page 1's key figures fill
                             the page and never start another (pd_room) */
    int inputs_listed;    /* page 1 listed every input with all its facts (up to four
                             inputs): "table inputs" would repeat it */
    const char *title;    /* filled template title */
    const char *date;     /* shown date */
    const char *version;
    const td_summary *s;
    const td_render_opts *o;
} pdoc;

/* ---- page.c: text and pages ---- */

/* Text: names are drawn as plain text (never markup); control characters become spaces
 * and invalid UTF-8 is repaired. width <= 0: no wrapping. Returns the height drawn. */
void pd_rgb(pdoc *d, uint32_t c);
/* The text as drawn (valid UTF-8, no control characters); g_free() it. */
char *pd_clean_text(const char *s);
PangoLayout *pd_layout(pdoc *d, const char *text, int font, double size, double width,
                       PangoAlignment al, PangoEllipsizeMode ell);
double pd_text(pdoc *d, double x, double y, const char *text, int font, double size,
               double width, PangoAlignment al, PangoEllipsizeMode ell, uint32_t color);
double pd_text_w(pdoc *d, const char *text, int font, double size);
double pd_text_h(pdoc *d, const char *text, int font, double size, double width);

/* A name broken into lines of at most width points at separators (spaces, ',', '/',
 * '.', '_', "::", before '(' or '<'; inside a word only when one token is wider than a
 * line). Returns the cleaned text (free()); line i is its bytes off[i] .. off[i]+len[i].
 * *nlines: the lines used, at most maxlines + 1 (arrays of maxlines + 1); when more than
 * maxlines are needed, line maxlines - 1 holds the whole rest (pd_lines ellipsizes it)
 * and *nlines is maxlines + 1. */
char *pd_wrap(pdoc *d, const char *text, int font, double size, double width, int maxlines,
              int *nlines, size_t *off, size_t *len);
/* Draws n lines from pd_wrap, lh apart; a line wider than width is ellipsized. */
void pd_lines(pdoc *d, double x, double y, const char *t, const size_t *off,
              const size_t *len, int n, int font, double size, double lh, double width,
              uint32_t color);
/* Pages (each laid out on its own recording surface): the first page with its header
 * and footer; the end of the current one; "page N of M" once M is known (drawn on
 * the PDF page by pdf.c when the recordings are replayed). */
void pd_page_first(pdoc *d);
void pd_page_end(pdoc *d);
void pd_page_number(pdoc *d);
/* Start a new page; start one when fewer than h points are left. */
void pd_break(pdoc *d);
void pd_need(pdoc *d, double h);
/* A "section pagebreak" waiting for something to draw takes effect now. */
void pd_pending_break(pdoc *d);
/* Section heading kept on the same page as the next keep points. */
void pd_heading(pdoc *d, const char *title, double keep);
/* A small grey note line (captions, "12 of 340 rows"). */
void pd_note(pdoc *d, const char *text);

/* ---- chart.c: chart primitives ---- */

/* A horizontal rule. */
void pd_hline(pdoc *d, double x0, double x1, double y, double lw, uint32_t c);
/* A row of legend entries (swatch + label), wrapping; advances d->y. */
void pd_legend(pdoc *d, const char *const *label, const uint32_t *color, int n);
/* The same with marker shapes (scatter series): shape i for entry i. */
void pd_legend_shapes(pdoc *d, const char *const *label, const uint32_t *color, int n);
/* A horizontal bar of n segments (fractions of w), labelled with percentages when wide. */
void pd_seg_bar(pdoc *d, double x, double y, double w, double h, const double *frac,
                const uint32_t *col, int n, int labels);
/* Short axis labels: "10 ms", "4 KiB". */
void pd_fmt_tick_ns(char *dst, size_t cap, double ns);
/* A tick step of 1, 2 or 5 times a power of ten near v. */
double pd_nice_step(double v);
void pd_fmt_tick_bytes(char *dst, size_t cap, double b);

/* Axes: a linear axis from 0 (pd_lin_axis, returns the tick step) or a log one. */
typedef struct pd_axis {
    double lo, hi;  /* data range (log10 / log2 exponents when log) */
    int log;        /* 0 linear, 10 or 2 */
    int kind;       /* 0 plain, 1 ns, 2 bytes, 3 GB/s */
} pd_axis;
double pd_lin_axis(pd_axis *a, double max);
/* The position of v between p0 (axis low end) and p1. */
double pd_axis_pos(const pd_axis *a, double v, double p0, double p1);
/* Grid, ticks and labels of the plot area px0..px1 x py0..py1 (ax NULL: no x axis). */
void pd_axes(pdoc *d, const pd_axis *ax, const pd_axis *ay, double ystep, double px0,
             double px1, double py0, double py1, const char *xlabel, const char *ylabel);

/* Scatter plots: log10 x axis (log2 for bytes); y linear from 0, or log10 (ylog,
 * positive values only). Axis kinds: 0 plain, 1 ns, 2 bytes, 3 GB/s. */
typedef struct spt {
    double x, y;
    uint32_t color;
    int shape; /* 0 circle, 1 square, 2 triangle, 3 diamond */
} spt;
void pd_scatter(pdoc *d, const spt *p, size_t n, int xkind, int ykind, int ylog,
                const char *xlabel, const char *ylabel);

/* The gpu_timeline row for all devices (device -1, "trace" scope preferred, positive
 * total), or NULL. */
const td_table *pd_timeline_all(const td_summary *s, size_t *row);

/* ---- table.c ---- */

/* The top rows of t under title; returns 1 when it drew something (as every drawer). */
int pd_table(pdoc *d, const td_table *t, int top, const char *title);

/* ---- the sections, called by pdf.c's dispatcher only ---- */

/* overview.c: the text sections. */
int pd_header(pdoc *d, const td_template *t);
int pd_findings(pdoc *d, const char *title);
int pd_keyfigures(pdoc *d, const char *title);
int pd_compile(pdoc *d, const td_section *sec);
int pd_warnings(pdoc *d, const char *title);
/* draw.c: device time. */
int pd_breakdown(pdoc *d, const char *title);
int pd_steps(pdoc *d, const char *title);
int pd_critpath(pdoc *d, const char *title); /* render/pdf/critpath.c */
int pd_collectives(pdoc *d, const td_section *sec);
int pd_variability(pdoc *d, const td_section *sec);
int pd_flame(pdoc *d, const char *kind, const char *title); /* flame.c */
int pd_telemetry(pdoc *d, const char *title);                /* telem.c */
int pd_checklist(pdoc *d, const char *title);                /* check.c */
/* trend.c: the verdict line, the changes (with counts and comparability), the trend
 * charts. */
int pd_verdict(pdoc *d);
int pd_changes(pdoc *d, const td_section *sec);
int pd_trends(pdoc *d, const td_section *sec);
int pd_stacktrace(pdoc *d, const td_section *sec); /* samba.c */
int pd_ipu(pdoc *d, const char *title);          /* ipu.c: IPU cycle proportions + tile balance */
int pd_ipu_timeline(pdoc *d, const char *title); /* ipu.c: IPU flat timeline; LWP lanes */
/* xla.c: XLA collectives per instance: bus bandwidth and wait multiple against message
 * size, the straggler-wait histogram, the worst instances. */
int pd_xla_collectives(pdoc *d, const td_section *sec);
int pd_roofline(pdoc *d, const char *title); /* roofline.c: op_perf against the roofs */
int pd_memory(pdoc *d, const char *title);   /* memchart.c: allocated/reserved over time */

#endif
