/* analyse/analyse.c - runs the analysis passes in order and fills the run-level parts of the
 * summary: inputs table, inputs_label, date, tool.version, trace.* scalars.
 *
 * Order: nesting per trace (analyse/nest.c) -> steps and warm-up (analyse/steps.c) ->
 * ops -> kernels -> GPU timeline -> XLA modules/collectives (td_analyse_xla, for sets
 * with NVTX ranges) -> collectives and modules from Kineto kernels/steps (only when XLA
 * made none) -> variability -> flames -> findings. */
#include "analyse/internal.h"
#include "analyse/graphs/graphs.h"
#include "analyse/serving/serving.h"
#include "base/clock.h"
#include "base/strtab.h"
#include "partial/partial.h"
#include "analyse/ipu.h"
#include "model/job.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Distinct device ids with device work in one trace. */
static size_t count_devices(const td_tctx *c)
{
    const td_trace *t = c->t;
    if (!c->ndev)
        return 0;
    uint8_t *used = td_xcalloc(t->ntracks + 1, 1);
    for (size_t i = 0; i < t->nev; i++)
        if (td_kind_is_device(t->ev[i].kind) && t->ev[i].track < t->ntracks)
            used[t->ev[i].track] = 1;
    int *ids = td_xmalloc((t->ntracks + 1) * sizeof *ids);
    size_t n = 0;
    for (size_t k = 0; k < t->ntracks; k++)
        if (used[k])
            ids[n++] = t->tracks[k].device < 0 ? 0 : t->tracks[k].device;
    qsort(ids, n, sizeof *ids, cmp_int);
    size_t u = 0;
    for (size_t k = 0; k < n; k++)
        if (!u || ids[u - 1] != ids[k])
            ids[u++] = ids[k];
    free(used);
    free(ids);
    return u;
}

/* When the profile was captured, as wall-clock ns since the epoch, or 0 when the traces
 * do not say: a time base the trace states (Kineto baseTimeNanoseconds, nsys session
 * start) plus the first event, or a first event that is itself a plausible wall-clock
 * time (Kineto writes epoch microseconds when it has no time base). Earliest input. */
static int64_t capture_ns(const td_actx *a)
{
    int64_t best = 0;
    for (size_t i = 0; i < a->n; i++) {
        const td_tctx *c = &a->tc[i];
        int64_t t = c->t->nev ? td_trace_wall_ns(c->t, c->t0) : 0;
        if (t && (!best || t < best))
            best = t;
    }
    return best;
}

/* The run's name for titles (td_run_label, analyse/common.c). */
static void run_label(const td_actx *a, td_buf *b)
{
    const char **in = td_xmalloc((a->n + 1) * sizeof *in), **path = td_xmalloc((a->n + 1) * sizeof *path);
    for (size_t i = 0; i < a->n; i++) {
        in[i] = a->tc[i].t->input ? a->tc[i].t->input : a->tc[i].t->path;
        path[i] = a->tc[i].t->path;
    }
    td_run_label(b, in, path, a->n);
    free(in);
    free(path);
}

static void run_scalars(td_actx *a)
{
    td_summary *s = a->s;
    td_buf b = {0};
    run_label(a, &b);
    td_sum_set_str(s, "inputs_label", "Inputs", b.n ? td_buf_cstr(&b) : "");
    td_buf_free(&b);
    time_t ep = (time_t)td_source_date_epoch();
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    char date[32];
    if (gmtime_r(&ep, &tm) && strftime(date, sizeof date, "%Y-%m-%d", &tm))
        td_sum_set_str(s, "date", "Date", date);
#ifdef TD_VERSION
    td_sum_set_str(s, "tool.version", "tracedoc version", TD_VERSION);
#endif
    int64_t span = 0;
    size_t ndev = 0;
    int world = 0;
    const char *devname = NULL;
    for (size_t i = 0; i < a->n; i++) {
        const td_tctx *c = &a->tc[i];
        if (c->t->nev && c->t1 - c->t0 > span)
            span = c->t1 - c->t0;
        ndev += count_devices(c);
        if (c->t->world_size > world)
            world = c->t->world_size;
        for (size_t d = 0; d < c->t->ndevices && !devname; d++)
            if (c->t->devices[d].name)
                devname = td_name(a, c->t->devices[d].name);
    }
    /* wall-clock capture time (see capture_ns) */
    int64_t cap = capture_ns(a);
    time_t ct = (time_t)(cap / 1000000000);
    char capbuf[40];
    if (cap > 0 && gmtime_r(&ct, &tm) && strftime(capbuf, sizeof capbuf, "%Y-%m-%dT%H:%M:%SZ", &tm))
        td_sum_set_str(s, "trace.captured", "Captured", capbuf);
    td_sum_set_int(s, "trace.span_ns", "Traced time", TD_T_NS, span);
    td_sum_set_int(s, "trace.ranks", "Ranks", TD_T_INT, (int64_t)a->n);
    td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, (int64_t)ndev);
    if (devname)
        td_sum_set_str(s, "trace.device_name", "Device", devname);
    td_sum_set_int(s, "trace.world_size", "World size", TD_T_INT,
                   world ? world : (int64_t)a->n);

    td_table *tb = td_sum_table(s, "inputs", "Inputs");
    td_table_cols(tb, "path:text:Path", "format:text:Format", "bytes:bytes:Size",
                  "sha256:text:SHA-256", "events:int:Events", "rank:int:Rank",
                  "world_size:int:World size", "device_name:text:Device", NULL);
    for (size_t i = 0; i < a->n; i++) {
        const td_trace *t = a->tc[i].t;
        size_t r = td_table_add_row(tb);
        td_row_str(s, tb, r, "path", t->path);
        td_row_str(s, tb, r, "format", td_format_name(t->format));
        td_row_int(s, tb, r, "bytes", (int64_t)t->bytes);
        td_row_str(s, tb, r, "sha256", t->sha256[0] ? t->sha256 : NULL);
        td_row_int(s, tb, r, "events", (int64_t)t->nevents);
        td_row_int(s, tb, r, "rank", t->rank);
        td_row_int(s, tb, r, "world_size", t->world_size ? t->world_size : TD_NA);
        td_row_str(s, tb, r, "device_name",
                   t->ndevices && t->devices[0].name ? td_name(a, t->devices[0].name) : NULL);
    }
}

static int by_rank(const void *x, const void *y)
{
    const td_tctx *a = x, *b = y;
    if (a->t->rank != b->t->rank)
        return a->t->rank < b->t->rank ? -1 : 1;
    return strcmp(a->t->path, b->t->path);
}

static td_status compile_re(regex_t *re, int *has, const char *pat, const char *opt, td_err *e)
{
    if (!pat)
        return TD_OK;
    int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char msg[256];
        regerror(rc, re, msg, sizeof msg);
        regfree(re);
        return td_fail(e, TD_E_USAGE, "%s: bad regular expression '%s': %s", opt, pat, msg);
    }
    *has = 1;
    return TD_OK;
}

static void actx_free(td_actx *a)
{
    for (size_t i = 0; i < a->n; i++) {
        td_tctx *c = &a->tc[i];
        free(c->isop);
        free(c->parent);
        free(c->launch);
        free(c->iscomm);
        free(c->steps);
        free(c->devix);
        free(c->bystream);
    }
    free(a->tc);
    free(a->commname);
    free(a->syncname);
    if (a->has_step_re)
        regfree(&a->step_re);
    if (a->has_module_re)
        regfree(&a->module_re);
}

/* Peak memory on large traces (a 1 GB JSON file has ~2.7 M events): the passes' arrays
 * over all events or all device events are freed as soon as a pass ends, but glibc
 * serves blocks up to 32 MiB from its heap once a large block has been freed (the
 * dynamic mmap threshold), and heap memory stays resident after free, so the passes'
 * arrays would add up. A fixed 1 MiB threshold keeps large arrays in their own
 * mappings (returned on free, grown in place by mremap), and trim() gives back what the
 * heap holds free between passes. */
static void mem_setup(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

static void trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* A pass on a second thread (side_start), into a summary of its own, while this thread
 * runs the passes before it; side_end waits for it and moves its tables in where it
 * would have run (td_sum_adopt), so that summary.json is what one thread gives
 * (tests/cases/report_timings.sh). Such a pass reads the trace contexts and the set,
 * which the passes beside it only read (where they intern names, it reads a copy of the
 * string table), and writes its own summary and nothing else that they read or write
 * (a->part: only the job's pass writes it meanwhile). It must not read the main summary:
 * the tables whose presence there changes what it does are looked for before it starts
 * (if one is there, the pass runs on this thread). Used for the passes that take the
 * most time on a large trace (a 1 GB Kineto trace: the critical path a third of the
 * passes' time, kernels and variability a tenth each; a 1.15 GB nsys export: the
 * critical path 4.7 s of 7). TD_TEST_SERIAL: none. */
typedef struct side_job {
    const char *name;          /* for --timings */
    void (*pass)(td_actx *);
    td_actx a;                 /* a copy whose s is the job's own summary, set the job's set */
    td_traceset set;           /* a copy, whose strs is a copy when own_names */
    int own_names;
    pthread_t th;
    int64_t ns;                /* the pass's wall time on its thread */
    int state;                 /* 0 not started (or ended), 1 running, 2 joined */
} side_job;

/* Below this many events the passes take milliseconds, no more than the threads and
 * their copies cost (a 71 KB trace: 40.8-41.6 ms on one thread, 41.8-43.1 ms with them,
 * hyperfine, 30 runs); TD_SIDE_MIN=N changes it (tests/cases/report_timings.sh: 0). */
#define SIDE_MIN 100000

static size_t side_min(void)
{
    const char *v = getenv("TD_SIDE_MIN");
    return v && *v ? (size_t)strtoull(v, NULL, 10) : SIDE_MIN;
}

static size_t total_events(const td_actx *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++)
        n += a->tc[i].t->nev;
    return n;
}

static void *side_main(void *p)
{
    side_job *j = p;
    int64_t t0 = td_now_ns();
    j->pass(&j->a);
    j->ns = td_now_ns() - t0;
    return NULL;
}

/* Starts pass on a second thread, unless one of tables (NULL-ended) is in a's summary.
 * copy_names: the passes beside it intern names (else it reads the table itself: a copy
 * costs 36 bytes a name, and a trace can have millions). */
static void side_start(side_job *j, const td_actx *a, const char *name, void (*pass)(td_actx *),
                       const char *const *tables, int copy_names)
{
    j->name = name;
    j->pass = pass;
    j->state = 0;
    if (getenv("TD_TEST_SERIAL") || total_events(a) < side_min())
        return;
    for (; *tables; tables++)
        if (td_sum_find_table(a->s, *tables))
            return;
    j->a = *a;
    j->a.devword = td_devword(a); /* the main summary's word, if it is the one */
    j->a.commname = NULL;         /* td_is_comm_id's memo: its own */
    j->a.ncommname = 0;
    j->a.syncname = NULL;
    j->a.nsyncname = 0;
    j->set = *a->set;
    if (copy_names)
        j->set.strs = td_strtab_copy(a->set->strs);
    j->a.set = &j->set;
    j->a.s = td_summary_new();
    j->own_names = copy_names;
    if (pthread_create(&j->th, NULL, side_main, j) != 0) {
        td_summary_free(j->a.s);
        if (copy_names)
            td_strtab_free(j->set.strs);
        return;
    }
    j->state = 1;
}

static void timed(const td_opts *o, const char *what, int64_t ns)
{
    if (o->pass_time)
        o->pass_time(o->pass_time_ctx, what, ns);
}

/* Waits for the job's thread (--timings: "NAME wait", and "NAME (thread)" its time). */
static void side_wait(side_job *j, const td_opts *o)
{
    if (j->state != 1)
        return;
    int64_t t0 = td_now_ns();
    pthread_join(j->th, NULL);
    j->state = 2;
    char what[64];
    snprintf(what, sizeof what, "%s wait", j->name);
    timed(o, what, td_now_ns() - t0);
    snprintf(what, sizeof what, "%s (thread)", j->name);
    timed(o, what, j->ns);
}

/* The job's tables into a's summary, now; or the pass run here, when it did not run on
 * a thread or its tables could not be moved (a name the summary has meanwhile). */
static void side_end(side_job *j, td_actx *a)
{
    side_wait(j, a->o);
    if (j->state == 2) {
        j->state = 0;
        free(j->a.commname);
        free(j->a.syncname);
        if (j->own_names)
            td_strtab_free(j->set.strs);
        if (td_sum_adopt(a->s, j->a.s))
            return;
        td_summary_free(j->a.s);
    }
    int64_t t0 = td_now_ns();
    j->pass(a);
    timed(a->o, j->name, td_now_ns() - t0);
}

static const char *const cp_tables[] = {"critical_path", "critical_path_segments",
                                        "critical_path_arrivals",
                                        "critical_path_collectives", NULL};
static const char *const kernel_tables[] = {"kernels", "kernels_by_device", NULL};
/* XLA's thunk variability makes the pass skip its own */
static const char *const var_tables[] = {"variability", "outlier_steps", NULL};

/* a pass, timed for --timings (o->pass_time) */
#define PASS(name, call)                                                                   \
    do {                                                                                   \
        int64_t pass_t0_ = o->pass_time ? td_now_ns() : 0;                                 \
        call;                                                                              \
        if (o->pass_time)                                                                  \
            timed(o, name, td_now_ns() - pass_t0_);                                        \
    } while (0)

/* Nesting and the device order of every trace; 1 when one has NVTX ranges or compile
 * records (the XLA passes run). */
static int nest_all(td_actx *a)
{
    int xla = 0;
    for (size_t i = 0; i < a->n; i++) {
        td_an_nest(a, &a->tc[i]);
        td_dev_order(&a->tc[i]); /* devix and bystream, which the passes walk */
        if (a->tc[i].t->nranges || a->tc[i].t->ncompile)
            xla = 1;
    }
    return xla;
}

static td_status run(td_traceset *set, const td_opts *o, td_summary *s, td_partial *part,
                     td_err *e)
{
    td_actx a;
    memset(&a, 0, sizeof a);
    a.part = part;
    a.set = set;
    a.o = o;
    a.s = s;
    td_status st = compile_re(&a.step_re, &a.has_step_re, o->step_pattern, "--step-pattern", e);
    if (st == TD_OK)
        st = compile_re(&a.module_re, &a.has_module_re, o->module_pattern, "--module-pattern", e);
    if (st != TD_OK) {
        actx_free(&a);
        return st;
    }
    mem_setup();
    a.n = set->n;
    a.tc = td_xcalloc(a.n + 1, sizeof *a.tc);
    int xla = 0;
    /* passes visit traces by rank (archive members come in any order) */
    for (size_t i = 0; i < a.n; i++)
        a.tc[i].t = set->tr[i];
    qsort(a.tc, a.n, sizeof *a.tc, by_rank);
    PASS("graphs", td_an_graphs(&a)); /* graph replays' kernels get their captured ops */
    PASS("nest", xla = nest_all(&a));
    trim();
    PASS("scalars", run_scalars(&a));
    td_an_graphs_scalars(&a);
    PASS("accel", td_an_accel(&a));
    PASS("steps", st = td_an_steps(&a, e));
    if (st == TD_OK) {
        side_job kj, cp, vj;
        td_host_comm hc;
        PASS("host_comm", td_an_host_comm(&a, &hc)); /* the last to write iscomm */
        /* the critical path beside the passes up to op_perf, once what it reads is made.
         * TD_TEST_NO_CRITPATH (tests/cases/diag_critpath_cost.sh): the same run without
         * this pass, to measure what it adds to the peak memory */
        int cp_on = !getenv("TD_TEST_NO_CRITPATH");
        if (cp_on) /* nsys_stats, XLA, modules, op_perf intern */
            side_start(&cp, &a, "critpath", td_an_critpath, cp_tables, 1);
        side_start(&kj, &a, "kernels", td_an_kernels, kernel_tables, 0); /* ops interns none */
        PASS("ops", td_an_ops(&a));
        side_end(&kj, &a);
        PASS("trim", trim());
        td_an_host_comm_scalars(&a, &hc);
        PASS("nsys_stats", td_an_nsys_stats(&a));
        PASS("trim", trim());
        PASS("timeline", td_an_timeline(&a));
        PASS("nsys_memcpy", td_an_nsys_memcpy(&a));
        PASS("trim", trim());
        /* XLA first: its modules/thunks/collectives tables win for sets with NVTX
         * ranges; the Kineto passes then only fill tables it left absent */
        if (xla)
            PASS("xla_part", td_analyse_xla_part(set, o, s, part));
        PASS("ipu", td_analyse_ipu(set, o, s)); /* IPU exports (no-op without) */
        if (!td_sum_find_table(s, "collectives"))
            PASS("coll", td_an_coll(&a));
        PASS("trim", trim());
        if (!td_sum_find_table(s, "modules") && !td_sum_find_table(s, "thunks"))
            PASS("modules", td_an_modules(&a));
        PASS("trim", trim());
        /* diagnosis (issue 24): idle causes, launches, queues, comm/comp overlap */
        PASS("idle", td_an_idle(&a));
        PASS("launches", td_an_launches(&a));
        PASS("queue", td_an_queue(&a));
        PASS("overlap", td_an_overlap(&a));
        PASS("memory", td_an_memory(&a));
        /* op_perf's arrays and the path's graphs together would raise the peak (the
         * 1 GB Kineto trace: +7 MB): the path is waited for first; variability runs
         * beside op_perf instead */
        if (cp_on)
            side_wait(&cp, o);
        side_start(&vj, &a, "var", td_an_var, var_tables, 1); /* op_perf interns */
        PASS("op_perf", td_an_op_perf(&a));
        if (cp_on)
            side_end(&cp, &a);
        PASS("trim", trim());
        side_end(&vj, &a);
        PASS("serving", td_an_serving(&a)); /* LLM serving steps (after op_perf's shapes) */
        PASS("flames", td_an_flames(&a));
        PASS("aiu", td_an_aiu(&a));
        PASS("telemetry", td_an_telemetry(&a));
        PASS("samba", td_analyse_samba(set, o, s));
        PASS("headline", td_an_headline(&a));
        PASS("names", td_an_names(&a)); /* short kernel names for tables and findings */
        PASS("findings", td_an_findings(&a));
        /* every warning (reader and passes) is in summary.json too */
        for (size_t i = 0; i < set->warnings.n; i++)
            td_sum_warning(s, set->warnings.msg[i]);
    }
    actx_free(&a);
    return st;
}

td_status td_analyse(td_traceset *set, const td_opts *o, td_summary *s, td_err *e)
{
    return run(set, o, s, NULL, e);
}

td_status td_analyse_partial(td_traceset *set, const td_opts *o, td_summary *s, td_partial *p,
                             td_err *e)
{
    td_status st = run(set, o, s, p, e);
    for (size_t i = 0; st == TD_OK && i < set->n; i++) { /* for the run's label */
        const td_trace *t = set->tr[i];
        td_buf kb = {0};
        td_part_key(&kb, 2, t->path, t->input ? t->input : t->path);
        int64_t rank = t->rank;
        td_part_add(p, TD_R_INPUT, kb.p, kb.n, &rank);
        td_buf_free(&kb);
    }
    return st; /* the caller adds --meta to s, then td_partial_from_summary */
}
