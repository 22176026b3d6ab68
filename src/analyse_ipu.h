/* analyse_ipu.h - Graphcore IPU passes: the detailed execution trace (analyse_ipu.c) and
 * lightweight profiling (analyse_lwp.c), from a td_ipu (read_ipu.h) into the summary
 * tables ipu_step_types, ipu_runs, ipu_steps, ipu_exchanges, ipu_stream_copies,
 * lwp_blocks, ipu_timeline (document-only), the "ipu" flame (cycles) and the ipu.* and
 * lwp.* scalars. README "Graphcore IPU export" states every definition. */
#ifndef TD_ANALYSE_IPU_H
#define TD_ANALYSE_IPU_H
#include "analyse.h"
#include "read_ipu.h"

/* Step-type categories of the cycle proportions (formats.md sec. 6). */
enum {
    TD_IPU_CAT_ISYNC = 0, TD_IPU_CAT_XSYNC, TD_IPU_CAT_OTE, TD_IPU_CAT_DOEX, TD_IPU_CAT_GEX,
    TD_IPU_CAT_SC, TD_IPU_CAT_OTHER, TD_IPU_NCATS
};
extern const char *const td_ipu_cat_names[TD_IPU_NCATS]; /* "Internal Sync", ... */
int td_ipu_cat(int type);                                /* td_ipu_type -> category */

/* Cycles as nanoseconds at the target's clock (rounded). */
int64_t td_ipu_cycles_ns(const td_ipu *m, int64_t cycles);

/* The ipu_timeline table (created with its columns when absent; not in summary.json). */
void td_ipu_timeline_table(td_summary *s, td_table **out);

/* Run both passes on the first trace of the set that has IPU data (no-op without). */
void td_analyse_ipu(td_traceset *set, const td_opts *o, td_summary *s);
/* Lightweight profiling of m (called by td_analyse_ipu). */
void td_analyse_lwp(td_traceset *set, const td_ipu *m, const td_opts *o, td_summary *s);

#endif
