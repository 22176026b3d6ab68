/* read/xplane_xla.c - the XLA records of an XPlane (read/xplane.h): the module executions
 * and thunks that analyse/xla/xla.c reads, as NVTX-style ranges named the way nsys-jax's
 * XLA annotations are ("XlaModule:#hlo_module=M,program_id=P#" around
 * "Thunk:#hlo_op=H,hlo_module=M,program_id=P#"), with the device times as their
 * projected GPU times (an XPlane has the device times themselves).
 *
 * A thunk is one kernel (a thunk that launches several kernels gives several thunks of
 * the same HLO op: the thunk table's calls count kernels, its times are kernel times,
 * idle gaps inside a thunk are not counted). A module execution is, when the device
 * plane has an "XLA Modules" line (TPU; XProf's derived lines), the span that holds the
 * kernel's start; else the kernels of one program in a row on the device, a new
 * execution starting where the program changes or where the execution's first HLO op
 * comes again after another op. */
#include "read/xplane.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_k(const void *a, const void *b)
{
    const td_xk *p = a, *q = b;
    if (p->device != q->device) return p->device < q->device ? -1 : 1;
    if (p->ts != q->ts) return p->ts < q->ts ? -1 : 1;
    return (p->dur > q->dur) - (p->dur < q->dur);
}

static int cmp_ms(const void *a, const void *b)
{
    const td_xmodspan *p = a, *q = b;
    if (p->device != q->device) return p->device < q->device ? -1 : 1;
    return (p->ts > q->ts) - (p->ts < q->ts);
}

typedef struct rb {
    td_traceset *set;
    td_trace *t;
    td_buf b;
    int64_t next_id;
} rb;

static td_range *add_range(rb *x, const char *kind, td_str op, td_str mod, int64_t prog,
                           int32_t dev, int64_t s, int64_t e, int64_t parent, int level)
{
    td_strtab *st = x->set->strs;
    x->b.n = 0;
    td_buf_puts(&x->b, kind);
    td_buf_puts(&x->b, ":#");
    if (op) {
        td_buf_puts(&x->b, "hlo_op=");
        td_buf_puts(&x->b, td_strget(st, op));
        td_buf_putc(&x->b, ',');
    }
    td_buf_puts(&x->b, "hlo_module=");
    td_buf_puts(&x->b, td_strget(st, mod));
    char pb[40];
    snprintf(pb, sizeof pb, ",program_id=%lld#", (long long)prog);
    td_buf_puts(&x->b, pb);
    td_range *r = TD_PUSH(x->t->ranges, x->t->nranges, x->t->ranges_cap);
    memset(r, 0, sizeof *r);
    r->start = r->gpu_start = s;
    r->end = r->gpu_end = e;
    r->name = td_intern(st, x->b.p, x->b.n);
    /* the "launcher" of the device: a track of its own with the device's number */
    r->track = td_trace_track(x->t, dev, -1);
    x->t->tracks[r->track].device = dev;
    r->device = dev;
    r->level = level;
    r->range_id = ++x->next_id;
    r->parent_id = parent;
    r->num_gpu_ops = level ? 1 : 0;
    r->num_child = 0;
    return r;
}

void td_xplane_ranges(td_traceset *set, td_trace *t, td_xk *k, size_t n, td_xmodspan *ms,
                      size_t nms, size_t *skipped)
{
    *skipped = 0;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (!k[i].module) { (*skipped)++; continue; }
        k[w++] = k[i];
    }
    n = w;
    if (!n) return;
    qsort(k, n, sizeof *k, cmp_k);
    if (nms) qsort(ms, nms, sizeof *ms, cmp_ms);
    rb x = { set, t, {0}, 0 };
    size_t mi = 0;
    for (size_t i = 0; i < n;) {
        int32_t dev = k[i].device;
        size_t j = i;
        while (j < n && k[j].device == dev) j++;
        /* spans of this device, if any */
        while (mi < nms && ms[mi].device < dev) mi++;
        size_t m0 = mi;
        while (mi < nms && ms[mi].device == dev) mi++;
        size_t m1 = mi;
        size_t a = i;
        while (a < j) {
            size_t b = a + 1;
            const td_xmodspan *sp = NULL;
            if (m1 > m0) {   /* the span holding the kernel's start */
                for (size_t q = m0; q < m1 && ms[q].ts <= k[a].ts; q++)
                    if (k[a].ts < ms[q].ts + ms[q].dur) sp = &ms[q];
            }
            if (sp) {
                while (b < j && k[b].ts < sp->ts + sp->dur && k[b].module == k[a].module) b++;
            } else {
                td_str first = k[a].hlo_op;
                while (b < j && k[b].program == k[a].program && k[b].module == k[a].module &&
                       !(k[b].hlo_op == first && k[b - 1].hlo_op != first))
                    b++;
            }
            int64_t s = k[a].ts, e = k[a].ts + k[a].dur;
            for (size_t q = a; q < b; q++)
                if (k[q].ts + k[q].dur > e) e = k[q].ts + k[q].dur;
            if (sp) { s = sp->ts < s ? sp->ts : s; e = sp->ts + sp->dur > e ? sp->ts + sp->dur : e; }
            int64_t prog = k[a].program >= 0 ? k[a].program : sp ? sp->program : -1;
            td_range *mr = add_range(&x, "XlaModule", 0, k[a].module, prog, dev, s, e, -1, 0);
            mr->num_gpu_ops = (int32_t)(b - a);
            int64_t mid = mr->range_id;
            for (size_t q = a; q < b; q++) {
                td_str op = k[q].hlo_op ? k[q].hlo_op : td_intern_cstr(set->strs, "(no hlo_op)");
                add_range(&x, "Thunk", op, k[q].module, prog, dev, k[q].ts, k[q].ts + k[q].dur,
                          mid, 1);
            }
            t->ranges[t->nranges - (b - a) - 1].num_child = (int32_t)(b - a);
            a = b;
        }
        i = j;
    }
    td_buf_free(&x.b);
    if (t->nranges) td_trace_device(t, t->ranges[0].device);
}
