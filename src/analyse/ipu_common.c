/* analyse/ipu_common.c - what both Graphcore passes (analyse/ipu.c, analyse/lwp.c) use:
 * cycles as ns, the per-export scalar keys and the ipu_timeline table. Below both so
 * that the two passes do not call each other. */
#include "analyse/ipu.h"
#include "analyse/internal.h"
#include <math.h>

void td_ipu_timeline_table(td_summary *s, td_table **out)
{
    td_table *t = td_sum_table(s, "ipu_timeline", "Timeline segments");
    if (!t->ncols)
        td_table_cols(t, "ipu:int:IPU", "lane:text:Lane", "kind:text:Kind", "name:text:Name",
                      "from_cycles:int:From", "to_cycles:int:To", NULL);
    t->no_json = 1;
    *out = t;
}

void td_ipu_key(char *dst, size_t cap, const char *fam, int rep, const char *who,
                const char *what)
{
    char r[16] = "";
    if (rep >= 0)
        snprintf(r, sizeof r, "r%d.", rep);
    snprintf(dst, cap, "%s.%s%s%s%s", fam, r, who ? who : "", who ? "." : "", what);
}

int64_t td_ipu_cycles_ns(const td_ipu *m, int64_t cycles)
{
    return (int64_t)llround((double)cycles * 1e9 / m->clock_hz);
}
