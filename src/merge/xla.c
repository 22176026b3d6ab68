/* merge/xla.c - the XLA tables computed from a merged partial of XLA inputs (nsys-jax
 * archives, nsys exports of JAX programs): td_xm_*, called by td_partial_finish, by the
 * definitions of the passes in analyse/xla/. What one input set's analysis records into a partial:
 * xla_part_record (analyse/xla/part.c).
 *
 * The top-module cut is known only after merging, so a part keeps every steady module's
 * state per program key: thunks per (program, instruction) with their time less the
 * hidden part and the sums of squares (thunks, hlo_ops, hlo_opcodes, runtime totals,
 * variability), the first thunk's op_name, opcode and flamegraph locations (spelled
 * stacks, with the rank that decides which part's dump wins: the lowest, as report's
 * first thunk), per (device, program) the first module start and last module end
 * (wall time), per device the time covered by each set of programs' thunks (the busy
 * union of any top-module set), and every steady communication thunk (the collective
 * views need every device's times to align the processes' clocks; xla_coll_tables is
 * shared with report). Devices must belong to one part each (nsys-jax: one process
 * per device set); a device seen in several parts is warned about. */
#include "analyse/xla/xla.h"
#include "analyse/rows.h"
#include "merge/internal.h"
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the XLA tables of a merged partial ---------------------------------------------- */

/* Byte order of record keys (fields joined by 0x1f sort field by field). */
static int cmp_reckey(const void *a, const void *b)
{
    const td_rec *x = *(td_rec *const *)a, *y = *(td_rec *const *)b;
    return strcmp(x->key, y->key);
}

/* Length of the first nf fields of a key, with the separator after them. */
static size_t prefix_len(const char *k, int nf)
{
    const char *p = k;
    for (int i = 0; i < nf && p; i++) {
        p = strchr(p, '\x1f');
        if (p) p++;
    }
    return p ? (size_t)(p - k) : strlen(k);
}

int td_xm_kept(const td_xkept *k, int64_t key)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->keys[i] == key) return (int)i;
    return -1;
}

/* One (program, instruction) of the merged state, with what its records say. */
typedef struct xi {
    const td_rec *th;             /* XTHUNK */
    int64_t key;
    const char *inst, *kind, *opcode, *op_name;
    const td_rec *const *loc[2];  /* XLOC of the winning part: source, opname */
    size_t nloc[2];
    double ns;                    /* time less hidden */
} xi;

struct td_xstate {
    xi *v;
    size_t n;
    td_rec **th, **at, **lc, **stk;
    size_t nstk;
};

/* The records grouped per (program, instruction): merge-join of the key-sorted lists. */
td_xstate *td_xm_state(td_summary *s, const td_partial *p)
{
    td_xstate *X = td_xcalloc(1, sizeof *X);
    size_t nt, na, nl;
    X->th = td_part_recs(p, TD_R_XTHUNK, &nt);
    X->at = td_part_recs(p, TD_R_XATTR, &na);
    X->lc = td_part_recs(p, TD_R_XLOC, &nl);
    qsort(X->th, nt, sizeof *X->th, cmp_reckey);
    qsort(X->at, na, sizeof *X->at, cmp_reckey);
    qsort(X->lc, nl, sizeof *X->lc, cmp_reckey);
    X->stk = td_part_recs(p, TD_R_XSTK, &X->nstk);
    qsort(X->stk, X->nstk, sizeof *X->stk, cmp_reckey);
    X->v = td_xcalloc(nt + 1, sizeof *X->v);
    X->n = nt;
    size_t a = 0, l = 0;
    for (size_t i = 0; i < nt; i++) {
        xi *q = &X->v[i];
        const td_rec *r = X->th[i];
        q->th = r;
        q->key = td_part_kint(r, 0);
        q->inst = td_part_kstr(s, r, 1);
        q->kind = td_part_kstr(s, r, 2);
        q->ns = (double)r->v[2];
        size_t pl = prefix_len(r->key, 2);
        /* attributes: the lowest precedence (rank) wins */
        while (a < na && strncmp(X->at[a]->key, r->key, pl) < 0) a++;
        int64_t best_oc = INT64_MAX, best_on = INT64_MAX;
        for (; a < na && !strncmp(X->at[a]->key, r->key, pl); a++) {
            const td_rec *t = X->at[a];
            const char *what = td_part_kstr(s, t, 2);
            if (!strcmp(what, "opcode") && t->v[0] < best_oc) {
                best_oc = t->v[0];
                q->opcode = td_part_kstr(s, t, 3);
            } else if (strcmp(what, "opcode") && t->v[0] < best_on) {
                best_on = t->v[0];
                q->op_name = strcmp(what, "op_name") ? NULL : td_part_kstr(s, t, 3);
            }
        }
        /* locations: per kind (s, o) the group of the lowest precedence */
        while (l < nl && strncmp(X->lc[l]->key, r->key, pl) < 0) l++;
        size_t e = l;
        while (e < nl && !strncmp(X->lc[e]->key, r->key, pl)) e++;
        for (int w = 0; w < 2; w++) {
            int64_t best = INT64_MAX;
            for (size_t j = l; j < e; j++) {
                const char *which = td_part_kstr(s, X->lc[j], 2);
                int64_t pr = td_part_kint(X->lc[j], 3);
                if (which[0] == "so"[w] && pr < best) best = pr;
            }
            for (size_t j = l; j < e; j++) {
                const char *which = td_part_kstr(s, X->lc[j], 2);
                if (which[0] != "so"[w] || td_part_kint(X->lc[j], 3) != best) continue;
                if (!q->nloc[w]) q->loc[w] = (const td_rec *const *)&X->lc[j];
                q->nloc[w]++;
            }
        }
        l = e;
    }
    return X;
}

void td_xm_state_free(td_xstate *X)
{
    if (!X) return;
    free(X->v);
    free(X->th);
    free(X->at);
    free(X->lc);
    free(X->stk);
    free(X);
}

static int key_set_meets(const char *set, const td_xkept *k)
{
    for (const char *p = set; *p;) {
        char *end;
        int64_t v = strtoll(p, &end, 10);
        if (end == p) break;
        if (td_xm_kept(k, v) >= 0) return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

void td_xm_runtime(td_summary *s, const td_partial *p, const td_xstate *X, const td_xkept *k,
                   int64_t rt[4])
{
    int64_t thunks = 0, modules = 0, wall = 0, busy = 0;
    for (size_t i = 0; i < X->n; i++)
        if (td_xm_kept(k, X->v[i].key) >= 0) thunks += X->v[i].th->v[2];
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_XMOD, &n);
    for (size_t i = 0; i < n; i++)
        if (td_xm_kept(k, td_part_kint(v[i], 0)) >= 0) modules += v[i]->v[1];
    free(v);
    /* per device: first start and last end over the top programs */
    v = td_part_recs(p, TD_R_XWALL, &n);
    qsort(v, n, sizeof *v, cmp_reckey);
    for (size_t i = 0; i < n;) {
        size_t pl = prefix_len(v[i]->key, 1), j = i;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (; j < n && !strncmp(v[j]->key, v[i]->key, pl); j++) {
            if (td_xm_kept(k, td_part_kint(v[j], 1)) < 0) continue;
            if (v[j]->v[0] < first) first = v[j]->v[0];
            if (v[j]->v[1] > last) last = v[j]->v[1];
        }
        if (first != INT64_MAX) wall += last - first;
        i = j;
    }
    free(v);
    v = td_part_recs(p, TD_R_XBUSY, &n);
    for (size_t i = 0; i < n; i++)
        if (key_set_meets(td_part_kstr(s, v[i], 1), k)) busy += v[i]->v[0];
    free(v);
    rt[0] = thunks, rt[1] = modules, rt[2] = wall, rt[3] = busy;
}

void td_xm_runtime_kv(td_summary *s, const char *key, const char *title, const int64_t rt[4])
{
    int64_t idle_in = rt[1] - rt[3] > 0 ? rt[1] - rt[3] : 0, v;
    if (!strcmp(key, "runtime.thunks_ns")) v = rt[0];
    else if (!strcmp(key, "runtime.modules_ns")) v = rt[1];
    else if (!strcmp(key, "runtime.wall_ns")) v = rt[2];
    else if (!strcmp(key, "runtime.idle_in_modules_ns")) v = idle_in;
    else if (!strcmp(key, "runtime.idle_between_modules_ns")) v = rt[2] - rt[1] > 0 ? rt[2] - rt[1] : 0;
    else if (!strcmp(key, "runtime.busy_in_modules_ns")) v = rt[1] - idle_in;
    else return;
    td_sum_set_int(s, key, title, TD_T_NS, v);
}

/* (program key, instruction name): the order of report's thunk rows before sorting */
static int cmp_xi_key(const void *a, const void *b)
{
    const xi *x = *(xi *const *)a, *y = *(xi *const *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return strcmp(x->inst, y->inst);
}

static xi **kept_xi(const td_xstate *X, const td_xkept *k, size_t *n)
{
    xi **v = td_xmalloc((X->n + 1) * sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < X->n; i++)
        if (td_xm_kept(k, X->v[i].key) >= 0) v[m++] = &X->v[i];
    *n = m;
    return v;
}

static void put_clean(td_buf *b, const char *p)
{
    for (; *p; p++) td_buf_putc(b, *p == ';' ? ':' : *p == '\n' ? ' ' : *p);
}

void td_xm_thunks(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k)
{
    size_t n;
    xi **v = kept_xi(X, k, &n);
    qsort(v, n, sizeof *v, cmp_xi_key);
    td_table *d = td_part_like(s, t);
    int64_t *mt = td_xcalloc(k->n + 1, sizeof *mt);
    for (size_t i = 0; i < n; i++) mt[td_xm_kept(k, v[i]->key)] += v[i]->th->v[1];
    td_flame *fl = td_sum_find_flame(s, "device");
    td_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        const int64_t *x = v[i]->th->v;
        int km = td_xm_kept(k, v[i]->key);
        td_thunk_stat st = {k->names[km], v[i]->inst, v[i]->kind, v[i]->op_name, x[0], x[1], 1};
        td_row_thunk(s, d, td_table_add_row(d), &st, mt[km]);
        if (fl) {
            b.n = 0;
            for (const char *c = k->names[km]; *c; c++) td_buf_putc(&b, *c == ';' ? ':' : *c);
            td_buf_putc(&b, ';');
            put_clean(&b, v[i]->inst);
            td_flame_add(s, fl, td_buf_cstr(&b), x[1]);
        }
    }
    td_buf_free(&b);
    if (fl) td_flame_finish(fl);
    td_table_sort(d, "total_ns", 1);
    free(mt);
    free(v);
}

void td_xm_hlo_ops(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k)
{
    size_t n;
    xi **v = kept_xi(X, k, &n);
    td_table *d = td_part_like(s, t);
    int64_t tot = 0;
    for (size_t i = 0; i < n; i++) tot += v[i]->th->v[1];
    td_strtab *names = td_strtab_new();
    int64_t *calls = NULL, *total = NULL;
    size_t cap = 0, c2 = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t id = td_intern_cstr(names, v[i]->kind);
        while (m <= id) {
            size_t m2 = m;
            *TD_PUSH(calls, m, cap) = 0;
            *TD_PUSH(total, m2, c2) = 0;
        }
        calls[id] += v[i]->th->v[0];
        total[id] += v[i]->th->v[1];
    }
    for (size_t id = 0; id < m; id++) {
        if (!calls[id]) continue;
        td_row_hlo_op(s, d, td_table_add_row(d), td_strget(names, (td_str)id), calls[id], total[id],
                      tot);
    }
    td_table_sort(d, "total_ns", 1);
    td_strtab_free(names);
    free(calls);
    free(total);
    free(v);
}

/* report's pinst order: time less hidden, program key, instruction name */
static int cmp_xi_ns(const void *a, const void *b)
{
    const xi *x = *(xi *const *)a, *y = *(xi *const *)b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return cmp_xi_key(a, b);
}

/* The stack of an XLOC record (its last key field is the stack's hash). */
static int cmp_hash(const void *k, const void *e)
{
    const td_rec *r = *(td_rec *const *)e;
    return strncmp(k, r->key, 16);
}
static const char *loc_stack(const td_xstate *X, const td_rec *r)
{
    const char *h = r->key + prefix_len(r->key, 5);
    td_rec *const *f = X->nstk && strlen(h) == 16
                           ? bsearch(h, X->stk, X->nstk, sizeof *X->stk, cmp_hash) : NULL;
    return f ? (*f)->key + 17 : NULL;
}

/* Flame w (0 source, 1 opname): each top instruction's time spread equally over its
 * locations, summed per location, rounded, then the idle rows (analyse/xla/views.c). */
static void loc_flame(td_summary *s, td_flame *fl, const td_xstate *X, xi **v, size_t n, int w,
                      int64_t idle_in, int64_t idle_bw)
{
    td_strtab *ids = td_strtab_new();
    double *acc = NULL;
    const char **stack = NULL;
    size_t m = 0, cap = 0, c2 = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < v[i]->nloc[w]; j++) {
            const td_rec *r = v[i]->loc[w][j];
            size_t pl = prefix_len(r->key, 4);
            size_t id = td_intern_cstr(ids, r->key + pl); /* identity, stack */
            while (m <= id) {
                size_t m2 = m;
                *TD_PUSH(acc, m, cap) = 0;
                *TD_PUSH(stack, m2, c2) = NULL;
            }
            stack[id] = loc_stack(X, r);
            acc[id] += v[i]->ns / (double)v[i]->nloc[w];
        }
    }
    for (size_t id = 0; id < m; id++)
        if (stack[id]) td_flame_add(s, fl, stack[id], llround(acc[id]));
    td_flame_add(s, fl, "[GPU idle during module execution]", idle_in);
    td_flame_add(s, fl, "[GPU idle between module executions]", idle_bw);
    td_flame_finish(fl);
    td_strtab_free(ids);
    free(acc);
    free(stack);
}

void td_xm_opcodes(td_summary *s, const td_table *t, const td_xstate *X, const td_xkept *k,
                   const int64_t rt[4])
{
    size_t n;
    xi **v = kept_xi(X, k, &n);
    qsort(v, n, sizeof *v, cmp_xi_ns);
    td_table *d = td_part_like(s, t);
    int64_t thunks = rt[0], modules = rt[1], wall = rt[2];
    td_strtab *names = td_strtab_new();
    double *ns = NULL;
    size_t m = 0, cap = 0;
    td_str *order = NULL;
    size_t no = 0, ocap = 0;
    for (size_t i = 0; i < n; i++) {
        size_t id = td_intern_cstr(names, v[i]->opcode ? v[i]->opcode : "[unknown]");
        if (id >= m) *TD_PUSH(order, no, ocap) = (td_str)id;
        while (m <= id) *TD_PUSH(ns, m, cap) = 0;
        ns[id] += v[i]->ns;
    }
    for (size_t q = 0; q < no; q++) {
        td_row_opcode(s, d, td_table_add_row(d), td_strget(names, order[q]), ns[order[q]],
                      modules);
    }
    td_row_opcode(s, d, td_table_add_row(d), TD_ROW_GPU_IDLE, (double)(modules - thunks), modules);
    td_table_sort(d, "total_ns", 1);
    int64_t idle_in = modules - thunks > 0 ? modules - thunks : 0;
    int64_t idle_bw = wall - modules > 0 ? wall - modules : 0;
    static const char *const KIND[2] = {"source", "opname"};
    for (int w = 0; w < 2; w++) {
        td_flame *fl = td_sum_find_flame(s, KIND[w]);
        if (fl) loc_flame(s, fl, X, v, n, w, idle_in, idle_bw);
    }
    td_strtab_free(names);
    free(ns);
    free(order);
    free(v);
}

/* ---- compute variability (analyse/xla/views.c's rule) ---- */

void td_xm_variability(td_summary *s, const td_partial *p, const td_xstate *X)
{
    xla_vrow *rw = td_xmalloc((X->n + 1) * sizeof *rw);
    size_t nr = 0, nm;
    td_rec **mods = td_part_recs(p, TD_R_XMOD, &nm);
    for (size_t i = 0; i < X->n; i++) {
        const xi *q = &X->v[i];
        if (q->th->v[0] < 2 || xla_comm_type(q->kind)) continue;
        xla_vrow *r = &rw[nr++];
        r->key = q->key;
        r->inst = q->inst;
        r->n = q->th->v[0];
        td_part_mean_std(q->th->v[0], q->th->v[1], q->th->v + 3, &r->mean, &r->sd);
        r->cov = r->mean > 0 ? r->sd / r->mean : 0;
        r->det = 0;
        r->mod = NULL;
        for (size_t j = 0; j < nm && !r->mod; j++)
            if (td_part_kint(mods[j], 0) == q->key) r->mod = td_part_kstr(s, mods[j], 1);
    }
    free(mods);
    if (nr) xla_variability_table(s, rw, nr);   /* report has no table without rows */
    free(rw);
}

/* ---- collectives: every member back into report's xla_coll_tables ---- */

void td_xm_collectives(td_summary *s, const td_partial *p)
{
    size_t n, nd, nf, ni;
    td_rec **v = td_part_recs(p, TD_R_XCI, &n);
    td_rec **dv = td_part_recs(p, TD_R_XDEV, &nd);
    td_rec **fl = td_part_recs(p, TD_R_XFLAG, &nf);
    td_rec **in = td_part_recs(p, TD_R_INPUT, &ni);
    int32_t devs[256];
    int ndev = 0, multi = 0;
    for (size_t i = 0; i < nd && ndev < 256; i++) devs[ndev++] = (int32_t)td_part_kint(dv[i], 0);
    /* report: ranges in a trace other than the first (inputs in rank order) */
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < ni; i++)
        if (in[i]->v[0] < first) first = in[i]->v[0];
    for (size_t i = 0; i < nf; i++)
        if (!strncmp(fl[i]->key, "trace:", 6) && strtoll(fl[i]->key + 6, NULL, 10) != first)
            multi = 1;
    xla_ci *c = td_xmalloc((n + 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) {
        const td_rec *r = v[i];
        const char *dt = td_part_kstr(s, r, 6);
        c[i] = (xla_ci){ td_part_kint(r, 0), td_part_kint(r, 1), td_part_kint(r, 3),
                         td_part_kstr(s, r, 2), td_part_kstr(s, r, 5), *dt ? dt : NULL,
                         (int32_t)td_part_kint(r, 4), (int32_t)r->v[4], r->v[0], r->v[1],
                         r->v[2], r->v[3] };
    }
    xla_coll_tables(s, c, n, devs, ndev, multi);
    free(c);
    free(v);
    free(dv);
    free(fl);
    free(in);
}

/* A device seen in several parts (the views above assume one part per device). */
void td_xm_check_devices(td_summary *s, const td_partial *p)
{
    size_t n;
    td_rec **v = td_part_recs(p, TD_R_XDEV, &n);
    for (size_t i = 0; i < n; i++)
        if (v[i]->v[0] > 1) {
            char b[200];
            snprintf(b, sizeof b, "device %s appears in %" PRId64 " partial summaries: busy "
                     "time, hidden communication and collective waits are per part there",
                     v[i]->key, v[i]->v[0]);
            td_sum_warning(s, b);
            break;
        }
    free(v);
}
