/* read/nsys_nvtx.c - NVTX_EVENTS of an Nsight Systems export: marks become instants,
 * thread names join r->thr, push/pop and start/end ranges become td_range with the extent
 * of the device work their runtime calls launched (push/pop ones nested per thread, also
 * TD_K_RANGE events, and t->compile for XLA programs). */
#include "read/nsys_int.h"

/* ---- NVTX ---- */

enum { NVTX_MARK = 34, NVTX_THREAD_NAME = 39, NVTX_PUSHPOP = 59, NVTX_STARTEND = 60,
       NVTX_DOMAIN_CREATE = 75 };

/* The columns read, in this order */
static const char *const nvtx_cols[] = {"start", "end", "eventType", "text", "globalTid",
                                        "textId", "domainId"};
enum { NV_START, NV_END, NV_TYPE, NV_TEXT, NV_GTID, NV_TEXTID, NV_DOMAIN, NV_NCOLS };

static td_str nvtx_text(rd *r, sqlite3_stmt *st)
{
    td_str s = intern_col(r, st, NV_TEXT);
    if (!s)
        s = sid_str(r, st, NV_TEXTID);
    return s;
}

/* The rows in time order: ranges, marks and thread names are taken in that order (it
 * decides which of two names of a thread wins, and the order of equal ranges). Nsight
 * Systems writes them in that order already, so they are read as stored and SQLite's
 * ORDER BY (a sort of every row: 0.28 s per 456 K rows) is used only when a row turns
 * out to start before the one read before it: then what was taken is dropped and the
 * rows are read again sorted (*again = 1). */
static td_status nvtx_rows(rd *r, const char *tail, uint16_t cat, int *again)
{
    sqlite3_stmt *st;
    td_status s = td_nsys_select_cols(r, "NVTX_EVENTS", nvtx_cols, NV_NCOLS, 1 | 4, tail, &st);
    if (s != TD_OK || !st)
        return s;
    td_trace *t = r->t;
    size_t hint = td_nsys_rows_hint(r, "NVTX_EVENTS");
    td_grow((void **)&t->ranges, &t->ranges_cap, t->nranges + hint, sizeof *t->ranges);
    td_strtab *S = r->set->strs;
    size_t nev0 = r->t->nev, nranges0 = t->nranges, nthr0 = r->nthr, ntracks0 = r->t->ntracks;
    uint64_t nevents0 = r->t->nevents, clamped0 = r->clamped, unended0 = r->unended;
    int64_t last = INT64_MIN;
    int check = tail == NULL;
    td_buf b = {0};
    /* "Domain:text" names made before (rows repeat them), direct-mapped by the pair */
    struct { td_str dn, text, name; } dcache[256];
    memset(dcache, 0, sizeof dcache);
    int64_t lg = 0;   /* the last row's globalTid and its track: rows come in runs */
    uint32_t ltrack = 0;
    int have = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(st, NV_START), end = 0;
        int ended = sqlite3_column_type(st, NV_END) != SQLITE_NULL;
        if (ended)
            end = sqlite3_column_int64(st, NV_END);
        if (start < -TIME_LIMIT || start > TIME_LIMIT || end < -TIME_LIMIT ||
            end > TIME_LIMIT) {
            td_buf_free(&b);
            return td_nsys_bad_time(r, st, "NVTX_EVENTS");
        }
        if (check && start < last) {
            /* not in time order: undo and read again sorted */
            r->t->nev = nev0;
            t->nranges = nranges0;
            r->nthr = nthr0;
            td_nsys_tracks_truncate(r, ntracks0);
            r->t->nevents = nevents0;
            r->clamped = clamped0;
            r->unended = unended0;
            *again = 1;
            td_buf_free(&b);
            sqlite3_finalize(st);
            return TD_OK;
        }
        last = start;
        r->t->nevents++;
        int64_t type = sqlite3_column_int64(st, NV_TYPE);
        if (type != NVTX_MARK && type != NVTX_THREAD_NAME && type != NVTX_PUSHPOP &&
            type != NVTX_STARTEND)
            continue;
        int64_t g = sqlite3_column_int64(st, NV_GTID);
        td_str name = nvtx_text(r, st);
        if (type == NVTX_THREAD_NAME) {
            if (name) {
                /* a name the program gave its thread beats the OS one; the last wins */
                tname *x = TD_PUSH(r->thr, r->nthr, r->thr_cap);
                x->pid = PID_OF(g);
                x->tid = TID_OF(g);
                x->name = name;
                x->prio = ((int64_t)1 << 62) + (int64_t)r->nthr;
            }
            continue;
        }
        /* Ranges in a named domain read "Domain:text", as nsys reports write them
         * (e.g. TSL:XlaModule:#...#). */
        int64_t dom = sqlite3_column_int64(st, NV_DOMAIN);
        td_str dn = dom ? td_nsys_name_get(r->dom, r->ndom, dom, 0) : 0;
        if (dn) {
            size_t k = ((size_t)dn * 31u + (size_t)name) & 255u;
            if (dcache[k].name && dcache[k].dn == dn && dcache[k].text == name) {
                name = dcache[k].name;
            } else {
                b.n = 0;
                td_buf_printf(&b, "%s:%s", td_strget(S, dn), td_strget(S, name));
                dcache[k].dn = dn;
                dcache[k].text = name;
                name = dcache[k].name = td_intern(S, b.p, b.n);
            }
        }
        if (!have || g != lg) {
            ltrack = td_nsys_track_of(r, PID_OF(g), TID_OF(g));
            lg = g;
            have = 1;
        }
        uint32_t track = ltrack;
        if (type == NVTX_MARK) {
            *ev_push(r) = (td_event){.ts = start, .name = name, .track = track, .cat = cat,
                                     .kind = TD_K_INSTANT, .ph = 'i'};
            continue;
        }
        if (!ended) {
            r->unended++;
            continue;
        }
        *TD_PUSH(t->ranges, t->nranges, t->ranges_cap) = (td_range){.start = start, .end = start + clamp_dur(r, start, end), .name = name,
                        .track = track, .level = (int32_t)type};
    }
    td_buf_free(&b);
    return td_nsys_done(r, st, rc, "NVTX_EVENTS");
}

td_status td_nsys_read_nvtx(rd *r)
{
    sqlite3_stmt *st;
    /* Domains are created before use (nsys records nvtxDomainCreate as an event), but
     * collect them first anyway so the order of rows does not matter; for one domain id
     * created twice the later one wins. */
    td_status s = td_nsys_select_cols(r, "NVTX_EVENTS", nvtx_cols, NV_NCOLS, 1 | 4,
                                      "WHERE \"eventType\" = 75 ORDER BY \"start\"", &st);
    if (s != TD_OK || !st)
        return s;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        td_nsys_name_set(&r->dom, &r->ndom, &r->dom_cap, col_i64(st, NV_DOMAIN, 0), 0,
                         nvtx_text(r, st));
    if ((s = td_nsys_done(r, st, rc, "NVTX_EVENTS")) != TD_OK)
        return s;
    uint16_t cat = td_trace_cat(r->t, td_intern_cstr(r->set->strs, "nvtx"));
    int again = 0;
    r->nv_first = r->t->nranges;
    if ((s = nvtx_rows(r, NULL, cat, &again)) == TD_OK && again)
        s = nvtx_rows(r, "ORDER BY \"start\"", cat, &again);
    r->nnv = r->t->nranges - r->nv_first;
    return s;
}

/* ---- GPU projection and nesting of NVTX ranges ---- */

static int cmp_devop(const void *x, const void *y)
{
    const devop *a = x, *b = y;
    if (a->corr != b->corr)
        return a->corr < b->corr ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_launch(const void *x, const void *y)
{
    const launch *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_range(const void *x, const void *y)
{
    const td_range *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;   /* enclosing range first */
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->level < b->level ? -1 : a->level > b->level;   /* level holds the type here */
}

/* (thread, range index) pairs: push/pop ranges grouped by thread for nesting */
typedef struct {
    uint32_t track;
    size_t i;
} tix;

static int cmp_tix(const void *x, const void *y)
{
    const tix *a = x, *b = y;
    if (a->track != b->track)
        return a->track < b->track ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

td_status td_nsys_project_ranges(rd *r)
{
    td_trace *t = r->t;
    if (!r->nnv)
        return TD_OK;
    /* Runtime calls that launched device work, with that work's extent. */
    sort(r->ops, r->nops, sizeof *r->ops, cmp_devop);
    launch *L = NULL;
    size_t nl = 0, lcap = 0;
    /* ops are in (process, correlation id) order, as the kept runtime calls were */
    for (size_t lo = 0, hi; lo < r->nops; lo = hi) {
        for (hi = lo + 1; hi < r->nops && r->ops[hi].corr == r->ops[lo].corr; hi++)
            ;
        const td_event *x = rh_find(r, r->ops[lo].corr);
        if (!x)
            continue;
        launch *l = TD_PUSH(L, nl, lcap);
        l->track = x->track;
        l->start = x->ts;
        l->end = x->ts + x->dur;   /* the call's end as read: dur not clamped yet */
        l->gmin = INT64_MAX;
        l->gmax = INT64_MIN;
        l->nops = (int32_t)(hi - lo);
        l->device = r->ops[lo].device;   /* ops sorted by start within a corr */
        for (size_t j = lo; j < hi; j++) {
            if (r->ops[j].start < l->gmin)
                l->gmin = r->ops[j].start;
            if (r->ops[j].end > l->gmax)
                l->gmax = r->ops[j].end;
        }
    }
    sort(L, nl, sizeof *L, cmp_launch);

    /* Push/pop ranges also become TD_K_RANGE events (CPU flamegraph, time span), in the
     * order read. */
    uint16_t cat = td_trace_cat(t, td_intern_cstr(r->set->strs, "nvtx"));
    td_range *R = t->ranges + r->nv_first;
    size_t npp = 0;
    for (size_t i = 0; i < r->nnv; i++)
        npp += R[i].level == NVTX_PUSHPOP;
    ev_reserve(r, npp);
    for (size_t i = 0; i < r->nnv; i++)
        if (R[i].level == NVTX_PUSHPOP)
            *ev_push(r) = (td_event){.ts = R[i].start, .dur = R[i].end - R[i].start,
                                     .name = R[i].name, .track = R[i].track, .cat = cat,
                                     .kind = TD_K_RANGE, .ph = 'X'};
    for (size_t i = 0; i < r->nnv; i++) {
        td_range *g = &R[i];
        /* level holds the type until the nesting below */
        g->gpu_start = -1;
        g->gpu_end = -1;
        g->device = -1;
        /* first launch on this thread starting at or after the range start */
        size_t lo = 0, hi = nl;
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (L[m].track < g->track || (L[m].track == g->track && L[m].start < g->start))
                lo = m + 1;
            else
                hi = m;
        }
        int64_t gmin = INT64_MAX, gmax = INT64_MIN;
        for (size_t j = lo; j < nl && L[j].track == g->track && L[j].start <= g->end; j++) {
            if (L[j].end > g->end)
                continue;   /* only calls fully inside the range count */
            if (L[j].gmin < gmin) {
                gmin = L[j].gmin;
                g->device = L[j].device;
            }
            if (L[j].gmax > gmax)
                gmax = L[j].gmax;
            g->num_gpu_ops += L[j].nops;
        }
        if (g->num_gpu_ops) {
            g->gpu_start = gmin;
            g->gpu_end = gmax;
        }
    }
    free(L);

    /* Ids follow the (start, enclosing first) order. Push/pop ranges nest per thread by
     * containment, so ranges of different domains that interleave stay siblings;
     * start/end ranges may cross threads and overlap freely: level 0, no parent. */
    sort(t->ranges, t->nranges, sizeof *t->ranges, cmp_range);
    tix *idx = td_xmalloc((t->nranges + 1) * sizeof *idx);
    uint8_t *pp = td_xcalloc(t->nranges + 1, 1);   /* push/pop (not start/end) */
    size_t m = 0;
    for (size_t i = 0; i < t->nranges; i++) {
        td_range *g = &t->ranges[i];
        g->range_id = (int64_t)i + 1;
        g->parent_id = -1;
        if (g->level == NVTX_PUSHPOP) {
            idx[m++] = (tix){g->track, i};
            pp[i] = 1;
        }
        g->level = 0;
    }
    /* grouped by thread, each thread's ranges stay in (start, enclosing first) order;
     * then one stack pass per thread */
    sort(idx, m, sizeof *idx, cmp_tix);
    size_t *stack = td_xmalloc((m + 1) * sizeof *stack), depth = 0;
    for (size_t k = 0; k < m; k++) {
        td_range *g = &t->ranges[idx[k].i];
        if (k && idx[k - 1].track != idx[k].track)
            depth = 0;
        while (depth) {
            td_range *p = &t->ranges[stack[depth - 1]];
            if (p->start <= g->start && g->end <= p->end)
                break;
            depth--;
        }
        if (depth) {
            td_range *p = &t->ranges[stack[depth - 1]];
            g->parent_id = p->range_id;
            g->level = p->level + 1;
            p->num_child++;
        }
        stack[depth++] = idx[k].i;
    }
    free(stack);
    /* A JAX/XLA program's push/pop ranges also feed the compile statistics (what the
     * nsys-jax reader gets from its push/pop CSV); other programs have no use for them.
     * Kept in range order. */
    int xla = 0;
    for (size_t k = 0; k < m && !xla; k++)
        xla = strncmp(td_strget(r->set->strs, t->ranges[idx[k].i].name), "TSL:XlaCompile",
                      14) == 0;
    for (size_t i = 0; xla && i < t->nranges; i++)
        if (pp[i])
            *TD_PUSH(t->compile, t->ncompile, t->compile_cap) = t->ranges[i];
    free(pp);
    free(idx);
    return TD_OK;
}
