/* Any input file as the command line reads it: format detection, gzip, tar, zip
 * (nsys-jax: Parquet, xz CSV, HLO protobuf dumps), Nsight Systems SQLite, Chrome JSON;
 * then every pass. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_file(data, size, ".in");
    if (!path)
        return 0;
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    if (td_read_input(set, path, &e) == TD_OK)
        fuzz_analyse(set);
    td_traceset_free(set);
    unlink(path);
    free(path);
    return 0;
}
