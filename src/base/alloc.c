/* base/alloc.c - see base/alloc.h. An allocation that fails ends the run through the
 * handler main installs (see the header for why). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "base/alloc.h"
#include "base/err.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

#define TD_HUGE_MIN ((size_t)2 << 20) /* see base/alloc.h */

/* The advice covers the block's whole pages: glibc serves a large block as a mapping of
 * its own (the header before p, the block's end at the mapping's end), and advice over
 * only part of it would split the mapping, which realloc then can no longer grow in place
 * (mremap): it would copy, and fault, every time (measured: 20% more faults). */
static void hugepages(void *p, size_t bytes)
{
#if defined(MADV_HUGEPAGE) && defined(__GLIBC__)
    const uintptr_t page = 4096;
    size_t have = malloc_usable_size(p);
    uintptr_t a = (uintptr_t)p & ~(page - 1);
    uintptr_t b = ((uintptr_t)p + (have > bytes ? have : bytes) + page - 1) & ~(page - 1);
    (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: failure is harmless */
#else
    (void)p;
    (void)bytes;
#endif
}

void *td_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        td_oom(n);
    if (n >= TD_HUGE_MIN)
        hugepages(p, n);
    return p;
}

void *td_xmalloc_huge(size_t n)
{
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    if (n > SIZE_MAX - huge)
        td_oom(n);
    size_t whole = (n + huge - 1) & ~(huge - 1);
    if (posix_memalign(&p, huge, whole ? whole : huge) != 0)
        td_oom(n);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: failure is harmless */
#endif
    return p;
}

void *td_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        td_oom(n * size);
    if (n * size >= TD_HUGE_MIN) /* calloc checked the product */
        hugepages(p, n * size);
    return p;
}

void *td_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        td_oom(n);
    if (n >= TD_HUGE_MIN) /* a grown mapping's new part has no advice yet */
        hugepages(q, n);
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
