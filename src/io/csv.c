/* io/csv.c - CSV records with line numbers (see io/csv.h). */
#include "io/csv.h"
#include <string.h>

void td_csv_init(td_csv *c, const char *name, const char *data, size_t n)
{
    memset(c, 0, sizeof *c);
    c->p = data;
    c->end = data + n;
    c->name = name;
    c->line = 1;
    if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        c->p += 3;
}

void td_csv_free(td_csv *c)
{
    td_buf_free(&c->b);
}

static td_status fail_at(td_csv *c, uint32_t line, td_err *e, const char *what)
{
    return td_fail(e, TD_E_FORMAT, "%s: line %u: %s", c->name, line, what);
}

int td_csv_next(td_csv *c, uint32_t *rec_line, td_err *e)
{
    for (;;) {
        if (c->p >= c->end)
            return 0;
        if (*c->p == '#' || *c->p == '\n' || *c->p == '\r') {
            const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
            c->p = nl ? nl + 1 : c->end;
            c->line++;
            continue;
        }
        break;
    }
    *rec_line = c->line;
    c->b.n = 0;
    c->nf = 0;
    for (;;) {
        if (c->nf == TD_CSV_MAXF) {
            fail_at(c, *rec_line, e, "more than 64 columns");
            return -1;
        }
        c->off[c->nf++] = c->b.n;
        while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
            c->p++;
        if (c->p < c->end && *c->p == '"') {
            c->p++;
            for (;;) {
                if (c->p >= c->end) {
                    fail_at(c, *rec_line, e, "quoted field not closed before the end of the file");
                    return -1;
                }
                char ch = *c->p++;
                if (ch == '"') {
                    if (c->p < c->end && *c->p == '"') {
                        td_buf_putc(&c->b, '"');
                        c->p++;
                        continue;
                    }
                    break;
                }
                if (ch == '\n')
                    c->line++;
                if (ch == 0) {
                    fail_at(c, c->line, e, "NUL byte (not a text file)");
                    return -1;
                }
                td_buf_putc(&c->b, ch);
            }
            while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
                c->p++;
            if (c->p < c->end && *c->p != ',' && *c->p != '\n') {
                fail_at(c, c->line, e, "unexpected character after a quoted field");
                return -1;
            }
        } else {
            size_t start = c->b.n;
            while (c->p < c->end && *c->p != ',' && *c->p != '\n') {
                if (*c->p == 0) {
                    fail_at(c, c->line, e, "NUL byte (not a text file)");
                    return -1;
                }
                if (*c->p == '"') {
                    fail_at(c, c->line, e, "quote inside an unquoted field");
                    return -1;
                }
                td_buf_putc(&c->b, *c->p++);
            }
            while (c->b.n > start && (c->b.p[c->b.n - 1] == ' ' || c->b.p[c->b.n - 1] == '\t' ||
                                      c->b.p[c->b.n - 1] == '\r'))
                c->b.n--;
        }
        td_buf_putc(&c->b, 0);
        if (c->p >= c->end)
            return 1;
        if (*c->p++ == '\n') {
            c->line++;
            return 1;
        }
    }
}

const char *td_csv_field(const td_csv *c, int i)
{
    return c->b.p + c->off[i];
}
