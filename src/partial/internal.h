/* partial/internal.h - the partial summary's state, shared by the files of partial/
 * (records, file format, building a partial), the passes that record into it and the
 * merge (tables from the state). */
#ifndef TD_PARTIAL_INT_H
#define TD_PARTIAL_INT_H
#include "partial/partial.h"
#include "base/hash.h"
#include <string.h>

/* Hash of a key for the in-memory tables of a partial (never stored). */
static inline uint64_t td_part_hash(const char *s, size_t len)
{
    return td_hash_words(0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull), s, len);
}

typedef struct td_rtype {
    const char *tag;   /* name in the file */
    int nv;            /* values */
    const char *ops;   /* merge rule per value (partial/partial.c) */
} td_rtype;
extern const td_rtype td_rtypes[TD_R__N];

/* The flame stacks (partial/stacks.c): each key cut at its first ';' into two interned
 * strings; stacks in the order first added. */
typedef struct td_pstk {
    uint32_t head, tail;
    int64_t v;
} td_pstk;
typedef struct td_pstacks {
    const char **str;        /* interned strings (in blocks) */
    uint32_t *slen;
    uint64_t *shash;
    size_t nstr, strcap;
    uint32_t *sslot;
    size_t nsslot;
    uint32_t last_head;
    struct sblock *blocks;
    td_pstk *e;              /* the stacks */
    size_t n, cap;
    struct td_phead *hd;     /* per interned string (as a head): its tails' table */
    size_t hdcap;
} td_pstacks;
typedef struct td_pstack {   /* one stack: key = head + tail */
    const char *head, *tail;
    size_t hlen, tlen;
    int64_t value;
} td_pstack;

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
    int overflow;             /* a sum overflowed 64 bits while merging (td_part_add) */
    td_pstacks stk;           /* the flame records */
    int no_stacks;            /* td_partial_finish builds no flame stacks */
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
/* Flame records (partial/stacks.c): add v to stack key ("KIND<0x1f>STACK"); 0 when the
 * sum overflows 64 bits (p->overflow set). Stack i (0 .. p->stk.n - 1) into *out. */
int td_part_stack_add(td_partial *p, const char *key, size_t klen, int64_t v);
void td_part_stack_get(const td_partial *p, size_t i, td_pstack *out);
void td_part_stacks_free(td_pstacks *t);
int td_part_xla_flame(const char *kind); /* device, source, opname */

#endif
