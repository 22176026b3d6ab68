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
#include "read/xplane_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (f == 1) bad = xp_int_field(r, wt, f, &v.md);
        else if (f == 2) bad = xp_int_field(r, wt, f, &v.off);
        else if (f == 3) bad = xp_int_field(r, wt, f, &v.dur);
        else if (f == 4 && wt == TD_PB_LEN) {
            sval s;
            bad = xp_read_stat(r, x, &s, 0);
            if (bad) return -1;
            int w = xp_stat_which(pl, &s);
            td_str str = w ? xp_stat_str(pl, &s) : 0;
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
    int64_t mi = xp_imap_get(&pl->mid, v.md);
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
        xp_imap_free(&p->mid);
        free(p->sname);
        free(p->sw);
        xp_imap_free(&p->sid);
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
    int rc = xp_pass1(&r, x);
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
