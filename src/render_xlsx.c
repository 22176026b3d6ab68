/* render_xlsx.c - Excel workbook (libxlsxwriter). Stub. */
#include "render.h"
td_status td_render_xlsx(const td_summary *s, const td_template *t, const td_render_opts *o,
                         const char *path, td_err *e)
{
    (void)s; (void)t; (void)o;
    return td_fail(e, TD_E_INTERNAL, "%s: workbook renderer not implemented yet", path);
}
