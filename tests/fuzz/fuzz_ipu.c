/* The Graphcore IPU export reader (tracedoc.ipu/1 JSON Lines) on bytes in memory, then
 * every pass (detailed trace and lightweight profiling, with and without the buffer
 * flushes) and the Chrome export of what was read. */
#include "fuzz.h"
#include "read/ipu.h"
#include "export/chrome.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz.jsonl");
    td_err e = {0};
    if (td_read_ipu_mem(set, t, "fuzz.jsonl", data, size, &e) == TD_OK) {
        td_read_finish(set);
        for (int flushes = 0; flushes < 2; flushes++) {
            td_opts o;
            td_opts_default(&o);
            o.show_flushes = flushes;
            td_summary *s = td_summary_new();
            if (td_analyse(set, &o, s, &e) == TD_OK) {
                FILE *f = fopen("/dev/null", "w");
                if (f) {
                    td_summary_write_json(s, f, &e);
                    fclose(f);
                }
                if (flushes)
                    td_render_chrome(set, s, &o, "fuzz", "/dev/null", &e);
            }
            td_summary_free(s);
        }
    }
    td_traceset_free(set);
    return 0;
}
