/* read/aiu.c - IBM AIU runtime "flex" traces (see read/aiu.h).
 *
 * The decoded stream flows through one reused buffer (1 MiB, doubled only for an event
 * larger than it), so memory grows with the instructions kept, never with the bytes of
 * the file. A small JSON scanner made for the file's shape (an array of flat objects with
 * one nested "attr"/"args" object) parses one event at a time from the buffer; other
 * values are skipped whatever they hold (nesting bounded). Every scanning step checks the
 * end of the buffer: one that reaches it before the end of the file sets `need`, the
 * event is abandoned (it committed nothing: strings interned again come back with the
 * same ids), the unread tail moves to the front, the buffer is refilled and the event
 * parsed again. At the end of the file the checks are those of a file read whole, so a
 * truncated tail keeps the events read before it, with a warning, and any other damage
 * is an error naming the byte offset in the decoded data. */
#include "read/aiu.h"
#include "read/chrome.h"
#include "io/bound.h"
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64
#define PAIR_LOOKBACK 4096 /* open B events searched for an E (hostile inputs stay linear) */
#define BUF_INIT ((size_t)1 << 20)
#define BUF_MAX TD_BOUND_EVENT /* one event must fit (io/bound.h) */

typedef struct {
    const char *p, *end; /* the window: buf .. end */
    char *buf;
    size_t cap;
    uint64_t off;        /* offset in the decoded stream of buf[0] */
    td_in *in;
    int eof;             /* end holds the end of the file */
    int need;            /* a step reached the end of the window before the end of the file */
    const char *name;
    td_err *e;
    td_buf sb; /* unescaped string */
} scan;

/* 1 (and need set) when q is at the end of the window but not of the file. */
static int short_at(scan *s, const char *q)
{
    if (q >= s->end && !s->eof) {
        s->need = 1;
        return 1;
    }
    return 0;
}

static uint64_t off_of(const scan *s, const char *q)
{
    return s->off + (uint64_t)(q - s->buf);
}

static td_status bad(scan *s, const char *what)
{
    if (s->p >= s->end) {
        if (short_at(s, s->p))
            return TD_E_FORMAT; /* not an error yet: parsed again after a refill */
        return td_fail(s->e, TD_E_FORMAT, "%s: byte %llu: unexpected end of file, expected %s",
                       s->name, (unsigned long long)off_of(s, s->end), what);
    }
    return td_fail(s->e, TD_E_FORMAT, "%s: byte %llu: expected %s", s->name,
                   (unsigned long long)off_of(s, s->p), what);
}

/* Move the window's tail from keep to the front of the buffer (doubling it when keep is
 * its start and it is full) and read more; s->p keeps its place in the data. */
static td_status refill(scan *s, const char *keep)
{
    size_t k = (size_t)(keep - s->buf), n = (size_t)(s->end - keep), rel = (size_t)(s->p - keep);
    size_t len = (size_t)(s->end - s->buf);
    if (k == 0 && len >= s->cap) {
        if (s->cap >= BUF_MAX)
            return td_fail(s->e, TD_E_FORMAT, "%s: byte %llu: a single event larger than %zu MiB",
                           s->name, (unsigned long long)s->off, BUF_MAX >> 20);
        s->cap *= 2;
        s->buf = td_xrealloc(s->buf, s->cap);
    }
    if (k)
        memmove(s->buf, s->buf + k, n);
    s->off += k;
    len = n;
    while (!s->eof && len < s->cap) {
        ptrdiff_t r = td_in_read(s->in, s->buf + len, s->cap - len, s->e);
        if (r < 0)
            return s->e->code;
        if (r == 0)
            s->eof = 1;
        len += (size_t)r;
    }
    s->end = s->buf + len;
    s->p = s->buf + rel;
    return TD_OK;
}

static const uint8_t ws_tab[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};
/* what ends a bare number or literal */
static const uint8_t delim_tab[256] = {[','] = 1, [']'] = 1, ['}'] = 1, [' '] = 1,
                                       ['\n'] = 1, ['\r'] = 1, ['\t'] = 1, [0] = 1};

static void ws(scan *s)
{
    while (s->p < s->end && ws_tab[(uint8_t)*s->p])
        s->p++;
}

/* Whitespace, refilling the window as needed: afterwards s->p < s->end unless the file
 * has ended. */
static td_status ws_more(scan *s)
{
    for (;;) {
        ws(s);
        if (s->p < s->end || s->eof)
            return TD_OK;
        td_status st = refill(s, s->p);
        if (st != TD_OK)
            return st;
    }
}

static void put_utf8(td_buf *b, unsigned c)
{
    char u[4];
    if (c < 0x80) {
        u[0] = (char)c;
        td_buf_put(b, u, 1);
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | c >> 6);
        u[1] = (char)(0x80 | (c & 63));
        td_buf_put(b, u, 2);
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | c >> 12);
        u[1] = (char)(0x80 | ((c >> 6) & 63));
        u[2] = (char)(0x80 | (c & 63));
        td_buf_put(b, u, 3);
    } else {
        u[0] = (char)(0xF0 | c >> 18);
        u[1] = (char)(0x80 | ((c >> 12) & 63));
        u[2] = (char)(0x80 | ((c >> 6) & 63));
        u[3] = (char)(0x80 | (c & 63));
        td_buf_put(b, u, 4);
    }
}

static int hex4(const char *p, const char *end, unsigned *out)
{
    if (end - p < 4)
        return 0;
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

/* A JSON string at s->p into s->sb (unescaped, NUL-terminated by td_buf_cstr). */
static td_status str(scan *s)
{
    s->sb.n = 0;
    if (s->p >= s->end || *s->p != '"')
        return bad(s, "a string");
    s->p++;
    for (;;) {
        const char *q = memchr(s->p, '"', (size_t)(s->end - s->p));
        if (!q)
            q = s->end;
        const char *bs = memchr(s->p, '\\', (size_t)(q - s->p));
        if (bs)
            q = bs;
        td_buf_put(&s->sb, s->p, (size_t)(q - s->p));
        s->p = q;
        if (q >= s->end)
            return bad(s, "the end of a string");
        if (*q == '"') {
            s->p++;
            td_buf_cstr(&s->sb);
            return TD_OK;
        }
        if (q + 1 >= s->end)
            return short_at(s, q + 1) ? TD_E_FORMAT : bad(s, "an escape");
        char c = q[1];
        s->p = q + 2;
        switch (c) {
        case '"': case '\\': case '/': td_buf_putc(&s->sb, c); break;
        case 'b': td_buf_putc(&s->sb, '\b'); break;
        case 'f': td_buf_putc(&s->sb, '\f'); break;
        case 'n': td_buf_putc(&s->sb, '\n'); break;
        case 'r': td_buf_putc(&s->sb, '\r'); break;
        case 't': td_buf_putc(&s->sb, '\t'); break;
        case 'u': {
            unsigned u, lo;
            if (s->end - s->p < 6 + 4 && short_at(s, s->end))
                return TD_E_FORMAT; /* the digits (and a low surrogate) may be in the next read */
            if (!hex4(s->p, s->end, &u))
                return bad(s, "four hex digits after \\u");
            s->p += 4;
            if (u >= 0xD800 && u < 0xDC00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
                s->p[1] == 'u' && hex4(s->p + 2, s->end, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                s->p += 6;
            } else if (u >= 0xD800 && u < 0xE000) {
                u = 0xFFFD; /* lone surrogate */
            }
            put_utf8(&s->sb, u);
            break;
        }
        default:
            s->p = q + 1;
            return bad(s, "a valid escape");
        }
    }
}

/* A member's key string and its ':' (the key stays in s->sb). */
static td_status key_colon(scan *s)
{
    td_status st = str(s);
    if (st != TD_OK)
        return st;
    ws(s);
    if (s->p >= s->end || *s->p != ':')
        return bad(s, "':'");
    s->p++;
    return TD_OK;
}

/* Skip any JSON value (strings, numbers, literals, nested arrays/objects). */
static td_status skip(scan *s)
{
    char stack[MAX_DEPTH];
    int depth = 0;
    for (;;) {
        ws(s);
        if (s->p >= s->end)
            return bad(s, "a value");
        char c = *s->p;
        if (c == '"') {
            td_status st = str(s);
            if (st != TD_OK)
                return st;
        } else if (c == '{' || c == '[') {
            if (depth == MAX_DEPTH)
                return td_fail(s->e, TD_E_FORMAT, "%s: byte %llu: nesting deeper than %d",
                               s->name, (unsigned long long)off_of(s, s->p), MAX_DEPTH);
            stack[depth++] = c == '{' ? '}' : ']';
            s->p++;
            ws(s);
            if (s->p < s->end && *s->p == stack[depth - 1]) {
                s->p++;
                depth--;
                goto after;
            }
            td_status st;
            if (c == '{' && (st = key_colon(s)) != TD_OK)
                return st;
            continue;
        } else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
            while (s->p < s->end && !delim_tab[(uint8_t)*s->p])
                s->p++;
            if (short_at(s, s->p))
                return TD_E_FORMAT;
        } else {
            return bad(s, "a value");
        }
    after:
        for (;;) {
            if (!depth)
                return TD_OK;
            ws(s);
            if (s->p >= s->end)
                return bad(s, "',' or a closing bracket");
            if (*s->p == stack[depth - 1]) {
                s->p++;
                depth--;
                continue;
            }
            if (*s->p != ',')
                return bad(s, "',' or a closing bracket");
            s->p++;
            if (stack[depth - 1] == '}') {
                ws(s);
                td_status st = key_colon(s);
                if (st != TD_OK)
                    return st;
            }
            break;
        }
    }
}

/* Digits of an unsigned number ("0x..." hex or decimal) -> *out; 0 when not a number or
 * out of range. */
static int parse_u64(const char *p, const char *end, uint64_t *out)
{
    int base = 10;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (p >= end)
        return 0;
    uint64_t v = 0;
    for (; p < end; p++) {
        unsigned d;
        char c = *p;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (base == 16 && c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return 0;
        if (__builtin_mul_overflow(v, (uint64_t)base, &v) || __builtin_add_overflow(v, d, &v))
            return 0;
    }
    *out = v;
    return 1;
}

/* The text of a number value at s->p (bounded by the next delimiter). */
static const char *num_end(const scan *s)
{
    const char *q = s->p;
    while (q < s->end && !delim_tab[(uint8_t)*q])
        q++;
    return q;
}

/* One event as in the file. */
typedef struct {
    int64_t ts, dur, pid, bytes;
    int64_t cyc[5];
    uint64_t tid;
    td_str name, coll;
    char ph;
    uint8_t ncyc;     /* bit i set: TS(i+1) present */
    uint8_t has_ts, has_dur;
} raw_ev;

/* An unsigned attr value: a string ("0x..." or decimal) or a bare number. */
static td_status attr_uint(scan *s, const char *key, uint64_t *v, int *ok)
{
    *ok = 0;
    if (*s->p == '"') {
        td_status st = str(s);
        if (st != TD_OK)
            return st;
        *ok = parse_u64(s->sb.p, s->sb.p + s->sb.n, v);
        (void)key;
        return TD_OK;
    }
    const char *q = num_end(s);
    if (short_at(s, q))
        return TD_E_FORMAT;
    *ok = parse_u64(s->p, q, v);
    if (!*ok)
        return skip(s);
    s->p = q;
    return TD_OK;
}

/* The members of the JSON object at s->p (its '{' checked by the caller): call with
 * *first = 1, then once per member. *more = 1: the member's key is in key (cut to cap - 1
 * bytes, "" when longer) and s->p is at its value; *more = 0: the object has ended. */
static td_status obj_member(scan *s, int *first, char *key, size_t cap, int *more)
{
    *more = 0;
    ws(s);
    if (*first) {
        *first = 0;
        s->p++;
        ws(s);
        if (s->p < s->end && *s->p == '}') {
            s->p++;
            return TD_OK;
        }
    } else if (s->p < s->end && *s->p == ',') {
        s->p++;
        ws(s);
    } else if (s->p < s->end && *s->p == '}') {
        s->p++;
        return TD_OK;
    } else {
        return bad(s, "',' or '}'");
    }
    td_status st = key_colon(s);
    if (st != TD_OK)
        return st;
    if (s->sb.n < cap)
        memcpy(key, s->sb.p, s->sb.n + 1); /* with its NUL (td_buf_cstr) */
    else
        key[0] = 0;
    ws(s);
    if (s->p >= s->end)
        return bad(s, "a value");
    *more = 1;
    return TD_OK;
}

static td_status parse_attr(scan *s, td_traceset *set, raw_ev *r)
{
    if (*s->p != '{')
        return skip(s);
    int first = 1, more;
    char key[16];
    td_status st;
    while ((st = obj_member(s, &first, key, sizeof key, &more)) == TD_OK && more) {
        if (key[0] == 'T' && key[1] == 'S' && key[2] >= '1' && key[2] <= '5' && !key[3]) {
            uint64_t v;
            int ok;
            if ((st = attr_uint(s, key, &v, &ok)) != TD_OK)
                return st;
            if (ok && v <= (uint64_t)INT64_MAX / 4) {
                r->cyc[key[2] - '1'] = (int64_t)v;
                r->ncyc |= (uint8_t)(1u << (key[2] - '1'));
            }
        } else if (!strcmp(key, "Bytes")) {
            uint64_t v;
            int ok;
            if ((st = attr_uint(s, key, &v, &ok)) != TD_OK)
                return st;
            if (ok && v <= (uint64_t)INT64_MAX)
                r->bytes = (int64_t)v;
        } else if (!strcmp(key, "CollGroup") && *s->p == '"') {
            if ((st = str(s)) != TD_OK)
                return st;
            r->coll = td_intern(set->strs, s->sb.p, s->sb.n);
        } else if ((st = skip(s)) != TD_OK) {
            return st;
        }
    }
    return st;
}

static td_status parse_event(scan *s, td_traceset *set, raw_ev *r)
{
    memset(r, 0, sizeof *r);
    r->bytes = -1;
    if (s->p >= s->end || *s->p != '{')
        return bad(s, "'{' (an event)");
    int first = 1, more;
    char key[8];
    td_status st;
    while ((st = obj_member(s, &first, key, sizeof key, &more)) == TD_OK && more) {
        const char *at = s->p;
        if (!strcmp(key, "name") && *s->p == '"') {
            if ((st = str(s)) != TD_OK)
                return st;
            r->name = td_intern(set->strs, s->sb.p, s->sb.n);
        } else if (!strcmp(key, "ph") && *s->p == '"') {
            if ((st = str(s)) != TD_OK)
                return st;
            r->ph = s->sb.n == 1 ? s->sb.p[0] : '?';
        } else if (!strcmp(key, "ts") || !strcmp(key, "dur")) {
            int64_t v;
            const char *q = td_chrome_parse_scaled(s->p, s->end, 3, &v);
            /* the number may go on in the next read (the parser looks at 399 bytes) */
            if ((q ? q >= s->end : s->end - s->p < 400) && short_at(s, s->end))
                return TD_E_FORMAT;
            if (!q)
                return bad(s, "a number of microseconds");
            s->p = q;
            if (key[0] == 't') {
                r->ts = v;
                r->has_ts = 1;
            } else {
                r->dur = v;
                r->has_dur = 1;
            }
        } else if (!strcmp(key, "pid") || !strcmp(key, "tid")) {
            uint64_t v = 0;
            int ok;
            if (*s->p == '"') {
                if ((st = str(s)) != TD_OK)
                    return st;
                ok = parse_u64(s->sb.p, s->sb.p + s->sb.n, &v);
                if (!ok) /* a name: hashed to an id */
                    v = td_hash64(s->sb.p, s->sb.n) >> 33, ok = 1;
            } else {
                const char *q = num_end(s);
                if (short_at(s, q))
                    return TD_E_FORMAT;
                ok = parse_u64(s->p, q, &v);
                s->p = q;
            }
            if (!ok) {
                s->p = at;
                return bad(s, "a non-negative integer id");
            }
            if (key[0] == 'p') {
                if (v > INT32_MAX) {
                    s->p = at;
                    return bad(s, "a pid below 2^31 (the AIU)");
                }
                r->pid = (int64_t)v;
            } else {
                r->tid = v;
            }
        } else if (!strcmp(key, "attr") || !strcmp(key, "args")) {
            if ((st = parse_attr(s, set, r)) != TD_OK)
                return st;
        } else if ((st = skip(s)) != TD_OK) {
            return st;
        }
    }
    return st;
}

static td_aiu_type type_of(const char *name)
{
    size_t n = strlen(name);
#define ENDS(sfx) (n >= sizeof(sfx) - 1 && !memcmp(name + n - (sizeof(sfx) - 1), sfx, sizeof(sfx) - 1))
    if (ENDS(" Cmpt Exec"))
        return TD_AIU_EXEC;
    if (ENDS(" Cmpt Prep"))
        return TD_AIU_PREP;
    if (ENDS(" DmaI"))
        return TD_AIU_DMAI;
    if (ENDS(" DmaO"))
        return TD_AIU_DMAO;
#undef ENDS
    return TD_AIU_OTHER;
}

/* "[524288B]" in a name -> 524288; -1 none. */
static int64_t bytes_in_name(const char *name)
{
    for (const char *p = strchr(name, '['); p; p = strchr(p + 1, '[')) {
        const char *q = p + 1;
        int64_t v = 0;
        while (*q >= '0' && *q <= '9' && v < INT64_MAX / 10 - 10)
            v = v * 10 + (*q++ - '0');
        if (q > p + 1 && q[0] == 'B' && q[1] == ']')
            return v;
    }
    return -1;
}

static void make_instr(td_traceset *set, td_trace *t, const raw_ev *b, int64_t host_e)
{
    td_aiu_instr *in = TD_PUSH(t->aiu, t->naiu, t->aiu_cap);
    memset(in, 0, sizeof *in);
    in->host_b = b->ts;
    in->host_e = host_e < b->ts ? b->ts : host_e;
    in->tid = b->tid;
    in->name = b->name;
    in->coll = b->coll;
    in->device = (int32_t)b->pid;
    const char *nm = td_strget(set->strs, b->name);
    in->type = (uint8_t)type_of(nm);
    in->bytes = b->bytes >= 0 ? b->bytes : bytes_in_name(nm);
    in->has_ts = b->ncyc == 0x1f;
    if (in->has_ts) {
        /* a counter lower than the one before it wrapped: add 2^32 (within one event) */
        int64_t prev = 0, add = 0;
        for (int i = 0; i < 5; i++) {
            int64_t c = b->cyc[i] + add;
            if (i && c < prev) {
                add += (int64_t)1 << 32;
                c += (int64_t)1 << 32;
            }
            in->cyc[i] = c;
            prev = c;
        }
    }
}

static int cmp_instr(const void *x, const void *y)
{
    const td_aiu_instr *a = x, *b = y;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
    CMP(device);
    CMP(host_b);
    CMP(host_e);
    CMP(tid);
    CMP(name);
    CMP(type);
    CMP(bytes);
    CMP(coll);
    CMP(has_ts);
    for (int i = 0; i < 5; i++)
        CMP(cyc[i]);
#undef CMP
    return 0;
}

td_status td_read_aiu_in(td_traceset *set, td_trace *t, td_in *src, td_err *e)
{
    const char *name = td_in_name(src);
    scan s = {0};
    s.cap = BUF_INIT;
    /* tests shrink the buffer to make events straddle refills (as read/chrome.c) */
    const char *tb = getenv("TD_READ_BUF");
    if (tb && atol(tb) >= 16 && (size_t)atol(tb) < BUF_MAX)
        s.cap = (size_t)atol(tb);
    s.buf = td_xmalloc(s.cap);
    s.p = s.end = s.buf;
    s.in = src;
    s.name = name;
    s.e = e;
    t->format = TD_FMT_AIU_FLEX;
    raw_ev *open = NULL;
    size_t nopen = 0, ocap = 0;
    size_t unmatched_e = 0, skipped = 0, neg = 0;
    td_status st = TD_OK;
    int truncated = 0;
    if ((st = ws_more(&s)) != TD_OK)
        goto out;
    if (s.p < s.end && *s.p == '{') {
        st = td_fail(e, TD_E_FORMAT, "%s: byte %llu: expected a bare JSON array of flex events",
                     name, (unsigned long long)off_of(&s, s.p));
        goto out;
    }
    if (s.p >= s.end || *s.p != '[') {
        st = bad(&s, "'['");
        goto out;
    }
    s.p++;
    if ((st = ws_more(&s)) != TD_OK)
        goto out;
    if (s.p < s.end && *s.p == ']') {
        s.p++;
    } else {
        for (;;) {
            if ((st = ws_more(&s)) != TD_OK)
                goto out;
            raw_ev r;
            const char *at = s.p;
            st = parse_event(&s, set, &r);
            if (s.need) { /* the event goes on in the next read: parse it again */
                s.need = 0;
                e->code = TD_OK;
                e->msg[0] = 0;
                s.p = at;
                if ((st = refill(&s, at)) != TD_OK)
                    goto out;
                continue;
            }
            if (st != TD_OK) {
                if (s.p >= s.end) { /* a truncated tail: keep what was read */
                    truncated = 1;
                    s.p = at;
                    st = TD_OK;
                    e->code = TD_OK;
                    break;
                }
                goto out;
            }
            t->nevents++;
            if (r.ph == 'B' && r.has_ts && r.name) {
                *TD_PUSH(open, nopen, ocap) = r;
            } else if (r.ph == 'E' && r.has_ts) {
                size_t lim = nopen > PAIR_LOOKBACK ? nopen - PAIR_LOOKBACK : 0, k = nopen;
                while (k > lim && !(open[k - 1].pid == r.pid && open[k - 1].tid == r.tid &&
                                    (open[k - 1].name == r.name || !r.name)))
                    k--;
                if (k == lim) {
                    unmatched_e++;
                } else {
                    if (r.ts < open[k - 1].ts)
                        neg++;
                    make_instr(set, t, &open[k - 1], r.ts);
                    memmove(open + k - 1, open + k, (nopen - k) * sizeof *open);
                    nopen--;
                }
            } else if (r.ph == 'X' && r.has_ts && r.name) {
                make_instr(set, t, &r, r.ts + (r.has_dur && r.dur > 0 ? r.dur : 0));
            } else {
                skipped++; /* metadata, counters, other phases */
            }
            if ((st = ws_more(&s)) != TD_OK)
                goto out;
            if (s.p >= s.end) {
                truncated = 1;
                break;
            }
            if (*s.p == ',') {
                s.p++;
                continue;
            }
            if (*s.p == ']') {
                s.p++;
                break;
            }
            st = bad(&s, "',' or ']'");
            goto out;
        }
    }
    if (!truncated) {
        if ((st = ws_more(&s)) != TD_OK)
            goto out;
        if (s.p < s.end) {
            st = bad(&s, "the end of the file after ']'");
            goto out;
        }
    }
    if (truncated)
        td_warn(&set->warnings, "%s: byte %llu: the file ends inside the event array (truncated); "
                "%llu events before it were read", name, (unsigned long long)off_of(&s, s.p),
                (unsigned long long)t->nevents);
    if (!t->naiu) {
        st = td_fail(e, TD_E_FORMAT, "%s: no complete B/E instruction pairs in this flex trace",
                     name);
        goto out;
    }
    if (nopen)
        td_warn(&set->warnings, "%s: %zu B events without their E event (dropped)", name, nopen);
    if (unmatched_e)
        td_warn(&set->warnings, "%s: %zu E events without a B event (dropped)", name,
                unmatched_e);
    if (neg)
        td_warn(&set->warnings, "%s: %zu pairs end before they begin (duration 0 used)", name,
                neg);
    (void)skipped;
    /* exact duplicates (same stream, name, host times and counters) are one instruction */
    qsort(t->aiu, t->naiu, sizeof *t->aiu, cmp_instr);
    size_t w = 0, dups = 0;
    for (size_t i = 0; i < t->naiu; i++) {
        if (w && !cmp_instr(&t->aiu[w - 1], &t->aiu[i])) {
            dups++;
            continue;
        }
        t->aiu[w++] = t->aiu[i];
    }
    t->naiu = w;
    if (dups)
        td_warn(&set->warnings, "%s: %zu duplicated B/E pairs (same stream, name, times and "
                "counters) counted once", name, dups);
    static const char *const tname[] = {"AIU other", "AIU DmaI", "AIU Cmpt Prep",
                                        "AIU Cmpt Exec", "AIU DmaO"};
    uint16_t cats[5];
    for (int i = 0; i < 5; i++)
        cats[i] = td_trace_cat(t, td_intern_cstr(set->strs, tname[i]));
    td_str devname = td_intern_cstr(set->strs, "IBM AIU");
    static const char *const sname[] = {"instruction stream", "DmaI stream", "Cmpt Prep stream",
                                        "Cmpt Exec stream", "DmaO stream"};
    td_str streams[5], mixed = td_intern_cstr(set->strs, sname[0]);
    for (int i = 0; i < 5; i++)
        streams[i] = td_intern_cstr(set->strs, sname[i]);
    for (size_t i = 0; i < t->naiu; i++) {
        const td_aiu_instr *in = &t->aiu[i];
        td_device *d = td_trace_device(t, in->device);
        d->name = devname;
        uint32_t tr = td_trace_track(t, in->device, (int64_t)in->tid);
        td_track *k = &t->tracks[tr];
        k->device = in->device;
        /* name the stream by the instructions it carries (tids are 64-bit hashes) */
        td_str sn = streams[in->type];
        if (!k->thread_name)
            k->thread_name = sn;
        else if (k->thread_name != sn)
            k->thread_name = mixed;
        td_event *ev = td_trace_push_event(t);
        ev->ts = in->host_b;
        ev->dur = in->host_e - in->host_b;
        ev->name = in->name;
        ev->track = tr;
        ev->cat = cats[in->type];
        ev->kind = TD_K_OTHER;
        ev->ph = 'X';
    }
out:
    free(open);
    free(s.buf);
    td_buf_free(&s.sb);
    return st;
}

td_status td_read_aiu(td_traceset *set, td_trace *t, const char *name, const char *data,
                      size_t n, td_err *e)
{
    td_in *in = td_in_open_mem(data, n, name);
    td_status st = td_read_aiu_in(set, t, in, e);
    td_in_close(in);
    return st;
}

static const void *find(const unsigned char *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == (unsigned char)needle[0] && !memcmp(p + i, needle, k))
            return p + i;
    return NULL;
}

int td_aiu_looks_flex(const unsigned char *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i >= n || p[i] != '[')
        return 0;
    const unsigned char *a = find(p + i, n - i, "\"attr\"");
    if (!a)
        return 0;
    size_t rest = n - (size_t)(a - p);
    return find(a, rest, "\"TS1\"") || find(a, rest, "\"TS3\"") || find(a, rest, "\"TS4\"");
}

int td_aiu_looks_complog(const unsigned char *p, size_t n)
{
    return find(p, n, "[DeepRT]") || find(p, n, "====== Perf Summary ======") ||
           find(p, n, " Ideal/Total Cycles ");
}
