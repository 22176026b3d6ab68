/* base/buf.c - see base/buf.h. */
#include "base/buf.h"
#include "base/alloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void td_buf_put(td_buf *b, const void *s, size_t n)
{
    td_grow((void **)&b->p, &b->cap, b->n + n + 1, 1);
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void td_buf_puts(td_buf *b, const char *s)
{
    td_buf_put(b, s, strlen(s));
}

void td_buf_putc(td_buf *b, char c)
{
    td_buf_put(b, &c, 1);
}

void td_buf_printf(td_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    td_grow((void **)&b->p, &b->cap, b->n + (size_t)n + 1, 1);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->n += (size_t)n;
}

const char *td_buf_cstr(td_buf *b)
{
    td_grow((void **)&b->p, &b->cap, b->n + 1, 1);
    b->p[b->n] = 0;
    return b->p;
}

void td_buf_free(td_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

td_status td_buf_flush(td_buf *b, FILE *f, td_err *e)
{
    size_t w = b->n ? fwrite(b->p, 1, b->n, f) : 0;
    td_status st = w == b->n ? TD_OK : td_fail(e, TD_E_OUTPUT, "write error");
    td_buf_free(b);
    return st;
}
