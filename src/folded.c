/* folded.c - see folded.h. */
#define _POSIX_C_SOURCE 200809L
#include "folded.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int looks_folded(const char *p, size_t n)
{
    /* first non-blank line: some text, a space, digits */
    size_t i = 0;
    while (i < n && (p[i] == '\n' || p[i] == '\r'))
        i++;
    if (i >= n)
        return 0;
    unsigned char c0 = (unsigned char)p[i];
    if (c0 == '{' || c0 == '[' || c0 == 0x1f || c0 < 0x09)
        return 0;
    const char *nl = memchr(p + i, '\n', n - i);
    size_t end = nl ? (size_t)(nl - p) : n;
    if (end > i && p[end - 1] == '\r')
        end--;
    size_t j = end;
    while (j > i && isdigit((unsigned char)p[j - 1]))
        j--;
    return j < end && j > i + 1 && p[j - 1] == ' ';
}

td_status td_folded_parse(const char *name, const char *text, size_t n, td_summary *s,
                          td_flame *fl, td_err *e)
{
    size_t line = 0, i = 0;
    char *tmp = NULL;
    size_t tcap = 0;
    while (i < n) {
        line++;
        const char *nl = memchr(text + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - text) : n;
        size_t len = end - i;
        if (len && text[end - 1] == '\r')
            len--;
        if (len) {
            const char *l = text + i;
            size_t sp = len;
            while (sp > 0 && l[sp - 1] != ' ')
                sp--;
            if (sp == 0 || sp == len) {
                free(tmp);
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: expected 'frame;frame;... COUNT'",
                               name, line);
            }
            errno = 0;
            char *ep;
            char num[32];
            size_t nl2 = len - sp;
            if (nl2 >= sizeof num) {
                free(tmp);
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: count too large", name, line);
            }
            memcpy(num, l + sp, nl2);
            num[nl2] = 0;
            long long v = strtoll(num, &ep, 10);
            if (*ep || errno || v < 0) {
                free(tmp);
                return td_fail(e, TD_E_FORMAT, "%s: line %zu: expected a non-negative count, "
                               "got '%s'", name, line, num);
            }
            td_grow((void **)&tmp, &tcap, sp, 1);
            memcpy(tmp, l, sp - 1);
            tmp[sp - 1] = 0;
            if (v > 0)
                td_flame_add(s, fl, tmp, v);
        }
        i = end + 1;
    }
    free(tmp);
    td_flame_finish(fl);
    return TD_OK;
}

td_status td_folded_try_read(const char *path, const char *kind, td_summary **s, td_flame **fl,
                             td_err *e)
{
    *s = NULL;
    *fl = NULL;
    if (strcmp(path, "-") == 0)
        return TD_OK; /* stdin is read as a trace */
    FILE *f = fopen(path, "rb");
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    char head[4096];
    size_t k = fread(head, 1, sizeof head, f);
    fclose(f);
    if (!looks_folded(head, k))
        return TD_OK;
    char *text;
    size_t n;
    td_status st = td_read_small_file(path, &text, &n, e);
    if (st != TD_OK)
        return st;
    td_summary *sum = td_summary_new();
    td_flame *flame = td_sum_flame(sum, kind, path);
    flame->cycles = strcmp(kind, "ipu") == 0; /* IPU stacks count cycles */
    st = td_folded_parse(path, text, n, sum, flame, e);
    free(text);
    if (st != TD_OK) {
        td_summary_free(sum);
        return st;
    }
    td_sum_set_str(sum, "inputs_label", "Input", path);
    *s = sum;
    *fl = flame;
    return TD_OK;
}
