/* summary/flame_diff.h - differential flames: a flame of a summary built from the same
 * kind of flame in a current and a baseline summary. The flames made belong to the
 * destination summary (freed with it). Kept apart from summary/flame.c (the tree and the
 * layout) so that the container (summary.c), which frees flame trees, and the flame code
 * do not depend on each other. */
#ifndef TD_FLAME_DIFF_H
#define TD_FLAME_DIFF_H
#include "summary/summary.h"

/* A differential flame (kind "diff" or "diff-KIND") in s from the current and baseline
 * flames (same unit family); the baseline scaled by k (1: as recorded). base_label
 * names the baseline in the SVG subtitle. NULL on overflow (e set). */
td_flame *td_flame_make_diff(td_summary *s, const char *kind, const td_flame *cur,
                             const td_flame *base, double k, const char *base_label, td_err *e);
/* Differential flames in dst of every stack kind that both cur and base have (drawn
 * stacks, not differential ones): the cpu stacks first as kind "diff", the others as
 * "diff-KIND". Returns how many were made (-1 on overflow, e set). */
int td_flame_diffs(td_summary *dst, const td_summary *cur, const td_summary *base,
                   const char *base_label, td_err *e);

#endif
