/* io/parquet_int.h - private to the Parquet reader (io/parquet.c: footer, schema and
 * metadata; io/parquet_page.c: pages and column decoding): limits, format constants and
 * the file structure. Everything in a td_pq_file lives in its arena or is freed by
 * td_pq_close. */
#ifndef TD_PARQUET_INT_H
#define TD_PARQUET_INT_H
#include "io/parquet.h"
#include "io/thrift.h"

#define MAX_PAGE (256u << 20)      /* largest decompressed page we accept */
#define MAX_VALUES (64u << 20)     /* largest column (values) we accept */
#define MAX_DEPTH 32               /* schema nesting */

enum { PAGE_DATA = 0, PAGE_INDEX = 1, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICT = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4,
       ENC_RLE_DICT = 8 };
enum { CODEC_NONE = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_ZSTD = 6 };

static inline const char *codec_name(int c)
{
    static const char *n[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4",
                               "ZSTD", "LZ4_RAW" };
    return c >= 0 && c < 8 ? n[c] : "unknown codec";
}
static inline const char *enc_name(int c)
{
    static const char *n[] = { "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
                               "BIT_PACKED", "DELTA_BINARY_PACKED",
                               "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                               "RLE_DICTIONARY", "BYTE_STREAM_SPLIT" };
    return c >= 0 && c < 10 ? n[c] : "unknown encoding";
}
static inline const char *type_name(int t)
{
    static const char *n[] = { "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                               "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY" };
    return t >= 0 && t < 8 ? n[t] : "unknown type";
}


typedef struct leaf {
    char *name;        /* dotted path */
    int type;
    int max_def, max_rep;
    int nested;        /* below a group: not supported for reading */
} leaf;

typedef struct chunk {
    int type, codec;
    int64_t num_values, start, size;
    int has_meta;
    char *path;        /* path_in_schema joined by '.' */
} chunk;

typedef struct rowgroup {
    int64_t num_rows;
    chunk *ch;
    size_t nch;
} rowgroup;

struct td_pq_file {
    const char *name;
    const uint8_t *d;
    size_t n;
    td_arena *a;
    int64_t num_rows;
    leaf *lv; int nleaves;
    rowgroup *rg; size_t nrg;
    td_pq_col **cols;   /* decoded columns, by leaf index, NULL until read */
};

#endif
