/* read/aiu.h - IBM AIU (Spyre) runtime "flex" traces and DeepRT compile logs.
 *
 * A flex trace is a bare JSON array of B/E pairs whose device data is in "attr": TS1..TS5
 * 32-bit cycle counters (hex or decimal strings, wrapping), Bytes, CollGroup, Power. pid is
 * the AIU, tid an unsigned 64-bit instruction stream; events come in any order and pairs
 * may be duplicated (see ../shared/traces/aiu/README.md and doc/formats.md "IBM AIU").
 * td_read_aiu_in pairs each E with the latest open B of the same (pid, tid, name), fills
 * t->aiu (one td_aiu_instr per pair, exact duplicates dropped with a warning) and one
 * td_event per pair (host times, TD_K_OTHER) so the generic passes see the time span.
 *
 * A DeepRT compile log is text; its "Perf Summary" tables (opened by a line containing
 * " Ideal/Total Cycles ", closed by "====== Perf Summary End ======") give ideal cycles
 * and a category per kernel; td_read_complog appends them to set->ideal. */
#ifndef TD_READ_AIU_H
#define TD_READ_AIU_H
#include "io/instream.h"
#include "model/model.h"

/* 1 when the first bytes of a JSON input look like a flex trace: a bare array whose
 * first event has an "attr" object with TS counters. */
int td_aiu_looks_flex(const unsigned char *p, size_t n);
/* 1 when the first bytes of a text input look like a DeepRT compile log. */
int td_aiu_looks_complog(const unsigned char *p, size_t n);

/* Read a flex trace from a stream, one event at a time through a reused buffer (memory
 * grows with the instructions kept, not with the file). Errors name the stream and the
 * byte offset in the decoded data: "NAME: byte N: ...". t->bytes/sha256 are the
 * caller's (they come from the stream). */
td_status td_read_aiu_in(td_traceset *set, td_trace *t, td_in *in, td_err *e);
/* The same on bytes in memory (fuzzing, tests); name is used in messages. */
td_status td_read_aiu(td_traceset *set, td_trace *t, const char *name, const char *data,
                      size_t n, td_err *e);

/* Read a compile log held in memory / from a file. A log without any Perf Summary table
 * is an error (TD_E_FORMAT) naming the file. */
td_status td_read_complog(td_traceset *set, const char *name, const char *data, size_t n,
                          td_err *e);
td_status td_read_complog_file(td_traceset *set, const char *path, td_err *e);

#endif
