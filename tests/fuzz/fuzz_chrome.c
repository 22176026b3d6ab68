/* The Chrome Trace Event / Kineto JSON scanner on bytes in memory, then every pass. */
#include "fuzz.h"
#include "read/chrome.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz.json");
    td_err e = {0};
    if (td_read_chrome_mem(set, t, "fuzz.json", data, size, &e) == TD_OK)
        fuzz_analyse(set);
    td_traceset_free(set);
    return 0;
}
