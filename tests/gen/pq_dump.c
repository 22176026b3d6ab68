/* tests/gen/pq_dump.c - a Parquet file as TSV (header, then one line per row; NULL for a
 * missing value), through tracedoc's own reader; tests/gen/jax_one_process.py reads its
 * output. Build after `make BUILD=build`:
 *   cc -std=c11 -Isrc tests/gen/pq_dump.c build/libtracedoc.a -o pq_dump \
 *      $(pkg-config --libs libarchive zlib liblzma libzstd) -lsnappy -lcsv -lm -lpthread
 * Not part of the build or the tests. */
#include "io/parquet.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    FILE *fp = fopen(argv[1], "rb"); fseek(fp, 0, SEEK_END); long n = ftell(fp); rewind(fp);
    char *d = malloc(n); fread(d, 1, n, fp); fclose(fp);
    td_pq_file *f; td_err e;
    if (td_pq_open(argv[1], d, n, &f, &e)) { fprintf(stderr, "%s\n", e.msg); return 1; }
    int nc = td_pq_ncols(f); const td_pq_col *c[64];
    for (int i = 0; i < nc; i++) { td_pq_read(f, i, &c[i], &e); printf("%s%s", i ? "\t" : "", td_pq_colname(f, i)); }
    printf("\n");
    for (size_t r = 0; r < td_pq_nrows(f); r++) {
        for (int i = 0; i < nc; i++) {
            printf("%s", i ? "\t" : "");
            if (c[i]->valid && !c[i]->valid[r]) { printf("NULL"); continue; }
            if (c[i]->str) printf("%s", c[i]->str[r]);
            else if (c[i]->i64) printf("%lld", (long long)c[i]->i64[r]);
            else if (c[i]->f64) printf("%.17g", c[i]->f64[r]);
        }
        printf("\n");
    }
    return 0;
}
