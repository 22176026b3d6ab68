/* summary/template.h - document templates (templates/NAME.tdt): which documents, which sections
 * in what order, with titles and limits. Format (one directive per line, '#' comments):
 *
 *   title = Performance report: {{inputs}}      global keys: title, subtitle, documents,
 *   documents = pdf xlsx svg json csv folded     paper, minwidth, icicle
 *   [pdf]                                        then blocks [pdf] and [xlsx], each a list of
 *   section findings                             "section KIND [ARG] [key=value ...]" lines;
 *   section table kernels top=15 title="Top kernels"   values may be "quoted".
 *
 * See doc/templates.md "Templates" for the section kinds and their options. */
#ifndef TD_TEMPLATE_H
#define TD_TEMPLATE_H
#include "summary/summary.h"

/* The documents a report writes: THE table of them, one row each, in the order a report
 * writes them. Every list of documents (`documents =`, --format, their error messages,
 * the files a report writes, its manifest, the loop that writes them) comes from it:
 * adding a document is a row here and its writer.
 *
 *   X(ID, BIT, NAME, FILE, EACH, WRITER)
 *   ID      TD_DOC_ID, the mask bit BIT (bits never change: they order the help's lists)
 *   NAME    its name in `documents =` and --format
 *   FILE    the file it writes in the output directory; with EACH, a pattern whose %s is
 *           the table name (dots as '_') or the flame kind
 *   EACH    ONE (one file), TABLE (a file per summary table), FLAME (a file per flame),
 *           STACKS (a file per flame that has stacks, td_flame_has_stacks)
 *   WRITER  a td_doc_write (render/render.h) that writes one file; run/documents.c has
 *           those of the documents below. Only run/documents.c expands this column. */
#define TD_DOCUMENTS(X)                                                        \
    X(XLSX, 2, "xlsx", "report.xlsx", ONE, td_doc_xlsx)                       \
    X(JSON, 8, "json", "summary.json", ONE, td_doc_json)                      \
    X(CSV, 16, "csv", "%s.csv", TABLE, td_doc_csv)                            \
    X(MD, 64, "md", "report.md", ONE, td_doc_md)                              \
    X(JUNIT, 128, "junit", "junit.xml", ONE, td_doc_junit)                    \
    X(FOLDED, 32, "folded", "%s.folded", FLAME, td_doc_folded)                \
    X(SVG, 4, "svg", "flame-%s.svg", STACKS, td_doc_svg)                      \
    X(PDF, 1, "pdf", "report.pdf", ONE, td_doc_pdf)

enum {
#define TD_DOC_ENUM_(id, bit, name, file, each, writer) TD_DOC_##id = bit,
    TD_DOCUMENTS(TD_DOC_ENUM_)
#undef TD_DOC_ENUM_
};

/* The mask bit of document NAME ("pdf"), or 0 when there is no such document. */
unsigned td_doc_bit(const char *name);
/* The document names, by bit, for messages: "pdf, xlsx, svg, json, csv, folded, md, junit". */
const char *td_doc_names(void);

/* Section kinds, parsed once by td_template_parse; the renderers switch on them (no
 * default case, so -Wswitch names a kind without a renderer). The order is that of
 * td_pdf_sections / td_xlsx_sections, which spell them. */
typedef enum td_pdf_kind {
    TD_PDF_HEADER, TD_PDF_FINDINGS, TD_PDF_KEYFIGURES, TD_PDF_BREAKDOWN, TD_PDF_STEPS,
    TD_PDF_TABLE, TD_PDF_COLLECTIVES, TD_PDF_VARIABILITY, TD_PDF_COMPILE, TD_PDF_FLAME,
    TD_PDF_REGRESSION, TD_PDF_WARNINGS, TD_PDF_PAGEBREAK, TD_PDF_XLACOLLECTIVES,
    TD_PDF_TELEMETRY, TD_PDF_CHECKLIST, TD_PDF_VERDICT, TD_PDF_TRENDS, TD_PDF_STACKTRACE,
    TD_PDF_IPU, TD_PDF_IPU_TIMELINE, TD_PDF_ROOFLINE, TD_PDF_MEMORY, TD_PDF_CRITPATH,
    TD_PDF_NKINDS
} td_pdf_kind;
typedef enum td_xlsx_kind {
    TD_XLSX_SUMMARY, TD_XLSX_TABLE, TD_XLSX_REGRESSION, TD_XLSX_TRENDS, TD_XLSX_NKINDS
} td_xlsx_kind;

typedef struct td_section {
    union {
        td_pdf_kind pdf;   /* in t->pdf */
        td_xlsx_kind xlsx; /* in t->xlsx */
    } kind;
    char arg[64];      /* e.g. table name "kernels", flame kind "device"; "" if none */
    char title[256];   /* "" = the default title */
    int top;           /* top-N rows; 0 = the section's default */
    double threshold;  /* < 0 = unset */
    int line;          /* line in the template file */
    int when;          /* td_when: drawn only for inputs of one kind (PDF sections) */
} td_section;

/* `when=` of a PDF section: always (the default), only when the input has no device
 * time (`when=cpu-only`: page 1's "Devices none (CPU only)", trace.devices 0), or only
 * when it has (`when=device`). */
typedef enum td_when { TD_WHEN_ALWAYS, TD_WHEN_CPU_ONLY, TD_WHEN_DEVICE } td_when;

typedef struct td_template {
    char path[512];
    char title[256];
    char subtitle[256];
    unsigned documents;   /* TD_DOC_* mask */
    char paper[16];       /* "" = default */
    double minwidth;      /* < 0 = unset */
    int icicle;
    double tolerance;     /* regression minimum effect (`tolerance = F`); < 0 = unset */
    struct td_tolerance *tols; size_t ntols, tols_cap; /* `tolerance.PREFIX = F` */
    td_section *pdf; size_t npdf, pdf_cap;
    td_section *xlsx; size_t nxlsx, xlsx_cap;
} td_template;

/* The section kinds' names per block, indexed by td_pdf_kind / td_xlsx_kind
 * (NULL-terminated), for parsing, messages and the README. */
extern const char *const td_pdf_sections[TD_PDF_NKINDS + 1];
extern const char *const td_xlsx_sections[TD_XLSX_NKINDS + 1];

/* Load NAME (a template in dir, e.g. "bug-report") or a FILE path (contains '/' or
 * ends in .tdt). Errors: "FILE:LINE: expected ..." with TD_E_USAGE. Caller frees.
 * Loading also checks that every `table NAME` is a table tracedoc writes (td_table_names);
 * td_template_parse checks the syntax only (tests render fixture tables through it). */
td_status td_template_load(const char *name_or_path, const char *dir, td_template **out, td_err *e);
td_status td_template_parse(const char *path, const char *text, td_template **out, td_err *e);
void td_template_free(td_template *t);

/* Fill {{key}} placeholders from the summary's scalar values (e.g. {{inputs}},
 * {{date}}, {{runtime.wall_ns}} formatted with units). Unknown keys stay as they are.
 * Returns malloc'd text. */
char *td_template_fill(const char *text, const td_summary *s);

#endif
