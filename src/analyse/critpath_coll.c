/* analyse/critpath_coll.c - where the critical path crosses ranks (doc/summary-json.md
 * "critical_path_collectives"): a collective cannot end on any rank before its last rank
 * has started it, so the path of a rank that started early runs through the rank that
 * started last. Per collective (the NCCL/RCCL kernel's "Collective name", else the
 * kernel name up to its parameters), the k-th instance of every rank that has it is
 * matched (up to the fewest instances any of them has); in each instance the rank that
 * started last is the one the others wait for, and each other rank waits from its own
 * start to that rank's. The culprit is the rank the others waited for the longest; the
 * victims are the ranks that waited for it, most wait first. */
#include "analyse/critpath.h"
#include "base/buf.h"
#include <stdlib.h>
#include <string.h>

typedef struct cinst {
    const char *name;
    int32_t ti;      /* rank index (ranks in ascending order) */
    int64_t ts;
} cinst;

static int cinst_cmp(const void *x, const void *y)
{
    const cinst *a = x, *b = y;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    if (a->ti != b->ti)
        return a->ti < b->ti ? -1 : 1;
    return (a->ts > b->ts) - (a->ts < b->ts);
}

static const char *coll_name(td_actx *a, const td_trace *t, const td_event *ev)
{
    const td_nccl *x = td_aux_nccl(t, ev->aux);
    if (x && x->coll)
        return td_name(a, x->coll);
    const char *n = td_name(a, ev->name);
    return td_arena_strndup(a->s->a, n, strcspn(n, "("));
}

typedef struct vic {
    int64_t rank, wait;
} vic;

static int vic_cmp(const void *x, const void *y)
{
    const vic *a = x, *b = y;
    if (a->wait != b->wait)
        return a->wait > b->wait ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* One collective's instances, v[0..n) sorted by trace then time. */
static void one(td_summary *s, td_table **tbp, const cinst *v, size_t n, const int64_t *rk,
                size_t nt)
{
    size_t *first = td_xmalloc((nt + 1) * sizeof *first), *cnt = td_xcalloc(nt + 1, sizeof *cnt);
    size_t nr = 0, m = SIZE_MAX;
    for (size_t j = 0; j < n; j++) {
        if (!cnt[v[j].ti]++)
            first[v[j].ti] = j, nr++;
    }
    for (size_t ti = 0; ti < nt; ti++)
        if (cnt[ti] && cnt[ti] < m)
            m = cnt[ti];
    if (nr < 2 || m == SIZE_MAX) {
        free(first);
        free(cnt);
        return;
    }
    /* caused[c][r]: wait of rank r on culprit c; last[c]: instances c started last */
    int64_t *caused = td_xcalloc(nt * nt, sizeof *caused), *last = td_xcalloc(nt, sizeof *last);
    int64_t total = 0;
    for (size_t k = 0; k < m; k++) {
        size_t lt = SIZE_MAX;
        int64_t lts = INT64_MIN;
        for (size_t ti = 0; ti < nt; ti++)
            if (cnt[ti] && v[first[ti] + k].ts > lts)
                lts = v[first[ti] + k].ts, lt = ti;
        last[lt]++;
        for (size_t ti = 0; ti < nt; ti++)
            if (cnt[ti] && ti != lt) {
                caused[lt * nt + ti] += lts - v[first[ti] + k].ts;
                total += lts - v[first[ti] + k].ts;
            }
    }
    size_t cu = SIZE_MAX;
    int64_t best = -1;
    for (size_t c = 0; c < nt; c++) {
        int64_t sum = 0;
        for (size_t r = 0; r < nt; r++)
            sum += caused[c * nt + r];
        if (cnt[c] && sum > best)
            best = sum, cu = c;
    }
    vic *vv = td_xmalloc(nt * sizeof *vv);
    size_t nv = 0;
    for (size_t r = 0; r < nt; r++)
        if (caused[cu * nt + r] > 0)
            vv[nv++] = (vic){rk[r], caused[cu * nt + r]};
    qsort(vv, nv, sizeof *vv, vic_cmp);
    td_buf b = {0};
    for (size_t j = 0; j < nv; j++)
        td_buf_printf(&b, "%s%lld", j ? ", " : "", (long long)vv[j].rank);
    if (!*tbp) {
        *tbp = td_sum_table(s, "critical_path_collectives",
                            "Collectives: the rank the others wait for");
        td_table_cols(*tbp, "name:text:Collective", "ranks:int:Ranks", "instances:int:Instances",
                      "culprit_rank:int:Culprit rank", "last_share:share:Started last in",
                      "caused_wait_ns:ns:Others' wait on it", "victims:text:Victims (most wait first)",
                      "wait_ns:ns:All waits", NULL);
        (*tbp)->note = "Per collective, the k-th instance of every rank that has it: the rank "
                       "that starts it last holds the others' critical paths; each other rank "
                       "waits from its own start to that rank's.";
    }
    td_table *tb = *tbp;
    size_t r = td_table_add_row(tb);
    td_row_str(s, tb, r, "name", v[0].name);
    td_row_int(s, tb, r, "ranks", (int64_t)nr);
    td_row_int(s, tb, r, "instances", (int64_t)m);
    td_row_int(s, tb, r, "culprit_rank", rk[cu]);
    td_row_f64(s, tb, r, "last_share", (double)last[cu] / (double)m);
    td_row_int(s, tb, r, "caused_wait_ns", best);
    td_row_str(s, tb, r, "victims", td_buf_cstr(&b));
    td_row_int(s, tb, r, "wait_ns", total);
    td_buf_free(&b);
    free(vv);
    free(caused);
    free(last);
    free(first);
    free(cnt);
}

static int i64_cmp(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

void td_cp_collectives(td_summary *s, const td_table *arr)
{
    if (!arr || !arr->nrows)
        return;
    size_t n = arr->nrows;
    int64_t *rk = td_xmalloc(n * sizeof *rk);
    for (size_t r = 0; r < n; r++)
        rk[r] = td_row_get_int(arr, r, "rank");
    qsort(rk, n, sizeof *rk, i64_cmp);
    size_t nt = 0;
    for (size_t r = 0; r < n; r++)
        if (!nt || rk[nt - 1] != rk[r])
            rk[nt++] = rk[r];
    if (nt < 2) {
        free(rk);
        return;
    }
    cinst *v = td_xmalloc(n * sizeof *v);
    for (size_t r = 0; r < n; r++) {
        int64_t x = td_row_get_int(arr, r, "rank");
        size_t lo = 0, hi = nt;
        while (lo + 1 < hi) {
            size_t mid = (lo + hi) / 2;
            if (rk[mid] <= x)
                lo = mid;
            else
                hi = mid;
        }
        const char *nm = td_row_get_str(arr, r, "name");
        v[r] = (cinst){nm ? nm : "", (int32_t)lo, td_row_get_int(arr, r, "start_ns")};
    }
    qsort(v, n, sizeof *v, cinst_cmp);
    td_table *tb = NULL;
    for (size_t j = 0; j < n;) {
        size_t k = j;
        while (k < n && !strcmp(v[k].name, v[j].name))
            k++;
        one(s, &tb, v + j, k - j, rk, nt);
        j = k;
    }
    free(v);
    free(rk);
}

/* The arrivals (every NCCL/RCCL kernel's start, per rank; CSV only, carried by partial
 * summaries), then the collectives' culprits from them. */
void td_an_critpath_coll(td_actx *a)
{
    td_table *arr = NULL;
    for (size_t ti = 0; ti < a->n; ti++) {
        const td_tctx *c = &a->tc[ti];
        const td_trace *t = c->t;
        for (size_t i = 0; i < t->nev; i++) {
            if (!c->iscomm[i] || !td_kind_is_device(t->ev[i].kind))
                continue;
            if (!arr) {
                arr = td_sum_table(a->s, "critical_path_arrivals", "Collective kernel starts");
                arr->no_json = 1;
                td_table_cols(arr, "rank:int:Rank", "name:text:Collective", "start_ns:int:Start (trace clock, ns)", NULL);
            }
            size_t r = td_table_add_row(arr);
            td_row_int(a->s, arr, r, "rank", t->rank);
            td_row_str(a->s, arr, r, "name", coll_name(a, t, &t->ev[i]));
            td_row_int(a->s, arr, r, "start_ns", t->ev[i].ts);
        }
    }
    td_cp_collectives(a->s, arr);
}
