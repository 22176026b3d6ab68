/* base/text.c - see base/text.h. */
#include "base/text.h"
#include <ctype.h>
#include <string.h>

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
