/* analyse_xla.c - XLA semantics on NVTX ranges (nsys-jax archives, nsys exports of JAX
 * programs): module and thunk statistics, warm-up, runtime totals, compile phases and
 * collectives, following formats.md section 4 and nsys-jax's own definitions so that
 * the numbers match what nsys-jax prints:
 *  - thunks are the deepest `Thunk` ranges; each belongs to its closest `XlaModule`
 *    ancestor; thunks that start before the first module are edge effects and dropped;
 *    modules count only when they have thunks;
 *  - the last execution of a module is dropped when its GPU op count is below
 *    mean - std (population) of the earlier ones (profile cut it short);
 *  - executions are numbered per (thread, program id) in range-id order; devices come
 *    from XlaLauncher threads, the main thread (the only thread driving some program,
 *    or driving compilation) takes the first launcher's device; ranges on threads
 *    without a device are left out; program id < 0 (autotuning) is left out;
 *  - warm-up auto: drop execution 0 of programs compiled inside the profile, and
 *    execution 1 too when the profile has any communication thunk;
 *  - collectives: communication thunks by HLO opcode; message size, replica group size
 *    and element type from the program's HloProto dump (operand bytes; all-gather's
 *    full buffer, as nccl-tests counts); hidden = overlap with compute thunks of the same
 *    program and device; straggler wait per instance across processes after aligning
 *    each device's clock by its median collective end-time skew;
 *  - compile phases: XlaCompile subtrees, worker-thread ranges grafted under the
 *    deepest main-thread range containing them and credited a share of the parallel
 *    region's wall time in proportion to their non-child time; non-TSL ranges folded
 *    into their parents; autotuner measurement/compilation detail collapsed. */
#include "analyse.h"
#include "partial.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers -------------------------------------------------------------- */

static int starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* int64 key -> index, open addressing; grows at half load */
typedef struct idmap {
    int64_t *k;
    uint32_t *v;
    size_t cap, n;
} idmap;

static void idmap_init(idmap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2 + 16) m->cap *= 2;
    m->n = 0;
    m->k = td_xmalloc(m->cap * sizeof *m->k);
    m->v = td_xmalloc(m->cap * sizeof *m->v);
    for (size_t i = 0; i < m->cap; i++) m->k[i] = INT64_MIN;
}
static size_t idmap_slot(const idmap *m, int64_t k)
{
    size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->k[h] != INT64_MIN && m->k[h] != k) h = (h + 1) & (m->cap - 1);
    return h;
}
static void idmap_put(idmap *m, int64_t k, uint32_t v)
{
    if (k == INT64_MIN) return;
    if ((m->n + 1) * 2 > m->cap) {
        idmap old = *m;
        idmap_init(m, old.cap);
        for (size_t i = 0; i < old.cap; i++)
            if (old.k[i] != INT64_MIN) idmap_put(m, old.k[i], old.v[i]);
        free(old.k);
        free(old.v);
    }
    size_t h = idmap_slot(m, k);
    if (m->k[h] == INT64_MIN) { m->k[h] = k; m->v[h] = v; m->n++; }   /* first wins */
}
static int64_t idmap_get(const idmap *m, int64_t k)
{
    if (k == INT64_MIN) return -1;
    size_t h = idmap_slot(m, k);
    return m->k[h] == k ? (int64_t)m->v[h] : -1;
}
static void idmap_free(idmap *m) { free(m->k); free(m->v); }

/* Value of "key=" inside an NVTX payload "#a=1,b=2#" (up to ',' or '#'). */
static int field(const char *s, const char *key, const char **v, size_t *n)
{
    size_t kl = strlen(key);
    const char *p = strchr(s, '#');
    while (p && *p) {
        p++;
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            *v = p + kl + 1;
            *n = strcspn(*v, ",#");
            return 1;
        }
        p = strchr(p, ',');
    }
    return 0;
}

/* ---- records ---------------------------------------------------------------------- */

typedef struct xmod {
    int tr;             /* trace index */
    size_t ri;          /* range index */
    td_str name;        /* hlo_module */
    int64_t program;    /* program_id, -1 unknown */
    int64_t exec;       /* execution index per (thread, program) */
    int32_t device;
    int64_t tid;
    int64_t s, e;       /* projected GPU times */
    int64_t nthunks;
    int steady;
    int dropped_last;
} xmod;

typedef struct xthunk {
    size_t mod;         /* index into mods */
    td_str inst;        /* hlo_op value: instruction name, e.g. fusion.12 */
    td_str kind;        /* op kind: instruction name without its .N suffix */
    int64_t s, e;
    int64_t exec;       /* ThunkExecution: n-th run of this instruction in the module run */
    int64_t hidden;
    int comm;
    int64_t bytes;      /* collective message size from the HLO dump, -1 unknown */
    int32_t group;      /* replica group size from the HLO dump, 0 unknown */
    td_str dtype;       /* collective element type, 0 unknown */
} xthunk;

typedef struct xctx {
    td_traceset *set;
    const td_opts *o;
    td_summary *s;
    xmod *m; size_t nm, mcap;
    xthunk *th; size_t nth, thcap;
} xctx;

/* Communication thunk kinds (the HLO opcodes nsys-jax treats as communication). */
static const char *comm_type(const char *kind)
{
    if (strstr(kind, "-done")) return NULL;
    if (starts(kind, "all-reduce")) return "allreduce";
    if (starts(kind, "all-gather")) return "allgather";
    if (starts(kind, "reduce-scatter")) return "reducescatter";
    if (starts(kind, "all-to-all")) return "alltoall";
    if (starts(kind, "collective-permute")) return "sendrecv";
    if (starts(kind, "collective-broadcast")) return "broadcast";
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
    return field(nm, "program_id", &v, &vl) ? strtoll(v, NULL, 10) : -1;
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
    idmap im;
    idmap_init(&im, n);
    int64_t first_mod = INT64_MAX;
    int tsl = 0;
    for (size_t i = 0; i < n; i++)
        if (starts(td_strget(st, t->ranges[i].name), "TSL:")) { tsl = 1; break; }
    const char *mp = tsl ? "TSL:XlaModule:" : "XlaModule:";
    const char *tp = tsl ? "TSL:Thunk:#" : "Thunk:#";
    for (size_t i = 0; i < n; i++) {
        const td_range *r = &t->ranges[i];
        idmap_put(&im, r->range_id, (uint32_t)i);
        const char *nm = td_strget(st, r->name);
        modof[i] = -1;
        if (starts(nm, mp)) {
            kind[i] = 1;
            if (r->gpu_start >= 0 && r->gpu_start < first_mod) first_mod = r->gpu_start;
        } else if (starts(nm, tp)) kind[i] = 2;
    }
    /* thunks: closest module ancestor; thunks with child thunks are not kept; thunks
     * before the first module are edge effects */
    for (size_t i = 0; i < n; i++)
        if (kind[i] == 2 && t->ranges[i].gpu_start >= first_mod) keep[i] = 1;
    for (size_t i = 0; i < n; i++) {
        if (kind[i] != 2 || t->ranges[i].gpu_start < first_mod) continue;
        int64_t p = idmap_get(&im, t->ranges[i].parent_id);
        int guard = 0;
        while (p >= 0 && kind[p] == 2 && guard++ < 1000) {
            keep[p] = 0;
            p = idmap_get(&im, t->ranges[p].parent_id);
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
            if (kind[i] || !starts(td_strget(st, t->ranges[i].name), cp)) continue;
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
    size_t base = x->nm;
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
        const char *nm = td_strget(st, r->name);
        const char *v;
        size_t vl;
        xmod *m = TD_PUSH(x->m, x->nm, x->mcap);
        memset(m, 0, sizeof *m);
        m->tr = ti; m->ri = i;
        m->name = field(nm, "hlo_module", &v, &vl) ? td_intern(st, v, vl) : r->name;
        m->program = prog_of(nm);
        m->device = dev;
        m->tid = k->tid;
        m->s = r->gpu_start; m->e = r->gpu_end;
        m->nthunks = nthunks[i];
        mrec[i] = (int64_t)(x->nm - 1);
    }
    /* execution index per (thread, program), in range-id order */
    {
        size_t nn = x->nm - base;
        modkey *ek = td_xmalloc((nn ? nn : 1) * sizeof *ek);
        for (size_t a = 0; a < nn; a++) {
            ek[a].k1 = x->m[base + a].tid;
            ek[a].k2 = x->m[base + a].program;
            ek[a].pos = a;
        }
        qsort(ek, nn, sizeof *ek, cmp_modkey);
        for (size_t a = 0; a < nn; a++)
            x->m[base + ek[a].pos].exec = a && ek[a - 1].k1 == ek[a].k1
                                          && ek[a - 1].k2 == ek[a].k2
                                          ? x->m[base + ek[a - 1].pos].exec + 1 : 0;
        free(ek);
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
        if (field(nm, "hlo_op", &v, &vl)) {
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
        h->comm = comm_type(td_strget(st, h->kind)) != NULL;
        h->bytes = -1;
    }
    free(mk); free(mrec); free(dead); free(mods); free(nthunks); free(modof); free(keep); free(kind);
    idmap_free(&im);
}

/* ---- collective message sizes from HLO dumps ------------------------------------------ */

/* What nsys-jax reads from the after-optimization HloProto for one collective
 * instruction (by its name, the thunk's hlo_op). */
typedef struct hcoll {
    const uint8_t *name; size_t namel;   /* instruction name, in the decoded buffer */
    const char *type;   /* allreduce, allgather, ... */
    int64_t bytes;      /* message size, nccl-tests convention (full buffer for AG/RS) */
    int32_t group;      /* devices per replica group, 0 unknown */
    const char *dtype;  /* element type, "mixed", or NULL */
} hcoll;

/* One dump to decode: decoding needs no shared state, so jobs run on two threads. */
typedef struct hjob {
    const td_hlo_dump *d;
    int tr;
    uint8_t *buf;       /* decoded HloProto (names point into it) */
    hcoll *hc;
    size_t nh;
} hjob;

typedef struct hinst {
    int64_t id, comp;          /* instruction id, computation id */
    const uint8_t *name; size_t namel;
    const uint8_t *op; size_t opl;
    int64_t bytes;             /* shape size, -1 unknown */
    int etype;
    size_t ops, nops;          /* operand ids: [ops, ops + nops) in the shared array */
    size_t calls, ncalls;      /* called computation ids */
    int32_t group;             /* first replica group size, -1 heterogeneous, 0 none */
} hinst;

typedef struct pb { const uint8_t *p, *end; int bad; } pb;
static uint64_t pb_varint(pb *r)
{
    return td_varint(&r->p, r->end, &r->bad);
}
/* Next field: returns the field number (0 at the end), wire type in *wt; for
 * length-delimited fields *sub is the payload. */
static uint32_t pb_next(pb *r, int *wt, pb *sub, uint64_t *val)
{
    if (r->bad || r->p >= r->end) return 0;
    uint64_t key = pb_varint(r);
    *wt = (int)(key & 7);
    uint32_t f = (uint32_t)(key >> 3);
    switch (*wt) {
    case 0: *val = pb_varint(r); break;
    case 1: if (r->end - r->p < 8) r->bad = 1; else r->p += 8; break;
    case 5: if (r->end - r->p < 4) r->bad = 1; else r->p += 4; break;
    case 2: {
        uint64_t l = pb_varint(r);
        if (r->bad || l > (uint64_t)(r->end - r->p)) { r->bad = 1; break; }
        sub->p = r->p; sub->end = r->p + l; sub->bad = 0;
        r->p += l;
        break;
    }
    default: r->bad = 1;
    }
    return r->bad || f == 0 ? 0 : f;
}
/* repeated int64, packed or not */
static void pb_ints(int wt, pb *sub, uint64_t val, int64_t **a, size_t *n, size_t *cap)
{
    if (wt == 0) { *TD_PUSH(*a, *n, *cap) = (int64_t)val; return; }
    if (wt != 2) return;
    while (sub->p < sub->end && !sub->bad) *TD_PUSH(*a, *n, *cap) = (int64_t)pb_varint(sub);
}

static int etype_bits(int t)
{
    switch (t) {
    case 1: case 2: case 6: case 19: case 20: case 23: case 24: case 25: return 8;
    case 26: case 27: return 2;
    case 21: case 22: return 4;
    case 3: case 7: case 10: case 16: return 16;
    case 4: case 8: case 11: return 32;
    case 5: case 9: case 12: case 15: return 64;
    case 18: return 128;
    default: return 0;
    }
}
static const char *etype_name(int t)
{
    static const char *n[] = { "invalid", "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32",
                               "u64", "f16", "f32", "f64", "tuple", "opaque", "c64", "bf16",
                               "token", "c128", "f8e5m2", "f8e4m3fn", "s4", "u4",
                               "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "s2", "u2" };
    return t >= 0 && t < (int)(sizeof n / sizeof *n) ? n[t] : "unknown";
}

/* Size in bytes of a ShapeProto (tuples: the sum of their elements); -1 unknown. */
static int64_t shape_bytes(pb s, int *etype, int depth)
{
    int wt, et = 0;
    pb sub = {0};
    uint64_t v = 0;
    uint32_t f;
    int64_t elems = 1, tup = 0;
    int ntup = 0;
    int64_t *dims = NULL;
    size_t nd = 0, cap = 0;
    while ((f = pb_next(&s, &wt, &sub, &v))) {
        if (f == 2 && wt == 0) et = (int)v;
        else if (f == 3) pb_ints(wt, &sub, v, &dims, &nd, &cap);
        else if (f == 4 && wt == 2 && depth < 8) {
            int e2;
            int64_t b = shape_bytes(sub, &e2, depth + 1);
            tup = b < 0 || tup < 0 ? -1 : tup + b;
            ntup++;
        }
    }
    for (size_t i = 0; i < nd; i++) {
        if (dims[i] < 0 || (dims[i] && elems > INT64_MAX / 128 / dims[i])) { elems = -1; break; }
        elems *= dims[i];
    }
    free(dims);
    *etype = et;
    if (s.bad) return -1;
    if (et == 13) return ntup ? tup : -1;
    int bits = etype_bits(et);
    if (!bits || elems < 0) return -1;
    return elems * bits / 8;
}

static const char *coll_opcode_type(const uint8_t *op, size_t l)
{
    static const struct { const char *op, *type; } m[] = {
        { "all-gather-start", "allgather" }, { "all-gather", "allgather" },
        { "all-reduce-start", "allreduce" }, { "all-reduce", "allreduce" },
        { "reduce-scatter", "reducescatter" }, { "all-to-all", "alltoall" },
        { "collective-permute-start", "sendrecv" }, { "collective-permute", "sendrecv" },
        { "collective-broadcast", "broadcast" } };
    for (size_t i = 0; i < sizeof m / sizeof *m; i++)
        if (strlen(m[i].op) == l && !memcmp(op, m[i].op, l)) return m[i].type;
    return NULL;
}

static int cmp_hinst_id(const void *a, const void *b)
{
    const hinst *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}
static const hinst *hinst_by_id(const hinst *in, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (in[m].id < id) lo = m + 1;
        else hi = m;
    }
    return lo < n && in[lo].id == id ? &in[lo] : NULL;
}

/* Decode one dump and list its collective instructions (malloc'd, *n entries). */
static void hlo_collectives(hjob *job)
{
    const td_hlo_dump *d = job->d;
    job->nh = 0;
    job->hc = NULL;
    uint8_t *buf = NULL;
    size_t got = 0;
    /* HLO xz ratio ~16; a dump that does not decode is read as empty */
    if (td_unxz(d->xz, d->n, d->n * 20 + 4096, (size_t)1 << 30, &buf, &got, NULL))
        buf = td_xmalloc(1); /* empty, but a real pointer for the decoder's bounds */
    hinst *in = NULL;
    size_t nin = 0, incap = 0;
    int64_t *ids = NULL;
    size_t nids = 0, idcap = 0;
    pb top = { buf, buf + got, 0 }, mod = {0}, comp = {0}, ins = {0}, x = {0};
    int wt;
    uint64_t v;
    uint32_t f;
    while ((f = pb_next(&top, &wt, &mod, &v))) {
        if (f != 1 || wt != 2) continue;            /* HloProto.hlo_module */
        pb m = mod;
        while ((f = pb_next(&m, &wt, &comp, &v))) {
            if (f != 3 || wt != 2) continue;        /* HloModuleProto.computations */
            pb c = comp, c2 = comp;
            int64_t cid = -1;
            while ((f = pb_next(&c2, &wt, &x, &v))) if (f == 5 && wt == 0) cid = (int64_t)v;
            while ((f = pb_next(&c, &wt, &ins, &v))) {
                if (f != 2 || wt != 2) continue;    /* HloComputationProto.instructions */
                hinst *h = TD_PUSH(in, nin, incap);
                memset(h, 0, sizeof *h);
                h->comp = cid;
                h->bytes = -1;
                h->ops = nids;
                pb i = ins;
                int firstgroup = 1;
                while ((f = pb_next(&i, &wt, &x, &v))) {
                    if (f == 1 && wt == 2) { h->name = x.p; h->namel = (size_t)(x.end - x.p); }
                    else if (f == 2 && wt == 2) { h->op = x.p; h->opl = (size_t)(x.end - x.p); }
                    else if (f == 3 && wt == 2) h->bytes = shape_bytes(x, &h->etype, 0);
                    else if (f == 35 && wt == 0) h->id = (int64_t)v;
                    else if (f == 49 && wt == 2) {   /* ReplicaGroup.replica_ids */
                        pb g = x, y = {0};
                        int32_t cnt = 0;
                        int wt2;
                        uint64_t v2;
                        uint32_t f2;
                        while ((f2 = pb_next(&g, &wt2, &y, &v2)))
                            if (f2 == 1) {
                                if (wt2 == 0) cnt++;
                                else while (y.p < y.end && !y.bad) { pb_varint(&y); cnt++; }
                            }
                        if (firstgroup) h->group = cnt;
                        else if (h->group != cnt) h->group = -1;
                        firstgroup = 0;
                    }
                }
                /* operands and called computations need a second look: keep them in
                 * the shared id array, operands first */
                pb i2 = ins;
                while ((f = pb_next(&i2, &wt, &x, &v)))
                    if (f == 36) pb_ints(wt, &x, v, &ids, &nids, &idcap);
                h->nops = nids - h->ops;
                h->calls = nids;
                i2 = ins;
                while ((f = pb_next(&i2, &wt, &x, &v)))
                    if (f == 38) pb_ints(wt, &x, v, &ids, &nids, &idcap);
                h->ncalls = nids - h->calls;
            }
        }
    }
    if (nin) qsort(in, nin, sizeof *in, cmp_hinst_id);
    /* collective instructions by computation, for async wrappers */
    modkey *bycomp = td_xmalloc((nin ? nin : 1) * sizeof *bycomp);
    size_t nbc = 0;
    for (size_t k = 0; k < nin; k++)
        if (in[k].op && coll_opcode_type(in[k].op, in[k].opl)) {
            bycomp[nbc].k1 = in[k].comp;
            bycomp[nbc].k2 = 0;
            bycomp[nbc++].pos = k;
        }
    if (nbc) qsort(bycomp, nbc, sizeof *bycomp, cmp_modkey);
    hcoll *out = NULL;
    size_t nout2 = 0, ocap = 0;
    for (size_t k = 0; k < nin; k++) {
        const hinst *h = &in[k], *c = h;
        const char *type = coll_opcode_type(h->op, h->opl);
        /* async wrappers: the collective is inside a called computation */
        int async = h->opl == 11 && !memcmp(h->op, "async-start", 11);
        for (size_t j = 0; !type && async && j < h->ncalls; j++) {
            size_t lo = 0, hi = nbc;
            while (lo < hi) {
                size_t m = (lo + hi) / 2;
                if (bycomp[m].k1 < ids[h->calls + j]) lo = m + 1;
                else hi = m;
            }
            if (lo < nbc && bycomp[lo].k1 == ids[h->calls + j]) {
                c = &in[bycomp[lo].pos];
                type = coll_opcode_type(c->op, c->opl);
            }
        }
        if (!type || !h->name) continue;
        int32_t group = !strcmp(type, "sendrecv") ? 2 : c->group;
        int64_t bytes = 0;
        int et = 0;
        for (size_t j = 0; j < c->nops && bytes >= 0; j++) {
            const hinst *o = hinst_by_id(in, nin, ids[c->ops + j]);
            if (!o || o->bytes < 0) bytes = -1;
            else {
                bytes += o->bytes;
                et = j == 0 || et == o->etype ? o->etype : -1;   /* -1: mixed types */
            }
        }
        if (!c->nops) bytes = -1;
        /* nccl-tests: all-gather's message is the full (gathered) buffer; a
         * reduce-scatter's operand already is the full buffer */
        if (bytes >= 0 && !strcmp(type, "allgather")) bytes = group > 0 ? bytes * group : -1;
        hcoll *o = TD_PUSH(out, nout2, ocap);
        o->name = h->name;
        o->namel = h->namel;
        o->type = type;
        o->bytes = bytes;
        o->group = group > 0 ? group : 0;
        o->dtype = et < 0 ? "mixed" : et ? etype_name(et) : NULL;
    }
    free(bycomp);
    free(in);
    free(ids);
    job->buf = buf;
    job->hc = out;
    job->nh = nout2;
}

typedef struct hpool { hjob *jobs; size_t n, first; } hpool;
static void *hlo_worker(void *p)
{
    hpool *hp = p;
    for (size_t i = hp->first; i < hp->n; i += 2) hlo_collectives(&hp->jobs[i]);
    return NULL;
}

/* ---- compile statistics (push/pop ranges) ------------------------------------------- */

typedef struct cr {
    int64_t dur, dchild, dnon;
    int64_t parent;      /* index, -1 none */
    int retained;        /* 1 main thread, 2 grafted worker root, 3 worker descendant */
    int nan;             /* child times unknown (grafted workers) */
    int main;
    td_str clean;
    int64_t credit;      /* non-child ns credited to this range's phase */
} cr;

typedef struct phase { td_str name; int64_t non_child; } phase;

static int cmp_phase(const void *a, const void *b)
{
    const phase *x = a, *y = b;
    if (x->non_child != y->non_child) return x->non_child > y->non_child ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Remove every occurrence of pat from buf (in place). */
static void erase_all(char *buf, const char *pat)
{
    size_t pl = strlen(pat);
    if (!pl) return;
    char *p;
    while ((p = strstr(buf, pat))) memmove(p, p + pl, strlen(p + pl) + 1);
}

#define MAXUP 256   /* deepest ancestor walk: NVTX nesting never comes close */

static int is_compile(const char *nm) { return starts(nm, "TSL:XlaCompile:#module="); }

static const td_range *g_cr;   /* for cmp_start */
static int cmp_start(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const td_range *p = &g_cr[i], *q = &g_cr[j];
    if (p->start != q->start) return p->start < q->start ? -1 : 1;
    if (p->level != q->level) return p->level < q->level ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* Deepest retained main-thread range of an XlaCompile strictly containing worker range
 * w (or the XlaCompile itself when none does); -1 when w is outside every compile. */
static int64_t graft_parent(const td_range *R, const cr *c, const int64_t *cid,
                            const size_t *M, size_t nM, size_t w)
{
    size_t lo = 0, hi = nM;   /* last main range starting before w */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (R[M[mid]].start < R[w].start) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    int64_t a = (int64_t)M[lo - 1];
    for (int g = 0; a >= 0 && g < MAXUP; g++, a = c[a].parent) {
        if (c[a].retained != 1) return -1;
        int64_t C = cid[a];
        if (C < 0 || R[w].start < R[C].start || R[w].end > R[C].end) return -1;
        if (a == C) return C;
        if (R[a].start < R[w].start && R[a].end > R[w].end) return a;
    }
    return -1;
}

static void compile_trace(xctx *x, td_trace *t, phase **ph, size_t *nph, size_t *phcap,
                          idmap *phmap, td_flame *fl, int64_t **seen, size_t *nseen,
                          size_t *seencap)
{
    size_t n = t->ncompile;
    if (!n) return;
    const td_range *R = t->compile;
    td_strtab *st = x->set->strs;
    cr *c = td_xcalloc(n, sizeof *c);
    idmap im;
    idmap_init(&im, n);
    for (size_t i = 0; i < n; i++) idmap_put(&im, R[i].range_id, (uint32_t)i);
    for (size_t i = 0; i < n; i++) {
        c[i].dur = R[i].end - R[i].start;
        c[i].parent = idmap_get(&im, R[i].parent_id);
        if (c[i].parent == (int64_t)i) c[i].parent = -1;
    }
    idmap_free(&im);
    /* DurChild = time of direct children (what nsys writes in the CSV) */
    for (size_t i = 0; i < n; i++) if (c[i].parent >= 0) c[c[i].parent].dchild += c[i].dur;
    for (size_t i = 0; i < n; i++) c[i].dnon = c[i].dur - c[i].dchild;
    uint8_t *isc = td_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) isc[i] = (uint8_t)is_compile(td_strget(st, R[i].name));
    /* main thread: the one with the most XlaCompile ranges */
    uint32_t mtrack = UINT32_MAX;
    {
        size_t *cnt = td_xcalloc(t->ntracks + 1, sizeof *cnt), best = 0;
        for (size_t i = 0; i < n; i++)
            if (isc[i] && R[i].track < t->ntracks && ++cnt[R[i].track] > best) {
                best = cnt[R[i].track];
                mtrack = R[i].track;
            }
        free(cnt);
    }
    if (mtrack == UINT32_MAX) { free(isc); free(c); return; }
    /* cid: the XlaCompile range above each range (on its own thread), -1 none */
    int64_t *cid = td_xmalloc(n * sizeof *cid);
    for (size_t i = 0; i < n; i++) {
        cid[i] = -1;
        int64_t a = (int64_t)i;
        for (int g = 0; a >= 0 && g < MAXUP; g++, a = c[a].parent)
            if (isc[a]) { cid[i] = a; break; }
        if (cid[i] >= 0 && (R[cid[i]].track != R[i].track || R[i].start < R[cid[i]].start
                            || R[i].end > R[cid[i]].end)) cid[i] = -1;
        if (cid[i] >= 0) c[i].retained = 1;
    }
    /* splice worker ranges under the deepest main-thread range containing them */
    size_t *M = td_xmalloc(n * sizeof *M), nM = 0;
    for (size_t i = 0; i < n; i++) if (c[i].retained == 1 && R[i].track == mtrack) M[nM++] = i;
    g_cr = R;
    qsort(M, nM, sizeof *M, cmp_start);
    size_t *W = td_xmalloc(n * sizeof *W), nW = 0;
    for (size_t w = 0; w < n; w++)
        if (c[w].parent < 0 && R[w].track != mtrack && !c[w].retained) W[nW++] = w;
    for (size_t k = 0; k < nW; k++) {
        size_t w = W[k];
        int64_t np = graft_parent(R, c, cid, M, nM, w);
        if (np < 0) continue;
        c[w].parent = np;
        c[np].nan = 1;
        c[w].retained = 2;
    }
    free(W); free(M); free(cid); free(isc);
    /* worker subtrees follow their grafted roots */
    for (size_t i = 0; i < n; i++) {
        if (c[i].retained) continue;
        int64_t p = c[i].parent;
        for (int g = 0; p >= 0 && g < MAXUP; g++, p = c[p].parent) {
            if (c[p].retained == 2) { c[i].retained = 3; break; }
            if (c[p].retained) break;
        }
    }
    /* fold non-TSL ranges (cuBLAS, NCCL...) into their TSL parents */
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained || starts(td_strget(st, R[i].name), "TSL:")) continue;
        c[i].retained = 0;
        int64_t p = c[i].parent;
        if (p >= 0) { c[p].dchild -= c[i].dur; c[p].dnon += c[i].dur; }
    }
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        int g = 0;
        for (int64_t p = c[i].parent; p >= 0 && g < MAXUP; p = c[p].parent, g++)
            if (!c[p].retained) { c[i].retained = 0; break; }
    }
    /* program name and id: from XlaCompileBackend ranges, up to their parent, then down */
    td_str *pname = td_xcalloc(n, sizeof *pname);
    int64_t *pid = td_xmalloc(n * sizeof *pid);
    for (size_t i = 0; i < n; i++) pid[i] = -1;
    for (size_t i = 0; i < n; i++) {
        const char *nm = td_strget(st, R[i].name), *v;
        size_t vl;
        if (!c[i].retained || !starts(nm, "TSL:XlaCompileBackend:#module=")) continue;
        if (!field(nm, "module", &v, &vl)) continue;
        td_str mn = td_intern(st, v, vl);
        if (!field(nm, "program_id", &v, &vl)) continue;
        int64_t id = strtoll(v, NULL, 10);
        pname[i] = mn; pid[i] = id;
        if (c[i].parent >= 0) { pname[c[i].parent] = mn; pid[c[i].parent] = id; }
        *TD_PUSH(*seen, *nseen, *seencap) = id;
    }
    for (size_t i = 0; i < n; i++) {
        if (pid[i] >= 0 || !c[i].retained) continue;
        int g = 0;
        for (int64_t p = c[i].parent; p >= 0 && g < MAXUP; p = c[p].parent, g++)
            if (pid[p] >= 0) { pid[i] = pid[p]; pname[i] = pname[p]; break; }
    }
    /* clean names: no TSL: prefix, no program id or module name */
    char *buf = NULL;
    size_t bcap = 0;
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        const char *nm = td_strget(st, R[i].name);
        if (starts(nm, "TSL:")) nm += 4;
        size_t l = strlen(nm) + 1;
        if (l > bcap) { bcap = l * 2; buf = td_xrealloc(buf, bcap); }
        memcpy(buf, nm, l);
        if (pid[i] >= 0) {
            const char *pn = td_strget(st, pname[i]);
            size_t pl = strlen(pn) + 32;
            char *pat = td_xmalloc(pl);
            snprintf(pat, pl, ",program_id=%lld", (long long)pid[i]);
            erase_all(buf, pat);
            snprintf(pat, pl, ",module=%s", pn);
            erase_all(buf, pat);
            snprintf(pat, pl, ":#module=%s#", pn);
            erase_all(buf, pat);
            free(pat);
        }
        c[i].clean = td_intern_cstr(st, buf);
    }
    free(buf); free(pname); free(pid);
    /* collapse autotuner detail */
    td_str meas = td_intern_cstr(st, "XlaAutotunerMeasurement");
    td_str comp = td_intern_cstr(st, "XlaAutotunerCompilation");
    for (size_t i = 0; i < n; i++)
        if (c[i].retained && starts(td_strget(st, c[i].clean), "XlaAutotunerMeasurement"))
            c[i].clean = meas;
    for (int pass = 0; pass < 2; pass++) {
        td_str which = pass ? comp : meas;
        uint8_t *col = td_xcalloc(n, 1);
        for (size_t i = 0; i < n; i++)
            if (c[i].retained && c[i].clean == which) col[i] = 1;
        for (size_t i = 0; i < n; i++) {
            if (!c[i].retained) continue;
            int g = 0;
            for (int64_t p = c[i].parent; p >= 0 && g < MAXUP; p = c[p].parent, g++)
                if (col[p]) { c[i].retained = 0; break; }
        }
        for (size_t i = 0; i < n; i++)
            if (col[i]) { c[i].dchild = 0; c[i].dnon = c[i].dur; c[i].nan = 0; }
        free(col);
    }
    for (size_t i = 0; i < n; i++) c[i].main = c[i].retained && R[i].track == mtrack;
    /* parallel regions: main-thread ranges that are parents of worker ranges. Like
     * nsys-jax, a region covers every descendant of its launcher (all depths). */
    typedef struct region { int64_t ps, pe, worker, maindur; } region;
    int64_t *ri = td_xmalloc(n * sizeof *ri);
    region *rg = NULL;
    size_t nrg = 0, rgcap = 0;
    for (size_t i = 0; i < n; i++) ri[i] = -1;
    for (size_t i = 0; i < n; i++)
        if (c[i].retained && !c[i].main && c[i].parent >= 0 && c[c[i].parent].main
            && ri[c[i].parent] < 0) {
            region *r = TD_PUSH(rg, nrg, rgcap);
            r->ps = INT64_MAX; r->pe = INT64_MIN; r->worker = 0; r->maindur = 0;
            ri[c[i].parent] = (int64_t)(nrg - 1);
        }
    for (int pass = 0; pass < 2 && nrg; pass++)
        for (size_t j = 0; j < n; j++) {
            if (!c[j].retained) continue;
            int g = 0;
            for (int64_t a = c[j].parent; a >= 0 && g < MAXUP; a = c[a].parent, g++) {
                if (ri[a] < 0 || !c[a].retained) continue;
                region *r = &rg[ri[a]];
                if (pass == 0) {
                    if (c[j].main) { r->maindur += c[j].dur; continue; }
                    if (R[j].start < r->ps) r->ps = R[j].start;
                    if (R[j].end > r->pe) r->pe = R[j].end;
                    r->worker += c[j].dnon;
                } else if (!c[j].main && r->worker > 0) {
                    c[j].credit += (int64_t)llround((double)(r->pe - r->ps) * (double)c[j].dnon
                                                    / (double)r->worker);
                }
            }
        }
    for (size_t L = 0; L < n; L++) {
        if (ri[L] < 0) continue;
        region *r = &rg[ri[L]];
        c[L].dchild = r->maindur + (r->pe - r->ps);
        c[L].dnon = c[L].dur - c[L].dchild;
        c[L].nan = 0;
    }
    free(rg); free(ri);
    for (size_t i = 0; i < n; i++)
        if (c[i].main) c[i].credit = c[i].nan ? 0 : c[i].dnon;
    /* phases and the compile flame */
    td_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (!c[i].retained) continue;
        int64_t k = idmap_get(phmap, c[i].clean);
        if (k < 0) {
            phase *p = TD_PUSH(*ph, *nph, *phcap);
            p->name = c[i].clean;
            p->non_child = 0;
            k = (int64_t)(*nph - 1);
            idmap_put(phmap, c[i].clean, (uint32_t)k);
        }
        (*ph)[k].non_child += c[i].credit;
        if (c[i].credit <= 0) continue;
        td_str stk[MAXUP];
        int d = 0;
        for (int64_t p = (int64_t)i; p >= 0 && d < MAXUP; p = c[p].parent) {
            if (!c[p].retained) break;
            stk[d++] = c[p].clean;
        }
        b.n = 0;
        for (int k2 = d - 1; k2 >= 0; k2--) {
            const char *s = td_strget(st, stk[k2]);
            if (b.n) td_buf_putc(&b, ';');
            for (; *s; s++) td_buf_putc(&b, *s == ';' ? ':' : *s == '\n' ? ' ' : *s);
        }
        td_flame_add(x->s, fl, td_buf_cstr(&b), c[i].credit);
    }
    td_buf_free(&b);
    free(c);
}

/* ---- the pass ----------------------------------------------------------------------- */

typedef struct mstat {
    int64_t program;
    td_str name;
    int64_t n, total;
    double sum, sq, tsum, tsq;
} mstat;

static int cmp_mstat(const void *a, const void *b)
{
    const mstat *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return x->program < y->program ? -1 : x->program > y->program;
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
static int cmp_th_inst(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const xthunk *p = &g_x->th[i], *q = &g_x->th[j];
    const xmod *mp = &g_x->m[p->mod], *mq = &g_x->m[q->mod];
    if (mp->program != mq->program) return mp->program < mq->program ? -1 : 1;
    if (mp->exec != mq->exec) return mp->exec < mq->exec ? -1 : 1;
    if (p->inst != q->inst) return p->inst < q->inst ? -1 : 1;
    if (p->exec != q->exec) return p->exec < q->exec ? -1 : 1;
    if (mp->device != mq->device) return mp->device < mq->device ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* End (exclusive) of the collective instance starting at ix[a]: same program,
 * execution, instruction and thunk execution, on different devices. */
static size_t inst_end(const xctx *x, const size_t *ix, size_t nc, size_t a)
{
    const xthunk *h0 = &x->th[ix[a]];
    size_t b = a + 1;
    while (b < nc) {
        const xthunk *q = &x->th[ix[b]];
        if (x->m[q->mod].program != x->m[h0->mod].program
            || x->m[q->mod].exec != x->m[h0->mod].exec || q->inst != h0->inst
            || q->exec != h0->exec) break;
        b++;
    }
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

void td_analyse_xla(td_traceset *set, const td_opts *o, td_summary *s)
{
    td_analyse_xla_part(set, o, s, NULL);
}

void td_analyse_xla_part(td_traceset *set, const td_opts *o, td_summary *s, td_partial *part)
{
    xctx X = { set, o, s, NULL, 0, 0, NULL, 0, 0 };
    xctx *x = &X;
    for (size_t i = 0; i < set->n; i++) load_trace(x, (int)i);

    /* message sizes of communication thunks, from the HLO dumps of their programs;
     * the dumps are decoded on two threads (xz and protobuf, no shared state) */
    {
        hjob *jobs = NULL;
        size_t nj = 0, jcap = 0;
        for (size_t ti = 0; ti < set->n; ti++) {
            td_trace *t = set->tr[ti];
            for (size_t d = 0; d < t->nhlo; d++) {
                int used = 0;
                for (size_t i = 0; i < x->nth && !used; i++)
                    used = x->th[i].comm && x->m[x->th[i].mod].tr == (int)ti
                           && x->m[x->th[i].mod].program == t->hlo[d].program;
                if (!used) continue;
                hjob *j = TD_PUSH(jobs, nj, jcap);
                memset(j, 0, sizeof *j);
                j->d = &t->hlo[d];
                j->tr = (int)ti;
            }
        }
        hpool odd = { jobs, nj, 1 }, even = { jobs, nj, 0 };
        pthread_t th;
        int threaded = nj > 1 && pthread_create(&th, NULL, hlo_worker, &odd) == 0;
        if (threaded) {
            hlo_worker(&even);
            pthread_join(th, NULL);
        } else
            for (size_t i = 0; i < nj; i++) hlo_collectives(&jobs[i]);
        for (size_t jn = 0; jn < nj; jn++) {
            hjob *j = &jobs[jn];
            idmap hm;
            idmap_init(&hm, j->nh);
            for (size_t k = 0; k < j->nh; k++)
                idmap_put(&hm, td_intern(set->strs, (const char *)j->hc[k].name, j->hc[k].namel),
                          (uint32_t)k);
            for (size_t i = 0; i < x->nth; i++) {
                xthunk *h = &x->th[i];
                if (!h->comm || x->m[h->mod].tr != j->tr || x->m[h->mod].program != j->d->program)
                    continue;
                int64_t k = idmap_get(&hm, h->inst);
                if (k < 0) continue;
                h->bytes = j->hc[k].bytes;
                h->group = j->hc[k].group;
                h->dtype = j->hc[k].dtype ? td_intern_cstr(set->strs, j->hc[k].dtype) : 0;
            }
            idmap_free(&hm);
            free(j->hc);
            free(j->buf);
        }
        free(jobs);
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
    phase *ph = NULL;
    size_t nph = 0, phcap = 0;
    size_t seencap = 0, nseen = 0;
    int64_t *seen = NULL;
    int have_compile = 0;
    for (size_t i = 0; i < set->n; i++) have_compile |= set->tr[i]->ncompile > 0;
    td_flame *cfl = have_compile ? td_sum_flame(s, "compile", "Compile phases") : NULL;
    idmap phmap;
    idmap_init(&phmap, 1024);   /* phase names (a few hundred) */
    for (size_t i = 0; i < set->n; i++)
        if (set->tr[i]->ncompile) compile_trace(x, set->tr[i], &ph, &nph, &phcap, &phmap, cfl,
                                                &seen, &nseen, &seencap);
    idmap_free(&phmap);
    if (nseen) qsort(seen, nseen, sizeof *seen, cmp_i64);
    if (cfl) td_flame_finish(cfl);
    if (nph) {
        qsort(ph, nph, sizeof *ph, cmp_phase);
        for (size_t i = 0; part && i < nph; i++) {   /* every phase: the cut comes after */
            const char *pn = td_strget(set->strs, ph[i].name);
            td_part_add(part, TD_R_PHASE, pn, strlen(pn), &ph[i].non_child);
        }
        int64_t tot = 0;
        for (size_t i = 0; i < nph; i++) tot += ph[i].non_child;
        td_sum_set_int(s, "compile.total_ns", "Compile time", TD_T_NS, tot);
        td_table *t = td_sum_table(s, "compile.phases", "Compile phases (top 99%)");
        td_table_cols(t, "name:text:Phase", "non_child_ns:ns:Non-child time",
                      "share:share:Share", NULL);
        int64_t acc = 0;
        for (size_t i = 0; i < nph && tot > 0; i++) {
            if ((double)acc >= 0.99 * (double)tot) break;
            if (ph[i].non_child <= 0) break;
            size_t r = td_table_add_row(t);
            td_row_str(s, t, r, "name", td_strget(set->strs, ph[i].name));
            td_row_int(s, t, r, "non_child_ns", ph[i].non_child);
            td_row_f64(s, t, r, "share", (double)ph[i].non_child / (double)tot);
            acc += ph[i].non_child;
        }
    }
    free(ph);

    if (x->nm == 0) {   /* no XLA modules (e.g. an nsys export of a non-JAX program) */
        free(seen);
        free(x->m);
        free(x->th);
        return;
    }

    /* Devices: the generic pass counts devices with kernel events, which nsys-jax
     * archives do not have; count the devices modules ran on instead. */
    {
        const td_kv *dv = td_sum_get(s, "trace.devices");
        int32_t seen_dev[256];
        int nd = 0;
        for (size_t i = 0; i < x->nm; i++) {
            int f = 0;
            for (int k = 0; k < nd; k++) if (seen_dev[k] == x->m[i].device) f = 1;
            if (!f && nd < 256) seen_dev[nd++] = x->m[i].device;
        }
        if (nd && (!dv || dv->v.i <= 0))
            td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, nd);
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
        int compiled = nseen && bsearch(&m->program, seen, nseen, sizeof *seen, cmp_i64);
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

    /* module statistics per program id */
    mstat *ms = NULL;
    size_t nms = 0, mscap = 0;
    for (size_t i = 0; i < x->nm; i++) {
        xmod *m = &x->m[i];
        if (!m->steady) continue;
        size_t k;
        for (k = 0; k < nms; k++) if (ms[k].program == m->program) break;
        if (k == nms) {
            mstat *p = TD_PUSH(ms, nms, mscap);
            memset(p, 0, sizeof *p);
            p->program = m->program;
            p->name = m->name;
        }
        double d = (double)(m->e - m->s), th = (double)m->nthunks;
        if (part) {
            td_buf kb = {0};
            char pid[32];
            snprintf(pid, sizeof pid, "%lld", (long long)m->program);
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
    for (size_t k = 0; k < keepn; k++) {
        mstat *p = &ms[k];
        size_t r = td_table_add_row(mt);
        double mean = p->sum / (double)p->n, tmean = p->tsum / (double)p->n;
        td_row_str(s, mt, r, "name", td_strget(set->strs, p->name));
        td_row_int(s, mt, r, "program_id", p->program);
        td_row_int(s, mt, r, "executions", p->n);
        td_row_f64(s, mt, r, "thunks_mean", tmean);
        td_row_int(s, mt, r, "mean_ns", llround(mean));
        td_row_int(s, mt, r, "total_ns", p->total);
        td_row_f64(s, mt, r, "share", mtot ? (double)p->total / (double)mtot : 0);
        if (p->n > 1) {   /* sample standard deviations (n-1), like pandas */
            double v = (p->sq - p->n * mean * mean) / (double)(p->n - 1);
            double tv = (p->tsq - p->n * tmean * tmean) / (double)(p->n - 1);
            td_row_int(s, mt, r, "std_ns", llround(v > 0 ? sqrt(v) : 0));
            td_row_f64(s, mt, r, "thunks_std", tv > 0 ? sqrt(tv) : 0);
        }
    }

    /* hidden communication: overlap with compute thunks of the same program, device */
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
            if (q->comm || qm->program != hm->program || q->e <= h->s) continue;
            hid += (q->e < h->e ? q->e : h->e) - h->s;
        }
        for (size_t b = a + 1; b < x->nth; b++) {
            xthunk *q = &x->th[ix[b]];
            const xmod *qm = &x->m[q->mod];
            if (qm->device != hm->device || q->s >= h->e) break;
            if (q->comm || qm->program != hm->program) continue;
            hid += (q->e < h->e ? q->e : h->e) - (q->s > h->s ? q->s : h->s);
        }
        h->hidden = hid;
    }

    /* runtime totals over steady state, per device */
    int64_t thunks_ns = 0, modules_ns = 0, wall_ns = 0, idle_in = 0;
    {
        int32_t dev = INT32_MIN;
        int64_t first = 0, last = 0, ue = INT64_MIN, busy = 0;
        for (size_t a = 0; a <= x->nth; a++) {
            xthunk *h = a < x->nth ? &x->th[ix[a]] : NULL;
            if (h && !x->m[h->mod].steady) continue;
            int32_t d = h ? x->m[h->mod].device : INT32_MIN + 1;
            if (d != dev) {
                if (dev != INT32_MIN) wall_ns += last - first;
                if (!h) break;
                dev = d; first = h->s; last = h->e; ue = INT64_MIN;
            }
            thunks_ns += h->e - h->s;
            if (h->e > last) last = h->e;
            /* union of thunk intervals (for idle inside modules) */
            if (h->s >= ue) { busy += h->e - h->s; ue = h->e; }
            else if (h->e > ue) { busy += h->e - ue; ue = h->e; }
        }
        for (size_t i = 0; i < x->nm; i++) if (x->m[i].steady) modules_ns += x->m[i].e - x->m[i].s;
        idle_in = modules_ns - busy;
        if (idle_in < 0) idle_in = 0;
    }
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

    /* thunks of the top modules, hlo ops, device flame */
    {
        td_table *tt = td_sum_table(s, "thunks", "Thunks of the top modules");
        td_table_cols(tt, "module:text:Module", "name:text:Thunk", "hlo_op:text:HLO op",
                      "calls:int:Calls", "mean_ns:ns:Mean", "total_ns:ns:Total",
                      "share:share:Share of module", NULL);
        td_table *ht = td_sum_table(s, "hlo_ops", "Time by HLO op");
        td_table_cols(ht, "hlo_op:text:HLO op", "calls:int:Calls", "total_ns:ns:Total",
                      "share:share:Share", NULL);
        td_flame *fl = td_sum_flame(s, "device", "Device time by module");
        typedef struct agg { int64_t prog; td_str a, b; int64_t calls, total; } agg;
        agg *ta = NULL, *ha = NULL;
        size_t nta = 0, tacap = 0, nha = 0, hacap = 0;
        idmap tm;
        idmap_init(&tm, x->nth);
        for (size_t i = 0; i < x->nth; i++) {
            xthunk *h = &x->th[i];
            xmod *m = &x->m[h->mod];
            if (!m->steady) continue;
            int64_t d = h->e - h->s;
            size_t k;
            for (k = 0; k < nha; k++) if (ha[k].a == h->kind) break;
            if (k == nha) { agg *p = TD_PUSH(ha, nha, hacap); memset(p, 0, sizeof *p);
                p->a = h->kind; }
            ha[k].calls++; ha[k].total += d;
            if (part) {   /* every program's thunks: the top-module cut comes after */
                td_buf kb = {0};
                char pid[32];
                snprintf(pid, sizeof pid, "%lld", (long long)m->program);
                td_part_key(&kb, 3, pid, td_strget(set->strs, h->inst), td_strget(set->strs, h->kind));
                int64_t tv[2] = {1, d};
                td_part_add(part, TD_R_XTHUNK, kb.p, kb.n, tv);
                td_buf_free(&kb);
            }
            int top = 0;
            for (size_t q = 0; q < keepn; q++) if (ms[q].program == m->program) top = 1;
            if (!top) continue;
            int64_t key = (int64_t)((uint64_t)m->program << 32 | h->inst);
            int64_t kk = idmap_get(&tm, key);
            if (kk < 0) { agg *p = TD_PUSH(ta, nta, tacap); memset(p, 0, sizeof *p);
                p->prog = m->program; p->a = h->inst; p->b = h->kind; kk = (int64_t)nta - 1;
                idmap_put(&tm, key, (uint32_t)kk); }
            k = (size_t)kk;
            ta[k].calls++; ta[k].total += d;
        }
        int64_t htot = 0;
        for (size_t k = 0; k < nha; k++) htot += ha[k].total;
        for (size_t k = 0; k < nha; k++) {
            size_t r = td_table_add_row(ht);
            td_row_str(s, ht, r, "hlo_op", td_strget(set->strs, ha[k].a));
            td_row_int(s, ht, r, "calls", ha[k].calls);
            td_row_int(s, ht, r, "total_ns", ha[k].total);
            td_row_f64(s, ht, r, "share", htot ? (double)ha[k].total / (double)htot : 0);
        }
        td_table_sort(ht, "total_ns", 1);
        for (size_t k = 0; k < nta; k++) {
            int64_t modt = 0;
            const char *mn = "";
            for (size_t q = 0; q < nta; q++) if (ta[q].prog == ta[k].prog) modt += ta[q].total;
            for (size_t q = 0; q < keepn; q++)
                if (ms[q].program == ta[k].prog) mn = td_strget(set->strs, ms[q].name);
            size_t r = td_table_add_row(tt);
            td_row_str(s, tt, r, "module", mn);
            td_row_str(s, tt, r, "name", td_strget(set->strs, ta[k].a));
            td_row_str(s, tt, r, "hlo_op", td_strget(set->strs, ta[k].b));
            td_row_int(s, tt, r, "calls", ta[k].calls);
            td_row_int(s, tt, r, "mean_ns", llround((double)ta[k].total / (double)ta[k].calls));
            td_row_int(s, tt, r, "total_ns", ta[k].total);
            td_row_f64(s, tt, r, "share", modt ? (double)ta[k].total / (double)modt : 0);
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
        idmap_free(&tm);
    }

    /* collectives */
    if (any_comm) {
        int ndev = 0;
        int32_t devs[256];
        for (size_t i = 0; i < x->nm; i++) {
            int f = 0;
            for (int k = 0; k < ndev; k++) if (devs[k] == x->m[i].device) f = 1;
            if (!f && ndev < 256) devs[ndev++] = x->m[i].device;
        }
        size_t nc = 0;
        for (size_t i = 0; i < x->nth; i++)
            if (x->th[i].comm && x->m[x->th[i].mod].steady) ix[nc++] = i;
        qsort(ix, nc, sizeof *ix, cmp_th_inst);
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
                size_t b = inst_end(x, ix, nc, a);
                if (b - a == (size_t)ndev) {
                    double mean = 0;
                    for (size_t k = a; k < b; k++) mean += (double)x->th[ix[k]].e;
                    mean /= (double)(b - a);
                    for (size_t k = a; k < b; k++) {
                        int d = dev_index(devs, ndev, x->m[x->th[ix[k]].mod].device);
                        if (d >= 0) *TD_PUSH(sk[d], nsk[d], cap[d]) = (double)x->th[ix[k]].e - mean;
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
            const char *type;
            int64_t bytes, group, seen, calls, total, hidden, wait;
            td_str dtype;
        } cagg;
        cagg *ca = NULL;
        size_t nca = 0, cacap = 0;
        for (size_t a = 0; a < nc;) {
            /* one instance: same program, execution, instruction and thunk execution */
            size_t b = inst_end(x, ix, nc, a);
            int64_t fs = INT64_MAX, le = INT64_MIN, fd = INT64_MAX;
            size_t row = 0;
            for (size_t k = a; k < b; k++) {
                const xthunk *q = &x->th[ix[k]];
                int d = dev_index(devs, ndev, x->m[q->mod].device);
                int64_t cs = q->s - (d >= 0 ? corr[d] : 0), ce = q->e - (d >= 0 ? corr[d] : 0);
                if (cs < fs) fs = cs;
                if (ce > le) le = ce;
                if (q->e - q->s < fd) fd = q->e - q->s;
                const char *type = comm_type(td_strget(set->strs, q->kind));
                size_t c;
                for (c = 0; c < nca; c++)
                    if (!strcmp(ca[c].type, type) && ca[c].bytes == q->bytes
                        && ca[c].group == q->group && ca[c].dtype == q->dtype) break;
                if (c == nca) {
                    cagg *n2 = TD_PUSH(ca, nca, cacap);
                    memset(n2, 0, sizeof *n2);
                    n2->type = type; n2->bytes = q->bytes; n2->group = q->group;
                    n2->dtype = q->dtype;
                }
                if (k == a) row = c;
                ca[c].calls++;
                ca[c].total += q->e - q->s;
                ca[c].hidden += q->hidden < q->e - q->s ? q->hidden : q->e - q->s;
            }
            if (b - a > 1) ca[row].wait += le - fs - fd;
            /* devices seen taking part in one instance: the group size when the HLO
             * does not say and every process of the job was given */
            if ((int64_t)(b - a) > ca[row].seen) ca[row].seen = (int64_t)(b - a);
            a = b;
        }
        td_table *ct = td_sum_table(s, "collectives", "Collectives");
        td_table_cols(ct, "name:text:Collective", "bytes:bytes:Message size", "calls:int:Calls",
                      "total_ns:ns:Total", "mean_ns:ns:Mean", "algbw_gbps:gbps:Alg BW",
                      "busbw_gbps:gbps:Bus BW", "group_size:int:Group", "dtype:text:Type",
                      "hidden_ns:ns:Hidden", "wait_ns:ns:Wait", NULL);
        int multi = 0;
        for (size_t i = 1; i < set->n; i++) if (set->tr[i]->nranges) multi = 1;
        for (size_t c = 0; c < nca; c++) {
            size_t r = td_table_add_row(ct);
            td_row_str(s, ct, r, "name", ca[c].type);
            td_row_int(s, ct, r, "calls", ca[c].calls);
            td_row_int(s, ct, r, "total_ns", ca[c].total);
            td_row_int(s, ct, r, "mean_ns", llround((double)ca[c].total / (double)ca[c].calls));
            td_row_int(s, ct, r, "hidden_ns", ca[c].hidden);
            if (multi || ndev > 1) td_row_int(s, ct, r, "wait_ns", ca[c].wait);
            int64_t g = ca[c].group ? ca[c].group : (multi || ndev > 1) ? ca[c].seen : 0;
            if (g > 0) td_row_int(s, ct, r, "group_size", g);
            if (ca[c].dtype) td_row_str(s, ct, r, "dtype", td_strget(set->strs, ca[c].dtype));
            if (ca[c].bytes >= 0 && ca[c].total > 0) {
                /* nccl-tests: algbw = bytes / time (bytes per ns = GB/s); busbw = algbw
                 * x factor; time is the whole projected duration, as nsys-jax uses */
                double alg = (double)ca[c].bytes * (double)ca[c].calls / (double)ca[c].total;
                td_row_int(s, ct, r, "bytes", ca[c].bytes);
                td_row_f64(s, ct, r, "algbw_gbps", alg);
                if (g > 0) td_row_f64(s, ct, r, "busbw_gbps", alg * bus_factor(ca[c].type, (int)g));
            }
        }
        td_table_sort(ct, "total_ns", 1);
        free(ca);
    }
    free(ix);
    free(ms);
    free(x->m);
    free(x->th);
}
