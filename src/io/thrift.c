/* io/thrift.c - see io/thrift.h. */
#include "io/thrift.h"
#include "io/varint.h"

#define TD_THRIFT_MAX_DEPTH 32 /* nesting of skipped values */

uint64_t td_thrift_varint(td_thrift *r)
{
    return td_varint(&r->p, r->end, &r->bad);
}
int64_t td_thrift_zz(td_thrift *r)
{
    uint64_t v = td_thrift_varint(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
/* Binary/string: returns a pointer into the buffer and its length. */
const uint8_t *td_thrift_bin(td_thrift *r, size_t *len)
{
    uint64_t n = td_thrift_varint(r);
    if (r->bad || n > (uint64_t)(r->end - r->p)) { r->bad = 1; *len = 0; return NULL; }
    const uint8_t *s = r->p;
    r->p += n;
    *len = (size_t)n;
    return s;
}
static void skip_struct(td_thrift *r, int depth)
{
    if (depth > TD_THRIFT_MAX_DEPTH) { r->bad = 1; return; }
    for (;;) {
        if (r->bad || r->p >= r->end) { r->bad = 1; return; }
        uint8_t h = *r->p++;
        if (h == 0) return;
        if (!(h >> 4)) td_thrift_zz(r);
        td_thrift_skip(r, h & 15, depth + 1);
    }
}
/* List header: element type and count. */
uint64_t td_thrift_list(td_thrift *r, int *et)
{
    if (r->p >= r->end) { r->bad = 1; return 0; }
    uint8_t h = *r->p++;
    *et = h & 15;
    uint64_t n = h >> 4;
    if (n == 15) n = td_thrift_varint(r);
    /* every element takes at least one byte, except booleans take one byte too */
    if (n > (uint64_t)(r->end - r->p)) { r->bad = 1; return 0; }
    return n;
}
void td_thrift_skip(td_thrift *r, int type, int depth)
{
    if (depth > TD_THRIFT_MAX_DEPTH) { r->bad = 1; return; }
    switch (type) {
    case 1: case 2: return;                    /* bool in a field header */
    case 3: if (r->p < r->end) r->p++; else r->bad = 1; return;
    case 4: case 5: case 6: td_thrift_varint(r); return;
    case 7: if (r->end - r->p >= 8) r->p += 8; else r->bad = 1; return;
    case 8: { size_t l; td_thrift_bin(r, &l); return; }
    case 9: case 10: {
        int et;
        uint64_t n = td_thrift_list(r, &et);
        for (uint64_t i = 0; i < n && !r->bad; i++) {
            if (et == 1 || et == 2) { if (r->p < r->end) r->p++; else r->bad = 1; }
            else td_thrift_skip(r, et, depth + 1);
        }
        return;
    }
    case 11: {
        uint64_t n = td_thrift_varint(r);
        if (n == 0) return;
        if (r->p >= r->end || n > (uint64_t)(r->end - r->p)) { r->bad = 1; return; }
        uint8_t kv = *r->p++;
        for (uint64_t i = 0; i < n && !r->bad; i++) {
            td_thrift_skip(r, kv >> 4, depth + 1);
            td_thrift_skip(r, kv & 15, depth + 1);
        }
        return;
    }
    case 12: skip_struct(r, depth + 1); return;
    default: r->bad = 1; return;
    }
}
/* Next field of a struct: returns its id (0 at STOP), *type its compact type. */
int td_thrift_field(td_thrift *r, int *last, int *type)
{
    if (r->bad || r->p >= r->end) { r->bad = 1; return 0; }
    uint8_t h = *r->p++;
    if (h == 0) return 0;
    *type = h & 15;
    int id = (h >> 4) ? *last + (h >> 4) : (int)td_thrift_zz(r);
    *last = id;
    if (id <= 0) { r->bad = 1; return 0; }
    return id;
}
int64_t td_thrift_int(td_thrift *r, int type)
{
    if (type == 5 || type == 6 || type == 4) return td_thrift_zz(r);
    if (type == 3) { if (r->p < r->end) return (int8_t)*r->p++; r->bad = 1; return 0; }
    r->bad = 1;
    return 0;
}
