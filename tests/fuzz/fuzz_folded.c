/* Folded-stack input of `flame`, then the flamegraph layout and SVG. */
#include "fuzz.h"
#include "read/folded.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    td_summary *s = td_summary_new();
    td_flame *fl = td_sum_flame(s, "cpu", "fuzz");
    td_err e = {0};
    if (td_folded_parse("fuzz.folded", text, size, s, fl, &e) == TD_OK) {
        td_render_opts r;
        memset(&r, 0, sizeof r);
        r.paper = "a4";
        r.minwidth = 0.001;
        r.version = "fuzz";
        td_render_svg(s, fl, &r, "/dev/null", &e);
    }
    td_summary_free(s);
    free(text);
    return 0;
}
