/* summary/summary.h - the summary: every number any document shows, as plain data.
 *
 * Analysis passes fill it; renderers only lay it out. It is a list of scalar values
 * (dotted keys, e.g. "compile.total_ns"), a list of typed tables (dotted names, e.g.
 * "compile.phases"), findings (plain sentences), warnings, and flamegraph stacks.
 * summary.json nests dotted keys into objects, in insertion order of their first
 * appearance. All strings belong to the summary's arena. */
#ifndef TD_SUMMARY_H
#define TD_SUMMARY_H
#include "base/util.h"

typedef enum {
    TD_T_TEXT,    /* string */
    TD_T_INT,     /* count (int64) */
    TD_T_NS,      /* time, int64 nanoseconds; key ends in _ns */
    TD_T_SHARE,   /* fraction 0..1 (double); shown as % */
    TD_T_BYTES,   /* int64 bytes */
    TD_T_F64,     /* plain double (ratios, CoV, thunks per execution) */
    TD_T_GBPS,    /* double, GB/s (1e9 bytes/s) */
    TD_T_DEVICE,  /* int64 device id; -1 = "all" (JSON writes the string "all") */
    TD_T_BOOL     /* int64 0/1 */
} td_type;

/* A cell holds its column's kind of value in one field; the others hold "missing" (NULL,
 * NaN, TD_NA), so code that reads a field of the wrong kind (a column whose type a
 * hostile summary.json changed) finds no value instead of a number read as a pointer.
 * Kept in fields side by side, not a union, for that reason: tables are small. */
typedef struct td_cell {
    int64_t i;
    double f;
    const char *s;   /* may be NULL = JSON null / empty cell */
} td_cell;

#define TD_MAXCOLS 24
typedef struct td_col {
    const char *key;     /* JSON key, e.g. "self_ns" */
    const char *title;   /* column title in documents, e.g. "Self CPU" */
    td_type type;
    int nodoc;           /* 1: means nothing for this input (a Kineto module's thunk
                            counts): left out of the PDF and the workbook, still in
                            summary.json and CSV (td_table_nodoc) */
} td_col;

typedef struct td_table {
    const char *name;    /* dotted JSON path, e.g. "ops", "compile.phases" */
    const char *title;   /* document title, e.g. "Top ops (CPU)" */
    int ncols;
    td_col cols[TD_MAXCOLS];
    size_t nrows, cap;
    int seq;             /* insertion order among kv and tables */
    int no_json;         /* 1: not written to summary.json (CSV/documents only) */
    const char *note;    /* documents: what the numbers are of, under the table (arena or
                            constant); NULL none */
    td_arena *a;         /* the owning summary's arena (column keys live there) */
    td_cell *cells;      /* row-major, nrows * ncols; absent cells: TD_T_TEXT NULL,
                            numbers use TD_NA */
    const char *bad;     /* the first column td_table_cols refused (a malformed spec, too
                            many columns, columns after rows): td_summary_write_json
                            refuses the summary with it; NULL when none */
} td_table;

#define TD_NA INT64_MIN  /* integer cell with no value: JSON null, blank in documents */

typedef struct td_kv {
    const char *key;     /* dotted path, e.g. "runtime.thunks_ns" */
    const char *title;   /* label in documents, e.g. "Thunk GPU time" */
    td_type type;
    td_cell v;
    int seq;
} td_kv;

/* One flamegraph: folded stacks (frames joined by ';'), value in ns, sorted by stack. */
typedef struct td_stack {
    const char *stack;
    int64_t value;
} td_stack;

typedef struct td_flametree td_flametree; /* summary/flame.h */

typedef struct td_flame {
    const char *kind;    /* "cpu", "device", "ops", "compile" (file flame-<kind>.svg) */
    const char *title;   /* "CPU call stacks" */
    td_stack *st;
    size_t n, cap;
    td_flametree *tree;  /* optional: the stacks already in a tree (a streamed folded
                            file); owned by the summary */
    int64_t unit;        /* values per unit shown (1000 for fractional counts); 0 = 1 */
    int cycles;          /* 1: values are IPU clock cycles, not ns (kind "ipu") */
    int diff;            /* 1: differential flame (tree holds baseline values too) */
    const char *base_label; /* differential: what the baseline is ("run 12, commit abc") */
} td_flame;

typedef struct td_summary {
    td_arena *a;
    td_kv *kv; size_t nkv, kv_cap;
    td_table **tables; size_t ntables, tables_cap;
    const char **findings; size_t nfindings, findings_cap;
    const char **warnings; size_t nwarnings, warnings_cap;
    td_flame **flames; size_t nflames, flames_cap;
    int seq;
} td_summary;

td_summary *td_summary_new(void);
void td_summary_free(td_summary *s);

/* Scalars. Setting an existing key replaces its value (and its title, when given). */
void td_sum_set_int(td_summary *s, const char *key, const char *title, td_type t, int64_t v);
void td_sum_set_f64(td_summary *s, const char *key, const char *title, td_type t, double v);
void td_sum_set_str(td_summary *s, const char *key, const char *title, const char *v);
const td_kv *td_sum_get(const td_summary *s, const char *key); /* NULL if absent */
/* Getters for one scalar (the one place that knows which type holds what):
 * td_sum_text: a text scalar's value, NULL when absent, not text or unset;
 * td_sum_int: an integer-typed scalar (count, ns, bytes, device, bool), TD_NA when
 *   absent or of a floating type or text;
 * td_sum_ns: a TD_T_NS scalar, -1 when absent, of another type or TD_NA;
 * td_sum_num: any number as a double (integers converted), NAN when absent, text or
 *   TD_NA. */
const char *td_sum_text(const td_summary *s, const char *key);
int64_t td_sum_int(const td_summary *s, const char *key);
int64_t td_sum_ns(const td_summary *s, const char *key);
double td_sum_num(const td_summary *s, const char *key);
/* Run metadata (--meta KEY=VALUE): sets the text scalar "meta.KEY" (title KEY).
 * KEY is 1-64 of [A-Za-z0-9_-]; VALUE any text up to 1024 bytes. Returns TD_E_USAGE
 * with a message naming the argument when it is not KEY=VALUE. */
td_status td_sum_set_meta(td_summary *s, const char *arg, td_err *e);

/* Tables. td_sum_table creates (or returns the existing) table by name. Columns are
 * given as "key:type:Title" strings, type one of text,int,ns,share,bytes,f64,gbps,
 * device,bool; e.g. td_table_cols(t, "name:text:Name", "calls:int:Calls", NULL). */
td_table *td_sum_table(td_summary *s, const char *name, const char *title);
/* The names of every table the analysis can write, NULL-terminated; and a lookup. */
extern const char *const td_table_names[];
int td_table_name_known(const char *name);
extern const char *const td_flame_kinds[]; /* NULL-terminated */
int td_flame_kind_known(const char *kind);
void td_table_cols(td_table *t, ...);
td_table *td_sum_find_table(const td_summary *s, const char *name); /* NULL if absent */
int td_table_col(const td_table *t, const char *key);
/* Column type names as column specs write them ("text", "ns", "share", ...). */
const char *td_type_name(td_type t);
int td_type_parse(const char *s, size_t n, td_type *t);   /* 1 when s is a type name */
/* A column spec "key:type:Title" (td_table_cols, summary.json's labels): 1 when it parses;
 * the key is its first klen bytes, the title points into spec. */
int td_col_spec_parse(const char *spec, size_t *klen, td_type *t, const char **title);
/* No columns and no rows: a table made again from values (a summary.json read back
 * already has it). */
void td_table_reset(td_table *t);             /* index or -1 */
void td_table_nodoc(td_table *t, const char *key);  /* mark a column nodoc (if present) */
/* Append a column ("key:type:Title") to a table that may have rows: their new cells are
 * empty. Title: a constant (it is not copied). */
void td_table_add_col(td_table *t, const char *spec);
size_t td_table_add_row(td_table *t);                              /* returns row index */
td_cell *td_table_cell(const td_table *t, size_t row, int col);
/* A row's value by column key: TD_NA / NAN / NULL when the table has no such column or
 * it holds another type. */
int64_t td_row_get_int(const td_table *t, size_t row, const char *key);
double td_row_get_f64(const td_table *t, size_t row, const char *key);
const char *td_row_get_str(const td_table *t, size_t row, const char *key);
/* A row of the `steps` table that the step statistics keep: not warm-up (column warmup)
 * and not cut short by the trace's ends (column cut); absent columns keep the row. */
int td_steps_row_steady(const td_table *st, size_t row);
/* Convenience setters by column key (no-op when the key is not a column). */
void td_row_int(td_summary *s, td_table *t, size_t row, const char *key, int64_t v);
void td_row_f64(td_summary *s, td_table *t, size_t row, const char *key, double v);
void td_row_str(td_summary *s, td_table *t, size_t row, const char *key, const char *v);
/* Stable sort of rows: by column key, descending when desc, ties broken by "name"
 * (or the first text column) ascending. */
void td_table_sort(td_table *t, const char *key, int desc);

/* XLA device-time breakdown from the runtime.* scalars: part[0] busy inside modules,
 * part[1] idle inside modules, part[2] idle between modules (they add up to
 * runtime.wall_ns). Returns 0 when the summary has no such scalars. */
int td_sum_xla_breakdown(const td_summary *s, int64_t part[3]);

/* The word documents use for the device: trace.device_word ("GPU", "SPYRE", "MTIA",
 * "AIU"...), or "GPU" when the summary has none (summaries written before it existed). */
const char *td_sum_device_word(const td_summary *s);

void td_sum_finding(td_summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void td_sum_warning(td_summary *s, const char *msg);
/* A finding of a comparison with a baseline or history (verdict, regressions): counted in
 * "regression.findings" so that a stored run compared again drops it first. */
void td_sum_compare_finding(td_summary *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void td_sum_drop_table(td_summary *s, const char *name);       /* when present */
void td_sum_drop_scalars(td_summary *s, const char *prefix);   /* keys starting so */

/* Flames: create (or return) by kind; add stacks; td_flame_finish sorts by stack and
 * merges equal stacks. */
td_flame *td_sum_flame(td_summary *s, const char *kind, const char *title);
void td_flame_add(td_summary *s, td_flame *f, const char *stack, int64_t value);
void td_flame_finish(td_flame *f);
td_flame *td_sum_find_flame(const td_summary *s, const char *kind);
/* Moves what from holds into s, as if it had been added to s then: its scalars and
 * tables after s's own, in from's order (a scalar s has already takes from's value, as
 * td_sum_set_* does), then its findings, warnings and flames; frees from. For a pass run
 * on another thread into a summary of its own. Returns 1; 0 when a table or flame of
 * from has a name s already has (nothing moved, from left as it was). */
int td_sum_adopt(td_summary *s, td_summary *from);
/* True when the flame has something to draw (stacks or a tree). */
int td_flame_has_stacks(const td_flame *fl);
/* A flame value for documents: "12.500 ms", or "12,345 cycles" when fl->cycles. */
void td_flame_fmt_value(const td_flame *fl, char *dst, size_t cap, int64_t v);

/* Folded stacks: "a;b;c value\n" sorted. */
td_status td_flame_write_folded(const td_flame *fl, FILE *f, td_err *e);

/* The writers live in their own files; included here for the files that expect them
 * from summary.h. */
#include "summary/json_write.h"
#include "summary/table_text.h"

#endif
