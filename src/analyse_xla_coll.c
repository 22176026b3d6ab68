/* analyse_xla_coll.c - XLA collectives (formats.md sec. 4, nsys-jax's communication
 * frame and the notebook's collective plots): communication thunks by HLO opcode;
 * message size, replica group size and element type from the program's HloProto dump;
 * hidden = overlap with compute thunks of the same program and device; one instance =
 * the same program, execution, instruction and thunk execution on every device. Per
 * instance, as the notebook: bus bandwidth of the fastest device, straggler wait =
 * last end - first start - fastest duration (full durations, hidden part included)
 * after aligning each device's clock by its median collective end-time skew. */
#include "analyse_xla.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Communication thunk kinds (the HLO opcodes nsys-jax treats as communication). */
const char *xla_comm_type(const char *kind)
{
    if (strstr(kind, "-done")) return NULL;
    if (xla_starts(kind, "all-reduce")) return "allreduce";
    if (xla_starts(kind, "all-gather")) return "allgather";
    if (xla_starts(kind, "reduce-scatter")) return "reducescatter";
    if (xla_starts(kind, "all-to-all")) return "alltoall";
    if (xla_starts(kind, "collective-permute")) return "sendrecv";
    if (xla_starts(kind, "collective-broadcast")) return "broadcast";
    return NULL;
}

/* nccl-tests bus bandwidth factor for a group of n */
static double bus_factor(const char *type, int n)
{
    if (n <= 1) return 1;
    if (!strcmp(type, "allreduce")) return 2.0 * (n - 1) / n;
    if (!strcmp(type, "allgather") || !strcmp(type, "reducescatter")
        || !strcmp(type, "alltoall")) return (double)(n - 1) / n;
    return 1;
}

static xctx *g_x;   /* qsort has no context argument */
static int cmp_th_inst(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const xthunk *p = &g_x->th[i], *q = &g_x->th[j];
    const xmod *mp = &g_x->m[p->mod], *mq = &g_x->m[q->mod];
    if (mp->key != mq->key) return mp->key < mq->key ? -1 : 1;
    if (mp->exec != mq->exec) return mp->exec < mq->exec ? -1 : 1;
    if (p->inst != q->inst) return p->inst < q->inst ? -1 : 1;
    if (p->exec != q->exec) return p->exec < q->exec ? -1 : 1;
    if (mp->device != mq->device) return mp->device < mq->device ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* End (exclusive) of the collective instance starting at ix[a]. */
static size_t inst_end(const xctx *x, const size_t *ix, size_t nc, size_t a)
{
    const xthunk *h0 = &x->th[ix[a]];
    size_t b = a + 1;
    while (b < nc) {
        const xthunk *q = &x->th[ix[b]];
        if (x->m[q->mod].key != x->m[h0->mod].key || x->m[q->mod].exec != x->m[h0->mod].exec
            || q->inst != h0->inst || q->exec != h0->exec) break;
        b++;
    }
    return b;
}
static int dev_index(const int32_t *devs, int ndev, int32_t d)
{
    for (int k = 0; k < ndev; k++) if (devs[k] == d) return k;
    return -1;
}
static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void xla_collectives(xctx *x)
{
    td_traceset *set = x->set;
    td_summary *s = x->s;
    int ndev = 0;
    int32_t devs[256];
    for (size_t i = 0; i < x->nm; i++) {
        int f = 0;
        for (int k = 0; k < ndev; k++) if (devs[k] == x->m[i].device) f = 1;
        if (!f && ndev < 256) devs[ndev++] = x->m[i].device;
    }
    size_t *ix = td_xmalloc((x->nth ? x->nth : 1) * sizeof *ix);
    size_t nc = 0;
    for (size_t i = 0; i < x->nth; i++)
        if (x->th[i].comm && x->m[x->th[i].mod].steady) ix[nc++] = i;
    g_x = x;
    qsort(ix, nc, sizeof *ix, cmp_th_inst);
    /* Processes profiled separately have unrelated clock offsets. Align them as
     * nsys-jax does: per device, the median skew of its collective end times from
     * the mean end time of the same collective over all devices (instances that
     * involve every device only). */
    int64_t corr[256] = {0};
    if (ndev > 1) {
        double *sk[256];
        size_t nsk[256] = {0}, cap[256] = {0};
        for (int k = 0; k < ndev; k++) sk[k] = NULL;
        for (size_t a = 0; a < nc;) {
            size_t b = inst_end(x, ix, nc, a);
            if (b - a == (size_t)ndev) {
                double mean = 0;
                for (size_t k = a; k < b; k++) mean += (double)x->th[ix[k]].e;
                mean /= (double)(b - a);
                for (size_t k = a; k < b; k++) {
                    int d = dev_index(devs, ndev, x->m[x->th[ix[k]].mod].device);
                    if (d >= 0) *TD_PUSH(sk[d], nsk[d], cap[d]) = (double)x->th[ix[k]].e - mean;
                }
            }
            a = b;
        }
        for (int k = 0; k < ndev; k++) {
            if (nsk[k]) {
                qsort(sk[k], nsk[k], sizeof *sk[k], cmp_f64);
                size_t h = nsk[k] / 2;
                double med = nsk[k] % 2 ? sk[k][h] : (sk[k][h - 1] + sk[k][h]) / 2;
                corr[k] = llround(med);
            }
            free(sk[k]);
        }
    }
    int multi = 0;
    for (size_t i = 1; i < set->n; i++) if (set->tr[i]->nranges) multi = 1;
    /* rows: collective type x message size x group size x element type */
    typedef struct cagg {
        const char *type;
        int64_t bytes, group, seen, calls, total, hidden, wait;
        td_str dtype;
    } cagg;
    cagg *ca = NULL;
    size_t nca = 0, cacap = 0;
    td_table *it = td_sum_table(s, "collective_instances", "Collective instances");
    td_table_cols(it, "name:text:Collective", "instruction:text:Instruction",
                  "program_id:int:Program", "execution:int:Execution",
                  "bytes:bytes:Message size", "devices:int:Devices",
                  "fastest_ns:ns:Fastest", "busbw_gbps:gbps:Bus BW (fastest)",
                  "wait_ns:ns:Straggler wait", "wait_multiple:f64:Wait / fastest", NULL);
    for (size_t a = 0; a < nc;) {
        size_t b = inst_end(x, ix, nc, a);
        int64_t fs = INT64_MAX, le = INT64_MIN, fd = INT64_MAX;
        size_t row = 0;
        for (size_t k = a; k < b; k++) {
            const xthunk *q = &x->th[ix[k]];
            int d = dev_index(devs, ndev, x->m[q->mod].device);
            int64_t cs = q->s - (d >= 0 ? corr[d] : 0), ce = q->e - (d >= 0 ? corr[d] : 0);
            if (cs < fs) fs = cs;
            if (ce > le) le = ce;
            if (q->e - q->s < fd) fd = q->e - q->s;
            const char *type = xla_comm_type(td_strget(set->strs, q->kind));
            size_t c;
            for (c = 0; c < nca; c++)
                if (!strcmp(ca[c].type, type) && ca[c].bytes == q->bytes
                    && ca[c].group == q->group && ca[c].dtype == q->dtype) break;
            if (c == nca) {
                cagg *n2 = TD_PUSH(ca, nca, cacap);
                memset(n2, 0, sizeof *n2);
                n2->type = type; n2->bytes = q->bytes; n2->group = q->group;
                n2->dtype = q->dtype;
            }
            if (k == a) row = c;
            ca[c].calls++;
            ca[c].total += q->e - q->s;
            ca[c].hidden += q->hidden < q->e - q->s ? q->hidden : q->e - q->s;
        }
        int64_t wait = le - fs - fd;
        if (b - a > 1) ca[row].wait += wait;
        /* devices seen taking part in one instance: the group size when the HLO
         * does not say and every process of the job was given */
        if ((int64_t)(b - a) > ca[row].seen) ca[row].seen = (int64_t)(b - a);
        const xthunk *h0 = &x->th[ix[a]];
        size_t r = td_table_add_row(it);
        td_row_str(s, it, r, "name", ca[row].type);
        td_row_str(s, it, r, "instruction", td_strget(set->strs, h0->inst));
        td_row_int(s, it, r, "program_id", x->m[h0->mod].key);
        td_row_int(s, it, r, "execution", x->m[h0->mod].exec);
        td_row_int(s, it, r, "devices", (int64_t)(b - a));
        td_row_int(s, it, r, "fastest_ns", fd);
        int64_t g = h0->group ? h0->group : (int64_t)(b - a);
        if (h0->bytes >= 0) {
            td_row_int(s, it, r, "bytes", h0->bytes);
            if (fd > 0)
                td_row_f64(s, it, r, "busbw_gbps", (double)h0->bytes / (double)fd
                                                   * bus_factor(ca[row].type, (int)g));
        }
        if (b - a > 1) {
            td_row_int(s, it, r, "wait_ns", wait);
            if (fd > 0) td_row_f64(s, it, r, "wait_multiple", (double)wait / (double)fd);
        }
        a = b;
    }
    td_table_sort(it, "wait_ns", 1);
    /* straggler wait histogram per collective type: bins 0, 1, 2, 5, 10, 20, 50... ns */
    {
        td_table *hw = td_sum_table(s, "collective_wait_histogram", "Straggler wait");
        td_table_cols(hw, "name:text:Collective", "low_ns:ns:From", "high_ns:ns:Below",
                      "instances:int:Instances", NULL);
        enum { NB = 40 };
        int64_t edge[NB + 1];
        edge[0] = 0;
        for (int k = 1; k <= NB; k++) {
            static const int m[3] = {1, 2, 5};
            int64_t p10 = 1;
            for (int j = 0; j < (k - 1) / 3; j++) p10 *= 10;
            edge[k] = m[(k - 1) % 3] * p10;
        }
        int cw = td_table_col(it, "wait_ns"), cn = td_table_col(it, "name");
        for (size_t c = 0; c < nca; c++) {
            int dup = 0;
            for (size_t q = 0; q < c; q++) if (!strcmp(ca[q].type, ca[c].type)) dup = 1;
            if (dup) continue;
            int64_t cnt[NB] = {0};
            int lo = NB, hi = -1;
            for (size_t r = 0; r < it->nrows; r++) {
                const td_cell *w = td_table_cell(it, r, cw);
                if (w->i == TD_NA || strcmp(td_table_cell(it, r, cn)->s, ca[c].type)) continue;
                int k = 0;
                while (k + 1 < NB && w->i >= edge[k + 1]) k++;
                cnt[k]++;
                if (k < lo) lo = k;
                if (k > hi) hi = k;
            }
            for (int k = lo; k <= hi; k++) {
                size_t r = td_table_add_row(hw);
                td_row_str(s, hw, r, "name", ca[c].type);
                td_row_int(s, hw, r, "low_ns", edge[k]);
                td_row_int(s, hw, r, "high_ns", edge[k + 1]);
                td_row_int(s, hw, r, "instances", cnt[k]);
            }
        }
    }
    td_table *ct = td_sum_table(s, "collectives", "Collectives");
    td_table_cols(ct, "name:text:Collective", "bytes:bytes:Message size", "calls:int:Calls",
                  "total_ns:ns:Total", "mean_ns:ns:Mean", "algbw_gbps:gbps:Alg BW",
                  "busbw_gbps:gbps:Bus BW", "group_size:int:Group", "dtype:text:Type",
                  "hidden_ns:ns:Hidden", "wait_ns:ns:Wait", NULL);
    for (size_t c = 0; c < nca; c++) {
        size_t r = td_table_add_row(ct);
        td_row_str(s, ct, r, "name", ca[c].type);
        td_row_int(s, ct, r, "calls", ca[c].calls);
        td_row_int(s, ct, r, "total_ns", ca[c].total);
        td_row_int(s, ct, r, "mean_ns", llround((double)ca[c].total / (double)ca[c].calls));
        td_row_int(s, ct, r, "hidden_ns", ca[c].hidden);
        if (multi || ndev > 1) td_row_int(s, ct, r, "wait_ns", ca[c].wait);
        int64_t g = ca[c].group ? ca[c].group : (multi || ndev > 1) ? ca[c].seen : 0;
        if (g > 0) td_row_int(s, ct, r, "group_size", g);
        if (ca[c].dtype) td_row_str(s, ct, r, "dtype", td_strget(set->strs, ca[c].dtype));
        if (ca[c].bytes >= 0 && ca[c].total > 0) {
            /* nccl-tests: algbw = bytes / time (bytes per ns = GB/s); busbw = algbw
             * x factor; time is the whole projected duration, as nsys-jax uses */
            double alg = (double)ca[c].bytes * (double)ca[c].calls / (double)ca[c].total;
            td_row_int(s, ct, r, "bytes", ca[c].bytes);
            td_row_f64(s, ct, r, "algbw_gbps", alg);
            if (g > 0) td_row_f64(s, ct, r, "busbw_gbps", alg * bus_factor(ca[c].type, (int)g));
        }
    }
    td_table_sort(ct, "total_ns", 1);
    free(ca);
    free(ix);
}
