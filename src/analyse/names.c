/* analyse/names.c - short kernel names: the name documents show in tables, findings and
 * stdout (the workbook and the SVG tooltips keep the full name).
 *
 * A demangled C++ kernel name ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_
 * bf16_256x128_64x3_tn_align2>(cutlass_80_..._align2::Params)") says what tells it apart
 * from its neighbours in its template arguments, not in its head ("Kernel2"), and runs
 * over four lines when shown whole. Each kernel gets the shortest of these forms that no
 * other kernel of the report has:
 *   1. the head (the function's last name component, without namespaces, return type or
 *      parameters) with its telling template argument: the first that names a functor,
 *      a GEMM configuration, a kernel function (a lambda's enclosing function) or an
 *      operation, followed down to the innermost such name
 *      ("vectorized_elementwise_kernel<MulFunctor<float>>", "Kernel2<cutlass_80_..._align2>");
 *      a rocBLAS/Tensile "Cijk_..." name keeps its layout, data type and macro/matrix
 *      tile tokens ("Cijk_Alik_Bljk_SB_MT64x16x32_MI16x16x1");
 *   2. the head with every template argument that differs among the kernels that share
 *      form 1, namespaces dropped ("vectorized_elementwise_kernel<2, AUnaryFunctor<float,
 *      float, float, MulFunctor<float>>>");
 *   3. the full name (unique: the kernels table has one row per name).
 * Every run of letters and digits of a short name occurs in the full name, so a reader
 * can find the full name from the short one. The short name is the
 * `short_name` column of `kernels`, `kernels_by_device`, `variability` and `thunks` (the
 * rows whose name is a kernel of `kernels`); renderers compute nothing. */
#define _POSIX_C_SOURCE 200809L
#include "analyse/internal.h"
#include "base/buf.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_SPEC "short_name:text:Short name"

static int opener(char c)
{
    return c == '<' || c == '(' || c == '[' || c == '{';
}

static int closer(char c)
{
    return c == '>' || c == ')' || c == ']' || c == '}';
}

/* p..e trimmed of spaces */
static void trim(const char **p, const char **e)
{
    while (*p < *e && isspace((unsigned char)**p))
        (*p)++;
    while (*e > *p && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* The end of the qualified name that starts at p (before e): the first '<' or '(' at
 * depth 0 that is not "(anonymous namespace)" or "operator()". */
static const char *name_end(const char *p, const char *e)
{
    const char *q = p;
    while (q < e) {
        if (*q == '(' && (size_t)(e - q) >= 21 && !strncmp(q, "(anonymous namespace)", 21)) {
            q += 21;
            continue;
        }
        if (*q == '(' && q >= p + 8 && !strncmp(q - 8, "operator", 8) && q + 1 < e &&
            q[1] == ')') {
            q += 2;
            continue;
        }
        if (*q == '<' || *q == '(')
            return q;
        q++;
    }
    return e;
}

/* The last component of the qualified name p..e (after the last "::"). */
static const char *last_comp(const char *p, const char *e)
{
    const char *l = p;
    for (const char *q = p; q + 1 < e; q++)
        if (q[0] == ':' && q[1] == ':')
            l = q + 2;
    return l;
}

/* The matching closer of the opener at p, or e. */
static const char *match(const char *p, const char *e)
{
    int d = 0;
    for (const char *q = p; q < e; q++) {
        if (opener(*q))
            d++;
        else if (closer(*q) && !(*q == '>' && q > p && q[-1] == '-') && --d == 0)
            return q;
    }
    return e;
}

typedef struct span {
    const char *p, *e;
} span;

/* The top-level template arguments inside '<' at lt: at most cap, their count. */
static size_t targs(const char *lt, const char *e, span *out, size_t cap)
{
    const char *end = match(lt, e);
    size_t n = 0;
    int d = 0;
    const char *st = lt + 1;
    for (const char *q = lt + 1; q < end; q++) {
        if (opener(*q))
            d++;
        else if (closer(*q) && !(*q == '>' && q[-1] == '-'))
            d--;
        else if (*q == ',' && d == 0) {
            if (n < cap)
                out[n++] = (span){st, q};
            st = q + 1;
        }
    }
    if (end > st && n < cap)
        out[n++] = (span){st, end};
    for (size_t i = 0; i < n; i++)
        trim(&out[i].p, &out[i].e);
    return n;
}

#define MAXARGS 24

/* An argument without namespaces: "at::native::AUnaryFunctor<float, at::native::X<float> >"
 * -> "AUnaryFunctor<float, X<float>>"; a lambda's path -> its enclosing function
 * ("at::native::neg_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::..." ->
 * "neg_kernel_cuda"); a number or a cast number as it is. */
static void simple(td_buf *b, const char *p, const char *e, int depth)
{
    trim(&p, &e);
    if (p >= e)
        return;
    if (*p == '(' && !(e - p >= 21 && !strncmp(p, "(anonymous namespace)", 21))) {
        const char *c = match(p, e); /* a cast number "(cub::BlockLoadAlgorithm)3" */
        if (c < e) {
            td_buf_put(b, c + 1, (size_t)(e - c - 1));
            return;
        }
    }
    const char *ne = name_end(p, e);
    const char *l = last_comp(p, ne);
    /* a trailing qualifier such as "const" or "*" after the arguments is kept only as
     * the words of the head */
    td_buf_put(b, l, (size_t)(ne - l));
    if (ne < e && *ne == '(') {
        /* decltype(nullptr) whole; a lambda's path: its enclosing function and the
         * parameters of the innermost lambda, which tell the types apart
         * ("direct_copy_kernel_cuda(long)") */
        const char *c = match(ne, e);
        if (ne - l == 8 && !strncmp(l, "decltype", 8)) {
            td_buf_put(b, ne, (size_t)(c < e ? c + 1 - ne : e - ne));
            return;
        }
        const char *lam = NULL;
        for (const char *q = ne; q + 8 <= e; q++)
            if (!strncmp(q, "{lambda(", 8))
                lam = q + 7;
        if (lam) {
            const char *le = match(lam, e);
            if (le < e && le > lam + 1)
                td_buf_put(b, lam, (size_t)(le + 1 - lam));
        }
        return;
    }
    if (ne < e && *ne == '<') {
        span a[MAXARGS];
        size_t n = targs(ne, e, a, MAXARGS);
        if (depth > 3) {
            td_buf_puts(b, "<\xe2\x80\xa6>");
            return;
        }
        td_buf_puts(b, "<");
        for (size_t i = 0; i < n; i++) {
            if (i)
                td_buf_puts(b, ", ");
            simple(b, a[i].p, a[i].e, depth + 1);
        }
        td_buf_puts(b, ">");
    }
}

/* A kernel name taken apart: the head (last component of the function's name) and its
 * top-level template arguments. */
typedef struct parsed {
    const char *head, *head_e;
    span arg[MAXARGS];
    size_t nargs;
} parsed;

static void parse(const char *name, parsed *o)
{
    const char *p = name, *e = name + strlen(name);
    trim(&p, &e);
    if (!strncmp(p, "void ", 5))
        p += 5;
    const char *ne = name_end(p, e);
    o->head = last_comp(p, ne);
    o->head_e = ne;
    o->nargs = ne < e && *ne == '<' ? targs(ne, e, o->arg, MAXARGS) : 0;
}

static int has(const char *p, const char *e, const char *w)
{
    size_t n = strlen(w);
    for (const char *q = p; q + n <= e; q++)
        if (!strncmp(q, w, n))
            return 1;
    return 0;
}

/* An argument that tells what the kernel computes: a functor, an operation, a GEMM
 * configuration, a kernel function (a lambda's enclosing function). */
static int telling(const char *p, const char *e)
{
    return has(p, e, "unctor") || has(p, e, "gemm") || has(p, e, "Op") ||
           has(p, e, "_kernel") || has(p, e, "Kernel") || has(p, e, "lambda") ||
           has(p, e, "Functor") || has(p, e, "cutlass_") || has(p, e, "Traits") ||
           has(p, e, "traits");
}

/* Form 1's argument: the telling argument, followed down to the innermost telling one. */
static int telling_arg(const char *p, const char *e, span *out)
{
    int found = 0;
    for (int guard = 0; guard < 8; guard++) {
        span a[MAXARGS];
        const char *ne = name_end(p, e);
        size_t n = ne < e && *ne == '<' ? targs(ne, e, a, MAXARGS) : 0;
        size_t k = 0;
        while (k < n && !telling(a[k].p, a[k].e))
            k++;
        if (k == n)
            return found;
        *out = a[k];
        found = 1;
        p = a[k].p;
        e = a[k].e;
    }
    return found;
}

/* A rocBLAS/Tensile kernel "Cijk_Alik_Bljk_SB_..._MT64x16x32_MI16x16x1_...": its first
 * four tokens (layout and data type) and its macro/matrix tile tokens. */
static int tensile(td_buf *b, const char *name)
{
    if (strncmp(name, "Cijk_", 5) != 0)
        return 0;
    const char *p = name;
    int k = 0;
    while (*p) {
        size_t n = strcspn(p, "_");
        int keep = k < 4 || ((n > 2 && (!strncmp(p, "MT", 2) || !strncmp(p, "MI", 2))) &&
                             isdigit((unsigned char)p[2]));
        if (keep) {
            if (b->n)
                td_buf_puts(b, "_");
            td_buf_put(b, p, n);
        }
        k++;
        p += n;
        if (*p == '_')
            p++;
    }
    return 1;
}

static void form1(td_buf *b, const char *name)
{
    if (tensile(b, name))
        return;
    parsed q;
    parse(name, &q);
    td_buf_put(b, q.head, (size_t)(q.head_e - q.head));
    const char *p = name, *e = name + strlen(name);
    if (!strncmp(p, "void ", 5))
        p += 5;
    span t;
    if (q.nargs && telling_arg(p, e, &t)) {
        td_buf_puts(b, "<");
        simple(b, t.p, t.e, 1);
        td_buf_puts(b, ">");
    } else if (q.nargs && (q.head_e - q.head) <= 8) {
        /* a head that says little ("Kernel") keeps its first argument */
        td_buf_puts(b, "<");
        simple(b, q.arg[0].p, q.arg[0].e, 1);
        td_buf_puts(b, ">");
    }
}

/* Form 2: the head with the arguments that differ among the names of one group. */
static void form2(td_buf *b, const char *name, const char *const *group, size_t ng)
{
    parsed q;
    parse(name, &q);
    td_buf_put(b, q.head, (size_t)(q.head_e - q.head));
    if (!q.nargs)
        return;
    int differs[MAXARGS] = {0};
    td_buf x = {0}, y = {0};
    for (size_t g = 0; g < ng; g++) {
        parsed o;
        parse(group[g], &o);
        for (size_t i = 0; i < q.nargs; i++) {
            if (i >= o.nargs) {
                differs[i] = 1;
                continue;
            }
            x.n = y.n = 0;
            simple(&x, q.arg[i].p, q.arg[i].e, 1);
            simple(&y, o.arg[i].p, o.arg[i].e, 1);
            if (x.n != y.n || memcmp(td_buf_cstr(&x), td_buf_cstr(&y), x.n))
                differs[i] = 1;
        }
    }
    td_buf_free(&x);
    td_buf_free(&y);
    for (size_t i = 0; i < q.nargs; i++)
        if (telling(q.arg[i].p, q.arg[i].e)) { /* form 1's argument stays */
            differs[i] = 1;
            break;
        }
    int first = 1;
    td_buf_puts(b, "<");
    for (size_t i = 0; i < q.nargs; i++) {
        if (!differs[i])
            continue;
        if (!first)
            td_buf_puts(b, ", ");
        first = 0;
        simple(b, q.arg[i].p, q.arg[i].e, 1);
    }
    td_buf_puts(b, ">");
}

static int by_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

typedef struct kname {
    const char *full, *shrt;
    int level;
} kname;

/* Kernels whose short names collide go one form further; repeated until none collide. */
static void resolve(td_summary *s, kname *k, size_t n)
{
    td_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        b.n = 0;
        form1(&b, k[i].full);
        k[i].shrt = td_arena_strdup(s->a, td_buf_cstr(&b));
        k[i].level = 1;
    }
    const char **grp = td_xmalloc((n + 1) * sizeof *grp);
    for (int round = 0; round < 3; round++) {
        int changed = 0;
        for (size_t i = 0; i < n; i++) {
            size_t ng = 0;
            for (size_t j = 0; j < n; j++)
                if (j != i && !strcmp(k[i].shrt, k[j].shrt))
                    grp[ng++] = k[j].full;
            if (!ng)
                continue;
            grp[ng++] = k[i].full;
            /* every member of the group moves on together */
            const char *old = k[i].shrt;
            int lvl = k[i].level;
            for (size_t j = 0; j < n; j++) {
                if (strcmp(k[j].shrt, old) != 0 || k[j].level != lvl)
                    continue;
                if (lvl == 1) {
                    b.n = 0;
                    form2(&b, k[j].full, grp, ng);
                    k[j].shrt = td_arena_strdup(s->a, td_buf_cstr(&b));
                    k[j].level = 2;
                } else {
                    k[j].shrt = k[j].full;
                    k[j].level = 3;
                }
                changed = 1;
            }
        }
        if (!changed)
            break;
    }
    /* a form 2 that is no shorter than the name, or still shared: the full name */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (i != j && !strcmp(k[i].shrt, k[j].shrt)) {
                k[i].shrt = k[i].full;
                k[j].shrt = k[j].full;
            }
    for (size_t i = 0; i < n; i++)
        if (strlen(k[i].shrt) >= strlen(k[i].full))
            k[i].shrt = k[i].full;
    free(grp);
    td_buf_free(&b);
}

static int by_full(const void *x, const void *y)
{
    return strcmp(((const kname *)x)->full, ((const kname *)y)->full);
}

static const char *lookup(const kname *k, size_t n, const char *full)
{
    kname key = {full, NULL, 0};
    const kname *f = full ? bsearch(&key, k, n, sizeof *k, by_full) : NULL;
    return f ? f->shrt : NULL;
}

/* The short_name column of a table whose "name" holds kernel names. */
static void fill(td_summary *s, const char *table, const kname *k, size_t n)
{
    td_table *t = td_sum_find_table(s, table);
    if (!t || td_table_col(t, "name") < 0)
        return;
    size_t hit = 0; /* XLA's thunks are not kernels: no column for them */
    for (size_t r = 0; r < t->nrows; r++)
        hit += lookup(k, n, td_row_get_str(t, r, "name")) != NULL;
    if (!hit)
        return;
    if (td_table_col(t, "short_name") < 0)
        td_table_add_col(t, SHORT_SPEC);
    for (size_t r = 0; r < t->nrows; r++) {
        const char *sn = lookup(k, n, td_row_get_str(t, r, "name"));
        if (sn)
            td_row_str(s, t, r, "short_name", sn);
    }
}

void td_an_names(td_actx *a)
{
    td_summary *s = a->s;
    const td_table *tk = td_sum_find_table(s, "kernels");
    if (!tk || !tk->nrows || td_table_col(tk, "name") < 0)
        return;
    const char **all = td_xmalloc((tk->nrows + 1) * sizeof *all);
    size_t m = 0;
    for (size_t r = 0; r < tk->nrows; r++) {
        const char *nm = td_row_get_str(tk, r, "name");
        if (nm)
            all[m++] = nm;
    }
    qsort(all, m, sizeof *all, by_str);
    kname *k = td_xcalloc(m + 1, sizeof *k);
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (!n || strcmp(k[n - 1].full, all[i]) != 0)
            k[n++].full = all[i];
    free(all);
    resolve(s, k, n);
    fill(s, "kernels", k, n);
    fill(s, "kernels_by_device", k, n);
    fill(s, "variability", k, n);
    fill(s, "thunks", k, n);
    free(k);
}
