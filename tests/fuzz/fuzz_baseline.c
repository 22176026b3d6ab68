/* summary.json as a baseline (diff, report --baseline): loading, then the comparison
 * against itself and the JSON writer. */
#include "fuzz.h"
#include "compare/baseline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    td_summary *a = NULL, *b = NULL;
    td_err e = {0};
    if (td_summary_load_json(path, &a, &e) == TD_OK && td_summary_load_json(path, &b, &e) == TD_OK) {
        td_regression(a, "base", b, 0.05);
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            td_summary_write_json(b, f, &e);
            fclose(f);
        }
    }
    if (a)
        td_summary_free(a);
    if (b)
        td_summary_free(b);
    unlink(path);
    free(path);
    return 0;
}
