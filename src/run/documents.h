/* run/documents.h - the documents of a report, written from the table of documents
 * (summary/template.h TD_DOCUMENTS): the files they make and the loop that writes them.
 * Never prints: the time each document took goes to the caller's callback. */
#ifndef TD_RUN_DOCUMENTS_H
#define TD_RUN_DOCUMENTS_H
#include "render/render.h"

/* CSV file name of a summary table: dots become '_' ("compile.phases" ->
 * "compile_phases.csv"). */
void td_docs_csv_name(const char *table, char *dst, size_t cap);

/* Names (no directory) of every file the documents in mask (TD_DOC_*) write for s, in
 * the table's order: a malloc'd array of malloc'd strings; free with td_docs_files_free. */
char **td_docs_files(const td_summary *s, unsigned mask, size_t *n);
void td_docs_files_free(char **names, size_t n);

/* Called after each document with its name ("pdf") and the nanoseconds it took. */
typedef void td_docs_timed(void *ctx, const char *doc, int64_t ns);

/* Write the documents in mask into the directory dir (which exists), in the table's
 * order; stops at the first error. timed may be NULL. */
td_status td_docs_write(const td_summary *s, const td_template *t, const td_render_opts *r,
                        const char *dir, unsigned mask, td_docs_timed *timed, void *ctx,
                        td_err *e);

#endif
