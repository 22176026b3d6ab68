/* Partial summaries (.tds, `tracedoc merge`): the line reader and its checks, the merge
 * of its records into the state (a fresh state, then the same bytes again into that
 * state: the refusal path), the tables computed from the merged state and the
 * summary.json and .tds writers. */
#include "fuzz.h"
#include "partial/partial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_file(data, size, ".tds");
    if (!path)
        return 0;
    td_partial *p = td_partial_new();
    td_err e = {0};
    if (td_partial_merge_file(p, path, &e) == TD_OK) {
        td_err e2 = {0};
        td_partial_merge_file(p, path, &e2); /* the same part twice: refused or merged */
        td_partial_write(p, "/dev/null", &e2);
        td_opts o;
        td_summary *s = td_partial_finish(p, &o);
        FILE *f = fopen("/dev/null", "w");
        if (f) {
            td_summary_write_json(s, f, &e2);
            fclose(f);
        }
        td_summary_free(s);
    }
    td_partial_free(p);
    unlink(path);
    free(path);
    return 0;
}
