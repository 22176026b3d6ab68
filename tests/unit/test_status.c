/* Unit tests: td_status names, and a summary whose keys clash is refused by the JSON
 * writer with an error naming the key (it used to abort). */
#define _POSIX_C_SOURCE 200809L
#include "summary/summary.h"
#include "base/util.h"
#include "unit.h"
#include <stdlib.h>

int main(void)
{
    CHECK_EQ_STR(td_status_name(TD_OK), "TD_OK");
    CHECK_EQ_STR(td_status_name(TD_E_NOMEM), "TD_E_NOMEM");
    CHECK_EQ_STR(td_status_name(TD_E_IO), "TD_E_IO");
    CHECK_EQ_STR(td_status_name(TD_E_FORMAT), "TD_E_FORMAT");
    CHECK_EQ_STR(td_status_name(TD_E_USAGE), "TD_E_USAGE");
    CHECK_EQ_STR(td_status_name(TD_E_OUTPUT), "TD_E_OUTPUT");
    CHECK_EQ_STR(td_status_name(TD_E_INTERNAL), "TD_E_INTERNAL");
    CHECK_EQ_STR(td_status_name(TD_E_BUSY), "TD_E_BUSY");
    CHECK_EQ_STR(td_status_name(TD_E_EMPTY), "TD_E_EMPTY");
    CHECK_EQ_STR(td_status_name((td_status)(TD_E_EMPTY + 1)), "TD_E_UNKNOWN");
    CHECK_EQ_STR(td_status_name((td_status)-1), "TD_E_UNKNOWN");
    /* every status has a name of its own */
    for (int i = TD_OK; i <= TD_E_EMPTY; i++)
        for (int j = i + 1; j <= TD_E_EMPTY; j++)
            CHECK(strcmp(td_status_name((td_status)i), td_status_name((td_status)j)) != 0);

    /* td_fail fills the record and returns the code; a NULL record is allowed */
    td_err e = {0};
    CHECK_EQ_INT(td_fail(&e, TD_E_FORMAT, "x: byte %d", 7), TD_E_FORMAT);
    CHECK_EQ_INT(e.code, TD_E_FORMAT);
    CHECK_EQ_STR(e.msg, "x: byte 7");
    CHECK_EQ_INT(td_fail(NULL, TD_E_IO, "ignored"), TD_E_IO);

    /* "warmup" a value and "warmup.mode" below it: both cannot be in one JSON object */
    const char *order[][2] = {{"warmup", "warmup.mode"}, {"warmup.mode", "warmup"}};
    for (int k = 0; k < 2; k++) {
        td_summary *s = td_summary_new();
        td_sum_set_int(s, order[k][0], NULL, TD_T_INT, 1);
        td_sum_set_int(s, order[k][1], NULL, TD_T_INT, 2);
        FILE *f = fopen("/dev/null", "w");
        td_err e2 = {0};
        CHECK_EQ_INT(td_summary_write_json(s, f, &e2), TD_E_FORMAT);
        CHECK(strstr(e2.msg, "'warmup") != NULL);
        CHECK(strstr(e2.msg, "both a value and an object") != NULL);
        fclose(f);
        td_summary_free(s);
    }
    return UNIT_DONE();
}
