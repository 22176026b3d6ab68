/* analyse_ipu.c - the detailed execution trace of a Graphcore IPU export (formats.md
 * sec. 6): cycle proportions by step type per IPU and for all IPUs, tile balance and
 * active tile balance, tile utilisation from the BSP data, the runs, the top steps,
 * exchanges, stream copies by direction, the debug-name flamegraph (cycles) and the
 * flat per-IPU timeline the PDF draws. Lightweight profiling is analyse_lwp.c.
 *
 * Definitions (README "Graphcore IPU export" says them for users):
 * - categories: Internal Sync = Sync + SyncAns, External Sync, OnTileExecute, DoExchange,
 *   GlobalExchange, StreamCopy = Begin + Mid + End, Other; a step's cycles on an IPU
 *   count for that IPU; the "all" rows add the IPUs up; share = cycles / IPU total.
 * - tile balance of an IPU: mean of its steps' tile balance over every step except the
 *   syncs (Sync, External Sync, SyncAns), steps of 0 cycles left out; likewise active
 *   tile balance.
 * - tile utilisation of an IPU: tile-cycles (sum of cyclesByTile) in OnTileExecute,
 *   DoExchange, GlobalExchange and StreamCopyMid over the tile-cycles of all its steps;
 *   only when every step on that IPU has BSP data.
 * - run cycles: the largest over IPUs of the sum of the run's step cycles on that IPU. */
#include "analyse_ipu.h"
#include "analyse_int.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIMELINE_SEGS 1500 /* segments per lane at most (binned beyond) */

const char *const td_ipu_cat_names[TD_IPU_NCATS] = {
    "Internal Sync", "External Sync", "OnTileExecute", "DoExchange", "GlobalExchange",
    "StreamCopy", "Other"};

int td_ipu_cat(int type)
{
    switch (type) {
    case TD_IPU_SYNC:
    case TD_IPU_SYNCANS: return TD_IPU_CAT_ISYNC;
    case TD_IPU_EXTERNALSYNC: return TD_IPU_CAT_XSYNC;
    case TD_IPU_ONTILEEXECUTE: return TD_IPU_CAT_OTE;
    case TD_IPU_DOEXCHANGE: return TD_IPU_CAT_DOEX;
    case TD_IPU_GLOBALEXCHANGE: return TD_IPU_CAT_GEX;
    case TD_IPU_STREAMCOPYBEGIN:
    case TD_IPU_STREAMCOPYMID:
    case TD_IPU_STREAMCOPYEND: return TD_IPU_CAT_SC;
    default: return TD_IPU_CAT_OTHER;
    }
}

static int is_sync(int type)
{
    return type == TD_IPU_SYNC || type == TD_IPU_EXTERNALSYNC || type == TD_IPU_SYNCANS;
}

static int is_busy(int type)
{
    return type == TD_IPU_ONTILEEXECUTE || type == TD_IPU_DOEXCHANGE ||
           type == TD_IPU_GLOBALEXCHANGE || type == TD_IPU_STREAMCOPYMID;
}

int64_t td_ipu_cycles_ns(const td_ipu *m, int64_t cycles)
{
    return (int64_t)llround((double)cycles * 1e9 / m->clock_hz);
}

typedef struct ictx {
    td_summary *s;
    const td_strtab *strs;
    const td_ipu *m;
    const td_opts *o;
} ictx;
#define NM(id) td_strget(x->strs, (id))

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* ---- per-IPU scalars and step-type shares ---- */

static void step_types(ictx *x)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    int32_t n = m->nipus;
    int64_t *cyc = td_xcalloc((size_t)(n + 1) * TD_IPU_NCATS, sizeof *cyc);
    double *tb = td_xcalloc((size_t)n * 2, sizeof *tb), *atb = td_xcalloc((size_t)n * 2,
                                                                         sizeof *atb);
    int64_t *busy = td_xcalloc((size_t)n, sizeof *busy), *all = td_xcalloc((size_t)n,
                                                                           sizeof *all);
    uint8_t *nobsp = td_xcalloc((size_t)n, 1), *seen = td_xcalloc((size_t)n, 1);
    for (size_t i = 0; i < m->nsteps; i++) {
        const td_ipu_step *st = &m->steps[i];
        int cat = td_ipu_cat(st->type);
        for (uint32_t k = 0; k < st->n; k++) {
            const td_ipu_stepipu *e = &m->sipu[st->first + k];
            int32_t ipu = e->ipu;
            seen[ipu] = 1;
            cyc[(size_t)ipu * TD_IPU_NCATS + cat] = sat_add(cyc[(size_t)ipu * TD_IPU_NCATS + cat],
                                                            e->cycles);
            cyc[(size_t)n * TD_IPU_NCATS + cat] = sat_add(cyc[(size_t)n * TD_IPU_NCATS + cat],
                                                          e->cycles);
            if (!is_sync(st->type) && e->cycles > 0) {
                if (!isnan(e->tile_balance)) {
                    tb[2 * ipu] += e->tile_balance;
                    tb[2 * ipu + 1] += 1;
                }
                if (!isnan(e->active_tile_balance)) {
                    atb[2 * ipu] += e->active_tile_balance;
                    atb[2 * ipu + 1] += 1;
                }
            }
            if (e->tile_cycles == TD_IPU_NA)
                nobsp[ipu] = 1;
            else {
                all[ipu] = sat_add(all[ipu], e->tile_cycles);
                if (is_busy(st->type))
                    busy[ipu] = sat_add(busy[ipu], e->tile_cycles);
            }
        }
    }
    td_table *t = td_sum_table(s, "ipu_step_types", "Cycle proportions by step type");
    td_table_cols(t, "ipu:device:IPU", "type:text:Step type", "cycles:int:Cycles",
                  "share:share:Share", NULL);
    for (int32_t ipu = 0; ipu <= n; ipu++) {
        if (ipu < n && !seen[ipu])
            continue;
        const int64_t *c = &cyc[(size_t)ipu * TD_IPU_NCATS];
        int64_t tot = 0;
        for (int k = 0; k < TD_IPU_NCATS; k++)
            tot = sat_add(tot, c[k]);
        for (int k = 0; k < TD_IPU_NCATS; k++) {
            if (k == TD_IPU_CAT_OTHER && !c[k])
                continue;
            size_t r = td_table_add_row(t);
            td_row_int(s, t, r, "ipu", ipu == n ? -1 : ipu);
            td_row_str(s, t, r, "type", td_ipu_cat_names[k]);
            td_row_int(s, t, r, "cycles", c[k]);
            td_row_f64(s, t, r, "share", tot ? (double)c[k] / (double)tot : 0);
        }
    }
    double tbs = 0, tbn = 0, atbs = 0, atbn = 0;
    for (int32_t ipu = 0; ipu < n; ipu++) {
        if (!seen[ipu])
            continue;
        char key[64], title[96];
        int64_t tot = 0;
        for (int k = 0; k < TD_IPU_NCATS; k++)
            tot = sat_add(tot, cyc[(size_t)ipu * TD_IPU_NCATS + k]);
        snprintf(key, sizeof key, "ipu.%d.cycles", ipu);
        snprintf(title, sizeof title, "IPU %d cycles", ipu);
        td_sum_set_int(s, key, title, TD_T_INT, tot);
        if (tb[2 * ipu + 1] > 0) {
            snprintf(key, sizeof key, "ipu.%d.tile_balance", ipu);
            snprintf(title, sizeof title, "IPU %d tile balance", ipu);
            td_sum_set_f64(s, key, title, TD_T_SHARE, tb[2 * ipu] / tb[2 * ipu + 1]);
            tbs += tb[2 * ipu];
            tbn += tb[2 * ipu + 1];
        }
        if (atb[2 * ipu + 1] > 0) {
            snprintf(key, sizeof key, "ipu.%d.active_tile_balance", ipu);
            snprintf(title, sizeof title, "IPU %d active tile balance", ipu);
            td_sum_set_f64(s, key, title, TD_T_SHARE, atb[2 * ipu] / atb[2 * ipu + 1]);
            atbs += atb[2 * ipu];
            atbn += atb[2 * ipu + 1];
        }
        if (!nobsp[ipu] && all[ipu] > 0) {
            snprintf(key, sizeof key, "ipu.%d.tile_utilisation", ipu);
            snprintf(title, sizeof title, "IPU %d tile utilisation", ipu);
            td_sum_set_f64(s, key, title, TD_T_SHARE, (double)busy[ipu] / (double)all[ipu]);
        }
    }
    if (tbn > 0)
        td_sum_set_f64(s, "ipu.all.tile_balance", "Tile balance (all IPUs)", TD_T_SHARE,
                       tbs / tbn);
    if (atbn > 0)
        td_sum_set_f64(s, "ipu.all.active_tile_balance", "Active tile balance (all IPUs)",
                       TD_T_SHARE, atbs / atbn);
    free(cyc);
    free(tb);
    free(atb);
    free(busy);
    free(all);
    free(nobsp);
    free(seen);
}

/* ---- runs ---- */

static void runs_table(ictx *x)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    td_table *t = td_sum_table(s, "ipu_runs", "Runs");
    td_table_cols(t, "run:int:Run", "name:text:Name", "steps:int:Steps", "cycles:int:Cycles",
                  "cycles_ns:ns:Cycles at clock", "time_ns:ns:Measured time", NULL);
    int64_t *per = td_xcalloc((size_t)m->nipus, sizeof *per);
    for (size_t r = 0; r < m->nruns; r++) {
        const td_ipu_run *run = &m->runs[r];
        memset(per, 0, (size_t)m->nipus * sizeof *per);
        for (uint32_t i = 0; i < run->nsteps; i++) {
            const td_ipu_step *st = &m->steps[run->first_step + i];
            for (uint32_t k = 0; k < st->n; k++)
                per[m->sipu[st->first + k].ipu] =
                    sat_add(per[m->sipu[st->first + k].ipu], m->sipu[st->first + k].cycles);
        }
        int64_t cyc = 0;
        for (int32_t i = 0; i < m->nipus; i++)
            if (per[i] > cyc)
                cyc = per[i];
        size_t row = td_table_add_row(t);
        td_row_int(s, t, row, "run", (int64_t)r);
        td_row_str(s, t, row, "name", NM(run->name));
        td_row_int(s, t, row, "steps", run->nsteps);
        td_row_int(s, t, row, "cycles", cyc);
        td_row_int(s, t, row, "cycles_ns", td_ipu_cycles_ns(m, cyc));
        td_row_int(s, t, row, "time_ns",
                   run->us_start == TD_IPU_NA ? TD_NA : (run->us_end - run->us_start) * 1000);
    }
    free(per);
}

/* ---- steps, exchanges, stream copies: aggregated by (ipu, type, name) ---- */

typedef struct agg {
    int32_t ipu;
    uint8_t type, dir;
    td_str name;
    uint32_t sipu; /* index of the step-IPU entry */
    uint32_t step;
} agg;

static const td_strtab *sort_strs;
static int agg_cmp(const void *pa, const void *pb)
{
    const agg *a = pa, *b = pb;
    if (a->ipu != b->ipu)
        return a->ipu < b->ipu ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->dir != b->dir)
        return a->dir < b->dir ? -1 : 1;
    if (a->name != b->name) {
        int c = strcmp(td_strget(sort_strs, a->name), td_strget(sort_strs, b->name));
        if (c)
            return c;
        return a->name < b->name ? -1 : 1;
    }
    return (a->sipu > b->sipu) - (a->sipu < b->sipu);
}

/* Every step-IPU entry whose type passes keep(), sorted by (ipu, type, dir, name). */
static agg *collect(ictx *x, int (*keep)(int type), size_t *n)
{
    const td_ipu *m = x->m;
    agg *v = td_xmalloc((m->nsipu + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < m->nsteps; i++) {
        const td_ipu_step *st = &m->steps[i];
        if (!keep(st->type))
            continue;
        for (uint32_t j = 0; j < st->n; j++)
            v[k++] = (agg){m->sipu[st->first + j].ipu, st->type, st->dir, st->name,
                           st->first + j, (uint32_t)i};
    }
    sort_strs = x->strs;
    qsort(v, k, sizeof *v, agg_cmp);
    *n = k;
    return v;
}

static int keep_all(int type) { (void)type; return 1; }
static int keep_exchange(int type)
{
    return type == TD_IPU_DOEXCHANGE || type == TD_IPU_GLOBALEXCHANGE;
}
static int keep_mid(int type) { return type == TD_IPU_STREAMCOPYMID; }

/* A mean over the known (non-NaN) values. */
typedef struct mean {
    double sum;
    size_t n;
} mean;
static void mean_add(mean *m, double v)
{
    if (!isnan(v)) {
        m->sum += v;
        m->n++;
    }
}
static double mean_of(const mean *m)
{
    return m->n ? m->sum / (double)m->n : NAN;
}

/* A new row for the group of `count` entries starting at a: the columns every grouped
 * table shares (ipu, type, name, count, cycles, time_ns; absent columns are skipped). */
static size_t group_row(ictx *x, td_table *t, const agg *a, size_t count, int64_t cyc)
{
    td_summary *s = x->s;
    size_t r = td_table_add_row(t);
    td_row_int(s, t, r, "ipu", a->ipu);
    td_row_str(s, t, r, "type", td_ipu_type_name(a->type));
    td_row_str(s, t, r, "name", a->name ? NM(a->name) : td_ipu_type_name(a->type));
    td_row_int(s, t, r, "count", (int64_t)count);
    td_row_int(s, t, r, "cycles", cyc);
    td_row_int(s, t, r, "time_ns", td_ipu_cycles_ns(x->m, cyc));
    return r;
}

static int64_t ipu_total(const td_summary *s, int32_t ipu)
{
    char key[64];
    snprintf(key, sizeof key, "ipu.%d.cycles", ipu);
    const td_kv *kv = td_sum_get(s, key);
    return kv ? kv->v.i : 0;
}

static void steps_table(ictx *x)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    size_t n;
    agg *v = collect(x, keep_all, &n);
    td_table *t = td_sum_table(s, "ipu_steps", "Top steps by cycles");
    td_table_cols(t, "ipu:device:IPU", "type:text:Step type", "name:text:Name",
                  "count:int:Count", "cycles:int:Cycles", "time_ns:ns:Time",
                  "share:share:Share", "active_tiles:int:Active tiles",
                  "tile_balance:share:Tile balance",
                  "active_tile_balance:share:Active tile balance", "vertex:text:Vertex type",
                  NULL);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t cyc = 0, at = -1;
        mean tb = {0, 0}, atb = {0, 0};
        td_str vertex = 0;
        while (j < n && v[j].ipu == v[i].ipu && v[j].type == v[i].type && v[j].dir == v[i].dir &&
               v[j].name == v[i].name) {
            const td_ipu_stepipu *e = &m->sipu[v[j].sipu];
            cyc = sat_add(cyc, e->cycles);
            if (e->active_tiles > at)
                at = e->active_tiles;
            mean_add(&tb, e->tile_balance);
            mean_add(&atb, e->active_tile_balance);
            j++;
        }
        for (size_t q = i; q < j && !vertex; q++)
            vertex = m->steps[v[q].step].vertex;
        int64_t tot = ipu_total(s, v[i].ipu);
        size_t r = group_row(x, t, &v[i], j - i, cyc);
        td_row_f64(s, t, r, "share", tot ? (double)cyc / (double)tot : 0);
        td_row_int(s, t, r, "active_tiles", at >= 0 ? at : TD_NA);
        td_row_f64(s, t, r, "tile_balance", mean_of(&tb));
        td_row_f64(s, t, r, "active_tile_balance", mean_of(&atb));
        td_row_str(s, t, r, "vertex", vertex ? NM(vertex) : NULL);
        i = j;
    }
    td_table_sort(t, "cycles", 1);
    free(v);
}

static void exchanges_table(ictx *x)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    size_t n;
    agg *v = collect(x, keep_exchange, &n);
    if (!n) {
        free(v);
        return;
    }
    td_table *t = td_sum_table(s, "ipu_exchanges", "Exchanges");
    td_table_cols(t, "ipu:device:IPU", "type:text:Step type", "name:text:Name",
                  "count:int:Count", "cycles:int:Cycles", "time_ns:ns:Time",
                  "bytes:bytes:Data", "data_balance:share:Data balance",
                  "tile_balance:share:Tile balance", NULL);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t cyc = 0, bytes = 0;
        int have_bytes = 0;
        mean db = {0, 0}, tb = {0, 0};
        while (j < n && v[j].ipu == v[i].ipu && v[j].type == v[i].type && v[j].name == v[i].name) {
            const td_ipu_stepipu *e = &m->sipu[v[j].sipu];
            cyc = sat_add(cyc, e->cycles);
            if (e->data_in != TD_IPU_NA || e->data_out != TD_IPU_NA) {
                have_bytes = 1;
                bytes = sat_add(bytes, (e->data_in == TD_IPU_NA ? 0 : e->data_in));
                bytes = sat_add(bytes, (e->data_out == TD_IPU_NA ? 0 : e->data_out));
            }
            mean_add(&db, e->data_balance);
            mean_add(&tb, e->tile_balance);
            j++;
        }
        size_t r = group_row(x, t, &v[i], j - i, cyc);
        td_row_int(s, t, r, "bytes", have_bytes ? bytes : TD_NA);
        td_row_f64(s, t, r, "data_balance", mean_of(&db));
        td_row_f64(s, t, r, "tile_balance", mean_of(&tb));
        i = j;
    }
    td_table_sort(t, "cycles", 1);
    free(v);
}

static void stream_copies_table(ictx *x)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    size_t n;
    agg *v = collect(x, keep_mid, &n);
    if (!n) {
        free(v);
        return;
    }
    td_table *t = td_sum_table(s, "ipu_stream_copies", "Stream copies by direction");
    td_table_cols(t, "ipu:device:IPU", "direction:text:Direction", "count:int:Count",
                  "cycles:int:Cycles", "time_ns:ns:Time", "in_bytes:bytes:Data in",
                  "out_bytes:bytes:Data out", NULL);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int64_t cyc = 0, in = 0, out = 0;
        while (j < n && v[j].ipu == v[i].ipu && v[j].dir == v[i].dir) {
            const td_ipu_stepipu *e = &m->sipu[v[j].sipu];
            cyc = sat_add(cyc, e->cycles);
            in = sat_add(in, e->data_in == TD_IPU_NA ? 0 : e->data_in);
            out = sat_add(out, e->data_out == TD_IPU_NA ? 0 : e->data_out);
            j++;
        }
        size_t r = group_row(x, t, &v[i], j - i, cyc);
        td_row_str(s, t, r, "direction", td_ipu_dir_name(v[i].dir));
        td_row_int(s, t, r, "in_bytes", in);
        td_row_int(s, t, r, "out_bytes", out);
        i = j;
    }
    free(v);
}

/* ---- debug-name flamegraph (cycles) ---- */

static void flame(ictx *x)
{
    const td_ipu *m = x->m;
    td_flame *f = td_sum_flame(x->s, "ipu", "IPU steps by debug name (cycles)");
    f->cycles = 1;
    td_buf b = {0};
    for (size_t i = 0; i < m->nsteps; i++) {
        const td_ipu_step *st = &m->steps[i];
        int64_t cyc = 0;
        for (uint32_t k = 0; k < st->n; k++)
            cyc = sat_add(cyc, m->sipu[st->first + k].cycles);
        if (cyc <= 0)
            continue;
        b.n = 0;
        const char *name = st->name ? NM(st->name) : "";
        if (!*name)
            name = td_ipu_type_name(st->type);
        /* one frame per '/'-separated part; empty parts (leading '/', '//') skipped */
        int frames = 0;
        for (const char *p = name; *p;) {
            size_t len = strcspn(p, "/");
            if (len) {
                if (frames++)
                    td_buf_putc(&b, ';');
                char *part = td_arena_strndup(x->s->a, p, len);
                td_fold_put(&b, part);
            }
            p += len;
            if (*p == '/')
                p++;
        }
        if (!frames)
            td_buf_puts(&b, td_ipu_type_name(st->type));
        td_flame_add(x->s, f, td_buf_cstr(&b), cyc);
    }
    td_buf_free(&b);
    td_flame_finish(f);
}

/* ---- the flat timeline per IPU (steps end to end), coloured by category ---- */

void td_ipu_timeline_table(td_summary *s, td_table **out)
{
    td_table *t = td_sum_table(s, "ipu_timeline", "Timeline segments");
    if (!t->ncols)
        td_table_cols(t, "ipu:int:IPU", "lane:text:Lane", "kind:text:Kind", "name:text:Name",
                      "from_cycles:int:From", "to_cycles:int:To", NULL);
    t->no_json = 1;
    *out = t;
}

typedef struct seg {
    int64_t from, to;
    int cat;
} seg;

static void emit_lane(ictx *x, td_table *t, int32_t ipu, const char *lane, seg *v, size_t n)
{
    td_summary *s = x->s;
    if (!n)
        return;
    int64_t span = v[n - 1].to;
    if (n > TIMELINE_SEGS && span > 0) {
        /* bins of equal cycles, each given the category with most cycles in it */
        int64_t bw = (span + TIMELINE_SEGS - 1) / TIMELINE_SEGS;
        int64_t acc[TD_IPU_NCATS];
        size_t k = 0;
        for (int64_t b0 = 0; b0 < span; b0 += bw) {
            int64_t b1 = b0 + bw < span ? b0 + bw : span;
            memset(acc, 0, sizeof acc);
            while (k < n && v[k].to <= b0)
                k++;
            for (size_t q = k; q < n && v[q].from < b1; q++) {
                int64_t a = v[q].from > b0 ? v[q].from : b0, z = v[q].to < b1 ? v[q].to : b1;
                if (z > a)
                    acc[v[q].cat] += z - a;
            }
            int best = 0;
            for (int c = 1; c < TD_IPU_NCATS; c++)
                if (acc[c] > acc[best])
                    best = c;
            size_t r = td_table_add_row(t);
            td_row_int(s, t, r, "ipu", ipu);
            td_row_str(s, t, r, "lane", lane);
            td_row_str(s, t, r, "kind", td_ipu_cat_names[best]);
            td_row_int(s, t, r, "from_cycles", b0);
            td_row_int(s, t, r, "to_cycles", b1);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = td_table_add_row(t);
        td_row_int(s, t, r, "ipu", ipu);
        td_row_str(s, t, r, "lane", lane);
        td_row_str(s, t, r, "kind", td_ipu_cat_names[v[i].cat]);
        td_row_int(s, t, r, "from_cycles", v[i].from);
        td_row_int(s, t, r, "to_cycles", v[i].to);
    }
}

static void timeline(ictx *x)
{
    const td_ipu *m = x->m;
    td_table *t;
    td_ipu_timeline_table(x->s, &t);
    seg *v = td_xmalloc((m->nsteps + 1) * sizeof *v);
    for (int32_t ipu = 0; ipu < m->nipus; ipu++) {
        size_t n = 0;
        int64_t at = 0;
        for (size_t i = 0; i < m->nsteps; i++) {
            const td_ipu_step *st = &m->steps[i];
            for (uint32_t k = 0; k < st->n; k++) {
                const td_ipu_stepipu *e = &m->sipu[st->first + k];
                if (e->ipu != ipu || e->cycles <= 0)
                    continue;
                int cat = td_ipu_cat(st->type);
                int64_t to = sat_add(at, e->cycles);
                if (n && v[n - 1].cat == cat)
                    v[n - 1].to = to; /* merge with the previous segment */
                else
                    v[n++] = (seg){at, to, cat};
                at = to;
            }
        }
        char lane[32];
        snprintf(lane, sizeof lane, "IPU %d", ipu);
        emit_lane(x, t, ipu, td_arena_strdup(x->s->a, lane), v, n);
    }
    free(v);
}

/* ---- findings ---- */

static void findings(ictx *x)
{
    td_summary *s = x->s;
    const td_table *t = td_sum_find_table(s, "ipu_step_types");
    if (!t)
        return;
    int ci = td_table_col(t, "ipu"), ct = td_table_col(t, "type"), cs = td_table_col(t, "share");
    double sync = 0, ote = 0;
    int any = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, ci)->i != -1)
            continue;
        any = 1;
        const char *ty = td_table_cell(t, r, ct)->s;
        double sh = td_table_cell(t, r, cs)->f;
        if (!strcmp(ty, "Internal Sync") || !strcmp(ty, "External Sync"))
            sync += sh;
        if (!strcmp(ty, "OnTileExecute"))
            ote += sh;
    }
    if (any)
        td_sum_finding(s, "Over all IPUs, %.1f%% of the cycles are compute (OnTileExecute) "
                          "and %.1f%% synchronisation.", ote * 100, sync * 100);
    const td_kv *tb = td_sum_get(s, "ipu.all.tile_balance");
    if (tb)
        td_sum_finding(s, "Tile balance averages %.1f%% over the non-sync steps.",
                       tb->v.f * 100);
    const td_table *st = td_sum_find_table(s, "ipu_steps");
    if (st && st->nrows) {
        td_sum_finding(s, "The costliest step is '%s' (%s) on IPU %lld: %.1f%% of that "
                          "IPU's cycles.",
                       td_table_cell(st, 0, td_table_col(st, "name"))->s,
                       td_table_cell(st, 0, td_table_col(st, "type"))->s,
                       (long long)td_table_cell(st, 0, td_table_col(st, "ipu"))->i,
                       td_table_cell(st, 0, td_table_col(st, "share"))->f * 100);
    }
}

void td_analyse_ipu(td_traceset *set, const td_opts *o, td_summary *s)
{
    const td_ipu *m = NULL;
    size_t nipu = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->tr[i]->ipu && !nipu++)
            m = set->tr[i]->ipu;
    if (!m)
        return;
    if (nipu > 1)
        td_sum_warning(s, "several IPU exports given: only the first is analysed (use "
                          "'tracedoc diff' to compare two)");
    ictx x = {s, set->strs, m, o};
    for (int i = 0; i < m->nnotes; i++)
        td_sum_warning(s, m->notes[i]);
    td_sum_set_int(s, "ipu.counts_over_32_bits", "Counts above 32 bits", TD_T_INT,
                   (int64_t)m->over32);
    td_sum_set_int(s, "ipu.wrapped_steps", "Steps with a wrapped 32-bit counter", TD_T_INT,
                   (int64_t)m->wraps);
    td_sum_set_int(s, "ipu.count", "IPUs", TD_T_INT, m->nipus);
    td_sum_set_int(s, "ipu.tiles_per_ipu", "Tiles per IPU", TD_T_INT, m->tiles_per_ipu);
    td_sum_set_f64(s, "ipu.clock_hz", "IPU clock (Hz)", TD_T_F64, m->clock_hz);
    if (m->poplar_version)
        td_sum_set_str(s, "ipu.poplar_version", "Poplar version",
                       td_strget(set->strs, m->poplar_version));
    if (m->synthetic)
        td_sum_set_str(s, "ipu.synthetic", "Synthetic data",
                       "yes: this export was generated, not measured");
    /* the run-level facts the documents' headers show */
    td_sum_set_int(s, "trace.devices", "IPUs", TD_T_INT, m->nipus);
    td_sum_set_str(s, "trace.device_name", "Device",
                   td_arena_printf(s->a, "Graphcore IPU (%d tiles, %.3g GHz)",
                                   m->tiles_per_ipu, m->clock_hz / 1e9));
    td_sum_set_str(s, "warmup.rule", "Warm-up rule",
                   "IPU exports: no warm-up removal, every run is kept.");
    if (m->nsteps) {
        step_types(&x);
        runs_table(&x);
        const td_table *rt = td_sum_find_table(s, "ipu_runs");
        int64_t span = 0;
        int measured = 1;
        for (size_t r = 0; r < rt->nrows; r++)
            measured &= td_table_cell(rt, r, td_table_col(rt, "time_ns"))->i != TD_NA;
        for (size_t r = 0; r < rt->nrows; r++)
            span = sat_add(span, td_table_cell(rt, r, td_table_col(rt, measured ? "time_ns"
                                                                                : "cycles_ns"))->i);
        td_sum_set_int(s, "trace.span_ns", measured ? "Run time (measured, all runs)"
                                                    : "Run time (cycles at the clock)",
                       TD_T_NS, span);
        steps_table(&x);
        exchanges_table(&x);
        stream_copies_table(&x);
        flame(&x);
        timeline(&x);
        findings(&x);
    } else if (m->nruns)
        runs_table(&x);
    td_analyse_lwp(set, m, o, s);
}
