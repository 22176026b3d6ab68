/* base/alloc.c - see base/alloc.h. The one place in base that prints and exits: an
 * allocation that fails ends the run (see the header for why). */
#include "base/alloc.h"
#include "base/err.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void td_oom(size_t n)
{
    fprintf(stderr, "tracedoc: out of memory (allocating %zu bytes)\n", n);
    exit(TD_EXIT_INTERNAL);
}

void *td_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        td_oom(n);
    return p;
}

void *td_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        td_oom(n * size);
    return p;
}

void *td_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        td_oom(n);
    return q;
}

char *td_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = td_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void td_grow(void **p, size_t *cap, size_t need, size_t es)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c = c + c / 2 + 16;
    if (c > SIZE_MAX / es)
        td_oom(SIZE_MAX);
    *p = td_xrealloc(*p, c * es);
    *cap = c;
}
