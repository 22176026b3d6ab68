/* io/thrift.h - a reader of the Thrift compact protocol (Parquet metadata and page
 * headers), over a byte range with an end pointer: every read is bounds-checked, and a
 * read past the end or a malformed value sets bad (reads then return 0) instead of
 * failing; the caller checks bad once after a structure. Nothing is allocated. */
#ifndef TD_THRIFT_H
#define TD_THRIFT_H
#include <stddef.h>
#include <stdint.h>

typedef struct td_thrift {
    const uint8_t *p, *end;
    int bad;
} td_thrift;

uint64_t td_thrift_varint(td_thrift *r);
int64_t td_thrift_zz(td_thrift *r);                          /* zigzag varint */
/* Binary/string: returns a pointer into the buffer and its length. */
const uint8_t *td_thrift_bin(td_thrift *r, size_t *len);
/* List header: element type and count (a count larger than the bytes left is bad). */
uint64_t td_thrift_list(td_thrift *r, int *et);
/* Skip a value of compact type `type` (depth: nesting so far, capped). */
void td_thrift_skip(td_thrift *r, int type, int depth);
/* Next field of a struct: returns its id (0 at STOP), *type its compact type. */
int td_thrift_field(td_thrift *r, int *last, int *type);
/* An integer field of compact type `type` (i8, i16, i32, i64). */
int64_t td_thrift_int(td_thrift *r, int type);

#endif
