/* analyse/xla/common.c - helpers every XLA pass uses (and merge/xla.c): the int64 -> index
 * map (program ids, correlation ids) and the NVTX payload field reader. Below the XLA
 * passes so that they do not call each other for them. */
#include "analyse/xla/xla.h"
#include <stdlib.h>
#include <string.h>

void xla_idmap_init(xla_idmap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2 + 16) m->cap *= 2;
    m->n = 0;
    m->k = td_xmalloc(m->cap * sizeof *m->k);
    m->v = td_xmalloc(m->cap * sizeof *m->v);
    for (size_t i = 0; i < m->cap; i++) m->k[i] = INT64_MIN;
}
static size_t idmap_slot(const xla_idmap *m, int64_t k)
{
    size_t h = (size_t)((uint64_t)k * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
    while (m->k[h] != INT64_MIN && m->k[h] != k) h = (h + 1) & (m->cap - 1);
    return h;
}
void xla_idmap_put(xla_idmap *m, int64_t k, uint32_t v)
{
    if (k == INT64_MIN) return;
    if ((m->n + 1) * 2 > m->cap) {
        xla_idmap old = *m;
        xla_idmap_init(m, old.cap);
        for (size_t i = 0; i < old.cap; i++)
            if (old.k[i] != INT64_MIN) xla_idmap_put(m, old.k[i], old.v[i]);
        free(old.k);
        free(old.v);
    }
    size_t h = idmap_slot(m, k);
    if (m->k[h] == INT64_MIN) { m->k[h] = k; m->v[h] = v; m->n++; }   /* first wins */
}
int64_t xla_idmap_get(const xla_idmap *m, int64_t k)
{
    if (k == INT64_MIN) return -1;
    size_t h = idmap_slot(m, k);
    return m->k[h] == k ? (int64_t)m->v[h] : -1;
}
void xla_idmap_free(xla_idmap *m) { free(m->k); free(m->v); }

/* Value of "key=" inside an NVTX payload "#a=1,b=2#" (up to ',' or '#'). */
int xla_field(const char *s, const char *key, const char **v, size_t *n)
{
    size_t kl = strlen(key);
    const char *p = strchr(s, '#');
    while (p && *p) {
        p++;
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            *v = p + kl + 1;
            *n = strcspn(*v, ",#");
            return 1;
        }
        p = strchr(p, ',');
    }
    return 0;
}
