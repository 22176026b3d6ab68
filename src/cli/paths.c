/* cli/paths.c - what the commands need around their paths: merge's input list (PART.tds
 * arguments, a directory's .tds files, --files-from FILE|-), the checks of -o made before
 * any work (parent directories, names like documents), the data directory (templates/,
 * fonts/) and --format's document list. Errors are said here (src/cli prints) and returned
 * as exit statuses. */
#define _GNU_SOURCE
#include "cli/internal.h"
#include "base/alloc.h"
#include "summary/template.h"
#include <libgen.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

static void push(td_cli_list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = td_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular *.tds file of dir, sorted by name (the order ls gives in the C locale), so
 * the merge and its first-part rules (meta) do not depend on the directory's order. */
static int add_dir(td_cli_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return td_cli_stop(TD_EXIT_INPUT, "%s: cannot open: %s", dir, strerror(errno));
    size_t first = l->n, dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".tds") || de->d_name[0] == '.')
            continue;
        char *p = td_xmalloc(dl + n + 2);
        snprintf(p, dl + n + 2, "%.*s/%s", (int)dl, dir, de->d_name);
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        push(l, p);
    }
    closedir(d);
    if (l->n == first)
        return td_cli_stop(TD_EXIT_INPUT, "%s: no partial summaries (*.tds) in this directory",
                           dir);
    qsort(l->v + first, l->n - first, sizeof *l->v, by_name);
    return TD_EXIT_OK;
}

/* One path a line; blank lines and the line ends (\n, \r\n) are not part of a path. */
static int add_lines(td_cli_list *l, const char *from)
{
    int is_stdin = !strcmp(from, "-");
    FILE *f = is_stdin ? stdin : fopen(from, "r");
    if (!f)
        return td_cli_stop(TD_EXIT_INPUT, "%s: cannot open: %s", from, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    size_t first = l->n;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        if (n > 0)
            push(l, td_xstrdup(line));
    }
    int bad = ferror(f);
    free(line);
    if (!is_stdin)
        fclose(f);
    if (bad)
        return td_cli_stop(TD_EXIT_INPUT, "%s: read error", is_stdin ? "standard input" : from);
    if (l->n == first)
        return td_cli_stop(TD_EXIT_INPUT, "%s: --files-from: no paths in it",
                           is_stdin ? "standard input" : from);
    return TD_EXIT_OK;
}

int td_cli_merge_inputs(char **args, int nargs, const char *files_from, td_cli_list *l)
{
    memset(l, 0, sizeof *l);
    int rc = TD_EXIT_OK;
    for (int i = 0; rc == TD_EXIT_OK && i < nargs; i++) {
        struct stat st;
        if (!strcmp(args[i], "-"))
            rc = td_cli_stop(TD_EXIT_USAGE, "merge: '-' is not a part; give a list of parts "
                             "on standard input with --files-from - (ls parts/*.tds | "
                             "tracedoc merge --files-from - -o DIR)");
        else if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_dir(l, args[i]);
        else
            push(l, td_xstrdup(args[i]));
    }
    if (rc == TD_EXIT_OK && files_from)
        rc = add_lines(l, files_from);
    if (rc == TD_EXIT_OK && l->n == 0)
        rc = td_cli_stop(TD_EXIT_USAGE, "merge: expected PART.tds..., a directory of parts or "
                         "--files-from FILE|- (got no parts)");
    if (rc != TD_EXIT_OK)
        td_cli_list_free(l);
    return rc;
}

void td_cli_list_free(td_cli_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

int td_cli_make_parents(const char *path, int self)
{
    size_t n = strlen(path);
    char *p = td_xstrdup(path);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    if (!self) { /* the parent only: up to the last '/' */
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            free(p);
            return TD_EXIT_OK;
        }
        *slash = 0;
    }
    int rc = TD_EXIT_OK;
    /* each prefix ending before a '/', then the whole: mkdir -p */
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = 0;
        struct stat st;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = td_cli_stop(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", p,
                             strerror(errno));
            break;
        }
        if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc = td_cli_stop(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", p,
                             "a file of that name is in the way");
            break;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

/* A document's extension at the end of a directory's name (issue 21: `-o report.pdf` made
 * a directory named report.pdf). */
static const char *doc_extension(const char *out)
{
    static const char *const ext[] = {".pdf", ".xlsx", ".svg", ".json", ".csv", ".md"};
    size_t n = strlen(out);
    if (n > 1 && out[n - 1] == '/')
        return NULL; /* "report.pdf/": a directory asked for */
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t k = strlen(ext[i]);
        if (n > k && strcasecmp(out + n - k, ext[i]) == 0)
            return ext[i];
    }
    return NULL;
}

int td_cli_out_dir(const char *cmd, const char *out)
{
    struct stat st;
    int exists = stat(out, &st) == 0;
    if (exists && !S_ISDIR(st.st_mode))
        return td_cli_stop(TD_EXIT_OUTPUT, "%s: -o %s: a file of that name is in the way (%s "
                           "writes a directory of documents)", cmd, out, cmd);
    const char *ext = doc_extension(out);
    if (!exists && ext)
        return td_cli_stop(TD_EXIT_USAGE, "%s: -o %s names a %s file, but %s writes a directory "
                           "of documents; give a directory, "
                           "e.g. -o %.*s", cmd, out, ext + 1, cmd,
                           (int)(strlen(out) - strlen(ext)), out);
    /* missing parents made now, and a directory that cannot be made found now: before
     * the work, not after the analysis */
    int rc = td_cli_make_parents(out, 0);
    if (rc != TD_EXIT_OK || exists)
        return rc;
    char *p = td_xstrdup(out);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = 0;
    char *slash = strrchr(p, '/');
    const char *parent = !slash ? "." : slash == p ? "/" : (*slash = 0, p);
    if (access(parent, W_OK | X_OK) != 0)
        rc = td_cli_stop(TD_EXIT_OUTPUT, "%s: cannot create directory: %s", out,
                         strerror(errno));
    free(p);
    return rc;
}

int td_cli_out_file(const char *out)
{
    if (!out || !strcmp(out, "-"))
        return TD_EXIT_OK;
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
        return td_cli_stop(TD_EXIT_OUTPUT, "%s: cannot write: is a directory (-o names the file to write)",
                           out);
    return td_cli_make_parents(out, 0);
}

/* Where templates/ and fonts/ are: $TRACEDOC_DATA; else beside the executable as
 * installed (PREFIX/bin/tracedoc -> PREFIX/share/tracedoc) or as built (build/tracedoc ->
 * the source tree); else the source tree it was built from. */
char td_cli_datadir[PATH_MAX];
static int has_templates(const char *dir)
{
    char cand[PATH_MAX + 32];
    struct stat st;
    snprintf(cand, sizeof cand, "%s/templates", dir);
    return stat(cand, &st) == 0 && S_ISDIR(st.st_mode);
}

void td_cli_find_datadir(void)
{
    char *datadir = td_cli_datadir;
    const size_t cap = sizeof td_cli_datadir;
    const char *env = getenv("TRACEDOC_DATA");
    if (env && *env) {
        snprintf(datadir, cap, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        const char *d = dirname(exe);
        static const char *const rel[] = {"/../share/tracedoc", "/.."};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(datadir, cap, "%.*s%s", (int)(cap - 32), d, rel[i]);
            if (has_templates(datadir))
                return;
        }
    }
#ifdef TD_DATADIR
    snprintf(datadir, cap, "%s", TD_DATADIR); /* the source tree it was built from */
#else
    snprintf(datadir, cap, ".");
#endif
}

int td_cli_formats(const td_cli_opt *opt, const char *v, unsigned *m)
{
    char buf[256];
    *m = 0;
    snprintf(buf, sizeof buf, "%s", v);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", ")) {
        unsigned bit = td_doc_bit(tok);
        if (!bit)
            return td_cli_bad_value(opt, "unknown document '%s' (expected %s)", tok,
                                    td_doc_names());
        *m |= bit;
    }
    if (!*m)
        return td_cli_bad_value(opt, "expected a list such as pdf,xlsx");
    return TD_EXIT_OK;
}
