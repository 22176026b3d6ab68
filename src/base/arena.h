/* base/arena.h - bump allocator in chunks. Everything allocated from a td_arena lives
 * until td_arena_free(); nothing in the model is freed one by one. td_arena_alloc's
 * memory is zeroed, td_arena_alloc_raw's is not (for a caller that writes all of it: the
 * string copies here). Never returns NULL (allocation failure: see base/alloc.h). */
#ifndef TD_ARENA_H
#define TD_ARENA_H
#include <stddef.h>

typedef struct td_arena td_arena;
td_arena *td_arena_new(void);
void td_arena_free(td_arena *a);
void *td_arena_alloc(td_arena *a, size_t n);
void *td_arena_alloc_raw(td_arena *a, size_t n);
char *td_arena_strdup(td_arena *a, const char *s);
char *td_arena_strndup(td_arena *a, const char *s, size_t n);
char *td_arena_printf(td_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t td_arena_bytes(const td_arena *a);
/* Moves every block of from into a (freed with a) and frees from: what was allocated in
 * from stays where it is. The current block of a stays the one that small allocations
 * fill. */
void td_arena_adopt(td_arena *a, td_arena *from);

#endif
