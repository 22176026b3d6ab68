/* render/pdf/ipu.c - the PDF's Graphcore IPU sections: per-IPU cycle-proportion bars with the
 * tile balance and utilisation figures ("section ipu"), and the timelines ("section
 * ipu_timeline"): a flat timeline per IPU coloured by step type, and the lightweight
 * profiling lanes (one per selected tile, plus each IPU's I/O lane).
 * Every number comes from the summary (ipu_step_types, ipu.* scalars, ipu_timeline);
 * the only arithmetic is layout. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include "analyse/ipu.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LANES 40
#define LABEL_W 92.0

static const struct {
    const char *name;
    uint32_t color;
} kinds[] = {
    {"Internal Sync", C_IDLE},     {"External Sync", 0x9aa3adu},
    {"OnTileExecute", C_COMP},     {"DoExchange", C_MEMCPY},
    {"GlobalExchange", C_COMM},    {"StreamCopy", 0xa05195u},
    {"Other", C_WARM},
    /* lightweight profiling */
    {"StreamCopyBegin", 0xf0c08au}, {"StreamCopyMid", C_COMM},
    {"StreamCopyEnd", 0xe8a35cu},   {"BufferFlush", 0x8e6bbfu},
    {"Overflow", 0x9aa3adu},       {"NoEnd", 0xa9c4e0u},
    {"Unknown", C_BAD}};

/* Common LWP blocks: one colour per block name, from a fixed palette (stable hash). */
static const uint32_t common_pal[] = {0x3a6ea5u, 0x4f8fc0u, 0x2e7d6fu, 0x5b8c3au,
                                      0x6b5fa8u, 0x2f5d8au, 0x438a8cu, 0x7a8f2eu};

static uint32_t kind_color(const char *kind, const char *name)
{
    if (kind && strcmp(kind, "Common") == 0) {
        uint64_t h = td_hash64(name ? name : "", name ? strlen(name) : 0);
        return common_pal[h % (sizeof common_pal / sizeof common_pal[0])];
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kind && strcmp(kind, kinds[i].name) == 0)
            return kinds[i].color;
    return C_LIGHT;
}

/* "tile balance 64.2%, active 84.6%, utilisation 86.0%" for one IPU (or all: -1) of
 * export rep (-1: only one export). */
static void balance_text(const td_summary *s, int rep, long long ipu, char *dst, size_t cap)
{
    char who[32];
    if (ipu < 0)
        snprintf(who, sizeof who, "all");
    else
        snprintf(who, sizeof who, "%lld", ipu);
    char k1[64], k2[64], k3[64];
    td_ipu_key(k1, sizeof k1, "ipu", rep, who, "tile_balance");
    td_ipu_key(k2, sizeof k2, "ipu", rep, who, "active_tile_balance");
    td_ipu_key(k3, sizeof k3, "ipu", rep, who, "tile_utilisation");
    const td_kv *a = td_sum_get(s, k1), *b = td_sum_get(s, k2), *c = td_sum_get(s, k3);
    size_t o = 0;
    dst[0] = 0;
    if (a && o < cap)
        o += (size_t)snprintf(dst + o, cap - o, "bal. %.1f%%", a->v.f * 100);
    if (b && o < cap)
        o += (size_t)snprintf(dst + o, cap - o, "%sactive %.1f%%", o ? ", " : "", b->v.f * 100);
    if (c && o < cap)
        snprintf(dst + o, cap - o, "%sutil. %.1f%%", o ? ", " : "", c->v.f * 100);
}

static int timeline_chart(pdoc *d, const td_table *t, int lwp, const char *title);

int pd_ipu(pdoc *d, const char *title)
{
    const td_table *t = td_sum_find_table(d->s, "ipu_step_types");
    if (!t || !t->nrows) {
        /* issue 21: an export with lightweight profiling only has no step types; the
         * one-page summary (which has no timeline section) then shows its blocks
         * chart, rather than a page three-quarters blank under the key figures */
        const td_table *tl = td_sum_find_table(d->s, "ipu_timeline");
        if (d->one_page && tl && tl->nrows)
            return timeline_chart(d, tl, 1, "Lightweight profiling blocks");
        return 0;
    }
    int ci = td_table_col(t, "ipu"), ct = td_table_col(t, "type"), cs = td_table_col(t, "share");
    int crep = td_table_col(t, "report"); /* several exports */
    if (ci < 0 || ct < 0 || cs < 0)
        return 0;
    /* the categories in table order (first IPU's rows), and the (export, IPU) bars: an
     * export's IPU n is bar key rep * 100000 + n */
    const char *cat[16];
    int ncat = 0;
    long long ipus[MAX_LANES + 1];
    int nipu = 0;
#define BAR_KEY(r) ((crep >= 0 ? td_table_cell(t, (r), crep)->i * 100000 : 0) + \
                    td_table_cell(t, (r), ci)->i)
    for (size_t r = 0; r < t->nrows; r++) {
        long long ipu = BAR_KEY(r);
        const char *ty = td_table_cell(t, r, ct)->s;
        int seen = 0;
        for (int k = 0; k < ncat; k++)
            seen |= ty && strcmp(cat[k], ty) == 0;
        if (!seen && ty && ncat < 16)
            cat[ncat++] = ty;
        if ((!nipu || ipus[nipu - 1] != ipu) && nipu < MAX_LANES + 1)
            ipus[nipu++] = ipu;
    }
    uint32_t col[16];
    for (int k = 0; k < ncat; k++)
        col[k] = kind_color(cat[k], NULL);
    double W = d->x1 - d->x0;
    pd_heading(d, title ? title : "IPU cycle proportions by step type",
               40 + 16.0 * nipu);
    for (int i = 0; i < nipu; i++) {
        double frac[16] = {0};
        for (size_t r = 0; r < t->nrows; r++) {
            if (BAR_KEY(r) != ipus[i])
                continue;
            const char *ty = td_table_cell(t, r, ct)->s;
            for (int k = 0; k < ncat; k++)
                if (ty && strcmp(cat[k], ty) == 0)
                    frac[k] = td_table_cell(t, r, cs)->f;
        }
        pd_need(d, 16);
        char lb[48], bal[160];
        int rep = crep >= 0 ? (int)((ipus[i] + 1) / 100000) : -1;
        long long ipu = crep >= 0 ? ipus[i] - (long long)rep * 100000 : ipus[i];
        char rp[16] = "";
        if (rep >= 0)
            snprintf(rp, sizeof rp, "R%d ", rep);
        if (ipu < 0)
            snprintf(lb, sizeof lb, "%sAll IPUs", rp);
        else
            snprintf(lb, sizeof lb, "%sIPU %lld", rp, ipu);
        balance_text(d->s, rep, ipu, bal, sizeof bal);
        pd_text(d, d->x0, d->y + 2, lb, ipu < 0 ? PF_BOLD : PF_SANS, 7.5, 55,
                PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
        double bw = W - 60 - 168;
        pd_seg_bar(d, d->x0 + 60, d->y, bw, 13, frac, col, ncat, 1);
        pd_text(d, d->x0 + 60 + bw + 5, d->y + 2.5, bal, PF_SANS, 6, 163, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_END, C_MUTED);
        d->y += 16;
    }
    d->y += 2;
    pd_legend(d, cat, col, ncat);
    pd_note(d, "Share of each IPU's step cycles by step type (Internal Sync = Sync + SyncAns; "
               "StreamCopy = Begin + Mid + End). Tile balance: mean over the non-sync steps of "
               "the share of tiles active; active: how evenly the active tiles share a step; "
               "utilisation: tile-cycles in OnTileExecute, DoExchange, GlobalExchange and "
               "StreamCopyMid over all tile-cycles (BSP data).");
    if (crep >= 0)
        pd_note(d, "Several IPU exports: RK is the K-th export given (0, 1, ...; "
                   "summary.json ipu.rK.input names it).");
#undef BAR_KEY
    return 1;
}

/* ---- timelines ---- */

static int is_lwp_lane(const char *lane)
{
    size_t n = lane ? strlen(lane) : 0;
    return lane && (strstr(lane, " tile ") || (n > 4 && strcmp(lane + n - 4, " I/O") == 0));
}

static void fmt_cycles(char *dst, size_t cap, double v)
{
    if (fabs(v) >= 1e9)
        snprintf(dst, cap, "%gG", v / 1e9);
    else if (fabs(v) >= 1e6)
        snprintf(dst, cap, "%gM", v / 1e6);
    else if (fabs(v) >= 1e3)
        snprintf(dst, cap, "%gk", v / 1e3);
    else
        snprintf(dst, cap, "%g", v);
}

/* One chart: the lanes of one group (lwp = 0 detailed, 1 LWP), rows in table order. */
static int timeline_chart(pdoc *d, const td_table *t, int lwp, const char *title)
{
    int cl = td_table_col(t, "lane"), ck = td_table_col(t, "kind"), cn = td_table_col(t, "name"),
        cf = td_table_col(t, "from_cycles"), ctc = td_table_col(t, "to_cycles");
    if (cl < 0 || ck < 0 || cf < 0 || ctc < 0)
        return 0;
    const char *lanes[MAX_LANES];
    int nl = 0, more = 0;
    double span = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *ln = td_table_cell(t, r, cl)->s;
        if (!ln || is_lwp_lane(ln) != lwp)
            continue;
        int k = nl - 1;
        while (k >= 0 && strcmp(lanes[k], ln) != 0)
            k--;
        if (k < 0) {
            if (nl < MAX_LANES)
                lanes[nl++] = ln;
            else
                more = 1;
        }
        double to = (double)td_table_cell(t, r, ctc)->i;
        if (to > span)
            span = to;
    }
    if (!nl || !(span > 0))
        return 0;
    const double lh = 13, gap = 3;
    double W = d->x1 - d->x0 - LABEL_W;
    pd_heading(d, title, 30 + (lh + gap) * (nl < 6 ? nl : 6));
    /* kinds present, for the legend */
    const char *leg[24];
    uint32_t legc[24];
    int nleg = 0;
    for (int li = 0; li < nl; li++) {
        pd_need(d, lh + gap);
        double y = d->y;
        pd_text(d, d->x0, y + 2, lanes[li], PF_SANS, 7, LABEL_W - 4, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
        pd_rgb(d, C_ZEBRA);
        cairo_rectangle(d->cr, d->x0 + LABEL_W, y, W, lh);
        cairo_fill(d->cr);
        for (size_t r = 0; r < t->nrows; r++) {
            const char *ln = td_table_cell(t, r, cl)->s;
            if (!ln || strcmp(ln, lanes[li]) != 0)
                continue;
            const char *kind = td_table_cell(t, r, ck)->s;
            const char *name = cn >= 0 ? td_table_cell(t, r, cn)->s : NULL;
            double x0 = (double)td_table_cell(t, r, cf)->i / span * W;
            double x1 = (double)td_table_cell(t, r, ctc)->i / span * W;
            if (x1 - x0 < 0.25)
                x1 = x0 + 0.25; /* every block stays visible */
            uint32_t c = kind_color(kind, name);
            pd_rgb(d, c);
            /* nested LWP blocks (a block inside another) are drawn thinner on top */
            double inset = 0;
            if (lwp && kind && strcmp(kind, "Common") == 0 && r > 0) {
                for (size_t q = r, lim = 64; q-- > 0 && lim--;) {
                    const char *lq = td_table_cell(t, q, cl)->s;
                    if (!lq || strcmp(lq, ln) != 0)
                        break;
                    if (td_table_cell(t, q, ctc)->i > td_table_cell(t, r, cf)->i &&
                        td_table_cell(t, q, cf)->i <= td_table_cell(t, r, cf)->i) {
                        inset = 3;
                        break;
                    }
                }
            }
            cairo_rectangle(d->cr, d->x0 + LABEL_W + x0, y + inset, x1 - x0, lh - 2 * inset);
            cairo_fill(d->cr);
            const char *lk = kind && strcmp(kind, "Common") == 0 && name ? name : kind;
            int seen = 0;
            for (int k = 0; k < nleg; k++)
                seen |= lk && strcmp(leg[k], lk) == 0;
            if (!seen && lk && nleg < 24) {
                leg[nleg] = lk;
                legc[nleg++] = c;
            }
        }
        d->y += lh + gap;
    }
    /* axis: cycles from the lanes' common origin */
    pd_need(d, 14);
    double step = span / 5, p = pow(10, floor(log10(step)));
    double m = step / p;
    step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
    pd_hline(d, d->x0 + LABEL_W, d->x1, d->y, 0.5, C_RULE);
    for (double v = 0; v <= span * 1.0001; v += step) {
        char lb[32];
        fmt_cycles(lb, sizeof lb, v);
        double x = d->x0 + LABEL_W + v / span * W;
        pd_hline(d, x, x, d->y, 0.5, C_RULE);
        pd_text(d, x - 30, d->y + 1.5, lb, PF_SANS, 6.5, 60, PANGO_ALIGN_CENTER,
                PANGO_ELLIPSIZE_NONE, C_MUTED);
    }
    d->y += 12;
    pd_legend(d, leg, legc, nleg);
    if (more)
        pd_note(d, "Only the first 40 lanes are drawn (every lane is in ipu_timeline.csv).");
    pd_note(d, lwp ? "Cycles relative to each IPU's first block (counters start at load). "
                     "One lane per selected tile; the StreamCopy blocks of the other tiles "
                     "are in the IPU's I/O lane. NoEnd: started before an overflow region and "
                     "ended inside it; Unknown: started inside one."
                   : "Each IPU's steps laid end to end (cycles), coloured by step type.");
    return 1;
}

int pd_ipu_timeline(pdoc *d, const char *title)
{
    const td_table *t = td_sum_find_table(d->s, "ipu_timeline");
    if (!t || !t->nrows)
        return 0;
    int a = timeline_chart(d, t, 0, title ? title : "IPU timeline (steps by type)");
    int b = timeline_chart(d, t, 1, title ? title : "Lightweight profiling blocks");
    return a || b;
}
