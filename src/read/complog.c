/* read/complog.c - DeepRT compile logs: the "Perf Summary" tables of ideal cycles per
 * kernel (see read/aiu.h and doc/formats.md "IBM AIU").
 *
 * A table opens at a line containing " Ideal/Total Cycles " and closes at
 * "====== Perf Summary End ======". Its data rows are `NAME  CYCLES` (NAME of letters,
 * digits, '_' and '-', separated by spaces); rows naming Precompute or -LxPreload are
 * skipped, as is the "Total" sum line. NAME is `<kernel>-opCat<Category>` (the category
 * follows the last "-opCat") or `<kernel>-NA` (category "NotAvailable"); a name with
 * neither keeps the whole name as kernel, category "NotAvailable". The first row of a
 * kernel in a table wins. */
#include "read/aiu.h"
#include <stdlib.h>
#include <string.h>

#define LOG_LIMIT ((size_t)1 << 30)

static const char *memstr(const char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == needle[0] && !memcmp(p + i, needle, k))
            return p + i;
    return NULL;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

/* A data row: NAME spaces DIGITS spaces*. Returns 1 and the parts. */
static int data_row(const char *p, size_t n, size_t *name_len, const char **num, size_t *num_len)
{
    size_t i = 0;
    while (i < n && name_char(p[i]))
        i++;
    if (!i || i == n || p[i] != ' ')
        return 0;
    *name_len = i;
    while (i < n && p[i] == ' ')
        i++;
    size_t d = i;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    if (i == d)
        return 0;
    *num = p + d;
    *num_len = i - d;
    while (i < n && p[i] == ' ')
        i++;
    return i == n;
}

static int cmp_ideal(const void *x, const void *y)
{
    const td_aiu_ideal *a = x, *b = y;
    if (a->table != b->table)
        return a->table < b->table ? -1 : 1;
    if (a->kernel != b->kernel)
        return a->kernel < b->kernel ? -1 : 1;
    return 0;
}

typedef struct {
    td_aiu_ideal v;
    size_t idx;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    int c = cmp_ideal(&a->v, &b->v);
    if (c)
        return c;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

td_status td_read_complog(td_traceset *set, const char *name, const char *data, size_t n,
                          td_err *e)
{
    size_t first = set->nideal;
    int active = 0, tables = 0, open_line = 0;
    size_t line = 0;
    td_buf kb = {0};
    for (const char *p = data, *end = data + n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t len = (size_t)(le - p);
        line++;
        if (len && p[len - 1] == '\r')
            len--;
        if (memstr(p, len, " Ideal/Total Cycles ")) {
            if (active)
                td_warn(&set->warnings, "%s: line %zu: a Perf Summary table opens inside "
                        "another (the first one ends here)", name, line);
            active = 1;
            open_line = (int)line;
            tables++;
        } else if (active && memstr(p, len, "====== Perf Summary End ======")) {
            active = 0;
        } else if (active) {
            size_t nl_len, num_len;
            const char *num;
            if (data_row(p, len, &nl_len, &num, &num_len) && !memstr(p, nl_len, "Precompute") &&
                !memstr(p, nl_len, "-LxPreload") && !(nl_len == 5 && !memcmp(p, "Total", 5))) {
                int64_t cyc = 0;
                if (num_len > 18) {
                    td_buf_free(&kb);
                    return td_fail(e, TD_E_FORMAT, "%s: line %zu: ideal cycles out of range",
                                   name, line);
                }
                for (size_t i = 0; i < num_len; i++)
                    cyc = cyc * 10 + (num[i] - '0');
                const char *cat = memstr(p, nl_len, "-opCat"), *c2;
                size_t klen = nl_len;
                const char *category = "NotAvailable";
                size_t clen = strlen(category);
                if (cat) {
                    klen = (size_t)(cat - p);
                    while ((c2 = memstr(cat + 6, nl_len - (size_t)(cat + 6 - p), "-opCat")))
                        cat = c2;
                    category = cat + 6;
                    clen = nl_len - (size_t)(cat + 6 - p);
                } else if (nl_len > 3 && !memcmp(p + nl_len - 3, "-NA", 3)) {
                    klen = nl_len - 3;
                }
                kb.n = 0;
                td_buf_put(&kb, p, klen);
                td_buf_puts(&kb, " Cmpt Exec");
                td_aiu_ideal *id = TD_PUSH(set->ideal, set->nideal, set->ideal_cap);
                id->kernel = td_intern(set->strs, kb.p, kb.n);
                id->category = clen ? td_intern(set->strs, category, clen)
                                    : td_intern_cstr(set->strs, "NotAvailable");
                id->cycles = cyc;
                id->table = set->nideal_tables + tables - 1;
            }
        }
        p = nl ? nl + 1 : end;
    }
    td_buf_free(&kb);
    if (!tables)
        return td_fail(e, TD_E_FORMAT, "%s: no DeepRT Perf Summary table (a line containing "
                       "' Ideal/Total Cycles ')", name);
    if (active)
        td_warn(&set->warnings, "%s: line %d: the Perf Summary table opened here is not closed "
                "(rows up to the end of the file kept)", name, open_line);
    /* the first row of a kernel in each table wins (tables without rows: nothing to do,
     * and set->ideal may still be NULL) */
    size_t cnt = set->nideal - first;
    if (!cnt) {
        set->nideal_tables += tables;
        if (!set->complog_path)
            set->complog_path = td_arena_strdup(set->arena, name);
        return TD_OK;
    }
    td_aiu_ideal *v = set->ideal + first;
    ranked *r = td_xmalloc((cnt + 1) * sizeof *r);
    td_aiu_ideal *tmp = td_xmalloc((cnt + 1) * sizeof *tmp);
    for (size_t i = 0; i < cnt; i++) {
        r[i].v = v[i];
        r[i].idx = i;
    }
    qsort(r, cnt, sizeof *r, cmp_ranked);
    size_t w = 0;
    for (size_t i = 0; i < cnt; i++) {
        if (w && !cmp_ideal(&tmp[w - 1], &r[i].v)) {
            if (tmp[w - 1].cycles != r[i].v.cycles || tmp[w - 1].category != r[i].v.category)
                td_warn(&set->warnings, "%s: kernel %s appears twice in one Perf Summary table "
                        "with different values (the first kept)", name,
                        td_strget(set->strs, r[i].v.kernel));
            continue;
        }
        tmp[w++] = r[i].v;
    }
    memcpy(v, tmp, w * sizeof *v);
    set->nideal = first + w;
    set->nideal_tables += tables;
    if (!set->complog_path)
        set->complog_path = td_arena_strdup(set->arena, name);
    free(r);
    free(tmp);
    return TD_OK;
}

td_status td_read_complog_file(td_traceset *set, const char *path, td_err *e)
{
    char *data;
    size_t n;
    td_status st = td_read_small_file(path, &data, &n, e);
    if (st != TD_OK)
        return st;
    st = td_read_complog(set, path, data, n, e);
    free(data);
    return st;
}
