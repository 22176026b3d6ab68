/* partial/read.c - reading a .tds partial summary into the state (partial/partial.c), line by
 * line: the checks that parts belong together, the damaged-file refusals. */
#define _GNU_SOURCE
#include "partial/internal.h"
#include "base/hash.h"
#include "io/peek.h"
#include "model/job.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- reading ------------------------------------------------------------------- */

int td_is_partial(const char *path)
{
    /* the look is kept for the reader when the input is a pipe (io/peek.h) */
    char head[32];
    ssize_t n = td_peek(path, head, sizeof head);
    size_t m = strlen(TD_TDS_MAGIC);
    return n > (ssize_t)m && !memcmp(head, TD_TDS_MAGIC, m) && head[m] == '\t';
}

/* Unescape a field in place; returns 0 on a bad escape. *null set for \N. */
static int unesc(char *s, int *null)
{
    *null = 0;
    if (s[0] == '\\' && s[1] == 'N' && !s[2]) {
        *null = 1;
        return 1;
    }
    char *o = strchr(s, '\\'); /* (most fields have no escape) */
    if (!o)
        return 1;
    for (char *i = o; *i; i++) {
        if (*i != '\\') {
            *o++ = *i;
            continue;
        }
        switch (*++i) {
        case '\\': *o++ = '\\'; break;
        case 't': *o++ = '\t'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 'u': *o++ = '\x1f'; break;
        default: return 0;
        }
    }
    *o = 0;
    return 1;
}

static int parse_i64(const char *s, int64_t *v)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end)
        return 0;
    *v = x;
    return 1;
}

static int parse_cell(char *s, td_type t, td_cell *c, td_arena *a)
{
    int null;
    if (!unesc(s, &null))
        return 0;
    if (t == TD_T_TEXT) {
        c->s = null ? NULL : td_arena_strdup(a, s);
        return 1;
    }
    if (td_tds_is_dbl(t)) {
        if (null) {
            c->f = NAN;
            return 1;
        }
        char *end;
        c->f = strtod(s, &end);
        return *s && !*end;
    }
    if (null) {
        c->i = TD_NA;
        return 1;
    }
    return parse_i64(s, &c->i);
}

typedef struct pmap {        /* a part's table: its columns in the accumulated table */
    td_table *t;
    int ncols;
    int map[TD_MAXCOLS];
    td_type type[TD_MAXCOLS];
} pmap;

/* Seen inputs (rank + SHA-256): a rank given twice is refused. */
static const char *seen_add(td_partial *p, const char *key, const char *path)
{
    if ((p->nseen + 1) * 2 > p->nseen_slot) {
        size_t ns = p->nseen_slot ? p->nseen_slot * 2 : 256;
        uint32_t *sl = td_xcalloc(ns, sizeof *sl);
        for (size_t k = 0; k < p->nseen; k++) {
            size_t i = td_part_hash(p->seen[k].key, strlen(p->seen[k].key)) & (ns - 1);
            while (sl[i])
                i = (i + 1) & (ns - 1);
            sl[i] = (uint32_t)k + 1;
        }
        free(p->seen_slot);
        p->seen_slot = sl;
        p->nseen_slot = ns;
    }
    size_t i = td_part_hash(key, strlen(key)) & (p->nseen_slot - 1);
    while (p->seen_slot[i]) {
        if (!strcmp(p->seen[p->seen_slot[i] - 1].key, key))
            return p->seen[p->seen_slot[i] - 1].path;
        i = (i + 1) & (p->nseen_slot - 1);
    }
    size_t cap = p->seen_cap;
    struct td_seen *x = TD_PUSH(p->seen, p->nseen, cap);
    p->seen_cap = cap;
    x->key = td_arena_strdup(p->a, key);
    x->path = path;
    p->seen_slot[i] = (uint32_t)p->nseen;
    return NULL;
}

/* Header fields that must agree between parts. */
static td_status check_meta(td_partial *p, const char *path, const char *what, char **slot,
                            const char *v, int allow_empty, td_err *e)
{
    if (!p->parts || !*slot) {
        if (!*slot || !**slot)
            *slot = td_arena_strdup(p->a, v);
        return TD_OK;
    }
    if (allow_empty && (!*v || !**slot)) {
        if (!**slot)
            *slot = td_arena_strdup(p->a, v);
        return TD_OK;
    }
    if (strcmp(*slot, v))
        return td_fail(e, TD_E_FORMAT, "%s: does not belong with %s: %s '%s' here, '%s' there",
                       path, p->first_path, what, v, *slot);
    return TD_OK;
}

/* The header facts of one job (model/job.h: the rule traces of one run follow too): input
 * format, device, world size; the first part's facts are the job's. */
static td_status check_job(td_partial *p, const char *path, const td_job_facts *f, td_err *e)
{
    td_job_facts job = {.path = p->first_path, .format = p->format ? p->format : "",
                        .device = p->device ? p->device : "", .world_size = p->world,
                        .rank = -1};
    char why[256];
    if (p->parts && td_job_differs(&job, f, why, sizeof why))
        return td_fail(e, TD_E_FORMAT, "%s: does not belong with %s: %s", path, p->first_path,
                       why);
    if (!p->format || !*p->format)
        p->format = td_arena_strdup(p->a, f->format);
    if (!p->device || !*p->device)
        p->device = td_arena_strdup(p->a, f->device);
    if (f->world_size)
        p->world = f->world_size;
    return TD_OK;
}

#define MAXF (TD_MAXCOLS + 8)

/* A keyed record (not a flame: td_part_stack_add) of type with values v merged into p;
 * its sketch or collective instances from the field after the values. */
static td_status merge_rec(td_partial *p, int type, char **fld, const int64_t *v,
                           const char *path, size_t lno, td_err *e)
{
    const td_rtype *rt = &td_rtypes[type];
    if (type == TD_R_XLOC && td_part_xloc_loses(p, fld[2], strlen(fld[2]), 1))
        return TD_OK; /* a part of lower rank gave this instruction's locations */
    size_t before = p->nr;
    td_rec *r = td_part_add(p, type, fld[2], strlen(fld[2]), v);
    if (p->overflow)
        return td_fail(e, TD_E_FORMAT, "%s: line %zu: %s record '%s': a total overflows 64 "
                       "bits when merged (damaged or not a real measurement)", path, lno,
                       rt->tag, fld[2]);
    int fresh = p->nr != before;
    if (type == TD_R_KERN || type == TD_R_KDEV) {
        td_sketch sk;
        const char *x = fld[3 + rt->nv];
        if (!td_sketch_parse(&sk, x, strlen(x)))
            return td_fail(e, TD_E_FORMAT, "%s: line %zu: bad sketch", path, lno);
        if (!r->sk)
            r->sk = td_xcalloc(1, sizeof *r->sk);
        td_sketch_merge(r->sk, &sk);
        td_sketch_free(&sk);
    } else if (type == TD_R_KCOLL) {
        const char *x = fld[3 + rt->nv];
        int64_t per = v[3];
        int64_t *inst = NULL;
        if (per > 0 && strcmp(x, "-")) {
            if (per > 100000000)
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: too many instances", path, lno);
            inst = td_xmalloc((size_t)per * 3 * sizeof *inst);
            const char *c = x;
            for (int64_t k = 0; k < 3 * per; k++) {
                char *end;
                errno = 0;
                inst[k] = strtoll(c, &end, 10);
                if (errno || end == c || (k + 1 < 3 * per ? *end != ',' : *end != 0)) {
                    free(inst);
                    return td_fail(e, TD_E_FORMAT, "%s: line %zu: bad collective instances",
                                   path, lno);
                }
                c = end + 1;
            }
        }
        td_part_inst(r, inst, per, fresh);
        free(inst);
    }
    return TD_OK;
}

td_status td_partial_merge_file(td_partial *p, const char *path, td_err *e)
{
    FILE *f = td_peek_fopen(path);
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    const char *ppath = td_arena_strdup(p->a, path);
    char *line = NULL;
    size_t lcap = 0, lno = 0;
    ssize_t len;
    int header = 1, ended = 0, have_parts = 0, last_type = -1;
    td_job_facts job = {.path = ppath, .format = "", .device = "", .rank = -1};
    int64_t parts = 1;
    td_status st = TD_OK;
    pmap *pm = NULL;
    size_t npm = 0, pmcap = 0;
    char *fld[MAXF];
    int64_t v[TD_R_NV];
#define BAD(...) do { st = td_fail(e, TD_E_FORMAT, __VA_ARGS__); goto out; } while (0)
    td_sha256 *hs = td_sha256_new(); /* of the lines before the sum line */
    char sum[65] = "";
    int summed = 0;
    if (!hs) {
        st = td_sha256_fail(NULL, e);
        goto out;
    }
    while ((len = getline(&line, &lcap, f)) > 0) {
        lno++;
        if (ended)
            BAD("%s: line %zu: text after the end line", path, lno);
        if (summed && strncmp(line, "end\t", 4))
            BAD("%s: line %zu: text after the sum line (damaged)", path, lno);
        if (strncmp(line, "sum\t", 4) && strncmp(line, "end\t", 4))
            td_sha256_update(hs, line, (size_t)len);
        if (line[len - 1] != '\n')
            BAD("%s: line %zu: truncated (no end of line)", path, lno);
        line[--len] = 0;
        int nf = 0;
        char *q = line;
        for (;;) {
            if (nf == MAXF)
                BAD("%s: line %zu: too many fields", path, lno);
            fld[nf++] = q;
            char *t = strchr(q, '\t');
            if (!t)
                break;
            *t = 0;
            q = t + 1;
        }
        int null;
        if (lno == 1) {
            if (strcmp(fld[0], TD_TDS_MAGIC))
                BAD("%s: not a tracedoc partial summary (.tds)", path);
            if (nf < 2 || atoi(fld[1]) != TD_TDS_VERSION || strspn(fld[1], "0123456789") != strlen(fld[1]))
                BAD("%s: line 1: partial summary version %s; this tracedoc reads version %d",
                    path, nf > 1 ? fld[1] : "?", TD_TDS_VERSION);
            continue;
        }
        const char *tag = fld[0];
        if (header && (!strcmp(tag, "kv") || !strcmp(tag, "table") || !strcmp(tag, "rec") ||
                       !strcmp(tag, "flame") || !strcmp(tag, "warn") || !strcmp(tag, "end") ||
                       !strcmp(tag, "sum"))) {
            header = 0;
            if ((st = check_job(p, path, &job, e)) != TD_OK)
                goto out;
            if (!p->first_path)
                p->first_path = ppath;
        }
        if (header) {
            if (nf != 2 && !(nf == 3 && !strcmp(tag, "sketch")))
                BAD("%s: line %zu: bad header line", path, lno);
            if (!unesc(fld[1], &null))
                BAD("%s: line %zu: bad escape", path, lno);
            const char *val = null ? "" : fld[1];
            if (!strcmp(tag, "tool"))
                st = check_meta(p, path, "tracedoc version", &p->tool, val, 0, e);
            else if (!strcmp(tag, "options"))
                st = check_meta(p, path, "analysis options", &p->options, val, 0, e);
            else if (!strcmp(tag, "format"))
                job.format = td_arena_strdup(p->a, val);
            else if (!strcmp(tag, "device"))
                job.device = td_arena_strdup(p->a, val);
            else if (!strcmp(tag, "sketch")) {
                char a[64];
                snprintf(a, sizeof a, "%g", TD_SKETCH_ALPHA);
                if (nf != 3 || strcmp(fld[1], "ddsketch") || strcmp(fld[2], a))
                    BAD("%s: line %zu: sketch %s %s; this tracedoc uses ddsketch %s", path, lno,
                        fld[1], nf > 2 ? fld[2] : "", a);
            } else if (!strcmp(tag, "world_size")) {
                int64_t w;
                if (!parse_i64(val, &w) || w < 0)
                    BAD("%s: line %zu: bad world_size", path, lno);
                job.world_size = w;
            } else if (!strcmp(tag, "parts")) {
                if (!parse_i64(val, &parts) || parts < 1)
                    BAD("%s: line %zu: bad parts count", path, lno);
                have_parts = 1;
            } else if (strcmp(tag, "timebase") || strcmp(val, "ns"))
                BAD("%s: line %zu: unknown header '%s'", path, lno, tag);
            if (st != TD_OK)
                goto out;
            continue;
        }
        int is_rec = !strcmp(tag, "rec"), is_row = !is_rec && !strcmp(tag, "row");
        for (int k = 1; k < nf && !is_rec && !is_row; k++)
            if (!unesc(fld[k], &null))
                BAD("%s: line %zu: bad escape in field %d", path, lno, k + 1);
        if (is_rec) {
            int type = -1;
            /* (the record types of a part come in runs: the type of the line before) */
            if (nf >= 3 && last_type >= 0 && !strcmp(fld[1], td_rtypes[last_type].tag))
                type = last_type;
            for (int k = 0; k < TD_R__N && nf >= 3 && type < 0; k++)
                if (k != TD_R_XBEST && !strcmp(fld[1], td_rtypes[k].tag))
                    type = k;
            if (type < 0)
                BAD("%s: line %zu: unknown record '%s'", path, lno, nf > 1 ? fld[1] : "");
            last_type = type;
            const td_rtype *rt = &td_rtypes[type];
            int extra = type == TD_R_KERN || type == TD_R_KDEV || type == TD_R_KCOLL;
            if (nf != 3 + rt->nv + extra || !unesc(fld[2], &null) || null)
                BAD("%s: line %zu: bad %s record", path, lno, rt->tag);
            for (int k = 0; k < rt->nv; k++)
                if (!parse_i64(fld[3 + k], &v[k]))
                    BAD("%s: line %zu: bad number '%s'", path, lno, fld[3 + k]);
            if (type == TD_R_FLAME) {
                if (!td_part_stack_add(p, fld[2], strlen(fld[2]), v[0]))
                    BAD("%s: line %zu: %s record '%s': a total overflows 64 bits when merged "
                        "(damaged or not a real measurement)", path, lno, rt->tag, fld[2]);
                continue;
            }
            if ((st = merge_rec(p, type, fld, v, path, lno, e)) != TD_OK)
                goto out;
        } else if (!strcmp(tag, "kv")) {
            td_type t;
            td_cell c;
            if (nf != 5 || !td_type_parse(fld[2], strlen(fld[2]), &t) || !parse_cell(fld[4], t, &c, p->acc->a))
                BAD("%s: line %zu: bad kv line", path, lno);
            td_part_kv(p, fld[1], fld[3], t, c);
            if (p->overflow)
                BAD("%s: line %zu: %s: a total overflows 64 bits when merged (damaged or not "
                    "a real measurement)", path, lno, fld[1]);
        } else if (!strcmp(tag, "table")) {
            if (nf < 5 || nf - 4 > TD_MAXCOLS) /* at least one column */
                BAD("%s: line %zu: bad table line", path, lno);
            pmap *m = TD_PUSH(pm, npm, pmcap);
            m->ncols = nf - 4;
            for (int k = 0; k < m->ncols; k++) {
                char *c1 = strchr(fld[4 + k], ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                if (!c2)
                    BAD("%s: line %zu: bad column '%s'", path, lno, fld[4 + k]);
                if (!td_type_parse(c1 + 1, (size_t)(c2 - c1 - 1), &m->type[k]))
                    BAD("%s: line %zu: bad column type in '%s'", path, lno, fld[4 + k]);
            }
            m->t = td_part_schema(p, fld[1], fld[2], fld[3][0] == '1', m->ncols, fld + 4, m->map);
        } else if (!strcmp(tag, "row")) {
            if (nf < 2 || !unesc(fld[1], &null))
                BAD("%s: line %zu: bad row line", path, lno);
            pmap *m = NULL;
            for (size_t k = npm; k-- > 0;)
                if (!strcmp(pm[k].t->name, fld[1])) {
                    m = &pm[k];
                    break;
                }
            if (!m || nf - 2 != m->ncols)
                BAD("%s: line %zu: row of table '%s' before its table line or with %d cells",
                    path, lno, fld[1], nf - 2);
            size_t r = td_table_add_row(m->t);
            for (int k = 0; k < m->ncols; k++) {
                td_cell c;
                if (!parse_cell(fld[2 + k], m->type[k], &c, p->acc->a))
                    BAD("%s: line %zu: bad cell %d", path, lno, k + 1);
                if (m->map[k] >= 0 && m->t->cols[m->map[k]].type == m->type[k])
                    *td_table_cell(m->t, r, m->map[k]) = c;
            }
            if (!strcmp(fld[1], "inputs")) {
                int cr = td_table_col(m->t, "rank"), cs = td_table_col(m->t, "sha256"),
                    cp = td_table_col(m->t, "path");
                const td_cell *sh = cs >= 0 ? td_table_cell(m->t, r, cs) : NULL;
                if (cr >= 0 && sh && sh->s) {
                    char key[128];
                    snprintf(key, sizeof key, "%" PRId64 ":%s", td_table_cell(m->t, r, cr)->i,
                             sh->s);
                    const char *other = seen_add(p, key, ppath);
                    if (other)
                        BAD("%s: does not belong with %s: both hold rank %" PRId64 " of the same "
                            "trace (%s)", path, other, td_table_cell(m->t, r, cr)->i,
                            cp >= 0 && td_table_cell(m->t, r, cp)->s
                                ? td_table_cell(m->t, r, cp)->s : "?");
                }
            }
        } else if (!strcmp(tag, "flame")) {
            if (nf != 3)
                BAD("%s: line %zu: bad flame line", path, lno);
            if (!td_sum_find_flame(p->acc, fld[1]))
                td_sum_flame(p->acc, td_arena_strdup(p->acc->a, fld[1]),
                             td_arena_strdup(p->acc->a, fld[2]));
        } else if (!strcmp(tag, "warn")) {
            if (nf != 2)
                BAD("%s: line %zu: bad warn line", path, lno);
            td_part_warn(p->acc, fld[1]);
        } else if (!strcmp(tag, "sum")) {
            td_sha256_final(hs, sum);
            hs = NULL;
            if (nf != 3 || strcmp(fld[1], "sha256"))
                BAD("%s: line %zu: bad sum line (damaged)", path, lno);
            if (strcmp(fld[2], sum))
                BAD("%s: line %zu: checksum mismatch: the part is damaged (SHA-256 of lines "
                    "1-%zu is %s, the sum line says %s)", path, lno, lno - 1, sum, fld[2]);
            summed = 1;
        } else if (!strcmp(tag, "end")) {
            int64_t n;
            if (nf != 2 || !parse_i64(fld[1], &n) || (size_t)n != lno - 1)
                BAD("%s: line %zu: the end line says %s lines, the file has %zu (damaged)", path,
                    lno, nf > 1 ? fld[1] : "?", lno - 1);
            ended = 1;
        } else
            BAD("%s: line %zu: unknown line '%s'", path, lno, tag);
    }
    if (ferror(f))
        BAD("%s: read error: %s", path, strerror(errno));
    if (!lno)
        BAD("%s: empty file (not a partial summary)", path);
    if (!ended)
        BAD("%s: truncated: no end line after line %zu", path, lno);
    /* parts written before the sum line (tracedoc until issue 20) have none: merged,
     * their end line still checks the line count (doc/scale-out.md) */
    p->parts += have_parts ? parts : 1;
#undef BAD
out:
    if (hs)
        td_sha256_final(hs, sum);
    free(line);
    free(pm);
    fclose(f);
    return st;
}
