/* read/nsys_gpu.c - device work of an Nsight Systems export: CUPTI_ACTIVITY_KIND_
 * {KERNEL,MEMCPY,MEMSET} rows become events on one track per (process, device, stream);
 * rows with a correlation id are kept in r->ops for the NVTX GPU projection. */
#include "read/nsys_int.h"

/* ---- device work ---- */

static uint32_t device_track(rd *r, int64_t pid, int64_t dev, int64_t stream)
{
    /* Device tracks get a negative tid so they never meet a host thread's (pid, tid). */
    int64_t tid = -1 - (int64_t)(((uint64_t)dev & 0xffffffu) << 32 | (uint32_t)stream);
    size_t before = r->t->ntracks;
    uint32_t k = td_nsys_track_of(r, pid, tid);
    if (r->t->ntracks != before) {
        td_track *tr = &r->t->tracks[k];
        tr->device = (int32_t)dev;
        tr->stream = (int32_t)stream;
        char buf[48];
        snprintf(buf, sizeof buf, "Stream %" PRId64, stream);
        tr->thread_name = td_intern_cstr(r->set->strs, buf);
    }
    return k;
}
/* Collective name of an NCCL kernel ("ncclKernel_AllReduce_RING_LL_Sum_float",
 * "ncclDevKernel_AllGather_RING_LL"), lower-cased as Kineto writes it; 0 otherwise. */
static td_str nccl_coll(rd *r, td_str name)
{
    static const char *const k[][2] = {
        {"AllReduce", "allreduce"}, {"AllGather", "allgather"},
        {"ReduceScatter", "reducescatter"}, {"Broadcast", "broadcast"},
        {"SendRecv", "sendrecv"}, {"AllToAll", "alltoall"}, {"Reduce", "reduce"},
    };
    const char *s = td_strget(r->set->strs, name);
    if (strncmp(s, "nccl", 4) != 0)
        return 0;
    const char *u = strchr(s, '_');
    if (!u)
        return 0;
    u++;
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strncmp(u, k[i][0], strlen(k[i][0])) == 0)
            return td_intern_cstr(r->set->strs, k[i][1]);
    return 0;
}

static const char *copy_kind(int64_t k)
{
    /* CUpti_ActivityMemcpyKind */
    switch (k) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "unknown";
    }
}

td_status td_nsys_read_device_table(rd *r, int which)
{
    static const char *const kc[] = {"start", "end", "deviceId", "streamId", "correlationId",
        "globalPid", "demangledName", "shortName", "mangledName", "gridX", "gridY", "gridZ",
        "blockX", "blockY", "blockZ"};
    static const char *const mc[] = {"start", "end", "deviceId", "streamId", "correlationId",
        "globalPid", "bytes", "copyKind"};
    static const char *const tabs[] = {"CUPTI_ACTIVITY_KIND_KERNEL",
        "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"};
    const char *tab = tabs[which];
    sqlite3_stmt *st;
    td_status s = which == K_KERNEL ? td_nsys_select_cols(r, tab, kc, 15, 3, NULL, &st)
                                    : td_nsys_select_cols(r, tab, mc, which == K_MEMCPY ? 8 : 7, 3,
                                                  NULL, &st);
    if (s != TD_OK || !st)
        return s;
    td_strtab *S = r->set->strs;
    static const char *const catname[] = {"kernel", "gpu_memcpy", "gpu_memset"};
    static const uint8_t kinds[] = {TD_K_KERNEL, TD_K_MEMCPY, TD_K_MEMSET};
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(S, catname[which]));
    td_str memset_name = td_intern_cstr(S, "[CUDA memset]");
    td_str copy_names[11] = {0};
    size_t hint = td_nsys_rows_hint(r, tab);
    ev_reserve(r, hint);
    td_grow((void **)&r->t->aux, &r->t->aux_cap, r->t->naux + hint, sizeof *r->t->aux);
    td_grow((void **)&r->ops, &r->ops_cap, r->nops + hint, sizeof *r->ops);
    /* the last (device, stream, process) and its track: rows come in runs */
    int64_t ldev = -1, lstream = -1, lpid = -1;
    uint32_t ltrack = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(st, 0), end = start;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            end = sqlite3_column_int64(st, 1);
        if (start < -TIME_LIMIT || start > TIME_LIMIT || end < -TIME_LIMIT ||
            end > TIME_LIMIT)
            return td_nsys_bad_time(r, st, tab);
        r->t->nevents++;
        int64_t dev = col_i64(st, 2, 0), stream = col_i64(st, 3, 0);
        int64_t pid = PID_OF(col_i64(st, 5, 0));
        if (dev != ldev || stream != lstream || pid != lpid) {
            ltrack = device_track(r, pid, dev, stream);
            ldev = dev, lstream = stream, lpid = pid;
        }
        td_aux *a = NULL;
        td_event *ev = ev_push(r);
        *ev = (td_event){.ts = start, .dur = clamp_dur(r, start, end),
                         .corr = make_corr(pid, col_i64(st, 4, 0)), .track = ltrack,
                         .cat = cat, .kind = kinds[which], .ph = 'X'};
        if (which == K_KERNEL) {
            /* nsys's kernel reports name kernels by their demangled name */
            ev->name = sid_str(r, st, 6);
            if (!ev->name)
                ev->name = sid_str(r, st, 7);
            if (!ev->name)
                ev->name = sid_str(r, st, 8);
            /* an aux record only for what it holds: the collective of an NCCL kernel,
             * or launch dimensions kept for export (the other kernels' records held only
             * defaults: 950 K of them, 46 MB, in the 1.15 GB export) */
            td_str coll = nccl_coll(r, ev->name);
            if (coll || !r->set->analysis_only)
                ev->aux = td_trace_push_aux(r->t, &a);
            if (coll)
                td_trace_push_nccl(r->t, ev->aux)->coll = coll;
            if (!r->set->analysis_only) {
                int32_t g[3], b[3];
                for (int i = 0; i < 3; i++) {
                    g[i] = (int32_t)col_i64(st, 9 + i, 0);
                    b[i] = (int32_t)col_i64(st, 12 + i, 0);
                }
                td_trace_set_dims(r->t, ev->aux, g, b);
            }
        } else if (which == K_MEMCPY) {
            int64_t k = col_i64(st, 7, 0);
            if (k < 0 || k > 10)
                k = 0;
            if (!copy_names[k]) {
                char buf[48];
                snprintf(buf, sizeof buf, "[CUDA memcpy %s]", copy_kind(k));
                copy_names[k] = td_intern_cstr(S, buf);
            }
            ev->name = copy_names[k];
        } else {
            ev->name = memset_name;
        }
        if (which != K_KERNEL) {
            ev->aux = td_trace_push_aux(r->t, &a);
            a->bytes = col_i64(st, 6, -1);
        }
        if (ev->corr) {
            devop *o = TD_PUSH(r->ops, r->nops, r->ops_cap);
            o->corr = ev->corr;
            o->start = start;
            o->end = start + ev->dur;
            o->device = (int32_t)dev;
        }
    }
    return td_nsys_done(r, st, rc, tab);
}

/* ---- device memory: CUDA_GPU_MEMORY_USAGE_EVENTS (nsys profile --cuda-memory-usage=true) ---- */

/* A row before it becomes a td_mem: sorted by (start, row order). */
typedef struct {
    int64_t start, bytes, cid, pid;
    int32_t device;
    uint32_t row;
} memrow;

static int cmp_memrow(const void *x, const void *y)
{
    const memrow *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* The host track of the kept runtime call with correlation id cid in process pid (found
 * through r->rh), else the first host track of the process; -1 none. */
static int64_t memrow_track(rd *r, int64_t pid, int64_t cid)
{
    const td_event *e = cid ? rh_find(r, make_corr(pid, cid)) : NULL;
    if (e)
        return e->track;
    for (size_t i = 0; i < r->t->ntracks; i++)
        if (r->t->tracks[i].pid == pid && r->t->tracks[i].device < 0)
            return (int64_t)i;
    return -1;
}

/* One td_mem per allocation (bytes > 0) or free (bytes < 0) of device memory, in time
 * order; "Total Allocated"/"Total Reserved" are absent (-1): nsys records each
 * cudaMalloc/cudaFree, not an allocator's totals, so analyse/memory.c keeps the running
 * sum per device from the trace's start. memKind (CUpti_ActivityMemoryKind) 1 pageable
 * and 2 pinned are host memory and skipped; memoryOperationType 0 allocation, 1 free,
 * other values skipped. Needs the runtime calls read (their tracks). */
td_status td_nsys_read_memory(rd *r)
{
    static const char *const c[] = {"start", "globalPid", "deviceId", "bytes", "memKind",
                                    "memoryOperationType", "correlationId"};
    static const char *const tab = "CUDA_GPU_MEMORY_USAGE_EVENTS";
    sqlite3_stmt *st;
    /* start, globalPid, deviceId, bytes, memoryOperationType needed */
    td_status s = td_nsys_select_cols(r, tab, c, 7, 0x2f, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    memrow *m = NULL;
    size_t n = 0, cap = 0;
    int rc;
    uint32_t row = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row++;
        int64_t start = col_i64(st, 0, 0), bytes = col_i64(st, 3, 0);
        if (start < -TIME_LIMIT || start > TIME_LIMIT) {
            sqlite3_finalize(st);
            free(m);
            return td_fail(r->e, TD_E_FORMAT, "%s: table %s: start %" PRId64 " out of range",
                           r->name, tab, start);
        }
        int64_t kind = col_i64(st, 4, 0), op = col_i64(st, 5, -1);
        /* bytes within 2^61 as times are: running sums cannot overflow */
        if (kind == 1 || kind == 2 || (op != 0 && op != 1) || bytes < 0 ||
            bytes > TIME_LIMIT)
            continue;
        int64_t pid = PID_OF(col_i64(st, 1, 0));
        memrow *x = TD_PUSH(m, n, cap);
        x->start = start;
        x->bytes = op == 0 ? bytes : -bytes;
        x->pid = pid;
        x->cid = col_i64(st, 6, 0);
        x->device = (int32_t)col_i64(st, 2, 0);
        x->row = row;
    }
    if ((s = td_nsys_done(r, st, rc, tab)) != TD_OK) {
        free(m);
        return s;
    }
    sort(m, n, sizeof *m, cmp_memrow);
    uint64_t lost = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t k = memrow_track(r, m[i].pid, m[i].cid);
        if (k < 0) {
            lost++;
            continue;
        }
        td_mem *x = TD_PUSH(r->t->mem, r->t->nmem, r->t->mem_cap);
        x->ts = m[i].start;
        x->allocated = -1;
        x->reserved = -1;
        x->bytes = m[i].bytes;
        x->device_type = 1; /* c10::DeviceType CUDA: "cuda:N" as torch names it */
        x->device = m[i].device;
        x->track = (uint32_t)k;
    }
    if (lost)
        td_warn(&r->set->warnings, "%s: %" PRIu64 " rows of %s belong to a process with no "
                "host thread; skipped", r->name, lost, tab);
    free(m);
    return TD_OK;
}
