/* analyse/xla/hlo.c - the after-optimisation HloProto dumps of an nsys-jax archive
 * (dump/module_NNNN.*_gpu_after_optimizations.hlo.pb.xz): xz, then a minimal protobuf
 * reader for what nsys-jax reads from them. Field numbers come from the archive's own
 * protos/xla/service/hlo.proto and xla_data.proto:
 *  HloProto.hlo_module = 1; HloModuleProto: computations = 3, stack_frame_index = 17,
 *  frontend_attributes = 19 (map<string,string> map = 1: fingerprint_before_lhs is the
 *  program's identity for nsys-jax); HloComputationProto: instructions = 2, id = 5;
 *  HloInstructionProto: name = 1, opcode = 2, shape = 3, metadata = 7 (OpMetadata:
 *  op_name = 2, stack_frame_id = 15), id = 35, operand_ids = 36,
 *  called_computation_ids = 38, replica_groups = 49 (replica_ids = 1);
 *  StackFrameIndexProto: file_names = 1, function_names = 2, file_locations = 3
 *  (file_name_id, function_name_id, line, column = 1..4), stack_frames = 4
 *  (file_location_id = 1, parent_frame_id = 2), ids 1-based.
 * Collective message sizes follow nccl-tests as nsys-jax does (operand bytes; the full
 * buffer for all-gather). A dump that does not decode is read as empty. */
#include "analyse/xla/xla.h"
#include "base/sort.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct pb { const uint8_t *p, *end; int bad; } pb;
static uint64_t pb_varint(pb *r) { return td_varint(&r->p, r->end, &r->bad); }
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

static const char *coll_opcode_type(const char *op, size_t l)
{
    static const struct { const char *op, *type; } m[] = {
        { "all-gather-start", "allgather" }, { "all-gather", "allgather" },
        { "all-reduce-start", "allreduce" }, { "all-reduce", "allreduce" },
        { "reduce-scatter", "reducescatter" }, { "all-to-all", "alltoall" },
        { "collective-permute-start", "sendrecv" }, { "collective-permute", "sendrecv" },
        { "collective-broadcast", "broadcast" } };
    for (size_t i = 0; op && i < sizeof m / sizeof *m; i++)
        if (strlen(m[i].op) == l && !memcmp(op, m[i].op, l)) return m[i].type;
    return NULL;
}

/* per-instruction decode state not kept afterwards */
typedef struct hraw {
    int64_t bytes;
    int etype;
    size_t ops, nops;
    int32_t group;      /* first replica group size, -1 heterogeneous, 0 none */
} hraw;

/* qsort has no context argument; dumps are decoded on two threads at once */
static _Thread_local const xla_hlo *g_h;
static int cmp_name(const void *a, const void *b)
{
    const xla_hinst *x = a, *y = b;
    size_t l = x->namel < y->namel ? x->namel : y->namel;
    int c = memcmp(x->name, y->name, l);
    if (c) return c;
    return x->namel < y->namel ? -1 : x->namel > y->namel;
}
static int cmp_perm_name(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = cmp_name(&g_h->in[i], &g_h->in[j]);
    return c ? c : i < j ? -1 : i > j;
}
static int64_t by_id(const xla_hlo *h, int64_t id)
{
    size_t lo = 0, hi = h->nbyid;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (h->in[h->byid[m]].id < id) lo = m + 1;
        else hi = m;
    }
    return lo < h->nbyid && h->in[h->byid[lo]].id == id ? (int64_t)h->byid[lo] : -1;
}

static void decode_stack_index(xla_hlo *h, pb s)
{
    int wt;
    uint64_t v;
    uint32_t f;
    pb x = {0};
    size_t cfn = 0, cfu = 0, cloc = 0, cfrm = 0;
    while ((f = pb_next(&s, &wt, &x, &v))) {
        if (wt != 2) continue;
        if (f == 1 || f == 2) {
            xla_sv *sv = f == 1 ? TD_PUSH(h->fn, h->nfn, cfn) : TD_PUSH(h->fu, h->nfu, cfu);
            sv->p = (const char *)x.p;
            sv->l = (size_t)(x.end - x.p);
        } else if (f == 3 || f == 4) {
            int32_t a[4] = {0, 0, 0, 0};
            pb y = {0};
            int wt2;
            uint64_t v2;
            uint32_t f2;
            pb e = x;
            while ((f2 = pb_next(&e, &wt2, &y, &v2)))
                if (wt2 == 0 && f2 >= 1 && f2 <= 4) a[f2 - 1] = (int32_t)v2;
            if (f == 3) {
                int32_t (*p)[4] = TD_PUSH(h->loc, h->nloc, cloc);
                memcpy(*p, a, sizeof a);
            } else {
                int32_t (*p)[2] = TD_PUSH(h->frm, h->nfrm, cfrm);
                (*p)[0] = a[0];
                (*p)[1] = a[1];
            }
        }
    }
}

/* The serialized HloProto in buf (got bytes; h takes buf). */
static void decode_pb(xla_hlo *h, uint8_t *buf, size_t got)
{
    h->buf = buf;
    /* room for what a dump of this size usually holds, so that the arrays are not copied
     * as they grow (nsys-jax's step function: 6.5 MB, 37,026 instructions and 49,384
     * operand and call ids, one per 176 and 132 bytes; a denser dump grows them), as
     * for a dump of 128 MiB at most (a 1 GiB dump, the most td_unxz_with gives, would
     * reserve 900 MB up front) */
    size_t room = got < ((size_t)128 << 20) ? got : ((size_t)128 << 20);
    size_t incap = room / 128 + 16, rawcap = incap, nraw = 0, idcap = room / 96 + 16;
    h->in = td_xmalloc(incap * sizeof *h->in);
    hraw *raw = td_xmalloc(rawcap * sizeof *raw);
    h->ids = td_xmalloc(idcap * sizeof *h->ids);
    pb top = { buf, buf + got, 0 }, mod = {0}, comp = {0}, ins = {0}, x = {0};
    int wt;
    uint64_t v;
    uint32_t f;
    while ((f = pb_next(&top, &wt, &mod, &v))) {
        if (f != 1 || wt != 2) continue;            /* HloProto.hlo_module */
        pb m = mod;
        while ((f = pb_next(&m, &wt, &comp, &v))) {
            if (wt != 2) continue;
            if (f == 17) { decode_stack_index(h, comp); continue; }
            if (f == 19) {                          /* frontend_attributes */
                pb fa = comp, e = {0};
                while ((f = pb_next(&fa, &wt, &e, &v))) {
                    if (f != 1 || wt != 2) continue;
                    pb kv = e, y = {0};
                    const uint8_t *k = NULL, *val = NULL;
                    size_t kl = 0, vl = 0;
                    while ((f = pb_next(&kv, &wt, &y, &v))) {
                        if (f == 1 && wt == 2) { k = y.p; kl = (size_t)(y.end - y.p); }
                        if (f == 2 && wt == 2) { val = y.p; vl = (size_t)(y.end - y.p); }
                    }
                    if (k && val && kl == 22 && !memcmp(k, "fingerprint_before_lhs", 22)
                        && vl < sizeof h->fingerprint) {
                        memcpy(h->fingerprint, val, vl);
                        h->fingerprint[vl] = 0;
                    }
                }
                continue;
            }
            if (f != 3) continue;                   /* HloModuleProto.computations */
            pb c = comp, c2 = comp;
            int64_t cid = -1;
            while ((f = pb_next(&c2, &wt, &x, &v))) if (f == 5 && wt == 0) cid = (int64_t)v;
            while ((f = pb_next(&c, &wt, &ins, &v))) {
                if (f != 2 || wt != 2) continue;    /* HloComputationProto.instructions */
                xla_hinst *hi = TD_PUSH(h->in, h->nin, incap);
                hraw *r = TD_PUSH(raw, nraw, rawcap);
                memset(hi, 0, sizeof *hi);
                memset(r, 0, sizeof *r);
                hi->comp = cid;
                hi->bytes = -1;
                hi->name = hi->op = hi->op_name = "";
                r->bytes = -1;
                r->ops = h->nids;
                pb i = ins;
                int firstgroup = 1;
                while ((f = pb_next(&i, &wt, &x, &v))) {
                    if (f == 1 && wt == 2) { hi->name = (const char *)x.p; hi->namel = (size_t)(x.end - x.p); }
                    else if (f == 2 && wt == 2) { hi->op = (const char *)x.p; hi->opl = (size_t)(x.end - x.p); }
                    else if (f == 3 && wt == 2) r->bytes = shape_bytes(x, &r->etype, 0);
                    else if (f == 35 && wt == 0) hi->id = (int64_t)v;
                    else if (f == 7 && wt == 2) {   /* OpMetadata */
                        pb md = x, y = {0};
                        int wt2;
                        uint64_t v2;
                        uint32_t f2;
                        while ((f2 = pb_next(&md, &wt2, &y, &v2))) {
                            if (f2 == 2 && wt2 == 2) {
                                hi->op_name = (const char *)y.p;
                                hi->op_namel = (size_t)(y.end - y.p);
                            } else if (f2 == 15 && wt2 == 0) hi->frame = (int32_t)v2;
                        }
                    } else if (f == 49 && wt == 2) {   /* ReplicaGroup.replica_ids */
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
                        if (firstgroup) r->group = cnt;
                        else if (r->group != cnt) r->group = -1;
                        firstgroup = 0;
                    }
                }
                /* operands, then called computations, in the shared id array */
                pb i2 = ins;
                while ((f = pb_next(&i2, &wt, &x, &v)))
                    if (f == 36) pb_ints(wt, &x, v, &h->ids, &h->nids, &idcap);
                r->nops = h->nids - r->ops;
                hi->calls = h->nids;
                i2 = ins;
                while ((f = pb_next(&i2, &wt, &x, &v)))
                    if (f == 38) pb_ints(wt, &x, v, &h->ids, &h->nids, &idcap);
                hi->ncalls = h->nids - hi->calls;
            }
        }
    }
    size_t n = h->nin;
    g_h = h;
    h->byid = td_xmalloc((n ? n : 1) * sizeof *h->byid);
    h->bycomp = td_xmalloc((n ? n : 1) * sizeof *h->bycomp);
    h->nbyid = n;
    /* by id and by computation, ties in decode order (a stable radix sort; the step
     * function's 37 K instructions twice through qsort's comparisons were a fifteenth of
     * the four nsys-jax archives' report) */
    {
        td_keyed *k = td_xmalloc((n ? n : 1) * sizeof *k);
        for (size_t i = 0; i < n; i++) k[i] = (td_keyed){h->in[i].id, (int64_t)i};
        td_sort_keyed(k, n);
        for (size_t i = 0; i < n; i++) h->byid[i] = (size_t)k[i].val;
        for (size_t i = 0; i < n; i++) k[i] = (td_keyed){h->in[i].comp, (int64_t)i};
        td_sort_keyed(k, n);
        for (size_t i = 0; i < n; i++) h->bycomp[i] = (size_t)k[i].val;
        free(k);
    }
    /* collectives, while raw[] still lines up with in[] */
    for (size_t k = 0; k < n; k++) {
        xla_hinst *hi = &h->in[k];
        size_t ci = k;
        const char *type = coll_opcode_type(hi->op, hi->opl);
        /* async wrappers: the collective is inside a called computation */
        int async = hi->opl == 11 && !memcmp(hi->op, "async-start", 11);
        for (size_t j = 0; !type && async && j < hi->ncalls; j++) {
            size_t first, cnt = xla_hlo_comp(h, h->ids[hi->calls + j], &first);
            for (size_t q = 0; q < cnt && !type; q++) {
                size_t c = h->bycomp[first + q];
                if ((type = coll_opcode_type(h->in[c].op, h->in[c].opl))) ci = c;
            }
        }
        if (!type) continue;
        const hraw *c = &raw[ci];
        int32_t group = !strcmp(type, "sendrecv") ? 2 : c->group;
        int64_t bytes = 0;
        int et = 0;
        for (size_t j = 0; j < c->nops && bytes >= 0; j++) {
            int64_t o = by_id(h, h->ids[c->ops + j]);
            if (o < 0 || raw[o].bytes < 0) bytes = -1;
            else {
                bytes += raw[o].bytes;
                et = j == 0 || et == raw[o].etype ? raw[o].etype : -1;   /* -1: mixed */
            }
        }
        if (!c->nops) bytes = -1;
        /* nccl-tests: all-gather's message is the full (gathered) buffer; a
         * reduce-scatter's operand already is the full buffer */
        if (bytes >= 0 && !strcmp(type, "allgather")) bytes = group > 0 ? bytes * group : -1;
        hi->ctype = type;
        hi->bytes = bytes;
        hi->group = group > 0 ? group : 0;
        hi->dtype = et < 0 ? "mixed" : et ? etype_name(et) : NULL;
    }
    free(raw);
    /* by name last: the index arrays above refer to the decode order */
    size_t *perm = td_xmalloc((n ? n : 1) * sizeof *perm), *inv = td_xmalloc((n ? n : 1) * sizeof *inv);
    for (size_t k = 0; k < n; k++) perm[k] = k;
    if (n) qsort(perm, n, sizeof *perm, cmp_perm_name);
    xla_hinst *sorted = td_xmalloc((n ? n : 1) * sizeof *sorted);
    for (size_t k = 0; k < n; k++) { sorted[k] = h->in[perm[k]]; inv[perm[k]] = k; }
    for (size_t k = 0; k < n; k++) { h->byid[k] = inv[h->byid[k]]; h->bycomp[k] = inv[h->bycomp[k]]; }
    free(h->in);
    h->in = sorted;
    free(perm);
    free(inv);
}

static void decode(xla_hlo *h, td_xzdec *dec)
{
    const td_hlo_dump *d = h->d;
    uint8_t *buf = NULL;
    size_t got = 0;
    /* an XPlane's HloProto is not compressed (no xz magic) */
    if (d->n < 6 || memcmp(d->xz, "\xFD" "7zXZ\0", 6)) {
        xla_hlo_decode_pb(h, d->xz, d->n);
        return;
    }
    /* HLO xz ratio ~16; a dump that does not decode is read as empty */
    if (td_unxz_with(dec, d->xz, d->n, d->n * 20 + 4096, (size_t)1 << 30, &buf, &got, NULL)) {
        buf = td_xmalloc(1);
        got = 0;
    }
    decode_pb(h, buf, got);
}

void xla_hlo_decode_pb(xla_hlo *h, const uint8_t *bytes, size_t n)
{
    uint8_t *buf = td_xmalloc(n ? n : 1);
    if (n)
        memcpy(buf, bytes, n);
    decode_pb(h, buf, n);
}

/* The dumps to decode, largest first, taken in turn by the two threads (a shared
 * counter): a program's dumps differ by 1,000x in size (an nsys-jax archive's step
 * function: 400 KB of xz, 6.5 MB decoded; its small programs: 1 KB), and halves by
 * position left the four large dumps of four archives three to one thread. */
typedef struct {
    xla_hlo *jobs;
    size_t *order, n;
    size_t next; /* under mu */
    pthread_mutex_t mu;
} dec_queue;

static void *worker(void *p)
{
    dec_queue *q = p;
    td_xzdec *dec = td_xzdec_new(); /* one dictionary for the thread's dumps */
    for (;;) {
        pthread_mutex_lock(&q->mu);
        size_t i = q->next < q->n ? q->order[q->next++] : (size_t)-1;
        pthread_mutex_unlock(&q->mu);
        if (i == (size_t)-1)
            break;
        decode(&q->jobs[i], dec);
    }
    td_xzdec_free(dec);
    return NULL;
}

/* Same compressed bytes: the processes of one SPMD job dump the same programs, so the
 * archives of a job's ranks carry byte-identical dumps (nsys-jax's 4-process example:
 * the step function's 400 KB in each of the four). */
static int same_dump(const td_hlo_dump *a, const td_hlo_dump *b)
{
    return a->n == b->n && (a->xz == b->xz || !memcmp(a->xz, b->xz, a->n));
}

void xla_hlo_decode_all(xla_hlo *all, size_t first, size_t n)
{
    if (!n)
        return;
    xla_hlo *jobs = all + first;
    /* twin[i]: the job (index into all) whose decoded dump job i shares, or -1 */
    int64_t *twin = td_xmalloc(n * sizeof *twin);
    size_t nown = 0;
    for (size_t i = 0; i < n; i++) {
        twin[i] = -1;
        for (size_t k = 0; k < first + i && twin[i] < 0; k++)
            if (!all[k].shared && (k < first || twin[k - first] < 0) &&
                same_dump(all[k].d, jobs[i].d))
                twin[i] = (int64_t)k;
        nown += twin[i] < 0;
    }
    dec_queue q = {jobs, td_xmalloc((nown ? nown : 1) * sizeof(size_t)), nown, 0,
                   PTHREAD_MUTEX_INITIALIZER};
    td_keyed *k = td_xmalloc((nown ? nown : 1) * sizeof *k); /* largest first, ties in order */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (twin[i] < 0)
            k[m++] = (td_keyed){-(int64_t)jobs[i].d->n, (int64_t)i};
    td_sort_keyed(k, m);
    for (size_t i = 0; i < m; i++)
        q.order[i] = (size_t)k[i].val;
    free(k);
    pthread_t th;
    int threaded = m > 1 && pthread_create(&th, NULL, worker, &q) == 0;
    worker(&q);
    if (threaded)
        pthread_join(th, NULL);
    pthread_mutex_destroy(&q.mu);
    free(q.order);
    /* the twins: the decoded module by value (read-only from here on), their own dump,
     * trace and frame cache */
    for (size_t i = 0; i < n; i++) {
        if (twin[i] < 0)
            continue;
        xla_hlo *h = &jobs[i];
        const td_hlo_dump *d = h->d;
        int tr = h->tr;
        *h = all[twin[i]];
        h->d = d;
        h->tr = tr;
        h->fcache = NULL;
        h->shared = 1;
    }
    free(twin);
}

void xla_hlo_free(xla_hlo *h)
{
    for (size_t i = 0; h->fcache && i < h->nfrm; i++) free(h->fcache[i]);
    free(h->fcache);
    if (h->shared) /* the decoded module belongs to its twin */
        return;
    free(h->buf); free(h->in); free(h->byid); free(h->bycomp); free(h->ids);
    free(h->fn); free(h->fu);
    free(h->loc); free(h->frm);
}

const xla_hinst *xla_hlo_find(const xla_hlo *h, const char *name, size_t len)
{
    size_t lo = 0, hi = h->nin;
    xla_hinst key;
    key.name = name;
    key.namel = len;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (cmp_name(&h->in[m], &key) < 0) lo = m + 1;
        else hi = m;
    }
    return lo < h->nin && !cmp_name(&h->in[lo], &key) ? &h->in[lo] : NULL;
}

size_t xla_hlo_comp(const xla_hlo *h, int64_t comp, size_t *first)
{
    size_t lo = 0, hi = h->nbyid;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (h->in[h->bycomp[m]].comp < comp) lo = m + 1;
        else hi = m;
    }
    *first = lo;
    size_t e = lo;
    while (e < h->nbyid && h->in[h->bycomp[e]].comp == comp) e++;
    return e - lo;
}

static int render_frames(const xla_hlo *h, int32_t frame, td_buf *b)
{
    int32_t chain[XLA_MAXUP];
    int n = 0;
    while (frame > 0 && (size_t)frame <= h->nfrm && n < XLA_MAXUP) {
        chain[n++] = frame;
        frame = h->frm[frame - 1][1];
    }
    int out = 0;
    for (int k = n - 1; k >= 0; k--) {
        int32_t li = h->frm[chain[k] - 1][0];
        if (li <= 0 || (size_t)li > h->nloc) continue;
        const int32_t *L = h->loc[li - 1];
        if (out++) td_buf_putc(b, ';');
        if (L[0] > 0 && (size_t)L[0] <= h->nfn) td_buf_put(b, h->fn[L[0] - 1].p, h->fn[L[0] - 1].l);
        td_buf_printf(b, ":%d", L[2]);
        if (L[3]) td_buf_printf(b, ":%d", L[3]);
        td_buf_putc(b, '[');
        if (L[1] > 0 && (size_t)L[1] <= h->nfu) td_buf_put(b, h->fu[L[1] - 1].p, h->fu[L[1] - 1].l);
        td_buf_putc(b, ']');
    }
    return out;
}

int xla_hlo_frames(xla_hlo *h, int32_t frame, td_buf *b)
{
    if (frame <= 0 || (size_t)frame > h->nfrm) return 0;
    if (!h->fcache) h->fcache = td_xcalloc(h->nfrm, sizeof *h->fcache);
    char *c = h->fcache[frame - 1];
    if (!c) {
        td_buf t = {0};
        render_frames(h, frame, &t);
        const char *z = td_buf_cstr(&t);
        size_t l = strlen(z) + 1;
        c = td_xmalloc(l);
        memcpy(c, z, l);
        td_buf_free(&t);
        h->fcache[frame - 1] = c;
    }
    if (!*c) return 0;
    td_buf_puts(b, c);
    return 1;
}
