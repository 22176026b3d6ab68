/* read/rocprof_csv.c - rocprofv3's CSV files (`--output-format csv`): PREFIX_agent_info.csv,
 * PREFIX_kernel_trace.csv, PREFIX_hip_api_trace.csv (and hsa_api, rccl_api),
 * PREFIX_memory_copy_trace.csv and PREFIX_marker_api_trace.csv, where PREFIX is usually the
 * process id. Each file is recognised by its header (columns found by name, so the
 * older sets without Stream_Id read too); the files of one PREFIX that one input argument
 * gives (a directory, or files named together) become one trace, made when the argument is
 * read (td_rocprof_csv_done), whose size and SHA-256 are those of its files' "SHA-256  NAME"
 * lines, as for SambaTune artifacts.
 *
 * The model is the JSON reader's: kernels on one track per (agent, HIP stream), named by
 * Kernel_Name truncated as rocprofv3 truncates (td_rp_truncated: a file written without
 * --truncate-kernels gives the same names, except that "__amd_rocclr_*.kd" loses ".kd");
 * API rows by Domain (HIP runtime, HSA driver, other); marker rows ROCTx ranges named by
 * Function (rows naming a roctx* call are the calls themselves and are left out); memory
 * copies by Direction (the CSV has no byte counts). Agent_Id is "Agent N" (a logical node
 * id, numbered as a GPU by PREFIX_agent_info.csv when it is there), "GPU N" (the GPU index)
 * or N. Files are read as streams, a block of whole records at a time. */
#define _POSIX_C_SOURCE 200809L
#include "read/rocprof_int.h"
#include "base/hash.h"
#include "io/csv.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (1u << 20)
#define REC_MAX ((size_t)64 << 20) /* one record must fit */
#define GPU_KEY ((int64_t)1 << 40) /* "GPU N": a device index, not a node id */

enum { F_NONE, F_AGENT, F_KERNEL, F_API, F_COPY };

typedef struct {
    int64_t lnode;      /* Logical_Node_Id */
    int gpu;            /* 1: Agent_Type GPU */
    td_str name;        /* Product_Name, else Name */
} cagent;

typedef struct {
    char *prefix;       /* the file name before "_kernel_trace.csv" etc. */
    td_trace *t;
    td_rp_tracks tk;
    cagent *ag; size_t nag, agcap;
    int64_t pid;
    td_buf digests;
    uint64_t bytes, negdur, range;
} pacc;

struct td_rocprof_acc {
    pacc *p;
    size_t n, cap;
};

static const char *const SUFFIX[] = {"_agent_info.csv", "_kernel_trace.csv", "_hip_api_trace.csv",
    "_hsa_api_trace.csv", "_rccl_api_trace.csv", "_marker_api_trace.csv",
    "_memory_copy_trace.csv", ".csv", NULL};

static int starts(const unsigned char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3;
        n -= 3;
    }
    return n >= k && memcmp(p, s, k) == 0;
}

static int kind_of(const unsigned char *p, size_t n)
{
    if (starts(p, n, "Kind,Agent_Id,Queue_Id,") || starts(p, n, "\"Kind\",\"Agent_Id\",\"Queue_Id\","))
        return F_KERNEL;
    if (starts(p, n, "Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp") ||
        starts(p, n, "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\""))
        return F_API;
    if (starts(p, n, "Kind,Direction,") || starts(p, n, "\"Kind\",\"Direction\","))
        return F_COPY;
    if (starts(p, n, "Node_Id,Logical_Node_Id,Agent_Type") ||
        starts(p, n, "\"Node_Id\",\"Logical_Node_Id\",\"Agent_Type\""))
        return F_AGENT;
    return F_NONE;
}

int td_rocprof_csv_sniff(const unsigned char *p, size_t n)
{
    return kind_of(p, n) != F_NONE;
}

/* ---------------------------------------------------------------- one file */

typedef struct {
    td_traceset *set;
    pacc *a;
    const char *name;
    td_err *e;
    int kind;
    int col[24];        /* column of each wanted name, -1 absent */
    int have_header;
    td_str cat_kernel, cat_copy;
} cf;

/* the columns each file kind reads, in col[] order */
static const char *const KCOLS[] = {"Agent_Id", "Queue_Id", "Stream_Id", "Kernel_Name", "Correlation_Id",
    "Start_Timestamp", "End_Timestamp", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z",
    "Grid_Size_X", "Grid_Size_Y", "Grid_Size_Z", NULL};
static const char *const ACOLS[] = {"Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id",
    "Start_Timestamp", "End_Timestamp", NULL};
static const char *const MCOLS[] = {"Direction", "Stream_Id", "Source_Agent_Id", "Destination_Agent_Id",
    "Correlation_Id", "Start_Timestamp", "End_Timestamp", NULL};
static const char *const GCOLS[] = {"Logical_Node_Id", "Agent_Type", "Product_Name", "Name", NULL};
static const char *const *const COLS[] = {NULL, GCOLS, KCOLS, ACOLS, MCOLS};
/* columns a file must have */
static const int NEED[] = {0, 2, 7, 7, 7};

static td_status bad(cf *f, uint32_t line, const char *col, const char *what)
{
    return td_fail(f->e, TD_E_FORMAT, "%s: line %u: %s%s%s", f->name, line, col ? col : "",
                   col ? ": " : "", what);
}

static const char *field(const td_csv *c, const cf *f, int i)
{
    int k = f->col[i];
    return k >= 0 && k < c->nf ? td_csv_field(c, k) : NULL;
}

/* An integer column; dflt when absent or empty. -1 on a value that is not a number. */
static int num(const td_csv *c, const cf *f, int i, int64_t dflt, int64_t *v)
{
    const char *s = field(c, f, i);
    if (!s || !*s) {
        *v = dflt;
        return 0;
    }
    char *end;
    long long x = strtoll(s, &end, 10);
    if (*end || end == s)
        return -1;
    *v = x;
    return 0;
}

/* "Agent N", "GPU N", "CPU N" or "N" -> the key td_rp_track gets */
static int agent_key(const char *s, int64_t *key)
{
    if (!s || !*s) {
        *key = -1;
        return 0;
    }
    int gpu = !strncmp(s, "GPU", 3);
    while (*s && (*s < '0' || *s > '9') && *s != '-')
        s++;
    char *end;
    long long x = strtoll(s, &end, 10);
    if (end == s || *end || x < 0 || x >= GPU_KEY)
        return -1;
    *key = gpu ? GPU_KEY | x : x;
    return 0;
}

static td_event *push(cf *f, int64_t ts, int64_t te, int kind, uint32_t track, int64_t corr)
{
    return td_rp_push(f->a->t, ts, te, kind, track, corr, &f->a->negdur, &f->a->range);
}

static td_status header(cf *f, const td_csv *c, uint32_t line)
{
    const char *const *want = COLS[f->kind];
    int n = 0;
    for (int i = 0; want[i]; i++) {
        f->col[i] = -1;
        for (int k = 0; k < c->nf; k++)
            if (!strcmp(td_csv_field(c, k), want[i]))
                f->col[i] = k;
        if (f->col[i] >= 0)
            n++;
    }
    for (int i = 0; i < NEED[f->kind]; i++)
        if (f->col[i] < 0 && !(f->kind == F_KERNEL && (i == 1 || i == 2)) &&
            !(f->kind == F_COPY && i == 1))
            return bad(f, line, want[i], "column missing from the header");
    (void)n;
    f->have_header = 1;
    return TD_OK;
}

static td_status row(cf *f, const td_csv *c, uint32_t line)
{
    pacc *a = f->a;
    td_trace *t = a->t;
    int64_t v[16];
    if (f->kind == F_AGENT) {
        if (num(c, f, 0, -1, &v[0]) < 0)
            return bad(f, line, "Logical_Node_Id", "not a number");
        cagent *g = TD_PUSH(a->ag, a->nag, a->agcap);
        const char *type = field(c, f, 1), *pn = field(c, f, 2), *nm = field(c, f, 3);
        g->lnode = v[0];
        g->gpu = type && !strcmp(type, "GPU");
        g->name = td_intern_cstr(f->set->strs, pn && *pn ? pn : nm ? nm : "");
        return TD_OK;
    }
    if (f->kind == F_KERNEL) {
        int64_t ag;
        if (agent_key(field(c, f, 0), &ag) < 0)
            return bad(f, line, "Agent_Id", "not an agent");
        static const int ncol[] = {1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        for (int i = 0; i < 11; i++)
            if (num(c, f, ncol[i], ncol[i] == 2 ? -1 : 0, &v[ncol[i]]) < 0)
                return bad(f, line, KCOLS[ncol[i]], "not a number");
        uint32_t tr = v[2] >= 0 ? td_rp_track(&a->tk, t, ag, v[2], TD_RP_STREAM)
                                : td_rp_track(&a->tk, t, ag, v[1], TD_RP_QUEUE);
        td_event *ev = push(f, v[5], v[6], TD_K_KERNEL, tr, v[4]);
        ev->cat = td_trace_cat(t, f->cat_kernel);
        ev->name = td_rp_truncated(f->set->strs, NULL, field(c, f, 3));
        if (f->set->analysis_only)
            return TD_OK; /* no external id in the CSV: an aux record only for the sizes */
        td_aux *x;
        ev->aux = td_trace_push_aux(t, &x);
        x->bytes = -1;
        {
            int32_t g[3], w[3];
            for (int i = 0; i < 3; i++) {
                w[i] = v[7 + i] < 0 ? 0 : v[7 + i] > INT32_MAX ? INT32_MAX : (int32_t)v[7 + i];
                g[i] = v[10 + i] < 0 ? 0 : v[10 + i] > INT32_MAX ? INT32_MAX : (int32_t)v[10 + i];
            }
            td_trace_set_dims(t, ev->aux, g, w);
        }
        return TD_OK;
    }
    if (f->kind == F_API) {
        for (int i = 2; i < 7; i++)
            if (num(c, f, i, 0, &v[i]) < 0)
                return bad(f, line, ACOLS[i], "not a number");
        const char *dom = field(c, f, 0), *fn = field(c, f, 1);
        int kind = td_rp_domain_kind(dom);
        if (kind == TD_K_USER_ANNOT && (!fn || !strncmp(fn, "roctx", 5)))
            return TD_OK; /* a ROCTx call without a message */
        if (kind == TD_K_USER_ANNOT && v[6] <= v[5])
            kind = TD_K_INSTANT;
        if (!a->pid)
            a->pid = v[2];
        td_event *ev = push(f, v[5], v[6], kind, td_trace_track(t, -1, v[3]),
                            kind == TD_K_USER_ANNOT || kind == TD_K_INSTANT ? 0 : v[4]);
        ev->name = fn && *fn ? td_intern_cstr(f->set->strs, fn) : 0;
        if (dom && *dom)
            ev->cat = td_trace_cat(t, td_intern_cstr(f->set->strs, dom));
        return TD_OK;
    }
    /* F_COPY */
    int64_t src, dst;
    if (agent_key(field(c, f, 2), &src) < 0 || agent_key(field(c, f, 3), &dst) < 0)
        return bad(f, line, "Source_Agent_Id/Destination_Agent_Id", "not an agent");
    for (int i = 1; i < 7; i++)
        if (i != 2 && i != 3 && num(c, f, i, i == 1 ? -1 : 0, &v[i]) < 0)
            return bad(f, line, MCOLS[i], "not a number");
    /* the GPU end of the copy: the destination unless agent_info says it is a CPU */
    int64_t on = dst;
    for (size_t i = 0; i < a->nag; i++)
        if (!(dst & GPU_KEY) && a->ag[i].lnode == dst && !a->ag[i].gpu)
            on = src;
    uint32_t tr = v[1] >= 0 ? td_rp_track(&a->tk, t, on, v[1], TD_RP_STREAM)
                            : td_rp_track(&a->tk, t, on, 0, TD_RP_COPY);
    td_event *ev = push(f, v[5], v[6], TD_K_MEMCPY, tr, v[4]);
    ev->cat = td_trace_cat(t, f->cat_copy);
    const char *dir = field(c, f, 0);
    ev->name = dir && *dir ? td_intern_cstr(f->set->strs, dir) : 0;
    td_aux *x;
    ev->aux = td_trace_push_aux(t, &x);
    x->bytes = -1;
    return TD_OK;
}

/* Parse whole records in buf[0..n); *line is the line of buf[0] and moves on. */
static td_status parse_block(cf *f, const char *buf, size_t n, uint32_t *line)
{
    td_csv c;
    td_csv_init(&c, f->name, buf, n);
    c.line = *line;
    td_status st = TD_OK;
    uint32_t ln;
    int r;
    while (st == TD_OK && (r = td_csv_next(&c, &ln, f->e)) != 0) {
        if (r < 0) {
            st = f->e->code;
            break;
        }
        st = f->have_header ? row(f, &c, ln) : header(f, &c, ln);
    }
    *line = c.line;
    td_csv_free(&c);
    return st;
}

/* The end of the last whole record in buf[0..n) (after a newline outside quotes), 0 none. */
static size_t whole(const char *buf, size_t n)
{
    int q = 0;
    size_t cut = 0;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '"')
            q = !q;
        else if (buf[i] == '\n' && !q)
            cut = i + 1;
    }
    return cut;
}

static td_status read_file(cf *f, td_in *in)
{
    size_t cap = BLOCK, len = 0;
    char *buf = td_xmalloc(cap);
    uint32_t line = 1;
    td_status st = TD_OK;
    for (;;) {
        if (len == cap) {
            if (cap >= REC_MAX) {
                st = td_fail(f->e, TD_E_FORMAT, "%s: line %u: a record longer than %zu MiB",
                             f->name, line, REC_MAX >> 20);
                break;
            }
            cap *= 2;
            buf = td_xrealloc(buf, cap);
        }
        ptrdiff_t r = td_in_read(in, buf + len, cap - len, f->e);
        if (r < 0) {
            st = f->e->code;
            break;
        }
        if (r == 0) { /* the end: the rest, whole or not */
            if (len)
                st = parse_block(f, buf, len, &line);
            break;
        }
        len += (size_t)r;
        size_t cut = whole(buf, len);
        if (!cut)
            continue;
        st = parse_block(f, buf, cut, &line);
        if (st != TD_OK)
            break;
        memmove(buf, buf + cut, len - cut);
        len -= cut;
    }
    free(buf);
    return st;
}

/* ---------------------------------------------------------------- collecting */

static char *prefix_of(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; SUFFIX[i]; i++) {
        size_t k = strlen(SUFFIX[i]);
        if (n > k && !strcmp(name + n - k, SUFFIX[i])) {
            char *p = td_xmalloc(n - k + 1);
            memcpy(p, name, n - k);
            p[n - k] = 0;
            return p;
        }
    }
    return td_xstrdup(name);
}

static pacc *acc_for(td_traceset *set, const char *name)
{
    if (!set->rocprof_acc)
        set->rocprof_acc = td_xcalloc(1, sizeof *set->rocprof_acc);
    struct td_rocprof_acc *r = set->rocprof_acc;
    char *pre = prefix_of(name);
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->p[i].prefix, pre)) {
            free(pre);
            return &r->p[i];
        }
    pacc *a = TD_PUSH(r->p, r->n, r->cap);
    memset(a, 0, sizeof *a);
    a->prefix = pre;
    char *path = td_arena_printf(set->arena, "%s_*.csv", pre);
    a->t = td_traceset_add(set, path);
    a->t->rank = -1;
    a->t->format = TD_FMT_ROCPROF_CSV;
    /* the process id: PREFIX is rocprofv3's default "PID" (or "HOST/PID") */
    const char *b = strrchr(pre, '/');
    b = b ? b + 1 : pre;
    char *end;
    long long pid = strtoll(b, &end, 10);
    if (end != b && !*end && pid > 0)
        a->pid = pid;
    return a;
}

td_status td_rocprof_csv_collect(td_traceset *set, td_in *in, const char *name, td_err *e)
{
    const unsigned char *p;
    ptrdiff_t n = td_in_peek(in, 256, &p, e);
    if (n < 0)
        return e->code;
    cf f = {.set = set, .name = name, .e = e, .kind = kind_of(p, (size_t)n)};
    if (f.kind == F_NONE)
        return td_fail(e, TD_E_FORMAT, "%s: line 1: not a rocprofv3 CSV header", name);
    f.a = acc_for(set, name);
    f.cat_kernel = td_intern_cstr(set->strs, "KERNEL_DISPATCH");
    f.cat_copy = td_intern_cstr(set->strs, "MEMORY_COPY");
    td_status st = read_file(&f, in);
    if (st != TD_OK)
        return st;
    uint64_t bytes;
    char sha[65];
    st = td_in_finish(in, &bytes, sha, e);
    if (st != TD_OK)
        return st;
    f.a->bytes += bytes;
    const char *base = strrchr(name, '/');
    td_buf_printf(&f.a->digests, "%s  %s\n", sha, base ? base + 1 : name);
    return TD_OK;
}

static int32_t agent_dev(const void *ctx, int64_t key)
{
    const pacc *a = ctx;
    if (key < 0)
        return -1;
    if (key & GPU_KEY)
        return (int32_t)(key & 0xffff);
    if (!a->nag)
        return key < 65536 ? (int32_t)key : -1;
    int32_t gpu = 0;
    for (size_t i = 0; i < a->nag; i++) {
        if (a->ag[i].lnode == key)
            return a->ag[i].gpu ? gpu : -1;
        gpu += a->ag[i].gpu;
    }
    return -1;
}

td_status td_rocprof_csv_done(td_traceset *set, td_status st, td_err *e)
{
    struct td_rocprof_acc *r = set->rocprof_acc;
    if (!r)
        return st;
    for (size_t i = 0; i < r->n; i++) {
        pacc *a = &r->p[i];
        if (st == TD_OK) {
            int32_t gpu = 0;
            for (size_t k = 0; k < a->nag; k++)
                if (a->ag[k].gpu) {
                    td_device *d = td_trace_device(a->t, gpu++);
                    d->name = a->ag[k].name;
                }
            td_rp_tracks_finish(&a->tk, set, a->t, agent_dev, a, a->pid);
            a->t->bytes = a->bytes;
            td_sha256 *sh = td_sha256_new();
            if (!sh) {
                st = td_sha256_fail(a->prefix, e);
            } else {
                td_sha256_update(sh, a->digests.p, a->digests.n);
                td_sha256_final(sh, a->t->sha256);
            }
            if (a->negdur)
                td_warn(&set->warnings, "%s: %llu rows end before they start (duration set to 0)",
                        a->t->path, (unsigned long long)a->negdur);
            if (a->range)
                td_warn(&set->warnings, "%s: %llu rows with times out of range (duration set to 0)",
                        a->t->path, (unsigned long long)a->range);
        }
        free(a->prefix);
        free(a->ag);
        td_buf_free(&a->digests);
        td_rp_tracks_free(&a->tk);
    }
    free(r->p);
    free(r);
    set->rocprof_acc = NULL;
    (void)e;
    return st;
}
