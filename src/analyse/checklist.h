/* analyse/checklist.h - the performance-report checklist (torch-spyre methodology): table
 * `checklist` (`item`, `ok`, `detail`) made from a finished summary. */
#ifndef TD_CHECKLIST_H
#define TD_CHECKLIST_H
#include "summary/summary.h"

void td_checklist(td_summary *s);

#endif
