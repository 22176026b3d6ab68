/* render/xlsx/summary.c - the workbook's Summary sheet: the title, the headline
 * figures and the findings first, then the time breakdown with a native pie chart, the
 * baseline comparison when there is one and the warnings, and at the end the settings
 * and every input with its SHA-256 (a manager reads the top; the rest is for the
 * record). */
#define _POSIX_C_SOURCE 200809L
#include "render/xlsx/internal.h"
#include <stdlib.h>
#include <string.h>

#define u8len td_utf8_len

/* The row of gpu_timeline for all devices (device -1), whole trace scope preferred. */
static size_t timeline_all(const td_table *t)
{
    int cd = td_table_col(t, "device"), cs = td_table_col(t, "scope");
    size_t found = (size_t)-1;
    if (cd < 0)
        return found;
    for (size_t r = 0; r < t->nrows; r++) {
        if (td_table_cell(t, r, cd)->i != -1)
            continue;
        const char *sc = cs >= 0 ? td_table_cell(t, r, cs)->s : NULL;
        if (!sc || strcmp(sc, "trace") == 0)
            return r;
        if (found == (size_t)-1)
            found = r;
    }
    return found;
}

/* The value of one scalar in column B and its unit in C; returns the lines it takes. */
static int kv_value(xw *x, lxw_worksheet *ws, int r, const td_kv *kv)
{
    const char *unit = "";
    int lines = 1;
    switch (kv->type) {
    case TD_T_TEXT:
        lines = xw_put_wrapped(x, ws, r, 1, kv->v.s);
        break;
    case TD_T_NS: {
        /* one value: the unit the PDF uses for it (s from a second, ms, us below a
         * millisecond), no decimals when it is a whole number of them */
        int64_t v = kv->v.i, a = v == TD_NA ? 0 : llabs(v);
        int64_t sc = a >= 1000000000 ? 1000000000 : a >= 1000000 || a == 0 ? 1000000 : 1000;
        if (v != TD_NA)
            xw_put_num(x, ws, r, 1, (double)v / (double)sc, v % sc ? x->ms : x->count);
        unit = xw_unit_name((double)sc);
        break;
    }
    case TD_T_INT: case TD_T_BYTES:
        if (kv->v.i != TD_NA)
            xw_put_num(x, ws, r, 1, (double)kv->v.i, x->count);
        unit = kv->type == TD_T_BYTES ? "bytes" : "";
        break;
    case TD_T_DEVICE:
        if (kv->v.i < 0)
            xw_put_str(x, ws, r, 1, "all", x->right);
        else
            xw_put_num(x, ws, r, 1, (double)kv->v.i, NULL);
        break;
    case TD_T_BOOL:
        if (kv->v.i != TD_NA)
            xw_put_str(x, ws, r, 1, kv->v.i ? "yes" : "no", NULL);
        break;
    case TD_T_SHARE:
        xw_put_num(x, ws, r, 1, kv->v.f, x->pct); /* the format shows the % */
        break;
    case TD_T_GBPS:
        xw_put_num(x, ws, r, 1, kv->v.f, x->gbps);
        unit = "GB/s";
        break;
    case TD_T_F64: /* the module cut-off is a share of all modules' time (1%, not 0.010) */
        xw_put_num(x, ws, r, 1, kv->v.f,
                   !strcmp(kv->key, "module_cut.threshold") ? x->pct : x->f64);
        break;
    }
    xw_put_str(x, ws, r, 2, unit, NULL);
    return lines;
}


/* The scalars a reader wants first (the rest are settings and details). */
static int headline(const char *key)
{
    static const char *const k[] = {"inputs_label", "trace.device_name", "trace.ranks",
                                    "trace.devices", "trace.span_ns", "trace.captured",
                                    "runtime.wall_ns", "runtime.modules_ns",
                                    "compile.total_ns", "regression.regressed",
                                    "regression.improved", "aiu.active_share",
                                    "comm.host_ns", "ipu.all.tile_balance",
                                    "ipu.all.active_tile_balance", "samba.host_share",
                                    "samba.tflop_util", "trace.devices_note",
                                    "step_time.median_ns", "step_time.p90_ns",
                                    "step_time.device_busy_ns", NULL};
    for (int i = 0; k[i]; i++)
        if (!strcmp(key, k[i]))
            return 1;
    size_t n = strlen(key);   /* generated data says so first (ipu.synthetic) */
    return n > 10 && !strcmp(key + n - 10, ".synthetic");
}

/* A figure that is 1 or 0 by construction for this input says nothing (issue 21, as on
 * the PDF's page 1): Ranks 1, World size 1, Devices 1 (the device row names it); and
 * for an input without steps or modules (stack tracing, IPU, AIU) the warm-up mode and
 * "Warm-up steps dropped 0" (the warm-up rule says what holds instead). */
static int by_construction(const td_summary *s, const td_kv *kv)
{
    if (kv->type == TD_T_INT && kv->v.i == 1 &&
        (!strcmp(kv->key, "trace.ranks") || !strcmp(kv->key, "trace.world_size") ||
         !strcmp(kv->key, "trace.devices")))
        return 1;
    int stepless = !td_sum_find_table(s, "steps") && !td_sum_find_table(s, "modules");
    if (stepless && !strcmp(kv->key, "warmup.dropped") && kv->v.i == 0)
        return 1;
    return stepless && !strcmp(kv->key, "warmup.mode");
}

/* Key figure rows from row r under a heading row: the headline scalars (head = 1) or
 * all the others; returns the next free row. */
static int key_rows(xw *x, lxw_worksheet *ws, int r, int head, const char *heading)
{
    const td_summary *s = x->s;
    xw_put_str(x, ws, r, 0, heading, x->head);
    xw_put_str(x, ws, r, 1, "Value", x->head);
    xw_put_str(x, ws, r, 2, "Unit", x->head);
    r++;
    for (size_t i = 0; i < s->nkv; i++) {
        const td_kv *kv = &s->kv[i];
        if (strcmp(kv->key, "schema") == 0 || headline(kv->key) != head)
            continue;
        /* a time of 0 in the headline (no XLA modules, no compile) says nothing */
        if (head && kv->type == TD_T_NS && (kv->v.i == 0 || kv->v.i == TD_NA))
            continue;
        if (by_construction(s, kv))
            continue;
        int lines;
        if (head && !strcmp(kv->key, "trace.devices") && kv->type == TD_T_INT && kv->v.i <= 0) {
            /* no device: say so, unless the device name row says what ran */
            const td_kv *dn = td_sum_get(s, "trace.device_name");
            if (dn && dn->type == TD_T_TEXT && dn->v.s && *dn->v.s)
                continue;
            lines = xw_put_wrapped(x, ws, r, 1, "none (CPU only)");
        } else
            lines = kv_value(x, ws, r, kv);
        xw_put_label(x, ws, r, kv->title && *kv->title ? kv->title : kv->key, lines);
        r++;
    }
    return r;
}

/* The comparison's heading row and what it compared with (regression.baseline, labelled
 * what); returns the next row. */
static int compare_head(xw *x, lxw_worksheet *ws, int r, const char *heading, const char *what)
{
    const td_kv *b = td_sum_get(x->s, "regression.baseline");
    xw_put_str(x, ws, r, 0, heading, x->head);
    worksheet_write_blank(ws, (lxw_row_t)r, 1, x->head);
    xw_put_str(x, ws, r, 2, "Change", x->headr);
    r++;
    if (b && b->type == TD_T_TEXT && b->v.s) {
        xw_put_str(x, ws, r, 0, what, NULL);
        xw_put_str(x, ws, r++, 1, b->v.s, NULL);
    }
    return r;
}

/* A history's regression: the suspect range, the commits (links with meta.commit_url)
 * and the bisect line (compare/triage.h). */
static int suspect_rows(xw *x, lxw_worksheet *ws, int r)
{
    const char *range = td_sum_text(x->s, "suspect.range");
    if (!range)
        return r;
    xw_put_str(x, ws, r, 0, "Suspect range", x->head);
    xw_put_wrapped(x, ws, r++, 1, range);
    static const char *const k[][3] = {
        {"suspect.first_bad_commit", "suspect.first_bad_url", "First bad commit"},
        {"suspect.last_good_commit", "suspect.last_good_url", "Last good commit"}};
    for (int i = 0; i < 2; i++) {
        const char *c = td_sum_text(x->s, k[i][0]), *u = td_sum_text(x->s, k[i][1]);
        if (!c || !*c)
            continue;
        xw_put_str(x, ws, r, 0, k[i][2], NULL);
        if (u && strlen(u) < 2000)
            xw_note_err(x, worksheet_write_url_opt(ws, (lxw_row_t)r, 1, u, NULL, c, u), "link");
        else
            xw_put_str(x, ws, r, 1, c, NULL);
        r++;
    }
    const char *bis = td_sum_text(x->s, "suspect.bisect");
    if (bis) {
        xw_put_str(x, ws, r, 0, "Bisect", NULL);
        xw_put_str(x, ws, r++, 1, bis, NULL);
    }
    return r;
}

/* With a baseline or a history: the metrics that changed, most severe first, as the
 * changes table has them (every row is on the Changes sheet): the one judgement. */
static int changes_rows(xw *x, lxw_worksheet *ws, int r)
{
    const td_table *t = td_sum_find_table(x->s, "changes");
    int cm = t ? td_table_col(t, "metric") : -1, cd = t ? td_table_col(t, "direction") : -1;
    int cc = t ? td_table_col(t, "change") : -1;
    if (!t || !t->nrows || cm < 0 || cd < 0 || cc < 0)
        return r;
    int two = td_sum_get(x->s, "regression.baseline_run") != NULL; /* diff, --baseline */
    r = compare_head(x, ws, r, two ? "Compared with the baseline" : "Compared with the earlier runs",
                     two ? "Baseline" : "History");
    for (size_t i = 0; i < t->nrows && i < 15; i++, r++) {
        const char *m = td_table_cell(t, i, cm)->s, *d = td_table_cell(t, i, cd)->s;
        char label[600];
        xw_metric_label(x->s, m ? m : "", label, sizeof label);
        xw_put_label(x, ws, r, label, 1);
        xw_put_str(x, ws, r, 1, d, d && !strcmp(d, "regressed") ? x->bad
                                   : d && !strcmp(d, "improved") ? x->good : NULL);
        xw_put_num(x, ws, r, 2, td_table_cell(t, i, cc)->f, x->pct);
    }
    if (t->nrows > 15) {
        char more[80];
        snprintf(more, sizeof more, "%zu more on the Changes sheet", t->nrows - 15);
        xw_put_str(x, ws, r++, 1, more, NULL);
    }
    return suspect_rows(x, ws, r) + 1;
}

/* Every input, one row each: its rank in column A, the path, device and SHA-256 in B. */
static int input_rows(xw *x, lxw_worksheet *ws, int r)
{
    const td_table *in = td_sum_find_table(x->s, "inputs");
    if (!in || !in->nrows)
        return r;
    int cp = td_table_col(in, "path"), cr = td_table_col(in, "rank");
    int cd = td_table_col(in, "device_name"), ch = td_table_col(in, "sha256");
    xw_put_str(x, ws, r, 0, in->nrows == 1 ? "Input" : "Inputs", x->head);
    xw_put_str(x, ws, r, 1, "Path, device, SHA-256", x->head);
    worksheet_write_blank(ws, (lxw_row_t)r, 2, x->head);
    r++;
    for (size_t i = 0; i < in->nrows; i++, r++) {
        td_buf b = {0};
        char lab[48];
        if (cr >= 0 && td_table_cell(in, i, cr)->i != TD_NA)
            snprintf(lab, sizeof lab, "rank %lld", (long long)td_table_cell(in, i, cr)->i);
        else
            snprintf(lab, sizeof lab, "%zu", i + 1);
        td_buf_puts(&b, cp >= 0 && td_table_cell(in, i, cp)->s ? td_table_cell(in, i, cp)->s : "");
        if (cd >= 0 && td_table_cell(in, i, cd)->s)
            td_buf_printf(&b, "\n%s", td_table_cell(in, i, cd)->s);
        if (ch >= 0 && td_table_cell(in, i, ch)->s)
            td_buf_printf(&b, "\nsha256 %s", td_table_cell(in, i, ch)->s);
        xw_put_label(x, ws, r, lab, xw_put_wrapped(x, ws, r, 1, td_buf_cstr(&b)));
        td_buf_free(&b);
    }
    return r + 1;
}

/* The breakdown's header cells: time in the unit of scale (ns per unit), share. */
/* The unit of a breakdown's time column: s from a second of total, else ms, one step
 * smaller while a shown part would read under 0.01 of it (2 us of exposed memcpy beside
 * 3.6 ms of idle reads 2.1 us, not 0.002 ms), never below us. */
static double breakdown_scale(int64_t tot, const int64_t *part, int n)
{
    double sc = tot != TD_NA && tot >= 1000000000 ? 1e9 : 1e6;
    int64_t lo = 0;
    for (int k = 0; k < n; k++)
        if (part[k] != TD_NA && part[k] > 0 && (lo == 0 || part[k] < lo))
            lo = part[k];
    while (lo > 0 && sc > 1e3 && (double)lo / sc < 0.01)
        sc /= 1e3;
    return sc;
}

static void time_head(xw *x, lxw_worksheet *ws, int r, double scale)
{
    char h[32];
    snprintf(h, sizeof h, "Time (%s)", xw_unit_name(scale));
    xw_put_str(x, ws, r, 1, h, x->headr);
    xw_put_str(x, ws, r, 2, "Share", x->headr);
}

/* Summary sheet: title, headline figures, findings, the time breakdown with a pie
 * chart, the baseline comparison, warnings, then settings and the inputs with their
 * hashes. Long texts wrap inside column B. */
void xw_summary_sheet(xw *x, const td_template *tp, const td_section *sec)
{
    lxw_worksheet *ws = xw_add_sheet(x, sec->title, "Summary");
    if (!ws)
        return;
    const td_summary *s = x->s;
    worksheet_set_column(ws, 0, 0, SUMMARY_A_WIDTH, NULL); /* fits the breakdown heading */
    worksheet_set_column(ws, 1, 1, SUMMARY_B_WIDTH, NULL);
    worksheet_set_column(ws, 2, 2, 8, NULL);
    worksheet_set_column(ws, 3, 3, 10, NULL);
    int r = 0;
    if (tp->title[0]) {
        /* the title wraps over the first columns rather than running off the page */
        char *tt = td_template_fill(tp->title, s);
        char *ct = xw_cell_text(tt);
        size_t lines = u8len(ct) / 80 + 1;
        xw_note_err(x, worksheet_merge_range(ws, 0, 0, 0, 3, ct, x->title), "title");
        worksheet_set_row(ws, 0, lines > 5 ? 100.0 : 20.0 * (double)lines, NULL);
        free(ct);
        free(tt);
        r++;
    }
    if (tp->subtitle[0]) {
        char *st = td_template_fill(tp->subtitle, s);
        xw_put_str(x, ws, r++, 0, st, x->subtitle);
        free(st);
    }
    r++;
    /* the headline figures first, the findings next; settings, the warm-up rule and
     * the inputs with their hashes come at the end (key_rows) */
    r = key_rows(x, ws, r, 1, "Key figure");
    r++;
    if (s->nfindings) {
        xw_put_str(x, ws, r, 0, "Findings", x->head);
        worksheet_write_blank(ws, (lxw_row_t)r, 1, x->head);
        r++;
        for (size_t i = 0; i < s->nfindings; i++, r++) {
            char num[16];
            snprintf(num, sizeof num, "%zu", i + 1);
            xw_put_label(x, ws, r, num, xw_put_wrapped(x, ws, r, 1, s->findings[i]));
        }
        r++;
    }
    /* time breakdown of the gpu_timeline "all" row; the pie chart reads these cells */
    const td_table *gt = td_sum_find_table(s, "gpu_timeline");
    size_t ar = gt ? timeline_all(gt) : (size_t)-1;
    int b0 = 0, nb = 0, xla = 0, colour[5] = {0};   /* colour: palette index per row */
    int64_t xpart[3];
    const char *dw = td_sum_device_word(s);
    char btitle[96];
    snprintf(btitle, sizeof btitle, "%s time breakdown (all devices)", dw);
    if (ar != (size_t)-1) {
        static const char *const keys[] = {"computation_ns", "exposed_comm_ns",
                                           "exposed_memcpy_ns", "idle_ns", "sync_ns"};
        static const char *const labels[] = {"Computation", "Exposed communication",
                                             "Exposed memcpy", "Idle", "Sync wait (not computation)"};
        int ct = td_table_col(gt, "total_ns");
        int64_t tot = ct >= 0 ? td_table_cell(gt, ar, ct)->i : TD_NA;
        /* one row per rank: with several ranks, say which one is shown */
        int cr = td_table_col(gt, "rank"), cd = td_table_col(gt, "device"), multi = 0;
        for (size_t k = 0; cr >= 0 && k < gt->nrows; k++)
            if (td_table_cell(gt, k, cd)->i == -1 &&
                td_table_cell(gt, k, cr)->i != td_table_cell(gt, ar, cr)->i)
                multi = 1;
        /* the job-wide row (rank null, sums over ranks) comes first when there is one */
        if (multi && td_table_cell(gt, ar, cr)->i == TD_NA)
            snprintf(btitle, sizeof btitle, "%s time breakdown (all ranks, all devices)", dw);
        else if (multi)
            snprintf(btitle, sizeof btitle, "%s time breakdown (rank %lld, all devices)", dw,
                     (long long)td_table_cell(gt, ar, cr)->i);
        xw_put_str(x, ws, r, 0, btitle, x->head);
        int64_t part[5];
        for (int k = 0; k < 5; k++) {
            int c = td_table_col(gt, keys[k]);
            part[k] = c < 0 ? TD_NA : td_table_cell(gt, ar, c)->i;
        }
        double sc = breakdown_scale(tot, part, 5);
        time_head(x, ws, r, sc);
        r++;
        b0 = r;
        for (int k = 0; k < 5; k++) {
            int c = td_table_col(gt, keys[k]);
            if (c < 0)
                continue;
            int64_t v = td_table_cell(gt, ar, c)->i;
            /* a part of 0 (no communication on one device) is a 0% slice whose label
             * covers its neighbour's: left out (the timeline sheet has every column) */
            if (v == 0 && tot != TD_NA && tot > 0)
                continue;
            xw_put_str(x, ws, r, 0, labels[k], NULL);
            if (v != TD_NA) {
                xw_put_num(x, ws, r, 1, (double)v / sc, x->ms);
                if (tot != TD_NA && tot > 0)
                    xw_put_num(x, ws, r, 2, (double)v / (double)tot, x->pct);
            }
            colour[nb++] = k;
            r++;
        }
        /* what the shares are of (the same words as the findings): not the traced time */
        size_t nranks = 0;
        int cs = td_table_col(gt, "scope");
        for (size_t k = 0; cr >= 0 && k < gt->nrows; k++) {
            const char *scope = cs >= 0 ? td_table_cell(gt, k, cs)->s : NULL;
            if (td_table_cell(gt, k, cd)->i == -1 && td_table_cell(gt, k, cr)->i != TD_NA &&
                (!scope || !strcmp(scope, "trace")))
                nranks++;
        }
        char over[48] = "", note[200];
        if (multi && td_table_cell(gt, ar, cr)->i == TD_NA && nranks > 1)
            snprintf(over, sizeof over, ", summed over %zu ranks", nranks);
        snprintf(note, sizeof note, "Shares of the device timeline (first to last device "
                 "activity%s), not of the traced time.", over);
        xw_put_wrapped(x, ws, r++, 1, note);
        r++;
    } else if (td_sum_xla_breakdown(s, xpart)) {
        /* XLA sets have no gpu_timeline: the devices' wall time after warm-up split by
         * the runtime.* totals (formats.md sec. 4), which add up to runtime.wall_ns */
        static const char *const labels[] = {"Busy in modules (thunk intervals merged)",
                                             "Idle inside modules", "Idle between modules"};
        int64_t tot = xpart[0] + xpart[1] + xpart[2];
        xla = 1;
        snprintf(btitle, sizeof btitle, "Device time breakdown (XLA)");
        xw_put_str(x, ws, r, 0, btitle, x->head);
        double sc = breakdown_scale(tot, xpart, 3);
        time_head(x, ws, r, sc);
        r++;
        b0 = r;
        static const int xcol[3] = {0, 2, 3}; /* busy, idle inside (amber), idle between (grey) */
        for (int k = 0; k < 3; k++, r++, nb++) {
            colour[nb] = xcol[k];
            xw_put_str(x, ws, r, 0, labels[k], NULL);
            xw_put_num(x, ws, r, 1, (double)xpart[k] / sc, x->ms);
            xw_put_num(x, ws, r, 2, (double)xpart[k] / (double)tot, x->pct);
        }
        xw_put_wrapped(x, ws, r++, 1, "Shares of the devices' wall time after warm-up (first to "
                    "last thunk on each device, summed over the devices). Busy counts "
                    "overlapping thunks once; idle inside modules is module time with no "
                    "thunk running; idle between modules is the rest.");
        r++;
    }
    r = changes_rows(x, ws, r);
    if (s->nwarnings) {
        xw_put_str(x, ws, r, 0, "Warnings", x->head);
        worksheet_write_blank(ws, (lxw_row_t)r, 1, x->head);
        r++;
        for (size_t i = 0; i < s->nwarnings; i++, r++)
            xw_put_wrapped(x, ws, r, 1, s->warnings[i]);
        r++;
    }
    r = key_rows(x, ws, r, 0, "Settings and details");
    r++;
    r = input_rows(x, ws, r);
    if (!x->sum_ws) {
        x->sum_ws = ws;
        x->sum_row = r;
    }
    if (nb > 0) {
        lxw_chart *ch = workbook_add_chart(x->wb, LXW_CHART_PIE);
        if (!ch) {
            xw_note_err(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "chart");
            return;
        }
        const char *sn = xw_sheet_name(x);
        lxw_chart_series *se = chart_add_series(ch, NULL, NULL);
        chart_series_set_categories(se, sn, (lxw_row_t)b0, 0, (lxw_row_t)(b0 + nb - 1), 0);
        chart_series_set_values(se, sn, (lxw_row_t)b0, 1, (lxw_row_t)(b0 + nb - 1), 1);
        char sname[48];
        snprintf(sname, sizeof sname, "%s time", dw);
        chart_series_set_name(se, xla ? "Device time" : sname);
        chart_series_set_labels(se);
        chart_series_set_labels_options(se, LXW_FALSE, LXW_FALSE, LXW_FALSE);
        chart_series_set_labels_percentage(se);
        chart_series_set_labels_num_format(se, "0.0%");
        lxw_chart_point pts[5] = {
            {.fill = &(lxw_chart_fill){.color = 0x4472C4}},
            {.fill = &(lxw_chart_fill){.color = 0xED7D31}},
            {.fill = &(lxw_chart_fill){.color = 0xFFC000}},
            {.fill = &(lxw_chart_fill){.color = 0xA5A5A5}},
            {.fill = &(lxw_chart_fill){.color = 0x7F6084}}};
        lxw_chart_point *pp[6] = {NULL};
        for (int k = 0; k < nb; k++)
            pp[k] = &pts[colour[k]];
        chart_series_set_points(se, pp);
        chart_title_set_name(ch, btitle);
        chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT);
        lxw_chart_options co = {.x_scale = 1.3, .y_scale = 1.2};
        xw_note_err(x, worksheet_insert_chart_opt(ws, 3, 4, ch, &co), "chart");
    }
}

