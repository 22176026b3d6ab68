/* analyse/xla/views.c - the nsys-jax notebook's views of the top modules' GPU time:
 *  - GPU runtime by HLO opcode (the opcode of the thunk's instruction in the dump), with
 *    the row "GPU idle during modules" = (2) - (1), shares of (2): table hlo_opcodes;
 *  - the source-code and op_name flamegraphs: each thunk's time (communication thunks
 *    without their hidden part, as (1)) attributed with equal weights to the distinct
 *    locations of its instruction and of the instructions of the computations it
 *    calls, by the notebook's preference order: source = "[GPU active]" + Python
 *    frames + op_name, else "[GPU active];[Unknown]" + op_name, else
 *    "[GPU active];[Unknown]"; op_name = "[GPU active]" + op_name split on '/', else
 *    "[GPU active];[Unknown]"; plus "[GPU idle during module execution]" = (2) - (1)
 *    and "[GPU idle between module executions]" = (3) - (2);
 *  - compute variability: per (program, instruction) over the steady-state compute
 *    thunks, mean, sample std and std/mean; the notebook's detailed view is the 10
 *    slowest with std/mean above 10%. */
#include "analyse/xla/xla.h"
#include "analyse/rows.h"
#include "partial/partial.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (program key, instruction) with its time and a thunk to find its dump entry */
typedef struct pinst { int64_t key; td_str inst; double ns; size_t th; td_str opcode; } pinst;

static td_strtab *g_strs;   /* qsort has no context argument */
/* time, program key, instruction NAME (not interned id: the merge's order is the same) */
static int cmp_pinst(const void *a, const void *b)
{
    const pinst *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return strcmp(td_strget(g_strs, x->inst), td_strget(g_strs, y->inst));
}

static int64_t loc_key(const loc *l)
{
    return (int64_t)((uint64_t)l->level << 60 | (uint64_t)(l->hidx + 1) << 48
                     | (uint64_t)(l->frame & 0xFFFFF) << 28 | (uint64_t)(l->op & 0xFFFFFFF));
}
/* distinct locations of one preference level */
static void lset_add(lset *z, loc v)
{
    int64_t k = loc_key(&v);
    for (size_t i = 0; i < z->n; i++) if (loc_key(&z->l[i]) == k) return;
    *TD_PUSH(z->l, z->n, z->cap) = v;
}
/* locations summed before they are spelled out (each distinct one once) */
typedef struct facc { xla_idmap m; loc *l; size_t n, cap; } facc;
static void facc_add(facc *a, const loc *v, double ns)
{
    int64_t k = loc_key(v);
    int64_t j = xla_idmap_get(&a->m, k);
    if (j < 0) {
        loc *n = TD_PUSH(a->l, a->n, a->cap);
        *n = *v;
        n->ns = 0;
        j = (int64_t)a->n - 1;
        xla_idmap_put(&a->m, k, (uint32_t)j);
    }
    a->l[j].ns += ns;
}
/* spread ns equally over the first non-empty level */
static void spread(facc *a, lset *lv, int nlv, double ns)
{
    for (int k = 0; k < nlv; k++) {
        if (!lv[k].n) continue;
        for (size_t i = 0; i < lv[k].n; i++) facc_add(a, &lv[k].l[i], ns / (double)lv[k].n);
        return;
    }
}
/* op_name text with ';' and newlines made harmless for folded stacks */
static void put_clean(td_buf *b, const char *p, int slash_splits)
{
    for (; *p; p++) {
        char c = *p;
        td_buf_putc(b, c == ';' ? ':' : c == '\n' ? ' ' : slash_splits && c == '/' ? ';' : c);
    }
}
void xla_loc_spell(xctx *x, const loc *l, td_buf *b)
{
    b->n = 0;
    td_buf_puts(b, "[GPU active];");
    if (l->level == 0) {
        xla_hlo_frames(&x->hlo[l->hidx], l->frame, b);
        if (l->op) td_buf_putc(b, ';');
    } else if (l->level != 3)
        td_buf_puts(b, l->level == 1 ? "[Unknown];" : "[Unknown]");
    if (l->op) put_clean(b, td_strget(x->set->strs, l->op), l->level == 3);
    td_buf_cstr(b);
}
static void facc_flush(xctx *x, facc *a, td_flame *fl)
{
    td_buf b = {0};
    for (size_t i = 0; i < a->n; i++) {
        xla_loc_spell(x, &a->l[i], &b);
        td_flame_add(x->s, fl, td_buf_cstr(&b), llround(a->l[i].ns));
    }
    td_buf_free(&b);
    xla_idmap_free(&a->m);
    free(a->l);
}

/* The locations of a thunk's time by preference level (src[0..2], opn[0..1], emptied
 * first): its instruction, then every instruction of each computation it calls. */
void xla_thunk_locs(xctx *x, const xthunk *h, lset *src, lset *opn, xla_hlist *list)
{
    for (int q = 0; q < 3; q++) src[q].n = 0;
    for (int q = 0; q < 2; q++) opn[q].n = 0;
    loc unk = { 2, -1, 0, 0, 0 };
    lset_add(&src[2], unk);
    lset_add(&opn[1], unk);
    if (h->hlo < 0) return;
    xla_hlo *hl = &x->hlo[h->hlo];
    const xla_hinst *hi = &hl->in[h->hinst];
    size_t nlist = 0;
    *TD_PUSH(list->v, nlist, list->cap) = hi;
    for (size_t c = 0; c < hi->ncalls; c++) {
        size_t first, cnt = xla_hlo_comp(hl, hl->ids[hi->calls + c], &first);
        for (size_t q = 0; q < cnt; q++)
            *TD_PUSH(list->v, nlist, list->cap) = &hl->in[hl->bycomp[first + q]];
    }
    for (size_t q = 0; q < nlist; q++) {
        const xla_hinst *in = list->v[q];
        td_str op = in->op_namel ? td_intern(x->set->strs, in->op_name, in->op_namel) : 0;
        list->b.n = 0;
        if (xla_hlo_frames(hl, in->frame, &list->b) > 0)
            lset_add(&src[0], (loc){ 0, h->hlo, in->frame, op, 0 });
        if (!op) continue;
        lset_add(&src[1], (loc){ 1, -1, 0, op, 0 });
        lset_add(&opn[0], (loc){ 3, -1, 0, op, 0 });
    }
}

void xla_views(xctx *x, int64_t thunks_ns, int64_t modules_ns, int64_t wall_ns)
{
    td_traceset *set = x->set;
    td_summary *s = x->s;
    /* per (key, instruction) over the top modules */
    pinst *pi = NULL;
    size_t npi = 0, picap = 0;
    xla_idmap m;
    xla_idmap_init(&m, 1024);
    for (size_t i = 0; i < x->nth; i++) {
        const xthunk *h = &x->th[i];
        const xmod *md = &x->m[h->mod];
        if (!md->top) continue;
        int64_t k = (int64_t)((uint64_t)md->key << 32 | h->inst);
        int64_t j = xla_idmap_get(&m, k);
        if (j < 0) {
            pinst *p = TD_PUSH(pi, npi, picap);
            p->key = md->key; p->inst = h->inst; p->ns = 0; p->th = i; p->opcode = h->opcode;
            j = (int64_t)npi - 1;
            xla_idmap_put(&m, k, (uint32_t)j);
        }
        pi[j].ns += (double)(h->e - h->s - h->hidden);
        if (!pi[j].opcode) pi[j].opcode = h->opcode;
    }
    xla_idmap_free(&m);
    g_strs = set->strs;
    if (npi) qsort(pi, npi, sizeof *pi, cmp_pinst);

    /* opcodes */
    td_table *ot = td_sum_table(s, "hlo_opcodes", "GPU runtime by HLO opcode");
    td_table_cols(ot, "opcode:text:HLO opcode", "total_ns:ns:GPU time", "share:share:Share", NULL);
    {
        td_str unk = td_intern_cstr(set->strs, "[unknown]");
        td_str *op = NULL;
        double *ns = NULL;
        size_t nop = 0, c1 = 0, c2 = 0;
        for (size_t k = 0; k < npi; k++) {
            td_str o = pi[k].opcode ? pi[k].opcode : unk;
            size_t q;
            for (q = 0; q < nop; q++) if (op[q] == o) break;
            if (q == nop) { *TD_PUSH(op, nop, c1) = o; size_t n2 = q; *TD_PUSH(ns, n2, c2) = 0; }
            ns[q] += pi[k].ns;
        }
        for (size_t q = 0; q < nop; q++) {
            td_row_opcode(s, ot, td_table_add_row(ot), td_strget(set->strs, op[q]), ns[q],
                          modules_ns);
        }
        td_row_opcode(s, ot, td_table_add_row(ot), TD_ROW_GPU_IDLE,
                      (double)(modules_ns - thunks_ns), modules_ns);
        td_table_sort(ot, "total_ns", 1);
        free(op);
        free(ns);
    }

    /* the two flamegraphs */
    td_flame *fs = td_sum_flame(s, "source", "Source code flamegraph");
    td_flame *fo = td_sum_flame(s, "opname", "op_name flamegraph");
    lset src[3] = {{0}}, opn[2] = {{0}};
    facc as, ao;
    memset(&as, 0, sizeof as);
    memset(&ao, 0, sizeof ao);
    xla_idmap_init(&as.m, 4096);
    xla_idmap_init(&ao.m, 4096);
    xla_hlist list = {0};
    for (size_t k = 0; k < npi; k++) {
        xla_thunk_locs(x, &x->th[pi[k].th], src, opn, &list);
        spread(&as, src, 3, pi[k].ns);
        spread(&ao, opn, 2, pi[k].ns);
    }
    free(list.v);
    td_buf_free(&list.b);
    int64_t idle_in = modules_ns - thunks_ns > 0 ? modules_ns - thunks_ns : 0;
    int64_t idle_bw = wall_ns - modules_ns > 0 ? wall_ns - modules_ns : 0;
    facc_flush(x, &as, fs);
    facc_flush(x, &ao, fo);
    td_flame *both[2] = { fs, fo };
    for (int q = 0; q < 2; q++) {
        td_flame_add(s, both[q], "[GPU idle during module execution]", idle_in);
        td_flame_add(s, both[q], "[GPU idle between module executions]", idle_bw);
        td_flame_finish(both[q]);
    }
    for (int q = 0; q < 3; q++) free(src[q].l);
    for (int q = 0; q < 2; q++) free(opn[q].l);
    free(pi);
}

/* ---- compute variability ---- */

typedef struct vd { int64_t key; td_str inst; int64_t dur; } vd;
static int cmp_vd(const void *a, const void *b)
{
    const vd *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
    return x->dur < y->dur ? -1 : x->dur > y->dur;
}
static int cmp_vrow_mean(const void *a, const void *b)
{
    const xla_vrow *x = a, *y = b;
    if (x->mean != y->mean) return x->mean > y->mean ? -1 : 1;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : strcmp(x->inst, y->inst);
}
static int cmp_vrow_show(const void *a, const void *b)
{
    const xla_vrow *x = a, *y = b;
    if (x->det != y->det) return x->det ? -1 : 1;
    if (x->det) return cmp_vrow_mean(a, b);
    if (x->cov != y->cov) return x->cov > y->cov ? -1 : 1;
    return cmp_vrow_mean(a, b);
}

#define VAR_THRESHOLD 0.10   /* the notebook's std/mean threshold for the detailed view */
#define VAR_DETAILED 10      /* ... and how many of the slowest it shows */

void xla_variability(xctx *x)
{
    td_summary *s = x->s;
    td_traceset *set = x->set;
    size_t n = 0;
    for (size_t i = 0; i < x->nth; i++) n += !x->th[i].comm && x->m[x->th[i].mod].steady;
    if (!n && !x->part) return;
    vd *v = td_xmalloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < x->nth; i++) {
        const xthunk *h = &x->th[i];
        if (h->comm || !x->m[h->mod].steady) continue;
        v[k++] = (vd){ x->m[h->mod].key, h->inst, h->e - h->s };
    }
    qsort(v, n, sizeof *v, cmp_vd);
    xla_vrow *rw = NULL;
    size_t nr = 0, rcap = 0;
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && v[b].key == v[a].key && v[b].inst == v[a].inst) b++;
        size_t c = b - a;
        if (c >= 2) {
            /* mean and sample std from exact integer sums (partial/partial.h), as a merge of
             * partial summaries computes them: the same bits either way */
            int64_t isum = 0, sq[2] = { 0, 0 };
            for (size_t q = a; q < b; q++) { isum += v[q].dur; td_part_sq(sq, v[q].dur); }
            double mean, sd;
            td_part_mean_std((int64_t)c, isum, sq, &mean, &sd);
            xla_vrow *r = TD_PUSH(rw, nr, rcap);
            r->key = v[a].key; r->inst = td_strget(set->strs, v[a].inst); r->n = (int64_t)c;
            r->mean = mean; r->sd = sd; r->cov = mean > 0 ? sd / mean : 0; r->det = 0;
            r->mod = NULL;
            for (size_t i = 0; i < x->nm; i++)
                if (x->m[i].key == r->key) { r->mod = td_strget(set->strs, x->m[i].name); break; }
        }
        a = b;
    }
    free(v);
    if (nr || x->part) xla_variability_table(s, rw, nr);   /* summarize: the schema travels */
    free(rw);
}

/* Detailed rows (the 10 slowest with std/mean above 10%) first, then by std/mean. */
void xla_variability_table(td_summary *s, xla_vrow *rw, size_t nr)
{
    if (nr) qsort(rw, nr, sizeof *rw, cmp_vrow_mean);
    int det = 0;
    for (size_t i = 0; i < nr && det < VAR_DETAILED; i++)
        if (rw[i].cov > VAR_THRESHOLD) { rw[i].det = 1; det++; }
    if (nr) qsort(rw, nr, sizeof *rw, cmp_vrow_show);
    td_table *t = td_sum_table(s, "variability", "Compute thunk variability");
    td_table_cols(t, "name:text:Thunk", "calls:int:Calls", "mean_ns:ns:Mean", "std_ns:ns:Std dev",
                  "cov:f64:CoV", "module:text:Module", "program_id:int:Program",
                  "detailed:bool:Slowest with CoV > 10%", NULL);
    for (size_t i = 0; i < nr; i++) {
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "name", rw[i].inst);
        td_row_int(s, t, r, "calls", rw[i].n);
        td_row_int(s, t, r, "mean_ns", llround(rw[i].mean));
        td_row_int(s, t, r, "std_ns", llround(rw[i].sd));
        td_row_f64(s, t, r, "cov", rw[i].cov);
        if (rw[i].mod) td_row_str(s, t, r, "module", rw[i].mod);
        td_row_int(s, t, r, "program_id", rw[i].key);
        td_row_int(s, t, r, "detailed", rw[i].det);
    }
}
