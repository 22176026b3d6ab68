/* io/protobuf.h - a protobuf wire-format reader over a stream (io/instream.h) or bytes in
 * memory, for messages larger than memory should hold (XPlane, read/xplane.c).
 *
 * The reader walks one message at a time: td_pb_next gives the next field of the open
 * message (its number and wire type), then the caller takes its value (td_pb_varint,
 * td_pb_fixed64/32, td_pb_bytes), opens it as a sub-message (td_pb_enter, closed by
 * td_pb_leave) or skips it (td_pb_skip). Every read is bounded: a length past the end of
 * the enclosing message or of the input, a truncated or over-long varint, a wire type
 * that does not exist, an unmatched end-group, messages or groups nested deeper than
 * TD_PB_MAXDEPTH and a string longer than the caller's limit fail with TD_E_FORMAT and a
 * message "NAME: byte N: ..." (N: offset in the decoded input, where the bad field's
 * key starts). After a failure every call returns -1. Nothing is allocated but the
 * window (streams) and the buffer of td_pb_bytes. */
#ifndef TD_PROTOBUF_H
#define TD_PROTOBUF_H
#include "base/util.h"
#include "io/instream.h"

#define TD_PB_MAXDEPTH 32

enum { TD_PB_VARINT = 0, TD_PB_I64 = 1, TD_PB_LEN = 2, TD_PB_SGROUP = 3, TD_PB_EGROUP = 4,
       TD_PB_I32 = 5 };

typedef struct td_pb {
    td_in *in;                 /* stream, or NULL: bytes in memory */
    const unsigned char *p;    /* the window: p[pos .. len) are buffered */
    size_t pos, len;
    unsigned char *win;        /* streams: the window's storage */
    size_t wcap;
    uint64_t base;             /* offset of p[0] in the input */
    int eof;                   /* the stream has no more bytes */
    uint64_t end[TD_PB_MAXDEPTH + 1]; /* end offsets of the open messages; end[0]: input */
    uint64_t start[TD_PB_MAXDEPTH + 1]; /* where each open message's key starts */
    uint64_t mlen[TD_PB_MAXDEPTH + 1];  /* and its length */
    int depth;
    uint64_t key_at;           /* where the last key read started */
    unsigned char *str;        /* td_pb_bytes of a stream */
    size_t strcap;
    const char *name;
    td_err *e;
    int failed;
} td_pb;

/* A reader of the stream in (name: shown in messages) or of n bytes at p. */
void td_pb_init_in(td_pb *r, td_in *in, const char *name, td_err *e);
void td_pb_init_mem(td_pb *r, const void *p, size_t n, const char *name, td_err *e);
void td_pb_free(td_pb *r);

/* Offset of the next byte to read in the input. */
static inline uint64_t td_pb_offset(const td_pb *r) { return r->base + r->pos; }

/* The next field of the open message: 1 with *field and *wt, 0 at the message's end (at
 * depth 0: at the end of the input), -1 on error. */
int td_pb_next(td_pb *r, uint32_t *field, int *wt);
/* The value of the field just met: a varint (wt 0), 8 or 4 little-endian bytes (wt 1/5).
 * 0 or -1. */
int td_pb_varint(td_pb *r, uint64_t *v);
int td_pb_fixed64(td_pb *r, uint64_t *v);
int td_pb_fixed32(td_pb *r, uint32_t *v);
/* A length-delimited value (wt 2) of at most limit bytes: *p valid until the next call
 * (in the window or in the reader's buffer). 0 or -1 (longer than limit is an error). */
int td_pb_bytes(td_pb *r, size_t limit, const unsigned char **p, size_t *n);
/* Open the length-delimited value as a message (td_pb_next then walks its fields), and
 * close it (skipping what was not read). 0 or -1. */
int td_pb_enter(td_pb *r);
int td_pb_leave(td_pb *r);
/* Skip the value of the field just met (groups too, nested up to TD_PB_MAXDEPTH). */
int td_pb_skip(td_pb *r, uint32_t field, int wt);
/* Fail at the last key with a message of the caller's ("NAME: byte N: " + text). */
int td_pb_fail(td_pb *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
