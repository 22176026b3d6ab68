/* base/dynlib.c - see base/dynlib.h. */
#include "base/dynlib.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* one lock for every library: a load happens at most once per library per process */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void load(td_dynlib *d)
{
    void *h[TD_DYNLIB_MAX_SO];
    size_t nso = d->nso;
    if (nso > TD_DYNLIB_MAX_SO) {
        snprintf(d->msg, sizeof d->msg, "%s: more than %d libraries to load", d->what,
                 TD_DYNLIB_MAX_SO);
        d->st = TD_E_INTERNAL;
        return;
    }
    for (size_t i = 0; i < nso; i++) {
        dlerror();
        h[i] = dlopen(d->so[i].so, RTLD_NOW | RTLD_LOCAL);
        if (!h[i]) {
            int en = errno;
            const char *why = dlerror();
            why = why ? why : "?";
            /* under a memory limit (ulimit -v) mapping the library fails: out of memory,
             * like a renderer that dies of it, not a missing library */
            if (en == ENOMEM || strstr(why, "failed to map segment") ||
                strstr(why, "allocate memory")) {
                snprintf(d->msg, sizeof d->msg,
                         "%s: out of memory loading the library %s (a memory limit, "
                         "ulimit -v, too low for it?): %s", d->what, d->so[i].so, why);
                d->st = TD_E_NOMEM;
            } else {
                snprintf(d->msg, sizeof d->msg,
                         "%s: the library %s (Debian package %s) cannot be loaded: %s",
                         d->what, d->so[i].so, d->so[i].pkg, why);
                d->st = d->code;
            }
            return;
        }
    }
    for (size_t k = 0; k < d->nsym; k++) {
        void *p = NULL;
        for (size_t i = 0; i < nso && !p; i++)
            p = dlsym(h[i], d->sym[k].name);
        if (!p) {
            snprintf(d->msg, sizeof d->msg, "%s: the library %s lacks %s (too old a version?)",
                     d->what, d->so[0].so, d->sym[k].name);
            d->st = d->code;
            return;
        }
        /* POSIX: an object pointer from dlsym converts to the function's pointer */
        memcpy((char *)d->table + d->sym[k].off, &p, sizeof p);
    }
    d->st = TD_OK;
}

td_status td_dynlib_load(td_dynlib *d, const char *file, td_err *e)
{
    int s = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
    if (s == 0) {
        pthread_mutex_lock(&lock);
        s = d->state;
        if (s == 0) {
            load(d);
            s = d->st == TD_OK ? 1 : 2;
            __atomic_store_n(&d->state, s, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    if (s == 2)
        return td_fail(e, d->st, "%s%s%s", file ? file : "", file ? ": " : "", d->msg);
    return TD_OK;
}
