/* The rocprofv3 JSON reader (read/rocprof_json.c) on bytes in memory, then every pass. */
#include "fuzz.h"
#include "io/instream.h"
#include "read/rocprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz.json");
    td_err e = {0};
    td_in *in = td_in_open_mem(data, size, "fuzz.json");
    td_status st = td_read_rocprof_json(set, t, in, &e);
    td_in_close(in);
    if (st == TD_OK)
        fuzz_analyse(set);
    td_traceset_free(set);
    return 0;
}
