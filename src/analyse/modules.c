/* analyse/modules.c - modules and thunks for Kineto traces (design.md vocabulary):
 * a module execution is a step (ProfilerStep#N / iteration_N, name without its
 * number) or a --module-pattern range on a host thread; its thunks are the device
 * work launched inside it (launching runtime/driver call inside the range, by
 * correlation).
 *
 * By analogy with the XLA projected module time (formats.md sec.4), an execution's
 * GPU time is the projected span: first thunk start to last thunk end. Per module:
 * executions, thunks per execution (mean, sample std), GPU time mean/std/total, share
 * of all modules' time. Warm-up executions (dropped steps, or ranges before the first
 * kept step) are left out. Top-module cut: modules sorted by total time; the smallest
 * ones that together make less than --threshold of the total are dropped.
 * Also the `device` flame (module;kernel, device time of every device event). */
#include "analyse/internal.h"
#include "analyse/rows.h"
#include "partial/partial.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct exec {
    int64_t start, end;
    td_str name;
    int warm;
    int64_t nthunks, first, last;
} exec;

typedef struct thunk {
    td_str module;     /* NO_MODULE: device work outside every module */
    td_str kernel;
    int64_t dur;       /* summed over the n device events of this (module, kernel) */
    int64_t n;
} thunk;

/* (module, kernel) -> summed record: device events are summed as they are met rather
 * than kept one record each (the list would be as long as the device events). */
typedef struct tmap {
    thunk *v;
    size_t n, cap;
    uint32_t *slot;    /* index + 1, 0 empty; open addressing */
    size_t nslot;
} tmap;

static size_t tslot(const tmap *m, td_str mod, td_str ker)
{
    uint64_t h = ((uint64_t)mod << 32 | ker) * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h >> 20) & (m->nslot - 1);
    while (m->slot[i] && (m->v[m->slot[i] - 1].module != mod || m->v[m->slot[i] - 1].kernel != ker))
        i = (i + 1) & (m->nslot - 1);
    return i;
}

static void tmap_add(tmap *m, td_str mod, td_str ker, int64_t dur)
{
    if ((m->n + 1) * 2 > m->nslot) {
        free(m->slot);
        m->nslot = m->nslot ? m->nslot * 2 : 64;
        m->slot = td_xcalloc(m->nslot, sizeof *m->slot);
        for (size_t k = 0; k < m->n; k++)
            m->slot[tslot(m, m->v[k].module, m->v[k].kernel)] = (uint32_t)k + 1;
    }
    size_t i = tslot(m, mod, ker);
    if (!m->slot[i]) {
        *TD_PUSH(m->v, m->n, m->cap) = (thunk){mod, ker, 0, 0};
        m->slot[i] = (uint32_t)m->n;
    }
    m->v[m->slot[i] - 1].dur += dur;
    m->v[m->slot[i] - 1].n++;
}

#define NO_MODULE UINT32_MAX

typedef struct mod {
    const char *name;
    int64_t execs, total;
    double tmean, tstd, mean, std;
    int dropped;
} mod;

static int exec_start_cmp(const void *x, const void *y)
{
    const exec *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end < b->end) - (a->end > b->end); /* outer range first */
}

static int exec_name_cmp(const void *x, const void *y)
{
    const exec *a = *(exec *const *)x, *b = *(exec *const *)y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->start > b->start) - (a->start < b->start);
}

static int thunk_cmp(const void *x, const void *y)
{
    const thunk *a = x, *b = y;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;
    return (a->kernel > b->kernel) - (a->kernel < b->kernel);
}

static int mod_total_cmp(const void *x, const void *y)
{
    const mod *a = x, *b = y;
    if (a->total != b->total)
        return a->total > b->total ? -1 : 1;
    return strcmp(a->name, b->name);
}

static void mean_std(const double *v, size_t n, double *mean, double *std)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = n ? s / (double)n : 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *std = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
}


/* The `device` flame: one stack per (module, kernel), summed before adding. */
static void device_flame(td_actx *a, thunk *fr, size_t n)
{
    qsort(fr, n, sizeof *fr, thunk_cmp);
    td_flame *fl = td_sum_flame(a->s, "device", "Device time by module");
    td_buf b = {0};
    for (size_t p = 0; p < n;) {
        size_t q = p;
        int64_t v = 0;
        while (q < n && !thunk_cmp(&fr[p], &fr[q]))
            v += fr[q++].dur;
        b.n = 0;
        if (fr[p].module != NO_MODULE) {
            td_fold_put(&b, td_name(a, fr[p].module));
            td_buf_putc(&b, ';');
        }
        td_fold_put(&b, td_name(a, fr[p].kernel));
        td_flame_add(a->s, fl, td_buf_cstr(&b), v);
        p = q;
    }
    td_buf_free(&b);
    td_flame_finish(fl);
}

/* Executions of one trace, sorted by start. */
static exec *find_execs(td_actx *a, td_tctx *c, uint8_t *cache, size_t *nout)
{
    td_trace *t = c->t;
    exec *x = NULL;
    size_t n = 0, cap = 0;
    if (a->has_module_re) {
        for (size_t i = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if (td_kind_is_device(ev->kind) || ev->kind == TD_K_GPU_ANNOT || ev->dur <= 0 ||
                ev->track >= t->ntracks || t->tracks[ev->track].device >= 0)
                continue;
            if (!cache[ev->name])
                cache[ev->name] =
                    regexec(&a->module_re, td_name(a, ev->name), 0, NULL, 0) == 0 ? 2 : 1;
            if (cache[ev->name] != 2)
                continue;
            exec *e = TD_PUSH(x, n, cap);
            memset(e, 0, sizeof *e);
            e->start = ev->ts;
            e->end = ev->ts + ev->dur;
            e->name = ev->name;
            e->warm = c->steady0 != INT64_MIN && ev->ts < c->steady0;
        }
    } else {
        for (size_t k = 0; k < c->nsteps; k++) {
            exec *e = TD_PUSH(x, n, cap);
            memset(e, 0, sizeof *e);
            e->start = c->steps[k].start;
            e->end = c->steps[k].end;
            const char *nm = td_strip_num(a->s, td_name(a, c->steps[k].name));
            e->name = td_intern_cstr(a->set->strs, nm);
            e->warm = !td_step_steady(&c->steps[k]);
        }
    }
    if (n)
        qsort(x, n, sizeof *x, exec_start_cmp);
    *nout = n;
    return x;
}

/* Innermost execution containing ts: the last one starting at or before ts that
 * still covers it (executions sorted by start). */
static exec *exec_at(exec *x, size_t n, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid].start <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k-- > 0;) {
        if (ts < x[k].end)
            return &x[k];
        if (lo - k > 8)
            break; /* ranges rarely nest deeper; stop scanning back */
    }
    return NULL;
}

void td_an_modules(td_actx *a)
{
    td_summary *s = a->s;
    size_t nstr = td_strtab_count(a->set->strs);
    uint8_t *cache = a->has_module_re ? td_xcalloc(nstr + 1, 1) : NULL;
    exec **all = NULL;
    size_t nall = 0, allcap = 0;
    tmap thm = {0};
    exec **perx = td_xcalloc(a->n + 1, sizeof *perx);
    tmap frm = {0}; /* device flame records: module (NO_MODULE = none), kernel, time */
    td_str outside = td_intern_cstr(a->set->strs, "(outside modules)");
    size_t *nxs = td_xcalloc(a->n + 1, sizeof *nxs);
    /* two walks over the device events, the flame's records first */
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        if (t->nranges || t->ncompile || !c->ndev)
            continue; /* XLA traces: analyse/xla/xla.c; no device work: no thunks */
        size_t nx = 0;
        exec *x = find_execs(a, c, cache, &nx);
        perx[ti] = x;
        nxs[ti] = nx;
        for (size_t k = 0; k < nx; k++)
            x[k].first = INT64_MAX, x[k].last = INT64_MIN;
        for (size_t i = 0, k = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if (!td_kind_is_device(ev->kind))
                continue;
            int32_t l = c->launch[k++];
            exec *e = l >= 0 ? exec_at(x, nx, t->ev[l].ts) : NULL;
            tmap_add(&frm, nx ? (e ? e->name : outside) : NO_MODULE, ev->name, ev->dur);
        }
    }
    free(cache);
    if (frm.n)
        device_flame(a, frm.v, frm.n);
    free(frm.v);
    free(frm.slot);
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        exec *x = perx[ti];
        size_t nx = nxs[ti];
        if (!nx)
            continue;
        for (size_t i = 0, k = 0; i < t->nev; i++) {
            const td_event *ev = &t->ev[i];
            if (!td_kind_is_device(ev->kind))
                continue;
            int32_t l = c->launch[k++];
            exec *e = l >= 0 ? exec_at(x, nx, t->ev[l].ts) : NULL;
            if (!e || e->warm)
                continue;
            e->nthunks++;
            if (ev->ts < e->first)
                e->first = ev->ts;
            if (ev->ts + ev->dur > e->last)
                e->last = ev->ts + ev->dur;
            tmap_add(&thm, e->name, ev->name, ev->dur);
        }
        for (size_t k = 0; k < nx; k++)
            if (!x[k].warm)
                *TD_PUSH(all, nall, allcap) = &x[k];
    }
    free(nxs);
    if (nall) {
        qsort(all, nall, sizeof *all, exec_name_cmp);
        mod *m = NULL;
        size_t nm = 0, mcap = 0;
        double *tv = td_xmalloc(nall * sizeof *tv), *gv = td_xmalloc(nall * sizeof *gv);
        int64_t sum = 0;
        for (size_t p = 0; p < nall;) {
            size_t q = p;
            while (q < nall && all[q]->name == all[p]->name)
                q++;
            mod *md = TD_PUSH(m, nm, mcap);
            memset(md, 0, sizeof *md);
            md->name = td_name(a, all[p]->name);
            md->execs = (int64_t)(q - p);
            for (size_t k = p; k < q; k++) {
                const exec *e = all[k];
                int64_t g = e->nthunks ? e->last - e->first : 0;
                if (a->part)
                    td_part_exec(a->part, TD_R_KMOD, md->name, g, e->nthunks);
                tv[k - p] = (double)e->nthunks;
                gv[k - p] = (double)g;
                md->total += g;
            }
            mean_std(tv, q - p, &md->tmean, &md->tstd);
            mean_std(gv, q - p, &md->mean, &md->std);
            sum += md->total;
            p = q;
        }
        free(tv);
        free(gv);
        qsort(m, nm, sizeof *m, mod_total_cmp);
        size_t kept = 0;
        td_table *tb = td_modules_cut(s, "Modules", a->o->threshold, nm ? &m[0].total : NULL,
                                      sizeof *m, nm, sum, &kept);
        td_modules_kineto(tb);
        for (size_t k = kept; k < nm; k++)
            m[k].dropped = 1;
        for (size_t k = 0; k < kept; k++) {
            td_mod_stat st = {m[k].name, TD_NA, m[k].execs, m[k].total, m[k].mean, m[k].std,
                              m[k].tmean, m[k].tstd, 1, -1};
            td_row_module(s, tb, td_table_add_row(tb), &st, sum);
        }
        thunk *th = thm.v;
        size_t nth = thm.n;
        for (size_t i = 0; a->part && i < nth; i++) {   /* all modules: the cut comes after */
            td_buf kb = {0};
            td_part_key(&kb, 2, td_name(a, th[i].module), td_name(a, th[i].kernel));
            int64_t vals[2] = {th[i].n, th[i].dur};
            td_part_add(a->part, TD_R_KTHUNK, kb.p, kb.n, vals);
            td_buf_free(&kb);
        }
        if (nth) {
            qsort(th, nth, sizeof *th, thunk_cmp);
            td_table *tt = td_sum_table(s, "thunks", "Device work per top module");
            td_table_cols(tt, "module:text:Module", "name:text:Kernel", "hlo_op:text:HLO op",
                          "calls:int:Calls", "mean_ns:ns:Mean", "total_ns:ns:Total",
                          "share:share:Share of module", NULL);
            for (size_t p = 0; p < nth;) {
                size_t q = p;
                int64_t msum = 0;
                while (q < nth && th[q].module == th[p].module)
                    msum += th[q++].dur;
                int keep = 0;
                for (size_t k = 0; k < nm; k++)
                    if (!strcmp(m[k].name, td_name(a, th[p].module)))
                        keep = !m[k].dropped;
                for (size_t i = p; keep && i < q; i++) {
                    /* one record per (module, kernel): calls and total summed already */
                    int64_t tot = th[i].dur;
                    td_thunk_stat st = {td_name(a, th[i].module), td_name(a, th[i].kernel), NULL,
                                        NULL, th[i].n, tot, 0};
                    td_row_thunk(s, tt, td_table_add_row(tt), &st, msum);
                }
                p = q;
            }
            td_table_sort(tt, "total_ns", 1);
        }
        free(m);
    }
    free(all);
    free(thm.v);
    free(thm.slot);
    for (size_t ti = 0; ti < a->n; ti++)
        free(perx[ti]);
    free(perx);
}
