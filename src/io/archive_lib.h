/* io/archive_lib.h - libarchive, loaded (base/dynlib.h) when an archive is first opened:
 * with its libxml2, ICU, nettle and crypto it was a third of every run's start. The files
 * that read archives include this header instead of <archive.h>; the functions keep their
 * names (each is a macro for a pointer of td_archive), and td_archive_load must succeed
 * before the first call. */
#ifndef TD_IO_ARCHIVE_LIB_H
#define TD_IO_ARCHIVE_LIB_H
#include "base/dynlib.h"
#include "base/err.h"
#include <archive.h>
#include <archive_entry.h>

/* every function of the library tracedoc calls; a call to one not listed fails to link
 * (the library is not linked), so the list cannot fall behind */
#define TD_ARCHIVE_FUNCS(X, T) \
    X(T, archive_entry_filetype) \
    X(T, archive_entry_pathname) \
    X(T, archive_entry_size) \
    X(T, archive_entry_size_is_set) \
    X(T, archive_error_string) \
    X(T, archive_filter_bytes) \
    X(T, archive_read_data) \
    X(T, archive_read_free) \
    X(T, archive_read_new) \
    X(T, archive_read_next_header) \
    X(T, archive_read_open) \
    X(T, archive_read_open_memory) \
    X(T, archive_read_support_format_tar) \
    X(T, archive_read_support_format_zip_seekable) \
    X(T, archive_set_error)

typedef struct td_archive_fns {
    TD_ARCHIVE_FUNCS(TD_DYNLIB_PTR, td_archive_fns)
} td_archive_fns;

extern td_archive_fns td_archive;

/* Loads libarchive once per process; TD_E_IO "cannot read archives: the library
 * libarchive.so.13 (Debian package libarchive13) cannot be loaded: ..." when it cannot. */
td_status td_archive_load(const char *file, td_err *e);

#ifndef TD_ARCHIVE_LOADER
#define archive_entry_filetype (td_archive.archive_entry_filetype)
#define archive_entry_pathname (td_archive.archive_entry_pathname)
#define archive_entry_size (td_archive.archive_entry_size)
#define archive_entry_size_is_set (td_archive.archive_entry_size_is_set)
#define archive_error_string (td_archive.archive_error_string)
#define archive_filter_bytes (td_archive.archive_filter_bytes)
#define archive_read_data (td_archive.archive_read_data)
#define archive_read_free (td_archive.archive_read_free)
#define archive_read_new (td_archive.archive_read_new)
#define archive_read_next_header (td_archive.archive_read_next_header)
#define archive_read_open (td_archive.archive_read_open)
#define archive_read_open_memory (td_archive.archive_read_open_memory)
#define archive_read_support_format_tar (td_archive.archive_read_support_format_tar)
#define archive_read_support_format_zip_seekable (td_archive.archive_read_support_format_zip_seekable)
#define archive_set_error (td_archive.archive_set_error)
#endif

#endif
