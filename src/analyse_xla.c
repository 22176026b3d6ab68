/* analyse_xla.c - XLA module/thunk/compile statistics. Stub. */
#include "analyse.h"
void td_analyse_xla(td_traceset *set, const td_opts *o, td_summary *s)
{
    (void)set; (void)o; (void)s;
}
