/* analyse/flame.c - folded stacks: `cpu` (thread;op;child op... valued by self time,
 * over the op nesting of analyse/nest.c) and `ops` (op names split on '/', valued by
 * self time; only when some op name is hierarchical). The `device` flame is made by
 * analyse/modules.c, which knows the modules.
 *
 * The cpu flame merges equal call paths through a small hash trie (node = parent node +
 * name), so each distinct path is formatted once, however many events share it. */
#include "analyse/internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct node {
    int32_t parent;    /* -1 for a thread root */
    int32_t depth;     /* frames below the thread root */
    td_str name;       /* op name; roots: unused */
    const char *label; /* roots: thread label */
    int64_t value;
} node;

typedef struct trie {
    node *v;
    size_t n, cap;
    int32_t *h;        /* open addressing: node index or -1 */
    size_t hcap;
} trie;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static void rehash(trie *t)
{
    size_t cap = t->hcap ? t->hcap * 2 : 1024;
    free(t->h);
    t->h = td_xmalloc(cap * sizeof *t->h);
    memset(t->h, 0xff, cap * sizeof *t->h);
    t->hcap = cap;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].parent < 0)
            continue;
        uint64_t k = ((uint64_t)(uint32_t)t->v[i].parent << 32) | t->v[i].name;
        size_t j = mix(k) & (cap - 1);
        while (t->h[j] >= 0)
            j = (j + 1) & (cap - 1);
        t->h[j] = (int32_t)i;
    }
}

static int32_t child(trie *t, int32_t parent, td_str name)
{
    if ((t->n + 1) * 2 > t->hcap)
        rehash(t);
    uint64_t k = ((uint64_t)(uint32_t)parent << 32) | name;
    size_t j = mix(k) & (t->hcap - 1);
    while (t->h[j] >= 0) {
        node *x = &t->v[t->h[j]];
        if (x->parent == parent && x->name == name)
            return t->h[j];
        j = (j + 1) & (t->hcap - 1);
    }
    node *x = TD_PUSH(t->v, t->n, t->cap);
    memset(x, 0, sizeof *x);
    x->parent = parent;
    x->name = name;
    t->h[j] = (int32_t)(t->n - 1);
    return (int32_t)(t->n - 1);
}

static void path(td_actx *a, const trie *t, int32_t i, td_buf *b)
{
    const node *x = &t->v[i];
    if (x->parent < 0) {
        td_fold_put(b, x->label);
        return;
    }
    path(a, t, x->parent, b);
    td_buf_putc(b, ';');
    td_fold_put(b, td_name(a, x->name));
}

static const char *thread_label(td_actx *a, const td_trace *t, uint32_t track)
{
    const td_track *k = &t->tracks[track];
    /* a partial (summarize) names the rank too: the job it joins has several */
    const char *r = a->n > 1 || a->part ? td_arena_printf(a->s->a, "rank %d ", t->rank) : "";
    if (k->thread_name)
        return td_arena_printf(a->s->a, "%s%s", r, td_name(a, k->thread_name));
    if (k->tid_str)
        return td_arena_printf(a->s->a, "%s%s", r, td_name(a, k->tid_str));
    return td_arena_printf(a->s->a, "%sthread %lld", r, (long long)k->tid);
}

/* Step ranges (ProfilerStep#12, iteration_3) appear as one frame without the number, so
 * the steps' call stacks merge instead of standing side by side one tower per step. */
static int step_like(const char *n)
{
    const char *d;
    if (!strncmp(n, "ProfilerStep#", 13))
        d = n + 13;
    else if (!strncmp(n, "iteration_", 10))
        d = n + 10;
    else
        return 0;
    if (!*d)
        return 0;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return 0;
    return 1;
}

static td_str frame_name(td_actx *a, uint32_t *map, size_t nmap, td_str id)
{
    if (id >= nmap)
        return id;
    if (!map[id]) {
        const char *n = td_name(a, id);
        map[id] = 1 + (step_like(n) ? td_intern_cstr(a->set->strs, td_strip_num(a->s, n)) : id);
    }
    return map[id] - 1;
}

static void cpu_flame(td_actx *a)
{
    trie tr = {0};
    td_str deeper = td_intern_cstr(a->set->strs, TD_FLAME_DEEPER);
    int64_t ncut = 0;
    size_t nmap = td_strtab_count(a->set->strs);
    uint32_t *map = td_xcalloc(nmap + 1, sizeof *map);
    int32_t *node_of = NULL; /* per event of the current trace */
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        td_trace *t = c->t;
        int32_t *roots = td_xmalloc((t->ntracks + 1) * sizeof *roots);
        memset(roots, 0xff, (t->ntracks + 1) * sizeof *roots);
        node_of = td_xrealloc(node_of, (t->nev + 1) * sizeof *node_of);
        for (size_t i = 0; i < t->nev; i++) {
            if (!c->isop[i])
                continue;
            int32_t p;
            if (c->parent[i] >= 0) {
                p = node_of[c->parent[i]];
            } else {
                uint32_t k = t->ev[i].track;
                if (roots[k] < 0) {
                    node *x = TD_PUSH(tr.v, tr.n, tr.cap);
                    memset(x, 0, sizeof *x);
                    x->parent = -1;
                    x->label = thread_label(a, t, k);
                    roots[k] = (int32_t)(tr.n - 1);
                }
                p = roots[k];
            }
            /* past TD_FLAME_MAX_DEPTH frames, the rest of the stack is one frame (a
             * folded line holds its whole path: unbounded depth is quadratic output) */
            if (tr.v[p].depth >= TD_FLAME_MAX_DEPTH) {
                ncut++;
                node_of[i] = tr.v[p].name == deeper && tr.v[p].depth > TD_FLAME_MAX_DEPTH
                                 ? p : child(&tr, p, deeper);
            } else
                node_of[i] = child(&tr, p, frame_name(a, map, nmap, t->ev[i].name));
            tr.v[node_of[i]].depth = tr.v[p].depth + (node_of[i] != p);
            /* self time: dur here, minus dur at the parent's node */
            tr.v[node_of[i]].value += t->ev[i].dur;
            if (c->parent[i] >= 0)
                tr.v[p].value -= t->ev[i].dur;
        }
        free(roots);
    }
    free(node_of);
    free(map);
    if (ncut)
        td_sum_warning(a->s, td_arena_printf(a->s->a, "cpu stacks deeper than %d frames: the "
                       "frames below are merged into one '%s' frame (%lld ops)",
                       TD_FLAME_MAX_DEPTH, TD_FLAME_DEEPER, (long long)ncut));
    if (tr.n) {
        td_flame *fl = td_sum_flame(a->s, "cpu", "CPU call stacks");
        td_buf b = {0};
        for (size_t i = 0; i < tr.n; i++) {
            if (tr.v[i].parent < 0 || tr.v[i].value <= 0)
                continue;
            b.n = 0;
            path(a, &tr, (int32_t)i, &b);
            td_flame_add(a->s, fl, td_buf_cstr(&b), tr.v[i].value);
        }
        td_buf_free(&b);
        td_flame_finish(fl);
    }
    free(tr.v);
    free(tr.h);
}

static void ops_flame(td_actx *a)
{
    size_t nstr = td_strtab_count(a->set->strs);
    int64_t *self = NULL;
    int hier = 0;
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        for (size_t i = 0; i < c->t->nev && !hier; i++)
            if (c->isop[i] && strchr(td_name(a, c->t->ev[i].name), '/'))
                hier = 1;
    }
    if (!hier)
        return;
    self = td_xcalloc(nstr + 1, sizeof *self);
    uint8_t *seen = td_xcalloc(nstr + 1, 1);
    for (size_t ti = 0; ti < a->n; ti++) {
        td_tctx *c = &a->tc[ti];
        for (size_t i = 0; i < c->t->nev; i++)
            if (c->isop[i]) {
                /* self time: dur here, minus dur at the parent's name */
                self[c->t->ev[i].name] += c->t->ev[i].dur;
                if (c->parent[i] >= 0)
                    self[c->t->ev[c->parent[i]].name] -= c->t->ev[i].dur;
                seen[c->t->ev[i].name] = 1;
            }
    }
    td_flame *fl = td_sum_flame(a->s, "ops", "Op hierarchy");
    td_buf b = {0};
    for (size_t k = 0; k < nstr; k++) {
        if (!seen[k] || self[k] <= 0)
            continue;
        b.n = 0;
        for (const char *p = td_name(a, (td_str)k); *p; p++) {
            char ch = *p;
            td_buf_putc(&b, ch == '/' ? ';' : ch == ';' ? ':' : (ch == '\n' || ch == '\r') ? ' ' : ch);
        }
        td_flame_add(a->s, fl, td_buf_cstr(&b), self[k]);
    }
    td_buf_free(&b);
    td_flame_finish(fl);
    free(self);
    free(seen);
}

void td_an_flames(td_actx *a)
{
    cpu_flame(a);
    ops_flame(a);
}
