/* analyse/checklist.c - the torch-spyre performance-report checklist (table `checklist`), built
 * from a finished summary (after --meta, --expect and --baseline are in it): one row per
 * item, `ok` when the report has it, `detail` saying what it has or what to add. */
#include "analyse/checklist.h"
#include <stdio.h>
#include <string.h>

static const char *meta(const td_summary *s, const char *const *keys)
{
    for (; *keys; keys++) {
        char k[96];
        snprintf(k, sizeof k, "meta.%s", *keys);
        const td_kv *kv = td_sum_get(s, k);
        if (kv && kv->type == TD_T_TEXT && kv->v.s && *kv->v.s)
            return kv->v.s;
    }
    return NULL;
}

static int acc_is(const td_summary *s, const char *name)
{
    const td_kv *kv = td_sum_get(s, "trace.accelerator");
    return kv && kv->type == TD_T_TEXT && kv->v.s && !strcmp(kv->v.s, name);
}

static void item(td_summary *s, td_table *t, const char *name, int ok, const char *detail)
{
    size_t r = td_table_add_row(t);
    td_row_str(s, t, r, "item", name);
    td_row_int(s, t, r, "ok", ok ? 1 : 0);
    td_row_str(s, t, r, "detail", detail);
}

static int64_t steps_kept(const td_summary *s, int64_t *mean_ns)
{
    const td_table *st = td_sum_find_table(s, "steps");
    *mean_ns = 0;
    if (!st)
        return 0;
    int cw = td_table_col(st, "wall_ns");
    int64_t n = 0, sum = 0;
    for (size_t r = 0; r < st->nrows; r++)
        if (td_steps_row_steady(st, r) && cw >= 0) {
            n++;
            sum += td_table_cell(st, r, cw)->i;
        }
    if (n)
        *mean_ns = sum / n;
    return n;
}

/* What the comparison with a baseline gave: a pointer to the changes section only when
 * it lists something (a `changes` row); not comparable: what differs (the comparability
 * checks), and that nothing was judged. *cmp = 0 when not comparable. */
static const char *baseline_detail(td_summary *s, const char *base, int *cmp)
{
    const char *v = td_sum_text(s, "verdict");
    const td_table *ch = td_sum_find_table(s, "changes");
    *cmp = 1;
    if (v && !strncmp(v, "NOT COMPARABLE", 14)) {
        *cmp = 0;
        const td_table *cp = td_sum_find_table(s, "comparability");
        td_buf b = {0};
        for (size_t r = 0; cp && r < cp->nrows; r++) {
            const char *st = td_row_get_str(cp, r, "status");
            if (!st || strcmp(st, "differs: not comparable"))
                continue;
            td_buf_printf(&b, "%s%s %s vs %s", b.n ? "; " : "", td_row_get_str(cp, r, "check"),
                          td_row_get_str(cp, r, "baseline"), td_row_get_str(cp, r, "current"));
        }
        const char *d = td_arena_printf(s->a, "Compared with %s: not comparable (%s), so no "
                                        "metric was judged: give a baseline of the same "
                                        "device, world size, input format and steps", base,
                                        b.n ? td_buf_cstr(&b) : "see the comparability table");
        td_buf_free(&b);
        return d;
    }
    if (ch && ch->nrows)
        return td_arena_printf(s->a, "Compared with %s: %zu change%s listed in the section "
                               "\"Changes against the baseline\"", base, ch->nrows,
                               ch->nrows == 1 ? "" : "s");
    return td_arena_printf(s->a, "Compared with %s: no metric changed beyond its noise and "
                           "minimum effect", base);
}

void td_checklist(td_summary *s)
{
    td_table *t = td_sum_table(s, "checklist", "Performance report checklist");
    td_table_reset(t);   /* a stored run's summary.json has it: made again */
    td_table_cols(t, "item:text:Item", "ok:bool:Done", "detail:text:Detail", NULL);
    td_arena *a = s->a;
    int64_t mean = 0, n = steps_kept(s, &mean);
    static const char *const k_repro[] = {"reproducer", "repro", "command", "workload", NULL};
    const char *repro = meta(s, k_repro);
    char v[64];
    td_fmt_ns(v, sizeof v, mean);
    item(s, t, "Reproducer and iteration count", repro && n > 0,
         repro && n > 0 ? td_arena_printf(a, "%s; %lld iterations in the trace (%s each on "
                                             "average)", repro, (long long)n, v)
         : repro ? td_arena_printf(a, "%s; add at least one iteration to the trace "
                                      "(ProfilerStep#N or iteration_N ranges)", repro)
                 : "Add the command that reproduces the run: --meta reproducer=\"python run.py "
                   "...\"; profile whole iterations (ProfilerStep#N or iteration_N ranges)");
    /* the stack: torch-spyre (the checklist's origin), other torch.profiler traces, or
     * another profiler (Nsight Systems, nsys-jax, IBM AIU runtime, SambaTune, PopVision),
     * whose items say what that stack needs */
    const td_table *ins = td_sum_find_table(s, "inputs");
    const char *fmt = ins && ins->nrows ? td_row_get_str(ins, 0, "format") : NULL;
    const td_kv *dw = td_sum_get(s, "trace.device_word");
    int spyre = dw && dw->type == TD_T_TEXT && dw->v.s && !strcmp(dw->v.s, "SPYRE");
    int torch = fmt && !strcmp(fmt, "chrome-json") && !td_sum_get(s, "samba.model");
    static const char *const k_pt[] = {"pytorch", "torch", "torch_version", "pytorch_version", NULL};
    static const char *const k_sp[] = {"torch_spyre", "torch-spyre", "torch_spyre_commit",
                                       "spyre_commit", "commit", NULL};
    static const char *const k_ver[] = {"versions", "version", "sdk", "framework", "driver",
                                        "jax", "poplar", "sambaflow", "cuda", "commit", NULL};
    const char *pt = meta(s, k_pt), *sp = meta(s, k_sp), *ver = meta(s, k_ver);
    if (spyre)
        item(s, t, "PyTorch version and torch-spyre commit", pt && sp,
             pt && sp ? td_arena_printf(a, "PyTorch %s, torch-spyre %s", pt, sp)
                      : td_arena_printf(a, "Add %s%s%s", pt ? "" : "--meta pytorch=VERSION",
                                        !pt && !sp ? " and " : "",
                                        sp ? "" : "--meta torch_spyre=COMMIT"));
    else if (torch)
        item(s, t, "PyTorch version", pt != NULL,
             pt ? td_arena_printf(a, "PyTorch %s", pt) : "Add --meta pytorch=VERSION");
    else
        item(s, t, "Software versions (framework, SDK, driver)", ver != NULL,
             ver ? td_arena_printf(a, "%s", ver)
                 : "Add --meta versions=\"...\" (framework, SDK and driver versions)");
    const td_kv *cov = td_sum_get(s, "telemetry.covered_steps");
    const td_kv *tsm = td_sum_get(s, "telemetry.samples");
    int tel_ok = cov && cov->v.i > 0;
    item(s, t, "Telemetry covering at least one full active iteration", tel_ok,
         tel_ok ? td_arena_printf(a, "%lld iterations fully inside the telemetry (%lld samples "
                                     "in the trace)", (long long)cov->v.i,
                                  tsm ? (long long)tsm->v.i : 0LL)
         : tsm ? "The telemetry does not span a whole kept iteration: start aiu-smi before the "
                 "profiled iterations and stop it after them"
               : spyre ? "Add --telemetry FILE: aiu-smi dmon output taken while profiling"
               : acc_is(s, "CUDA") ? "Add --telemetry FILE: nvidia-smi dmon output taken while "
                                     "profiling"
               : acc_is(s, "ROCm") ? "Add --telemetry FILE: amd-smi monitor (or rocm-smi) "
                                     "output taken while profiling"
                                   : "Add --telemetry FILE: the device monitor's output taken "
                                     "while profiling");
    const td_kv *lab = td_sum_get(s, "inputs_label");
    const td_table *in = td_sum_find_table(s, "inputs");
    item(s, t, "The trace file", in && in->nrows > 0,
         in && in->nrows ? td_arena_printf(a, "%s (SHA-256 in the inputs table); attach it to "
                                              "the report", lab && lab->v.s ? lab->v.s : "")
                         : "Attach the trace file");
    const td_table *ops = td_sum_find_table(s, "ops");
    int dev = ops && td_table_col(ops, "device_self_ns") >= 0;
    const td_kv *acc = td_sum_get(s, "trace.accelerator");
    if (torch || spyre) { /* torch.profiler's key_averages table: torch traces only */
        item(s, t, "key_averages-style op table", ops && ops->nrows && dev,
             ops && ops->nrows && dev
                 ? td_arena_printf(a, "Op table with Self CPU and Self %s columns (table ops)",
                                   acc && acc->v.s ? acc->v.s : "device")
             : ops && ops->nrows ? "The op table has no device columns: profile with the "
                                   "accelerator's activity (ProfilerActivity.PrivateUse1)"
                                 : "Profile with torch.profiler (CPU and accelerator activities) "
                                   "so the op table can be made");
    }
    const td_kv *ex = td_sum_get(s, "report.expect");
    item(s, t, "Expected vs seen", ex != NULL,
         ex ? td_arena_printf(a, "Expected: %s; seen: %s per iteration", ex->v.s,
                              n ? v : "(no iterations in the trace)")
            : "Add --expect \"latency 12 ms\" (what you expected to see)");
    const td_kv *bl = td_sum_get(s, "regression.baseline");
    static const char *const k_prev[] = {"previous", "previous_metric", "baseline", NULL};
    const char *prev = meta(s, k_prev);
    int cmp = 1;
    const char *bdet = bl ? baseline_detail(s, bl->v.s, &cmp) : NULL;
    int reg_ok = (bl && cmp) || prev;
    item(s, t, "For a regression: the previous metric (value, date or commit, workload)", reg_ok,
         bl ? bdet
         : prev ? td_arena_printf(a, "Previous: %s", prev)
                : "If this is a regression: --baseline OLD/summary.json, or --meta "
                  "previous=\"latency 11 ms, 2025-10-01 (abc123), resnet50 bs 64\"");
}
