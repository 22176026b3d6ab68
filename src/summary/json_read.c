/* summary/json_read.c - a summary.json read back into a summary (jansson): the loader
 * `report`, `diff`, `--baseline` and the history use on stored runs. See
 * summary/json_read.h. */
#define _POSIX_C_SOURCE 200809L
#include "summary/json_read.h"
#include "io/peek.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int td_is_summary_json(const char *path)
{
    /* the look is kept for the loader when the input is a pipe (io/peek.h) */
    char head[512];
    ssize_t n = td_peek(path, head, sizeof head - 1);
    if (n <= 0)
        return 0;
    head[n] = 0;
    return strstr(head, "\"schema\": \"tracedoc.summary/") != NULL;
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

static td_type type_for(const char *key, json_t *v)
{
    if (strcmp(key, "device") == 0)
        return TD_T_DEVICE; /* "all" or an id */
    if (json_is_string(v) || json_is_null(v))
        return TD_T_TEXT;
    if (json_is_boolean(v))
        return TD_T_BOOL;
    if (ends_with(key, "_ns"))
        return TD_T_NS;
    if (strcmp(key, "share") == 0 || ends_with(key, "_share"))
        return TD_T_SHARE;
    if (ends_with(key, "_gbps"))
        return TD_T_GBPS;
    if (strcmp(key, "bytes") == 0)
        return TD_T_BYTES;
    if (json_is_integer(v))
        return TD_T_INT;
    return TD_T_F64;
}

static void set_cell(td_summary *s, td_type t, td_cell *c, json_t *v)
{
    if (t == TD_T_TEXT)
        c->s = json_is_string(v) ? td_arena_strdup(s->a, json_string_value(v)) : NULL;
    else if (t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS)
        c->f = json_is_number(v) ? json_number_value(v) : NAN;
    else if (t == TD_T_DEVICE && json_is_string(v))
        c->i = -1;
    else if (t == TD_T_BOOL)
        c->i = json_is_boolean(v) ? json_is_true(v) : TD_NA;
    else if (json_is_integer(v))
        c->i = (int64_t)json_integer_value(v);
    else if (json_is_real(v) && fabs(json_real_value(v)) < 9.2e18) /* NaN fails too */
        c->i = (int64_t)json_real_value(v);
    else
        c->i = TD_NA; /* not a number, or one no integer cell can hold */
}

/* A scalar's label "type:Title": 1 when it parses. */
static int scalar_label(const char *spec, td_type *t, const char **title)
{
    const char *c = strchr(spec, ':');
    if (!c || !td_type_parse(spec, (size_t)(c - spec), t))
        return 0;
    *title = c + 1;
    return 1;
}

/* The labels summary.json keeps ("labels": titles, types, table columns and notes), or
 * NULL (a summary.json from before they were written: names and types are guessed). */
static json_t *g_labels;

static const char *label_of(const char *group, const char *key)
{
    json_t *g = g_labels ? json_object_get(g_labels, group) : NULL;
    json_t *v = g ? json_object_get(g, key) : NULL;
    return v && json_is_string(v) ? json_string_value(v) : NULL;
}

static int table_columns(td_summary *s, td_table *t, const char *name)
{
    json_t *g = g_labels ? json_object_get(g_labels, "tables") : NULL;
    json_t *lt = g ? json_object_get(g, name) : NULL;
    json_t *cols = lt ? json_object_get(lt, "columns") : NULL;
    if (!json_is_array(cols))
        return 0;
    json_t *v = json_object_get(lt, "title");
    if (json_is_string(v))
        t->title = td_arena_strdup(s->a, json_string_value(v));
    v = json_object_get(lt, "note");
    if (json_is_string(v))
        t->note = td_arena_strdup(s->a, json_string_value(v));
    size_t i;
    json_array_foreach(cols, i, v)
    {
        const char *key = json_is_string(v) ? json_string_value(v) : NULL, *title;
        size_t kl;
        td_type ty;
        if (t->ncols >= TD_MAXCOLS || !key || !td_col_spec_parse(key, &kl, &ty, &title) || !kl)
            continue;
        td_col *c = &t->cols[t->ncols++];
        c->key = td_arena_strndup(s->a, key, kl);
        c->title = td_arena_strdup(s->a, title);
        c->type = ty;
    }
    json_t *nd = json_object_get(lt, "nodoc");
    json_array_foreach(nd, i, v) if (json_is_string(v))
        td_table_nodoc(t, json_string_value(v));
    return 1;
}

static void load_obj(td_summary *s, const char *prefix, json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char key[512];
        snprintf(key, sizeof key, "%s%s%s", prefix, *prefix ? "." : "", k);
        if (!*prefix && (strcmp(k, "findings") == 0 || strcmp(k, "warnings") == 0) &&
            json_is_array(v)) {
            size_t i;
            json_t *x;
            json_array_foreach(v, i, x) if (json_is_string(x))
            {
                if (k[0] == 'f')
                    td_sum_finding(s, "%s", json_string_value(x));
                else
                    td_sum_warning(s, json_string_value(x));
            }
            continue;
        }
        if (json_is_object(v)) {
            load_obj(s, key, v);
        } else if (json_is_array(v)) {
            json_t *first = json_array_get(v, 0);
            td_table *t = td_sum_table(s, key, key);
            int labelled = t->ncols == 0 && table_columns(s, t, key);
            if (!json_is_object(first))
                continue;
            /* columns as labelled, else from the first row (names and types guessed) */
            const char *ck;
            json_t *cv;
            json_object_foreach(first, ck, cv)
            {
                if (t->ncols >= TD_MAXCOLS || (labelled && td_table_col(t, ck) >= 0))
                    continue;
                td_col *c = &t->cols[t->ncols++];
                c->key = td_arena_strdup(s->a, ck);
                c->title = c->key;
                c->type = type_for(ck, cv);
            }
            size_t i;
            json_t *row;
            json_array_foreach(v, i, row)
            {
                if (!json_is_object(row))
                    continue;
                size_t r = td_table_add_row(t);
                for (int c = 0; c < t->ncols; c++) {
                    json_t *x = json_object_get(row, t->cols[c].key);
                    if (x)
                        set_cell(s, t->cols[c].type, td_table_cell(t, r, c), x);
                }
            }
        } else {
            td_type t = type_for(k, v);
            /* run metadata is titled by its own key, as --meta does */
            const char *title = strcmp(prefix, "meta") == 0 ? k : key, *lab = label_of("scalars", key);
            td_type lt;
            const char *ltitle;
            if (lab && scalar_label(lab, &lt, &ltitle)) {
                t = lt;
                title = ltitle;
            }
            if (t == TD_T_TEXT)
                td_sum_set_str(s, key, title, json_is_string(v) ? json_string_value(v) : NULL);
            else if (t == TD_T_SHARE || t == TD_T_F64 || t == TD_T_GBPS)
                td_sum_set_f64(s, key, title, t, json_is_number(v) ? json_number_value(v) : NAN);
            else {
                td_cell c;
                set_cell(s, t, &c, v);
                td_sum_set_int(s, key, title, t, c.i);
            }
        }
    }
}

td_status td_summary_load_json(const char *path, td_summary **out, td_err *e)
{
    json_error_t je;
    FILE *f = td_peek_fopen(path);
    if (!f)
        return td_fail(e, TD_E_IO, "%s: cannot open: %s", path, strerror(errno));
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root)
        return td_fail(e, TD_E_FORMAT, "%s: line %d: %s", path, je.line, je.text);
    json_t *schema = json_object_get(root, "schema");
    if (!json_is_object(root) || !json_is_string(schema) ||
        strncmp(json_string_value(schema), "tracedoc.summary/", 17) != 0) {
        json_decref(root);
        return td_fail(e, TD_E_FORMAT, "%s: not a tracedoc summary.json (no \"schema\": "
                       "\"tracedoc.summary/1\")", path);
    }
    td_summary *s = td_summary_new();
    json_object_del(root, "schema");
    g_labels = json_object_get(root, "labels");
    if (!json_is_object(g_labels))
        g_labels = NULL;
    json_incref(g_labels);
    json_object_del(root, "labels");
    load_obj(s, "", root);
    /* flamegraph titles: empty flames until stacks stored beside fill them */
    json_t *fls = g_labels ? json_object_get(g_labels, "flames") : NULL;
    const char *fk;
    json_t *fv;
    json_object_foreach(fls, fk, fv) if (json_is_string(fv) && td_flame_kind_known(fk))
        td_sum_flame(s, fk, json_string_value(fv));
    json_decref(g_labels);
    g_labels = NULL;
    json_decref(root);
    *out = s;
    return TD_OK;
}
