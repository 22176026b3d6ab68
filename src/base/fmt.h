/* base/fmt.h - formatting helpers for documents (LC_ALL=C style, deterministic), into
 * the caller's buffer. td_fmt_ns: human time with unit, 3 decimals: "127.212 ms",
 * "3.100 us", "12 ns". td_fmt_bytes: "1.50 MiB". */
#ifndef TD_FMT_H
#define TD_FMT_H
#include <stddef.h>
#include <stdint.h>

void td_fmt_ns(char *dst, size_t cap, int64_t ns);
void td_fmt_bytes(char *dst, size_t cap, int64_t bytes);

#endif
