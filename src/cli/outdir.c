/* cli/outdir.c - the sweep of stale outputs (see cli/outdir.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli/outdir.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int listed(char *const *names, size_t n, const char *x)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], x))
            return 1;
    return 0;
}

static int exists(const char *dir, const char *name)
{
    char p[PATH_MAX];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Remove dir/name when it is a regular file this run did not write. Names with a '/'
 * or starting with '.' are never touched (a manifest edited by hand cannot reach out
 * of the directory). */
static void drop(const char *dir, const char *name, char *const *keep, size_t nkeep)
{
    if (!name[0] || name[0] == '.' || strchr(name, '/') || listed(keep, nkeep, name))
        return;
    if (exists(dir, name)) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        unlink(p);
    }
}

td_status td_outdir_sweep(const char *dir, char *const *names, size_t n, td_err *e)
{
    char mpath[PATH_MAX];
    snprintf(mpath, sizeof mpath, "%s/%s", dir, TD_MANIFEST);
    char *old = NULL;
    size_t on = 0;
    td_err ignore = {0};
    if (td_read_small_file(mpath, &old, &on, &ignore) == TD_OK) {
        for (char *line = old, *nl; line && *line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = 0;
            drop(dir, line, names, n);
        }
        free(old);
    } else if (exists(dir, "report.pdf") || exists(dir, "report.xlsx") ||
               exists(dir, "summary.json")) {
        /* a report directory from before manifests: the stack files of known kinds */
        static const char *const kinds[] = {"cpu", "device", "ops", "compile"};
        char name[64];
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            snprintf(name, sizeof name, "flame-%s.svg", kinds[k]);
            drop(dir, name, names, n);
            snprintf(name, sizeof name, "%s.folded", kinds[k]);
            drop(dir, name, names, n);
        }
    }
    td_buf b = {0};
    for (size_t i = 0; i < n; i++)
        td_buf_printf(&b, "%s\n", names[i]);
    td_status st = td_write_file_atomic(mpath, b.p ? b.p : "", b.n, e);
    td_buf_free(&b);
    return st;
}
