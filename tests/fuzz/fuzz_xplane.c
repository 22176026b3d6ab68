/* The XPlane reader (read/xplane.c, on io/protobuf.c) on bytes in memory (both readings
 * from memory), then every pass; the same bytes as a file read as a stream (the first
 * reading through a second open of the file, the window of io/protobuf.c refilled) must
 * give the same status and events (a difference traps). */
#include "fuzz.h"
#include "io/instream.h"
#include "read/xplane.h"

static td_status read_one(const uint8_t *data, size_t size, const char *path, size_t *nev,
                          int analyse)
{
    td_traceset *set = td_traceset_new();
    td_trace *t = td_traceset_add(set, "fuzz.xplane.pb");
    td_err e = {0};
    td_in *in = path ? td_in_open_file(path, "fuzz.xplane.pb", &e)
                     : td_in_open_mem(data, size, "fuzz.xplane.pb");
    td_status st = in ? td_read_xplane(set, t, in, path, (size_t)64 << 20, &e) : e.code;
    *nev = t->nev;
    td_in_close(in);
    if (st == TD_OK && analyse)
        fuzz_analyse(set);
    td_traceset_free(set);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n1 = 0, n2 = 0;
    td_status a = read_one(data, size, NULL, &n1, 1);
    char *p = fuzz_file(data, size, ".xplane.pb");
    if (p) {
        td_status b = read_one(data, size, p, &n2, 0);
        unlink(p);
        free(p);
        if (a != b || n1 != n2)
            __builtin_trap();
    }
    return 0;
}
