/* analyse/internal.h - state shared by the analysis passes (analyse_*.c), not exported.
 *
 * td_analyse builds one td_tctx per trace (nesting, correlation links, steps), then
 * each pass reads them and writes its tables into the summary. Arrays in td_tctx are
 * malloc'd and freed by td_actx_free. */
#ifndef TD_ANALYSE_INT_H
#define TD_ANALYSE_INT_H
#include "analyse/analyse.h"
#include "analyse/rows.h"
#include "base/sort.h"
#include <regex.h>

/* Only the passes that record into a partial summary include partial/partial.h. */
typedef struct td_partial td_partial;

/* ---- interval sets (analyse/interval.c) ---- */

/* A half-open time interval [s, e) in ns. */
typedef struct td_iv {
    int64_t s, e;
} td_iv;

/* Sort by start and merge overlapping/touching intervals in place; returns the new
 * count. Empty intervals (e <= s) are dropped. */
size_t td_iv_merge(td_iv *v, size_t n);
int64_t td_iv_len(const td_iv *v, size_t n);                 /* sum of lengths */
/* |A n B| for two merged lists. */
int64_t td_iv_overlap(const td_iv *a, size_t na, const td_iv *b, size_t nb);
/* |[s,e) n A| for a merged list (binary search). */
int64_t td_iv_overlap1(const td_iv *a, size_t na, int64_t s, int64_t e);
/* A u B of two merged lists, malloc'd, merged; *n receives the count. */
td_iv *td_iv_union(const td_iv *a, size_t na, const td_iv *b, size_t nb, size_t *n);

/* formats.md sec.5 on raw (unmerged) interval lists; the lists are copied.
 * out: computation, exposed_comm, exposed_memcpy, busy, idle, total, total_comm,
 * total_memcpy (ns). total = last end - first start over all three lists. */
enum { TL_COMP, TL_XCOMM, TL_XMEMCPY, TL_BUSY, TL_IDLE, TL_TOTAL, TL_COMM, TL_MEMCPY, TL_SYNC,
       TL__N };
void td_timeline_compute(const td_iv *comp, size_t ncomp, const td_iv *comm, size_t ncomm,
                         const td_iv *mcpy, size_t nmcpy, int64_t out[TL__N]);

/* Statistics of a list of durations (td_stats: analyse/rows.h), sorted in place. */
void td_stats_of(int64_t *v, size_t n, td_stats *st);

/* A step (ProfilerStep#N, iteration_N or --step-pattern range) of one trace. */
typedef struct td_step {
    int64_t start, end;
    td_str name;
    int64_t num;       /* trailing number in the name, or ordinal */
    uint32_t track;
    int warmup;        /* dropped by warm-up removal */
    int cut;           /* cut short by the trace's end (1) or start (2): not a steady step */
    int window;        /* active window (1-based): a run of consecutive step numbers */
} td_step;
/* a step the statistics keep: neither warm-up nor cut short by the trace's ends */
static inline int td_step_steady(const td_step *st) { return !st->warmup && !st->cut; }

/* Per-trace derived data. */
typedef struct td_tctx {
    td_trace *t;
    uint8_t *isop;      /* [nev] 1 = op (cpu_op, user_annotation, runtime, driver, NVTX range
                           on a host track; see analyse/nest.c) */
    int32_t *parent;    /* [nev] enclosing op on the same track, -1 none (ops only).
                           An op's self time is its dur minus its children's dur (no
                           array: passes add dur to the op and subtract it from the
                           parent, which keeps peak memory down on large traces) */
    int32_t *launch;    /* [ndev] k-th device event (td_kind_is_device, in event order)
                           -> the runtime/driver event that launched it, -1 none;
                           td_owner() gives the op that owns its device time */
    uint8_t *iscomm;    /* [nev] device event is an NCCL/RCCL kernel */
    td_step *steps; size_t nsteps;
    size_t ndropped;    /* warm-up steps dropped (they are steps[0..ndropped-1]) */
    int64_t t0, t1;     /* first event start, last event end */
    int64_t steady0;    /* start of the first kept step when some were dropped, else INT64_MIN */
    size_t ndev;        /* device events */
    /* device work in the order the passes walk it (td_dev_order, made for every trace
       right after td_an_nest, analyse.c): devix[k] = the k-th device event's index in t->ev, and
       bystream[0..nbystream) = the device ordinals k whose track has a stream (>= 0),
       by (stream, start, k) */
    int32_t *devix, *bystream;
    size_t nbystream;
} td_tctx;

/* Device work launched by event r (c->launch[k], -1 none) -> the innermost op around
 * the launch that is not itself a runtime/driver call (as torch's "Self CUDA"), or the
 * launching call when there is none; -1 when r is -1. */
static inline int32_t td_owner(const td_tctx *c, int32_t r)
{
    if (r < 0)
        return -1;
    int32_t p = c->parent[r];
    while (p >= 0 && (c->t->ev[p].kind == TD_K_RUNTIME || c->t->ev[p].kind == TD_K_DRIVER))
        p = c->parent[p];
    return p >= 0 ? p : r;
}

/* CUDA/HIP graph replays (analyse/graphs): launches, their device work, what was
 * attributed to captured ops; the `graphs` object */
typedef struct td_graph_stat {
    int64_t launches, kernels, attributed, attributed_ns, ns;
    int64_t all_ns;     /* all device work of the traces with graph launches */
    int any_capture;
} td_graph_stat;

typedef struct td_actx {
    td_traceset *set;
    const td_opts *o;
    td_summary *s;
    td_tctx *tc;
    size_t n;
    int any_device;     /* some trace has device work */
    regex_t step_re, module_re;
    int has_step_re, has_module_re;
    const char *accel;   /* trace.accelerator (analyse/accel.c), NULL = none (CPU only) */
    const char *devword; /* "GPU" for CUDA/ROCm, else accel; NULL = none */
    td_partial *part;   /* `summarize`: the passes also record their additive state here */
    uint8_t *commname;  /* td_is_comm_id: per interned name, 0 not looked at, 1 no, 2 yes */
    td_graph_stat graphs;
    int graph_ops;      /* analyse/graphs copied captured ops into graph launches (ph 'g'):
                           the ops and op_perf tables have a `graph` column */
    size_t ncommname;
    uint8_t *syncname;  /* td_is_sync_work: likewise */
    size_t nsyncname;
} td_actx;

/* Passes, in the order td_analyse runs them. */
void td_an_nest(td_actx *a, td_tctx *c);          /* analyse/nest.c: isop/parent/launch/iscomm */
td_status td_an_steps(td_actx *a, td_err *e);     /* analyse/steps.c: steps + warm-up + table */
void td_an_ops(td_actx *a);                       /* analyse/ops.c */
void td_an_kernels(td_actx *a);                   /* analyse/device.c */
/* analyse/nsys_stats.c: host communication (MPI/UCX/NCCL ranges): td_an_host_comm marks
 * the device work launched in them as iscomm and measures them; td_an_host_comm_scalars
 * writes comm.host_* (later, where the scalars have their place in summary.json) */
typedef struct td_host_comm {
    int64_t total, span, nranges;
} td_host_comm;
void td_an_host_comm(td_actx *a, td_host_comm *out);
void td_an_host_comm_scalars(td_actx *a, const td_host_comm *h);
void td_an_nsys_stats(td_actx *a);                /* analyse/nsys_stats.c: the nsys stats tables */
void td_an_nsys_memcpy(td_actx *a);               /* the memcpy table, after the timeline */
void td_an_timeline(td_actx *a);                  /* analyse/timeline.c */
void td_an_coll(td_actx *a);                      /* analyse/coll.c */
void td_an_modules(td_actx *a);                   /* analyse/modules.c */
void td_an_idle(td_actx *a);                      /* analyse/idle.c: idle_breakdown */
void td_an_launches(td_actx *a);                  /* analyse/launches.c: launches */
void td_an_queue(td_actx *a);                     /* analyse/queue.c: queue_length */
void td_an_overlap(td_actx *a);                   /* analyse/overlap.c: comm_overlap */
void td_an_memory(td_actx *a);                    /* analyse/memory.c: memory */
void td_an_op_perf(td_actx *a);                   /* analyse/op_perf.c: op_perf */
void td_an_critpath(td_actx *a);                  /* analyse/critpath_pass.c: critical_path */
void td_diag_nodoc(td_table *t); /* op_perf, memory: the columns kept out of the documents */
void td_an_var(td_actx *a);                       /* analyse/var.c */
void td_an_flames(td_actx *a);                    /* analyse/flame.c */
void td_an_aiu(td_actx *a);
void td_an_accel(td_actx *a);
void td_an_telemetry(td_actx *a);                 /* analyse/telemetry.c */                     /* analyse/accel.c: accelerator naming */
/* The device word for titles: a->devword, else the summary's (td_sum_device_word). */
static inline const char *td_devword(const td_actx *a)
{
    return a->devword ? a->devword : td_sum_device_word(a->s);
}                       /* analyse/aiu.c: IBM AIU flex traces */
void td_an_headline(td_actx *a);                  /* analyse/headline.c: step time */
void td_an_names(td_actx *a);                     /* analyse/names.c: short kernel names */
void td_an_findings(td_actx *a);                  /* analyse/findings.c */

/* ---- device peaks for the roofline (analyse/peaks.c) ---- */
typedef struct td_peak {
    const char *device;   /* the row's name ("NVIDIA H100 SXM5") */
    const char *match;    /* words the device name must all contain, "&"-separated */
    double fp64, fp32, tf32, bf16, fp16, fp8, int8; /* dense TFLOP/s, 0 = not given */
    double tbps;          /* memory bandwidth, TB/s */
    const char *source;   /* the datasheet */
} td_peak;
const td_peak *td_peak_for(const char *device);            /* NULL: no row matches */
double td_peak_tflops(const td_peak *p, const char *dtype); /* "bf16", "fp32"...; 0 unknown */
size_t td_peaks_list(const td_peak **out);

/* ---- helpers shared by the passes and the merge (analyse/common.c) ---- */

/* The warm-up rule sentence of the Kineto steps pass (analyse/steps.c), for `total` steps
 * of which `dropped` were dropped over `nranks` ranks. */
const char *td_warmup_rule(td_summary *s, const td_opts *o, size_t total, size_t dropped,
                           size_t nranks);
/* nccl-tests bus bandwidth factor; -1 for an unknown group size. */
double td_bus_factor(const char *type, int n);

/* The run's name for titles from each trace's input (archive, directory or
 * the file) and path, in rank order. */
void td_run_label(td_buf *b, const char *const *input, const char *const *paths, size_t n);

int td_is_comm_name(const char *name);           /* contains nccl/rccl (any case) */
/* td_is_comm_name of an interned name, remembered per name for the run (a trace has
 * hundreds of thousands of kernels and a few thousand names). */
int td_is_comm_id(td_actx *a, td_str id);
/* Synchronization work on a device, its own part of the timeline breakdown, never
 * computation: a kernel named for a wait or barrier (td_is_sync_name: event_wait,
 * wait_event, barrier, semaphore_wait, wait, wait_*) or a collective of one element
 * (a barrier's all-reduce: its time is the wait for the other ranks). */
int td_is_sync_name(const char *name);
int td_is_sync_work(td_actx *a, const td_tctx *c, size_t i);
/* Records (name[i], kv[i] = {duration, payload}) sorted by (name id, duration), ties
 * in input order: a counting sort by interned name, then each name's run by duration
 * (base/sort.h). The per-kernel statistics' order, without qsort. */
void td_sort_name_dur(const td_actx *a, td_str *name, td_keyed *kv, size_t n);
/* Fills c->devix and c->bystream once (analyse/devorder.c; analyse.c calls it for every
 * trace after td_an_nest): the passes walk the device work through them instead of
 * scanning every event, and the stream passes (idle causes, queue lengths) share one
 * ordering of it instead of a sort each. */
void td_dev_order(td_tctx *c);
/* Kernels and other device work (TD_K_KERNEL, TD_K_DEVICE_OTHER) of every trace, counted
 * through devix. */
size_t td_count_kernels(const td_actx *a);
/* Trailing decimal number of a name ("ProfilerStep#12" -> 12), -1 if none. */
int64_t td_trailing_num(const char *name);
/* Name with a trailing "#N" / "_N" / digits removed, in the summary arena. */
const char *td_strip_num(td_summary *s, const char *name);
/* Append a frame name to a folded stack: ';' -> ':', newline/CR -> ' '. */
void td_fold_put(td_buf *b, const char *name);
static inline const char *td_name(const td_actx *a, td_str id)
{
    return td_strget(a->set->strs, id);
}

/* Flamegraph stacks are cut at this depth (frames below the thread); deeper frames are
 * merged into one frame of this name, with a warning (doc/formats.md "Limits"). */
#define TD_FLAME_MAX_DEPTH 512
#define TD_FLAME_DEEPER "(deeper frames merged)"

#endif
