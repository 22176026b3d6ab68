/* base/dynlib.h - shared libraries loaded (dlopen) when first used rather than by the
 * dynamic linker when tracedoc starts. Linked, they made `tracedoc --version` take
 * 15.5 ms instead of 4.4 ms (hyperfine), most of it relocating libraries the run never
 * calls (libarchive's libxml2 and ICU, xlsxwriter, libstdc++ for snappy); a run that
 * reads one Kineto trace and writes JSON now maps none of them.
 *
 * A user of a library declares, in its own header, the functions it calls in an X-macro
 * list and one struct of pointers (their types from the library's own header with
 * __typeof__), then a td_dynlib naming the shared objects, and calls td_dynlib_load before
 * the first call. The pattern is render/pdf/gfx.h; the others are io/archive_lib.h,
 * io/sqlite_lib.h, io/snappy_lib.h, render/xlsx/xlsx_lib.h and base/hash.c. */
#ifndef TD_BASE_DYNLIB_H
#define TD_BASE_DYNLIB_H
#include "base/err.h"
#include <stddef.h>

#define TD_DYNLIB_MAX_SO 8 /* shared objects of one td_dynlib */

typedef struct td_dynlib_so {
    const char *so;  /* the stable soname, "libsqlite3.so.0" */
    const char *pkg; /* the Debian package that holds it, for the message */
} td_dynlib_so;

typedef struct td_dynlib_sym {
    const char *name;
    size_t off; /* of its pointer in the table */
} td_dynlib_sym;

typedef struct td_dynlib {
    /* what cannot be done without it, the start of the message: "cannot write a PDF" */
    const char *what;
    td_status code; /* the status of a library or function that cannot be loaded */
    const td_dynlib_so *so;
    size_t nso;
    const td_dynlib_sym *sym; /* each looked up in the objects in turn */
    size_t nsym;
    void *table; /* the struct of pointers the lookups fill */
    /* the state, set by the first td_dynlib_load (zero-initialise) */
    int state; /* 0 not tried, 1 loaded, 2 failed */
    td_status st;
    char msg[512];
} td_dynlib;

/* Loads d's shared objects and every function of its list into d->table, once per
 * process (thread-safe; later calls return the first call's result, at the cost of one
 * atomic load). An object or function that cannot be loaded is d->code, "FILE: WHAT: the
 * library SO (Debian package PKG) cannot be loaded: WHY" / "FILE: WHAT: the library SO
 * lacks FN (too old a version?)", FILE being the file the caller was about to read or
 * write ("FILE: " left out when NULL); one that cannot be mapped for lack of memory (a
 * ulimit -v) is TD_E_NOMEM. The objects are never closed. */
td_status td_dynlib_load(td_dynlib *d, const char *file, td_err *e);

/* A library's functions are an X-macro list, NAME_FUNCS(X, T), calling X(T, f) for each
 * function f; T is the struct of pointers. TD_DYNLIB_PTR declares f's pointer in that
 * struct (typed from the library's own declaration of f), TD_DYNLIB_SYM its entry in a
 * td_dynlib_sym list. */
#define TD_DYNLIB_PTR(T, f) __typeof__(f) *f;
#define TD_DYNLIB_SYM(T, f) {#f, offsetof(T, f)},

/* Defines, in the library's own .c (which defines NAME_LOADER before including its
 * header, so that the names are the library's and not the pointers'), the struct of
 * pointers `tab` of type T, and `td_status loadfn(const char *file, td_err *e)` loading
 * it (td_dynlib_load); WHAT and CODE as in td_dynlib, then the td_dynlib_so entries,
 * {"libfoo.so.1", "libfoo1"}, ... */
#define TD_DYNLIB_DEFINE(tab, T, funcs, loadfn, what_, code_, ...)                     \
    T tab;                                                                          \
    static const td_dynlib_so tab##_so[] = {__VA_ARGS__};                            \
    static const td_dynlib_sym tab##_sym[] = {funcs(TD_DYNLIB_SYM, T)};              \
    static td_dynlib tab##_lib = {                                                   \
        .what = what_,                                                                \
        .code = code_,                                                                \
        .so = tab##_so,                                                             \
        .nso = sizeof tab##_so / sizeof tab##_so[0],                              \
        .sym = tab##_sym,                                                           \
        .nsym = sizeof tab##_sym / sizeof tab##_sym[0],                           \
        .table = &tab,                                                              \
    };                                                                                \
    td_status loadfn(const char *file, td_err *e)                                     \
    {                                                                                 \
        return td_dynlib_load(&tab##_lib, file, e);                                 \
    }

#endif
