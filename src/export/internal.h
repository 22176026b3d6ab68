/* export/internal.h - private to export/: the Chrome writer's state and the pieces its
 * files share. chrome.c drives the file and writes the model's events; chrome_emit.c
 * writes single events and their args; chrome_device.c the accelerators' device time
 * (IBM AIU, Graphcore IPU). Nothing here allocates memory that outlives a call, except
 * lanes.end, which the caller frees. */
#ifndef TD_EXPORT_INTERNAL_H
#define TD_EXPORT_INTERNAL_H
#include "analyse/analyse.h"
#include "model/model.h"
#include "summary/summary.h"
#include <stdint.h>
#include <stdio.h>

typedef struct cw {
    FILE *f;
    const td_traceset *set;
    const td_summary *s;
    const td_opts *o;
    int multi;            /* several inputs: every one gets fresh pids */
    int64_t origin;       /* ns subtracted from every (wall-clock) time */
    int64_t next_pid;     /* next pid for processes tracedoc makes up */
    int64_t next_tid;     /* next tid for rows of overlapping slices */
    int64_t flow_stride;  /* several inputs: input i's flow ids are offset by i x this, as
                             flow ids are global (one rank's arrows must not join another's) */
    int64_t nevents;      /* events written (for the caller's statistics) */
    const char *version;
} cw;

/* args members: the first opens the object */
typedef struct args {
    FILE *f;
    int open;
} args;

/* Greedy lanes: items sorted by start go to the first lane free at their start. */
typedef struct lanes {
    int64_t *end;
    size_t n, cap;
} lanes;

/* One event's head, `,\n{"ph": .., "cat": .., "name": .., "pid": .., "tid": .., "ts": `
 * (counted in w->nevents); the caller writes the rest and closes it (td_cw_end). */
void td_cw_head(cw *w, const char *ph, const char *cat, const char *name, int64_t pid,
                int64_t tid, int64_t ts);
/* args members of the event being written (td_cw_key: the key alone, the caller writes
 * the value); td_cw_real skips NaN; td_cw_end closes the args (when any) and the event. */
void td_cw_key(args *a, const char *k);
void td_cw_int(args *a, const char *k, int64_t v);
void td_cw_str(args *a, const char *k, const char *v);
void td_cw_real(args *a, const char *k, double v);
void td_cw_us(args *a, const char *k, int64_t ns);
void td_cw_end(args *a);
/* The lane an item [from, to) goes to (items come sorted by start). */
size_t td_cw_lane(lanes *l, int64_t from, int64_t to);
/* A process tracedoc makes up: a fresh pid, named name (process_name metadata). */
int64_t td_cw_pid(cw *w, const char *name, int64_t sort);

/* IBM AIU: per AIU a "device" process, the instructions at their device time. */
void td_cw_aiu(cw *w, const td_trace *t, int64_t shift);
/* Graphcore IPU: per IPU its runs and steps; the lightweight-profiling blocks. */
void td_cw_ipu_steps(cw *w, const td_trace *t);
void td_cw_ipu_lwp(cw *w, const td_trace *t);

#endif
