/* read/logdir.c - TensorBoard / XProf log directories (read/logdir.h). */
#define _POSIX_C_SOURCE 200809L
#include "read/logdir.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *p, struct stat *sb)
{
    return stat(p, sb) == 0 && S_ISDIR(sb->st_mode);
}

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a);
    int slash = la && a[la - 1] == '/';
    size_t n = la + strlen(b) + 2;
    char *p = td_xmalloc(n);
    snprintf(p, n, "%s%s%s", a, slash ? "" : "/", b);
    return p;
}

/* "plugins/profile" of dir: dir/plugins/profile, or dir itself when it is one. */
static char *profile_dir(const char *dir)
{
    struct stat sb;
    char *p = join(dir, "plugins/profile");
    if (is_dir(p, &sb))
        return p;
    free(p);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    static const char tail[] = "plugins/profile";
    size_t tl = sizeof tail - 1;
    if (n >= tl && !strncmp(dir + n - tl, tail, tl) && (n == tl || dir[n - tl - 1] == '/'))
        return td_xstrdup(dir);
    return NULL;
}

char *td_logdir_run(const char *dir, td_warnings *w)
{
    char *prof = profile_dir(dir);
    if (!prof)
        return NULL;
    DIR *d = opendir(prof);
    if (!d) {
        free(prof);
        return NULL;
    }
    char *best = NULL;
    size_t nruns = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *p = join(prof, de->d_name);
        struct stat sb;
        if (!is_dir(p, &sb)) {
            free(p);
            continue;
        }
        nruns++;
        /* the newest: the last by name (runs are named by their start time,
         * YYYY_MM_DD_HH_MM_SS, by jax.profiler, XProf and TensorBoard) */
        if (!best || strcmp(de->d_name, strrchr(best, '/') + 1) > 0) {
            free(best);
            best = p;
        } else
            free(p);
    }
    closedir(d);
    free(prof);
    if (best)
        td_warn(w, "%s: a TensorBoard log directory of %zu run%s: read the newest, %s (give "
                "a run's directory to read another)", dir, nruns, nruns == 1 ? "" : "s", best);
    return best;
}

static int ends(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

size_t td_logdir_filter(const char *dir, char **names, size_t n, td_warnings *w)
{
    /* the hosts that have an XPlane: HOST of HOST.xplane.pb[.gz] */
    size_t nx = 0;
    for (size_t i = 0; i < n; i++)
        nx += ends(names[i], ".xplane.pb") || ends(names[i], ".xplane.pb.gz");
    if (!nx)
        return n;
    size_t k = 0, skipped = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = names[i];
        int keep = ends(s, ".xplane.pb") || ends(s, ".xplane.pb.gz");
        if (!keep) {
            /* another file of a host that has an XPlane: XProf's conversions of it */
            const char *dot = strchr(s, '.');
            size_t hl = dot ? (size_t)(dot - s) : strlen(s);
            int host = 0;
            for (size_t j = 0; j < n && !host; j++) {
                const char *x = names[j];
                if ((ends(x, ".xplane.pb") || ends(x, ".xplane.pb.gz")) && !strncmp(x, s, hl) &&
                    x[hl] == '.')
                    host = 1;
            }
            keep = !host;
        }
        if (keep)
            names[k++] = names[i];
        else {
            free(names[i]);
            skipped++;
        }
    }
    if (skipped)
        td_warn(w, "%s: %zu file%s beside the hosts' XPlanes (XProf's conversions of them) not "
                "read", dir, skipped, skipped == 1 ? "" : "s");
    return k;
}
