/* read/samba_report.c - tracedoc's *_chrome_tracing_report.json read back (doc/formats.md
 * "SambaNova stack tracing"): the events through the Chrome reader, like any trace; then
 * the stack-tracing data from the file as a whole (jansson; a report is small next to
 * a profiler trace): hypersections and the schedule from the model row's section calls
 * (args under the artifact column names, ordered by args.call), the host rows, and
 * otherData (model, layers, hypersections without calls). */
#define _POSIX_C_SOURCE 200809L
#include "read/chrome.h"
#include "read/samba_int.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_LIMIT ((size_t)1 << 30) /* a report read back (parsed as a whole) */
#define REPORT_SCHEMA "tracedoc.stack_trace/1"

int td_samba_is_report(const unsigned char *p, size_t n)
{
    static const char key[] = "\"" REPORT_SCHEMA "\"";
    size_t k = sizeof key - 1;
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == '"' && memcmp(p + i, key, k) == 0)
            return 1;
    return 0;
}

typedef struct rctx {
    td_traceset *set;
    const char *name;
    td_err *e;
    size_t ev;          /* index of the event being read, for messages */
} rctx;

static td_status rbad(rctx *r, const char *key, const char *want)
{
    return td_fail(r->e, TD_E_FORMAT, "%s: traceEvents[%zu]: args.%s: expected %s", r->name,
                   r->ev, key, want);
}

static td_status a_int(rctx *r, json_t *o, const char *key, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TD_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return rbad(r, key, "a non-negative integer");
    *out = (int64_t)json_integer_value(v);
    return TD_OK;
}

static td_status a_us(rctx *r, json_t *o, const char *key, int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TD_OK;
    double d = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || !isfinite(d) || d > 9.2e12)
        return rbad(r, key, "a time in microseconds");
    if (d < 0)
        return td_fail(r->e, TD_E_FORMAT, "%s: traceEvents[%zu]: args.%s: negative latency",
                       r->name, r->ev, key);
    *out = llround(d * 1000.0);
    return TD_OK;
}

static td_status a_real(rctx *r, json_t *o, const char *key, int frac, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return TD_OK;
    double d = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || !isfinite(d) || d < 0 || (frac && d > 1))
        return rbad(r, key, frac ? "a fraction between 0 and 1" : "a non-negative number");
    *out = d;
    return TD_OK;
}

static const char *a_str(rctx *r, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? td_samba_text(r->set->arena, json_string_value(v)) : NULL;
}

/* The layer fields of one section call's args (README: the same names as the CSV
 * columns). */
static td_status hs_from_args(rctx *r, json_t *o, td_samba_hs *h)
{
    td_status st;
    if ((st = a_int(r, o, "global_id", &h->global_id)) || (st = a_real(r, o, "tflop", 0, &h->tflop)) ||
        (st = a_int(r, o, "est_pmus", &h->est_pmus)) || (st = a_int(r, o, "est_pcus", &h->est_pcus)) ||
        (st = a_us(r, o, "est_latency_us", &h->est_ns)) ||
        (st = a_int(r, o, "final_pmus", &h->final_pmus)) ||
        (st = a_int(r, o, "final_pcus", &h->final_pcus)) ||
        (st = a_us(r, o, "min_latency_us", &h->min_ns)) ||
        (st = a_us(r, o, "max_latency_us", &h->max_ns)) ||
        (st = a_us(r, o, "measured_latency_us", &h->measured_ns)) ||
        (st = a_int(r, o, "avg_ddr_request_bytes", &h->ddr_req_bytes)) ||
        (st = a_real(r, o, "ddr_bw_gbps", 0, &h->ddr_gbps)) ||
        (st = a_real(r, o, "pcie_bw_gbps", 0, &h->pcie_gbps)) ||
        (st = a_real(r, o, "tflop_utilization", 1, &h->tflop_util)))
        return st;
    h->hyperfunction = a_str(r, o, "hyperfunction");
    if (!h->ir)
        h->ir = a_str(r, o, "ir");
    return TD_OK;
}

typedef struct callref {
    int64_t call;
    uint32_t hs;
} callref;

static int cmp_call(const void *x, const void *y)
{
    const callref *a = x, *b = y;
    return (a->call > b->call) - (a->call < b->call);
}

static td_status report_fields(td_traceset *set, td_trace *t, const char *name,
                               const char *data, size_t n, td_err *e)
{
    json_error_t je;
    json_t *root = json_loadb(data, n, JSON_ALLOW_NUL, &je);
    if (!root)
        return td_fail(e, TD_E_FORMAT, "%s: line %d, column %d: %s (stack-trace fields "
                       "could not be read)", name, je.line, je.column, je.text);
    rctx r = {set, name, e, 0};
    td_status st = TD_OK;
    td_samba *sb = td_arena_alloc(set->arena, sizeof *sb);
    sb->synthetic = 0;
    json_t *od = json_object_get(root, "otherData");
    json_t *evs = json_object_get(root, "traceEvents");
    if (!json_is_object(od) || !json_is_array(evs)) {
        st = td_fail(e, TD_E_FORMAT, "%s: a stack-trace report needs otherData and traceEvents",
                     name);
        goto out;
    }
    const char *model = a_str(&r, od, "model");
    sb->model = model ? model : "model";
    sb->synthetic = json_is_true(json_object_get(od, "synthetic"));
    json_t *layers = json_object_get(od, "layers"), *lv;
    size_t li;
    json_array_foreach(layers, li, lv)
    {
        const char *l = json_string_value(lv);
        static const struct { const char *n; unsigned b; } lb[] = {
            {"1", TD_SAMBA_L1}, {"2", TD_SAMBA_L2}, {"schedule", TD_SAMBA_SCHED},
            {"3", TD_SAMBA_L3}, {"4", TD_SAMBA_L4}, {"host", TD_SAMBA_HOST}};
        for (size_t k = 0; l && k < sizeof lb / sizeof lb[0]; k++)
            if (!strcmp(l, lb[k].n))
                sb->layers |= lb[k].b;
    }
    size_t nev = json_array_size(evs);
    td_samba_hs *hs = td_xmalloc((nev + json_array_size(json_object_get(od, "uncalled")) + 1) *
                                 sizeof *hs);
    callref *calls = td_xmalloc((nev + 1) * sizeof *calls);
    size_t nhs = 0, ncalls = 0;
    td_samba_nmap m;
    td_samba_nmap_init(&m, nev + 8);
    sb->host = td_arena_alloc(set->arena, (nev + 1) * sizeof *sb->host);
    /* section calls (the model row) and host rows; then hypersections without calls */
    json_t *unc = json_object_get(od, "uncalled");
    for (int pass = 0; pass < 2 && st == TD_OK; pass++) {
        json_t *arr = pass ? unc : evs;
        size_t i;
        json_t *ev;
        json_array_foreach(arr, i, ev)
        {
            r.ev = i;
            json_t *args = pass ? ev : json_object_get(ev, "args");
            const char *cat = pass ? "model" : json_string_value(json_object_get(ev, "cat"));
            if (!cat || !json_is_object(args))
                continue;
            if (!strcmp(cat, "host")) {
                int64_t ns = -1;
                const char *hn = a_str(&r, args, "category");
                if ((st = a_us(&r, args, "time_us", &ns)) != TD_OK)
                    break;
                if (hn && ns >= 0) {
                    sb->host[sb->nhost].name = hn;
                    sb->host[sb->nhost++].ns = ns;
                }
                continue;
            }
            if (strcmp(cat, "model") != 0)
                continue;
            const char *hn = a_str(&r, args, "hypersection");
            if (!hn) {
                st = rbad(&r, "hypersection", "a name");
                break;
            }
            int32_t *sl = td_samba_nmap_find(&m, hs, hn);
            if (*sl < 0) {
                *sl = (int32_t)nhs;
                td_samba_hs_init(&hs[nhs], hn);
                if ((st = hs_from_args(&r, args, &hs[nhs])) != TD_OK)
                    break;
                nhs++;
            } else if (!hs[*sl].ir) {
                hs[*sl].ir = a_str(&r, args, "ir");
            }
            if (!pass) {
                int64_t call = -1;
                if ((st = a_int(&r, args, "call", &call)) != TD_OK)
                    break;
                if (call < 0) {
                    st = rbad(&r, "call", "the section call's number");
                    break;
                }
                calls[ncalls].call = call;
                calls[ncalls++].hs = (uint32_t)*sl;
            }
        }
    }
    if (st == TD_OK) {
        qsort(calls, ncalls, sizeof *calls, cmp_call);
        for (size_t i = 0; i < ncalls && st == TD_OK; i++)
            if (calls[i].call != (int64_t)i)
                st = td_fail(e, TD_E_FORMAT, "%s: section call %zu is %s", name, i,
                             i && calls[i].call == calls[i - 1].call ? "given twice" : "missing");
    }
    if (st == TD_OK) {
        sb->hs = td_arena_alloc(set->arena, (nhs + 1) * sizeof *sb->hs);
        memcpy(sb->hs, hs, nhs * sizeof *hs);
        sb->nhs = nhs;
        sb->sched = td_arena_alloc(set->arena, (ncalls + 1) * sizeof *sb->sched);
        for (size_t i = 0; i < ncalls; i++)
            sb->sched[i] = calls[i].hs;
        sb->nsched = ncalls;
        t->samba = sb;
    }
    free(hs);
    free(calls);
    free(m.slot);
out:
    json_decref(root);
    return st;
}

td_status td_samba_read_report(td_traceset *set, td_trace *t, const char *name,
                               const void *data, size_t n, td_err *e)
{
    if (n > REPORT_LIMIT)
        return td_fail(e, TD_E_FORMAT, "%s: a stack-trace report over 1 GiB is not read back",
                       name);
    td_status st = td_read_chrome_mem(set, t, name, data, n, e); /* the events, as any trace */
    if (st == TD_OK)
        st = report_fields(set, t, name, data, n, e);
    return st;
}
