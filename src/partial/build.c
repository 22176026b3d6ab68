/* partial/build.c - what one input set's analysis adds to a partial summary: the passes'
 * hooks (td_part_kernels; the others are in the passes and merge/xla.c) and
 * td_partial_from_summary (scalars, table schemas, per-rank rows, ops, flames, warnings).
 * The tables of a merged partial: merge/merge.c. */
#include "analyse/internal.h"
#include "partial/internal.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- building a partial ------------------------------------------------------------ */

void td_part_kernels(td_partial *p, int device, const char *name, const int64_t *dur, size_t n)
{
    if (!n)
        return;
    int64_t v[TD_R_NV] = {(int64_t)n, 0, dur[0], dur[n - 1], 0, 0, 0};
    td_sketch sk = {0};
    for (size_t i = 0; i < n; i++) {
        v[1] += dur[i];
        td_part_sq(v + 4, dur[i]);
        td_sketch_add(&sk, dur[i], 1);
    }
    td_buf kb = {0};
    char dv[32];
    snprintf(dv, sizeof dv, "%d", device);
    if (device < 0)
        td_part_key(&kb, 1, name);
    else
        td_part_key(&kb, 2, dv, name);
    td_rec *r = td_part_add(p, device < 0 ? TD_R_KERN : TD_R_KDEV, kb.p, kb.n, v);
    if (!r->sk)
        r->sk = td_xcalloc(1, sizeof *r->sk);
    td_sketch_merge(r->sk, &sk);
    td_sketch_free(&sk);
    td_buf_free(&kb);
}

static int per_rank_table(const char *name)
{
    return !strcmp(name, "inputs") || !strcmp(name, "steps") || !strcmp(name, "outlier_steps") ||
           !strcmp(name, "gpu_timeline") || !strcmp(name, "idle_breakdown") ||
           !strcmp(name, "launches") || !strcmp(name, "queue_length") ||
           !strcmp(name, "comm_overlap") || !strcmp(name, "memory") ||
           !strcmp(name, "op_perf") || !strcmp(name, "op_perf_roofs") || !strcmp(name, "op_perf_bwd") ||
           !strcmp(name, "memory_timeline") ||
           (!strncmp(name, "critical_path", 13) && strcmp(name, "critical_path_collectives"));
}

static void add_rows(td_partial *p, const td_table *t)
{
    int map[TD_MAXCOLS];
    char *specs[TD_MAXCOLS];
    td_buf b = {0};
    for (int c = 0; c < t->ncols; c++) {
        static const char *const TN[] = {"text", "int", "ns", "share", "bytes", "f64", "gbps",
                                         "device", "bool"};
        b.n = 0;
        td_buf_printf(&b, "%s:%s:%s", t->cols[c].key, TN[t->cols[c].type], t->cols[c].title);
        specs[c] = td_arena_strdup(p->a, td_buf_cstr(&b));
    }
    td_buf_free(&b);
    td_table *d = td_part_schema(p, t->name, t->title, t->no_json, t->ncols, specs, map);
    if (!per_rank_table(t->name))
        return;
    int rank = td_table_col(t, "rank");
    for (size_t r = 0; r < t->nrows; r++) {
        /* gpu_timeline's job-wide rows (rank null) are re-summed when finishing */
        if (!strcmp(t->name, "gpu_timeline") && td_table_cell(t, r, rank)->i == TD_NA)
            continue;
        size_t x = td_table_add_row(d);
        for (int c = 0; c < t->ncols; c++) {
            if (map[c] < 0)
                continue;
            td_cell v = *td_table_cell(t, r, c);
            if (t->cols[c].type == TD_T_TEXT && v.s)
                v.s = td_arena_strdup(p->acc->a, v.s);
            *td_table_cell(d, x, map[c]) = v;
        }
    }
}

void td_partial_from_summary(td_partial *p, const td_summary *s, const td_opts *o)
{
    int xla = td_part_has_type(p, TD_R_XMOD) || td_part_has_type(p, TD_R_PHASE);
    const td_kv *ver = td_sum_get(s, "tool.version"), *dev = td_sum_get(s, "trace.device_name");
    p->tool = td_arena_strdup(p->a, ver ? ver->v.s : "unknown");
    char wu[32];
    if (o->warmup == TD_WARMUP_AUTO)
        snprintf(wu, sizeof wu, "auto");
    else if (o->warmup == TD_WARMUP_NONE)
        snprintf(wu, sizeof wu, "none");
    else
        snprintf(wu, sizeof wu, "%d", o->warmup);
    p->options = td_arena_printf(p->a, "warmup=%s;threshold=%.17g;compile_passes=%d;"
                                 "step_pattern=%s;module_pattern=%s", wu, o->threshold,
                                 o->compile_passes, o->step_pattern ? o->step_pattern : "",
                                 o->module_pattern ? o->module_pattern : "");
    p->device = td_arena_strdup(p->a, dev && dev->v.s ? dev->v.s : "");
    p->parts = 1;
    const td_table *in = td_sum_find_table(s, "inputs");
    p->format = NULL;
    for (size_t r = 0; in && r < in->nrows; r++) {
        const char *f = td_row_get_str(in, r, "format");
        int64_t w = td_row_get_int(in, r, "world_size");
        if (f && !p->format)
            p->format = td_arena_strdup(p->a, f);
        else if (f && strcmp(p->format, f))
            p->format = "mixed";
        if (w != TD_NA && w > p->world)
            p->world = w;
    }
    if (!p->format)
        p->format = "";
    /* scalars and tables in summary order, so that the merged summary keeps it */
    size_t ik = 0, it = 0;
    while (ik < s->nkv || it < s->ntables) {
        if (ik < s->nkv && (it >= s->ntables || s->kv[ik].seq < s->tables[it]->seq)) {
            const td_kv *k = &s->kv[ik++];
            if (strncmp(k->key, "regression.", 11))
                td_part_kv(p, k->key, k->title, k->type, k->v);
            continue;
        }
        const td_table *t = s->tables[it++];
        if (!strncmp(t->name, "regression.", 11))
            continue;
        add_rows(p, t);
        for (size_t r = 0; !strcmp(t->name, "ops") && r < t->nrows; r++) {
            int64_t dself = td_row_get_int(t, r, "device_self_ns"), dtot = td_row_get_int(t, r, "device_total_ns");
            int64_t v[TD_R_NV] = {td_row_get_int(t, r, "calls"), td_row_get_int(t, r, "self_ns"),
                                  td_row_get_int(t, r, "total_ns"), dself == TD_NA ? 0 : dself,
                                  dtot == TD_NA ? 0 : dtot};
            const char *nm = td_row_get_str(t, r, "name");
            td_part_add(p, TD_R_OP, nm, strlen(nm), v);
            if (td_table_col(t, "graph") >= 0) { /* graph replays' ops (analyse/graphs) */
                int64_t g[TD_R_NV] = {td_row_get_int(t, r, "graph")};
                td_part_add(p, TD_R_OPGRAPH, nm, strlen(nm), g);
            }
        }
    }
    td_buf kb = {0};
    for (size_t i = 0; i < s->nflames; i++) {
        const td_flame *fl = s->flames[i];
        if (!td_sum_find_flame(p->acc, fl->kind))
            td_sum_flame(p->acc, td_arena_strdup(p->acc->a, fl->kind),
                         td_arena_strdup(p->acc->a, fl->title));
        if (xla && td_part_xla_flame(fl->kind))
            continue; /* rebuilt from the XLA records after the top-module cut */
        for (size_t k = 0; k < fl->n; k++) {
            td_part_key(&kb, 2, fl->kind, fl->st[k].stack);
            td_part_stack_add(p, kb.p, kb.n, fl->st[k].value);
        }
    }
    td_buf_free(&kb);
    for (size_t i = 0; i < s->nwarnings; i++)
        td_sum_warning(p->acc, s->warnings[i]);
}

