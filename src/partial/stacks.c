/* partial/stacks.c - the flame stacks of a partial summary (the `rec flame` records:
 * "KIND<0x1f>STACK" -> value), kept compact for merges of thousands of ranks.
 *
 * A merged job holds one stack per (rank, thread, call path): 10,000 DLRM ranks give
 * 5.7 M distinct cpu stacks of ~190 bytes, where each rank's call paths are the same
 * few hundred. So a key is cut at its first ';' into a head ("cpu<0x1f>rank 12 thread
 * 34 (python3)") and a tail (";forward;aten::mm"), each interned once, and a stack is
 * the pair of their ids with its value: 16 bytes and a hash slot instead of a record of
 * ~100 bytes and a copy of the key. head + tail is the key, byte for byte.
 * Stacks keep the order they were first added (the file order of a merge). */
#include "partial/internal.h"
#include <stdlib.h>

#define BLOCK ((size_t)1 << 20)

typedef struct sblock {
    struct sblock *next;
    size_t used, size;
    char data[];
} sblock;

static const char *store(td_pstacks *t, const char *s, size_t len)
{
    sblock *b = t->blocks;
    if (!b || b->size - b->used < len + 1) {
        size_t sz = len + 1 > BLOCK ? len + 1 : BLOCK;
        b = td_xmalloc(sizeof *b + sz);
        b->used = 0;
        b->size = sz;
        b->next = t->blocks;
        t->blocks = b;
    }
    char *p = b->data + b->used;
    memcpy(p, s, len);
    p[len] = 0;
    b->used += len + 1;
    return p;
}

static void str_rehash(td_pstacks *t)
{
    size_t ns = t->nsslot ? t->nsslot * 2 : 1024;
    uint32_t *sl = td_xcalloc(ns, sizeof *sl);
    for (size_t k = 0; k < t->nstr; k++) {
        size_t i = t->shash[k] & (ns - 1);
        while (sl[i])
            i = (i + 1) & (ns - 1);
        sl[i] = (uint32_t)k + 1;
    }
    free(t->sslot);
    t->sslot = sl;
    t->nsslot = ns;
}

/* Id of the string s[0..len), added when new. */
static uint32_t intern(td_pstacks *t, const char *s, size_t len)
{
    if ((t->nstr + 1) * 2 > t->nsslot)
        str_rehash(t);
    uint64_t h = td_part_hash(s, len);
    size_t i = h & (t->nsslot - 1);
    for (;;) {
        uint32_t k = t->sslot[i];
        if (!k)
            break;
        k--;
        if (t->shash[k] == h && t->slen[k] == len && !memcmp(t->str[k], s, len))
            return k;
        i = (i + 1) & (t->nsslot - 1);
    }
    if (t->nstr >= UINT32_MAX - 1)
        td_oom(0);
    size_t cap = t->strcap;
    td_grow((void **)&t->str, &cap, t->nstr + 1, sizeof *t->str);
    cap = t->strcap;
    td_grow((void **)&t->slen, &cap, t->nstr + 1, sizeof *t->slen);
    cap = t->strcap;
    td_grow((void **)&t->shash, &cap, t->nstr + 1, sizeof *t->shash);
    t->strcap = cap;
    t->str[t->nstr] = store(t, s, len);
    t->slen[t->nstr] = (uint32_t)len;
    t->shash[t->nstr] = h;
    t->sslot[i] = (uint32_t)++t->nstr;
    return (uint32_t)(t->nstr - 1);
}

/* A head's stacks: open addressing on the tail id -> stack index + 1. One table per head
 * keeps a part's lookups within the few small tables of its own threads (the stacks of
 * one head were added together, so their records are neighbours too), where one table
 * of millions of stacks costs a cache and TLB miss per lookup. */
struct td_phead {
    uint32_t *slot;
    uint32_t nslot, n;
};

static size_t tail_slot(uint32_t tail, uint32_t mask)
{
    uint64_t h = (uint64_t)(tail + 1) * 0x9e3779b97f4a7c15ull;
    return (size_t)((h ^ (h >> 29)) & mask);
}

static void head_rehash(const td_pstacks *t, struct td_phead *hd)
{
    uint32_t ns = hd->nslot ? hd->nslot * 2 : 16;
    uint32_t *sl = td_xcalloc(ns, sizeof *sl);
    for (uint32_t k = 0; k < hd->nslot; k++) {
        uint32_t id = hd->slot[k];
        if (!id)
            continue;
        size_t i = tail_slot(t->e[id - 1].tail, ns - 1);
        while (sl[i])
            i = (i + 1) & (ns - 1);
        sl[i] = id;
    }
    free(hd->slot);
    hd->slot = sl;
    hd->nslot = ns;
}

int td_part_stack_add(td_partial *p, const char *key, size_t klen, int64_t v)
{
    td_pstacks *t = &p->stk;
    const char *semi = memchr(key, ';', klen);
    size_t hl = semi ? (size_t)(semi - key) : klen;
    /* the stacks of a part come thread by thread: the head of the one before, mostly */
    uint32_t head;
    if (t->nstr && t->last_head < t->nstr && t->slen[t->last_head] == hl &&
        !memcmp(t->str[t->last_head], key, hl))
        head = t->last_head;
    else
        head = t->last_head = intern(t, key, hl);
    uint32_t tail = intern(t, key + hl, klen - hl);
    if (head >= t->hdcap) {
        size_t old = t->hdcap;
        td_grow((void **)&t->hd, &t->hdcap, (size_t)head + 1, sizeof *t->hd);
        memset(t->hd + old, 0, (t->hdcap - old) * sizeof *t->hd);
    }
    struct td_phead *hd = &t->hd[head];
    if ((hd->n + 1) * 2 > hd->nslot)
        head_rehash(t, hd);
    size_t i = tail_slot(tail, hd->nslot - 1);
    for (;;) {
        uint32_t k = hd->slot[i];
        if (!k)
            break;
        td_pstk *x = &t->e[k - 1];
        if (x->tail == tail) {
            if (__builtin_add_overflow(x->v, v, &x->v)) {
                p->overflow = 1;
                return 0;
            }
            return 1;
        }
        i = (i + 1) & (hd->nslot - 1);
    }
    if (t->n >= UINT32_MAX - 1)
        td_oom(0);
    td_pstk *x = TD_PUSH(t->e, t->n, t->cap);
    x->head = head;
    x->tail = tail;
    x->v = v;
    hd->slot[i] = (uint32_t)t->n;
    hd->n++;
    return 1;
}

void td_part_stack_get(const td_partial *p, size_t i, td_pstack *out)
{
    const td_pstacks *t = &p->stk;
    const td_pstk *x = &t->e[i];
    out->head = t->str[x->head];
    out->hlen = t->slen[x->head];
    out->tail = t->str[x->tail];
    out->tlen = t->slen[x->tail];
    out->value = x->v;
}

void td_part_stacks_free(td_pstacks *t)
{
    for (sblock *b = t->blocks, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(t->str);
    free(t->slen);
    free(t->shash);
    free(t->sslot);
    free(t->e);
    for (size_t i = 0; i < t->hdcap; i++)
        free(t->hd[i].slot);
    free(t->hd);
    memset(t, 0, sizeof *t);
}
