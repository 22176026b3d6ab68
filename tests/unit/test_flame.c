/* test_flame.c - flamegraph layout on hand-made stacks; every expected x/w/depth/parent
 * below was worked out by hand from the stack values (x = value left of the frame within
 * its parent, plus the parent's x, over the total). */
#define _POSIX_C_SOURCE 200809L
#include "summary/flame.h"
#include "render/render.h"
#include "unit.h"
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct want {
    const char *name;
    int64_t value;
    double x, w;
    int depth, parent, pruned;
} want;

static void check_layout(const char *what, const td_flamelayout *l, const want *w, size_t n)
{
    CHECK_EQ_INT(l->n, n);
    if (l->n != n) {
        fprintf(stderr, "%s: got %zu frames:\n", what, l->n);
        for (size_t i = 0; i < l->n; i++)
            fprintf(stderr, "  %s %lld x=%g w=%g d=%d\n", l->f[i].name, (long long)l->f[i].value,
                    l->f[i].x, l->f[i].w, l->f[i].depth);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const td_frame *f = &l->f[i];
        CHECK_EQ_STR(f->name, w[i].name);
        CHECK_EQ_INT(f->value, w[i].value);
        CHECK(fabs(f->x - w[i].x) < 1e-12);
        CHECK(fabs(f->w - w[i].w) < 1e-12);
        CHECK_EQ_INT(f->depth, w[i].depth);
        CHECK_EQ_INT(f->parent, w[i].parent);
        CHECK_EQ_INT(f->pruned, w[i].pruned);
        if (w[i].pruned)
            CHECK_EQ_INT(f->color, 0xc0c0c0);
    }
}

static td_flame *flame_of(td_summary *s, const char *kind, const char *const *st,
                          const int64_t *v, size_t n)
{
    td_flame *fl = td_sum_flame(s, kind, kind);
    for (size_t i = 0; i < n; i++)
        td_flame_add(s, fl, st[i], v[i]);
    td_flame_finish(fl);
    return fl;
}

/* total 1000: idle 10, main 990 = compute 500 (matmul 400, relu 50, self 50)
 * + parse 450 (read_json 300, tokenize 150) + self 40 */
static const char *const st1[] = {"main;parse;read_json", "main;compute;matmul", "idle",
                                  "main;parse;tokenize", "main;compute;relu", "main;compute",
                                  "main"};
static const int64_t v1[] = {300, 400, 10, 150, 50, 50, 40};

static void test_basic(void)
{
    td_summary *s = td_summary_new();
    td_flame *fl = flame_of(s, "cpu", st1, v1, 7);
    td_flamelayout l;
    td_err e = {0};
    CHECK_EQ_INT(td_flame_layout(fl, 0.001, &l, &e), TD_OK);
    static const want w[] = {
        {"all", 1000, 0, 1, 0, -1, 0},
        {"idle", 10, 0, 0.01, 1, 0, 0},
        {"main", 990, 0.01, 0.99, 1, 0, 0},
        {"compute", 500, 0.01, 0.5, 2, 2, 0},
        {"matmul", 400, 0.01, 0.4, 3, 3, 0},
        {"relu", 50, 0.41, 0.05, 3, 3, 0},
        {"parse", 450, 0.51, 0.45, 2, 2, 0},
        {"read_json", 300, 0.51, 0.3, 3, 6, 0},
        {"tokenize", 150, 0.81, 0.15, 3, 6, 0},
    };
    check_layout("basic", &l, w, sizeof w / sizeof *w);
    CHECK_EQ_INT(l.total, 1000);
    CHECK_EQ_INT(l.maxdepth, 3);
    /* same name, same colour, wherever it appears */
    CHECK_EQ_INT(l.f[1].color, td_name_color("idle", "cpu"));
    td_flame_layout_free(&l);

    /* minwidth 0.1 (100 of 1000): idle (10) and relu (50) become grey frames, placed
     * after their kept siblings */
    CHECK_EQ_INT(td_flame_layout(fl, 0.1, &l, &e), TD_OK);
    static const want p[] = {
        {"all", 1000, 0, 1, 0, -1, 0},
        {"main", 990, 0, 0.99, 1, 0, 0},
        {"compute", 500, 0, 0.5, 2, 1, 0},
        {"matmul", 400, 0, 0.4, 3, 2, 0},
        {"(1 frame pruned)", 50, 0.4, 0.05, 3, 2, 1},
        {"parse", 450, 0.5, 0.45, 2, 1, 0},
        {"read_json", 300, 0.5, 0.3, 3, 5, 0},
        {"tokenize", 150, 0.8, 0.15, 3, 5, 0},
        {"(1 frame pruned)", 10, 0.99, 0.01, 1, 0, 1},
    };
    check_layout("pruned", &l, p, sizeof p / sizeof *p);
    td_flame_layout_free(&l);
    td_summary_free(s);
}

static void test_prune_many(void)
{
    static const char *const st[] = {"r;c", "r;a", "r;d", "r;b", "r;d;x"};
    static const int64_t v[] = {3, 1, 494, 2, 500};
    td_summary *s = td_summary_new();
    td_flame *fl = flame_of(s, "device", st, v, 5);
    td_flamelayout l;
    td_err e = {0};
    /* threshold 10 of 1000: a, b, c (1+2+3) merge into one frame of 6 */
    CHECK_EQ_INT(td_flame_layout(fl, 0.01, &l, &e), TD_OK);
    static const want w[] = {
        {"all", 1000, 0, 1, 0, -1, 0},
        {"r", 1000, 0, 1, 1, 0, 0},
        {"d", 994, 0, 0.994, 2, 1, 0},
        {"x", 500, 0, 0.5, 3, 2, 0},
        {"(3 frames pruned)", 6, 0.994, 0.006, 2, 1, 3},
    };
    check_layout("prune_many", &l, w, sizeof w / sizeof *w);
    td_flame_layout_free(&l);
    /* minwidth 0 keeps everything */
    CHECK_EQ_INT(td_flame_layout(fl, 0, &l, &e), TD_OK);
    CHECK_EQ_INT(l.n, 7);
    td_flame_layout_free(&l);
    td_summary_free(s);
}

/* Siblings by frame name, not by the sorted stack strings: "a b;x" sorts before "a;y"
 * as a line (' ' < ';') but frame "a" sorts before "a b". Empty names are frames too. */
static void test_order(void)
{
    static const char *const st[] = {"a b;x", "a;y", ";z"};
    static const int64_t v[] = {1, 1, 2};
    td_summary *s = td_summary_new();
    td_flame *fl = flame_of(s, "ops", st, v, 3);
    td_flamelayout l;
    td_err e = {0};
    CHECK_EQ_INT(td_flame_layout(fl, 0.001, &l, &e), TD_OK);
    static const want w[] = {
        {"all", 4, 0, 1, 0, -1, 0},
        {"", 2, 0, 0.5, 1, 0, 0},
        {"z", 2, 0, 0.5, 2, 1, 0},
        {"a", 1, 0.5, 0.25, 1, 0, 0},
        {"y", 1, 0.5, 0.25, 2, 3, 0},
        {"a b", 1, 0.75, 0.25, 1, 0, 0},
        {"x", 1, 0.75, 0.25, 2, 5, 0},
    };
    check_layout("order", &l, w, sizeof w / sizeof *w);
    td_flame_layout_free(&l);
    td_summary_free(s);
}

static void test_edges(void)
{
    td_summary *s = td_summary_new();
    td_flamelayout l;
    td_err e = {0};
    /* no stacks: just the root */
    td_flame *empty = td_sum_flame(s, "compile", "empty");
    CHECK_EQ_INT(td_flame_layout(empty, 0.001, &l, &e), TD_OK);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(l.total, 0);
    CHECK_EQ_INT(l.maxdepth, 0);
    td_flame_layout_free(&l);

    /* a very deep stack must not recurse */
    enum { DEEP = 200000 };
    char *deep = malloc(2 * DEEP);
    for (int i = 0; i < DEEP; i++) {
        deep[2 * i] = 'f';
        deep[2 * i + 1] = ';';
    }
    deep[2 * DEEP - 1] = 0;
    td_flame *fd = td_sum_flame(s, "cpu", "deep");
    td_flame_add(s, fd, deep, 7);
    td_flame_finish(fd);
    free(deep);
    CHECK_EQ_INT(td_flame_layout(fd, 0.001, &l, &e), TD_OK);
    CHECK_EQ_INT(l.n, DEEP + 1);
    CHECK_EQ_INT(l.maxdepth, DEEP);
    CHECK_EQ_INT(l.f[DEEP].parent, DEEP - 1);
    td_flame_layout_free(&l);

    /* a total beyond 64 bits is an error, not a wrap */
    td_flame *fo = td_sum_flame(s, "mem", "overflow");
    td_flame_add(s, fo, "a", INT64_MAX);
    td_flame_add(s, fo, "b", INT64_MAX);
    td_flame_finish(fo);
    CHECK_EQ_INT(td_flame_layout(fo, 0.001, &l, &e), TD_E_FORMAT);
    CHECK(strstr(e.msg, "overflow") != NULL);
    td_summary_free(s);
}

static void test_colors(void)
{
    char name[32];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "kernel_%d", i);
        uint32_t c = td_name_color(name, "cpu");
        CHECK_EQ_INT(c, td_name_color(name, "cpu"));
        unsigned r = c >> 16, g = (c >> 8) & 255, b = c & 255;
        CHECK(r >= 205 && g <= 210 && b <= 60); /* warm: red..orange..yellow */
        c = td_name_color(name, "device");
        r = c >> 16, g = (c >> 8) & 255, b = c & 255;
        CHECK(g >= 150 && g > r && g >= b); /* greens/teals */
        c = td_name_color(name, "ops");
        r = c >> 16, g = (c >> 8) & 255, b = c & 255;
        CHECK(b >= 205 && b > g && g > r); /* blues */
        c = td_name_color(name, "compile");
        r = c >> 16, g = (c >> 8) & 255, b = c & 255;
        CHECK(b > r && r > g); /* purples */
    }
    /* an unknown palette falls back to the warm one */
    CHECK_EQ_INT(td_name_color("x", "nope"), td_name_color("x", "cpu"));
    /* different names usually get different colours */
    CHECK(td_name_color("matmul", "cpu") != td_name_color("relu", "cpu"));
}

/* Names from traces (not folded files) can hold line breaks and control characters:
 * the SVG keeps one line break per tooltip (the script splits name and time on the last
 * one) and no raw control bytes. A failed write leaves nothing behind. */
static void test_render(void)
{
    td_summary *s = td_summary_new();
    td_flame *fl = td_sum_flame(s, "cpu", "Title\nwith break");
    td_flame_add(s, fl, "line\nbreak;cr\rtab\tctl\x01" "end", 5);
    td_flame_finish(fl);
    td_render_opts o = {0};
    o.minwidth = 0.001;
    o.epoch = 86400 * 365;
    char dir[] = "/tmp/td-test-flame-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/f.svg", dir);
    td_err e = {0};
    CHECK_EQ_INT(td_render_svg(s, fl, &o, path, &e), TD_OK);
    char *text = NULL;
    size_t n = 0;
    CHECK_EQ_INT(td_read_small_file(path, &text, &n, &e), TD_OK);
    if (text) {
        for (size_t i = 0; i < n; i++)
            CHECK(text[i] == '\n' || (unsigned char)text[i] >= 0x20);
        CHECK(strstr(text, "<title>line break\n5 ns, 100.00%</title>") != NULL);
        CHECK(strstr(text, "<title>cr tab ctl\xef\xbf\xbd" "end\n5 ns, 100.00%</title>") != NULL);
        CHECK(strstr(text, ">Title with break</text>") != NULL);
        CHECK(strstr(text, "1971-01-01") != NULL);
    }
    free(text);
    remove(path);
    snprintf(path, sizeof path, "%s/missing/f.svg", dir);
    CHECK_EQ_INT(td_render_svg(s, fl, &o, path, &e), TD_E_OUTPUT);
    CHECK(strstr(e.msg, path) != NULL);
    CHECK(rmdir(dir) == 0); /* empty: no temporary file left */
    td_summary_free(s);
}

int main(void)
{
    test_render();
    test_basic();
    test_prune_many();
    test_order();
    test_edges();
    test_colors();
    return UNIT_DONE();
}
