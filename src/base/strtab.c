/* base/strtab.c - see base/strtab.h. Open addressing over ids; strings in an arena. */
#include "base/strtab.h"
#include "base/alloc.h"
#include "base/arena.h"
#include "base/hash.h"
#include <stdlib.h>
#include <string.h>

struct td_strtab {
    td_arena *a;
    const char **str;
    uint32_t *len;
    size_t n, cap;
    uint32_t *slots; /* id+1, 0 = empty */
    uint64_t *hashes;
    size_t nslots;
    size_t sbytes; /* bytes of the strings this table stored */
};

td_strtab *td_strtab_new(void)
{
    td_strtab *t = td_xcalloc(1, sizeof *t);
    t->a = td_arena_new();
    t->nslots = 1024;
    t->slots = td_xcalloc(t->nslots, sizeof *t->slots);
    td_intern(t, "", 0);
    return t;
}

void td_strtab_free(td_strtab *t)
{
    if (!t)
        return;
    td_arena_free(t->a);
    free(t->str);
    free(t->len);
    free(t->slots);
    free(t->hashes);
    free(t);
}

td_strtab *td_strtab_copy(const td_strtab *t)
{
    td_strtab *c = td_xcalloc(1, sizeof *c);
    c->a = td_arena_new();
    c->n = c->cap = t->n;
    c->nslots = t->nslots;
    c->str = td_xmalloc((t->n + 1) * sizeof *c->str);
    c->len = td_xmalloc((t->n + 1) * sizeof *c->len);
    c->hashes = td_xmalloc((t->n + 1) * sizeof *c->hashes);
    c->slots = td_xmalloc(t->nslots * sizeof *c->slots);
    memcpy(c->str, t->str, t->n * sizeof *c->str);
    memcpy(c->len, t->len, t->n * sizeof *c->len);
    memcpy(c->hashes, t->hashes, t->n * sizeof *c->hashes);
    memcpy(c->slots, t->slots, t->nslots * sizeof *c->slots);
    return c;
}

static void rehash(td_strtab *t)
{
    size_t ns = t->nslots * 2;
    uint32_t *s = td_xcalloc(ns, sizeof *s);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->hashes[i] & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
}

td_str td_intern(td_strtab *t, const char *s, size_t len)
{
    uint64_t h = td_hash64(s, len);
    size_t j = h & (t->nslots - 1);
    for (;;) {
        uint32_t id = t->slots[j];
        if (!id)
            break;
        id--;
        if (t->hashes[id] == h && t->len[id] == len && memcmp(t->str[id], s, len) == 0)
            return id;
        j = (j + 1) & (t->nslots - 1);
    }
    if (t->n >= UINT32_MAX - 1)
        td_oom(0); /* more than 2^32 strings: treated as memory exhausted */
    size_t cap0 = t->cap;
    td_grow((void **)&t->str, &t->cap, t->n + 1, sizeof *t->str);
    size_t c2 = cap0;
    td_grow((void **)&t->len, &c2, t->n + 1, sizeof *t->len);
    c2 = cap0;
    td_grow((void **)&t->hashes, &c2, t->n + 1, sizeof *t->hashes);
    uint32_t id = (uint32_t)t->n++;
    t->str[id] = td_arena_strndup(t->a, s, len);
    t->sbytes += len + 1;
    t->len[id] = (uint32_t)len;
    t->hashes[id] = h;
    t->slots[j] = id + 1;
    if (t->n * 2 > t->nslots)
        rehash(t);
    return id;
}

td_str td_intern_cstr(td_strtab *t, const char *s)
{
    return td_intern(t, s, strlen(s));
}

const char *td_strget(const td_strtab *t, td_str id)
{
    return id < t->n ? t->str[id] : "";
}

uint32_t td_strlen_of(const td_strtab *t, td_str id)
{
    return id < t->n ? t->len[id] : 0;
}

size_t td_strtab_count(const td_strtab *t)
{
    return t->n;
}

size_t td_strtab_bytes(const td_strtab *t)
{
    return t->sbytes + t->cap * (sizeof *t->str + sizeof *t->len + sizeof *t->hashes) +
           t->nslots * sizeof *t->slots;
}
