/* read/rocprof.h - AMD rocprofv3 (ROCprofiler-SDK) output: the JSON file
 * (`--output-format json`, `*_results.json`: {"rocprofiler-sdk-tool": [...]}).
 *
 * The JSON is read as a stream through the project's JSON scanner (no DOM): agents become
 * devices (GPU agents numbered by gpu_index, else in file order), kernel dispatches
 * become kernels on one track per (agent, HIP stream) (per (agent, queue) for files
 * without stream ids), memory copies device copies, HIP API
 * records runtime calls and HSA API records driver calls on the process's threads (their
 * internal correlation id links a launch to its dispatch), and ROCTx ranges (marker_api
 * records named by strings.marker_api) user annotations, so steps and modules work as for
 * Kineto. doc/formats.md says what is read and what is not. */
#ifndef TD_READ_ROCPROF_H
#define TD_READ_ROCPROF_H
#include "io/instream.h"
#include "model/model.h"

/* 1 when the first bytes look like rocprofv3 JSON (the "rocprofiler-sdk-tool" key). */
int td_rocprof_json_sniff(const unsigned char *p, size_t n);

/* Read one rocprofv3 JSON stream into t (one process). Errors (TD_E_FORMAT) name the file
 * and the byte offset in the decoded data; a truncated file keeps what was read (a
 * warning). */
td_status td_read_rocprof_json(td_traceset *set, td_trace *t, td_in *in, td_err *e);

#endif
