/* base/fmt.h - formatting helpers for documents (LC_ALL=C style, deterministic), into
 * the caller's buffer. td_fmt_ns: human time with unit, 3 decimals: "127.212 ms",
 * "3.100 \u00b5s", "12 ns". td_fmt_bytes: "1.50 MiB". Microseconds are written with the
 * micro sign (TD_US) in every document, the workbook's column headers included.
 * td_unit_name: the unit of a scale in ns per unit (1 "ns", 1e3 TD_US, 1e6 "ms", 1e9 "s"). */
#ifndef TD_FMT_H
#define TD_FMT_H
#include <stddef.h>
#include <stdint.h>

void td_fmt_ns(char *dst, size_t cap, int64_t ns);
void td_fmt_bytes(char *dst, size_t cap, int64_t bytes);
const char *td_unit_name(double scale);
/* v with ndec (0-9) decimals, the bytes printf("%.*f", ndec, v) writes (the double's
 * exact value correctly rounded, ties to even; a value too near a tie for the fast way,
 * or too large, goes through snprintf), NUL-terminated; returns the length (cap >= 32
 * for the fast way). td_fmt_int: printf("%lld"). For the drawings' hot loops (an SVG
 * flamegraph writes five numbers a frame). */
size_t td_fmt_fixed(char *dst, size_t cap, double v, int ndec);
size_t td_fmt_int(char *dst, size_t cap, int64_t v);

#define TD_US "\xc2\xb5s" /* "us" with the micro sign */

#endif
