/* read/xplane.h - XPlane (`*.xplane.pb`: the XSpace protobuf of jax.profiler, TensorBoard's
 * profile plugin and XProf) reader, read/xplane.c; the XLA module and thunk records made
 * from its kernels, read/xplane_xla.c. */
#ifndef TD_READ_XPLANE_H
#define TD_READ_XPLANE_H
#include "model/model.h"
#include "io/instream.h"

/* Whether the first n bytes p look like an XSpace message (its first plane's fields). */
int td_xplane_sniff(const unsigned char *p, size_t n);

/* Read the XSpace of stream in (peeked, gzip undone) into t. The message is read twice
 * (the metadata that names events comes after them): path, a regular file, is opened
 * again for the first reading; without one (stdin, archive members) the decoded bytes
 * are held in memory (at most limit bytes). */
td_status td_read_xplane(td_traceset *set, td_trace *t, td_in *in, const char *path,
                         size_t limit, td_err *e);

/* One device kernel with its XLA stats, for the XLA records (read/xplane_xla.c). */
typedef struct td_xk {
    int64_t ts, dur;
    int64_t program;      /* program_id, -1 none */
    td_str hlo_op, module;  /* 0 none */
    int32_t device;
} td_xk;

/* A module execution the device plane's own "XLA Modules" line gives. */
typedef struct td_xmodspan {
    int64_t ts, dur;
    int64_t program;
    td_str module;
    int32_t device;
} td_xmodspan;

/* Make t->ranges from the kernels (sorted here): per device, module executions
 * ("XlaModule:#hlo_module=M,program_id=P#", from spans when the device has them, else
 * split where the program changes or its first HLO op comes again) and one
 * "Thunk:#hlo_op=H,hlo_module=M,program_id=P#" range per kernel. Kernels without
 * hlo_module are left out (counted in *skipped). */
void td_xplane_ranges(td_traceset *set, td_trace *t, td_xk *k, size_t n, td_xmodspan *ms,
                      size_t nms, size_t *skipped);

#endif
