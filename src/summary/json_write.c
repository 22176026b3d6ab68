/* summary/json_write.c - summary.json: see summary/json_write.h. */
#include "summary/json_write.h"
#include "base/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_double(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char b[64];
    snprintf(b, sizeof b, "%.6f", v);
    /* trim trailing zeros, keep at least one decimal */
    char *dot = strchr(b, '.');
    if (dot) {
        char *e = b + strlen(b) - 1;
        while (e > dot + 1 && *e == '0')
            *e-- = 0;
    }
    if (strcmp(b, "-0.0") == 0)
        strcpy(b, "0.0");
    fputs(b, f);
}

static void json_cell(FILE *f, td_type t, const td_cell *v)
{
    switch (t) {
    case TD_T_TEXT:
        td_json_str(f, v->s);
        break;
    case TD_T_SHARE:
    case TD_T_F64:
    case TD_T_GBPS:
        json_double(f, v->f);
        break;
    case TD_T_DEVICE:
        if (v->i == TD_NA)
            fputs("null", f);
        else if (v->i < 0)
            fputs("\"all\"", f);
        else
            fprintf(f, "%lld", (long long)v->i);
        break;
    case TD_T_BOOL:
        fputs(v->i == TD_NA ? "null" : v->i ? "true" : "false", f);
        break;
    default:
        if (v->i == TD_NA)
            fputs("null", f);
        else
            fprintf(f, "%lld", (long long)v->i);
    }
}

/* Tree of dotted names for nesting. */
typedef struct jnode {
    const char *name; /* path component */
    const td_kv *kv;
    const td_table *tab;
    struct jnode **kids;
    size_t nk, ck;
} jnode;

static jnode *jchild(jnode *p, const char *name, size_t len)
{
    for (size_t i = 0; i < p->nk; i++)
        if (!p->kids[i]->kv && !p->kids[i]->tab && strlen(p->kids[i]->name) == len &&
            memcmp(p->kids[i]->name, name, len) == 0)
            return p->kids[i];
    jnode *n = td_xcalloc(1, sizeof *n);
    char *nm = td_xmalloc(len + 1);
    memcpy(nm, name, len);
    nm[len] = 0;
    n->name = nm;
    *TD_PUSH(p->kids, p->nk, p->ck) = n;
    return n;
}

/* A key that is both a value and the prefix of other keys ("warmup" and "warmup.mode")
 * cannot be written as JSON. The program never makes one, but a damaged partial summary
 * (.tds) can: refuse it, naming the key. */
static td_status clash(const char *path, td_err *e)
{
    return td_fail(e, TD_E_FORMAT, "summary key '%s' is both a value and an object", path);
}

static td_status jinsert(jnode *root, const char *path, const td_kv *kv, const td_table *tab,
                         td_err *e)
{
    jnode *p = root;
    const char *s = path, *d;
    while ((d = strchr(s, '.')) != NULL) {
        for (size_t i = 0; i < p->nk; i++)
            if ((p->kids[i]->kv || p->kids[i]->tab) &&
                strlen(p->kids[i]->name) == (size_t)(d - s) &&
                memcmp(p->kids[i]->name, s, (size_t)(d - s)) == 0)
                return clash(path, e);
        p = jchild(p, s, (size_t)(d - s));
        s = d + 1;
    }
    for (size_t i = 0; i < p->nk; i++)
        if (strcmp(p->kids[i]->name, s) == 0)
            return clash(path, e);
    jnode *n = td_xcalloc(1, sizeof *n);
    n->name = td_xstrdup(s);
    n->kv = kv;
    n->tab = tab;
    *TD_PUSH(p->kids, p->nk, p->ck) = n;
    return TD_OK;
}

static void jfree(jnode *n)
{
    for (size_t i = 0; i < n->nk; i++)
        jfree(n->kids[i]);
    free(n->kids);
    free((char *)n->name);
    free(n);
}

static void indent(FILE *f, int d)
{
    for (int i = 0; i < d; i++)
        fputs("  ", f);
}

static void json_table(FILE *f, const td_table *t, int d)
{
    if (t->nrows == 0) {
        fputs("[]", f);
        return;
    }
    fputs("[\n", f);
    for (size_t r = 0; r < t->nrows; r++) {
        indent(f, d + 1);
        fputc('{', f);
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs(", ", f);
            td_json_str(f, t->cols[c].key);
            fputs(": ", f);
            json_cell(f, t->cols[c].type, td_table_cell(t, r, c));
        }
        fputs(r + 1 < t->nrows ? "},\n" : "}\n", f);
    }
    indent(f, d);
    fputc(']', f);
}

static void json_strings(FILE *f, const char *const *v, size_t n, int d)
{
    if (!n) {
        fputs("[]", f);
        return;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
        indent(f, d + 1);
        td_json_str(f, v[i]);
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    indent(f, d);
    fputc(']', f);
}

/* "labels": what the documents call each value, its type, and each table's title, note
 * and columns ("key:type:Title" as td_table_cols takes them), so that a summary.json
 * given back to report (a stored run) gives the same documents. */
static void label_spec(FILE *f, const char *key, td_type t, const char *title)
{
    char b[1200];
    snprintf(b, sizeof b, "%s%s%s:%s", key ? key : "", key ? ":" : "", td_type_name(t),
             title ? title : "");
    td_json_str(f, b);
}

static int kv_key_cmp(const void *x, const void *y)
{
    return strcmp((*(const td_kv *const *)x)->key, (*(const td_kv *const *)y)->key);
}

static int table_name_cmp(const void *x, const void *y)
{
    return strcmp((*(const td_table *const *)x)->name, (*(const td_table *const *)y)->name);
}

/* by key, so that a summary.json read back and written again is the same bytes */
static void json_labels(FILE *f, const td_summary *s)
{
    const td_kv **kv = td_xmalloc((s->nkv + 1) * sizeof *kv);
    const td_table **tab = td_xmalloc((s->ntables + 1) * sizeof *tab);
    for (size_t i = 0; i < s->nkv; i++)
        kv[i] = &s->kv[i];
    for (size_t i = 0; i < s->ntables; i++)
        tab[i] = s->tables[i];
    qsort(kv, s->nkv, sizeof *kv, kv_key_cmp);
    qsort(tab, s->ntables, sizeof *tab, table_name_cmp);
    fputs("  \"labels\": {\n    \"scalars\": {", f);
    int first = 1;
    for (size_t i = 0; i < s->nkv; i++) {
        if (!strcmp(kv[i]->key, "schema"))
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, kv[i]->key);
        fputs(": ", f);
        label_spec(f, NULL, kv[i]->type, kv[i]->title);
    }
    fputs(first ? "},\n    \"tables\": {" : "\n    },\n    \"tables\": {", f);
    first = 1;
    for (size_t i = 0; i < s->ntables; i++) {
        const td_table *t = tab[i];
        if (t->no_json)
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, t->name);
        fputs(": {\"title\": ", f);
        td_json_str(f, t->title);
        if (t->note) {
            fputs(", \"note\": ", f);
            td_json_str(f, t->note);
        }
        fputs(", \"columns\": [", f);
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputs(", ", f);
            label_spec(f, t->cols[c].key, t->cols[c].type, t->cols[c].title);
        }
        fputs("]", f);
        int any = 0;
        for (int c = 0; c < t->ncols; c++)
            if (t->cols[c].nodoc) {
                fputs(any ? ", " : ", \"nodoc\": [", f);
                td_json_str(f, t->cols[c].key);
                any = 1;
            }
        fputs(any ? "]}" : "}", f);
    }
    /* flamegraph titles (the stacks are in KIND.folded files beside, when written; a
     * stored run read back keeps the titles without its stacks) */
    fputs(first ? "},\n    \"flames\": {" : "\n    },\n    \"flames\": {", f);
    first = 1;
    for (const char *const *k = td_flame_kinds; *k; k++) {
        const td_flame *fl = td_sum_find_flame(s, *k);
        if (!fl || fl->diff || !fl->title)
            continue;
        fputs(first ? "\n      " : ",\n      ", f);
        first = 0;
        td_json_str(f, *k);
        fputs(": ", f);
        td_json_str(f, fl->title);
    }
    fputs(first ? "}\n  }\n" : "\n    }\n  }\n", f);
    free(kv);
    free(tab);
}

static void json_node(FILE *f, const jnode *n, int d, const td_summary *s, int top)
{
    fputs("{\n", f);
    for (size_t i = 0; i < n->nk; i++) {
        const jnode *k = n->kids[i];
        indent(f, d + 1);
        td_json_str(f, k->name);
        fputs(": ", f);
        if (k->kv)
            json_cell(f, k->kv->type, &k->kv->v);
        else if (k->tab)
            json_table(f, k->tab, d + 1);
        else
            json_node(f, k, d + 1, s, 0);
        if (i + 1 < n->nk || top)
            fputc(',', f);
        fputc('\n', f);
    }
    if (top) {
        indent(f, d + 1);
        fputs("\"findings\": ", f);
        json_strings(f, s->findings, s->nfindings, d + 1);
        fputs(",\n", f);
        indent(f, d + 1);
        fputs("\"warnings\": ", f);
        json_strings(f, s->warnings, s->nwarnings, d + 1);
        fputs(",\n", f);
        json_labels(f, s);
    }
    indent(f, d);
    fputc('}', f);
}

td_status td_summary_write_json(const td_summary *s, FILE *f, td_err *e)
{
    for (size_t k = 0; k < s->ntables; k++)
        if (s->tables[k]->bad)
            return td_fail(e, TD_E_FORMAT, "summary table '%s': %s", s->tables[k]->name,
                           s->tables[k]->bad);
    jnode root = {0};
    td_status st = TD_OK;
    /* merge kv and tables by insertion order; the tree is complete before anything is
     * written, so a refused summary writes nothing */
    size_t i = 0, j = 0;
    while (st == TD_OK && (i < s->nkv || j < s->ntables)) {
        if (j >= s->ntables || (i < s->nkv && s->kv[i].seq < s->tables[j]->seq)) {
            st = jinsert(&root, s->kv[i].key, &s->kv[i], NULL, e);
            i++;
        } else {
            if (!s->tables[j]->no_json)
                st = jinsert(&root, s->tables[j]->name, NULL, s->tables[j], e);
            j++;
        }
    }
    if (st == TD_OK) {
        json_node(f, &root, 0, s, 1);
        fputc('\n', f);
    }
    for (size_t k = 0; k < root.nk; k++)
        jfree(root.kids[k]);
    free(root.kids);
    if (st != TD_OK)
        return st;
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

