/* flame.c - flamegraph layout and stable colours, shared by the SVG and PDF renderers.
 *
 * The folded stacks become a tree (one node per distinct path, values summed), which is
 * then emitted in pre-order with siblings sorted by name: the output never depends on
 * hash order or on the order of the input lines. x and w are computed from integer
 * offsets (ns from the left edge) so that children line up exactly with their parent. */
#include "flame.h"
#include <stdlib.h>
#include <string.h>

typedef struct node {
    td_str name;
    int32_t parent;
    int32_t child, next; /* first child, next sibling (unsorted; sorted on output) */
    int64_t value;
} node;

typedef struct tree {
    td_strtab *names;
    node *n;
    size_t nn, ncap;
    uint32_t *slots; /* open addressing on (parent, name): node index + 1, 0 = empty */
    size_t nslots;
} tree;

static uint64_t key_hash(int32_t parent, td_str name)
{
    uint64_t k = ((uint64_t)(uint32_t)parent << 32) | name;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static void rehash(tree *t)
{
    size_t ns = t->nslots ? t->nslots * 2 : 1024;
    uint32_t *s = td_xcalloc(ns, sizeof *s);
    for (size_t i = 0; i < t->nn; i++) {
        size_t j = key_hash(t->n[i].parent, t->n[i].name) & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = s;
    t->nslots = ns;
}

/* Child of parent with that name, created when absent. */
static int32_t child_of(tree *t, int32_t parent, td_str name)
{
    size_t j = key_hash(parent, name) & (t->nslots - 1);
    for (;;) {
        uint32_t id = t->slots[j];
        if (!id)
            break;
        node *x = &t->n[id - 1];
        if (x->parent == parent && x->name == name)
            return (int32_t)(id - 1);
        j = (j + 1) & (t->nslots - 1);
    }
    int32_t id = (int32_t)t->nn;
    node *x = TD_PUSH(t->n, t->nn, t->ncap);
    x->name = name;
    x->parent = parent;
    x->child = -1;
    x->value = 0;
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
    int32_t node;
} kid;

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const kid *)a)->name, ((const kid *)b)->name);
}

/* One pending output frame: a tree node, or (node < 0) the grey frame standing for
 * `pruned` merged siblings. */
typedef struct pending {
    int32_t node;
    int32_t parent_out;
    int depth;
    int pruned;
    int64_t offset, value;
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
    if (p->depth > l->maxdepth)
        l->maxdepth = p->depth;
}

td_status td_flame_layout(const td_flame *fl, double minwidth, td_flamelayout *out, td_err *e)
{
    memset(out, 0, sizeof *out);
    if (!(minwidth >= 0)) /* also NaN */
        minwidth = 0;
    tree t = {0};
    t.names = td_strtab_new();
    rehash(&t);
    node *root = TD_PUSH(t.n, t.nn, t.ncap);
    root->name = td_intern_cstr(t.names, "all");
    root->parent = -1;
    root->child = root->next = -1;
    int64_t total = 0;
    for (size_t i = 0; i < fl->n; i++) {
        int64_t v = fl->st[i].value;
        if (v <= 0)
            continue;
        if (total > INT64_MAX - v) {
            td_strtab_free(t.names);
            free(t.n);
            free(t.slots);
            return td_fail(e, TD_E_FORMAT, "%s (%s stacks): the values add up to more "
                           "than 2^63 ns (total value overflow)", fl->title ? fl->title : "flame",
                           fl->kind ? fl->kind : "?");
        }
        total += v;
        t.n[0].value += v;
        int32_t cur = 0;
        const char *s = fl->st[i].stack;
        for (;;) {
            const char *semi = strchr(s, ';');
            size_t len = semi ? (size_t)(semi - s) : strlen(s);
            cur = child_of(&t, cur, td_intern(t.names, s, len));
            t.n[cur].value += v;
            if (!semi)
                break;
            s = semi + 1;
        }
    }

    out->a = td_arena_new();
    out->total = total;
    const char *palette = fl->kind ? fl->kind : "cpu";
    size_t fcap = 0;
    double cut = minwidth * (double)total;
    /* Iterative pre-order walk: stacks in folded files can be arbitrarily deep. */
    pending *stk = NULL;
    size_t ns = 0, scap = 0;
    kid *kids = NULL;
    size_t kcap = 0;
    *TD_PUSH(stk, ns, scap) = (pending){0, -1, 0, 0, 0, total};
    while (ns) {
        pending p = stk[--ns];
        if (p.node < 0) {
            char *nm = td_arena_printf(out->a, "(%d frame%s pruned)", p.pruned,
                                       p.pruned == 1 ? "" : "s");
            emit(out, &fcap, nm, &p, palette);
            continue;
        }
        const node *x = &t.n[p.node];
        emit(out, &fcap, td_arena_strdup(out->a, td_strget(t.names, x->name)), &p, palette);
        int32_t me = (int32_t)out->n - 1;
        size_t nk = 0;
        for (int32_t c = x->child; c >= 0; c = t.n[c].next) {
            td_grow((void **)&kids, &kcap, nk + 1, sizeof *kids);
            kids[nk++] = (kid){td_strget(t.names, t.n[c].name), c};
        }
        if (!nk)
            continue;
        qsort(kids, nk, sizeof *kids, cmp_name);
        /* Children in order; pushed in reverse so they pop in order. */
        size_t first = ns;
        int64_t off = p.offset, pruned_v = 0;
        int npruned = 0;
        for (size_t k = 0; k < nk; k++) {
            const node *c = &t.n[kids[k].node];
            if (c->value <= 0)
                continue;
            if ((double)c->value < cut) {
                npruned++;
                pruned_v += c->value;
                continue;
            }
            *TD_PUSH(stk, ns, scap) = (pending){kids[k].node, me, p.depth + 1, 0, off, c->value};
            off += c->value;
        }
        if (npruned)
            *TD_PUSH(stk, ns, scap) = (pending){-1, me, p.depth + 1, npruned, off, pruned_v};
        for (size_t i = first, j = ns - 1; i < j; i++, j--) {
            pending tmp = stk[i];
            stk[i] = stk[j];
            stk[j] = tmp;
        }
    }
    free(stk);
    free(kids);
    free(t.n);
    free(t.slots);
    td_strtab_free(t.names);
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
