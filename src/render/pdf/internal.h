/* render/pdf/internal.h - private to render_pdf*.c: the page cursor, text helpers and the
 * section drawers shared by render/pdf/pdf.c (document, pages, text sections) and
 * render/pdf/draw.c (tables, charts, flamegraphs). All sizes are PDF points. */
#ifndef TD_RENDER_PDF_INT_H
#define TD_RENDER_PDF_INT_H
#include "render/render.h"
#include "summary/template.h"
#include <cairo.h>
#include <pango/pangocairo.h>

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
    cairo_status_t cst;   /* first drawing error of any page */
    int pending_break;    /* "section pagebreak": break before the next thing drawn */
    int brief;            /* the section being drawn was given "brief" (plain-language
                             one-page documents: no hashes, rules or per-device detail) */
    int inputs_listed;    /* page 1 listed every input with all its facts (up to four
                             inputs): "table inputs" would repeat it */
    const char *title;    /* filled template title */
    const char *date;     /* shown date */
    const char *version;
    const td_summary *s;
    const td_render_opts *o;
} pdoc;

/* Text: names are drawn as plain text (never markup); control characters become spaces
 * and invalid UTF-8 is repaired. width <= 0: no wrapping. Returns the height drawn. */
void pd_rgb(pdoc *d, uint32_t c);
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
/* Pages: start a new page when fewer than h points are left. */
void pd_break(pdoc *d);
void pd_need(pdoc *d, double h);
/* Section heading kept on the same page as the next keep points. */
void pd_heading(pdoc *d, const char *title, double keep);
/* A horizontal rule. */
void pd_hline(pdoc *d, double x0, double x1, double y, double lw, uint32_t c);
/* A small grey note line (captions, "12 of 340 rows"). */
void pd_note(pdoc *d, const char *text);

/* A row of legend entries (swatch + label), wrapping; advances d->y. */
void pd_legend(pdoc *d, const char *const *label, const uint32_t *color, int n);
/* A horizontal bar of n segments (fractions of w), labelled with percentages when wide. */
void pd_seg_bar(pdoc *d, double x, double y, double w, double h, const double *frac,
                const uint32_t *col, int n, int labels);

/* Drawers in render/pdf/table.c, render/pdf/draw.c and render/pdf/ipu.c; each returns 1 when
 * it drew something. */
int pd_table(pdoc *d, const td_table *t, int top, const char *title);
int pd_breakdown(pdoc *d, const char *title);
int pd_steps(pdoc *d, const char *title);
int pd_collectives(pdoc *d, const td_section *sec);
int pd_variability(pdoc *d, const td_section *sec);
int pd_flame(pdoc *d, const char *kind, const char *title);
int pd_telemetry(pdoc *d, const char *title); /* render/pdf/telem.c */
int pd_checklist(pdoc *d, const char *title); /* render/pdf/check.c */
/* render/pdf/trend.c: the verdict line, the changes (with counts and comparability), the
 * trend charts. */
int pd_verdict(pdoc *d);
int pd_changes(pdoc *d, const td_section *sec);
int pd_trends(pdoc *d, const td_section *sec);
int pd_stacktrace(pdoc *d, const td_section *sec); /* render/pdf/samba.c */
int pd_ipu(pdoc *d, const char *title);          /* IPU cycle proportions + tile balance */
int pd_ipu_timeline(pdoc *d, const char *title); /* IPU flat timeline; LWP lanes */

/* The gpu_timeline row for all devices (device -1, "trace" scope preferred, positive
 * total), or NULL. */
const td_table *pd_timeline_all(const td_summary *s, size_t *row);

/* XLA device time without a gpu_timeline: part[0] busy inside modules (thunk intervals
 * merged), part[1] idle inside modules, part[2] idle between modules, from the runtime.*
 * scalars; they add up to runtime.wall_ns. Returns 0 when the scalars are missing. */

/* Scatter plots (render/pdf/draw.c): log10 x axis; y linear from 0, or log10 (ylog,
 * positive values only). Axis kinds: 0 plain, 1 ns, 2 bytes, 3 GB/s. */
typedef struct spt {
    double x, y;
    uint32_t color;
    int shape; /* 0 circle, 1 square, 2 triangle, 3 diamond */
} spt;
void pd_scatter(pdoc *d, const spt *p, size_t n, int xkind, int ykind, int ylog,
                const char *xlabel, const char *ylabel);
void pd_legend_shapes(pdoc *d, const char *const *label, const uint32_t *color, int n);
/* XLA collectives per instance (render/pdf/xla.c): bus bandwidth and wait multiple
 * against message size, the straggler-wait histogram, the worst instances. */
int pd_xla_collectives(pdoc *d, const td_section *sec);
/* Short axis labels: "10 ms", "4 KiB". */
void pd_fmt_tick_ns(char *dst, size_t cap, double ns);
void pd_fmt_tick_bytes(char *dst, size_t cap, double b);

#endif
