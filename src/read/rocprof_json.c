/* read/rocprof_json.c - rocprofv3 JSON reader (see read/rocprof.h).
 *
 * The file is one object: {"rocprofiler-sdk-tool": [{metadata, agents, counters,
 * strings, code_objects, kernel_symbols, host_functions, summary, callback_records,
 * buffer_records}]}. The decoded stream flows through one reused buffer as in the Chrome
 * reader: the containers on the way to the records (the root, the tool array and object,
 * strings, buffer_records, callback_records) are frames of a small explicit stack, so
 * nothing of the parse has to survive a refill but positions-free state; each record (an
 * agent, a kernel symbol, a dispatch...) is parsed in one go and parsed again after a
 * refill when it straddles the end of the buffer; values nobody reads (code_objects,
 * host_functions...) are skipped resumably. Memory: the buffer (it grows only for one
 * record larger than it), the model, and the name tables (kernel symbols, operation
 * names, ROCTx messages).
 *
 * Names: a record's name comes from tables that rocprofv3 writes before buffer_records
 * (kernel_symbols; strings.buffer_records kinds and operations; strings.marker_api). When
 * a table has not been seen yet the event is named at the end (a short pending list).
 * Kernel names are the truncated_kernel_name (else formatted, demangled, kernel_name),
 * as TraceLens and `rocprofv3 --truncate-kernels` name them. */
#define _POSIX_C_SOURCE 200809L
#include "read/rocprof_int.h"
#include "io/bound.h"
#include <stdlib.h>
#include <string.h>

#define BUF_INIT (1u << 20)
#define BUF_MAX TD_BOUND_EVENT /* one record must fit (io/bound.h) */

/* ---------------------------------------------------------------- the stream */

static int refill(rp *c, size_t keep)
{
    size_t n = c->len - keep;
    if (keep == 0 && c->len >= c->cap) {
        if (c->cap >= BUF_MAX) {
            td_fail(c->e, TD_E_FORMAT, "%s: byte %llu: a single record larger than %zu MiB",
                    c->name, (unsigned long long)c->base, BUF_MAX >> 20);
            return -1;
        }
        c->cap *= 2;
        c->buf = td_xrealloc(c->buf, c->cap + TD_JSON_PAD);
    }
    /* what the records read so far hold against what the input may hold (io/bound.h,
     * as read/chrome.c): a small gzip of millions of identical records is refused */
    uint64_t held = td_traceset_bytes(c->set), hb = td_in_held_base(c->in);
    held = held > hb ? held - hb : 0;
    uint64_t stored = td_in_stored(c->in);
    if (held > td_bound_allow(stored)) {
        td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: the records read so far hold %llu MiB in "
                "memory, from the first %llu KiB of the input as stored (more than %d times "
                "that): refused as a decompression bomb", c->name, (unsigned long long)c->base,
                td_in_is_gzip(c->in) ? " (uncompressed)" : "", (unsigned long long)(held >> 20),
                (unsigned long long)(stored >> 10), TD_BOUND_RATIO);
        return -1;
    }
    if (keep)
        memmove(c->buf, c->buf + keep, n);
    c->base += keep;
    c->len = n;
    while (!c->eof && c->len < c->cap) {
        ptrdiff_t r = td_in_read(c->in, c->buf + c->len, c->cap - c->len, c->e);
        if (r < 0)
            return -1;
        if (r == 0)
            c->eof = 1;
        c->len += (size_t)r;
    }
    memset(c->buf + c->len, '"', TD_JSON_PAD);
    return 0;
}

/* What a key of an object frame holds: a child frame (ctx, obj), or 0 to skip. */
static int child_of(int ctx, td_jslice k, frame *out)
{
    memset(out, 0, sizeof *out);
#define CH(c_, o_) (out->ctx = (c_), out->obj = (o_), 1)
    switch (ctx) {
    case C_ROOT:
        if (TD_JSON_KEY_IS(k, "rocprofiler-sdk-tool"))
            return CH(C_TOOLS, 0);
        return 0;
    case C_TOOL:
        if (TD_JSON_KEY_IS(k, "agents"))
            return CH(C_AGENTS, 0);
        if (TD_JSON_KEY_IS(k, "strings"))
            return CH(C_STRINGS, 1);
        if (TD_JSON_KEY_IS(k, "kernel_symbols"))
            return CH(C_KSYMS, 0);
        if (TD_JSON_KEY_IS(k, "buffer_records"))
            return CH(C_BUF, 1);
        return 0;
    case C_STRINGS:
        if (TD_JSON_KEY_IS(k, "buffer_records"))
            return CH(C_SKINDS, 0);
        if (TD_JSON_KEY_IS(k, "marker_api"))
            return CH(C_SMARKER, 0);
        return 0;
    case C_BUF:
        if (TD_JSON_KEY_IS(k, "kernel_dispatch"))
            return CH(C_DISPATCH, 0);
        if (TD_JSON_KEY_IS(k, "memory_copy"))
            return CH(C_COPY, 0);
        if (TD_JSON_KEY_IS(k, "marker_api"))
            return CH(C_MARKER, 0);
        if (TD_JSON_KEY_IS(k, "hip_api")) {
            out->api = 1;
            return CH(C_API, 0);
        }
        if (TD_JSON_KEY_IS(k, "hsa_api")) {
            out->api = 2;
            return CH(C_API, 0);
        }
        if (TD_JSON_KEY_IS(k, "rccl_api")) {
            out->api = 3;
            return CH(C_API, 0);
        }
        return 0;
    }
    return 0;
#undef CH
}

static const char *parse_record(rp *c, const frame *f, const char *p, const char *end)
{
    switch (f->ctx) {
    case C_AGENTS:
        return td_rp_agent(c, p, end);
    case C_KSYMS:
        return td_rp_ksym(c, p, end);
    case C_SKINDS:
        return td_rp_kind(c, p, end);
    case C_SMARKER:
        return td_rp_smarker(c, p, end);
    case C_DISPATCH:
        return td_rp_dispatch(c, p, end);
    case C_API:
        return td_rp_api(c, p, end, f->api, 0);
    case C_MARKER:
        return td_rp_api(c, p, end, 0, 1);
    case C_COPY:
        return td_rp_copy(c, p, end);
    }
    return td_jscan_skip(&c->js, p, end);
}

/* A frame closes: what its contents tell the later records. */
static void closed(rp *c, const frame *f)
{
    if (f->ctx == C_KSYMS)
        c->seen_ksyms = 1;
    else if (f->ctx == C_SKINDS)
        c->seen_kinds = 1;
    else if (f->ctx == C_SMARKER)
        c->seen_markers = 1;
}

static void pop(rp *c)
{
    closed(c, &c->f[c->nf - 1]);
    c->nf--;
    if (c->nf)
        c->f[c->nf - 1].st = 1;
    else
        c->done = 1;
}

static int push_frame(rp *c, frame f)
{
    if (c->nf >= MAXF)
        return -1;
    c->f[c->nf++] = f;
    return 0;
}

static td_status syntax_error(rp *c)
{
    return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: %s", c->name,
                   (unsigned long long)(c->base + (uint64_t)(c->js.fat - c->buf)),
                   td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->js.fwhat);
}

/* One step at p: returns the new position, or NULL (c->js.fk says why). *mark is where
 * a refill must keep from. */
static const char *step(rp *c, const char *p, const char *end, const char **mark)
{
    *mark = p = td_jscan_ws(p);
    if (p >= end)
        return td_jscan_need(&c->js);
    if (c->skipping) {
        const char *q = td_jscan_skip_run(&c->js, &c->sk, p, end);
        if (!q) {
            if (c->js.fk == TD_JF_NEED)
                *mark = c->js.resume;
            return NULL;
        }
        c->skipping = 0;
        c->f[c->nf - 1].st = 1;
        return q;
    }
    if (c->done) {
        td_warn(&c->set->warnings, "%s: byte %llu: data after the end of the JSON ignored",
                c->name, (unsigned long long)(c->base + (uint64_t)(p - c->buf)));
        c->trailing = 1;
        return end;
    }
    if (!c->nf) {
        if (*p != '{')
            return td_jscan_bad(&c->js, p, end, "expected '{' (not rocprofv3 JSON)");
        push_frame(c, (frame){C_ROOT, 1, 0, 0});
        return p + 1;
    }
    frame *f = &c->f[c->nf - 1];
    char close = f->obj ? '}' : ']';
    if (f->st == 1) {
        if (*p == ',') {
            f->st = 2;
            return p + 1;
        }
        if (*p != close)
            return td_jscan_bad(&c->js, p, end, f->obj ? "expected ',' or '}'" : "expected ',' or ']'");
        pop(c);
        return p + 1;
    }
    if (*p == close) { /* empty, or a trailing comma */
        pop(c);
        return p + 1;
    }
    if (!f->obj) {
        /* an array element */
        if (f->ctx == C_TOOLS) {
            if (*p != '{')
                return td_jscan_bad(&c->js, p, end, "expected '{' (a rocprofiler-sdk-tool object)");
            f->st = 1;
            if (push_frame(c, (frame){C_TOOL, 1, 0, 0}) < 0)
                return td_jscan_bad(&c->js, p, end, "nesting too deep");
            return p + 1;
        }
        if (*p != '{' || f->ctx < C_AGENTS) {
            td_jscan_skip_init(&c->sk);
            c->skipping = 1;
            return p;
        }
        const char *q = parse_record(c, f, p, end);
        if (q)
            f->st = 1;
        return q;
    }
    /* an object member */
    td_jslice k;
    if (*p != '"')
        return td_jscan_bad(&c->js, p, end, "expected a string key");
    p = td_jscan_scan_str(&c->js, p, end, &k);
    if (!p)
        return NULL;
    p = td_jscan_ws(p);
    if (*p != ':')
        return td_jscan_bad(&c->js, p, end, "expected ':'");
    p = td_jscan_ws(p + 1);
    if (p >= end)
        return td_jscan_need(&c->js);
    frame ch;
    if (child_of(f->ctx, k, &ch) && *p == (ch.obj ? '{' : '[')) {
        f->st = 1; /* set again when the child closes */
        push_frame(c, ch);
        return p + 1;
    }
    if (f->ctx == C_TOOL && TD_JSON_KEY_IS(k, "metadata")) {
        const char *q = td_rp_metadata(c, p, end);
        if (q)
            f->st = 1;
        return q;
    }
    td_jscan_skip_init(&c->sk);
    c->skipping = 1;
    return p;
}

static td_status run(rp *c)
{
    if (refill(c, 0) < 0)
        return c->e->code;
    const char *p = c->buf;
    if (c->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    for (;;) {
        const char *end = c->buf + c->len, *mark = p;
        c->js.fk = TD_JF_NONE;
        const char *q = step(c, p, end, &mark);
        if (q) {
            if (c->trailing)
                return TD_OK;
            p = q;
            continue;
        }
        if (c->js.fk == TD_JF_ERR)
            return syntax_error(c);
        if (!c->eof) {
            size_t keep = (size_t)(mark - c->buf);
            if (refill(c, keep) < 0)
                return c->e->code;
            p = c->buf;
            continue;
        }
        /* end of data */
        if (c->done)
            return TD_OK;
        if (c->t->nev) {
            td_warn(&c->set->warnings, "%s: truncated at byte %llu%s; kept %zu events", c->name,
                    (unsigned long long)(c->base + c->len),
                    td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->t->nev);
            return TD_OK;
        }
        return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: unexpected end of data", c->name,
                       (unsigned long long)(c->base + c->len),
                       td_in_is_gzip(c->in) ? " (uncompressed)" : "");
    }
}

static int32_t agent_dev(const void *ctx, int64_t handle)
{
    const agent *a = td_rp_find_agent(ctx, handle);
    return a ? a->dev : -1;
}

/* Names not known when their record was read, device numbers, the process id. */
static void finish(rp *c)
{
    td_trace *t = c->t;
    for (size_t i = 0; i < c->npend; i++) {
        const pending *q = &c->pend[i];
        td_event *ev = &t->ev[q->ev];
        if (q->what == P_KERNEL) {
            ev->name = td_rp_kernel_name(c, q->key);
        } else if (q->what == P_MARKER) {
            const uint32_t *m = td_rp_imap_get(&c->marker, q->key);
            ev->name = m ? *m : td_rp_op_name(c, q->kind, q->op);
        } else {
            ev->name = td_rp_op_name(c, q->kind, q->op);
            td_str kn = td_rp_kind_name(c, q->kind);
            if (kn && !ev->cat)
                ev->cat = td_trace_cat(t, kn);
        }
    }
    td_rp_tracks_finish(&c->tk, c->set, t, agent_dev, c, c->pid);
    if (c->n_negdur)
        td_warn(&c->set->warnings, "%s: %llu records end before they start (duration set to 0)",
                c->name, (unsigned long long)c->n_negdur);
    if (c->n_range)
        td_warn(&c->set->warnings, "%s: %llu records with times out of range (duration set to 0)",
                c->name, (unsigned long long)c->n_range);
    if (c->n_records && !t->nev)
        td_warn(&c->set->warnings, "%s: %llu records without timestamps", c->name,
                (unsigned long long)c->n_records);
}

int td_rocprof_json_sniff(const unsigned char *p, size_t n)
{
    static const char key[] = "\"rocprofiler-sdk-tool\"";
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i >= n || p[i] != '{')
        return 0;
    i++;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return n - i >= sizeof key - 1 && memcmp(p + i, key, sizeof key - 1) == 0;
}

td_status td_read_rocprof_json(td_traceset *set, td_trace *t, td_in *in, td_err *e)
{
    rp *c = td_xcalloc(1, sizeof *c);
    c->set = set;
    c->t = t;
    c->in = in;
    c->name = td_in_name(in);
    c->e = e;
    c->cap = BUF_INIT;
    const char *tb = getenv("TD_READ_BUF"); /* tests: every record straddles a refill */
    if (tb && atol(tb) >= 16 && (size_t)atol(tb) < BUF_MAX)
        c->cap = (size_t)atol(tb);
    c->buf = td_xmalloc(c->cap + TD_JSON_PAD);
    c->js.scarena = td_arena_new();
    c->js.strs = set->strs;
    c->cat_kernel = td_intern_cstr(set->strs, "KERNEL_DISPATCH");
    c->cat_copy = td_intern_cstr(set->strs, "MEMORY_COPY");
    c->cat_marker = td_intern_cstr(set->strs, "MARKER_CORE_API");
    t->format = TD_FMT_ROCPROF_JSON;
    td_status st = run(c);
    if (st == TD_OK)
        finish(c);
    if (c->js.w_utf8)
        td_warn(&set->warnings, "%s: %llu strings with invalid UTF-8 or escapes replaced",
                c->name, (unsigned long long)c->js.w_utf8);
    if (c->js.w_long)
        td_warn(&set->warnings, "%s: %llu strings longer than %zu KiB cut to their first %zu KiB",
                c->name, (unsigned long long)c->js.w_long, TD_BOUND_STRING >> 10,
                TD_BOUND_STRING >> 10);
    free(c->buf);
    free(c->ag);
    free(c->ksym.e);
    for (size_t i = 0; i < c->nkn; i++)
        free(c->kn[i].ops);
    free(c->kn);
    free(c->tops);
    free(c->marker.e);
    td_rp_tracks_free(&c->tk);
    free(c->pend);
    td_jscan_free(&c->js);
    free(c);
    return st;
}
