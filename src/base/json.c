/* base/json.c - see base/json.h. */
#include "base/json.h"
#include "base/text.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
