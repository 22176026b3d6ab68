/* partial/internal.h - the partial summary's state, shared by the files of partial/
 * (records, file format, building a partial), the passes that record into it and the
 * merge (tables from the state). */
#ifndef TD_PARTIAL_INT_H
#define TD_PARTIAL_INT_H
#include "partial/partial.h"

typedef struct td_rtype {
    const char *tag;   /* name in the file */
    int nv;            /* values */
    const char *ops;   /* merge rule per value (partial/partial.c) */
} td_rtype;
extern const td_rtype td_rtypes[TD_R__N];

struct td_seen {
    const char *key, *path;
};

struct td_partial {
    /* header: what parts must share */
    char *tool, *options, *format, *device;
    int64_t world;            /* declared world size, 0 unknown */
    int64_t parts;            /* partial summaries merged (1 for a fresh one) */
    const char *first_path;   /* the first part read (named in refusals) */
    /* scalars (merged by kv rules), table schemas with the per-rank tables' rows,
     * flame kinds and titles, warnings */
    td_summary *acc;
    /* keyed records */
    td_rec *r;
    size_t nr, rcap;
    uint32_t *slot;
    size_t nslot;
    td_arena *a;
    struct td_seen *seen;
    size_t nseen, seen_cap;
    uint32_t *seen_slot;
    size_t nseen_slot;
};

void td_tds_esc(td_buf *b, const char *s);
int td_tds_is_dbl(td_type t);
void td_part_warn(td_summary *s, const char *msg); /* once, at most 200 */
int td_part_xloc_loses(td_partial *p, const char *key, size_t klen, int add);
void td_part_kv(td_partial *p, const char *key, const char *title, td_type t, td_cell v);
td_table *td_part_schema(td_partial *p, const char *name, const char *title, int no_json,
                         int ncols, char **specs, int *map);
void td_part_inst(td_rec *r, const int64_t *inst, int64_t per, int fresh);
td_rec *td_part_find(const td_partial *p, int type, const char *key, size_t klen);
int td_part_has(const td_partial *p, int type, const char *key); /* the record exists */

int td_part_has_type(const td_partial *p, int type);
int td_part_xla_flame(const char *kind); /* device, source, opname */

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
