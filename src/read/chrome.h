/* read/chrome.h - streaming Chrome Trace Event (Kineto, JAX, Perfetto JSON) reader.
 *
 * One pass over the (decoded) stream through a reused buffer; no DOM. Fills t (events,
 * tracks, flows, counters, devices, distributedInfo) and adds warnings for damaged input
 * (truncated tail, unmatched B/E, negative durations, invalid UTF-8...) to
 * set->warnings. Errors (TD_E_FORMAT) name the file and the byte offset in the decoded
 * data: "FILE: byte N: expected ...". t->format is set; t->bytes/sha256 are the
 * caller's (they come from the stream). */
#ifndef TD_READ_CHROME_H
#define TD_READ_CHROME_H
#include "io/instream.h"
#include "model/model.h"

td_status td_read_chrome(td_traceset *set, td_trace *t, td_in *in, td_err *e);
/* The same; *no_events is set to 1 when the input is a JSON object without traceEvents
 * (an error: some other JSON file, which directory scans skip). */
td_status td_read_chrome_ex(td_traceset *set, td_trace *t, td_in *in, int *no_events,
                            td_err *e);

/* The same on bytes in memory (unit tests); name is used in messages. */
td_status td_read_chrome_mem(td_traceset *set, td_trace *t, const char *name,
                             const void *data, size_t n, td_err *e);

/* Parse a JSON number's text into an integer scaled by 10^scale, rounding half away from
 * zero, without going through a double ("1712195495519689.047", scale 3 ->
 * 1712195495519689047). Returns the end of the number, or NULL when p does not start a
 * number or the value does not fit int64 (then *out is untouched). Exposed for tests. */
const char *td_chrome_parse_scaled(const char *p, const char *end, int scale, int64_t *out);

#endif
