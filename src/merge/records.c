/* merge/records.c - reading a merged partial's records, shared by merge/merge.c and
 * merge/xla.c: key fields, the records of one type, an empty table with another's
 * columns. */
#include "merge/internal.h"
#include <stdlib.h>
#include <string.h>

/* Key field k (0-based) of a record key, copied into buf. */
const char *td_part_kfield(const td_rec *r, int k, char *buf, size_t cap)
{
    const char *s = r->key;
    for (int i = 0; i < k && s; i++) {
        s = strchr(s, '\x1f');
        if (s)
            s++;
    }
    if (!s) {
        buf[0] = 0;
        return buf;
    }
    size_t n = strcspn(s, "\x1f");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return buf;
}

/* Key field k in the summary's arena. */
const char *td_part_kstr(td_summary *s, const td_rec *r, int k)
{
    const char *p = r->key;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, '\x1f');
        if (p)
            p++;
    }
    if (!p)
        return "";
    return td_arena_strndup(s->a, p, strcspn(p, "\x1f"));
}

int64_t td_part_kint(const td_rec *r, int k)
{
    char b[64];
    td_part_kfield(r, k, b, sizeof b);
    return b[0] ? strtoll(b, NULL, 10) : TD_NA;
}

/* Records of one type, as pointers. */
td_rec **td_part_recs(const td_partial *p, int type, size_t *n)
{
    size_t m = 0;
    for (size_t i = 0; i < p->nr; i++)
        m += p->r[i].type == type;
    td_rec **v = td_xmalloc((m + 1) * sizeof *v);
    m = 0;
    for (size_t i = 0; i < p->nr; i++)
        if (p->r[i].type == type)
            v[m++] = &p->r[i];
    *n = m;
    return v;
}

td_table *td_part_like(td_summary *s, const td_table *t)
{
    td_table *d = td_sum_table(s, t->name, t->title);
    d->no_json = t->no_json;
    static const char *const TN[] = {"text", "int", "ns", "share", "bytes", "f64", "gbps",
                                     "device", "bool"};
    for (int c = 0; c < t->ncols; c++)
        td_table_cols(d, td_arena_printf(s->a, "%s:%s:%s", t->cols[c].key, TN[t->cols[c].type],
                                         t->cols[c].title), NULL);
    return d;
}
