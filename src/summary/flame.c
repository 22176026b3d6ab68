/* summary/flame.c - flamegraph layout and stable colours, shared by the SVG and PDF renderers.
 *
 * The folded stacks become a tree (one node per distinct path, values summed), which is
 * then emitted in pre-order with siblings sorted by name: the output never depends on
 * hash order or on the order of the input lines. x and w are computed from integer
 * offsets (ns from the left edge) so that children line up exactly with their parent. */
#include "summary/flame.h"
#include "base/hash.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct node {
    td_str name;
    int32_t parent;
    int32_t child, next; /* first child, next sibling (unsorted; sorted on output) */
    int64_t value;
    int64_t base;        /* differential trees: the baseline's value */
    uint64_t h;          /* key hash of (parent, name bytes) */
} node;

struct td_flametree {
    td_strtab *names;
    node *n;
    size_t nn, ncap;
    uint32_t *slots; /* open addressing on (parent, name): node index + 1, 0 = empty */
    size_t nslots;
    int64_t total, base_total;
    /* the previous stack added and its nodes: folded files are mostly sorted, so a
     * line shares frames with the one before and only the new frames are looked up */
    char *last;
    size_t lastn, lastcap;
    int32_t *path;     /* node of each frame of the previous stack */
    size_t *ends;      /* end offset of each frame in last */
    size_t depth, pcap, ecap;
    /* whole stacks seen before -> their leaf node (a profile repeats a few thousand
     * distinct stacks over millions of lines): one hash per line instead of one per
     * frame; bounded (LINES_MAX stacks, LINES_BYTES of text), then frames are looked up */
    struct lslot { uint64_t h; struct lrec *r; } *lc; /* open addressing, r NULL = empty */
    size_t nlc, lcslots, lcbytes;
    int pending; /* some record's pv/pb not yet added to the nodes */
    /* stacks only (td_flametree_new_stacks): a stack first seen gets a record and no
     * nodes (leaf -1: its values stay in pv/pb, only the root has them); nodes are made
     * only once the cache is full. Such a tree is only merged into another. */
    int stacks_only;
    td_arena *la;
};
typedef struct td_flametree tree;

/* A stack seen before, its text right after it (one cache line or two for both). */
struct lrec {
    int64_t pv, pb; /* values added since the last flush (not yet in the nodes) */
    int32_t leaf;   /* -1: a stack of a stacks-only tree, no nodes */
    uint32_t len;
    char s[];
};

/* Hash of a frame under its parent, 8 bytes at a time (frames are looked up once per
 * line and frame, so this is the hot loop of a large folded file). */
static uint64_t key_hash(int32_t parent, const char *s, size_t len)
{
    return td_hash_words(0x9e3779b97f4a7c15ull ^
                         ((uint64_t)(uint32_t)parent * 0xff51afd7ed558ccdull) ^ len, s, len);
}

/* Hash of a whole stack for the line cache: four independent lanes of 8 bytes (the
 * lines of a deep profile are kilobytes long, and a single multiply chain would make
 * hashing the slowest step of reading them). Never stored. */
static uint64_t line_hash(const char *s, size_t len)
{
    uint64_t a = 0x9e3779b97f4a7c15ull ^ len, b = 0xc2b2ae3d27d4eb4full,
             c = 0x165667b19e3779f9ull, d = 0x27d4eb2f165667c5ull;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        uint64_t w[4];
        memcpy(w, s + i, 32);
        a = (a ^ w[0]) * 0xbf58476d1ce4e5b9ull;
        b = (b ^ w[1]) * 0x94d049bb133111ebull;
        c = (c ^ w[2]) * 0xff51afd7ed558ccdull;
        d = (d ^ w[3]) * 0xc4ceb9fe1a85ec53ull;
        a ^= a >> 29;
        b ^= b >> 31;
        c ^= c >> 33;
        d ^= d >> 27;
    }
    uint64_t h = a ^ (b * 0x9e3779b97f4a7c15ull) ^ ((c << 21 | c >> 43) + d);
    return td_hash_words(h, s + i, len - i);
}

static void rehash(tree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *sl = td_xcalloc(ns, sizeof *sl);
    for (size_t i = 1; i < t->nn; i++) {
        size_t j = t->n[i].h & (ns - 1);
        while (sl[j])
            j = (j + 1) & (ns - 1);
        sl[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = sl;
    t->nslots = ns;
}

/* Child of parent named s[0..len), created when absent. */
static int32_t child_of(tree *t, int32_t parent, const char *s, size_t len)
{
    uint64_t h = key_hash(parent, s, len);
    size_t j = h & (t->nslots - 1);
    for (;;) {
        uint32_t id = t->slots[j];
        if (!id)
            break;
        node *x = &t->n[id - 1];
        if (x->h == h && x->parent == parent && td_strlen_of(t->names, x->name) == len &&
            !memcmp(td_strget(t->names, x->name), s, len))
            return (int32_t)(id - 1);
        j = (j + 1) & (t->nslots - 1);
    }
    int32_t id = (int32_t)t->nn;
    node *x = TD_PUSH(t->n, t->nn, t->ncap);
    x->name = td_intern(t->names, s, len);
    x->parent = parent;
    x->child = -1;
    x->value = 0;
    x->base = 0;
    x->h = h;
    x->next = t->n[parent].child;
    t->n[parent].child = id;
    t->slots[j] = (uint32_t)id + 1;
    if (t->nn * 2 > t->nslots)
        rehash(t);
    return id;
}

/* A child being ordered: its name is carried along so the comparison needs no global
 * context (layouts may be built from several threads). */
typedef struct kid {
    const char *name;
    size_t len; /* bytes of the name (it may hold NUL bytes) */
    int32_t node;
} kid;

/* By name: byte order, a name before the longer ones it starts (as strcmp orders names
 * without NUL bytes), so that siblings whose names differ only after a NUL byte still
 * come in one order whatever order they were made in. */
static int cmp_name(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* One pending output frame: a tree node, or (node < 0) the grey frame standing for
 * `pruned` merged siblings. */
typedef struct pending {
    int32_t node;
    int32_t parent_out;
    int depth;
    int pruned;
    int64_t offset, value, base;
} pending;

static void emit(td_flamelayout *l, size_t *cap, const char *name, const pending *p,
                 const char *palette)
{
    td_frame *f = TD_PUSH(l->f, l->n, *cap);
    f->name = name;
    f->value = p->value;
    f->x = l->total > 0 ? (double)p->offset / (double)l->total : 0;
    f->w = l->total > 0 ? (double)p->value / (double)l->total : 1;
    f->depth = p->depth;
    f->parent = p->parent_out;
    f->pruned = p->pruned;
    f->color = p->pruned ? 0xc0c0c0 : td_name_color(name, palette);
    f->base = p->base;
    f->self_delta = 0;
    if (p->depth > l->maxdepth)
        l->maxdepth = p->depth;
}

td_flametree *td_flametree_new(void)
{
    tree *t = td_xcalloc(1, sizeof *t);
    t->names = td_strtab_new();
    rehash(t);
    node *root = TD_PUSH(t->n, t->nn, t->ncap);
    root->name = td_intern_cstr(t->names, "all");
    root->parent = -1;
    root->child = root->next = -1;
    root->value = 0;
    root->base = 0;
    root->h = 0;
    return t;
}

td_flametree *td_flametree_new_stacks(void)
{
    tree *t = td_flametree_new();
    t->stacks_only = 1;
    return t;
}

void td_flametree_free(td_flametree *t)
{
    if (!t)
        return;
    free(t->lc);
    td_arena_free(t->la);
    free(t->n);
    free(t->slots);
    free(t->last);
    free(t->path);
    free(t->ends);
    td_strtab_free(t->names);
    free(t);
}

int64_t td_flametree_total(const td_flametree *t)
{
    return t->total;
}

int64_t td_flametree_base_total(const td_flametree *t)
{
    return t->base_total;
}

/* Add the line cache's pending values to the nodes of their stacks (the root and the
 * totals are kept up to date as lines are added): each record's values to its leaf's
 * entry of a delta array, then one pass over the nodes from the last to the first adds
 * each delta to its node and to its parent's delta (a node is always made after its
 * parent, so a parent's index is lower): O(nodes + records), not one update per frame
 * of every stack. */
void td_flametree_flush(td_flametree *t)
{
    if (!t->pending)
        return;
    int64_t (*d)[2] = td_xcalloc(t->nn, sizeof *d);
    for (size_t i = 0; i < t->lcslots; i++) {
        struct lrec *c = t->lc[i].r;
        if (!c || (!c->pv && !c->pb) || c->leaf < 0)
            continue;
        if (c->leaf > 0) {
            d[c->leaf][0] += c->pv; /* no overflow: a node's sum is at most the total */
            d[c->leaf][1] += c->pb;
        }
        c->pv = c->pb = 0;
    }
    for (size_t k = t->nn; k-- > 1;) {
        if (!d[k][0] && !d[k][1])
            continue;
        t->n[k].value += d[k][0];
        t->n[k].base += d[k][1];
        d[t->n[k].parent][0] += d[k][0];
        d[t->n[k].parent][1] += d[k][1];
    }
    free(d);
    t->pending = 0;
}

/* Readers of node values: a tree is flushed where it is built (td_folded_*,
 * td_flame_tree), so this only guards against a caller that forgot. */
static const tree *flushed(const tree *t)
{
    if (t->pending)
        td_flametree_flush((tree *)t);
    return t;
}

int td_flametree_scale(td_flametree *t, int64_t k)
{
    /* every value is at most its side's total: totals that fit make every product fit */
    if (k <= 0 || t->total > INT64_MAX / k || t->base_total > INT64_MAX / k)
        return 0;
    td_flametree_flush(t);
    for (size_t i = 0; i < t->nn; i++) {
        t->n[i].value *= k;
        t->n[i].base *= k;
    }
    for (size_t i = 0; t->stacks_only && i < t->lcslots; i++)
        if (t->lc[i].r && t->lc[i].r->leaf < 0) {
            t->lc[i].r->pv *= k;
            t->lc[i].r->pb *= k;
        }
    t->total *= k;
    t->base_total *= k;
    return 1;
}

#define LINES_MAX (1u << 20)
#define LINES_BYTES ((size_t)256 << 20)

/* Slot of stack s: its record's, or the empty one where it would go. */
static struct lslot *line_slot(tree *t, uint64_t h, const char *s, size_t len)
{
    size_t j = h & (t->lcslots - 1);
    for (;;) {
        struct lslot *c = &t->lc[j];
        if (!c->r || (c->h == h && c->r->len == len && !memcmp(c->r->s, s, len)))
            return c;
        j = (j + 1) & (t->lcslots - 1);
    }
}

/* The record of a new stack; NULL when the cache is full. */
static struct lrec *line_put(tree *t, uint64_t h, const char *s, size_t len, int32_t leaf)
{
    if (t->nlc >= LINES_MAX || t->lcbytes + len > LINES_BYTES || len > UINT32_MAX)
        return NULL;
    if ((t->nlc + 1) * 2 > t->lcslots) {
        size_t ns = t->lcslots ? t->lcslots * 2 : 1024;
        struct lslot *old = t->lc;
        size_t on = t->lcslots;
        t->lc = td_xcalloc(ns, sizeof *t->lc);
        t->lcslots = ns;
        for (size_t i = 0; i < on; i++)
            if (old[i].r)
                *line_slot(t, old[i].h, old[i].r->s, old[i].r->len) = old[i];
        free(old);
    }
    if (!t->la)
        t->la = td_arena_new();
    struct lslot *c = line_slot(t, h, s, len);
    struct lrec *r = td_arena_alloc_raw(t->la, sizeof *r + len); /* every field set */
    memcpy(r->s, s, len);
    r->len = (uint32_t)len;
    r->leaf = leaf;
    r->pv = r->pb = 0;
    c->h = h;
    c->r = r;
    t->nlc++;
    t->lcbytes += len;
    return r;
}

int td_flametree_add(td_flametree *t, const char *s, size_t len, int64_t v)
{
    return td_flametree_add2(t, s, len, v, 0);
}

/* v and b (>= 0, the root and totals already counted) to the nodes below the root of
 * stack s, whose line hash is lh. */
static void add_below_root(tree *t, const char *s, size_t len, int64_t v, int64_t b,
                           uint64_t lh)
{
    if (t->lcslots) {
        struct lslot *c = line_slot(t, lh, s, len);
        if (c->r) { /* a stack seen before: its nodes get the sum at the next flush */
            c->r->pv += v; /* no overflow: at most the total */
            c->r->pb += b;
            t->pending = 1;
            return;
        }
    }
    if (t->stacks_only) {
        struct lrec *r = line_put(t, lh, s, len, -1);
        if (r) {
            r->pv = v;
            r->pb = b;
            return;
        }
    }
    /* frames shared with the previous stack: whole frames of a common byte prefix */
    size_t same = 0, off = 0;
    while (same < t->depth) {
        size_t e = t->ends[same]; /* the previous stack's frame `same` is [off, e) */
        if (e > len || memcmp(t->last + off, s + off, e - off) || (e < len && s[e] != ';'))
            break;
        same++;
        off = e + 1;
        if (e == len)
            break;
    }
    int32_t cur = 0;
    for (size_t i = 0; i < same; i++) {
        cur = t->path[i];
        t->n[cur].value += v;
        t->n[cur].base += b;
    }
    size_t pos = same ? t->ends[same - 1] + 1 : 0;
    t->depth = same;
    if (!(same && t->ends[same - 1] == len)) {
        for (;;) {
            const char *semi = memchr(s + pos, ';', len - pos);
            size_t e = semi ? (size_t)(semi - s) : len;
            cur = child_of(t, cur, s + pos, e - pos);
            t->n[cur].value += v;
            t->n[cur].base += b;
            td_grow((void **)&t->path, &t->pcap, t->depth + 1, sizeof *t->path);
            td_grow((void **)&t->ends, &t->ecap, t->depth + 1, sizeof *t->ends);
            t->path[t->depth] = cur;
            t->ends[t->depth++] = e;
            if (!semi)
                break;
            pos = e + 1;
        }
    }
    td_grow((void **)&t->last, &t->lastcap, len + 1, 1);
    memcpy(t->last, s, len);
    t->lastn = len;
    line_put(t, lh, s, len, cur);
}

static int add_hashed(td_flametree *t, const char *s, size_t len, int64_t v, int64_t b,
                      uint64_t lh)
{
    if (v < 0)
        v = 0;
    if (b < 0)
        b = 0;
    if (!v && !b)
        return 1;
    if (t->total > INT64_MAX - v || t->base_total > INT64_MAX - b)
        return 0;
    t->total += v;
    t->base_total += b;
    t->n[0].value += v;
    t->n[0].base += b;
    add_below_root(t, s, len, v, b, lh);
    return 1;
}

int td_flametree_add2(td_flametree *t, const char *s, size_t len, int64_t v, int64_t b)
{
    return add_hashed(t, s, len, v, b, line_hash(s, len));
}

/* The stacks of a batch are hashed first and their slots and records fetched ahead, so
 * that the cache misses of a batch overlap instead of each line waiting for two. */
#define BATCH 32

size_t td_flametree_add_many(td_flametree *t, const td_stackval *sv, size_t n)
{
    uint64_t h[BATCH];
    for (size_t at = 0; at < n; at += BATCH) {
        size_t m = n - at < BATCH ? n - at : BATCH;
        const td_stackval *x = sv + at;
        for (size_t i = 0; i < m; i++) {
            h[i] = line_hash(x[i].s, x[i].len);
            if (t->lcslots)
                __builtin_prefetch(&t->lc[h[i] & (t->lcslots - 1)]);
        }
        for (size_t i = 0; t->lcslots && i < m; i++) {
            const struct lslot *c = &t->lc[h[i] & (t->lcslots - 1)];
            if (c->r && c->h == h[i]) {
                __builtin_prefetch(c->r);
                __builtin_prefetch((const char *)c->r + 64);
            }
        }
        for (size_t i = 0; i < m; i++)
            if (!add_hashed(t, x[i].s, x[i].len, x[i].v, x[i].b, h[i]))
                return at + i;
    }
    return n;
}

/* FlameGraph's differential colours (flamegraph.pl, --negate off): a frame whose self
 * time grew is red, (255, g, g) with g = 210 (max - d) / max, one that shrank blue,
 * (r, r, 255) with r = 210 (max - |d|) / max, an unchanged one white; max is the
 * largest |self change| of the drawn frames, so the most changed frame is saturated and
 * small changes are pale. Pruned frames stay grey. */
static uint32_t diff_color(int64_t d, int64_t max)
{
    if (d == 0 || max <= 0)
        return 0xffffff;
    int64_t a = d > 0 ? d : -d;
    if (a > max)
        a = max;
    unsigned c = (unsigned)(210.0 * (double)(max - a) / (double)max);
    return d > 0 ? 0xff0000u | c << 8 | c : c << 16 | c << 8 | 0xffu;
}

static void diff_colors(td_flamelayout *l)
{
    int64_t max = 0;
    for (size_t i = 0; i < l->n; i++) {
        int64_t d = l->f[i].self_delta;
        if (d < 0)
            d = -d;
        if (!l->f[i].pruned && d > max)
            max = d;
    }
    l->maxdelta = max;
    for (size_t i = 0; i < l->n; i++)
        if (!l->f[i].pruned)
            l->f[i].color = diff_color(l->f[i].self_delta, max);
}

td_status td_flame_layout(const td_flame *fl, double minwidth, td_flamelayout *out, td_err *e)
{
    return td_flame_layout_depth(fl, minwidth, INT_MAX, out, e);
}

td_status td_flame_layout_depth(const td_flame *fl, double minwidth, int maxdepth,
                                td_flamelayout *out, td_err *e)
{
    memset(out, 0, sizeof *out);
    if (!(minwidth >= 0)) /* also NaN */
        minwidth = 0;
    tree *own = NULL;
    const tree *tp = fl->tree;
    if (!tp) {
        own = td_flametree_new();
        for (size_t i = 0; i < fl->n; i++)
            if (!td_flametree_add(own, fl->st[i].stack, strlen(fl->st[i].stack),
                                  fl->st[i].value)) {
                td_flametree_free(own);
                return td_fail(e, TD_E_FORMAT, "%s (%s stacks): the values add up to more "
                               "than 2^63 ns (total value overflow)",
                               fl->title ? fl->title : "flame", fl->kind ? fl->kind : "?");
            }
        td_flametree_flush(own);
        tp = own;
    }
    const tree t = *flushed(tp);
    int64_t total = t.total;
    out->a = td_arena_new();
    out->total = total;
    out->unit = fl->unit > 1 ? fl->unit : 1;
    const char *palette = fl->kind ? fl->kind : "cpu";
    size_t fcap = 0;
    double cut = minwidth * (double)total;
    /* Iterative pre-order walk: stacks in folded files can be arbitrarily deep. */
    pending *stk = NULL;
    size_t ns = 0, scap = 0;
    kid *kids = NULL;
    size_t kcap = 0;
    *TD_PUSH(stk, ns, scap) = (pending){0, -1, 0, 0, 0, total, t.n[0].base};
    out->diff = fl->diff;
    out->base_total = t.base_total;
    while (ns) {
        pending p = stk[--ns];
        if (p.node < 0) {
            char *nm = td_arena_printf(out->a, "(%d frame%s %s)", p.pruned,
                                       p.pruned == 1 ? "" : "s", p.depth > maxdepth ? "below"
                                                                                  : "pruned");
            emit(out, &fcap, nm, &p, palette);
            continue;
        }
        const node *x = &t.n[p.node];
        emit(out, &fcap, td_arena_strdup(out->a, td_strget(t.names, x->name)), &p, palette);
        int32_t me = (int32_t)out->n - 1;
        size_t nk = 0;
        int64_t sumv = 0, sumb = 0;
        for (int32_t c = x->child; c >= 0; c = t.n[c].next) {
            td_grow((void **)&kids, &kcap, nk + 1, sizeof *kids);
            kids[nk++] = (kid){td_strget(t.names, t.n[c].name),
                               td_strlen_of(t.names, t.n[c].name), c};
            sumv += t.n[c].value;
            sumb += t.n[c].base;
        }
        out->f[me].self_delta = (x->value - sumv) - (x->base - sumb);
        if (!nk)
            continue;
        qsort(kids, nk, sizeof *kids, cmp_name);
        /* Children in order; pushed in reverse so they pop in order. */
        size_t first = ns;
        int64_t off = p.offset, pruned_v = 0, pruned_b = 0;
        int npruned = 0;
        for (size_t k = 0; k < nk; k++) {
            const node *c = &t.n[kids[k].node];
            if (c->value <= 0)
                continue;
            if ((double)c->value < cut || p.depth >= maxdepth) {
                npruned++;
                pruned_v += c->value;
                pruned_b += c->base;
                continue;
            }
            *TD_PUSH(stk, ns, scap) =
                (pending){kids[k].node, me, p.depth + 1, 0, off, c->value, c->base};
            off += c->value;
        }
        if (npruned)
            *TD_PUSH(stk, ns, scap) =
                (pending){-1, me, p.depth + 1, npruned, off, pruned_v, pruned_b};
        /* nothing pushed (every child empty): ns may be 0, so no ns - 1 */
        for (size_t i = first, j = ns; j > i + 1; i++, j--) {
            pending tmp = stk[i];
            stk[i] = stk[j - 1];
            stk[j - 1] = tmp;
        }
    }
    free(stk);
    free(kids);
    td_flametree_free(own);
    if (out->diff) {
        diff_colors(out);
        /* baseline time in stacks the current run does not have (the top-most such
         * frames: their descendants are inside them) */
        for (size_t i = 1; i < t.nn; i++)
            if (t.n[i].value <= 0 && t.n[i].base > 0 && t.n[t.n[i].parent].value > 0)
                out->vanished += t.n[i].base;
    }
    return TD_OK;
}

/* The node of t for src's node i, made when absent; map holds t's node for each src
 * node before i (a node's parent was created before it, so one pass in index order maps
 * every node). */
static int32_t node_in(tree *t, const tree *src, const int32_t *map, size_t i)
{
    return i ? child_of(t, map[src->n[i].parent], td_strget(src->names, src->n[i].name),
                        td_strlen_of(src->names, src->n[i].name))
             : 0;
}

int td_flametree_add_tree(td_flametree *t, const td_flametree *src, double k, int to_base)
{
    flushed(src);
    int32_t *map = td_xcalloc(src->nn, sizeof *map);
    int ok = 1;
    for (size_t i = 0; i < src->nn && ok; i++) {
        double x = (double)src->n[i].value * k;
        if (!(x >= 0 && x < 9.2e18)) {
            ok = 0;
            break;
        }
        int64_t v = llround(x);
        int32_t m = map[i] = node_in(t, src, map, i);
        int64_t *dst = to_base ? &t->n[m].base : &t->n[m].value;
        if (*dst > INT64_MAX - v)
            ok = 0;
        else
            *dst += v;
    }
    if (ok) {
        int64_t *tot = to_base ? &t->base_total : &t->total;
        *tot = to_base ? t->n[0].base : t->n[0].value;
    }
    free(map);
    return ok;
}

int td_flametree_merge(td_flametree *t, const td_flametree *src)
{
    flushed(src); /* (t's pending values need not be in its nodes to add src's) */
    /* a node's value is at most its tree's total: totals that fit make every sum fit */
    if (t->total > INT64_MAX - src->total || t->base_total > INT64_MAX - src->base_total)
        return 0;
    int32_t *map = td_xcalloc(src->nn, sizeof *map);
    for (size_t i = 0; i < src->nn; i++) {
        int32_t m = map[i] = node_in(t, src, map, i);
        t->n[m].value += src->n[i].value;
        t->n[m].base += src->n[i].base;
    }
    free(map);
    /* a stacks-only tree's stacks without nodes (the root above had their values) */
    for (size_t i = 0; src->stacks_only && i < src->lcslots; i++) {
        const struct lrec *r = src->lc[i].r;
        if (r && r->leaf < 0 && (r->pv || r->pb))
            add_below_root(t, r->s, r->len, r->pv, r->pb, src->lc[i].h);
    }
    t->total += src->total;
    t->base_total += src->base_total;
    return 1;
}

const td_flametree *td_flame_tree(const td_flame *fl, td_flametree **owned)
{
    *owned = NULL;
    if (fl->tree)
        return fl->tree;
    td_flametree *t = td_flametree_new();
    for (size_t i = 0; i < fl->n; i++)
        if (!td_flametree_add(t, fl->st[i].stack, strlen(fl->st[i].stack), fl->st[i].value)) {
            td_flametree_free(t);
            return NULL;
        }
    td_flametree_flush(t);
    *owned = t;
    return t;
}

static void put_count(FILE *f, int64_t v, int64_t unit)
{
    if (unit > 1)
        fprintf(f, "%lld.%03lld", (long long)(v / unit), (long long)((v % unit) * 1000 / unit));
    else
        fprintf(f, "%lld", (long long)v);
}

td_status td_flametree_write_folded(const td_flametree *t, int diff, int64_t unit, FILE *f,
                                    td_err *e)
{
    /* depth-first, children by name; the path of the current node is kept in buf */
    typedef struct item { int32_t node; size_t len; } item;
    flushed(t);
    item *stk = NULL;
    size_t ns = 0, scap = 0, bcap = 0;
    kid *kids = NULL;
    size_t kcap = 0;
    char *buf = NULL;
    for (int32_t c = t->n[0].child; c >= 0; c = t->n[c].next) {
        td_grow((void **)&kids, &kcap, ns + 1, sizeof *kids);
        kids[ns++] = (kid){td_strget(t->names, t->n[c].name),
                           td_strlen_of(t->names, t->n[c].name), c};
    }
    if (ns > 1) /* (qsort of no array is undefined, and one child needs no order) */
        qsort(kids, ns, sizeof *kids, cmp_name);
    size_t nroot = ns;
    ns = 0;
    for (size_t i = nroot; i-- > 0;)
        *TD_PUSH(stk, ns, scap) = (item){kids[i].node, 0};
    while (ns) {
        item it = stk[--ns];
        const node *x = &t->n[it.node];
        size_t nl = td_strlen_of(t->names, x->name);
        td_grow((void **)&buf, &bcap, it.len + nl + 2, 1);
        if (it.len)
            buf[it.len - 1] = ';';
        memcpy(buf + it.len, td_strget(t->names, x->name), nl);
        size_t end = it.len + nl;
        buf[end] = 0;
        int64_t sv = x->value, sb = x->base;
        size_t nk = 0;
        for (int32_t c = x->child; c >= 0; c = t->n[c].next) {
            td_grow((void **)&kids, &kcap, nk + 1, sizeof *kids);
            kids[nk++] = (kid){td_strget(t->names, t->n[c].name),
                               td_strlen_of(t->names, t->n[c].name), c};
            sv -= t->n[c].value;
            sb -= t->n[c].base;
        }
        if (sv > 0 || (diff && sb > 0)) {
            fputs(buf, f);
            fputc(' ', f);
            if (diff) {
                put_count(f, sb > 0 ? sb : 0, unit);
                fputc(' ', f);
            }
            put_count(f, sv > 0 ? sv : 0, unit);
            fputc('\n', f);
        }
        if (nk > 1)
            qsort(kids, nk, sizeof *kids, cmp_name);
        for (size_t i = nk; i-- > 0;)
            *TD_PUSH(stk, ns, scap) = (item){kids[i].node, end + 1};
    }
    free(stk);
    free(kids);
    free(buf);
    if (ferror(f))
        return td_fail(e, TD_E_OUTPUT, "write error");
    return TD_OK;
}

void td_flame_layout_free(td_flamelayout *l)
{
    if (!l)
        return;
    free(l->f);
    td_arena_free(l->a);
    memset(l, 0, sizeof *l);
}

/* Hue families: each palette maps three hash-derived fractions into a box of RGB space
 * that reads as one family (warm for CPU like classic flamegraphs, greens for device,
 * blues for ops, purples for compile, sand for memory, pinks for communication). */
typedef struct pal {
    const char *name;
    unsigned char lo[3], hi[3];
} pal;

static const pal palettes[] = {
    {"cpu", {205, 60, 0}, {255, 210, 60}},
    {"device", {20, 150, 90}, {110, 215, 175}},
    {"ops", {70, 120, 205}, {140, 185, 255}},
    {"compile", {145, 90, 190}, {200, 150, 245}},
    {"mem", {195, 165, 70}, {235, 210, 130}},
    {"comm", {215, 95, 140}, {250, 160, 195}},
};

uint32_t td_name_color(const char *name, const char *palette)
{
    const pal *p = &palettes[0];
    for (size_t i = 0; palette && i < sizeof palettes / sizeof *palettes; i++)
        if (!strcmp(palette, palettes[i].name))
            p = &palettes[i];
    uint64_t h = td_hash64(name, strlen(name));
    /* In the warm palette green carries the hue (red..yellow), so it varies most; the
     * other two channels follow one shared fraction to keep the family coherent. */
    double a = (double)(h & 0xffff) / 65535.0;
    double b = (double)((h >> 16) & 0xffff) / 65535.0;
    double c = (double)((h >> 32) & 0xffff) / 65535.0;
    double f[3] = {b, a, c};
    if (p != &palettes[0]) {
        f[0] = a * 0.7 + b * 0.3;
        f[1] = a * 0.7 + c * 0.3;
        f[2] = a * 0.7 + b * 0.3;
    }
    uint32_t rgb = 0;
    for (int k = 0; k < 3; k++) {
        int v = p->lo[k] + (int)(f[k] * (p->hi[k] - p->lo[k]) + 0.5);
        rgb = (rgb << 8) | (uint32_t)v;
    }
    return rgb;
}
