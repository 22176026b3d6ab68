/* flame.h - flamegraph layout shared by the SVG and PDF renderers, and the stable
 * name colours every document uses. */
#ifndef TD_FLAME_H
#define TD_FLAME_H
#include "summary.h"

typedef struct td_frame {
    const char *name;   /* frame name (owned by the layout) */
    int64_t value;      /* ns */
    double x, w;        /* left edge and width as fractions of the total (0..1) */
    int depth;          /* 0 = root frame ("all") */
    int parent;         /* index of the parent frame, -1 for the root */
    int pruned;         /* >0: this grey frame stands for that many merged narrow frames */
    uint32_t color;     /* 0xRRGGBB */
} td_frame;

typedef struct td_flamelayout {
    td_frame *f;        /* pre-order: parents before children, siblings by name */
    size_t n;
    int64_t total;
    int maxdepth;
    td_arena *a;
} td_flamelayout;

/* Lay out folded stacks: frames narrower than minwidth (fraction of the total) are
 * merged into one grey "(N frames pruned)" frame per parent. */
td_status td_flame_layout(const td_flame *fl, double minwidth, td_flamelayout *out, td_err *e);
void td_flame_layout_free(td_flamelayout *l);

/* Stable colour for a name: the same name gets the same colour in every output.
 * palette: "cpu", "device", "ops", "compile", "mem", "comm" (hue family). */
uint32_t td_name_color(const char *name, const char *palette);

#endif
