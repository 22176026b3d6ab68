/* cli/cli.c - command-line parsing and help from cli/main.c's command and option tables
 * (see cli/cli.h). With cli/main.c, the only code that prints usage messages; it returns
 * exit statuses (cli/exit.h), main() exits. */
#define _GNU_SOURCE
#include "cli/cli.h"
#include "base/util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const td_cli *cur;   /* the tables being parsed */
static int cur_cmd = -1;    /* the command row, once known */

static const char *prog_name(void)
{
    return cur && cur->prog ? cur->prog : "tracedoc";
}

static int usage(const char *fmt, va_list ap)
{
    td_buf b = {0};
    td_buf_printf(&b, "%s: ", prog_name());
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    td_buf_printf(&b, "%s\n", msg);
    if (cur && cur_cmd >= 0)
        td_buf_printf(&b, "Try '%s %s --help'.\n", prog_name(), cur->cmds[cur_cmd].name);
    else
        td_buf_printf(&b, "Try '%s --help'.\n", prog_name());
    fwrite(b.p, 1, b.n, stderr);
    fflush(stderr);
    td_buf_free(&b);
    return TD_EXIT_USAGE;
}

int td_cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = usage(fmt, ap);
    va_end(ap);
    return rc;
}

int td_cli_bad_value(const td_cli_opt *o, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return td_cli_usage_error("--%s: %s", o->name, msg);
}

int td_cli_set_str(void *ctx, const td_cli_opt *o, const char *arg)
{
    *(const char **)((char *)ctx + o->off) = arg;
    return TD_EXIT_OK;
}

int td_cli_set_flag(void *ctx, const td_cli_opt *o, const char *arg)
{
    (void)arg;
    *(int *)((char *)ctx + o->off) = 1;
    return TD_EXIT_OK;
}

int td_cli_set_fraction(void *ctx, const td_cli_opt *o, const char *arg)
{
    char *end;
    errno = 0;
    double d = strtod(arg, &end);
    if (errno || *end || end == arg || !(d >= 0 && d < 1))
        return td_cli_bad_value(o, "expected a fraction from 0 to 1, got '%s'", arg);
    *(double *)((char *)ctx + o->off) = d;
    return TD_EXIT_OK;
}

/* ---- help ---- */

static void opt_label(const td_cli_opt *o, char *dst, size_t cap)
{
    if (o->shortc)
        snprintf(dst, cap, "-%c, --%s%s%s", o->shortc, o->name, o->arg ? " " : "",
                 o->arg ? o->arg : "");
    else
        snprintf(dst, cap, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void print_opt(const td_cli_opt *o, FILE *f)
{
    char label[128];
    opt_label(o, label, sizeof label);
    fprintf(f, "  %-26s", label);
    if (strlen(label) > 25)
        fprintf(f, "\n  %-26s", "");
    for (const char *p = o->help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "  %-26s", "");
    }
    fputc('\n', f);
}

void td_cli_help(const td_cli *cl, int i, FILE *f)
{
    if (i < 0) {
        fprintf(f, "usage: %s COMMAND [OPTIONS] ARGS...\n\nCommands:\n", cl->prog);
        for (size_t k = 0; k < cl->ncmds; k++)
            fprintf(f, "  %s %s\n      %s\n", cl->cmds[k].name, cl->cmds[k].synopsis,
                    cl->cmds[k].summary);
        fprintf(f, "\n'%s COMMAND --help' lists the options of a command.\n"
                "  -h, --help                this help\n"
                "  --version                 print the version\n",
                cl->prog);
    } else {
        const td_cli_cmd *c = &cl->cmds[i];
        fprintf(f, "usage: %s %s %s\n\n%s\n", cl->prog, c->name, c->synopsis, c->summary);
        if (c->detail)
            fprintf(f, "\n%s\n", c->detail);
        fprintf(f, "\nOptions:\n");
        for (size_t k = 0; k < cl->nopts; k++)
            if (cl->opts[k].cmds & TD_CMD(i))
                print_opt(&cl->opts[k], f);
    }
    if (cl->epilogue)
        fprintf(f, "\n%s", cl->epilogue);
}

/* ---- suggestions ---- */

/* The closest of n names (stride bytes apart, a const char * at each) to s, or NULL when
 * none is close enough to be a likely misspelling. */
static const char *closest(const char *s, const void *base, size_t n, size_t stride,
                           const td_cli_opt *opts, int cmd)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    size_t ls = strlen(s);
    for (size_t k = 0; k < n; k++) {
        if (opts && cmd >= 0 && !(opts[k].cmds & TD_CMD(cmd)))
            continue;
        const char *name = *(const char *const *)((const char *)base + k * stride);
        size_t d = td_edit_distance(s, name);
        size_t ln = strlen(name);
        size_t lim = (ls > ln ? ls : ln) <= 4 ? 1 : 2;
        if (d <= lim && d < bestd) {
            best = name;
            bestd = d;
        }
    }
    return best;
}

static const char *suggest_opt(const char *name, int cmd)
{
    const char *s = closest(name, &cur->opts[0].name, cur->nopts, sizeof cur->opts[0], cur->opts,
                            cmd);
    return s;
}

/* ---- parsing ---- */

static void applies_list(const char *name, td_buf *b)
{
    for (size_t k = 0; k < cur->nopts; k++)
        if (!strcmp(cur->opts[k].name, name))
            for (size_t i = 0; i < cur->ncmds; i++)
                if (cur->opts[k].cmds & TD_CMD(i)) {
                    char needle[64];
                    snprintf(needle, sizeof needle, "%s", cur->cmds[i].name);
                    if (!b->n || !strstr(td_buf_cstr(b), needle))
                        td_buf_printf(b, "%s%s", b->n ? ", " : "", needle);
                }
}

/* The row for --name (len bytes) for command cmd: exact name, else a unique prefix among
 * the command's options. NULL, after saying why (*rc: the exit status), on unknown,
 * ambiguous and inapplicable options. */
static const td_cli_opt *find_long(const char *name, size_t len, int cmd, int *rc)
{
    char nm[128];
    snprintf(nm, sizeof nm, "%.*s", (int)(len < 120 ? len : 120), name);
    int exists = 0;
    for (size_t k = 0; k < cur->nopts; k++)
        if (strlen(cur->opts[k].name) == len && !memcmp(cur->opts[k].name, name, len)) {
            if (cur->opts[k].cmds & TD_CMD(cmd))
                return &cur->opts[k];
            exists = 1;
        }
    if (exists) {
        td_buf b = {0};
        applies_list(nm, &b);
        *rc = td_cli_usage_error("option '--%s' does not apply to '%s' (it applies to: %s)", nm,
                                 cur->cmds[cmd].name, td_buf_cstr(&b));
        td_buf_free(&b);
        return NULL;
    }
    const td_cli_opt *hit = NULL;
    int nhit = 0;
    for (size_t k = 0; k < cur->nopts; k++)
        if ((cur->opts[k].cmds & TD_CMD(cmd)) && strlen(cur->opts[k].name) > len &&
            !memcmp(cur->opts[k].name, name, len) && (!hit || strcmp(hit->name, cur->opts[k].name))) {
            hit = &cur->opts[k];
            nhit++;
        }
    if (nhit == 1 && len >= 2)
        return hit;
    if (nhit > 1) {
        td_buf b = {0};
        for (size_t k = 0; k < cur->nopts; k++)
            if ((cur->opts[k].cmds & TD_CMD(cmd)) && !strncmp(cur->opts[k].name, name, len))
                td_buf_printf(&b, "%s--%s", b.n ? ", " : "", cur->opts[k].name);
        *rc = td_cli_usage_error("option '--%s' is ambiguous (%s)", nm, td_buf_cstr(&b));
        td_buf_free(&b);
        return NULL;
    }
    const char *s = suggest_opt(nm, cmd);
    if (s)
        *rc = td_cli_usage_error("unrecognized option '--%s' (did you mean '--%s'?)", nm, s);
    else
        *rc = td_cli_usage_error("unrecognized option '--%s'", nm);
    return NULL;
}

static const td_cli_opt *find_short(int ch, int cmd, int *rc)
{
    int exists = 0;
    for (size_t k = 0; k < cur->nopts; k++)
        if (cur->opts[k].shortc == ch) {
            if (cur->opts[k].cmds & TD_CMD(cmd))
                return &cur->opts[k];
            exists = 1;
        }
    if (exists)
        *rc = td_cli_usage_error("option '-%c' does not apply to '%s'", ch, cur->cmds[cmd].name);
    else
        *rc = td_cli_usage_error("unrecognized option '-%c'", ch);
    return NULL;
}

/* Applies option o: TD_EXIT_OK to go on, else the exit status to stop with (after --help
 * and --version: DONE, which main() turns into 0). */
enum { DONE = -1 };
static int apply(const td_cli_opt *o, const char *arg, void *ctx, int cmd)
{
    if (!strcmp(o->name, "help")) {
        td_cli_help(cur, cmd, stdout);
        return DONE;
    }
    if (!strcmp(o->name, "version")) {
        printf("%s %s\n", cur->prog, cur->version);
        return DONE;
    }
    return o->set ? o->set(ctx, o, arg) : TD_EXIT_OK;
}

int td_cli_main(const td_cli *cl, int argc, char **argv, void *ctx)
{
    cur = cl;
    cur_cmd = -1;
    if (argc < 2) {
        td_cli_help(cl, -1, stderr);
        return TD_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        int i = -1;
        if (argc > 2 && strcmp(name, "help") == 0)
            for (size_t k = 0; k < cl->ncmds; k++)
                if (!strcmp(cl->cmds[k].name, argv[2]))
                    i = (int)k;
        td_cli_help(cl, i, stdout);
        return TD_EXIT_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("%s %s\n", cl->prog, cl->version);
        return TD_EXIT_OK;
    }
    int cmd = -1;
    for (size_t k = 0; k < cl->ncmds; k++)
        if (!strcmp(cl->cmds[k].name, name))
            cmd = (int)k;
    if (cmd < 0) {
        td_buf b = {0};
        for (size_t k = 0; k < cl->ncmds; k++)
            td_buf_printf(&b, "%s%s", k ? ", " : "", cl->cmds[k].name);
        const char *s = name[0] == '-' ? NULL
                                       : closest(name, &cl->cmds[0].name, cl->ncmds,
                                                 sizeof cl->cmds[0], NULL, -1);
        int rc = s ? td_cli_usage_error("unknown command '%s' (did you mean '%s'?)", name, s)
                   : td_cli_usage_error("unknown command '%s' (expected %s)", name,
                                        td_buf_cstr(&b));
        td_buf_free(&b);
        return rc;
    }
    cur_cmd = cmd;
    /* Positional arguments are gathered at the front of argv + 2 (already read slots only). */
    char **args = argv + 2;
    int nargs = 0, only_args = 0;
    for (int i = 2; i < argc; i++) {
        char *a = argv[i];
        if (only_args || a[0] != '-' || a[1] == 0) {
            args[nargs++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            only_args = 1;
            continue;
        }
        const td_cli_opt *o;
        const char *val = NULL;
        int rc = TD_EXIT_OK;
        if (a[1] == '-') {
            const char *nm = a + 2, *eq = strchr(nm, '=');
            size_t len = eq ? (size_t)(eq - nm) : strlen(nm);
            if (!(o = find_long(nm, len, cmd, &rc)))
                return rc;
            if (eq && !o->arg)
                return td_cli_usage_error("option '--%s' takes no value", o->name);
            if (eq)
                val = eq + 1;
        } else {
            if (!(o = find_short((unsigned char)a[1], cmd, &rc)))
                return rc;
            if (a[2]) {
                if (!o->arg)
                    return td_cli_usage_error("unrecognized option '%s'", a);
                val = a + 2;
            }
        }
        if (o->arg && !val) {
            if (i + 1 >= argc)
                return td_cli_usage_error("option '--%s' needs a value (%s)", o->name, o->arg);
            val = argv[++i];
        }
        if ((rc = apply(o, val, ctx, cmd)) != TD_EXIT_OK)
            return rc == DONE ? TD_EXIT_OK : rc;
    }
    const td_cli_cmd *c = &cl->cmds[cmd];
    if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
        return td_cli_usage_error("%s: expected %s (got %d argument%s)", c->name, c->args_help,
                                  nargs, nargs == 1 ? "" : "s");
    return c->run(ctx, args, nargs);
}
