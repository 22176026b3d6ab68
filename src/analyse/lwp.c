/* analyse/lwp.c - lightweight profiling (LWP) blocks of an IPU export: the overflow
 * rules, lanes (one per selected tile, plus one I/O lane per IPU for the StreamCopy
 * blocks of tiles that were not selected), relative cycles, buffer flushes hidden unless
 * --show-flushes, block statistics (lwp_blocks) and the timeline segments.
 *
 * Overflow rules (PopVision Graph Analyser, as formats.md sec. 6 and issue 11 state
 * them): a block that begins and ends in an overflow region is not recorded; a block
 * that starts before an overflow region and ends inside it has no end; a block that
 * starts inside an overflow region is Unknown. Here a lost counter (cyclesFrom or
 * cyclesTo null in the export) counts as inside an overflow region. Relative cycles:
 * each IPU's counters start at load, so the IPU's smallest block cycle is subtracted. */
#include "analyse/ipu.h"
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LANE_SEGS 4000 /* blocks drawn per lane at most (the first ones in time) */

enum { ST_OK = TD_LWP_ST_OK, ST_NOEND = TD_LWP_ST_NOEND, ST_UNKNOWN = TD_LWP_ST_UNKNOWN };

typedef struct region {
    int32_t tile;
    int64_t from, to;
} region;

typedef td_lwp_block pblock;

static int region_cmp(const void *a, const void *b)
{
    const region *x = a, *y = b;
    if (x->tile != y->tile)
        return x->tile < y->tile ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

/* Regions merged per tile (sorted by tile, then from; overlaps joined). */
static size_t merge_regions(region *r, size_t n)
{
    qsort(r, n, sizeof *r, region_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && r[w - 1].tile == r[i].tile && r[i].from <= r[w - 1].to) {
            if (r[i].to > r[w - 1].to)
                r[w - 1].to = r[i].to;
        } else
            r[w++] = r[i];
    }
    return w;
}

/* The region of `tile` containing x, or NULL. */
static const region *find_region(const region *r, size_t n, int32_t tile, int64_t x)
{
    size_t lo = 0, hi = n; /* last region with (tile, from) <= (tile, x) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].tile < tile || (r[mid].tile == tile && r[mid].from <= x))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const region *c = &r[lo - 1];
    return c->tile == tile && c->from <= x && x <= c->to ? c : NULL;
}

/* The first region of `tile` starting after x (for a lost end), or NULL. */
static const region *next_region(const region *r, size_t n, int32_t tile, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].tile == tile && r[i].from > x)
            return &r[i];
    return NULL;
}

static int is_sc(int kind)
{
    return kind == TD_LWP_SCBEGIN || kind == TD_LWP_SCMID || kind == TD_LWP_SCEND;
}

static int lane_of(const td_ipu *m, const uint8_t *sel, const td_ipu_block *b)
{
    if (sel[b->tile] || !(is_sc(b->kind) || b->kind == TD_LWP_FLUSH))
        return b->tile;
    return -1 - b->ipu; /* the IPU's I/O lane */
    (void)m;
}

static int cur_rep = -1; /* the export being analysed (several given), else -1 */
static const char *lane_name(td_summary *s, const td_ipu *m, int lane)
{
    char r[16] = "";
    if (cur_rep >= 0)
        snprintf(r, sizeof r, "R%d ", cur_rep);
    if (lane < 0)
        return td_arena_printf(s->a, "%sIPU %d I/O", r, -1 - lane);
    return td_arena_printf(s->a, "%sIPU %d tile %d", r, lane / m->tiles_per_ipu,
                           lane % m->tiles_per_ipu);
}

/* Lanes sort tiles first (by number), then each IPU's I/O lane. */
static int64_t lane_key(const td_ipu *m, int lane)
{
    if (lane < 0)
        return (int64_t)(-1 - lane) * (m->tiles_per_ipu + 1) + m->tiles_per_ipu;
    return (int64_t)(lane / m->tiles_per_ipu) * (m->tiles_per_ipu + 1) +
           lane % m->tiles_per_ipu;
}

static const td_ipu *cmp_m;
static int pb_cmp(const void *a, const void *b)
{
    const pblock *x = a, *y = b;
    int64_t kx = lane_key(cmp_m, x->lane), ky = lane_key(cmp_m, y->lane);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

static int grp_cmp(const void *a, const void *b)
{
    const pblock *x = *(pblock *const *)a, *y = *(pblock *const *)b;
    int64_t kx = lane_key(cmp_m, x->lane), ky = lane_key(cmp_m, y->lane);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    int ux = x->status == ST_UNKNOWN, uy = y->status == ST_UNKNOWN;
    if (x->kind != y->kind || ux != uy)
        return x->kind * 2 + ux < y->kind * 2 + uy ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

static void stats_table(td_summary *s, const td_ipu *m, pblock *v, size_t n)
{
    td_table *t = td_sum_table(s, "lwp_blocks", "Lightweight profiling blocks");
    if (!t->ncols && cur_rep >= 0)
        td_table_cols(t, "report:int:Report", NULL);
    if (!t->ncols || (cur_rep >= 0 && t->ncols == 1))
        td_table_cols(t, "ipu:int:IPU", "lane:text:Lane", "name:text:Block", "kind:text:Kind",
                  "count:int:Count", "measured:int:Measured", "cycles:int:Cycles",
                  "mean_cycles:f64:Mean cycles", "max_cycles:int:Max cycles",
                  "time_ns:ns:Time", NULL);
    pblock **g = td_xmalloc((n + 1) * sizeof *g);
    for (size_t i = 0; i < n; i++)
        g[i] = &v[i];
    cmp_m = m;
    qsort(g, n, sizeof *g, grp_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t cyc = 0, mx = -1, meas = 0;
        while (j < n && g[j]->lane == g[i]->lane && g[j]->kind == g[i]->kind &&
               (g[j]->status == ST_UNKNOWN) == (g[i]->status == ST_UNKNOWN) &&
               strcmp(g[j]->name, g[i]->name) == 0) {
            if (g[j]->cycles >= 0) {
                meas++;
                if (__builtin_add_overflow(cyc, g[j]->cycles, &cyc))
                    cyc = INT64_MAX;
                if (g[j]->cycles > mx)
                    mx = g[j]->cycles;
            }
            j++;
        }
        const pblock *p = g[i];
        size_t r = td_table_add_row(t);
        td_row_int(s, t, r, "report", cur_rep);
        td_row_int(s, t, r, "ipu", p->ipu);
        td_row_str(s, t, r, "lane", lane_name(s, m, p->lane));
        td_row_str(s, t, r, "name", p->name);
        td_row_str(s, t, r, "kind",
                   p->status == ST_UNKNOWN ? "Unknown" : td_lwp_kind_name(p->kind));
        td_row_int(s, t, r, "count", (int64_t)(j - i));
        td_row_int(s, t, r, "measured", meas);
        td_row_int(s, t, r, "cycles", meas ? cyc : TD_NA);
        td_row_f64(s, t, r, "mean_cycles", meas ? (double)cyc / (double)meas : NAN);
        td_row_int(s, t, r, "max_cycles", meas ? mx : TD_NA);
        td_row_int(s, t, r, "time_ns", meas ? td_ipu_cycles_ns(m, cyc) : TD_NA);
        i = j;
    }
    free(g);
}

static void timeline(td_summary *s, const td_ipu *m, const pblock *v, size_t n)
{
    td_table *t;
    td_ipu_timeline_table(s, &t);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].lane == v[i].lane)
            j++;
        const char *lane = lane_name(s, m, v[i].lane);
        size_t shown = j - i > LANE_SEGS ? LANE_SEGS : j - i;
        if (shown < j - i)
            td_sum_warning(s, td_arena_printf(s->a, "LWP timeline: lane %s shows its first %d "
                                                    "of %zu blocks", lane, LANE_SEGS, j - i));
        for (size_t k = i; k < i + shown; k++) {
            size_t r = td_table_add_row(t);
            td_row_int(s, t, r, "ipu", v[k].ipu);
            td_row_str(s, t, r, "lane", lane);
            td_row_str(s, t, r, "kind", v[k].status == ST_UNKNOWN ? "Unknown"
                                        : v[k].status == ST_NOEND ? "NoEnd"
                                                                  : td_lwp_kind_name(v[k].kind));
            td_row_str(s, t, r, "name", v[k].name);
            td_row_int(s, t, r, "from_cycles", v[k].from);
            td_row_int(s, t, r, "to_cycles", v[k].to);
        }
        i = j;
    }
}

void td_lwp_blocks(const td_strtab *strs, const td_ipu *m, int show_flushes, td_lwp *out)
{
    memset(out, 0, sizeof *out);
    size_t ntiles = (size_t)m->nipus * (size_t)m->tiles_per_ipu;
    uint8_t *sel = td_xcalloc(ntiles + 1, 1);
    for (size_t i = 0; i < m->nlwp_tiles; i++)
        sel[m->lwp_tiles[i]] = 1;
    for (size_t i = 0; i < m->nblocks; i++)
        if (m->blocks[i].kind == TD_LWP_COMMON && !sel[m->blocks[i].tile]) {
            if (m->nlwp_tiles)
                out->extra++;
            sel[m->blocks[i].tile] = 1;
        }
    /* relative cycles: per IPU minimum */
    int64_t *base = td_xmalloc(((size_t)m->nipus + 1) * sizeof *base);
    for (int32_t i = 0; i < m->nipus; i++)
        base[i] = INT64_MAX;
    region *rg = td_xmalloc((m->nblocks + 1) * sizeof *rg);
    size_t nrg = 0;
    for (size_t i = 0; i < m->nblocks; i++) {
        const td_ipu_block *b = &m->blocks[i];
        if (b->from != TD_IPU_NA && b->from < base[b->ipu])
            base[b->ipu] = b->from;
        if (b->to != TD_IPU_NA && b->to < base[b->ipu])
            base[b->ipu] = b->to;
        if (b->kind == TD_LWP_OVERFLOW)
            rg[nrg++] = (region){b->tile, b->from, b->to};
    }
    nrg = merge_regions(rg, nrg);
    pblock *v = td_xmalloc((m->nblocks + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < m->nblocks; i++) {
        const td_ipu_block *b = &m->blocks[i];
        int64_t bs = base[b->ipu] == INT64_MAX ? 0 : base[b->ipu];
        if (b->kind == TD_LWP_FLUSH && !show_flushes) {
            out->flushes++;
            continue;
        }
        pblock p = {0};
        p.ipu = b->ipu;
        p.lane = lane_of(m, sel, b);
        p.kind = b->kind;
        p.name = b->kind == TD_LWP_COMMON
                     ? (b->name ? td_strget(strs, b->name) : "(unnamed)")
                     : td_lwp_kind_name(b->kind);
        if (b->kind == TD_LWP_OVERFLOW) {
            out->overflows++;
            p.from = b->from - bs;
            p.to = b->to - bs;
            p.cycles = b->to - b->from;
            v[n++] = p;
            continue;
        }
        const region *rf = b->from == TD_IPU_NA ? NULL : find_region(rg, nrg, b->tile, b->from);
        const region *rt = b->to == TD_IPU_NA ? NULL : find_region(rg, nrg, b->tile, b->to);
        int fin = b->from == TD_IPU_NA || rf, tin = b->to == TD_IPU_NA || rt;
        if (fin && tin) { /* begins and ends in an overflow region: not recorded */
            out->dropped++;
            continue;
        }
        if (tin) { /* starts before, ends inside: no end */
            const region *r = rt ? rt : next_region(rg, nrg, b->tile, b->from);
            p.status = ST_NOEND;
            p.from = b->from - bs;
            p.to = (r ? r->from : b->from) - bs;
            p.cycles = -1;
            out->noend++;
        } else if (fin) { /* starts inside: Unknown */
            p.status = ST_UNKNOWN;
            p.name = "Unknown";
            p.from = (rf ? rf->to : b->to) - bs;
            p.to = b->to - bs;
            p.cycles = -1;
            out->unknown++;
        } else {
            p.from = b->from - bs;
            p.to = b->to - bs;
            p.cycles = b->to - b->from;
        }
        v[n++] = p;
    }
    cmp_m = m;
    qsort(v, n, sizeof *v, pb_cmp);
    for (size_t i = 0; i < ntiles; i++)
        out->nsel += sel[i];
    out->v = v;
    out->n = n;
    out->base = base;
    free(rg);
    free(sel);
}

void td_lwp_free(td_lwp *l)
{
    free(l->v);
    free(l->base);
    memset(l, 0, sizeof *l);
}

/* lwp.* scalars, per export when several are given */
static void lwp_int(td_summary *s, const char *who, const char *what, const char *title,
                    int64_t v)
{
    char key[64], t[160];
    td_ipu_key(key, sizeof key, "lwp", cur_rep, who, what);
    if (cur_rep >= 0)
        snprintf(t, sizeof t, "report %d: %s", cur_rep, title);
    td_sum_set_int(s, key, cur_rep >= 0 ? t : title, TD_T_INT, v);
}

void td_analyse_lwp(const td_strtab *strs, const td_ipu *m, const td_opts *o, td_summary *s,
                    int rep)
{
    if (!m->nblocks)
        return;
    cur_rep = rep;
    char pre[32] = "";
    if (rep >= 0)
        snprintf(pre, sizeof pre, "Report %d: ", rep);
    td_lwp L;
    td_lwp_blocks(strs, m, o->show_flushes, &L);
    if (L.extra)
        td_sum_warning(s, td_arena_printf(s->a, "%sLWP: %zu Common block%s on tiles not listed "
                                                "in selectedTiles (those tiles get a lane)",
                                          pre, L.extra, L.extra == 1 ? "" : "s"));
    pblock *v = L.v;
    size_t n = L.n, nsel = L.nsel;
    int64_t *base = L.base;
    int64_t dropped = L.dropped, noend = L.noend, unknown = L.unknown, flushes = L.flushes,
            overflows = L.overflows;
    lwp_int(s, NULL, "selected_tiles", "LWP selected tiles", (int64_t)nsel);
    lwp_int(s, NULL, "blocks", "LWP blocks shown", (int64_t)n);
    lwp_int(s, NULL, "not_recorded", "Blocks lost to overflow", dropped);
    lwp_int(s, NULL, "no_end", "LWP blocks with no end", noend);
    lwp_int(s, NULL, "unknown", "LWP Unknown blocks", unknown);
    lwp_int(s, NULL, "overflows", "LWP overflow regions", overflows);
    lwp_int(s, NULL, "flushes_hidden", "LWP buffer flushes hidden", flushes);
    for (int32_t i = 0; i < m->nipus; i++)
        if (base[i] != INT64_MAX) {
            char who[16], title[96];
            snprintf(who, sizeof who, "%d", i);
            snprintf(title, sizeof title, "IPU %d first LWP cycle (subtracted)", i);
            lwp_int(s, who, "base_cycles", title, base[i]);
        }
    stats_table(s, m, v, n);
    timeline(s, m, v, n);
    if (!m->nsteps) { /* LWP only: the header's span is the longest IPU's block span */
        int64_t span = 0;
        for (size_t i = 0; i < n; i++)
            if (v[i].to > span)
                span = v[i].to;
        const td_kv *cur = td_sum_get(s, "trace.span_ns");
        if (rep < 0 || !cur || cur->v.i < td_ipu_cycles_ns(m, span))
            td_sum_set_int(s, "trace.span_ns", "Block span (at the clock)", TD_T_NS,
                           td_ipu_cycles_ns(m, span));
    }
    if (dropped || noend || unknown)
        td_sum_finding(s, "%sThe LWP buffer overflowed %lld time%s: %lld block%s not "
                          "recorded, %lld with no end, %lld Unknown.", pre,
                       (long long)overflows, overflows == 1 ? "" : "s", (long long)dropped,
                       dropped == 1 ? "" : "s", (long long)noend, (long long)unknown);
    if (flushes)
        td_sum_finding(s, "%s%lld buffer-flush block%s hidden (--show-flushes shows them).",
                       pre, (long long)flushes, flushes == 1 ? "" : "s");
    td_lwp_free(&L);
}
