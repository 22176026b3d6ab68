/* read/nsys_host.c - host calls of an Nsight Systems export: CUPTI_ACTIVITY_KIND_RUNTIME
 * rows (one per correlation id, the outermost, kept in r->rt for the NVTX GPU
 * projection) and OSRT_API rows, on one track per (process, thread). */
#include "read/nsys_int.h"

/* ---- host calls ---- */

/* Runtime API name without the "_vNNNN" version suffix nsys keeps from CUPTI
 * (cudaLaunchKernel_v7000 -> cudaLaunchKernel), as nsys's own reports show them. */
static td_str sid_rt(rd *r, sqlite3_stmt *st, int i)
{
    if (col_null(st, i))
        return 0;
    strid *x = sid_find(r, sqlite3_column_int64(st, i));
    if (!x)
        return 0;
    if (!x->rt_done) {
        const char *s = td_strget(r->set->strs, x->s);
        size_t n = td_strlen_of(r->set->strs, x->s), k = n;
        while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
            k--;
        if (k < n && k >= 3 && s[k - 1] == 'v' && s[k - 2] == '_')
            x->rt = td_intern(r->set->strs, s, k - 2);
        else
            x->rt = x->s;
        x->rt_done = 1;
    }
    return x->rt;
}

/* ---- host calls ---- */

static int cmp_rt(const void *x, const void *y)
{
    const rtcall *a = x, *b = y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->cid != b->cid)
        return a->cid < b->cid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    int64_t da = a->end - a->start, db = b->end - b->start;
    if (da != db)
        return da > db ? -1 : 1;   /* the outermost first */
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

td_status td_nsys_read_runtime(rd *r)
{
    static const char *const c[] = {"start", "end", "globalTid", "correlationId", "nameId"};
    sqlite3_stmt *st;
    td_status s = td_nsys_select_cols(r, "CUPTI_ACTIVITY_KIND_RUNTIME", c, 5, 3, NULL, &st);
    if (s != TD_OK || !st)
        return s;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!times_ok(st))
            return td_nsys_bad_time(r, st, "CUPTI_ACTIVITY_KIND_RUNTIME");
        r->t->nevents++;
        int64_t g = col_i64(st, 2, 0);
        rtcall *x = TD_PUSH(r->rt, r->nrt, r->rt_cap);
        x->start = col_i64(st, 0, 0);
        x->end = col_i64(st, 1, x->start);
        x->pid = PID_OF(g);
        x->tid = TID_OF(g);
        x->cid = col_i64(st, 3, 0);
        x->corr = make_corr(x->pid, x->cid);
        x->name = sid_rt(r, st, 4);
        const char *nm = td_strget(r->set->strs, x->name);
        /* cu* (not cuda*) entries are driver API calls */
        x->kind = nm[0] == 'c' && nm[1] == 'u' && nm[2] >= 'A' && nm[2] <= 'Z'
                      ? TD_K_DRIVER : TD_K_RUNTIME;
    }
    if ((s = td_nsys_done(r, st, rc, "CUPTI_ACTIVITY_KIND_RUNTIME")) != TD_OK)
        return s;
    /* One correlation id can appear on two rows (e.g. cudaLaunchKernel and
     * cudaLaunchKernel_v7000, one inside the other): keep the outermost. */
    sort(r->rt, r->nrt, sizeof *r->rt, cmp_rt);
    uint16_t crt = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_runtime"));
    uint16_t cdrv = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "cuda_driver"));
    size_t kept = 0;
    for (size_t i = 0; i < r->nrt; i++) {
        rtcall *x = &r->rt[i];
        if (kept && x->cid && r->rt[kept - 1].cid == x->cid && r->rt[kept - 1].pid == x->pid)
            continue;
        r->rt[kept++] = *x;
        td_event *ev = td_trace_push_event(r->t);
        ev->ts = x->start;
        ev->dur = clamp_dur(r, x->start, x->end);
        ev->corr = x->corr;
        ev->name = x->name;
        ev->track = td_nsys_track_of(r, x->pid, x->tid);
        ev->cat = x->kind == TD_K_DRIVER ? cdrv : crt;
        ev->kind = x->kind;
        ev->ph = 'X';
    }
    r->nrt = kept;
    return TD_OK;
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
