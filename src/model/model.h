/* model/model.h - the in-memory trace model every reader fills and every pass reads.
 *
 * One td_trace per input (one rank / one process archive). Events are a flat array
 * of small fixed-size records; names are interned in the trace set's string table;
 * tracks (process/thread/stream/device) are small ids. Times are integer ns.
 * All memory belongs to the td_traceset (its arena and arrays); nothing is freed
 * one by one. */
#ifndef TD_MODEL_H
#define TD_MODEL_H
#include "base/util.h"

/* What an event is, independent of the source format. */
typedef enum {
    TD_K_OTHER = 0,     /* anything not listed (kept for flamegraphs/time span) */
    TD_K_CPU_OP,        /* cpu_op / Operator / legacy "CPU functions" X events */
    TD_K_USER_ANNOT,    /* user_annotation (record_function, ProfilerStep#N) */
    TD_K_PYTHON,        /* python_function */
    TD_K_RUNTIME,       /* cuda_runtime, privateuse1_runtime, hip runtime, cudaLaunch* */
    TD_K_DRIVER,        /* cuda_driver, privateuse1_driver */
    TD_K_OVERHEAD,      /* profiler overhead */
    TD_K_KERNEL,        /* device kernel (NCCL kernels too: see aux coll) */
    TD_K_MEMCPY,        /* device memcpy */
    TD_K_MEMSET,        /* device memset */
    TD_K_GPU_ANNOT,     /* gpu_user_annotation */
    TD_K_DEVICE_OTHER,  /* other device-side work (mtia_*, hpu_op, ...) counted as COMP */
    TD_K_RANGE,         /* NVTX range (push/pop or start/end), CPU times; see td_range */
    TD_K_INSTANT,       /* i/I instant events (dur 0) */
    TD_K_ASYNC,         /* paired b/e async ranges */
    TD_K__COUNT
} td_kind;

/* True for kinds that run on a device (GPU timeline inputs). */
static inline int td_kind_is_device(int k)
{
    return k == TD_K_KERNEL || k == TD_K_MEMCPY || k == TD_K_MEMSET || k == TD_K_DEVICE_OTHER;
}

typedef struct td_event {
    int64_t ts;      /* start, ns (absolute as in the file) */
    int64_t dur;     /* duration, ns (>= 0; negative in the file is clamped and warned) */
    int64_t corr;    /* correlation id linking runtime call <-> device work; 0 = none */
    td_str name;     /* interned name */
    uint32_t track;  /* index into td_trace.tracks */
    uint32_t aux;    /* index into td_trace.aux (1-based), 0 = none */
    uint16_t cat;    /* index into td_trace.cats (interned category), 0 = none */
    uint8_t kind;    /* td_kind */
    uint8_t ph;      /* phase as in the file: 'X','B'(paired),'i','b'(paired),...; 'g': a
                        copy of a graph-capture event that analyse/graphs put inside the
                        graph launch it replays */
} td_event;

/* Extra arguments for device work and ops that have them. */
typedef struct td_aux {
    int64_t bytes;        /* memcpy/memset bytes; -1 unknown */
    int64_t ext_id;       /* "External id"; 0 none */
    uint32_t nccl;        /* its NCCL arguments: td_trace.nccl[nccl - 1]; 0 none */
} td_aux;

/* A collective kernel's NCCL arguments (td_aux_nccl), apart from td_aux: 32 bytes that
 * most device work has no use for (the 1 GB Kineto trace: 375 K aux records). */
typedef struct td_nccl {
    int64_t in_nelems;    /* NCCL "In msg nelems"; -1 unknown */
    int64_t out_nelems;   /* NCCL "Out msg nelems"; -1 unknown */
    td_str coll;          /* NCCL "Collective name" (e.g. "allreduce"); 0 none */
    td_str dtype;         /* NCCL "dtype" (e.g. "Float"); 0 none */
    int32_t group_size;   /* NCCL "Group size"; 0 unknown */
} td_nccl;

/* A kernel's launch dimensions (Kineto args grid/block, nsys gridX..blockZ): dims[i]
 * belongs to aux[i]. Only `export` writes them, so a set read for the analysis
 * (td_traceset.analysis_only) keeps none: 24 bytes less for every aux record (the 1 GB Kineto
 * trace's 375 K, the 1.15 GB nsys export's 950 K kernels). */
typedef struct td_dims {
    int32_t grid[3], block[3];
} td_dims;

/* A track: where events happen. CPU threads have device = -1. */
typedef struct td_track {
    int64_t pid, tid;     /* numeric ids; string pids/tids are interned and hashed here */
    td_str pid_str;       /* original pid text when it was a string, else 0 */
    td_str tid_str;
    td_str process_name;  /* from M process_name / nsys process */
    td_str thread_name;   /* from M thread_name / ThreadNames */
    int32_t device;       /* device id for device tracks, -1 for host tracks */
    int32_t stream;       /* stream id for device tracks, -1 otherwise */
    int32_t sort_index;   /* thread_sort_index (or process_sort_index), 0 default */
} td_track;

/* Flow events (s/t/f), kept as they are; Kineto ac2g flows link launch -> kernel. */
typedef struct td_flow {
    int64_t id;
    int64_t ts;
    td_str cat;
    uint32_t track;
    char ph;              /* 's', 't', 'f' */
    uint8_t bind_next;    /* "bp":"e" on f events */
} td_flow;

/* Counter samples (C events): one row per series value. */
typedef struct td_counter {
    int64_t ts;
    td_str name;          /* event name */
    td_str series;        /* key inside args */
    uint32_t track;
    double value;
} td_counter;

/* An NVTX/annotation range with its GPU projection (nsys, nsys-jax).
 * Events of kind TD_K_RANGE carry aux-free CPU times; td_range adds projection. */
typedef struct td_range {
    int64_t start, end;          /* CPU times, ns */
    int64_t gpu_start, gpu_end;  /* projected GPU times; gpu_start < 0 = no GPU work */
    td_str name;
    uint32_t track;              /* launching thread */
    int32_t device;              /* device of the projected work, -1 unknown */
    int32_t level;               /* nesting depth (0 = outermost) */
    int64_t range_id, parent_id; /* ids as in the source, parent 0/-1 = none */
    int32_t num_gpu_ops;
    int32_t num_child;
} td_range;

/* A torch.profiler `[memory]` instant event (profile_memory=True): one allocation (Bytes
 * > 0) or free (< 0) and the allocator's totals after it, per device. */
typedef struct td_mem {
    int64_t ts;
    int64_t allocated;    /* "Total Allocated", bytes; -1 absent */
    int64_t reserved;     /* "Total Reserved", bytes; -1 absent */
    int64_t bytes;        /* "Bytes" */
    int32_t device_type;  /* "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA, ...), -1 absent */
    int32_t device;       /* "Device Id" (-1 for the CPU) */
    uint32_t track;       /* the CPU thread it happened on */
} td_mem;

/* Input shapes of a CPU op the per-op performance model reads (record_shapes=True):
 * the args' raw JSON text, kept only for the ops td_shape_op_wanted names. */
typedef struct td_shape {
    int64_t ts;           /* the op event's start, track and name (events are sorted */
    uint32_t track;       /* after reading: analyse/op_perf.c finds the op by these) */
    td_str name;
    td_str dims;          /* "Input Dims" as in the file, e.g. "[[512], [141, 512]]" */
    td_str types;         /* "Input type", e.g. "[\"float\", \"float\"]" */
    td_str concrete;      /* "Concrete Inputs", 0 absent */
} td_shape;

/* A host event with a torch.profiler "Sequence number" (the autograd node id the op
 * records), for analyse/op_perf_bwd.c, which links a forward op to its backward function
 * by them as TraceLens does (doc/summary-json.md "op_perf_bwd"). The reader keeps, per
 * number, only the first `autograd::engine::evaluate_function:` event with it and the
 * latest event with it on another thread (the leaf), and only when the leaf lies in an op
 * whose backward pass op_perf_bwd times (td_shape_op_wanted 2): none on a forward-only
 * trace. */
typedef struct td_seqrec {
    int64_t ts;           /* the event's start, track and name (found again after the */
    int64_t seq2;         /* sort, as td_shape); the number x 2, + 1 for the function */
    uint32_t track;
    td_str name;
} td_seqrec;

/* The kernel a launch call names (Kineto args "kernel" of hipLaunchKernel,
 * cudaLaunchKernel...), by the call's correlation id: kept only when
 * td_traceset.keep_launch_kernels is set (the graph-capture traces analyse/graphs reads,
 * whose kernels were captured, not run). */
typedef struct td_lkernel {
    int64_t corr;
    td_str kernel;
} td_lkernel;

/* Device properties (Kineto deviceProperties, nsys TARGET_INFO_GPU). */
typedef struct td_device {
    int32_t id;
    td_str name;
    int64_t total_mem;
    int32_t num_sms;
} td_device;

/* An HLO dump kept from an nsys-jax archive (dump/module_NNNN.*_gpu_after_optimizations
 * .hlo.pb.xz: an xz-compressed HloProto) or an XPlane's /host:metadata (the HloProto
 * itself, not compressed: analyse/xla/hlo.c tells them by the xz magic), decoded on demand by analyse/xla/xla.c for
 * collective message sizes. Bytes live in the trace set's arena. */
typedef struct td_hlo_dump {
    int64_t program;       /* NNNN in the member name = the XLA program id */
    const uint8_t *xz;
    size_t n;
} td_hlo_dump;

/* One IBM AIU runtime ("flex") instruction: a B/E pair of a flex trace (read/aiu.c).
 * Types come from the name suffix; each owns one interval of the TS1..TS5 cycle counters
 * (DmaI TS1->TS2, Cmpt Prep TS2->TS3, Cmpt Exec TS3->TS4, DmaO TS4->TS5, other TS1->TS5). */
typedef enum {
    TD_AIU_OTHER = 0, TD_AIU_DMAI, TD_AIU_PREP, TD_AIU_EXEC, TD_AIU_DMAO
} td_aiu_type;

typedef struct td_aiu_instr {
    int64_t host_b, host_e; /* host B and E timestamps, ns */
    int64_t cyc[5];         /* TS1..TS5; a counter lower than the one before had wrapped
                               and has 2^32 added (so they never decrease) */
    int64_t bytes;          /* attr Bytes, or "[NNNB]" in the name; -1 unknown */
    uint64_t tid;           /* instruction stream (unsigned 64-bit in the file) */
    td_str name;            /* as in the file */
    td_str coll;            /* attr CollGroup, 0 = none */
    int32_t device;         /* pid = the AIU */
    uint8_t type;           /* td_aiu_type */
    uint8_t has_ts;         /* 1: all five TS counters were present */
} td_aiu_instr;

/* One row of a DeepRT compile log's Perf Summary table (read/complog.c). */
typedef struct td_aiu_ideal {
    td_str kernel;          /* kernel name as the trace names it ("conv_1 Cmpt Exec") */
    td_str category;        /* "-opCat<Category>", "NotAvailable" for -NA */
    int64_t cycles;         /* ideal cycles on the core clock; 0 = none given */
    int32_t table;          /* which Perf Summary table of the log (0-based) */
} td_aiu_ideal;

/* Telemetry beside a trace (read/telemetry.c): a file, its metrics (columns) and samples. */
typedef enum {
    TD_TM_OTHER = 0, TD_TM_POWER, TD_TM_TEMP, TD_TM_UTIL, TD_TM_MEM, TD_TM_BW, TD_TM_CLOCK
} td_tm_kind;

typedef struct td_tfile {
    const char *path;       /* as given (set arena) */
    const char *format;     /* "dmon", "csv" */
    int dated;              /* 1: samples carry wall-clock times */
    size_t first, n;        /* its samples: set->ts[first .. first+n) */
} td_tfile;

typedef struct td_tmetric {
    td_str name;            /* column name as printed ("pwr", "power.draw [W]") */
    td_str unit;            /* "W", "C", "%", "MiB", "MB/s", "MHz", "" */
    uint8_t kind;           /* td_tm_kind */
    int32_t file;           /* index into set->tf */
} td_tmetric;

typedef struct td_tsample {
    int64_t t;              /* wall clock, ns since the epoch (or since the first sample
                               when the file is undated and no start was given) */
    double v;
    uint32_t metric;        /* index into set->tm */
    int32_t device;         /* device index column, -1 none */
} td_tsample;

typedef enum {
    TD_FMT_UNKNOWN = 0,
    TD_FMT_CHROME_JSON,   /* Chrome Trace Event JSON (Kineto, JAX, Perfetto JSON) */
    TD_FMT_NSYS_SQLITE,
    TD_FMT_NSYS_JAX,
    TD_FMT_AIU_FLEX,      /* IBM AIU runtime flex trace (read/aiu.c) */
    TD_FMT_SAMBA,         /* SambaTune stack-tracing artifact set (read/samba.c) */
    TD_FMT_IPU,           /* tracedoc.ipu/1 export of a PopVision report (read/ipu.h) */
    TD_FMT_ROCPROF_JSON,  /* rocprofv3 JSON (read/rocprof.h) */
    TD_FMT_ROCPROF_CSV,   /* rocprofv3 CSV files of one process */
    TD_FMT_ROCPD,         /* rocprofv3 rocpd SQLite database */
    TD_FMT_XPLANE         /* XPlane (XSpace protobuf) of jax.profiler / XProf (read/xplane.h) */
} td_format;
/* "chrome-json", "nsys-sqlite", "nsys-jax", "aiu-flex", "samba-artifacts", "ipu-json",
 * "rocprof-json", "rocprof-csv", "rocpd", "xplane" */
const char *td_format_name(td_format f);

/* A Graphcore IPU report (model/ipu.h); owned by its trace, freed by td_ipu_free. */
typedef struct td_ipu td_ipu;
void td_ipu_free(td_ipu *p);

typedef struct td_trace {
    const char *path;        /* as given (member path for archive members: "a.tar.gz:x.json") */
    const char *input;       /* the command-line argument it came from (a file, directory
                                or archive; "-" for stdin); titles multi-file runs */
    td_format format;
    int gzip;                /* input was gzip-compressed */
    uint64_t bytes;          /* input size (compressed size as on disk) */
    char sha256[65];         /* of the bytes as on disk */
    uint64_t nevents;        /* events read from the file (all phases) */
    int rank;                /* distributedInfo.rank, nsys-jax process, or file order */
    int world_size;          /* distributedInfo.world_size, or 0 unknown */
    td_str backend;          /* distributedInfo.backend */
    int64_t base_time_ns;    /* Kineto baseTimeNanoseconds, 0 unknown */

    td_event *ev;   size_t nev, ev_cap;
    td_aux *aux;    size_t naux, aux_cap;      /* aux[0] unused (0 = none) */
    td_dims *dims;  size_t ndims, dims_cap;    /* per aux id, below ndims (td_trace_dims) */
    td_nccl *nccl;  size_t nnccl, nccl_cap;    /* td_aux.nccl - 1 (td_aux_nccl) */
    td_track *tracks; size_t ntracks, tracks_cap;
    td_str *cats;   size_t ncats, cats_cap;    /* cats[0] = "" */
    td_flow *flows; size_t nflows, flows_cap;
    td_counter *counters; size_t ncounters, counters_cap;
    td_range *ranges; size_t nranges, ranges_cap;     /* NVTX ranges (nsys, nsys-jax) */
    td_range *compile; size_t ncompile, compile_cap;  /* CPU push/pop ranges used for
                                                         compile statistics (nsys-jax) */
    td_device *devices; size_t ndevices, devices_cap;
    td_mem *mem; size_t nmem, mem_cap;          /* [memory] events (file order) */
    td_shape *shapes; size_t nshapes, shapes_cap; /* input shapes of modelled ops */
    td_seqrec *seqs; size_t nseqs, seqs_cap;    /* sequence numbers (file order) */
    td_lkernel *lk; size_t nlk, lk_cap;         /* launch calls' kernels (keep_launch_kernels) */
    td_hlo_dump *hlo; size_t nhlo;  /* nsys-jax HLO dumps; array and bytes in set->arena */
    td_aiu_instr *aiu; size_t naiu, aiu_cap; /* AIU flex instructions (file order) */
    const struct td_samba *samba;   /* SambaTune stack-tracing data (read/samba.h), in
                                       set->arena; NULL for other inputs */
    td_ipu *ipu;                    /* IPU export (TD_FMT_IPU), else NULL */
    int devices_local;              /* 1: device ids numbered within this input (an nsys-jax
                                       archive without thread metadata), not job-wide */
} td_trace;

/* All inputs of one run. Strings are shared across traces. */
typedef struct td_traceset {
    td_strtab *strs;
    td_arena *arena;
    td_trace **tr;
    size_t n, cap;
    td_warnings warnings;
    /* DeepRT compile logs (--compile-log, or given as inputs): ideal cycles per kernel */
    td_aiu_ideal *ideal; size_t nideal, ideal_cap;
    int nideal_tables;              /* Perf Summary tables read (over all logs) */
    const char *complog_path;       /* the first compile log, for messages */
    /* telemetry files (--telemetry), their metrics and samples */
    td_tfile *tf; size_t ntf, tf_cap;
    td_tmetric *tm; size_t ntm, tm_cap;
    td_tsample *ts; size_t nts, ts_cap;
    struct td_samba_acc *samba_acc; /* SambaTune artifact files collected while one input
                                       argument is read (read/samba.c frees it) */
    struct td_rocprof_acc *rocprof_acc; /* rocprofv3 CSV files of the argument being read,
                                       by prefix (read/rocprof_csv.c frees it) */
    int analysis_only;              /* 1: the set is read for the analysis passes, so readers
                                       keep nothing only `export` writes: no td_flow records
                                       (1.19 M of them, 38 MB, in bench's 1 GB trace) and no
                                       td_dims. Set before reading. */
    int keep_launch_kernels;        /* 1: readers keep the kernel each launch call names
                                       (td_lkernel): graph-capture traces (analyse/graphs) */
} td_traceset;

td_traceset *td_traceset_new(void);
void td_traceset_free(td_traceset *s);
td_trace *td_traceset_add(td_traceset *s, const char *path); /* new empty trace */
void td_traceset_drop_last(td_traceset *s); /* forget the last trace added */
/* Memory the set holds: strings, arena and the traces' arrays (for io/bound.h). */
uint64_t td_traceset_bytes(const td_traceset *s);

/* Helpers for readers. */
uint32_t td_trace_track(td_trace *t, int64_t pid, int64_t tid);   /* find or add */
uint16_t td_trace_cat(td_trace *t, td_str cat);                   /* find or add */
td_event *td_trace_push_event(td_trace *t);                        /* zeroed */
uint32_t td_trace_push_aux(td_trace *t, td_aux **out);             /* returns 1-based id */
/* The launch dimensions of aux record aux (zero where not given); td_trace_dims: NULL
 * when none were set (or the set keeps none). */
void td_trace_set_dims(td_trace *t, uint32_t aux, const int32_t grid[3], const int32_t block[3]);
/* NCCL arguments for aux record aux (unknown: -1, 0), new; td_aux_nccl: those of aux, or
 * NULL (no aux record, or one without them). */
td_nccl *td_trace_push_nccl(td_trace *t, uint32_t aux);
const td_nccl *td_aux_nccl(const td_trace *t, uint32_t aux);
const td_dims *td_trace_dims(const td_trace *t, uint32_t aux);
td_device *td_trace_device(td_trace *t, int32_t id);               /* find or add */

/* 1 for the op names whose input shapes the reader keeps (analyse/op_perf.c models them:
 * GEMM, attention, convolution, elementwise, normalisation, reductions), 2 for those whose
 * backward pass it also times (reductions, attention and convolution forward ops: the
 * sequence numbers of their subtrees are kept, td_seqrec). */
int td_shape_op_wanted(const char *name, size_t len);

/* Classify a category string (Kineto, legacy capitalised, other accelerators). */
td_kind td_kind_from_cat(const char *cat, size_t len);

#endif
