/* io/sqlite_lib.c - see io/sqlite_lib.h. */
#define TD_SQLITE_LOADER
#include "io/sqlite_lib.h"
#include <stddef.h>

TD_DYNLIB_DEFINE(td_sqlite, td_sqlite_fns, TD_SQLITE_FUNCS, td_sqlite_load, "cannot open SQLite databases", TD_E_IO,
                 {"libsqlite3.so.0", "libsqlite3-0"})
