/* summary/flame_diff.c - differential flames of a summary: see summary/flame_diff.h. */
#include "summary/flame_diff.h"
#include "summary/flame.h"
#include <stdio.h>

td_flame *td_flame_make_diff(td_summary *s, const char *kind, const td_flame *cur,
                             const td_flame *base, double k, const char *base_label, td_err *e)
{
    td_flametree *oc = NULL, *ob = NULL;
    const td_flametree *tc = td_flame_tree(cur, &oc), *tb = td_flame_tree(base, &ob);
    td_flametree *t = td_flametree_new();
    int64_t uc = cur->unit > 1 ? cur->unit : 1, ub = base->unit > 1 ? base->unit : 1;
    int64_t unit = uc > ub ? uc : ub;
    int ok = tc && tb && td_flametree_add_tree(t, tc, (double)(unit / uc), 0) &&
             td_flametree_add_tree(t, tb, k * (double)(unit / ub), 1);
    td_flametree_free(oc);
    td_flametree_free(ob);
    if (!ok) {
        td_flametree_free(t);
        td_fail(e, TD_E_FORMAT, "%s: differential flamegraph: the values add up to more than "
                "2^63 (total value overflow)", kind);
        return NULL;
    }
    char title[512];
    snprintf(title, sizeof title, "Differential flamegraph: %s",
             cur->title ? cur->title : cur->kind ? cur->kind : "stacks");
    td_flame *fl = td_sum_flame(s, kind, title);
    td_flametree_free(fl->tree);
    fl->tree = t;
    fl->diff = 1;
    fl->unit = unit;
    fl->cycles = cur->cycles;
    fl->base_label = base_label ? td_arena_strdup(s->a, base_label) : NULL;
    return fl;
}

int td_flame_diffs(td_summary *dst, const td_summary *cur, const td_summary *base,
                   const char *base_label, td_err *e)
{
    int made = 0;
    /* the cpu stacks first: they become flame-diff.svg */
    const td_flame *cpu = td_sum_find_flame(cur, "cpu");
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < cur->nflames; i++) {
            const td_flame *c = cur->flames[i];
            if ((pass == 0) != (c == cpu) || c->diff || !td_flame_has_stacks(c))
                continue;
            const td_flame *b = td_sum_find_flame(base, c->kind);
            if (!b || b->diff || !td_flame_has_stacks(b) || b->cycles != c->cycles)
                continue;
            char kind[160];
            if (made)
                snprintf(kind, sizeof kind, "diff-%s", c->kind);
            else
                snprintf(kind, sizeof kind, "diff");
            if (!td_flame_make_diff(dst, kind, c, b, 1, base_label, e))
                return -1;
            made++;
        }
    return made;
}
