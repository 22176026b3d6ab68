/* io/archive_lib.c - see io/archive_lib.h. */
#define TD_ARCHIVE_LOADER
#include "io/archive_lib.h"
#include <stddef.h>

TD_DYNLIB_DEFINE(td_archive, td_archive_fns, TD_ARCHIVE_FUNCS, td_archive_load, "cannot read archives", TD_E_IO,
                 {"libarchive.so.13", "libarchive13"})
