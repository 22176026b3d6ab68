/* analyse/xla/coll.c - XLA collectives (formats.md sec. 4, nsys-jax's communication
 * frame and the notebook's collective plots): communication thunks by HLO opcode;
 * message size, replica group size and element type from the program's HloProto dump;
 * hidden = overlap with compute thunks of the same program and device; one instance =
 * the same program, execution, instruction and thunk execution on every device. Per
 * instance, as the notebook: bus bandwidth of the fastest device, straggler wait =
 * last end - first start - fastest duration (full durations, hidden part included)
 * after aligning each device's clock by its median collective end-time skew. */
#include "analyse/xla/xla.h"
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

/* Instances: (program key, execution, instruction, thunk execution), then device. The
 * instruction is compared by name so that a merge of partial summaries (which has no
 * interned ids) orders them the same way. */
static int cmp_ci(const void *a, const void *b)
{
    const xla_ci *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    if (p->exec != q->exec) return p->exec < q->exec ? -1 : 1;
    int c = strcmp(p->inst, q->inst);
    if (c) return c;
    if (p->thexec != q->thexec) return p->thexec < q->thexec ? -1 : 1;
    if (p->device != q->device) return p->device < q->device ? -1 : 1;
    return (p->s > q->s) - (p->s < q->s);
}

/* End (exclusive) of the collective instance starting at a. */
static size_t inst_end(const xla_ci *c, size_t nc, size_t a)
{
    size_t b = a + 1;
    while (b < nc && c[b].key == c[a].key && c[b].exec == c[a].exec
           && !strcmp(c[b].inst, c[a].inst) && c[b].thexec == c[a].thexec)
        b++;
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
static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

void xla_coll_tables(td_summary *s, xla_ci *c, size_t nc, const int32_t *devs, int ndev,
                     int multi)
{
    qsort(c, nc, sizeof *c, cmp_ci);
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
            size_t b = inst_end(c, nc, a);
            if (b - a == (size_t)ndev) {
                double mean = 0;
                for (size_t k = a; k < b; k++) mean += (double)c[k].e;
                mean /= (double)(b - a);
                for (size_t k = a; k < b; k++) {
                    int d = dev_index(devs, ndev, c[k].device);
                    if (d >= 0) *TD_PUSH(sk[d], nsk[d], cap[d]) = (double)c[k].e - mean;
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
    /* rows: collective type x message size x group size x element type */
    typedef struct cagg {
        const char *type, *dtype;
        int64_t bytes, group, seen, calls, total, hidden, wait;
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
        size_t b = inst_end(c, nc, a);
        int64_t fs = INT64_MAX, le = INT64_MIN, fd = INT64_MAX;
        size_t row = 0;
        for (size_t k = a; k < b; k++) {
            const xla_ci *q = &c[k];
            int d = dev_index(devs, ndev, q->device);
            int64_t cs = q->s - (d >= 0 ? corr[d] : 0), ce = q->e - (d >= 0 ? corr[d] : 0);
            if (cs < fs) fs = cs;
            if (ce > le) le = ce;
            if (q->e - q->s < fd) fd = q->e - q->s;
            size_t g;
            for (g = 0; g < nca; g++)
                if (!strcmp(ca[g].type, q->type) && ca[g].bytes == q->bytes
                    && ca[g].group == q->group && same_str(ca[g].dtype, q->dtype)) break;
            if (g == nca) {
                cagg *n2 = TD_PUSH(ca, nca, cacap);
                memset(n2, 0, sizeof *n2);
                n2->type = q->type; n2->bytes = q->bytes; n2->group = q->group;
                n2->dtype = q->dtype;
            }
            if (k == a) row = g;
            ca[g].calls++;
            ca[g].total += q->e - q->s;
            ca[g].hidden += q->hidden < q->e - q->s ? q->hidden : q->e - q->s;
        }
        int64_t wait = le - fs - fd;
        if (b - a > 1) ca[row].wait += wait;
        /* devices seen taking part in one instance: the group size when the HLO
         * does not say and every process of the job was given */
        if ((int64_t)(b - a) > ca[row].seen) ca[row].seen = (int64_t)(b - a);
        const xla_ci *h0 = &c[a];
        size_t r = td_table_add_row(it);
        td_row_str(s, it, r, "name", ca[row].type);
        td_row_str(s, it, r, "instruction", h0->inst);
        td_row_int(s, it, r, "program_id", h0->key);
        td_row_int(s, it, r, "execution", h0->exec);
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
        for (size_t g = 0; g < nca; g++) {
            int dup = 0;
            for (size_t q = 0; q < g; q++) if (!strcmp(ca[q].type, ca[g].type)) dup = 1;
            if (dup) continue;
            int64_t cnt[NB] = {0};
            int lo = NB, hi = -1;
            for (size_t r = 0; r < it->nrows; r++) {
                const td_cell *w = td_table_cell(it, r, cw);
                if (w->i == TD_NA || strcmp(td_table_cell(it, r, cn)->s, ca[g].type)) continue;
                int k = 0;
                while (k + 1 < NB && w->i >= edge[k + 1]) k++;
                cnt[k]++;
                if (k < lo) lo = k;
                if (k > hi) hi = k;
            }
            for (int k = lo; k <= hi; k++) {
                size_t r = td_table_add_row(hw);
                td_row_str(s, hw, r, "name", ca[g].type);
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
    for (size_t k = 0; k < nca; k++) {
        size_t r = td_table_add_row(ct);
        td_row_str(s, ct, r, "name", ca[k].type);
        td_row_int(s, ct, r, "calls", ca[k].calls);
        td_row_int(s, ct, r, "total_ns", ca[k].total);
        td_row_int(s, ct, r, "mean_ns", llround((double)ca[k].total / (double)ca[k].calls));
        td_row_int(s, ct, r, "hidden_ns", ca[k].hidden);
        if (multi || ndev > 1) td_row_int(s, ct, r, "wait_ns", ca[k].wait);
        int64_t g = ca[k].group ? ca[k].group : (multi || ndev > 1) ? ca[k].seen : 0;
        if (g > 0) td_row_int(s, ct, r, "group_size", g);
        if (ca[k].dtype) td_row_str(s, ct, r, "dtype", ca[k].dtype);
        if (ca[k].bytes >= 0 && ca[k].total > 0) {
            /* nccl-tests: algbw = bytes / time (bytes per ns = GB/s); busbw = algbw
             * x factor; time is the whole projected duration, as nsys-jax uses */
            double alg = (double)ca[k].bytes * (double)ca[k].calls / (double)ca[k].total;
            td_row_int(s, ct, r, "bytes", ca[k].bytes);
            td_row_f64(s, ct, r, "algbw_gbps", alg);
            if (g > 0) td_row_f64(s, ct, r, "busbw_gbps", alg * bus_factor(ca[k].type, (int)g));
        }
    }
    td_table_sort(ct, "total_ns", 1);
    free(ca);
}

/* The steady communication thunks as instances' members. */
xla_ci *xla_comm_thunks(xctx *x, size_t *n)
{
    td_strtab *st = x->set->strs;
    xla_ci *c = td_xmalloc((x->nth ? x->nth : 1) * sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; i < x->nth; i++) {
        const xthunk *h = &x->th[i];
        const xmod *m = &x->m[h->mod];
        if (!h->comm || !m->steady) continue;
        c[nc++] = (xla_ci){ m->key, m->exec, h->exec, td_strget(st, h->inst),
                            xla_comm_type(td_strget(st, h->kind)),
                            h->dtype ? td_strget(st, h->dtype) : NULL, m->device, h->group,
                            h->s, h->e, h->hidden, h->bytes };
    }
    *n = nc;
    return c;
}

/* Devices of every module, in the order first seen (at most 256). */
int xla_devices(const xctx *x, int32_t *devs)
{
    int ndev = 0;
    for (size_t i = 0; i < x->nm; i++) {
        int f = 0;
        for (int k = 0; k < ndev; k++) if (devs[k] == x->m[i].device) f = 1;
        if (!f && ndev < 256) devs[ndev++] = x->m[i].device;
    }
    return ndev;
}

void xla_collectives(xctx *x)
{
    int32_t devs[256];
    int ndev = xla_devices(x, devs);
    int multi = 0;
    for (size_t i = 1; i < x->set->n; i++) if (x->set->tr[i]->nranges) multi = 1;
    size_t nc;
    xla_ci *c = xla_comm_thunks(x, &nc);
    xla_coll_tables(x->s, c, nc, devs, ndev, multi);
    free(c);
}
