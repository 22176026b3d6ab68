/* analyse/ops.c - the op table, like torch.profiler key_averages(): per op name,
 * calls, self and total CPU time, average, shares of the self-time total, and device
 * time of the kernels each op launched (self: launched directly, total: with its
 * descendants). Shares are of the sum of self times ("Self CPU time total"). */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct oprow {
    td_str name;
    int64_t calls, self, total, dself, dtotal, graph;
} oprow;

typedef struct frame {
    int32_t op;
    int64_t tot;    /* device time of the op and of its finished descendants */
} frame;

typedef struct fstack {
    frame *v;
    size_t n, cap;
} fstack;

static void pop(fstack *s, oprow *rows, const int32_t *slot, const td_trace *t)
{
    frame f = s->v[--s->n];
    rows[slot[t->ev[f.op].name]].dtotal += f.tot;
    if (s->n)
        s->v[s->n - 1].tot += f.tot;
}

/* Self device time: the kernels an op owns; total: with its descendants'. Totals are
 * summed over a replay of the nesting (a stack per track, as analyse/nest.c built it)
 * rather than in an array over all events: only the owned device times are kept,
 * sorted by op, which keeps the pass's memory to a fraction of the event count. */
static void device_times(const td_tctx *c, oprow *rows, const int32_t *slot)
{
    const td_trace *t = c->t;
    /* device time owned by an op (td_owner): key the op, val the time; in op order */
    td_keyed *od = td_xmalloc((c->ndev + 1) * sizeof *od);
    size_t nod = 0;
    for (size_t i = 0, k = 0; i < t->nev; i++) {
        if (!td_kind_is_device(t->ev[i].kind))
            continue;
        int32_t o = td_owner(c, c->launch[k++]);
        if (o >= 0)
            od[nod++] = (td_keyed){o, t->ev[i].dur};
    }
    if (!nod) {
        free(od);
        return;
    }
    td_sort_keyed(od, nod);
    fstack *st = td_xcalloc(t->ntracks + 1, sizeof *st);
    size_t p = 0;
    for (size_t i = 0; i < t->nev && p < nod; i++) {
        if (!c->isop[i])
            continue;
        /* the stack of i's track holds the previous op's ancestors: pop down to i's
         * parent, finishing the ops in between */
        fstack *s = &st[t->ev[i].track];
        while (s->n && s->v[s->n - 1].op != c->parent[i])
            pop(s, rows, slot, t);
        int64_t self = 0;
        while (p < nod && od[p].key == (int64_t)i)
            self += od[p++].val;
        rows[slot[t->ev[i].name]].dself += self;
        *TD_PUSH(s->v, s->n, s->cap) = (frame){(int32_t)i, self};
    }
    for (size_t k = 0; k < t->ntracks; k++) {
        while (st[k].n)
            pop(&st[k], rows, slot, t);
        free(st[k].v);
    }
    free(st);
    free(od);
}

void td_an_ops(td_actx *a)
{
    size_t nstr = td_strtab_count(a->set->strs);
    int32_t *slot = td_xmalloc((nstr + 1) * sizeof *slot);
    memset(slot, 0xff, (nstr + 1) * sizeof *slot);
    oprow *rows = NULL;
    size_t nrows = 0, cap = 0;
    int64_t selfsum = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        /* rows first (in order of first appearance); self = dur - children's dur is
         * summed as +dur on the op and -dur on its parent (earlier, so it has a row) */
        for (size_t i = 0; i < t->nev; i++) {
            if (!c->isop[i])
                continue;
            td_str nm = t->ev[i].name;
            if (slot[nm] < 0) {
                slot[nm] = (int32_t)nrows;
                oprow *r = TD_PUSH(rows, nrows, cap);
                memset(r, 0, sizeof *r);
                r->name = nm;
            }
            oprow *r = &rows[slot[nm]];
            int64_t d = t->ev[i].dur;
            r->calls++;
            r->graph += t->ev[i].ph == 'g';
            r->self += d;
            r->total += d;
            selfsum += d;
            if (c->parent[i] >= 0) {
                rows[slot[t->ev[c->parent[i]].name]].self -= d;
                selfsum -= d;
            }
        }
        if (a->any_device)
            device_times(c, rows, slot);
    }
    free(slot);
    if (nrows) {
        td_summary *s = a->s;
        td_table *tb = td_sum_table(s, "ops", "Top ops (CPU)");
        td_table_cols(tb, "name:text:Name", "calls:int:Calls", "self_ns:ns:Self CPU",
                      "total_ns:ns:CPU total", "avg_ns:ns:CPU avg", "self_share:share:Self CPU %",
                      "total_share:share:CPU total %", NULL);
        if (a->any_device) {
            /* named like key_averages(): "Self CUDA", "SPYRE total", "MTIA time avg" */
            const char *acc = a->accel ? a->accel : "device";
            td_table_cols(tb, td_arena_printf(s->a, "device_self_ns:ns:Self %s", acc),
                          td_arena_printf(s->a, "device_total_ns:ns:%s total", acc),
                          td_arena_printf(s->a, "device_avg_ns:ns:%s time avg", acc), NULL);
        }
        if (a->graph_ops) /* calls that are a graph replay's captured ops (analyse/graphs) */
            td_table_cols(tb, "graph:int:Graph calls", NULL);
        for (size_t k = 0; k < nrows; k++) {
            oprow *r = &rows[k];
            /* without device work the table has no device columns: their cells are not written */
            td_op_stat st = {r->calls, r->self, r->total, r->dself, r->dtotal, r->graph};
            td_row_op(s, tb, td_table_add_row(tb), td_name(a, r->name), &st, selfsum);
        }
        td_table_sort(tb, "self_ns", 1);
    }
    free(rows);
}
