/* analyse/samba.c - the SambaTune stack-tracing views (formats.md sec. 7) from the
 * hypersections, schedule and host breakdown read by read/samba.c:
 *
 * - `hypersections`: one row per hypersection with every layer's fields; calls = its
 *   section calls in the schedule; time of a call = measured latency (layer 4), else the
 *   estimate (layer 1); total_ns = calls x that; share of the model run (all calls);
 *   est_error = (measured - estimated) / estimated; achieved TFLOP/s = TFLOP / measured
 *   seconds;
 * - `hyperfunctions`: name, calls, total_ns, share (of the model run), hypersections;
 * - `host_breakdown`: the host categories and one device row (the model run), shares of
 *   their sum; samba.* scalars;
 * - the `sections` flamegraph model;hyperfunction;hypersection valued by total time;
 * - findings: far above the estimate, low TFLOP utilisation, host-bound, missing layers. */
#include "analyse/analyse.h"
#include "read/samba.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAR_ABOVE 1.5      /* measured > 1.5 x estimated: "far above the estimate" */
#define LOW_UTIL 0.30      /* time-weighted TFLOP utilisation below this is low */
#define NO_HF "(no hyperfunction: layer 1 missing)"

typedef struct hfrow {
    const char *name;
    int64_t calls, total, nhs;
} hfrow;

static int cmp_hf(const void *x, const void *y)
{
    const hfrow *a = x, *b = y;
    if (a->total != b->total)
        return a->total < b->total ? 1 : -1;
    return strcmp(a->name, b->name);
}

static double nz(double v)
{
    return isfinite(v) ? v : NAN;
}

static void missing_note(td_summary *s, unsigned layers)
{
    td_buf b = {0};
    if (!(layers & TD_SAMBA_L1))
        td_buf_puts(&b, "Layer 1 is missing: no hyperfunctions, TFLOP, estimated PMUs/PCUs or "
                        "estimated latency. ");
    if (!(layers & TD_SAMBA_L2))
        td_buf_puts(&b, "Layer 2 id map is missing: no global ids or IR. ");
    if (!(layers & TD_SAMBA_SCHED))
        td_buf_puts(&b, "The schedule (layer 2) is missing: no section calls, so no timeline "
                        "and no call counts or times. ");
    if (!(layers & TD_SAMBA_L3))
        td_buf_puts(&b, "Layer 3 is missing: no final PMUs/PCUs or min/max latency. ");
    if (!(layers & TD_SAMBA_L4))
        td_buf_puts(&b, "Layer 4 is missing: no measured latency, bandwidths or TFLOP "
                        "utilisation; times are compiler estimates. ");
    if (!(layers & TD_SAMBA_HOST))
        td_buf_puts(&b, "No host breakdown: host vs device time cannot be shown. ");
    if (b.n) {
        b.n--; /* trailing space */
        td_sum_set_str(s, "samba.missing", "Could not show", td_buf_cstr(&b));
        td_sum_warning(s, td_buf_cstr(&b));
    }
    td_buf_free(&b);
}

static void layers_scalar(td_summary *s, unsigned layers)
{
    static const struct { unsigned bit; const char *n; } L[] = {
        {TD_SAMBA_L1, "1"}, {TD_SAMBA_L2, "2"}, {TD_SAMBA_SCHED, "schedule"},
        {TD_SAMBA_L3, "3"}, {TD_SAMBA_L4, "4"}, {TD_SAMBA_HOST, "host"}};
    td_buf b = {0};
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++)
        if (layers & L[i].bit)
            td_buf_printf(&b, "%s%s", b.n ? " " : "", L[i].n);
    td_sum_set_str(s, "samba.layers", "Layers given", b.n ? td_buf_cstr(&b) : "");
    td_buf_free(&b);
}

static void hs_table(td_summary *s, const td_samba *sb, const int64_t *calls, int64_t run)
{
    td_table *t = td_sum_table(s, "hypersections", "Hypersections");
    td_table_cols(t, "name:text:Hypersection", "hyperfunction:text:Hyperfunction",
                  "global_id:int:Id", "calls:int:Calls", "total_ns:ns:Total",
                  "share:share:Share", "est_ns:ns:Estimated", "min_ns:ns:Min (DRAM)",
                  "max_ns:ns:Max (DRAM)", "measured_ns:ns:Measured",
                  "est_error:share:Estimate error", "est_pmus:int:PMUs est.",
                  "final_pmus:int:PMUs final", "est_pcus:int:PCUs est.",
                  "final_pcus:int:PCUs final", "tflop:f64:TFLOP",
                  "achieved_tflops:f64:TFLOP/s", "tflop_util:share:TFLOP util.",
                  "ddr_req_bytes:bytes:DDR request", "ddr_gbps:gbps:DDR BW",
                  "pcie_gbps:gbps:PCIe BW", NULL);
    for (size_t i = 0; i < sb->nhs; i++) {
        const td_samba_hs *h = &sb->hs[i];
        size_t r = td_table_add_row(t);
        int sched = (sb->layers & TD_SAMBA_SCHED) != 0;
        int64_t tot = calls[i] * td_samba_call_ns(h);
#define NA(v) ((v) >= 0 ? (v) : TD_NA)
        td_row_str(s, t, r, "name", h->name);
        td_row_str(s, t, r, "hyperfunction", h->hyperfunction);
        td_row_int(s, t, r, "global_id", NA(h->global_id));
        td_row_int(s, t, r, "calls", sched ? calls[i] : TD_NA);
        td_row_int(s, t, r, "total_ns", sched ? tot : TD_NA);
        td_row_f64(s, t, r, "share", sched && run > 0 ? (double)tot / (double)run : NAN);
        td_row_int(s, t, r, "est_ns", NA(h->est_ns));
        td_row_int(s, t, r, "min_ns", NA(h->min_ns));
        td_row_int(s, t, r, "max_ns", NA(h->max_ns));
        td_row_int(s, t, r, "measured_ns", NA(h->measured_ns));
        td_row_f64(s, t, r, "est_error",
                   h->measured_ns >= 0 && h->est_ns > 0
                       ? (double)(h->measured_ns - h->est_ns) / (double)h->est_ns
                       : NAN);
        td_row_int(s, t, r, "est_pmus", NA(h->est_pmus));
        td_row_int(s, t, r, "final_pmus", NA(h->final_pmus));
        td_row_int(s, t, r, "est_pcus", NA(h->est_pcus));
        td_row_int(s, t, r, "final_pcus", NA(h->final_pcus));
        td_row_f64(s, t, r, "tflop", nz(h->tflop));
        td_row_f64(s, t, r, "achieved_tflops",
                   isfinite(h->tflop) && h->measured_ns > 0 ? h->tflop / (h->measured_ns * 1e-9)
                                                            : NAN);
        td_row_f64(s, t, r, "tflop_util", nz(h->tflop_util));
        td_row_int(s, t, r, "ddr_req_bytes", NA(h->ddr_req_bytes));
        td_row_f64(s, t, r, "ddr_gbps", nz(h->ddr_gbps));
        td_row_f64(s, t, r, "pcie_gbps", nz(h->pcie_gbps));
#undef NA
    }
    td_table_sort(t, (sb->layers & TD_SAMBA_SCHED) ? "total_ns" : "est_ns", 1);
}

static void hf_table(td_summary *s, const td_samba *sb, const int64_t *calls, int64_t run)
{
    hfrow *v = td_xcalloc(sb->nhs + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < sb->nhs; i++) {
        const td_samba_hs *h = &sb->hs[i];
        const char *hf = h->hyperfunction ? h->hyperfunction : NO_HF;
        size_t k;
        for (k = 0; k < n; k++)
            if (!strcmp(v[k].name, hf))
                break;
        if (k == n)
            v[n++].name = hf;
        v[k].calls += calls[i];
        v[k].total += calls[i] * td_samba_call_ns(h);
        v[k].nhs++;
    }
    qsort(v, n, sizeof *v, cmp_hf);
    td_table *t = td_sum_table(s, "hyperfunctions", "Hyperfunctions");
    td_table_cols(t, "name:text:Hyperfunction", "calls:int:Section calls", "total_ns:ns:Total",
                  "share:share:Share", "hypersections:int:Hypersections", NULL);
    int sched = (sb->layers & TD_SAMBA_SCHED) != 0;
    for (size_t k = 0; k < n; k++) {
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "name", v[k].name);
        td_row_int(s, t, r, "calls", sched ? v[k].calls : TD_NA);
        td_row_int(s, t, r, "total_ns", sched ? v[k].total : TD_NA);
        td_row_f64(s, t, r, "share", sched && run > 0 ? (double)v[k].total / (double)run : NAN);
        td_row_int(s, t, r, "hypersections", v[k].nhs);
    }
    free(v);
}

static void host_table(td_summary *s, const td_samba *sb, int64_t run)
{
    int64_t host = 0;
    for (size_t i = 0; i < sb->nhost; i++)
        host += sb->host[i].ns;
    td_sum_set_int(s, "samba.device_ns", "Device time (section calls)", TD_T_NS, run);
    if (!(sb->layers & TD_SAMBA_HOST))
        return;
    int64_t all = host + run;
    td_sum_set_int(s, "samba.host_ns", "Host time", TD_T_NS, host);
    td_sum_set_f64(s, "samba.host_share", "Host share", TD_T_SHARE,
                   all > 0 ? (double)host / (double)all : 0);
    td_table *t = td_sum_table(s, "host_breakdown", "Host vs device");
    td_table_cols(t, "name:text:Part", "side:text:Side", "total_ns:ns:Time",
                  "share:share:Share", NULL);
    for (size_t i = 0; i < sb->nhost; i++) {
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "name", sb->host[i].name);
        td_row_str(s, t, r, "side", "host");
        td_row_int(s, t, r, "total_ns", sb->host[i].ns);
        td_row_f64(s, t, r, "share", all > 0 ? (double)sb->host[i].ns / (double)all : 0);
    }
    size_t r = td_table_add_row(t);
    td_row_str(s, t, r, "name", "section calls (model run)");
    td_row_str(s, t, r, "side", "device");
    td_row_int(s, t, r, "total_ns", run);
    td_row_f64(s, t, r, "share", all > 0 ? (double)run / (double)all : 0);
    td_table_sort(t, "total_ns", 1);
}

static void flame(td_summary *s, const td_samba *sb, const int64_t *calls)
{
    td_flame *f = td_sum_flame(s, "sections", "Model, hyperfunctions and hypersections");
    td_buf b = {0};
    for (size_t i = 0; i < sb->nhs; i++) {
        const td_samba_hs *h = &sb->hs[i];
        int64_t v = calls[i] * td_samba_call_ns(h);
        if (v <= 0)
            continue;
        b.n = 0;
        const char *parts[3] = {sb->model, h->hyperfunction ? h->hyperfunction : NO_HF, h->name};
        for (int k = 0; k < 3; k++) {
            if (k)
                td_buf_putc(&b, ';');
            for (const char *p = parts[k]; *p; p++)
                td_buf_putc(&b, *p == ';' ? ':' : (*p == '\n' || *p == '\r') ? ' ' : *p);
        }
        td_flame_add(s, f, td_buf_cstr(&b), v);
    }
    td_buf_free(&b);
    td_flame_finish(f);
}

static void findings(td_summary *s, const td_samba *sb, const int64_t *calls, int64_t run)
{
    char a[32], b2[32], c[32];
    /* host-bound */
    if (sb->layers & TD_SAMBA_HOST) {
        int64_t host = 0;
        size_t top = 0;
        for (size_t i = 0; i < sb->nhost; i++) {
            host += sb->host[i].ns;
            if (sb->host[i].ns > sb->host[top].ns)
                top = i;
        }
        if (sb->nhost && host > run) {
            td_fmt_ns(a, sizeof a, host);
            td_fmt_ns(b2, sizeof b2, run);
            td_fmt_ns(c, sizeof c, sb->host[top].ns);
            td_sum_finding(s, "The run is host-bound: host time (%s) exceeds the device time "
                           "in section calls (%s); the largest host part is %s (%s).",
                           a, b2, sb->host[top].name, c);
        }
    }
    /* the top hyperfunction */
    const td_table *hf = td_sum_find_table(s, "hyperfunctions");
    if (hf && hf->nrows && run > 0) {
        int cn = td_table_col(hf, "name"), cc = td_table_col(hf, "calls"),
            csh = td_table_col(hf, "share");
        td_sum_finding(s, "The top hyperfunction (%s) is %.0f%% of the model run (%lld section "
                       "calls).", td_table_cell(hf, 0, cn)->s, td_table_cell(hf, 0, csh)->f * 100,
                       (long long)td_table_cell(hf, 0, cc)->i);
    }
    /* far above the estimate: by excess time over the run */
    size_t nfar = 0, worst = 0;
    int64_t worst_x = -1;
    for (size_t i = 0; i < sb->nhs; i++) {
        const td_samba_hs *h = &sb->hs[i];
        if (h->measured_ns < 0 || h->est_ns <= 0 ||
            (double)h->measured_ns <= FAR_ABOVE * (double)h->est_ns)
            continue;
        nfar++;
        int64_t x = (calls[i] ? calls[i] : 1) * (h->measured_ns - h->est_ns);
        if (x > worst_x) {
            worst_x = x;
            worst = i;
        }
    }
    if (nfar) {
        const td_samba_hs *h = &sb->hs[worst];
        td_fmt_ns(a, sizeof a, h->measured_ns);
        td_fmt_ns(b2, sizeof b2, h->est_ns);
        td_sum_finding(s, "%zu hypersection%s run%s far above the compiler estimate (measured "
                       "over %.1fx estimated); the largest excess is %s: %s measured vs %s "
                       "estimated per call, %lld calls.", nfar, nfar == 1 ? "" : "s",
                       nfar == 1 ? "s" : "", FAR_ABOVE, h->name, a, b2, (long long)calls[worst]);
    }
    /* TFLOP utilisation weighted by time */
    double wsum = 0, usum = 0;
    size_t low = (size_t)-1;
    for (size_t i = 0; i < sb->nhs; i++) {
        const td_samba_hs *h = &sb->hs[i];
        int64_t tot = calls[i] * td_samba_call_ns(h);
        if (!isfinite(h->tflop_util) || tot <= 0)
            continue;
        wsum += (double)tot;
        usum += h->tflop_util * (double)tot;
        /* the lowest-utilisation section among those with at least 5% of the run */
        if ((double)tot >= 0.05 * (double)run &&
            (low == (size_t)-1 || h->tflop_util < sb->hs[low].tflop_util))
            low = i;
    }
    if (wsum > 0) {
        double u = usum / wsum;
        td_sum_set_f64(s, "samba.tflop_util", "TFLOP utilisation (time-weighted)", TD_T_SHARE, u);
        if (u < LOW_UTIL) {
            if (low != (size_t)-1)
                td_sum_finding(s, "TFLOP utilisation is low: %.0f%% weighted by time; %s, %.0f%% "
                               "of the run, reaches %.0f%%.", u * 100, sb->hs[low].name,
                               (double)(calls[low] * td_samba_call_ns(&sb->hs[low])) /
                                   (double)run * 100,
                               sb->hs[low].tflop_util * 100);
            else
                td_sum_finding(s, "TFLOP utilisation is low: %.0f%% weighted by time.", u * 100);
        }
    }
    if (!(sb->layers & TD_SAMBA_L4) && sb->nhs)
        td_sum_finding(s, "No runtime benchmark (layer 4): section times are compiler "
                       "estimates.");
}

void td_analyse_samba(td_traceset *set, const td_opts *o, td_summary *s)
{
    (void)o;
    const td_samba *sb = NULL;
    size_t nsb = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->tr[i]->samba && !nsb++)
            sb = set->tr[i]->samba;
    if (!sb)
        return;
    if (nsb > 1)
        td_sum_warning(s, "several stack-tracing inputs: the stack-tracing views show the "
                          "first one only");
    int64_t *calls = td_xcalloc(sb->nhs + 1, sizeof *calls);
    int64_t run = 0;
    for (size_t i = 0; i < sb->nsched; i++) {
        calls[sb->sched[i]]++;
        run += td_samba_call_ns(&sb->hs[sb->sched[i]]);
    }
    td_sum_set_str(s, "samba.model", "Model", sb->model);
    /* the device the stack tracing describes (the artifacts hold no device events, and
     * "no devices" would read as a CPU-only run) */
    if (!td_sum_get(s, "trace.device_name"))
        td_sum_set_str(s, "trace.device_name", "Device", "SambaNova RDU");
    layers_scalar(s, sb->layers);
    if (sb->synthetic)
        td_sum_set_str(s, "samba.synthetic", "Synthetic data",
                       "yes: these artifacts were generated, not measured");
    td_sum_set_int(s, "samba.section_calls", "Section calls", TD_T_INT, (int64_t)sb->nsched);
    td_sum_set_int(s, "samba.hypersections", "Hypersections", TD_T_INT, (int64_t)sb->nhs);
    /* the steps pass's "No steps found (ProfilerStep#N...)" names PyTorch's markers, which
     * a SambaTune run has none of (issue 21): say what holds here, as IPU exports do */
    td_sum_set_str(s, "warmup.rule", "Warm-up rule",
                   "Stack tracing: no warm-up removal, every section call is kept.");
    if (sb->nhs) {
        hs_table(s, sb, calls, run);
        hf_table(s, sb, calls, run);
        td_sum_set_int(s, "samba.hyperfunctions", "Hyperfunctions", TD_T_INT,
                       (int64_t)td_sum_find_table(s, "hyperfunctions")->nrows);
    }
    host_table(s, sb, run);
    flame(s, sb, calls);
    findings(s, sb, calls, run);
    missing_note(s, sb->layers);
    free(calls);
}
