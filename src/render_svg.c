/* render_svg.c - interactive SVG flamegraphs. Stub. */
#include "render.h"
td_status td_render_svg(const td_summary *s, const td_flame *fl, const td_render_opts *o,
                        const char *path, td_err *e)
{
    (void)s; (void)fl; (void)o;
    return td_fail(e, TD_E_INTERNAL, "%s: SVG renderer not implemented yet", path);
}
