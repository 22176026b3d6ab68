/* summary/flame.h - flamegraph layout shared by the SVG and PDF renderers, and the stable
 * name colours every document uses. */
#ifndef TD_FLAME_H
#define TD_FLAME_H
#include "summary/summary.h"
#include <stdio.h>

typedef struct td_frame {
    const char *name;   /* frame name (owned by the layout) */
    int64_t value;      /* ns */
    double x, w;        /* left edge and width as fractions of the total (0..1) */
    int depth;          /* 0 = root frame ("all") */
    int parent;         /* index of the parent frame, -1 for the root */
    int pruned;         /* >0: this grey frame stands for that many merged narrow frames */
    uint32_t color;     /* 0xRRGGBB */
    /* differential flames (td_flame.diff): the baseline's value of the same frame and
     * the change of its self time (current - baseline, stacks ending at this frame),
     * which sets the colour as in FlameGraph's flamegraph.pl */
    int64_t base, self_delta;
} td_frame;

typedef struct td_flamelayout {
    td_frame *f;        /* pre-order: parents before children, siblings by name */
    size_t n;
    int64_t total;
    int maxdepth;
    td_arena *a;
    int64_t unit;       /* values per unit shown (td_flame.unit, at least 1) */
    /* differential flames: the baseline's total, the largest |self change| of a drawn
     * frame (the colour scale) and the baseline time in stacks absent from the current
     * run (width 0: not drawn, as in flamegraph.pl) */
    int diff;
    int64_t base_total, maxdelta, vanished;
} td_flamelayout;

/* A flamegraph tree (one node per distinct path, values summed) built one stack at a
 * time: `tracedoc flame FOLDED` streams the file into it, so memory grows with the
 * distinct frames, not with the lines. A td_flame whose `tree` is set is laid out from
 * it (its st list is not used). */
td_flametree *td_flametree_new(void);
void td_flametree_free(td_flametree *t);
/* Add v (> 0; other values are ignored) to the stack s[0..len) ("a;b;c"). Returns 0
 * when the total would pass 2^63 (nothing added). */
int td_flametree_add(td_flametree *t, const char *s, size_t len, int64_t v);
int64_t td_flametree_total(const td_flametree *t);
/* Values added to a stack seen before are summed per stack and reach the nodes here (a
 * line costs one lookup, not one update per frame): call it once the stacks are added,
 * before the tree is read from several threads. Readers below flush a tree left
 * pending themselves. */
void td_flametree_flush(td_flametree *t);
/* Every value x k (k > 0); 0, nothing changed, when a total would pass 2^63. */
int td_flametree_scale(td_flametree *t, int64_t k);
/* Differential trees: each node also carries a baseline value. Add v to the current and
 * b to the baseline value of stack s (values <= 0 add nothing to that side); 0 on
 * overflow. */
int td_flametree_add2(td_flametree *t, const char *s, size_t len, int64_t v, int64_t b);
int64_t td_flametree_base_total(const td_flametree *t);
/* n stacks added in order as td_flametree_add2 would (faster: their lookups overlap).
 * Returns how many were added; < n when stack [ret] would pass 2^63 (nothing of it or
 * after it added). */
typedef struct td_stackval {
    const char *s;
    size_t len;
    int64_t v, b;
} td_stackval;
size_t td_flametree_add_many(td_flametree *t, const td_stackval *sv, size_t n);
/* Add every node of src (current values) into t, to the current side (to_base = 0) or
 * the baseline side (to_base = 1), each value multiplied by k and rounded. 0 on overflow. */
int td_flametree_add_tree(td_flametree *t, const td_flametree *src, double k, int to_base);
/* Add src's values, current and baseline, exactly into t, and its totals (the parts of
 * one folded file read on two threads): the tree is then the one both parts' stacks
 * would have made added to one tree. 0, nothing added, when a total would pass 2^63. */
int td_flametree_merge(td_flametree *t, const td_flametree *src);
/* A tree for td_flametree_merge only (the second half of a file read apart): the
 * stacks are summed as whole stacks and their frames looked up only when merged (each
 * distinct stack once, instead of in both halves); its node values are not complete and
 * it is never laid out or written. */
td_flametree *td_flametree_new_stacks(void);
/* The tree of a flame: its own tree, else a new one built from its stacks (*owned set:
 * the caller frees it). NULL on overflow. */
const td_flametree *td_flame_tree(const td_flame *fl, td_flametree **owned);
/* Folded text of a tree, stacks in name order, self values; a differential tree writes
 * difffolded's "stack BASELINE CURRENT" lines. unit > 1: values shown as v/unit with 3
 * decimals. */
td_status td_flametree_write_folded(const td_flametree *t, int diff, int64_t unit, FILE *f,
                                    td_err *e);
/* td_flame_make_diff, td_flame_diffs: summary/flame_diff.h (included here for the
 * files that expect them from flame.h). */
#include "summary/flame_diff.h"

/* Lay out folded stacks: frames narrower than minwidth (fraction of the total) are
 * merged into one grey "(N frames pruned)" frame per parent. */
td_status td_flame_layout(const td_flame *fl, double minwidth, td_flamelayout *out, td_err *e);
/* The same, frames deeper than maxdepth (>= 1) also merged: the children of a frame at
 * maxdepth become one grey "(N frames below)" frame (the SVG's size limit, when pruning
 * by width would leave almost nothing). */
td_status td_flame_layout_depth(const td_flame *fl, double minwidth, int maxdepth,
                                td_flamelayout *out, td_err *e);
void td_flame_layout_free(td_flamelayout *l);

/* Stable colour for a name: the same name gets the same colour in every output.
 * palette: "cpu", "device", "ops", "compile", "mem", "comm" (hue family). */
uint32_t td_name_color(const char *name, const char *palette);

#endif
