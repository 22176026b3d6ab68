/* base/util.c - see base/util.h. */
#define _GNU_SOURCE /* fopencookie */
#include "base/util.h"
#include "cli/exit.h" /* TD_EXIT_INTERNAL: until the two exits below leave base (issue 19) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <lzma.h>
#include <openssl/evp.h>

td_status td_fail(td_err *e, td_status code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
        e->code = code;
    }
    return code;
}

void td_warn(td_warnings *w, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    /* Keep the list bounded: a damaged trace must not produce millions of warnings. */
    if (w->n >= 1000)
        return;
    *TD_PUSH(w->msg, w->n, w->cap) = td_xstrdup(tmp);
}

void td_warnings_free(td_warnings *w)
{
    for (size_t i = 0; i < w->n; i++)
        free(w->msg[i]);
    free(w->msg);
    memset(w, 0, sizeof *w);
}

static void oom(size_t n)
{
    fprintf(stderr, "tracedoc: out of memory (allocating %zu bytes)\n", n);
    exit(TD_EXIT_INTERNAL);
}

void *td_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *td_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *td_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *td_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = td_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void td_grow(void **p, size_t *cap, size_t need, size_t es)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c = c + c / 2 + 16;
    if (c > SIZE_MAX / es)
        oom(SIZE_MAX);
    *p = td_xrealloc(*p, c * es);
    *cap = c;
}

/* ---- arena ---- */
typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    max_align_t data[];
} chunk;

struct td_arena {
    chunk *head;
    size_t total;
};

td_arena *td_arena_new(void)
{
    return td_xcalloc(1, sizeof(td_arena));
}

void td_arena_free(td_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

void *td_arena_alloc(td_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    chunk *c = a->head;
    if (!c || c->size - c->used < n) {
        size_t sz = n > (1u << 20) ? n : (1u << 20);
        c = td_xmalloc(sizeof(chunk) + sz);
        c->used = 0;
        c->size = sz;
        if (a->head && n > (1u << 19)) {
            /* big block: keep the current chunk as the head so small allocations
             * keep filling it */
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
        a->total += sz;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

char *td_arena_strndup(td_arena *a, const char *s, size_t n)
{
    char *p = td_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *td_arena_strdup(td_arena *a, const char *s)
{
    return td_arena_strndup(a, s, strlen(s));
}

char *td_arena_printf(td_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = td_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

size_t td_arena_bytes(const td_arena *a)
{
    return a->total;
}

/* ---- string table: open addressing over ids; strings in an arena ---- */
struct td_strtab {
    td_arena *a;
    const char **str;
    uint32_t *len;
    size_t n, cap;
    uint32_t *slots; /* id+1, 0 = empty */
    uint64_t *hashes;
    size_t nslots;
};

int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at)
{
    *out = NULL;
    *outn = 0;
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK)
        return TD_XZ_INIT;
    size_t cap = guess < 4096 ? 4096 : guess > max ? max : guess, got = 0;
    uint8_t *b = td_xmalloc(cap);
    z.next_in = in;
    z.avail_in = n;
    int r = 0;
    for (;;) {
        if (got == cap) {
            if (cap >= max) {
                r = TD_XZ_TOO_BIG;
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            b = td_xrealloc(b, cap);
        }
        z.next_out = b + got;
        z.avail_out = cap - got;
        lzma_ret rc = lzma_code(&z, LZMA_FINISH);
        got = cap - z.avail_out;
        if (rc == LZMA_STREAM_END)
            break;
        if (rc != LZMA_OK && rc != LZMA_BUF_ERROR) {
            if (at)
                *at = n - z.avail_in;
            r = TD_XZ_CORRUPT;
            break;
        }
        if (rc == LZMA_BUF_ERROR && z.avail_out) { /* input ended inside the stream */
            r = TD_XZ_TRUNCATED;
            break;
        }
    }
    lzma_end(&z);
    if (r) {
        free(b);
        return r;
    }
    *out = b;
    *outn = got;
    return 0;
}

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

/* Decode one UTF-8 sequence strictly; returns bytes consumed (>= 1). Overlong forms,
 * surrogates, values above U+10FFFF and truncated sequences give one U+FFFD per maximal
 * invalid subpart (the Unicode-recommended practice, as Python's "replace" does): the
 * second byte's allowed range depends on the lead byte. */
size_t td_utf8_next(const unsigned char *s, uint32_t *cp)
{
    unsigned c = s[0];
    *cp = 0xfffd;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int n;
    unsigned lo = 0x80, hi = 0xbf;
    uint32_t v;
    if (c >= 0xc2 && c <= 0xdf) { n = 1; v = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) {
        n = 2; v = c & 0x0f;
        if (c == 0xe0) lo = 0xa0;      /* no overlongs */
        if (c == 0xed) hi = 0x9f;      /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 3; v = c & 0x07;
        if (c == 0xf0) lo = 0x90;      /* no overlongs */
        if (c == 0xf4) hi = 0x8f;      /* nothing above U+10FFFF */
    } else
        return 1;
    for (int i = 1; i <= n; i++) {
        unsigned b = s[i]; /* a NUL ends the string and fails the test */
        if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80)
            return (size_t)i;
        v = (v << 6) | (b & 0x3f);
    }
    *cp = v;
    return (size_t)n + 1;
}

/* One code point as escaped XML text (valid in character data and in attributes). */
static void put_cp(td_buf *b, uint32_t cp)
{
    switch (cp) {
    case '&': td_buf_puts(b, "&amp;"); return;
    case '<': td_buf_puts(b, "&lt;"); return;
    case '>': td_buf_puts(b, "&gt;"); return;
    case '"': td_buf_puts(b, "&quot;"); return;
    case '\'': td_buf_puts(b, "&#39;"); return;
    case '\t': case '\n': case '\r': td_buf_putc(b, ' '); return;
    }
    /* XML 1.0 forbids C0 controls and U+FFFE/U+FFFF; DEL and C1 are legal but invisible */
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
        cp = 0xfffd;
    char u[4];
    if (cp < 0x80) {
        td_buf_putc(b, (char)cp);
        return;
    }
    if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        td_buf_put(b, u, 2);
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        td_buf_put(b, u, 3);
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        td_buf_put(b, u, 4);
    }
}

/* Escaped text, at most maxcp code points (0 = all); when cut, the last two shown
 * characters become "..". */
void td_buf_xml(td_buf *b, const char *s, size_t maxcp)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t ncp = 0;
    if (maxcp) {
        for (const unsigned char *q = p; *q; ncp++) {
            uint32_t cp;
            q += td_utf8_next(q, &cp);
        }
    }
    size_t keep = (maxcp && ncp > maxcp) ? maxcp - 2 : (size_t)-1;
    for (size_t i = 0; *p && i < keep; i++) {
        uint32_t cp;
        p += td_utf8_next(p, &cp);
        put_cp(b, cp);
    }
    if (keep != (size_t)-1)
        td_buf_puts(b, "..");
}

void td_json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned char c = *p;
        if (c >= 0x80) {
            uint32_t cp;
            size_t k = td_utf8_next(p, &cp);
            if (cp == 0xfffd && !(k == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] == 0xbd))
                fputs("\xef\xbf\xbd", f);
            else
                fwrite(p, 1, k, f);
            p += k;
            continue;
        }
        p++;
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
        } else if (c == '\n') {
            fputs("\\n", f);
        } else if (c == '\t') {
            fputs("\\t", f);
        } else if (c == '\r') {
            fputs("\\r", f);
        } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            fprintf(f, "\\u%04x", c);
        } else {
            putc(c, f);
        }
    }
    putc('"', f);
}

void td_json_us(FILE *f, int64_t ns)
{
    uint64_t u = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        putc('-', f);
    fprintf(f, "%llu.%03llu", (unsigned long long)(u / 1000), (unsigned long long)(u % 1000));
}

void td_json_real(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char b[40];
    snprintf(b, sizeof b, "%.15g", v);
    if (strtod(b, NULL) != v)
        snprintf(b, sizeof b, "%.17g", v);
    fputs(b, f);
    if (!strpbrk(b, ".eEn"))
        fputs(".0", f);
}

void td_chrome_meta(FILE *f, int64_t pid, int64_t tid, const char *what, const char *name,
                    int64_t sort)
{
    fprintf(f, ",\n{\"ph\": \"M\", \"pid\": %lld, \"tid\": %lld, \"name\": \"%s\", "
            "\"args\": {\"name\": ", (long long)pid, (long long)tid, what);
    td_json_str(f, name);
    fprintf(f, "}},\n{\"ph\": \"M\", \"pid\": %lld, \"tid\": %lld, \"name\": \"%s_sort_index\", "
            "\"args\": {\"sort_index\": %lld}}", (long long)pid, (long long)tid,
            strcmp(what, "process_name") == 0 ? "process" : "thread", (long long)sort);
}

size_t td_utf8_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

size_t td_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return (size_t)-1;
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

uint64_t td_hash64(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

td_strtab *td_strtab_new(void)
{
    td_strtab *t = td_xcalloc(1, sizeof *t);
    t->a = td_arena_new();
    t->nslots = 1024;
    t->slots = td_xcalloc(t->nslots, sizeof *t->slots);
    td_intern(t, "", 0);
    return t;
}

void td_strtab_free(td_strtab *t)
{
    if (!t)
        return;
    td_arena_free(t->a);
    free(t->str);
    free(t->len);
    free(t->slots);
    free(t->hashes);
    free(t);
}

static void rehash(td_strtab *t)
{
    size_t ns = t->nslots * 2;
    uint32_t *s = td_xcalloc(ns, sizeof *s);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = t->hashes[i] & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
}

td_str td_intern(td_strtab *t, const char *s, size_t len)
{
    uint64_t h = td_hash64(s, len);
    size_t j = h & (t->nslots - 1);
    for (;;) {
        uint32_t id = t->slots[j];
        if (!id)
            break;
        id--;
        if (t->hashes[id] == h && t->len[id] == len && memcmp(t->str[id], s, len) == 0)
            return id;
        j = (j + 1) & (t->nslots - 1);
    }
    if (t->n >= UINT32_MAX - 1)
        oom(0);
    size_t cap0 = t->cap;
    td_grow((void **)&t->str, &t->cap, t->n + 1, sizeof *t->str);
    size_t c2 = cap0;
    td_grow((void **)&t->len, &c2, t->n + 1, sizeof *t->len);
    c2 = cap0;
    td_grow((void **)&t->hashes, &c2, t->n + 1, sizeof *t->hashes);
    uint32_t id = (uint32_t)t->n++;
    t->str[id] = td_arena_strndup(t->a, s, len);
    t->len[id] = (uint32_t)len;
    t->hashes[id] = h;
    t->slots[j] = id + 1;
    if (t->n * 2 > t->nslots)
        rehash(t);
    return id;
}

td_str td_intern_cstr(td_strtab *t, const char *s)
{
    return td_intern(t, s, strlen(s));
}

const char *td_strget(const td_strtab *t, td_str id)
{
    return id < t->n ? t->str[id] : "";
}

uint32_t td_strlen_of(const td_strtab *t, td_str id)
{
    return id < t->n ? t->len[id] : 0;
}

size_t td_strtab_count(const td_strtab *t)
{
    return t->n;
}

/* ---- buffers ---- */
void td_buf_put(td_buf *b, const void *s, size_t n)
{
    td_grow((void **)&b->p, &b->cap, b->n + n + 1, 1);
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void td_buf_puts(td_buf *b, const char *s)
{
    td_buf_put(b, s, strlen(s));
}

void td_buf_putc(td_buf *b, char c)
{
    td_buf_put(b, &c, 1);
}

void td_buf_printf(td_buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    td_grow((void **)&b->p, &b->cap, b->n + (size_t)n + 1, 1);
    vsnprintf(b->p + b->n, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->n += (size_t)n;
}

const char *td_buf_cstr(td_buf *b)
{
    td_grow((void **)&b->p, &b->cap, b->n + 1, 1);
    b->p[b->n] = 0;
    return b->p;
}

void td_buf_free(td_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

td_status td_buf_flush(td_buf *b, FILE *f, td_err *e)
{
    size_t w = b->n ? fwrite(b->p, 1, b->n, f) : 0;
    td_status st = w == b->n ? TD_OK : td_fail(e, TD_E_OUTPUT, "write error");
    td_buf_free(b);
    return st;
}

/* ---- sha256 (OpenSSL's libcrypto: it uses the CPU's SHA extensions, ~2 GB/s here
 * against ~0.3 GB/s for libmd's portable code, which made hashing half of the run time
 * on large traces) ---- */
struct td_sha256 {
    EVP_MD_CTX *ctx;
};

td_sha256 *td_sha256_new(void)
{
    td_sha256 *s = td_xmalloc(sizeof *s);
    s->ctx = EVP_MD_CTX_new();
    if (!s->ctx || EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1) {
        fprintf(stderr, "tracedoc: internal error: SHA-256 unavailable\n");
        exit(TD_EXIT_INTERNAL);
    }
    return s;
}

void td_sha256_update(td_sha256 *s, const void *p, size_t n)
{
    EVP_DigestUpdate(s->ctx, p, n);
}

void td_sha256_final(td_sha256 *s, char hex[65])
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(s->ctx, d, &n);
    EVP_MD_CTX_free(s->ctx);
    for (unsigned int i = 0; i < 32 && i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    hex[64] = 0;
    free(s);
}

/* ---- files ---- */

/* Where an output path leads. Never replaced by a rename: devices, FIFOs, the standard
 * streams and symbolic links (a link to a regular file is kept and its target replaced). */
enum { OUT_FILE, OUT_FD, OUT_DEVICE };
typedef struct out_target {
    int kind;
    int fd;     /* OUT_FD: the descriptor ("-" is 1, /dev/stderr 2, /dev/fd/N N) */
    char *real; /* OUT_FILE: the file the rename replaces (malloc'd) */
} out_target;

static int fd_path(const char *path)
{
    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    const char *n = NULL;
    if (!strncmp(path, "/dev/fd/", 8))
        n = path + 8;
    else if (!strncmp(path, "/proc/self/fd/", 14))
        n = path + 14;
    if (!n || !*n)
        return -1;
    char *end;
    long v = strtol(n, &end, 10);
    return *end || v < 0 || v > INT_MAX ? -1 : (int)v;
}

static const char *out_label(const char *path)
{
    return strcmp(path, "-") ? path : "standard output";
}

static td_status out_target_of(const char *path, out_target *t, td_err *e)
{
    memset(t, 0, sizeof *t);
    t->fd = fd_path(path);
    if (t->fd >= 0) {
        t->kind = OUT_FD;
        return TD_OK;
    }
    struct stat ls, st;
    if (lstat(path, &ls) != 0) {
        if (errno != ENOENT)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        t->kind = OUT_FILE;
        t->real = td_xstrdup(path);
        return TD_OK;
    }
    if (stat(path, &st) != 0)
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: a symbolic link to a missing file "
                       "(%s); not replacing the link", path, strerror(errno));
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        t->kind = OUT_DEVICE;
        return TD_OK;
    }
    if (S_ISDIR(st.st_mode))
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: is a directory", path);
    if (!S_ISREG(st.st_mode))
        return td_fail(e, TD_E_OUTPUT, "%s: cannot write: not a regular file, character "
                       "device or FIFO; refusing to replace it", path);
    t->kind = OUT_FILE;
    if (S_ISLNK(ls.st_mode)) {
        t->real = realpath(path, NULL);
        if (!t->real)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot resolve the symbolic link: %s", path,
                           strerror(errno));
    } else
        t->real = td_xstrdup(path);
    return TD_OK;
}

/* Opens a device, FIFO or descriptor target for writing (a new descriptor in either case,
 * so fclose does not close the caller's standard streams). */
static int out_open_direct(const char *path, const out_target *t)
{
    if (t->kind == OUT_FD)
        return fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
    return open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
}

char *td_tmp_name(const char *path)
{
    static unsigned seq;
    out_target t;
    td_err e;
    const char *near = path;
    int ok = out_target_of(path, &t, &e) == TD_OK;
    if (ok && t.kind == OUT_FILE)
        near = t.real;
    char *name;
    if (ok && t.kind != OUT_FILE) {
        /* the data is copied to the device at commit; the temporary file is private */
        const char *dir = getenv("TMPDIR");
        size_t n = strlen(dir && *dir ? dir : "/tmp") + 32;
        name = td_xmalloc(n);
        snprintf(name, n, "%s/tracedoc.XXXXXX", dir && *dir ? dir : "/tmp");
        int fd = mkstemp(name);
        if (fd >= 0)
            close(fd);
    } else {
        size_t n = strlen(near) + 48;
        name = td_xmalloc(n);
        snprintf(name, n, "%s.tmp.%ld.%u", near, (long)getpid(), seq++);
    }
    free(t.real);
    return name;
}

/* Copies the file tmp to the open descriptor fd. */
static td_status copy_to_fd(const char *tmp, int fd, const char *path, td_err *e)
{
    int in = open(tmp, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return td_fail(e, TD_E_OUTPUT, "%s: cannot read back %s: %s", out_label(path), tmp,
                       strerror(errno));
    char buf[65536];
    td_status st = TD_OK;
    for (;;) {
        ssize_t k = read(in, buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot read back %s: %s", out_label(path), tmp,
                         strerror(errno));
            break;
        }
        if (k == 0)
            break;
        for (ssize_t off = 0; off < k;) {
            ssize_t w = write(fd, buf + off, (size_t)(k - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path),
                             w < 0 ? strerror(errno) : "short write");
                break;
            }
            off += w;
        }
        if (st != TD_OK)
            break;
    }
    close(in);
    return st;
}

td_status td_commit_tmp(const char *tmp, const char *path, td_err *e)
{
    out_target t;
    td_status st = out_target_of(path, &t, e);
    if (st == TD_OK && t.kind == OUT_FILE) {
        if (rename(tmp, t.real) != 0)
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
    } else if (st == TD_OK) {
        int fd = out_open_direct(path, &t);
        if (fd < 0)
            st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path), strerror(errno));
        else {
            st = copy_to_fd(tmp, fd, path, e);
            if (close(fd) != 0 && st == TD_OK)
                st = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path),
                             strerror(errno));
        }
    }
    unlink(tmp); /* after a rename: already gone */
    free(t.real);
    return st;
}

/* A stdio stream over a descriptor that remembers why its first write failed (writers
 * only see ferror; the message says "No space left on device"). */
typedef struct out_stream {
    int fd;
    int err;
} out_stream;

static ssize_t os_write(void *c, const char *buf, size_t n)
{
    out_stream *o = c;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(o->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!o->err)
                o->err = w < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int os_close(void *c)
{
    out_stream *o = c;
    int r = close(o->fd);
    if (r != 0 && !o->err)
        o->err = errno;
    return r;
}

static FILE *out_stream_open(int fd, out_stream *o)
{
    o->fd = fd;
    o->err = 0;
    cookie_io_functions_t io = {NULL, os_write, NULL, os_close};
    FILE *f = fopencookie(o, "wb", io);
    if (!f)
        close(fd);
    return f;
}

/* A writer's own output error named after the output ("write error" -> "PATH: cannot
 * write: No space left on device"). */
static td_status name_output_error(td_status s, const char *path, int err, td_err *e)
{
    if (s != TD_E_OUTPUT || strstr(e->msg, out_label(path)))
        return s;
    char m[sizeof e->msg];
    snprintf(m, sizeof m, "%s", e->msg);
    return td_fail(e, s, "%s: cannot write: %s", out_label(path), err ? strerror(err) : m);
}

/* Flushes and closes a stream the writer has filled (status s); names the error; commits
 * or removes tmp when there is one. */
static td_status finish_stream(const char *path, const char *tmp, FILE *f, out_stream *os,
                               td_status s, td_err *e)
{
    if (fflush(f) != 0 && s == TD_OK)
        s = td_fail(e, TD_E_OUTPUT, "write error");
    if (fclose(f) != 0 && s == TD_OK)
        s = td_fail(e, TD_E_OUTPUT, "write error");
    s = name_output_error(s, path, os->err, e);
    if (tmp && s != TD_OK)
        unlink(tmp);
    else if (tmp)
        s = td_commit_tmp(tmp, path, e);
    return s;
}

td_status td_write_atomic_cb(const char *path, td_status (*cb)(FILE *f, void *ctx, td_err *e),
                             void *ctx, td_err *e)
{
    out_target t;
    td_status s = out_target_of(path, &t, e);
    if (s != TD_OK)
        return s;
    if (t.kind != OUT_FILE) {
        /* devices, FIFOs, standard output: streamed straight in, nothing to rename */
        int fd = out_open_direct(path, &t);
        out_stream os;
        FILE *f = fd >= 0 ? out_stream_open(fd, &os) : NULL;
        if (!f)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", out_label(path), strerror(errno));
        if (t.kind == OUT_FD)
            fflush(stdout); /* what was printed before comes first */
        return finish_stream(path, NULL, f, &os, cb(f, ctx, e), e);
    }
    free(t.real);
    char *tmp = td_tmp_name(path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    out_stream os;
    FILE *f = fd >= 0 ? out_stream_open(fd, &os) : NULL;
    if (!f) {
        s = td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return s;
    }
    s = finish_stream(path, tmp, f, &os, cb(f, ctx, e), e);
    free(tmp);
    return s;
}

typedef struct {
    const void *d;
    size_t n;
} blob;

static td_status write_blob(FILE *f, void *ctx, td_err *e)
{
    blob *b = ctx;
    if (b->n && fwrite(b->d, 1, b->n, f) != b->n)
        return td_fail(e, TD_E_OUTPUT, "short write: %s", strerror(errno));
    return TD_OK;
}

td_status td_write_file_atomic(const char *path, const void *data, size_t n, td_err *e)
{
    blob b = {data, n};
    return td_write_atomic_cb(path, write_blob, &b, e);
}

td_status td_read_small_file(const char *path, char **out, size_t *n, td_err *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    td_buf b = {0};
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
        td_buf_put(&b, tmp, k);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        td_buf_free(&b);
        return td_fail(e, TD_E_IO, "%s: read error", path);
    }
    td_buf_cstr(&b);
    *out = b.p;
    if (n)
        *n = b.n;
    return TD_OK;
}

void td_fmt_ns(char *dst, size_t cap, int64_t ns)
{
    double v = (double)ns;
    double a = v < 0 ? -v : v;
    if (a >= 1e9)
        snprintf(dst, cap, "%.3f s", v / 1e9);
    else if (a >= 1e6)
        snprintf(dst, cap, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
        snprintf(dst, cap, "%.3f us", v / 1e3);
    else
        snprintf(dst, cap, "%lld ns", (long long)ns);
}

void td_fmt_bytes(char *dst, size_t cap, int64_t bytes)
{
    double v = (double)bytes;
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while ((v >= 1024 || v <= -1024) && i < 4) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(dst, cap, "%lld B", (long long)bytes);
    else
        snprintf(dst, cap, "%.2f %s", v, u[i]);
}

int64_t td_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The reproducible-builds convention: SOURCE_DATE_EPOCH when set (documents are then
 * byte-identical run to run), else the current time. A malformed value is ignored. */
int64_t td_source_date_epoch(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (!errno && !*end && v >= 0 && v <= 253402300799LL)
            return v;
    }
    time_t now = time(NULL);
    return now < 0 ? 0 : (int64_t)now;
}
