/* io/sqlite_lib.h - SQLite, loaded (base/dynlib.h) when a database is first opened (an
 * Nsight Systems export, a --history database), not when tracedoc starts. The files that
 * use it include this header instead of <sqlite3.h>; the functions keep their names (each
 * is a macro for a pointer of td_sqlite), and td_sqlite_load must succeed before the
 * first call. */
#ifndef TD_IO_SQLITE_LIB_H
#define TD_IO_SQLITE_LIB_H
#include "base/dynlib.h"
#include "base/err.h"
#include <sqlite3.h>

/* every function of the library tracedoc calls; a call to one not listed fails to link
 * (the library is not linked), so the list cannot fall behind */
#define TD_SQLITE_FUNCS(X, T) \
    X(T, sqlite3_bind_blob) \
    X(T, sqlite3_bind_double) \
    X(T, sqlite3_bind_int) \
    X(T, sqlite3_bind_int64) \
    X(T, sqlite3_bind_text) \
    X(T, sqlite3_busy_timeout) \
    X(T, sqlite3_changes) \
    X(T, sqlite3_close) \
    X(T, sqlite3_column_blob) \
    X(T, sqlite3_column_bytes) \
    X(T, sqlite3_column_double) \
    X(T, sqlite3_column_int) \
    X(T, sqlite3_column_int64) \
    X(T, sqlite3_column_text) \
    X(T, sqlite3_column_type) \
    X(T, sqlite3_db_config) \
    X(T, sqlite3_deserialize) \
    X(T, sqlite3_errcode) \
    X(T, sqlite3_errmsg) \
    X(T, sqlite3_exec) \
    X(T, sqlite3_finalize) \
    X(T, sqlite3_free) \
    X(T, sqlite3_last_insert_rowid) \
    X(T, sqlite3_malloc64) \
    X(T, sqlite3_open_v2) \
    X(T, sqlite3_prepare_v2) \
    X(T, sqlite3_reset) \
    X(T, sqlite3_step)

typedef struct td_sqlite_fns {
    TD_SQLITE_FUNCS(TD_DYNLIB_PTR, td_sqlite_fns)
} td_sqlite_fns;

extern td_sqlite_fns td_sqlite;

/* Loads SQLite once per process; TD_E_IO "cannot open SQLite databases: the library
 * libsqlite3.so.0 (Debian package libsqlite3-0) cannot be loaded: ..." when it cannot. */
td_status td_sqlite_load(const char *file, td_err *e);

#ifndef TD_SQLITE_LOADER
#define sqlite3_bind_blob (td_sqlite.sqlite3_bind_blob)
#define sqlite3_bind_double (td_sqlite.sqlite3_bind_double)
#define sqlite3_bind_int (td_sqlite.sqlite3_bind_int)
#define sqlite3_bind_int64 (td_sqlite.sqlite3_bind_int64)
#define sqlite3_bind_text (td_sqlite.sqlite3_bind_text)
#define sqlite3_busy_timeout (td_sqlite.sqlite3_busy_timeout)
#define sqlite3_changes (td_sqlite.sqlite3_changes)
#define sqlite3_close (td_sqlite.sqlite3_close)
#define sqlite3_column_blob (td_sqlite.sqlite3_column_blob)
#define sqlite3_column_bytes (td_sqlite.sqlite3_column_bytes)
#define sqlite3_column_double (td_sqlite.sqlite3_column_double)
#define sqlite3_column_int (td_sqlite.sqlite3_column_int)
#define sqlite3_column_int64 (td_sqlite.sqlite3_column_int64)
#define sqlite3_column_text (td_sqlite.sqlite3_column_text)
#define sqlite3_column_type (td_sqlite.sqlite3_column_type)
#define sqlite3_db_config (td_sqlite.sqlite3_db_config)
#define sqlite3_deserialize (td_sqlite.sqlite3_deserialize)
#define sqlite3_errcode (td_sqlite.sqlite3_errcode)
#define sqlite3_errmsg (td_sqlite.sqlite3_errmsg)
#define sqlite3_exec (td_sqlite.sqlite3_exec)
#define sqlite3_finalize (td_sqlite.sqlite3_finalize)
#define sqlite3_free (td_sqlite.sqlite3_free)
#define sqlite3_last_insert_rowid (td_sqlite.sqlite3_last_insert_rowid)
#define sqlite3_malloc64 (td_sqlite.sqlite3_malloc64)
#define sqlite3_open_v2 (td_sqlite.sqlite3_open_v2)
#define sqlite3_prepare_v2 (td_sqlite.sqlite3_prepare_v2)
#define sqlite3_reset (td_sqlite.sqlite3_reset)
#define sqlite3_step (td_sqlite.sqlite3_step)
#endif

#endif
