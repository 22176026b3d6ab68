/* Folded-stack input of `flame`, then the flamegraph layout and SVG; and the same bytes as
 * a file read in chunks on two threads (TD_SPLIT_MIN=1, chunks of 1-16 bytes by the first
 * byte: src/read/folded.c), whose tree, status and message must be those of the reading
 * in order (a difference traps). */
#include "fuzz.h"
#include "read/folded.h"
#include "render/render.h"
#include "summary/flame.h"

/* The tree as folded text (malloc'd; NULL when it cannot be written). */
static char *folded_text(const td_flame *fl)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    td_err e = {0};
    td_flametree_write_folded(fl->tree, fl->diff, fl->unit ? fl->unit : 1, f, &e);
    fclose(f);
    return buf;
}

/* The message after its "NAME: " (the two readings name the input differently). */
static const char *after_name(const char *msg, const char *name)
{
    size_t l = strlen(name);
    return strncmp(msg, name, l) == 0 && msg[l] == ':' ? msg + l : msg;
}

static void in_halves(const uint8_t *data, size_t size, td_status st, const td_err *e,
                      const td_flame *fl)
{
    char *path = fuzz_file(data, size, ".folded");
    if (!path)
        return;
    setenv("TD_SPLIT_MIN", "1", 1);
    char chunk[8];
    snprintf(chunk, sizeof chunk, "%d", size ? data[0] % 16 + 1 : 1);
    setenv("TD_SPLIT_CHUNK", chunk, 1);
    td_summary *s2 = NULL;
    td_flame *fl2 = NULL;
    td_err e2 = {0};
    td_status st2 = td_folded_try_read(path, "cpu", &s2, &fl2, NULL, &e2);
    unlink(path);
    /* not taken for folded stacks (a trace, say), or gzipped (decoded from the file,
     * not from memory): nothing to compare */
    if ((st2 == TD_OK && !s2) || (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) {
        td_summary_free(s2);
        free(path);
        return;
    }
    if (st2 != st)
        __builtin_trap();
    if (st != TD_OK) {
        if (strcmp(after_name(e->msg, "fuzz.folded"), after_name(e2.msg, path)) != 0)
            __builtin_trap();
    } else {
        char *a = folded_text(fl), *b = folded_text(fl2);
        if (a && b && (strcmp(a, b) != 0 || fl->unit != fl2->unit || fl->diff != fl2->diff)) {
            if (getenv("FUZZ_SHOW")) /* FUZZ_SHOW=1 HARNESS FINDING: the two trees */
                fprintf(stderr, "in memory:\n%s\nfrom the file:\n%s\nunits %lld %lld, diff %d %d\n",
                        a, b, (long long)fl->unit, (long long)fl2->unit, fl->diff, fl2->diff);
            __builtin_trap();
        }
        free(a);
        free(b);
    }
    td_summary_free(s2);
    free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    td_summary *s = td_summary_new();
    td_flame *fl = td_sum_flame(s, "cpu", "fuzz");
    td_err e = {0};
    td_status st = td_folded_parse("fuzz.folded", text, size, s, fl, &e);
    if (st == TD_OK) {
        td_render_opts r;
        memset(&r, 0, sizeof r);
        r.paper = "a4";
        r.minwidth = 0.001;
        r.version = "fuzz";
        td_render_svg(s, fl, &r, "/dev/null", &e);
    }
    in_halves(data, size, st, &e, fl);
    td_summary_free(s);
    free(text);
    return 0;
}
