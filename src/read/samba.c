/* read/samba.c - the SambaTune stack-tracing artifact set (doc/formats.md "SambaNova stack
 * tracing") and tracedoc's *_chrome_tracing_report.json read back.
 *
 * Artifact files are CSV with a header row naming the columns; '#' lines and blank lines
 * are skipped. Each file is recognised by its header: layer 1 (est_latency_us), layer 2
 * id map (hypersection + global_id), the schedule (call + global_id), layer 3
 * (final_pmus), layer 4 (measured_latency_us) and the host breakdown (category +
 * time_us). Files are parsed as they are met (syntax and value errors name file and
 * line) into a collection hung on the trace set; when the command-line argument is
 * done, td_samba_input_done joins them, checks them against each other (a call to an
 * unknown id, a hypersection without hyperfunction...) and makes one trace. Latencies
 * are microseconds in the files, parsed straight to integer nanoseconds. */
#define _POSIX_C_SOURCE 200809L
#include "read/samba_int.h"
#include "io/csv.h"
#include "read/chrome.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILE_LIMIT ((size_t)1 << 30)   /* one artifact file, decoded */

enum { K_NONE, K_L1, K_L2, K_SCHED, K_L3, K_L4, K_HOST, K__N };
static const char *const kind_label[K__N] = {
    "", "layer-1", "layer-2 id map", "schedule", "layer-3", "layer-4", "host breakdown"};

/* A parsed artifact row. Which slots a kind uses: see the column tables below. */
typedef struct srow {
    const char *name;  /* hypersection or host category; NULL when keyed by id */
    const char *hf;    /* layer 1: hyperfunction */
    const char *ir;    /* layer 2: IR text */
    int64_t gid;       /* global id, -1 none */
    int64_t iv[4];     /* integers (ns, counts, bytes), -1 = empty cell */
    double fv[3];      /* reals, NAN = empty cell */
    uint32_t line;
} srow;

struct td_samba_acc {
    const char *file[K__N];   /* the file of each kind (one per kind) */
    srow *rows[K__N];
    size_t nrows[K__N], rcap[K__N];
    int64_t *sgid;            /* the schedule: global id and line of each call */
    uint32_t *sline;
    size_t ns, scap;
    uint64_t bytes;
    td_buf digests;           /* "sha256  name\n" per file, hashed into the trace's */
    int nfiles;
    int synthetic;            /* a leading '#' comment line says SYNTHETIC */
};

/* ---------------------------------------------------------------- columns */

typedef struct colspec {
    const char *name;
    char type;   /* 's' text, 'i' count, 'u' microseconds -> ns, 'b' bytes, 'f' real,
                    'r' fraction 0..1, 'k' key (hypersection), 'g' global id, 'c' call */
    int slot;    /* iv/fv index */
    int req;     /* required column */
} colspec;

static const colspec cols_l1[] = {
    {"hypersection", 'k', 0, 1}, {"hyperfunction", 's', 0, 1}, {"tflop", 'f', 0, 1},
    {"est_pmus", 'i', 0, 1}, {"est_pcus", 'i', 1, 1}, {"est_latency_us", 'u', 2, 1}, {0}};
static const colspec cols_l2[] = {
    {"hypersection", 'k', 0, 1}, {"global_id", 'g', 0, 1}, {"ir", 's', 1, 0}, {0}};
static const colspec cols_sched[] = {{"call", 'c', 0, 1}, {"global_id", 'g', 0, 1}, {0}};
static const colspec cols_l3[] = {
    {"hypersection", 'k', 0, 0}, {"global_id", 'g', 0, 0}, {"final_pmus", 'i', 0, 1},
    {"final_pcus", 'i', 1, 1}, {"min_latency_us", 'u', 2, 1}, {"max_latency_us", 'u', 3, 1},
    {0}};
static const colspec cols_l4[] = {
    {"hypersection", 'k', 0, 0}, {"global_id", 'g', 0, 0},
    {"measured_latency_us", 'u', 0, 1}, {"avg_ddr_request_bytes", 'b', 1, 1},
    {"ddr_bw_gbps", 'f', 0, 1}, {"pcie_bw_gbps", 'f', 1, 1}, {"tflop_utilization", 'r', 2, 1},
    {0}};
static const colspec cols_host[] = {{"category", 'k', 0, 1}, {"time_us", 'u', 0, 1}, {0}};
static const colspec *const kind_cols[K__N] = {NULL, cols_l1, cols_l2, cols_sched,
                                               cols_l3, cols_l4, cols_host};

/* Which kind a header is (column names as a list). */
static int kind_of(char *const *h, int n)
{
    int has_gid = 0, has_hs = 0, has_call = 0, has_cat = 0, has_time = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(h[i], "est_latency_us"))
            return K_L1;
        if (!strcmp(h[i], "final_pmus"))
            return K_L3;
        if (!strcmp(h[i], "measured_latency_us"))
            return K_L4;
        has_gid |= !strcmp(h[i], "global_id");
        has_hs |= !strcmp(h[i], "hypersection");
        has_call |= !strcmp(h[i], "call");
        has_cat |= !strcmp(h[i], "category");
        has_time |= !strcmp(h[i], "time_us");
    }
    if (has_call && has_gid)
        return K_SCHED;
    if (has_gid && has_hs)
        return K_L2;
    if (has_cat && has_time)
        return K_HOST;
    return K_NONE;
}

int td_samba_sniff(const unsigned char *p, size_t n)
{
    td_csv c;
    td_err e;
    uint32_t line;
    td_csv_init(&c, "", (const char *)p, n);
    char *h[TD_CSV_MAXF];
    int kind = K_NONE;
    if (td_csv_next(&c, &line, &e) == 1) {
        for (int i = 0; i < c.nf; i++)
            h[i] = c.b.p + c.off[i];
        kind = kind_of(h, c.nf);
    }
    td_csv_free(&c);
    return kind != K_NONE;
}

/* ---------------------------------------------------------------- values */

static td_status bad_line(const td_csv *c, uint32_t line, td_err *e, const char *what)
{
    return td_fail(e, TD_E_FORMAT, "%s: line %u: %s", c->name, line, what);
}

/* Length of the valid UTF-8 sequence at p (strict: no overlongs, surrogates or values
 * above U+10FFFF), or 0. */
static int utf8_seq(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    int n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (!n || (n == 3 && c > 0xef))
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
        (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

/* An arena copy of a text cell; invalid UTF-8 bytes become U+FFFD, so every output
 * (JSON, XML) gets valid text. */
const char *td_samba_text(td_arena *ar, const char *v)
{
    const unsigned char *p = (const unsigned char *)v;
    int ok = 1;
    for (int k; *p; p += k)
        if (!(k = utf8_seq(p))) {
            ok = 0;
            break;
        }
    if (ok)
        return td_arena_strdup(ar, v);
    td_buf b = {0};
    for (p = (const unsigned char *)v; *p;) {
        int k = utf8_seq(p);
        if (k) {
            td_buf_put(&b, p, (size_t)k);
            p += k;
        } else {
            td_buf_puts(&b, "\xEF\xBF\xBD");
            p++;
        }
    }
    const char *r = td_arena_strndup(ar, b.p, b.n);
    td_buf_free(&b);
    return r;
}

typedef struct pctx {
    td_csv *c;
    uint32_t line;
    td_err *e;
} pctx;

static td_status bad_value(pctx *x, const char *col, const char *v, const char *want)
{
    return td_fail(x->e, TD_E_FORMAT, "%s: line %u: column '%s': expected %s, got '%.60s'",
                   x->c->name, x->line, col, want, v);
}

static td_status parse_int(pctx *x, const char *col, const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    long long r = strtoll(v, &end, 10);
    if (end == v || *end || errno)
        return bad_value(x, col, v, "an integer");
    if (r < 0)
        return bad_value(x, col, v, "a non-negative integer");
    *out = r;
    return TD_OK;
}

static td_status parse_us(pctx *x, const char *col, const char *v, int64_t *out)
{
    size_t n = strlen(v);
    int64_t ns;
    const char *q = n < 64 ? td_chrome_parse_scaled(v, v + n, 3, &ns) : NULL;
    if (!q || q != v + n)
        return bad_value(x, col, v, "a time in microseconds");
    if (ns < 0)
        return td_fail(x->e, TD_E_FORMAT, "%s: line %u: negative latency in '%s' (%s)",
                       x->c->name, x->line, col, v);
    *out = ns;
    return TD_OK;
}

static td_status parse_real(pctx *x, const char *col, const char *v, int frac, double *out)
{
    char *end;
    double r = strtod(v, &end);
    if (end == v || *end || !isfinite(r))
        return bad_value(x, col, v, "a number");
    if (r < 0)
        return bad_value(x, col, v, "a non-negative number");
    if (frac && r > 1)
        return bad_value(x, col, v, "a fraction between 0 and 1");
    *out = r;
    return TD_OK;
}

/* ---------------------------------------------------------------- one file */

static struct td_samba_acc *acc_of(td_traceset *set)
{
    if (!set->samba_acc)
        set->samba_acc = td_xcalloc(1, sizeof *set->samba_acc);
    return set->samba_acc;
}

static void acc_free(td_traceset *set)
{
    struct td_samba_acc *a = set->samba_acc;
    if (!a)
        return;
    for (int k = 0; k < K__N; k++)
        free(a->rows[k]);
    free(a->sgid);
    free(a->sline);
    td_buf_free(&a->digests);
    free(a);
    set->samba_acc = NULL;
}

static td_status parse_file(td_traceset *set, struct td_samba_acc *a, const char *name,
                            const char *data, size_t n, td_err *e)
{
    /* generated artifacts say so in a leading comment (tools/gen_samba.py): the documents
     * must say so too */
    for (const char *p = data, *end = data + n; p < end && *p == '#';) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        for (const char *q = p; le - q >= 9; q++)
            if (!memcmp(q, "SYNTHETIC", 9))
                a->synthetic = 1;
        p = nl ? nl + 1 : end;
    }
    td_csv c;
    td_csv_init(&c, name, data, n);
    td_status st = TD_OK;
    uint32_t line;
    int r = td_csv_next(&c, &line, e);
    if (r <= 0) {
        st = r < 0 ? e->code : td_fail(e, TD_E_FORMAT, "%s: no header row", name);
        goto out;
    }
    char *h[TD_CSV_MAXF];
    for (int i = 0; i < c.nf; i++)
        h[i] = c.b.p + c.off[i];
    int kind = kind_of(h, c.nf);
    if (kind == K_NONE) {
        st = td_fail(e, TD_E_FORMAT, "%s: line %u: not a stack-tracing artifact header", name, line);
        goto out;
    }
    if (a->file[kind]) {
        st = td_fail(e, TD_E_FORMAT, "%s: a second %s file (the first is %s)", name,
                     kind_label[kind], a->file[kind]);
        goto out;
    }
    a->file[kind] = td_arena_strdup(set->arena, name);
    /* map columns */
    const colspec *cs = kind_cols[kind];
    int at[16];
    int ncs = 0, nkeys = 0;
    for (; cs[ncs].name; ncs++) {
        at[ncs] = -1;
        for (int i = 0; i < c.nf; i++)
            if (!strcmp(h[i], cs[ncs].name)) {
                if (at[ncs] >= 0) {
                    st = td_fail(e, TD_E_FORMAT, "%s: line %u: column '%s' appears twice", name,
                                 line, cs[ncs].name);
                    goto out;
                }
                at[ncs] = i;
            }
        if (at[ncs] < 0 && cs[ncs].req) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: %s file without column '%s'", name, line,
                         kind_label[kind], cs[ncs].name);
            goto out;
        }
        if (at[ncs] >= 0 && (cs[ncs].type == 'k' || cs[ncs].type == 'g'))
            nkeys++;
    }
    if ((kind == K_L3 || kind == K_L4) && !nkeys) {
        st = td_fail(e, TD_E_FORMAT, "%s: line %u: %s file needs a 'hypersection' or "
                     "'global_id' column", name, line, kind_label[kind]);
        goto out;
    }
    int nhead = c.nf;
    while ((r = td_csv_next(&c, &line, e)) > 0) {
        if (c.nf != nhead) {
            char msg[96];
            snprintf(msg, sizeof msg, "%d fields, the header has %d", c.nf, nhead);
            st = bad_line(&c, line, e, msg);
            goto out;
        }
        pctx x = {&c, line, e};
        srow row;
        memset(&row, 0, sizeof row);
        row.gid = -1;
        row.line = line;
        for (int k = 0; k < 4; k++)
            row.iv[k] = -1;
        for (int k = 0; k < 3; k++)
            row.fv[k] = NAN;
        int64_t call = -1;
        for (int j = 0; j < ncs; j++) {
            if (at[j] < 0)
                continue;
            const char *v = td_csv_field(&c, at[j]);
            const char *col = cs[j].name;
            int empty = !*v;
            switch (cs[j].type) {
            case 'k':
                if (!empty)
                    row.name = td_samba_text(set->arena, v);
                break;
            case 's':
                if (j == 1 && kind == K_L1) {
                    if (empty) {
                        st = td_fail(e, TD_E_FORMAT, "%s: line %u: hypersection '%.80s' has no "
                                     "hyperfunction", name, line, row.name ? row.name : "");
                        goto out;
                    }
                    row.hf = td_samba_text(set->arena, v);
                } else if (!empty) {
                    row.ir = td_samba_text(set->arena, v);
                }
                break;
            case 'g':
                if (!empty && (st = parse_int(&x, col, v, &row.gid)) != TD_OK)
                    goto out;
                break;
            case 'c':
                if ((st = parse_int(&x, col, v, &call)) != TD_OK)
                    goto out;
                break;
            case 'i':
            case 'b':
                if (!empty && (st = parse_int(&x, col, v, &row.iv[cs[j].slot])) != TD_OK)
                    goto out;
                break;
            case 'u':
                if (!empty && (st = parse_us(&x, col, v, &row.iv[cs[j].slot])) != TD_OK)
                    goto out;
                break;
            case 'f':
            case 'r':
                if (!empty &&
                    (st = parse_real(&x, col, v, cs[j].type == 'r', &row.fv[cs[j].slot])) != TD_OK)
                    goto out;
                break;
            }
        }
        if (kind == K_SCHED) {
            if (row.gid < 0) {
                st = bad_line(&c, line, e, "section call without a global_id");
                goto out;
            }
            if (call != (int64_t)a->ns) {
                char msg[128];
                snprintf(msg, sizeof msg, "call %lld out of order (calls are numbered 0, 1, "
                         "2... in order; expected %zu)", (long long)call, a->ns);
                st = bad_line(&c, line, e, msg);
                goto out;
            }
            if (a->ns == a->scap) {
                a->scap = a->scap ? a->scap * 2 : 1024;
                a->sgid = td_xrealloc(a->sgid, a->scap * sizeof *a->sgid);
                a->sline = td_xrealloc(a->sline, a->scap * sizeof *a->sline);
            }
            a->sgid[a->ns] = row.gid;
            a->sline[a->ns++] = line;
            continue;
        }
        if (!row.name && row.gid < 0) {
            st = bad_line(&c, line, e, kind == K_HOST ? "empty category"
                                                      : "row without a hypersection name or id");
            goto out;
        }
        if (kind == K_L2 && (!row.name || row.gid < 0)) {
            st = bad_line(&c, line, e, "a layer-2 id map row needs both a hypersection and "
                          "a global_id");
            goto out;
        }
        if (kind == K_HOST && row.iv[0] < 0) {
            st = bad_line(&c, line, e, "host category without a time");
            goto out;
        }
        *TD_PUSH(a->rows[kind], a->nrows[kind], a->rcap[kind]) = row;
    }
    if (r < 0)
        st = e->code;
out:
    td_csv_free(&c);
    return st;
}

td_status td_samba_collect(td_traceset *set, td_in *in, const char *name, td_err *e)
{
    unsigned char *data;
    size_t n;
    td_status st = td_in_read_all(in, FILE_LIMIT, &data, &n, e);
    if (st != TD_OK)
        return st;
    struct td_samba_acc *a = acc_of(set);
    uint64_t bytes = 0;
    char sha[65];
    st = td_in_finish(in, &bytes, sha, e);
    if (st == TD_OK)
        st = parse_file(set, a, name, (const char *)data, n, e);
    free(data);
    if (st == TD_OK) {
        a->bytes += bytes;
        a->nfiles++;
        const char *b = strrchr(name, '/');
        td_buf_printf(&a->digests, "%s  %s\n", sha, b ? b + 1 : name);
    }
    return st;
}

/* ---------------------------------------------------------------- joining */

void td_samba_nmap_init(td_samba_nmap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2)
        m->cap *= 2;
    m->slot = td_xmalloc(m->cap * sizeof *m->slot);
    memset(m->slot, 0xff, m->cap * sizeof *m->slot);
}

int32_t *td_samba_nmap_find(td_samba_nmap *m, const td_samba_hs *hs, const char *name)
{
    size_t i = td_hash64(name, strlen(name)) & (m->cap - 1);
    while (m->slot[i] >= 0 && strcmp(hs[m->slot[i]].name, name) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slot[i];
}

typedef struct gidx {
    int64_t gid;
    uint32_t hs;
} gidx;

static int cmp_gidx(const void *x, const void *y)
{
    const gidx *a = x, *b = y;
    return (a->gid > b->gid) - (a->gid < b->gid);
}

static const gidx *gid_find(const gidx *v, size_t n, int64_t gid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m].gid < gid)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && v[lo].gid == gid ? &v[lo] : NULL;
}

void td_samba_hs_init(td_samba_hs *h, const char *name)
{
    memset(h, 0, sizeof *h);
    h->name = name;
    h->global_id = -1;
    h->tflop = h->ddr_gbps = h->pcie_gbps = h->tflop_util = NAN;
    h->est_pmus = h->est_pcus = h->final_pmus = h->final_pcus = -1;
    h->est_ns = h->min_ns = h->max_ns = h->measured_ns = h->ddr_req_bytes = -1;
}

int64_t td_samba_call_ns(const td_samba_hs *h)
{
    return h->measured_ns >= 0 ? h->measured_ns : h->est_ns >= 0 ? h->est_ns : 0;
}

static const char *model_name(td_arena *ar, const char *arg)
{
    size_t n = strlen(arg);
    while (n > 1 && arg[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && arg[s - 1] != '/')
        s--;
    static const char *const suf[] = {".tar.gz", ".tgz", ".tar", ".csv"};
    for (size_t k = 0; k < sizeof suf / sizeof suf[0]; k++) {
        size_t l = strlen(suf[k]);
        if (n - s > l && memcmp(arg + n - l, suf[k], l) == 0) {
            n -= l;
            break;
        }
    }
    return td_arena_strndup(ar, arg + s, n - s);
}

/* One synthetic event per section call on the model row and one per host category, so
 * the trace's span is the model run (the same events the report's rows carry). */
static void add_events(td_traceset *set, td_trace *t, const td_samba *sb)
{
    uint32_t model = td_trace_track(t, 1, 0);
    t->tracks[model].process_name = td_intern_cstr(set->strs, "Model");
    t->tracks[model].thread_name = td_intern_cstr(set->strs, "model run");
    uint16_t cat = td_trace_cat(t, td_intern_cstr(set->strs, "model"));
    int64_t ts = 0;
    for (size_t i = 0; i < sb->nsched; i++) {
        const td_samba_hs *h = &sb->hs[sb->sched[i]];
        td_event *ev = td_trace_push_event(t);
        ev->ts = ts;
        ev->dur = td_samba_call_ns(h);
        ev->name = td_intern_cstr(set->strs, h->name);
        ev->track = model;
        ev->cat = cat;
        ev->kind = TD_K_OTHER;
        ev->ph = 'X';
        ts += ev->dur;
    }
    uint16_t hcat = td_trace_cat(t, td_intern_cstr(set->strs, "host"));
    for (size_t i = 0; i < sb->nhost; i++) {
        uint32_t tr = td_trace_track(t, 0, (int64_t)i + 1);
        t->tracks[tr].process_name = td_intern_cstr(set->strs, "Host");
        td_event *ev = td_trace_push_event(t);
        ev->ts = 0;
        ev->dur = sb->host[i].ns;
        ev->name = td_intern_cstr(set->strs, sb->host[i].name);
        ev->track = tr;
        ev->cat = hcat;
        ev->kind = TD_K_OTHER;
        ev->ph = 'X';
    }
    t->nevents = t->nev;
}

static td_status join(td_traceset *set, struct td_samba_acc *a, const char *arg, td_err *e)
{
    td_arena *ar = set->arena;
    td_samba *sb = td_arena_alloc(ar, sizeof *sb);
    sb->model = model_name(ar, arg);
    sb->synthetic = a->synthetic;
    size_t cap = a->nrows[K_L1] + a->nrows[K_L2] + a->nrows[K_L3] + a->nrows[K_L4] + 1;
    td_samba_hs *hs = td_xmalloc(cap * sizeof *hs);
    size_t nhs = 0;
    td_samba_nmap m;
    td_samba_nmap_init(&m, cap);
    gidx *gv = NULL;
    size_t ng = 0;
    td_status st = TD_OK;
    int l1 = a->file[K_L1] != NULL, l2 = a->file[K_L2] != NULL;

    for (size_t i = 0; i < a->nrows[K_L1]; i++) {
        const srow *r = &a->rows[K_L1][i];
        if (!r->name) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: empty hypersection name", a->file[K_L1],
                         r->line);
            goto out;
        }
        int32_t *sl = td_samba_nmap_find(&m, hs, r->name);
        if (*sl >= 0) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: hypersection '%.80s' listed twice",
                         a->file[K_L1], r->line, r->name);
            goto out;
        }
        *sl = (int32_t)nhs;
        td_samba_hs *h = &hs[nhs++];
        td_samba_hs_init(h, r->name);
        h->hyperfunction = r->hf;
        h->tflop = r->fv[0];
        h->est_pmus = r->iv[0];
        h->est_pcus = r->iv[1];
        h->est_ns = r->iv[2];
    }
    gv = td_xmalloc((a->nrows[K_L2] + 1) * sizeof *gv);
    for (size_t i = 0; i < a->nrows[K_L2]; i++) {
        const srow *r = &a->rows[K_L2][i];
        int32_t *sl = td_samba_nmap_find(&m, hs, r->name);
        if (*sl < 0) {
            if (l1) {
                st = td_fail(e, TD_E_FORMAT, "%s: line %u: hypersection '%.80s' has no "
                             "hyperfunction (it is not in the layer-1 file %s)", a->file[K_L2],
                             r->line, r->name, a->file[K_L1]);
                goto out;
            }
            *sl = (int32_t)nhs;
            td_samba_hs_init(&hs[nhs++], r->name);
        }
        td_samba_hs *h = &hs[*sl];
        if (h->global_id >= 0) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: hypersection '%.80s' given a second "
                         "global id", a->file[K_L2], r->line, r->name);
            goto out;
        }
        h->global_id = r->gid;
        h->ir = r->ir;
        gv[ng].gid = r->gid;
        gv[ng++].hs = (uint32_t)*sl;
    }
    if (ng)
        qsort(gv, ng, sizeof *gv, cmp_gidx);
    for (size_t i = 1; i < ng; i++)
        if (gv[i].gid == gv[i - 1].gid) {
            st = td_fail(e, TD_E_FORMAT, "%s: global id %lld is given to both '%.80s' and "
                         "'%.80s'", a->file[K_L2], (long long)gv[i].gid, hs[gv[i - 1].hs].name,
                         hs[gv[i].hs].name);
            goto out;
        }
    /* layers 3 and 4, by name or global id */
    for (int k = K_L3; k <= K_L4; k++) {
        /* sized for every slot, not today's nhs: layers 3/4 may still add hypersections */
        uint8_t *seen = td_xcalloc(cap + 1, 1);
        for (size_t i = 0; i < a->nrows[k]; i++) {
            const srow *r = &a->rows[k][i];
            int32_t idx = -1;
            if (r->name) {
                int32_t *sl = td_samba_nmap_find(&m, hs, r->name);
                if (*sl < 0 && !l1 && !l2 && nhs < cap) { /* only layers 3/4: they name them */
                    *sl = (int32_t)nhs;
                    td_samba_hs_init(&hs[nhs++], r->name);
                }
                idx = *sl;
            } else {
                const gidx *g = gid_find(gv, ng, r->gid);
                idx = g ? (int32_t)g->hs : -1;
            }
            if (idx < 0) {
                if (r->name)
                    st = td_fail(e, TD_E_FORMAT, "%s: line %u: unknown hypersection '%.80s'",
                                 a->file[k], r->line, r->name);
                else
                    st = td_fail(e, TD_E_FORMAT, "%s: line %u: unknown hypersection id %lld%s",
                                 a->file[k], r->line, (long long)r->gid,
                                 l2 ? "" : " (no layer-2 id map was given)");
                free(seen);
                goto out;
            }
            if (seen[idx]) {
                st = td_fail(e, TD_E_FORMAT, "%s: line %u: hypersection '%.80s' listed twice",
                             a->file[k], r->line, hs[idx].name);
                free(seen);
                goto out;
            }
            seen[idx] = 1;
            td_samba_hs *h = &hs[idx];
            if (k == K_L3) {
                h->final_pmus = r->iv[0];
                h->final_pcus = r->iv[1];
                h->min_ns = r->iv[2];
                h->max_ns = r->iv[3];
                if (h->min_ns >= 0 && h->max_ns >= 0 && h->min_ns > h->max_ns) {
                    st = td_fail(e, TD_E_FORMAT, "%s: line %u: min_latency_us is above "
                                 "max_latency_us", a->file[k], r->line);
                    free(seen);
                    goto out;
                }
            } else {
                h->measured_ns = r->iv[0];
                h->ddr_req_bytes = r->iv[1];
                h->ddr_gbps = r->fv[0];
                h->pcie_gbps = r->fv[1];
                h->tflop_util = r->fv[2];
            }
        }
        free(seen);
    }
    /* the schedule */
    if (a->ns && !l2) {
        st = td_fail(e, TD_E_FORMAT, "%s: line %u: section call to global id %lld, but no "
                     "layer-2 id map (hypersection,global_id) was given", a->file[K_SCHED],
                     a->sline[0], (long long)a->sgid[0]);
        goto out;
    }
    sb->sched = td_arena_alloc(ar, (a->ns + 1) * sizeof *sb->sched);
    for (size_t i = 0; i < a->ns; i++) {
        const gidx *g = gid_find(gv, ng, a->sgid[i]);
        if (!g) {
            st = td_fail(e, TD_E_FORMAT, "%s: line %u: section call to unknown hypersection "
                         "id %lld", a->file[K_SCHED], a->sline[i], (long long)a->sgid[i]);
            goto out;
        }
        sb->sched[i] = g->hs;
    }
    sb->nsched = a->ns;
    /* host breakdown */
    sb->host = td_arena_alloc(ar, (a->nrows[K_HOST] + 1) * sizeof *sb->host);
    for (size_t i = 0; i < a->nrows[K_HOST]; i++) {
        const srow *r = &a->rows[K_HOST][i];
        for (size_t j = 0; j < sb->nhost; j++)
            if (!strcmp(sb->host[j].name, r->name)) {
                st = td_fail(e, TD_E_FORMAT, "%s: line %u: host category '%.80s' listed twice",
                             a->file[K_HOST], r->line, r->name);
                goto out;
            }
        sb->host[sb->nhost].name = r->name;
        sb->host[sb->nhost++].ns = r->iv[0];
    }
    if (!nhs && !sb->nhost) {
        st = td_fail(e, TD_E_FORMAT, "%s: no hypersections (layer 1 or 2) and no host "
                     "breakdown", arg);
        goto out;
    }
    sb->hs = td_arena_alloc(ar, (nhs + 1) * sizeof *sb->hs);
    memcpy(sb->hs, hs, nhs * sizeof *hs);
    sb->nhs = nhs;
    static const unsigned bit[K__N] = {0, TD_SAMBA_L1, TD_SAMBA_L2, TD_SAMBA_SCHED,
                                       TD_SAMBA_L3, TD_SAMBA_L4, TD_SAMBA_HOST};
    for (int k = 1; k < K__N; k++)
        if (a->file[k])
            sb->layers |= bit[k];

    td_trace *t = td_traceset_add(set, arg);
    t->rank = -1;
    t->format = TD_FMT_SAMBA;
    t->bytes = a->bytes;
    td_sha256 *sh = td_sha256_new();
    td_sha256_update(sh, a->digests.p, a->digests.n);
    td_sha256_final(sh, t->sha256);
    t->samba = sb;
    add_events(set, t, sb);
out:
    free(hs);
    free(m.slot);
    free(gv);
    return st;
}

td_status td_samba_input_done(td_traceset *set, const char *arg, td_status st, td_err *e)
{
    struct td_samba_acc *a = set->samba_acc;
    if (a && a->nfiles && st == TD_OK)
        st = join(set, a, arg, e);
    acc_free(set);
    return st;
}

