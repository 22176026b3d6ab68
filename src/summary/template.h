/* summary/template.h - document templates (templates/NAME.tdt): which documents, which sections
 * in what order, with titles and limits. Format (one directive per line, '#' comments):
 *
 *   title = Performance report: {{inputs}}      global keys: title, subtitle, documents,
 *   documents = pdf xlsx svg json csv folded     paper, minwidth, icicle
 *   [pdf]                                        then blocks [pdf] and [xlsx], each a list of
 *   section findings                             "section KIND [ARG] [key=value ...]" lines;
 *   section table kernels top=15 title="Top kernels"   values may be "quoted".
 *
 * See README.md "Templates" for the section kinds and their options. */
#ifndef TD_TEMPLATE_H
#define TD_TEMPLATE_H
#include "summary/summary.h"

enum {
    TD_DOC_PDF = 1, TD_DOC_XLSX = 2, TD_DOC_SVG = 4, TD_DOC_JSON = 8, TD_DOC_CSV = 16,
    TD_DOC_FOLDED = 32, TD_DOC_MD = 64, TD_DOC_JUNIT = 128
};

/* Section kinds, parsed once by td_template_parse; the renderers switch on them (no
 * default case, so -Wswitch names a kind without a renderer). The order is that of
 * td_pdf_sections / td_xlsx_sections, which spell them. */
typedef enum td_pdf_kind {
    TD_PDF_HEADER, TD_PDF_FINDINGS, TD_PDF_KEYFIGURES, TD_PDF_BREAKDOWN, TD_PDF_STEPS,
    TD_PDF_TABLE, TD_PDF_COLLECTIVES, TD_PDF_VARIABILITY, TD_PDF_COMPILE, TD_PDF_FLAME,
    TD_PDF_REGRESSION, TD_PDF_WARNINGS, TD_PDF_PAGEBREAK, TD_PDF_XLACOLLECTIVES,
    TD_PDF_TELEMETRY, TD_PDF_CHECKLIST, TD_PDF_VERDICT, TD_PDF_TRENDS, TD_PDF_STACKTRACE,
    TD_PDF_IPU, TD_PDF_IPU_TIMELINE, TD_PDF_NKINDS
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
} td_section;

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
