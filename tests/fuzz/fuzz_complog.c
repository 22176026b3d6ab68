/* The DeepRT compile log reader (read/complog.c: the Perf Summary table of ideal cycles
 * per kernel), then every pass over an empty AIU trace that the log's kernels join. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    if (td_read_complog(set, "fuzz-compile.log", (const char *)data, size, &e) == TD_OK) {
        static const char flex[] =
            "[{\"attr\":{\"TS1\":\"16\",\"TS2\":\"32\",\"TS3\":\"48\",\"TS4\":\"64\","
            "\"TS5\":\"80\"},\"name\":\"add_11 Cmpt Exec\",\"ph\":\"B\",\"pid\":0,\"tid\":1,"
            "\"ts\":1.5},{\"attr\":{\"TS1\":\"16\",\"TS2\":\"32\",\"TS3\":\"48\",\"TS4\":\"64\","
            "\"TS5\":\"80\"},\"name\":\"add_11 Cmpt Exec\",\"ph\":\"E\",\"pid\":0,\"tid\":1,"
            "\"ts\":2.5}]";
        fuzz_analyse_beside(set, "fuzz-flex.json", flex, 1);
    }
    td_traceset_free(set);
    return 0;
}
