/* read/ipu.h - Graphcore IPU reports in tracedoc's open export format ("tracedoc.ipu/1",
 * JSON Lines; schema in doc/formats.md "Graphcore IPU export"), the data model of libpva
 * (PopVision Analysis library): the target, runs, the detailed execution trace (program
 * steps with per-IPU cycles, BSP tile data, exchanged bytes) and lightweight-profiling
 * blocks.
 *
 * The reader fills one td_ipu per input (t->ipu; the types and td_ipu_free are the
 * model's, model/ipu.h). Errors name the file, line and byte offset; counts that do not
 * fit 32 bits (the IPU's cycle counters) are accepted with a warning. */
#ifndef TD_READ_IPU_H
#define TD_READ_IPU_H
#include "io/instream.h"
#include "model/ipu.h"

/* True when the first bytes are a tracedoc.ipu export's header line. */
int td_ipu_sniff(const unsigned char *p, size_t n);

/* Read the whole stream into t (format TD_FMT_IPU, t->ipu). */
td_status td_read_ipu(td_traceset *set, td_trace *t, td_in *in, td_err *e);
/* The same on bytes in memory (tests, fuzzing). */
td_status td_read_ipu_mem(td_traceset *set, td_trace *t, const char *name, const void *data,
                          size_t n, td_err *e);

#endif
