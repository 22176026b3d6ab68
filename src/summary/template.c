/* summary/template.c - parse templates; fill placeholders. See summary/template.h. */
#define _POSIX_C_SOURCE 200809L
#include "summary/template.h"
#include "compare/changes.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const td_pdf_sections[TD_PDF_NKINDS + 1] = {
    [TD_PDF_HEADER] = "header", [TD_PDF_FINDINGS] = "findings",
    [TD_PDF_KEYFIGURES] = "keyfigures", [TD_PDF_BREAKDOWN] = "breakdown",
    [TD_PDF_STEPS] = "steps", [TD_PDF_TABLE] = "table", [TD_PDF_COLLECTIVES] = "collectives",
    [TD_PDF_VARIABILITY] = "variability", [TD_PDF_COMPILE] = "compile",
    [TD_PDF_FLAME] = "flame", [TD_PDF_REGRESSION] = "regression",
    [TD_PDF_WARNINGS] = "warnings", [TD_PDF_PAGEBREAK] = "pagebreak",
    [TD_PDF_XLACOLLECTIVES] = "xlacollectives", [TD_PDF_TELEMETRY] = "telemetry",
    [TD_PDF_CHECKLIST] = "checklist", [TD_PDF_VERDICT] = "verdict",
    [TD_PDF_TRENDS] = "trends", [TD_PDF_STACKTRACE] = "stacktrace", [TD_PDF_IPU] = "ipu",
    [TD_PDF_IPU_TIMELINE] = "ipu_timeline", [TD_PDF_ROOFLINE] = "roofline",
    [TD_PDF_MEMORY] = "memory", [TD_PDF_CRITPATH] = "critpath", [TD_PDF_NKINDS] = NULL};
const char *const td_xlsx_sections[TD_XLSX_NKINDS + 1] = {
    [TD_XLSX_SUMMARY] = "summary", [TD_XLSX_TABLE] = "table",
    [TD_XLSX_REGRESSION] = "regression", [TD_XLSX_TRENDS] = "trends", [TD_XLSX_NKINDS] = NULL};

void td_template_free(td_template *t)
{
    if (!t)
        return;
    free(t->pdf);
    free(t->xlsx);
    free(t->tols);
    free(t);
}

/* The index of k in a NULL-terminated list of names, or -1. */
static int kind_index(const char *const *list, const char *k)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], k) == 0)
            return i;
    return -1;
}

/* Tokenizer: words or "quoted strings" (with \" and \\). Returns 0 at end of line,
 * -1 on an unterminated quote. */
static int next_tok(const char **pp, char *out, size_t cap)
{
    const char *p = *pp;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p)
        return 0;
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t') {
        if (*p == '"') {
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1])
                    p++;
                if (n + 1 < cap)
                    out[n++] = *p;
                p++;
            }
            if (*p != '"')
                return -1;
            p++;
        } else {
            if (n + 1 < cap)
                out[n++] = *p;
            p++;
        }
    }
    out[n] = 0;
    *pp = p;
    return 1;
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    size_t i = 0;
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, n - i + 1);
}

static void unquote(char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        memmove(s, s + 1, n - 2);
        s[n - 2] = 0;
    }
}

static const struct { const char *name; unsigned bit; } docs[] = {
#define TD_DOC_ROW_(id, bit, name, file, each, writer) {name, bit},
    TD_DOCUMENTS(TD_DOC_ROW_)
#undef TD_DOC_ROW_
};
#define NDOCS (sizeof docs / sizeof docs[0])

unsigned td_doc_bit(const char *name)
{
    for (size_t i = 0; i < NDOCS; i++)
        if (strcmp(docs[i].name, name) == 0)
            return docs[i].bit;
    return 0;
}

const char *td_doc_names(void)
{
    static char list[NDOCS * 16]; /* built once, from the table, by bit */
    if (!list[0])
        for (unsigned bit = 1; bit; bit <<= 1)
            for (size_t i = 0; i < NDOCS; i++)
                if (docs[i].bit == bit)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                             list[0] ? ", " : "", docs[i].name);
    return list;
}

static int parse_docs(const char *v, unsigned *mask, char *bad, size_t cap)
{
    *mask = 0;
    const char *p = v;
    char w[64];
    int r;
    while ((r = next_tok(&p, w, sizeof w)) > 0) {
        unsigned bit = td_doc_bit(w);
        if (!bit) {
            snprintf(bad, cap, "%s", w);
            return -1;
        }
        *mask |= bit;
    }
    return 0;
}

td_status td_template_parse(const char *path, const char *text, td_template **out, td_err *e)
{
    td_template *t = td_xcalloc(1, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    t->documents = TD_DOC_PDF | TD_DOC_XLSX | TD_DOC_SVG | TD_DOC_JSON | TD_DOC_FOLDED;
    t->minwidth = -1;
    t->tolerance = -1;
    int block = 0; /* 0 global, 1 pdf, 2 xlsx */
    int lineno = 0;
    const char *p = text;
    char line[2048];
    while (*p) {
        lineno++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= sizeof line) {
            td_fail(e, TD_E_USAGE, "%s:%d: line too long (at most %zu characters)", path,
                    lineno, sizeof line - 1);
            goto fail;
        }
        memcpy(line, p, len);
        line[len] = 0;
        p = nl ? nl + 1 : p + len;
        /* comments: '#' at the start of the line (after blanks) */
        trim(line);
        if (!line[0] || line[0] == '#')
            continue;
        if (line[0] == '[') {
            if (strcmp(line, "[pdf]") == 0)
                block = 1;
            else if (strcmp(line, "[xlsx]") == 0)
                block = 2;
            else {
                td_fail(e, TD_E_USAGE, "%s:%d: expected [pdf] or [xlsx], got '%s'", path,
                        lineno, line);
                goto fail;
            }
            continue;
        }
        if (block == 0) {
            char *eq = strchr(line, '=');
            if (!eq) {
                td_fail(e, TD_E_USAGE, "%s:%d: expected 'key = value' (title, subtitle, "
                        "documents, paper, minwidth, icicle)", path, lineno);
                goto fail;
            }
            *eq = 0;
            char key[64], val[1024];
            snprintf(key, sizeof key, "%s", line);
            snprintf(val, sizeof val, "%s", eq + 1);
            trim(key);
            trim(val);
            unquote(val);
            if (strcmp(key, "title") == 0)
                snprintf(t->title, sizeof t->title, "%s", val);
            else if (strcmp(key, "subtitle") == 0)
                snprintf(t->subtitle, sizeof t->subtitle, "%s", val);
            else if (strcmp(key, "paper") == 0) {
                if (strcmp(val, "a4") && strcmp(val, "letter")) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected paper = a4 or letter", path, lineno);
                    goto fail;
                }
                snprintf(t->paper, sizeof t->paper, "%s", val);
            } else if (strcmp(key, "documents") == 0) {
                char bad[64];
                if (parse_docs(val, &t->documents, bad, sizeof bad) < 0) {
                    td_fail(e, TD_E_USAGE, "%s:%d: unknown document '%s' (expected %s)", path,
                            lineno, bad, td_doc_names());
                    goto fail;
                }
            } else if (strcmp(key, "minwidth") == 0) {
                char *end;
                double v = strtod(val, &end);
                if (*end || v < 0 || v >= 1) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected minwidth = a fraction in [0,1)",
                            path, lineno);
                    goto fail;
                }
                t->minwidth = v;
            } else if (strcmp(key, "tolerance") == 0 || strncmp(key, "tolerance.", 10) == 0) {
                char *end;
                double v = strtod(val, &end);
                if (*end || end == val || !(v >= 0 && v < 10) || (key[9] && !key[10])) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected tolerance[.METRIC] = a fraction "
                            "(e.g. tolerance.kernel.mean_ns = 0.1)", path, lineno);
                    goto fail;
                }
                if (!key[9])
                    t->tolerance = v;
                else {
                    td_tolerance *tl = TD_PUSH(t->tols, t->ntols, t->tols_cap);
                    snprintf(tl->prefix, sizeof tl->prefix, "%s", key + 10);
                    tl->tol = v;
                }
            } else if (strcmp(key, "icicle") == 0) {
                if (strcmp(val, "yes") && strcmp(val, "no")) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected icicle = yes or no", path, lineno);
                    goto fail;
                }
                t->icicle = strcmp(val, "yes") == 0;
            } else {
                td_fail(e, TD_E_USAGE, "%s:%d: unknown key '%s' (expected title, subtitle, "
                        "documents, paper, minwidth, icicle, tolerance)", path, lineno, key);
                goto fail;
            }
            continue;
        }
        const char *q = line;
        char tok[512];
        int r = next_tok(&q, tok, sizeof tok);
        if (r <= 0 || strcmp(tok, "section") != 0) {
            td_fail(e, TD_E_USAGE, "%s:%d: expected 'section KIND ...'", path, lineno);
            goto fail;
        }
        td_section sec;
        memset(&sec, 0, sizeof sec);
        sec.threshold = -1;
        sec.line = lineno;
        r = next_tok(&q, tok, sizeof tok);
        const char *const *kinds = block == 1 ? td_pdf_sections : td_xlsx_sections;
        int ki = r > 0 ? kind_index(kinds, tok) : -1;
        if (ki < 0) {
            td_buf b = {0};
            for (const char *const *k = kinds; *k; k++)
                td_buf_printf(&b, "%s%s", k == kinds ? "" : ", ", *k);
            td_fail(e, TD_E_USAGE, "%s:%d: unknown %s section '%s' (expected one of: %s)", path,
                    lineno, block == 1 ? "pdf" : "xlsx", r > 0 ? tok : "", td_buf_cstr(&b));
            td_buf_free(&b);
            goto fail;
        }
        if (block == 1)
            sec.kind.pdf = (td_pdf_kind)ki;
        else
            sec.kind.xlsx = (td_xlsx_kind)ki;
        while ((r = next_tok(&q, tok, sizeof tok)) > 0) {
            char *eq = strchr(tok, '=');
            if (!eq) {
                if (sec.arg[0]) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected key=value, got '%s'", path, lineno,
                            tok);
                    goto fail;
                }
                snprintf(sec.arg, sizeof sec.arg, "%s", tok);
                continue;
            }
            *eq = 0;
            const char *v = eq + 1;
            char *end;
            if (strcmp(tok, "top") == 0) {
                long n = strtol(v, &end, 10);
                if (*end || n < 1 || n > 100000) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected top=N with N from 1 to 100000",
                            path, lineno);
                    goto fail;
                }
                sec.top = (int)n;
            } else if (strcmp(tok, "threshold") == 0) {
                double d = strtod(v, &end);
                if (*end || d < 0 || d >= 1) {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected threshold=F with 0 <= F < 1", path,
                            lineno);
                    goto fail;
                }
                sec.threshold = d;
            } else if (strcmp(tok, "title") == 0) {
                snprintf(sec.title, sizeof sec.title, "%s", v);
            } else if (strcmp(tok, "when") == 0) {
                if (block != 1) {
                    td_fail(e, TD_E_USAGE, "%s:%d: when= applies to [pdf] sections only",
                            path, lineno);
                    goto fail;
                }
                if (!strcmp(v, "cpu-only"))
                    sec.when = TD_WHEN_CPU_ONLY;
                else if (!strcmp(v, "device"))
                    sec.when = TD_WHEN_DEVICE;
                else {
                    td_fail(e, TD_E_USAGE, "%s:%d: expected when=cpu-only or when=device, "
                            "got when=%s", path, lineno, v);
                    goto fail;
                }
            } else {
                td_fail(e, TD_E_USAGE, "%s:%d: unknown option '%s' (expected top, threshold, "
                        "title, when)", path, lineno, tok);
                goto fail;
            }
        }
        if (r < 0) {
            td_fail(e, TD_E_USAGE, "%s:%d: unterminated quoted string", path, lineno);
            goto fail;
        }
        int table = block == 1 ? sec.kind.pdf == TD_PDF_TABLE : sec.kind.xlsx == TD_XLSX_TABLE;
        if ((table || (block == 1 && sec.kind.pdf == TD_PDF_FLAME)) && !sec.arg[0]) {
            td_fail(e, TD_E_USAGE, "%s:%d: expected a %s name after 'section %s'", path, lineno,
                    table ? "table" : "flamegraph kind", table ? "table" : "flame");
            goto fail;
        }
        if (block == 1)
            *TD_PUSH(t->pdf, t->npdf, t->pdf_cap) = sec;
        else
            *TD_PUSH(t->xlsx, t->nxlsx, t->xlsx_cap) = sec;
    }
    *out = t;
    return TD_OK;
fail:
    td_template_free(t);
    return e ? e->code : TD_E_USAGE;
}

/* A table section must name a table tracedoc writes (td_table_names), a flame section a
 * flamegraph kind (td_flame_kinds). */
static td_status check_tables(const td_template *t, const td_section *secs, size_t n,
                              int pdf, td_err *e)
{
    for (size_t k = 0; k < n; k++) {
        const td_section *sec = &secs[k];
        int table = pdf ? sec->kind.pdf == TD_PDF_TABLE : sec->kind.xlsx == TD_XLSX_TABLE;
        int flame = pdf && sec->kind.pdf == TD_PDF_FLAME;
        if (table ? td_table_name_known(sec->arg) : !flame || td_flame_kind_known(sec->arg))
            continue;
        const char *const *known = table ? td_table_names : td_flame_kinds;
        const char *what = table ? "table" : "flamegraph kind";
        const char *best = NULL;
        size_t bestd = 3;
        td_buf names = {0};
        for (size_t i = 0; known[i]; i++) {
            size_t d = td_edit_distance(sec->arg, known[i]);
            if (d < bestd) {
                bestd = d;
                best = known[i];
            }
            td_buf_printf(&names, "%s%s", i ? ", " : "", known[i]);
        }
        if (best)
            td_fail(e, TD_E_USAGE, "%s:%d: unknown %s '%s' (did you mean '%s'?)", t->path,
                    sec->line, what, sec->arg, best);
        else
            td_fail(e, TD_E_USAGE, "%s:%d: unknown %s '%s' (%ss: %s)", t->path, sec->line,
                    what, sec->arg, table ? "table" : "kind", td_buf_cstr(&names));
        td_buf_free(&names);
        return TD_E_USAGE;
    }
    return TD_OK;
}

td_status td_template_load(const char *name, const char *dir, td_template **out, td_err *e)
{
    char path[1024];
    if (strchr(name, '/') || strstr(name, ".tdt"))
        snprintf(path, sizeof path, "%s", name);
    else {
        for (const char *c = name; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
                return td_fail(e, TD_E_USAGE, "template name '%s': expected letters, digits, "
                               "'-' or '_', or a file path", name);
        snprintf(path, sizeof path, "%s/%s.tdt", dir, name);
    }
    char *text;
    td_status st = td_read_small_file(path, &text, NULL, e);
    if (st != TD_OK) {
        char msg[sizeof e->msg]; /* td_fail must not read the buffer it writes */
        snprintf(msg, sizeof msg, "%s", e->msg);
        return td_fail(e, TD_E_USAGE, "template: %s", msg);
    }
    st = td_template_parse(path, text, out, e);
    free(text);
    if (st == TD_OK && ((st = check_tables(*out, (*out)->pdf, (*out)->npdf, 1, e)) != TD_OK ||
                        (st = check_tables(*out, (*out)->xlsx, (*out)->nxlsx, 0, e)) != TD_OK)) {
        td_template_free(*out);
        *out = NULL;
    }
    return st;
}

char *td_template_fill(const char *text, const td_summary *s)
{
    td_buf b = {0};
    const char *p = text;
    while (*p) {
        const char *o = strstr(p, "{{");
        const char *c = o ? strstr(o + 2, "}}") : NULL;
        if (!o || !c) {
            td_buf_puts(&b, p);
            break;
        }
        td_buf_put(&b, p, (size_t)(o - p));
        char key[128];
        size_t kl = (size_t)(c - o - 2);
        if (kl >= sizeof key) {
            td_buf_put(&b, o, (size_t)(c + 2 - o));
            p = c + 2;
            continue;
        }
        memcpy(key, o + 2, kl);
        key[kl] = 0;
        trim(key);
        const td_kv *kv = td_sum_get(s, key);
        if (kv) {
            char v[256];
            td_col col = {kv->key, kv->title, kv->type};
            td_cell_format(&col, &kv->v, v, sizeof v);
            td_buf_puts(&b, v);
        } else {
            td_buf_put(&b, o, (size_t)(c + 2 - o));
        }
        p = c + 2;
    }
    td_buf_cstr(&b);
    return b.p;
}
