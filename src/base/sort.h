/* base/sort.h - sorts of plain integer keys for the analysis passes' hot paths, where
 * glibc's qsort (a merge sort calling a comparison function per step, with a copy of
 * the array) was a tenth of a 1 GB trace's run: a radix sort of int64 values, and a
 * stable radix sort of records by an int64 key carried beside a 32-bit payload. Small
 * arrays go through insertion sort. The results equal qsort's with the obvious
 * comparison (ties keep their input order in td_sort_keyed). */
#ifndef TD_SORT_H
#define TD_SORT_H
#include <stddef.h>
#include <stdint.h>

/* Ascending, in place. */
void td_sort_i64(int64_t *v, size_t n);

/* A key and what it sorts (an index, usually). */
typedef struct td_keyed {
    int64_t key;
    int64_t val;
} td_keyed;

/* Ascending by key, stable (equal keys keep their order), in place. */
void td_sort_keyed(td_keyed *v, size_t n);
/* The same for any 16-byte record whose first member is its int64_t key. */
void td_sort_rec16(void *v, size_t n);

#endif
