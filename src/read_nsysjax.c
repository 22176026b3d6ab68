/* read_nsysjax.c - nsys-jax archive reader. Stub. */
#include "read.h"
td_status td_read_nsys_jax(td_traceset *set, td_trace *t, const char *name,
                           const void *data, size_t n, td_err *e)
{
    (void)set; (void)t; (void)data; (void)n;
    return td_fail(e, TD_E_FORMAT, "%s: nsys-jax archives not supported yet", name);
}
