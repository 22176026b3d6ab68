/* read/nsys_host.c - host calls of an Nsight Systems export: CUPTI_ACTIVITY_KIND_RUNTIME
 * rows (one per correlation id, the outermost, found again through r->rh by the NVTX GPU
 * projection and the memory rows) and OSRT_API rows, on one track per (process,
 * thread). */
#include "read/nsys_int.h"

/* ---- host calls ---- */

/* Runtime API name without the "_vNNNN" version suffix nsys keeps from CUPTI
 * (cudaLaunchKernel_v7000 -> cudaLaunchKernel), as nsys's own reports show them, and
 * its kind; both once per StringId. */
static strid *sid_rt(rd *r, int64_t id)
{
    strid *x = sid_find(r, id);
    if (!x || x->rt_done)
        return x;
    const char *s = td_strget(r->set->strs, x->s);
    size_t n = td_strlen_of(r->set->strs, x->s), k = n;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    if (k < n && k >= 3 && s[k - 1] == 'v' && s[k - 2] == '_')
        x->rt = td_intern(r->set->strs, s, k - 2);
    else
        x->rt = x->s;
    const char *nm = td_strget(r->set->strs, x->rt);
    /* cu* (not cuda*) entries are driver API calls */
    x->rt_kind = nm[0] == 'c' && nm[1] == 'u' && nm[2] >= 'A' && nm[2] <= 'Z' ? TD_K_DRIVER
                                                                          : TD_K_RUNTIME;
    x->rt_done = 1;
    return x;
}

/* ---- host calls ---- */

/* Index of host thread (pid, tid) in r->rth, added when new. */
static uint32_t rt_thread(rd *r, int64_t pid, int64_t tid)
{
    if (2 * (r->nrth + 1) > r->rth_hcap) {
        size_t cap = r->rth_hcap ? 2 * r->rth_hcap : 64;
        free(r->rth_h);
        r->rth_h = td_xcalloc(cap, sizeof *r->rth_h);
        r->rth_hcap = cap;
        for (size_t i = 0; i < r->nrth; i++) {
            uint64_t h = (uint64_t)r->rth[i].pid * 0x9e3779b97f4a7c15u ^
                         (uint64_t)r->rth[i].tid * 0xc2b2ae3d27d4eb4fu;
            size_t j = (size_t)(h >> 20) & (cap - 1);
            while (r->rth_h[j])
                j = (j + 1) & (cap - 1);
            r->rth_h[j] = (uint32_t)i + 1;
        }
    }
    uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15u ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4fu;
    size_t j = (size_t)(h >> 20) & (r->rth_hcap - 1);
    while (r->rth_h[j]) {
        rthread *x = &r->rth[r->rth_h[j] - 1];
        if (x->pid == pid && x->tid == tid)
            return r->rth_h[j] - 1;
        j = (j + 1) & (r->rth_hcap - 1);
    }
    rthread *x = TD_PUSH(r->rth, r->nrth, r->rth_cap);
    memset(x, 0, sizeof *x);
    x->pid = pid;
    x->tid = tid;
    r->rth_h[j] = (uint32_t)r->nrth;
    return (uint32_t)r->nrth - 1;
}

/* 1 when runtime row (start, dur, thread) comes before kept event e of the same
 * correlation id: the earlier start, then the longer call (the outermost), then the
 * lower thread id; on a tie the row read first stays. */
static int rt_before(const rd *r, int64_t start, int64_t dur, int64_t tid, const td_event *e)
{
    if (start != e->ts)
        return start < e->ts;
    if (dur != e->dur)
        return dur > e->dur;
    return tid < r->rth[e->track].tid;
}

static void rh_grow(rd *r, size_t need)
{
    size_t cap = r->rh_cap ? r->rh_cap : 1024;
    while (4 * need > 3 * cap)   /* at most 3/4 full */
        cap *= 2;
    if (cap == r->rh_cap)
        return;
    free(r->rh);
    r->rh = td_xcalloc(cap, sizeof *r->rh);
    r->rh_cap = cap;
    for (size_t i = r->rt_first; i < r->t->nev; i++) {
        if (!r->t->ev[i].corr)
            continue;
        size_t j = rh_slot(r->t->ev[i].corr, cap - 1);
        while (r->rh[j])
            j = (j + 1) & (cap - 1);
        r->rh[j] = (uint32_t)i + 1;
    }
}

/* Is thread a's least kept row before thread b's (correlation id, start, longest,
 * thread id)? */
static int cmp_rth(const void *x, const void *y)
{
    const rthread *a = *(const rthread *const *)x, *b = *(const rthread *const *)y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->kcid != b->kcid)
        return a->kcid < b->kcid ? -1 : 1;
    if (a->kstart != b->kstart)
        return a->kstart < b->kstart ? -1 : 1;
    if (a->kdur != b->kdur)
        return a->kdur > b->kdur ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Runtime rows become events as they are read; one correlation id can appear on two
 * rows (e.g. cudaLaunchKernel and cudaLaunchKernel_v7000, one inside the other), and the
 * outermost is kept: r->rh maps (process, correlation id) to the kept event, which a
 * better row overwrites in place (the key is td_event.corr, pid << 32 | correlationId:
 * CUPTI's ids are 32-bit). No sort of the rows: 18 M of them in 1.15 GB. Threads
 * get their tracks afterwards, in the order of their least kept row by (process,
 * correlation id, start, longest first) as when the rows were sorted. */
td_status td_nsys_read_runtime(rd *r)
{
    static const char *const c[] = {"start", "end", "globalTid", "correlationId", "nameId"};
    static const char *const tab = "CUPTI_ACTIVITY_KIND_RUNTIME";
    sqlite3_stmt *st;
    r->rt_first = r->rt_end = r->t->nev;
    td_status s = td_nsys_select_cols(r, tab, c, 5, 3, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    size_t hint = td_nsys_rows_hint(r, tab);
    ev_reserve(r, hint);
    rh_grow(r, hint);
    uint16_t crt = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_runtime"));
    uint16_t cdrv = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_driver"));
    td_event *ev = r->t->ev;
    uint64_t rows = 0;
    int64_t lg = 0;   /* the last row's globalTid and its thread: rows come in runs */
    uint32_t lth = 0;
    int have = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(st, 0), end = start;
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            end = sqlite3_column_int64(st, 1);
        if (start < -TIME_LIMIT || start > TIME_LIMIT || end < -TIME_LIMIT ||
            end > TIME_LIMIT) {
            r->t->nevents += rows;
            return td_nsys_bad_time(r, st, tab);
        }
        rows++;
        int64_t g = sqlite3_column_int64(st, 2), cid = sqlite3_column_int64(st, 3);
        int64_t pid = PID_OF(g), tid = TID_OF(g), corr = make_corr(pid, cid);
        td_str name = 0;
        uint8_t kind = TD_K_RUNTIME;
        if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
            strid *x = sid_rt(r, sqlite3_column_int64(st, 4));
            if (x) {
                name = x->rt;
                kind = x->rt_kind;
            }
        }
        if (!have || g != lg) {
            lth = rt_thread(r, pid, tid);
            lg = g;
            have = 1;
        }
        td_event *e = NULL;
        size_t j = 0, mask = r->rh_cap - 1;
        if (cid) {
            for (j = rh_slot(corr, mask); r->rh[j]; j = (j + 1) & mask)
                if (ev[r->rh[j] - 1].corr == corr) {
                    e = &ev[r->rh[j] - 1];
                    break;
                }
            if (e) {
                if (!rt_before(r, start, end - start, tid, e))
                    continue;
            } else if (4 * (r->rh_n + 1) > 3 * r->rh_cap) {
                rh_grow(r, r->rh_n + 1);
                mask = r->rh_cap - 1;
                for (j = rh_slot(corr, mask); r->rh[j]; j = (j + 1) & mask)
                    ;
            }
        }
        if (!e) {
            e = ev_push(r);
            ev = r->t->ev;
            if (cid) {
                r->rh[j] = (uint32_t)r->t->nev;
                r->rh_n++;
            }
        }
        *e = (td_event){.ts = start, .dur = end - start, .corr = corr, .name = name,
                        .track = lth,
                        .cat = kind == TD_K_DRIVER ? cdrv : crt, .kind = kind, .ph = 'X'};
    }
    r->t->nevents += rows;
    if ((s = td_nsys_done(r, st, rc, tab)) != TD_OK)
        return s;
    r->rt_end = r->t->nev;
    /* each thread's least kept row, then the tracks in that order */
    for (size_t i = r->rt_first; i < r->rt_end; i++) {
        const td_event *e = &ev[i];
        rthread *x = &r->rth[e->track];
        int64_t cid = e->corr ? (int64_t)(uint32_t)e->corr : 0;
        if (!x->has || cid < x->kcid ||
            (cid == x->kcid && (e->ts < x->kstart ||
                                (e->ts == x->kstart && e->dur > x->kdur)))) {
            x->has = 1;
            x->kcid = cid;
            x->kstart = e->ts;
            x->kdur = e->dur;
        }
    }
    rthread **order = td_xmalloc((r->nrth + 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 0; i < r->nrth; i++)
        if (r->rth[i].has)
            order[n++] = &r->rth[i];
    sort(order, n, sizeof *order, cmp_rth);
    for (size_t i = 0; i < n; i++)
        order[i]->track = td_nsys_track_of(r, order[i]->pid, order[i]->tid);
    free(order);
    for (size_t i = r->rt_first; i < r->rt_end; i++)
        ev[i].track = r->rth[ev[i].track].track;
    return TD_OK;
}

void td_nsys_runtime_finish(rd *r)
{
    for (size_t i = r->rt_first; i < r->rt_end; i++)
        if (r->t->ev[i].dur < 0) {
            r->t->ev[i].dur = 0;
            r->clamped++;
        }
}

td_status td_nsys_read_osrt(rd *r)
{
    static const char *const c[] = {"start", "end", "globalTid", "nameId"};
    sqlite3_stmt *st;
    td_status s = td_nsys_select_cols(r, "OSRT_API", c, 4, 3, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "osrt"));
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!times_ok(st))
            return td_nsys_bad_time(r, st, "OSRT_API");
        r->t->nevents++;
        int64_t g = col_i64(st, 2, 0), start = col_i64(st, 0, 0);
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = start;
        ev->dur = clamp_dur(r, start, col_i64(st, 1, start));
        ev->name = sid_str(r, st, 3);
        ev->track = td_nsys_track_of(r, PID_OF(g), TID_OF(g));
        ev->cat = cat;
        ev->kind = TD_K_OTHER;
        ev->ph = 'X';
    }
    return td_nsys_done(r, st, rc, "OSRT_API");
}
