/* SambaTune stack-tracing artifacts (read/samba.c): the input is a set of CSV artifacts
 * separated by form-feed lines ("\f\n"), each collected as one file, then joined into one
 * trace and analysed; the same bytes also go through the stack-trace report reader
 * (read/samba_report.c, Chrome JSON with layer args). */
#include "fuzz.h"
#include "io/instream.h"
#include "read/samba.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_traceset *set = td_traceset_new();
    td_err e = {0};
    td_status st = TD_OK;
    size_t off = 0;
    for (int k = 0; off < size && k < 16 && st == TD_OK; k++) {
        const uint8_t *end = memmem(data + off, size - off, "\f\n", 2);
        size_t n = end ? (size_t)(end - (data + off)) : size - off;
        char name[32];
        snprintf(name, sizeof name, "artifact%d.csv", k);
        if (td_samba_sniff(data + off, n)) {
            td_in *in = td_in_open_mem(data + off, n, name);
            st = td_samba_collect(set, in, name, &e);
            td_in_close(in);
        }
        off += n + (end ? 2 : 0);
    }
    if (td_samba_input_done(set, "fuzz-artifacts", st, &e) == TD_OK && set->n)
        fuzz_analyse(set);
    td_traceset_free(set);

    set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz_chrome_tracing_report.json");
    e = (td_err){0};
    if (td_samba_read_report(set, t, "fuzz_chrome_tracing_report.json", data, size, &e) == TD_OK)
        fuzz_analyse(set);
    td_traceset_free(set);
    return 0;
}
