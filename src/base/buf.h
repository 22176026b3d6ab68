/* base/buf.h - growable byte buffer. The buffer owns p (malloc'd); td_buf_free releases
 * it, and a caller may take p over instead (then it frees it). A zeroed td_buf is empty. */
#ifndef TD_BUF_H
#define TD_BUF_H
#include "base/err.h"
#include <stddef.h>
#include <stdio.h>

typedef struct td_buf {
    char *p;
    size_t n, cap;
} td_buf;
void td_buf_put(td_buf *b, const void *s, size_t n);
void td_buf_puts(td_buf *b, const char *s);
void td_buf_putc(td_buf *b, char c);
void td_buf_printf(td_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void td_buf_free(td_buf *b);
/* Write the buffer to f and free it: TD_OK, or TD_E_OUTPUT "write error". */
td_status td_buf_flush(td_buf *b, FILE *f, td_err *e);
const char *td_buf_cstr(td_buf *b); /* NUL-terminates (not counted in n) */

#endif
