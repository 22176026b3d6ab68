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

/* The rocpd SQLite database (read/rocprof_db.c). td_rocpd_probe_*: 1 when an SQLite file
 * has rocpd's views (else it is read as an Nsight Systems export). A file on disk is opened
 * read-only by SQLite itself; other inputs are given in memory. */
int td_rocpd_probe_file(const char *path);
int td_rocpd_probe_mem(const void *data, size_t n);
td_status td_read_rocpd_file(td_traceset *set, td_trace *t, const char *name, const char *path,
                             td_err *e);
td_status td_read_rocpd_mem(td_traceset *set, td_trace *t, const char *name, const void *data,
                            size_t n, td_err *e);

/* rocprofv3's CSV files (read/rocprof_csv.c): the files of one prefix (PID_kernel_trace.csv,
 * PID_hip_api_trace.csv, ...) that one input argument gives become one trace. _sniff: 1 for
 * a rocprofv3 CSV header; _collect reads one file into its prefix's trace; _done, once the
 * argument is read, numbers devices and tracks and sets size and SHA-256 (it returns st,
 * or its own error). */
int td_rocprof_csv_sniff(const unsigned char *p, size_t n);
td_status td_rocprof_csv_collect(td_traceset *set, td_in *in, const char *name, td_err *e);
td_status td_rocprof_csv_done(td_traceset *set, td_status st, td_err *e);

#endif
