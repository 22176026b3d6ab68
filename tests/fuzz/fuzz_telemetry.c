/* Device-monitor telemetry (read/telemetry.c: aiu-smi / nvidia-smi dmon text, nvidia-smi
 * query CSV, any CSV with a timestamp column) and the wall-clock parser, then every pass
 * with a small Kineto trace whose time base the samples are aligned with. */
#include "fuzz.h"
#include "read/telemetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t ns;
    td_parse_wallclock((const char *)data, size < 64 ? size : 64, &ns);
    char *path = fuzz_file(data, size, ".txt");
    if (!path)
        return 0;
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    /* first sample at 2025-11-22T08:26:39Z for monitors without dates */
    if (td_read_telemetry_file(set, path, INT64_C(1763799999000000000), &e) == TD_OK) {
        static const char kineto[] =
            "{\"baseTimeNanoseconds\":1763799999000000000,\"traceEvents\":["
            "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
            "\"tid\":1,\"ts\":0,\"dur\":1500000},"
            "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,"
            "\"tid\":1,\"ts\":1500000,\"dur\":1500000},"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,"
            "\"dur\":900000,\"args\":{\"device\":0,\"stream\":7}}]}";
        fuzz_analyse_beside(set, "fuzz.json", kineto, 0);
    }
    td_traceset_free(set);
    unlink(path);
    free(path);
    return 0;
}
