/* export/chrome_emit.c - one Chrome Trace event at a time: the head, the args members,
 * greedy lanes and made-up processes (export/internal.h). */
#include "export/internal.h"
#include "base/json.h"
#include <math.h>

void td_cw_head(cw *w, const char *ph, const char *cat, const char *name, int64_t pid,
                int64_t tid, int64_t ts)
{
    FILE *f = w->f;
    fprintf(f, ",\n{\"ph\": \"%s\", \"cat\": ", ph);
    td_json_str(f, cat ? cat : "");
    fputs(", \"name\": ", f);
    td_json_str(f, name ? name : "");
    fprintf(f, ", \"pid\": %lld, \"tid\": %lld, \"ts\": ", (long long)pid, (long long)tid);
    td_json_us(f, ts);
    w->nevents++;
}

void td_cw_key(args *a, const char *k)
{
    fputs(a->open ? ", \"" : ", \"args\": {\"", a->f);
    a->open = 1;
    fputs(k, a->f);
    fputs("\": ", a->f);
}
void td_cw_int(args *a, const char *k, int64_t v)
{
    td_cw_key(a, k);
    fprintf(a->f, "%lld", (long long)v);
}
void td_cw_str(args *a, const char *k, const char *v)
{
    td_cw_key(a, k);
    td_json_str(a->f, v);
}
void td_cw_real(args *a, const char *k, double v)
{
    if (isnan(v))
        return;
    td_cw_key(a, k);
    td_json_real(a->f, v);
}
void td_cw_us(args *a, const char *k, int64_t ns)
{
    td_cw_key(a, k);
    td_json_us(a->f, ns);
}
void td_cw_end(args *a)
{
    fputs(a->open ? "}}" : "}", a->f);
}

size_t td_cw_lane(lanes *l, int64_t from, int64_t to)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->end[i] <= from) {
            l->end[i] = to;
            return i;
        }
    *TD_PUSH(l->end, l->n, l->cap) = to;
    return l->n - 1;
}

int64_t td_cw_pid(cw *w, const char *name, int64_t sort)
{
    int64_t pid = w->next_pid++;
    td_chrome_meta(w->f, pid, 0, "process_name", name, sort);
    return pid;
}
