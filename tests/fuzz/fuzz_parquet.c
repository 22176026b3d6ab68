/* The Parquet reader: footer, schema, then every column decoded. */
#include "fuzz.h"
#include "io/parquet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    td_pq_file *f = NULL;
    td_err e = {0};
    if (td_pq_open("fuzz.parquet", data, size, &f, &e) != TD_OK)
        return 0;
    for (int i = 0; i < td_pq_ncols(f); i++) {
        const td_pq_col *c;
        (void)td_pq_colname(f, i);
        td_pq_read(f, i, &c, &e);
    }
    td_pq_close(f);
    return 0;
}
