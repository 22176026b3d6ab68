/* analyse/common.c - helpers that several passes (and the merge above them) share: the
 * default options, step-name numbers, the run's label, statistics of a list of samples,
 * folded-stack frame names, the NCCL/RCCL name test (and its memo per name), the nccl-tests bus factor and the
 * warm-up rule sentence. They live below the passes so that no pass calls a peer. */
#include "analyse/internal.h"
#include "base/sort.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void td_opts_default(td_opts *o)
{
    memset(o, 0, sizeof *o); /* every option a later pass adds starts at 0 / NULL / off */
    o->warmup = TD_WARMUP_AUTO;
    o->step_pattern = NULL;
    o->module_pattern = NULL;
    o->threshold = 0.01;
    o->compile_passes = 0;
}

int64_t td_trailing_num(const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == n || n - i > 18)
        return -1;
    return strtoll(name + i, NULL, 10);
}

const char *td_strip_num(td_summary *s, const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    if (i == n || i == 0)
        return td_arena_strdup(s->a, name);
    if (name[i - 1] == '#' || name[i - 1] == '_' || name[i - 1] == '-' || name[i - 1] == ' ')
        i--;
    if (i == 0)
        return td_arena_strdup(s->a, name);
    return td_arena_strndup(s->a, name, i);
}

static const char *base_name(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* Base name of a command-line input: a directory keeps a trailing '/'. */
static void input_base(td_buf *b, const char *in)
{
    if (!in || !strcmp(in, "-")) {
        td_buf_puts(b, "stdin");
        return;
    }
    size_t n = strlen(in);
    while (n > 1 && in[n - 1] == '/')
        n--;
    size_t i = n;
    while (i > 0 && in[i - 1] != '/')
        i--;
    td_buf_put(b, in + i, n - i);
    if (n < strlen(in))
        td_buf_putc(b, '/');
}

/* The run's name for titles: one input by its base name; several by the archive or
 * directory they came from ("param_dlrm_8ranks.tar.gz, 8 ranks"), else by the common
 * part of the files' names ("pax_fsdp4_4proc_proc*.zip, 4 ranks") or the first name
 * and a count. Never a comma list of every file. */
void td_run_label(td_buf *b, const char *const *input, const char *const *paths, size_t n)
{
    if (n == 0) /* an archive or directory that held no trace (fuzz finding crash-60492e80) */
        return;
    if (n == 1) {
        td_buf_puts(b, base_name(paths[0]));
        return;
    }
    const char **in = td_xmalloc(n * sizeof *in);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *x = input[i];
        size_t j = 0;
        while (j < k && strcmp(in[j], x))
            j++;
        if (j == k)
            in[k++] = x;
    }
    if (k == 1)
        input_base(b, in[0]);
    else {
        td_buf first = {0}, other = {0};
        input_base(&first, in[0]);
        const char *f = td_buf_cstr(&first);
        size_t pre = strlen(f), suf = strlen(f);
        for (size_t j = 1; j < k; j++) {
            other.n = 0;
            input_base(&other, in[j]);
            const char *o = td_buf_cstr(&other);
            size_t on = strlen(o), p = 0, q = 0;
            while (p < pre && o[p] == f[p])
                p++;
            while (q < suf && q < on && q < strlen(f) && o[on - 1 - q] == f[strlen(f) - 1 - q])
                q++;
            pre = p;
            suf = q;
        }
        size_t fn = strlen(f);
        if (pre + suf > fn)
            suf = fn - pre;
        if (pre + suf >= 4)
            td_buf_printf(b, "%.*s*%s", (int)pre, f, f + fn - suf);
        else
            td_buf_printf(b, "%s and %zu more", f, k - 1);
        td_buf_free(&first);
        td_buf_free(&other);
    }
    free(in);
    td_buf_printf(b, ", %zu ranks", n);
}

void td_stats_of(int64_t *v, size_t n, td_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = n;
    if (!n)
        return;
    td_sort_i64(v, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        st->total += v[i];
        sum += (double)v[i];
    }
    st->min = v[0];
    st->max = v[n - 1];
    st->mean = sum / (double)n;
    st->median = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
    if (n > 1) {
        double ss = 0;
        for (size_t i = 0; i < n; i++) {
            double d = (double)v[i] - st->mean;
            ss += d * d;
        }
        st->std = sqrt(ss / (double)(n - 1));
    }
}

void td_fold_put(td_buf *b, const char *name)
{
    for (const char *p = name; *p; p++) {
        char ch = *p;
        td_buf_putc(b, ch == ';' ? ':' : (ch == '\n' || ch == '\r') ? ' ' : ch);
    }
}

int td_is_comm_name(const char *n)
{
    for (const char *p = n; *p; p++)
        if ((p[0] == 'n' || p[0] == 'N' || p[0] == 'r' || p[0] == 'R') &&
            strncasecmp(p + 1, "ccl", 3) == 0)
            return 1;
    return 0;
}
void td_sort_name_dur(const td_actx *a, td_str *name, td_keyed *kv, size_t n)
{
    size_t nn = td_strtab_count(a->set->strs) + 1;
    for (size_t i = 0; i < n; i++)
        if (name[i] >= nn)
            nn = (size_t)name[i] + 1;
    size_t *at = td_xcalloc(nn + 1, sizeof *at);
    for (size_t i = 0; i < n; i++)
        at[name[i] + 1]++;
    for (size_t j = 0; j < nn; j++)
        at[j + 1] += at[j];
    td_keyed *v = td_xmalloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[at[name[i]]++] = kv[i];
    /* at[j] is now the end of name j's bucket */
    for (size_t j = 0, lo = 0; j < nn; lo = at[j++]) {
        if (lo == at[j])
            continue;
        td_sort_keyed(v + lo, at[j] - lo);
        for (size_t q = lo; q < at[j]; q++)
            name[q] = (td_str)j;
    }
    memcpy(kv, v, n * sizeof *kv);
    free(v);
    free(at);
}

int td_is_comm_id(td_actx *a, td_str id)
{
    if (!a->commname) {
        a->ncommname = td_strtab_count(a->set->strs) + 1;
        a->commname = td_xcalloc(a->ncommname, 1);
    }
    if (id >= a->ncommname) /* interned after the first call */
        return td_is_comm_name(td_name(a, id));
    if (!a->commname[id])
        a->commname[id] = (uint8_t)(1 + td_is_comm_name(td_name(a, id)));
    return a->commname[id] == 2;
}
int td_is_sync_name(const char *n)
{
    static const char *const W[] = {"event_wait", "wait_event", "waitevent", "barrier",
                                    "semaphore_wait", NULL};
    for (const char *const *w = W; *w; w++)
        for (const char *p = n; *p; p++)
            if (!strncasecmp(p, *w, strlen(*w)))
                return 1;
    return !strcasecmp(n, "wait") || !strncasecmp(n, "wait_", 5);
}

int td_is_sync_work(td_actx *a, const td_tctx *c, size_t i)
{
    const td_trace *t = c->t;
    const td_event *ev = &t->ev[i];
    if (ev->kind == TD_K_MEMCPY || ev->kind == TD_K_MEMSET)
        return 0;
    if (c->iscomm[i]) { /* a collective of one element: its time is the wait for the others */
        const td_nccl *n = ev->aux ? td_aux_nccl(t, ev->aux) : NULL;
        return n && n->in_nelems >= 0 && n->in_nelems <= 1 && n->out_nelems <= 1;
    }
    if (!a->syncname) {
        a->nsyncname = td_strtab_count(a->set->strs) + 1;
        a->syncname = td_xcalloc(a->nsyncname, 1);
    }
    if (ev->name >= a->nsyncname)
        return td_is_sync_name(td_name(a, ev->name));
    if (!a->syncname[ev->name])
        a->syncname[ev->name] = (uint8_t)(1 + td_is_sync_name(td_name(a, ev->name)));
    return a->syncname[ev->name] == 2;
}

double td_bus_factor(const char *type, int n)
{
    if (n <= 0)
        return -1;
    if (!strcmp(type, "allreduce"))
        return 2.0 * (n - 1) / n;
    if (!strcmp(type, "allgather") || !strcmp(type, "reducescatter") || !strcmp(type, "alltoall"))
        return (double)(n - 1) / n;
    return 1.0;
}
const char *td_warmup_rule(td_summary *s, const td_opts *o, size_t total, size_t dropped,
                           size_t nranks)
{
    const char *rule;
    if (!total)
        rule = "No steps found (ProfilerStep#N, iteration_N or --step-pattern), so nothing was "
               "dropped.";
    else if (o->warmup == TD_WARMUP_NONE)
        rule = "Warm-up removal is off (--warmup none): every step is kept.";
    /* the sentence never claims a drop that did not happen (dropped counts them) */
    else if (o->warmup > 0 && !dropped)
        rule = td_arena_printf(s->a, "No step was dropped (--warmup %d).", o->warmup);
    else if (o->warmup > 0)
        rule = td_arena_printf(s->a, "As asked (--warmup %d), the first %d step%s of each rank "
                               "with steps %s dropped: %zu in all.", o->warmup, o->warmup,
                               o->warmup == 1 ? "" : "s", o->warmup == 1 ? "was" : "were",
                               dropped);
    else if (dropped && nranks == 1)
        rule = "The first step was dropped: its wall time was over 1.5x the median of the "
               "other steps.";
    else if (dropped)
        rule = td_arena_printf(s->a, "The first step of %zu of the %zu ranks was dropped: its "
                               "wall time was over 1.5x the median of the rank's other steps.",
                               dropped, nranks);
    else
        rule = "No step was dropped: no rank's first step was over 1.5x the median wall time "
               "of its other steps (or it had fewer than 3 steps).";
    return rule;
}
