/* read/samba.h - SambaTune stack-tracing data (formats.md sec. 7): the project's open
 * artifact set (CSV files for compiler layers 1-3, the layer-4 runtime benchmark and an
 * snprof-like host breakdown; doc/formats.md "SambaNova stack tracing") and tracedoc's own
 * *_chrome_tracing_report.json read back.
 *
 * Artifact files are recognised by their CSV header (never by name), collected while one
 * command-line argument (a file, a directory or a tar archive) is read, and joined into
 * one trace when that argument is done. Inconsistencies are errors naming the file and
 * line ("layer1.csv: line 7: hypersection 'x' has no hyperfunction"). Everything the
 * reader keeps lives in the trace set's arena. */
#ifndef TD_READ_SAMBA_H
#define TD_READ_SAMBA_H
#include "io/instream.h"
#include "model/model.h"

/* One hypersection with every layer's fields; -1 / NAN = not given (layer missing). */
typedef struct td_samba_hs {
    const char *name;           /* layer 1 (or 2) unique name */
    const char *hyperfunction;  /* layer 1; NULL without layer 1 */
    const char *ir;             /* layer 2 IR text, NULL when not given */
    int64_t global_id;          /* layer 2 global hypersection id, -1 unknown */
    double tflop;               /* layer 1: TFLOP of one call */
    int64_t est_pmus, est_pcus; /* layer 1 */
    int64_t est_ns;             /* layer 1 estimated latency of one call */
    int64_t final_pmus, final_pcus; /* layer 3 */
    int64_t min_ns, max_ns;     /* layer 3: latency considering DRAM */
    int64_t measured_ns;        /* layer 4: measured latency of one call */
    int64_t ddr_req_bytes;      /* layer 4: average DDR request size */
    double ddr_gbps, pcie_gbps; /* layer 4 */
    double tflop_util;          /* layer 4: TFLOP utilisation, fraction 0..1 */
} td_samba_hs;

typedef struct td_samba_host {
    const char *name;           /* snprof-like category: SAMBA, PYTHON TO C, RUN SETUP... */
    int64_t ns;
} td_samba_host;

/* Layers present (td_samba.layers bits). */
enum {
    TD_SAMBA_L1 = 1,     /* layer 1: hypersections, hyperfunctions, estimates */
    TD_SAMBA_L2 = 2,     /* layer 2: name -> global id (and IR) */
    TD_SAMBA_SCHED = 4,  /* layer 2: the schedule of section calls */
    TD_SAMBA_L3 = 8,     /* layer 3: final PMUs/PCUs, min/max latency */
    TD_SAMBA_L4 = 16,    /* layer 4: runtime benchmark */
    TD_SAMBA_HOST = 32   /* host breakdown */
};

typedef struct td_samba {
    const char *model;           /* model name (the argument's base name or the report's) */
    td_samba_hs *hs; size_t nhs;
    uint32_t *sched; size_t nsched;  /* section calls in order: indices into hs */
    td_samba_host *host; size_t nhost;
    unsigned layers;
    int synthetic;               /* an artifact's '#' comment says SYNTHETIC (tools/gen_samba.py) */
} td_samba;

/* Time of one section call of h: measured latency, else the estimate, else 0. */
int64_t td_samba_call_ns(const td_samba_hs *h);

/* Does this peek (the first bytes of a stream) start an artifact CSV? */
int td_samba_sniff(const unsigned char *p, size_t n);
/* Read one artifact file (the whole stream, bounded) into the set's pending collection;
 * errors name the file and line. */
td_status td_samba_collect(td_traceset *set, td_in *in, const char *name, td_err *e);
/* Called when a command-line argument has been read: joins the collected files into one
 * trace named arg (checking them against each other) when st is TD_OK, and frees the
 * collection in every case. Returns st, or the join's error. */
td_status td_samba_input_done(td_traceset *set, const char *arg, td_status st, td_err *e);

/* Does this peek start one of tracedoc's stack-trace reports? */
int td_samba_is_report(const unsigned char *p, size_t n);
/* Read a report (its bytes in memory, into the new trace t): the events through the
 * Chrome reader, then the layer fields from the section-call events' args. */
td_status td_samba_read_report(td_traceset *set, td_trace *t, const char *name,
                               const void *data, size_t n, td_err *e);

#endif
