/* analyse/aiu.c - IBM AIU flex traces: the figures acelyzer (IBM/aiu-trace-analyzer)
 * defines, per device (pid), from the instructions read/aiu.c kept (doc/formats.md "IBM AIU").
 *
 * Cycles to time: each instruction type owns one TS interval (DmaI TS1->TS2, Cmpt Prep
 * TS2->TS3, Cmpt Exec TS3->TS4, DmaO TS4->TS5, other TS1->TS5); its duration is that many
 * cycles at the SoC clock and it ends at the host E timestamp. The SoC clock is
 * --aiu-freq, else the frequency the data implies (cycles over host duration of the
 * Cmpt Exec pairs); ideal cycles of the compile log are on the core clock.
 *
 * Tables: aiu_devices, aiu_kernels, aiu_categories (with a compile log), aiu_transfers,
 * aiu_prep_depth; scalars aiu.*; a "device" flamegraph (AIU;type;name). */
#include "analyse/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ACE_DEFAULT_SOC 1000.0  /* acelyzer's defaults, used when nothing better is known */
#define ACE_DEFAULT_CORE 1100.0

static const int ts_a[5] = {0, 0, 1, 2, 3}; /* by td_aiu_type: OTHER, DMAI, PREP, EXEC, DMAO */
static const int ts_b[5] = {4, 1, 2, 3, 4};
static const char *const type_label[5] = {"other", "DmaI", "Cmpt Prep", "Cmpt Exec", "DmaO"};

/* One instruction on the device clock: tightened start/end, ns. */
typedef struct {
    int64_t s, e;
    const td_aiu_instr *in;
} dinstr;

typedef struct {
    td_str name;     /* normalised */
    int64_t dur;
} kdur;

static int cmp_kdur(const void *x, const void *y)
{
    const kdur *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->dur > b->dur) - (a->dur < b->dur);
}

/* acelyzer's name normalisation: every "[_-]digits" becomes "_[N]"; then the
 * " Cmpt Exec" suffix is dropped. */
static td_str norm_name(td_actx *a, const char *n, td_buf *b)
{
    b->n = 0;
    for (size_t i = 0; n[i];) {
        if ((n[i] == '_' || n[i] == '-') && n[i + 1] >= '0' && n[i + 1] <= '9') {
            td_buf_puts(b, "_[N]");
            i++;
            while (n[i] >= '0' && n[i] <= '9')
                i++;
        } else {
            td_buf_putc(b, n[i++]);
        }
    }
    if (b->n >= 10 && !memcmp(b->p + b->n - 10, " Cmpt Exec", 10))
        b->n -= 10;
    return td_intern(a->set->strs, b->p, b->n);
}

int64_t td_aiu_device_ns(const td_aiu_instr *in, double soc_mhz)
{
    if (!in->has_ts)
        return in->host_e - in->host_b;
    return llround((double)(in->cyc[ts_b[in->type]] - in->cyc[ts_a[in->type]]) * 1000.0 /
                   soc_mhz);
}

static double implied_mhz(const td_aiu_instr *v, size_t n, size_t *cnt)
{
    double sum = 0;
    *cnt = 0;
    for (size_t i = 0; i < n; i++) {
        const td_aiu_instr *in = &v[i];
        if (in->type != TD_AIU_EXEC || !in->has_ts || in->host_e <= in->host_b)
            continue;
        double cyc = (double)(in->cyc[3] - in->cyc[2]);
        sum += cyc / ((double)(in->host_e - in->host_b) / 1000.0);
        (*cnt)++;
    }
    return *cnt ? sum / (double)*cnt : 0;
}

static const td_aiu_ideal *ideal_find(const td_traceset *set, int table, td_str kernel)
{
    size_t lo = 0, hi = set->nideal;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        const td_aiu_ideal *x = &set->ideal[m];
        if (x->table < table || (x->table == table && x->kernel < kernel))
            lo = m + 1;
        else
            hi = m;
    }
    if (lo < set->nideal && set->ideal[lo].table == table && set->ideal[lo].kernel == kernel)
        return &set->ideal[lo];
    return NULL;
}

typedef struct {
    td_str cat;
    const char *cname;
    int64_t dur, ideal, cycles, calls;
} catacc;

static catacc *cat_get(const td_traceset *set, catacc **v, size_t *n, size_t *cap, td_str cat)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].cat == cat)
            return &(*v)[i];
    catacc *c = TD_PUSH(*v, *n, *cap);
    memset(c, 0, sizeof *c);
    c->cat = cat;
    c->cname = td_strget(set->strs, cat);
    return c;
}

typedef struct {
    const char *name;
    td_stats st;
} krow;

static int cmp_krow(const void *x, const void *y)
{
    const krow *a = x, *b = y;
    if (a->st.total != b->st.total)
        return a->st.total > b->st.total ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_cat(const void *x, const void *y)
{
    const catacc *a = x, *b = y;
    if (a->dur != b->dur)
        return a->dur > b->dur ? -1 : 1;
    return strcmp(a->cname, b->cname);
}

typedef struct {
    td_table *dev, *kern, *cats, *xfer, *prep;
    td_flame *fl;
    double soc, core;
    int64_t tot_kernel, tot_span;
} outs;

typedef struct {
    int64_t t;
    int d;
} pev;

static int cmp_pev(const void *x, const void *y)
{
    const pev *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->d - b->d; /* ends before starts at the same time */
}

static void one_device(td_actx *a, outs *o, int64_t device, const dinstr *v, size_t n,
                       int64_t origin, double dev_mhz)
{
    td_summary *s = a->s;
    td_traceset *set = a->set;
    td_buf nb = {0};
    /* kernels (Cmpt Exec) */
    kdur *kd = td_xmalloc((n + 1) * sizeof *kd);
    size_t nk = 0;
    int64_t kfirst = INT64_MAX, klast = INT64_MIN, ktotal = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].in->type != TD_AIU_EXEC)
            continue;
        kd[nk].name = norm_name(a, td_strget(set->strs, v[i].in->name), &nb);
        kd[nk++].dur = v[i].e - v[i].s;
        ktotal += v[i].e - v[i].s;
        if (v[i].s < kfirst)
            kfirst = v[i].s;
        if (v[i].e > klast)
            klast = v[i].e;
    }
    qsort(kd, nk, sizeof *kd, cmp_kdur);
    int64_t *durs = td_xmalloc((nk + 1) * sizeof *durs);
    krow *kr = td_xmalloc((nk + 1) * sizeof *kr);
    size_t nkr = 0;
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && kd[j].name == kd[i].name) {
            durs[j - i] = kd[j].dur;
            j++;
        }
        kr[nkr].name = td_strget(set->strs, kd[i].name);
        td_stats_of(durs, j - i, &kr[nkr++].st);
        i = j;
    }
    qsort(kr, nkr, sizeof *kr, cmp_krow);
    for (size_t i = 0; i < nkr; i++) {
        const td_stats *st = &kr[i].st;
        size_t r = td_table_add_row(o->kern);
        td_row_int(s, o->kern, r, "device", device);
        td_row_str(s, o->kern, r, "name", kr[i].name);
        td_row_int(s, o->kern, r, "calls", (int64_t)st->n);
        td_row_int(s, o->kern, r, "total_ns", st->total);
        td_row_int(s, o->kern, r, "mean_ns", llround(st->mean));
        td_row_int(s, o->kern, r, "median_ns", llround(st->median));
        td_row_int(s, o->kern, r, "min_ns", st->min);
        td_row_int(s, o->kern, r, "max_ns", st->max);
        td_row_int(s, o->kern, r, "std_ns", llround(st->std));
        td_row_f64(s, o->kern, r, "share", ktotal ? (double)st->total / (double)ktotal : 0);
    }
    free(kr);
    free(durs);
    free(kd);
    int64_t span = nk ? klast - kfirst : 0;
    o->tot_kernel += ktotal;
    o->tot_span += span;

    /* categories and PT utilisation (compile log) */
    double mm_util = NAN, util = NAN;
    if (set->nideal) {
        int best = -1;
        size_t best_hits = 0;
        for (int t = 0; t < set->nideal_tables; t++) {
            size_t hits = 0;
            for (size_t i = 0; i < n; i++)
                if (v[i].in->type == TD_AIU_EXEC && ideal_find(set, t, v[i].in->name))
                    hits++;
            if (best < 0 || hits > best_hits) {
                best = t;
                best_hits = hits;
            }
        }
        catacc *cv = NULL;
        size_t nc = 0, ccap = 0;
        td_str total = td_intern_cstr(set->strs, "Total");
        td_str other = td_intern_cstr(set->strs, "other");
        cat_get(set, &cv, &nc, &ccap, total);
        cat_get(set, &cv, &nc, &ccap, td_intern_cstr(set->strs, "StcdpHbm"));
        cat_get(set, &cv, &nc, &ccap, other);
        for (size_t i = 0; i < set->nideal; i++)
            if (set->ideal[i].table == best)
                cat_get(set, &cv, &nc, &ccap, set->ideal[i].category);
        int64_t t_mm = 0, t_sf = 0, ideal_mm = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].in->type != TD_AIU_EXEC)
                continue;
            int64_t dur = v[i].e - v[i].s, cyc = 0, ideal = 0;
            const td_aiu_ideal *id = ideal_find(set, best, v[i].in->name);
            if (id && id->cycles > 0) {
                ideal = llround((double)id->cycles * 1000.0 / o->core);
                cyc = id->cycles;
                if (ideal > dur) /* a table mismatch: not counted (as acelyzer) */
                    ideal = cyc = 0;
            }
            catacc *c = cat_get(set, &cv, &nc, &ccap, id ? id->category : other);
            catacc *tt = &cv[0];
            c->dur += dur, c->ideal += ideal, c->cycles += cyc, c->calls++;
            tt->dur += dur, tt->ideal += ideal, tt->cycles += cyc, tt->calls++;
            if (ideal > 0) {
                t_mm += dur;
                ideal_mm += ideal;
            } else {
                t_sf += dur;
            }
        }
        qsort(cv + 1, nc - 1, sizeof *cv, cmp_cat); /* Total stays first here, last below */
        for (size_t k = 1; k <= nc; k++) {
            const catacc *c = &cv[k % nc]; /* Total last */
            size_t r = td_table_add_row(o->cats);
            td_row_int(s, o->cats, r, "device", device);
            td_row_str(s, o->cats, r, "category", td_strget(set->strs, c->cat));
            td_row_int(s, o->cats, r, "kernel_ns", c->dur);
            td_row_f64(s, o->cats, r, "share", cv[0].dur ? (double)c->dur / (double)cv[0].dur : 0);
            td_row_int(s, o->cats, r, "calls", c->calls);
            td_row_int(s, o->cats, r, "ideal_ns", c->ideal);
            td_row_int(s, o->cats, r, "ideal_cycles", c->cycles);
            td_row_f64(s, o->cats, r, "ideal_share",
                       cv[0].ideal ? (double)c->ideal / (double)cv[0].ideal : 0);
            td_row_f64(s, o->cats, r, "pt_util", c->dur ? (double)c->ideal / (double)c->dur : 0);
        }
        free(cv);
        if (t_mm)
            mm_util = (double)ideal_mm / (double)t_mm;
        if (t_mm + t_sf)
            util = (t_mm ? mm_util : 0) * (double)t_mm / (double)(t_mm + t_sf);
    }

    /* transfers */
    static const char *const xk[] = {"data_in", "data_out", "collective_send",
                                     "collective_recv", "collective_protocol"};
    int64_t xb[5] = {0}, xt[5] = {0}, xc[5] = {0};
    int xknown[5] = {0};
    for (size_t i = 0; i < n; i++) {
        const td_aiu_instr *in = v[i].in;
        int k = -1;
        const char *nm = td_strget(set->strs, in->name);
        if (in->coll) {
            if (strstr(nm, "Set BcList") || strstr(nm, "Xseg to rank"))
                k = 4;
            else if (in->type == TD_AIU_DMAO)
                k = 2;
            else if (in->type == TD_AIU_DMAI)
                k = 3;
        } else if (in->type == TD_AIU_DMAI) {
            k = 0;
        } else if (in->type == TD_AIU_DMAO) {
            k = 1;
        }
        if (k < 0)
            continue;
        xc[k]++;
        xt[k] += v[i].e - v[i].s;
        if (in->bytes >= 0) {
            xb[k] += in->bytes;
            xknown[k] = 1;
        }
    }
    for (int k = 0; k < 5; k++) {
        if (!xc[k])
            continue;
        size_t r = td_table_add_row(o->xfer);
        td_row_int(s, o->xfer, r, "device", device);
        td_row_str(s, o->xfer, r, "kind", xk[k]);
        td_row_int(s, o->xfer, r, "calls", xc[k]);
        td_row_int(s, o->xfer, r, "bytes", xknown[k] ? xb[k] : TD_NA);
        td_row_int(s, o->xfer, r, "total_ns", xt[k]);
        if (xknown[k] && xt[k] > 0)
            td_row_f64(s, o->xfer, r, "gbps", (double)xb[k] / (double)xt[k]);
    }

    /* ConcurrentPrep: open Cmpt Prep intervals over time */
    pev *pe = td_xmalloc((2 * n + 1) * sizeof *pe);
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].in->type == TD_AIU_PREP) {
            pe[np++] = (pev){v[i].s, +1};
            pe[np++] = (pev){v[i].e, -1};
        }
    qsort(pe, np, sizeof *pe, cmp_pev);
    int depth = 0, maxd = 0;
    double area = 0;
    for (size_t i = 0; i < np; i++) {
        if (i)
            area += (double)depth * (double)(pe[i].t - pe[i - 1].t);
        depth += pe[i].d;
        if (depth > maxd)
            maxd = depth;
        if (i + 1 < np && pe[i + 1].t == pe[i].t)
            continue; /* one row per instant */
        size_t r = td_table_add_row(o->prep);
        td_row_int(s, o->prep, r, "device", device);
        td_row_int(s, o->prep, r, "t_ns", pe[i].t - origin);
        td_row_int(s, o->prep, r, "depth", depth);
    }
    int64_t pspan = np ? pe[np - 1].t - pe[0].t : 0;
    free(pe);

    /* device row */
    size_t r = td_table_add_row(o->dev);
    td_row_int(s, o->dev, r, "device", device);
    td_row_int(s, o->dev, r, "instructions", (int64_t)n);
    td_row_int(s, o->dev, r, "kernels", (int64_t)nk);
    td_row_int(s, o->dev, r, "kernel_ns", ktotal);
    td_row_int(s, o->dev, r, "span_ns", span);
    if (span > 0)
        td_row_f64(s, o->dev, r, "active_share", (double)ktotal / (double)span);
    if (dev_mhz > 0)
        td_row_f64(s, o->dev, r, "implied_mhz", dev_mhz);
    if (!isnan(mm_util))
        td_row_f64(s, o->dev, r, "mm_util", mm_util);
    if (!isnan(util))
        td_row_f64(s, o->dev, r, "util", util);
    if (np) {
        td_row_int(s, o->dev, r, "prep_max_depth", maxd);
        td_row_f64(s, o->dev, r, "prep_mean_depth", pspan > 0 ? area / (double)pspan : 0);
    }

    /* flamegraph: AIU N;type;name */
    char head[32];
    snprintf(head, sizeof head, "AIU %lld;", (long long)device);
    for (size_t i = 0; i < n; i++) {
        const td_aiu_instr *in = v[i].in;
        nb.n = 0;
        td_buf_puts(&nb, head);
        td_buf_puts(&nb, type_label[in->type]);
        td_buf_putc(&nb, ';');
        const char *nm = td_strget(set->strs, in->name);
        size_t l = strlen(nm), sl = strlen(type_label[in->type]);
        if (in->type != TD_AIU_OTHER && l > sl + 1 && !strcmp(nm + l - sl, type_label[in->type]))
            l -= sl + 1;
        td_buf_put(&nb, nm, l); /* names of this format carry no ';' in practice */
        for (size_t k = nb.n - l; k < nb.n; k++)
            if (nb.p[k] == ';' || nb.p[k] == '\n' || nb.p[k] == '\r')
                nb.p[k] = k && nb.p[k] == ';' ? ':' : ' ';
        td_flame_add(s, o->fl, td_buf_cstr(&nb), v[i].e - v[i].s);
    }
    td_buf_free(&nb);
}

void td_an_aiu(td_actx *a)
{
    td_summary *s = a->s;
    td_traceset *set = a->set;
    size_t ntr = 0, total = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->tc[i].t->naiu) {
            ntr++;
            total += a->tc[i].t->naiu;
        }
    if (!ntr) {
        if (set->nideal)
            td_sum_warning(s, "a DeepRT compile log was given but no AIU flex trace: its "
                              "ideal cycles are not used");
        return;
    }
    /* the frequency the data implies: mean over devices of the mean cycles/us of Cmpt Exec */
    double imp_sum = 0;
    size_t imp_n = 0;
    for (size_t i = 0; i < a->n; i++) {
        const td_trace *t = a->tc[i].t;
        for (size_t j = 0; j < t->naiu;) {
            size_t k = j;
            while (k < t->naiu && t->aiu[k].device == t->aiu[j].device)
                k++;
            size_t cnt;
            double m = implied_mhz(t->aiu + j, k - j, &cnt);
            if (cnt) {
                imp_sum += m;
                imp_n++;
            }
            j = k;
        }
    }
    double implied = imp_n ? imp_sum / (double)imp_n : 0;
    outs o;
    memset(&o, 0, sizeof o);
    o.soc = a->o->aiu_soc_mhz > 0 ? a->o->aiu_soc_mhz : implied > 0 ? implied : ACE_DEFAULT_SOC;
    o.core = a->o->aiu_core_mhz > 0 ? a->o->aiu_core_mhz : ACE_DEFAULT_CORE;
    if (implied > 0)
        td_sum_set_f64(s, "aiu.implied_soc_mhz", "AIU SoC clock implied by the data (MHz)",
                       TD_T_F64, implied);
    td_sum_set_f64(s, "aiu.soc_mhz", "AIU SoC clock used (MHz)", TD_T_F64, o.soc);
    td_sum_set_f64(s, "aiu.core_mhz", "AIU core clock used (MHz)", TD_T_F64, o.core);
    if (a->o->aiu_soc_mhz > 0 && implied > 0 && fabs(a->o->aiu_soc_mhz / implied - 1) > 0.1) {
        char *w = td_arena_printf(s->a, "--aiu-freq: SoC clock %.3f MHz is more than 10%% away "
                                  "from the %.3f MHz the trace implies (cycles over host "
                                  "duration of the Cmpt Exec pairs)", a->o->aiu_soc_mhz, implied);
        td_sum_warning(s, w);
    }
    o.dev = td_sum_table(s, "aiu_devices", "AIU devices");
    td_table_cols(o.dev, "device:device:AIU", "instructions:int:Instructions",
                  "kernels:int:Kernels", "kernel_ns:ns:Kernel time", "span_ns:ns:Kernel span",
                  "active_share:share:Active", "implied_mhz:f64:Implied SoC MHz",
                  "mm_util:share:Matmul PT util", "util:share:PT util",
                  "prep_max_depth:int:Max concurrent preps",
                  "prep_mean_depth:f64:Mean concurrent preps", NULL);
    o.kern = td_sum_table(s, "aiu_kernels", "AIU kernels (Cmpt Exec)");
    td_table_cols(o.kern, "device:device:AIU", "name:text:Kernel", "calls:int:Calls",
                  "total_ns:ns:Total", "mean_ns:ns:Mean", "median_ns:ns:Median",
                  "min_ns:ns:Min", "max_ns:ns:Max", "std_ns:ns:Std dev", "share:share:Share",
                  NULL);
    if (set->nideal) {
        o.cats = td_sum_table(s, "aiu_categories", "AIU kernel categories");
        td_table_cols(o.cats, "device:device:AIU", "category:text:Category",
                      "kernel_ns:ns:Kernel time", "share:share:Share", "calls:int:Calls",
                      "ideal_ns:ns:Ideal time", "ideal_cycles:int:Ideal cycles",
                      "ideal_share:share:Ideal share", "pt_util:share:PT util", NULL);
    }
    o.xfer = td_sum_table(s, "aiu_transfers", "AIU data transfers");
    td_table_cols(o.xfer, "device:device:AIU", "kind:text:Kind", "calls:int:Calls",
                  "bytes:bytes:Bytes", "total_ns:ns:Time", "gbps:gbps:Bandwidth", NULL);
    o.prep = td_sum_table(s, "aiu_prep_depth", "AIU concurrent Cmpt Prep");
    td_table_cols(o.prep, "device:device:AIU", "t_ns:ns:Time", "depth:int:Open preps", NULL);
    o.fl = td_sum_flame(s, "device", "AIU device time");
    if (!o.fl->n)
        o.fl->title = "AIU device time";

    /* device ids: the pid, or the input's rank when several inputs reuse a pid */
    int reuse = 0;
    for (size_t i = 0; i < a->n && !reuse; i++)
        for (size_t j = i + 1; j < a->n && !reuse; j++) {
            const td_trace *x = a->tc[i].t, *y = a->tc[j].t;
            for (size_t p = 0; p < x->naiu && !reuse; p++)
                if (y->naiu && x->aiu[p].device >= y->aiu[0].device &&
                    x->aiu[p].device <= y->aiu[y->naiu - 1].device)
                    reuse = 1;
        }
    size_t ndev = 0;
    dinstr *v = td_xmalloc((total + 1) * sizeof *v);
    for (size_t i = 0; i < a->n; i++) {
        const td_trace *t = a->tc[i].t;
        if (!t->naiu)
            continue;
        int64_t origin = INT64_MAX;
        for (size_t j = 0; j < t->naiu; j++) {
            const td_aiu_instr *in = &t->aiu[j];
            int64_t dur = td_aiu_device_ns(in, o.soc);
            v[j] = (dinstr){in->host_e - dur, in->host_e, in};
            if (v[j].s < origin)
                origin = v[j].s;
        }
        for (size_t j = 0; j < t->naiu;) {
            size_t k = j;
            while (k < t->naiu && t->aiu[k].device == t->aiu[j].device)
                k++;
            int64_t dev = t->aiu[j].device;
            if (reuse)
                dev = (int64_t)t->rank * 1000 + dev;
            size_t cnt;
            double m = implied_mhz(t->aiu + j, k - j, &cnt);
            one_device(a, &o, dev, v + j, k - j, origin, cnt ? m : 0);
            ndev++;
            j = k;
        }
    }
    free(v);
    td_flame_finish(o.fl);
    td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, (int64_t)ndev);
    if (o.tot_span > 0)
        td_sum_set_f64(s, "aiu.active_share", "AIU kernels active (share of the kernel span)",
                       TD_T_SHARE, (double)o.tot_kernel / (double)o.tot_span);
}
