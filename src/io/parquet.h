/* io/parquet.h - a small, defensive Apache Parquet reader (flat schemas).
 *
 * Reads a whole .parquet file already in memory: footer, Thrift compact metadata,
 * data pages v1/v2, dictionary pages; PLAIN, RLE/bit-packed hybrid, PLAIN_DICTIONARY
 * and RLE_DICTIONARY encodings; UNCOMPRESSED, SNAPPY, GZIP and ZSTD codecs; physical
 * types BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY; optional columns; any number
 * of row groups. Anything else (nested/repeated columns, INT96, DELTA encodings, LZ4,
 * BROTLI, encryption) is a TD_E_FORMAT error naming the file, column and feature.
 * Every length and offset is checked against the buffer: the input is untrusted. */
#ifndef TD_PARQUET_H
#define TD_PARQUET_H
#include "base/util.h"

typedef enum {
    TD_PQ_BOOLEAN = 0, TD_PQ_INT32 = 1, TD_PQ_INT64 = 2, TD_PQ_INT96 = 3,
    TD_PQ_FLOAT = 4, TD_PQ_DOUBLE = 5, TD_PQ_BYTE_ARRAY = 6, TD_PQ_FIXED = 7
} td_pq_type;

/* One decoded column: nrows values. Integer types (and BOOLEAN) are widened into i64,
 * FLOAT/DOUBLE into f64; BYTE_ARRAY values are (str, len) pairs, NUL-terminated, owned
 * by the file. valid[i] == 0 means null (valid is NULL when no value is null). */
typedef struct td_pq_col {
    const char *name;
    td_pq_type type;
    size_t n;
    uint8_t *valid;
    int64_t *i64;
    double *f64;
    const char **str;
    uint32_t *len;
} td_pq_col;

typedef struct td_pq_file td_pq_file;

/* Parse the footer and schema. data must outlive the returned file. *out is freed with
 * td_pq_close. name is used in messages. */
td_status td_pq_open(const char *name, const void *data, size_t n, td_pq_file **out,
                     td_err *e);
void td_pq_close(td_pq_file *f);

size_t td_pq_nrows(const td_pq_file *f);
int td_pq_ncols(const td_pq_file *f);
const char *td_pq_colname(const td_pq_file *f, int i);   /* top-level leaf names */
int td_pq_find(const td_pq_file *f, const char *name);   /* column index or -1 */

/* Decode column i across all row groups. The column (and its strings) belongs to f;
 * reading the same column twice returns the same data. */
td_status td_pq_read(td_pq_file *f, int i, const td_pq_col **out, td_err *e);

#endif
