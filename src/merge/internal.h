/* merge/internal.h - what the files of merge/ share: reading a merged partial's records
 * (merge/records.c) and the XLA tables of a merged partial (merge/xla.c), both used by
 * td_partial_finish (merge/merge.c). Memory: td_part_recs' array is the caller's to free;
 * td_xm_state's state is freed by td_xm_state_free; strings go to the summary's arena. */
#ifndef TD_MERGE_INT_H
#define TD_MERGE_INT_H
#include "partial/internal.h"

/* Reading a merged partial's records (merge/records.c), for merge/merge.c and merge/xla.c */
td_rec **td_part_recs(const td_partial *p, int type, size_t *n);   /* malloc'd */
/* Key field k (0-based) of a record key, copied into buf (cap bytes); returns buf. */
const char *td_part_kfield(const td_rec *r, int k, char *buf, size_t cap);
const char *td_part_kstr(td_summary *s, const td_rec *r, int k);  /* key field k */
int64_t td_part_kint(const td_rec *r, int k);                      /* TD_NA when empty */
td_table *td_part_like(td_summary *s, const td_table *t);         /* same columns */

/* XLA tables of a merged partial (merge/xla.c). kept: the programs above the
 * top-module cut with their names. */
typedef struct td_xkept {
    const int64_t *keys;
    const char *const *names;
    size_t n;
} td_xkept;
typedef struct td_xstate td_xstate;
int td_xm_kept(const td_xkept *k, int64_t key);
td_xstate *td_xm_state(td_summary *s, const td_partial *p);
void td_xm_state_free(td_xstate *X);
/* rt: thunk time less hidden, module time, wall time, busy union (of the kept programs) */
void td_xm_runtime(td_summary *s, const td_partial *p, const td_xstate *X, const td_xkept *k,
                   int64_t rt[4]);
void td_xm_runtime_kv(td_summary *s, const char *key, const char *title, const int64_t rt[4]);
void td_xm_thunks(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k);
void td_xm_hlo_ops(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k);
void td_xm_opcodes(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k,
                   const int64_t rt[4]);
void td_xm_variability(td_summary *s, const td_partial *p, const td_xstate *X);
void td_xm_collectives(td_summary *s, const td_partial *p);
void td_xm_check_devices(td_summary *s, const td_partial *p);

#endif
