/* analyse/graphs/graphs.c - the kernels of a CUDA/HIP graph replay get the op, module and
 * shapes their capture recorded.
 *
 * A graph replay is one cudaGraphLaunch/hipGraphLaunch/cuGraphLaunch call whose device
 * work all carries the call's correlation id: no op, no module, no shapes. vLLM and SGLang
 * can write, beside the serving trace, traces taken while the graphs were captured
 * (`capture_traces/`: SGLang bs_N_rankR.json.gz, vLLM graph_capture_rank_R.*): between a
 * StreamBeginCapture and its StreamEndCapture, every kernel launch call names its kernel
 * (args "kernel") inside the op and nn.Module that launched it. For each graph launch:
 *   - its device work, in time order, is matched to the launch calls of one capture
 *     window: the capture whose capture_N_ annotation has the smallest batch size N at
 *     least the launch's (the tokens of the iteration annotation around it, as TraceLens's
 *     find_closest_batch_size); when either is unknown, the windows of one batch size;
 *   - by name in launch order: the same count and names one to one; else, with as many
 *     or more captured calls, each replayed kernel takes the next captured call of its
 *     name, extra captured calls skipped (TraceLens's greedy alignment); with the same
 *     names in another order (several streams), the k-th replay of a name takes the k-th
 *     capture of it. Memcpy and memset pair by kind. Anything else (a truncated capture,
 *     another graph, no kernel names) attributes none of the launch's kernels, and a
 *     warning says which launch and why: never a partial or guessed attribution.
 *     (Launch configurations are not compared: ROCm's replayed kernels carry none.)
 *   - then the capture window's ops (cpu_op, user_annotation, nn.Module python frames)
 *     and its matched launch calls are copied into the trace inside the graph launch
 *     call, their times mapped linearly from the capture window onto the call's span
 *     (ph 'g'), with their input shapes; each replayed kernel takes a fresh correlation id
 *     shared with its copied launch call. Every later pass (ops, op_perf, flames, critical
 *     path, modules) then sees them as the ops they are. The copied ops' CPU times are the
 *     graph launch call's time shared out in proportion to the capture's: the CPU did run
 *     the launch call, not the ops (doc/summary-json.md "graphs").
 * Summary: the `graphs` object (launches, kernels, attributed_kernels, attributed_ns,
 * unattributed_ns, source). Runs before nesting (analyse.c). */
#define _GNU_SOURCE
#include "analyse/graphs/graphs.h"
#include "analyse/internal.h"
#include "analyse/serving/serving.h"
#include "base/strtab.h"
#include "read/read.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

enum { K_KERNEL = 0, K_MEMCPY, K_MEMSET };

typedef struct cwin {
    td_trace *t;            /* the capture trace */
    int set;                /* index into caps.sets */
    const char *file;
    int64_t w0, w1;         /* after StreamBeginCapture .. StreamEndCapture */
    uint32_t track;
    int64_t bs;             /* capture_N_... around the window, -1 unknown */
    int32_t *lc; size_t nl; /* launch calls (event indices) in time order */
    td_str *kname;          /* their kernels, in the main set's strings (0 unknown) */
    uint8_t *kkind;
    int32_t *copy; size_t ncopy; /* events copied into a matched launch (time order) */
    int32_t *lpos;          /* per copy: index into lc, -1 not a launch call */
    size_t *shp; size_t nshp;    /* capture shapes in the window */
} cwin;

typedef struct caps {
    td_traceset **sets; size_t nsets;
    td_str **xl;            /* per set: capture string id -> main id + 1 (0 not yet) */
    size_t *nxl;
    cwin *w; size_t nw, wcap;
} caps;

static int has(const char *s, const char *sub)
{
    return s && strcasestr(s, sub) != NULL;
}

static td_str xl(td_actx *a, caps *cp, int set, td_str id)
{
    if (!id)
        return 0;
    if (id < cp->nxl[set] && cp->xl[set][id])
        return cp->xl[set][id] - 1;
    const char *s = td_strget(cp->sets[set]->strs, id);
    td_str m = td_intern_cstr(a->set->strs, s ? s : "");
    if (id < cp->nxl[set])
        cp->xl[set][id] = m + 1;
    return m;
}

static int cmp_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* "...rank12..." in a file name: 12, or -1 */
static int file_rank(const char *f)
{
    const char *p = strstr(f, "rank");
    while (p) {
        p += 4;
        if (*p == '_')
            p++;
        if (*p >= '0' && *p <= '9')
            return atoi(p);
        p = strstr(p, "rank");
    }
    return -1;
}

static int64_t lk_find(const td_trace *t, int64_t corr)
{
    size_t lo = 0, hi = t->nlk;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (t->lk[m].corr < corr)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < t->nlk && t->lk[lo].corr == corr ? (int64_t)lo : -1;
}

static int cmp_lk(const void *x, const void *y)
{
    const td_lkernel *a = x, *b = y;
    return (a->corr > b->corr) - (a->corr < b->corr);
}

static int is_launch_call(const char *nm, int *kk)
{
    if (!nm || has(nm, "GraphLaunch"))
        return 0;
    if (has(nm, "Memcpy")) { *kk = K_MEMCPY; return 1; }
    if (has(nm, "Memset")) { *kk = K_MEMSET; return 1; }
    if (has(nm, "Launch")) { *kk = K_KERNEL; return 1; }
    return 0;
}

/* The windows of capture trace t (set index si). */
static void find_windows(td_actx *a, caps *cp, int si, td_trace *t, const char *file)
{
    const td_strtab *cs = cp->sets[si]->strs;
    if (t->nlk)
        qsort(t->lk, t->nlk, sizeof *t->lk, cmp_lk);
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *b = &t->ev[i];
        if ((b->kind != TD_K_RUNTIME && b->kind != TD_K_DRIVER) ||
            !has(td_strget(cs, b->name), "StreamBeginCapture"))
            continue;
        int64_t w0 = b->ts + b->dur, w1 = -1;
        for (size_t j = i + 1; j < t->nev && w1 < 0; j++)
            if (t->ev[j].track == b->track && t->ev[j].ts >= w0 &&
                (t->ev[j].kind == TD_K_RUNTIME || t->ev[j].kind == TD_K_DRIVER) &&
                has(td_strget(cs, t->ev[j].name), "StreamEndCapture"))
                w1 = t->ev[j].ts;
        if (w1 <= w0)
            continue;
        cwin *w = TD_PUSH(cp->w, cp->nw, cp->wcap);
        memset(w, 0, sizeof *w);
        w->t = t;
        w->set = si;
        w->file = file;
        w->w0 = w0;
        w->w1 = w1;
        w->track = b->track;
        w->bs = -1;
        size_t lcap = 0, ccap = 0, kcap = 0, kkcap = 0, pcap = 0, scap = 0, nk = 0, nkk = 0, np = 0;
        for (size_t j = 0; j < t->nev && t->ev[j].ts <= w1; j++) {
            const td_event *e = &t->ev[j];
            if (e->track != b->track || td_kind_is_device(e->kind))
                continue;
            const char *nm = td_strget(cs, e->name);
            if (e->kind == TD_K_USER_ANNOT && nm && !strncmp(nm, "capture_", 8) && e->ts <= w0 &&
                e->ts + e->dur >= w1 && nm[8] >= '0' && nm[8] <= '9')
                w->bs = atoll(nm + 8);
            if (e->ts < w0 || e->ts + e->dur > w1)
                continue;
            int kk = 0;
            int32_t lp = -1;
            if ((e->kind == TD_K_RUNTIME || e->kind == TD_K_DRIVER) && is_launch_call(nm, &kk)) {
                int64_t x = kk == K_KERNEL && e->corr ? lk_find(t, e->corr) : -1;
                lp = (int32_t)w->nl;
                *TD_PUSH(w->lc, w->nl, lcap) = (int32_t)j;
                *TD_PUSH(w->kname, nk, kcap) = x >= 0 ? xl(a, cp, si, t->lk[x].kernel) : 0;
                *TD_PUSH(w->kkind, nkk, kkcap) = (uint8_t)kk;
            } else if (!(e->kind == TD_K_CPU_OP || e->kind == TD_K_USER_ANNOT ||
                         (e->kind == TD_K_PYTHON && nm && !strncmp(nm, "nn.Module:", 10))))
                continue;
            *TD_PUSH(w->copy, w->ncopy, ccap) = (int32_t)j;
            *TD_PUSH(w->lpos, np, pcap) = lp;
        }
        for (size_t k = 0; k < t->nshapes; k++)
            if (t->shapes[k].track == b->track && t->shapes[k].ts >= w0 && t->shapes[k].ts <= w1)
                *TD_PUSH(w->shp, w->nshp, scap) = k;
    }
}

/* Reads every capture trace of dir (the ones of this rank when the names say ranks). */
static void load_caps(td_actx *a, caps *cp, const char *dir, int rank)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.' && strcmp(de->d_name, "execution_details.json"))
            *TD_PUSH(names, n, cap) = td_xstrdup(de->d_name);
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    cp->sets = td_xcalloc(n + 1, sizeof *cp->sets);
    cp->xl = td_xcalloc(n + 1, sizeof *cp->xl);
    cp->nxl = td_xcalloc(n + 1, sizeof *cp->nxl);
    for (size_t i = 0; i < n; i++) {
        int fr = file_rank(names[i]);
        char *path = td_arena_printf(a->set->arena, "%s/%s", dir, names[i]);
        struct stat sb;
        if ((fr >= 0 && fr != rank) || stat(path, &sb) || !S_ISREG(sb.st_mode))
            continue;
        td_traceset *s = td_traceset_new();
        s->analysis_only = 1;
        s->keep_launch_kernels = 1;
        td_err e = {0};
        if (td_read_input(s, path, &e) != TD_OK || !s->n) {
            char msg[1400];
            snprintf(msg, sizeof msg, "graph capture trace %s not read (%s): its graphs' kernels "
                     "stay unattributed", path, e.msg[0] ? e.msg : "not a trace");
            td_sum_warning(a->s, msg);
            td_traceset_free(s);
            continue;
        }
        td_read_finish(s);
        for (size_t k = 0; k < s->warnings.n && k < 3; k++) { /* truncated, damaged... */
            char msg[1400];
            snprintf(msg, sizeof msg, "graph capture trace: %s", s->warnings.msg[k]);
            td_sum_warning(a->s, msg);
        }
        int si = (int)cp->nsets++;
        cp->sets[si] = s;
        cp->nxl[si] = td_strtab_count(s->strs) + 1;
        cp->xl[si] = td_xcalloc(cp->nxl[si], sizeof *cp->xl[si]);
        for (size_t k = 0; k < s->n; k++)
            find_windows(a, cp, si, s->tr[k], path);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void caps_free(caps *cp)
{
    for (size_t i = 0; i < cp->nw; i++) {
        cwin *w = &cp->w[i];
        free(w->lc);
        free(w->kname);
        free(w->kkind);
        free(w->copy);
        free(w->lpos);
        free(w->shp);
    }
    free(cp->w);
    for (size_t i = 0; i < cp->nsets; i++) {
        td_traceset_free(cp->sets[i]);
        free(cp->xl[i]);
    }
    free(cp->sets);
    free(cp->xl);
    free(cp->nxl);
    memset(cp, 0, sizeof *cp);
}

static int dev_kind(int k)
{
    return k == TD_K_MEMCPY ? K_MEMCPY : k == TD_K_MEMSET ? K_MEMSET : K_KERNEL;
}

/* replayed device work r[0..n) (event indices of t) against window w: map[i] = index
 * into w->lc; 1 matched, 0 not (why: a static text) */
static int align(const td_trace *t, const int32_t *r, size_t n, const cwin *w, int32_t *map,
                 const char **why)
{
#define SAME(i, c) (dev_kind(t->ev[r[i]].kind) == w->kkind[c] && \
                    (w->kkind[c] != K_KERNEL || t->ev[r[i]].name == w->kname[c]))
    for (size_t c = 0; c < w->nl; c++)
        if (w->kkind[c] == K_KERNEL && !w->kname[c]) {
            *why = "the capture's launch calls name no kernel (args \"kernel\")";
            return 0;
        }
    if (w->nl < n) {
        *why = "the capture has fewer launch calls than the replay has kernels (truncated?)";
        return 0;
    }
    size_t i = 0;
    if (w->nl == n) {
        while (i < n && SAME(i, i)) {
            map[i] = (int32_t)i;
            i++;
        }
        if (i == n)
            return 1;
        /* the same names in another order (several streams): k-th of a name to k-th */
        uint8_t *used = td_xcalloc(n + 1, 1);
        size_t ok = 0;
        for (i = 0; i < n; i++) {
            size_t c = 0;
            while (c < n && (used[c] || !SAME(i, c)))
                c++;
            if (c == n)
                break;
            used[c] = 1;
            map[i] = (int32_t)c;
            ok++;
        }
        free(used);
        if (ok == n)
            return 1;
        *why = "the replay's kernels are not the capture's (another graph?)";
        return 0;
    }
    size_t c = 0; /* more captured calls: each kernel takes the next call of its name */
    for (i = 0; i < n; i++) {
        while (c < w->nl && !SAME(i, c))
            c++;
        if (c == w->nl) {
            *why = "a replayed kernel is missing from the capture (another graph?)";
            return 0;
        }
        map[i] = (int32_t)c++;
    }
    return 1;
#undef SAME
}

static int64_t map_ts(int64_t x, const cwin *w, int64_t ts, int64_t dur)
{
    double f = (double)(x - w->w0) / (double)(w->w1 - w->w0);
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return ts + (int64_t)(f * (double)dur);
}

/* Copies w's ops into t inside graph launch call g; kernels r[i] take map[i]'s id. */
static void inject(td_actx *a, caps *cp, td_trace *t, size_t g, const cwin *w, const int32_t *r,
                   size_t n, const int32_t *map, int64_t *nextcorr)
{
    const td_event gl = t->ev[g];
    int64_t *corr = td_xcalloc(w->nl + 1, sizeof *corr);
    for (size_t i = 0; i < n; i++) {
        corr[map[i]] = (*nextcorr)++;
        t->ev[r[i]].corr = corr[map[i]];
    }
    for (size_t k = 0; k < w->ncopy; k++) {
        const td_event *src = &w->t->ev[w->copy[k]];
        int32_t lp = w->lpos[k];
        if (lp >= 0 && !corr[lp])
            continue; /* a captured call no replayed kernel took */
        int64_t s0 = map_ts(src->ts, w, gl.ts, gl.dur), s1 = map_ts(src->ts + src->dur, w, gl.ts, gl.dur);
        td_str cat = xl(a, cp, w->set, w->t->cats[src->cat]);
        td_str nm = xl(a, cp, w->set, src->name);
        td_event *e = td_trace_push_event(t);
        e->ts = s0;
        e->dur = s1 - s0;
        e->corr = lp >= 0 ? corr[lp] : 0;
        e->name = nm;
        e->track = gl.track;
        e->cat = td_trace_cat(t, cat);
        e->kind = src->kind;
        e->ph = 'g';
    }
    for (size_t k = 0; k < w->nshp; k++) {
        const td_shape *src = &w->t->shapes[w->shp[k]];
        td_shape *sh = TD_PUSH(t->shapes, t->nshapes, t->shapes_cap);
        sh->ts = map_ts(src->ts, w, gl.ts, gl.dur);
        sh->track = gl.track;
        sh->name = xl(a, cp, w->set, src->name);
        sh->dims = xl(a, cp, w->set, src->dims);
        sh->types = xl(a, cp, w->set, src->types);
        sh->concrete = xl(a, cp, w->set, src->concrete);
    }
    free(corr);
}

/* The capture batch size a launch of batch bs replays: the smallest capture batch at
 * least bs; -1 none (then only windows of unknown batch, or of one batch size, serve). */
static int64_t capture_bs(const caps *cp, int64_t bs)
{
    int64_t best = -1;
    for (size_t i = 0; i < cp->nw; i++)
        if (cp->w[i].bs >= bs && (best < 0 || cp->w[i].bs < best))
            best = cp->w[i].bs;
    return best;
}

static int one_batch(const caps *cp)
{
    for (size_t i = 1; i < cp->nw; i++)
        if (cp->w[i].bs != cp->w[0].bs)
            return 0;
    return 1;
}

/* tokens (else requests) of the innermost iteration annotation around [ts, end], -1 */
static int64_t launch_bs(td_actx *a, const td_trace *t, const int32_t *ann, size_t nann,
                         const td_event *g)
{
    int64_t bs = -1, best_ts = INT64_MIN;
    for (size_t k = 0; k < nann; k++) {
        const td_event *e = &t->ev[ann[k]];
        td_srv_annot an;
        if (e->track != g->track || e->ts > g->ts || e->ts + e->dur < g->ts + g->dur ||
            e->ts < best_ts || !td_srv_parse(td_name(a, e->name), &an))
            continue;
        best_ts = e->ts;
        bs = an.tokens > 0 ? an.tokens : an.requests;
    }
    return bs;
}

static int cmp_keyed_key(const void *x, const void *y)
{
    const td_keyed *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

static void graphs_trace(td_actx *a, td_trace *t, td_graph_stat *gs)
{
    /* the graph launch calls, and their device work by correlation id */
    td_keyed *gl = NULL; /* key corr, val event index */
    size_t ng = 0, gcap = 0;
    int32_t *ann = NULL;
    size_t nann = 0, acap = 0;
    int64_t maxcorr = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *e = &t->ev[i];
        if (e->corr > maxcorr)
            maxcorr = e->corr;
        if (td_kind_is_device(e->kind) || e->track >= t->ntracks || t->tracks[e->track].device >= 0)
            continue;
        if (e->kind == TD_K_USER_ANNOT)
            *TD_PUSH(ann, nann, acap) = (int32_t)i;
        else if ((e->kind == TD_K_RUNTIME || e->kind == TD_K_DRIVER) && e->corr &&
                 has(td_name(a, e->name), "GraphLaunch"))
            *TD_PUSH(gl, ng, gcap) = (td_keyed){e->corr, (int64_t)i};
    }
    if (!ng) {
        free(ann);
        free(gl);
        return;
    }
    qsort(gl, ng, sizeof *gl, cmp_keyed_key);
    /* device work of each launch: (launch ordinal, event), in time order per launch */
    td_keyed *dw = NULL;
    size_t nd = 0, dcap = 0;
    for (size_t i = 0; i < t->nev; i++) {
        const td_event *e = &t->ev[i];
        if (!td_kind_is_device(e->kind) || !e->corr)
            continue;
        size_t lo = 0, hi = ng;
        while (lo < hi) {
            size_t m = lo + (hi - lo) / 2;
            if (gl[m].key < e->corr)
                lo = m + 1;
            else
                hi = m;
        }
        if (lo < ng && gl[lo].key == e->corr)
            *TD_PUSH(dw, nd, dcap) = (td_keyed){(int64_t)lo, (int64_t)i};
    }
    td_sort_keyed(dw, nd); /* by (launch, event index): events are in time order */
    for (size_t i = 0; i < t->nev; i++)
        if (td_kind_is_device(t->ev[i].kind))
            gs->all_ns += t->ev[i].dur;
    gs->launches += (int64_t)ng;
    gs->kernels += (int64_t)nd;
    for (size_t k = 0; k < nd; k++)
        gs->ns += t->ev[dw[k].val].dur;
    caps cp = {0};
    const char *dir = a->o->capture_dir;
    char *own = NULL;
    if (!dir) { /* capture_traces/ beside the trace */
        const char *sl = strrchr(t->path, '/');
        size_t dl = sl ? (size_t)(sl - t->path) : 0;
        own = td_xmalloc(dl + 32);
        snprintf(own, dl + 32, "%.*s%scapture_traces", (int)dl, t->path, sl ? "/" : "");
        struct stat sb;
        if (!stat(own, &sb) && S_ISDIR(sb.st_mode))
            dir = own;
    }
    if (dir) {
        gs->any_capture = 1;
        load_caps(a, &cp, dir, t->rank);
    }
    int64_t nextcorr = maxcorr + 1;
    int32_t *r = td_xmalloc((nd + 1) * sizeof *r), *map = td_xmalloc((nd + 1) * sizeof *map);
    size_t nfail = 0;
    char first_why[600] = "";
    for (size_t k = 0; k < nd && cp.nw;) {
        size_t lo = k;
        while (k < nd && dw[k].key == dw[lo].key)
            k++;
        size_t n = 0;
        for (size_t j = lo; j < k; j++)
            r[n++] = (int32_t)dw[j].val;
        size_t g = (size_t)gl[dw[lo].key].val;
        int64_t bs = launch_bs(a, t, ann, nann, &t->ev[g]);
        int64_t want = bs >= 0 ? capture_bs(&cp, bs) : -1;
        const char *why = "no capture window of its batch size";
        if (bs < 0 && !one_batch(&cp))
            why = "its batch size is unknown and the captures have several";
        const cwin *hit = NULL;
        for (size_t i = 0; i < cp.nw && !hit; i++) {
            const cwin *w = &cp.w[i];
            int fits = w->bs < 0 || (bs >= 0 ? w->bs == want : one_batch(&cp));
            if (fits && align(t, r, n, w, map, &why))
                hit = w;
        }
        if (!hit) {
            if (!nfail++)
                snprintf(first_why, sizeof first_why, "the graph launch at %.3f ms (%zu kernels, "
                         "batch %lld): %s", (double)(t->ev[g].ts - t->ev[0].ts) / 1e6, n,
                         (long long)bs, why);
            continue;
        }
        inject(a, &cp, t, g, hit, r, n, map, &nextcorr);
        gs->attributed += (int64_t)n;
        for (size_t j = 0; j < n; j++)
            gs->attributed_ns += t->ev[r[j]].dur;
    }
    if (nfail) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s: %zu of %zu graph launches not matched to a capture trace "
                 "in %s, their kernels left without op: first, %s", t->path, nfail, ng, dir,
                 first_why);
        td_sum_warning(a->s, msg);
    } else if (dir && !cp.nw) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s: no graph capture (StreamBeginCapture..StreamEndCapture) "
                 "in %s: the %zu graph launches' kernels are left without op", t->path, dir, ng);
        td_sum_warning(a->s, msg);
    }
    if (gs->attributed)
        td_read_sort(t);
    free(r);
    free(map);
    free(own);
    caps_free(&cp);
    free(dw);
    free(gl);
    free(ann);
}

void td_an_graphs(td_actx *a)
{
    for (size_t i = 0; i < a->n; i++)
        graphs_trace(a, a->tc[i].t, &a->graphs);
    a->graph_ops = a->graphs.attributed > 0;
}

void td_an_graphs_scalars(td_actx *a)
{
    const td_graph_stat gs = a->graphs;
    if (!gs.launches)
        return;
    td_summary *s = a->s;
    td_sum_set_int(s, "graphs.launches", "Graph launches", TD_T_INT, gs.launches);
    td_sum_set_int(s, "graphs.kernels", "Device work in graph launches", TD_T_INT, gs.kernels);
    td_sum_set_int(s, "graphs.attributed_kernels", "Graph kernels attributed to ops", TD_T_INT,
                   gs.attributed);
    td_sum_set_int(s, "graphs.attributed_ns", "Graph device time attributed", TD_T_NS,
                   gs.attributed_ns);
    td_sum_set_int(s, "graphs.unattributed_ns", "Graph device time without op", TD_T_NS,
                   gs.ns - gs.attributed_ns);
    td_sum_set_str(s, "graphs.source", "Graph attribution from",
                   gs.attributed || gs.any_capture ? "capture" : "none");
    if (gs.all_ns > 0) /* page 1: the device time that ran in graphs without an op */
        td_sum_set_f64(s, "graph_time.unattributed_share", "Device time in graphs without op",
                       TD_T_SHARE, (double)(gs.ns - gs.attributed_ns) / (double)gs.all_ns);
}
