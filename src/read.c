/* read.c - input dispatch (files, stdin, directories, tar archives). Stub. */
#include "read.h"
td_status td_read_input(td_traceset *set, const char *arg, td_err *e)
{
    (void)set;
    return td_fail(e, TD_E_FORMAT, "%s: reader not implemented yet", arg);
}
void td_read_finish(td_traceset *set) { (void)set; }
