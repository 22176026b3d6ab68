/* model/job.h - do these inputs belong to one job? One rule for the traces of a run (report,
 * summary, fold, flame, summarize: td_job_check) and for partial summaries (merge:
 * td_job_differs on the facts a part's header holds).
 *
 * Ranks of one job share the input format, the device, the declared world size and the
 * communication backend; no two declare the same rank; their declared ranks are below the
 * world size and there are no more of them than it; no file is given twice (the same
 * bytes under two names); they were captured at the same time
 * (their wall-clock windows lie within TD_JOB_GAP_NS of each other). A fact a trace does
 * not state (empty string, 0, -1) is not compared. */
#ifndef TD_JOB_H
#define TD_JOB_H
#include "model/model.h"

#define TD_JOB_GAP_NS (10LL * 60 * 1000000000)   /* 10 minutes */

typedef struct td_job_facts {
    const char *path;      /* shown in messages */
    const char *file;      /* the file the bytes came from: traces split from one file
                              (the processes of one nsys export) always belong together */
    const char *format;    /* td_format_name, "" unknown */
    const char *device;    /* device name, "" unknown */
    const char *backend;   /* distributedInfo.backend, "" unknown */
    const char *sha256;    /* of the file's bytes, "" unknown: the same bytes twice are
                              one rank given twice */
    int64_t world_size;    /* 0 unknown */
    int64_t rank;          /* declared rank, -1 unknown */
    int64_t start_ns, end_ns;  /* wall-clock window, ns since 1970; 0 unknown */
    const int64_t *aiu_ranks;  /* IBM AIU flex: the pids the file holds, sorted, distinct
                                  (a flex trace's pid is its AIU's rank, acelyzer's
                                  ingestion); NULL unknown */
    size_t naiu_ranks;
} td_job_facts;

/* 0 when b can be a rank of the job a is a rank of; else 1, with the reason in why
 * ("device 'X' here, 'Y' there": b's value first). */
int td_job_differs(const td_job_facts *a, const td_job_facts *b, char *why, size_t n);

/* The wall-clock time (ns since 1970) of trace time t_ns, or 0 when the trace does not
 * say: its time base (Kineto baseTimeNanoseconds, nsys session start) plus t_ns, or t_ns
 * itself when that is a plausible wall-clock time (Kineto writes epoch microseconds when it
 * states no time base). */
int64_t td_trace_wall_ns(const td_trace *t, int64_t t_ns);

/* Before td_read_finish (ranks still as declared): TD_E_FORMAT when the traces of the set
 * are not ranks of one job, the message naming the files of each other run and why. */
td_status td_job_check(const td_traceset *set, td_err *e);

#endif
