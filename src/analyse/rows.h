/* analyse/rows.h - the row writers of the summary tables that a pass and the merge both
 * fill (analyse/rows.c): one writer per table, fed by the same statistics from the pass
 * (the samples of one trace set) and from the merge (a merged partial summary). */
#ifndef TD_ANALYSE_ROWS_H
#define TD_ANALYSE_ROWS_H
#include "analyse/analyse.h"

/* The top-module cut of formats.md sec. 4, shared by the Kineto and XLA module passes.
 * Module totals are read at first_total, stride bytes apart, n modules sorted by total
 * time, largest first; sum is their sum. The smallest modules that together make less
 * than threshold x sum are dropped: *keep is how many leading modules stay. Sets the
 * module_cut.* scalars and returns the `modules` table (contract columns, no rows). */
td_table *td_modules_cut(td_summary *s, const char *title, double threshold,
                         const int64_t *first_total, size_t stride, size_t n, int64_t sum,
                         size_t *keep);

/* Kineto's modules table for documents: a module is a step or a --module-pattern range,
 * so XLA's columns (program, thunks per execution) are left out of the documents, and
 * the note says what the times add up (why Total can exceed the traced time). */
void td_modules_kineto(td_table *t);

#endif
