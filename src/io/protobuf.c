/* io/protobuf.c - see io/protobuf.h. */
#include "io/protobuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW ((size_t)256 << 10)
#define NOEND UINT64_MAX

void td_pb_init_in(td_pb *r, td_in *in, const char *name, td_err *e)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->win = td_xmalloc(WINDOW);
    r->wcap = WINDOW;
    r->p = r->win;
    r->end[0] = NOEND;
    r->name = name;
    r->e = e;
}

void td_pb_init_mem(td_pb *r, const void *p, size_t n, const char *name, td_err *e)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = n;
    r->eof = 1;
    r->end[0] = n;
    r->name = name;
    r->e = e;
}

void td_pb_free(td_pb *r)
{
    free(r->win);
    free(r->str);
    r->win = r->str = NULL;
}

int td_pb_fail(td_pb *r, const char *fmt, ...)
{
    if (r->failed)
        return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->failed = 1;
    td_fail(r->e, TD_E_FORMAT, "%s: byte %llu: %s", r->name, (unsigned long long)r->key_at, msg);
    return -1;
}

/* At least need bytes buffered from pos, fewer only at the end of the input: the count
 * available, or -1 on a read error. */
static ptrdiff_t fill(td_pb *r, size_t need)
{
    size_t have = r->len - r->pos;
    if (have >= need || r->eof)
        return (ptrdiff_t)have;
    if (r->pos) { /* keep the unread bytes at the start */
        memmove(r->win, r->win + r->pos, have);
        r->base += r->pos;
        r->pos = 0;
        r->len = have;
    }
    if (need > r->wcap) {
        r->win = td_xrealloc(r->win, need);
        r->wcap = need;
    }
    r->p = r->win;
    while (r->len < need && !r->eof) {
        ptrdiff_t got = td_in_read(r->in, r->win + r->len, r->wcap - r->len, r->e);
        if (got < 0) {
            r->failed = 1;
            return -1;
        }
        if (got == 0)
            r->eof = 1;
        r->len += (size_t)got;
    }
    return (ptrdiff_t)(r->len - r->pos);
}

/* The input ended before what was being read: name the outermost open message that
 * runs past it (as the reading in memory does when it opens it), else say what ended. */
static int eof_fail(td_pb *r, const char *what)
{
    uint64_t input_end = r->base + r->len;
    for (int d = 1; d <= r->depth; d++)
        if (r->end[d] > input_end) {
            r->key_at = r->start[d];
            return td_pb_fail(r, "length %llu runs past the end of the input (byte %llu)",
                              (unsigned long long)r->mlen[d], (unsigned long long)input_end);
        }
    return td_pb_fail(r, "%s", what);
}

static int past_end(td_pb *r, uint64_t at)
{
    if (r->end[r->depth] != NOEND && at > r->end[r->depth])
        return td_pb_fail(r, "a field runs past the end of its message (byte %llu)",
                          (unsigned long long)r->end[r->depth]);
    return 0;
}

static int read_varint(td_pb *r, uint64_t *v)
{
    if (r->failed)
        return -1;
    ptrdiff_t have = fill(r, 10);
    if (have < 0)
        return -1;
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        if (i >= have)
            return eof_fail(r, "truncated varint at the end of the input");
        unsigned char b = r->p[r->pos + (size_t)i];
        if (i == 9 && b > 1)
            return td_pb_fail(r, "varint longer than 64 bits");
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->pos += (size_t)i + 1;
            *v = x;
            return past_end(r, td_pb_offset(r));
        }
    }
    return td_pb_fail(r, "varint longer than 64 bits");
}

/* Skip n bytes (checked against the open message and the input). */
static int skip_bytes(td_pb *r, uint64_t n)
{
    uint64_t at = td_pb_offset(r);
    if (n > NOEND - at || past_end(r, at + n))
        return td_pb_fail(r, "a field runs past the end of its message");
    while (n) {
        size_t have = r->len - r->pos;
        if (have == 0) {
            ptrdiff_t got = fill(r, 1);
            if (got < 0)
                return -1;
            if (got == 0)
                return eof_fail(r, "the input ends inside a field");
            continue;
        }
        size_t k = have < n ? have : (size_t)n;
        r->pos += k;
        n -= k;
    }
    return 0;
}

int td_pb_next(td_pb *r, uint32_t *field, int *wt)
{
    if (r->failed)
        return -1;
    uint64_t at = td_pb_offset(r);
    if (at == r->end[r->depth])
        return 0;
    ptrdiff_t have = fill(r, 1);
    if (have < 0)
        return -1;
    if (have == 0) {
        if (r->depth == 0)
            return 0;
        r->key_at = at;
        return eof_fail(r, "the input ends inside a message");
    }
    r->key_at = at;
    uint64_t key;
    if (read_varint(r, &key))
        return -1;
    *field = (uint32_t)(key >> 3);
    *wt = (int)(key & 7);
    if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
        return td_pb_fail(r, "field number %llu is not valid", (unsigned long long)(key >> 3));
    if (*wt == 6 || *wt == 7)
        return td_pb_fail(r, "wire type %d does not exist (field %u)", *wt, *field);
    if (*wt == TD_PB_EGROUP)
        return td_pb_fail(r, "end of a group that was not started (field %u)", *field);
    return 1;
}

int td_pb_varint(td_pb *r, uint64_t *v)
{
    return read_varint(r, v);
}

static int fixed(td_pb *r, size_t n, uint64_t *v)
{
    if (r->failed)
        return -1;
    ptrdiff_t have = fill(r, n);
    if (have < 0)
        return -1;
    if ((size_t)have < n)
        return eof_fail(r, "the input ends inside a fixed-size value");
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x |= (uint64_t)r->p[r->pos + i] << (8 * i);
    r->pos += n;
    *v = x;
    return past_end(r, td_pb_offset(r));
}

int td_pb_fixed64(td_pb *r, uint64_t *v)
{
    return fixed(r, 8, v);
}

int td_pb_fixed32(td_pb *r, uint32_t *v)
{
    uint64_t x = 0;
    int rc = fixed(r, 4, &x);
    *v = (uint32_t)x;
    return rc;
}

/* The length of a length-delimited value, checked against the open message. */
static int length(td_pb *r, uint64_t *n)
{
    if (read_varint(r, n))
        return -1;
    uint64_t at = td_pb_offset(r), end = r->end[r->depth];
    if (*n > NOEND - at || (end != NOEND && at + *n > end))
        return td_pb_fail(r, "length %llu runs past the end of %s (byte %llu)",
                          (unsigned long long)*n, r->depth ? "its message" : "the input",
                          (unsigned long long)end);
    return 0;
}

int td_pb_bytes(td_pb *r, size_t limit, const unsigned char **p, size_t *n)
{
    uint64_t l;
    if (length(r, &l))
        return -1;
    if (l > limit)
        return td_pb_fail(r, "a string of %llu bytes (more than %zu)", (unsigned long long)l,
                          limit);
    ptrdiff_t have = fill(r, (size_t)l);
    if (have < 0)
        return -1;
    if ((uint64_t)have < l) {
        for (int d = 1; d <= r->depth; d++)
            if (r->end[d] > r->base + r->len)
                return eof_fail(r, "");
        return td_pb_fail(r, "length %llu runs past the end of the input (byte %llu)",
                          (unsigned long long)l,
                          (unsigned long long)(td_pb_offset(r) + (uint64_t)have));
    }
    *p = r->p + r->pos;
    *n = (size_t)l;
    r->pos += (size_t)l;
    return 0;
}

int td_pb_enter(td_pb *r)
{
    uint64_t l;
    if (length(r, &l))
        return -1;
    if (r->depth >= TD_PB_MAXDEPTH)
        return td_pb_fail(r, "messages nested deeper than %d", TD_PB_MAXDEPTH);
    r->depth++;
    r->end[r->depth] = td_pb_offset(r) + l;
    r->start[r->depth] = r->key_at;
    r->mlen[r->depth] = l;
    if (r->eof && r->end[r->depth] > r->base + r->len)
        return td_pb_fail(r, "length %llu runs past the end of the input (byte %llu)",
                          (unsigned long long)l, (unsigned long long)(r->base + r->len));
    return 0;
}

int td_pb_leave(td_pb *r)
{
    if (r->failed)
        return -1;
    if (r->depth == 0)
        return td_pb_fail(r, "internal: no message to leave");
    uint64_t at = td_pb_offset(r), end = r->end[r->depth];
    if (at > end)
        return td_pb_fail(r, "a field runs past the end of its message (byte %llu)",
                          (unsigned long long)end);
    if (skip_bytes(r, end - at))
        return -1;
    r->depth--;
    return 0;
}

/* A group: fields up to the end-group of the same number, groups inside it too. */
static int skip_group(td_pb *r, uint32_t field)
{
    uint32_t open[TD_PB_MAXDEPTH];
    int n = 0;
    open[n++] = field;
    while (n) {
        if (r->failed)
            return -1;
        uint64_t at = td_pb_offset(r);
        if (r->end[r->depth] != NOEND && at >= r->end[r->depth])
            return td_pb_fail(r, "a group runs past the end of its message");
        r->key_at = at;
        uint64_t key;
        if (read_varint(r, &key))
            return -1;
        uint32_t f = (uint32_t)(key >> 3);
        int wt = (int)(key & 7);
        if (f == 0 || wt == 6 || wt == 7)
            return td_pb_fail(r, "a key that is not valid (%llu) inside a group",
                              (unsigned long long)key);
        if (wt == TD_PB_EGROUP) {
            if (f != open[n - 1])
                return td_pb_fail(r, "end of group %u inside group %u", f, open[n - 1]);
            n--;
        } else if (wt == TD_PB_SGROUP) {
            if (n >= TD_PB_MAXDEPTH || r->depth + n >= TD_PB_MAXDEPTH)
                return td_pb_fail(r, "groups nested deeper than %d", TD_PB_MAXDEPTH);
            open[n++] = f;
        } else if (td_pb_skip(r, f, wt)) {
            return -1;
        }
    }
    return 0;
}

int td_pb_skip(td_pb *r, uint32_t field, int wt)
{
    uint64_t v;
    switch (wt) {
    case TD_PB_VARINT:
        return read_varint(r, &v);
    case TD_PB_I64:
        return skip_bytes(r, 8);
    case TD_PB_I32:
        return skip_bytes(r, 4);
    case TD_PB_LEN:
        if (length(r, &v))
            return -1;
        return skip_bytes(r, v);
    case TD_PB_SGROUP:
        return skip_group(r, field);
    default:
        return td_pb_fail(r, "wire type %d does not exist", wt);
    }
}
