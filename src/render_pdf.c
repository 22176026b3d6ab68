/* render_pdf.c - PDF summary (cairo + pango). Stub. */
#include "render.h"
td_status td_render_pdf(const td_summary *s, const td_template *t, const td_render_opts *o,
                        const char *path, td_err *e)
{
    (void)s; (void)t; (void)o;
    return td_fail(e, TD_E_INTERNAL, "%s: PDF renderer not implemented yet", path);
}
