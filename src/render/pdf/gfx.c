/* render/pdf/gfx.c - loads the graphics libraries of gfx.h when a PDF is first drawn. */
#define TD_GFX_LOADER
#include "render/pdf/gfx.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

td_gfx_fns td_gfx;

/* the shared objects (by their stable sonames) and the Debian packages holding them; a
 * function is looked up in each in turn */
static const struct {
    const char *so, *pkg;
} libs[] = {
    {"libcairo.so.2", "libcairo2"},
    {"libpango-1.0.so.0", "libpango-1.0-0"},
    {"libpangocairo-1.0.so.0", "libpangocairo-1.0-0"},
    {"libpangoft2-1.0.so.0", "libpangoft2-1.0-0"},
    {"libfontconfig.so.1", "libfontconfig1"},
    {"libgobject-2.0.so.0", "libglib2.0-0"},
    {"libglib-2.0.so.0", "libglib2.0-0"},
};
#define NLIBS (sizeof libs / sizeof libs[0])

static const struct {
    const char *name;
    size_t off;
} fns[] = {
#define TD_GFX_SYM(f) {#f, offsetof(td_gfx_fns, f)},
    TD_GFX_FUNCS(TD_GFX_SYM)
#undef TD_GFX_SYM
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static td_status load_st = TD_OK;
static char load_msg[sizeof(((td_err *)0)->msg)];

static void load(void)
{
    void *h[NLIBS];
    for (size_t i = 0; i < NLIBS; i++) {
        /* never closed: the functions stay in use until the process ends */
        h[i] = dlopen(libs[i].so, RTLD_NOW | RTLD_LOCAL);
        if (!h[i]) {
            int en = errno;
            const char *why = dlerror();
            why = why ? why : "?";
            /* under a memory limit (ulimit -v) mapping the library fails: out of memory,
             * like a renderer that dies of it, not a missing library */
            if (en == ENOMEM || strstr(why, "failed to map segment") ||
                strstr(why, "allocate memory")) {
                snprintf(load_msg, sizeof load_msg,
                         "cannot write a PDF: out of memory loading the graphics library "
                         "%s (a memory limit, ulimit -v, too low for it?): %s", libs[i].so,
                         why);
                load_st = TD_E_NOMEM;
            } else {
                snprintf(load_msg, sizeof load_msg,
                         "cannot write a PDF: the graphics library %s (Debian package %s) "
                         "cannot be loaded: %s", libs[i].so, libs[i].pkg, why);
                load_st = TD_E_OUTPUT;
            }
            return;
        }
    }
    for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++) {
        void *p = NULL;
        for (size_t i = 0; i < NLIBS && !p; i++)
            p = dlsym(h[i], fns[k].name);
        if (!p) {
            snprintf(load_msg, sizeof load_msg,
                     "cannot write a PDF: the graphics libraries lack %s (too old a "
                     "cairo, pango or fontconfig?)", fns[k].name);
            load_st = TD_E_OUTPUT;
            return;
        }
        /* POSIX: an object pointer from dlsym converts to the function's pointer */
        memcpy((char *)&td_gfx + fns[k].off, &p, sizeof p);
    }
}

td_status td_gfx_load(td_err *e)
{
    pthread_once(&once, load);
    if (load_st != TD_OK)
        return td_fail(e, load_st, "%s", load_msg);
    return TD_OK;
}
