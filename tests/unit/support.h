/* support.h - helpers shared by unit tests (static inline: a test uses what it needs). */
#ifndef TD_TEST_SUPPORT_H
#define TD_TEST_SUPPORT_H
#include "summary/summary.h"
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* summary.json text of s (malloc'd). */
static inline char *json_of(const td_summary *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    td_err e = {0};
    td_summary_write_json(s, f, &e);
    fclose(f);
    return buf;
}

/* One member of a zip file, read whole (malloc'd, *n bytes), or NULL. */
static inline void *zip_member(const char *zip, const char *name, size_t *n)
{
    struct archive *a = archive_read_new();
    archive_read_support_format_zip(a);
    void *out = NULL;
    *n = 0;
    if (archive_read_open_filename(a, zip, 1 << 16) == ARCHIVE_OK) {
        struct archive_entry *en;
        while (archive_read_next_header(a, &en) == ARCHIVE_OK) {
            if (strcmp(archive_entry_pathname(en), name))
                continue;
            size_t sz = (size_t)archive_entry_size(en);
            out = malloc(sz + 1);
            *n = (size_t)archive_read_data(a, out, sz);
            break;
        }
    }
    archive_read_free(a);
    return out;
}
#endif
