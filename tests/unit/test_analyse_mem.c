/* test_analyse_mem.c - the memory-saving forms of the analysis passes against brute
 * force on random input: the op table's self/total/device times (self time from parent
 * links, device totals by replaying the nesting, owners found from the launch) against
 * a tree the test builds itself, and the GPU timeline (merged in place, unions streamed)
 * against a per-nanosecond count on a small grid. */
#include "analyse/internal.h"
#include "unit.h"
#include <stdlib.h>

static td_traceset *S;
static td_trace *T;
static unsigned long long rng = 12345;

static int rnd(int n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((rng >> 33) % (unsigned long long)n);
}

#define NNAMES 5
static const char *NAMES[NNAMES] = {"aten::a", "aten::b", "fwd", "aten::c", "bwd"};

/* Expected per name (index NNAMES: cudaLaunchKernel, NNAMES + 1: cuLaunchKernel). */
typedef struct exp_row {
    int64_t calls, self, total, dself, dtotal;
} exp_row;
static exp_row X[NNAMES + 2];

typedef struct node {
    int name;          /* index into X */
    int64_t dur, dtot; /* device time of the subtree */
} node;

static int64_t corr_next = 1;

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

/* A launch in [s, e) on track k: runtime call (sometimes with a driver call of the
 * same id inside), kernel on the device. Returns the kernel's duration. The owner of
 * its device time is `owner` (an op index into X), or the runtime call itself. */
static int64_t launch(uint32_t k, uint32_t dk, int64_t s, int64_t e, int owner)
{
    int64_t c = corr_next++, kd = 1 + rnd(50);
    ev(k, TD_K_RUNTIME, "cudaLaunchKernel", s, e - s, c);
    X[NNAMES].calls++;
    X[NNAMES].total += e - s;
    X[NNAMES].self += e - s;
    if (e - s > 2 && rnd(2)) { /* nested driver call, same id: counts for the outer */
        ev(k, TD_K_DRIVER, "cuLaunchKernel", s + 1, 1, c);
        X[NNAMES + 1].calls++;
        X[NNAMES + 1].total += 1;
        X[NNAMES + 1].self += 1;
        X[NNAMES].self -= 1;
    }
    ev(dk, TD_K_KERNEL, "k", 1000000 + c * 100, kd, c);
    int o = owner >= 0 ? owner : NNAMES;
    X[o].dself += kd;
    if (owner < 0) /* the call is its own owner: its device total too */
        X[NNAMES].dtotal += kd;
    return kd;
}

/* Ops nested in [s, e) on track k under an op of row `owner` (-1: none); returns the
 * device time launched in the range. Children sit strictly inside their parent. */
static int64_t gen(uint32_t k, uint32_t dk, int64_t s, int64_t e, int depth, int owner,
                   int64_t *childsum)
{
    int64_t dev = 0, t = s + 1;
    while (t + 4 < e && rnd(4)) {
        int64_t len = 2 + rnd((int)(e - t - 2 > 60 ? 60 : e - t - 2));
        if (t + len >= e)
            break;
        if (depth > 3 || !rnd(3)) {
            dev += launch(k, dk, t, t + len, owner);
        } else {
            int nm = rnd(NNAMES);
            ev(k, TD_K_CPU_OP, NAMES[nm], t, len, 0);
            int64_t sub = 0;
            int64_t d = gen(k, dk, t, t + len, depth + 1, nm, &sub);
            X[nm].calls++;
            X[nm].total += len;
            X[nm].self += len - sub;
            X[nm].dtotal += d;
            dev += d;
        }
        *childsum += len;
        t += len + rnd(3);
    }
    return dev;
}

static int cmp_ev(const void *x, const void *y)
{
    const td_event *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return (a->dur < b->dur) - (a->dur > b->dur);
}

static int64_t cell(const td_table *t, size_t r, const char *key)
{
    return td_table_cell(t, r, td_table_col(t, key))->i;
}

static void test_ops_random(int round)
{
    memset(X, 0, sizeof X);
    S = td_traceset_new();
    T = td_traceset_add(S, "random.json");
    T->format = TD_FMT_CHROME_JSON;
    uint32_t dk = td_trace_track(T, 1000, 7);
    T->tracks[dk].device = 0;
    T->tracks[dk].stream = 7;
    /* two threads, their ops interleaved in time */
    for (int th = 0; th < 2; th++) {
        uint32_t k = td_trace_track(T, 1, 10 + th);
        int64_t sub = 0;
        gen(k, dk, th * 3, 4000 + round * 100, 0, -1, &sub);
    }
    launch(td_trace_track(T, 1, 10), dk, 9000, 9010, -1); /* at least one */
    qsort(T->ev, T->nev, sizeof *T->ev, cmp_ev);
    td_summary *s = td_summary_new();
    td_err e = {0};
    td_opts o;
    td_opts_default(&o);
    CHECK_EQ_INT(td_analyse(S, &o, s, &e), TD_OK);
    const td_table *tb = td_sum_find_table(s, "ops");
    CHECK(tb != NULL);
    int64_t selfsum = 0;
    for (int k = 0; k < NNAMES + 2; k++)
        selfsum += X[k].self;
    size_t seen = 0;
    for (size_t r = 0; tb && r < tb->nrows; r++) {
        const char *nm = td_table_cell(tb, r, td_table_col(tb, "name"))->s;
        int k = -1;
        for (int j = 0; j < NNAMES; j++)
            if (!strcmp(nm, NAMES[j]))
                k = j;
        if (!strcmp(nm, "cudaLaunchKernel"))
            k = NNAMES;
        if (!strcmp(nm, "cuLaunchKernel"))
            k = NNAMES + 1;
        CHECK(k >= 0);
        if (k < 0)
            continue;
        seen++;
        CHECK_EQ_INT(cell(tb, r, "calls"), X[k].calls);
        CHECK_EQ_INT(cell(tb, r, "self_ns"), X[k].self);
        CHECK_EQ_INT(cell(tb, r, "total_ns"), X[k].total);
        CHECK_EQ_INT(cell(tb, r, "device_self_ns"), X[k].dself);
        CHECK_EQ_INT(cell(tb, r, "device_total_ns"), X[k].dtotal);
        double share = td_table_cell(tb, r, td_table_col(tb, "self_share"))->f;
        CHECK(share == (double)X[k].self / (double)selfsum);
    }
    size_t want = 0;
    for (int k = 0; k < NNAMES + 2; k++)
        want += X[k].calls > 0;
    CHECK_EQ_INT(seen, want);
    td_summary_free(s);
    td_traceset_free(S);
}

/* Timeline of random intervals against a count per ns on [0, 400). */
static void test_timeline_random(void)
{
    enum { W = 400 };
    td_iv v[3][40];
    size_t n[3];
    unsigned char on[3][W];
    memset(on, 0, sizeof on);
    for (int c = 0; c < 3; c++) {
        n[c] = (size_t)rnd(40);
        for (size_t i = 0; i < n[c]; i++) {
            int64_t a = rnd(W - 1), l = rnd(30);
            v[c][i] = (td_iv){a, a + l < W ? a + l : W};
            for (int64_t x = v[c][i].s; x < v[c][i].e; x++)
                on[c][x] = 1;
        }
    }
    int64_t want[TL__N] = {0};
    int64_t first = -1, last = -1;
    for (int x = 0; x < W; x++) {
        int cp = on[0][x], cm = on[1][x], mc = on[2][x];
        want[TL_COMP] += cp;
        want[TL_COMM] += cm;
        want[TL_MEMCPY] += mc;
        want[TL_XCOMM] += cm && !cp;
        want[TL_XMEMCPY] += mc && !cp && !cm;
        if (cp || cm || mc) {
            want[TL_BUSY]++;
            if (first < 0)
                first = x;
            last = x + 1;
        }
    }
    want[TL_TOTAL] = first < 0 ? 0 : last - first;
    want[TL_IDLE] = want[TL_TOTAL] - want[TL_BUSY];
    int64_t got[TL__N] = {0}; /* td_timeline_compute leaves the sync slot to its caller */
    td_timeline_compute(v[0], n[0], v[1], n[1], v[2], n[2], got);
    for (int k = 0; k < TL__N; k++)
        CHECK_EQ_INT(got[k], want[k]);
}

int main(void)
{
    for (int r = 0; r < 20; r++)
        test_ops_random(r);
    for (int r = 0; r < 200; r++)
        test_timeline_random();
    return UNIT_DONE();
}
