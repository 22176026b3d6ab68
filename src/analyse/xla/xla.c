/* analyse/xla/xla.c - XLA semantics on NVTX ranges (nsys-jax archives, nsys exports of JAX
 * programs), following formats.md section 4 and nsys-jax's own definitions (its
 * data_loaders.py, analysis.py and the analysis notebook) so that the numbers match
 * what nsys-jax prints:
 *  - thunks are the deepest `Thunk` ranges; each belongs to its closest `XlaModule`
 *    ancestor; thunks that start before the first module are edge effects and dropped;
 *    modules count only when they have thunks;
 *  - the last execution of a module is dropped when its GPU op count is below
 *    mean - std (population) of the earlier ones (profile cut it short);
 *  - programs are keyed by the HLO fingerprint (fingerprint_before_lhs) of their dump,
 *    so a module recompiled under a new program id is one series; the key shown is the
 *    smallest program id of the fingerprint. Executions are numbered per (device, key);
 *  - devices come from XlaLauncher threads (or, for archives without thread metadata,
 *    one per launching thread but the main one, made job-wide as rank x devices + local:
 *    read/nsysjax.c); the main thread (the only thread
 *    driving some program, or driving compilation) takes the first launcher's device;
 *    ranges on threads without a device are left out; program id < 0 (autotuning) too;
 *  - warm-up auto: drop execution 0 of programs compiled inside the profile, and
 *    execution 1 too when the profile has any communication thunk;
 *  - module statistics per program over every module; the top-module cut marks the
 *    modules below it; the runtime totals and the thunk views cover the top modules:
 *    (1) thunk time minus the part of communication thunks hidden behind compute
 *    thunks of the same program and device, (2) module time, (3) per device first
 *    module start to last module end, summed;
 *  - compile statistics: analyse/xla/compile.c; collectives: analyse/xla/coll.c; the
 *    HLO dumps: analyse/xla/hlo.c; opcode table, flamegraphs, variability:
 *    analyse/xla/views.c. */
#include "analyse/xla/xla.h"
#include "analyse/rows.h"
#include "partial/partial.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- modules and thunks of one trace ------------------------------------------------ */

/* sort keys for grouping module runs; pos breaks ties (keeps range-id order) */
typedef struct modkey { int64_t k1, k2; size_t pos; } modkey;
static int cmp_modkey(const void *a, const void *b)
{
    const modkey *x = a, *y = b;
    if (x->k1 != y->k1) return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2) return x->k2 < y->k2 ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}
static const td_range *g_rng;   /* qsort has no context argument */
static int cmp_rid(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int64_t x = g_rng[i].range_id, y = g_rng[j].range_id;
    if (x != y) return x < y ? -1 : 1;
    return i < j ? -1 : i > j;
}

static int64_t prog_of(const char *nm)
{
    const char *v;
    size_t vl;
    return xla_field(nm, "program_id", &v, &vl) ? strtoll(v, NULL, 10) : -1;
}

static void load_trace(xctx *x, int ti)
{
    td_trace *t = x->set->tr[ti];
    td_strtab *st = x->set->strs;
    size_t n = t->nranges;
    if (!n) return;
    uint8_t *kind = td_xcalloc(n, 1);        /* 1 module, 2 thunk */
    uint8_t *keep = td_xcalloc(n, 1);        /* thunk kept (deepest) */
    int64_t *modof = td_xmalloc(n * sizeof *modof);
    xla_idmap im = {0};
    int64_t first_mod = INT64_MAX;
    int tsl = 0;
    for (size_t i = 0; i < n; i++)
        if (xla_starts(td_strget(st, t->ranges[i].name), "TSL:")) { tsl = 1; break; }
    const char *mp = tsl ? "TSL:XlaModule:" : "XlaModule:";
    const char *tp = tsl ? "TSL:Thunk:#" : "Thunk:#";
    int thunks = 0;
    for (size_t i = 0; i < n; i++) {
        const td_range *r = &t->ranges[i];
        const char *nm = td_strget(st, r->name);
        modof[i] = -1;
        if (xla_starts(nm, mp)) {
            kind[i] = 1;
            if (r->gpu_start >= 0 && r->gpu_start < first_mod) first_mod = r->gpu_start;
        } else if (xla_starts(nm, tp)) {
            kind[i] = 2;
            thunks = 1;
        }
    }
    /* range id -> range, for the thunks' parents only: an export of another program (no
     * thunk) has millions of ranges and no use for it */
    if (thunks) {
        xla_idmap_init(&im, n);
        for (size_t i = 0; i < n; i++)
            xla_idmap_put(&im, t->ranges[i].range_id, (uint32_t)i);
    }
    /* thunks: closest module ancestor; thunks with child thunks are not kept; thunks
     * before the first module are edge effects */
    for (size_t i = 0; i < n; i++)
        if (kind[i] == 2 && t->ranges[i].gpu_start >= first_mod) keep[i] = 1;
    for (size_t i = 0; i < n; i++) {
        if (kind[i] != 2 || t->ranges[i].gpu_start < first_mod) continue;
        int64_t p = xla_idmap_get(&im, t->ranges[i].parent_id);
        int guard = 0;
        while (p >= 0 && kind[p] == 2 && guard++ < 1000) {
            keep[p] = 0;
            p = xla_idmap_get(&im, t->ranges[p].parent_id);
        }
        if (p >= 0 && kind[p] == 1) modof[i] = p;
        else keep[i] = 0;   /* nsys-jax asserts here; leave such thunks out */
    }
    int64_t *nthunks = td_xcalloc(n, sizeof *nthunks);
    for (size_t i = 0; i < n; i++) if (keep[i]) nthunks[modof[i]]++;
    /* modules with thunks, in range-id order */
    size_t *mods = td_xmalloc(n * sizeof *mods), nmods = 0;
    for (size_t i = 0; i < n; i++) if (kind[i] == 1 && nthunks[i]) mods[nmods++] = i;
    g_rng = t->ranges;
    qsort(mods, nmods, sizeof *mods, cmp_rid);
    /* drop a last execution cut short by the end of the profile: group the module
     * runs by name (then range-id order); the last of each group against the others */
    uint8_t *dead = td_xcalloc(n, 1);
    modkey *mk = td_xmalloc((nmods ? nmods : 1) * sizeof *mk);
    for (size_t a = 0; a < nmods; a++) {
        mk[a].k1 = t->ranges[mods[a]].name;
        mk[a].k2 = 0;
        mk[a].pos = a;
    }
    qsort(mk, nmods, sizeof *mk, cmp_modkey);
    for (size_t a = 0; a < nmods;) {
        size_t b = a;
        while (b < nmods && mk[b].k1 == mk[a].k1) b++;
        const td_range *last = &t->ranges[mods[mk[b - 1].pos]];
        double sum = 0, sq = 0;
        for (size_t c = a; c + 1 < b; c++) {
            double v = t->ranges[mods[mk[c].pos]].num_gpu_ops;
            sum += v; sq += v * v;
        }
        size_t cnt = b - a - 1;
        if (cnt && last->num_gpu_ops >= 0) {
            double mean = sum / (double)cnt, var = sq / (double)cnt - mean * mean;
            double sd = var > 0 ? sqrt(var) : 0;
            if ((double)last->num_gpu_ops < mean - sd) {
                dead[mods[mk[b - 1].pos]] = 1;
                td_warn(&x->set->warnings, "%s: skipping the last execution of %s: %d GPU "
                        "operations against %.1f +- %.1f before (profile ended during it)",
                        t->path, td_strget(st, last->name), last->num_gpu_ops, mean, sd);
            }
        }
        a = b;
    }
    /* main thread: the only thread driving some program, or driving XlaCompile */
    int64_t mpid = INT64_MIN, mtid = INT64_MIN;
    int ncand = 0;
    {
        for (size_t a = 0; a < nmods; a++) {
            mk[a].k1 = prog_of(td_strget(st, t->ranges[mods[a]].name));
            mk[a].k2 = t->ranges[mods[a]].track;
            mk[a].pos = a;
        }
        qsort(mk, nmods, sizeof *mk, cmp_modkey);
        for (size_t a = 0; a < nmods;) {
            size_t b = a;
            while (b < nmods && mk[b].k1 == mk[a].k1) b++;
            if (mk[a].k2 == mk[b - 1].k2) {     /* sorted: first == last means single */
                const td_track *k = &t->tracks[mk[a].k2];
                if (ncand == 0) { mpid = k->pid; mtid = k->tid; ncand = 1; }
                else if (k->pid != mpid || k->tid != mtid) ncand = 2;
            }
            a = b;
        }
        uint32_t ct = UINT32_MAX;
        int many = 0;
        const char *cp = tsl ? "TSL:XlaCompile:#module=" : "XlaCompile:#module=";
        for (size_t i = 0; i < n; i++) {
            if (kind[i] || !xla_starts(td_strget(st, t->ranges[i].name), cp)) continue;
            if (ct == UINT32_MAX) ct = t->ranges[i].track;
            else if (ct != t->ranges[i].track) many = 1;
        }
        if (ct != UINT32_MAX && !many) {
            const td_track *k = &t->tracks[ct];
            if (ncand == 0) { mpid = k->pid; mtid = k->tid; ncand = 1; }
            else if (k->pid != mpid || k->tid != mtid) ncand = 2;
        }
    }
    int32_t main_dev = -1;
    if (ncand == 1 && t->ndevices) main_dev = t->devices[0].id;
    /* module records */
    int64_t *mrec = td_xmalloc(n * sizeof *mrec);
    for (size_t i = 0; i < n; i++) mrec[i] = -1;
    for (size_t a = 0; a < nmods; a++) {
        size_t i = mods[a];
        const td_range *r = &t->ranges[i];
        if (dead[i]) continue;
        const td_track *k = &t->tracks[r->track];
        int32_t dev = k->device;
        if (dev < 0 && k->pid == mpid && k->tid == mtid) dev = main_dev;
        if (dev < 0) continue;     /* no device: nsys-jax's inner merge drops it */
        /* devices numbered within an archive without thread metadata: job-wide as
         * nsys-jax numbers them (process x its devices + local), so that the archives
         * of a job do not all count as device 0 */
        if (t->devices_local && t->rank >= 0) dev += t->rank * (int32_t)t->ndevices;
        const char *nm = td_strget(st, r->name);
        const char *v;
        size_t vl;
        xmod *m = TD_PUSH(x->m, x->nm, x->mcap);
        memset(m, 0, sizeof *m);
        m->tr = ti; m->ri = i;
        m->name = xla_field(nm, "hlo_module", &v, &vl) ? td_intern(st, v, vl) : r->name;
        m->program = prog_of(nm);
        m->key = m->program;
        m->device = dev;
        m->tid = k->tid;
        m->s = r->gpu_start; m->e = r->gpu_end;
        m->nthunks = nthunks[i];
        mrec[i] = (int64_t)(x->nm - 1);
    }
    for (size_t i = 0; i < n; i++) {
        if (!keep[i] || dead[modof[i]] || mrec[modof[i]] < 0) continue;
        const td_range *r = &t->ranges[i];
        const char *nm = td_strget(st, r->name);
        const char *v;
        size_t vl;
        xthunk *h = TD_PUSH(x->th, x->nth, x->thcap);
        memset(h, 0, sizeof *h);
        h->mod = (size_t)mrec[modof[i]];
        if (xla_field(nm, "hlo_op", &v, &vl)) {
            h->inst = td_intern(st, v, vl);
            size_t kl = vl;     /* kind: without ".N" suffixes (custom-call.219.0) */
            for (;;) {
                size_t k2 = kl;
                while (k2 > 0 && v[k2 - 1] >= '0' && v[k2 - 1] <= '9') k2--;
                if (k2 > 1 && k2 < kl && v[k2 - 1] == '.') kl = k2 - 1;
                else break;
            }
            h->kind = td_intern(st, v, kl);
        } else {
            h->inst = r->name;
            h->kind = r->name;
        }
        h->s = r->gpu_start; h->e = r->gpu_end;
        h->comm = xla_comm_type(td_strget(st, h->kind)) != NULL;
        h->bytes = -1;
    }
    free(mk); free(mrec); free(dead); free(mods); free(nthunks); free(modof); free(keep); free(kind);
    xla_idmap_free(&im); /* nothing to free without thunks: the map stayed zero */
}
/* ---- the pass ----------------------------------------------------------------------- */

typedef struct mstat {
    int64_t key;
    td_str name;
    int64_t n, total;
    double sum, sq, tsum, tsq;
} mstat;

static int cmp_mstat(const void *a, const void *b)
{
    const mstat *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* qsort has no context argument: the comparators below read g_x */
static xctx *g_x;
static int cmp_th_dev(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const xthunk *p = &g_x->th[i], *q = &g_x->th[j];
    const xmod *mp = &g_x->m[p->mod], *mq = &g_x->m[q->mod];
    if (mp->device != mq->device) return mp->device < mq->device ? -1 : 1;
    if (p->s != q->s) return p->s < q->s ? -1 : 1;
    if (p->e != q->e) return p->e < q->e ? -1 : 1;
    return i < j ? -1 : i > j;
}
static int cmp_th_run(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const xthunk *p = &g_x->th[i], *q = &g_x->th[j];
    if (p->mod != q->mod) return p->mod < q->mod ? -1 : 1;
    if (p->inst != q->inst) return p->inst < q->inst ? -1 : 1;
    if (p->s != q->s) return p->s < q->s ? -1 : 1;
    return i < j ? -1 : i > j;
}

typedef struct agg { int64_t prog; td_str a, b; int64_t calls, total; size_t th; } agg;
static td_strtab *g_strs;
static int cmp_agg(const void *a, const void *b)
{
    const agg *x = a, *y = b;
    if (x->prog != y->prog) return x->prog < y->prog ? -1 : 1;
    return strcmp(td_strget(g_strs, x->a), td_strget(g_strs, y->a));
}

/* Index of the decoded dump of (trace, program) in x->hlo, or -1. */
static int64_t hlo_of(const xctx *x, int tr, int64_t program)
{
    for (size_t k = 0; k < x->nhlo; k++)
        if (x->hlo[k].tr == tr && x->hlo[k].d->program == program) return (int64_t)k;
    return -1;
}

/* Queue the dump of (trace, program) for decoding (once). */
static void want_dump(xctx *x, size_t *cap, int tr, int64_t program)
{
    if (program < 0 || hlo_of(x, tr, program) >= 0) return;
    td_trace *t = x->set->tr[tr];
    for (size_t d = 0; d < t->nhlo; d++)
        if (t->hlo[d].program == program) {
            xla_hlo *h = TD_PUSH(x->hlo, x->nhlo, *cap);
            memset(h, 0, sizeof *h);
            h->d = &t->hlo[d];
            h->tr = tr;
            return;
        }
}

/* Program keys: modules of one name seen under several program ids are one program
 * when their dumps carry the same fingerprint (nsys-jax's _remap_program_id). */
static void program_keys(xctx *x, size_t *hcap)
{
    size_t first = x->nhlo;
    for (size_t i = 0; i < x->nm; i++)
        for (size_t j = i + 1; j < x->nm; j++)
            if (x->m[j].name == x->m[i].name && x->m[j].program != x->m[i].program) {
                want_dump(x, hcap, x->m[i].tr, x->m[i].program);
                want_dump(x, hcap, x->m[j].tr, x->m[j].program);
            }
    (void)first;
}

static void assign_keys(xctx *x)
{
    for (size_t i = 0; i < x->nm; i++) {
        xmod *m = &x->m[i];
        int64_t hi = hlo_of(x, m->tr, m->program);
        if (hi < 0 || !x->hlo[hi].fingerprint[0]) continue;
        for (size_t k = 0; k < x->nhlo; k++)
            if (!strcmp(x->hlo[k].fingerprint, x->hlo[hi].fingerprint)
                && x->hlo[k].d->program < m->key)
                m->key = x->hlo[k].d->program;
    }
}

typedef struct modkey2 { int32_t dev; int64_t key; size_t pos; } modkey2;
static int cmp_modkey2(const void *a, const void *b)
{
    const modkey2 *p = a, *q = b;
    if (p->dev != q->dev) return p->dev < q->dev ? -1 : 1;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

void td_analyse_xla(td_traceset *set, const td_opts *o, td_summary *s)
{
    td_analyse_xla_part(set, o, s, NULL);
}

void td_analyse_xla_part(td_traceset *set, const td_opts *o, td_summary *s, td_partial *part)
{
    xctx X = { set, o, s, NULL, 0, 0, NULL, 0, 0, NULL, 0, part };
    xctx *x = &X;
    size_t hcap = 0;
    for (size_t i = 0; i < set->n; i++) load_trace(x, (int)i);

    /* dumps: the programs whose fingerprint decides their key, and those with
     * communication thunks (message sizes); the top modules' dumps follow below */
    program_keys(x, &hcap);
    for (size_t i = 0; i < x->nth; i++)
        if (x->th[i].comm) want_dump(x, &hcap, x->m[x->th[i].mod].tr, x->m[x->th[i].mod].program);
    size_t ndec = x->nhlo;
    xla_hlo_decode_all(x->hlo, 0, ndec);
    assign_keys(x);

    /* execution index per (device, program key), in range-id order */
    {
        modkey2 *ek = td_xmalloc((x->nm ? x->nm : 1) * sizeof *ek);
        for (size_t a = 0; a < x->nm; a++) {
            ek[a].dev = x->m[a].device;
            ek[a].key = x->m[a].key;
            ek[a].pos = a;
        }
        qsort(ek, x->nm, sizeof *ek, cmp_modkey2);
        for (size_t a = 0; a < x->nm; a++)
            x->m[ek[a].pos].exec = a && ek[a - 1].dev == ek[a].dev && ek[a - 1].key == ek[a].key
                                   ? x->m[ek[a - 1].pos].exec + 1 : 0;
        free(ek);
    }

    /* ThunkExecution: n-th run of an instruction within one module run (program,
     * execution, device), in start order */
    {
        size_t *ix = td_xmalloc((x->nth ? x->nth : 1) * sizeof *ix);
        for (size_t i = 0; i < x->nth; i++) ix[i] = i;
        g_x = x;
        qsort(ix, x->nth, sizeof *ix, cmp_th_run);
        for (size_t a = 0; a < x->nth; a++) {
            xthunk *h = &x->th[ix[a]], *q = a ? &x->th[ix[a - 1]] : NULL;
            h->exec = q && q->mod == h->mod && q->inst == h->inst ? q->exec + 1 : 0;
        }
        free(ix);
    }

    /* compile statistics (all traces), and the programs compiled inside the profile */
    int64_t *seen = NULL;
    size_t nseen = 0;
    xla_compile(x, &seen, &nseen);

    if (x->nm == 0) {   /* no XLA modules (e.g. an nsys export of a non-JAX program) */
        free(seen);
        for (size_t k = 0; k < x->nhlo; k++) xla_hlo_free(&x->hlo[k]);
        free(x->hlo);
        free(x->m);
        free(x->th);
        return;
    }
    /* compiled program (trace, id) -> its key: sorted keys */
    {
        size_t nk = 0;
        for (size_t q = 0; q < nseen; q++) {
            int tr = (int)((uint64_t)seen[q] >> 40);
            int64_t id = (int64_t)((uint64_t)seen[q] & (((uint64_t)1 << 40) - 1)), key = id;
            for (size_t i = 0; i < x->nm; i++)
                if (x->m[i].tr == tr && x->m[i].program == id) { key = x->m[i].key; break; }
            seen[nk++] = key;
        }
        nseen = nk;
        if (nseen) qsort(seen, nseen, sizeof *seen, cmp_i64);
    }
    /* Devices: the generic pass counts devices with kernel events, which nsys-jax
     * archives do not have; count the devices modules ran on instead. */
    {
        const td_kv *dv = td_sum_get(s, "trace.devices");
        int32_t seen_dev[256];
        int nd = xla_devices(x, seen_dev);
        if (nd && (!dv || dv->v.i <= 0))
            td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, nd);
        /* an archive without the CPU push/pop ranges has no events to span: the
         * modules' GPU time span it */
        const td_kv *sp = td_sum_get(s, "trace.span_ns");
        if (x->nm && sp && sp->v.i <= 0) {
            int64_t lo = x->m[0].s, hi = x->m[0].e;
            for (size_t i = 1; i < x->nm; i++) {
                if (x->m[i].s < lo) lo = x->m[i].s;
                if (x->m[i].e > hi) hi = x->m[i].e;
            }
            if (hi > lo) td_sum_set_int(s, "trace.span_ns", "Traced time", TD_T_NS, hi - lo);
        }
        for (int k = 0; part && k < nd; k++) {
            char dk[32];
            int64_t one = 1;
            snprintf(dk, sizeof dk, "%d", (int)seen_dev[k]);
            td_part_add(part, TD_R_XDEV, dk, strlen(dk), &one);
        }
    }

    /* autotuning executions (program id < 0) are left out, as nsys-jax does */
    int any_comm = 0;
    for (size_t i = 0; i < x->nth; i++)
        if (x->th[i].comm && x->m[x->th[i].mod].program >= 0) any_comm = 1;
    int64_t dropped = 0;
    for (size_t i = 0; i < x->nm; i++) {
        xmod *m = &x->m[i];
        if (m->program < 0) { m->steady = 0; continue; }
        int compiled = nseen && bsearch(&m->key, seen, nseen, sizeof *seen, cmp_i64);
        if (o->warmup == TD_WARMUP_AUTO)
            m->steady = !compiled || m->exec > (any_comm ? 1 : 0);
        else
            m->steady = m->exec >= o->warmup;
        if (!m->steady) dropped++;
    }
    free(seen);
    int64_t nsteady = 0;
    for (size_t i = 0; i < x->nm; i++) nsteady += x->m[i].steady;
    int kept_all = 0;
    if (nsteady == 0 && x->nm) {   /* nsys-jax: then everything is steady state */
        for (size_t i = 0; i < x->nm; i++) x->m[i].steady = x->m[i].program >= 0;
        dropped = 0;
        kept_all = 1;
        td_sum_warning(s, "warm-up heuristics found no steady-state module execution; "
                          "all executions are kept");
    }
    char mode[32], rule[200];
    if (o->warmup == TD_WARMUP_AUTO)
        snprintf(mode, sizeof mode, "auto");
    else if (o->warmup == 0)
        snprintf(mode, sizeof mode, "none");
    else
        snprintf(mode, sizeof mode, "%d", o->warmup);
    if (o->warmup == 0)
        snprintf(rule, sizeof rule, "No execution dropped (--warmup none).");
    else if (dropped == 0) /* the rule never claims a drop that did not happen */
        snprintf(rule, sizeof rule, "No module execution was dropped: %s",
                 kept_all ? "the rule would have dropped every execution, so all are kept."
                 : o->warmup == TD_WARMUP_AUTO ? "no module was compiled inside the profile."
                                               : "no module ran that many times.");
    else if (o->warmup == TD_WARMUP_AUTO)
        snprintf(rule, sizeof rule, "%s", any_comm
            ? "Dropped the first two executions of each module compiled inside the profile "
              "(the profile has communication)."
            : "Dropped the first execution of each module compiled inside the profile.");
    else
        snprintf(rule, sizeof rule, "Dropped the first %d execution(s) of each module.",
                 o->warmup);
    td_sum_set_str(s, "warmup.mode", "Warm-up", mode);
    td_sum_set_str(s, "warmup.rule", "Warm-up rule", rule);
    td_sum_set_int(s, "warmup.dropped", "Executions dropped", TD_T_INT, dropped);

    /* module statistics per program key: every module; the cut marks the small ones */
    mstat *ms = NULL;
    size_t nms = 0, mscap = 0;
    for (size_t i = 0; i < x->nm; i++) {
        xmod *m = &x->m[i];
        if (!m->steady) continue;
        size_t k;
        for (k = 0; k < nms; k++) if (ms[k].key == m->key) break;
        if (k == nms) {
            mstat *p = TD_PUSH(ms, nms, mscap);
            memset(p, 0, sizeof *p);
            p->key = m->key;
            p->name = m->name;
        }
        double d = (double)(m->e - m->s), th = (double)m->nthunks;
        if (part) {
            td_buf kb = {0};
            char pid[32];
            snprintf(pid, sizeof pid, "%lld", (long long)m->key);
            td_part_key(&kb, 2, pid, td_strget(set->strs, ms[k].name));
            td_part_exec(part, TD_R_XMOD, kb.p, m->e - m->s, m->nthunks);
            td_buf_free(&kb);
        }
        ms[k].n++; ms[k].total += m->e - m->s;
        ms[k].sum += d; ms[k].sq += d * d; ms[k].tsum += th; ms[k].tsq += th * th;
    }
    if (nms) qsort(ms, nms, sizeof *ms, cmp_mstat);
    int64_t mtot = 0;
    for (size_t k = 0; k < nms; k++) mtot += ms[k].total;
    size_t keepn = 0;
    td_table *mt = td_modules_cut(s, "XLA modules (steady state)", o->threshold,
                                  nms ? &ms[0].total : NULL, sizeof *ms, nms, mtot, &keepn);
    td_table_cols(mt, "below_cut:bool:Below cut", NULL);
    for (size_t k = 0; k < nms; k++) {
        mstat *p = &ms[k];
        double mean = p->sum / (double)p->n, tmean = p->tsum / (double)p->n;
        td_mod_stat st = {td_strget(set->strs, p->name), p->key, p->n, p->total, mean, 0,
                          tmean, 0, p->n > 1, k >= keepn};
        if (p->n > 1) {   /* sample standard deviations (n-1), like pandas */
            double v = (p->sq - p->n * mean * mean) / (double)(p->n - 1);
            double tv = (p->tsq - p->n * tmean * tmean) / (double)(p->n - 1);
            st.std = v > 0 ? sqrt(v) : 0;
            st.tstd = tv > 0 ? sqrt(tv) : 0;
        }
        td_row_module(s, mt, td_table_add_row(mt), &st, mtot);
    }
    for (size_t i = 0; i < x->nm; i++) {
        xmod *m = &x->m[i];
        m->top = 0;
        for (size_t k = 0; m->steady && k < keepn; k++) if (ms[k].key == m->key) m->top = 1;
    }

    /* the top modules' dumps (opcodes, op_name, source frames) */
    for (size_t i = 0; i < x->nm; i++) /* summarize: any steady module may be a top one */
        if (x->m[i].top || (part && x->m[i].steady))
            want_dump(x, &hcap, x->m[i].tr, x->m[i].program);
    if (x->nhlo > ndec) xla_hlo_decode_all(x->hlo, ndec, x->nhlo - ndec);
    for (size_t i = 0; i < x->nth; i++) {
        xthunk *h = &x->th[i];
        const xmod *m = &x->m[h->mod];
        h->hlo = h->hinst = -1;
        int64_t hi = hlo_of(x, m->tr, m->program);
        if (hi < 0) continue;
        const char *in = td_strget(set->strs, h->inst);
        const xla_hinst *p = xla_hlo_find(&x->hlo[hi], in, strlen(in));
        if (!p) continue;
        h->hlo = (int32_t)hi;
        h->hinst = (int32_t)(p - x->hlo[hi].in);
        h->opcode = p->opl ? td_intern(set->strs, p->op, p->opl) : 0;
        if (h->comm && p->ctype) {
            h->bytes = p->bytes;
            h->group = p->group;
            h->dtype = p->dtype ? td_intern_cstr(set->strs, p->dtype) : 0;
        }
    }

    /* hidden communication (nsys-jax's _calculate_overlap): the overlap of each
     * communication thunk with compute thunks of the same program and device, summed */
    size_t *ix = td_xmalloc((x->nth ? x->nth : 1) * sizeof *ix);
    for (size_t i = 0; i < x->nth; i++) ix[i] = i;
    g_x = x;
    qsort(ix, x->nth, sizeof *ix, cmp_th_dev);
    int64_t maxdur = 0;
    for (size_t i = 0; i < x->nth; i++)
        if (!x->th[i].comm && x->th[i].e - x->th[i].s > maxdur) maxdur = x->th[i].e - x->th[i].s;
    for (size_t a = 0; a < x->nth; a++) {
        xthunk *h = &x->th[ix[a]];
        if (!h->comm) continue;
        const xmod *hm = &x->m[h->mod];
        int64_t hid = 0;
        for (size_t b = a; b-- > 0;) {   /* earlier starts */
            xthunk *q = &x->th[ix[b]];
            const xmod *qm = &x->m[q->mod];
            if (qm->device != hm->device || q->s < h->s - maxdur) break;
            if (q->comm || qm->key != hm->key || q->e <= h->s) continue;
            hid += (q->e < h->e ? q->e : h->e) - h->s;
        }
        for (size_t b = a + 1; b < x->nth; b++) {
            xthunk *q = &x->th[ix[b]];
            const xmod *qm = &x->m[q->mod];
            if (qm->device != hm->device || q->s >= h->e) break;
            if (q->comm || qm->key != hm->key) continue;
            hid += (q->e < h->e ? q->e : h->e) - (q->s > h->s ? q->s : h->s);
        }
        h->hidden = hid;
    }

    /* runtime totals over the top modules (the notebook's three definitions) */
    int64_t thunks_ns = 0, modules_ns = 0, wall_ns = 0, busy = 0;
    {
        int32_t dev = INT32_MIN;
        int64_t ue = INT64_MIN;
        for (size_t a = 0; a < x->nth; a++) {
            xthunk *h = &x->th[ix[a]];
            if (!x->m[h->mod].top) continue;
            thunks_ns += h->e - h->s - h->hidden;
            if (x->m[h->mod].device != dev) { dev = x->m[h->mod].device; ue = INT64_MIN; }
            /* union of thunk intervals (busy inside modules) */
            if (h->s >= ue) { busy += h->e - h->s; ue = h->e; }
            else if (h->e > ue) { busy += h->e - ue; ue = h->e; }
        }
        int32_t devs[256];
        int64_t first[256], last[256];
        int nd = 0;
        for (size_t i = 0; i < x->nm; i++) {
            const xmod *m = &x->m[i];
            if (!m->top) continue;
            modules_ns += m->e - m->s;
            int k;
            for (k = 0; k < nd; k++) if (devs[k] == m->device) break;
            if (k == nd) {
                if (nd == 256) continue;
                devs[nd] = m->device; first[nd] = m->s; last[nd] = m->e; nd++;
            }
            if (m->s < first[k]) first[k] = m->s;
            if (m->e > last[k]) last[k] = m->e;
        }
        for (int k = 0; k < nd; k++) wall_ns += last[k] - first[k];
    }
    int64_t idle_in = modules_ns - busy > 0 ? modules_ns - busy : 0;
    td_sum_set_int(s, "runtime.thunks_ns", "Thunk GPU time", TD_T_NS, thunks_ns);
    td_sum_set_int(s, "runtime.modules_ns", "Module GPU time", TD_T_NS, modules_ns);
    td_sum_set_int(s, "runtime.wall_ns", "Wall time (sum over devices)", TD_T_NS, wall_ns);
    td_sum_set_int(s, "runtime.idle_in_modules_ns", "GPU idle inside modules", TD_T_NS, idle_in);
    td_sum_set_int(s, "runtime.idle_between_modules_ns", "GPU idle between modules", TD_T_NS,
                   wall_ns - modules_ns > 0 ? wall_ns - modules_ns : 0);
    /* busy inside modules = the union of thunk intervals, so that busy + idle inside +
     * idle between = wall (thunks_ns counts overlapping thunks twice) */
    td_sum_set_int(s, "runtime.busy_in_modules_ns", "GPU busy inside modules", TD_T_NS,
                   modules_ns - idle_in);
    free(ix);

    /* thunks of the top modules, hlo ops, device flame */
    {
        td_table *tt = td_sum_table(s, "thunks", "Thunks of the top modules");
        td_table_cols(tt, "module:text:Module", "name:text:Thunk", "hlo_op:text:HLO op",
                      "calls:int:Calls", "mean_ns:ns:Mean", "total_ns:ns:Total",
                      "share:share:Share of module", "op_name:text:op_name", NULL);
        td_table *ht = td_sum_table(s, "hlo_ops", "Time by HLO op");
        td_table_cols(ht, "hlo_op:text:HLO op", "calls:int:Calls", "total_ns:ns:Total",
                      "share:share:Share", NULL);
        td_flame *fl = td_sum_flame(s, "device", "Device time by module");
        agg *ta = NULL, *ha = NULL;
        size_t nta = 0, tacap = 0, nha = 0, hacap = 0;
        xla_idmap tm;
        xla_idmap_init(&tm, x->nth);
        for (size_t i = 0; i < x->nth; i++) {
            xthunk *h = &x->th[i];
            xmod *m = &x->m[h->mod];
            if (!m->top) continue;
            int64_t d = h->e - h->s;
            size_t k;
            for (k = 0; k < nha; k++) if (ha[k].a == h->kind) break;
            if (k == nha) { agg *p = TD_PUSH(ha, nha, hacap); memset(p, 0, sizeof *p);
                p->a = h->kind; }
            ha[k].calls++; ha[k].total += d;
            int64_t key = (int64_t)((uint64_t)m->key << 32 | h->inst);
            int64_t kk = xla_idmap_get(&tm, key);
            if (kk < 0) { agg *p = TD_PUSH(ta, nta, tacap); memset(p, 0, sizeof *p);
                p->prog = m->key; p->a = h->inst; p->b = h->kind; p->th = i; kk = (int64_t)nta - 1;
                xla_idmap_put(&tm, key, (uint32_t)kk); }
            k = (size_t)kk;
            ta[k].calls++; ta[k].total += d;
        }
        g_strs = set->strs;   /* rows in (program key, instruction name) order, then sorted */
        if (nta) qsort(ta, nta, sizeof *ta, cmp_agg);
        int64_t htot = 0;
        for (size_t k = 0; k < nha; k++) htot += ha[k].total;
        for (size_t k = 0; k < nha; k++) {
            td_row_hlo_op(s, ht, td_table_add_row(ht), td_strget(set->strs, ha[k].a), ha[k].calls,
                          ha[k].total, htot);
        }
        td_table_sort(ht, "total_ns", 1);
        for (size_t k = 0; k < nta; k++) {
            int64_t modt = 0;
            const char *mn = "";
            for (size_t q = 0; q < nta; q++) if (ta[q].prog == ta[k].prog) modt += ta[q].total;
            for (size_t q = 0; q < keepn; q++)
                if (ms[q].key == ta[k].prog) mn = td_strget(set->strs, ms[q].name);
            td_thunk_stat st = {mn, td_strget(set->strs, ta[k].a), td_strget(set->strs, ta[k].b),
                                NULL, ta[k].calls, ta[k].total, 1};
            char *on = NULL;
            const xthunk *h = &x->th[ta[k].th];
            if (h->hlo >= 0) {
                const xla_hinst *p = &x->hlo[h->hlo].in[h->hinst];
                if (p->op_namel) {
                    on = td_xmalloc(p->op_namel + 1);
                    memcpy(on, p->op_name, p->op_namel);
                    on[p->op_namel] = 0;
                    st.op_name = on;
                }
            }
            td_row_thunk(s, tt, td_table_add_row(tt), &st, modt);
            free(on);
            td_buf b = {0};
            for (const char *p = mn; *p; p++) td_buf_putc(&b, *p == ';' ? ':' : *p);
            td_buf_putc(&b, ';');
            for (const char *p = td_strget(set->strs, ta[k].a); *p; p++)
                td_buf_putc(&b, *p == ';' ? ':' : *p == '\n' ? ' ' : *p);
            td_flame_add(s, fl, td_buf_cstr(&b), ta[k].total);
            td_buf_free(&b);
        }
        td_table_sort(tt, "total_ns", 1);
        td_flame_finish(fl);
        free(ta); free(ha);
        xla_idmap_free(&tm);
    }

    if (part) xla_part_record(x, any_comm);
    xla_views(x, thunks_ns, modules_ns, wall_ns);
    xla_variability(x);
    /* summarize: the collective tables' schema travels even without communication */
    if (any_comm || part) xla_collectives(x);
    for (size_t k = 0; k < x->nhlo; k++) xla_hlo_free(&x->hlo[k]);
    free(x->hlo);
    free(ms);
    free(x->m);
    free(x->th);
}
