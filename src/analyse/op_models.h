/* analyse/op_models.h - the per-op performance models (analyse/op_models.c): FLOPs and
 * bytes of one call of an op from its "Input Dims", "Input type" and "Concrete Inputs"
 * texts, as TraceLens models them (perf_model.py at 171dd747). Used by analyse/op_perf.c,
 * which times the calls and writes the table. */
#ifndef TD_ANALYSE_OP_MODELS_H
#define TD_ANALYSE_OP_MODELS_H

#include <stdint.h>

#define TD_OPM_MAXIN 16 /* inputs kept */
#define TD_OPM_MAXD 8   /* dimensions kept per input */

typedef struct td_opm_dims {
    int n;                          /* inputs */
    int nd[TD_OPM_MAXIN];           /* dims of each input */
    int64_t d[TD_OPM_MAXIN][TD_OPM_MAXD];
} td_opm_dims;

typedef struct td_opm {
    const char *cat;    /* "GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd",
                           "UnaryElementwise", "BinaryElementwise", "NORM_fwd", "NORM_bwd",
                           "Reduce" (static strings) */
    const char *dtype;  /* short type of the first modelled input ("bf16"), or the trace's
                           own name when it has no short one (points into dtbuf) */
    char dtbuf[48];
    double flops;       /* one call */
    double bytes;       /* one call, -1 unknown (a type without a known size) */
} td_opm;

/* "[[512], [141, 512], [], ...]" -> dims; 0 on anything else. */
int td_opm_parse_dims(const char *p, td_opm_dims *o);

/* The model of one call: 1 and *o filled, 0 when the op has no model or its arguments do
 * not fit it (wrong ranks, negative or absurd sizes, missing concrete inputs the model
 * needs). types and concrete may be NULL. */
int td_opm_model(const char *name, const td_opm_dims *d, const char *types, const char *concrete,
                 td_opm *o);

/* The backward pass of a forward op as TraceLens's *_bwdpass sheets model it (its
 * flops_bwd and bytes_bwd on the forward op's arguments), for the categories those
 * sheets have: Reduce (the forward's figures), SDPA_fwd (the SDPA_bwd formulas on the
 * forward's q, k, v), CONV_fwd (flops and bytes -1: timed, not modelled). o->cat is the
 * forward's category. 0 for the other ops. */
int td_opm_model_bwd(const char *name, const td_opm_dims *d, const char *types, const char *concrete,
                     td_opm *o);

/* 1 for the categories of matrix math (GEMM, SDPA, CONV), whose TFLOP/s the findings
 * and the roofline labels compare with the compute peak. */
int td_opm_matrix(const char *category);

#endif
