/* render/pdf/overview.c - the PDF's text sections: the header (title, inputs, facts),
 * findings, key figures (cards), compile, regression (without a changes table) and
 * warnings. They draw through render/pdf/page.c and render/pdf/table.c; the dispatcher
 * (render/pdf/pdf.c) calls them. */
#define _POSIX_C_SOURCE 200809L
#include "render/pdf/internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small formatting helpers ---- */

static void fmt_kv(const td_kv *kv, char *dst, size_t cap)
{
    td_col c = {kv->key, kv->title, kv->type};
    td_cell_format(&c, &kv->v, dst, cap);
}

/* ---- text sections ---- */

/* Length of the leading part of every input path up to a '/' or ':' (directory,
 * archive), when every row has a path and something is left after it. */
static size_t common_dir(const td_table *in, int cp)
{
    const char *p0 = td_table_cell(in, 0, cp)->s;
    if (!p0)
        return 0;
    size_t n = strlen(p0);
    for (size_t r = 1; r < in->nrows; r++) {
        const char *p = td_table_cell(in, r, cp)->s;
        if (!p)
            return 0;
        size_t k = 0;
        while (k < n && p[k] == p0[k])
            k++;
        n = k;
    }
    while (n > 0 && p0[n - 1] != '/' && p0[n - 1] != ':')
        n--;
    for (size_t r = 0; r < in->nrows; r++)
        if (!td_table_cell(in, r, cp)->s[n])
            return 0;
    return n;
}

int pd_header(pdoc *d, const td_template *t)
{
    pd_pending_break(d);
    const td_summary *s = d->s;
    double W = d->x1 - d->x0;
    /* at most two lines of title, ellipsized at the end (many inputs make long titles;
     * page 1 lists them all below) */
    /* a count stays with its noun ("8 ranks" is not split over two lines): the space
     * after a number that stands alone becomes a no-break space */
    td_buf tb = {0};
    for (const char *p = d->title; *p; p++) {
        const char *q = p;
        while (q > d->title && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (*p == ' ' && q < p && (q == d->title || q[-1] == ' '))
            td_buf_printf(&tb, "\xc2\xa0");
        else
            td_buf_printf(&tb, "%c", *p);
    }
    PangoLayout *tl = pd_layout(d, td_buf_cstr(&tb), PF_BOLD, 17, W, PANGO_ALIGN_LEFT,
                                PANGO_ELLIPSIZE_NONE);
    td_buf_free(&tb);
    pango_layout_set_height(tl, -2);
    pango_layout_set_ellipsize(tl, PANGO_ELLIPSIZE_END);
    int tw, th;
    pango_layout_get_size(tl, &tw, &th);
    pd_rgb(d, C_TEXT);
    cairo_move_to(d->cr, d->x0, d->y);
    pango_cairo_show_layout(d->cr, tl);
    g_object_unref(tl);
    d->y += (double)th / PANGO_SCALE;
    /* what the subtitle says ("tracedoc 0.1.0, 2026-11-23") is not repeated below */
    int has_date = 0, has_tool = 0;
    if (t && t->subtitle[0]) {
        char *sub = td_template_fill(t->subtitle, s);
        char tool[64];
        snprintf(tool, sizeof tool, "tracedoc %s", d->version);
        has_date = d->date[0] && strstr(sub, d->date) != NULL;
        has_tool = strstr(sub, tool) != NULL;
        d->y += 2;
        d->y += pd_text(d, d->x0, d->y, sub, PF_SANS, 9.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_MUTED);
        free(sub);
    }
    d->y += 10;

    /* facts line: label value pairs */
    char buf[512];
    struct { const char *label; char val[256]; } fact[8 + 16];
    int nf = 0;
    const td_kv *kv;
    if ((kv = td_sum_get(s, "trace.span_ns")) && kv->type == TD_T_NS && kv->v.i != TD_NA) {
        fact[nf].label = "Traced time";
        fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    /* one rank is 1 by construction: not a fact worth a column */
    if ((kv = td_sum_get(s, "trace.ranks")) && kv->v.i != TD_NA && kv->v.i > 1) {
        fact[nf].label = "Ranks";
        fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    const td_kv *dn = td_sum_get(s, "trace.device_name");
    if ((kv = td_sum_get(s, "trace.devices")) && kv->v.i != TD_NA) {
        fact[nf].label = "Devices";
        if (dn && dn->type == TD_T_TEXT && dn->v.s && dn->v.s[0] && kv->v.i <= 0)
            snprintf(fact[nf++].val, sizeof fact[0].val, "%s", dn->v.s);
        else if (dn && dn->type == TD_T_TEXT && dn->v.s && dn->v.s[0])
            snprintf(fact[nf++].val, sizeof fact[0].val, "%lld \xc3\x97 %s",
                     (long long)kv->v.i, dn->v.s);
        else if (kv->v.i == 0)
            snprintf(fact[nf++].val, sizeof fact[0].val, "none (CPU only)");
        else
            fmt_kv(kv, fact[nf++].val, sizeof fact[0].val);
    }
    if (!d->brief && !has_tool) {
        fact[nf].label = "Tool";
        snprintf(fact[nf++].val, sizeof fact[0].val, "tracedoc %s", d->version);
    }
    if (!has_date) {
        fact[nf].label = "Date";
        snprintf(fact[nf++].val, sizeof fact[0].val, "%s", d->date);
    }
    /* when the trace was captured, and the run metadata (--meta), after the fixed facts */
    if ((kv = td_sum_get(s, "trace.captured")) && kv->type == TD_T_TEXT && kv->v.s) {
        fact[nf].label = "Captured";
        snprintf(fact[nf++].val, sizeof fact[0].val, "%s", kv->v.s);
    }
    /* generated data says so on page 1 (e.g. ipu.synthetic of tools/gen_ipu.py) */
    for (size_t i = 0; i < s->nkv; i++) {
        size_t kl = strlen(s->kv[i].key);
        if (kl > 10 && !strcmp(s->kv[i].key + kl - 10, ".synthetic") &&
            s->kv[i].type == TD_T_TEXT && s->kv[i].v.s) {
            fact[nf].label = "Data";
            snprintf(fact[nf++].val, sizeof fact[0].val, "SYNTHETIC (generated, not measured)");
            break;
        }
    }
    for (size_t i = 0; i < s->nkv && nf < (int)(sizeof fact / sizeof fact[0]); i++)
        if (strncmp(s->kv[i].key, "meta.", 5) == 0 && s->kv[i].type == TD_T_TEXT) {
            fact[nf].label = s->kv[i].title;
            snprintf(fact[nf++].val, sizeof fact[0].val, "%s", s->kv[i].v.s ? s->kv[i].v.s : "");
        }
    double x = d->x0, rowh = 0;
    for (int i = 0; i < nf; i++) {
        double wl = pd_text_w(d, fact[i].label, PF_SANS, 7);
        double wv = pd_text_w(d, fact[i].val, PF_BOLD, 8.5);
        double wi = (wl > wv ? wl : wv) + 18;
        if (x > d->x0 && x + wi > d->x1) {
            x = d->x0;
            d->y += rowh + 4;
        }
        pd_text(d, x, d->y, fact[i].label, PF_SANS, 7, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_MUTED);
        double h = pd_text(d, x, d->y + 9, fact[i].val, PF_BOLD, 8.5, d->x1 - x,
                           PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_END, C_TEXT);
        rowh = 9 + h;
        x += wi;
    }
    d->y += rowh + 10;
    /* a device count the input could not state (an nsys-jax archive without thread
     * metadata): the reason where the figure is, not pages later */
    if ((kv = td_sum_get(s, "trace.devices_note")) && kv->type == TD_T_TEXT && kv->v.s &&
        kv->v.s[0]) {
        snprintf(buf, sizeof buf, "Devices: %s.", kv->v.s);
        d->y -= 6;
        d->y += pd_text(d, d->x0, d->y, buf, PF_SANS, 7.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_MUTED) + 8;
    }

    /* inputs: one line each with path and facts, the SHA-256 below in mono */
    /* brief: the run's name in the title says what was read; paths and hashes are in
     * the workbook and summary.json */
    const td_table *in = d->brief ? NULL : td_sum_find_table(s, "inputs");
    if (in && in->nrows) {
        int cp = td_table_col(in, "path"), cf = td_table_col(in, "format");
        int cb = td_table_col(in, "bytes"), ch = td_table_col(in, "sha256");
        int ce = td_table_col(in, "events"), cr = td_table_col(in, "rank");
        int cw = td_table_col(in, "world_size"), cd = td_table_col(in, "device_name");
        pd_text(d, d->x0, d->y, in->nrows == 1 ? "Input" : "Inputs", PF_BOLD, 8, 0,
                PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
        d->y += 13;
        size_t shown = in->nrows > 8 ? 6 : in->nrows;
        /* several inputs: the part of the paths they share (directory, archive) is
         * said once, so that each line keeps what distinguishes it (worker3_...) */
        size_t common = in->nrows > 1 && cp >= 0 ? common_dir(in, cp) : 0;
        /* more than four inputs: one line each (path, rank, SHA-256 as sha256sum prints
         * it) and what they share on one line below, so that page 1 keeps room */
        int compact = in->nrows > 4;
        d->inputs_listed = !compact; /* each with every fact the inputs table has */
        if (common) {
            snprintf(buf, sizeof buf, "in %.*s", (int)common, td_table_cell(in, 0, cp)->s);
            pd_text(d, d->x0, d->y, buf, PF_SANS, 7.5, W, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_MIDDLE, C_MUTED);
            d->y += 11;
        }
        for (size_t r = 0; compact && r < shown; r++) {
            const char *path = cp >= 0 && td_table_cell(in, r, cp)->s
                                   ? td_table_cell(in, r, cp)->s + common : "";
            const char *sha = ch >= 0 ? td_table_cell(in, r, ch)->s : NULL;
            char rk[48] = "";
            if (cr >= 0 && td_table_cell(in, r, cr)->i != TD_NA)
                snprintf(rk, sizeof rk, "rank %lld", (long long)td_table_cell(in, r, cr)->i);
            pd_need(d, 11);
            double wsha = sha && sha[0] ? pd_text_w(d, sha, PF_MONO, 6) : 0;
            double wrk = 46;
            pd_text(d, d->x0, d->y, path, PF_SANS, 7.5, W - wsha - wrk - 16, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
            pd_text(d, d->x1 - wsha - wrk - 6, d->y + 0.5, rk, PF_SANS, 7, wrk,
                    PANGO_ALIGN_RIGHT, PANGO_ELLIPSIZE_END, C_MUTED);
            if (wsha > 0)
                pd_text(d, d->x1 - wsha, d->y + 1.2, sha, PF_MONO, 6, 0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_LIGHT);
            d->y += 10.5;
        }
        if (compact) {
            /* shared facts: format and device when the same for all, sums of sizes and
             * events, the world size */
            td_buf b = {0};
            char v[128];
            int64_t bytes = 0, events = 0;
            const char *fmt0 = NULL, *dev0 = NULL;
            int fsame = 1, dsame = 1;
            int64_t world = TD_NA;
            for (size_t r = 0; r < in->nrows; r++) {
                if (cb >= 0 && td_table_cell(in, r, cb)->i != TD_NA)
                    bytes += td_table_cell(in, r, cb)->i;
                if (ce >= 0 && td_table_cell(in, r, ce)->i != TD_NA)
                    events += td_table_cell(in, r, ce)->i;
                const char *f = cf >= 0 ? td_table_cell(in, r, cf)->s : NULL;
                const char *dv = cd >= 0 ? td_table_cell(in, r, cd)->s : NULL;
                if (r == 0) {
                    fmt0 = f;
                    dev0 = dv;
                }
                fsame &= (f && fmt0 && !strcmp(f, fmt0));
                dsame &= (dv && dev0 && !strcmp(dv, dev0));
                if (cw >= 0 && td_table_cell(in, r, cw)->i != TD_NA)
                    world = td_table_cell(in, r, cw)->i;
            }
            td_buf_printf(&b, "%zu inputs", in->nrows);
            if (fsame && fmt0 && fmt0[0])
                td_buf_printf(&b, ", all %s", fmt0);
            if (cb >= 0) {
                td_cell c = {.i = bytes};
                td_cell_format(&in->cols[cb], &c, v, sizeof v);
                td_buf_printf(&b, "   %s in all", v);
            }
            if (ce >= 0) {
                td_cell c = {.i = events};
                td_cell_format(&in->cols[ce], &c, v, sizeof v);
                td_buf_printf(&b, "   %s events", v);
            }
            if (world != TD_NA)
                td_buf_printf(&b, "   world size %lld", (long long)world);
            if (dsame && dev0 && dev0[0])
                td_buf_printf(&b, "   %s", dev0);
            pd_text(d, d->x0, d->y + 1, td_buf_cstr(&b), PF_SANS, 7.5, W, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            d->y += 13;
            td_buf_free(&b);
        }
        for (size_t r = 0; !compact && r < shown; r++) {
            td_buf b = {0};
            char v[128];
#define INFO(col, fmt)                                                             \
    if ((col) >= 0) {                                                              \
        td_cell_format(&in->cols[col], td_table_cell(in, r, col), v, sizeof v);    \
        if (v[0])                                                                  \
            td_buf_printf(&b, "%s" fmt, b.n ? "   " : "", v);                      \
    }
            INFO(cf, "%s");
            INFO(cb, "%s");
            INFO(ce, "%s events");
            if (cr >= 0 && td_table_cell(in, r, cr)->i != TD_NA) {
                if (cw >= 0 && td_table_cell(in, r, cw)->i != TD_NA)
                    td_buf_printf(&b, "%srank %lld of %lld", b.n ? "   " : "",
                                  (long long)td_table_cell(in, r, cr)->i,
                                  (long long)td_table_cell(in, r, cw)->i);
                else
                    td_buf_printf(&b, "%srank %lld", b.n ? "   " : "",
                                  (long long)td_table_cell(in, r, cr)->i);
            }
            INFO(cd, "%s");
#undef INFO
            const char *info = td_buf_cstr(&b);
            const char *path = cp >= 0 && td_table_cell(in, r, cp)->s
                                   ? td_table_cell(in, r, cp)->s + common : "";
            pd_need(d, 22);
            double wi = pd_text_w(d, info, PF_SANS, 7.5);
            if (wi > W * 0.62)
                wi = W * 0.62;
            /* a path too long for the line loses part of its directory, never of
             * its file name ("/work/shared/tr…/nsys/pipit_saxpy_mpi_cuda_a100.sqlite") */
            double room = W - wi - 12;
            const char *base = strrchr(path, '/');
            double wb = base ? pd_text_w(d, base, PF_SANS, 8) : 0;
            if (base && base > path && pd_text_w(d, path, PF_SANS, 8) > room &&
                wb + 24 < room) {
                char dir[1024];
                snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
                PangoLayout *dl = pd_layout(d, dir, PF_SANS, 8, room - wb, PANGO_ALIGN_LEFT,
                                            PANGO_ELLIPSIZE_MIDDLE);
                int dw, dh;
                pango_layout_get_size(dl, &dw, &dh);
                g_object_unref(dl);
                pd_text(d, d->x0, d->y, dir, PF_SANS, 8, room - wb, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
                pd_text(d, d->x0 + (double)dw / PANGO_SCALE, d->y, base, PF_SANS, 8, 0,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT);
            } else
                pd_text(d, d->x0, d->y, path, PF_SANS, 8, room, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_MIDDLE, C_TEXT);
            pd_text(d, d->x1 - wi, d->y + 0.5, info, PF_SANS, 7.5, wi, PANGO_ALIGN_RIGHT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            d->y += 11;
            const char *sha = ch >= 0 ? td_table_cell(in, r, ch)->s : NULL;
            if (sha && sha[0]) {
                snprintf(buf, sizeof buf, "sha256 %s", sha);
                pd_text(d, d->x0, d->y, buf, PF_MONO, 6.5, W, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_END, C_LIGHT);
                d->y += 9;
            }
            d->y += 3;
            td_buf_free(&b);
        }
        if (shown < in->nrows) {
            snprintf(buf, sizeof buf, "and %zu more inputs (all listed in the workbook and "
                     "summary.json)", in->nrows - shown);
            pd_note(d, buf);
        }
    }
    return 1;
}

int pd_findings(pdoc *d, const char *title)
{
    const td_summary *s = d->s;
    if (!s->nfindings)
        return 0;
    double W = d->x1 - d->x0;
    pd_heading(d, title ? title : "Findings", 14);
    for (size_t i = 0; i < s->nfindings; i++) {
        double h = pd_text_h(d, s->findings[i], PF_SANS, 9, W - 14);
        pd_need(d, h + 3);
        pd_rgb(d, C_ACCENT);
        cairo_new_path(d->cr);
        cairo_arc(d->cr, d->x0 + 4, d->y + 6.2, 1.7, 0, 2 * G_PI);
        cairo_fill(d->cr);
        d->y += pd_text(d, d->x0 + 14, d->y, s->findings[i], PF_SANS, 9, W - 14,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT) + 3;
    }
    return 1;
}

typedef struct card {
    const char *label;
    char val[128];
    char sub[128];
} card;

/* cards: four a row, 8 points apart */
static double card_w(const pdoc *d)
{
    return (d->x1 - d->x0 - 8 * 3) / 4;
}

/* tail: the height of the notes drawn under the cards, kept with the last row */
static void draw_cards(pdoc *d, const card *c, int n, double tail)
{
    double gap = 8;
    int per = 4;
    double cw = card_w(d), chh = 40;
    for (int i = 0; i < n; i += per) {
        pd_need(d, chh + gap + (i + per >= n ? tail : 0));
        for (int k = 0; k < per && i + k < n; k++) {
            const card *q = &c[i + k];
            double x = d->x0 + k * (cw + gap);
            pd_rgb(d, C_ZEBRA);
            cairo_rectangle(d->cr, x, d->y, cw, chh);
            cairo_fill(d->cr);
            pd_rgb(d, C_ACCENT);
            cairo_rectangle(d->cr, x, d->y, 2, chh);
            cairo_fill(d->cr);
            pd_text(d, x + 8, d->y + 5, q->label, PF_SANS, 7, cw - 12, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_MUTED);
            pd_text(d, x + 8, d->y + 14, q->val, PF_BOLD, 11.5, cw - 12, PANGO_ALIGN_LEFT,
                    PANGO_ELLIPSIZE_END, C_TEXT);
            if (q->sub[0])
                pd_text(d, x + 8, d->y + 29, q->sub, PF_SANS, 6.5, cw - 12, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_END, C_MUTED);
        }
        d->y += chh + gap;
    }
}

/* LLM serving traces (summary serving.*, graph_time.*): per phase the median step, tokens
 * per second, MFU beside the peak used, what bounds it; the device time of graph replays
 * left without op. Cards appended to c from *n; slab: their label texts. */
static void serving_cards(const td_summary *s, card *c, int *n, int max, char slab[][80])
{
    static const char *const ph[] = {"decode", "prefill", "mixed"};
    const td_kv *pk = td_sum_get(s, "serving.peak_tflops");
    char key[80];
    for (int p = 0; p < 3 && *n + 3 <= max; p++) {
#define KV(k) (snprintf(key, sizeof key, "serving.%s.%s", ph[p], k), td_sum_get(s, key))
        const td_kv *med = KV("step_median_ns"), *nst = KV("steps"), *tps = KV("tokens_per_s");
        const td_kv *mfu = KV("mfu"), *nofl = KV("no_flop_model_share"), *bnd = KV("bound");
        const td_kv *dsh = KV("device_share"), *gap = KV("between_steps_ns");
#undef KV
        if (!med || med->type != TD_T_NS)
            continue;
        card *x = &c[(*n)++];
        snprintf(slab[*n - 1], 80, "%c%s step (median)", ph[p][0] - 32, ph[p] + 1);
        x->label = slab[*n - 1];
        fmt_kv(med, x->val, sizeof x->val);
        snprintf(x->sub, sizeof x->sub, "%lld steady step%s", nst ? (long long)nst->v.i : 0LL,
                 nst && nst->v.i == 1 ? "" : "s");
        if (tps && tps->type == TD_T_F64)
            snprintf(x->sub + strlen(x->sub), sizeof x->sub - strlen(x->sub), ", %.4g tokens/s",
                     tps->v.f);
        if (mfu && mfu->type == TD_T_SHARE && pk) {
            x = &c[(*n)++];
            snprintf(slab[*n - 1], 80, "MFU, %s", ph[p]);
            x->label = slab[*n - 1];
            snprintf(x->val, sizeof x->val, "%.3g%%", 100.0 * mfu->v.f);
            snprintf(x->sub, sizeof x->sub, "of %.4g TFLOP/s dense peak", pk->v.f);
            if (nofl && nofl->type == TD_T_SHARE)
                snprintf(x->sub + strlen(x->sub), sizeof x->sub - strlen(x->sub),
                         "; %.0f%% of device time has no FLOP model", 100.0 * nofl->v.f);
        }
        if (bnd && bnd->type == TD_T_TEXT && bnd->v.s) {
            x = &c[(*n)++];
            snprintf(slab[*n - 1], 80, "%c%s bound by", ph[p][0] - 32, ph[p] + 1);
            x->label = slab[*n - 1];
            snprintf(x->val, sizeof x->val, "%s", bnd->v.s);
            x->sub[0] = 0;
            if (dsh && dsh->type == TD_T_SHARE)
                snprintf(x->sub, sizeof x->sub, "device busy %.1f%% of the step", 100.0 * dsh->v.f);
            if (gap && gap->type == TD_T_NS && gap->v.i != TD_NA) {
                char g[48];
                fmt_kv(gap, g, sizeof g);
                snprintf(x->sub + strlen(x->sub), sizeof x->sub - strlen(x->sub),
                         "; %s host time between steps", g);
            }
        }
    }
}

/* The device time CUDA/HIP graph replays ran without an op (no or unmatched capture). */
static void graph_card(const td_summary *s, card *c, int *n)
{
    const td_kv *un = td_sum_get(s, "graph_time.unattributed_share");
    const td_kv *src = td_sum_get(s, "graphs.source");
    if (un && un->type == TD_T_SHARE && un->v.f > 0) {
        card *x = &c[(*n)++];
        x->label = "Graph time without op";
        snprintf(x->val, sizeof x->val, "%.1f%%", 100.0 * un->v.f);
        snprintf(x->sub, sizeof x->sub, "of device time; %s",
                 src && src->v.s && !strcmp(src->v.s, "none") ? "no capture traces"
                                                             : "capture not matched");
    }
}

int pd_keyfigures(pdoc *d, const char *title)
{
    char busy[48], idle[48]; /* card labels, used until the cards are drawn */
    char lab[24][80];        /* labels without their bracketed part */
    const td_summary *s = d->s;
    card c[24];
    int n = 0;
    serving_cards(s, c, &n, 8, lab);
    /* page 1 answers "how long per step, and where does it go": the step time of the
     * steady steps first, then the device breakdown, then the traced time */
    const td_kv *med = td_sum_get(s, "step_time.median_ns");
    const td_kv *p90 = td_sum_get(s, "step_time.p90_ns");
    const td_kv *nst = td_sum_get(s, "step_time.steps");
    if (med && med->type == TD_T_NS && med->v.i != TD_NA) {
        c[n].label = "Step time (median)";
        fmt_kv(med, c[n].val, sizeof c[n].val);
        c[n].sub[0] = 0;
        /* one count, one meaning: with several ranks, per rank (as "Steps: 1 step
         * recorded per rank" below says) and how many ranks */
        const td_kv *nrk = td_sum_get(s, "step_time.ranks");
        const td_kv *per = td_sum_get(s, "step_time.steps_per_rank");
        if (nst && nst->v.i != TD_NA && nrk && nrk->v.i > 1 && per && per->v.i > 0)
            snprintf(c[n].sub, sizeof c[n].sub, "%lld ranks \xc3\x97 %lld steady step%s",
                     (long long)nrk->v.i, (long long)per->v.i, per->v.i == 1 ? "" : "s");
        else if (nst && nst->v.i != TD_NA && nrk && nrk->v.i > 1)
            snprintf(c[n].sub, sizeof c[n].sub, "%lld steady steps, %lld ranks",
                     (long long)nst->v.i, (long long)nrk->v.i);
        else if (nst && nst->v.i != TD_NA)
            snprintf(c[n].sub, sizeof c[n].sub, "of %lld steady step%s", (long long)nst->v.i,
                     nst->v.i == 1 ? "" : "s");
        n++;
        if (p90 && p90->type == TD_T_NS && p90->v.i != TD_NA && nst && nst->v.i > 1) {
            c[n].label = "Step time (p90)";
            fmt_kv(p90, c[n].val, sizeof c[n].val);
            snprintf(c[n++].sub, sizeof c[0].sub, "90%% of steps at or below");
        }
    }
    /* where the step goes: the device's busy time in a step, then the device timeline */
    const td_kv *sb = td_sum_get(s, "step_time.device_busy_ns");
    const td_kv *ss = td_sum_get(s, "step_time.device_busy_share");
    if (med && sb && sb->type == TD_T_NS && sb->v.i != TD_NA) {
        snprintf(busy, sizeof busy, "%s busy per step", td_sum_device_word(s));
        c[n].label = busy;
        fmt_kv(sb, c[n].val, sizeof c[n].val);
        c[n].sub[0] = 0;
        if (ss && ss->type == TD_T_SHARE && isfinite(ss->v.f))
            snprintf(c[n].sub, sizeof c[n].sub, "median, %.1f%% of step time", 100.0 * ss->v.f);
        n++;
    }
    graph_card(s, c, &n);
    size_t row;
    const td_table *tl = pd_timeline_all(s, &row);
    if (tl) {
        int64_t tot = td_table_cell(tl, row, td_table_col(tl, "total_ns"))->i;
        const char *dw = td_sum_device_word(s);
        snprintf(idle, sizeof idle, "%s idle", dw);
        /* the breakdown of device time: computation, communication and copies not
         * hidden under computation, idle; a part that is 0 says nothing and is left out */
        const struct { const char *key, *label; } g[] = {
            {"computation_ns", "Compute"}, {"sync_ns", "Sync wait"},
            {"exposed_comm_ns", "Exposed communication"},
            {"exposed_memcpy_ns", "Exposed memcpy"}, {"idle_ns", idle}};
        /* with several ranks the row is the first rank's: say so */
        int crank = td_table_col(tl, "rank"), cdev = td_table_col(tl, "device");
        size_t nall = 0;
        for (size_t r = 0; r < tl->nrows; r++)
            if (td_table_cell(tl, r, cdev)->i == -1)
                nall++;
        char who[64] = "of device timeline";
        if (nall > 1 && crank >= 0 && td_table_cell(tl, row, crank)->i != TD_NA)
            snprintf(who, sizeof who, "of rank %lld's timeline",
                     (long long)td_table_cell(tl, row, crank)->i);
        else if (nall > 1 && crank >= 0)
            /* the job-wide row: times summed over ranks, not wall time */
            snprintf(who, sizeof who, "of all ranks' timelines");
        for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
            int ci = td_table_col(tl, g[k].key);
            if (ci < 0 || td_table_cell(tl, row, ci)->i == TD_NA)
                continue;
            int64_t v = td_table_cell(tl, row, ci)->i;
            if (v == 0)
                continue;
            c[n].label = g[k].label;
            td_fmt_ns(c[n].val, sizeof c[n].val, v);
            snprintf(c[n++].sub, sizeof c[0].sub, "%.1f%% %s", 100.0 * (double)v / (double)tot,
                     who);
        }
    }
    const td_kv *span = td_sum_get(s, "trace.span_ns");
    if (span && span->type == TD_T_NS && span->v.i != TD_NA) {
        c[n].label = span->title ? span->title : "Traced time";
        fmt_kv(span, c[n].val, sizeof c[n].val);
        c[n++].sub[0] = 0;
    }
    static const char *keys[] = {"xla.step_ns", "runtime.wall_ns", "runtime.modules_ns", "runtime.thunks_ns",
                                 "compile.total_ns", "aiu.active_share", "comm.host_ns",
                                 "trace.ranks", "trace.devices",
                                 "warmup.dropped", "module_cut.dropped_modules",
                                 "ipu.all.tile_balance", "ipu.all.active_tile_balance",
                                 "lwp.blocks", "lwp.not_recorded", "samba.host_ns",
                                 "samba.host_share", "samba.tflop_util", NULL};
    for (const char **k = keys; *k && n < (int)(sizeof c / sizeof c[0]); k++) {
        const td_kv *kv = td_sum_get(s, *k);
        if (!kv || kv->type == TD_T_TEXT || (kv->type != TD_T_F64 && kv->v.i == TD_NA))
            continue;
        if (kv->type == TD_T_NS && kv->v.i == 0)
            continue; /* e.g. module/thunk times of a trace without XLA modules */
        if (!strcmp(*k, "trace.devices") && kv->v.i <= 1)
            continue; /* a CPU-only or one-device trace: the header says so */
        if (!strcmp(*k, "trace.ranks") && kv->v.i <= 1)
            continue; /* one rank: 1 by construction */
        if (!strcmp(*k, "warmup.dropped") && kv->v.i == 0)
            continue; /* nothing dropped: the note under the cards says the rule */
        if (!strcmp(*k, "warmup.dropped") && kv->v.i == 0 && !td_sum_find_table(s, "steps") &&
            !td_sum_find_table(s, "modules"))
            continue; /* nothing the warm-up rule could drop (AIU, IPU, stack tracing) */
        if (d->brief && (!strcmp(*k, "warmup.dropped") ||
                         !strcmp(*k, "module_cut.dropped_modules")))
            continue; /* rules, not results: the one-page summary leaves them out */
        if (!strcmp(*k, "module_cut.dropped_modules") && kv->v.i == 0)
            continue; /* no module below the cut-off: the note under the cards says the rule */
        c[n].label = kv->title ? kv->title : kv->key;
        fmt_kv(kv, c[n].val, sizeof c[n].val);
        c[n].sub[0] = 0;
        /* "AIU kernels active (share of the kernel span)": the words in brackets under
         * the value, so that the card's label is not cut */
        const char *br = kv->title ? strstr(kv->title, " (") : NULL;
        size_t tlen = kv->title ? strlen(kv->title) : 0;
        if (br && kv->title[tlen - 1] == ')') {
            snprintf(lab[n], sizeof lab[n], "%.*s", (int)(br - kv->title), kv->title);
            c[n].label = lab[n];
            snprintf(c[n].sub, sizeof c[n].sub, "%.*s", (int)(tlen - (size_t)(br - kv->title) - 3),
                     br + 2);
        }
        if (strcmp(*k, "runtime.thunks_ns") == 0) {
            /* async collectives overlap other thunks: the plain sum can exceed the
             * module time */
            const td_kv *mk = td_sum_get(s, "runtime.modules_ns");
            if (mk && mk->v.i != TD_NA && kv->v.i > mk->v.i)
                snprintf(c[n].sub, sizeof c[n].sub, "overlaps counted twice");
        }
        if (strcmp(*k, "module_cut.dropped_modules") == 0) {
            const td_kv *dn = td_sum_get(s, "module_cut.dropped_ns");
            if (dn && dn->v.i != TD_NA) {
                char t[64];
                fmt_kv(dn, t, sizeof t);
                snprintf(c[n].sub, sizeof c[n].sub, "%s left out", t);
            }
        }
        n++;
    }
    /* a label wider than its card ("Host time in MPI/UCX/NCCL ranges"): the words that
     * do not fit go under the value when nothing else is there */
    double cwid = card_w(d) - 12;
    for (int i = 0; i < n; i++) {
        if (c[i].sub[0] || pd_text_w(d, c[i].label, PF_SANS, 7) <= cwid)
            continue;
        const char *l = c[i].label;
        size_t cut_at = 0;
        for (size_t p = 1; l[p]; p++)
            if (l[p] == ' ') {
                char t[80];
                snprintf(t, sizeof t, "%.*s", (int)p, l);
                if (pd_text_w(d, t, PF_SANS, 7) > cwid)
                    break;
                cut_at = p;
            }
        if (!cut_at)
            continue;
        snprintf(c[i].sub, sizeof c[i].sub, "%s", l + cut_at + 1);
        snprintf(lab[i], sizeof lab[i], "%.*s", (int)cut_at, l);
        c[i].label = lab[i];
    }
    const td_kv *rule = td_sum_get(s, "warmup.rule");
    const td_kv *cut = td_sum_get(s, "module_cut.threshold");
    if (!n && !(rule && rule->v.s && rule->v.s[0]))
        return 0;
    char n1[1024] = "", n2[256] = "", n3[512] = "", n4[512] = "";
    /* a step cut short by the trace's ends is not in the step time: said, even brief */
    const td_kv *cutn = td_sum_get(s, "step_time.cut_note");
    if (cutn && cutn->type == TD_T_TEXT && cutn->v.s && med)
        snprintf(n4, sizeof n4, "%s", cutn->v.s);
    /* what the idle time is (HTA's causes over every stream's idle time) */
    const td_kv *ih = td_sum_get(s, "idle.host_wait_share");
    const td_kv *ik = td_sum_get(s, "idle.kernel_wait_share");
    const td_kv *io = td_sum_get(s, "idle.other_share");
    if (ih && ik && io && ih->type == TD_T_SHARE && isfinite(ih->v.f) && isfinite(ik->v.f) &&
        isfinite(io->v.f))
        snprintf(n3, sizeof n3, "What the %s idle time is: %.0f%% waiting for the CPU to "
                 "launch work, %.0f%% short gaps between back-to-back kernels (under 30 "
                 "\xc2\xb5s), %.0f%% other (no work queued; HTA's causes, over every stream's "
                 "idle time).", td_sum_device_word(s), 100.0 * ih->v.f, 100.0 * ik->v.f,
                 100.0 * io->v.f);
    if (rule && rule->type == TD_T_TEXT && rule->v.s && rule->v.s[0] && !d->brief) {
        /* the schedule sentence when steps are missing (a schedule, or a late start) */
        const td_kv *miss = td_sum_get(s, "schedule.missing_steps");
        const td_kv *sch = td_sum_get(s, "schedule.steps");
        /* the sentence is of the first rank with steps: with several ranks, say whose */
        const td_kv *nrk = td_sum_get(s, "step_time.ranks");
        const td_kv *per = td_sum_get(s, "step_time.steps_per_rank");
        const char *whose = !(nrk && nrk->v.i > 1) ? "Steps"
                            : per                  ? "Steps of each rank"
                                                   : "Steps of the first rank";
        if (miss && miss->v.i > 0 && sch && sch->type == TD_T_TEXT && sch->v.s)
            snprintf(n1, sizeof n1, "%s: %s Warm-up: %s", whose, sch->v.s, rule->v.s);
        else
            snprintf(n1, sizeof n1, "Warm-up: %s", rule->v.s);
    }
    if (cut && cut->type == TD_T_F64 && !d->brief)
        snprintf(n2, sizeof n2, "Modules below %.2g%% of device time are left out of the "
                 "module tables.", cut->v.f * 100.0);
    double W = d->x1 - d->x0;
    double tail = (n4[0] ? pd_text_h(d, n4, PF_SANS, 7, W) : 0) +
                  (n1[0] ? pd_text_h(d, n1, PF_SANS, 7, W) : 0) +
                  (n2[0] ? pd_text_h(d, n2, PF_SANS, 7, W) : 0) +
                  (n3[0] ? pd_text_h(d, n3, PF_SANS, 7, W) : 0);
    pd_heading(d, title ? title : "Key figures", 48 + (n <= 4 ? tail : 0));
    draw_cards(d, c, n, tail);
    if (n4[0])
        pd_note(d, n4);
    if (n3[0])
        pd_note(d, n3);
    if (n1[0])
        pd_note(d, n1);
    if (n2[0])
        pd_note(d, n2);
    return 1;
}

int pd_compile(pdoc *d, const td_section *sec)
{
    const td_kv *tot = td_sum_get(d->s, "compile.total_ns");
    const td_table *ph = td_sum_find_table(d->s, "compile.phases");
    int have_tot = tot && tot->v.i != TD_NA && tot->v.i > 0;
    if (!have_tot && !(ph && ph->nrows))
        return 0;
    pd_heading(d, sec->title[0] ? sec->title : "Compilation", 40);
    if (have_tot) {
        char v[64], buf[160];
        fmt_kv(tot, v, sizeof v);
        snprintf(buf, sizeof buf, "Total compile time: %s", v);
        d->y += pd_text(d, d->x0, d->y, buf, PF_SANS, 9, 0, PANGO_ALIGN_LEFT,
                        PANGO_ELLIPSIZE_NONE, C_TEXT) + 6;
    }
    if (ph && ph->nrows)
        pd_table(d, ph, sec->top ? sec->top : 15, NULL);
    return 1;
}

int pd_warnings(pdoc *d, const char *title)
{
    const td_summary *s = d->s;
    if (!s->nwarnings)
        return 0;
    double W = d->x1 - d->x0;
    pd_heading(d, title ? title : "Warnings", 12);
    size_t shown = s->nwarnings > 20 ? 20 : s->nwarnings;
    for (size_t i = 0; i < shown; i++) {
        double h = pd_text_h(d, s->warnings[i], PF_SANS, 7.5, W - 12);
        pd_need(d, h + 2);
        pd_text(d, d->x0, d->y, "\xe2\x80\x93", PF_SANS, 7.5, 0, PANGO_ALIGN_LEFT,
                PANGO_ELLIPSIZE_NONE, C_COMM);
        d->y += pd_text(d, d->x0 + 12, d->y, s->warnings[i], PF_SANS, 7.5, W - 12,
                        PANGO_ALIGN_LEFT, PANGO_ELLIPSIZE_NONE, C_TEXT) + 2;
    }
    if (shown < s->nwarnings) {
        char buf[128];
        snprintf(buf, sizeof buf, "and %zu more warnings (all in summary.json)",
                 s->nwarnings - shown);
        pd_note(d, buf);
    }
    return 1;
}
