/* read/json_scan.c - the JSON scanner (see read/json_scan.h): syntax errors, skipping
 * unknown values, string decoding and interning, numbers, ids. */
#define _POSIX_C_SOURCE 200809L
#include "read/json_scan.h"
#include "io/bound.h"
#include <stdlib.h>

/* A syntax error at p, unless p is at the end of the data (then more data may fix it). */
const char *td_jscan_bad(td_jscan *c, const char *p, const char *end, const char *what)
{
    if (p >= end)
        return td_jscan_need(c);
    c->fk = TD_JF_ERR;
    c->fat = p;
    c->fwhat = what;
    return NULL;
}
/* ---------------------------------------------------------------- skipping values */

enum { K_VAL, K_VAL_OR_END, K_KEY_OR_END, K_KEY, K_COLON, K_AFTER };

void td_jscan_skip_init(td_jskip *s)
{
    s->depth = 0;
    s->st = K_VAL;
    s->in_str = 0;
}

/* Skip one JSON value, validating its structure, without recursion (nesting is a bit
 * stack, limited to TD_JSON_MAX_DEPTH). Resumable: on TD_JF_NEED, c->resume is where to continue
 * with the same state after a refill (it never points before an incomplete token). */
const char *td_jscan_skip_run(td_jscan *c, td_jskip *s, const char *p, const char *end)
{
    for (;;) {
        if (s->in_str) {
            /* inside a string (possibly resumed) */
            for (;;) {
                p = td_jscan_find_qb(p);
                if (p >= end) {
                    c->resume = end;
                    return td_jscan_need(c);
                }
                if (*p == '"')
                    break;
                if (p + 1 >= end) { /* backslash is the last byte: resume on it */
                    c->resume = p;
                    return td_jscan_need(c);
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
        p = td_jscan_ws(p);
        if (p >= end) {
            c->resume = p;
            return td_jscan_need(c);
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
                if (s->depth >= TD_JSON_MAX_DEPTH) {
                    c->fk = TD_JF_ERR;
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
                while (td_jscan_numch_tab[(uint8_t)*q])
                    q++;
                if (q >= end) {
                    c->resume = p;
                    return td_jscan_need(c);
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
                            return td_jscan_need(c);
                        }
                        continue;
                    }
                    if (memcmp(p, lits[i], L) == 0) {
                        p += L;
                        ok = 1;
                    }
                }
                if (!ok)
                    return td_jscan_bad(c, p, end, "expected a JSON value");
                goto value_done;
            }
            default:
                return td_jscan_bad(c, p, end, "expected a JSON value");
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
                return td_jscan_bad(c, p, end, "expected a string key");
            s->in_str = 1;
            s->key = 1;
            p++;
            continue;
        case K_COLON:
            if (*p != ':')
                return td_jscan_bad(c, p, end, "expected ':'");
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
            return td_jscan_bad(c, p, end, obj ? "expected ',' or '}'" : "expected ',' or ']'");
        }
        }
    value_done:
        if (s->depth == 0)
            return p;
        s->st = K_AFTER;
    }
}

/* Skip a value that must be complete in the buffer (inside an event). */
const char *td_jscan_skip(td_jscan *c, const char *p, const char *end)
{
    td_jskip s;
    td_jscan_skip_init(&s);
    return td_jscan_skip_run(c, &s, p, end);
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

/* Decode a raw JSON string body into valid UTF-8 without NULs (c->scratch), stopping
 * once lim bytes are out (the last character may pass lim by up to 3 bytes).
 * Invalid UTF-8 and lone surrogates become U+FFFD. Returns 1 if anything was replaced. */
static int decode_str(td_jscan *c, const char *s, size_t n, size_t lim)
{
    td_buf *b = &c->scratch;
    b->n = 0;
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    int bad = 0;
    while (p < e && b->n < lim) {
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

td_str td_jscan_intern(td_jscan *c, td_jslice s)
{
    if (s.n == 0)
        return 0;
    if (s.n > TD_BOUND_STRING) {
        /* a string past the bound: its first TD_BOUND_STRING bytes (whole characters),
         * not cached (its raw bytes would be held a second time) */
        if (decode_str(c, s.p, s.n, TD_BOUND_STRING + 1))
            c->w_utf8++;
        size_t k = c->scratch.n;
        if (k > TD_BOUND_STRING) { /* else escapes made it fit after all */
            k = TD_BOUND_STRING;
            while (k && ((unsigned char)c->scratch.p[k] & 0xC0) == 0x80)
                k--;
            c->w_long++;
        }
        return td_intern(c->strs, c->scratch.p ? c->scratch.p : "", k);
    }
    uint64_t h = hs(s.p, s.n);
    if ((c->scn + 1) * 2 > c->sccap) {
        size_t nc = c->sccap ? c->sccap * 2 : 1024;
        td_jscent *ne = td_xcalloc(nc, sizeof *ne);
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
        td_jscent *x = &c->sc[j];
        if (!x->raw)
            break;
        if (x->h == h && x->n == s.n && memcmp(x->raw, s.p, s.n) == 0)
            return x->id;
        j = (j + 1) & (c->sccap - 1);
    }
    td_str id;
    if (!s.esc && plain_ascii(s.p, s.n)) {
        id = td_intern(c->strs, s.p, s.n);
    } else {
        if (decode_str(c, s.p, s.n, SIZE_MAX))
            c->w_utf8++;
        id = td_intern(c->strs, c->scratch.p ? c->scratch.p : "", c->scratch.n);
    }
    td_jscent *x = &c->sc[j];
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
const char *td_jscan_num(td_jscan *c, const char *p, const char *end, int scale, int64_t *v,
                             int *ok)
{
    int st;
    if (*p == '-' || td_jscan_digit_tab[(uint8_t)*p]) {
        const char *q = td_jscan_num_scaled(p, scale, v, &st);
        if (!q) {
            const char *z = p;
            while (td_jscan_numch_tab[(uint8_t)*z])
                z++;
            return td_jscan_bad(c, z >= end ? end : p, end, "expected a number");
        }
        if (q >= end)
            return td_jscan_need(c);
        *ok = st == 0 ? 1 : -1;
        return q;
    }
    if (*p == '"') {
        td_jslice s;
        const char *q = td_jscan_scan_str(c, p, end, &s);
        if (!q)
            return NULL;
        *ok = 0;
        if (s.n > 0 && s.n < 64 && !s.esc) {
            char tmp[80];
            memcpy(tmp, s.p, s.n);
            tmp[s.n] = 0;
            int64_t x;
            const char *r = td_jscan_num_scaled(tmp, scale, &x, &st);
            if (r && *r == 0) {
                *ok = st == 0 ? 1 : -1;
                if (st == 0)
                    *v = x;
            }
        }
        return q;
    }
    *ok = 0;
    return td_jscan_skip(c, p, end);
}

const char *td_jscan_str(td_jscan *c, const char *p, const char *end, td_jslice *s, int *ok)
{
    if (*p == '"') {
        const char *q = td_jscan_scan_str(c, p, end, s);
        *ok = q != NULL;
        return q;
    }
    *ok = 0;
    return td_jscan_skip(c, p, end);
}

/* An id: number, numeric string, hex string "0x..", or any other string (hashed). */
const char *td_jscan_id(td_jscan *c, const char *p, const char *end, int64_t *v, int *ok)
{
    if (*p == '"') {
        td_jslice s;
        const char *q = td_jscan_scan_str(c, p, end, &s);
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
    const char *q = td_jscan_num(c, p, end, 0, v, ok);
    if (q && *ok == -1) { /* beyond int64: identify it by its text */
        *v = (int64_t)(hs(p, (size_t)(q - p)) >> 1);
        *ok = 1;
    }
    return q;
}

/* [a, b, c] of small ints; anything else is skipped (*ok 0). */
const char *td_jscan_triple(td_jscan *c, const char *p, const char *end, int32_t out[3], int *ok)
{
    const char *start = p;
    *ok = 0;
    if (*p == '[') {
        p = td_jscan_ws(p + 1);
        int i = 0;
        while (i < 3) {
            int64_t v;
            int st;
            const char *q = (*p == '-' || td_jscan_digit_tab[(uint8_t)*p]) ? td_jscan_num_scaled(p, 0, &v, &st)
                                                                  : NULL;
            if (!q || st || q >= end)
                break;
            out[i++] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
            p = td_jscan_ws(q);
            if (*p == ',' && i < 3)
                p = td_jscan_ws(p + 1);
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
    return td_jscan_skip(c, start, end);
}

void td_jscan_free(td_jscan *c)
{
    free(c->sc);
    td_buf_free(&c->scratch);
    td_arena_free(c->scarena);
}
