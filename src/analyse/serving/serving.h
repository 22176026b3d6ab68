/* analyse/serving/serving.h - LLM serving steps (vLLM, SGLang, ATOM iteration
 * annotations): the annotation parser analyse/graphs uses for a graph launch's batch
 * size, and the serving pass (serving_steps, serving.*). */
#ifndef TD_ANALYSE_SERVING_H
#define TD_ANALYSE_SERVING_H
#include <stdint.h>

enum { TD_SRV_NONE = 0, TD_SRV_PREFILL, TD_SRV_DECODE, TD_SRV_MIXED };

/* What one iteration annotation says; -1 where it says nothing. */
typedef struct td_srv_annot {
    int phase;          /* TD_SRV_* */
    int tier;           /* 1: a detailed form (sq/sk aggregates), 2: a native form */
    int64_t requests;   /* requests in the batch (prefill + decode) */
    int64_t tokens;     /* tokens the step processes (prompt tokens + one per decode) */
} td_srv_annot;

/* 1 when name is an iteration annotation of vLLM (execute_N_context_..., execute_context_
 * C(T)_generation_G(T)), SGLang (step[EXTEND|DECODE|MIXED bs=N ...]) or ATOM
 * (prefill[...], decode[...]), as TraceLens's annotation_utils reads them; 0 else. */
int td_srv_parse(const char *name, td_srv_annot *out);
const char *td_srv_phase_name(int phase); /* "prefill", "decode", "mixed", NULL */

struct td_actx;
void td_an_serving(struct td_actx *a); /* analyse/serving/steps.c */

#endif
