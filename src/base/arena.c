/* base/arena.c - see base/arena.h. */
#include "base/arena.h"
#include "base/alloc.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    max_align_t data[];
} chunk;

struct td_arena {
    chunk *head;
    size_t total;
};

td_arena *td_arena_new(void)
{
    return td_xcalloc(1, sizeof(td_arena));
}

void td_arena_free(td_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

void *td_arena_alloc_raw(td_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        /* chunks as big as the arena so far, from 64 KiB up to 1 MiB (a
         * small input's arenas take 64-128 KiB, not a 1 MiB mapping each, whose
         * mapping and shadow the ASan build's runs paid for at every string table and
         * scanner: a third of the unit tests' time); once the arena holds 4 MiB,
         * chunks of 8 MiB or more in huge pages (td_xmalloc_huge): one page fault per
         * 2 MiB instead of 512 (a 2 GB folded file's line caches: 17,900 -> 7,500
         * faults, 0.05 s of each thread) */
        int big = a->total >= ((size_t)4 << 20);
        size_t grow = a->total < ((size_t)64 << 10) ? ((size_t)64 << 10) : a->total;
        size_t min = big ? ((size_t)8 << 20) - sizeof(chunk)
                         : (grow < ((size_t)1 << 20) ? grow : ((size_t)1 << 20)) - sizeof(chunk);
        size_t sz = n > min ? n : min;
        if (big) {
            sz = (((sizeof(chunk) + sz) + ((size_t)2 << 20) - 1) & ~(((size_t)2 << 20) - 1)) -
                 sizeof(chunk); /* the whole of the 2 MiB pages */
            c = td_xmalloc_huge(sizeof(chunk) + sz);
        } else {
            c = td_xmalloc(sizeof(chunk) + sz);
        }
        c->used = 0;
        c->size = sz;
        if (a->head && n > min) {
            /* a block of its own: keep the current chunk as the head so small
             * allocations keep filling it */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
        a->total += sz;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

void *td_arena_alloc(td_arena *a, size_t n)
{
    void *p = td_arena_alloc_raw(a, n);
    memset(p, 0, n);
    return p;
}

char *td_arena_strndup(td_arena *a, const char *s, size_t n)
{
    char *p = td_arena_alloc_raw(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *td_arena_strdup(td_arena *a, const char *s)
{
    return td_arena_strndup(a, s, strlen(s));
}

char *td_arena_printf(td_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = td_arena_alloc_raw(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

size_t td_arena_bytes(const td_arena *a)
{
    return a->total;
}

void td_arena_adopt(td_arena *a, td_arena *from)
{
    if (!from)
        return;
    if (from->head) {
        chunk *tail = from->head;
        while (tail->next)
            tail = tail->next;
        if (a->head) {
            tail->next = a->head->next;
            a->head->next = from->head;
        } else {
            a->head = from->head;
        }
        a->total += from->total;
    }
    free(from);
}
