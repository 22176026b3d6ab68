/* export/stacktrace.c - `tracedoc stack-trace`: the SambaTune-style
 * *_chrome_tracing_report.json (formats.md sec. 7), a Chrome Trace Event file:
 *
 * - process 0 "Host" (sorted first, so its rows are above): one row per host category
 *   with one slice of its time (cat "host");
 * - process 1 "Model": row 0 is the whole model run, one slice per section call laid end
 *   to end in schedule order (cat "model"); then one row per hyperfunction, titled
 *   "NAME: N section calls, TIME", with that hyperfunction's calls at the same times
 *   (cat "hyperfunction");
 * - every section-call slice has `cname` (a Chrome colour name) and args.colour, both
 *   from a hash of the hypersection name (stable across runs), and every layer's fields
 *   in args under the artifact CSV column names; the IR goes in the first call's args;
 * - otherData: schema (what read/samba.c recognises), model, layers, what could not be
 *   shown, and the hypersections without calls (their args), so reading the report back
 *   loses nothing.
 * Times are written in microseconds with three decimals (exact nanoseconds). */
#define _POSIX_C_SOURCE 200809L
#include "export/stacktrace.h"
#include "read/samba.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Chrome's reserved colour names (trace viewer's colour scheme), and a palette for
 * viewers that ignore cname, picked by the same hash. */
static const char *const cnames[] = {
    "thread_state_running", "thread_state_runnable", "thread_state_iowait",
    "thread_state_uninterruptible", "good", "bad", "terrible", "generic_work", "yellow",
    "olive", "rail_response", "rail_animation", "rail_idle", "rail_load", "startup",
    "detailed_memory_dump", "light_memory_dump", "vsync_highlight_color"};
static const char *const hexes[] = {
    "#3a6ea5", "#d9822b", "#6a9f58", "#8e5ea2", "#c0392b", "#17a2b8", "#7f6a3b", "#e3b35b",
    "#5f6670", "#2e7d32", "#b42318", "#4a90d9", "#a05195", "#f95d6a", "#665191", "#2f4b7c",
    "#ffa600", "#00a6a6"};
#define NCOL (sizeof cnames / sizeof cnames[0])

typedef struct wctx {
    const td_samba *sb;
    const td_summary *s;
    const char *version;
    uint8_t *ir_done;   /* per hypersection: IR already written */
} wctx;


static void key(FILE *f, const char *k)
{
    fprintf(f, ", \"%s\": ", k);
}

/* The layer fields of h as args members (after a first member already written). */
static void hs_args(FILE *f, const td_samba_hs *h, int with_ir)
{
    key(f, "hypersection");
    td_json_str(f, h->name);
    if (h->hyperfunction) {
        key(f, "hyperfunction");
        td_json_str(f, h->hyperfunction);
    }
    key(f, "latency_source");
    fputs(h->measured_ns >= 0 ? "\"measured\"" : h->est_ns >= 0 ? "\"estimated\"" : "null", f);
    size_t c = td_hash64(h->name, strlen(h->name)) % NCOL;
    key(f, "colour");
    fprintf(f, "\"%s\"", hexes[c]);
#define I(name, v) if ((v) >= 0) { key(f, name); fprintf(f, "%lld", (long long)(v)); }
#define U(name, v) if ((v) >= 0) { key(f, name); td_json_us(f, v); }
#define R(name, v) if (isfinite(v)) { key(f, name); td_json_real(f, v); }
    I("global_id", h->global_id);
    R("tflop", h->tflop);
    I("est_pmus", h->est_pmus);
    I("est_pcus", h->est_pcus);
    U("est_latency_us", h->est_ns);
    I("final_pmus", h->final_pmus);
    I("final_pcus", h->final_pcus);
    U("min_latency_us", h->min_ns);
    U("max_latency_us", h->max_ns);
    U("measured_latency_us", h->measured_ns);
    I("avg_ddr_request_bytes", h->ddr_req_bytes);
    R("ddr_bw_gbps", h->ddr_gbps);
    R("pcie_bw_gbps", h->pcie_gbps);
    R("tflop_utilization", h->tflop_util);
#undef I
#undef U
#undef R
    if (with_ir && h->ir) {
        key(f, "ir");
        td_json_str(f, h->ir);
    }
}

static void meta(FILE *f, int pid, int tid, const char *what, const char *name, int sort)
{
    td_chrome_meta(f, pid, tid, what, name, sort);
}



static void call_event(FILE *f, wctx *w, int tid, const char *cat, size_t k, int64_t ts)
{
    const td_samba_hs *h = &w->sb->hs[w->sb->sched[k]];
    size_t c = td_hash64(h->name, strlen(h->name)) % NCOL;
    fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"%s\", \"pid\": 1, \"tid\": %d, \"ts\": ", cat, tid);
    td_json_us(f, ts);
    fputs(", \"dur\": ", f);
    td_json_us(f, td_samba_call_ns(h));
    fputs(", \"name\": ", f);
    td_json_str(f, h->name);
    fprintf(f, ", \"cname\": \"%s\", \"args\": {\"call\": %zu", cnames[c], k);
    int ir = !w->ir_done[w->sb->sched[k]];
    hs_args(f, h, ir);
    w->ir_done[w->sb->sched[k]] = 1;
    fputs("}}", f);
}

static td_status write_cb(FILE *f, void *ctx, td_err *e)
{
    wctx *w = ctx;
    const td_samba *sb = w->sb;
    const td_summary *s = w->s;
    char tb[64], title[512];
    /* the schema first: read/samba.c looks for it in the first bytes */
    fputs("{\"otherData\": {\"schema\": \"tracedoc.stack_trace/1\", \"generator\": ", f);
    snprintf(title, sizeof title, "tracedoc %s", w->version ? w->version : "");
    td_json_str(f, title);
    fputs(", \"model\": ", f);
    td_json_str(f, sb->model);
    if (sb->synthetic)
        fputs(", \"synthetic\": true", f);
    fputs(", \"layers\": [", f);
    static const struct { unsigned bit; const char *n; } L[] = {
        {TD_SAMBA_L1, "1"}, {TD_SAMBA_L2, "2"}, {TD_SAMBA_SCHED, "schedule"},
        {TD_SAMBA_L3, "3"}, {TD_SAMBA_L4, "4"}, {TD_SAMBA_HOST, "host"}};
    int first = 1;
    for (size_t i = 0; i < sizeof L / sizeof L[0]; i++)
        if (sb->layers & L[i].bit) {
            fprintf(f, "%s\"%s\"", first ? "" : ", ", L[i].n);
            first = 0;
        }
    fputs("], \"could_not_show\": ", f);
    const td_kv *miss = td_sum_get(s, "samba.missing");
    td_json_str(f, miss ? miss->v.s : NULL);
    fputs(", \"uncalled\": [", f);
    uint8_t *called = td_xcalloc(sb->nhs + 1, 1);
    for (size_t i = 0; i < sb->nsched; i++)
        called[sb->sched[i]] = 1;
    first = 1;
    for (size_t i = 0; i < sb->nhs; i++) {
        if (called[i])
            continue;
        fputs(first ? "\n  {\"call\": null" : ",\n  {\"call\": null", f);
        hs_args(f, &sb->hs[i], 1);
        fputc('}', f);
        first = 0;
    }
    free(called);
    fputs("]},\n\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", f);
    /* host rows, above the model */
    fputs("{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": \"process_name\", \"args\": "
          "{\"name\": \"Host\"}}", f);
    fputs(",\n{\"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"name\": \"process_sort_index\", "
          "\"args\": {\"sort_index\": 0}}", f);
    const td_table *hb = td_sum_find_table(s, "host_breakdown");
    for (size_t i = 0; i < sb->nhost; i++) {
        int64_t shown = sb->host[i].ns;
        for (size_t r = 0; hb && r < hb->nrows; r++) /* the summary's number */
            if (td_row_get_str(hb, r, "name") && !strcmp(td_row_get_str(hb, r, "name"), sb->host[i].name) &&
                td_row_get_str(hb, r, "side") && !strcmp(td_row_get_str(hb, r, "side"), "host"))
                shown = td_row_get_int(hb, r, "total_ns");
        td_fmt_ns(tb, sizeof tb, shown);
        snprintf(title, sizeof title, "%s: %s", sb->host[i].name, tb);
        meta(f, 0, (int)i + 1, "thread_name", title, (int)i + 1);
        fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"host\", \"pid\": 0, \"tid\": %zu, \"ts\": 0.000, "
                "\"dur\": ", i + 1);
        td_json_us(f, sb->host[i].ns);
        fputs(", \"name\": ", f);
        td_json_str(f, sb->host[i].name);
        fputs(", \"args\": {\"category\": ", f);
        td_json_str(f, sb->host[i].name);
        fputs(", \"time_us\": ", f);
        td_json_us(f, sb->host[i].ns);
        fputs("}}", f);
    }
    /* the model row */
    snprintf(title, sizeof title, "Model: %s", sb->model);
    meta(f, 1, 0, "process_name", title, 1);
    const td_kv *dev = td_sum_get(s, "samba.device_ns");
    td_fmt_ns(tb, sizeof tb, dev ? dev->v.i : 0);
    snprintf(title, sizeof title, "%s: %zu section calls, %s", sb->model, sb->nsched, tb);
    meta(f, 1, 0, "thread_name", title, 0);
    int64_t ts = 0;
    for (size_t k = 0; k < sb->nsched; k++) {
        call_event(f, w, 0, "model", k, ts);
        ts += td_samba_call_ns(&sb->hs[sb->sched[k]]);
    }
    /* one row per hyperfunction, in the summary's order (by time) */
    const td_table *hf = td_sum_find_table(s, "hyperfunctions");
    for (size_t r = 0; hf && r < hf->nrows; r++) {
        const char *name = td_row_get_str(hf, r, "name");
        int64_t calls = td_row_get_int(hf, r, "calls"), tot = td_row_get_int(hf, r, "total_ns");
        if (!name || calls == TD_NA || calls <= 0)
            continue;
        td_fmt_ns(tb, sizeof tb, tot == TD_NA ? 0 : tot);
        snprintf(title, sizeof title, "%.400s: %lld section call%s, %s", name, (long long)calls,
                 calls == 1 ? "" : "s", tb);
        meta(f, 1, (int)r + 1, "thread_name", title, (int)r + 1);
        ts = 0;
        for (size_t k = 0; k < sb->nsched; k++) {
            const td_samba_hs *h = &sb->hs[sb->sched[k]];
            const char *hn = h->hyperfunction;
            int mine = hn ? !strcmp(hn, name) : td_table_col(hf, "name") >= 0 && name[0] == '(';
            if (mine)
                call_event(f, w, (int)r + 1, "hyperfunction", k, ts);
            ts += td_samba_call_ns(h);
        }
    }
    fputs("\n]}\n", f);
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

td_status td_render_stacktrace(const td_traceset *set, const td_summary *s,
                               const char *version, const char *path, td_err *e)
{
    const td_samba *sb = NULL;
    for (size_t i = 0; i < set->n && !sb; i++)
        sb = set->tr[i]->samba;
    if (!sb)
        return td_fail(e, TD_E_FORMAT, "%s: no stack-tracing data (SambaTune artifact CSV "
                       "files or a stack-trace report)", set->n ? set->tr[0]->path : "input");
    wctx w = {sb, s, version, td_xcalloc(sb->nhs + 1, 1)};
    td_status st = td_write_atomic_cb(path, write_cb, &w, e);
    free(w.ir_done);
    return st;
}
