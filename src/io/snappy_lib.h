/* io/snappy_lib.h - snappy, loaded (base/dynlib.h) when a Parquet page compressed with it
 * is first read: it brings libstdc++, a fifth of every run's start. parquet_page.c
 * includes this header instead of <snappy-c.h>; the functions keep their names, and
 * td_snappy_load must succeed before the first call. */
#ifndef TD_IO_SNAPPY_LIB_H
#define TD_IO_SNAPPY_LIB_H
#include "base/dynlib.h"
#include "base/err.h"
#include <snappy-c.h>

/* every function of the library tracedoc calls; a call to one not listed fails to link
 * (the library is not linked), so the list cannot fall behind */
#define TD_SNAPPY_FUNCS(X, T) \
    X(T, snappy_uncompress) \
    X(T, snappy_uncompressed_length)

typedef struct td_snappy_fns {
    TD_SNAPPY_FUNCS(TD_DYNLIB_PTR, td_snappy_fns)
} td_snappy_fns;

extern td_snappy_fns td_snappy;

/* Loads snappy once per process; TD_E_FORMAT "cannot read snappy-compressed pages: the
 * library libsnappy.so.1 (Debian package libsnappy1v5) cannot be loaded: ..." when it
 * cannot. */
td_status td_snappy_load(const char *file, td_err *e);

#ifndef TD_SNAPPY_LOADER
#define snappy_uncompress (td_snappy.snappy_uncompress)
#define snappy_uncompressed_length (td_snappy.snappy_uncompressed_length)
#endif

#endif
