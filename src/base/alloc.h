/* base/alloc.h - checked allocation: malloc, calloc, realloc, strdup and array growth.
 * Allocation-failure policy (the one place it lives): these never return NULL. When the
 * system refuses memory, td_oom calls the handler the program installed
 * (td_oom_set_handler: cli/main.c prints "tracedoc: out of memory (allocating N bytes)"
 * and exits with TD_EXIT_INTERNAL), or abort() when none is installed (unit tests): a
 * run that cannot allocate cannot produce its documents, and threading NULL through
 * every caller would hide the real errors. base itself never prints or exits; the arena
 * and every growable buffer come through here.
 * Memory returned is the caller's (free()). */
#ifndef TD_ALLOC_H
#define TD_ALLOC_H
#include <stddef.h>

/* The out-of-memory exit (n: the bytes asked for, 0 when not known); it does not return.
 * Also for limits that mean the same thing (a string table past 2^32 entries). */
_Noreturn void td_oom(size_t n);
/* Install the out-of-memory handler (it must not return). */
void td_oom_set_handler(void (*fn)(size_t n));
/* Blocks of 2 MiB or more from td_xmalloc, td_xcalloc and td_xrealloc are advised
 * transparent huge pages (madvise MADV_HUGEPAGE; a no-op where the system has none): each
 * first touch of a 4 KiB page is a fault, and on a paravirtualised machine a fault costs
 * 7-13 us (bench/README.md); a 2 MiB page is one fault. */
void *td_xmalloc(size_t n);
/* n bytes on a 2 MiB boundary, rounded up to whole 2 MiB, advised huge pages: every
 * 2 MiB of it is one page fault (a td_xmalloc block is advised too, but glibc places it
 * off the boundary: its first and last 2 MiB stay small pages). Freed with free(). */
void *td_xmalloc_huge(size_t n);
void *td_xcalloc(size_t n, size_t size);
void *td_xrealloc(void *p, size_t n);
char *td_xstrdup(const char *s);
/* Grow *p (element size es) so that it can hold need elements; *cap updated. */
void td_grow(void **p, size_t *cap, size_t need, size_t es);
#define TD_PUSH(arr, n, cap) \
    (td_grow((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)), &(arr)[(n)++])

#endif
