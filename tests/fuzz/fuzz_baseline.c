/* summary.json as a baseline (diff, report --baseline): loading, then the comparison
 * (changes) against itself and the JSON writer. */
#include "fuzz.h"
#include "compare/baseline.h"
#include "compare/changes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_file(data, size, ".json");
    if (!path)
        return 0;
    td_summary *a = NULL, *b = NULL;
    td_err e = {0};
    if (td_summary_load_json(path, &a, &e) == TD_OK && td_summary_load_json(path, &b, &e) == TD_OK) {
        td_detect_opts o;
        td_detect_opts_default(&o);
        td_summary_drop_comparison(b);
        td_changes_two(a, "base", b, &o);
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
