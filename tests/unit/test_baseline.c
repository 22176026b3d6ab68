/* summary.json round trip (write -> load -> write gives the same bytes) and the
 * regression comparison on hand-made changes. */
#define _POSIX_C_SOURCE 200809L
#include "compare/baseline.h"
#include "fixture.h"
#include "unit.h"
#include "support.h"
#include <stdlib.h>
#include <unistd.h>


int main(void)
{
    td_summary *s = fixture_summary();
    char *j1 = json_of(s);
    char path[] = "/tmp/td-baseline-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, j1, strlen(j1)) == (ssize_t)strlen(j1));
    close(fd);
    CHECK(td_is_summary_json(path));
    td_summary *l = NULL;
    td_err e = {0};
    CHECK_EQ_INT(td_summary_load_json(path, &l, &e), TD_OK);
    if (l) {
        char *j2 = json_of(l);
        CHECK_EQ_STR(j2, j1);
        free(j2);
    }

    /* regression: the top kernel's mean +10% (regressed), the second -10% (improved),
     * the steady median step unchanged; tolerance 5%. */
    td_summary *cur = fixture_summary();
    td_table *k = td_sum_find_table(cur, "kernels");
    int mc = td_table_col(k, "mean_ns");
    td_table_cell(k, 0, mc)->i = td_table_cell(k, 0, mc)->i * 11 / 10;
    td_table_cell(k, 1, mc)->i = td_table_cell(k, 1, mc)->i * 9 / 10;
    int n = td_regression(l, "base.json", cur, 0.05);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_INT(td_sum_get(cur, "regression.improved")->v.i, 1);
    td_table *r = td_sum_find_table(cur, "regression.metrics");
    int found = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const char *st = td_table_cell(r, i, td_table_col(r, "status"))->s;
        const char *nm = td_table_cell(r, i, td_table_col(r, "name"))->s;
        if (strcmp(st, "regressed") == 0) {
            CHECK_EQ_STR(nm, "volta_sgemm_128x64_nn");
            CHECK(td_table_cell(r, i, td_table_col(r, "change"))->f > 0.099);
            found = 1;
        }
    }
    CHECK(found);
    td_summary_free(l);
    /* not a summary */
    td_summary *none = NULL;
    CHECK_EQ_INT(td_summary_load_json("/dev/null", &none, &e), TD_E_FORMAT);
    CHECK(none == NULL);
    unlink(path);
    free(j1);
    td_summary_free(cur);
    td_summary_free(s);
    return UNIT_DONE();
}
