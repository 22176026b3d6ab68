/* read/json_scan.h - the JSON scanner under the streaming JSON readers (read/chrome.c).
 *
 * The scanner works on a buffer the caller fills, padded after the data by
 * TD_JSON_PAD bytes of '"' so scanning loops stop at the end without bounds checks;
 * every place that stops checks `p >= end` before trusting what it found. Functions
 * return the position after what they read, or NULL: then js->fk says why (TD_JF_NEED:
 * the value runs past `end`, refill and parse again; TD_JF_ERR: a syntax error at
 * js->fat, js->fwhat says what was expected). Strings are interned through a cache
 * keyed by their raw bytes, so escapes and UTF-8 validation are dealt with once per
 * distinct string. The hot helpers are static inline here: they sit in the innermost
 * loops of the event parser. Nothing here prints or allocates beyond the cache (freed
 * by td_jscan_free). */
#ifndef TD_READ_JSON_SCAN_H
#define TD_READ_JSON_SCAN_H
#include "base/util.h"
#if defined(__SSE2__) && !defined(TD_PORTABLE)
#include <emmintrin.h>
#define TD_FIND_SSE2 1
#endif
#include <stdint.h>
#include <string.h>

#define TD_JSON_PAD 64
#define TD_JSON_MAX_DEPTH 1024

typedef struct {
    const char *p;
    uint32_t n;
    uint32_t esc;
} td_jslice;

typedef struct {
    uint64_t h;
    const char *raw;
    uint32_t n;
    td_str id;
} td_jscent;

typedef struct {
    uint32_t depth;
    uint8_t st, key, in_str;
    uint64_t bits[TD_JSON_MAX_DEPTH / 64];
} td_jskip;

enum { TD_JF_NONE, TD_JF_NEED, TD_JF_ERR };

typedef struct {
    int fk;               /* TD_JF_NEED / TD_JF_ERR after a parse function returned NULL */
    const char *fat;      /* error position */
    const char *fwhat;    /* what was expected */
    const char *resume;   /* skipper: where to resume after a refill */
    td_strtab *strs;      /* where strings are interned (the caller's) */
    td_jscent *sc;            /* raw bytes -> interned string */
    size_t scn, sccap;
    td_arena *scarena;
    td_buf scratch;
    uint64_t w_utf8;      /* strings with invalid UTF-8 or escapes replaced */
    uint64_t w_long;      /* strings longer than TD_BOUND_STRING, cut (io/bound.h) */
} td_jscan;

/* Free the string cache (not strs). */
void td_jscan_free(td_jscan *c);

static const uint8_t td_jscan_ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
static const uint8_t td_jscan_digit_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
    ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1};
static const uint8_t td_jscan_numch_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1, ['+'] = 1, ['-'] = 1};

static inline const char *td_jscan_ws(const char *p)
{
    while (td_jscan_ws_tab[(uint8_t)*p])
        p++;
    return p;
}

/* First '"' or '\\' at or after p (the padding guarantees one). SSE2 16 bytes at a
 * time on x86-64; elsewhere (arm64, or make PORTABLE=1) 8 bytes at a time in a word. */
#ifdef TD_FIND_SSE2
static inline const char *td_jscan_find_qb(const char *p)
{
    const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, b)));
        if (m)
            return p + __builtin_ctz((unsigned)m);
        p += 16;
    }
}
#else
static inline const char *td_jscan_find_qb(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const uint64_t q = ones * '"', b = ones * '\\';
    for (;;) {
        uint64_t v;
        memcpy(&v, p, 8); /* the padding covers 8 bytes past any quote */
        uint64_t x = v ^ q, y = v ^ b;
        /* a zero byte in x or y: an exact test, no false positives */
        uint64_t zx = (((x & ~highs) + ~highs) | x) & highs;
        uint64_t zy = (((y & ~highs) + ~highs) | y) & highs;
        if ((zx & zy) != highs)
            break;
        p += 8;
    }
    while (*p != '"' && *p != '\\')
        p++;
    return p;
}
#endif

static inline const char *td_jscan_need(td_jscan *c)
{
    c->fk = TD_JF_NEED;
    return NULL;
}

/* A syntax error at p, unless p is at the end of the data (then more data may fix it). */
const char *td_jscan_bad(td_jscan *c, const char *p, const char *end, const char *what);

/* p at the opening quote. */
static inline const char *td_jscan_scan_str(td_jscan *c, const char *p, const char *end, td_jslice *s)
{
    const char *q = p + 1;
    uint32_t esc = 0;
    for (;;) {
        q = td_jscan_find_qb(q);
        if (q >= end)
            return td_jscan_need(c);
        if (*q == '"')
            break;
        esc = 1;
        q += 2;
    }
    s->p = p + 1;
    s->n = (uint32_t)(q - (p + 1));
    s->esc = esc;
    return q + 1;
}
/* Number text -> integer scaled by 10^scale. st: 0 ok, 1 out of range, 2 not a number.
 * Returns the end of the number text (also when out of range) or NULL (not a number). */
static const uint64_t td_jscan_p10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
    1000000ull, 10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
    100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

static inline const char *td_jscan_num_scaled(const char *p, int scale, int64_t *out, int *st)
{
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (!td_jscan_digit_tab[(uint8_t)*p]) {
        *st = 2;
        return NULL;
    }
    uint64_t m = 0;
    int exp = 0;
    const uint64_t lim = (UINT64_MAX - 9) / 10;
    while (td_jscan_digit_tab[(uint8_t)*p]) {
        if (m <= lim)
            m = m * 10 + (uint64_t)(*p - '0');
        else
            exp++;
        p++;
    }
    if (*p == '.') {
        p++;
        if (!td_jscan_digit_tab[(uint8_t)*p]) {
            *st = 2;
            return NULL;
        }
        while (td_jscan_digit_tab[(uint8_t)*p]) {
            if (m <= lim) {
                m = m * 10 + (uint64_t)(*p - '0');
                exp--;
            }
            p++;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        int xs = 1, x = 0;
        if (*p == '+' || *p == '-')
            xs = *p++ == '-' ? -1 : 1;
        if (!td_jscan_digit_tab[(uint8_t)*p]) {
            *st = 2;
            return NULL;
        }
        while (td_jscan_digit_tab[(uint8_t)*p]) {
            if (x < 100000)
                x = x * 10 + (*p - '0');
            p++;
        }
        exp += xs * x;
    }
    int k = exp + scale;
    if (m != 0 && k > 0) {
        if (k > 19 || m > UINT64_MAX / td_jscan_p10[k]) {
            *st = 1;
            return p;
        }
        m *= td_jscan_p10[k];
    } else if (m != 0 && k < 0) {
        if (k < -19) {
            m = 0;
        } else {
            uint64_t d = td_jscan_p10[-k], q = m / d, r = m % d;
            m = q + (r >= d - r); /* round half away from zero */
        }
    }
    if (m > (uint64_t)INT64_MAX + (uint64_t)neg) {
        *st = 1;
        return p;
    }
    *out = neg ? (int64_t)(0 - m) : (int64_t)m;
    *st = 0;
    return p;
}

/* Skip one JSON value, validating its structure, without recursion (nesting is a bit
 * stack, limited to TD_JSON_MAX_DEPTH). Resumable: on TD_JF_NEED, c->resume is where to
 * continue with the same state after a refill (it never points before an incomplete
 * token). td_jscan_skip_init starts a value. */
void td_jscan_skip_init(td_jskip *s);
const char *td_jscan_skip_run(td_jscan *c, td_jskip *s, const char *p, const char *end);
const char *td_jscan_skip(td_jscan *c, const char *p, const char *end);

/* The interned string of a slice (0 for an empty one). */
td_str td_jscan_intern(td_jscan *c, td_jslice s);

/* A number (or a string holding one) scaled by 10^scale. *ok: 1 parsed, 0 absent or not
 * numeric (value skipped), -1 out of range. */
const char *td_jscan_num(td_jscan *c, const char *p, const char *end, int scale, int64_t *v,
                        int *ok);
/* A string (*ok 1) or anything else, skipped (*ok 0). */
const char *td_jscan_str(td_jscan *c, const char *p, const char *end, td_jslice *s, int *ok);
/* An id: number, numeric string, hex string "0x..", or any other string (hashed). */
const char *td_jscan_id(td_jscan *c, const char *p, const char *end, int64_t *v, int *ok);
/* [a, b, c] of small ints; anything else is skipped (*ok 0). */
const char *td_jscan_triple(td_jscan *c, const char *p, const char *end, int32_t out[3],
                           int *ok);

#define TD_JSON_KEY_IS(k, lit) ((k).n == sizeof(lit) - 1 && memcmp((k).p, lit, sizeof(lit) - 1) == 0)

/* Common object loop: after `{`, call body for each key (p at the value), which returns
 * the end of the value or NULL. */
#define TD_JSON_OBJ_LOOP(c, p, end, KEY, BODY)                                                 \
    do {                                                                                       \
        p = td_jscan_ws(p + 1);                                                                \
        if (p >= end)                                                                          \
            return td_jscan_need(c);                                                           \
        if (*p == '}') {                                                                       \
            p++;                                                                               \
            break;                                                                             \
        }                                                                                      \
        for (;;) {                                                                             \
            td_jslice KEY;                                                                     \
            if (*p != '"')                                                                     \
                return td_jscan_bad(c, p, end, "expected a string key or '}'");                \
            p = td_jscan_scan_str(c, p, end, &KEY);                                            \
            if (!p)                                                                            \
                return NULL;                                                                   \
            p = td_jscan_ws(p);                                                                \
            if (*p != ':')                                                                     \
                return td_jscan_bad(c, p, end, "expected ':'");                                \
            p = td_jscan_ws(p + 1);                                                            \
            if (p >= end)                                                                      \
                return td_jscan_need(c);                                                       \
            BODY                                                                               \
            if (!p)                                                                            \
                return NULL;                                                                   \
            p = td_jscan_ws(p);                                                                \
            if (*p == ',') {                                                                   \
                p = td_jscan_ws(p + 1);                                                        \
                if (p >= end)                                                                  \
                    return td_jscan_need(c);                                                   \
                continue;                                                                      \
            }                                                                                  \
            if (*p == '}') {                                                                   \
                p++;                                                                           \
                break;                                                                         \
            }                                                                                  \
            return td_jscan_bad(c, p, end, "expected ',' or '}'");                             \
        }                                                                                      \
    } while (0)
#endif
