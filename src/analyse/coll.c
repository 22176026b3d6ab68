/* analyse/coll.c - collectives from NCCL/RCCL kernels (formats.md sec.4, nccl-tests
 * conventions). One row per (type, message bytes, dtype, group size) over all ranks.
 *
 * Type: the kernel's "Collective name" arg, else the name after ncclKernel_/
 * ncclDevKernel_ (AllReduce, AllGather, ReduceScatter, SendRecv, Broadcast...).
 * Bytes: nelems x dtype size; all-gather uses Out msg nelems and reduce-scatter In msg
 * nelems (the full buffer), the others In msg nelems. algbw = bytes / mean time;
 * busbw = algbw x (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
 * others 1). hidden = kernel time overlapped by computation kernels on the same device.
 * wait (several ranks, same number of instances per rank): per instance, last end -
 * first start - fastest duration, summed. */
#include "analyse/internal.h"
#include "partial/internal.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct crec {
    const char *type;
    int64_t bytes;     /* -1 unknown */
    td_str dtype;
    const char *dname; /* the dtype's name ("" unknown): rows are ordered by it */
    int32_t group;     /* 0 unknown */
    int32_t rank;
    int64_t ts, dur, hidden;
} crec;

static const char *const TYPES[] = {"allreduce", "allgather", "reducescatter", "alltoall",
                                    "broadcast", "sendrecv", "reduce", "send", "recv", "barrier",
                                    "gather", "scatter"};

/* Canonical type from a free-form name: lower-case, '_', '-' and ' ' removed, first
 * known type it contains. */
static const char *canon(const char *src, size_t n)
{
    char b[128];
    size_t m = 0;
    for (size_t i = 0; i < n && m + 1 < sizeof b; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (ch == '_' || ch == '-' || ch == ' ')
            continue;
        b[m++] = (char)tolower(ch);
    }
    b[m] = 0;
    for (size_t k = 0; k < sizeof TYPES / sizeof *TYPES; k++)
        if (strstr(b, TYPES[k]))
            return TYPES[k];
    return NULL;
}

static const char *coll_type(const char *kname, const char *arg)
{
    const char *t = arg && *arg ? canon(arg, strlen(arg)) : NULL;
    if (t)
        return t;
    const char *p = strstr(kname, "Kernel_");
    if (p) {
        p += 7;
        size_t n = strcspn(p, "_(<");
        if ((t = canon(p, n)))
            return t;
    }
    t = canon(kname, strcspn(kname, "("));
    return t ? t : "other";
}

static int dtype_size(const char *d)
{
    static const struct { const char *n; int sz; } T[] = {
        {"float", 4}, {"float32", 4}, {"int", 4}, {"int32", 4}, {"uint32", 4},
        {"half", 2}, {"float16", 2}, {"bfloat16", 2}, {"short", 2}, {"int16", 2},
        {"double", 8}, {"float64", 8}, {"long", 8}, {"int64", 8}, {"uint64", 8},
        {"char", 1}, {"byte", 1}, {"int8", 1}, {"uint8", 1}, {"bool", 1},
        {"float8_e4m3fn", 1}, {"float8_e5m2", 1}, {"float8", 1}};
    for (size_t i = 0; i < sizeof T / sizeof *T; i++)
        if (!strcasecmp(d, T[i].n))
            return T[i].sz;
    return 0;
}

static int key_cmp(const crec *a, const crec *b)
{
    int c = strcmp(a->type, b->type);
    if (c)
        return c;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    if (a->dtype != b->dtype) /* by name, not by interned id: the order of a merge */
        return strcmp(a->dname, b->dname);
    return (a->group > b->group) - (a->group < b->group);
}

static int crec_cmp(const void *x, const void *y)
{
    const crec *a = x, *b = y;
    int c = key_cmp(a, b);
    if (c)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

typedef struct dcomp {
    int32_t dev;
    td_iv iv;
} dcomp;

static int dcomp_cmp(const void *x, const void *y)
{
    const dcomp *a = x, *b = y;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    if (a->iv.s != b->iv.s)
        return a->iv.s < b->iv.s ? -1 : 1;
    return (a->iv.e > b->iv.e) - (a->iv.e < b->iv.e);
}

/* dc[0..m), in (start, end) order but for ties of start, into (dev, start) order: stable
 * buckets per device (a trace has a few). Ties of start in either end order merge into
 * the same intervals below. 0 when there are too many devices for buckets. */
static int bucket_by_dev(dcomp *dc, size_t m)
{
    enum { MAXD = 64 };
    int32_t dev[MAXD];
    size_t cnt[MAXD + 1], nd = 0, last = 0;
    for (size_t i = 0; i < m; i++) {
        if (!(nd && dev[last] == dc[i].dev)) {
            for (last = 0; last < nd && dev[last] != dc[i].dev; last++)
                ;
            if (last == nd) {
                if (nd == MAXD)
                    return 0;
                dev[nd++] = dc[i].dev;
            }
        }
    }
    /* devices ascending: their order in the output */
    for (size_t i = 1; i < nd; i++)
        for (size_t j = i; j > 0 && dev[j - 1] > dev[j]; j--) {
            int32_t x = dev[j];
            dev[j] = dev[j - 1];
            dev[j - 1] = x;
        }
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < m; i++) {
        for (last = 0; dev[last] != dc[i].dev; last++)
            ;
        cnt[last + 1]++;
    }
    for (size_t d = 0; d < nd; d++)
        cnt[d + 1] += cnt[d];
    dcomp *out = td_xmalloc((m + 1) * sizeof *out);
    for (size_t i = 0; i < m; i++) {
        for (last = 0; dev[last] != dc[i].dev; last++)
            ;
        out[cnt[last]++] = dc[i];
    }
    memcpy(dc, out, m * sizeof *dc);
    free(out);
    return 1;
}

/* Add the comm kernels of one trace to *recs. */
static void collect(td_actx *a, td_tctx *c, crec **recs, size_t *n, size_t *cap)
{
    td_trace *t = c->t;
    /* only device work can be communication (nest.c): walk it, not every event */
    size_t ncomm = 0, ncomp = 0;
    for (size_t k = 0; k < c->ndev; k++) {
        size_t i = (size_t)c->devix[k];
        if (c->iscomm[i])
            ncomm++;
        else if (t->ev[i].kind != TD_K_MEMCPY)
            ncomp++;
    }
    if (!ncomm)
        return;
    /* computation intervals per device, merged per device run; the device work is in
     * start order, so with one device (or each device's work apart) no sort is needed */
    dcomp *dc = td_xmalloc((ncomp + 1) * sizeof *dc);
    size_t m = 0;
    int sorted = 1, starts_sorted = 1;
    for (size_t k = 0; k < c->ndev; k++) {
        size_t i = (size_t)c->devix[k];
        const td_event *ev = &t->ev[i];
        if (!c->iscomm[i] && ev->kind != TD_K_MEMCPY && ev->dur > 0) {
            dc[m] = (dcomp){ev->track < t->ntracks ? t->tracks[ev->track].device : -1,
                            {ev->ts, ev->ts + ev->dur}};
            if (m && dcomp_cmp(&dc[m - 1], &dc[m]) > 0)
                sorted = 0;
            if (m && dc[m - 1].iv.s > dc[m].iv.s)
                starts_sorted = 0;
            m++;
        }
    }
    if (!sorted && !(starts_sorted && bucket_by_dev(dc, m)))
        qsort(dc, m, sizeof *dc, dcomp_cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && dc[k - 1].dev == dc[i].dev && dc[i].iv.s <= dc[k - 1].iv.e) {
            if (dc[i].iv.e > dc[k - 1].iv.e)
                dc[k - 1].iv.e = dc[i].iv.e;
        } else {
            dc[k++] = dc[i];
        }
    }
    td_iv *ivs = td_xmalloc((k + 1) * sizeof *ivs);
    for (size_t i = 0; i < k; i++)
        ivs[i] = dc[i].iv;
    /* each device's run of merged intervals [at[r], at[r + 1]) (devs ascending) */
    size_t nruns = 0;
    int32_t *rdev = td_xmalloc((k + 1) * sizeof *rdev);
    size_t *at = td_xmalloc((k + 2) * sizeof *at);
    for (size_t i = 0; i < k; i++)
        if (!i || dc[i].dev != dc[i - 1].dev) {
            rdev[nruns] = dc[i].dev;
            at[nruns++] = i;
        }
    at[nruns] = k;
    for (size_t d = 0; d < c->ndev; d++) {
        size_t i = (size_t)c->devix[d];
        if (!c->iscomm[i])
            continue;
        const td_event *ev = &t->ev[i];
        const td_nccl *x = td_aux_nccl(t, ev->aux);
        crec *r = TD_PUSH(*recs, *n, *cap);
        memset(r, 0, sizeof *r);
        r->type = coll_type(td_name(a, ev->name), x && x->coll ? td_name(a, x->coll) : NULL);
        r->bytes = -1;
        r->dname = "";
        if (x) {
            int sz = x->dtype ? dtype_size(td_name(a, x->dtype)) : 0;
            int64_t ne = !strcmp(r->type, "allgather") ? x->out_nelems : x->in_nelems;
            if (sz && ne >= 0)
                r->bytes = ne * sz;
            r->dtype = x->dtype;
            r->dname = x->dtype ? td_name(a, x->dtype) : "";
            r->group = x->group_size;
        }
        if (!r->group && t->world_size > 0)
            r->group = t->world_size;
        r->rank = t->rank;
        r->ts = ev->ts;
        r->dur = ev->dur;
        /* find this device's run in dc, then the overlap with it */
        int32_t dev = ev->track < t->ntracks ? t->tracks[ev->track].device : -1;
        size_t lo = 0, hi = nruns;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rdev[mid] < dev)
                lo = mid + 1;
            else
                hi = mid;
        }
        r->hidden = lo < nruns && rdev[lo] == dev
                        ? td_iv_overlap1(ivs + at[lo], at[lo + 1] - at[lo], ev->ts, ev->ts + ev->dur)
                        : 0;
    }
    free(rdev);
    free(at);
    free(ivs);
    free(dc);
}

/* The partial's record of the records [p, q) of one key (sorted by rank, ts): calls,
 * total, hidden, instances per rank (-1 when ranks differ), ranks, and per instance k
 * the first start, last end and fastest duration over the ranks (what wait_of needs,
 * kept so that parts merge: min, max, min). */
static void part_coll(td_partial *part, const crec *r, size_t p, size_t q, int64_t tot,
                      int64_t hid, const char *dtype)
{
    size_t nr = 0, per = 0, cnt = 0;
    int same = 1;
    for (size_t i = p; i < q; i++) {
        cnt++;
        if (i + 1 == q || r[i + 1].rank != r[i].rank) {
            if (nr && cnt != per)
                same = 0;
            per = cnt;
            cnt = 0;
            nr++;
        }
    }
    int64_t *inst = NULL;
    if (same) {
        inst = td_xmalloc(per * 3 * sizeof *inst);
        for (size_t k = 0; k < per; k++) {
            int64_t *x = inst + 3 * k;
            x[0] = INT64_MAX, x[1] = INT64_MIN, x[2] = INT64_MAX;
            for (size_t j = 0; j < nr; j++) {
                const crec *c = &r[p + j * per + k];
                if (c->ts < x[0])
                    x[0] = c->ts;
                if (c->ts + c->dur > x[1])
                    x[1] = c->ts + c->dur;
                if (c->dur < x[2])
                    x[2] = c->dur;
            }
        }
    }
    char bytes[32], group[32];
    snprintf(bytes, sizeof bytes, "%lld", (long long)r[p].bytes);
    snprintf(group, sizeof group, "%d", (int)r[p].group);
    td_buf kb = {0};
    td_part_key(&kb, 4, r[p].type, bytes, dtype ? dtype : "", group);
    int64_t v[5] = {(int64_t)(q - p), tot, hid, same ? (int64_t)per : -1, (int64_t)nr};
    size_t before = part->nr;
    td_rec *rec = td_part_add(part, TD_R_KCOLL, kb.p, kb.n, v);
    td_part_inst(rec, inst, v[3], part->nr != before);
    td_buf_free(&kb);
    free(inst);
}

/* Straggler wait of the records [p, q) of one key (sorted by rank, ts); -1 when the
 * ranks do not have the same number of instances or there is only one rank. */
static int64_t wait_of(const crec *r, size_t p, size_t q)
{
    size_t nr = 0, per = 0, cnt = 0;
    for (size_t i = p; i < q; i++) {
        cnt++;
        if (i + 1 == q || r[i + 1].rank != r[i].rank) {
            if (nr && cnt != per)
                return -1;
            per = cnt;
            cnt = 0;
            nr++;
        }
    }
    if (nr < 2)
        return -1;
    int64_t w = 0;
    for (size_t k = 0; k < per; k++) {
        int64_t first = INT64_MAX, last = INT64_MIN, fast = INT64_MAX;
        for (size_t j = 0; j < nr; j++) {
            const crec *x = &r[p + j * per + k];
            if (x->ts < first)
                first = x->ts;
            if (x->ts + x->dur > last)
                last = x->ts + x->dur;
            if (x->dur < fast)
                fast = x->dur;
        }
        if (last - first - fast > 0)
            w += last - first - fast;
    }
    return w;
}

void td_an_coll(td_actx *a)
{
    crec *r = NULL;
    size_t n = 0, cap = 0;
    for (size_t ti = 0; ti < a->n; ti++)
        collect(a, &a->tc[ti], &r, &n, &cap);
    if (!n)
        return;
    qsort(r, n, sizeof *r, crec_cmp);
    td_summary *s = a->s;
    td_table *tb = td_sum_table(s, "collectives", "Collectives");
    td_table_cols(tb, "name:text:Collective", "bytes:bytes:Message size", "calls:int:Calls",
                  "total_ns:ns:Total", "mean_ns:ns:Mean", "algbw_gbps:gbps:Alg. bandwidth",
                  "busbw_gbps:gbps:Bus bandwidth", "group_size:int:Group size", "dtype:text:Type",
                  "hidden_ns:ns:Hidden", "wait_ns:ns:Wait", NULL);
    for (size_t p = 0; p < n;) {
        size_t q = p;
        int64_t tot = 0, hid = 0;
        while (q < n && !key_cmp(&r[p], &r[q])) {
            tot += r[q].dur;
            hid += r[q].hidden;
            q++;
        }
        int64_t calls = (int64_t)(q - p);
        const char *dtype = r[p].dtype ? td_name(a, r[p].dtype) : NULL;
        if (a->part)
            part_coll(a->part, r, p, q, tot, hid, dtype);
        int64_t w = wait_of(r, p, q);
        td_coll_stat st = {r[p].type, dtype, r[p].bytes, r[p].group, calls, tot, hid,
                           w >= 0 ? w : TD_NA};
        td_row_coll(s, tb, td_table_add_row(tb), &st);
        p = q;
    }
    td_table_sort(tb, "total_ns", 1);
    free(r);
}
