/* export/chrome_device.c - the accelerators' device time in the Chrome export
 * (export/internal.h; the layout is said in export/chrome.c): IBM AIU instructions at
 * their device time, Graphcore IPU runs, steps and lightweight-profiling blocks. */
#define _POSIX_C_SOURCE 200809L
#include "export/internal.h"
#include "analyse/ipu.h"
#include "base/json.h"
#include "model/ipu.h"
#include <stdlib.h>
#include <string.h>

/* ---- IBM AIU: device time ---- */

static int aiu_cmp(const void *x, const void *y)
{
    const td_aiu_instr *a = *(const td_aiu_instr *const *)x, *b = *(const td_aiu_instr *const *)y;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->host_e != b->host_e)
        return a->host_e < b->host_e ? -1 : 1;
    return (a > b) - (a < b);
}

void td_cw_aiu(cw *w, const td_trace *t, int64_t shift)
{
    static const char *const tname[5] = {"other", "DmaI", "Cmpt Prep", "Cmpt Exec", "DmaO"};
    static const char *const tcat[5] = {"AIU other", "gpu_memcpy", "AIU Cmpt Prep", "kernel",
                                        "gpu_memcpy"};
    const td_kv *kv = td_sum_get(w->s, "aiu.soc_mhz");
    double soc = kv ? kv->v.f : 1000.0;
    const td_aiu_instr **v = td_xmalloc((t->naiu + 1) * sizeof *v);
    int64_t *start = td_xmalloc((t->naiu + 1) * sizeof *start);
    for (size_t i = 0; i < t->naiu; i++)
        v[i] = &t->aiu[i];
    qsort(v, t->naiu, sizeof *v, aiu_cmp);
    const td_strtab *S = w->set->strs;
    char name[200];
    int64_t pid = 0;
    for (size_t i = 0; i < t->naiu;) {
        size_t j = i;
        while (j < t->naiu && v[j]->device == v[i]->device && v[j]->type == v[i]->type)
            j++;
        if (!i || v[i]->device != v[i - 1]->device) {
            if (w->multi)
                snprintf(name, sizeof name, "rank %d: AIU %d device time (%.3f MHz SoC clock)",
                         t->rank, v[i]->device, soc);
            else
                snprintf(name, sizeof name, "AIU %d device time (%.3f MHz SoC clock)",
                         v[i]->device, soc);
            pid = td_cw_pid(w, name, w->next_pid);
        }
        /* by device start within the type, then greedy lanes */
        for (size_t k = i; k < j; k++)
            start[k] = v[k]->host_e - td_aiu_device_ns(v[k], soc);
        for (size_t k = i + 1; k < j; k++) { /* insertion sort by start (mostly sorted) */
            const td_aiu_instr *x = v[k];
            int64_t sx = start[k];
            size_t q = k;
            while (q > i && start[q - 1] > sx) {
                v[q] = v[q - 1];
                start[q] = start[q - 1];
                q--;
            }
            v[q] = x;
            start[q] = sx;
        }
        lanes L = {0};
        int type = v[i]->type;
        for (size_t k = i; k < j; k++) {
            const td_aiu_instr *in = v[k];
            size_t lane = td_cw_lane(&L, start[k], in->host_e);
            int64_t tid = type * 100 + (int64_t)lane;
            td_cw_head(w, "X", tcat[type], td_strget(S, in->name), pid, tid, start[k] + shift);
            fputs(", \"dur\": ", w->f);
            td_json_us(w->f, in->host_e - start[k]);
            args a = {w->f, 0};
            td_cw_int(&a, "device", in->device);
            td_cw_int(&a, "stream", tid);
            td_cw_str(&a, "type", tname[type]);
            if (in->has_ts)
                for (int c = 0; c < 5; c++) {
                    char key[8];
                    snprintf(key, sizeof key, "TS%d", c + 1);
                    td_cw_int(&a, key, in->cyc[c]);
                }
            if (in->bytes >= 0)
                td_cw_int(&a, "bytes", in->bytes);
            if (in->coll)
                td_cw_str(&a, "CollGroup", td_strget(S, in->coll));
            td_cw_us(&a, "host_begin_us", in->host_b + shift);
            td_cw_us(&a, "host_end_us", in->host_e + shift);
            td_cw_end(&a);
        }
        for (size_t q = 0; q < L.n; q++) {
            snprintf(name, sizeof name, q ? "%s (%zu)" : "%s", tname[type], q + 1);
            td_chrome_meta(w->f, pid, type * 100 + (int64_t)q, "thread_name", name,
                           type * 100 + (int64_t)q);
        }
        free(L.end);
        i = j;
    }
    free(start);
    free(v);
}

/* ---- Graphcore IPU ---- */

void td_cw_ipu_steps(cw *w, const td_trace *t)
{
    const td_ipu *m = t->ipu;
    const td_strtab *S = w->set->strs;
    char name[200];
    for (int32_t ipu = 0; ipu < m->nipus; ipu++) {
        int any = 0;
        for (size_t i = 0; i < m->nsipu && !any; i++)
            any = m->sipu[i].ipu == ipu;
        if (!any)
            continue;
        if (w->multi)
            snprintf(name, sizeof name, "rank %d: IPU %d", t->rank, ipu);
        else
            snprintf(name, sizeof name, "IPU %d", ipu);
        int64_t pid = td_cw_pid(w, name, w->next_pid);
        td_chrome_meta(w->f, pid, 0, "thread_name", "Runs", 0);
        for (int c = 0; c < TD_IPU_NCATS; c++)
            td_chrome_meta(w->f, pid, c + 1, "thread_name", td_ipu_cat_names[c], c + 1);
        for (size_t r = 0; r < m->nruns; r++) {
            const td_ipu_run *run = &m->runs[r];
            int64_t from = INT64_MAX, to = INT64_MIN;
            for (uint32_t s = 0; s < run->nsteps; s++) {
                const td_ipu_step *st = &m->steps[run->first_step + s];
                for (uint32_t k = 0; k < st->n; k++) {
                    const td_ipu_stepipu *e = &m->sipu[st->first + k];
                    if (e->ipu != ipu)
                        continue;
                    if (e->from_min < from)
                        from = e->from_min;
                    if (e->from_min + e->cycles > to)
                        to = e->from_min + e->cycles;
                }
            }
            if (from == INT64_MAX)
                continue;
            td_cw_head(w, "X", "ipu_run", td_strget(S, run->name), pid, 0,
                       td_ipu_cycles_ns(m, from));
            fputs(", \"dur\": ", w->f);
            td_json_us(w->f, td_ipu_cycles_ns(m, to) - td_ipu_cycles_ns(m, from));
            args a = {w->f, 0};
            td_cw_int(&a, "run", (int64_t)r);
            td_cw_int(&a, "steps", run->nsteps);
            td_cw_int(&a, "cycles_from", from);
            td_cw_int(&a, "cycles_to", to);
            if (run->us_start != TD_IPU_NA) {
                td_cw_int(&a, "microseconds_start", run->us_start);
                td_cw_int(&a, "microseconds_end", run->us_end);
            }
            td_cw_end(&a);
        }
        for (size_t i = 0; i < m->nsteps; i++) {
            const td_ipu_step *st = &m->steps[i];
            for (uint32_t k = 0; k < st->n; k++) {
                const td_ipu_stepipu *e = &m->sipu[st->first + k];
                if (e->ipu != ipu)
                    continue;
                const char *nm = st->name ? td_strget(S, st->name) : "";
                int64_t ts = td_ipu_cycles_ns(m, e->from_min);
                td_cw_head(w, "X", "ipu_step", *nm ? nm : td_ipu_type_name(st->type), pid,
                        td_ipu_cat(st->type) + 1, ts);
                fputs(", \"dur\": ", w->f);
                td_json_us(w->f, td_ipu_cycles_ns(m, e->from_min + e->cycles) - ts);
                args a = {w->f, 0};
                td_cw_str(&a, "type", td_ipu_type_name(st->type));
                td_cw_int(&a, "ipu", ipu);
                td_cw_int(&a, "run", st->run);
                td_cw_int(&a, "cycles", e->cycles);
                td_cw_int(&a, "cycles_from_min", e->from_min);
                td_cw_int(&a, "cycles_from_max", e->from_max);
                td_cw_int(&a, "cycles_to_min", e->to_min);
                td_cw_int(&a, "cycles_to_max", e->to_max);
                if (e->active_tiles >= 0)
                    td_cw_int(&a, "active_tiles", e->active_tiles);
                if (e->tile_cycles != TD_IPU_NA)
                    td_cw_int(&a, "tile_cycles", e->tile_cycles);
                td_cw_real(&a, "tile_balance", e->tile_balance);
                td_cw_real(&a, "active_tile_balance", e->active_tile_balance);
                td_cw_real(&a, "data_balance", e->data_balance);
                if (e->data_in != TD_IPU_NA)
                    td_cw_int(&a, "data_in", e->data_in);
                if (e->data_out != TD_IPU_NA)
                    td_cw_int(&a, "data_out", e->data_out);
                if (st->type == TD_IPU_STREAMCOPYMID)
                    td_cw_str(&a, "direction", td_ipu_dir_name(st->dir));
                if (st->vertex)
                    td_cw_str(&a, "vertex", td_strget(S, st->vertex));
                td_cw_end(&a);
            }
        }
    }
}

void td_cw_ipu_lwp(cw *w, const td_trace *t)
{
    const td_ipu *m = t->ipu;
    td_lwp L;
    td_lwp_blocks(w->set->strs, m, w->o->show_flushes, &L);
    char name[200];
    int64_t pid = 0;
    int32_t cur_ipu = -1, cur_lane = INT32_MIN;
    lanes io = {0};
    for (size_t i = 0; i < L.n; i++) {
        const td_lwp_block *b = &L.v[i];
        if (b->ipu != cur_ipu) {
            cur_ipu = b->ipu;
            if (w->multi)
                snprintf(name, sizeof name, "rank %d: IPU %d lightweight profiling", t->rank,
                         b->ipu);
            else
                snprintf(name, sizeof name, "IPU %d lightweight profiling", b->ipu);
            pid = td_cw_pid(w, name, w->next_pid);
            cur_lane = INT32_MIN;
        }
        int64_t tid;
        if (b->lane >= 0) {
            tid = b->lane % m->tiles_per_ipu + 1;
            if (b->lane != cur_lane) {
                snprintf(name, sizeof name, "tile %d", b->lane % m->tiles_per_ipu);
                td_chrome_meta(w->f, pid, tid, "thread_name", name, tid);
            }
        } else {
            if (b->lane != cur_lane)
                io.n = 0;
            size_t k = td_cw_lane(&io, b->from, b->to);
            tid = m->tiles_per_ipu + 1 + (int64_t)k;
            if (k + 1 == io.n && io.end[k] == b->to) {
                snprintf(name, sizeof name, k ? "I/O (%zu)" : "I/O", k + 1);
                td_chrome_meta(w->f, pid, tid, "thread_name", name, tid);
            }
        }
        cur_lane = b->lane;
        const char *kind = b->status == TD_LWP_ST_UNKNOWN ? "Unknown"
                           : b->status == TD_LWP_ST_NOEND ? "NoEnd"
                                                          : td_lwp_kind_name(b->kind);
        int64_t ts = td_ipu_cycles_ns(m, b->from);
        td_cw_head(w, "X", "lwp_block", b->name, pid, tid, ts);
        fputs(", \"dur\": ", w->f);
        td_json_us(w->f, td_ipu_cycles_ns(m, b->to) - ts);
        args a = {w->f, 0};
        td_cw_str(&a, "kind", kind);
        td_cw_int(&a, "ipu", b->ipu);
        if (b->lane >= 0)
            td_cw_int(&a, "tile", b->lane % m->tiles_per_ipu);
        td_cw_int(&a, "cycles_from", b->from);
        td_cw_int(&a, "cycles_to", b->to);
        if (b->cycles >= 0)
            td_cw_int(&a, "cycles", b->cycles);
        if (L.base && L.base[b->ipu] != INT64_MAX)
            td_cw_int(&a, "base_cycles", L.base[b->ipu]);
        td_cw_end(&a);
    }
    free(io.end);
    td_lwp_free(&L);
}
