/* read/ipu.c - the tracedoc.ipu/1 export (JSON Lines) of a PopVision report; see
 * read/ipu.h and doc/formats.md "Graphcore IPU export".
 *
 * The stream is read through a reused buffer one line at a time; each line is one small
 * JSON object parsed by jansson, so memory grows with the records kept, never with the
 * file. A step belongs to the last "run" line before it. Errors say "FILE: line N (byte
 * M): ...", M being the offset of the offending byte in the (decoded) stream. */
#define _POSIX_C_SOURCE 200809L
#include "read/ipu.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE ((size_t)64 << 20)
#define MAX_IPUS 65536
#define MAX_TILES_PER_IPU (1 << 20)
#define U32MAX 4294967295LL

int td_ipu_sniff(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
        i++;
    if (i >= n || p[i] != '{')
        return 0;
    /* the schema name in the first bytes (the header should be the first line; when it
     * is not, the reader says so with the line) */
    static const char key[] = "\"tracedoc.ipu/";
    for (size_t k = i; k + sizeof key - 1 <= n; k++)
        if (memcmp(p + k, key, sizeof key - 1) == 0)
            return 1;
    return 0;
}

/* ---- per-line context ---- */

typedef struct rctx {
    td_traceset *set;
    td_trace *t;
    td_ipu *m;
    const char *name;
    td_err *e;
    uint64_t line;          /* 1-based */
    uint64_t off;           /* byte offset of the line's first byte */
    int have_header;
    int in_run;             /* a run line was seen */
    uint64_t over32;        /* values beyond 32 bits */
    uint64_t over32_line;
    char over32_what[160];
    uint64_t wraps;         /* cyclesTo < cyclesFrom (32-bit wrap assumed) */
    uint64_t wrap_line;
    uint64_t unknown_types;
    uint64_t unknown_line;
    char unknown_name[64];
    int json_bad;           /* the last error was a JSON syntax error */
} rctx;

static td_status bad(rctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static td_status bad(rctx *c, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return td_fail(c->e, TD_E_FORMAT, "%s: line %llu (byte %llu): %s", c->name,
                   (unsigned long long)c->line, (unsigned long long)c->off, msg);
}

/* A non-negative integer field; absent or null -> *out = dflt (TD_IPU_NA = unknown).
 * required: absent is an error. */
static td_status get_count(rctx *c, json_t *o, const char *key, int required, int64_t dflt,
                           int64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            return bad(c, "missing '%s'", key);
        *out = dflt;
        return TD_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return bad(c, "'%s': expected a non-negative integer", key);
    *out = (int64_t)json_integer_value(v);
    return TD_OK;
}

static td_status get_share(rctx *c, json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    *out = NAN;
    if (!v || json_is_null(v))
        return TD_OK;
    if (!json_is_number(v))
        return bad(c, "'%s': expected a number from 0 to 1", key);
    double d = json_number_value(v);
    if (!(d >= 0 && d <= 1))
        return bad(c, "'%s': expected a number from 0 to 1, got %g", key, d);
    *out = d;
    return TD_OK;
}

static void note_over32(rctx *c, int64_t v, const char *what)
{
    if (v == TD_IPU_NA || v <= U32MAX)
        return;
    if (!c->over32++) {
        c->over32_line = c->line;
        snprintf(c->over32_what, sizeof c->over32_what, "%s = %lld", what, (long long)v);
    }
}

static td_str intern_json(rctx *c, json_t *v)
{
    return td_intern(c->set->strs, json_string_value(v), json_string_length(v));
}

/* ---- records ---- */

static td_status rec_header(rctx *c, json_t *o)
{
    json_t *schema = json_object_get(o, "schema");
    if (!json_is_string(schema) || strncmp(json_string_value(schema), "tracedoc.ipu/", 13))
        return bad(c, "the first record must be the report header with "
                      "\"schema\": \"tracedoc.ipu/1\"");
    if (strcmp(json_string_value(schema), "tracedoc.ipu/1") != 0)
        return bad(c, "unsupported schema '%s' (this tracedoc reads tracedoc.ipu/1)",
                   json_string_value(schema));
    json_t *tg = json_object_get(o, "target");
    if (!json_is_object(tg))
        return bad(c, "missing 'target' object");
    int64_t nipus, tpi;
    td_status st;
    if ((st = get_count(c, tg, "numIPUs", 1, 0, &nipus)) != TD_OK ||
        (st = get_count(c, tg, "tilesPerIpu", 1, 0, &tpi)) != TD_OK)
        return st;
    if (nipus < 1 || nipus > MAX_IPUS)
        return bad(c, "'numIPUs': expected 1 to %d, got %lld", MAX_IPUS, (long long)nipus);
    if (tpi < 1 || tpi > MAX_TILES_PER_IPU)
        return bad(c, "'tilesPerIpu': expected 1 to %d, got %lld", MAX_TILES_PER_IPU,
                   (long long)tpi);
    json_t *clk = json_object_get(tg, "clockFrequency");
    if (!json_is_number(clk) || !(json_number_value(clk) > 0) ||
        !isfinite(json_number_value(clk)))
        return bad(c, "'clockFrequency': expected a positive number (Hz)");
    c->m->nipus = (int32_t)nipus;
    c->m->tiles_per_ipu = (int32_t)tpi;
    c->m->clock_hz = json_number_value(clk);
    json_t *pv = json_object_get(o, "poplarVersion");
    if (json_is_string(pv))
        c->m->poplar_version = intern_json(c, pv);
    c->m->synthetic = json_is_true(json_object_get(o, "synthetic"));
    json_t *lwp = json_object_get(o, "lwp");
    if (lwp && !json_is_null(lwp)) {
        json_t *sel = json_is_object(lwp) ? json_object_get(lwp, "selectedTiles") : NULL;
        if (!json_is_array(sel))
            return bad(c, "'lwp': expected an object with a 'selectedTiles' array");
        size_t i;
        json_t *x;
        int64_t ntiles = nipus * tpi;
        json_array_foreach(sel, i, x)
        {
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) >= ntiles)
                return bad(c, "'selectedTiles'[%zu]: expected a tile from 0 to %lld", i,
                           (long long)ntiles - 1);
            *TD_PUSH(c->m->lwp_tiles, c->m->nlwp_tiles, c->m->lwp_tiles_cap) =
                (int32_t)json_integer_value(x);
        }
    }
    c->have_header = 1;
    return TD_OK;
}

static td_status rec_run(rctx *c, json_t *o)
{
    td_ipu *m = c->m;
    json_t *r = json_object_get(o, "run");
    if (r && (!json_is_integer(r) || json_integer_value(r) != (json_int_t)m->nruns))
        return bad(c, "'run': expected %zu (runs are numbered in order from 0)", m->nruns);
    td_ipu_run *run = TD_PUSH(m->runs, m->nruns, m->runs_cap);
    memset(run, 0, sizeof *run);
    run->first_step = (uint32_t)m->nsteps;
    json_t *nm = json_object_get(o, "name");
    if (json_is_string(nm) && json_string_length(nm))
        run->name = intern_json(c, nm);
    else {
        char buf[48];
        snprintf(buf, sizeof buf, "Engine::run #%zu", m->nruns - 1);
        run->name = td_intern_cstr(c->set->strs, buf);
    }
    run->us_start = run->us_end = TD_IPU_NA;
    json_t *us = json_object_get(o, "microseconds");
    if (us && !json_is_null(us)) {
        if (!json_is_object(us))
            return bad(c, "'microseconds': expected {\"start\": N, \"end\": N}");
        td_status st;
        if ((st = get_count(c, us, "start", 1, 0, &run->us_start)) != TD_OK ||
            (st = get_count(c, us, "end", 1, 0, &run->us_end)) != TD_OK)
            return st;
        if (run->us_end < run->us_start)
            return bad(c, "'microseconds': end %lld is before start %lld",
                       (long long)run->us_end, (long long)run->us_start);
    }
    c->in_run = 1;
    return TD_OK;
}

static int parse_type(const char *s)
{
    for (int i = 0; i < TD_IPU_OTHER; i++)
        if (strcmp(s, td_ipu_type_name(i)) == 0)
            return i;
    if (strcmp(s, "External Sync") == 0)
        return TD_IPU_EXTERNALSYNC;
    return -1;
}

/* activeCycles.{cyclesFrom,cyclesTo}.{min,max} */
static td_status get_minmax(rctx *c, json_t *ac, const char *key, int64_t *mn, int64_t *mx)
{
    json_t *o = json_object_get(ac, key);
    if (!json_is_object(o))
        return bad(c, "'activeCycles.%s': expected {\"min\": N, \"max\": N}", key);
    td_status st;
    if ((st = get_count(c, o, "min", 1, 0, mn)) != TD_OK ||
        (st = get_count(c, o, "max", 1, 0, mx)) != TD_OK)
        return st;
    if (*mx < *mn)
        return bad(c, "'activeCycles.%s': max %lld is below min %lld", key, (long long)*mx,
                   (long long)*mn);
    return TD_OK;
}

static td_status step_ipu(rctx *c, json_t *o, size_t idx, const char *stepname)
{
    td_ipu *m = c->m;
    if (!json_is_object(o))
        return bad(c, "'ipus'[%zu]: expected an object", idx);
    td_ipu_stepipu *s = TD_PUSH(m->sipu, m->nsipu, m->sipu_cap);
    memset(s, 0, sizeof *s);
    int64_t ipu;
    td_status st;
    if ((st = get_count(c, o, "ipu", 1, 0, &ipu)) != TD_OK)
        return st;
    if (ipu >= m->nipus)
        return bad(c, "'ipus'[%zu]: ipu %lld is not below numIPUs %d", idx, (long long)ipu,
                   m->nipus);
    s->ipu = (int32_t)ipu;
    json_t *ac = json_object_get(o, "activeCycles");
    if (!json_is_object(ac))
        return bad(c, "'ipus'[%zu]: missing 'activeCycles'", idx);
    if ((st = get_minmax(c, ac, "cyclesFrom", &s->from_min, &s->from_max)) != TD_OK ||
        (st = get_minmax(c, ac, "cyclesTo", &s->to_min, &s->to_max)) != TD_OK)
        return st;
    if ((st = get_count(c, o, "cycles", 0, TD_IPU_NA, &s->cycles)) != TD_OK)
        return st;
    if (s->cycles == TD_IPU_NA) {
        if (s->to_max >= s->from_min)
            s->cycles = s->to_max - s->from_min;
        else if (s->from_min <= U32MAX && s->to_max <= U32MAX) {
            /* a 32-bit cycle counter wrapped between the step's start and end */
            s->cycles = s->to_max + (U32MAX + 1) - s->from_min;
            if (!c->wraps++)
                c->wrap_line = c->line;
        } else
            return bad(c, "'ipus'[%zu]: cyclesTo.max %lld is before cyclesFrom.min %lld", idx,
                       (long long)s->to_max, (long long)s->from_min);
    }
    char what[128];
    snprintf(what, sizeof what, "cycles of '%.60s' on IPU %lld", stepname, (long long)ipu);
    note_over32(c, s->cycles, what);
    int64_t at;
    if ((st = get_count(c, o, "activeTiles", 0, -1, &at)) != TD_OK)
        return st;
    if (at > m->tiles_per_ipu)
        return bad(c, "'activeTiles' %lld exceeds tilesPerIpu %d", (long long)at,
                   m->tiles_per_ipu);
    s->active_tiles = (int32_t)at;
    if ((st = get_share(c, o, "tileBalance", &s->tile_balance)) != TD_OK ||
        (st = get_share(c, o, "activeTileBalance", &s->active_tile_balance)) != TD_OK ||
        (st = get_share(c, o, "dataBalance", &s->data_balance)) != TD_OK ||
        (st = get_count(c, o, "dataIn", 0, TD_IPU_NA, &s->data_in)) != TD_OK ||
        (st = get_count(c, o, "dataOut", 0, TD_IPU_NA, &s->data_out)) != TD_OK)
        return st;
    snprintf(what, sizeof what, "dataIn of '%.60s' on IPU %lld", stepname, (long long)ipu);
    note_over32(c, s->data_in, what);
    snprintf(what, sizeof what, "dataOut of '%.60s' on IPU %lld", stepname, (long long)ipu);
    note_over32(c, s->data_out, what);
    s->tile_cycles = TD_IPU_NA;
    json_t *bt = json_object_get(o, "cyclesByTile");
    if (bt && !json_is_null(bt)) {
        if (!json_is_array(bt) || json_array_size(bt) != (size_t)m->tiles_per_ipu)
            return bad(c, "'cyclesByTile': expected an array of tilesPerIpu (%d) counts",
                       m->tiles_per_ipu);
        int64_t sum = 0, mx = 0, act = 0;
        size_t i;
        json_t *x;
        json_array_foreach(bt, i, x)
        {
            if (!json_is_integer(x) || json_integer_value(x) < 0)
                return bad(c, "'cyclesByTile'[%zu]: expected a non-negative integer", i);
            int64_t v = (int64_t)json_integer_value(x);
            if (__builtin_add_overflow(sum, v, &sum))
                return bad(c, "'cyclesByTile': the sum does not fit 64 bits");
            snprintf(what, sizeof what, "cyclesByTile[%zu] of '%.60s' on IPU %lld", i,
                     stepname, (long long)ipu);
            note_over32(c, v, what);
            if (v > mx)
                mx = v;
            act += v > 0;
        }
        s->tile_cycles = sum;
        /* formats.md sec. 6: tile balance = share of the IPU's tiles active in the step;
         * active tile balance = how evenly the active tiles share it (their mean over
         * the longest). libpva's own values, when exported, are kept. */
        if (s->active_tiles < 0)
            s->active_tiles = (int32_t)act;
        if (isnan(s->tile_balance))
            s->tile_balance = (double)act / m->tiles_per_ipu;
        if (isnan(s->active_tile_balance) && act > 0 && mx > 0)
            s->active_tile_balance = (double)sum / ((double)act * (double)mx);
    } else if (isnan(s->tile_balance) && s->active_tiles >= 0)
        s->tile_balance = (double)s->active_tiles / m->tiles_per_ipu;
    return TD_OK;
}

static td_status rec_step(rctx *c, json_t *o)
{
    td_ipu *m = c->m;
    if (!c->in_run)
        return bad(c, "a step before any run record");
    json_t *r = json_object_get(o, "run");
    if (r && (!json_is_integer(r) || json_integer_value(r) != (json_int_t)(m->nruns - 1)))
        return bad(c, "'run': a step belongs to the last run record before it (%zu)",
                   m->nruns - 1);
    json_t *p = json_object_get(o, "program");
    if (!json_is_object(p))
        return bad(c, "missing 'program' object");
    json_t *ty = json_object_get(p, "type");
    if (!json_is_string(ty))
        return bad(c, "'program.type': expected a string such as \"OnTileExecute\"");
    td_ipu_step *s = TD_PUSH(m->steps, m->nsteps, m->steps_cap);
    memset(s, 0, sizeof *s);
    s->run = (int32_t)(m->nruns - 1);
    int type = parse_type(json_string_value(ty));
    if (type < 0) {
        type = TD_IPU_OTHER;
        if (!c->unknown_types++) {
            c->unknown_line = c->line;
            snprintf(c->unknown_name, sizeof c->unknown_name, "%s", json_string_value(ty));
        }
    }
    s->type = (uint8_t)type;
    json_t *nm = json_object_get(p, "name");
    if (nm && !json_is_null(nm) && !json_is_string(nm))
        return bad(c, "'program.name': expected a string");
    s->name = nm && json_is_string(nm) ? intern_json(c, nm) : 0;
    json_t *vt = json_object_get(p, "vertexTypes");
    if (json_is_array(vt) && json_array_size(vt) && json_is_string(json_array_get(vt, 0)))
        s->vertex = intern_json(c, json_array_get(vt, 0));
    json_t *dir = json_object_get(p, "direction");
    if (type == TD_IPU_STREAMCOPYMID && json_is_string(dir)) {
        const char *d = json_string_value(dir);
        s->dir = !strcmp(d, "Host") ? TD_IPU_DIR_HOST
                 : !strcmp(d, "RemoteBuffer") ? TD_IPU_DIR_REMOTE
                 : !strcmp(d, "Mixed") ? TD_IPU_DIR_MIXED : 0;
        if (!s->dir)
            return bad(c, "'program.direction': expected Host, RemoteBuffer or Mixed");
    } else if (type == TD_IPU_STREAMCOPYMID)
        s->dir = TD_IPU_DIR_HOST;
    json_t *ipus = json_object_get(o, "ipus");
    if (!json_is_array(ipus))
        return bad(c, "missing 'ipus' array");
    if (json_array_size(ipus) > (size_t)m->nipus)
        return bad(c, "'ipus': more entries than numIPUs (%d)", m->nipus);
    s->first = (uint32_t)m->nsipu;
    const char *sn = td_strget(c->set->strs, s->name);
    size_t i;
    json_t *x;
    json_array_foreach(ipus, i, x)
    {
        td_status st = step_ipu(c, x, i, sn);
        if (st != TD_OK)
            return st;
        for (size_t k = s->first; k + 1 < m->nsipu; k++)
            if (m->sipu[k].ipu == m->sipu[m->nsipu - 1].ipu)
                return bad(c, "'ipus': IPU %d appears twice", m->sipu[k].ipu);
    }
    s->n = (uint32_t)(m->nsipu - s->first);
    m->runs[m->nruns - 1].nsteps++;
    return TD_OK;
}

static td_status rec_block(rctx *c, json_t *o)
{
    td_ipu *m = c->m;
    json_t *k = json_object_get(o, "kind");
    if (!json_is_string(k))
        return bad(c, "'kind': expected Common, StreamCopyBegin, StreamCopyMid, "
                      "StreamCopyEnd, BufferFlush or Overflow");
    int kind = -1;
    for (int i = 0; i < TD_LWP__NKINDS; i++)
        if (strcmp(json_string_value(k), td_lwp_kind_name(i)) == 0)
            kind = i;
    if (kind < 0)
        return bad(c, "'kind': expected Common, StreamCopyBegin, StreamCopyMid, "
                      "StreamCopyEnd, BufferFlush or Overflow, got '%.40s'",
                   json_string_value(k));
    int64_t tile;
    td_status st;
    if ((st = get_count(c, o, "tile", 1, 0, &tile)) != TD_OK)
        return st;
    if (tile >= (int64_t)m->nipus * m->tiles_per_ipu)
        return bad(c, "'tile' %lld: the target has %lld tiles", (long long)tile,
                   (long long)m->nipus * m->tiles_per_ipu);
    td_ipu_block *b = TD_PUSH(m->blocks, m->nblocks, m->blocks_cap);
    memset(b, 0, sizeof *b);
    b->kind = (uint8_t)kind;
    b->tile = (int32_t)tile;
    b->ipu = (int32_t)(tile / m->tiles_per_ipu);
    if ((st = get_count(c, o, "cyclesFrom", 0, TD_IPU_NA, &b->from)) != TD_OK ||
        (st = get_count(c, o, "cyclesTo", 0, TD_IPU_NA, &b->to)) != TD_OK)
        return st;
    if (kind == TD_LWP_OVERFLOW && (b->from == TD_IPU_NA || b->to == TD_IPU_NA))
        return bad(c, "an Overflow block needs cyclesFrom and cyclesTo");
    if (b->from != TD_IPU_NA && b->to != TD_IPU_NA && b->to < b->from)
        return bad(c, "cyclesTo %lld is before cyclesFrom %lld", (long long)b->to,
                   (long long)b->from);
    json_t *nm = json_object_get(o, "name");
    if (json_is_string(nm))
        b->name = intern_json(c, nm);
    return TD_OK;
}

static td_status do_line(rctx *c, const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
        i++;
    if (i == n)
        return TD_OK; /* blank line */
    json_error_t je;
    json_t *o = json_loadb(p, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!o) {
        c->off += (uint64_t)(je.position > 0 ? je.position - 1 : 0);
        c->json_bad = 1;
        return bad(c, "invalid JSON: %s", je.text);
    }
    td_status st;
    const char *ty = json_string_value(json_object_get(o, "type"));
    if (!json_is_object(o))
        st = bad(c, "expected a JSON object");
    else if (!ty)
        st = bad(c, "missing \"type\" (report, run, step or block)");
    else if (!c->have_header)
        st = strcmp(ty, "report") == 0 ? rec_header(c, o)
                                         : bad(c, "the first record must be the report "
                                                  "header (\"type\": \"report\")");
    else if (!strcmp(ty, "run"))
        st = rec_run(c, o);
    else if (!strcmp(ty, "step"))
        st = rec_step(c, o);
    else if (!strcmp(ty, "block"))
        st = rec_block(c, o);
    else if (!strcmp(ty, "report"))
        st = bad(c, "a second report header");
    else
        st = bad(c, "unknown record type '%.40s' (expected run, step or block)", ty);
    json_decref(o);
    return st;
}

static void finish_warnings(rctx *c)
{
    td_warnings *w = &c->set->warnings;
    size_t before = w->n;
    if (c->over32)
        td_warn(w, "%s: line %llu: %s exceeds 32 bits; the IPU's 32-bit counters may have "
                   "wrapped (%llu value%s above 4294967295)",
                c->name, (unsigned long long)c->over32_line, c->over32_what,
                (unsigned long long)c->over32, c->over32 == 1 ? "" : "s");
    if (c->wraps)
        td_warn(w, "%s: line %llu: cyclesTo before cyclesFrom: a 32-bit cycle counter "
                   "wrapped; the step's length was taken modulo 2^32 (%llu step%s)",
                c->name, (unsigned long long)c->wrap_line, (unsigned long long)c->wraps,
                c->wraps == 1 ? "" : "s");
    if (c->unknown_types)
        td_warn(w, "%s: line %llu: unknown program type '%s' counted as Other (%llu step%s)",
                c->name, (unsigned long long)c->unknown_line, c->unknown_name,
                (unsigned long long)c->unknown_types, c->unknown_types == 1 ? "" : "s");
    c->m->over32 = c->over32;
    c->m->wraps = c->wraps;
    for (size_t i = before; i < w->n && c->m->nnotes < 4; i++)
        c->m->notes[c->m->nnotes++] = td_arena_strdup(c->set->arena, w->msg[i]);
}

/* The line buffer: complete lines are parsed in place, a partial one is kept. */
typedef struct lbuf {
    char *p;
    size_t n, cap;
} lbuf;

td_status td_read_ipu(td_traceset *set, td_trace *t, td_in *in, td_err *e)
{
    rctx c;
    memset(&c, 0, sizeof c);
    c.set = set;
    c.t = t;
    c.e = e;
    c.name = td_in_name(in);
    c.m = td_xcalloc(1, sizeof *c.m);
    t->ipu = c.m;
    t->format = TD_FMT_IPU;
    lbuf b = {0};
    b.cap = 1 << 20;
    b.p = td_xmalloc(b.cap);
    td_status st = TD_OK;
    uint64_t base = 0; /* stream offset of b.p[0] */
    int eof = 0;
    size_t pos = 0;    /* first unconsumed byte of b */
    size_t scan = 0;   /* bytes of b already searched for a newline */
    while (st == TD_OK) {
        if (scan < pos)
            scan = pos;
        char *nl = scan < b.n ? memchr(b.p + scan, '\n', b.n - scan) : NULL;
        if (!nl && !eof) {
            if (pos) { /* move the partial line to the front, then read more */
                memmove(b.p, b.p + pos, b.n - pos);
                b.n -= pos;
                base += pos;
                scan -= pos;
                pos = 0;
            }
            scan = b.n;
            if (b.n == b.cap) {
                if (b.cap >= MAX_LINE) {
                    c.line++;
                    c.off = base;
                    st = bad(&c, "line longer than %zu MiB", MAX_LINE >> 20);
                    break;
                }
                b.cap *= 2;
                b.p = td_xrealloc(b.p, b.cap);
            }
            ptrdiff_t r = td_in_read(in, b.p + b.n, b.cap - b.n, e);
            if (r < 0) {
                st = e->code;
                break;
            }
            if (r == 0)
                eof = 1;
            b.n += (size_t)r;
            continue;
        }
        size_t len = nl ? (size_t)(nl - (b.p + pos)) : b.n - pos;
        if (!nl && len == 0)
            break; /* done */
        c.line++;
        c.off = base + pos;
        st = do_line(&c, b.p + pos, len);
        if (st != TD_OK && !nl && c.have_header && c.json_bad) {
            /* a truncated last line (no newline): keep what came before */
            td_warn(&set->warnings, "%s: line %llu: truncated last record ignored (%s)",
                    c.name, (unsigned long long)c.line, e->msg);
            e->code = TD_OK;
            e->msg[0] = 0;
            st = TD_OK;
            break;
        }
        pos += nl ? len + 1 : len;
        t->nevents++;
    }
    free(b.p);
    if (st == TD_OK && !c.have_header)
        st = td_fail(e, TD_E_FORMAT, "%s: empty IPU export (no report header)", c.name);
    if (st == TD_OK)
        finish_warnings(&c);
    return st;
}

td_status td_read_ipu_mem(td_traceset *set, td_trace *t, const char *name, const void *data,
                          size_t n, td_err *e)
{
    td_in *in = td_in_open_mem(data, n, name);
    td_status st = td_read_ipu(set, t, in, e);
    td_in_close(in);
    return st;
}
