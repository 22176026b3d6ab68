/* analyse/xla/part.c - what one input set's XLA analysis adds to a partial summary
 * (xla_part_record, called by analyse/xla/xla.c when `summarize` records a partial): the
 * records merge/xla.c computes the XLA tables from after merging (see there for why each
 * is kept). It writes only the partial's record format (partial/partial.h), so the
 * analysis does not run through the merge code. */
#include "analyse/xla/xla.h"
#include "partial/internal.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_loc_recs(xctx *x, td_partial *p, const char *key, const char *inst,
                         const char *which, int rank, const lset *lv, int nlv, td_buf *sb)
{
    int k = 0;
    while (k < nlv - 1 && !lv[k].n)
        k++;
    char prec[24], idt[96];
    snprintf(prec, sizeof prec, "%d", rank);
    int64_t n = (int64_t)lv[k].n;
    td_buf kb = {0};
    for (size_t i = 0; i < lv[k].n; i++) {
        const loc *l = &lv[k].l[i];
        const char *op = l->op ? td_strget(x->set->strs, l->op) : "";
        uint64_t h = td_hash64(op, strlen(op));
        if (l->level == 0)
            snprintf(idt, sizeof idt, "%d:%" PRId64 ":%d:%016" PRIx64, rank,
                     x->hlo[l->hidx].d->program, (int)l->frame, h);
        else if (l->level == 2)
            idt[0] = 0;
        else
            snprintf(idt, sizeof idt, "%016" PRIx64, h);
        xla_loc_spell(x, l, sb);
        char hs[24];
        snprintf(hs, sizeof hs, "%016" PRIx64, td_hash64(sb->p, sb->n));
        td_part_key(&kb, 6, key, inst, which, prec, idt, hs);
        td_part_add(p, TD_R_XLOC, kb.p, kb.n, &n);
        td_part_key(&kb, 2, hs, td_buf_cstr(sb));   /* each distinct stack once */
        int64_t one = 1;
        td_part_add(p, TD_R_XSTK, kb.p, kb.n, &one);
    }
    td_buf_free(&kb);
}

static void put_attr(td_partial *p, const char *key, const char *inst, const char *what,
                     const char *value, size_t vlen, int64_t rank)
{
    td_buf kb = {0}, vb = {0};
    td_buf_put(&vb, value, vlen);
    td_part_key(&kb, 4, key, inst, what, td_buf_cstr(&vb));
    td_part_add(p, TD_R_XATTR, kb.p, kb.n, &rank);
    td_buf_free(&kb);
    td_buf_free(&vb);
}

typedef struct bev { int64_t t; int32_t dev; int32_t k; int d; } bev;
static int cmp_bev(const void *a, const void *b)
{
    const bev *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return (x->t > y->t) - (x->t < y->t);
}
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Per device, the time covered by the steady thunks, split by the set of program keys
 * covering it: the busy union of any set of top programs is the sum over the sets that
 * meet it. */
static void put_busy(xctx *x, td_partial *p)
{
    int64_t *keys = td_xmalloc((x->nm + 1) * sizeof *keys);
    size_t nk = 0;
    for (size_t i = 0; i < x->nm; i++)
        if (x->m[i].steady) keys[nk++] = x->m[i].key;
    qsort(keys, nk, sizeof *keys, cmp_i64);
    size_t u = 0;
    for (size_t i = 0; i < nk; i++)
        if (!u || keys[u - 1] != keys[i]) keys[u++] = keys[i];
    nk = u;
    bev *ev = td_xmalloc((2 * x->nth + 1) * sizeof *ev);
    size_t ne = 0;
    for (size_t i = 0; i < x->nth; i++) {
        const xthunk *h = &x->th[i];
        const xmod *m = &x->m[h->mod];
        if (!m->steady || h->e <= h->s) continue;
        int32_t k = (int32_t)((const int64_t *)bsearch(&m->key, keys, nk, sizeof *keys, cmp_i64) - keys);
        ev[ne++] = (bev){ h->s, m->device, k, 1 };
        ev[ne++] = (bev){ h->e, m->device, k, -1 };
    }
    qsort(ev, ne, sizeof *ev, cmp_bev);
    int64_t *cnt = td_xcalloc(nk + 1, sizeof *cnt);
    td_buf set = {0}, kb = {0};
    char dv[24];
    for (size_t a = 0; a < ne; a++) {
        if (a && ev[a].dev == ev[a - 1].dev && ev[a].t > ev[a - 1].t) {
            set.n = 0;
            for (size_t k = 0; k < nk; k++)
                if (cnt[k] > 0) td_buf_printf(&set, "%s%" PRId64, set.n ? "," : "", keys[k]);
            if (set.n) {
                int64_t len = ev[a].t - ev[a - 1].t;
                snprintf(dv, sizeof dv, "%d", (int)ev[a].dev);
                td_part_key(&kb, 2, dv, td_buf_cstr(&set));
                td_part_add(p, TD_R_XBUSY, kb.p, kb.n, &len);
            }
        }
        if (a && ev[a].dev != ev[a - 1].dev)
            memset(cnt, 0, nk * sizeof *cnt);
        cnt[ev[a].k] += ev[a].d;
    }
    td_buf_free(&set);
    td_buf_free(&kb);
    free(cnt);
    free(ev);
    free(keys);
}

void xla_part_record(xctx *x, int any_comm)
{
    td_partial *p = x->part;
    td_strtab *st = x->set->strs;
    td_buf kb = {0}, sb = {0};
    char key[24], dv[24];
    int64_t one = 1;
    if (any_comm)
        td_part_add(p, TD_R_XFLAG, "comm", 4, &one);
    for (size_t i = 0; i < x->set->n; i++)
        if (x->set->tr[i]->nranges) {
            snprintf(key, sizeof key, "trace:%d", x->set->tr[i]->rank);
            td_part_add(p, TD_R_XFLAG, key, strlen(key), &one);
        }
    for (size_t i = 0; i < x->nm; i++) {
        const xmod *m = &x->m[i];
        if (!m->steady) continue;
        int64_t v[2] = { m->s, m->e };
        snprintf(key, sizeof key, "%" PRId64, m->key);
        snprintf(dv, sizeof dv, "%d", (int)m->device);
        td_part_key(&kb, 2, dv, key);
        td_part_add(p, TD_R_XWALL, kb.p, kb.n, v);
    }
    put_busy(x, p);
    /* thunks per (program, instruction); the first one's attributes and locations */
    xla_idmap first, opc;
    xla_idmap_init(&first, 1024);
    xla_idmap_init(&opc, 1024);
    lset src[3] = {{0}}, opn[2] = {{0}};
    xla_hlist list = {0};
    for (size_t i = 0; i < x->nth; i++) {
        const xthunk *h = &x->th[i];
        const xmod *m = &x->m[h->mod];
        if (!m->steady) continue;
        int rank = x->set->tr[m->tr]->rank;
        const char *inst = td_strget(st, h->inst);
        int64_t d = h->e - h->s, v[TD_R_NV] = { 1, d, d - h->hidden, 0, 0 };
        td_part_sq(v + 3, d);
        snprintf(key, sizeof key, "%" PRId64, m->key);
        td_part_key(&kb, 3, key, inst, td_strget(st, h->kind));
        td_part_add(p, TD_R_XTHUNK, kb.p, kb.n, v);
        int64_t ik = (int64_t)((uint64_t)m->key << 32 | h->inst);
        if (h->opcode && xla_idmap_get(&opc, ik) < 0) {
            xla_idmap_put(&opc, ik, 1);
            const char *oc = td_strget(st, h->opcode);
            put_attr(p, key, inst, "opcode", oc, strlen(oc), rank);
        }
        if (xla_idmap_get(&first, ik) >= 0) continue;
        xla_idmap_put(&first, ik, 1);
        const xla_hinst *hi = h->hlo >= 0 ? &x->hlo[h->hlo].in[h->hinst] : NULL;
        if (hi && hi->op_namel)
            put_attr(p, key, inst, "op_name", hi->op_name, hi->op_namel, rank);
        else
            put_attr(p, key, inst, "no_op_name", "", 0, rank);
        xla_thunk_locs(x, h, src, opn, &list);
        put_loc_recs(x, p, key, inst, "s", rank, src, 3, &sb);
        put_loc_recs(x, p, key, inst, "o", rank, opn, 2, &sb);
    }
    xla_idmap_free(&first);
    xla_idmap_free(&opc);
    for (int q = 0; q < 3; q++) free(src[q].l);
    for (int q = 0; q < 2; q++) free(opn[q].l);
    free(list.v);
    td_buf_free(&list.b);
    /* every steady communication thunk */
    size_t nc;
    xla_ci *c = xla_comm_thunks(x, &nc);
    for (size_t i = 0; i < nc; i++) {
        char ex[24], te[24];
        snprintf(key, sizeof key, "%" PRId64, c[i].key);
        snprintf(ex, sizeof ex, "%" PRId64, c[i].exec);
        snprintf(te, sizeof te, "%" PRId64, c[i].thexec);
        snprintf(dv, sizeof dv, "%d", (int)c[i].device);
        td_part_key(&kb, 7, key, ex, c[i].inst, te, dv, c[i].type, c[i].dtype ? c[i].dtype : "");
        int64_t v[TD_R_NV] = { c[i].s, c[i].e, c[i].hidden, c[i].bytes, c[i].group };
        td_part_add(p, TD_R_XCI, kb.p, kb.n, v);
    }
    free(c);
    td_buf_free(&kb);
    td_buf_free(&sb);
}
