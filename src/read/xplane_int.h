/* read/xplane_int.h - what read/xplane.c (the events) and read/xplane_meta.c (the first
 * reading: planes' metadata, line headers, HLO protos) share. */
#ifndef TD_READ_XPLANE_INT_H
#define TD_READ_XPLANE_INT_H
#include "read/xplane.h"
#include "io/protobuf.h"

#define HOST_PID 100000        /* host planes' tracks; devices use their number */
#define MAX_STR ((size_t)1 << 20)     /* names and string stats */
#define MAX_HLO ((size_t)1 << 30)     /* one HLO proto */

/* int64 -> uint32 map (open addressing) */
typedef struct imap { int64_t *k; uint32_t *v; size_t cap, n; } imap;
void xp_imap_put(imap *m, int64_t k, uint32_t v);
int64_t xp_imap_get(const imap *m, int64_t k);   /* -1 when absent */
void xp_imap_free(imap *m);

/* the stats read, by name */
enum { W_NONE, W_HLO_OP, W_HLO_MODULE, W_PROGRAM, W_CORR, W_KERNEL, W_MEMCPY, W_MEMSET,
       W_ALLOC_NAME, W_ALLOCATED, W_RESERVED, W_ALLOC_BYTES, W_HLO_PROTO, W_VENDOR,
       W_CORES, W_MEMSIZE, W_CC_MAJOR, W_CC_MINOR, W_DEVNAME, W__N };

typedef struct sval {
    int64_t md;       /* stat metadata id */
    int type;         /* XStat value field number, 0 none */
    int64_t iv;
    double dv;
    td_str s;         /* str_value interned (ref_value: resolved later) */
    const unsigned char *b; size_t nb;  /* bytes_value kept (HLO protos) */
} sval;

/* Event metadata: its name and the stats that apply to every event of it. */
typedef struct xmeta {
    td_str name;
    td_str hlo_op, module;
    int64_t program;
    uint8_t memcpy, memset, kernel;
} xmeta;

typedef struct xline { int64_t id, ts_ns; td_str name; int derived; } xline;

enum { P_SKIP, P_DEVICE, P_HOST, P_META, P_OTHER };

typedef struct xplane {
    int64_t id;
    td_str name;
    int kind;
    int32_t device;
    xmeta *m; size_t nm, mcap;
    imap mid;                 /* event metadata id -> m index */
    td_str *sname; uint8_t *sw; size_t ns, scap;   /* stat metadata: name, which */
    imap sid;                 /* stat metadata id -> index */
    xline *ln; size_t nln, lncap;
    int streams;              /* has stream (not derived) lines */
} xplane;

typedef struct xctx {
    td_traceset *set;
    td_trace *t;
    const char *name;
    td_err *e;
    xplane *pl; size_t npl, plcap;
    sval *raw; size_t nraw, rawcap;   /* pass 1: metadata stats of the plane being read */
    uint32_t *rawm; size_t nrawm, rawmcap;  /* their event metadata index (-1: plane) */
    td_xk *k; size_t nk, kcap;
    td_xmodspan *ms; size_t nms, mscap;
    td_hlo_dump *hlo; size_t nhlo, hlocap;
    int64_t nkern, nkern_corr, nhost_corr;
    td_str s_empty;
} xctx;

td_str xp_intern(xctx *x, const unsigned char *p, size_t n);
/* One XStat (the reader at its start); bytes_value kept only when keep_bytes. */
int xp_read_stat(td_pb *r, xctx *x, sval *v, int keep_bytes);
/* The stat's meaning in plane p (W_*), and its string (str, or ref resolved). */
int xp_stat_which(const xplane *p, const sval *v);
td_str xp_stat_str(const xplane *p, const sval *v);
/* A varint field (other wire types skipped). */
int xp_int_field(td_pb *r, int wt, uint32_t f, int64_t *out);
/* The first reading of the XSpace: planes without their events (read/xplane_meta.c). */
int xp_pass1(td_pb *r, xctx *x);

#endif
