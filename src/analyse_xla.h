/* analyse_xla.h - what the XLA pass's files share (internal to analyse_xla*.c):
 * module and thunk records, the int64 -> index map, NVTX payload fields, and the
 * HLO dump decoder (analyse_xla_hlo.c). */
#ifndef TD_ANALYSE_XLA_H
#define TD_ANALYSE_XLA_H
#include "analyse.h"
#include <string.h>

static inline int xla_starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* int64 key -> index, open addressing; grows at half load; the first value put wins */
typedef struct xla_idmap {
    int64_t *k;
    uint32_t *v;
    size_t cap, n;
} xla_idmap;
void xla_idmap_init(xla_idmap *m, size_t n);
void xla_idmap_put(xla_idmap *m, int64_t k, uint32_t v);
int64_t xla_idmap_get(const xla_idmap *m, int64_t k);   /* -1 when absent */
void xla_idmap_free(xla_idmap *m);

/* Value of "key=" inside an NVTX payload "#a=1,b=2#" (up to ',' or '#'). */
int xla_field(const char *s, const char *key, const char **v, size_t *n);

#define XLA_MAXUP 256   /* deepest ancestor walk: NVTX nesting never comes close */

/* ---- records ---- */

typedef struct xmod {
    int tr;             /* trace index */
    size_t ri;          /* range index */
    td_str name;        /* hlo_module */
    int64_t program;    /* program_id in this trace, -1 unknown */
    int64_t key;        /* program key: the smallest program id with the same HLO
                         * fingerprint (nsys-jax keys programs by fingerprint) */
    int64_t exec;       /* execution index per (device, key) */
    int32_t device;
    int64_t tid;
    int64_t s, e;       /* projected GPU times */
    int64_t nthunks;
    int steady;
    int top;            /* program kept by the top-module cut */
} xmod;

typedef struct xthunk {
    size_t mod;         /* index into mods */
    td_str inst;        /* hlo_op value: instruction name, e.g. fusion.12 */
    td_str kind;        /* op kind: instruction name without its .N suffix */
    int64_t s, e;
    int64_t exec;       /* ThunkExecution: n-th run of this instruction in the module run */
    int64_t hidden;     /* overlap with compute thunks of the same program and device */
    int comm;
    int64_t bytes;      /* collective message size from the HLO dump, -1 unknown */
    int32_t group;      /* replica group size from the HLO dump, 0 unknown */
    td_str dtype;       /* collective element type, 0 unknown */
    td_str opcode;      /* HLO opcode of the instruction from the dump, 0 unknown */
    int32_t hlo;        /* index of the decoded dump (xctx.hlo), -1 none */
    int32_t hinst;      /* instruction index in that dump, -1 none */
} xthunk;

typedef struct xla_sv { const char *p; size_t l; } xla_sv;

/* One decoded after-optimisation HloProto (analyse_xla_hlo.c). Strings point into buf. */
typedef struct xla_hinst {
    const char *name; size_t namel;
    const char *op; size_t opl;
    const char *op_name; size_t op_namel;   /* OpMetadata.op_name, may be empty */
    int32_t frame;                          /* OpMetadata.stack_frame_id, 0 none */
    int64_t id, comp;
    size_t calls, ncalls;                   /* called computation ids in xla_hlo.ids */
    /* collectives: */
    const char *ctype;  /* allreduce, allgather, ... or NULL */
    int64_t bytes;
    int32_t group;
    const char *dtype;
} xla_hinst;

typedef struct xla_hlo {
    const td_hlo_dump *d;
    int tr;
    int want_all;       /* decode every instruction (views), not only collectives */
    uint8_t *buf;
    char fingerprint[72];       /* frontend attribute fingerprint_before_lhs, "" none */
    xla_hinst *in; size_t nin;  /* sorted by name */
    size_t *byid; size_t nbyid; /* instruction indices sorted by id */
    int64_t *ids; size_t nids;
    size_t *bycomp;             /* instruction indices sorted by computation id */
    /* stack frame index: file names, function names, locations, frames */
    xla_sv *fn; size_t nfn;
    xla_sv *fu; size_t nfu;
    int32_t (*loc)[4]; size_t nloc;      /* file, function, line, column */
    int32_t (*frm)[2]; size_t nfrm;      /* location, parent */
    char **fcache;                       /* rendered stack per frame id (lazily) */
} xla_hlo;

/* Decode the dumps (on two threads); each job's d/tr/want_all are set by the caller. */
void xla_hlo_decode_all(xla_hlo *jobs, size_t n);
/* Decode one serialized (not compressed) HloProto of n bytes; h->want_all set by the
 * caller (the fuzz harness and tests use it; the dumps go through xla_hlo_decode_all). */
void xla_hlo_decode_pb(xla_hlo *h, const uint8_t *bytes, size_t n);
void xla_hlo_free(xla_hlo *h);
/* Instruction by name, or NULL. */
const xla_hinst *xla_hlo_find(const xla_hlo *h, const char *name, size_t len);
/* Instructions of computation comp: indices into h->in from *first, count returned. */
size_t xla_hlo_comp(const xla_hlo *h, int64_t comp, size_t *first);
/* Append the stack of frame id (outermost first) to b as "file:line[:col][function]"
 * frames separated by ';'. Returns the number of frames. */
int xla_hlo_frames(xla_hlo *h, int32_t frame, td_buf *b);
/* ... non-zero when the frame gives at least one Python frame (cached per dump). */

typedef struct xctx {
    td_traceset *set;
    const td_opts *o;
    td_summary *s;
    xmod *m; size_t nm, mcap;
    xthunk *th; size_t nth, thcap;
    xla_hlo *hlo; size_t nhlo;
    struct td_partial *part;   /* summarize: the additive state is recorded here too */
} xctx;

/* Compile statistics of every trace: compile.total_ns, compile.phases, the compile
 * flame; the program ids compiled inside the profile (sorted, malloc'd) in *seen.
 * analyse_xla_compile.c */
void xla_compile(xctx *x, int64_t **seen, size_t *nseen);

/* Collectives table and the per-instance views. analyse_xla_coll.c */
const char *xla_comm_type(const char *kind);
void xla_collectives(xctx *x);

/* HLO opcode table, the source and op_name flamegraphs, op_name of top thunks.
 * analyse_xla_views.c */
void xla_views(xctx *x, int64_t thunks_ns, int64_t modules_ns, int64_t wall_ns);
void xla_variability(xctx *x);

#endif
