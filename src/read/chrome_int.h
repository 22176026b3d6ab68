/* read/chrome_int.h - private to the Chrome reader (read/chrome.c, read/chrome_event.c):
 * the reader's state and the one-event record between the parser and the commit. */
#ifndef TD_READ_CHROME_INT_H
#define TD_READ_CHROME_INT_H
#include "read/chrome.h"
#include "read/json_scan.h"

/* ---------------------------------------------------------------- small maps */

typedef struct {
    int64_t a, b;
    uint32_t v;
    uint32_t used;
} ment;

typedef struct {
    ment *e;
    size_t n, cap; /* cap is a power of two (or 0) */
} imap;

enum {
    H_TS = 1u << 0, H_DUR = 1u << 1, H_PID = 1u << 2, H_TID = 1u << 3,
    H_PIDS = 1u << 4, H_TIDS = 1u << 5, H_ID = 1u << 6, H_CORR = 1u << 7,
    H_EXT = 1u << 8, H_DEV = 1u << 9, H_STREAM = 1u << 10, H_BYTES = 1u << 11,
    H_IN = 1u << 12, H_OUT = 1u << 13, H_GROUP = 1u << 14, H_GRID = 1u << 15,
    H_BLOCK = 1u << 16, H_COLL = 1u << 17, H_DTYPE = 1u << 18, H_MNAME = 1u << 19,
    H_SORT = 1u << 20, H_NAME = 1u << 21, H_CAT = 1u << 22, H_BADNUM = 1u << 23,
    H_BPE = 1u << 24, H_MALLOC = 1u << 25, H_MRES = 1u << 26, H_MDEV = 1u << 27,
    H_MDTYPE = 1u << 28, H_MBYTES = 1u << 29, H_DIMS = 1u << 30, H_ITYPES = 1u << 31
};
#define H_AUX (H_EXT | H_BYTES | H_IN | H_OUT | H_GROUP | H_GRID | H_BLOCK | H_COLL | H_DTYPE)

typedef struct {
    uint32_t have;
    char ph;
    td_jslice name, cat, pid_s, tid_s, coll, dtype, mname;
    int64_t pid, tid, ts, dur, id;
    int64_t corr, ext, dev, stream, bytes, in_nel, out_nel, group, sort;
    int32_t grid[3], block[3];
    int64_t m_alloc, m_res, m_dev, m_dtype, m_bytes; /* [memory] event args */
    int64_t seq;                      /* "Sequence number", -1 absent */
    td_jslice kname;                  /* "kernel" of a launch call (n = 0 absent) */
    td_jslice dims, itypes, concrete; /* raw JSON text of "Input Dims", "Input type",
                                         "Concrete Inputs" (n = 0 absent) */
    const char *args, *args_end;
} td_jrawev;

typedef struct {
    td_str s;
    uint16_t idx;
    uint8_t kind;
} catent;

typedef struct {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;

typedef struct {
    td_str name;
    int32_t sort;
    int has_sort;
} pinfo;

typedef struct {
    uint64_t key;
    uint32_t ev, prev;
} openasync;

/* a modelled op whose backward pass op_perf_bwd times (td_shape_op_wanted 2): where a
 * linked sequence number's leaf can lie (td_chrome_finish keeps only those) */
typedef struct {
    int64_t ts, end;   /* end INT64_MAX for a 'B' event */
    uint32_t track;
} bwdop;

enum { T_START, T_OBJ_FIRST, T_OBJ_KEY, T_OBJ_AFTER, T_SKIP, T_EV_FIRST, T_EV_NEXT,
       T_EV_AFTER, T_EV_SKIP, T_DONE };

typedef struct {
    td_traceset *set;
    td_trace *t;
    td_in *in;
    const char *name;
    td_err *e;

    char *buf;
    size_t cap, len;
    uint64_t base; /* stream offset of buf[0] */
    int eof;

    td_jscan js;          /* scanner: error state and the string cache */

    td_jskip sk;            /* top-level skip of unknown values */

    imap tracks;          /* (pid, tid) -> track + 1 */
    int64_t lpid, ltid;
    uint32_t ltrack;
    int lvalid;

    catent cats[64];
    int ncats;
    td_str cpu_functions;

    u32vec *stk;          /* per track: open B events */
    size_t nstk;
    imap pids;            /* pid -> pinfo index + 1 */
    pinfo *pi;
    size_t npi, pi_cap;
    imap amap;            /* async key -> open record + 1 */
    openasync *oa;
    size_t noa, oa_cap;
    bwdop *bo;
    size_t nbo, bo_cap;

    int64_t max_end;
    int seen_events, no_events;
    uint64_t w_big, w_big_at;   /* events past BUF_MAX skipped; the first one's offset */

    uint64_t w_neg, w_nots, w_range, w_unmatched_e, w_open_b, w_unmatched_ae, w_open_ab;
} cj;

/* Parse one event object (p at '{') into r; returns the end or NULL (c->js.fk). */
const char *td_chrome_parse_event(cj *c, const char *p, const char *end, td_jrawev *r);
/* Commit a parsed event to the model (tracks, events, counters, flows, metadata). */
void td_chrome_commit(cj *c, td_jrawev *r);
/* At the end of the data: process names to threads, close open B/b, warnings. */
void td_chrome_finish(cj *c);
/* Of the sequence-number records keep per number the first evaluate_function event and
 * its leaf, when the leaf lies in one of c->bo (read/chrome_seq.c); frees c->bo. */
void td_chrome_keep_linked_seqs(cj *c);

#endif
