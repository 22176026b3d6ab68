/* analyse/ipu.h - Graphcore IPU passes: the detailed execution trace (analyse/ipu.c) and
 * lightweight profiling (analyse/lwp.c), from a td_ipu (read/ipu.h) into the summary
 * tables ipu_step_types, ipu_runs, ipu_steps, ipu_exchanges, ipu_stream_copies,
 * lwp_blocks, ipu_timeline (document-only), the "ipu" flame (cycles) and the ipu.* and
 * lwp.* scalars. doc/formats.md "Graphcore IPU export" states every definition. */
#ifndef TD_ANALYSE_IPU_H
#define TD_ANALYSE_IPU_H
#include "analyse/analyse.h"
#include "model/ipu.h"

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

/* Lightweight-profiling blocks after the overflow rules (doc/formats.md "Graphcore IPU export"),
 * sorted by lane then cycles: what the documents and the Chrome export show. */
enum { TD_LWP_ST_OK = 0, TD_LWP_ST_NOEND, TD_LWP_ST_UNKNOWN };
typedef struct td_lwp_block {
    int64_t from, to;        /* relative cycles (the IPU's first block cycle subtracted) */
    int64_t cycles;          /* measured length, -1 unknown (no end, Unknown) */
    const char *name;        /* Common: the program name; others: the kind; "Unknown" */
    int32_t ipu, lane;       /* lane: global tile, or -1 - ipu for the IPU's I/O lane */
    uint8_t kind, status;    /* TD_LWP_*, TD_LWP_ST_* */
} td_lwp_block;
typedef struct td_lwp {
    td_lwp_block *v; size_t n;
    int64_t *base;           /* per IPU: the subtracted cycle, INT64_MAX when no block */
    size_t extra;            /* Common blocks on tiles not in selectedTiles */
    size_t nsel;             /* tiles with a lane */
    int64_t dropped, noend, unknown, flushes, overflows;
} td_lwp;
void td_lwp_blocks(const td_strtab *strs, const td_ipu *m, int show_flushes, td_lwp *out);
void td_lwp_free(td_lwp *l);

/* Run both passes on every trace of the set that has IPU data (no-op without). Several
 * exports are kept apart: their rows carry a first `report` column (0, 1, ... in input
 * order) and their per-IPU scalars are keyed "ipu.rK.N.what" (see td_ipu_key). */
void td_analyse_ipu(td_traceset *set, const td_opts *o, td_summary *s);
/* Lightweight profiling of m (called by td_analyse_ipu); rep as in td_ipu_key. */
void td_analyse_lwp(const td_strtab *strs, const td_ipu *m, const td_opts *o, td_summary *s,
                    int rep);
/* The key of an IPU scalar: "FAM.WHO.WHAT" ("FAM.WHAT" when who is NULL), or with several
 * exports (rep >= 0, the export's index) "FAM.rREP.WHO.WHAT". */
void td_ipu_key(char *dst, size_t cap, const char *fam, int rep, const char *who,
                const char *what);

#endif
