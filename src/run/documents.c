/* run/documents.c - the documents of a report (see run/documents.h): the loop over the
 * table of documents, and the writers of the documents the table lists. */
#define _POSIX_C_SOURCE 200809L
#include "run/documents.h"
#include "summary/flame.h"
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* ---- the writers (td_doc_write) of the table's documents ---- */

static td_status json_cb(FILE *f, void *ctx, td_err *e)
{
    return td_summary_write_json(ctx, f, e);
}

static td_status csv_cb(FILE *f, void *ctx, td_err *e)
{
    return td_table_write_csv(ctx, f, e);
}

static td_status folded_cb(FILE *f, void *ctx, td_err *e)
{
    return td_flame_write_folded(ctx, f, e);
}

static td_status td_doc_xlsx(const td_doc_job *j, const char *path, td_err *e)
{
    return td_render_xlsx(j->s, j->t, j->r, path, e);
}

static td_status td_doc_json(const td_doc_job *j, const char *path, td_err *e)
{
    return td_write_atomic_cb(path, json_cb, (void *)j->s, e);
}

static td_status td_doc_csv(const td_doc_job *j, const char *path, td_err *e)
{
    return td_write_atomic_cb(path, csv_cb, (void *)j->table, e);
}

static td_status td_doc_md(const td_doc_job *j, const char *path, td_err *e)
{
    return td_render_md(j->s, path, e);
}

static td_status td_doc_junit(const td_doc_job *j, const char *path, td_err *e)
{
    return td_render_junit(j->s, path, e);
}

static td_status td_doc_folded(const td_doc_job *j, const char *path, td_err *e)
{
    if (!j->flame->n && !j->flame->tree)
        return TD_OK; /* no stacks (a stored run's title without its stacks) */
    return td_write_atomic_cb(path, folded_cb, (void *)j->flame, e);
}

static td_status td_doc_svg(const td_doc_job *j, const char *path, td_err *e)
{
    return td_render_svg(j->s, j->flame, j->r, path, e);
}

static td_status td_doc_pdf(const td_doc_job *j, const char *path, td_err *e)
{
    return td_render_pdf(j->s, j->t, j->r, path, e);
}

/* ---- the table ---- */

enum { ONE, TABLE, FLAME, STACKS };

typedef struct doc {
    unsigned bit;
    const char *name;
    const char *file; /* a name, or a pattern with %s (EACH other than ONE) */
    int each;
    td_doc_write *write;
} doc;

static const doc docs[] = {
#define TD_DOC_ROW_(id, bit, name, file, each, writer) {bit, name, file, each, writer},
    TD_DOCUMENTS(TD_DOC_ROW_)
#undef TD_DOC_ROW_
};

/* How many files document d writes for s. */
static size_t nfiles(const doc *d, const td_summary *s)
{
    return d->each == ONE ? 1 : d->each == TABLE ? s->ntables : s->nflames;
}

/* File i of document d into name; 0 when there is none (a flame without stacks). The
 * job gets the table or flame. */
static int file_name(const doc *d, const td_summary *s, size_t i, td_doc_job *j, char *name,
                     size_t cap)
{
    char item[320];
    j->table = NULL;
    j->flame = NULL;
    switch (d->each) {
    case ONE:
        snprintf(name, cap, "%s", d->file);
        return 1;
    case TABLE:
        j->table = s->tables[i];
        td_docs_csv_name(j->table->name, item, sizeof item);
        snprintf(name, cap, "%s", item);
        return 1;
    case STACKS:
        if (!td_flame_has_stacks(s->flames[i]))
            return 0;
        /* fall through */
    default:
        j->flame = s->flames[i];
        snprintf(item, sizeof item, "%s", j->flame->kind);
        snprintf(name, cap, d->file, item);
        return 1;
    }
}

void td_docs_csv_name(const char *table, char *dst, size_t cap)
{
    snprintf(dst, cap, "%s.csv", table);
    for (char *p = dst; *p; p++)
        if (*p == '.' && strcmp(p, ".csv") != 0)
            *p = '_';
}

char **td_docs_files(const td_summary *s, unsigned mask, size_t *n)
{
    char **v = NULL;
    size_t cap = 0;
    char name[320];
    td_doc_job j = {s, NULL, NULL, NULL, NULL};
    *n = 0;
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++)
        for (size_t i = 0; (mask & docs[k].bit) && i < nfiles(&docs[k], s); i++)
            if (file_name(&docs[k], s, i, &j, name, sizeof name))
                *TD_PUSH(v, *n, cap) = td_xstrdup(name);
    return v;
}

void td_docs_files_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

td_status td_docs_write(const td_summary *s, const td_template *t, const td_render_opts *r,
                        const char *dir, unsigned mask, td_docs_timed *timed, void *ctx,
                        td_err *e)
{
    char name[320], path[PATH_MAX + 64];
    td_doc_job j = {s, t, r, NULL, NULL};
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        if (!(mask & docs[k].bit))
            continue;
        int64_t t0 = td_now_ns();
        for (size_t i = 0; i < nfiles(&docs[k], s); i++) {
            if (!file_name(&docs[k], s, i, &j, name, sizeof name))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, name);
            td_status st = docs[k].write(&j, path, e);
            if (st != TD_OK)
                return st;
        }
        if (timed)
            timed(ctx, docs[k].name, td_now_ns() - t0);
        /* test hook (tests/cases/fault_outdir.sh): a kill -9 of the whole run right
         * after this document */
        const char *kill_at = getenv("TD_TEST_KILL_AT");
        if (kill_at && !strcmp(kill_at, docs[k].name))
            kill(0, SIGKILL);
    }
    return TD_OK;
}
