/* read/chrome_event.c - one Chrome trace event: parsed from its JSON object into a flat
 * record, then committed to the model; and the end-of-file fix-ups and warnings (see
 * read/chrome.c for what goes where). */
#define _POSIX_C_SOURCE 200809L
#include "read/chrome_int.h"
#include "io/bound.h"
#include <stdlib.h>
#include <string.h>

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static ment *imap_slot(imap *m, int64_t a, int64_t b)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        ment *ne = td_xcalloc(nc, sizeof *ne);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].used)
                continue;
            size_t j = mix64((uint64_t)m->e[i].a * 31 + (uint64_t)m->e[i].b) & (nc - 1);
            while (ne[j].used)
                j = (j + 1) & (nc - 1);
            ne[j] = m->e[i];
        }
        free(m->e);
        m->e = ne;
        m->cap = nc;
    }
    size_t j = mix64((uint64_t)a * 31 + (uint64_t)b) & (m->cap - 1);
    while (m->e[j].used) {
        if (m->e[j].a == a && m->e[j].b == b)
            return &m->e[j];
        j = (j + 1) & (m->cap - 1);
    }
    m->e[j].used = 1;
    m->e[j].a = a;
    m->e[j].b = b;
    m->e[j].v = 0;
    m->n++;
    return &m->e[j];
}
/* The raw JSON text of a value (an array), to be parsed later by the pass that needs it. */
static const char *raw_value(cj *c, const char *p, const char *end, td_jslice *out)
{
    const char *q = td_jscan_skip(&c->js, p, end);
    if (q && q > p && (size_t)(q - p) < UINT32_MAX) {
        out->p = p;
        out->n = (uint32_t)(q - p);
        out->esc = 0;
    }
    return q;
}

static const char *parse_args(cj *c, const char *p, const char *end, td_jrawev *r)
{
    if (*p != '{')
        return td_jscan_skip(&c->js, p, end);
    r->args = p;
    r->dims.n = r->itypes.n = r->concrete.n = r->kname.n = 0;
    r->seq = -1;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        switch (k.n) {
        case 4:
            if (TD_JSON_KEY_IS(k, "grid")) {
                p = td_jscan_triple(&c->js, p, end, r->grid, &ok);
                if (ok) r->have |= H_GRID;
            } else if (TD_JSON_KEY_IS(k, "name")) {
                p = td_jscan_str(&c->js, p, end, &r->mname, &ok);
                if (ok) r->have |= H_MNAME;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 5:
            if (TD_JSON_KEY_IS(k, "block")) {
                p = td_jscan_triple(&c->js, p, end, r->block, &ok);
                if (ok) r->have |= H_BLOCK;
            } else if (TD_JSON_KEY_IS(k, "bytes")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->bytes, &ok);
                if (ok == 1) r->have |= H_BYTES;
            } else if (TD_JSON_KEY_IS(k, "Bytes")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->m_bytes, &ok);
                if (ok == 1) r->have |= H_MBYTES;
            } else if (TD_JSON_KEY_IS(k, "dtype")) {
                p = td_jscan_str(&c->js, p, end, &r->dtype, &ok);
                if (ok) r->have |= H_DTYPE;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 6:
            if (TD_JSON_KEY_IS(k, "device")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->dev, &ok);
                if (ok == 1) r->have |= H_DEV;
            } else if (TD_JSON_KEY_IS(k, "stream")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->stream, &ok);
                if (ok == 1) r->have |= H_STREAM;
            } else if (TD_JSON_KEY_IS(k, "kernel") && c->set->keep_launch_kernels) {
                p = td_jscan_str(&c->js, p, end, &r->kname, &ok);
                if (!ok) r->kname.n = 0;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 9:
            if (TD_JSON_KEY_IS(k, "Device Id")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->m_dev, &ok);
                if (ok == 1) r->have |= H_MDEV;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 10:
            if (TD_JSON_KEY_IS(k, "Input Dims")) {
                p = raw_value(c, p, end, &r->dims);
                if (r->dims.n) r->have |= H_DIMS;
            } else if (TD_JSON_KEY_IS(k, "Input type")) {
                p = raw_value(c, p, end, &r->itypes);
                if (r->itypes.n) r->have |= H_ITYPES;
            } else if (TD_JSON_KEY_IS(k, "Group size")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->group, &ok);
                if (ok == 1) r->have |= H_GROUP;
            } else if (TD_JSON_KEY_IS(k, "sort_index")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->sort, &ok);
                if (ok == 1) r->have |= H_SORT;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 11:
            if (TD_JSON_KEY_IS(k, "correlation")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->corr, &ok);
                if (ok == 1) r->have |= H_CORR;
            } else if (TD_JSON_KEY_IS(k, "Device Type")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->m_dtype, &ok);
                if (ok == 1) r->have |= H_MDTYPE;
            } else if (TD_JSON_KEY_IS(k, "External id") || TD_JSON_KEY_IS(k, "external id")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->ext, &ok);
                if (ok == 1) r->have |= H_EXT;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 13:
            if (TD_JSON_KEY_IS(k, "In msg nelems")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->in_nel, &ok);
                if (ok == 1) r->have |= H_IN;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 14:
            if (TD_JSON_KEY_IS(k, "Total Reserved")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->m_res, &ok);
                if (ok == 1) r->have |= H_MRES;
            } else if (TD_JSON_KEY_IS(k, "Out msg nelems")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->out_nel, &ok);
                if (ok == 1) r->have |= H_OUT;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 15:
            if (TD_JSON_KEY_IS(k, "Collective name")) {
                p = td_jscan_str(&c->js, p, end, &r->coll, &ok);
                if (ok) r->have |= H_COLL;
            } else if (TD_JSON_KEY_IS(k, "Total Allocated")) {
                p = td_jscan_num(&c->js, p, end, 0, &r->m_alloc, &ok);
                if (ok == 1) r->have |= H_MALLOC;
            } else if (TD_JSON_KEY_IS(k, "Concrete Inputs")) {
                p = raw_value(c, p, end, &r->concrete);
            } else if (TD_JSON_KEY_IS(k, "Sequence number")) {
                int64_t v = -1;
                p = td_jscan_num(&c->js, p, end, 0, &v, &ok);
                r->seq = ok == 1 && v >= 0 ? v : -1;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        default:
            p = td_jscan_skip(&c->js, p, end);
        }
    });
    r->args_end = p;
    return p;
}

/* One event object; p at '{'. Fills r; nothing is committed. */
const char *td_chrome_parse_event(cj *c, const char *p, const char *end, td_jrawev *r)
{
    r->have = 0;
    r->dims.n = r->itypes.n = r->concrete.n = r->kname.n = 0;
    r->seq = -1;
    r->ph = 0;
    r->args = NULL;
    TD_JSON_OBJ_LOOP(&c->js, p, end, k, {
        int ok = 0;
        switch (k.n) {
        case 2:
            if (TD_JSON_KEY_IS(k, "ph")) {
                td_jslice s;
                p = td_jscan_str(&c->js, p, end, &s, &ok);
                if (ok && s.n)
                    r->ph = s.p[0];
            } else if (TD_JSON_KEY_IS(k, "ts")) {
                p = td_jscan_num(&c->js, p, end, 3, &r->ts, &ok);
                if (ok == 1) r->have |= H_TS;
                else if (ok < 0) r->have |= H_BADNUM;
            } else if (TD_JSON_KEY_IS(k, "id")) {
                p = td_jscan_id(&c->js, p, end, &r->id, &ok);
                if (ok == 1) r->have |= H_ID;
            } else if (TD_JSON_KEY_IS(k, "bp")) {
                td_jslice s;
                p = td_jscan_str(&c->js, p, end, &s, &ok);
                if (ok && s.n == 1 && s.p[0] == 'e')
                    r->have |= H_BPE;
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 3:
            if (TD_JSON_KEY_IS(k, "cat")) {
                p = td_jscan_str(&c->js, p, end, &r->cat, &ok);
                if (ok) r->have |= H_CAT;
            } else if (TD_JSON_KEY_IS(k, "dur")) {
                p = td_jscan_num(&c->js, p, end, 3, &r->dur, &ok);
                if (ok == 1) r->have |= H_DUR;
                else if (ok < 0) r->have |= H_BADNUM;
            } else if (TD_JSON_KEY_IS(k, "pid") || TD_JSON_KEY_IS(k, "tid")) {
                int is_pid = k.p[0] == 'p';
                if (*p == '"') {
                    p = td_jscan_str(&c->js, p, end, is_pid ? &r->pid_s : &r->tid_s, &ok);
                    if (ok) r->have |= is_pid ? H_PIDS : H_TIDS;
                } else {
                    p = td_jscan_id(&c->js, p, end, is_pid ? &r->pid : &r->tid, &ok);
                    if (ok == 1) r->have |= is_pid ? H_PID : H_TID;
                }
            } else if (TD_JSON_KEY_IS(k, "id2")) {
                /* {"local": x} or {"global": x}: one id space per kind */
                if (*p == '{') {
                    TD_JSON_OBJ_LOOP(&c->js, p, end, k2, {
                        int64_t v;
                        int ok2 = 0;
                        p = td_jscan_id(&c->js, p, end, &v, &ok2);
                        if (p && ok2 == 1) {
                            r->id = TD_JSON_KEY_IS(k2, "local") ? (int64_t)(mix64((uint64_t)v) >> 1) : v;
                            r->have |= H_ID;
                        }
                    });
                } else
                    p = td_jscan_skip(&c->js, p, end);
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        case 4:
            if (TD_JSON_KEY_IS(k, "name")) {
                p = td_jscan_str(&c->js, p, end, &r->name, &ok);
                if (ok) r->have |= H_NAME;
            } else if (TD_JSON_KEY_IS(k, "args")) {
                p = parse_args(c, p, end, r);
            } else
                p = td_jscan_skip(&c->js, p, end);
            break;
        default:
            p = td_jscan_skip(&c->js, p, end);
        }
    });
    return p;
}

/* ---------------------------------------------------------------- model building */
static uint32_t new_track(cj *c, int64_t pid, int64_t tid, td_str ps, td_str ts)
{
    td_trace *t = c->t;
    td_track *k = TD_PUSH(t->tracks, t->ntracks, t->tracks_cap);
    memset(k, 0, sizeof *k);
    k->pid = pid;
    k->tid = tid;
    k->pid_str = ps;
    k->tid_str = ts;
    k->device = -1;
    k->stream = -1;
    return (uint32_t)(t->ntracks - 1);
}

static int64_t str_id(cj *c, td_str s)
{
    return (int64_t)(td_hash64(td_strget(c->set->strs, s), td_strlen_of(c->set->strs, s)) >> 1);
}

static uint32_t track_of(cj *c, td_jrawev *r)
{
    int64_t pid = r->have & H_PID ? r->pid : 0, tid = r->have & H_TID ? r->tid : 0;
    td_str ps = 0, ts = 0;
    if (r->have & H_PIDS) {
        ps = td_jscan_intern(&c->js, r->pid_s);
        pid = str_id(c, ps);
    }
    if (r->have & H_TIDS) {
        ts = td_jscan_intern(&c->js, r->tid_s);
        tid = str_id(c, ts);
    }
    if (c->lvalid && pid == c->lpid && tid == c->ltid)
        return c->ltrack;
    ment *m = imap_slot(&c->tracks, pid, tid);
    if (!m->v)
        m->v = new_track(c, pid, tid, ps, ts) + 1;
    c->lvalid = 1;
    c->lpid = pid;
    c->ltid = tid;
    c->ltrack = m->v - 1;
    return c->ltrack;
}

static void cat_of(cj *c, td_jrawev *r, uint16_t *idx, uint8_t *kind)
{
    if (!(r->have & H_CAT)) {
        *idx = 0;
        *kind = TD_K_OTHER;
        return;
    }
    td_str s = td_jscan_intern(&c->js, r->cat);
    for (int i = 0; i < c->ncats; i++)
        if (c->cats[i].s == s) {
            *idx = c->cats[i].idx;
            *kind = c->cats[i].kind;
            return;
        }
    *idx = td_trace_cat(c->t, s);
    *kind = (uint8_t)td_kind_from_cat(td_strget(c->set->strs, s), td_strlen_of(c->set->strs, s));
    if (c->ncats < (int)(sizeof c->cats / sizeof c->cats[0]))
        c->cats[c->ncats++] = (catent){s, *idx, *kind};
}

static void note_end(cj *c, int64_t ts, int64_t dur)
{
    int64_t e = ts + dur;
    if (e > c->max_end)
        c->max_end = e;
}

static void add_aux(cj *c, td_jrawev *r, td_event *ev)
{
    td_aux *a;
    ev->aux = td_trace_push_aux(c->t, &a);
    if (r->have & H_EXT) a->ext_id = r->ext;
    if (r->have & H_BYTES) a->bytes = r->bytes;
    if (r->have & (H_IN | H_OUT | H_COLL | H_DTYPE | H_GROUP)) {
        td_nccl *n = td_trace_push_nccl(c->t, ev->aux);
        if (r->have & H_IN) n->in_nelems = r->in_nel;
        if (r->have & H_OUT) n->out_nelems = r->out_nel;
        if (r->have & H_COLL) n->coll = td_jscan_intern(&c->js, r->coll);
        if (r->have & H_DTYPE) n->dtype = td_jscan_intern(&c->js, r->dtype);
        if (r->have & H_GROUP)
            n->group_size = r->group > INT32_MAX ? INT32_MAX : r->group < 0 ? 0 : (int32_t)r->group;
    }
    if ((r->have & (H_GRID | H_BLOCK)) && !c->set->analysis_only) {
        static const int32_t none[3] = {0, 0, 0};
        td_trace_set_dims(c->t, ev->aux, r->have & H_GRID ? r->grid : none,
                          r->have & H_BLOCK ? r->block : none);
    }
}

static u32vec *stack_of(cj *c, uint32_t track)
{
    if (track >= c->nstk) {
        size_t n = c->nstk ? c->nstk : 16;
        while (n <= track)
            n *= 2;
        c->stk = td_xrealloc(c->stk, n * sizeof *c->stk);
        memset(c->stk + c->nstk, 0, (n - c->nstk) * sizeof *c->stk);
        c->nstk = n;
    }
    return &c->stk[track];
}

static uint64_t async_key(cj *c, td_jrawev *r)
{
    td_str cat = r->have & H_CAT ? td_jscan_intern(&c->js, r->cat) : 0;
    td_str nm = r->have & H_NAME ? td_jscan_intern(&c->js, r->name) : 0;
    return mix64(((uint64_t)cat << 32 | nm) ^ mix64((uint64_t)r->id));
}

static pinfo *pinfo_of(cj *c, int64_t pid)
{
    ment *m = imap_slot(&c->pids, pid, 0);
    if (!m->v) {
        pinfo *p = TD_PUSH(c->pi, c->npi, c->pi_cap);
        memset(p, 0, sizeof *p);
        m->v = (uint32_t)c->npi;
    }
    return &c->pi[m->v - 1];
}

static void commit_meta(cj *c, td_jrawev *r)
{
    if (!(r->have & H_NAME))
        return;
    td_jslice n = r->name;
    if (TD_JSON_KEY_IS(n, "process_name") || TD_JSON_KEY_IS(n, "process_sort_index")) {
        int64_t pid = r->pid;
        if (r->have & H_PIDS)
            pid = str_id(c, td_jscan_intern(&c->js, r->pid_s));
        else if (!(r->have & H_PID))
            pid = 0;
        pinfo *p = pinfo_of(c, pid);
        if (n.p[8] == 'n' && (r->have & H_MNAME))
            p->name = td_jscan_intern(&c->js, r->mname);
        else if (n.p[8] == 's' && (r->have & H_SORT)) {
            p->sort = (int32_t)(r->sort > INT32_MAX ? INT32_MAX : r->sort < INT32_MIN ? INT32_MIN : r->sort);
            p->has_sort = 1;
        }
    } else if (TD_JSON_KEY_IS(n, "thread_name") || TD_JSON_KEY_IS(n, "thread_sort_index")) {
        uint32_t k = track_of(c, r);
        td_track *tk = &c->t->tracks[k];
        if (n.p[7] == 'n' && (r->have & H_MNAME))
            tk->thread_name = td_jscan_intern(&c->js, r->mname);
        else if (n.p[7] == 's' && (r->have & H_SORT))
            tk->sort_index = (int32_t)(r->sort > INT32_MAX ? INT32_MAX : r->sort < INT32_MIN ? INT32_MIN : r->sort);
    }
    /* process_labels and others: nothing in the model needs them */
}

static void commit_counter(cj *c, td_jrawev *r)
{
    if (!r->args || !(r->have & H_TS))
        return;
    td_str name = r->have & H_NAME ? td_jscan_intern(&c->js, r->name) : 0;
    uint32_t track = track_of(c, r);
    /* The args object was parsed once already: it is complete and valid here. */
    const char *p = td_jscan_ws(r->args + 1), *end = r->args_end;
    while (p < end && *p == '"') {
        td_jslice k;
        p = td_jscan_scan_str(&c->js, p, end, &k);
        if (!p)
            return;
        p = td_jscan_ws(td_jscan_ws(p) + 1);
        if (*p == '-' || td_jscan_digit_tab[(uint8_t)*p]) {
            const char *q = p;
            while (td_jscan_numch_tab[(uint8_t)*q])
                q++;
            char tmp[64];
            size_t L = (size_t)(q - p) < sizeof tmp - 1 ? (size_t)(q - p) : sizeof tmp - 1;
            memcpy(tmp, p, L);
            tmp[L] = 0;
            td_counter *ct = TD_PUSH(c->t->counters, c->t->ncounters, c->t->counters_cap);
            ct->ts = r->ts;
            ct->name = name;
            ct->series = td_jscan_intern(&c->js, k);
            ct->track = track;
            ct->value = strtod(tmp, NULL);
            p = q;
        } else {
            p = td_jscan_skip(&c->js, p, end);
            if (!p)
                return;
        }
        p = td_jscan_ws(p);
        if (*p == ',')
            p = td_jscan_ws(p + 1);
    }
}

void td_chrome_commit(cj *c, td_jrawev *r)
{
    td_trace *t = c->t;
    char ph = r->ph;
    switch (ph) {
    case 'X': case 'B': case 'i': case 'I': case 'b': case 'E': case 'e': case 'C':
    case 's': case 't': case 'f':
        break;
    case 'M':
        commit_meta(c, r);
        return;
    default:
        return; /* unknown or unused phases ('n', 'P', 'O', 'N', 'D', 'R', ...) */
    }
    if (r->have & H_BADNUM) {
        c->w_range++;
        return;
    }
    if (!(r->have & H_TS)) {
        c->w_nots++;
        return;
    }
    if (ph == 'C') {
        commit_counter(c, r);
        return;
    }
    if (ph == 's' || ph == 't' || ph == 'f') {
        td_str fcat = r->have & H_CAT ? td_jscan_intern(&c->js, r->cat) : 0;
        uint32_t ftrack = track_of(c, r); /* a flow's track is a track, kept or not */
        if (c->set->analysis_only)
            return;
        td_flow *f = TD_PUSH(t->flows, t->nflows, t->flows_cap);
        f->id = r->have & H_ID ? r->id : 0;
        f->ts = r->ts;
        f->cat = fcat;
        f->track = ftrack;
        f->ph = ph;
        f->bind_next = (r->have & H_BPE) != 0;
        return;
    }
    if (ph == 'E') {
        uint32_t k = track_of(c, r);
        u32vec *s = stack_of(c, k);
        if (!s->n) {
            c->w_unmatched_e++;
            return;
        }
        td_event *ev = &t->ev[s->v[--s->n]];
        int64_t d = r->ts - ev->ts;
        if (d < 0) {
            c->w_neg++;
            d = 0;
        }
        ev->dur = d;
        note_end(c, ev->ts, d);
        return;
    }
    if (ph == 'e') {
        if (!(r->have & H_ID)) {
            c->w_unmatched_ae++;
            return;
        }
        uint64_t key = async_key(c, r);
        ment *m = imap_slot(&c->amap, (int64_t)key, 1);
        if (!m->v) {
            c->w_unmatched_ae++;
            return;
        }
        openasync *o = &c->oa[m->v - 1];
        m->v = o->prev;
        td_event *ev = &t->ev[o->ev];
        o->ev = UINT32_MAX;
        int64_t d = r->ts - ev->ts;
        if (d < 0) {
            c->w_neg++;
            d = 0;
        }
        ev->dur = d;
        note_end(c, ev->ts, d);
        return;
    }

    int64_t dur = 0;
    if (ph == 'X' && (r->have & H_DUR)) {
        dur = r->dur;
        if (dur < 0) {
            c->w_neg++;
            dur = 0;
        }
        if (r->ts > INT64_MAX - dur) {
            c->w_range++;
            return;
        }
    }
    uint16_t cat;
    uint8_t kind;
    cat_of(c, r, &cat, &kind);
    uint32_t track = track_of(c, r);
    if (ph == 'i' || ph == 'I')
        kind = TD_K_INSTANT;
    else if (ph == 'b')
        kind = TD_K_ASYNC;
    else if (!(r->have & H_CAT) && (r->have & H_PIDS) &&
             c->t->tracks[track].pid_str == c->cpu_functions)
        kind = TD_K_CPU_OP; /* legacy export (torch without Kineto) */

    if ((kind == TD_K_INSTANT) && (r->have & (H_MALLOC | H_MRES | H_MBYTES)) && (r->have & H_NAME) &&
        TD_JSON_KEY_IS(r->name, "[memory]")) {
        td_mem *m = TD_PUSH(t->mem, t->nmem, t->mem_cap);
        m->ts = r->ts;
        m->allocated = r->have & H_MALLOC ? r->m_alloc : -1;
        m->reserved = r->have & H_MRES ? r->m_res : -1;
        m->bytes = r->have & H_MBYTES ? r->m_bytes : 0;
        m->device_type = r->have & H_MDTYPE && r->m_dtype >= 0 && r->m_dtype < 1000 ? (int32_t)r->m_dtype : -1;
        m->device = r->have & H_MDEV && r->m_dev >= -1 && r->m_dev < INT32_MAX ? (int32_t)r->m_dev : -1;
        m->track = track;
    }
    int wanted;
    if (kind == TD_K_CPU_OP && (r->have & H_DIMS) && (r->have & H_NAME) &&
        (r->dims.n > TD_BOUND_STRING || r->itypes.n > TD_BOUND_STRING ||
         r->concrete.n > TD_BOUND_STRING)) {
        c->js.w_long++; /* shapes past the string bound: not kept (cut, they would not parse) */
    } else if (kind == TD_K_CPU_OP && (r->have & H_DIMS) && (r->have & H_NAME) &&
        (wanted = td_shape_op_wanted(r->name.p, r->name.n))) {
        if (wanted == 2) {
            bwdop *b = TD_PUSH(c->bo, c->nbo, c->bo_cap);
            b->ts = r->ts;
            b->end = ph == 'X' ? r->ts + dur : INT64_MAX;
            b->track = track;
        }
        td_shape *sh = TD_PUSH(t->shapes, t->nshapes, t->shapes_cap);
        sh->ts = r->ts;
        sh->track = track;
        sh->name = td_jscan_intern(&c->js, r->name);
        sh->dims = td_intern(c->set->strs, r->dims.p, r->dims.n);
        sh->types = r->have & H_ITYPES ? td_intern(c->set->strs, r->itypes.p, r->itypes.n) : 0;
        sh->concrete = r->concrete.n ? td_intern(c->set->strs, r->concrete.p, r->concrete.n) : 0;
    }
    td_event *ev = td_trace_push_event(t);
    ev->ts = r->ts;
    ev->dur = dur;
    ev->name = r->have & H_NAME ? td_jscan_intern(&c->js, r->name) : 0;
    ev->track = track;
    ev->cat = cat;
    ev->kind = kind;
    ev->ph = (uint8_t)ph;
    if (r->seq >= 0 && r->seq < INT64_MAX / 2 && (r->have & H_NAME) && !td_kind_is_device(kind)) {
        static const char EVAL[] = "autograd::engine::evaluate_function:";
        td_seqrec *q = TD_PUSH(t->seqs, t->nseqs, t->seqs_cap);
        q->ts = r->ts;
        q->seq2 = r->seq * 2 + (r->name.n >= sizeof EVAL - 1 && !memcmp(r->name.p, EVAL, sizeof EVAL - 1));
        q->track = track;
        q->name = ev->name;
    }
    if (r->have & H_CORR)
        ev->corr = r->corr;
    if (r->kname.n && (r->have & H_CORR) && (kind == TD_K_RUNTIME || kind == TD_K_DRIVER)) {
        td_lkernel *lk = TD_PUSH(t->lk, t->nlk, t->lk_cap);
        lk->corr = r->corr;
        lk->kernel = td_jscan_intern(&c->js, r->kname);
    }
    /* "External id" is on nearly every CPU op and runtime call: keeping it there would
     * cost an aux record per event (most of the model's memory) for a link the passes
     * get from nesting and correlation ids. It is kept on device work, and on any event
     * that has another kept argument. */
    uint32_t aux = r->have & H_AUX;
    if (aux == H_EXT && !td_kind_is_device(kind) && kind != TD_K_GPU_ANNOT)
        aux = 0;
    if (aux)
        add_aux(c, r, ev);
    if (td_kind_is_device(kind)) {
        td_track *tk = &t->tracks[track];
        if (tk->device < 0) {
            int64_t d = r->have & H_DEV ? r->dev : tk->pid;
            int64_t s = r->have & H_STREAM ? r->stream : tk->tid;
            tk->device = d < 0 || d > INT32_MAX ? 0 : (int32_t)d;
            tk->stream = s < 0 || s > INT32_MAX ? 0 : (int32_t)s;
        }
    }
    note_end(c, r->ts, dur);
    uint32_t idx = (uint32_t)(t->nev - 1);
    if (ph == 'B') {
        u32vec *s = stack_of(c, track);
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 8;
            s->v = td_xrealloc(s->v, s->cap * sizeof *s->v);
        }
        s->v[s->n++] = idx;
    } else if (ph == 'b') {
        if (!(r->have & H_ID)) {
            /* unpaired by construction: keep it as an instant of zero length */
            return;
        }
        uint64_t key = async_key(c, r);
        ment *m = imap_slot(&c->amap, (int64_t)key, 1);
        openasync *o = TD_PUSH(c->oa, c->noa, c->oa_cap);
        o->key = key;
        o->ev = idx;
        o->prev = m->v;
        m->v = (uint32_t)c->noa;
    }
}

/* ---------------------------------------------------------------- top level */
void td_chrome_finish(cj *c)
{
    td_trace *t = c->t;
    /* process names and sort indexes apply to every thread of the process */
    for (size_t i = 0; i < t->ntracks; i++) {
        td_track *k = &t->tracks[i];
        ment *m = c->pids.cap ? imap_slot(&c->pids, k->pid, 0) : NULL;
        if (!m || !m->v)
            continue;
        pinfo *p = &c->pi[m->v - 1];
        if (p->name)
            k->process_name = p->name;
        if (p->has_sort && !k->sort_index)
            k->sort_index = p->sort;
    }
    /* unmatched B: close at the trace end */
    for (size_t i = 0; i < c->nstk; i++) {
        for (uint32_t j = 0; j < c->stk[i].n; j++) {
            td_event *ev = &t->ev[c->stk[i].v[j]];
            ev->dur = c->max_end > ev->ts ? c->max_end - ev->ts : 0;
            c->w_open_b++;
        }
        free(c->stk[i].v);
    }
    for (size_t i = 0; i < c->noa; i++) {
        if (c->oa[i].ev == UINT32_MAX)
            continue;
        td_event *ev = &t->ev[c->oa[i].ev];
        ev->dur = c->max_end > ev->ts ? c->max_end - ev->ts : 0;
        c->w_open_ab++;
    }
    td_chrome_keep_linked_seqs(c);
    td_warnings *w = &c->set->warnings;
    const char *n = c->name;
    if (c->w_neg)
        td_warn(w, "%s: %llu events with a negative duration (set to 0)", n, (unsigned long long)c->w_neg);
    if (c->w_nots)
        td_warn(w, "%s: %llu events without \"ts\" skipped", n, (unsigned long long)c->w_nots);
    if (c->w_range)
        td_warn(w, "%s: %llu events with ts/dur out of range skipped", n, (unsigned long long)c->w_range);
    if (c->w_unmatched_e)
        td_warn(w, "%s: %llu \"E\" events without a matching \"B\" ignored", n, (unsigned long long)c->w_unmatched_e);
    if (c->w_open_b)
        td_warn(w, "%s: %llu \"B\" events without an \"E\" closed at the trace end", n, (unsigned long long)c->w_open_b);
    if (c->w_unmatched_ae)
        td_warn(w, "%s: %llu async \"e\" events without a matching \"b\" ignored", n, (unsigned long long)c->w_unmatched_ae);
    if (c->w_open_ab)
        td_warn(w, "%s: %llu async \"b\" events without an \"e\" closed at the trace end", n, (unsigned long long)c->w_open_ab);
    if (c->js.w_utf8)
        td_warn(w, "%s: %llu strings with invalid UTF-8 or escapes (replaced by U+FFFD)", n, (unsigned long long)c->js.w_utf8);
    if (c->js.w_long)
        td_warn(w, "%s: %llu strings longer than %zu KiB cut to their first %zu KiB (input "
                "shapes: not kept)", n,
                (unsigned long long)c->js.w_long, TD_BOUND_STRING >> 10, TD_BOUND_STRING >> 10);
}
