/* io/snappy_lib.c - see io/snappy_lib.h. */
#define TD_SNAPPY_LOADER
#include "io/snappy_lib.h"
#include <stddef.h>

TD_DYNLIB_DEFINE(td_snappy, td_snappy_fns, TD_SNAPPY_FUNCS, td_snappy_load, "cannot read snappy-compressed pages", TD_E_FORMAT,
                 {"libsnappy.so.1", "libsnappy1v5"})
