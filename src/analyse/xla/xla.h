/* analyse/xla/xla.h - what the XLA pass's files share (internal to the files of analyse/xla/):
 * module and thunk records, the int64 -> index map, NVTX payload fields, and the
 * HLO dump decoder (analyse/xla/hlo.c). */
#ifndef TD_ANALYSE_XLA_H
#define TD_ANALYSE_XLA_H
#include "analyse/analyse.h"
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

/* One decoded after-optimisation HloProto (analyse/xla/hlo.c). Strings point into buf. */
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
    int shared;         /* the decoded module (buf .. frm) is a twin's: not freed here */
} xla_hlo;

/* Decode the dumps all[first .. first + n) (on two threads); each job's d/tr are set by the
 * caller. A dump whose compressed bytes equal those of a job before it in all[] (decoded
 * by an earlier call or this one) is decoded once: the later job shares the decoded
 * module (shared = 1), which is read-only from then on. */
void xla_hlo_decode_all(xla_hlo *all, size_t first, size_t n);
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
 * analyse/xla/compile.c */
void xla_compile(xctx *x, int64_t **seen, size_t *nseen);

/* Collectives table and the per-instance views. analyse/xla/coll.c */
const char *xla_comm_type(const char *kind);
void xla_collectives(xctx *x);
/* One steady communication thunk: a member of the instance (program key, execution,
 * instruction, thunk execution) on one device. */
typedef struct xla_ci {
    int64_t key, exec, thexec;
    const char *inst, *type, *dtype;   /* dtype NULL unknown */
    int32_t device, group;             /* group 0 unknown */
    int64_t s, e, hidden, bytes;       /* bytes -1 unknown */
} xla_ci;
/* The collective_instances, collective_wait_histogram and collectives tables from the
 * members (sorted here) of every instance; devs: every device of the job (ndev <= 256);
 * multi: the job has XLA ranges in more than one trace. Shared with the merge of
 * partial summaries (merge/xla.c), so both compute the same. */
void xla_coll_tables(td_summary *s, xla_ci *c, size_t nc, const int32_t *devs, int ndev,
                     int multi);
xla_ci *xla_comm_thunks(xctx *x, size_t *n);   /* malloc'd */
int xla_devices(const xctx *x, int32_t *devs); /* devices of every module, first seen */

/* A location of the flamegraphs, before it is spelled out: level 0 = the Python
 * frames of a stack frame id of dump hidx (+ op_name when op is set), level 1 =
 * "[Unknown]" + op_name, level 2 = "[Unknown]"; opname: level 3 = op_name split on
 * '/'. Keys pack these so that locations are compared as integers. */
typedef struct loc { int level; int32_t hidx, frame; td_str op; double ns; } loc;
/* distinct locations of one preference level */
typedef struct lset { loc *l; size_t n, cap; } lset;
/* scratch of xla_thunk_locs */
typedef struct xla_hlist { const xla_hinst **v; size_t cap; td_buf b; } xla_hlist;
void xla_thunk_locs(xctx *x, const xthunk *h, lset *src, lset *opn, xla_hlist *list);
/* the folded stack of a location, in b */
void xla_loc_spell(xctx *x, const loc *l, td_buf *b);

/* HLO opcode table, the source and op_name flamegraphs, op_name of top thunks.
 * analyse/xla/views.c */
void xla_views(xctx *x, int64_t thunks_ns, int64_t modules_ns, int64_t wall_ns);
void xla_variability(xctx *x);
/* one (program, instruction) of the variability table; the table from nr of them
 * (sorted here; shared with the merge of partial summaries) */
typedef struct xla_vrow {
    int64_t key;
    const char *inst, *mod;   /* mod NULL unknown */
    int64_t n;
    double mean, sd, cov;
    int det;
} xla_vrow;
void xla_variability_table(td_summary *s, xla_vrow *rw, size_t nr);

/* summarize: the XLA state of the partial summary x->part (analyse/xla/part.c) */
void xla_part_record(xctx *x, int any_comm);

#endif
