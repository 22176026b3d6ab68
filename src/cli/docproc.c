/* cli/docproc.c - the documents of a report written by child processes (see
 * td_cli_write_documents in cli/internal.h).
 *
 * Two children share the rendering (the summary is read-only from here on): one writes
 * the workbook and the text outputs, the other the SVGs and the PDF, the costliest
 * document. A child that dies (pango or fontconfig under a memory limit abort or
 * crash: SIGTRAP, SIGSEGV) is a clean exit 5 with a message here, never the death of
 * tracedoc itself. What the children say on stderr comes here through a pipe and is said
 * with the `tracedoc: ` prefix (libxlsxwriter's `[ERROR]` lines, GLib's). If fork fails,
 * everything is written in this process. */
#define _GNU_SOURCE
#include "cli/internal.h"
#include "run/documents.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct kid {
    pid_t pid;
    int msg, err; /* read ends: its error message, its stderr */
    unsigned docs;
} kid;

static void doc_timing(void *ctx, const char *doc, int64_t ns)
{
    char what[64];
    snprintf(what, sizeof what, "render %s", doc);
    td_cli_timing(*(const int *)ctx, what, ns);
}

static void spawn(kid *k, const td_summary *s, const td_template *t, const td_render_opts *r,
                  const char *out, unsigned docs, int timings)
{
    int m[2], er[2];
    k->pid = -1;
    k->docs = docs;
    if (pipe(m) != 0)
        return;
    if (pipe(er) != 0) {
        close(m[0]);
        close(m[1]);
        return;
    }
    fcntl(er[0], F_SETPIPE_SZ, 1 << 20); /* read after the child ends: room for its say */
    fflush(stdout);
    fflush(stderr);
    k->pid = fork();
    if (k->pid == 0) {
        close(m[0]);
        close(er[0]);
        dup2(er[1], STDERR_FILENO);
        close(er[1]);
        td_err e = {0};
        td_status st = td_docs_write(s, t, r, out, docs, doc_timing, &timings, &e);
        if (st != TD_OK && write(m[1], e.msg, strnlen(e.msg, sizeof e.msg)) < 0)
            st = TD_E_INTERNAL;
        fflush(stderr);
        _exit(td_cli_exit_for(st)); /* no atexit handlers: the parent owns the cleanup */
    }
    close(m[1]);
    close(er[1]);
    if (k->pid < 0) {
        close(m[0]);
        close(er[0]);
        return;
    }
    k->msg = m[0];
    k->err = er[0];
}

/* The stage's name (cli/outdir.h) is the output directory's for the user. */
static const char *stage_dir, *shown_dir;

static void say(const char *msg)
{
    const char *at = stage_dir && *stage_dir ? strstr(msg, stage_dir) : NULL;
    if (!at || !strcmp(stage_dir, shown_dir)) {
        td_cli_say("%s", msg);
        return;
    }
    td_cli_say("%.*s%s%s", (int)(at - msg), msg, shown_dir, at + strlen(stage_dir));
}

/* Say what the child wrote on stderr, each line with our prefix. */
static void relay(int fd)
{
    static char buf[1 << 16];
    size_t n = 0;
    ssize_t k;
    while (n < sizeof buf - 1 && (k = read(fd, buf + n, sizeof buf - 1 - n)) != 0) {
        if (k < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        n += (size_t)k;
    }
    buf[n] = 0;
    for (char *line = buf, *nl; line && *line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = 0;
        if (!*line)
            continue;
        say(!strncmp(line, "tracedoc: ", 10) ? line + 10 : line);
    }
}

static int reap(kid *k, const char *other_msg)
{
    int status = 0;
    while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
        ;
    relay(k->err);
    close(k->err);
    char msg[sizeof ((td_err *)0)->msg];
    ssize_t n = read(k->msg, msg, sizeof msg - 1);
    close(k->msg);
    msg[n > 0 ? n : 0] = 0;
    if (n > 0 && (!other_msg || strcmp(msg, other_msg)))
        say(msg);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        td_cli_say("the renderer of the %s died (signal %d, %s): out of memory? (a memory "
                   "limit, ulimit -v, too low for it); the output directory is left as it was",
                   k->docs & (TD_DOC_PDF | TD_DOC_SVG) ? "PDF and SVG documents" : "documents",
                   sig, strsignal(sig));
        return TD_EXIT_INTERNAL;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : TD_EXIT_INTERNAL;
}

int td_cli_write_documents(const td_summary *s, const td_template *t, const td_render_opts *r,
                           const char *out, const char *shown, unsigned docs, int timings)
{
    stage_dir = out;
    shown_dir = shown;
    const unsigned graphic = TD_DOC_SVG | TD_DOC_PDF;
    kid k[2] = {{-1, -1, -1, 0}, {-1, -1, -1, 0}};
    unsigned left = docs;
    if (docs & ~graphic) {
        spawn(&k[0], s, t, r, out, docs & ~graphic, timings);
        if (k[0].pid > 0)
            left &= graphic;
    }
    if (left & graphic) {
        spawn(&k[1], s, t, r, out, left & graphic, timings);
        if (k[1].pid > 0)
            left &= ~graphic;
    }
    int code = TD_EXIT_OK;
    td_err e = {0};
    if (left) { /* what no child could take */
        td_status st = td_docs_write(s, t, r, out, left, doc_timing, &timings, &e);
        if (st != TD_OK) {
            say(e.msg);
            code = td_cli_exit_for(st);
        }
    }
    for (int i = 0; i < 2; i++)
        if (k[i].pid > 0) {
            int c = reap(&k[i], e.msg[0] ? e.msg : NULL);
            if (code == TD_EXIT_OK)
                code = c;
        }
    return code;
}
