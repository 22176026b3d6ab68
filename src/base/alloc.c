/* base/alloc.c - see base/alloc.h. An allocation that fails ends the run through the
 * handler main installs (see the header for why). */
#include "base/alloc.h"
#include "base/err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void (*oom_handler)(size_t n);

void td_oom_set_handler(void (*fn)(size_t n))
{
    oom_handler = fn;
}

_Noreturn void td_oom(size_t n)
{
    if (oom_handler)
        oom_handler(n);
    abort();
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
