/* render/pdf/gfx.c - loads the graphics libraries of gfx.h when a PDF is first drawn. */
#define TD_GFX_LOADER
#include "render/pdf/gfx.h"
#include "base/dynlib.h"
#include <stddef.h>

/* the shared objects (by their stable sonames) and the Debian packages holding them; a
 * function is looked up in each in turn */
TD_DYNLIB_DEFINE(td_gfx, td_gfx_fns, TD_GFX_FUNCS, td_gfx_load, "cannot write a PDF", TD_E_OUTPUT,
                 {"libcairo.so.2", "libcairo2"}, {"libpango-1.0.so.0", "libpango-1.0-0"},
                 {"libpangocairo-1.0.so.0", "libpangocairo-1.0-0"},
                 {"libpangoft2-1.0.so.0", "libpangoft2-1.0-0"},
                 {"libfontconfig.so.1", "libfontconfig1"},
                 {"libgobject-2.0.so.0", "libglib2.0-0"}, {"libglib-2.0.so.0", "libglib2.0-0"})
