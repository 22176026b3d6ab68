/* read/rocprof_rec.c - the records of rocprofv3 JSON (read/rocprof_int.h): agents,
 * kernel symbols, the kind and operation names, ROCTx messages, kernel dispatches, API
 * calls, ROCTx ranges and memory copies, each parsed in one go from the buffer and
 * committed to the model; the small map the readers share. */
#define _POSIX_C_SOURCE 200809L
#include "read/rocprof_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

uint32_t *td_rp_imap_put(imap *m, int64_t k)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        ment *ne = td_xcalloc(nc, sizeof *ne);
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].used) {
                size_t j = mix((uint64_t)m->e[i].k) & (nc - 1);
                while (ne[j].used)
                    j = (j + 1) & (nc - 1);
                ne[j] = m->e[i];
            }
        free(m->e);
        m->e = ne;
        m->cap = nc;
    }
    size_t j = mix((uint64_t)k) & (m->cap - 1);
    while (m->e[j].used && m->e[j].k != k)
        j = (j + 1) & (m->cap - 1);
    if (!m->e[j].used) {
        m->e[j].used = 1;
        m->e[j].k = k;
        m->e[j].v = 0;
        m->n++;
    }
    return &m->e[j].v;
}

const uint32_t *td_rp_imap_get(const imap *m, int64_t k)
{
    if (!m->cap)
        return NULL;
    size_t j = mix((uint64_t)k) & (m->cap - 1);
    while (m->e[j].used) {
        if (m->e[j].k == k)
            return &m->e[j].v;
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

/* ---------------------------------------------------------------- small value parsers */

/* p at a value that should be {"handle": N}; *v unchanged when it is not */
static const char *parse_handle(rp *c, const char *p, const char *end, int64_t *v)
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        int64_t x = 0;
        if (TD_JSON_KEY_IS(k, "handle")) {
            p = td_jscan_num(&c->js, p, end, 0, &x, &ok);
            if (ok == 1)
                *v = x;
        } else
            p = td_jscan_skip(&c->js, p, end);
    });
    return p;
}

static int32_t clamp32(int64_t v)
{
    return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

/* {"x": .., "y": .., "z": ..} */
static const char *parse_xyz(rp *c, const char *p, const char *end, int32_t out[3])
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        int64_t x = 0;
        int i = k.n == 1 && (*k.p == 'x' || *k.p == 'y' || *k.p == 'z') ? *k.p - 'x' : -1;
        if (i >= 0) {
            p = td_jscan_num(&c->js, p, end, 0, &x, &ok);
            if (ok == 1)
                out[i] = clamp32(x);
        } else
            p = td_jscan_skip(&c->js, p, end);
    });
    return p;
}

/* {"internal": N, "external": M} */
static const char *parse_corr(rp *c, const char *p, const char *end, int64_t *in, int64_t *ex)
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        int64_t x = 0;
        if (TD_JSON_KEY_IS(k, "internal")) {
            p = td_jscan_num(&c->js, p, end, 0, &x, &ok);
            if (ok == 1)
                *in = x;
        } else if (TD_JSON_KEY_IS(k, "external")) {
            p = td_jscan_num(&c->js, p, end, 0, &x, &ok);
            if (ok == 1)
                *ex = x;
        } else
            p = td_jscan_skip(&c->js, p, end);
    });
    return p;
}

static const char *parse_int(rp *c, const char *p, const char *end, int64_t *v)
{
    int ok = 0;
    int64_t x = 0;
    p = td_jscan_num(&c->js, p, end, 0, &x, &ok);
    if (p && ok == 1)
        *v = x;
    return p;
}

/* ---------------------------------------------------------------- tables */

const char *td_rp_metadata(rp *c, const char *p, const char *end)
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "pid"))
            p = parse_int(c, p, end, &c->pid);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    return p;
}

const char *td_rp_agent(rp *c, const char *p, const char *end)
{
    int64_t handle = -1, type = 0, gpu_index = -1, cu = 0, node = -1;
    td_jslice prod = {0}, nm = {0};
    int hp = 0, hn = 0;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "id"))
            p = parse_handle(c, p, end, &handle);
        else if (TD_JSON_KEY_IS(k, "type"))
            p = parse_int(c, p, end, &type);
        else if (TD_JSON_KEY_IS(k, "gpu_index"))
            p = parse_int(c, p, end, &gpu_index);
        else if (TD_JSON_KEY_IS(k, "cu_count"))
            p = parse_int(c, p, end, &cu);
        else if (TD_JSON_KEY_IS(k, "logical_node_id"))
            p = parse_int(c, p, end, &node);
        else if (TD_JSON_KEY_IS(k, "product_name"))
            p = td_jscan_str(&c->js, p, end, &prod, &hp);
        else if (TD_JSON_KEY_IS(k, "name"))
            p = td_jscan_str(&c->js, p, end, &nm, &hn);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    if (handle < 0)
        return p;
    agent *a = TD_PUSH(c->ag, c->nag, c->agcap);
    a->handle = handle;
    a->type = (int)type;
    a->dev = -1;
    if (type == 2) {
        int32_t ngpu = 0;
        for (size_t i = 0; i + 1 < c->nag; i++)
            ngpu += c->ag[i].type == 2;
        a->dev = gpu_index >= 0 && gpu_index < 65536 ? (int32_t)gpu_index : ngpu;
        td_device *d = td_trace_device(c->t, a->dev);
        if (hp && prod.n)
            d->name = td_jscan_intern(&c->js, prod);
        else if (hn)
            d->name = td_jscan_intern(&c->js, nm);
        d->num_sms = clamp32(cu);
    }
    (void)node;
    return p;
}

const agent *td_rp_find_agent(const rp *c, int64_t handle)
{
    for (size_t i = 0; i < c->nag; i++)
        if (c->ag[i].handle == handle)
            return &c->ag[i];
    return NULL;
}

const char *td_rp_ksym(rp *c, const char *p, const char *end)
{
    int64_t id = -1;
    td_jslice nm[4] = {{0}};
    int have[4] = {0};
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int w = TD_JSON_KEY_IS(k, "truncated_kernel_name")   ? 0
                : TD_JSON_KEY_IS(k, "formatted_kernel_name") ? 1
                : TD_JSON_KEY_IS(k, "demangled_kernel_name") ? 2
                : TD_JSON_KEY_IS(k, "kernel_name")           ? 3 : -1;
        if (w >= 0)
            p = td_jscan_str(&c->js, p, end, &nm[w], &have[w]);
        else if (TD_JSON_KEY_IS(k, "kernel_id"))
            p = parse_int(c, p, end, &id);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    if (id < 0)
        return p;
    for (int w = 0; w < 4; w++)
        if (have[w] && nm[w].n) {
            *td_rp_imap_put(&c->ksym, id) = td_jscan_intern(&c->js, nm[w]);
            break;
        }
    return p;
}

/* strings.buffer_records[i] = {"kind": "HIP_RUNTIME_API", "operations": [...]}: the kind
 * with value i */
/* ["name", ...] into the scratch list c->tops */
static const char *parse_ops(rp *c, const char *p, const char *end)
{
    p = td_jscan_ws(p + 1);
    if (p >= end)
        return td_jscan_need(&c->js);
    if (*p == ']')
        return p + 1;
    for (;;) {
        td_jslice s;
        int ok = 0;
        p = td_jscan_str(&c->js, p, end, &s, &ok);
        if (!p)
            return NULL;
        *TD_PUSH(c->tops, c->ntops, c->topscap) = ok ? td_jscan_intern(&c->js, s) : 0;
        p = td_jscan_ws(p);
        if (p >= end)
            return td_jscan_need(&c->js);
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return td_jscan_bad(&c->js, p, end, "expected ',' or ']'");
        p = td_jscan_ws(p + 1);
        if (p >= end)
            return td_jscan_need(&c->js);
    }
}

const char *td_rp_kind(rp *c, const char *p, const char *end)
{
    td_jslice kind = {0};
    int hk = 0;
    c->ntops = 0; /* scratch: a restarted parse must not leak */
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "kind"))
            p = td_jscan_str(&c->js, p, end, &kind, &hk);
        else if (TD_JSON_KEY_IS(k, "operations") && *p == '[')
            p = parse_ops(c, p, end);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    kindnames *kn = TD_PUSH(c->kn, c->nkn, c->kncap);
    kn->nops = c->ntops;
    kn->ops = td_xmalloc((c->ntops ? c->ntops : 1) * sizeof *kn->ops);
    if (c->ntops)
        memcpy(kn->ops, c->tops, c->ntops * sizeof *kn->ops);
    kn->kind = hk ? td_jscan_intern(&c->js, kind) : 0;
    return p;
}

const char *td_rp_smarker(rp *c, const char *p, const char *end)
{
    int64_t key = -1;
    td_jslice v = {0};
    int hv = 0;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "key"))
            p = parse_int(c, p, end, &key);
        else if (TD_JSON_KEY_IS(k, "value"))
            p = td_jscan_str(&c->js, p, end, &v, &hv);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    if (key >= 0 && hv)
        *td_rp_imap_put(&c->marker, key) = td_jscan_intern(&c->js, v);
    return p;
}

/* ---------------------------------------------------------------- records */

td_str td_rp_op_name(rp *c, int64_t kind, int64_t op)
{
    if (kind >= 0 && (size_t)kind < c->nkn && op >= 0 && (size_t)op < c->kn[kind].nops &&
        c->kn[kind].ops[op])
        return c->kn[kind].ops[op];
    char b[64];
    snprintf(b, sizeof b, "kind %lld operation %lld", (long long)kind, (long long)op);
    return td_intern_cstr(c->set->strs, b);
}

td_str td_rp_kind_name(rp *c, int64_t kind)
{
    if (kind >= 0 && (size_t)kind < c->nkn && c->kn[kind].kind)
        return c->kn[kind].kind;
    return 0;
}

td_str td_rp_kernel_name(rp *c, int64_t id)
{
    const uint32_t *v = td_rp_imap_get(&c->ksym, id);
    if (v)
        return *v;
    char b[48];
    snprintf(b, sizeof b, "kernel_id %lld", (long long)id);
    return td_intern_cstr(c->set->strs, b);
}

static void defer(rp *c, uint32_t what, int64_t key, int64_t kind, int64_t op)
{
    pending *q = TD_PUSH(c->pend, c->npend, c->pendcap);
    q->ev = (uint32_t)(c->t->nev - 1);
    q->what = what;
    q->key = key;
    q->kind = kind < 0 || kind > UINT32_MAX ? UINT32_MAX : (uint32_t)kind;
    q->op = op < 0 || op > UINT32_MAX ? UINT32_MAX : (uint32_t)op;
}

td_event *td_rp_push(td_trace *t, int64_t ts, int64_t te, int kind, uint32_t track,
                     int64_t corr, uint64_t *negdur, uint64_t *range)
{
    td_event *ev = td_trace_push_event(t);
    *range += (uint64_t)td_rp_times(&ts, &te, negdur);
    ev->ts = ts;
    ev->dur = te - ts;
    ev->kind = (uint8_t)kind;
    ev->ph = 'X';
    ev->track = track;
    ev->corr = corr;
    t->nevents++;
    return ev;
}

static td_event *push(rp *c, int64_t ts, int64_t te, int kind, uint32_t track, int64_t corr)
{
    return td_rp_push(c->t, ts, te, kind, track, corr, &c->n_negdur, &c->n_range);
}

const char *td_rp_dispatch(rp *c, const char *p, const char *end)
{
    int64_t ts = -1, te = -1, corr = 0, ext = 0, agent_h = -1, queue = 0, kid = -1, stream = -1;
    int32_t grid[3] = {0, 0, 0}, wg[3] = {0, 0, 0};
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "stream_id"))
            p = parse_handle(c, p, end, &stream);
        else if (TD_JSON_KEY_IS(k, "start_timestamp"))
            p = parse_int(c, p, end, &ts);
        else if (TD_JSON_KEY_IS(k, "end_timestamp"))
            p = parse_int(c, p, end, &te);
        else if (TD_JSON_KEY_IS(k, "correlation_id"))
            p = parse_corr(c, p, end, &corr, &ext);
        else if (TD_JSON_KEY_IS(k, "dispatch_info") && *p == '{') {
            TD_JSON_OBJ_LOOP(&c->js, p, end, k2, {
                if (TD_JSON_KEY_IS(k2, "agent_id"))
                    p = parse_handle(c, p, end, &agent_h);
                else if (TD_JSON_KEY_IS(k2, "queue_id"))
                    p = parse_handle(c, p, end, &queue);
                else if (TD_JSON_KEY_IS(k2, "kernel_id"))
                    p = parse_int(c, p, end, &kid);
                else if (TD_JSON_KEY_IS(k2, "workgroup_size"))
                    p = parse_xyz(c, p, end, wg);
                else if (TD_JSON_KEY_IS(k2, "grid_size"))
                    p = parse_xyz(c, p, end, grid);
                else
                    p = td_jscan_skip(&c->js, p, end);
            });
        } else
            p = td_jscan_skip(&c->js, p, end);
    });
    c->n_records++;
    if (ts < 0 || te < 0)
        return p;
    td_event *ev = push(c, ts, te, TD_K_KERNEL,
                        stream >= 0 ? td_rp_track(&c->tk, c->t, agent_h, stream, TD_RP_STREAM)
                                    : td_rp_track(&c->tk, c->t, agent_h, queue, TD_RP_QUEUE),
                        corr);
    ev->cat = td_trace_cat(c->t, c->cat_kernel);
    /* an aux record only for what is kept: the external id, the sizes for `export` (2.4 M
     * dispatches in bench's 1 GB file: 58 MB of aux records the analysis has no use for) */
    if (ext || !c->set->analysis_only) {
        td_aux *a;
        ev->aux = td_trace_push_aux(c->t, &a);
        a->bytes = -1;
        a->ext_id = ext;
        if (!c->set->analysis_only)
            td_trace_set_dims(c->t, ev->aux, grid, wg);
    }
    if (c->seen_ksyms)
        ev->name = td_rp_kernel_name(c, kid);
    else
        defer(c, P_KERNEL, kid, 0, 0);
    return p;
}

static uint32_t host_track(rp *c, int64_t tid)
{
    /* the process id is set on every host track at the end (metadata may come late) */
    return td_trace_track(c->t, -1, tid);
}

/* hip_api, hsa_api, rccl_api and the like: api 1 HIP (runtime), 2 HSA (driver), 3 other */
const char *td_rp_api(rp *c, const char *p, const char *end, int api, int marker)
{
    int64_t ts = -1, te = -1, corr = 0, ext = 0, kind = -1, op = -1, tid = 0;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "start_timestamp"))
            p = parse_int(c, p, end, &ts);
        else if (TD_JSON_KEY_IS(k, "end_timestamp"))
            p = parse_int(c, p, end, &te);
        else if (TD_JSON_KEY_IS(k, "correlation_id"))
            p = parse_corr(c, p, end, &corr, &ext);
        else if (TD_JSON_KEY_IS(k, "kind"))
            p = parse_int(c, p, end, &kind);
        else if (TD_JSON_KEY_IS(k, "operation"))
            p = parse_int(c, p, end, &op);
        else if (TD_JSON_KEY_IS(k, "thread_id"))
            p = parse_int(c, p, end, &tid);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    c->n_records++;
    if (ts < 0 || te < 0)
        return p;
    if (marker) {
        /* a ROCTx range or mark: named by its message (strings.marker_api, keyed by the
         * correlation id); records without one (pops, pause/resume, naming) are left out */
        const uint32_t *m = td_rp_imap_get(&c->marker, corr);
        if (!m && c->seen_markers) {
            c->n_unnamed_marker++;
            return p;
        }
        td_event *ev = push(c, ts, te, te > ts ? TD_K_USER_ANNOT : TD_K_INSTANT,
                            host_track(c, tid), 0);
        ev->cat = td_trace_cat(c->t, c->cat_marker);
        if (m)
            ev->name = *m;
        else
            defer(c, P_MARKER, corr, kind, op);
        return p;
    }
    td_event *ev = push(c, ts, te, api == 1 ? TD_K_RUNTIME : api == 2 ? TD_K_DRIVER : TD_K_OTHER,
                        host_track(c, tid), corr);
    if (c->seen_kinds) {
        ev->name = td_rp_op_name(c, kind, op);
        td_str kn = td_rp_kind_name(c, kind);
        if (kn)
            ev->cat = td_trace_cat(c->t, kn);
    } else
        defer(c, P_OP, 0, kind, op);
    return p;
}

const char *td_rp_copy(rp *c, const char *p, const char *end)
{
    int64_t ts = -1, te = -1, corr = 0, ext = 0, kind = -1, op = -1, src = -1, dst = -1;
    int64_t bytes = -1, stream = -1;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        if (TD_JSON_KEY_IS(k, "stream_id"))
            p = parse_handle(c, p, end, &stream);
        else if (TD_JSON_KEY_IS(k, "start_timestamp"))
            p = parse_int(c, p, end, &ts);
        else if (TD_JSON_KEY_IS(k, "end_timestamp"))
            p = parse_int(c, p, end, &te);
        else if (TD_JSON_KEY_IS(k, "correlation_id"))
            p = parse_corr(c, p, end, &corr, &ext);
        else if (TD_JSON_KEY_IS(k, "kind"))
            p = parse_int(c, p, end, &kind);
        else if (TD_JSON_KEY_IS(k, "operation"))
            p = parse_int(c, p, end, &op);
        else if (TD_JSON_KEY_IS(k, "src_agent_id"))
            p = parse_handle(c, p, end, &src);
        else if (TD_JSON_KEY_IS(k, "dst_agent_id"))
            p = parse_handle(c, p, end, &dst);
        else if (TD_JSON_KEY_IS(k, "bytes"))
            p = parse_int(c, p, end, &bytes);
        else
            p = td_jscan_skip(&c->js, p, end);
    });
    c->n_records++;
    if (ts < 0 || te < 0)
        return p;
    /* on the GPU agent that does it: the destination's, else the source's */
    const agent *d = td_rp_find_agent(c, dst);
    int64_t on = d && d->type != 2 ? src : dst;
    td_event *ev = push(c, ts, te, TD_K_MEMCPY,
                        stream >= 0 ? td_rp_track(&c->tk, c->t, on, stream, TD_RP_STREAM)
                                    : td_rp_track(&c->tk, c->t, on, 0, TD_RP_COPY),
                        corr);
    ev->cat = td_trace_cat(c->t, c->cat_copy);
    td_aux *a;
    ev->aux = td_trace_push_aux(c->t, &a);
    a->bytes = bytes;
    a->ext_id = ext;
    if (c->seen_kinds)
        ev->name = td_rp_op_name(c, kind, op);
    else
        defer(c, P_OP, 0, kind, op);
    return p;
}

/* ---------------------------------------------------------------- shared helpers */

uint32_t td_rp_track(td_rp_tracks *k, td_trace *t, int64_t ag, int64_t id, int what)
{
    uint64_t key = mix((uint64_t)ag) ^ ((uint64_t)id * 4 + (uint64_t)what);
    uint32_t *v = td_rp_imap_put(&k->map, (int64_t)key);
    if (*v) {
        size_t i = *v - 1;
        if (k->agent[i] == ag && k->id[i] == id && k->what[i] == what)
            return k->tr[i];
        /* two pairs with one hash (never seen in practice): look for the exact one */
        for (i = 0; i < k->n; i++)
            if (k->agent[i] == ag && k->id[i] == id && k->what[i] == what)
                return k->tr[i];
    }
    /* a pid no host thread has: INT64_MIN + n */
    int64_t tid = what == TD_RP_COPY ? COPY_STREAM : id;
    uint32_t tr = td_trace_track(t, INT64_MIN + (int64_t)k->n, tid);
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 16;
        k->agent = td_xrealloc(k->agent, k->cap * sizeof *k->agent);
        k->id = td_xrealloc(k->id, k->cap * sizeof *k->id);
        k->tr = td_xrealloc(k->tr, k->cap * sizeof *k->tr);
        k->what = td_xrealloc(k->what, k->cap * sizeof *k->what);
    }
    k->agent[k->n] = ag;
    k->id[k->n] = id;
    k->tr[k->n] = tr;
    k->what[k->n] = (uint8_t)what;
    k->n++;
    if (!*v)
        *v = (uint32_t)k->n;
    td_track *tk = &t->tracks[tr];
    tk->stream = tid < 0 || tid > INT32_MAX ? 0 : (int32_t)tid;
    tk->device = 0;
    return tr;
}

void td_rp_tracks_finish(td_rp_tracks *k, td_traceset *set, td_trace *t,
                         int32_t (*dev_of)(const void *ctx, int64_t ag), const void *ctx,
                         int64_t pid)
{
    int32_t next = 0;
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id >= next && t->devices[i].id < INT32_MAX)
            next = t->devices[i].id + 1;
    for (size_t i = 0; i < k->n; i++) {
        int32_t dev = dev_of(ctx, k->agent[i]);
        if (dev < 0) { /* the same unknown agent keeps one number */
            for (size_t j = 0; j < i && dev < 0; j++)
                if (k->agent[j] == k->agent[i])
                    dev = t->tracks[k->tr[j]].device;
            if (dev < 0)
                dev = next++;
        }
        td_track *tk = &t->tracks[k->tr[i]];
        tk->device = dev;
        tk->pid = dev;
        char b[64];
        if (k->what[i] == TD_RP_STREAM)
            snprintf(b, sizeof b, "HIP stream %d", tk->stream);
        else if (k->what[i] == TD_RP_COPY)
            snprintf(b, sizeof b, "memory copies");
        else
            snprintf(b, sizeof b, "queue %d", tk->stream);
        tk->thread_name = td_intern_cstr(set->strs, b);
    }
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].device < 0)
            t->tracks[i].pid = pid;
}

void td_rp_tracks_free(td_rp_tracks *k)
{
    free(k->map.e);
    free(k->agent);
    free(k->id);
    free(k->tr);
    free(k->what);
}

td_str td_rp_truncated(td_strtab *s, const char *kernel, const char *shown)
{
    /* rocprofv3 truncates the demangled name; a symbol that does not demangle (not _Z...,
     * or a shown name still mangled) is its own demangled name */
    const char *n = shown;
    if (kernel && *kernel && (strncmp(kernel, "_Z", 2) || !shown || !strncmp(shown, "_Z", 2)))
        n = kernel;
    if (!n || !*n)
        n = kernel && *kernel ? kernel : shown;
    if (!n)
        return 0;
    size_t len = strlen(n);
    ptrdiff_t i = (ptrdiff_t)len - 1;
    int depth = 0;
    char open = 0, close = 0;
    for (; i >= 0; i--) {
        char ch = n[i];
        if (!depth) {
            if (ch == ')' || ch == '>' || ch == ']') {
                close = ch;
                open = ch == ')' ? '(' : ch == '>' ? '<' : '[';
                depth = 1;
            } else if (ch != ' ')
                break;
        } else if (ch == close)
            depth++;
        else if (ch == open)
            depth--;
    }
    ptrdiff_t e = i + 1;
    while (i >= 0 && n[i] != ' ' && n[i] != ':')
        i--;
    if (e - (i + 1) <= 0) /* nothing left (a name that is all groups): keep it whole */
        return td_intern(s, n, len);
    return td_intern(s, n + i + 1, (size_t)(e - (i + 1)));
}

int td_rp_domain_kind(const char *d)
{
    if (!d)
        return TD_K_OTHER;
    if (!strncmp(d, "HIP_", 4))
        return TD_K_RUNTIME;
    if (!strncmp(d, "HSA_", 4))
        return TD_K_DRIVER;
    if (!strncmp(d, "MARKER_", 7))
        return TD_K_USER_ANNOT;
    return TD_K_OTHER;
}
