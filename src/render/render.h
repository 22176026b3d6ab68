/* render/render.h - documents from a summary. Renderers compute no statistics: every number
 * comes from the summary. Each writes to a temporary name and renames on success. */
#ifndef TD_RENDER_H
#define TD_RENDER_H
#include "summary/summary.h"
#include "summary/template.h"

typedef struct td_render_opts {
    const char *paper;     /* "a4" (default) or "letter" */
    int64_t epoch;         /* SOURCE_DATE_EPOCH or 0: the date shown and stored */
    double minwidth;       /* flamegraph pruning (fraction of total) */
    int icicle;            /* SVG top-down */
    const char *version;   /* tracedoc version string */
    const char *fontdir;   /* directory with the project's fonts (fonts/) */
} td_render_opts;

/* ---- the documents of a report (the table is summary/template.h's TD_DOCUMENTS) ---- */

/* What a document's writer gets: the summary, the template, the options, and for a
 * document of a file per table or flame (EACH in the table) the one to write. */
typedef struct td_doc_job {
    const td_summary *s;
    const td_template *t;
    const td_render_opts *r;
    const td_table *table; /* EACH TABLE: this file's table, else NULL */
    const td_flame *flame; /* EACH FLAME: this file's flame, else NULL */
} td_doc_job;

/* Writes one file of a document at path (the output directory and the table's FILE).
 * A writer of a file per flame may return TD_OK without writing for a flame that has
 * nothing to draw. */
typedef td_status td_doc_write(const td_doc_job *j, const char *path, td_err *e);

/* Interactive SVG of one flamegraph. subtitle: input names, etc. */
td_status td_render_svg(const td_summary *s, const td_flame *fl, const td_render_opts *o,
                        const char *path, td_err *e);
/* PDF summary laid out by the template's [pdf] sections. */
td_status td_render_pdf(const td_summary *s, const td_template *t, const td_render_opts *o,
                        const char *path, td_err *e);
/* Excel workbook laid out by the template's [xlsx] sections. */
td_status td_render_xlsx(const td_summary *s, const td_template *t, const td_render_opts *o,
                         const char *path, td_err *e);

/* 1 when a summary table says nothing for this input (one module at 100%,
 * thunks without XLA modules): the PDF and the workbook leave it out (render/quiet.c). */
int td_render_says_nothing(const td_summary *s, const char *table);

/* Markdown for a CI comment (render/md.c): verdict, run metadata, changes by severity,
 * comparability, findings. */
td_status td_render_md(const td_summary *s, const char *path, td_err *e);
/* JUnit XML (render/junit.c): one test case per judged metric (table `comparisons`). */
td_status td_render_junit(const td_summary *s, const char *path, td_err *e);

#endif
