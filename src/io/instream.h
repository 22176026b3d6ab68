/* io/instream.h - input byte streams for the readers: a file, stdin, memory or a libarchive
 * member, optionally gunzipped on the fly (ISA-L, multi-member gzip), with a peek window
 * for content sniffing. The raw bytes (as stored) are counted and SHA-256 hashed as they
 * are pulled, so a trace's `bytes` and `sha256` cost no second pass.
 * Decompression is streamed into the caller's buffer: memory never grows with the
 * decompressed size. Files and stdin are read ahead by a thread (TD_NO_READ_THREAD=1 in
 * the environment turns it off, for measurements). */
#ifndef TD_INSTREAM_H
#define TD_INSTREAM_H
#include "base/util.h"

struct archive;
typedef struct td_in td_in;

/* Open a file ("-" = stdin). `name` is the path used in messages (copied). NULL + e on
 * failure. Caller frees with td_in_close. */
td_in *td_in_open_file(const char *path, const char *name, td_err *e);
/* A stream over memory the caller keeps alive until td_in_close. */
td_in *td_in_open_mem(const void *p, size_t n, const char *name);
/* The current member of an open libarchive reader (archive_read_data). */
td_in *td_in_open_archive_member(struct archive *a, const char *name);
/* A stream whose raw bytes are the decoded bytes of another stream (for libarchive on a
 * gunzipped tar): reads of the new stream pull td_in_read(src). src stays owned by the
 * caller and must outlive the new stream. */
td_in *td_in_open_stream(td_in *src, const char *name);
void td_in_close(td_in *in);

const char *td_in_name(const td_in *in);

/* Make sure up to `want` bytes of the (decoded) stream are buffered; *p points at them.
 * Returns how many are available (less at end of stream), or -1 on error (e filled).
 * Peeked bytes are returned again by later reads. */
ptrdiff_t td_in_peek(td_in *in, size_t want, const unsigned char **p, td_err *e);

/* From now on, gunzip the stream (call after peeking the gzip magic, before reading). */
void td_in_gunzip(td_in *in);
int td_in_is_gzip(const td_in *in);

/* Read up to cap decoded bytes into dst. Returns the count, 0 at end of stream, -1 on
 * error (e filled: "NAME: ..."). */
ptrdiff_t td_in_read(td_in *in, void *dst, size_t cap, td_err *e);

/* Read the rest of the decoded stream into one malloc'd buffer (*out, caller frees),
 * refusing more than `limit` bytes, and more than td_bound_allow(td_in_stored(in)). */
td_status td_in_read_all(td_in *in, size_t limit, unsigned char **out, size_t *n, td_err *e);

/* Bounds (io/bound.h). td_in_set_outer: `in` is a member read out of `outer` (a tar
 * stream), which counts as its input as stored. td_in_stored: bytes of the input as
 * stored (compressed, on disk; of the outermost stream) pulled so far to make the decoded
 * bytes read so far. td_in_set_held_base / td_in_held_base: the memory a reader's set
 * held when the input (the outermost stream) started, for readers that compare what they
 * hold since with td_bound_allow(td_in_stored(in)). td_in_read_all also refuses data past
 * td_bound_allow of the bytes as stored (a decompression bomb). */
void td_in_set_outer(td_in *in, td_in *outer);
uint64_t td_in_stored(const td_in *in);
void td_in_set_held_base(td_in *in, uint64_t held);
uint64_t td_in_held_base(const td_in *in);

/* Pull and hash the rest of the raw stream (so bytes/sha256 cover the whole input even
 * when the reader stopped early), then give the totals. */
td_status td_in_finish(td_in *in, uint64_t *raw_bytes, char sha256[65], td_err *e);

#endif
