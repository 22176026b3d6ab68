/* analyse_ops.c - the op table, like torch.profiler key_averages(): per op name,
 * calls, self and total CPU time, average, shares of the self-time total, and device
 * time of the kernels each op launched (self: launched directly, total: with its
 * descendants). Shares are of the sum of self times ("Self CPU time total"). */
#include "analyse_int.h"
#include <stdlib.h>
#include <string.h>

typedef struct oprow {
    td_str name;
    int64_t calls, self, total, dself, dtotal;
} oprow;

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
        int64_t *dself = NULL, *dtot = NULL;
        if (a->any_device) {
            dself = td_xcalloc(t->nev + 1, sizeof *dself);
            dtot = td_xcalloc(t->nev + 1, sizeof *dtot);
            for (size_t i = 0; i < t->nev; i++)
                if (c->owner[i] >= 0)
                    dself[c->owner[i]] += t->ev[i].dur;
            /* children come after their parents in event order: accumulate backwards */
            for (size_t i = t->nev; i-- > 0;) {
                if (!c->isop[i])
                    continue;
                dtot[i] += dself[i];
                if (c->parent[i] >= 0)
                    dtot[c->parent[i]] += dtot[i];
            }
        }
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
            r->calls++;
            r->self += c->self[i];
            r->total += t->ev[i].dur;
            selfsum += c->self[i];
            if (dself) {
                r->dself += dself[i];
                r->dtotal += dtot[i];
            }
        }
        free(dself);
        free(dtot);
    }
    free(slot);
    if (nrows) {
        td_summary *s = a->s;
        td_table *tb = td_sum_table(s, "ops", "Top ops (CPU)");
        td_table_cols(tb, "name:text:Name", "calls:int:Calls", "self_ns:ns:Self CPU",
                      "total_ns:ns:CPU total", "avg_ns:ns:CPU avg", "self_share:share:Self CPU %",
                      "total_share:share:CPU total %", NULL);
        if (a->any_device)
            td_table_cols(tb, "device_self_ns:ns:Self device", "device_total_ns:ns:Device total",
                          "device_avg_ns:ns:Device avg", NULL);
        for (size_t k = 0; k < nrows; k++) {
            oprow *r = &rows[k];
            size_t x = td_table_add_row(tb);
            td_row_str(s, tb, x, "name", td_name(a, r->name));
            td_row_int(s, tb, x, "calls", r->calls);
            td_row_int(s, tb, x, "self_ns", r->self);
            td_row_int(s, tb, x, "total_ns", r->total);
            td_row_int(s, tb, x, "avg_ns", (r->total + r->calls / 2) / r->calls);
            td_row_f64(s, tb, x, "self_share", selfsum ? (double)r->self / (double)selfsum : 0);
            td_row_f64(s, tb, x, "total_share", selfsum ? (double)r->total / (double)selfsum : 0);
            if (a->any_device) {
                td_row_int(s, tb, x, "device_self_ns", r->dself);
                td_row_int(s, tb, x, "device_total_ns", r->dtotal);
                td_row_int(s, tb, x, "device_avg_ns", (r->dtotal + r->calls / 2) / r->calls);
            }
        }
        td_table_sort(tb, "self_ns", 1);
    }
    free(rows);
}
