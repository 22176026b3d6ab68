/* base/strtab.h - string interning: id 0 is the empty string. Strings are stored once,
 * NUL-terminated, in the table's own arena (valid until td_strtab_free); ids are dense
 * (0..count-1). */
#ifndef TD_STRTAB_H
#define TD_STRTAB_H
#include <stddef.h>
#include <stdint.h>

typedef uint32_t td_str;
typedef struct td_strtab td_strtab;
td_strtab *td_strtab_new(void);
void td_strtab_free(td_strtab *t);
td_str td_intern(td_strtab *t, const char *s, size_t len);
td_str td_intern_cstr(td_strtab *t, const char *s);
const char *td_strget(const td_strtab *t, td_str id);
uint32_t td_strlen_of(const td_strtab *t, td_str id);
size_t td_strtab_count(const td_strtab *t);
/* Memory the table holds (its strings and index), for the bounds of io/bound.h. */
size_t td_strtab_bytes(const td_strtab *t);
/* A copy of t's ids for another thread: its strings are t's own (not copied: free the
 * copy before t); what t interns after does not change it, and what is interned into it
 * goes to the copy alone. t is only read. */
td_strtab *td_strtab_copy(const td_strtab *t);

#endif
