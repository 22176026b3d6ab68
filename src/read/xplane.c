/* read/xplane.c - XPlane reader (`*.xplane.pb`, plain or gzip): the XSpace protobuf that
 * jax.profiler, TensorBoard's profile plugin and XProf write (message layout:
 * ../shared/docs/xplane/xplane.proto; stat names: openxla xplane_schema.cc).
 *
 *   XSpace: planes = 1, errors = 2, warnings = 3, hostnames = 4
 *   XPlane: id = 1, name = 2, lines = 3, event_metadata = 4 (map<int64, XEventMetadata>),
 *           stat_metadata = 5 (map<int64, XStatMetadata>), stats = 6
 *   XLine:  id = 1, name = 2, timestamp_ns = 3, events = 4, duration_ps = 9,
 *           display_id = 10, display_name = 11
 *   XEvent: metadata_id = 1, offset_ps = 2, duration_ps = 3, stats = 4, num_occurrences = 5
 *   XStat:  metadata_id = 1, double = 2, uint64 = 3, int64 = 4, str = 5, bytes = 6, ref = 7
 *   XEventMetadata: id = 1, name = 2, metadata = 3, display_name = 4, stats = 5, child_id = 6
 *   XStatMetadata: id = 1, name = 2, description = 3
 *
 * A plane's metadata (names of events and stats) is written after its lines, so the
 * message is read twice: first everything but the events (metadata, line headers, the
 * HLO protos of /host:metadata), then the events, each turned into the model as it is
 * read. Memory holds the model and the metadata, never the file.
 *
 * Planes: /device:<KIND>:<N> are devices (track pid N, one track per line = stream);
 * their kernels (memcpy_details: copies, memset_details: memsets, ROCm's
 * __amd_rocclr_copyBuffer* kernels: copies) are device events; lines XProf derives
 * (XLA Modules, XLA Ops, Steps, ...) are not, except XLA Ops on a device without stream
 * lines (TPU), and XLA Modules give module executions. /host:* planes are host threads
 * (TraceMe: cpu ops; `$...`: Python; events with correlation_id: the launch calls;
 * MemoryAllocation/MemoryDeallocation: the allocator's counters). /host:metadata's
 * "Hlo Proto" stats are the programs' HloProtos (t->hlo, by program id). Other
 * /device:CUSTOM planes (Megascale) are host-side timelines. Unknown planes, lines,
 * fields and stats are skipped. */
#include "read/xplane.h"
#include "io/protobuf.h"
#include <stdlib.h>
#include <string.h>

#define HOST_PID 100000        /* host planes' tracks; devices use their number */
#define MAX_STR ((size_t)1 << 20)     /* names and string stats */
#define MAX_HLO ((size_t)1 << 30)     /* one HLO proto */

/* ---- int64 -> uint32 map --------------------------------------------------------- */

typedef struct imap { int64_t *k; uint32_t *v; size_t cap, n; } imap;

static size_t ihash(int64_t k, size_t cap)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static void imap_put(imap *m, int64_t k, uint32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        imap o = *m;
        m->cap = o.cap ? o.cap * 2 : 64;
        m->k = td_xmalloc(m->cap * sizeof *m->k);
        m->v = td_xmalloc(m->cap * sizeof *m->v);
        for (size_t i = 0; i < m->cap; i++) m->v[i] = UINT32_MAX;
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.v[i] != UINT32_MAX) imap_put(m, o.k[i], o.v[i]);
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

static int64_t imap_get(const imap *m, int64_t k)
{
    if (!m->cap) return -1;
    size_t i = ihash(k, m->cap);
    while (m->v[i] != UINT32_MAX) {
        if (m->k[i] == k) return m->v[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

static void imap_free(imap *m) { free(m->k); free(m->v); memset(m, 0, sizeof *m); }

/* ---- the stats read ----------------------------------------------------------------- */

enum { W_NONE, W_HLO_OP, W_HLO_MODULE, W_PROGRAM, W_CORR, W_KERNEL, W_MEMCPY, W_MEMSET,
       W_ALLOC_NAME, W_ALLOCATED, W_RESERVED, W_ALLOC_BYTES, W_HLO_PROTO, W_VENDOR,
       W_CORES, W_MEMSIZE, W_CC_MAJOR, W_CC_MINOR, W_DEVNAME, W__N };
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

/* A stat value: iv for integers (and double bits cast), s for str/ref (0 none). */
typedef struct sval {
    int64_t md;       /* stat metadata id */
    int type;         /* XStat value field number, 0 none */
    int64_t iv;
    double dv;
    td_str s;         /* str_value interned (ref_value: resolved later) */
    const unsigned char *b; size_t nb;  /* bytes_value kept (HLO protos) */
} sval;

/* Event metadata: its name and the stats that apply to every event of it. */
typedef struct xmeta {
    td_str name;
    td_str hlo_op, module;
    int64_t program;
    uint8_t memcpy, memset, kernel;
} xmeta;

typedef struct xline { int64_t id, ts_ns; td_str name; int derived; } xline;

enum { P_SKIP, P_DEVICE, P_HOST, P_META, P_OTHER };

typedef struct xplane {
    int64_t id;
    td_str name;
    int kind;
    int32_t device;
    xmeta *m; size_t nm, mcap;
    imap mid;                 /* event metadata id -> m index */
    td_str *sname; uint8_t *sw; size_t ns, scap;   /* stat metadata: name, which */
    imap sid;                 /* stat metadata id -> index */
    xline *ln; size_t nln, lncap;
    int streams;              /* has stream (not derived) lines */
} xplane;

typedef struct xctx {
    td_traceset *set;
    td_trace *t;
    const char *name;
    td_err *e;
    xplane *pl; size_t npl, plcap;
    sval *raw; size_t nraw, rawcap;   /* pass 1: metadata stats of the plane being read */
    uint32_t *rawm; size_t nrawm, rawmcap;  /* their event metadata index (-1: plane) */
    td_xk *k; size_t nk, kcap;
    td_xmodspan *ms; size_t nms, mscap;
    td_hlo_dump *hlo; size_t nhlo, hlocap;
    int64_t nkern, nkern_corr, nhost_corr;
    td_str s_empty;
} xctx;

static td_str intern(xctx *x, const unsigned char *p, size_t n)
{
    return td_intern(x->set->strs, (const char *)p, n);
}

/* One XStat (the reader at its start). bytes_value is kept only when keep_bytes. */
static int read_stat(td_pb *r, xctx *x, sval *v, int keep_bytes)
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
            v->s = intern(x, p, n);
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
static int stat_which(const xplane *p, const sval *v)
{
    int64_t i = imap_get(&p->sid, v->md);
    return i < 0 ? W_NONE : p->sw[i];
}

static td_str stat_str(const xplane *p, const sval *v)
{
    if (v->type == 5) return v->s;
    if (v->type == 7) {
        int64_t i = imap_get(&p->sid, v->iv);
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
    *out = intern(x, p, n);
    return 0;
}

static int int_field(td_pb *r, int wt, uint32_t f, int64_t *out)
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
        if (f == 1) bad = int_field(r, wt, f, &l->id);
        else if (f == 3) bad = int_field(r, wt, f, &l->ts_ns);
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
            if (int_field(r, wt, f, &key)) return -1;
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
            if (g == 1) bad = int_field(r, wt2, g, &id);
            else if (g == 2 && wt2 == TD_PB_LEN) bad = str_field(r, x, &m.name);
            else if (g == 4 && wt2 == TD_PB_LEN) bad = str_field(r, x, &disp);
            else if (g == 5 && wt2 == TD_PB_LEN) {
                sval v;
                bad = read_stat(r, x, &v, pl->kind == P_META);
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
    imap_put(&pl->mid, id, idx);
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
            if (int_field(r, wt, f, &key)) return -1;
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
            if (g == 1) bad = int_field(r, wt2, g, &id);
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
    imap_put(&pl->sid, id, idx);
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
        int w = stat_which(pl, v);
        td_str s = stat_str(pl, v);
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
        if (f == 1) bad = int_field(r, wt, f, &pl->id);
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
            bad = read_stat(r, x, &v, 0);
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

/* ---- pass 2: the events ------------------------------------------------------------- */

enum { L_SKIP, L_DEVICE, L_MODULES, L_HOST, L_OTHER };

typedef struct evs {
    int64_t md, off, dur, corr, program;
    td_str hlo_op, module, alloc_name;
    int64_t allocated, reserved, alloc_bytes;
    int memcpy, memset, kernel, alloc;
    int32_t grid[3], block[3];
    int dims;
} evs;

/* "grid:3072,1,1 block:256,1,1 ..." */
static void parse_dims(const char *s, evs *v)
{
    const char *g = strstr(s, "grid:"), *b = strstr(s, "block:");
    if (!g || !b) return;
    if (sscanf(g + 5, "%d,%d,%d", &v->grid[0], &v->grid[1], &v->grid[2]) == 3 &&
        sscanf(b + 6, "%d,%d,%d", &v->block[0], &v->block[1], &v->block[2]) == 3)
        v->dims = 1;
}

/* bytes of a memcpy_details / memset_details string ("... size:1024 ..."), -1 unknown */
static int64_t detail_bytes(const char *s)
{
    const char *p = strstr(s, "size:");
    if (!p) p = strstr(s, "num_bytes:");
    if (!p) return -1;
    p = strchr(p, ':') + 1;
    int64_t v = 0;
    int any = 0;
    while (*p >= '0' && *p <= '9' && v < ((int64_t)1 << 55)) { v = v * 10 + (*p++ - '0'); any = 1; }
    return any ? v : -1;
}

static int64_t ps_to_ns(int64_t ps)
{
    return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

static int pass2_event(td_pb *r, xctx *x, const xplane *pl, const xline *l, uint32_t track,
                       int mode)
{
    evs v;
    memset(&v, 0, sizeof v);
    v.program = -1;
    v.md = -1;
    int64_t bytes = -1;
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        int bad = 0;
        if (f == 1) bad = int_field(r, wt, f, &v.md);
        else if (f == 2) bad = int_field(r, wt, f, &v.off);
        else if (f == 3) bad = int_field(r, wt, f, &v.dur);
        else if (f == 4 && wt == TD_PB_LEN) {
            sval s;
            bad = read_stat(r, x, &s, 0);
            if (bad) return -1;
            int w = stat_which(pl, &s);
            td_str str = w ? stat_str(pl, &s) : 0;
            switch (w) {
            case W_HLO_OP: if (str) v.hlo_op = str; break;
            case W_HLO_MODULE: if (str) v.module = str; break;
            case W_PROGRAM: v.program = s.iv; break;
            case W_CORR: v.corr = s.iv; break;
            case W_KERNEL:
                v.kernel = 1;
                if (str && !x->set->analysis_only)
                    parse_dims(td_strget(x->set->strs, str), &v);
                break;
            case W_MEMCPY:
            case W_MEMSET:
                if (w == W_MEMCPY) v.memcpy = 1; else v.memset = 1;
                if (str) bytes = detail_bytes(td_strget(x->set->strs, str));
                break;
            case W_ALLOC_NAME: v.alloc_name = str; v.alloc = 1; break;
            case W_ALLOCATED: v.allocated = s.iv; v.alloc = 1; break;
            case W_RESERVED: v.reserved = s.iv; break;
            case W_ALLOC_BYTES: v.alloc_bytes = s.iv; break;
            default: break;
            }
        } else bad = td_pb_skip(r, f, wt);
        if (bad) return -1;
    }
    if (rc < 0 || td_pb_leave(r)) return -1;
    int64_t mi = imap_get(&pl->mid, v.md);
    const xmeta *m = mi >= 0 ? &pl->m[mi] : NULL;
    td_trace *t = x->t;
    int64_t ts = l->ts_ns + ps_to_ns(v.off), dur = ps_to_ns(v.dur);
    if (dur < 0) dur = 0;
    td_str name = m ? m->name : x->s_empty;
    if (m) {
        if (!v.hlo_op) v.hlo_op = m->hlo_op;
        if (!v.module) v.module = m->module;
        if (v.program < 0) v.program = m->program;
        v.memcpy |= m->memcpy;
        v.memset |= m->memset;
    }
    t->nevents++;
    if (mode == L_MODULES) {
        td_xmodspan *s = TD_PUSH(x->ms, x->nms, x->mscap);
        s->ts = ts;
        s->dur = dur;
        s->device = pl->device;
        s->program = v.program;
        /* "jit_step(12)": the module and its program */
        const char *nm = td_strget(x->set->strs, name);
        size_t nl = strlen(nm), q = nl;
        if (nl > 2 && nm[nl - 1] == ')') {
            q = nl - 1;
            while (q > 0 && nm[q - 1] >= '0' && nm[q - 1] <= '9') q--;
            if (q > 0 && nm[q - 1] == '(' && q < nl - 1) {
                if (s->program < 0) s->program = atoll(nm + q);
                q--;
            } else q = nl;
        }
        s->module = v.module ? v.module : td_intern(x->set->strs, nm, q);
        return 0;
    }
    td_event *ev = td_trace_push_event(t);
    ev->ts = ts;
    ev->dur = dur;
    ev->name = name;
    ev->track = track;
    ev->corr = v.corr;
    ev->ph = dur || mode == L_DEVICE ? 'X' : 'i';
    if (mode == L_DEVICE) {
        const char *nm = td_strget(x->set->strs, name);
        /* ROCm's blit kernels that copy buffers are copies (doc/formats.md) */
        if (v.memcpy || !strncmp(nm, "__amd_rocclr_copyBuffer", 23)) ev->kind = TD_K_MEMCPY;
        else if (v.memset) ev->kind = TD_K_MEMSET;
        else ev->kind = TD_K_KERNEL;
        td_aux *a;
        uint32_t ai = td_trace_push_aux(t, &a);
        a->bytes = bytes;
        ev->aux = ai;
        if (v.dims) td_trace_set_dims(t, ai, v.grid, v.block);
        x->nkern++;
        if (v.corr) x->nkern_corr++;
        if (ev->kind == TD_K_KERNEL || ev->kind == TD_K_MEMCPY || ev->kind == TD_K_MEMSET) {
            td_xk *k = TD_PUSH(x->k, x->nk, x->kcap);
            k->ts = ts;
            k->dur = dur;
            k->program = v.program;
            k->hlo_op = v.hlo_op;
            k->module = v.module;
            k->device = pl->device;
        }
        return 0;
    }
    if (mode == L_OTHER) {
        ev->kind = dur ? TD_K_OTHER : TD_K_INSTANT;
        return 0;
    }
    const char *nm = td_strget(x->set->strs, name);
    if (v.alloc && (v.allocated || v.alloc_bytes)) {
        ev->kind = TD_K_INSTANT;
        ev->ph = 'i';
        td_mem *mm = TD_PUSH(t->mem, t->nmem, t->mem_cap);
        mm->ts = ts;
        mm->allocated = v.allocated;
        mm->reserved = v.reserved ? v.reserved : -1;
        mm->bytes = strstr(nm, "Deallocation") ? -v.alloc_bytes : v.alloc_bytes;
        mm->track = track;
        const char *an = v.alloc_name ? td_strget(x->set->strs, v.alloc_name) : "";
        if (!strncmp(an, "GPU_", 4) || !strncmp(an, "TPU_", 4)) {
            mm->device_type = 1;
            mm->device = (int32_t)atoi(an + 4);
        } else {
            mm->device_type = 0;
            mm->device = -1;
        }
        return 0;
    }
    if (v.corr) {
        ev->kind = TD_K_RUNTIME;
        x->nhost_corr++;
    } else if (nm[0] == '$') {
        ev->kind = TD_K_PYTHON;
        ev->name = td_intern_cstr(x->set->strs, nm + 1);
    } else
        ev->kind = dur ? TD_K_CPU_OP : TD_K_INSTANT;
    return 0;
}

static int pass2_plane(td_pb *r, xctx *x, size_t pi)
{
    if (pi >= x->npl) return td_pb_fail(r, "the input changed between its two readings");
    const xplane *pl = &x->pl[pi];
    if (pl->kind == P_SKIP || pl->kind == P_META) return td_pb_skip(r, 1, TD_PB_LEN);
    if (td_pb_enter(r)) return -1;
    uint32_t f;
    int wt, rc;
    size_t li = 0;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        if (f != 3 || wt != TD_PB_LEN) {
            if (td_pb_skip(r, f, wt)) return -1;
            continue;
        }
        if (li >= pl->nln) return td_pb_fail(r, "the input changed between its two readings");
        const xline *l = &pl->ln[li++];
        const char *ln = td_strget(x->set->strs, l->name);
        int mode;
        if (pl->kind == P_DEVICE) {
            if (!l->derived) mode = L_DEVICE;
            else if (!strcmp(ln, "XLA Modules")) mode = L_MODULES;
            else if (!strcmp(ln, "XLA Ops") && !pl->streams) mode = L_DEVICE;
            else mode = L_SKIP;
        } else mode = pl->kind == P_HOST ? L_HOST : L_OTHER;
        if (mode == L_SKIP) {
            if (td_pb_skip(r, f, wt)) return -1;
            continue;
        }
        uint32_t track = 0;
        if (mode != L_MODULES) {
            int64_t pid = pl->kind == P_DEVICE ? pl->device : HOST_PID + (int64_t)pi;
            track = td_trace_track(x->t, pid, l->id);
            td_track *k = &x->t->tracks[track];
            k->process_name = pl->name;
            k->thread_name = l->name;
            if (pl->kind == P_DEVICE) {
                k->device = pl->device;
                int64_t sn = l->id;
                if (!strncmp(ln, "Stream #", 8)) sn = atoll(ln + 8);
                k->stream = (int32_t)sn;
            }
        }
        if (td_pb_enter(r)) return -1;
        uint32_t g;
        int wt2, rc2;
        while ((rc2 = td_pb_next(r, &g, &wt2)) > 0) {
            int bad = g == 4 && wt2 == TD_PB_LEN ? pass2_event(r, x, pl, l, track, mode)
                                                 : td_pb_skip(r, g, wt2);
            if (bad) return -1;
        }
        if (rc2 < 0 || td_pb_leave(r)) return -1;
    }
    if (rc < 0) return -1;
    return td_pb_leave(r);
}

/* ---- the reader --------------------------------------------------------------------- */

static int pass1(td_pb *r, xctx *x)
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

static int pass2(td_pb *r, xctx *x)
{
    uint32_t f;
    int wt, rc;
    size_t pi = 0;
    while ((rc = td_pb_next(r, &f, &wt)) > 0) {
        int bad = f == 1 && wt == TD_PB_LEN ? pass2_plane(r, x, pi++) : td_pb_skip(r, f, wt);
        if (bad) return -1;
    }
    return rc;
}

static void ctx_free(xctx *x)
{
    for (size_t i = 0; i < x->npl; i++) {
        xplane *p = &x->pl[i];
        free(p->m);
        imap_free(&p->mid);
        free(p->sname);
        free(p->sw);
        imap_free(&p->sid);
        free(p->ln);
    }
    free(x->pl);
    free(x->raw);
    free(x->rawm);
    free(x->k);
    free(x->ms);
    free(x->hlo);
}

td_status td_read_xplane(td_traceset *set, td_trace *t, td_in *in, const char *path,
                         size_t limit, td_err *e)
{
    xctx X;
    memset(&X, 0, sizeof X);
    xctx *x = &X;
    x->set = set;
    x->t = t;
    x->name = t->path;
    x->e = e;
    x->s_empty = td_intern_cstr(set->strs, "");
    t->format = TD_FMT_XPLANE;
    t->devices_local = 1;   /* /device:GPU:N numbers a host's own devices */
    unsigned char *buf = NULL;
    size_t nbuf = 0;
    td_in *in1 = NULL;
    td_status st = TD_OK;
    td_pb r;
    if (path) {
        in1 = td_in_open_file(path, x->name, e);
        if (!in1) return e->code;
        if (td_in_is_gzip(in)) {
            const unsigned char *p;
            if (td_in_peek(in1, 2, &p, e) < 0) { td_in_close(in1); return e->code; }
            td_in_gunzip(in1);
        }
        td_pb_init_in(&r, in1, x->name, e);
    } else {
        if ((st = td_in_read_all(in, limit, &buf, &nbuf, e)) != TD_OK) return st;
        td_pb_init_mem(&r, buf, nbuf, x->name, e);
    }
    int rc = pass1(&r, x);
    td_pb_free(&r);
    if (in1) td_in_close(in1);
    if (rc < 0) {
        st = e->code ? e->code : TD_E_FORMAT;
        goto out;
    }
    if (path) td_pb_init_in(&r, in, x->name, e);
    else td_pb_init_mem(&r, buf, nbuf, x->name, e);
    rc = pass2(&r, x);
    td_pb_free(&r);
    if (rc < 0) {
        st = e->code ? e->code : TD_E_FORMAT;
        goto out;
    }
    if (x->nhlo) {
        t->hlo = td_arena_alloc(set->arena, x->nhlo * sizeof *x->hlo);
        memcpy(t->hlo, x->hlo, x->nhlo * sizeof *x->hlo);
        t->nhlo = x->nhlo;
    }
    size_t noprog = 0;
    for (size_t i = 0; i < x->nk; i++)
        noprog += x->k[i].module && x->k[i].program < 0;
    if (noprog)
        td_warn(&set->warnings, "%s: %zu device events carry hlo_module but no program_id: "
                "their module executions are left out of the module tables (as XLA's "
                "autotuning runs, which have no program id)", x->name, noprog);
    size_t skipped = 0;
    td_xplane_ranges(set, t, x->k, x->nk, x->ms, x->nms, &skipped);
    if (x->nk && skipped)
        td_warn(&set->warnings, "%s: %zu of %zu device events carry no hlo_module stat: "
                "the XLA module, thunk and HLO-op tables leave them out", x->name, skipped,
                x->nk);
    if (x->nkern && !x->nkern_corr)
        td_warn(&set->warnings, "%s: no device event carries a correlation_id: kernels are "
                "not linked to their launch calls (launch delays and queues not computed)",
                x->name);
    if (!t->nev && !t->nranges)
        st = td_fail(e, TD_E_EMPTY, "%s: the XSpace holds no events (%zu planes); nothing "
                     "written", x->name, x->npl);
out:
    free(buf);
    ctx_free(x);
    return st;
}

/* The first plane's fields, as far as the bytes go: XSpace field 1 (or 2-4), then keys
 * of XPlane (1-6) with their wire types, and a printable name. */
int td_xplane_sniff(const unsigned char *p, size_t n)
{
    td_err e;
    td_pb r;
    td_pb_init_mem(&r, p, n, "", &e);
    uint32_t f;
    int wt, ok = 0;
    if (td_pb_next(&r, &f, &wt) <= 0 || f != 1 || wt != TD_PB_LEN || td_pb_varint(&r, &(uint64_t){0}))
        return 0;
    /* the plane's length was read: walk its fields within the peeked bytes */
    const unsigned char *q = p + td_pb_offset(&r);
    td_pb_init_mem(&r, q, n - (size_t)(q - p), "", &e);
    int fields = 0;
    while (td_pb_next(&r, &f, &wt) > 0) {
        static const int want[7] = { -1, TD_PB_VARINT, TD_PB_LEN, TD_PB_LEN, TD_PB_LEN,
                                     TD_PB_LEN, TD_PB_LEN };
        if (f <= 6 && wt != want[f]) return 0;
        if (f > 6) break;   /* a field of a newer XPlane: judge by what came before */
        if (f == 2) {
            const unsigned char *s;
            size_t l;
            if (td_pb_bytes(&r, 4096, &s, &l)) break;
            if (!l || (s[0] != '/' && (s[0] < 'A' || s[0] > 'z'))) return 0;
            for (size_t i = 0; i < l; i++)
                if (s[i] < 0x20 || s[i] >= 0x7f) return 0;
            return 1;
        } else if (td_pb_skip(&r, f, wt)) break;
        fields++;
    }
    return ok && fields >= 1;   /* no name: an XPlane only by its id and lines */
}
