/* analyse/memory.c - the allocator's memory per device from torch.profiler's `[memory]`
 * instant events (profile_memory=True; read/chrome_event.c keeps them as td_mem): table
 * `memory`, one row per (rank, device) (doc/summary-json.md "memory"). The peaks are the
 * events' own maxima of "Total Allocated" and "Total Reserved"; the allocated peak's time,
 * step (the step range around it) and op (the innermost CPU op around it on the thread
 * that allocated) are those of the first event that reached it. Old traces (torch 1.8)
 * give "Bytes" only: the allocated bytes are then their running sum from the trace's
 * start (column `allocated_from` says which). Nsight Systems exports give the same from
 * CUDA_GPU_MEMORY_USAGE_EVENTS (read/nsys_gpu.c: each device allocation and free as a
 * td_mem with Bytes only, in time order). Neither HTA nor
 * TraceLens reads these events. */
#include "analyse/internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* c10::DeviceType names, as torch prints a device ("cuda:0"). */
static const char *devtype_name(int32_t t)
{
    static const char *const N[] = {"cpu", "cuda", "mkldnn", "opengl", "opencl", "ideep", "hip",
                                    "fpga", "maia", "xla", "vulkan", "metal", "xpu", "mps",
                                    "meta", "hpu", "ve", "lazy", "ipu", "mtia", "privateuseone"};
    return t >= 0 && t < (int32_t)(sizeof N / sizeof N[0]) ? N[t] : NULL;
}

/* "cuda:0", "cpu", "type99:7" */
static void dev_name(char *dev, size_t cap, int32_t type, int32_t device)
{
    const char *tn = devtype_name(type);
    if (!tn)
        snprintf(dev, cap, "type%d:%d", (int)type, (int)device);
    else if (device < 0)
        snprintf(dev, cap, "%s", tn);
    else
        snprintf(dev, cap, "%s:%d", tn, (int)device);
}

typedef struct {
    int32_t type, device;
    size_t n, peak;      /* events; index (into t->mem) of the first allocated peak */
    int64_t alloc_peak;  /* its allocated bytes */
    int64_t run;         /* running sum of Bytes (events without totals) */
    int totals;          /* some event gave "Total Allocated" */
    int64_t res_peak;    /* largest "Total Reserved", -1 none */
} devmem;

/* The innermost CPU op on track k whose interval holds ts (latest start, then shortest),
 * -1 none. In an nsys export the ops are the NVTX push/pop ranges (TD_K_RANGE). */
static int32_t op_at(const td_trace *t, uint32_t k, int64_t ts)
{
    int32_t best = -1;
    int kind = t->format == TD_FMT_NSYS_SQLITE ? TD_K_RANGE : TD_K_CPU_OP;
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *e = &t->ev[i];
        if (e->kind != kind || e->track != k || e->ts > ts || e->ts + e->dur < ts)
            continue;
        if (best < 0 || e->ts > t->ev[best].ts ||
            (e->ts == t->ev[best].ts && e->dur < t->ev[best].dur))
            best = (int32_t)i;
    }
    return best;
}

static const td_step *step_at(const td_tctx *c, int64_t ts)
{
    for (size_t i = 0; i < c->nsteps; i++)
        if (c->steps[i].start <= ts && ts < c->steps[i].end)
            return &c->steps[i];
    return NULL;
}

static td_table *table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "memory", "Memory");
    td_table_cols(tb, "rank:int:Rank", "device:text:Device", "events:int:Events",
                  "peak_allocated_bytes:bytes:Peak allocated",
                  "allocated_from:text:Allocated from",
                  "peak_reserved_bytes:bytes:Peak reserved", "peak_ns:ns:Peak at",
                  "peak_step:text:Peak step", "peak_op:text:Peak op",
                  "device_memory_bytes:bytes:Device memory",
                  "peak_share:share:Reserved of device memory", NULL);
    td_diag_nodoc(tb);
    return tb;
}

static void memory_trace(td_actx *a, const td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    devmem *d = NULL;
    size_t nd = 0, cap = 0;
    for (size_t i = 0; i < t->nmem; i++) {
        const td_mem *m = &t->mem[i];
        size_t k = 0;
        while (k < nd && (d[k].type != m->device_type || d[k].device != m->device))
            k++;
        if (k == nd) {
            devmem *x = TD_PUSH(d, nd, cap);
            memset(x, 0, sizeof *x);
            x->type = m->device_type;
            x->device = m->device;
            x->peak = i;
            x->alloc_peak = INT64_MIN;
            x->res_peak = -1;
        }
        d[k].n++;
        int64_t v = m->allocated;
        if (v >= 0)
            d[k].totals = 1;
        else { /* saturating: a damaged trace may say anything */
            if (__builtin_add_overflow(d[k].run, m->bytes, &d[k].run))
                d[k].run = m->bytes > 0 ? INT64_MAX : INT64_MIN;
            v = d[k].run;
        }
        if (v > d[k].alloc_peak) {
            d[k].alloc_peak = v;
            d[k].peak = i;
        }
        if (m->reserved > d[k].res_peak)
            d[k].res_peak = m->reserved;
    }
    td_summary *s = a->s;
    for (size_t k = 0; k < nd; k++) {
        const td_mem *pk = &t->mem[d[k].peak];
        td_table *tb = *tbp ? *tbp : (*tbp = table(s));
        size_t r = td_table_add_row(tb);
        char dev[48];
        dev_name(dev, sizeof dev, d[k].type, d[k].device);
        td_row_int(s, tb, r, "rank", t->rank);
        td_row_str(s, tb, r, "device", dev);
        td_row_int(s, tb, r, "events", (int64_t)d[k].n);
        td_row_int(s, tb, r, "peak_allocated_bytes", d[k].alloc_peak);
        td_row_str(s, tb, r, "allocated_from", d[k].totals ? "Total Allocated" : "Bytes since the trace start");
        td_row_int(s, tb, r, "peak_reserved_bytes", d[k].res_peak >= 0 ? d[k].res_peak : TD_NA);
        td_row_int(s, tb, r, "peak_ns", pk->ts - c->t0);
        const td_step *st = step_at(c, pk->ts);
        td_row_str(s, tb, r, "peak_step", st ? td_name(a, st->name) : NULL);
        int32_t op = op_at(t, pk->track, pk->ts);
        td_row_str(s, tb, r, "peak_op", op >= 0 ? td_name(a, t->ev[op].name) : NULL);
        /* device memory from deviceProperties (accelerators only) */
        int64_t total = 0;
        for (size_t i = 0; d[k].type > 0 && i < t->ndevices; i++)
            if (t->devices[i].id == d[k].device)
                total = t->devices[i].total_mem;
        td_row_int(s, tb, r, "device_memory_bytes", total > 0 ? total : TD_NA);
        if (total > 0 && d[k].res_peak >= 0)
            td_row_f64(s, tb, r, "peak_share", (double)d[k].res_peak / (double)total);
    }
    free(d);
}

/* ---- memory_timeline: the series downsampled to at most TL_POINTS rows per device ---- */

#define TL_POINTS 200

typedef struct {
    int64_t ts;
    uint32_t i;   /* index into t->mem */
} mev;

static int mev_cmp(const void *x, const void *y)
{
    const mev *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static td_table *tl_table(td_summary *s)
{
    td_table *tb = td_sum_table(s, "memory_timeline", "Memory timeline");
    td_table_cols(tb, "rank:int:Rank", "device:text:Device", "from_ns:ns:From", "to_ns:ns:To",
                  "events:int:Events", "ts_ns:ns:Largest at",
                  "allocated_bytes:bytes:Allocated (largest)",
                  "reserved_bytes:bytes:Reserved (largest)", NULL);
    tb->note = "The allocator's memory per device over time, in at most 200 intervals of "
               "equal length per device: each row holds the largest allocated and reserved "
               "bytes of its interval's [memory] events, so the peak is exact.";
    return tb;
}

/* One device's events (sorted by time): a row per non-empty interval. */
static void tl_device(td_actx *a, const td_tctx *c, const char *dev, const mev *e, size_t n,
                      td_table **tbp)
{
    const td_trace *t = c->t;
    td_summary *s = a->s;
    int64_t first = e[0].ts, span = e[n - 1].ts - first + 1;
    int64_t w = span / TL_POINTS + (span % TL_POINTS != 0);
    if (w < 1)
        w = 1;
    int64_t run = 0;
    for (size_t i = 0; i < n;) {
        int64_t k = (e[i].ts - first) / w;
        int64_t amax = INT64_MIN, rmax = -1, at = e[i].ts;
        size_t j = i;
        for (; j < n && (e[j].ts - first) / w == k; j++) {
            const td_mem *m = &t->mem[e[j].i];
            int64_t v = m->allocated;
            if (v < 0) { /* running sum of Bytes, as the memory table (saturating) */
                if (__builtin_add_overflow(run, m->bytes, &run))
                    run = m->bytes > 0 ? INT64_MAX : INT64_MIN;
                v = run;
            }
            if (v > amax) {
                amax = v;
                at = e[j].ts;
            }
            if (m->reserved > rmax)
                rmax = m->reserved;
        }
        td_table *tb = *tbp ? *tbp : (*tbp = tl_table(s));
        size_t r = td_table_add_row(tb);
        td_row_int(s, tb, r, "rank", t->rank);
        td_row_str(s, tb, r, "device", dev);
        td_row_int(s, tb, r, "from_ns", first + k * w - c->t0);
        td_row_int(s, tb, r, "to_ns", first + (k + 1) * w - c->t0);
        td_row_int(s, tb, r, "events", (int64_t)(j - i));
        td_row_int(s, tb, r, "ts_ns", at - c->t0);
        td_row_int(s, tb, r, "allocated_bytes", amax);
        td_row_int(s, tb, r, "reserved_bytes", rmax >= 0 ? rmax : TD_NA);
        i = j;
    }
}

static void timeline_trace(td_actx *a, const td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    mev *e = td_xmalloc(t->nmem * sizeof *e);
    char *done = td_xcalloc(t->nmem, 1);
    for (size_t i = 0; i < t->nmem; i++) {
        if (done[i])
            continue;
        const td_mem *m0 = &t->mem[i];
        size_t n = 0;
        for (size_t k = i; k < t->nmem; k++)
            if (!done[k] && t->mem[k].device_type == m0->device_type && t->mem[k].device == m0->device) {
                done[k] = 1;
                e[n].ts = t->mem[k].ts;
                e[n++].i = (uint32_t)k;
            }
        qsort(e, n, sizeof *e, mev_cmp);
        char dev[48];
        dev_name(dev, sizeof dev, m0->device_type, m0->device);
        tl_device(a, c, dev, e, n, tbp);
    }
    free(done);
    free(e);
}

/* The tables only when some trace has [memory] events. */
void td_an_memory(td_actx *a)
{
    td_table *tb = NULL, *tl = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->nmem)
            memory_trace(a, &a->tc[i], &tb);
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->nmem)
            timeline_trace(a, &a->tc[i], &tl);
}
