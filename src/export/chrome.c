/* export/chrome.c - `tracedoc export --format chrome`: every input as one Chrome Trace
 * Event JSON file (doc/commands.md "Export to Perfetto"), so one viewer serves every stack.
 *
 * - Events of the model (Kineto passthrough, nsys, nsys-jax CPU ranges, AIU host pairs,
 *   SambaTune rows) keep their name, category, process and thread; X events (B/E pairs
 *   read as X), instants as "i", async ranges as b/e pairs, counters as C, flows as
 *   s/t/f, process/thread names and sort indexes as M. A category that would read back
 *   as another kind than the event has (an nsys kernel is "kernel" already; a legacy CPU
 *   function has none) is written as the kind's Kineto category, the original kept in
 *   args.source_cat. args: correlation, External id, bytes, NCCL fields, grid/block, and
 *   device/stream on device work.
 * - NVTX ranges with a GPU projection (nsys, nsys-jax): one process per device, one
 *   thread per (launching thread, nesting level), at the projected GPU times.
 * - IBM AIU: the host B/E pairs as read, plus per AIU a "device" process: each
 *   instruction at its device time (TS interval at the summary's SoC clock, ending at
 *   host E), lanes by type (Cmpt Exec as "kernel", DmaI/DmaO as "gpu_memcpy"), an
 *   instruction that overlaps the previous one in its lane going to the next lane.
 * - Graphcore IPU: per IPU a process with a Runs thread and one thread per step-type
 *   category, steps at cyclesFrom.min for their cycles at the target clock; lightweight
 *   profiling in its own process per IPU, one thread per tile and the I/O lanes, blocks
 *   after the overflow rules (td_lwp_blocks), relative cycles.
 * - Several inputs: each gets its own pids (process names prefixed "rank N: ").
 * Times are microseconds with three decimals (exact ns). When the earliest time is a
 * wall-clock one (epoch ns), whole seconds are taken off every time and written as
 * baseTimeNanoseconds, so viewers that parse times as doubles keep the nanoseconds.
 *
 * This file drives the file (header, origin, inputs) and writes the model's events and
 * the NVTX projections; chrome_device.c the AIU and IPU device time, chrome_emit.c the
 * single events (export/internal.h). */
#define _POSIX_C_SOURCE 200809L
#include "export/chrome.h"
#include "export/internal.h"
#include "export/stacktrace.h"
#include "model/ipu.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPOCH_LO (1262304000LL * 1000000000LL) /* 2010-01-01: times above are wall clock */
#define BIG_TS 1000000000000000LL             /* 1e15 ns: rebase above this */

static const char *canon_cat(int kind)
{
    switch (kind) {
    case TD_K_CPU_OP: return "cpu_op";
    case TD_K_USER_ANNOT: return "user_annotation";
    case TD_K_PYTHON: return "python_function";
    case TD_K_RUNTIME: return "cuda_runtime";
    case TD_K_DRIVER: return "cuda_driver";
    case TD_K_OVERHEAD: return "overhead";
    case TD_K_KERNEL: return "kernel";
    case TD_K_MEMCPY: return "gpu_memcpy";
    case TD_K_MEMSET: return "gpu_memset";
    case TD_K_GPU_ANNOT: return "gpu_user_annotation";
    case TD_K_DEVICE_OTHER: return "privateuse1_kernel";
    case TD_K_RANGE: return "nvtx";
    default: return NULL;
    }
}

/* ---- the model's events ---- */

typedef struct tmap {
    int64_t pid, tid;
} tmap;

static const char *device_word(const cw *w)
{
    const td_kv *kv = td_sum_get(w->s, "trace.device_word");
    return kv && kv->v.s ? kv->v.s : "Device";
}

/* The name of a track's row: its thread name, else "stream N" or "thread N". */
static void thread_label(const cw *w, const td_track *k, char *name, size_t n)
{
    const td_strtab *S = w->set->strs;
    const char *tn = k->thread_name ? td_strget(S, k->thread_name)
                     : k->tid_str  ? td_strget(S, k->tid_str) : NULL;
    if (tn)
        snprintf(name, n, "%.590s", tn);
    else if (k->device >= 0 && k->stream >= 0)
        snprintf(name, n, "stream %d", k->stream);
    else
        snprintf(name, n, "thread %lld", (long long)k->tid);
}

/* Output pid/tid of every track of t, and their names. */
static tmap *map_tracks(cw *w, const td_trace *t, size_t ti)
{
    const td_strtab *S = w->set->strs;
    tmap *m = td_xmalloc((t->ntracks + 1) * sizeof *m);
    int64_t big = 0;
    char name[600];
    for (size_t i = 0; i < t->ntracks; i++) {
        const td_track *k = &t->tracks[i];
        size_t first = i;
        for (size_t j = 0; j < i; j++)
            if (t->tracks[j].pid == k->pid) {
                first = j;
                break;
            }
        /* a pid outside 32 bits (Kineto's "Spans"/"Traces" string pids, hashed by the
         * reader) loses digits in JavaScript viewers: it gets a fresh one, as several
         * inputs do */
        int wide = k->pid < INT32_MIN || k->pid > INT32_MAX;
        m[i].pid = first < i ? m[first].pid : w->multi || wide ? w->next_pid++ : k->pid;
        m[i].tid = k->tid >= INT32_MIN && k->tid <= INT32_MAX ? k->tid : 1000000000 + big++;
        if (first == i) { /* the process: the first named track of this pid names it */
            const char *pn = NULL;
            for (size_t j = i; j < t->ntracks && !pn; j++)
                if (t->tracks[j].pid == k->pid && t->tracks[j].process_name)
                    pn = td_strget(S, t->tracks[j].process_name);
            if (!pn && k->pid_str)
                pn = td_strget(S, k->pid_str);
            char dflt[64];
            if (!pn) {
                if (k->device >= 0)
                    snprintf(dflt, sizeof dflt, "%s %d", device_word(w), k->device);
                else
                    snprintf(dflt, sizeof dflt, "Process %lld", (long long)k->pid);
                pn = dflt;
            }
            if (w->multi)
                snprintf(name, sizeof name, "rank %d: %.500s", t->rank, pn);
            else
                snprintf(name, sizeof name, "%.590s", pn);
            td_chrome_meta(w->f, m[i].pid, m[i].tid, "process_name", name,
                           w->multi ? (int64_t)ti * 1000 + (int64_t)i : k->sort_index);
        }
        thread_label(w, k, name, sizeof name);
        td_chrome_meta(w->f, m[i].pid, m[i].tid, "thread_name", name, k->sort_index);
    }
    return m;
}

/* The per-op args the model keeps outside the events (input shapes of modelled ops,
 * [memory] allocator figures), found again by (track, start): an index of each sorted
 * by (track, ts), and a taken mark so that two at one instant pair in file order. */
typedef struct {
    const td_trace *t;
    uint32_t *sh, *mem;
    unsigned char *sh_used, *mem_used;
} side_ix;

static const td_trace *g_ix_trace; /* qsort has no context argument */

static int by_shape(const void *x, const void *y)
{
    const td_shape *a = &g_ix_trace->shapes[*(const uint32_t *)x],
                   *b = &g_ix_trace->shapes[*(const uint32_t *)y];
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

static int by_mem(const void *x, const void *y)
{
    const td_mem *a = &g_ix_trace->mem[*(const uint32_t *)x],
                 *b = &g_ix_trace->mem[*(const uint32_t *)y];
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (*(const uint32_t *)x > *(const uint32_t *)y) - (*(const uint32_t *)x < *(const uint32_t *)y);
}

static void side_ix_init(side_ix *x, const td_trace *t)
{
    memset(x, 0, sizeof *x);
    x->t = t;
    g_ix_trace = t;
    if (t->nshapes) {
        x->sh = td_xmalloc(t->nshapes * sizeof *x->sh);
        x->sh_used = td_xcalloc(t->nshapes, 1);
        for (size_t i = 0; i < t->nshapes; i++)
            x->sh[i] = (uint32_t)i;
        qsort(x->sh, t->nshapes, sizeof *x->sh, by_shape);
    }
    if (t->nmem) {
        x->mem = td_xmalloc(t->nmem * sizeof *x->mem);
        x->mem_used = td_xcalloc(t->nmem, 1);
        for (size_t i = 0; i < t->nmem; i++)
            x->mem[i] = (uint32_t)i;
        qsort(x->mem, t->nmem, sizeof *x->mem, by_mem);
    }
}

static void side_ix_free(side_ix *x)
{
    free(x->sh);
    free(x->mem);
    free(x->sh_used);
    free(x->mem_used);
}

/* the first untaken entry of ix (sorted by track, ts) at (track, ts); -1 when none */
static long side_find(const uint32_t *ix, size_t n, unsigned char *used, int is_mem,
                      const td_trace *t, uint32_t track, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t mt = is_mem ? t->mem[ix[mid]].track : t->shapes[ix[mid]].track;
        int64_t ms = is_mem ? t->mem[ix[mid]].ts : t->shapes[ix[mid]].ts;
        if (mt < track || (mt == track && ms < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n; lo++) {
        uint32_t mt = is_mem ? t->mem[ix[lo]].track : t->shapes[ix[lo]].track;
        int64_t ms = is_mem ? t->mem[ix[lo]].ts : t->shapes[ix[lo]].ts;
        if (mt != track || ms != ts)
            return -1;
        if (!used[lo]) {
            used[lo] = 1;
            return (long)ix[lo];
        }
    }
    return -1;
}

static void raw_arg(args *a, const char *k, const td_strtab *S, td_str v)
{
    if (!v)
        return;
    td_cw_key(a, k);
    fputs(td_strget(S, v), a->f); /* JSON text as the trace had it */
}

static void side_args(args *a, side_ix *x, const td_strtab *S, const td_event *ev)
{
    const td_trace *t = x->t;
    if (ev->kind == TD_K_CPU_OP && x->sh) {
        long i = side_find(x->sh, t->nshapes, x->sh_used, 0, t, ev->track, ev->ts);
        if (i >= 0 && t->shapes[i].name == ev->name) {
            raw_arg(a, "Input Dims", S, t->shapes[i].dims);
            raw_arg(a, "Input type", S, t->shapes[i].types);
            raw_arg(a, "Concrete Inputs", S, t->shapes[i].concrete);
        }
    } else if (ev->kind == TD_K_INSTANT && x->mem && !strcmp(td_strget(S, ev->name), "[memory]")) {
        long i = side_find(x->mem, t->nmem, x->mem_used, 1, t, ev->track, ev->ts);
        if (i >= 0) {
            const td_mem *m = &t->mem[i];
            if (m->device_type >= 0)
                td_cw_int(a, "Device Type", m->device_type);
            td_cw_int(a, "Device Id", m->device);
            td_cw_int(a, "Bytes", m->bytes);
            if (m->allocated >= 0)
                td_cw_int(a, "Total Allocated", m->allocated);
            if (m->reserved >= 0)
                td_cw_int(a, "Total Reserved", m->reserved);
        }
    }
}

static void event_args(cw *w, const td_trace *t, const td_event *ev, const char *src_cat,
                       side_ix *six)
{
    args a = {w->f, 0};
    side_args(&a, six, w->set->strs, ev);
    if (src_cat)
        td_cw_str(&a, "source_cat", src_cat);
    if (ev->corr)
        td_cw_int(&a, "correlation", ev->corr);
    if (ev->aux) {
        const td_aux *x = &t->aux[ev->aux];
        const td_strtab *S = w->set->strs;
        if (x->ext_id)
            td_cw_int(&a, "External id", x->ext_id);
        if (x->bytes >= 0)
            td_cw_int(&a, "bytes", x->bytes);
        const td_nccl *n = td_aux_nccl(t, ev->aux);
        if (n && n->in_nelems >= 0)
            td_cw_int(&a, "In msg nelems", n->in_nelems);
        if (n && n->out_nelems >= 0)
            td_cw_int(&a, "Out msg nelems", n->out_nelems);
        if (n && n->coll)
            td_cw_str(&a, "Collective name", td_strget(S, n->coll));
        if (n && n->dtype)
            td_cw_str(&a, "dtype", td_strget(S, n->dtype));
        if (n && n->group_size)
            td_cw_int(&a, "Group size", n->group_size);
        const td_dims *d = td_trace_dims(t, ev->aux);
        if (d && (d->grid[0] || d->grid[1] || d->grid[2])) {
            td_cw_key(&a, "grid");
            fprintf(w->f, "[%d, %d, %d]", d->grid[0], d->grid[1], d->grid[2]);
        }
        if (d && (d->block[0] || d->block[1] || d->block[2])) {
            td_cw_key(&a, "block");
            fprintf(w->f, "[%d, %d, %d]", d->block[0], d->block[1], d->block[2]);
        }
    }
    const td_track *k = &t->tracks[ev->track];
    if (td_kind_is_device(ev->kind) && k->device >= 0) {
        td_cw_int(&a, "device", k->device);
        td_cw_int(&a, "stream", k->stream >= 0 ? k->stream : 0);
    }
    td_cw_end(&a);
}

/* Slices of one row must nest (the JSON trace format's rule; Perfetto drops a slice that
 * overlaps another without nesting in it). Such slices (AIU instruction streams whose
 * Cmpt Preps overlap, nsys-jax thunk ranges) go to extra rows of their process, named
 * "ROW (overlapping N)": each slice takes the first row, in time order, in which it nests
 * in whatever is still open. Tracks that share an output row (pid, tid) are packed
 * together. row[i] is 0 for the track's own row. */
static const td_trace *g_ov_t;
static const tmap *g_ov_m;

static int same_row(const tmap *m, uint32_t a, uint32_t b)
{
    return m[a].pid == m[b].pid && m[a].tid == m[b].tid;
}

static int ov_cmp(const void *x, const void *y)
{
    const td_event *a = &g_ov_t->ev[*(const size_t *)x], *b = &g_ov_t->ev[*(const size_t *)y];
    const tmap *ma = &g_ov_m[a->track], *mb = &g_ov_m[b->track];
    if (ma->pid != mb->pid)
        return ma->pid < mb->pid ? -1 : 1;
    if (ma->tid != mb->tid)
        return ma->tid < mb->tid ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;   /* the enclosing slice first */
    return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

static int is_slice(const td_event *ev)
{
    return ev->kind != TD_K_INSTANT && ev->kind != TD_K_ASYNC;
}

/* The rows of n slices of one output row, given in time order (start, then the longest
 * first) as [start, end] pairs: row[q] = the first row in which slice q nests in what is
 * still open there. Returns the number of rows used. */
static uint32_t pack_rows(const int64_t (*iv)[2], size_t n, uint32_t *row)
{
    int64_t **st = NULL;
    size_t *depth = NULL, *cap = NULL, nr = 0;
    for (size_t q = 0; q < n; q++) {
        size_t r = 0;
        for (;; r++) {
            if (r == nr) {
                st = td_xrealloc(st, (nr + 1) * sizeof *st);
                depth = td_xrealloc(depth, (nr + 1) * sizeof *depth);
                cap = td_xrealloc(cap, (nr + 1) * sizeof *cap);
                st[nr] = NULL;
                depth[nr] = cap[nr] = 0;
                nr++;
            }
            while (depth[r] && st[r][depth[r] - 1] <= iv[q][0])
                depth[r]--;
            if (!depth[r] || st[r][depth[r] - 1] >= iv[q][1])
                break;
        }
        if (depth[r] == cap[r]) {
            cap[r] = cap[r] ? 2 * cap[r] : 16;
            st[r] = td_xrealloc(st[r], cap[r] * sizeof *st[r]);
        }
        st[r][depth[r]++] = iv[q][1];
        row[q] = (uint32_t)r;
    }
    for (size_t r = 0; r < nr; r++)
        free(st[r]);
    free(st);
    free(depth);
    free(cap);
    return (uint32_t)(nr ? nr : 1);
}

static uint32_t *overlap_rows(const td_trace *t, const tmap *m, uint32_t *nrows_max)
{
    size_t n = 0;
    size_t *ix = td_xmalloc((t->nev + 1) * sizeof *ix);
    for (size_t i = 0; i < t->nev; i++)
        if (is_slice(&t->ev[i]))
            ix[n++] = i;
    g_ov_t = t;
    g_ov_m = m;
    qsort(ix, n, sizeof *ix, ov_cmp);
    uint32_t *row = td_xcalloc(t->nev + 1, sizeof *row);
    int64_t (*iv)[2] = td_xmalloc((n + 1) * sizeof *iv);
    uint32_t *r = td_xmalloc((n + 1) * sizeof *r);
    *nrows_max = 1;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && same_row(m, t->ev[ix[b]].track, t->ev[ix[a]].track))
            b++;
        for (size_t q = a; q < b; q++) {
            const td_event *ev = &t->ev[ix[q]];
            iv[q - a][0] = ev->ts;
            iv[q - a][1] = ev->ts + (ev->dur > 0 ? ev->dur : 0);
        }
        uint32_t nr = pack_rows((const int64_t (*)[2])iv, b - a, r);
        if (nr > *nrows_max)
            *nrows_max = nr;
        for (size_t q = a; q < b; q++)
            row[ix[q]] = r[q - a];
        a = b;
    }
    free(iv);
    free(r);
    free(ix);
    return row;
}

static void model_events(cw *w, const td_trace *t, size_t ti, const tmap *m, int64_t shift)
{
    const td_strtab *S = w->set->strs;
    FILE *f = w->f;
    uint32_t nrows;
    uint32_t *row = overlap_rows(t, m, &nrows);
    side_ix sx;
    side_ix_init(&sx, t);
    int64_t *otid = NULL;   /* per (track, extra row): its tid, 0 until named */
    if (nrows > 1)
        otid = td_xcalloc(t->ntracks * (size_t)(nrows - 1) + 1, sizeof *otid);
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *ev = &t->ev[i];
        const char *cat = ev->cat ? td_strget(S, t->cats[ev->cat]) : "";
        const char *src = NULL;
        const char *canon = canon_cat(ev->kind);
        if (t->format == TD_FMT_ROCPROF_JSON || t->format == TD_FMT_ROCPROF_CSV ||
            t->format == TD_FMT_ROCPD) /* HIP and HSA calls: named as ROCm names them */
            canon = ev->kind == TD_K_RUNTIME ? "hip_runtime" : ev->kind == TD_K_DRIVER ? "driver" : canon;
        if (canon && ev->kind != TD_K_RANGE &&
            td_kind_from_cat(cat, strlen(cat)) != (td_kind)ev->kind) {
            src = *cat ? cat : NULL;
            cat = canon;
        } else if (!*cat && canon)
            cat = canon;
        const char *name = td_strget(S, ev->name);
        int64_t pid = m[ev->track].pid, tid = m[ev->track].tid, ts = ev->ts + shift;
        if (row[i]) {
            int64_t *o = &otid[(size_t)ev->track * (nrows - 1) + row[i] - 1];
            if (!*o) {
                char tn[640], lab[700];
                *o = w->next_tid++;
                thread_label(w, &t->tracks[ev->track], tn, sizeof tn);
                snprintf(lab, sizeof lab, "%s (overlapping %u)", tn, row[i]);
                td_chrome_meta(f, pid, *o, "thread_name", lab,
                               t->tracks[ev->track].sort_index);
            }
            tid = *o;
        }
        if (ev->kind == TD_K_INSTANT) {
            td_cw_head(w, "i", cat, name, pid, tid, ts);
            fputs(", \"s\": \"t\"", f);
        } else if (ev->kind == TD_K_ASYNC) {
            td_cw_head(w, "b", cat, name, pid, tid, ts);
            fprintf(f, ", \"id\": %zu", i);
            event_args(w, t, ev, src, &sx);
            td_cw_head(w, "e", cat, name, pid, tid, ts + ev->dur);
            fprintf(f, ", \"id\": %zu}", i);
            continue;
        } else {
            td_cw_head(w, "X", cat, name, pid, tid, ts);
            fputs(", \"dur\": ", f);
            td_json_us(f, ev->dur);
        }
        event_args(w, t, ev, src, &sx);
    }
    side_ix_free(&sx);
    free(row);
    free(otid);
    for (size_t i = 0; i < t->ncounters; i++) {
        const td_counter *c = &t->counters[i];
        td_cw_head(w, "C", "", td_strget(S, c->name), m[c->track].pid, m[c->track].tid,
                c->ts + shift);
        args a = {f, 0};
        td_cw_real(&a, td_strget(S, c->series), c->value);
        td_cw_end(&a);
    }
    for (size_t i = 0; i < t->nflows; i++) {
        const td_flow *fl = &t->flows[i];
        const char *cat = td_strget(S, fl->cat);
        char ph[2] = {fl->ph, 0};
        td_cw_head(w, ph, cat, cat, m[fl->track].pid, m[fl->track].tid, fl->ts + shift);
        fprintf(f, ", \"id\": %lld%s}", (long long)(fl->id + (int64_t)ti * w->flow_stride),
                fl->bind_next ? ", \"bp\": \"e\"" : "");
    }
}

/* NVTX ranges at their GPU projection: a process per device, a thread per (launching
 * thread, level). */
typedef struct pkey {
    int32_t device, level;
    uint32_t track;
    uint32_t idx;
    int64_t start, end;   /* on the GPU */
} pkey;
static int pkey_cmp(const void *x, const void *y)
{
    const pkey *a = x, *b = y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->start != b->start)   /* time order, the enclosing range first (pack_rows) */
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

static void projected(cw *w, const td_trace *t, const tmap *m, int64_t shift)
{
    pkey *v = td_xmalloc((t->nranges + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < t->nranges; i++) {
        const td_range *r = &t->ranges[i];
        if (r->gpu_start < 0)
            continue;
        int32_t dev = r->device >= 0 ? r->device : t->tracks[r->track].device;
        v[n++] = (pkey){dev < 0 ? -1 : dev, r->level < 0 ? 0 : r->level, r->track, (uint32_t)i,
                        r->gpu_start, r->gpu_end > r->gpu_start ? r->gpu_end : r->gpu_start};
    }
    qsort(v, n, sizeof *v, pkey_cmp);
    const td_strtab *S = w->set->strs;
    char name[600];
    int64_t pid = 0, tid = 0, base = 0;
    /* a row (device, thread, level) whose projected ranges overlap without nesting gets
     * extra rows (see pack_rows) */
    int64_t (*iv)[2] = td_xmalloc((n + 1) * sizeof *iv);
    uint32_t *sub = td_xmalloc((n + 1) * sizeof *sub);
    for (size_t i = 0; i < n; i++) {
        const td_range *r = &t->ranges[v[i].idx];
        if (!i || v[i].device != v[i - 1].device) {
            char dev[32] = "unknown device";
            if (v[i].device >= 0)
                snprintf(dev, sizeof dev, "%s %d", device_word(w), v[i].device);
            if (w->multi)
                snprintf(name, sizeof name, "rank %d: %s: NVTX ranges (GPU projection)",
                         t->rank, dev);
            else
                snprintf(name, sizeof name, "%s: NVTX ranges (GPU projection)", dev);
            pid = td_cw_pid(w, name, w->next_pid);
            tid = 0;
        }
        if (!i || v[i].device != v[i - 1].device || v[i].track != v[i - 1].track ||
            v[i].level != v[i - 1].level) {
            const td_track *k = &t->tracks[v[i].track];
            const char *tn = k->thread_name ? td_strget(S, k->thread_name) : NULL;
            char tb[32];
            if (!tn) {
                snprintf(tb, sizeof tb, "thread %lld", (long long)k->tid);
                tn = tb;
            }
            size_t j = i;
            while (j < n && v[j].device == v[i].device && v[j].track == v[i].track &&
                   v[j].level == v[i].level) {
                iv[j - i][0] = v[j].start;
                iv[j - i][1] = v[j].end;
                j++;
            }
            uint32_t nr = pack_rows((const int64_t (*)[2])iv, j - i, sub + i);
            base = tid + 1;
            for (uint32_t q = 0; q < nr; q++) {
                if (q)
                    snprintf(name, sizeof name, "%.500s, level %d (overlapping %u)", tn,
                             v[i].level, q);
                else
                    snprintf(name, sizeof name, "%.500s, level %d", tn, v[i].level);
                td_chrome_meta(w->f, pid, base + q, "thread_name", name, base + q);
            }
            tid = base + nr - 1;
        }
        td_cw_head(w, "X", "nvtx_gpu_projection", td_strget(S, r->name), pid, base + sub[i],
                r->gpu_start + shift);
        fputs(", \"dur\": ", w->f);
        td_json_us(w->f, r->gpu_end - r->gpu_start);
        args a = {w->f, 0};
        td_cw_us(&a, "cpu_start_us", r->start + shift);
        td_cw_us(&a, "cpu_dur_us", r->end - r->start);
        td_cw_int(&a, "launch_pid", m[r->track].pid);
        td_cw_int(&a, "launch_tid", m[r->track].tid);
        td_cw_int(&a, "level", r->level);
        if (r->range_id)
            td_cw_int(&a, "range_id", r->range_id);
        if (r->parent_id > 0)
            td_cw_int(&a, "parent_id", r->parent_id);
        if (r->num_gpu_ops >= 0)
            td_cw_int(&a, "num_gpu_ops", r->num_gpu_ops);
        if (v[i].device >= 0)
            td_cw_int(&a, "device", v[i].device);
        td_cw_end(&a);
    }
    free(iv);
    free(sub);
    free(v);
}

/* ---- the file ---- */

/* Earliest time of a trace's events, ranges, counters and flows; INT64_MAX none. */
static int64_t trace_min(const td_trace *t)
{
    int64_t lo = INT64_MAX;
    for (size_t i = 0; i < t->nev; i++)
        if (t->ev[i].ts < lo)
            lo = t->ev[i].ts;
    for (size_t i = 0; i < t->nranges; i++)
        if (t->ranges[i].gpu_start >= 0 && t->ranges[i].gpu_start < lo)
            lo = t->ranges[i].gpu_start;
    for (size_t i = 0; i < t->ncounters; i++)
        if (t->counters[i].ts < lo)
            lo = t->counters[i].ts;
    for (size_t i = 0; i < t->nflows; i++)
        if (t->flows[i].ts < lo)
            lo = t->flows[i].ts;
    return lo;
}

/* What a trace's times add to become wall clock: its time base when its times are
 * relative to one (nsys session start, Kineto baseTimeNanoseconds), else 0. */
static int64_t trace_base(const td_trace *t, int64_t lo)
{
    return t->base_time_ns > 0 && lo < EPOCH_LO ? t->base_time_ns : 0;
}

static td_status write_cb(FILE *f, void *ctx, td_err *e)
{
    cw *w = ctx;
    const td_traceset *set = w->set;
    w->f = f;
    /* the time origin: whole seconds below the earliest wall-clock time */
    int64_t lo = INT64_MAX, maxpid = 0, maxtid = 0, maxflow = 0;
    for (size_t i = 0; i < set->n; i++) {
        const td_trace *t = set->tr[i];
        int64_t m = trace_min(t);
        if (m != INT64_MAX && m + trace_base(t, m) < lo)
            lo = m + trace_base(t, m);
        for (size_t k = 0; k < t->ntracks; k++) {
            if (t->tracks[k].pid > maxpid && t->tracks[k].pid < INT32_MAX)
                maxpid = t->tracks[k].pid;
            if (t->tracks[k].tid > maxtid && t->tracks[k].tid < INT32_MAX)
                maxtid = t->tracks[k].tid;
        }
        for (size_t k = 0; k < t->nflows; k++)
            if (t->flows[k].id >= maxflow && t->flows[k].id < INT64_MAX / 4096)
                maxflow = t->flows[k].id + 1;
        /* map_tracks numbers the tids outside 32 bits from 1e9 */
        if (1000000000 + (int64_t)t->ntracks > maxtid)
            maxtid = 1000000000 + (int64_t)t->ntracks;
    }
    w->origin = lo != INT64_MAX && lo >= BIG_TS ? lo / 1000000000 * 1000000000 : 0;
    w->next_pid = w->multi ? 1 : maxpid + 1;
    w->next_tid = maxtid + 1;   /* above every tid map_tracks gives out */
    w->flow_stride = w->multi ? maxflow : 0;
    fputs("{\"otherData\": {\"schema\": \"tracedoc.chrome/1\", \"generator\": ", f);
    char gen[96];
    snprintf(gen, sizeof gen, "tracedoc %s", w->version ? w->version : "");
    td_json_str(f, gen);
    fprintf(f, ", \"time_origin_ns\": %lld, \"inputs\": [", (long long)w->origin);
    for (size_t i = 0; i < set->n; i++) {
        const td_trace *t = set->tr[i];
        fputs(i ? ",\n  {\"path\": " : "\n  {\"path\": ", f);
        td_json_str(f, t->path);
        fputs(", \"format\": ", f);
        td_json_str(f, td_format_name(t->format));
        fprintf(f, ", \"rank\": %d, \"sha256\": \"%s\", \"events\": %llu}", t->rank, t->sha256,
                (unsigned long long)t->nevents);
    }
    fputs("]},\n", f);
    if (w->origin)
        fprintf(f, "\"baseTimeNanoseconds\": %lld,\n", (long long)w->origin);
    if (set->n == 1 && set->tr[0]->world_size > 0) {
        const td_trace *t = set->tr[0];
        fprintf(f, "\"distributedInfo\": {\"rank\": %d, \"world_size\": %d", t->rank,
                t->world_size);
        if (t->backend) {
            fputs(", \"backend\": ", f);
            td_json_str(f, td_strget(set->strs, t->backend));
        }
        fputs("},\n", f);
    }
    /* devices: the first input's properties of each id */
    fputs("\"deviceProperties\": [", f);
    int first = 1;
    for (size_t i = 0; i < set->n; i++)
        for (size_t d = 0; d < set->tr[i]->ndevices; d++) {
            const td_device *dv = &set->tr[i]->devices[d];
            int seen = 0;
            for (size_t j = 0; j <= i && !seen; j++)
                for (size_t q = 0; q < (j < i ? set->tr[j]->ndevices : d) && !seen; q++)
                    seen = set->tr[j]->devices[q].id == dv->id;
            if (seen)
                continue;
            fprintf(f, "%s{\"id\": %d, \"name\": ", first ? "" : ", ", dv->id);
            td_json_str(f, dv->name ? td_strget(set->strs, dv->name) : "");
            fprintf(f, ", \"totalGlobalMem\": %lld, \"numSms\": %d}", (long long)dv->total_mem,
                    dv->num_sms);
            first = 0;
        }
    fputs("],\n\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", f);
    /* a first event every later one can follow with ",\n" */
    fputs("{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": \"trace_name\", \"args\": "
          "{\"name\": ", f);
    td_json_str(f, td_sum_get(w->s, "inputs_label") ? td_sum_get(w->s, "inputs_label")->v.s
                                                     : "tracedoc export");
    fputs("}}", f);
    for (size_t i = 0; i < set->n; i++) {
        const td_trace *t = set->tr[i];
        int64_t lo_t = trace_min(t);
        int64_t shift = lo_t == INT64_MAX ? 0 : trace_base(t, lo_t) - w->origin;
        tmap *m = map_tracks(w, t, i);
        model_events(w, t, i, m, shift);
        if (t->nranges)
            projected(w, t, m, shift);
        if (t->naiu)
            td_cw_aiu(w, t, shift);
        if (t->ipu && t->ipu->nsteps)
            td_cw_ipu_steps(w, t);
        if (t->ipu && t->ipu->nblocks)
            td_cw_ipu_lwp(w, t);
        free(m);
    }
    fputs("\n]}\n", f);
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

td_status td_render_chrome(const td_traceset *set, const td_summary *s, const td_opts *o,
                           const char *version, const char *path, td_err *e)
{
    if (set->n == 1 && set->tr[0]->samba)
        return td_render_stacktrace(set, s, version, path, e);
    cw w;
    memset(&w, 0, sizeof w);
    w.set = set;
    w.s = s;
    w.o = o;
    w.multi = set->n > 1;
    w.version = version;
    return td_write_atomic_cb(path, write_cb, &w, e);
}
