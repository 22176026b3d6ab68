/* base/util.h - arena, string interning, growable buffers, errors, files.
 * Everything allocated from a td_arena lives until td_arena_free(); nothing in the
 * model is freed one by one. Functions here never print or exit. */
#ifndef TD_UTIL_H
#define TD_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

/* Error codes returned by modules; cli/main.c maps them to exit codes. */
typedef enum {
    TD_OK = 0,
    TD_E_NOMEM,
    TD_E_IO,       /* cannot open/read a file */
    TD_E_FORMAT,   /* invalid or unsupported input */
    TD_E_USAGE,    /* bad option / bad template */
    TD_E_OUTPUT,   /* cannot write output */
    TD_E_INTERNAL
} td_status;

/* An error with a message; modules fill it, cli/main.c prints it.
 * Message style: "FILE: byte 1234: expected ',' or '}'" (no "tracedoc: " prefix). */
typedef struct td_err {
    td_status code;
    char msg[1024];
} td_err;
td_status td_fail(td_err *e, td_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Warnings collected during a run (owned by the list; kept in order). */
typedef struct td_warnings {
    char **msg;
    size_t n, cap;
} td_warnings;
void td_warn(td_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void td_warnings_free(td_warnings *w);

/* Arena: bump allocator in chunks. Memory is zeroed. Never returns NULL (aborts on OOM
 * through td_oom, which cli/main.c may replace). */
typedef struct td_arena td_arena;
td_arena *td_arena_new(void);
void td_arena_free(td_arena *a);
void *td_arena_alloc(td_arena *a, size_t n);
char *td_arena_strdup(td_arena *a, const char *s);
char *td_arena_strndup(td_arena *a, const char *s, size_t n);
char *td_arena_printf(td_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t td_arena_bytes(const td_arena *a);

/* Checked malloc/realloc: abort with a message on out-of-memory. */
void *td_xmalloc(size_t n);
void *td_xcalloc(size_t n, size_t size);
void *td_xrealloc(void *p, size_t n);
char *td_xstrdup(const char *s);
/* Grow *p (element size es) so that it can hold need elements; *cap updated. */
void td_grow(void **p, size_t *cap, size_t need, size_t es);
#define TD_PUSH(arr, n, cap) \
    (td_grow((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)), &(arr)[(n)++])

/* String interning: id 0 is the empty string. Strings are stored once, NUL-terminated,
 * in the table's own arena; ids are dense (0..count-1). */
typedef uint32_t td_str;
typedef struct td_strtab td_strtab;
td_strtab *td_strtab_new(void);
void td_strtab_free(td_strtab *t);
td_str td_intern(td_strtab *t, const char *s, size_t len);
td_str td_intern_cstr(td_strtab *t, const char *s);
const char *td_strget(const td_strtab *t, td_str id);
uint32_t td_strlen_of(const td_strtab *t, td_str id);
size_t td_strtab_count(const td_strtab *t);

/* Growable byte buffer. */
typedef struct td_buf {
    char *p;
    size_t n, cap;
} td_buf;
void td_buf_put(td_buf *b, const void *s, size_t n);
void td_buf_puts(td_buf *b, const char *s);
void td_buf_putc(td_buf *b, char c);
void td_buf_printf(td_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void td_buf_free(td_buf *b);
/* Write the buffer to f and free it: TD_OK, or TD_E_OUTPUT "write error". */
td_status td_buf_flush(td_buf *b, FILE *f, td_err *e);
const char *td_buf_cstr(td_buf *b); /* NUL-terminates (not counted in n) */

/* Decompress a whole .xz buffer into a malloc'd one (*out, *outn), at most max bytes;
 * guess is the first output size tried. Returns 0, or TD_XZ_TOO_BIG, TD_XZ_CORRUPT
 * (*at = input byte where decoding stopped), TD_XZ_TRUNCATED, TD_XZ_INIT; on error
 * *out is NULL. */
enum { TD_XZ_TOO_BIG = 1, TD_XZ_CORRUPT, TD_XZ_TRUNCATED, TD_XZ_INIT };
int td_unxz(const uint8_t *in, size_t n, size_t guess, size_t max, uint8_t **out,
            size_t *outn, size_t *at);

/* LEB128 varint (protobuf, Thrift compact) at *p, not past end: advances *p; on a
 * truncated or over-long varint sets *bad = 1 and returns 0. */
uint64_t td_varint(const uint8_t **p, const uint8_t *end, int *bad);

/* Decode one UTF-8 sequence strictly; returns bytes consumed (>= 1); invalid input gives
 * U+FFFD per maximal invalid subpart. */
size_t td_utf8_next(const unsigned char *s, uint32_t *cp);
/* Append s as escaped XML text (valid in character data and attributes; invalid UTF-8
 * and characters XML forbids become U+FFFD; tabs/newlines become spaces), at most maxcp
 * code points (0 = all; when cut, the last two shown become ".."). */
void td_buf_xml(td_buf *b, const char *s, size_t maxcp);
/* JSON writers (Chrome Trace Event files, summary.json): td_json_str writes s as a JSON
 * string ("null" for NULL): invalid UTF-8 becomes U+FFFD, control characters and <>&
 * are \u escapes (safe inside HTML/SVG script blocks). td_json_us writes ns as
 * microseconds with three decimals (exact ns: "12.345"); td_json_real the shortest
 * decimal that reads back as the same double ("null" when not finite).
 * td_chrome_meta writes one Chrome metadata pair, the name ("process_name" or
 * "thread_name" in what) and its sort index, each preceded by ",\n". */
void td_json_str(FILE *f, const char *s);
void td_json_us(FILE *f, int64_t ns);
void td_json_real(FILE *f, double v);
void td_chrome_meta(FILE *f, int64_t pid, int64_t tid, const char *what, const char *name,
                    int64_t sort);
/* Length of a UTF-8 string in code points (continuation bytes not counted). */
size_t td_utf8_len(const char *s);

/* Edit distance between two short names (insert, delete, substitute, swap of neighbours;
 * ASCII case ignored), for "did you mean" suggestions. Names past 63 bytes compare as far. */
size_t td_edit_distance(const char *a, const char *b);

/* Hash of bytes (FNV-1a 64); stable across runs and platforms (used for colours). */
uint64_t td_hash64(const void *p, size_t n);

/* SHA-256 of a byte range, as 64 lowercase hex chars + NUL. */
typedef struct td_sha256 td_sha256;
td_sha256 *td_sha256_new(void);
void td_sha256_update(td_sha256 *s, const void *p, size_t n);
void td_sha256_final(td_sha256 *s, char hex[65]); /* frees s */

/* Write a whole output file safely. A regular file (new, or the target of a symbolic
 * link, which is kept) is written to a temporary name beside it and renamed when
 * complete: on failure nothing is left at PATH or the temporary name. A character device
 * or FIFO is written directly (never replaced); "-", /dev/stdout, /dev/stderr and
 * /dev/fd/N write to that descriptor. A directory, block device, socket or dangling
 * symbolic link is refused (TD_E_OUTPUT). */
td_status td_write_file_atomic(const char *path, const void *data, size_t n, td_err *e);
/* Atomic write through a callback writing to a FILE*. cb returns TD_OK or an error. */
td_status td_write_atomic_cb(const char *path, td_status (*cb)(FILE *f, void *ctx, td_err *e),
                             void *ctx, td_err *e);
/* For writers that need a file name (PDF, workbook): a temporary name (malloc'd) beside
 * path's real file, or a private one in $TMPDIR when path is a device, FIFO or stream,
 * and the commit: rename, or copy into the device/stream; it removes tmp either way. */
char *td_tmp_name(const char *path);
td_status td_commit_tmp(const char *tmp, const char *path, td_err *e);

/* Read a whole small file (templates, summaries). *out malloc'd, NUL-terminated. */
td_status td_read_small_file(const char *path, char **out, size_t *n, td_err *e);

/* Formatting helpers for documents (LC_ALL=C style, deterministic).
 * td_fmt_ns: human time with unit, 3 significant decimals: "127.212 ms", "3.1 us". */
void td_fmt_ns(char *dst, size_t cap, int64_t ns);
void td_fmt_bytes(char *dst, size_t cap, int64_t bytes); /* "1.50 MiB" */

/* Monotonic clock in ns, for --timings. */
int64_t td_now_ns(void);

/* Date of the documents: SOURCE_DATE_EPOCH (reproducible builds), or the current time
 * when it is unset or invalid. */
int64_t td_source_date_epoch(void);

#endif
