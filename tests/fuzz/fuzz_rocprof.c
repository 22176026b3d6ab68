/* The rocprofv3 readers on bytes in memory, then every pass: input starting with '{' goes
 * to the JSON reader (read/rocprof_json.c), anything else to the CSV reader
 * (read/rocprof_csv.c) as one file of a process. (The rocpd database reader is reached
 * through fuzz_input's SQLite detection.) */
#include "fuzz.h"
#include "io/instream.h"
#include "read/rocprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    td_in *in = td_in_open_mem(data, size, "fuzz_kernel_trace.csv");
    td_status st;
    if (size && data[0] == '{') {
        td_trace *t = td_traceset_add(set, "fuzz.json");
        st = td_read_rocprof_json(set, t, in, &e);
    } else {
        st = td_rocprof_csv_collect(set, in, "fuzz_kernel_trace.csv", &e);
        st = td_rocprof_csv_done(set, st, &e);
    }
    td_in_close(in);
    if (st == TD_OK && set->n)
        fuzz_analyse(set);
    td_traceset_free(set);
    return 0;
}
