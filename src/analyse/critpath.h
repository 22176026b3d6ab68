/* analyse/critpath.h - the critical path of one step window (analyse/critpath.c) and
 * its per-trace state (analyse/critpath_trace.c), for the pass that writes its tables
 * (analyse/critpath_pass.c). Not exported. */
#ifndef TD_ANALYSE_CRITPATH_H
#define TD_ANALYSE_CRITPATH_H
#include "analyse/internal.h"

/* What bounds a path edge, HTA's BoundType names (td_cp_bound_names). */
enum { TD_CP_CPU, TD_CP_COMPUTE, TD_CP_COMM, TD_CP_LAUNCH, TD_CP_KK, TD_CP__N };
extern const char *const td_cp_bound_names[TD_CP__N];

/* One edge of the path with a weight: on the lane of track (a CPU thread or a stream),
 * [start, end) in trace ns, reported under trace event `event`. */
typedef struct td_cp_seg {
    uint32_t track;
    int64_t start, end;
    int bound;
    int32_t event;
} td_cp_seg;

/* A CPU blocked in a synchronizing call (trace event call) until device work ended;
 * op: the outermost op below the step around the call (the call itself when none). */
typedef struct td_cp_sync {
    int32_t call, op;
} td_cp_sync;

typedef struct td_cp_result {
    int64_t ns[TD_CP__N], total;
    td_cp_seg *seg;      /* malloc'd, in path order */
    size_t nseg;
    td_cp_sync *sync;    /* malloc'd: the window's blocking synchronizing calls (not in
                          * HTA's mode), in event order */
    size_t nsync;
} td_cp_result;

/* An inferred wait (analyse/critpath_sync.c): device event dev (the k-th device event)
 * ended, then CPU call (a trace event) returned. */
typedef struct td_cp_wait {
    int32_t dev, call;
} td_cp_wait;

/* Per-trace state shared by its steps (analyse/critpath_trace.c makes it: launch order
 * and queue lengths; analyse/critpath.c keeps its window maps in it). */
typedef struct td_cptrace {
    const td_tctx *c;
    const int32_t *devix;  /* k-th device event -> trace event (the td_tctx's own) */
    int32_t *qrt, *qdev;   /* k-th device event: queue after its launch, after its start */
    int32_t *wloc;         /* CPU trace event wlo + j -> local event, -1 (the window's) */
    size_t wlo, wn;
    int32_t *dloc;         /* k-th device event -> local event, -1 */
    int32_t *bylaunch;     /* device k sorted by launching call start */
    size_t nbyl;
    /* per word ("forward", "autograd"), over the trace's host ops whose name holds it:
     * the last one's index and track, and the last index of one on another track
     * (-1 none); wt_done once made (critpath.c word_track) */
    int wt_done;
    int64_t wt_last[2], wt_track[2], wt_other[2];
    int32_t *outer; /* trace event -> 2 + its outermost op below the step above it, 1 none,
                     * 0 not yet known (made on first use: linear however deep the nesting;
                     * calloc'd: only the pages of events looked up become resident) */
    uint8_t *callmemo; /* name -> runtime call bits (critpath.c call_bits), made on first use */
    size_t ncallmemo;
    int hta;          /* HTA's graph: no inferred waits (--critical-path hta) */
} td_cptrace;

/* The local event of CPU trace event i in the current window, -1 none. */
static inline int32_t td_cp_loc_cpu(const td_cptrace *p, int32_t i)
{
    size_t j = (size_t)i - p->wlo;
    return i >= 0 && (size_t)i >= p->wlo && j < p->wn ? p->wloc[j] : -1;
}

/* Per-trace state (queue lengths, launch order) for td_cp_step; NULL-safe free
 * (analyse/critpath_trace.c). */
void *td_cp_trace_new(const td_tctx *c);
void td_cp_trace_free(void *state);
/* The path over the window [s0, s1] of trace c: 1 when there is one. */
int td_cp_step(td_actx *a, const td_tctx *c, void *state, int64_t s0, int64_t s1,
               td_cp_result *res);

/* The waits of a window without cuda_sync events (analyse/critpath_sync.c): dk[nd] its
 * device work (k-th device events by start), calls[ncalls] its runtime and driver calls
 * in event order. dwait[j]: the device event dk[j] waited for on another stream (k, -1
 * none); *cw (malloc'd): the CPU waits; returns their count. */
size_t td_cp_infer_waits(td_actx *a, td_cptrace *p, const int32_t *dk, size_t nd,
                         const int32_t *calls, size_t ncalls, int32_t *dwait, td_cp_wait **cw);

/* critical_path_arrivals and critical_path_collectives (analyse/critpath_coll.c). */
void td_an_critpath_coll(td_actx *a);

#endif
