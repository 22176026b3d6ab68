/* summary.json round trip (write -> load -> write gives the same bytes); the judgement of
 * changes is tested in test_changes. */
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

    td_summary_free(l);
    /* not a summary */
    td_summary *none = NULL;
    CHECK_EQ_INT(td_summary_load_json("/dev/null", &none, &e), TD_E_FORMAT);
    CHECK(none == NULL);
    unlink(path);
    free(j1);
        td_summary_free(s);
    return UNIT_DONE();
}
