/* flame.c - flamegraph layout and stable colours. Stub. */
#include "flame.h"
td_status td_flame_layout(const td_flame *fl, double minwidth, td_flamelayout *out, td_err *e)
{
    (void)fl; (void)minwidth; (void)out;
    return td_fail(e, TD_E_INTERNAL, "flame layout not implemented yet");
}
void td_flame_layout_free(td_flamelayout *l) { (void)l; }
uint32_t td_name_color(const char *name, const char *palette)
{
    (void)palette;
    return (uint32_t)(td_hash64(name, 0) & 0xffffff);
}
