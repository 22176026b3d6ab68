/* io/varint.h - LEB128 varints (protobuf, Thrift compact). */
#ifndef TD_VARINT_H
#define TD_VARINT_H
#include <stdint.h>

/* The varint at *p, not past end: advances *p; on a truncated or over-long varint sets
 * *bad = 1 and returns 0. */
uint64_t td_varint(const uint8_t **p, const uint8_t *end, int *bad);

#endif
