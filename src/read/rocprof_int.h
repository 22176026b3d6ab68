/* read/rocprof_int.h - private to the rocprofv3 readers (read/rocprof_*.c): the JSON
 * reader's state, the parsers of its records (read/rocprof_rec.c) and a small int64 map. */
#ifndef TD_READ_ROCPROF_INT_H
#define TD_READ_ROCPROF_INT_H
#include "read/rocprof.h"
#include "read/json_scan.h"

#define MAXF 8
/* memory copies have no queue: they go on one track per agent with this stream id */
#define COPY_STREAM 65535

/* int64 -> u32 (open addressing; 0 values are stored like any other) */

typedef struct {
    int64_t k;
    uint32_t v, used;
} ment;

typedef struct {
    ment *e;
    size_t n, cap;
} imap;

uint32_t *td_rp_imap_put(imap *m, int64_t k); /* find or add (value 0) */
const uint32_t *td_rp_imap_get(const imap *m, int64_t k);

/* ---- shared by the three readers (read/rocprof_rec.c) */

/* Device tracks of (agent, HIP stream), (agent, queue) or (agent, copies), made while
 * reading with a provisional pid and numbered by td_rp_tracks_finish once the agents are
 * known: pid = device = dev_of(agent) (agents it does not know get numbers after the
 * known devices, one per agent), host tracks get the process id. */
enum { TD_RP_QUEUE = 0, TD_RP_STREAM = 1, TD_RP_COPY = 2 };
typedef struct {
    imap map;
    int64_t *agent, *id; uint32_t *tr; uint8_t *what;
    size_t n, cap;
} td_rp_tracks;
uint32_t td_rp_track(td_rp_tracks *k, td_trace *t, int64_t ag, int64_t id, int what);
/* One record as a complete event of the trace (times through td_rp_times, counted in
 * *negdur and *range); the JSON, CSV and rocpd readers all add events through it. */
td_event *td_rp_push(td_trace *t, int64_t ts, int64_t te, int kind, uint32_t track,
                     int64_t corr, uint64_t *negdur, uint64_t *range);

/* The times a record may carry: timestamps in [0, 2^62) ns and a duration of at most
 * 2^48 ns (78 hours). A record outside them (a damaged or hostile file: durations near
 * 2^63 overflow every sum of the analysis) is kept with no duration and counted; 1 when
 * it was. A record that ends before it starts has its duration set to 0 (*neg). */
static inline int td_rp_times(int64_t *ts, int64_t *te, uint64_t *neg)
{
    const int64_t tmax = (int64_t)1 << 62, dmax = (int64_t)1 << 48;
    if (*ts < 0 || *ts >= tmax || *te < 0 || *te >= tmax || (*te > *ts && *te - *ts > dmax)) {
        if (*ts < 0 || *ts >= tmax)
            *ts = 0;
        *te = *ts;
        return 1;
    }
    if (*te < *ts) {
        (*neg)++;
        *te = *ts;
    }
    return 0;
}
void td_rp_tracks_finish(td_rp_tracks *k, td_traceset *set, td_trace *t,
                         int32_t (*dev_of)(const void *ctx, int64_t ag), const void *ctx,
                         int64_t pid);
void td_rp_tracks_free(td_rp_tracks *k);

/* The kernel name rocprofv3 truncates to (`--truncate-kernels`, TraceLens's name): the last
 * identifier before the trailing ()/<>/[] groups of a demangled name, so "void
 * at::native::foo<4, float>(int)" is "foo" and a name without groups stays whole. kernel:
 * the symbol as in the code object ("_Z...", "__amd_rocclr_copyBuffer.kd"), shown: the
 * demangled (formatted) name; either may be NULL. */
td_str td_rp_truncated(td_strtab *s, const char *kernel, const char *shown);
/* What a record of this domain (kind) name is: TD_K_RUNTIME (HIP_*), TD_K_DRIVER (HSA_*),
 * TD_K_USER_ANNOT (MARKER_*, ROCTx) or TD_K_OTHER. */
int td_rp_domain_kind(const char *domain);


enum { C_ROOT, C_TOOLS, C_TOOL, C_STRINGS, C_BUF, C_CB,
       /* arrays of records */
       C_AGENTS, C_KSYMS, C_SKINDS, C_SMARKER, C_DISPATCH, C_API, C_MARKER, C_COPY,
       C_COUNTERS, C_CCOLL };

typedef struct {
    uint8_t ctx, obj, st;   /* st: 0 first, 1 after a value, 2 after a comma */
    uint8_t api;            /* C_API: 1 HIP, 2 HSA, 3 other (RCCL, rocDecode...) */
} frame;

typedef struct {
    int64_t handle;
    int32_t dev;    /* device id (GPU agents), -1 CPU */
    int type;       /* 1 CPU, 2 GPU (rocprofiler_agent_type_t), 0 unknown */
} agent;

typedef struct {
    td_str *ops;
    size_t nops;
    td_str kind;
} kindnames;

enum { P_KERNEL, P_OP, P_MARKER };

typedef struct {
    uint32_t ev;
    uint32_t what;
    int64_t key;    /* kernel id, kind << 32 | operation, correlation id */
    uint32_t kind, op;
} pending;

typedef struct {
    td_traceset *set;
    td_trace *t;
    td_in *in;
    const char *name;
    td_err *e;
    char *buf;
    size_t cap, len;
    uint64_t base;
    int eof;
    td_jscan js;
    frame f[MAXF];
    int nf, done, skipping, trailing;
    td_jskip sk;
    /* tables */
    agent *ag; size_t nag, agcap;
    imap ksym;              /* kernel id -> td_str */
    int seen_ksyms, seen_kinds, seen_markers;
    kindnames *kn; size_t nkn, kncap;
    td_str *tops; size_t ntops, topscap;   /* scratch of parse_kind */
    imap marker;            /* correlation id -> td_str */
    td_rp_tracks tk;        /* device tracks */
    pending *pend; size_t npend, pendcap;
    int64_t pid;
    td_str cat_kernel, cat_copy, cat_marker;
    uint64_t n_negdur, n_range, n_unnamed_marker, n_records;
} rp;

/* Parsers: p at the value ('{' for records); the end of the value, or NULL (c->js.fk). */
const char *td_rp_metadata(rp *c, const char *p, const char *end);
const char *td_rp_agent(rp *c, const char *p, const char *end);
const char *td_rp_ksym(rp *c, const char *p, const char *end);
const char *td_rp_kind(rp *c, const char *p, const char *end);
const char *td_rp_smarker(rp *c, const char *p, const char *end);
const char *td_rp_dispatch(rp *c, const char *p, const char *end);
/* api: 1 HIP, 2 HSA, 3 other; marker: a ROCTx record (buffer_records.marker_api) */
const char *td_rp_api(rp *c, const char *p, const char *end, int api, int marker);
const char *td_rp_copy(rp *c, const char *p, const char *end);
/* Names of kernels and operations (also for the pending list at the end) */
td_str td_rp_kernel_name(rp *c, int64_t id);
td_str td_rp_op_name(rp *c, int64_t kind, int64_t op);
td_str td_rp_kind_name(rp *c, int64_t kind);
const agent *td_rp_find_agent(const rp *c, int64_t handle);

#endif
