/* render/xlsx/xlsx_lib.c - see render/xlsx/xlsx_lib.h. */
#define TD_XLSX_LOADER
#include "render/xlsx/xlsx_lib.h"
#include <stddef.h>

TD_DYNLIB_DEFINE(td_xlsx, td_xlsx_fns, TD_XLSX_FUNCS, td_xlsx_load, "cannot write a workbook", TD_E_OUTPUT,
                 {"libxlsxwriter.so.4", "libxlsxwriter4"})
