/* read/chrome.c - streaming Chrome Trace Event reader (see read/chrome.h).
 *
 * The decoded stream flows through one reused buffer. The top level (array, or object
 * with traceEvents and a few useful keys) is a small resumable state machine; each
 * event object is parsed in one go from the buffer into a flat record of slices and
 * numbers, then committed to the model. When an event straddles the end of the buffer
 * the parse is abandoned (nothing was committed yet), the unread tail is moved to the
 * front, the buffer refilled and the event parsed again: a restart costs one event per
 * buffer, and no parser state has to survive a refill. The bytes after the data are a
 * run of '"' so scanning loops stop at the end without bounds checks; every place that
 * stops checks `p >= end` before trusting what it found.
 *
 * Numbers that matter (ts, dur) are parsed from their decimal text straight to integer
 * ns. Strings are interned through a cache keyed by their raw bytes, so escapes and
 * UTF-8 validation are only dealt with the first time a string is seen.
 *
 * What goes where: X, B/E (paired per track), i/I (TD_K_INSTANT) and b/e (paired by
 * cat, id, name: TD_K_ASYNC) become events; C args values become td_counter rows; s/t/f
 * become td_flow; M names and sort indexes go to tracks (process ones to every thread of
 * the process, at the end). Kept args: correlation -> td_event.corr; bytes, grid, block,
 * the NCCL ones and External id -> td_aux, External id only on device work (see
 * commit). Damage is counted and reported once per file as warnings: negative
 * durations (set to 0), events without ts or with out-of-range numbers (skipped),
 * unmatched E/e (ignored), unclosed B/b (closed at the last end seen), invalid UTF-8
 * (U+FFFD), a truncated tail (events read so far kept). */
#define _POSIX_C_SOURCE 200809L
#include "read/chrome.h"
#if defined(__SSE2__) && !defined(TD_PORTABLE)
#include <emmintrin.h>
#define TD_FIND_SSE2 1
#endif
#include <stdlib.h>
#include <string.h>

#define PAD 64
#define BUF_INIT (1u << 20)
#define BUF_MAX ((size_t)1 << 30)   /* one event (or top-level value) must fit */
#define MAX_DEPTH 1024

/* ---------------------------------------------------------------- small maps */

typedef struct {
    int64_t a, b;
    uint32_t v;
    uint32_t used;
} ment;

typedef struct {
    ment *e;
    size_t n, cap; /* cap is a power of two (or 0) */
} imap;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static ment *imap_slot(imap *m, int64_t a, int64_t b)
{
    if ((m->n + 1) * 2 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        ment *ne = td_xcalloc(nc, sizeof *ne);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].used)
                continue;
            size_t j = mix64((uint64_t)m->e[i].a * 31 + (uint64_t)m->e[i].b) & (nc - 1);
            while (ne[j].used)
                j = (j + 1) & (nc - 1);
            ne[j] = m->e[i];
        }
        free(m->e);
        m->e = ne;
        m->cap = nc;
    }
    size_t j = mix64((uint64_t)a * 31 + (uint64_t)b) & (m->cap - 1);
    while (m->e[j].used) {
        if (m->e[j].a == a && m->e[j].b == b)
            return &m->e[j];
        j = (j + 1) & (m->cap - 1);
    }
    m->e[j].used = 1;
    m->e[j].a = a;
    m->e[j].b = b;
    m->e[j].v = 0;
    m->n++;
    return &m->e[j];
}

/* ---------------------------------------------------------------- parser state */

typedef struct {
    const char *p;
    uint32_t n;
    uint32_t esc;
} slice;

enum {
    H_TS = 1u << 0, H_DUR = 1u << 1, H_PID = 1u << 2, H_TID = 1u << 3,
    H_PIDS = 1u << 4, H_TIDS = 1u << 5, H_ID = 1u << 6, H_CORR = 1u << 7,
    H_EXT = 1u << 8, H_DEV = 1u << 9, H_STREAM = 1u << 10, H_BYTES = 1u << 11,
    H_IN = 1u << 12, H_OUT = 1u << 13, H_GROUP = 1u << 14, H_GRID = 1u << 15,
    H_BLOCK = 1u << 16, H_COLL = 1u << 17, H_DTYPE = 1u << 18, H_MNAME = 1u << 19,
    H_SORT = 1u << 20, H_NAME = 1u << 21, H_CAT = 1u << 22, H_BADNUM = 1u << 23,
    H_BPE = 1u << 24
};
#define H_AUX (H_EXT | H_BYTES | H_IN | H_OUT | H_GROUP | H_GRID | H_BLOCK | H_COLL | H_DTYPE)

typedef struct {
    uint32_t have;
    char ph;
    slice name, cat, pid_s, tid_s, coll, dtype, mname;
    int64_t pid, tid, ts, dur, id;
    int64_t corr, ext, dev, stream, bytes, in_nel, out_nel, group, sort;
    int32_t grid[3], block[3];
    const char *args, *args_end;
} rawev;

typedef struct {
    uint64_t h;
    const char *raw;
    uint32_t n;
    td_str id;
} scent;

typedef struct {
    td_str s;
    uint16_t idx;
    uint8_t kind;
} catent;

typedef struct {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;

typedef struct {
    uint32_t depth;
    uint8_t st, key, in_str;
    uint64_t bits[MAX_DEPTH / 64];
} skipst;

typedef struct {
    td_str name;
    int32_t sort;
    int has_sort;
} pinfo;

typedef struct {
    uint64_t key;
    uint32_t ev, prev;
} openasync;

enum { F_NONE, F_NEED, F_ERR };
enum { T_START, T_OBJ_FIRST, T_OBJ_KEY, T_OBJ_AFTER, T_SKIP, T_EV_FIRST, T_EV_NEXT,
       T_EV_AFTER, T_DONE };

typedef struct {
    td_traceset *set;
    td_trace *t;
    td_in *in;
    const char *name;
    td_err *e;

    char *buf;
    size_t cap, len;
    uint64_t base; /* stream offset of buf[0] */
    int eof;

    int fk;               /* F_NEED / F_ERR after a parse function returned NULL */
    const char *fat;      /* error position */
    const char *fwhat;    /* what was expected */
    const char *resume;   /* skipper: where to resume after a refill */

    skipst sk;            /* top-level skip of unknown values */

    scent *sc;
    size_t scn, sccap;
    td_arena *scarena;
    td_buf scratch;

    imap tracks;          /* (pid, tid) -> track + 1 */
    int64_t lpid, ltid;
    uint32_t ltrack;
    int lvalid;

    catent cats[64];
    int ncats;
    td_str cpu_functions;

    u32vec *stk;          /* per track: open B events */
    size_t nstk;
    imap pids;            /* pid -> pinfo index + 1 */
    pinfo *pi;
    size_t npi, pi_cap;
    imap amap;            /* async key -> open record + 1 */
    openasync *oa;
    size_t noa, oa_cap;

    int64_t max_end;
    int seen_events, no_events;

    uint64_t w_neg, w_nots, w_range, w_unmatched_e, w_open_b, w_unmatched_ae, w_open_ab,
        w_utf8;
} cj;

/* ---------------------------------------------------------------- low-level scanning */

static const uint8_t ws_tab[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};
static const uint8_t digit_tab[256] = {['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
                                       ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1};
static const uint8_t numch_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1, ['+'] = 1, ['-'] = 1};

static inline const char *ws(const char *p)
{
    while (ws_tab[(uint8_t)*p])
        p++;
    return p;
}

/* First '"' or '\\' at or after p (the padding guarantees one). SSE2 16 bytes at a
 * time on x86-64; elsewhere (arm64, or make PORTABLE=1) 8 bytes at a time in a word. */
#ifdef TD_FIND_SSE2
static inline const char *find_qb(const char *p)
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
static inline const char *find_qb(const char *p)
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

static const char *need(cj *c)
{
    c->fk = F_NEED;
    return NULL;
}

/* A syntax error at p, unless p is at the end of the data (then more data may fix it). */
static const char *bad(cj *c, const char *p, const char *end, const char *what)
{
    if (p >= end)
        return need(c);
    c->fk = F_ERR;
    c->fat = p;
    c->fwhat = what;
    return NULL;
}

/* p at the opening quote. */
static inline const char *scan_str(cj *c, const char *p, const char *end, slice *s)
{
    const char *q = p + 1;
    uint32_t esc = 0;
    for (;;) {
        q = find_qb(q);
        if (q >= end)
            return need(c);
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
static const uint64_t p10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
    1000000ull, 10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
    100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull};

static inline const char *num_scaled(const char *p, int scale, int64_t *out, int *st)
{
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    if (!digit_tab[(uint8_t)*p]) {
        *st = 2;
        return NULL;
    }
    uint64_t m = 0;
    int exp = 0;
    const uint64_t lim = (UINT64_MAX - 9) / 10;
    while (digit_tab[(uint8_t)*p]) {
        if (m <= lim)
            m = m * 10 + (uint64_t)(*p - '0');
        else
            exp++;
        p++;
    }
    if (*p == '.') {
        p++;
        if (!digit_tab[(uint8_t)*p]) {
            *st = 2;
            return NULL;
        }
        while (digit_tab[(uint8_t)*p]) {
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
        if (!digit_tab[(uint8_t)*p]) {
            *st = 2;
            return NULL;
        }
        while (digit_tab[(uint8_t)*p]) {
            if (x < 100000)
                x = x * 10 + (*p - '0');
            p++;
        }
        exp += xs * x;
    }
    int k = exp + scale;
    if (m != 0 && k > 0) {
        if (k > 19 || m > UINT64_MAX / p10[k]) {
            *st = 1;
            return p;
        }
        m *= p10[k];
    } else if (m != 0 && k < 0) {
        if (k < -19) {
            m = 0;
        } else {
            uint64_t d = p10[-k], q = m / d, r = m % d;
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

const char *td_chrome_parse_scaled(const char *p, const char *end, int scale, int64_t *out)
{
    /* copy to a padded buffer so the scanner's end-of-number stop is guaranteed */
    char tmp[400];
    size_t n = (size_t)(end - p);
    if (n > sizeof tmp - 1)
        n = sizeof tmp - 1;
    memcpy(tmp, p, n);
    tmp[n] = 0;
    int st;
    int64_t v;
    const char *q = num_scaled(tmp, scale, &v, &st);
    if (!q || st)
        return NULL;
    *out = v;
    return p + (q - tmp);
}

/* ---------------------------------------------------------------- skipping values */

enum { K_VAL, K_VAL_OR_END, K_KEY_OR_END, K_KEY, K_COLON, K_AFTER };

static inline void sk_init(skipst *s)
{
    s->depth = 0;
    s->st = K_VAL;
    s->in_str = 0;
}

/* Skip one JSON value, validating its structure, without recursion (nesting is a bit
 * stack, limited to MAX_DEPTH). Resumable: on F_NEED, c->resume is where to continue
 * with the same state after a refill (it never points before an incomplete token). */
static const char *skip_run(cj *c, skipst *s, const char *p, const char *end)
{
    for (;;) {
        if (s->in_str) {
            /* inside a string (possibly resumed) */
            for (;;) {
                p = find_qb(p);
                if (p >= end) {
                    c->resume = end;
                    return need(c);
                }
                if (*p == '"')
                    break;
                if (p + 1 >= end) { /* backslash is the last byte: resume on it */
                    c->resume = p;
                    return need(c);
                }
                p += 2;
            }
            p++;
            s->in_str = 0;
            if (s->key) {
                s->key = 0;
                s->st = K_COLON;
                continue;
            }
            goto value_done;
        }
        p = ws(p);
        if (p >= end) {
            c->resume = p;
            return need(c);
        }
        switch (s->st) {
        case K_VAL_OR_END:
            if (*p == ']') {
                p++;
                s->depth--;
                goto value_done;
            }
            /* fall through */
        case K_VAL:
            switch (*p) {
            case '{':
            case '[':
                if (s->depth >= MAX_DEPTH) {
                    c->fk = F_ERR;
                    c->fat = p;
                    c->fwhat = "nesting deeper than 1024 levels";
                    return NULL;
                }
                if (*p == '{')
                    s->bits[s->depth / 64] |= 1ull << (s->depth % 64);
                else
                    s->bits[s->depth / 64] &= ~(1ull << (s->depth % 64));
                s->depth++;
                s->st = *p == '{' ? K_KEY_OR_END : K_VAL_OR_END;
                p++;
                continue;
            case '"':
                s->in_str = 1;
                s->key = 0;
                p++;
                continue;
            case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6':
            case '7': case '8': case '9': {
                const char *q = p + 1;
                while (numch_tab[(uint8_t)*q])
                    q++;
                if (q >= end) {
                    c->resume = p;
                    return need(c);
                }
                p = q;
                goto value_done;
            }
            case 't': case 'f': case 'n': case 'N': case 'I': {
                static const char *const lits[] = {"true", "false", "null", "NaN", "Infinity"};
                int ok = 0;
                for (int i = 0; i < 5 && !ok; i++) {
                    size_t L = strlen(lits[i]);
                    if (*p != lits[i][0])
                        continue;
                    if ((size_t)(end - p) < L) {
                        if (memcmp(p, lits[i], (size_t)(end - p)) == 0) {
                            c->resume = p;
                            return need(c);
                        }
                        continue;
                    }
                    if (memcmp(p, lits[i], L) == 0) {
                        p += L;
                        ok = 1;
                    }
                }
                if (!ok)
                    return bad(c, p, end, "expected a JSON value");
                goto value_done;
            }
            default:
                return bad(c, p, end, "expected a JSON value");
            }
        case K_KEY_OR_END:
            if (*p == '}') {
                p++;
                s->depth--;
                goto value_done;
            }
            /* fall through */
        case K_KEY:
            if (*p != '"')
                return bad(c, p, end, "expected a string key");
            s->in_str = 1;
            s->key = 1;
            p++;
            continue;
        case K_COLON:
            if (*p != ':')
                return bad(c, p, end, "expected ':'");
            p++;
            s->st = K_VAL;
            continue;
        case K_AFTER: {
            int obj = (s->bits[(s->depth - 1) / 64] >> ((s->depth - 1) % 64)) & 1;
            if (*p == ',') {
                p++;
                s->st = obj ? K_KEY : K_VAL;
                continue;
            }
            if (*p == (obj ? '}' : ']')) {
                p++;
                s->depth--;
                goto value_done;
            }
            return bad(c, p, end, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        }
    value_done:
        if (s->depth == 0)
            return p;
        s->st = K_AFTER;
    }
}

/* Skip a value that must be complete in the buffer (inside an event). */
static const char *skip_value(cj *c, const char *p, const char *end)
{
    skipst s;
    sk_init(&s);
    return skip_run(c, &s, p, end);
}

/* ---------------------------------------------------------------- strings */

static inline uint64_t hs(const char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xc2b2ae3d27d4eb4full);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
    }
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static void put_cp(td_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    td_buf_put(b, u, n);
}

static int hex4(const unsigned char *p, const unsigned char *e, uint32_t *v)
{
    if (e - p < 4)
        return 0;
    uint32_t x = 0;
    for (int i = 0; i < 4; i++) {
        int ch = p[i], d;
        if (ch >= '0' && ch <= '9')
            d = ch - '0';
        else if (ch >= 'a' && ch <= 'f')
            d = ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F')
            d = ch - 'A' + 10;
        else
            return 0;
        x = x * 16 + (uint32_t)d;
    }
    *v = x;
    return 1;
}

/* Length of a valid UTF-8 sequence at p (1..4), or 0 when invalid. */
static int utf8_len(const unsigned char *p, const unsigned char *e)
{
    unsigned b = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF)
        n = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0)
            lo = 0xA0;
        if (b == 0xED)
            hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0)
            lo = 0x90;
        if (b == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (e - p < n)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return n;
}

/* Decode a raw JSON string body into valid UTF-8 without NULs (c->scratch).
 * Invalid UTF-8 and lone surrogates become U+FFFD. Returns 1 if anything was replaced. */
static int decode_str(cj *c, const char *s, size_t n)
{
    td_buf *b = &c->scratch;
    b->n = 0;
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    int bad = 0;
    while (p < e) {
        unsigned ch = *p;
        if (ch == '\\' && p + 1 < e) {
            unsigned x = p[1];
            p += 2;
            switch (x) {
            case 'b': td_buf_putc(b, '\b'); break;
            case 'f': td_buf_putc(b, '\f'); break;
            case 'n': td_buf_putc(b, '\n'); break;
            case 'r': td_buf_putc(b, '\r'); break;
            case 't': td_buf_putc(b, '\t'); break;
            case 'u': {
                uint32_t cp, lo;
                if (!hex4(p, e, &cp)) {
                    put_cp(b, 0xFFFD);
                    bad = 1;
                    break;
                }
                p += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, e, &lo) &&
                        lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    } else {
                        cp = 0xFFFD;
                        bad = 1;
                    }
                } else if ((cp >= 0xDC00 && cp <= 0xDFFF) || cp == 0) {
                    cp = 0xFFFD;
                    bad = 1;
                }
                put_cp(b, cp);
                break;
            }
            default: /* \" \\ \/ and anything unknown: the character itself */
                td_buf_putc(b, (char)x);
                break;
            }
        } else if (ch < 0x80) {
            if (ch == 0) {
                put_cp(b, 0xFFFD);
                bad = 1;
            } else {
                td_buf_putc(b, (char)ch);
            }
            p++;
        } else {
            int L = utf8_len(p, e);
            if (L) {
                td_buf_put(b, p, (size_t)L);
                p += L;
            } else {
                put_cp(b, 0xFFFD);
                bad = 1;
                p++;
            }
        }
    }
    return bad;
}

static int plain_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80 || ch == 0)
            return 0;
    }
    return 1;
}

static td_str intern_slice(cj *c, slice s)
{
    if (s.n == 0)
        return 0;
    uint64_t h = hs(s.p, s.n);
    if ((c->scn + 1) * 2 > c->sccap) {
        size_t nc = c->sccap ? c->sccap * 2 : 1024;
        scent *ne = td_xcalloc(nc, sizeof *ne);
        for (size_t i = 0; i < c->sccap; i++) {
            if (!c->sc[i].raw)
                continue;
            size_t j = c->sc[i].h & (nc - 1);
            while (ne[j].raw)
                j = (j + 1) & (nc - 1);
            ne[j] = c->sc[i];
        }
        free(c->sc);
        c->sc = ne;
        c->sccap = nc;
    }
    size_t j = h & (c->sccap - 1);
    for (;;) {
        scent *x = &c->sc[j];
        if (!x->raw)
            break;
        if (x->h == h && x->n == s.n && memcmp(x->raw, s.p, s.n) == 0)
            return x->id;
        j = (j + 1) & (c->sccap - 1);
    }
    td_str id;
    if (!s.esc && plain_ascii(s.p, s.n)) {
        id = td_intern(c->set->strs, s.p, s.n);
    } else {
        if (decode_str(c, s.p, s.n))
            c->w_utf8++;
        id = td_intern(c->set->strs, c->scratch.p ? c->scratch.p : "", c->scratch.n);
    }
    scent *x = &c->sc[j];
    x->h = h;
    x->n = s.n;
    x->raw = td_arena_strndup(c->scarena, s.p, s.n);
    x->id = id;
    c->scn++;
    return id;
}

/* ---------------------------------------------------------------- values */

/* A number (or a string holding one) scaled by 10^scale. *ok: 1 parsed, 0 absent or not
 * numeric (value skipped), -1 out of range. */
static const char *num_value(cj *c, const char *p, const char *end, int scale, int64_t *v,
                             int *ok)
{
    int st;
    if (*p == '-' || digit_tab[(uint8_t)*p]) {
        const char *q = num_scaled(p, scale, v, &st);
        if (!q) {
            const char *z = p;
            while (numch_tab[(uint8_t)*z])
                z++;
            return bad(c, z >= end ? end : p, end, "expected a number");
        }
        if (q >= end)
            return need(c);
        *ok = st == 0 ? 1 : -1;
        return q;
    }
    if (*p == '"') {
        slice s;
        const char *q = scan_str(c, p, end, &s);
        if (!q)
            return NULL;
        *ok = 0;
        if (s.n > 0 && s.n < 64 && !s.esc) {
            char tmp[80];
            memcpy(tmp, s.p, s.n);
            tmp[s.n] = 0;
            int64_t x;
            const char *r = num_scaled(tmp, scale, &x, &st);
            if (r && *r == 0) {
                *ok = st == 0 ? 1 : -1;
                if (st == 0)
                    *v = x;
            }
        }
        return q;
    }
    *ok = 0;
    return skip_value(c, p, end);
}

static const char *str_value(cj *c, const char *p, const char *end, slice *s, int *ok)
{
    if (*p == '"') {
        const char *q = scan_str(c, p, end, s);
        *ok = q != NULL;
        return q;
    }
    *ok = 0;
    return skip_value(c, p, end);
}

/* An id: number, numeric string, hex string "0x..", or any other string (hashed). */
static const char *id_value(cj *c, const char *p, const char *end, int64_t *v, int *ok)
{
    if (*p == '"') {
        slice s;
        const char *q = scan_str(c, p, end, &s);
        if (!q)
            return NULL;
        uint64_t x = 0;
        int hex = s.n > 2 && s.n <= 18 && s.p[0] == '0' && (s.p[1] == 'x' || s.p[1] == 'X');
        for (uint32_t i = 2; hex && i < s.n; i++) {
            int ch = (unsigned char)s.p[i];
            int d = ch >= '0' && ch <= '9' ? ch - '0'
                  : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
            if (d < 0)
                hex = 0;
            else
                x = x * 16 + (uint64_t)d;
        }
        *v = hex ? (int64_t)x : (int64_t)(hs(s.p, s.n) >> 1);
        *ok = 1;
        return q;
    }
    const char *q = num_value(c, p, end, 0, v, ok);
    if (q && *ok == -1) { /* beyond int64: identify it by its text */
        *v = (int64_t)(hs(p, (size_t)(q - p)) >> 1);
        *ok = 1;
    }
    return q;
}

/* [a, b, c] of small ints; anything else is skipped (*ok 0). */
static const char *triple_value(cj *c, const char *p, const char *end, int32_t out[3], int *ok)
{
    const char *start = p;
    *ok = 0;
    if (*p == '[') {
        p = ws(p + 1);
        int i = 0;
        while (i < 3) {
            int64_t v;
            int st;
            const char *q = (*p == '-' || digit_tab[(uint8_t)*p]) ? num_scaled(p, 0, &v, &st)
                                                                  : NULL;
            if (!q || st || q >= end)
                break;
            out[i++] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
            p = ws(q);
            if (*p == ',' && i < 3)
                p = ws(p + 1);
            else
                break;
        }
        if (i == 3 && *p == ']' && p < end) {
            *ok = 1;
            return p + 1;
        }
        for (; i < 3; i++)
            out[i] = 0;
    }
    return skip_value(c, start, end);
}

#define KEYIS(k, lit) ((k).n == sizeof(lit) - 1 && memcmp((k).p, lit, sizeof(lit) - 1) == 0)

/* Common object loop: after `{`, call body for each key (p at the value), which returns
 * the end of the value or NULL. */
#define OBJ_LOOP(c, p, end, KEY, BODY)                                                 \
    do {                                                                               \
        p = ws(p + 1);                                                                 \
        if (p >= end)                                                                  \
            return need(c);                                                            \
        if (*p == '}') {                                                               \
            p++;                                                                       \
            break;                                                                     \
        }                                                                              \
        for (;;) {                                                                     \
            slice KEY;                                                                 \
            if (*p != '"')                                                             \
                return bad(c, p, end, "expected a string key or '}'");                 \
            p = scan_str(c, p, end, &KEY);                                             \
            if (!p)                                                                    \
                return NULL;                                                           \
            p = ws(p);                                                                 \
            if (*p != ':')                                                             \
                return bad(c, p, end, "expected ':'");                                 \
            p = ws(p + 1);                                                             \
            if (p >= end)                                                              \
                return need(c);                                                        \
            BODY                                                                       \
            if (!p)                                                                    \
                return NULL;                                                           \
            p = ws(p);                                                                 \
            if (*p == ',') {                                                           \
                p = ws(p + 1);                                                         \
                if (p >= end)                                                          \
                    return need(c);                                                    \
                continue;                                                              \
            }                                                                          \
            if (*p == '}') {                                                           \
                p++;                                                                   \
                break;                                                                 \
            }                                                                          \
            return bad(c, p, end, "expected ',' or '}'");                              \
        }                                                                              \
    } while (0)

static const char *parse_args(cj *c, const char *p, const char *end, rawev *r)
{
    if (*p != '{')
        return skip_value(c, p, end);
    r->args = p;
    OBJ_LOOP(c, p, end, k, {
        int ok = 0;
        switch (k.n) {
        case 4:
            if (KEYIS(k, "grid")) {
                p = triple_value(c, p, end, r->grid, &ok);
                if (ok) r->have |= H_GRID;
            } else if (KEYIS(k, "name")) {
                p = str_value(c, p, end, &r->mname, &ok);
                if (ok) r->have |= H_MNAME;
            } else
                p = skip_value(c, p, end);
            break;
        case 5:
            if (KEYIS(k, "block")) {
                p = triple_value(c, p, end, r->block, &ok);
                if (ok) r->have |= H_BLOCK;
            } else if (KEYIS(k, "bytes")) {
                p = num_value(c, p, end, 0, &r->bytes, &ok);
                if (ok == 1) r->have |= H_BYTES;
            } else if (KEYIS(k, "dtype")) {
                p = str_value(c, p, end, &r->dtype, &ok);
                if (ok) r->have |= H_DTYPE;
            } else
                p = skip_value(c, p, end);
            break;
        case 6:
            if (KEYIS(k, "device")) {
                p = num_value(c, p, end, 0, &r->dev, &ok);
                if (ok == 1) r->have |= H_DEV;
            } else if (KEYIS(k, "stream")) {
                p = num_value(c, p, end, 0, &r->stream, &ok);
                if (ok == 1) r->have |= H_STREAM;
            } else
                p = skip_value(c, p, end);
            break;
        case 10:
            if (KEYIS(k, "Group size")) {
                p = num_value(c, p, end, 0, &r->group, &ok);
                if (ok == 1) r->have |= H_GROUP;
            } else if (KEYIS(k, "sort_index")) {
                p = num_value(c, p, end, 0, &r->sort, &ok);
                if (ok == 1) r->have |= H_SORT;
            } else
                p = skip_value(c, p, end);
            break;
        case 11:
            if (KEYIS(k, "correlation")) {
                p = num_value(c, p, end, 0, &r->corr, &ok);
                if (ok == 1) r->have |= H_CORR;
            } else if (KEYIS(k, "External id") || KEYIS(k, "external id")) {
                p = num_value(c, p, end, 0, &r->ext, &ok);
                if (ok == 1) r->have |= H_EXT;
            } else
                p = skip_value(c, p, end);
            break;
        case 13:
            if (KEYIS(k, "In msg nelems")) {
                p = num_value(c, p, end, 0, &r->in_nel, &ok);
                if (ok == 1) r->have |= H_IN;
            } else
                p = skip_value(c, p, end);
            break;
        case 14:
            if (KEYIS(k, "Out msg nelems")) {
                p = num_value(c, p, end, 0, &r->out_nel, &ok);
                if (ok == 1) r->have |= H_OUT;
            } else
                p = skip_value(c, p, end);
            break;
        case 15:
            if (KEYIS(k, "Collective name")) {
                p = str_value(c, p, end, &r->coll, &ok);
                if (ok) r->have |= H_COLL;
            } else
                p = skip_value(c, p, end);
            break;
        default:
            p = skip_value(c, p, end);
        }
    });
    r->args_end = p;
    return p;
}

/* One event object; p at '{'. Fills r; nothing is committed. */
static const char *parse_event(cj *c, const char *p, const char *end, rawev *r)
{
    r->have = 0;
    r->ph = 0;
    r->args = NULL;
    OBJ_LOOP(c, p, end, k, {
        int ok = 0;
        switch (k.n) {
        case 2:
            if (KEYIS(k, "ph")) {
                slice s;
                p = str_value(c, p, end, &s, &ok);
                if (ok && s.n)
                    r->ph = s.p[0];
            } else if (KEYIS(k, "ts")) {
                p = num_value(c, p, end, 3, &r->ts, &ok);
                if (ok == 1) r->have |= H_TS;
                else if (ok < 0) r->have |= H_BADNUM;
            } else if (KEYIS(k, "id")) {
                p = id_value(c, p, end, &r->id, &ok);
                if (ok == 1) r->have |= H_ID;
            } else if (KEYIS(k, "bp")) {
                slice s;
                p = str_value(c, p, end, &s, &ok);
                if (ok && s.n == 1 && s.p[0] == 'e')
                    r->have |= H_BPE;
            } else
                p = skip_value(c, p, end);
            break;
        case 3:
            if (KEYIS(k, "cat")) {
                p = str_value(c, p, end, &r->cat, &ok);
                if (ok) r->have |= H_CAT;
            } else if (KEYIS(k, "dur")) {
                p = num_value(c, p, end, 3, &r->dur, &ok);
                if (ok == 1) r->have |= H_DUR;
                else if (ok < 0) r->have |= H_BADNUM;
            } else if (KEYIS(k, "pid") || KEYIS(k, "tid")) {
                int is_pid = k.p[0] == 'p';
                if (*p == '"') {
                    p = str_value(c, p, end, is_pid ? &r->pid_s : &r->tid_s, &ok);
                    if (ok) r->have |= is_pid ? H_PIDS : H_TIDS;
                } else {
                    p = id_value(c, p, end, is_pid ? &r->pid : &r->tid, &ok);
                    if (ok == 1) r->have |= is_pid ? H_PID : H_TID;
                }
            } else if (KEYIS(k, "id2")) {
                /* {"local": x} or {"global": x}: one id space per kind */
                if (*p == '{') {
                    OBJ_LOOP(c, p, end, k2, {
                        int64_t v;
                        int ok2 = 0;
                        p = id_value(c, p, end, &v, &ok2);
                        if (p && ok2 == 1) {
                            r->id = KEYIS(k2, "local") ? (int64_t)(mix64((uint64_t)v) >> 1) : v;
                            r->have |= H_ID;
                        }
                    });
                } else
                    p = skip_value(c, p, end);
            } else
                p = skip_value(c, p, end);
            break;
        case 4:
            if (KEYIS(k, "name")) {
                p = str_value(c, p, end, &r->name, &ok);
                if (ok) r->have |= H_NAME;
            } else if (KEYIS(k, "args")) {
                p = parse_args(c, p, end, r);
            } else
                p = skip_value(c, p, end);
            break;
        default:
            p = skip_value(c, p, end);
        }
    });
    return p;
}

/* ---------------------------------------------------------------- model building */

static uint32_t new_track(cj *c, int64_t pid, int64_t tid, td_str ps, td_str ts)
{
    td_trace *t = c->t;
    td_track *k = TD_PUSH(t->tracks, t->ntracks, t->tracks_cap);
    memset(k, 0, sizeof *k);
    k->pid = pid;
    k->tid = tid;
    k->pid_str = ps;
    k->tid_str = ts;
    k->device = -1;
    k->stream = -1;
    return (uint32_t)(t->ntracks - 1);
}

static int64_t str_id(cj *c, td_str s)
{
    return (int64_t)(td_hash64(td_strget(c->set->strs, s), td_strlen_of(c->set->strs, s)) >> 1);
}

static uint32_t track_of(cj *c, rawev *r)
{
    int64_t pid = r->have & H_PID ? r->pid : 0, tid = r->have & H_TID ? r->tid : 0;
    td_str ps = 0, ts = 0;
    if (r->have & H_PIDS) {
        ps = intern_slice(c, r->pid_s);
        pid = str_id(c, ps);
    }
    if (r->have & H_TIDS) {
        ts = intern_slice(c, r->tid_s);
        tid = str_id(c, ts);
    }
    if (c->lvalid && pid == c->lpid && tid == c->ltid)
        return c->ltrack;
    ment *m = imap_slot(&c->tracks, pid, tid);
    if (!m->v)
        m->v = new_track(c, pid, tid, ps, ts) + 1;
    c->lvalid = 1;
    c->lpid = pid;
    c->ltid = tid;
    c->ltrack = m->v - 1;
    return c->ltrack;
}

static void cat_of(cj *c, rawev *r, uint16_t *idx, uint8_t *kind)
{
    if (!(r->have & H_CAT)) {
        *idx = 0;
        *kind = TD_K_OTHER;
        return;
    }
    td_str s = intern_slice(c, r->cat);
    for (int i = 0; i < c->ncats; i++)
        if (c->cats[i].s == s) {
            *idx = c->cats[i].idx;
            *kind = c->cats[i].kind;
            return;
        }
    *idx = td_trace_cat(c->t, s);
    *kind = (uint8_t)td_kind_from_cat(td_strget(c->set->strs, s), td_strlen_of(c->set->strs, s));
    if (c->ncats < (int)(sizeof c->cats / sizeof c->cats[0]))
        c->cats[c->ncats++] = (catent){s, *idx, *kind};
}

static void note_end(cj *c, int64_t ts, int64_t dur)
{
    int64_t e = ts + dur;
    if (e > c->max_end)
        c->max_end = e;
}

static void add_aux(cj *c, rawev *r, td_event *ev)
{
    td_aux *a;
    ev->aux = td_trace_push_aux(c->t, &a);
    if (r->have & H_EXT) a->ext_id = r->ext;
    if (r->have & H_BYTES) a->bytes = r->bytes;
    if (r->have & H_IN) a->in_nelems = r->in_nel;
    if (r->have & H_OUT) a->out_nelems = r->out_nel;
    if (r->have & H_COLL) a->coll = intern_slice(c, r->coll);
    if (r->have & H_DTYPE) a->dtype = intern_slice(c, r->dtype);
    if (r->have & H_GROUP)
        a->group_size = r->group > INT32_MAX ? INT32_MAX : r->group < 0 ? 0 : (int32_t)r->group;
    if (r->have & H_GRID) memcpy(a->grid, r->grid, sizeof a->grid);
    if (r->have & H_BLOCK) memcpy(a->block, r->block, sizeof a->block);
}

static u32vec *stack_of(cj *c, uint32_t track)
{
    if (track >= c->nstk) {
        size_t n = c->nstk ? c->nstk : 16;
        while (n <= track)
            n *= 2;
        c->stk = td_xrealloc(c->stk, n * sizeof *c->stk);
        memset(c->stk + c->nstk, 0, (n - c->nstk) * sizeof *c->stk);
        c->nstk = n;
    }
    return &c->stk[track];
}

static uint64_t async_key(cj *c, rawev *r)
{
    td_str cat = r->have & H_CAT ? intern_slice(c, r->cat) : 0;
    td_str nm = r->have & H_NAME ? intern_slice(c, r->name) : 0;
    return mix64(((uint64_t)cat << 32 | nm) ^ mix64((uint64_t)r->id));
}

static pinfo *pinfo_of(cj *c, int64_t pid)
{
    ment *m = imap_slot(&c->pids, pid, 0);
    if (!m->v) {
        pinfo *p = TD_PUSH(c->pi, c->npi, c->pi_cap);
        memset(p, 0, sizeof *p);
        m->v = (uint32_t)c->npi;
    }
    return &c->pi[m->v - 1];
}

static void commit_meta(cj *c, rawev *r)
{
    if (!(r->have & H_NAME))
        return;
    slice n = r->name;
    if (KEYIS(n, "process_name") || KEYIS(n, "process_sort_index")) {
        int64_t pid = r->pid;
        if (r->have & H_PIDS)
            pid = str_id(c, intern_slice(c, r->pid_s));
        else if (!(r->have & H_PID))
            pid = 0;
        pinfo *p = pinfo_of(c, pid);
        if (n.p[8] == 'n' && (r->have & H_MNAME))
            p->name = intern_slice(c, r->mname);
        else if (n.p[8] == 's' && (r->have & H_SORT)) {
            p->sort = (int32_t)(r->sort > INT32_MAX ? INT32_MAX : r->sort < INT32_MIN ? INT32_MIN : r->sort);
            p->has_sort = 1;
        }
    } else if (KEYIS(n, "thread_name") || KEYIS(n, "thread_sort_index")) {
        uint32_t k = track_of(c, r);
        td_track *tk = &c->t->tracks[k];
        if (n.p[7] == 'n' && (r->have & H_MNAME))
            tk->thread_name = intern_slice(c, r->mname);
        else if (n.p[7] == 's' && (r->have & H_SORT))
            tk->sort_index = (int32_t)(r->sort > INT32_MAX ? INT32_MAX : r->sort < INT32_MIN ? INT32_MIN : r->sort);
    }
    /* process_labels and others: nothing in the model needs them */
}

static void commit_counter(cj *c, rawev *r)
{
    if (!r->args || !(r->have & H_TS))
        return;
    td_str name = r->have & H_NAME ? intern_slice(c, r->name) : 0;
    uint32_t track = track_of(c, r);
    /* The args object was parsed once already: it is complete and valid here. */
    const char *p = ws(r->args + 1), *end = r->args_end;
    while (p < end && *p == '"') {
        slice k;
        p = scan_str(c, p, end, &k);
        if (!p)
            return;
        p = ws(ws(p) + 1);
        if (*p == '-' || digit_tab[(uint8_t)*p]) {
            const char *q = p;
            while (numch_tab[(uint8_t)*q])
                q++;
            char tmp[64];
            size_t L = (size_t)(q - p) < sizeof tmp - 1 ? (size_t)(q - p) : sizeof tmp - 1;
            memcpy(tmp, p, L);
            tmp[L] = 0;
            td_counter *ct = TD_PUSH(c->t->counters, c->t->ncounters, c->t->counters_cap);
            ct->ts = r->ts;
            ct->name = name;
            ct->series = intern_slice(c, k);
            ct->track = track;
            ct->value = strtod(tmp, NULL);
            p = q;
        } else {
            p = skip_value(c, p, end);
            if (!p)
                return;
        }
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
}

static void commit(cj *c, rawev *r)
{
    td_trace *t = c->t;
    char ph = r->ph;
    switch (ph) {
    case 'X': case 'B': case 'i': case 'I': case 'b': case 'E': case 'e': case 'C':
    case 's': case 't': case 'f':
        break;
    case 'M':
        commit_meta(c, r);
        return;
    default:
        return; /* unknown or unused phases ('n', 'P', 'O', 'N', 'D', 'R', ...) */
    }
    if (r->have & H_BADNUM) {
        c->w_range++;
        return;
    }
    if (!(r->have & H_TS)) {
        c->w_nots++;
        return;
    }
    if (ph == 'C') {
        commit_counter(c, r);
        return;
    }
    if (ph == 's' || ph == 't' || ph == 'f') {
        td_flow *f = TD_PUSH(t->flows, t->nflows, t->flows_cap);
        f->id = r->have & H_ID ? r->id : 0;
        f->ts = r->ts;
        f->cat = r->have & H_CAT ? intern_slice(c, r->cat) : 0;
        f->track = track_of(c, r);
        f->ph = ph;
        f->bind_next = (r->have & H_BPE) != 0;
        return;
    }
    if (ph == 'E') {
        uint32_t k = track_of(c, r);
        u32vec *s = stack_of(c, k);
        if (!s->n) {
            c->w_unmatched_e++;
            return;
        }
        td_event *ev = &t->ev[s->v[--s->n]];
        int64_t d = r->ts - ev->ts;
        if (d < 0) {
            c->w_neg++;
            d = 0;
        }
        ev->dur = d;
        note_end(c, ev->ts, d);
        return;
    }
    if (ph == 'e') {
        if (!(r->have & H_ID)) {
            c->w_unmatched_ae++;
            return;
        }
        uint64_t key = async_key(c, r);
        ment *m = imap_slot(&c->amap, (int64_t)key, 1);
        if (!m->v) {
            c->w_unmatched_ae++;
            return;
        }
        openasync *o = &c->oa[m->v - 1];
        m->v = o->prev;
        td_event *ev = &t->ev[o->ev];
        o->ev = UINT32_MAX;
        int64_t d = r->ts - ev->ts;
        if (d < 0) {
            c->w_neg++;
            d = 0;
        }
        ev->dur = d;
        note_end(c, ev->ts, d);
        return;
    }

    int64_t dur = 0;
    if (ph == 'X' && (r->have & H_DUR)) {
        dur = r->dur;
        if (dur < 0) {
            c->w_neg++;
            dur = 0;
        }
        if (r->ts > INT64_MAX - dur) {
            c->w_range++;
            return;
        }
    }
    uint16_t cat;
    uint8_t kind;
    cat_of(c, r, &cat, &kind);
    uint32_t track = track_of(c, r);
    if (ph == 'i' || ph == 'I')
        kind = TD_K_INSTANT;
    else if (ph == 'b')
        kind = TD_K_ASYNC;
    else if (!(r->have & H_CAT) && (r->have & H_PIDS) &&
             c->t->tracks[track].pid_str == c->cpu_functions)
        kind = TD_K_CPU_OP; /* legacy export (torch without Kineto) */

    td_event *ev = td_trace_push_event(t);
    ev->ts = r->ts;
    ev->dur = dur;
    ev->name = r->have & H_NAME ? intern_slice(c, r->name) : 0;
    ev->track = track;
    ev->cat = cat;
    ev->kind = kind;
    ev->ph = (uint8_t)ph;
    if (r->have & H_CORR)
        ev->corr = r->corr;
    /* "External id" is on nearly every CPU op and runtime call: keeping it there would
     * cost an aux record per event (most of the model's memory) for a link the passes
     * get from nesting and correlation ids. It is kept on device work, and on any event
     * that has another kept argument. */
    uint32_t aux = r->have & H_AUX;
    if (aux == H_EXT && !td_kind_is_device(kind) && kind != TD_K_GPU_ANNOT)
        aux = 0;
    if (aux)
        add_aux(c, r, ev);
    if (td_kind_is_device(kind)) {
        td_track *tk = &t->tracks[track];
        if (tk->device < 0) {
            int64_t d = r->have & H_DEV ? r->dev : tk->pid;
            int64_t s = r->have & H_STREAM ? r->stream : tk->tid;
            tk->device = d < 0 || d > INT32_MAX ? 0 : (int32_t)d;
            tk->stream = s < 0 || s > INT32_MAX ? 0 : (int32_t)s;
        }
    }
    note_end(c, r->ts, dur);
    uint32_t idx = (uint32_t)(t->nev - 1);
    if (ph == 'B') {
        u32vec *s = stack_of(c, track);
        if (s->n == s->cap) {
            s->cap = s->cap ? s->cap * 2 : 8;
            s->v = td_xrealloc(s->v, s->cap * sizeof *s->v);
        }
        s->v[s->n++] = idx;
    } else if (ph == 'b') {
        if (!(r->have & H_ID)) {
            /* unpaired by construction: keep it as an instant of zero length */
            return;
        }
        uint64_t key = async_key(c, r);
        ment *m = imap_slot(&c->amap, (int64_t)key, 1);
        openasync *o = TD_PUSH(c->oa, c->noa, c->oa_cap);
        o->key = key;
        o->ev = idx;
        o->prev = m->v;
        m->v = (uint32_t)c->noa;
    }
}

/* ---------------------------------------------------------------- top level */

static const char *parse_devices(cj *c, const char *p, const char *end)
{
    if (*p != '[')
        return skip_value(c, p, end);
    p = ws(p + 1);
    if (p >= end)
        return need(c);
    if (*p == ']')
        return p + 1;
    for (;;) {
        if (*p != '{') {
            p = skip_value(c, p, end);
        } else {
            int64_t id = -1, mem = 0, sms = 0;
            slice nm = {0};
            int hn = 0;
            OBJ_LOOP(c, p, end, k, {
                int ok = 0;
                int64_t v = 0;
                if (KEYIS(k, "id")) {
                    p = num_value(c, p, end, 0, &v, &ok);
                    if (ok == 1) id = v;
                } else if (KEYIS(k, "name")) {
                    p = str_value(c, p, end, &nm, &hn);
                } else if (KEYIS(k, "totalGlobalMem")) {
                    p = num_value(c, p, end, 0, &v, &ok);
                    if (ok == 1) mem = v;
                } else if (KEYIS(k, "numSms")) {
                    p = num_value(c, p, end, 0, &v, &ok);
                    if (ok == 1) sms = v;
                } else
                    p = skip_value(c, p, end);
            });
            if (id >= 0 && id <= INT32_MAX) {
                td_device *d = td_trace_device(c->t, (int32_t)id);
                if (hn)
                    d->name = intern_slice(c, nm);
                d->total_mem = mem;
                d->num_sms = sms > INT32_MAX ? INT32_MAX : (int32_t)sms;
            }
        }
        if (!p)
            return NULL;
        p = ws(p);
        if (p >= end)
            return need(c);
        if (*p == ',') {
            p = ws(p + 1);
            if (p >= end)
                return need(c);
            continue;
        }
        if (*p == ']')
            return p + 1;
        return bad(c, p, end, "expected ',' or ']'");
    }
}

static const char *parse_distinfo(cj *c, const char *p, const char *end)
{
    if (*p != '{')
        return skip_value(c, p, end);
    OBJ_LOOP(c, p, end, k, {
        int ok = 0;
        int64_t v = 0;
        if (KEYIS(k, "rank")) {
            p = num_value(c, p, end, 0, &v, &ok);
            if (ok == 1 && v >= 0 && v <= INT32_MAX) c->t->rank = (int)v;
        } else if (KEYIS(k, "world_size")) {
            p = num_value(c, p, end, 0, &v, &ok);
            if (ok == 1 && v >= 0 && v <= INT32_MAX) c->t->world_size = (int)v;
        } else if (KEYIS(k, "backend")) {
            slice s;
            p = str_value(c, p, end, &s, &ok);
            if (p && ok) c->t->backend = intern_slice(c, s);
        } else
            p = skip_value(c, p, end);
    });
    return p;
}

/* Move the unread tail (from keep) to the front and read more. Returns 0 ok, -1 error. */
static int refill(cj *c, size_t keep)
{
    size_t n = c->len - keep;
    if (keep == 0 && c->len >= c->cap) {
        if (c->cap >= BUF_MAX) {
            td_fail(c->e, TD_E_FORMAT, "%s: byte %llu: a single event or value larger than %zu MiB",
                    c->name, (unsigned long long)c->base, BUF_MAX >> 20);
            return -1;
        }
        c->cap *= 2;
        c->buf = td_xrealloc(c->buf, c->cap + PAD);
    }
    if (keep)
        memmove(c->buf, c->buf + keep, n);
    c->base += keep;
    c->len = n;
    while (!c->eof && c->len < c->cap) {
        ptrdiff_t r = td_in_read(c->in, c->buf + c->len, c->cap - c->len, c->e);
        if (r < 0)
            return -1;
        if (r == 0)
            c->eof = 1;
        c->len += (size_t)r;
    }
    memset(c->buf + c->len, '"', PAD);
    return 0;
}

static td_status syntax_error(cj *c)
{
    return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu%s: %s", c->name,
                   (unsigned long long)(c->base + (uint64_t)(c->fat - c->buf)),
                   td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->fwhat);
}

static td_status run(cj *c)
{
    int st = T_START;
    int form_obj = 0;
    if (refill(c, 0) < 0)
        return c->e->code;
    const char *p = c->buf, *mark = p;
    rawev r;
    for (;;) {
        const char *end = c->buf + c->len;
        const char *q = NULL;
        c->fk = F_NONE;
        switch (st) {
        case T_START:
            mark = p;
            if (c->base == 0 && p == c->buf && c->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3;
            p = ws(p);
            if (p >= end)
                break;
            if (*p == '[') {
                p++;
                st = T_EV_FIRST;
                c->seen_events = 1;
                continue;
            }
            if (*p == '{') {
                p++;
                form_obj = 1;
                st = T_OBJ_FIRST;
                continue;
            }
            c->fk = F_ERR;
            c->fat = p;
            c->fwhat = "expected '{' or '[' (not a Chrome trace)";
            break;
        case T_OBJ_FIRST:
            mark = p = ws(p);
            if (p >= end)
                break;
            if (*p == '}') {
                p++;
                st = T_DONE;
                continue;
            }
            st = T_OBJ_KEY;
            continue;
        case T_OBJ_KEY: {
            mark = p = ws(p);
            slice k;
            if (p >= end)
                break;
            if (*p != '"') {
                bad(c, p, end, "expected a string key");
                break;
            }
            if (!(p = scan_str(c, p, end, &k)))
                break;
            p = ws(p);
            if (*p != ':') {
                bad(c, p, end, "expected ':'");
                break;
            }
            p = ws(p + 1);
            if (p >= end) {
                need(c);
                break;
            }
            if (KEYIS(k, "traceEvents")) {
                if (*p == '[') {
                    p++;
                    st = T_EV_FIRST;
                    c->seen_events = 1;
                    continue;
                }
                q = skip_value(c, p, end); /* null or odd: nothing to read */
            } else if (KEYIS(k, "deviceProperties")) {
                q = parse_devices(c, p, end);
            } else if (KEYIS(k, "distributedInfo")) {
                q = parse_distinfo(c, p, end);
            } else if (KEYIS(k, "baseTimeNanoseconds")) {
                int64_t v;
                int ok = 0;
                q = num_value(c, p, end, 0, &v, &ok);
                if (q && ok == 1)
                    c->t->base_time_ns = v;
            } else {
                /* displayTimeUnit only changes how viewers show times (ts and dur stay
                 * microseconds); the rest is not needed: skip it, resumably, as it can be
                 * large (stackFrames, systemTraceEvents) */
                sk_init(&c->sk);
                st = T_SKIP;
                mark = p;
                continue;
            }
            if (!q)
                break;
            p = q;
            st = T_OBJ_AFTER;
            continue;
        }
        case T_SKIP:
            q = skip_run(c, &c->sk, p, end);
            if (!q) {
                if (c->fk == F_NEED)
                    mark = c->resume;
                break;
            }
            p = q;
            st = T_OBJ_AFTER;
            continue;
        case T_OBJ_AFTER:
            mark = p = ws(p);
            if (p >= end)
                break;
            if (*p == ',') {
                p++;
                st = T_OBJ_KEY;
                continue;
            }
            if (*p == '}') {
                p++;
                st = T_DONE;
                continue;
            }
            bad(c, p, end, "expected ',' or '}'");
            break;
        case T_EV_FIRST:
        case T_EV_NEXT:
        case T_EV_AFTER:
            /* the hot loop */
            for (;;) {
                mark = p = ws(p);
                if (p >= end) {
                    need(c);
                    break;
                }
                if (st == T_EV_AFTER) {
                    if (*p == ',') {
                        p++;
                        st = T_EV_NEXT;
                        continue;
                    }
                    if (*p != ']') {
                        bad(c, p, end, "expected ',' or ']' after an event");
                        break;
                    }
                }
                if (*p == ']') { /* also tolerates a trailing comma */
                    p++;
                    st = form_obj ? T_OBJ_AFTER : T_DONE;
                    break;
                }
                if (*p != '{') {
                    bad(c, p, end, "expected '{' (an event object)");
                    break;
                }
                q = parse_event(c, p, end, &r);
                if (!q)
                    break;
                commit(c, &r);
                c->t->nevents++;
                p = q;
                st = T_EV_AFTER;
            }
            if (c->fk == F_NONE)
                continue;
            break;
        case T_DONE:
            mark = p = ws(p);
            if (p >= end)
                break; /* need more, or clean end */
            td_warn(&c->set->warnings, "%s: byte %llu: data after the end of the JSON ignored",
                    c->name, (unsigned long long)(c->base + (uint64_t)(p - c->buf)));
            return TD_OK;
        }
        /* here: c->fk is F_NEED or F_ERR, or T_DONE/T_START at the end of the data */
        if (c->fk == F_ERR)
            return syntax_error(c);
        if (!c->eof) {
            size_t keep = (size_t)(mark - c->buf);
            if (refill(c, keep) < 0)
                return c->e->code;
            p = c->buf;
            continue;
        }
        /* end of data */
        if (st == T_DONE && !c->seen_events) {
            c->no_events = 1;
            return td_fail(c->e, TD_E_FORMAT, "%s: a JSON object without \"traceEvents\" "
                           "(not a Chrome trace)", c->name);
        }
        if (st == T_DONE)
            return TD_OK;
        if (c->seen_events) {
            td_warn(&c->set->warnings, "%s: truncated at byte %llu%s; kept %zu events",
                    c->name, (unsigned long long)(c->base + c->len),
                    td_in_is_gzip(c->in) ? " (uncompressed)" : "", c->t->nev);
            return TD_OK;
        }
        if (c->base + c->len == 0)
            return td_fail(c->e, TD_E_FORMAT, "%s: empty file", c->name);
        return td_fail(c->e, TD_E_FORMAT, "%s: byte %llu: unexpected end of data%s", c->name,
                       (unsigned long long)(c->base + c->len),
                       form_obj ? " (no traceEvents read)" : "");
    }
}

static void finish(cj *c)
{
    td_trace *t = c->t;
    /* process names and sort indexes apply to every thread of the process */
    for (size_t i = 0; i < t->ntracks; i++) {
        td_track *k = &t->tracks[i];
        ment *m = c->pids.cap ? imap_slot(&c->pids, k->pid, 0) : NULL;
        if (!m || !m->v)
            continue;
        pinfo *p = &c->pi[m->v - 1];
        if (p->name)
            k->process_name = p->name;
        if (p->has_sort && !k->sort_index)
            k->sort_index = p->sort;
    }
    /* unmatched B: close at the trace end */
    for (size_t i = 0; i < c->nstk; i++) {
        for (uint32_t j = 0; j < c->stk[i].n; j++) {
            td_event *ev = &t->ev[c->stk[i].v[j]];
            ev->dur = c->max_end > ev->ts ? c->max_end - ev->ts : 0;
            c->w_open_b++;
        }
        free(c->stk[i].v);
    }
    for (size_t i = 0; i < c->noa; i++) {
        if (c->oa[i].ev == UINT32_MAX)
            continue;
        td_event *ev = &t->ev[c->oa[i].ev];
        ev->dur = c->max_end > ev->ts ? c->max_end - ev->ts : 0;
        c->w_open_ab++;
    }
    td_warnings *w = &c->set->warnings;
    const char *n = c->name;
    if (c->w_neg)
        td_warn(w, "%s: %llu events with a negative duration (set to 0)", n, (unsigned long long)c->w_neg);
    if (c->w_nots)
        td_warn(w, "%s: %llu events without \"ts\" skipped", n, (unsigned long long)c->w_nots);
    if (c->w_range)
        td_warn(w, "%s: %llu events with ts/dur out of range skipped", n, (unsigned long long)c->w_range);
    if (c->w_unmatched_e)
        td_warn(w, "%s: %llu \"E\" events without a matching \"B\" ignored", n, (unsigned long long)c->w_unmatched_e);
    if (c->w_open_b)
        td_warn(w, "%s: %llu \"B\" events without an \"E\" closed at the trace end", n, (unsigned long long)c->w_open_b);
    if (c->w_unmatched_ae)
        td_warn(w, "%s: %llu async \"e\" events without a matching \"b\" ignored", n, (unsigned long long)c->w_unmatched_ae);
    if (c->w_open_ab)
        td_warn(w, "%s: %llu async \"b\" events without an \"e\" closed at the trace end", n, (unsigned long long)c->w_open_ab);
    if (c->w_utf8)
        td_warn(w, "%s: %llu strings with invalid UTF-8 or escapes (replaced by U+FFFD)", n, (unsigned long long)c->w_utf8);
}

td_status td_read_chrome_ex(td_traceset *set, td_trace *t, td_in *in, int *no_events,
                            td_err *e)
{
    cj *c = td_xcalloc(1, sizeof *c);
    c->set = set;
    c->t = t;
    c->in = in;
    c->name = td_in_name(in);
    c->e = e;
    c->cap = BUF_INIT;
    /* tests shrink the buffer to make every event straddle a refill */
    const char *tb = getenv("TD_READ_BUF");
    if (tb && atol(tb) >= 16 && (size_t)atol(tb) < BUF_MAX)
        c->cap = (size_t)atol(tb);
    c->buf = td_xmalloc(c->cap + PAD);
    c->scarena = td_arena_new();
    c->max_end = INT64_MIN;
    c->cpu_functions = td_intern_cstr(set->strs, "CPU functions");
    t->format = TD_FMT_CHROME_JSON;
    td_status st = run(c);
    if (no_events)
        *no_events = c->no_events;
    if (st == TD_OK)
        finish(c);
    else
        for (size_t i = 0; i < c->nstk; i++)
            free(c->stk[i].v);
    free(c->stk);
    free(c->buf);
    free(c->sc);
    free(c->tracks.e);
    free(c->pids.e);
    free(c->pi);
    free(c->amap.e);
    free(c->oa);
    td_buf_free(&c->scratch);
    td_arena_free(c->scarena);
    free(c);
    return st;
}

td_status td_read_chrome(td_traceset *set, td_trace *t, td_in *in, td_err *e)
{
    return td_read_chrome_ex(set, t, in, NULL, e);
}

td_status td_read_chrome_mem(td_traceset *set, td_trace *t, const char *name,
                             const void *data, size_t n, td_err *e)
{
    td_in *in = td_in_open_mem(data, n, name);
    td_status st = td_read_chrome(set, t, in, e);
    td_in_close(in);
    return st;
}
