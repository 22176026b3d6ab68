/* The renderer fixture is a valid summary: it writes JSON and every table as CSV. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"
#include "unit.h"
#include <stdlib.h>
int main(void)
{
    td_summary *s = fixture_summary();
    td_err e = {0};
    FILE *f = fopen("/dev/null", "w");
    CHECK_EQ_INT(td_summary_write_json(s, f, &e), TD_OK);
    for (size_t i = 0; i < s->ntables; i++)
        CHECK_EQ_INT(td_table_write_csv(s->tables[i], f, &e), TD_OK);
    fclose(f);
    CHECK(td_sum_find_table(s, "compile.phases") != NULL);
    CHECK(td_sum_find_flame(s, "device") != NULL);
    td_summary_free(s);
    return UNIT_DONE();
}
