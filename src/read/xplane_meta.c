/* read/xplane_meta.c - the first reading of an XPlane (read/xplane.c): each plane's
 * name, line headers, event and stat metadata (the names its events and stats refer to,
 * written after the events), device properties and /host:metadata's HLO protos. */
#include "read/xplane_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t ihash(int64_t k, size_t cap)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

void xp_imap_put(imap *m, int64_t k, uint32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        imap o = *m;
        m->cap = o.cap ? o.cap * 2 : 64;
        m->k = td_xmalloc(m->cap * sizeof *m->k);
        m->v = td_xmalloc(m->cap * sizeof *m->v);
        for (size_t i = 0; i < m->cap; i++) m->v[i] = UINT32_MAX;
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.v[i] != UINT32_MAX) xp_imap_put(m, o.k[i], o.v[i]);
        free(o.k);
        free(o.v);
    }
    size_t i = ihash(k, m->cap);
    while (m->v[i] != UINT32_MAX) {
        if (m->k[i] == k) { m->v[i] = v; return; }
        i = (i + 1) & (m->cap - 1);
    }
    m->k[i] = k;
    m->v[i] = v;
    m->n++;
}

int64_t xp_imap_get(const imap *m, int64_t k)
{
    if (!m->cap) return -1;
    size_t i = ihash(k, m->cap);
    while (m->v[i] != UINT32_MAX) {
        if (m->k[i] == k) return m->v[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

void xp_imap_free(imap *m) { free(m->k); free(m->v); memset(m, 0, sizeof *m); }

static const char *const wnames[W__N] = {
    "", "hlo_op", "hlo_module", "program_id", "correlation_id", "kernel_details",
    "memcpy_details", "memset_details", "allocator_name", "bytes_allocated",
    "bytes_reserved", "allocation_bytes", "Hlo Proto", "device_vendor", "core_count",
    "memory_size", "compute_cap_major", "compute_cap_minor", "device_type_string" };

static int which(const char *s, size_t n)
{
    for (int w = 1; w < W__N; w++)
        if (strlen(wnames[w]) == n && !memcmp(wnames[w], s, n)) return w;
    if ((n == 11 && !memcmp(s, "device_name", 11)) || (n == 12 && !memcmp(s, "Memset_details", 12)))
        return n == 11 ? W_DEVNAME : W_MEMSET;
    return W_NONE;
}


td_str xp_intern(xctx *x, const unsigned char *p, size_t n)
{
    return td_intern(x->set->strs, (const char *)p, n);
}

/* One XStat (the reader at its start). bytes_value is kept only when keep_bytes. */
int xp_read_stat(td_pb *r, xctx *x, sval *v, int keep_bytes)
{
    memset(v, 0, sizeof *v);
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        uint64_t u;
        const unsigned char *p;
        size_t n;
        if (f == 1 && wt == TD_PB_VARINT) {
            if (td_pb_varint(r, &u)) return -1;
            v->md = (int64_t)u;
        } else if ((f == 3 || f == 4 || f == 7) && wt == TD_PB_VARINT) {
            if (td_pb_varint(r, &u)) return -1;
            v->type = (int)f;
            v->iv = (int64_t)u;
        } else if (f == 2 && wt == TD_PB_I64) {
            if (td_pb_fixed64(r, &u)) return -1;
            memcpy(&v->dv, &u, 8);
            v->type = 2;
            v->iv = (int64_t)v->dv;
        } else if (f == 5 && wt == TD_PB_LEN) {
            if (td_pb_bytes(r, MAX_STR, &p, &n)) return -1;
            v->type = 5;
            v->s = xp_intern(x, p, n);
        } else if (f == 6 && wt == TD_PB_LEN && keep_bytes) {
            if (td_pb_bytes(r, MAX_HLO, &p, &n)) return -1;
            unsigned char *c = td_arena_alloc(x->set->arena, n ? n : 1);
            memcpy(c, p, n);
            v->type = 6;
            v->b = c;
            v->nb = n;
        } else if (td_pb_skip(r, f, wt)) {
            return -1;
        }
    }
    if (rc < 0) return -1;
    return td_pb_leave(r);
}

/* The stat's meaning in plane p, and its string (str, or ref resolved). */
int xp_stat_which(const xplane *p, const sval *v)
{
    int64_t i = xp_imap_get(&p->sid, v->md);
    return i < 0 ? W_NONE : p->sw[i];
}

td_str xp_stat_str(const xplane *p, const sval *v)
{
    if (v->type == 5) return v->s;
    if (v->type == 7) {
        int64_t i = xp_imap_get(&p->sid, v->iv);
        return i < 0 ? 0 : p->sname[i];
    }
    return 0;
}

/* ---- pass 1: planes without their events ------------------------------------------- */

static int str_field(td_pb *r, xctx *x, td_str *out)
{
    const unsigned char *p;
    size_t n;
    if (td_pb_bytes(r, MAX_STR, &p, &n)) return -1;
    *out = xp_intern(x, p, n);
    return 0;
}

int xp_int_field(td_pb *r, int wt, uint32_t f, int64_t *out)
{
    uint64_t u;
    if (wt != TD_PB_VARINT) return td_pb_skip(r, f, wt);
    if (td_pb_varint(r, &u)) return -1;
    *out = (int64_t)u;
    return 0;
}

static int read_line_head(td_pb *r, xctx *x, xline *l)
{
    memset(l, 0, sizeof *l);
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    td_str disp = 0;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        int bad = 0;
        if (f == 1) bad = xp_int_field(r, wt, f, &l->id);
        else if (f == 3) bad = xp_int_field(r, wt, f, &l->ts_ns);
        else if (f == 2 && wt == TD_PB_LEN) bad = str_field(r, x, &l->name);
        else if (f == 11 && wt == TD_PB_LEN) bad = str_field(r, x, &disp);
        else bad = td_pb_skip(r, f, wt);
        if (bad) return -1;
    }
    if (rc < 0) return -1;
    if (!l->name && disp) l->name = disp;
    return td_pb_leave(r);
}

static int read_event_meta(td_pb *r, xctx *x, xplane *pl)
{
    if (td_pb_enter(r)) return -1;   /* the map entry */
    uint32_t f;
    int wt, rc;
    int64_t key = 0, id = -1;
    xmeta m = {0};
    m.program = -1;
    size_t raw0 = x->nraw;
    td_str disp = 0;
    int have = 0;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        if (f == 1) {
            if (xp_int_field(r, wt, f, &key)) return -1;
            continue;
        }
        if (f != 2 || wt != TD_PB_LEN) {
            if (td_pb_skip(r, f, wt)) return -1;
            continue;
        }
        have = 1;
        if (td_pb_enter(r)) return -1;
        uint32_t g;
        int wt2, rc2;
        while ((rc2 = td_pb_next(r, &g, &wt2)) > 0) {
            int bad = 0;
            if (g == 1) bad = xp_int_field(r, wt2, g, &id);
            else if (g == 2 && wt2 == TD_PB_LEN) bad = str_field(r, x, &m.name);
            else if (g == 4 && wt2 == TD_PB_LEN) bad = str_field(r, x, &disp);
            else if (g == 5 && wt2 == TD_PB_LEN) {
                sval v;
                bad = xp_read_stat(r, x, &v, pl->kind == P_META);
                if (!bad) *TD_PUSH(x->raw, x->nraw, x->rawcap) = v;
            } else bad = td_pb_skip(r, g, wt2);
            if (bad) return -1;
        }
        if (rc2 < 0 || td_pb_leave(r)) return -1;
    }
    if (rc < 0) return -1;
    if (!m.name) m.name = disp ? disp : x->s_empty;
    if (!have) id = key;
    if (id < 0) id = key;
    uint32_t idx = (uint32_t)pl->nm;
    *TD_PUSH(pl->m, pl->nm, pl->mcap) = m;
    xp_imap_put(&pl->mid, id, idx);
    for (size_t i = raw0; i < x->nraw; i++) {
        *TD_PUSH(x->rawm, x->nrawm, x->rawmcap) = idx;
        (void)i;
    }
    return td_pb_leave(r);
}

static int read_stat_meta(td_pb *r, xctx *x, xplane *pl)
{
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    int64_t key = 0, id = -1;
    td_str name = x->s_empty;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        if (f == 1) {
            if (xp_int_field(r, wt, f, &key)) return -1;
            continue;
        }
        if (f != 2 || wt != TD_PB_LEN) {
            if (td_pb_skip(r, f, wt)) return -1;
            continue;
        }
        if (td_pb_enter(r)) return -1;
        uint32_t g;
        int wt2, rc2;
        while ((rc2 = td_pb_next(r, &g, &wt2)) > 0) {
            int bad = 0;
            if (g == 1) bad = xp_int_field(r, wt2, g, &id);
            else if (g == 2 && wt2 == TD_PB_LEN) bad = str_field(r, x, &name);
            else bad = td_pb_skip(r, g, wt2);
            if (bad) return -1;
        }
        if (rc2 < 0 || td_pb_leave(r)) return -1;
    }
    if (rc < 0) return -1;
    if (id < 0) id = key;
    uint32_t idx = (uint32_t)pl->ns;
    if (pl->ns == pl->scap) {
        pl->scap = pl->scap ? pl->scap * 2 : 64;
        pl->sname = td_xrealloc(pl->sname, pl->scap * sizeof *pl->sname);
        pl->sw = td_xrealloc(pl->sw, pl->scap);
    }
    pl->sname[pl->ns] = name;
    const char *s = td_strget(x->set->strs, name);
    pl->sw[pl->ns++] = (uint8_t)which(s, strlen(s));
    xp_imap_put(&pl->sid, id, idx);
    return td_pb_leave(r);
}

static int is_derived_line(const char *s)
{
    static const char *const d[] = { "XLA Modules", "XLA Ops", "Steps", "XLA TraceMe",
        "Framework Ops", "Framework Name Scope", "Source code", "TensorFlow Ops",
        "TensorFlow Name Scope", "Launch Stats", "XLA Async Ops", "SparseCore Ops",
        "Async XLA Ops", "Sparse Core Ops", NULL };
    for (int i = 0; d[i]; i++)
        if (!strcmp(s, d[i])) return 1;
    return 0;
}

/* The device number of "/device:GPU:3" (-1 when the name does not end in digits). */
static int32_t device_of(const char *s)
{
    size_t n = strlen(s), i = n;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--;
    if (i == n || i == 0 || s[i - 1] != ':' || n - i > 6) return -1;
    return (int32_t)atol(s + i);
}

/* Resolve the plane's metadata stats once its stat names are known. */
static void plane_done(xctx *x, xplane *pl, size_t raw0)
{
    const char *nm = td_strget(x->set->strs, pl->name);
    td_device *dv = NULL;
    if (pl->kind == P_DEVICE) {
        dv = td_trace_device(x->t, pl->device);
    }
    const char *vendor = NULL;
    int64_t ccmaj = -1, ccmin = -1;
    td_str devname = 0;
    for (size_t i = raw0; i < x->nraw; i++) {
        const sval *v = &x->raw[i];
        uint32_t mi = x->rawm[i];
        int w = xp_stat_which(pl, v);
        td_str s = xp_stat_str(pl, v);
        if (mi == UINT32_MAX) {   /* plane stats: device properties */
            if (!dv) continue;
            if (w == W_VENDOR && s) vendor = td_strget(x->set->strs, s);
            else if (w == W_CORES) dv->num_sms = (int32_t)v->iv;
            else if (w == W_MEMSIZE) dv->total_mem = v->iv;
            else if (w == W_CC_MAJOR) ccmaj = v->iv;
            else if (w == W_CC_MINOR) ccmin = v->iv;
            else if (w == W_DEVNAME && s) devname = s;
            continue;
        }
        xmeta *m = &pl->m[mi];
        switch (w) {
        case W_HLO_OP: if (s) m->hlo_op = s; break;
        case W_HLO_MODULE: if (s) m->module = s; break;
        case W_PROGRAM: m->program = v->iv; break;
        case W_KERNEL: m->kernel = 1; break;
        case W_MEMCPY: m->memcpy = 1; break;
        case W_MEMSET: m->memset = 1; break;
        case W_HLO_PROTO:
            if (pl->kind == P_META && v->type == 6) {
                /* program id: the metadata's "name(N)", else its id */
                const char *mn = td_strget(x->set->strs, m->name);
                size_t l = strlen(mn);
                int64_t prog = -1;
                if (l > 2 && mn[l - 1] == ')') {
                    size_t q = l - 1;
                    while (q > 0 && mn[q - 1] >= '0' && mn[q - 1] <= '9') q--;
                    if (q > 0 && mn[q - 1] == '(' && q < l - 1) prog = atoll(mn + q);
                }
                if (prog < 0) {
                    for (size_t k = 0; k < pl->mid.cap; k++)
                        if (pl->mid.v[k] == mi) prog = pl->mid.k[k];
                }
                td_hlo_dump *h = TD_PUSH(x->hlo, x->nhlo, x->hlocap);
                h->program = prog;
                h->xz = v->b;
                h->n = v->nb;
            }
            break;
        default: break;
        }
    }
    if (dv) {
        if (devname) dv->name = devname;
        else {
            char b[160];
            /* "/device:GPU:0" -> "GPU" */
            const char *kd = strncmp(nm, "/device:", 8) ? nm : nm + 8, *c = strrchr(kd, ':');
            int kl = c ? (int)(c - kd) : (int)strlen(kd);
            snprintf(b, sizeof b, "%s%s%.*s", vendor ? vendor : "", vendor ? " " : "", kl, kd);
            if (ccmaj >= 0)
                snprintf(b + strlen(b), sizeof b - strlen(b), " (compute capability %lld.%lld)",
                         (long long)ccmaj, (long long)(ccmin < 0 ? 0 : ccmin));
            dv->name = td_intern_cstr(x->set->strs, b);
        }
    }
    x->nraw = raw0;
    x->nrawm = raw0;
}

static int pass1_plane(td_pb *r, xctx *x)
{
    xplane *pl = TD_PUSH(x->pl, x->npl, x->plcap);
    memset(pl, 0, sizeof *pl);
    pl->device = -1;
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    size_t raw0 = x->nraw;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        int bad = 0;
        if (f == 1) bad = xp_int_field(r, wt, f, &pl->id);
        else if (f == 2 && wt == TD_PB_LEN) {
            bad = str_field(r, x, &pl->name);
            const char *s = td_strget(x->set->strs, pl->name);
            if (!strcmp(s, "/host:metadata")) pl->kind = P_META;
            else if (!strncmp(s, "/host:", 6)) pl->kind = P_HOST;
            else if (!strncmp(s, "/device:", 8) && (pl->device = device_of(s)) >= 0)
                pl->kind = P_DEVICE;
            else if (!strncmp(s, "/device:", 8)) pl->kind = P_OTHER;
            else pl->kind = P_SKIP;
        } else if (f == 3 && wt == TD_PB_LEN) {
            xline *l = TD_PUSH(pl->ln, pl->nln, pl->lncap);
            bad = read_line_head(r, x, l);
            if (!bad) {
                l->derived = is_derived_line(td_strget(x->set->strs, l->name));
                if (!l->derived) pl->streams = 1;
            }
        } else if (f == 4 && wt == TD_PB_LEN) bad = read_event_meta(r, x, pl);
        else if (f == 5 && wt == TD_PB_LEN) bad = read_stat_meta(r, x, pl);
        else if (f == 6 && wt == TD_PB_LEN) {
            sval v;
            bad = xp_read_stat(r, x, &v, 0);
            if (!bad) {
                *TD_PUSH(x->raw, x->nraw, x->rawcap) = v;
                *TD_PUSH(x->rawm, x->nrawm, x->rawmcap) = UINT32_MAX;
            }
        } else bad = td_pb_skip(r, f, wt);
        if (bad) return -1;
    }
    if (rc < 0) return -1;
    plane_done(x, pl, raw0);
    return td_pb_leave(r);
}


int xp_pass1(td_pb *r, xctx *x)
{
    uint32_t f;
    int wt, rc;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        int bad;
        if (f == 1 && wt == TD_PB_LEN) bad = pass1_plane(r, x);
        else if ((f == 2 || f == 3) && wt == TD_PB_LEN) {
            const unsigned char *p;
            size_t n;
            bad = td_pb_bytes(r, MAX_STR, &p, &n);
            if (!bad)
                td_warn(&x->set->warnings, "%s: the profiler recorded %s: %.*s", x->name,
                        f == 2 ? "an error" : "a warning", (int)(n > 300 ? 300 : n), p);
        } else bad = td_pb_skip(r, f, wt);
        if (bad) return -1;
    }
    return rc;
}
