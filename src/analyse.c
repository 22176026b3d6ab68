/* analyse.c - runs the passes in order. Stub. */
#include "analyse.h"
void td_opts_default(td_opts *o)
{
    o->warmup = TD_WARMUP_AUTO;
    o->step_pattern = NULL;
    o->module_pattern = NULL;
    o->threshold = 0.01;
    o->minwidth = 0.001;
    o->top = 15;
}
td_status td_analyse(td_traceset *set, const td_opts *o, td_summary *s, td_err *e)
{
    (void)set; (void)o; (void)s; (void)e;
    return TD_OK;
}
