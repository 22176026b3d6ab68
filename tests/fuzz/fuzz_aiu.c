/* The IBM AIU runtime ("flex") trace reader (read/aiu.c) on bytes in memory, then every
 * pass (the AIU pass included). */
#include "fuzz.h"
#include "read/aiu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz-flex.json");
    td_err e = {0};
    if (td_read_aiu(set, t, "fuzz-flex.json", (const char *)data, size, &e) == TD_OK)
        fuzz_analyse(set);
    td_traceset_free(set);
    return 0;
}
