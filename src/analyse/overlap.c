/* analyse/overlap.c - communication hidden behind computation per rank, as HTA's
 * get_comm_comp_overlap (communication_analysis.py:29-85; doc/summary-json.md
 * "comm_overlap"): the time where the merged communication kernels (NCCL/RCCL) overlap
 * the merged computation kernels (every other kernel; memcpy and memset are neither),
 * over the merged communication time. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

static int is_mem_name(const char *nm)
{
    return nm && (!strncmp(nm, "Memcpy", 6) || !strncmp(nm, "Memset", 6));
}

static void overlap_trace(td_actx *a, const td_tctx *c, td_table **tbp)
{
    const td_trace *t = c->t;
    td_iv *comm = td_xmalloc((c->ndev + 1) * sizeof *comm);
    td_iv *comp = td_xmalloc((c->ndev + 1) * sizeof *comp);
    size_t nm = 0, np = 0;
    for (size_t k = 0; k < c->ndev; k++) { /* the device events (td_dev_order) */
        const td_event *ev = &t->ev[c->devix[k]];
        if (ev->kind != TD_K_KERNEL && ev->kind != TD_K_DEVICE_OTHER)
            continue;
        td_iv iv = {ev->ts, ev->ts + ev->dur};
        if (td_is_comm_id(a, ev->name))
            comm[nm++] = iv;
        else if (!is_mem_name(td_name(a, ev->name)))
            comp[np++] = iv;
    }
    nm = td_iv_merge(comm, nm);
    np = td_iv_merge(comp, np);
    int64_t cl = td_iv_len(comm, nm);
    if (cl > 0) {
        if (!*tbp) {
            *tbp = td_sum_table(a->s, "comm_overlap", "Communication hidden behind computation");
            td_table_cols(*tbp, "rank:int:Rank", "comm_ns:ns:Communication",
                          "overlap_ns:ns:Overlapped with computation", "share:share:Hidden share",
                          NULL);
        }
        int64_t ov = td_iv_overlap(comm, nm, comp, np);
        size_t r = td_table_add_row(*tbp);
        td_row_int(a->s, *tbp, r, "rank", t->rank);
        td_row_int(a->s, *tbp, r, "comm_ns", cl);
        td_row_int(a->s, *tbp, r, "overlap_ns", ov);
        td_row_f64(a->s, *tbp, r, "share", (double)ov / (double)cl);
    }
    free(comm);
    free(comp);
}

void td_an_overlap(td_actx *a)
{
    td_table *tb = NULL;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].ndev)
            overlap_trace(a, &a->tc[i], &tb);
}
