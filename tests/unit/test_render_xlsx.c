/* Workbook renderer: renders the fixture summary with every template in templates/ and
 * a hostile one (bad sheet titles, huge and malformed names, NaN, missing values),
 * checks the status, the atomic write (no temporary file left, nothing written on
 * failure) and that two runs give the same bytes. The cell contents are checked by
 * tests/cases/xlsx_*.sh (openpyxl, LibreOffice), which call this program with
 * "--write DIR" to get the workbooks. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"
#include "render/render.h"
#include "unit.h"
#include <dirent.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const templates[] = {"bug-report", "manager", "nightly", NULL};

static const char hostile_tdt[] =
    "title = Hostile {{inputs_label}} =SUM(1)\n"
    "subtitle = @{{date}}\n"
    "documents = xlsx\n"
    "[xlsx]\n"
    "section summary title=\"Sum:mary/[1]*?\"\n"
    "section regression\n"
    "section table kernels title=\"'Kernels'\"\n"
    "section table kernels title=\"kernels\"\n"
    "section table ops title=\"A very long sheet title that is longer than 31 characters\"\n"
    "section table ops title=\"A very long sheet title that is longer than 31 characters\"\n"
    "section table hostile title=\"History\"\n"
    "section table nothing title=\"Missing\"\n"
    "section table steps top=3 title=\"Step's times\"\n"
    "section table gpu_timeline\n";

/* The fixture plus a table of names no writer should trust and a regression table. */
static td_summary *hostile_summary(void)
{
    td_summary *s = fixture_summary();
    td_table *t = td_sum_table(s, "hostile", "Hostile names");
    td_table_cols(t, "name:text:Name", "calls:int:Calls", "total_ns:ns:Total",
                  "share:share:Share", "cov:f64:CoV", "device:device:Device",
                  "flag:bool:Flag", NULL);
    size_t big = 40000;
    char *huge = malloc(big + 1);
    for (size_t i = 0; i < big; i++)
        huge[i] = (char)('a' + i % 26);
    huge[big] = 0;
    const char *names[] = {"=1+1", "+A1", "-2", "@SUM(A1)", "ctl\x01\x02\x1f\x7f end",
                           "bad utf8 \xff\xfe \xc3( \xed\xa0\x80 end", "",
                           "_x0041_ literal", "\xe2\x82\xac euro, \xf0\x9f\x94\xa5 fire",
                           huge, NULL};
    for (int k = 0; k < 11; k++) {
        size_t r = td_table_add_row(t);
        td_row_str(s, t, r, "name", names[k]);
        td_row_int(s, t, r, "calls", k == 3 ? TD_NA : k);
        td_row_int(s, t, r, "total_ns", k == 4 ? TD_NA : (int64_t)k * 1234567);
        td_row_f64(s, t, r, "share", k == 5 ? NAN : k / 10.0);
        td_row_f64(s, t, r, "cov", k == 6 ? INFINITY : k * 0.5);
        td_row_int(s, t, r, "device", k - 1);
        td_row_int(s, t, r, "flag", k % 2);
    }
    free(huge);
    t = td_sum_table(s, "regression.metrics", "Regression against the baseline");
    td_table_cols(t, "metric:text:Metric", "name:text:Name", "unit:text:Unit",
                  "base:f64:Baseline", "current:f64:Current", "change:share:Change",
                  "status:text:Status", NULL);
    size_t r = td_table_add_row(t);
    td_row_str(s, t, r, "metric", "step time (median, steady)");
    td_row_str(s, t, r, "unit", "ns");
    td_row_f64(s, t, r, "base", 290000000);
    td_row_f64(s, t, r, "current", 310000000);
    td_row_f64(s, t, r, "change", 0.069);
    td_row_str(s, t, r, "status", "regressed");
    td_sum_set_f64(s, "regression.tolerance", "Regression tolerance", TD_T_SHARE, 0.05);
    td_sum_set_int(s, "regression.regressed", "Regressed metrics", TD_T_INT, 1);
    td_sum_set_str(s, "inputs_label", "Input", "bad\x01name\xff.json");
    td_sum_finding(s, "=HYPERLINK(\"http://x\") is a finding that starts with '='.");
    return s;
}

static td_render_opts opts(void)
{
    td_render_opts o = {0};
    o.epoch = 1700000000;
    o.version = "0.1.0";
    return o;
}

static char *slurp(const char *path, size_t *n)
{
    char *d = NULL;
    td_err e = {0};
    if (td_read_small_file(path, &d, n, &e) != TD_OK)
        return NULL;
    return d;
}

/* Number of entries in dir besides . and .. */
static int count_dir(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static td_status render(td_summary *s, const char *tname, const char *tdt, const char *path,
                        td_err *e)
{
    td_template *t = NULL;
    td_status st = tdt ? td_template_parse("hostile.tdt", tdt, &t, e)
                       : td_template_load(tname, "templates", &t, e);
    if (st != TD_OK)
        return st;
    td_render_opts o = opts();
    st = td_render_xlsx(s, t, &o, path, e);
    td_template_free(t);
    return st;
}

/* An XLA set as analyse/xla/xla.c leaves it: no gpu_timeline, the runtime.* totals (busy
 * 900 ms + idle inside 100 ms + idle between 400 ms = wall 1400 ms). */
static td_summary *xla_summary(void)
{
    td_summary *s = td_summary_new();
    td_sum_set_str(s, "inputs_label", "Input", "pax_proc0.zip, pax_proc1.zip");
    td_sum_set_str(s, "date", "Date", "2023-11-14");
    td_sum_set_int(s, "runtime.thunks_ns", "Thunk GPU time", TD_T_NS, 1100000000LL);
    td_sum_set_int(s, "runtime.modules_ns", "Module GPU time", TD_T_NS, 1000000000LL);
    td_sum_set_int(s, "runtime.wall_ns", "Wall time (sum over devices)", TD_T_NS, 1400000000LL);
    td_sum_set_int(s, "runtime.idle_in_modules_ns", "GPU idle inside modules", TD_T_NS,
                   100000000LL);
    td_sum_set_int(s, "runtime.idle_between_modules_ns", "GPU idle between modules", TD_T_NS,
                   400000000LL);
    td_sum_set_int(s, "runtime.busy_in_modules_ns", "GPU busy inside modules", TD_T_NS,
                   900000000LL);
    return s;
}

/* --write DIR: the workbooks the shell tests read. */
static int write_all(const char *dir)
{
    td_summary *s = fixture_summary();
    td_summary *h = hostile_summary();
    td_err e = {0};
    char p[1024];
    int bad = 0;
    for (int i = 0; templates[i]; i++) {
        snprintf(p, sizeof p, "%s/fixture-%s.xlsx", dir, templates[i]);
        if (render(s, templates[i], NULL, p, &e) != TD_OK) {
            fprintf(stderr, "%s\n", e.msg);
            bad = 1;
        }
    }
    snprintf(p, sizeof p, "%s/hostile.xlsx", dir);
    if (render(h, NULL, hostile_tdt, p, &e) != TD_OK) {
        fprintf(stderr, "%s\n", e.msg);
        bad = 1;
    }
    td_summary *x = xla_summary();
    snprintf(p, sizeof p, "%s/xla-manager.xlsx", dir);
    if (render(x, "manager", NULL, p, &e) != TD_OK) {
        fprintf(stderr, "%s\n", e.msg);
        bad = 1;
    }
    td_summary_free(x);
    td_summary_free(s);
    td_summary_free(h);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_all(argv[2]);
    char dir[] = "/tmp/td-xlsx-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    td_summary *s = fixture_summary();
    td_summary *h = hostile_summary();
    td_err e = {0};
    char p1[512], p2[512];

    /* every template renders; two runs give the same bytes; only the file is left */
    for (int i = 0; templates[i]; i++) {
        snprintf(p1, sizeof p1, "%s/a.xlsx", dir);
        snprintf(p2, sizeof p2, "%s/b.xlsx", dir);
        CHECK_EQ_INT(render(s, templates[i], NULL, p1, &e), TD_OK);
        CHECK_EQ_INT(render(s, templates[i], NULL, p2, &e), TD_OK);
        size_t n1 = 0, n2 = 0;
        char *d1 = slurp(p1, &n1), *d2 = slurp(p2, &n2);
        CHECK(d1 && d2 && n1 > 1000 && n1 == n2 && memcmp(d1, d2, n1) == 0);
        CHECK(d1 && memcmp(d1, "PK\x03\x04", 4) == 0);
        free(d1);
        free(d2);
        CHECK_EQ_INT(count_dir(dir), 2);
        unlink(p1);
        unlink(p2);
    }

    /* hostile names and titles still give a workbook */
    snprintf(p1, sizeof p1, "%s/h.xlsx", dir);
    CHECK_EQ_INT(render(h, NULL, hostile_tdt, p1, &e), TD_OK);
    CHECK(access(p1, F_OK) == 0);
    unlink(p1);

    /* a template without data sections still gives a (one-sheet) workbook */
    CHECK_EQ_INT(render(s, NULL, "[xlsx]\nsection table nothing\n", p1, &e), TD_OK);
    CHECK(access(p1, F_OK) == 0);
    unlink(p1);

    /* failure: an error naming the file, and nothing left behind */
    snprintf(p1, sizeof p1, "%s/no-such-dir/report.xlsx", dir);
    e.msg[0] = 0;
    CHECK_EQ_INT(render(s, "bug-report", NULL, p1, &e), TD_E_OUTPUT);
    CHECK(strstr(e.msg, p1) != NULL);
    CHECK_EQ_INT(count_dir(dir), 0);

    /* the rename fails (a directory stands at the path): the temporary file goes */
    snprintf(p1, sizeof p1, "%s/report.xlsx", dir);
    CHECK(mkdir(p1, 0755) == 0);
    CHECK_EQ_INT(render(s, "manager", NULL, p1, &e), TD_E_OUTPUT);
    CHECK(strstr(e.msg, p1) != NULL);
    CHECK_EQ_INT(count_dir(dir), 1);
    rmdir(p1);

    /* an existing report is replaced only by a complete one */
    snprintf(p1, sizeof p1, "%s/report.xlsx", dir);
    CHECK_EQ_INT(td_write_file_atomic(p1, "old", 3, &e), TD_OK);
    CHECK_EQ_INT(render(s, "manager", NULL, p1, &e), TD_OK);
    size_t n = 0;
    char *d = slurp(p1, &n);
    CHECK(d && n > 1000);
    free(d);
    CHECK_EQ_INT(count_dir(dir), 1);
    unlink(p1);

    rmdir(dir);
    td_summary_free(s);
    td_summary_free(h);
    return UNIT_DONE();
}
