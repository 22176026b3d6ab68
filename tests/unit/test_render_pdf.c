/* PDF renderer: renders the fixture summary with every template in templates/.
 * Without arguments: unit checks (valid file, deterministic bytes, paper size, no
 * partial file on failure, empty summary, long tables across pages).
 * With "--write DIR": writes DIR/<template>.pdf (+ nightly-letter.pdf, empty.pdf,
 * long.pdf) for tests/cases/pdf_*.sh, which check them with poppler and qpdf. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"
#include "render/render.h"
#include "summary/template.h"
#include "unit.h"
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *templates[] = {"bug-report", "manager", "nightly", NULL};

static td_render_opts opts(const char *paper, const char *fontdir)
{
    td_render_opts o;
    memset(&o, 0, sizeof o);
    o.paper = paper;
    o.epoch = 1700000000;
    o.minwidth = 0.001;
    o.version = "0.1.0";
    o.fontdir = fontdir;
    return o;
}

/* binary-safe search */
static int has(const char *a, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; a && i + k <= n; i++)
        if (memcmp(a + i, needle, k) == 0)
            return 1;
    return 0;
}

static char *slurp(const char *path, size_t *n)
{
    char *p = NULL;
    td_err e = {0};
    if (td_read_small_file(path, &p, n, &e) != TD_OK)
        return NULL;
    return p;
}

/* A summary with a long table (page breaks, header repeated) and many warnings. */
static td_summary *long_summary(void)
{
    td_summary *s = fixture_summary();
    td_table *t = td_sum_table(s, "kernels", "Kernels");
    for (int k = 0; k < 150; k++) {
        size_t i = td_table_add_row(t);
        char nm[64];
        snprintf(nm, sizeof nm, "generated_kernel_%03d", k);
        td_row_str(s, t, i, "name", nm);
        td_row_int(s, t, i, "calls", k + 1);
        td_row_int(s, t, i, "total_ns", 1000 * (k + 1));
    }
    /* 300 steps on rank 0 (the first 3 warm-up), a few on rank 1 */
    t = td_sum_table(s, "steps", "Steps");
    for (int k = 0; k < 310; k++) {
        size_t i = td_table_add_row(t);
        td_row_int(s, t, i, "rank", k < 300 ? 0 : 1);
        td_row_int(s, t, i, "step", k + 1);
        td_row_int(s, t, i, "wall_ns", k < 3 ? 900000000LL : 280000000LL + (k * 7919 % 97) * 300000LL);
        td_row_int(s, t, i, "warmup", k < 3);
    }
    /* a regression against a baseline, as compare/baseline.c lays it out */
    td_sum_set_str(s, "regression.baseline", "Baseline", "nightly-2023-11-13/summary.json");
    td_sum_set_f64(s, "regression.tolerance", "Tolerance", TD_T_SHARE, 0.05);
    td_sum_set_int(s, "regression.regressed", "Regressed metrics", TD_T_INT, 1);
    t = td_sum_table(s, "regression.metrics", "Regression against the baseline");
    td_table_cols(t, "metric:text:Metric", "name:text:Name", "unit:text:Unit",
                  "base:f64:Baseline", "current:f64:Current", "change:share:Change",
                  "status:text:Status", NULL);
    static const struct { const char *m, *n, *u; double b, c; const char *st; } rg[] = {
        {"step time (median, steady)", "", "ns", 290000000, 331000000, "regressed"},
        {"GPU idle share", "", "fraction", 0.31, 0.29, "improved"},
        {"kernel mean", FIXTURE_HOSTILE, "ns", 7000000, 7010000, "same"}};
    for (size_t k = 0; k < sizeof rg / sizeof rg[0]; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "metric", rg[k].m);
        td_row_str(s, t, i, "name", rg[k].n);
        td_row_str(s, t, i, "unit", rg[k].u);
        td_row_f64(s, t, i, "base", rg[k].b);
        td_row_f64(s, t, i, "current", rg[k].c);
        td_row_f64(s, t, i, "change", (rg[k].c - rg[k].b) / rg[k].b);
        td_row_str(s, t, i, "status", rg[k].st);
    }
    for (int k = 0; k < 30; k++) {
        char w[64];
        snprintf(w, sizeof w, "warning number %d", k);
        td_sum_warning(s, w);
    }
    return s;
}

#define LONG_TDT "[pdf]\nsection header\nsection regression\nsection steps\n" \
    "section table kernels threshold=0.15 title=\"Kernels above 15%\"\n" \
    "section table kernels top=1000\nsection warnings\n"

/* Hostile everything: title with PDF string delimiters, invalid UTF-8, a huge name,
 * NaN shares, missing numbers, zero totals. */
#define HOSTILE_TDT "title = Evil ) \\ ( <b>x</b> %s {{inputs_label}}\n" \
    "subtitle = {{no.such.key}} {{date}}\n[pdf]\nsection header\nsection findings\n" \
    "section keyfigures\nsection breakdown\nsection steps\nsection table kernels top=5\n" \
    "section table ops\nsection collectives\nsection variability\nsection flame device\n" \
    "section warnings\nsection pagebreak\nsection pagebreak\nsection table nope\n"

static td_summary *hostile_summary(void)
{
    td_summary *s = td_summary_new();
    td_sum_set_str(s, "inputs_label", "Input", FIXTURE_HOSTILE " bad\xff\xfe utf8");
    td_sum_set_int(s, "trace.span_ns", "Traced time", TD_T_NS, TD_NA);
    td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, 0);
    td_sum_set_str(s, "trace.device_name", "Device", FIXTURE_HOSTILE);
    char *huge = malloc(20001);
    for (int i = 0; i < 20000; i++)
        huge[i] = "ab(c)\\<&>"[i % 9];
    huge[20000] = 0;
    td_table *t = td_sum_table(s, "kernels", "Kernels");
    td_table_cols(t, "name:text:Kernel", "calls:int:Calls", "total_ns:ns:Total",
                  "share:share:Share", NULL);
    const char *names[] = {huge, "bad\xc3\x28utf8\xe2\x82", "rtl\xe2\x80\xaetxt.exe", NULL};
    for (int k = 0; k < 4; k++) {
        size_t i = td_table_add_row(t);
        td_row_str(s, t, i, "name", names[k]);
        td_row_int(s, t, i, "calls", k ? TD_NA : 1);
        td_row_f64(s, t, i, "share", k == 1 ? NAN : k == 2 ? -0.5 : 7.0);
    }
    t = td_sum_table(s, "gpu_timeline", "GPU timeline");
    td_table_cols(t, "rank:int:Rank", "device:device:Device", "scope:text:Scope",
                  "computation_ns:ns:Computation", "idle_ns:ns:Idle", "total_ns:ns:Total", NULL);
    size_t i = td_table_add_row(t);
    td_row_int(s, t, i, "device", -1);
    td_row_int(s, t, i, "total_ns", 0);
    t = td_sum_table(s, "steps", "Steps");
    td_table_cols(t, "rank:int:Rank", "step:int:Step", "wall_ns:ns:Wall", "warmup:bool:Warm-up",
                  NULL);
    for (int k = 0; k < 3; k++) {
        i = td_table_add_row(t);
        td_row_int(s, t, i, "wall_ns", k == 1 ? TD_NA : 0);
        td_row_int(s, t, i, "warmup", 1);
    }
    t = td_sum_table(s, "collectives", "Collectives");
    td_table_cols(t, "name:text:Collective", "bytes:bytes:Size", "busbw_gbps:gbps:Bus BW", NULL);
    i = td_table_add_row(t);
    td_row_str(s, t, i, "name", huge);
    td_row_int(s, t, i, "bytes", 1);
    td_row_f64(s, t, i, "busbw_gbps", INFINITY);
    t = td_sum_table(s, "variability", "Variability");
    td_table_cols(t, "name:text:Kernel", "mean_ns:ns:Mean", "cov:f64:CoV", NULL);
    i = td_table_add_row(t);
    td_row_int(s, t, i, "mean_ns", 5);
    td_row_f64(s, t, i, "cov", 0);
    td_flame *f = td_sum_flame(s, "device", FIXTURE_HOSTILE);
    td_flame_add(s, f, huge, 10);
    td_flame_add(s, f, "a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f;g;h;i;j;k;"
                 "l;m;n;o;p;q;r;s;t;u;v;w;x;y;z;a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q", 1000);
    td_flame_finish(f);
    td_sum_finding(s, "%s", huge);
    td_sum_warning(s, FIXTURE_HOSTILE);
    free(huge);
    return s;
}

static int render_hostile(const char *out, td_err *e)
{
    char tdt[2048];
    snprintf(tdt, sizeof tdt, HOSTILE_TDT, FIXTURE_HOSTILE);
    /* the template format is line based: keep the hostile newline out of the title */
    char *nl = strstr(tdt, "\n tab");
    if (nl)
        *nl = ' ';
    td_template *t = NULL;
    if (td_template_parse("hostile.tdt", tdt, &t, e) != TD_OK)
        return -1;
    td_summary *s = hostile_summary();
    td_render_opts o = opts("letter", "fonts");
    int st = td_render_pdf(s, t, &o, out, e);
    td_summary_free(s);
    td_template_free(t);
    return st;
}

/* An XLA set as analyse/xla/xla.c leaves it: no gpu_timeline, the runtime.* totals (busy
 * 900 ms + idle inside 100 ms + idle between 400 ms = wall 1400 ms over 2 devices), and
 * eight inputs whose names make a title longer than two lines. */
static td_summary *xla_summary(void)
{
    td_summary *s = td_summary_new();
    td_sum_set_str(s, "inputs_label", "Input",
                   "pax_fsdp4_8proc_process_number_0.zip, pax_fsdp4_8proc_process_number_1.zip, "
                   "pax_fsdp4_8proc_process_number_2.zip, pax_fsdp4_8proc_process_number_3.zip, "
                   "pax_fsdp4_8proc_process_number_4.zip, pax_fsdp4_8proc_process_number_5.zip, "
                   "pax_fsdp4_8proc_process_number_6.zip, pax_fsdp4_8proc_process_number_7.zip");
    td_sum_set_int(s, "trace.devices", "Devices", TD_T_INT, 2);
    td_sum_set_int(s, "runtime.thunks_ns", "Thunk GPU time", TD_T_NS, 1100000000LL);
    td_sum_set_int(s, "runtime.modules_ns", "Module GPU time", TD_T_NS, 1000000000LL);
    td_sum_set_int(s, "runtime.wall_ns", "Wall time (sum over devices)", TD_T_NS, 1400000000LL);
    td_sum_set_int(s, "runtime.idle_in_modules_ns", "GPU idle inside modules", TD_T_NS,
                   100000000LL);
    td_sum_set_int(s, "runtime.idle_between_modules_ns", "GPU idle between modules", TD_T_NS,
                   400000000LL);
    td_sum_set_int(s, "runtime.busy_in_modules_ns", "GPU busy inside modules", TD_T_NS,
                   900000000LL);
    /* six inputs: page 1 lists them one line each with the SHA-256 */
    td_table *t = td_sum_table(s, "inputs", "Inputs");
    td_table_cols(t, "path:text:Path", "format:text:Format", "bytes:bytes:Size",
                  "sha256:text:SHA-256", "events:int:Events", "rank:int:Rank",
                  "world_size:int:World size", "device_name:text:Device", NULL);
    for (int k = 0; k < 6; k++) {
        size_t i = td_table_add_row(t);
        char path[96], sha[65];
        snprintf(path, sizeof path, "traces/pax_fsdp4_8proc_process_number_%d.zip", k);
        for (int j = 0; j < 64; j++)
            sha[j] = "0123456789abcdef"[(k * 7 + j * 3) % 16];
        sha[64] = 0;
        td_row_str(s, t, i, "path", path);
        td_row_str(s, t, i, "format", "nsys-jax");
        td_row_int(s, t, i, "bytes", 1000000 + k);
        td_row_str(s, t, i, "sha256", sha);
        td_row_int(s, t, i, "events", 40000 + k);
        td_row_int(s, t, i, "rank", k);
        td_row_int(s, t, i, "world_size", 8);
        td_row_str(s, t, i, "device_name", "NVIDIA A100-SXM4-40GB");
    }
    return s;
}

#define XLA_TDT "title = Nightly performance: {{inputs_label}}\n[pdf]\nsection header\n" \
    "section keyfigures\nsection breakdown\n"

/* Tables of 54..62 rows, each alone from the top of a page: at some length the rows
 * fill the page and the note under them ("Top N of M rows") would start the next page
 * alone. */
#define ORPHAN_TDT "[pdf]\nsection table kernels top=54\nsection pagebreak\n" \
    "section table kernels top=55\nsection pagebreak\nsection table kernels top=56\n" \
    "section pagebreak\nsection table kernels top=57\nsection pagebreak\n" \
    "section table kernels top=58\nsection pagebreak\nsection table kernels top=59\n" \
    "section pagebreak\nsection table kernels top=60\nsection pagebreak\n" \
    "section table kernels top=61\nsection pagebreak\nsection table kernels top=62\n"

static int render(const td_summary *s, const char *tname, const char *paper, const char *out,
                  td_err *e)
{
    td_template *t = NULL;
    if (tname && strcmp(tname, "long") == 0) {
        if (td_template_parse("long.tdt", LONG_TDT, &t, e) != TD_OK)
            return -1;
    } else if (tname && strcmp(tname, "xla") == 0) {
        if (td_template_parse("xla.tdt", XLA_TDT, &t, e) != TD_OK)
            return -1;
    } else if (tname && strcmp(tname, "orphan") == 0) {
        if (td_template_parse("orphan.tdt", ORPHAN_TDT, &t, e) != TD_OK)
            return -1;
    } else if (tname && td_template_load(tname, "templates", &t, e) != TD_OK)
        return -1;
    td_render_opts o = opts(paper, "fonts");
    int st = td_render_pdf(s, t, &o, out, e);
    td_template_free(t);
    return st;
}

static int write_all(const char *dir)
{
    td_summary *s = fixture_summary();
    char path[1024];
    td_err e = {0};
    int bad = 0;
    for (const char **t = templates; *t; t++) {
        snprintf(path, sizeof path, "%s/%s.pdf", dir, *t);
        if (render(s, *t, "a4", path, &e) != TD_OK) {
            fprintf(stderr, "%s: %s\n", path, e.msg);
            bad = 1;
        }
    }
    snprintf(path, sizeof path, "%s/nightly-letter.pdf", dir);
    bad |= render(s, "nightly", "letter", path, &e) != TD_OK;
    td_summary_free(s);
    s = td_summary_new();
    snprintf(path, sizeof path, "%s/empty.pdf", dir);
    bad |= render(s, "nightly", "a4", path, &e) != TD_OK;
    td_summary_free(s);
    s = long_summary();
    snprintf(path, sizeof path, "%s/long.pdf", dir);
    bad |= render(s, "long", "a4", path, &e) != TD_OK;
    snprintf(path, sizeof path, "%s/orphan.pdf", dir);
    bad |= render(s, "orphan", "a4", path, &e) != TD_OK;
    td_summary_free(s);
    s = xla_summary();
    snprintf(path, sizeof path, "%s/xla.pdf", dir);
    bad |= render(s, "xla", "a4", path, &e) != TD_OK;
    td_summary_free(s);
    snprintf(path, sizeof path, "%s/hostile.pdf", dir);
    bad |= render_hostile(path, &e) != TD_OK;
    return bad;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.')
            n++;
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_all(argv[2]);
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/td-test-pdf.%ld", (long)getpid());
    mkdir(dir, 0755);
    td_summary *s = fixture_summary();
    td_err e = {0};
    char p1[512], p2[512];
    for (const char **t = templates; *t; t++) {
        snprintf(p1, sizeof p1, "%s/%s.pdf", dir, *t);
        snprintf(p2, sizeof p2, "%s/%s-2.pdf", dir, *t);
        CHECK_EQ_INT(render(s, *t, "a4", p1, &e), TD_OK);
        CHECK_EQ_INT(render(s, *t, "a4", p2, &e), TD_OK);
        size_t n1 = 0, n2 = 0;
        char *a = slurp(p1, &n1), *b = slurp(p2, &n2);
        CHECK(a && n1 > 1000 && memcmp(a, "%PDF-1.", 7) == 0);
        CHECK(a && n1 > 6 && memcmp(a + n1 - 6, "%%EOF\n", 6) == 0);
        CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0); /* deterministic */
        CHECK(has(a, n1, "/MediaBox [ 0 0 595.2756 841.8898 ]"));
        CHECK(has(a, n1, "/Creator (tracedoc 0.1.0)"));
        /* cairo 1.16 writes the date without the "D:" prefix */
        CHECK(has(a, n1, "/CreationDate (20231114221320Z)"));
        free(a);
        free(b);
        unlink(p2);
    }
    /* letter paper */
    snprintf(p1, sizeof p1, "%s/letter.pdf", dir);
    CHECK_EQ_INT(render(s, "nightly", "letter", p1, &e), TD_OK);
    size_t n = 0;
    char *a = slurp(p1, &n);
    CHECK(has(a, n, "/MediaBox [ 0 0 612 792 ]"));
    free(a);
    /* no template: default sections */
    snprintf(p1, sizeof p1, "%s/default.pdf", dir);
    CHECK_EQ_INT(render(s, NULL, "a4", p1, &e), TD_OK);
    /* only the finished files are left: no temporary names */
    CHECK_EQ_INT(count_files(dir), 5);
    /* failures leave nothing behind */
    snprintf(p1, sizeof p1, "%s/no-such-dir/x.pdf", dir);
    CHECK_EQ_INT(render(s, "manager", "a4", p1, &e), TD_E_OUTPUT);
    CHECK(strstr(e.msg, "no-such-dir/x.pdf") != NULL);
    snprintf(p1, sizeof p1, "%s/nofonts.pdf", dir);
    td_render_opts o = opts("a4", "/nonexistent-fonts");
    CHECK(td_render_pdf(s, NULL, &o, p1, &e) != TD_OK);
    CHECK(strstr(e.msg, "/nonexistent-fonts") != NULL);
    CHECK(access(p1, F_OK) != 0);
    CHECK_EQ_INT(count_files(dir), 5);
    td_summary_free(s);
    /* an empty summary and a long one */
    s = td_summary_new();
    snprintf(p1, sizeof p1, "%s/empty.pdf", dir);
    CHECK_EQ_INT(render(s, "nightly", "a4", p1, &e), TD_OK);
    td_summary_free(s);
    s = long_summary();
    snprintf(p1, sizeof p1, "%s/long.pdf", dir);
    CHECK_EQ_INT(render(s, "long", "a4", p1, &e), TD_OK);
    a = slurp(p1, &n);
    CHECK(has(a, n, "/Count 4"));
    free(a);
    td_summary_free(s);
    snprintf(p1, sizeof p1, "%s/hostile.pdf", dir);
    CHECK_EQ_INT(render_hostile(p1, &e), TD_OK);

    /* clean up */
    DIR *dd = opendir(dir);
    struct dirent *de;
    while (dd && (de = readdir(dd))) {
        if (de->d_name[0] == '.')
            continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (dd)
        closedir(dd);
    rmdir(dir);
    return UNIT_DONE();
}
