/* analyse/ipu.c - the detailed execution trace of a Graphcore IPU export (formats.md
 * sec. 6): cycle proportions by step type per IPU and for all IPUs, tile balance and
 * active tile balance, tile utilisation from the BSP data, the runs, the top steps,
 * exchanges, stream copies by direction, the debug-name flamegraph (cycles) and the
 * flat per-IPU timeline the PDF draws. Lightweight profiling is analyse/lwp.c.
 *
 * Definitions (doc/formats.md "Graphcore IPU export" says them for users):
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
#include "analyse/ipu.h"
#include "analyse/internal.h"
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

typedef struct ictx {
    td_summary *s;
    const td_strtab *strs;
    const td_ipu *m;
    const td_opts *o;
    int rep;             /* which export (several given), -1 when there is one */
} ictx;

/* The table `name`, made (with a first `report` column when several exports are given)
 * when absent; *fresh tells the caller to add its columns. */
static td_table *itable(ictx *x, const char *name, const char *title, int *fresh)
{
    td_table *t = td_sum_table(x->s, name, title);
    *fresh = !t->ncols;
    if (*fresh && x->rep >= 0)
        td_table_cols(t, "report:int:Report", NULL);
    return t;
}

/* A scalar's title into dst ("report K: " first with several exports); returns dst. */
static const char *ititle(const ictx *x, char *dst, size_t cap, const char *text)
{
    if (x->rep < 0)
        snprintf(dst, cap, "%s", text);
    else
        snprintf(dst, cap, "report %d: %s", x->rep, text);
    return dst;
}

/* A per-IPU scalar ("ipu.N.what", or "ipu.rK.N.what" with several exports). */
static void ikey(const ictx *x, char *dst, size_t cap, int32_t ipu, const char *what)
{
    char who[16];
    if (ipu < 0)
        snprintf(who, sizeof who, "all");
    else
        snprintf(who, sizeof who, "%d", ipu);
    td_ipu_key(dst, cap, "ipu", x->rep, who, what);
}
#define NM(id) td_strget(x->strs, (id))

/* The share num/den of one IPU as the scalar "ipu.N.what", titled "IPU N <title>". */
static void ipu_share(td_summary *s, const ictx *x, int32_t ipu, const char *what,
                      const char *title, double num, double den)
{
    char key[64], t[128], text[96];
    ikey(x, key, sizeof key, ipu, what);
    snprintf(text, sizeof text, "IPU %d %s", ipu, title);
    td_sum_set_f64(s, key, ititle(x, t, sizeof t, text), TD_T_SHARE, num / den);
}

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
    int fresh;
    td_table *t = itable(x, "ipu_step_types", "Cycle proportions by step type", &fresh);
    if (fresh)
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
            td_row_int(s, t, r, "report", x->rep);
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
        char key[64], title[128], tb_[96];
        int64_t tot = 0;
        for (int k = 0; k < TD_IPU_NCATS; k++)
            tot = sat_add(tot, cyc[(size_t)ipu * TD_IPU_NCATS + k]);
        ikey(x, key, sizeof key, ipu, "cycles");
        snprintf(tb_, sizeof tb_, "IPU %d cycles", ipu);
        ititle(x, title, sizeof title, tb_);
        td_sum_set_int(s, key, title, TD_T_INT, tot);
        if (tb[2 * ipu + 1] > 0) {
            ipu_share(s, x, ipu, "tile_balance", "tile balance", tb[2 * ipu], tb[2 * ipu + 1]);
            tbs += tb[2 * ipu];
            tbn += tb[2 * ipu + 1];
        }
        if (atb[2 * ipu + 1] > 0) {
            ipu_share(s, x, ipu, "active_tile_balance", "active tile balance", atb[2 * ipu],
                      atb[2 * ipu + 1]);
            atbs += atb[2 * ipu];
            atbn += atb[2 * ipu + 1];
        }
        if (!nobsp[ipu] && all[ipu] > 0)
            ipu_share(s, x, ipu, "tile_utilisation", "tile utilisation", (double)busy[ipu],
                      (double)all[ipu]);
    }
    char key[64], title[128];
    if (tbn > 0) {
        ikey(x, key, sizeof key, -1, "tile_balance");
        td_sum_set_f64(s, key, ititle(x, title, sizeof title, "Tile balance (all IPUs)"),
                       TD_T_SHARE, tbs / tbn);
    }
    if (atbn > 0) {
        ikey(x, key, sizeof key, -1, "active_tile_balance");
        td_sum_set_f64(s, key, ititle(x, title, sizeof title, "Active tile balance (all IPUs)"),
                       TD_T_SHARE, atbs / atbn);
    }
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
    int fresh;
    td_table *t = itable(x, "ipu_runs", "Runs", &fresh);
    if (fresh)
        td_table_cols(t, "run:int:Run", "name:text:Name", "steps:int:Steps",
                      "cycles:int:Cycles", "cycles_ns:ns:Cycles at clock",
                      "time_ns:ns:Measured time", NULL);
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
        td_row_int(s, t, row, "report", x->rep);
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
    td_row_int(s, t, r, "report", x->rep);
    td_row_int(s, t, r, "ipu", a->ipu);
    td_row_str(s, t, r, "type", td_ipu_type_name(a->type));
    td_row_str(s, t, r, "name", a->name ? NM(a->name) : td_ipu_type_name(a->type));
    td_row_int(s, t, r, "count", (int64_t)count);
    td_row_int(s, t, r, "cycles", cyc);
    td_row_int(s, t, r, "time_ns", td_ipu_cycles_ns(x->m, cyc));
    return r;
}

static int64_t ipu_total(const ictx *x, int32_t ipu)
{
    char key[64];
    ikey(x, key, sizeof key, ipu, "cycles");
    const td_kv *kv = td_sum_get(x->s, key);
    return kv ? kv->v.i : 0;
}

/* What one group of step-IPU entries adds up to (each table shows some of it). */
typedef struct gacc {
    int64_t cyc, bytes, in, out;
    int64_t at;          /* most active tiles, -1 unknown */
    int have_bytes;
    mean tb, atb, db;
    td_str vertex;       /* first vertex type */
} gacc;

static void acc_add(gacc *g, const td_ipu *m, const agg *a)
{
    const td_ipu_stepipu *e = &m->sipu[a->sipu];
    g->cyc = sat_add(g->cyc, e->cycles);
    if (e->active_tiles > g->at)
        g->at = e->active_tiles;
    if (e->data_in != TD_IPU_NA || e->data_out != TD_IPU_NA) {
        g->have_bytes = 1;
        g->in = sat_add(g->in, e->data_in == TD_IPU_NA ? 0 : e->data_in);
        g->out = sat_add(g->out, e->data_out == TD_IPU_NA ? 0 : e->data_out);
        g->bytes = sat_add(g->in, g->out);
    }
    mean_add(&g->tb, e->tile_balance);
    mean_add(&g->atb, e->active_tile_balance);
    mean_add(&g->db, e->data_balance);
    if (!g->vertex)
        g->vertex = m->steps[a->step].vertex;
}

/* A grouped table: the entries keep() selects, sorted by (ipu, type, dir, name), one row
 * per run of entries same() puts together; the table (made only when there are entries)
 * has the columns cols, fill writes those beyond group_row's. */
typedef struct gtable {
    int (*keep)(int type);
    int (*same)(const agg *a, const agg *b);
    const char *name, *title;
    const char *cols[12];  /* column specs, NULL-terminated */
    void (*fill)(ictx *x, td_table *t, size_t r, const agg *first, const gacc *g);
    int sort;            /* sort by cycles, largest first */
} gtable;

static void grouped(ictx *x, const gtable *gt)
{
    size_t n;
    agg *v = collect(x, gt->keep, &n);
    td_table *t = NULL;
    if (n) {
        int fresh;
        t = itable(x, gt->name, gt->title, &fresh);
        for (size_t c = 0; fresh && gt->cols[c]; c++)
            td_table_cols(t, gt->cols[c], NULL);
    }
    for (size_t i = 0; i < n;) {
        gacc g = {0};
        g.at = -1;
        size_t j = i;
        while (j < n && gt->same(&v[i], &v[j]))
            acc_add(&g, x->m, &v[j++]);
        size_t r = group_row(x, t, &v[i], j - i, g.cyc);
        gt->fill(x, t, r, &v[i], &g);
        i = j;
    }
    if (t && gt->sort)
        td_table_sort(t, "cycles", 1);
    free(v);
}

static int same_step(const agg *a, const agg *b)
{
    return a->ipu == b->ipu && a->type == b->type && a->dir == b->dir && a->name == b->name;
}
static int same_exchange(const agg *a, const agg *b)
{
    return a->ipu == b->ipu && a->type == b->type && a->name == b->name;
}
static int same_direction(const agg *a, const agg *b)
{
    return a->ipu == b->ipu && a->dir == b->dir;
}

static void fill_steps(ictx *x, td_table *t, size_t r, const agg *a, const gacc *g)
{
    td_summary *s = x->s;
    int64_t tot = ipu_total(x, a->ipu);
    td_row_f64(s, t, r, "share", tot ? (double)g->cyc / (double)tot : 0);
    td_row_int(s, t, r, "active_tiles", g->at >= 0 ? g->at : TD_NA);
    td_row_f64(s, t, r, "tile_balance", mean_of(&g->tb));
    td_row_f64(s, t, r, "active_tile_balance", mean_of(&g->atb));
    td_row_str(s, t, r, "vertex", g->vertex ? NM(g->vertex) : NULL);
}

static void fill_exchanges(ictx *x, td_table *t, size_t r, const agg *a, const gacc *g)
{
    (void)a;
    td_row_int(x->s, t, r, "bytes", g->have_bytes ? g->bytes : TD_NA);
    td_row_f64(x->s, t, r, "data_balance", mean_of(&g->db));
    td_row_f64(x->s, t, r, "tile_balance", mean_of(&g->tb));
}

static void fill_stream_copies(ictx *x, td_table *t, size_t r, const agg *a, const gacc *g)
{
    td_row_str(x->s, t, r, "direction", td_ipu_dir_name(a->dir));
    td_row_int(x->s, t, r, "in_bytes", g->in);
    td_row_int(x->s, t, r, "out_bytes", g->out);
}

static void group_tables(ictx *x)
{
    static const gtable tabs[] = {
        {keep_all, same_step, "ipu_steps", "Top steps by cycles",
         {"ipu:device:IPU", "type:text:Step type", "name:text:Name", "count:int:Count",
          "cycles:int:Cycles", "time_ns:ns:Time", "share:share:Share",
          "active_tiles:int:Active tiles", "tile_balance:share:Tile balance",
          "active_tile_balance:share:Active tile balance", "vertex:text:Vertex type", NULL},
         fill_steps, 1},
        {keep_exchange, same_exchange, "ipu_exchanges", "Exchanges",
         {"ipu:device:IPU", "type:text:Step type", "name:text:Name", "count:int:Count",
          "cycles:int:Cycles", "time_ns:ns:Time", "bytes:bytes:Data",
          "data_balance:share:Data balance", "tile_balance:share:Tile balance", NULL},
         fill_exchanges, 1},
        {keep_mid, same_direction, "ipu_stream_copies", "Stream copies by direction",
         {"ipu:device:IPU", "direction:text:Direction", "count:int:Count",
          "cycles:int:Cycles", "time_ns:ns:Time", "in_bytes:bytes:Data in",
          "out_bytes:bytes:Data out", NULL},
         fill_stream_copies, 0}};
    for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
        grouped(x, &tabs[i]);
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
        if (x->rep >= 0) /* several exports: each under its own root frame */
            td_buf_printf(&b, "report %d;", x->rep);
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
        char lane[48];
        if (x->rep >= 0)
            snprintf(lane, sizeof lane, "R%d IPU %d", x->rep, ipu);
        else
            snprintf(lane, sizeof lane, "IPU %d", ipu);
        emit_lane(x, t, ipu, td_arena_strdup(x->s->a, lane), v, n);
    }
    free(v);
}

/* ---- findings ---- */

static int mine(const ictx *x, const td_table *t, size_t r)
{
    int c = td_table_col(t, "report");
    return c < 0 || td_table_cell(t, r, c)->i == x->rep;
}

static void findings(ictx *x)
{
    td_summary *s = x->s;
    const td_table *t = td_sum_find_table(s, "ipu_step_types");
    if (!t)
        return;
    char pre[32] = "", key[64];
    if (x->rep >= 0)
        snprintf(pre, sizeof pre, "Report %d: ", x->rep);
    int ci = td_table_col(t, "ipu"), ct = td_table_col(t, "type"), cs = td_table_col(t, "share");
    double sync = 0, ote = 0;
    int any = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, ci)->i != -1 || !mine(x, t, r))
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
        td_sum_finding(s, "%sOver all IPUs, %.1f%% of the cycles are compute (OnTileExecute) "
                          "and %.1f%% synchronisation.", pre, ote * 100, sync * 100);
    ikey(x, key, sizeof key, -1, "tile_balance");
    const td_kv *tb = td_sum_get(s, key);
    if (tb)
        td_sum_finding(s, "%sTile balance averages %.1f%% over the non-sync steps.", pre,
                       tb->v.f * 100);
    const td_table *st = td_sum_find_table(s, "ipu_steps");
    for (size_t r = 0; st && r < st->nrows; r++) {
        if (!mine(x, st, r))
            continue;
        td_sum_finding(s, "%sThe costliest step is '%s' (%s) on IPU %lld: %.1f%% of that "
                          "IPU's cycles.", pre,
                       td_table_cell(st, r, td_table_col(st, "name"))->s,
                       td_table_cell(st, r, td_table_col(st, "type"))->s,
                       (long long)td_table_cell(st, r, td_table_col(st, "ipu"))->i,
                       td_table_cell(st, r, td_table_col(st, "share"))->f * 100);
        break;
    }
}

/* One export: every table and figure of it (rows tagged with `report` when x->rep >= 0). */
static void one_export(ictx *x, const td_trace *tr, int64_t *span_out)
{
    td_summary *s = x->s;
    const td_ipu *m = x->m;
    char key[64], title[160];
    for (int i = 0; i < m->nnotes; i++)
        td_sum_warning(s, m->notes[i]);
    if (x->rep >= 0) {
        td_ipu_key(key, sizeof key, "ipu", x->rep, NULL, "input");
        snprintf(title, sizeof title, "Report %d", x->rep);
        td_sum_set_str(s, key, title, tr->path);
        td_ipu_key(key, sizeof key, "ipu", x->rep, NULL, "count");
        td_sum_set_int(s, key, ititle(x, title, sizeof title, "IPUs"), TD_T_INT, m->nipus);
        td_ipu_key(key, sizeof key, "ipu", x->rep, NULL, "clock_hz");
        td_sum_set_int(s, key, ititle(x, title, sizeof title, "IPU clock (Hz)"), TD_T_INT,
                       llround(m->clock_hz));
    }
    if (m->nsteps) {
        step_types(x);
        runs_table(x);
        const td_table *rt = td_sum_find_table(s, "ipu_runs");
        int64_t span = 0;
        int measured = 1;
        for (size_t r = 0; r < rt->nrows; r++)
            if (mine(x, rt, r))
                measured &= td_table_cell(rt, r, td_table_col(rt, "time_ns"))->i != TD_NA;
        for (size_t r = 0; r < rt->nrows; r++)
            if (mine(x, rt, r))
                span = sat_add(span, td_table_cell(rt, r, td_table_col(rt, measured ? "time_ns"
                                                                                    : "cycles_ns"))->i);
        if (span >= *span_out) {
            *span_out = span;
            td_sum_set_int(s, "trace.span_ns", measured ? "Run time (measured, all runs)"
                                                        : "Run time (cycles at the clock)",
                           TD_T_NS, span);
        }
        group_tables(x);
        flame(x);
        timeline(x);
        findings(x);
    } else if (m->nruns)
        runs_table(x);
    td_analyse_lwp(x->strs, m, x->o, s, x->rep);
}

void td_analyse_ipu(td_traceset *set, const td_opts *o, td_summary *s)
{
    const td_ipu *m = NULL;
    size_t nipu = 0;
    int64_t over = 0, wraps = 0, ipus = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->tr[i]->ipu) {
            if (!nipu++)
                m = set->tr[i]->ipu;
            over += (int64_t)set->tr[i]->ipu->over32;
            wraps += (int64_t)set->tr[i]->ipu->wraps;
            ipus += set->tr[i]->ipu->nipus;
        }
    if (!m)
        return;
    td_sum_set_int(s, "ipu.counts_over_32_bits", "Counts above 32 bits", TD_T_INT, over);
    td_sum_set_int(s, "ipu.wrapped_steps", "Steps with a wrapped 32-bit counter", TD_T_INT,
                   wraps);
    td_sum_set_int(s, "ipu.count", "IPUs", TD_T_INT, ipus);
    if (nipu > 1)
        td_sum_set_int(s, "ipu.reports", "IPU exports (reports)", TD_T_INT, (int64_t)nipu);
    td_sum_set_int(s, "ipu.tiles_per_ipu", "Tiles per IPU", TD_T_INT, m->tiles_per_ipu);
    td_sum_set_int(s, "ipu.clock_hz", "IPU clock (Hz)", TD_T_INT, llround(m->clock_hz));
    if (m->poplar_version)
        td_sum_set_str(s, "ipu.poplar_version", "Poplar version",
                       td_strget(set->strs, m->poplar_version));
    if (m->synthetic)
        td_sum_set_str(s, "ipu.synthetic", "Synthetic data",
                       "yes: this export was generated, not measured");
    /* the run-level facts the documents' headers show */
    td_sum_set_int(s, "trace.devices", "IPUs", TD_T_INT, ipus);
    td_sum_set_str(s, "trace.device_name", "Device",
                   td_arena_printf(s->a, "Graphcore IPU (%d tiles, %.3g GHz)",
                                   m->tiles_per_ipu, m->clock_hz / 1e9));
    td_sum_set_str(s, "warmup.rule", "Warm-up rule",
                   "IPU exports: no warm-up removal, every run is kept.");
    int64_t span = 0;
    int k = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (!set->tr[i]->ipu)
            continue;
        ictx x = {s, set->strs, set->tr[i]->ipu, o, nipu > 1 ? k : -1};
        one_export(&x, set->tr[i], &span);
        k++;
    }
}
