/* cli/outdir.c - the output directory of a report: lock, staging, one-step switch (see
 * cli/outdir.h). */
#define _GNU_SOURCE
#include "cli/outdir.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int listed(char *const *names, size_t n, const char *x)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], x))
            return 1;
    return 0;
}

/* Test hook (tests/cases/fault_outdir.sh): TD_TEST_KILL_AT=POINT kills the whole process
 * group at POINT, as a kill -9 would. */
static void kill_at(const char *point)
{
    const char *k = getenv("TD_TEST_KILL_AT");
    if (k && !strcmp(k, point))
        kill(0, SIGKILL);
}

/* PID written in a temporary's name after ".tmp."; 0 when the name is not one of ours. */
static long tmp_pid(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl))
        return 0;
    const char *t = strstr(name + pl, ".tmp.");
    if (!t)
        return 0;
    char *end;
    long pid = strtol(t + 5, &end, 10);
    if (pid <= 0 || end == t + 5 || *end != '.' || !end[1])
        return 0;
    /* NAME.tmp.PID.N (a file) or NAME.tmp.PID.d (a stage): nothing else is ours */
    if (!strcmp(end + 1, "d"))
        return pid;
    for (const char *q = end + 1; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    return pid;
}

static int dead(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Remove a staging directory: it only ever holds files. */
static void remove_stage(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
    rmdir(path);
}

static void split(const char *path, char *parent, size_t cap, const char **base)
{
    const char *sl = strrchr(path, '/');
    if (!sl) {
        snprintf(parent, cap, ".");
        *base = path;
    } else {
        snprintf(parent, cap, "%.*s", sl == path ? 1 : (int)(sl - path), path);
        *base = sl + 1;
    }
}

/* Temporaries of killed runs: DIR.tmp.PID.d beside dir, NAME.tmp.PID.N in it. */
static void sweep_stale(const char *dir)
{
    char parent[PATH_MAX], p[PATH_MAX + 300];
    const char *base;
    split(dir, parent, sizeof parent, &base);
    char prefix[NAME_MAX + 2];
    snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    DIR *d = opendir(parent);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        long pid = tmp_pid(de->d_name, base);
        size_t l = strlen(de->d_name);
        if (pid && !strncmp(de->d_name, prefix, strlen(prefix)) && l > 2 &&
            !strcmp(de->d_name + l - 2, ".d") && dead(pid)) {
            snprintf(p, sizeof p, "%s/%s", parent, de->d_name);
            remove_stage(p);
        }
    }
    if (d)
        closedir(d);
    d = opendir(dir);
    while (d && (de = readdir(d))) {
        long pid = tmp_pid(de->d_name, "");
        if (!pid || !dead(pid))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode))
            unlink(p);
    }
    if (d)
        closedir(d);
}

static int is_reg(const char *dir, const char *name)
{
    char p[PATH_MAX + 300];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Must the documents be written straight into dir? When it is the working directory or
 * holds anything but regular files (a subdirectory, a symbolic link or device a document
 * is written through, which a switch would replace). */
static int direct_only(const char *dir)
{
    struct stat cwd, t;
    if (stat(".", &cwd) != 0 || stat(dir, &t) != 0 ||
        (cwd.st_dev == t.st_dev && cwd.st_ino == t.st_ino))
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 1;
    int direct = 0;
    struct dirent *de;
    while (!direct && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            !is_reg(dir, de->d_name))
            direct = 1;
    closedir(d);
    return direct;
}

td_status td_outdir_begin(td_outdir *o, const char *dir, td_err *e)
{
    memset(o, 0, sizeof *o);
    o->lock = -1;
    snprintf(o->target, sizeof o->target, "%s", dir);
    size_t l = strlen(o->target);
    while (l > 1 && o->target[l - 1] == '/')
        o->target[--l] = 0;
    for (int tries = 0;; tries++) {
        if (mkdir(o->target, 0777) != 0 && errno != EEXIST)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot create directory: %s", dir,
                           strerror(errno));
        int fd = open(o->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot open directory: %s", dir,
                           strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int err = errno;
            close(fd);
            if (err == EWOULDBLOCK)
                return td_fail(e, TD_E_BUSY, "%s: busy: another tracedoc run is writing "
                               "into this directory", dir);
            return td_fail(e, TD_E_OUTPUT, "%s: cannot lock: %s", dir, strerror(err));
        }
        /* the run that held the lock may have switched the directory meanwhile: the
         * lock must be on what the name is now */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(o->target, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            o->lock = fd;
            break;
        }
        close(fd);
        if (tries > 20)
            return td_fail(e, TD_E_BUSY, "%s: busy: the directory keeps changing", dir);
    }
    sweep_stale(o->target);
    o->inplace = direct_only(o->target);
    if (!o->inplace) {
        snprintf(o->stage, sizeof o->stage, "%s.tmp.%ld.d", o->target, (long)getpid());
        if (mkdir(o->stage, 0700) != 0)
            o->inplace = 1;
    }
    if (o->inplace)
        snprintf(o->stage, sizeof o->stage, "%s", o->target);
    return TD_OK;
}

/* Read the old manifest into a list (NULL when there is none). */
static char **old_manifest(const char *dir, size_t *n, char **text)
{
    char mpath[PATH_MAX + 32];
    snprintf(mpath, sizeof mpath, "%s/%s", dir, TD_MANIFEST);
    size_t tn = 0;
    td_err ignore = {0};
    *n = 0;
    *text = NULL;
    if (td_read_small_file(mpath, text, &tn, &ignore) != TD_OK)
        return NULL;
    char **v = NULL;
    size_t cap = 0;
    for (char *line = *text, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = 0;
        if (*line)
            *TD_PUSH(v, *n, cap) = line;
    }
    if (!v)
        v = td_xmalloc(sizeof *v); /* a manifest, empty */
    return v;
}

/* Is old file name (a regular file in the target) tracedoc's, to be dropped? Names with
 * a '/' or starting with '.' never are (a manifest edited by hand cannot reach out). */
static int ours(const char *name, char **man, size_t nman, int legacy)
{
    if (!name[0] || name[0] == '.' || strchr(name, '/'))
        return 0;
    if (man)
        return listed(man, nman, name);
    if (!legacy)
        return 0;
    static const char *const kinds[] = {"cpu", "device", "ops", "compile"};
    char k[64];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        snprintf(k, sizeof k, "flame-%s.svg", kinds[i]);
        if (!strcmp(k, name))
            return 1;
        snprintf(k, sizeof k, "%s.folded", kinds[i]);
        if (!strcmp(k, name))
            return 1;
    }
    return 0;
}

/* Carry the user's files over into the stage (hard links); 0 when one cannot be (a
 * subdirectory, another file system): then the switch is done in place. */
static int carry_over(const td_outdir *o, char *const *names, size_t n, char **man,
                      size_t nman, int legacy)
{
    DIR *d = opendir(o->target);
    if (!d)
        return 0;
    int ok = 1;
    struct dirent *de;
    char from[PATH_MAX + 300], to[PATH_MAX + 300];
    while (ok && (de = readdir(d))) {
        const char *x = de->d_name;
        if (!strcmp(x, ".") || !strcmp(x, "..") || !strcmp(x, TD_MANIFEST) ||
            listed(names, n, x))
            continue;
        if (is_reg(o->target, x) && ours(x, man, nman, legacy))
            continue;
        snprintf(from, sizeof from, "%s/%s", o->target, x);
        snprintf(to, sizeof to, "%s/%s", o->stage, x);
        if (linkat(AT_FDCWD, from, AT_FDCWD, to, 0) != 0) /* a symlink links as itself */
            ok = 0;
    }
    closedir(d);
    return ok;
}

static td_status write_manifest(const char *dir, char *const *names, size_t n, td_err *e)
{
    char mpath[PATH_MAX + 32];
    snprintf(mpath, sizeof mpath, "%s/%s", dir, TD_MANIFEST);
    td_buf b = {0};
    for (size_t i = 0; i < n; i++)
        td_buf_printf(&b, "%s\n", names[i]);
    td_status st = td_write_file_atomic(mpath, b.p ? b.p : "", b.n, e);
    td_buf_free(&b);
    return st;
}

static td_status in_place(td_outdir *o, char *const *names, size_t n, char **man, size_t nman,
                          int legacy, td_err *e)
{
    char from[PATH_MAX + 300], to[PATH_MAX + 300];
    for (size_t i = 0; !o->inplace && i < n; i++) {
        snprintf(from, sizeof from, "%s/%s", o->stage, names[i]);
        snprintf(to, sizeof to, "%s/%s", o->target, names[i]);
        if (rename(from, to) != 0 && errno != ENOENT)
            return td_fail(e, TD_E_OUTPUT, "%s: cannot write: %s", to, strerror(errno));
    }
    /* what an earlier run wrote and this one did not */
    DIR *d = opendir(o->target);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (!listed(names, n, de->d_name) && is_reg(o->target, de->d_name) &&
            ours(de->d_name, man, nman, legacy)) {
            snprintf(to, sizeof to, "%s/%s", o->target, de->d_name);
            unlink(to);
        }
    if (d)
        closedir(d);
    return write_manifest(o->target, names, n, e);
}

td_status td_outdir_commit(td_outdir *o, char *const *names, size_t n, td_err *e)
{
    char *text = NULL;
    size_t nman = 0;
    char **man = old_manifest(o->target, &nman, &text);
    int legacy = !man && (is_reg(o->target, "report.pdf") || is_reg(o->target, "report.xlsx") ||
                          is_reg(o->target, "summary.json"));
    td_status st = TD_OK;
    if (!o->inplace) {
        struct stat sb;
        if (stat(o->target, &sb) == 0)
            chmod(o->stage, sb.st_mode & 07777);
        if (carry_over(o, names, n, man, nman, legacy) &&
            (st = write_manifest(o->stage, names, n, e)) == TD_OK &&
            renameat2(AT_FDCWD, o->stage, AT_FDCWD, o->target, RENAME_EXCHANGE) == 0) {
            kill_at("switch");
            /* the stage's name now holds the old run */
            remove_stage(o->stage);
            o->stage[0] = 0;
            goto done;
        }
        if (st != TD_OK)
            goto done;
        /* no exchange: the files go in one by one; the links made are dropped again */
        DIR *d = opendir(o->stage);
        struct dirent *de;
        char p[PATH_MAX + 300];
        while (d && (de = readdir(d)))
            if (!listed(names, n, de->d_name) && strcmp(de->d_name, ".") &&
                strcmp(de->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", o->stage, de->d_name);
                unlink(p);
            }
        if (d)
            closedir(d);
    }
    st = in_place(o, names, n, man, nman, legacy, e);
done:
    free(man);
    free(text);
    return st;
}

void td_outdir_end(td_outdir *o)
{
    if (o->stage[0] && !o->inplace)
        remove_stage(o->stage);
    o->stage[0] = 0;
    if (o->lock >= 0)
        close(o->lock);
    o->lock = -1;
}
