/* analyse/analyse.c - runs the analysis passes in order and fills the run-level parts of the
 * summary: inputs table, inputs_label, date, tool.version, trace.* scalars.
 *
 * Order: nesting per trace (analyse/nest.c) -> steps and warm-up (analyse/steps.c) ->
 * ops -> kernels -> GPU timeline -> XLA modules/collectives (td_analyse_xla, for sets
 * with NVTX ranges) -> collectives and modules from Kineto kernels/steps (only when XLA
 * made none) -> variability -> flames -> findings. */
#include "analyse/internal.h"
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
    mallopt(M_ARENA_MAX, 1);
#endif
}

static void trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The critical-path pass on its own thread (analyse/critpath_pass.c), into a summary of
 * its own, while the diagnosis passes run: it reads the trace contexts, which those
 * passes only read (nothing interns names between them, analyse/modules.c being done:
 * td_name stays valid), and writes only its own summary. Its wall time is a third of the
 * passes' on a 1 GB Kineto trace. */
typedef struct cp_job {
    td_actx a;      /* a copy whose s is the job's own summary, set the job's set */
    td_traceset set; /* a copy whose strs is a copy (td_strtab_copy: the passes beside it
                        may intern) */
    pthread_t th;
    int64_t ns; /* the pass's wall time on its thread */
} cp_job;

static const char *const cp_tables[] = {"critical_path", "critical_path_segments",
                                        "critical_path_arrivals", "critical_path_collectives"};

static void *cp_main(void *p)
{
    cp_job *j = p;
    int64_t t0 = td_now_ns();
    td_an_critpath(&j->a);
    j->ns = td_now_ns() - t0;
    return NULL;
}

/* 1: started; 0: run it on this thread (a table of its names exists already, no thread). */
static int cp_start(cp_job *j, const td_actx *a)
{
    for (size_t i = 0; i < sizeof cp_tables / sizeof *cp_tables; i++)
        if (td_sum_find_table(a->s, cp_tables[i]))
            return 0;
    j->a = *a;
    j->a.devword = td_devword(a); /* the main summary's word, if it is the one */
    j->set = *a->set;
    j->set.strs = td_strtab_copy(a->set->strs);
    j->a.set = &j->set;
    j->a.s = td_summary_new();
    j->a.commname = NULL; /* td_is_comm_id's memo stays the main thread's */
    j->a.ncommname = 0;
    if (pthread_create(&j->th, NULL, cp_main, j) != 0) {
        td_summary_free(j->a.s);
        td_strtab_free(j->set.strs);
        return 0;
    }
    return 1;
}

/* Moves the finished job's tables into s: 1, or 0 when they could not be moved (then
 * nothing of it is kept: run the pass again on this thread). */
static int cp_adopt(cp_job *j, td_summary *s)
{
    free(j->a.commname);
    td_strtab_free(j->set.strs);
    if (td_sum_adopt(s, j->a.s))
        return 1;
    td_summary_free(j->a.s);
    return 0;
}

/* a pass, timed for --timings (o->pass_time) */
#define PASS(name, call)                                                                   \
    do {                                                                                   \
        int64_t pass_t0_ = o->pass_time ? td_now_ns() : 0;                                 \
        call;                                                                              \
        if (o->pass_time)                                                                  \
            o->pass_time(o->pass_time_ctx, name, td_now_ns() - pass_t0_);                  \
    } while (0)

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
    int64_t t0 = o->pass_time ? td_now_ns() : 0;
    for (size_t i = 0; i < a.n; i++) {
        td_an_nest(&a, &a.tc[i]);
        td_dev_order(&a.tc[i]); /* devix and bystream, which the passes walk */
        if (a.tc[i].t->nranges || a.tc[i].t->ncompile)
            xla = 1;
    }
    if (o->pass_time)
        o->pass_time(o->pass_time_ctx, "nest", td_now_ns() - t0);
    trim();
    PASS("scalars", run_scalars(&a));
    PASS("accel", td_an_accel(&a));
    PASS("steps", st = td_an_steps(&a, e));
    if (st == TD_OK) {
        PASS("ops", td_an_ops(&a));
        PASS("trim", trim());
        PASS("kernels", td_an_kernels(&a));
        PASS("nsys_stats", td_an_nsys_stats(&a)); /* the last to write iscomm */
        /* the critical path on a second thread, beside the passes up to op_perf, once
         * what it reads is made (with XLA ranges, after the XLA and module passes, which
         * are not known to leave it alone); its tables join the summary where it used to
         * run, after op_perf's. TD_TEST_NO_CRITPATH (tests/cases/diag_critpath_cost.sh):
         * the same run without this pass, to measure what it adds to the peak memory;
         * TD_TEST_SERIAL (tests/cases/report_timings.sh): every pass on this thread */
        cp_job cp;
        int cp_on = !getenv("TD_TEST_NO_CRITPATH"), cp_thread = 0;
        int cp_may = cp_on && !getenv("TD_TEST_SERIAL");
        if (cp_may && !xla)
            cp_thread = cp_start(&cp, &a);
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
        if (cp_may && xla)
            cp_thread = cp_start(&cp, &a);
        /* diagnosis (issue 24): idle causes, launches, queues, comm/comp overlap */
        PASS("idle", td_an_idle(&a));
        PASS("launches", td_an_launches(&a));
        PASS("queue", td_an_queue(&a));
        PASS("overlap", td_an_overlap(&a));
        PASS("memory", td_an_memory(&a));
        /* op_perf's arrays and the path's graphs together would raise the peak (the
         * 1 GB Kineto trace: +7 MB): the thread is waited for first */
        if (cp_thread) {
            PASS("critpath wait", pthread_join(cp.th, NULL));
            if (o->pass_time)
                o->pass_time(o->pass_time_ctx, "critpath (thread)", cp.ns);
        }
        PASS("op_perf", td_an_op_perf(&a));
        if (cp_thread)
            cp_on = !cp_adopt(&cp, s);
        if (cp_on)
            PASS("critpath", td_an_critpath(&a));
        PASS("trim", trim());
        PASS("var", td_an_var(&a));
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
