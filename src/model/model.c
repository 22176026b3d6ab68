/* model/model.c - see model/model.h. */
#include "model/model.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *td_format_name(td_format f)
{
    switch (f) {
    case TD_FMT_CHROME_JSON: return "chrome-json";
    case TD_FMT_NSYS_SQLITE: return "nsys-sqlite";
    case TD_FMT_NSYS_JAX: return "nsys-jax";
    case TD_FMT_AIU_FLEX: return "aiu-flex";
    case TD_FMT_SAMBA: return "samba-artifacts";
    case TD_FMT_IPU: return "ipu-json";
    case TD_FMT_ROCPROF_JSON: return "rocprof-json";
    case TD_FMT_ROCPROF_CSV: return "rocprof-csv";
    case TD_FMT_ROCPD: return "rocpd";
    case TD_FMT_XPLANE: return "xplane";
    default: return "unknown";
    }
}

td_traceset *td_traceset_new(void)
{
    td_traceset *s = td_xcalloc(1, sizeof *s);
    s->strs = td_strtab_new();
    s->arena = td_arena_new();
    return s;
}

static void trace_free(td_trace *t)
{
    free(t->ev);
    free(t->aux);
    free(t->dims);
    free(t->nccl);
    free(t->tracks);
    free(t->cats);
    free(t->flows);
    free(t->counters);
    free(t->ranges);
    free(t->compile);
    free(t->devices);
    free(t->mem);
    free(t->shapes);
    free(t->seqs);
    free(t->lk);
    free(t->aiu);
    td_ipu_free(t->ipu);
}

void td_traceset_free(td_traceset *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        trace_free(s->tr[i]);
    free(s->tr);
    td_warnings_free(&s->warnings);
    free(s->ideal);
    free(s->tf);
    free(s->tm);
    free(s->ts);
    td_strtab_free(s->strs);
    td_arena_free(s->arena);
    free(s);
}

void td_traceset_drop_last(td_traceset *s)
{
    if (s->n)
        trace_free(s->tr[--s->n]); /* the record itself lives in the arena */
}

td_trace *td_traceset_add(td_traceset *s, const char *path)
{
    td_trace *t = td_arena_alloc(s->arena, sizeof *t);
    t->path = td_arena_strdup(s->arena, path);
    t->rank = (int)s->n;
    *TD_PUSH(s->tr, s->n, s->cap) = t;
    TD_PUSH(t->aux, t->naux, t->aux_cap);   /* aux id 0 = none */
    *TD_PUSH(t->cats, t->ncats, t->cats_cap) = 0;
    return t;
}

uint32_t td_trace_track(td_trace *t, int64_t pid, int64_t tid)
{
    /* Traces have few tracks (tens to a few thousand); a linear scan from the end
     * finds the common case (same track as the last event) first. */
    for (size_t i = t->ntracks; i-- > 0;)
        if (t->tracks[i].pid == pid && t->tracks[i].tid == tid)
            return (uint32_t)i;
    td_track *k = TD_PUSH(t->tracks, t->ntracks, t->tracks_cap);
    memset(k, 0, sizeof *k);
    k->pid = pid;
    k->tid = tid;
    k->device = -1;
    k->stream = -1;
    return (uint32_t)(t->ntracks - 1);
}

uint16_t td_trace_cat(td_trace *t, td_str cat)
{
    for (size_t i = 0; i < t->ncats; i++)
        if (t->cats[i] == cat)
            return (uint16_t)i;
    if (t->ncats >= 65535)
        return 0;
    *TD_PUSH(t->cats, t->ncats, t->cats_cap) = cat;
    return (uint16_t)(t->ncats - 1);
}

td_event *td_trace_push_event(td_trace *t)
{
    td_event *e = TD_PUSH(t->ev, t->nev, t->ev_cap);
    memset(e, 0, sizeof *e);
    return e;
}

uint32_t td_trace_push_aux(td_trace *t, td_aux **out)
{
    td_aux *a = TD_PUSH(t->aux, t->naux, t->aux_cap);
    memset(a, 0, sizeof *a);
    a->bytes = -1;
    *out = a;
    return (uint32_t)(t->naux - 1);
}

void td_trace_set_dims(td_trace *t, uint32_t aux, const int32_t grid[3], const int32_t block[3])
{
    if (aux >= t->ndims) {
        td_grow((void **)&t->dims, &t->dims_cap, (size_t)aux + 1, sizeof *t->dims);
        memset(t->dims + t->ndims, 0, ((size_t)aux + 1 - t->ndims) * sizeof *t->dims);
        t->ndims = (size_t)aux + 1;
    }
    memcpy(t->dims[aux].grid, grid, sizeof t->dims[aux].grid);
    memcpy(t->dims[aux].block, block, sizeof t->dims[aux].block);
}

const td_dims *td_trace_dims(const td_trace *t, uint32_t aux)
{
    if (!aux || aux >= t->ndims)
        return NULL;
    const td_dims *d = &t->dims[aux];
    for (int i = 0; i < 3; i++)
        if (d->grid[i] || d->block[i])
            return d;
    return NULL;
}

td_nccl *td_trace_push_nccl(td_trace *t, uint32_t aux)
{
    td_nccl *n = TD_PUSH(t->nccl, t->nnccl, t->nccl_cap);
    memset(n, 0, sizeof *n);
    n->in_nelems = -1;
    n->out_nelems = -1;
    t->aux[aux].nccl = (uint32_t)t->nnccl;
    return n;
}

const td_nccl *td_aux_nccl(const td_trace *t, uint32_t aux)
{
    if (!aux || aux >= t->naux)
        return NULL;
    uint32_t k = t->aux[aux].nccl;
    return k && k <= t->nnccl ? &t->nccl[k - 1] : NULL;
}

td_device *td_trace_device(td_trace *t, int32_t id)
{
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == id)
            return &t->devices[i];
    td_device *d = TD_PUSH(t->devices, t->ndevices, t->devices_cap);
    memset(d, 0, sizeof *d);
    d->id = id;
    return d;
}

static int eq(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n == m && strncasecmp(s, lit, n) == 0;
}

static int prefix(const char *s, size_t n, const char *lit)
{
    size_t m = strlen(lit);
    return n >= m && strncasecmp(s, lit, m) == 0;
}

td_kind td_kind_from_cat(const char *c, size_t n)
{
    if (eq(c, n, "cpu_op") || eq(c, n, "operator"))
        return TD_K_CPU_OP;
    if (eq(c, n, "user_annotation"))
        return TD_K_USER_ANNOT;
    if (eq(c, n, "python_function"))
        return TD_K_PYTHON;
    if (eq(c, n, "cuda_runtime") || eq(c, n, "runtime") || eq(c, n, "privateuse1_runtime") ||
        eq(c, n, "mtia_runtime") || eq(c, n, "xpu_runtime") || eq(c, n, "hip_runtime"))
        return TD_K_RUNTIME;
    if (eq(c, n, "cuda_driver") || eq(c, n, "privateuse1_driver") || eq(c, n, "xpu_driver") ||
        eq(c, n, "driver"))
        return TD_K_DRIVER;
    if (eq(c, n, "overhead") || eq(c, n, "trace"))
        return TD_K_OVERHEAD;
    if (eq(c, n, "kernel") || eq(c, n, "mtia_ccp_events") || eq(c, n, "xpu_kernel"))
        return TD_K_KERNEL;
    if (eq(c, n, "gpu_memcpy") || eq(c, n, "memcpy") || eq(c, n, "xpu_memcpy"))
        return TD_K_MEMCPY;
    if (eq(c, n, "gpu_memset") || eq(c, n, "memset") || eq(c, n, "xpu_memset"))
        return TD_K_MEMSET;
    if (eq(c, n, "gpu_user_annotation"))
        return TD_K_GPU_ANNOT;
    if (eq(c, n, "hpu_op") || prefix(c, n, "mtia_") || eq(c, n, "privateuse1_kernel"))
        return TD_K_DEVICE_OTHER;
    if (eq(c, n, "nvtx")) /* NVTX ranges (how `tracedoc export` writes nsys's) */
        return TD_K_RANGE;
    return TD_K_OTHER;
}

int td_shape_op_wanted(const char *name, size_t len)
{
    static const char *const N[] = {
        "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
        "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_cudnn_attention",
        "aten::_scaled_dot_product_flash_attention_backward",
        "aten::_scaled_dot_product_efficient_attention_backward",
        "aten::_scaled_dot_product_cudnn_attention_backward",
        "flash_attn::_flash_attn_forward", "flash_attn::_flash_attn_backward",
        "aten::convolution", "aten::convolution_backward",
        /* elementwise, normalisation and reductions (analyse/op_models.c's lists) */
        "aten::copy", "aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max",
        "aten::clamp_max_", "aten::sigmoid", "aten::rsqrt", "aten::silu", "aten::neg", "aten::pow",
        "aten::div", "aten::div_", "aten::mul", "aten::mul_", "aten::add", "aten::add_",
        "aten::sigmoid_backward", "aten::threshold_backward",
        "aten::batch_norm", "aten::native_batch_norm", "aten::cudnn_batch_norm",
        "aten::miopen_batch_norm", "aten::layer_norm", "aten::native_layer_norm",
        "aten::group_norm", "aten::native_group_norm", "aten::native_layer_norm_backward",
        "aten::native_batch_norm_backward",
        "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm", "aten::linalg_norm",
        "aten::std", "aten::var", "aten::logsumexp", "aten::cumsum", "aten::cumprod",
        "aten::amin", "aten::amax",
    };
    /* the forward ops TraceLens writes *_bwdpass sheets for (op_models.c td_opm_model_bwd) */
    static const char *const BWD[] = {
        "aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_cudnn_attention", "flash_attn::_flash_attn_forward",
        "aten::convolution", "aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm",
        "aten::linalg_norm", "aten::std", "aten::var", "aten::logsumexp", "aten::cumsum",
        "aten::cumprod", "aten::amin", "aten::amax",
    };
    if (len < 8 || (memcmp(name, "aten::", 6) && (len < 12 || memcmp(name, "flash_attn::", 12))))
        return 0;
    for (size_t i = 0; i < sizeof N / sizeof N[0]; i++)
        if (strlen(N[i]) == len && !memcmp(N[i], name, len)) {
            for (size_t k = 0; k < sizeof BWD / sizeof BWD[0]; k++)
                if (!strcmp(BWD[k], N[i]))
                    return 2;
            return 1;
        }
    return 0;
    for (size_t i = 0; i < sizeof N / sizeof N[0]; i++)
        if (strlen(N[i]) == len && !memcmp(N[i], name, len)) {
            if (i >= sizeof N / sizeof N[0] - 15) /* the reductions, last in N */
                return 2;
            for (size_t k = 0; k < sizeof BWD / sizeof BWD[0]; k++)
                if (BWD[k] == N[i] || !strcmp(BWD[k], N[i]))
                    return 2;
            return 1;
        }
    return 0;
}

uint64_t td_traceset_bytes(const td_traceset *s)
{
    uint64_t b = td_strtab_bytes(s->strs) + td_arena_bytes(s->arena);
    for (size_t i = 0; i < s->n; i++) {
        const td_trace *t = s->tr[i];
        b += t->ev_cap * sizeof *t->ev + t->aux_cap * sizeof *t->aux +
             t->dims_cap * sizeof *t->dims + t->nccl_cap * sizeof *t->nccl +
             t->tracks_cap * sizeof *t->tracks + t->flows_cap * sizeof *t->flows +
             t->counters_cap * sizeof *t->counters + t->ranges_cap * sizeof *t->ranges +
             t->compile_cap * sizeof *t->compile + t->mem_cap * sizeof *t->mem +
             t->shapes_cap * sizeof *t->shapes + t->seqs_cap * sizeof *t->seqs +
             t->aiu_cap * sizeof *t->aiu;
    }
    return b;
}
