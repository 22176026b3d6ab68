/* io/varint.c - see io/varint.h. */
#include "io/varint.h"

uint64_t td_varint(const uint8_t **p, const uint8_t *end, int *bad)
{
    uint64_t v = 0;
    for (int sh = 0; sh < 64; sh += 7) {
        if (*p >= end) {
            *bad = 1;
            return 0;
        }
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            return v;
    }
    *bad = 1;
    return 0;
}
