/* partial/partial.h - partial summaries (.tds files): the additive state of the analysis of
 * some inputs, written by `tracedoc summarize` and combined by `tracedoc merge`.
 *
 * A partial holds what every summary table is computed from, in a form where two
 * partials combine exactly: counts, sums, exact 128-bit sums of squares, min/max,
 * interval totals per rank, DDSketches (base/sketch.h) for medians, per-instance collective
 * extremes (first start, last end, fastest duration) for the straggler wait, and the
 * per-rank rows of the per-rank tables (inputs, steps, outlier_steps, gpu_timeline).
 * Merging is associative and commutative (up to the order of per-rank rows, which
 * td_partial_finish sorts by rank), so parts can be merged in a tree.
 *
 * File format (doc/scale-out.md "Partial summaries"): UTF-8 text, one record per line, fields
 * separated by TAB; text fields escape '\\' '\t' '\n' '\r' and 0x1f as \\ \t \n \r \u,
 * and a null cell is \N. The first line is "tracedoc-partial<TAB>1"; then header lines
 * (tool, options, sketch, format, world_size, device), then kv / table / row / rec /
 * flame / warn lines, and last "end<TAB>N" with N the number of lines before it (a
 * truncated file is refused). */
#ifndef TD_PARTIAL_H
#define TD_PARTIAL_H
#include "analyse/analyse.h"
#include "base/sketch.h"
#include "summary/summary.h"

#define TD_TDS_MAGIC "tracedoc-partial"
#define TD_TDS_VERSION 2

/* Record types: key fields (joined by 0x1f in memory) -> int64 values. */
enum {
    TD_R_OP,      /* name -> calls, self, total, device self, device total */
    TD_R_KERN,    /* name -> n, total, min, max, sum of squares (128-bit: lo, hi) + sketch */
    TD_R_KDEV,    /* device, name -> as TD_R_KERN */
    TD_R_KCOLL,   /* type, bytes, dtype, group -> calls, total, hidden, per, ranks + instances */
    TD_R_KMOD,    /* Kineto module -> executions, total, GPU-time sq (lo, hi), thunks, thunks sq */
    TD_R_KTHUNK,  /* module, kernel -> calls, total */
    TD_R_FLAME,   /* kind, stack -> value */
    TD_R_XMOD,    /* program, name -> as TD_R_KMOD */
    TD_R_XTHUNK,  /* program, instruction, hlo op -> calls, total, total less hidden, sq (lo, hi) */
    TD_R_XATTR,   /* program, instruction, opcode|op_name|no_op_name, value -> precedence */
    TD_R_XLOC,    /* program, instruction, s|o, precedence, identity, stack hash -> locations */
    TD_R_XSTK,    /* stack hash, stack -> 1 (each distinct flamegraph stack once) */
    TD_R_PHASE,   /* compile phase -> non-child time */
    TD_R_XWALL,   /* device, program -> first start, last end */
    TD_R_XBUSY,   /* device, programs covering -> time */
    TD_R_XCI,     /* program, execution, instruction, thunk execution, device, type, dtype ->
                   * start, end, hidden, bytes, group */
    TD_R_XFLAG,   /* comm | trace:RANK -> 1 */
    TD_R_XDEV,    /* device id -> parts holding it */
    TD_R_INPUT,   /* trace path, input (archive or directory it came from) -> rank */
    TD_R_OPGRAPH, /* op name -> its calls that are a graph replay's captured ops (ops `graph`) */
    TD_R_XBEST,   /* (not in files) program, instruction, s|o -> lowest XLOC precedence */
    TD_R__N
};
#define TD_R_NV 7

typedef struct td_rec {
    char *key;
    uint32_t klen;
    uint8_t type;
    int64_t v[TD_R_NV];
    td_sketch *sk;        /* TD_R_KERN, TD_R_KDEV */
    int64_t *inst;        /* TD_R_KCOLL: per x (first start, last end, fastest) */
    uint64_t h;
} td_rec;

typedef struct td_partial td_partial;

td_partial *td_partial_new(void);
void td_partial_free(td_partial *p);

/* Key of fields, in b (reset first): fields joined by 0x1f. */
void td_part_key(td_buf *b, int nf, ...);
/* Find or add the record (type, key); values merged by the type's rules. v has the
 * type's value count. Returns the record. */
td_rec *td_part_add(td_partial *p, int type, const char *key, size_t klen, const int64_t *v);
/* One module execution (TD_R_KMOD / TD_R_XMOD): its GPU time and thunk count. */
void td_part_exec(td_partial *p, int type, const char *key, int64_t gpu, int64_t thunks);
/* Hook of the kernels pass (analyse/device.c): kernel durations of one name (device < 0)
 * or one (device, name), sorted ascending. */
void td_part_kernels(td_partial *p, int device, const char *name, const int64_t *dur, size_t n);
/* 128-bit sum helpers for the sum-of-squares slots. */
void td_part_sq(int64_t *lo_hi, int64_t x);
/* Mean and sample standard deviation (n - 1) from n, the sum and the 128-bit sum of
 * squares, exactly up to the final division and square root. */
void td_part_mean_std(int64_t n, int64_t sum, const int64_t *sq, double *mean, double *std);

/* Build the partial of one analysed input set: the hooks in the passes (td_analyse_partial)
 * filled the records; this adds the rest from the summary (scalars, including meta.*
 * from summarize --meta, per-rank tables, the table schemas, ops records, flames,
 * warnings). */
void td_partial_from_summary(td_partial *p, const td_summary *s, const td_opts *o);

/* Write a partial (atomically). */
td_status td_partial_write(const td_partial *p, const char *path, td_err *e);
/* Read a .tds file and merge it into p, line by line (the file is never held whole).
 * Refuses a part that does not belong with what p holds (version, options, format,
 * world size, device, a rank given twice): TD_E_FORMAT naming both files. */
td_status td_partial_merge_file(td_partial *p, const char *path, td_err *e);
/* 1 when the file starts with the .tds magic line. */
int td_is_partial(const char *path);
/* The summary of everything merged into p (the same tables report would make).
 * *o receives the analysis options the parts were made with. */
td_summary *td_partial_finish(td_partial *p, td_opts *o);
/* The summary td_partial_finish makes will draw no flamegraph (summary.json alone): its
 * flames keep their titles but get no stacks, which for a merge of thousands of ranks
 * are millions of strings nothing would read. */
void td_partial_skip_stacks(td_partial *p);

/* Run the analysis with the partial hooks on (analyse/analyse.c); then td_partial_from_summary. */
td_status td_analyse_partial(td_traceset *set, const td_opts *o, td_summary *s, td_partial *p,
                             td_err *e);

#endif
