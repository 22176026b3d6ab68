/* analyse/serving/annot.c - the iteration annotations LLM serving engines write (their
 * formats as TraceLens's TraceUtils/annotation_utils.py at 171dd747 lists them):
 *   vLLM detailed  execute_R_context_C(sqAskBsqsqXsqskY)_generation_G(sqAskB...)
 *   vLLM native    execute_context_C(T)_generation_G(T)
 *   SGLang         step[EXTEND|DECODE|MIXED bs=N toks=T c=.. g=.. c_sq=.. g_sq=..]
 *   ATOM           prefill[bs=N tok=T ...], decode[bs=N tok=T ...] (bs=117/128: padded)
 * Requests are the batch's requests; tokens the tokens the step runs (the context sq
 * plus the generation sq: one per decoding request, more with speculative decoding). */
#include "analyse/serving/serving.h"
#include <stdlib.h>
#include <string.h>

const char *td_srv_phase_name(int phase)
{
    switch (phase) {
    case TD_SRV_PREFILL: return "prefill";
    case TD_SRV_DECODE: return "decode";
    case TD_SRV_MIXED: return "mixed";
    default: return NULL;
    }
}

/* the number after "key=" (a word boundary before key) inside [p, end), -1 none */
static int64_t kv(const char *p, const char *end, const char *key)
{
    size_t kl = strlen(key);
    for (const char *q = p; q + kl < end; q++) {
        if ((q == p || q[-1] == ' ' || q[-1] == '[') && !strncmp(q, key, kl) && q[kl] == '=') {
            const char *d = q + kl + 1;
            if (*d < '0' || *d > '9')
                return -1;
            return strtoll(d, NULL, 10);
        }
    }
    return -1;
}

/* a decimal number at *p, advancing; -1 when none */
static int64_t num(const char **p)
{
    if (**p < '0' || **p > '9')
        return -1;
    char *e;
    int64_t v = strtoll(*p, &e, 10);
    *p = e;
    return v;
}

static int lit(const char **p, const char *s)
{
    size_t n = strlen(s);
    if (strncmp(*p, s, n))
        return 0;
    *p += n;
    return 1;
}

/* "(sqAskBsqsqXsqskY)" -> A (the sq), advancing past ')' */
static int64_t sq_group(const char **p)
{
    if (!lit(p, "(sq"))
        return -1;
    int64_t sq = num(p);
    if (sq < 0 || !lit(p, "sk") || num(p) < 0 || !lit(p, "sqsq") || num(p) < 0 ||
        !lit(p, "sqsk") || num(p) < 0 || !lit(p, ")"))
        return -1;
    return sq;
}

static void set_phase(td_srv_annot *o, int64_t ctx_req, int64_t gen_req)
{
    o->phase = ctx_req > 0 && gen_req > 0 ? TD_SRV_MIXED
             : ctx_req > 0                ? TD_SRV_PREFILL
             : gen_req > 0                ? TD_SRV_DECODE
                                          : TD_SRV_NONE;
}

static int vllm(const char *name, td_srv_annot *o)
{
    const char *p = name;
    if (!lit(&p, "execute_"))
        return 0;
    if (lit(&p, "context_")) { /* native: execute_context_C(T)_generation_G(T) */
        int64_t cr = num(&p), ct, gr, gt;
        if (cr < 0 || !lit(&p, "(") || (ct = num(&p)) < 0 || !lit(&p, ")_generation_") ||
            (gr = num(&p)) < 0 || !lit(&p, "(") || (gt = num(&p)) < 0 || !lit(&p, ")"))
            return 0;
        o->tier = 2;
        o->requests = cr + gr;
        o->tokens = ct + gt;
        set_phase(o, cr, gr);
        return 1;
    }
    int64_t cr, gr, csq, gsq;
    if (num(&p) < 0 || !lit(&p, "_context_") || (cr = num(&p)) < 0 || (csq = sq_group(&p)) < 0 ||
        !lit(&p, "_generation_") || (gr = num(&p)) < 0 || (gsq = sq_group(&p)) < 0)
        return 0;
    o->tier = 1;
    o->requests = cr + gr;
    o->tokens = csq + gsq;
    set_phase(o, cr, gr);
    return 1;
}

static int sglang(const char *name, td_srv_annot *o)
{
    const char *p = name;
    if (!lit(&p, "step["))
        return 0;
    int mode = lit(&p, "EXTEND") ? TD_SRV_PREFILL : lit(&p, "DECODE") ? TD_SRV_DECODE
             : lit(&p, "MIXED") ? TD_SRV_MIXED : 0;
    const char *end = strchr(p, ']');
    if (!mode || !end || (*p != ' ' && *p != ']'))
        return 0;
    int64_t bs = kv(p, end, "bs"), toks = kv(p, end, "toks");
    int64_t csq = kv(p, end, "c_sq"), gsq = kv(p, end, "g_sq");
    o->tier = kv(p, end, "sqsq") >= 0 || kv(p, end, "c_sqsq") >= 0 || kv(p, end, "g_sqsq") >= 0 ? 1 : 2;
    o->phase = mode;
    o->requests = bs;
    if (mode == TD_SRV_DECODE)
        o->tokens = gsq > 0 ? gsq : bs; /* one token per request, g_sq with MTP */
    else if (csq >= 0 || gsq >= 0)
        o->tokens = (csq > 0 ? csq : 0) + (gsq > 0 ? gsq : 0);
    else
        o->tokens = toks;
    return 1;
}

static int atom(const char *name, td_srv_annot *o)
{
    const char *p = name;
    int mode = lit(&p, "prefill[") ? TD_SRV_PREFILL : lit(&p, "decode[") ? TD_SRV_DECODE : 0;
    const char *end = mode ? strrchr(p, ']') : NULL;
    if (!end)
        return 0;
    o->phase = mode;
    o->tier = kv(p, end, "sqsq") >= 0 ? 1 : 2;
    o->requests = kv(p, end, "bs"); /* bs=117/128: the real batch before the '/' */
    o->tokens = kv(p, end, "tok");
    return 1;
}

int td_srv_parse(const char *name, td_srv_annot *out)
{
    td_srv_annot o = {TD_SRV_NONE, 0, -1, -1};
    if (!name || !(vllm(name, &o) || sglang(name, &o) || atom(name, &o)))
        return 0;
    *out = o;
    return 1;
}
