/* analyse/op_models.c - FLOPs and bytes of one call of an op with input shapes, as
 * TraceLens models them (perf_model.py at 171dd747; the facts, not its code). Where
 * TraceLens's reading of the trace is wrong, tracedoc does what the arguments say; each
 * difference is listed in doc/summary-json.md "op_perf":
 *   GEMM (aten::mm, addmm, bmm, baddbmm): FLOPs = b (2MNK + MN with a bias), bytes = b (MK +
 *     KN + MN + N with a bias) x the bytes of A's element (perf_model.py:85-114, 341-643).
 *   SDPA forward (aten::_scaled_dot_product_{flash,efficient,cudnn}_attention [B,H,N,d];
 *     flash_attn::_flash_attn_forward [B,N,H,d]): FLOPs = B Hq (2 Nq Nkv dqk + 2 Nq Nkv dv),
 *     halved when causal; bytes = q + k + v + out elements (perf_model.py:1779-1821).
 *   SDPA backward (flash_attn::_flash_attn_backward; aten's _scaled_dot_product_*_backward,
 *     which TraceLens only categorises): the recomputed QK^T, dV, dP, dQ, dK products and
 *     the GQA reductions, halved when causal; bytes = q, k, v, dO read and dQ, dK, dV
 *     written (perf_model.py:1837-1897, 2315-2374).
 *   CONV (aten::convolution, convolution_backward): the output shape from stride, padding,
 *     dilation (transposed too); FLOPs = 2 x output elements x weight elements per filter
 *     (+ output elements with a bias), bytes = input + weight + bias + output; backward:
 *     the input and weight gradients as two convolutions, plus the bias gradient
 *     (perf_model.py:858-1262).
 *   UnaryElementwise / BinaryElementwise (TraceLens's op lists): FLOPs = output elements
 *     (broadcast for two inputs), bytes = inputs and output at their element sizes
 *     (perf_model.py:3169-3430).
 *   NORM (layer, batch, group norm forward; layer and batch norm backward): the statistics,
 *     the transform and the weights read/written (perf_model.py:4286-4800).
 *   Reduce (sum, mean, max, min, norm, std, var, logsumexp, cumsum, cumprod, amin, amax):
 *     FLOPs = input elements, bytes = input + output elements (perf_model.py:3457-3655). */
#include "analyse/op_models.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int td_opm_parse_dims(const char *p, td_opm_dims *o)
{
    memset(o, 0, sizeof *o);
    while (isspace((unsigned char)*p))
        p++;
    if (*p++ != '[')
        return 0;
    for (;;) {
        while (isspace((unsigned char)*p) || *p == ',')
            p++;
        if (*p == ']')
            return 1;
        if (*p != '[')
            return 0;
        p++;
        int k = o->n < TD_OPM_MAXIN ? o->n : -1;
        for (;;) {
            while (isspace((unsigned char)*p) || *p == ',')
                p++;
            if (*p == ']') {
                p++;
                break;
            }
            char *e;
            long long v = strtoll(p, &e, 10);
            if (e == p)
                return 0;
            if (k >= 0 && o->nd[k] < TD_OPM_MAXD)
                o->d[k][o->nd[k]++] = v;
            p = e;
        }
        if (k >= 0)
            o->n++;
    }
}

/* The i-th string of a JSON array of strings, copied to buf (escapes kept as they are);
 * "" when absent. */
static const char *nth_str(const char *p, int i, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!p)
        return buf;
    int k = 0;
    while (*p) {
        if (*p == '"') {
            const char *q = ++p;
            while (*q && *q != '"')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            if (k++ == i) {
                size_t n = (size_t)(q - p) < cap - 1 ? (size_t)(q - p) : cap - 1;
                memcpy(buf, p, n);
                buf[n] = 0;
                return buf;
            }
            p = *q ? q + 1 : q;
        } else
            p++;
    }
    return buf;
}

/* the number of strings in a JSON array of strings */
static int nstr(const char *p)
{
    int n = 0;
    for (const char *q = p; q && *q; q++)
        if (*q == '"') {
            q++;
            while (*q && *q != '"')
                q += q[0] == '\\' && q[1] ? 2 : 1;
            n++;
            if (!*q)
                break;
        }
    return n;
}

/* Bytes an element of torch's scalar type name (TraceLens name2bpe, which counts a Scalar
 * argument as 4 bytes); 0 unknown. */
static int bpe_of(const char *t)
{
    static const struct { const char *t; int b; } M[] = {
        {"double", 8}, {"long int", 8}, {"float", 4}, {"scalar", 4}, {"int", 4},
        {"c10::half", 2}, {"c10::bfloat16", 2}, {"c10::float8_e4m3fnuz", 1},
        {"c10::float8_e4m3fn", 1}, {"c10::float8_e5m2", 1}, {"c10::float8_e5m2fnuz", 1},
        {"c10::float8_e8m0fnu", 1}, {"unsigned char", 1}, {"signed char", 1},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
        if (!strcasecmp(t, M[i].t))
            return M[i].b;
    return 0;
}

/* torch's type name -> the short name of the dtype column */
static void set_dtype(td_opm *o, const char *t)
{
    static const struct { const char *t, *s; } M[] = {
        {"double", "fp64"}, {"float", "fp32"}, {"c10::BFloat16", "bf16"}, {"c10::Half", "fp16"},
        {"c10::Float8_e4m3fn", "fp8"}, {"c10::Float8_e4m3fnuz", "fp8"}, {"c10::Float8_e5m2", "fp8"},
        {"c10::Float8_e5m2fnuz", "fp8"}, {"signed char", "int8"}, {"unsigned char", "uint8"},
        {"long int", "int64"}, {"int", "int32"},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
        if (!strcasecmp(t, M[i].t)) {
            o->dtype = M[i].s;
            return;
        }
    snprintf(o->dtbuf, sizeof o->dtbuf, "%s", t);
    o->dtype = o->dtbuf;
}

/* a size a model can use: not negative, not absurd (products stay exact in a double and
 * far from int64's limit) */
static int ok_dim(int64_t v)
{
    return v >= 0 && v < ((int64_t)1 << 40);
}

/* elements of input i (1 for a scalar), -1 when a dimension is unusable */
static double elems(const td_opm_dims *d, int i)
{
    double p = 1;
    for (int k = 0; i < d->n && k < d->nd[i]; k++) {
        if (!ok_dim(d->d[i][k]))
            return -1;
        p *= (double)d->d[i][k];
    }
    return p;
}

/* integers of a concrete input: "[1, 2]" or "3"; -1 when it is neither (empty, "None") */
static int ints(const char *s, int64_t *out, int cap)
{
    while (isspace((unsigned char)*s))
        s++;
    int list = *s == '[', n = 0;
    if (list)
        s++;
    for (;;) {
        while (isspace((unsigned char)*s) || *s == ',')
            s++;
        if (!*s || *s == ']')
            break;
        char *e;
        long long v = strtoll(s, &e, 10);
        if (e == s)
            return -1;
        if (n < cap)
            out[n++] = v;
        s = e;
    }
    return n || list ? n : -1;
}

/* "[True, False, True]" -> flags; n read */
static int bools(const char *s, int *out, int cap)
{
    int n = 0;
    for (; *s && n < cap; s++) {
        if (!strncmp(s, "True", 4))
            out[n++] = 1, s += 3;
        else if (!strncmp(s, "False", 5))
            out[n++] = 0, s += 4;
    }
    return n;
}

static int is_true(const char *s)
{
    return !strcmp(s, "True") || !strcmp(s, "true");
}

static int one_of(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return 1;
    return 0;
}
#define ONE_OF(name, list) one_of(name, list, sizeof list / sizeof list[0])

/* the bytes of one call: -1 when an element size is unknown; 0 when the call is absurd */
static int finish(td_opm *o, double by, int known)
{
    o->bytes = known ? by : -1;
    return o->flops >= 0 && o->flops < 4e18 && by >= 0 && by < 4e18;
}

static int gemm(const char *name, const td_opm_dims *d, const char *types, td_opm *o)
{
    char tb[64];
    int bias = name[6] == 'a' || (name[6] == 'b' && name[7] == 'a');
    int batched = strstr(name, "bmm") != NULL;
    int ia = bias ? 1 : 0, ib = ia + 1, w = batched ? 3 : 2;
    if (d->n <= ib || d->nd[ia] != w || d->nd[ib] != w)
        return 0;
    int64_t B = batched ? d->d[ia][0] : 1, M = d->d[ia][w - 2], K = d->d[ia][w - 1], N = d->d[ib][w - 1];
    if (!ok_dim(B) || !ok_dim(M) || !ok_dim(K) || !ok_dim(N))
        return 0;
    o->cat = "GEMM";
    nth_str(types, ia, tb, sizeof tb);
    set_dtype(o, tb);
    int bpe = bpe_of(tb);
    o->flops = (double)B * (2.0 * (double)M * (double)N * (double)K + (bias ? (double)M * (double)N : 0));
    double by = (double)B * ((double)M * (double)K + (double)K * (double)N + (double)M * (double)N +
                             (bias ? (double)N : 0)) * bpe;
    return finish(o, by, bpe > 0);
}

/* q, k, v at inputs iq, iq+1, iq+2, laid out [B,H,N,d] (bnhd 0) or [B,N,H,d] (bnhd 1) */
static int sdpa(const td_opm_dims *d, int iq, int bnhd, int causal, int bwd, const char *types, int ity,
                td_opm *o)
{
    char tb[64];
    if (d->n < iq + 3)
        return 0;
    for (int i = iq; i < iq + 3; i++) {
        if (d->nd[i] != 4)
            return 0;
        for (int k = 0; k < 4; k++)
            if (!ok_dim(d->d[i][k]))
                return 0;
    }
    int ih = bnhd ? 2 : 1, in = bnhd ? 1 : 2;
    const int64_t *q = d->d[iq], *k = d->d[iq + 1], *v = d->d[iq + 2];
    double B = (double)q[0], Hq = (double)q[ih], Nq = (double)q[in], dqk = (double)q[3];
    double Hkv = (double)k[ih], Nkv = (double)k[in], dv = (double)v[3];
    /* TraceLens refuses mismatched batches, heads of k and v, lengths of k and v, head
     * sizes of q and k, and causal attention with Nq != Nkv */
    if (q[0] != k[0] || q[0] != v[0] || k[ih] != v[ih] || k[in] != v[in] || q[3] != k[3] ||
        (causal && q[in] != k[in]) || k[ih] == 0)
        return 0;
    nth_str(types, ity, tb, sizeof tb);
    set_dtype(o, tb);
    int bpe = bpe_of(tb);
    double by;
    if (!bwd) {
        o->cat = "SDPA_fwd";
        o->flops = B * Hq * (2 * Nq * Nkv * dqk + 2 * Nq * dv * Nkv);
        by = (B * Nq * Hq * dqk + B * Nkv * Hkv * dqk + B * Nkv * Hkv * dv + B * Nq * Hq * dv) * bpe;
    } else {
        o->cat = "SDPA_bwd";
        double g = (double)(q[ih] / k[ih] - 1); /* GQA: heads summed from Hq to Hkv */
        o->flops = B * Hq * 2 * Nq * Nkv * dqk            /* recomputed QK^T */
                   + B * Hq * 2 * Nkv * Nq * dv + B * Nkv * dv * g /* dV */
                   + B * Hq * 2 * Nq * Nkv * dv           /* dP */
                   + B * Hq * 2 * Nq * Nkv * dqk          /* dQ */
                   + B * Hq * 2 * Nkv * Nq * dqk + B * Nkv * dqk * g; /* dK */
        by = (2 * B * Nq * Hq * dqk + 2 * B * Nkv * Hkv * dqk + 2 * B * Nkv * Hkv * dv + B * Nq * Hq * dv) * bpe;
    }
    if (causal)
        o->flops /= 2;
    return finish(o, by, bpe > 0);
}

static int conv_out_dim(int64_t in, int64_t k, int64_t s, int64_t p, int64_t dil, int64_t op, int tr, int64_t *out)
{
    if (!tr) {
        int64_t num = in + 2 * p - dil * (k - 1) - 1;
        if (s <= 0 || num < 0)
            return 0;
        *out = num / s + 1;
    } else
        *out = (in - 1) * s - 2 * p + dil * (k - 1) + op + 1;
    return *out >= 0;
}

/* one concrete tuple argument (stride...), broadcast from one value, def when "" */
static int conv_arg(const char *con, int i, int nd, int64_t def, int64_t *v)
{
    char b[128];
    int64_t t[TD_OPM_MAXD];
    int n = ints(nth_str(con, i, b, sizeof b), t, TD_OPM_MAXD);
    for (int k = 0; k < nd; k++)
        v[k] = n <= 0 ? def : n == 1 ? t[0] : k < n ? t[k] : def;
    if (n > 1 && n != nd)
        return 0;
    for (int k = 0; k < nd; k++)
        if (!ok_dim(v[k]))
            return 0;
    return 1;
}

static double prod_from(const int64_t *s, int n, int from)
{
    double p = 1;
    for (int k = from; k < n; k++)
        p *= (double)s[k];
    return p;
}

/* aten::convolution (bwd 0: input 0, weight 1, bias 2, stride 3...) and
 * aten::convolution_backward (bwd 1: grad_output 0, input 1, weight 2, stride 4...,
 * output_mask 10) */
static int conv(const td_opm_dims *d, const char *types, const char *con, int bwd, td_opm *o)
{
    char tb[64], t2[64], b[64];
    int ix = bwd, iw = bwd + 1, a0 = bwd ? 4 : 3;
    if (!con || d->n <= iw || d->nd[ix] < 3 || d->nd[ix] > 5 || d->nd[iw] != d->nd[ix])
        return 0;
    int nd = d->nd[ix] - 2, r = d->nd[ix];
    const int64_t *x = d->d[ix], *w = d->d[iw];
    for (int k = 0; k < r; k++)
        if (!ok_dim(x[k]) || !ok_dim(w[k]))
            return 0;
    int64_t st[TD_OPM_MAXD], pd[TD_OPM_MAXD], dl[TD_OPM_MAXD], op[TD_OPM_MAXD];
    if (!conv_arg(con, a0, nd, 1, st) || !conv_arg(con, a0 + 1, nd, 0, pd) ||
        !conv_arg(con, a0 + 2, nd, 1, dl) || !conv_arg(con, a0 + 4, nd, 0, op))
        return 0;
    int tr = is_true(nth_str(con, a0 + 3, b, sizeof b));
    int64_t out[TD_OPM_MAXD];
    out[0] = x[0];
    out[1] = tr ? w[1] : w[0];
    for (int k = 0; k < nd; k++)
        if (!conv_out_dim(x[2 + k], w[2 + k], st[k], pd[k], dl[k], op[k], tr, &out[2 + k]) || !ok_dim(out[2 + k]))
            return 0;
    /* the same type for input and weight (TraceLens refuses mixed ones) */
    nth_str(types, ix, tb, sizeof tb);
    nth_str(types, iw, t2, sizeof t2);
    if (strcmp(tb, t2))
        return 0;
    set_dtype(o, tb);
    int bpe = bpe_of(tb);
    double px = prod_from(x, r, 0), pw = prod_from(w, r, 0), po = prod_from(out, r, 0);
    double per = 2 * prod_from(w, r, 1); /* FLOPs per output element (input for transposed) */
    if (!bwd) {
        int bias = d->n > 2 && d->nd[2] > 0; /* TraceLens: len(Input Dims) == 3, never true */
        o->cat = "CONV_fwd";
        o->flops = (tr ? px : po) * per + (bias ? po : 0);
        return finish(o, (px + pw + (bias ? (double)out[1] : 0) + po) * bpe, bpe > 0);
    }
    /* the gradients output_mask asks for (TraceLens counts the input and weight gradients
     * always, and the bias one never: its bias_sizes input has no dims) */
    int mask[3] = {1, 1, 0};
    if (bools(nth_str(con, 10, b, sizeof b), mask, 3) != 3)
        return 0;
    o->cat = "CONV_bwd";
    double fin = (tr ? px : po) * per;
    double fw = tr ? pw * 2 * px / (double)(x[1] ? x[1] : 1) : pw * 2 * po / (double)(out[1] ? out[1] : 1);
    o->flops = (mask[0] ? fin : 0) + (mask[1] ? fw : 0) + (mask[2] ? po : 0);
    /* each gradient reads dY and one operand and writes its result; the bias one reads dY
     * and writes C elements (TraceLens adds those as elements, not bytes) */
    double by = ((mask[0] ? po + pw + px : 0) + (mask[1] ? po + px + pw : 0) +
                 (mask[2] ? po + (double)out[1] : 0)) * bpe;
    return finish(o, by, bpe > 0);
}

static const char *const UNARY[] = {"aten::copy", "aten::copy_", "aten::clamp_min", "aten::clamp_min_",
                                    "aten::clamp_max", "aten::clamp_max_", "aten::sigmoid", "aten::rsqrt",
                                    "aten::silu", "aten::neg", "aten::pow"};
static const char *const BINARY[] = {"aten::div", "aten::div_", "aten::mul", "aten::mul_", "aten::add",
                                     "aten::add_", "aten::sigmoid_backward", "aten::threshold_backward"};
static const char *const REDUCE[] = {"aten::sum", "aten::mean", "aten::max", "aten::min", "aten::norm",
                                     "aten::linalg_norm", "aten::std", "aten::var", "aten::logsumexp",
                                     "aten::cumsum", "aten::cumprod", "aten::amin", "aten::amax"};

static const char *const NORM[] = {"aten::batch_norm", "aten::native_batch_norm", "aten::cudnn_batch_norm",
                                   "aten::miopen_batch_norm", "aten::layer_norm", "aten::native_layer_norm",
                                   "aten::group_norm", "aten::native_group_norm",
                                   "aten::native_layer_norm_backward", "aten::native_batch_norm_backward"};

static int unary(const td_opm_dims *d, const char *types, td_opm *o)
{
    char ti[64], to[64];
    double n = d->n >= 1 ? elems(d, 0) : -1;
    if (n < 0)
        return 0;
    nth_str(types, 0, ti, sizeof ti);
    /* the output's type when the op is given its output tensor (copy_'s source) */
    if (d->n > 1 && d->nd[1] > 0)
        nth_str(types, 1, to, sizeof to);
    else
        snprintf(to, sizeof to, "%s", ti);
    set_dtype(o, ti);
    int bi = bpe_of(ti), bo = bpe_of(to);
    o->cat = "UnaryElementwise";
    o->flops = n;
    return finish(o, n * bi + n * bo, bi > 0 && bo > 0);
}

static int binary(const td_opm_dims *d, const char *types, td_opm *o)
{
    char t1[64], t2[64], t3[64];
    if (d->n < 2)
        return 0;
    double n1 = elems(d, 0), n2 = elems(d, 1), no = 1;
    if (n1 < 0 || n2 < 0)
        return 0;
    /* the broadcast output shape (numpy's rule) */
    int r1 = d->nd[0], r2 = d->nd[1], r = r1 > r2 ? r1 : r2;
    for (int k = 0; k < r; k++) {
        int64_t a = k < r - r1 ? 1 : d->d[0][k - (r - r1)], b = k < r - r2 ? 1 : d->d[1][k - (r - r2)];
        if (a != b && a != 1 && b != 1)
            return 0;
        no *= (double)(a > b ? a : b);
    }
    nth_str(types, 0, t1, sizeof t1);
    nth_str(types, 1, t2, sizeof t2);
    set_dtype(o, t1);
    int b1 = bpe_of(t1), b2 = bpe_of(t2), bo;
    if (d->n > 2 && d->nd[2] > 0)
        bo = bpe_of(nth_str(types, 2, t3, sizeof t3));
    else if (b1 && b2)
        bo = r1 && r2 ? (b1 > b2 ? b1 : b2) : b1; /* two tensors: the wider type */
    else
        bo = 0;
    o->cat = "BinaryElementwise";
    o->flops = no;
    return finish(o, n1 * b1 + n2 * b2 + no * bo, b1 && b2 && bo);
}

/* The output elements of a reduction over the dims its concrete inputs name (dim is
 * argument 1, 2 for norm and linalg_norm; keepdim the last True/False after it); all of
 * them (one output) when there are none. TraceLens means to do the same but compares
 * the trace's strings with Python ints and bools, so it always finds no dim: one output
 * element for every reduction. */
static double reduce_out(const char *name, const td_opm_dims *d, const char *con, double nin)
{
    char b[128];
    if (strstr(name, "cumsum") || strstr(name, "cumprod"))
        return nin;
    int at = !strcmp(name, "aten::norm") || !strcmp(name, "aten::linalg_norm") ? 2 : 1;
    int64_t dim[TD_OPM_MAXD];
    int nd = con ? ints(nth_str(con, at, b, sizeof b), dim, TD_OPM_MAXD) : -1;
    if (nd <= 0)
        return 1;
    int keep = 0, na = nstr(con);
    for (int i = at + 1; i < na; i++) {
        nth_str(con, i, b, sizeof b);
        if (!strcmp(b, "True") || !strcmp(b, "False"))
            keep = is_true(b);
    }
    int r = d->nd[0], gone[TD_OPM_MAXD] = {0};
    for (int i = 0; i < nd; i++) {
        int64_t k = dim[i] < 0 ? dim[i] + r : dim[i];
        if (k < 0 || k >= r)
            return -1;
        gone[k] = 1;
    }
    double p = 1;
    for (int k = 0; k < r; k++)
        if (!gone[k] || keep)
            p *= gone[k] ? 1 : (double)d->d[0][k];
    return p;
}

static int reduce(const char *name, const td_opm_dims *d, const char *types, const char *con, td_opm *o)
{
    char ti[64];
    double nin = d->n >= 1 ? elems(d, 0) : -1;
    if (nin < 0)
        return 0;
    double nout = reduce_out(name, d, con, nin);
    if (nout < 0)
        return 0;
    nth_str(types, 0, ti, sizeof ti);
    set_dtype(o, ti);
    int bpe = bpe_of(ti); /* the output in the input's type ("Output type" is rarely there) */
    o->cat = "Reduce";
    o->flops = nin;
    return finish(o, nin * bpe + nout * bpe, bpe > 0);
}

/* normalisation forward (N elements, C channels) */
static int norm_fwd(td_opm *o, double N, double C, int affine, int bias, int training, int bpe)
{
    o->cat = "NORM_fwd";
    o->flops = C * 3 + (training ? N * 3 : 0) + C * 3 + 2 * N;
    double wt = 2 + (affine ? 1 + (bias ? 1 : 0) : 0) + (training ? 2 : 0);
    return finish(o, 2 * N * bpe + wt * C * bpe, bpe > 0);
}

static int norm_bwd(td_opm *o, double N, double C, int affine, int bias, int training, int mask0, int bpe)
{
    if (C <= 0)
        return 0;
    double epc = N / C;
    o->cat = "NORM_bwd";
    o->flops = C * ((training ? 0 : 3) + 4 * epc + (mask0 ? (training ? 5 * epc : 0) : 2 * epc));
    double by = N * bpe + N * bpe * (mask0 && training ? 2 : 1) + (training ? C * bpe : 0);
    if (affine)
        by += C * bpe + (training ? C * bpe * (bias ? 2 : 1) : 0);
    return finish(o, by, bpe > 0);
}

static int norm(const char *name, const td_opm_dims *d, const char *types, const char *con, td_opm *o)
{
    char tb[128];
    int64_t cs[TD_OPM_MAXD];
    int bwd = strstr(name, "_backward") != NULL;
    int ix = bwd ? 1 : 0;
    if (d->n <= ix)
        return 0;
    double N = elems(d, ix);
    if (N < 0)
        return 0;
    nth_str(types, ix, tb, sizeof tb);
    set_dtype(o, tb);
    int bpe = bpe_of(tb);
#define NONEMPTY(i) (d->n > (i) && d->nd[i] > 0)
    if (strstr(name, "layer_norm")) {
        /* normalized_shape (concrete 1; 2 backward) gives the channels */
        int n = con ? ints(nth_str(con, bwd ? 2 : 1, tb, sizeof tb), cs, TD_OPM_MAXD) : -1;
        if (n <= 0)
            return 0;
        double C = 1;
        for (int i = 0; i < n; i++) {
            if (!ok_dim(cs[i]))
                return 0;
            C *= (double)cs[i];
        }
        if (C <= 0)
            return 0;
        if (!bwd) /* weight, bias present (TraceLens: always, a [] being "not None") */
            return norm_fwd(o, N, C, NONEMPTY(2), NONEMPTY(3), 1, bpe);
        int m[3];
        if (bools(nth_str(con, 7, tb, sizeof tb), m, 3) != 3)
            return 0;
        return norm_bwd(o, N, C, m[1], m[2], 1, m[0], bpe);
    }
    if (d->nd[ix] < 2 || !ok_dim(d->d[ix][1]))
        return 0;
    double C = (double)d->d[ix][1];
    if (strstr(name, "group_norm")) {
        int w = strstr(name, "native") ? 1 : 2; /* group_norm(input, groups, weight, bias) */
        return norm_fwd(o, N, C, NONEMPTY(w), NONEMPTY(w + 1), 1, bpe);
    }
    if (!con)
        return 0;
    if (!bwd) /* batch_norm(input, weight, bias, running_mean, running_var, training...):
                 TraceLens takes bool("False") for training, which is True */
        return norm_fwd(o, N, C, NONEMPTY(1), NONEMPTY(2), is_true(nth_str(con, 5, tb, sizeof tb)), bpe);
    /* native_batch_norm_backward(grad_out, input, weight, ..., train 7, eps, output_mask 9) */
    int m[3];
    if (bools(nth_str(con, 9, tb, sizeof tb), m, 3) != 3)
        return 0;
    return norm_bwd(o, N, C, NONEMPTY(2), 1, is_true(nth_str(con, 7, tb, sizeof tb)), m[0], bpe);
#undef NONEMPTY
}

int td_opm_model(const char *name, const td_opm_dims *d, const char *types, const char *concrete,
                 td_opm *o)
{
    char b[16];
    memset(o, 0, sizeof *o);
    o->bytes = -1;
    if (!strcmp(name, "aten::mm") || !strcmp(name, "aten::addmm") || !strcmp(name, "aten::bmm") ||
        !strcmp(name, "aten::baddbmm"))
        return gemm(name, d, types, o);
    if (!strncmp(name, "aten::_scaled_dot_product_", 26)) {
        int flash = strstr(name, "flash") != NULL, cudnn = strstr(name, "cudnn") != NULL;
        if (!strstr(name, "_backward")) /* is_causal: argument 4 (flash), 6 (efficient, cudnn) */
            return sdpa(d, 0, 0, is_true(nth_str(concrete, flash ? 4 : 6, b, sizeof b)), 0, types, 0, o);
        /* backward(grad_out, q, k, v, ...): is_causal 11 (flash, efficient), 14 (cudnn) */
        return sdpa(d, 1, 0, is_true(nth_str(concrete, cudnn ? 14 : 11, b, sizeof b)), 1, types, 1, o);
    }
    if (!strcmp(name, "flash_attn::_flash_attn_forward"))
        return sdpa(d, 0, 1, is_true(nth_str(concrete, 5, b, sizeof b)), 0, types, 0, o);
    if (!strcmp(name, "flash_attn::_flash_attn_backward")) {
        /* causal 10, taken as true when absent (as TraceLens) */
        nth_str(concrete, 10, b, sizeof b);
        return sdpa(d, 1, 1, b[0] ? is_true(b) : 1, 1, types, 0, o);
    }
    if (!strcmp(name, "aten::convolution") || !strcmp(name, "aten::convolution_backward"))
        return conv(d, types, concrete, name[17] == '_', o);
    if (ONE_OF(name, UNARY))
        return unary(d, types, o);
    if (ONE_OF(name, BINARY))
        return binary(d, types, o);
    if (ONE_OF(name, REDUCE))
        return reduce(name, d, types, concrete, o);
    if (ONE_OF(name, NORM))
        return norm(name, d, types, concrete, o);
    return 0;
}

int td_opm_model_bwd(const char *name, const td_opm_dims *d, const char *types, const char *concrete,
                     td_opm *o)
{
    char b[16];
    if (!td_opm_model(name, d, types, concrete, o))
        return 0;
    /* Reduce: the gradient written per input element, read per output element
     * (perf_model.py Reduce.flops_bwd/bytes_bwd): the forward's own figures */
    if (!strcmp(o->cat, "Reduce"))
        return 1;
    if (!strcmp(o->cat, "SDPA_fwd")) { /* the backward formulas on the forward's q, k, v */
        int fa = !strcmp(name, "flash_attn::_flash_attn_forward");
        int causal = is_true(nth_str(concrete, fa ? 5 : strstr(name, "flash") ? 4 : 6, b, sizeof b));
        memset(o, 0, sizeof *o);
        o->bytes = -1;
        if (!sdpa(d, 0, fa, causal, 1, types, 0, o))
            return 0;
        o->cat = "SDPA_fwd";
        return 1;
    }
    if (!strcmp(o->cat, "CONV_fwd")) { /* timed, not modelled */
        o->flops = -1;
        o->bytes = -1;
        return 1;
    }
    return 0;
}

int td_opm_matrix(const char *c)
{
    return c && (!strcmp(c, "GEMM") || !strncmp(c, "SDPA", 4) || !strncmp(c, "CONV", 4));
}
