/* test_analyse.c - analysis passes on small synthetic trace sets with expectations
 * computed by hand (formats.md definitions). */
#include "analyse/internal.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>

static td_traceset *S;
static td_trace *T;

static uint32_t host(int64_t tid)
{
    return td_trace_track(T, 1, tid);
}

static uint32_t dev(int d, int stream)
{
    uint32_t k = td_trace_track(T, 1000 + d, stream);
    T->tracks[k].device = d;
    T->tracks[k].stream = stream;
    return k;
}

static td_event *ev(uint32_t track, td_kind kind, const char *name, int64_t ts, int64_t dur,
                    int64_t corr)
{
    td_event *e = td_trace_push_event(T);
    e->track = track;
    e->kind = (uint8_t)kind;
    e->name = td_intern_cstr(S->strs, name);
    e->ts = ts;
    e->dur = dur;
    e->corr = corr;
    e->ph = 'X';
    return e;
}

static int cmp_ev(const void *x, const void *y)
{
    const td_event *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->dur < b->dur) - (a->dur > b->dur);
}

static void fresh(void)
{
    S = td_traceset_new();
    T = td_traceset_add(S, "synthetic.json");
    T->format = TD_FMT_CHROME_JSON;
}

static td_summary *run(const td_opts *o)
{
    for (size_t i = 0; i < S->n; i++)
        qsort(S->tr[i]->ev, S->tr[i]->nev, sizeof *S->tr[i]->ev, cmp_ev);
    td_summary *s = td_summary_new();
    td_err e = {0};
    td_opts d;
    td_opts_default(&d);
    CHECK_EQ_INT(td_analyse(S, o ? o : &d, s, &e), TD_OK);
    return s;
}

/* Row of table `tab` whose text column `key` equals v (and optional int column). */
static long find_row(const td_table *t, const char *key, const char *v)
{
    int c = td_table_col(t, key);
    for (size_t r = 0; t && c >= 0 && r < t->nrows; r++)
        if (td_table_cell(t, r, c)->s && !strcmp(td_table_cell(t, r, c)->s, v))
            return (long)r;
    return -1;
}

static int64_t I(const td_summary *s, const char *tab, long row, const char *key)
{
    const td_table *t = td_sum_find_table(s, tab);
    if (!t || row < 0 || td_table_col(t, key) < 0)
        return -999999;
    return td_table_cell(t, (size_t)row, td_table_col(t, key))->i;
}

static double F(const td_summary *s, const char *tab, long row, const char *key)
{
    const td_table *t = td_sum_find_table(s, tab);
    if (!t || row < 0 || td_table_col(t, key) < 0)
        return -999999;
    return td_table_cell(t, (size_t)row, td_table_col(t, key))->f;
}

static long R(const td_summary *s, const char *tab, const char *key, const char *v)
{
    return find_row(td_sum_find_table(s, tab), key, v);
}

static void test_intervals(void)
{
    /* COMP [0,10) [5,15) [30,40); COMM [12,20) [35,50); MEMCPY [18,25) [45,60) [70,80)
     * COMP = [0,15) u [30,40) = 25; COMM - COMP = [15,20) u [40,50) = 15;
     * MEMCPY - (COMP u COMM) = [20,25) u [50,60) u [70,80) = 25; busy 65; total 80. */
    td_iv comp[] = {{30, 40}, {0, 10}, {5, 15}}, comm[] = {{12, 20}, {35, 50}},
          mc[] = {{18, 25}, {45, 60}, {70, 80}};
    int64_t o[TL__N];
    td_timeline_compute(comp, 3, comm, 2, mc, 3, o);
    CHECK_EQ_INT(o[TL_COMP], 25);
    CHECK_EQ_INT(o[TL_XCOMM], 15);
    CHECK_EQ_INT(o[TL_XMEMCPY], 25);
    CHECK_EQ_INT(o[TL_BUSY], 65);
    CHECK_EQ_INT(o[TL_TOTAL], 80);
    CHECK_EQ_INT(o[TL_IDLE], 15);
    CHECK_EQ_INT(o[TL_COMM], 23);
    CHECK_EQ_INT(o[TL_MEMCPY], 32);
    CHECK_EQ_INT(o[TL_COMP] + o[TL_XCOMM] + o[TL_XMEMCPY] + o[TL_IDLE], o[TL_TOTAL]);
    td_timeline_compute(NULL, 0, NULL, 0, NULL, 0, o);
    CHECK_EQ_INT(o[TL_TOTAL], 0);
    td_iv m[] = {{0, 10}, {20, 30}};
    CHECK_EQ_INT(td_iv_overlap1(m, 2, 5, 25), 10);
    CHECK_EQ_INT(td_iv_overlap1(m, 2, 10, 20), 0);
    td_iv z[] = {{5, 5}, {3, 1}};
    CHECK_EQ_INT(td_iv_merge(z, 2), 0);
}

static void test_stats(void)
{
    int64_t v[] = {40, 10, 30, 20};
    td_stats st;
    td_stats_of(v, 4, &st);
    CHECK_EQ_INT(st.total, 100);
    CHECK(st.mean == 25.0 && st.median == 25.0);
    CHECK(fabs(st.std - sqrt(500.0 / 3)) < 1e-9);
    int64_t w[] = {7};
    td_stats_of(w, 1, &st);
    CHECK(st.median == 7.0 && st.std == 0.0);
}

/* Nesting, self time, device attribution through correlation. */
static void test_nest_ops(void)
{
    fresh();
    uint32_t th = host(1), d0 = dev(0, 7);
    ev(th, TD_K_CPU_OP, "A", 0, 100, 0);
    ev(th, TD_K_CPU_OP, "B", 10, 30, 0);
    ev(th, TD_K_CPU_OP, "C", 15, 5, 0);
    ev(th, TD_K_RUNTIME, "cudaLaunchKernel", 20, 5, 5);
    ev(th, TD_K_CPU_OP, "D", 50, 10, 0);
    ev(th, TD_K_CPU_OP, "E", 100, 10, 0); /* starts at A's end: not a child */
    ev(th, TD_K_PYTHON, "py", 0, 200, 0);  /* not an op: ignored by the op nesting */
    ev(d0, TD_K_KERNEL, "k1", 30, 15, 5);
    ev(th, TD_K_RUNTIME, "cudaLaunchKernel", 200, 5, 6); /* outside every op */
    ev(d0, TD_K_KERNEL, "k2", 210, 10, 6);
    td_summary *s = run(NULL);
    long a = R(s, "ops", "name", "A"), b = R(s, "ops", "name", "B"), e = R(s, "ops", "name", "E");
    CHECK_EQ_INT(I(s, "ops", a, "self_ns"), 60);
    CHECK_EQ_INT(I(s, "ops", a, "total_ns"), 100);
    CHECK_EQ_INT(I(s, "ops", b, "self_ns"), 20);
    CHECK_EQ_INT(I(s, "ops", e, "self_ns"), 10);
    CHECK_EQ_INT(I(s, "ops", b, "device_self_ns"), 15);
    CHECK_EQ_INT(I(s, "ops", a, "device_self_ns"), 0);
    CHECK_EQ_INT(I(s, "ops", a, "device_total_ns"), 15);
    /* the launch inside B gives its kernel to B; the one outside every op keeps it */
    CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "cudaLaunchKernel"), "device_self_ns"), 10);
    CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "cudaLaunchKernel"), "calls"), 2);
    /* self total = 60+20+5+5+10+10+5 = 115 */
    CHECK(fabs(F(s, "ops", a, "self_share") - 60.0 / 115) < 1e-12);
    CHECK_EQ_STR(td_table_cell(td_sum_find_table(s, "ops"), 0, 0)->s, "A"); /* by self desc */
    const td_flame *fl = td_sum_find_flame(s, "cpu");
    CHECK(fl && fl->n == 7);
    int found = 0;
    for (size_t i = 0; fl && i < fl->n; i++)
        if (!strcmp(fl->st[i].stack, "thread 1;A;B;cudaLaunchKernel") && fl->st[i].value == 5)
            found = 1;
    CHECK(found);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Steps, warm-up, step device busy, timeline steady scope, modules. */
static void test_steps(void)
{
    fresh();
    uint32_t th = host(1), d0 = dev(0, 7);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#1", 0, 300, 0);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#2", 300, 100, 0);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#3", 400, 100, 0);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#4", 500, 160, 0);
    /* launches: one in step 1, two in step 2, one in step 3 */
    ev(th, TD_K_RUNTIME, "launch", 10, 5, 1);
    ev(th, TD_K_RUNTIME, "launch", 310, 5, 2);
    ev(th, TD_K_RUNTIME, "launch", 320, 5, 3);
    ev(th, TD_K_RUNTIME, "launch", 410, 5, 4);
    ev(d0, TD_K_KERNEL, "k", 20, 100, 1);
    ev(d0, TD_K_KERNEL, "k", 330, 20, 2);
    ev(d0, TD_K_KERNEL, "k", 360, 60, 3);  /* crosses into step 3's window */
    ev(d0, TD_K_MEMCPY, "Memcpy HtoD", 430, 10, 4);
    td_summary *s = run(NULL);
    /* auto: 300 > 1.5 x median(100, 100, 160) = 150 -> drop step 1 */
    CHECK_EQ_INT(td_sum_get(s, "warmup.dropped")->v.i, 1);
    CHECK_EQ_STR(td_sum_get(s, "warmup.rule")->v.s, "The first step was dropped: its wall time "
                 "was over 1.5x the median of the other steps.");
    const td_table *st = td_sum_find_table(s, "steps");
    CHECK(st && st->nrows == 4);
    CHECK_EQ_INT(I(s, "steps", 0, "warmup"), 1);
    CHECK_EQ_INT(I(s, "steps", 1, "warmup"), 0);
    CHECK_EQ_INT(I(s, "steps", 1, "step"), 2);
    CHECK_EQ_INT(I(s, "steps", 0, "device_busy_ns"), 100);  /* [20,120) */
    CHECK_EQ_INT(I(s, "steps", 1, "device_busy_ns"), 60);   /* [330,350) u [360,400) */
    CHECK_EQ_INT(I(s, "steps", 2, "device_busy_ns"), 30);   /* [400,420) u [430,440) */
    /* timeline, all devices: trace span [20,440) = 420, busy 100+20+60+10 = 190;
     * steady from 300: [330,350) [360,420) [430,440): total 110, busy 90 */
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    CHECK(tl && tl->nrows == 4); /* device 0 and all, trace and steady */
    for (size_t r = 0; tl && r < tl->nrows; r++) {
        const char *scope = td_table_cell(tl, r, td_table_col(tl, "scope"))->s;
        int steady = !strcmp(scope, "steady");
        CHECK_EQ_INT(I(s, "gpu_timeline", (long)r, "total_ns"), steady ? 110 : 420);
        CHECK_EQ_INT(I(s, "gpu_timeline", (long)r, "busy_ns"), steady ? 90 : 190);
        CHECK_EQ_INT(I(s, "gpu_timeline", (long)r, "exposed_memcpy_ns"), 10);
    }
    /* modules: "ProfilerStep" kept executions 2,3,4 with 2,1,0 thunks; GPU spans
     * [330,420) = 90, [430,440) = 10, 0 -> total 100, mean 33.33 */
    long m = R(s, "modules", "name", "ProfilerStep");
    CHECK(m >= 0);
    CHECK_EQ_INT(I(s, "modules", m, "executions"), 3);
    CHECK_EQ_INT(I(s, "modules", m, "total_ns"), 100);
    CHECK_EQ_INT(I(s, "modules", m, "mean_ns"), 33);
    CHECK(fabs(F(s, "modules", m, "thunks_mean") - 1.0) < 1e-12);
    CHECK(fabs(F(s, "modules", m, "thunks_std") - 1.0) < 1e-12);
    /* outlier: step 4 (160) vs median of 100,100,160 = 100 -> 1.6x */
    CHECK_EQ_INT(I(s, "outlier_steps", 0, "wall_ns"), 160);
    td_summary_free(s);

    td_opts o;
    td_opts_default(&o);
    o.warmup = TD_WARMUP_NONE;
    s = run(&o);
    CHECK_EQ_INT(td_sum_get(s, "warmup.dropped")->v.i, 0);
    CHECK_EQ_INT(td_sum_find_table(s, "gpu_timeline")->nrows, 2);
    td_summary_free(s);
    o.warmup = 2;
    o.step_pattern = "^ProfilerStep#[34]$";
    s = run(&o);
    CHECK_EQ_INT(td_sum_find_table(s, "steps")->nrows, 2);
    CHECK_EQ_INT(td_sum_get(s, "warmup.dropped")->v.i, 2);
    CHECK_EQ_STR(td_sum_get(s, "warmup.rule")->v.s, "As asked (--warmup 2), the first 2 steps "
                 "of each rank with steps were dropped: 2 in all.");
    td_summary_free(s);
    o.step_pattern = "(";
    s = td_summary_new();
    td_err e = {0};
    CHECK_EQ_INT(td_analyse(S, &o, s, &e), TD_E_USAGE);
    CHECK(strstr(e.msg, "--step-pattern") != NULL);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Kernel statistics and collectives. */
static void test_kernels_coll(void)
{
    fresh();
    uint32_t d0 = dev(0, 7), d1 = dev(1, 7), c0 = dev(0, 20);
    ev(d0, TD_K_KERNEL, "k1", 0, 10, 0);
    ev(d0, TD_K_KERNEL, "k1", 100, 20, 0);
    ev(d1, TD_K_KERNEL, "k1", 200, 30, 0);
    ev(d1, TD_K_KERNEL, "k1", 300, 40, 0);
    ev(d0, TD_K_KERNEL, "k2", 400, 5, 0);
    td_aux *xa;
    td_nccl *x;
    td_event *e = ev(c0, TD_K_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_float(x)", 395, 1000, 0);
    e->aux = td_trace_push_aux(T, &xa);
    x = td_trace_push_nccl(T, e->aux);
    x->coll = td_intern_cstr(S->strs, "allreduce");
    x->dtype = td_intern_cstr(S->strs, "Float");
    x->in_nelems = x->out_nelems = 1000;
    x->group_size = 4;
    e = ev(c0, TD_K_KERNEL, "ncclDevKernel_AllGather_RING_LL(x)", 2000, 100, 0);
    e->aux = td_trace_push_aux(T, &xa);
    x = td_trace_push_nccl(T, e->aux);
    x->dtype = td_intern_cstr(S->strs, "BFloat16");
    x->in_nelems = 50;
    x->out_nelems = 200;
    x->group_size = 4;
    td_summary *s = run(NULL);
    long k = R(s, "kernels", "name", "k1");
    CHECK_EQ_INT(I(s, "kernels", k, "calls"), 4);
    CHECK_EQ_INT(I(s, "kernels", k, "total_ns"), 100);
    CHECK_EQ_INT(I(s, "kernels", k, "median_ns"), 25);
    CHECK_EQ_INT(I(s, "kernels", k, "std_ns"), 13); /* sqrt(500/3) = 12.9 */
    CHECK_EQ_INT(I(s, "kernels", k, "min_ns"), 10);
    CHECK_EQ_INT(I(s, "kernels", k, "max_ns"), 40);
    CHECK_EQ_INT(I(s, "kernels", 0, "total_ns"), 1000); /* sorted by total */
    const td_table *ns = td_sum_find_table(s, "cuda_gpu_kern_sum");
    CHECK(ns && ns->no_json);
    long nk = R(s, "cuda_gpu_kern_sum", "Name", "k1");
    CHECK(fabs(F(s, "cuda_gpu_kern_sum", nk, "Time (%)") - 100.0 * 100 / 1205) < 1e-9);
    CHECK(fabs(F(s, "cuda_gpu_kern_sum", nk, "Med (ns)") - 25.0) < 1e-9);
    const td_table *bd = td_sum_find_table(s, "kernels_by_device");
    CHECK(bd && bd->nrows == 5);
    CHECK_EQ_INT(I(s, "kernels_by_device", 0, "device"), 0);
    CHECK_EQ_INT(I(s, "kernels_by_device", 4, "device"), 1);
    long c = R(s, "collectives", "name", "allreduce");
    CHECK_EQ_INT(I(s, "collectives", c, "bytes"), 4000);
    CHECK(fabs(F(s, "collectives", c, "algbw_gbps") - 4.0) < 1e-12);
    CHECK(fabs(F(s, "collectives", c, "busbw_gbps") - 6.0) < 1e-12); /* x 2(4-1)/4 */
    CHECK_EQ_INT(I(s, "collectives", c, "hidden_ns"), 5); /* k2 [400,405) on device 0 */
    long g = R(s, "collectives", "name", "allgather");
    CHECK_EQ_INT(I(s, "collectives", g, "bytes"), 400); /* out 200 x 2 bytes */
    CHECK(fabs(F(s, "collectives", g, "busbw_gbps") - 4.0 * 0.75) < 1e-12);
    /* timeline device 0: COMP [0,10) [100,120) [400,405); COMM [395,1395) [2000,2100) */
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    CHECK(tl != NULL);
    CHECK_EQ_INT(I(s, "gpu_timeline", 0, "device"), 0);
    CHECK_EQ_INT(I(s, "gpu_timeline", 0, "computation_ns"), 35);
    CHECK_EQ_INT(I(s, "gpu_timeline", 0, "exposed_comm_ns"), 1095);
    CHECK_EQ_INT(I(s, "gpu_timeline", 0, "total_ns"), 2100);
    td_summary_free(s);
    td_traceset_free(S);
}

static void test_names(void)
{
    td_summary *s = td_summary_new();
    CHECK_EQ_INT(td_trailing_num("ProfilerStep#12"), 12);
    CHECK_EQ_INT(td_trailing_num("forward"), -1);
    CHECK_EQ_STR(td_strip_num(s, "ProfilerStep#12"), "ProfilerStep");
    CHECK_EQ_STR(td_strip_num(s, "iteration_3"), "iteration");
    CHECK_EQ_STR(td_strip_num(s, "42"), "42");
    CHECK_EQ_STR(td_strip_num(s, "fwd"), "fwd");
    CHECK(td_is_comm_name("ncclDevKernel_AllGather_RING_LL(x)"));
    CHECK(td_is_comm_name("void RCCL_kernel"));
    CHECK(!td_is_comm_name("volta_sgemm_128x64_nn"));
    td_summary_free(s);
}

/* Collective type and size without "Collective name" args: from the kernel name; no
 * dtype -> unknown bytes, no bandwidth. Warm-up auto keeps everything below 3 steps. */
static void test_coll_names(void)
{
    fresh();
    T->world_size = 8;
    uint32_t c0 = dev(0, 20), th = host(1);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#1", 0, 1000, 0);
    ev(th, TD_K_USER_ANNOT, "ProfilerStep#2", 1000, 10, 0);
    ev(c0, TD_K_KERNEL, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", 0, 10, 0);
    ev(c0, TD_K_KERNEL, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 20, 10, 0);
    ev(c0, TD_K_KERNEL, "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(x)", 40, 30, 0);
    td_summary *s = run(NULL);
    CHECK_EQ_INT(td_sum_get(s, "warmup.dropped")->v.i, 0);
    /* nothing dropped: the rule says so, and no finding speaks of dropped steps */
    CHECK(!strncmp(td_sum_get(s, "warmup.rule")->v.s, "No step was dropped:", 20));
    for (size_t k = 0; k < s->nfindings; k++)
        CHECK(strstr(s->findings[k], "dropped") == NULL);
    long r = R(s, "collectives", "name", "reducescatter");
    CHECK_EQ_INT(I(s, "collectives", r, "calls"), 2);
    CHECK_EQ_INT(I(s, "collectives", r, "mean_ns"), 20);
    CHECK_EQ_INT(I(s, "collectives", r, "group_size"), 8);
    CHECK_EQ_INT(I(s, "collectives", r, "bytes"), TD_NA);
    CHECK(isnan(F(s, "collectives", r, "busbw_gbps")));
    CHECK(R(s, "collectives", "name", "sendrecv") >= 0);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Top-module cut (formats.md sec.4): totals 100, 50, 1 with threshold 0.01 of 151:
 * "small" (1 < 1.51) is dropped, "mid" would make 51 >= 1.51 and stays. */
static void test_module_cut(void)
{
    fresh();
    uint32_t th = host(1), d0 = dev(0, 7);
    const char *nm[] = {"big", "mid", "small"};
    int64_t len[] = {100, 50, 1};
    for (int k = 0; k < 3; k++) {
        int64_t t0 = 1000 * k;
        ev(th, TD_K_USER_ANNOT, nm[k], t0, 500, 0);
        ev(th, TD_K_RUNTIME, "launch", t0 + 10, 5, 100 + k);
        ev(d0, TD_K_KERNEL, "kern", t0 + 20, len[k], 100 + k);
    }
    td_opts o;
    td_opts_default(&o);
    o.module_pattern = "^(big|mid|small)$";
    td_summary *s = run(&o);
    CHECK_EQ_INT(td_sum_get(s, "module_cut.dropped_modules")->v.i, 1);
    CHECK_EQ_INT(td_sum_get(s, "module_cut.dropped_ns")->v.i, 1);
    const td_table *m = td_sum_find_table(s, "modules");
    CHECK(m && m->nrows == 2);
    CHECK_EQ_INT(I(s, "modules", 0, "total_ns"), 100);
    CHECK(fabs(F(s, "modules", 0, "share") - 100.0 / 151) < 1e-12);
    CHECK(R(s, "modules", "name", "small") < 0);
    CHECK(R(s, "thunks", "module", "small") < 0);
    CHECK(R(s, "thunks", "module", "mid") >= 0);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Device work launched through driver calls (XLA, Triton: cuLaunchKernel, cuMemcpy*Async,
 * cuMemset*Async) links by correlation exactly as runtime launches do. Hand-computed:
 *   triton_mm [0,100) > cuLaunchKernel #7 -> kernel [20,60) = 40
 *   cuMemcpyHtoDAsync_v2 #8 outside every op -> memcpy [215,245) = 30 (owner: the call)
 *   aten::fill_ [300,350) > cuMemsetD32Async #9 -> memset [320,330) = 10
 *   aten::mm [400,500) > cudaLaunchKernel #10 > cuLaunchKernel #10 -> gemm [440,490) = 50,
 *     counted once (the outer call with that id launches it) */
static void test_driver_launch(void)
{
    fresh();
    uint32_t th = host(1), d0 = dev(0, 7);
    ev(th, TD_K_CPU_OP, "triton_mm", 0, 100, 0);
    ev(th, TD_K_DRIVER, "cuLaunchKernel", 10, 5, 7);
    ev(d0, TD_K_KERNEL, "triton_k", 20, 40, 7);
    ev(th, TD_K_DRIVER, "cuMemcpyHtoDAsync_v2", 200, 10, 8);
    ev(d0, TD_K_MEMCPY, "Memcpy HtoD", 215, 30, 8);
    ev(th, TD_K_CPU_OP, "aten::fill_", 300, 50, 0);
    ev(th, TD_K_DRIVER, "cuMemsetD32Async", 310, 5, 9);
    ev(d0, TD_K_MEMSET, "Memset", 320, 10, 9);
    ev(th, TD_K_CPU_OP, "aten::mm", 400, 100, 0);
    ev(th, TD_K_RUNTIME, "cudaLaunchKernel", 410, 20, 10);
    ev(th, TD_K_DRIVER, "cuLaunchKernel", 412, 8, 10);
    ev(d0, TD_K_KERNEL, "gemm", 440, 50, 10);
    td_summary *s = run(NULL);
    long r = R(s, "ops", "name", "triton_mm");
    CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 40);
    CHECK_EQ_INT(I(s, "ops", r, "device_total_ns"), 40);
    r = R(s, "ops", "name", "cuMemcpyHtoDAsync_v2");
    CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 30);
    CHECK_EQ_INT(I(s, "ops", r, "device_avg_ns"), 30);
    CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "aten::fill_"), "device_self_ns"), 10);
    r = R(s, "ops", "name", "aten::mm");
    CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 50);
    CHECK_EQ_INT(I(s, "ops", r, "device_total_ns"), 50);
    r = R(s, "ops", "name", "cuLaunchKernel");
    CHECK_EQ_INT(I(s, "ops", r, "calls"), 2);
    CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 0);
    CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "cudaLaunchKernel"), "device_total_ns"), 0);
    /* every device event is attributed exactly once: 40 + 30 + 10 + 50 */
    const td_table *ops = td_sum_find_table(s, "ops");
    int64_t sum = 0;
    for (size_t k = 0; ops && k < ops->nrows; k++)
        sum += I(s, "ops", (long)k, "device_self_ns");
    CHECK_EQ_INT(sum, 130);
    td_summary_free(s);
    td_traceset_free(S);
}

/* NVTX push/pop ranges of an Nsight Systems report are ops like user_annotation:
 *   NVTX:train [0,1000) > MPI:MPI_Send [100,200)
 *                       > cudaLaunchKernel [300,310) #1 -> kernel [320,370) = 50
 *                       > fwd [400,600) > cudaMemcpy [450,500) #2 -> memcpy [460,500) = 40
 * train: self 1000 - 100 - 10 - 200 = 690, device self 50, device total 90;
 * fwd: self 200 - 50 = 150, device self 40. In an nsys-jax archive they are not ops. */
static void test_nvtx_ops(void)
{
    for (int jax = 0; jax < 2; jax++) {
        fresh();
        T->format = jax ? TD_FMT_NSYS_JAX : TD_FMT_NSYS_SQLITE;
        uint32_t th = host(1), d0 = dev(0, 7);
        ev(th, TD_K_RANGE, "NVTX:train", 0, 1000, 0);
        ev(th, TD_K_RANGE, "MPI:MPI_Send", 100, 100, 0);
        ev(th, TD_K_RUNTIME, "cudaLaunchKernel", 300, 10, 1);
        ev(d0, TD_K_KERNEL, "k", 320, 50, 1);
        ev(th, TD_K_RANGE, "fwd", 400, 200, 0);
        ev(th, TD_K_RUNTIME, "cudaMemcpy", 450, 50, 2);
        ev(d0, TD_K_MEMCPY, "Memcpy HtoD", 460, 40, 2);
        td_summary *s = run(NULL);
        long r = R(s, "ops", "name", "NVTX:train");
        if (jax) {
            CHECK(r < 0);
            CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "cudaMemcpy"), "device_self_ns"), 40);
            td_summary_free(s);
            td_traceset_free(S);
            continue;
        }
        CHECK_EQ_INT(I(s, "ops", r, "calls"), 1);
        CHECK_EQ_INT(I(s, "ops", r, "self_ns"), 690);
        CHECK_EQ_INT(I(s, "ops", r, "total_ns"), 1000);
        CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 50);
        CHECK_EQ_INT(I(s, "ops", r, "device_total_ns"), 90);
        r = R(s, "ops", "name", "fwd");
        CHECK_EQ_INT(I(s, "ops", r, "self_ns"), 150);
        CHECK_EQ_INT(I(s, "ops", r, "device_self_ns"), 40);
        CHECK_EQ_INT(I(s, "ops", r, "device_total_ns"), 40);
        r = R(s, "ops", "name", "MPI:MPI_Send");
        CHECK_EQ_INT(I(s, "ops", r, "self_ns"), 100);
        CHECK_EQ_INT(I(s, "ops", r, "device_total_ns"), 0);
        CHECK_EQ_INT(I(s, "ops", R(s, "ops", "name", "cudaMemcpy"), "device_self_ns"), 0);
        /* self total 690 + 100 + 10 + 150 + 50 = 1000 */
        CHECK(fabs(F(s, "ops", R(s, "ops", "name", "NVTX:train"), "self_share") - 0.69) < 1e-12);
        const td_flame *fl = td_sum_find_flame(s, "cpu");
        int found = 0;
        for (size_t i = 0; fl && i < fl->n; i++)
            if (!strcmp(fl->st[i].stack, "thread 1;NVTX:train;fwd;cudaMemcpy") && fl->st[i].value == 50)
                found = 1;
        CHECK(found);
        td_summary_free(s);
        td_traceset_free(S);
    }
}

/* Several ranks: job-wide gpu_timeline rows first (rank null, sums of the ranks' "all"
 * rows; the steady one takes a rank's trace row when it dropped nothing), findings that
 * speak of the job, the straggler sentence. Hand-computed:
 *   rank 0: steps 300,100,100,100 (auto drops the first); kernels [20,120) [310,360)
 *     [410,440): trace comp 180, total 420, idle 240; steady from 300: comp 80,
 *     total 130, idle 50
 *   rank 1: steps 100 x3 (none dropped); kernel [10,60), NCCL [50,150), memcpy
 *     [200,210): comp 50, exposed comm 100-10 = 90, exposed memcpy 10, busy 150,
 *     total 200, idle 50
 *   rank 2: steps 130 x3; kernel [0,40): comp 40, total 40, idle 0
 *   job trace: comp 270, xcomm 90, xmemcpy 10, busy 370, idle 290, total 660
 *   job steady: comp 170, xcomm 90, xmemcpy 10, busy 270, idle 100, total 370
 *   median kept step per rank 100, 100, 130 -> rank 2 is 30% slower than 100. */
static void test_ranks(void)
{
    fresh();
    for (int r = 0; r < 3; r++) {
        if (r) {
            T = td_traceset_add(S, r == 1 ? "r1.json" : "r2.json");
            T->format = TD_FMT_CHROME_JSON;
        }
        T->rank = r;
        uint32_t th = host(1), d0 = dev(r, 7), c0 = dev(r, 20);
        int64_t w0[] = {300, 100, 100, 100}, w1[] = {100, 100, 100}, w2[] = {130, 130, 130};
        const int64_t *w = r == 0 ? w0 : r == 1 ? w1 : w2;
        int64_t t0 = 0;
        for (int k = 0; k < (r ? 3 : 4); k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "ProfilerStep#%d", k + 1);
            ev(th, TD_K_USER_ANNOT, nm, t0, w[k], 0);
            t0 += w[k];
        }
        if (r == 0) {
            ev(d0, TD_K_KERNEL, "k", 20, 100, 0);
            ev(d0, TD_K_KERNEL, "k", 310, 50, 0);
            ev(d0, TD_K_KERNEL, "k", 410, 30, 0);
        } else if (r == 1) {
            ev(d0, TD_K_KERNEL, "k", 10, 50, 0);
            ev(c0, TD_K_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_float", 50, 100, 0);
            ev(d0, TD_K_MEMCPY, "Memcpy HtoD", 200, 10, 0);
        } else {
            ev(d0, TD_K_KERNEL, "k", 0, 40, 0);
        }
    }
    td_summary *s = run(NULL);
    const td_table *tl = td_sum_find_table(s, "gpu_timeline");
    CHECK(tl != NULL);
    static const char *const key[] = {"computation_ns", "exposed_comm_ns", "exposed_memcpy_ns",
                                      "busy_ns", "idle_ns", "total_ns", "total_comm_ns",
                                      "total_memcpy_ns"};
    int64_t want[2][8] = {{270, 90, 10, 370, 290, 660, 100, 10},
                          {170, 90, 10, 270, 100, 370, 100, 10}};
    for (long r = 0; tl && r < 2; r++) {
        CHECK_EQ_INT(I(s, "gpu_timeline", r, "rank"), TD_NA);
        CHECK_EQ_INT(I(s, "gpu_timeline", r, "device"), -1);
        CHECK_EQ_STR(td_table_cell(tl, (size_t)r, td_table_col(tl, "scope"))->s,
                     r ? "steady" : "trace");
        for (int k = 0; k < 8; k++)
            CHECK_EQ_INT(I(s, "gpu_timeline", r, key[k]), want[r][k]);
    }
    /* then the ranks' own rows; no other job-wide row */
    for (size_t r = 2; tl && r < tl->nrows; r++)
        CHECK(I(s, "gpu_timeline", (long)r, "rank") != TD_NA);
    CHECK_EQ_STR(td_sum_get(s, "warmup.rule")->v.s,
                 "The first step of 1 of the 3 ranks was dropped: its wall time was over 1.5x "
                 "the median of the rank's other steps.");
    CHECK(s->nfindings >= 3 && s->nfindings <= 6);
    int idle = 0, comm = 0, strag = 0;
    for (size_t k = 0; k < s->nfindings; k++) {
        /* then what the streams' idle time is (analyse/idle.c, issue 24) */
        static const char idle_head[] = "GPU idle 27% of the device timeline (first to last device "
                                   "activity, summed over 3 ranks) after warm-up: of the "
                                   "streams' idle time, ";
        idle += !strncmp(s->findings[k], idle_head, sizeof idle_head - 1);
        comm += !strcmp(s->findings[k], "Exposed communication (not overlapped with computation) is "
                                              "24% of the same timeline.");
        strag += !strcmp(s->findings[k], "Rank 2's steps are 30% slower than the median rank.");
    }
    CHECK(idle == 1 && comm == 1 && strag == 1);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Findings of an XLA summary (no kernel/op/timeline tables) from its module and HLO
 * tables: still 3 sentences, and dropped warm-up counted as module executions. */
static void test_xla_findings(void)
{
    td_summary *s = td_summary_new();
    td_table *m = td_sum_table(s, "modules", "Modules");
    td_table_cols(m, "name:text:Module", "program_id:int:Program", "mean_ns:ns:Mean",
                  "share:share:Share", NULL);
    size_t r = td_table_add_row(m);
    td_row_str(s, m, r, "name", "pjit__wrapped_step_fn");
    td_row_int(s, m, r, "program_id", 40);
    td_row_int(s, m, r, "mean_ns", 126664348);
    td_row_f64(s, m, r, "share", 0.994006);
    td_table *h = td_sum_table(s, "hlo_ops", "Time by HLO op");
    td_table_cols(h, "hlo_op:text:HLO op", "share:share:Share", NULL);
    r = td_table_add_row(h);
    td_row_str(s, h, r, "hlo_op", "custom-call");
    td_row_f64(s, h, r, "share", 0.314062);
    td_sum_set_int(s, "warmup.dropped", "Executions dropped", TD_T_INT, 96);
    td_actx a;
    memset(&a, 0, sizeof a);
    a.s = s;
    a.n = 4;
    td_an_findings(&a);
    CHECK_EQ_INT(s->nfindings, 3);
    if (s->nfindings == 3) {
        CHECK_EQ_STR(s->findings[0], "The top module (pjit__wrapped_step_fn) is 99% of module "
                     "time, 126.664 ms per execution on average.");
        CHECK_EQ_STR(s->findings[1], "The top HLO operation kind (custom-call) is 31% of thunk time.");
        CHECK_EQ_STR(s->findings[2], "96 warm-up module executions were dropped from the "
                     "statistics across 4 ranks.");
    }
    td_summary_free(s);
}

int main(void)
{
    test_module_cut();
    test_names();
    test_coll_names();
    test_intervals();
    test_stats();
    test_nest_ops();
    test_steps();
    test_kernels_coll();
    test_driver_launch();
    test_nvtx_ops();
    test_ranks();
    test_xla_findings();
    return UNIT_DONE();
}
