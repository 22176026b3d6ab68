/* model/ipu.h - a Graphcore IPU report as tracedoc holds it (t->ipu): the data model of
 * libpva (PopVision Analysis library): the target, runs, the detailed execution trace
 * (program steps with per-IPU cycles, BSP tile data, exchanged bytes) and
 * lightweight-profiling blocks. Filled by read/ipu.c, used by analyse/ and export/.
 *
 * The arrays are malloc'd and belong to the td_ipu, which its trace owns (td_ipu_free,
 * called by the trace set); names are interned in the set's string table. */
#ifndef TD_MODEL_IPU_H
#define TD_MODEL_IPU_H
#include "model/model.h"

/* Step types as libpva names them (pva.Program.Type), in the order documents show them. */
typedef enum {
    TD_IPU_ONTILEEXECUTE = 0,
    TD_IPU_DOEXCHANGE,
    TD_IPU_GLOBALEXCHANGE,
    TD_IPU_STREAMCOPYBEGIN,
    TD_IPU_STREAMCOPYMID,
    TD_IPU_STREAMCOPYEND,
    TD_IPU_SYNC,          /* internal sync */
    TD_IPU_EXTERNALSYNC,
    TD_IPU_SYNCANS,
    TD_IPU_OTHER,         /* any other program type (kept, counted as Other) */
    TD_IPU__NTYPES
} td_ipu_type;
const char *td_ipu_type_name(int type);   /* "OnTileExecute", ... "ExternalSync" */

/* StreamCopyMid directions. */
enum { TD_IPU_DIR_NONE = 0, TD_IPU_DIR_HOST, TD_IPU_DIR_REMOTE, TD_IPU_DIR_MIXED };
const char *td_ipu_dir_name(int dir);     /* "", "Host", "RemoteBuffer", "Mixed" */

/* Lightweight-profiling block kinds. */
enum {
    TD_LWP_COMMON = 0, TD_LWP_SCBEGIN, TD_LWP_SCMID, TD_LWP_SCEND, TD_LWP_FLUSH,
    TD_LWP_OVERFLOW, TD_LWP__NKINDS
};
const char *td_lwp_kind_name(int kind);   /* "Common", "StreamCopyBegin", ... "Overflow" */

#define TD_IPU_NA INT64_MIN /* a count the export did not give */

/* One step on one IPU (libpva: step.ipus[i]). */
typedef struct td_ipu_stepipu {
    int64_t from_min, from_max;   /* activeCycles.cyclesFrom.min/.max */
    int64_t to_min, to_max;       /* activeCycles.cyclesTo.min/.max */
    int64_t cycles;               /* the step's length on this IPU */
    int64_t tile_cycles;          /* sum over the IPU's tiles (BSP), TD_IPU_NA unknown */
    int64_t data_in, data_out;    /* bytes, TD_IPU_NA unknown */
    double tile_balance;          /* NAN unknown */
    double active_tile_balance;   /* NAN unknown */
    double data_balance;          /* NAN unknown */
    int32_t ipu;
    int32_t active_tiles;         /* -1 unknown */
} td_ipu_stepipu;

typedef struct td_ipu_step {
    td_str name;                  /* program.name: slash-delimited debug name */
    td_str vertex;                /* first vertex type of an OnTileExecute, 0 none */
    uint32_t first, n;            /* this step's entries in td_ipu.sipu */
    int32_t run;                  /* index into td_ipu.runs */
    uint8_t type;                 /* td_ipu_type */
    uint8_t dir;                  /* StreamCopyMid direction */
} td_ipu_step;

typedef struct td_ipu_run {
    td_str name;                  /* "Engine::run #N" when the export has none */
    int64_t us_start, us_end;     /* microseconds.start/.end, TD_IPU_NA unknown */
    uint32_t first_step, nsteps;
} td_ipu_run;

typedef struct td_ipu_block {
    int64_t from, to;             /* cyclesFrom/cyclesTo, TD_IPU_NA when lost */
    td_str name;                  /* program name (Common blocks) */
    int32_t tile;                 /* global tile index (ipu * tilesPerIpu + tile) */
    int32_t ipu;
    uint8_t kind;                 /* TD_LWP_* */
} td_ipu_block;

struct td_ipu {
    td_str poplar_version;
    int32_t nipus, tiles_per_ipu;
    double clock_hz;              /* target.clockFrequency */
    int synthetic;                /* the export says it is synthetic */
    td_ipu_run *runs; size_t nruns, runs_cap;
    td_ipu_step *steps; size_t nsteps, steps_cap;
    td_ipu_stepipu *sipu; size_t nsipu, sipu_cap;
    td_ipu_block *blocks; size_t nblocks, blocks_cap;
    int32_t *lwp_tiles; size_t nlwp_tiles, lwp_tiles_cap; /* selected tiles, global ids */
    uint64_t over32;              /* counts above 2^32-1 (32-bit counters may wrap) */
    uint64_t wraps;               /* steps whose cyclesTo came before cyclesFrom */
    const char *notes[4];         /* the reader's warnings (set arena), for the summary */
    int nnotes;
};

/* Free p and its arrays (NULL is fine). */
void td_ipu_free(td_ipu *p);

#endif
