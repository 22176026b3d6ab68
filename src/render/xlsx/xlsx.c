/* render/xlsx/xlsx.c - Excel workbook (libxlsxwriter), the top of render/xlsx: the
 * workbook driver, laid out by the template's [xlsx] sections (a switch over
 * td_xlsx_kind): a Summary sheet (render/xlsx/summary.c) with links to the other
 * sheets, one sheet per summary table (render/xlsx/table.c), the regression tables
 * when present, the Trends sheet (render/xlsx/trend.c). Cells and sheet names are
 * render/xlsx/cell.c. libxlsxwriter has no option that converts strings (unlike
 * Python's XlsxWriter), so none needs turning off.
 *
 * Determinism: the document's `created` date comes from o->epoch (libxlsxwriter uses
 * the current time when it is 0, so epoch 0 is stored as 1 second), and
 * libxlsxwriter's packager stamps every zip member with a fixed DOS date, so the same
 * summary gives the same bytes. The workbook is written to a temporary name and renamed. */
#define _POSIX_C_SOURCE 200809L
#include "render/xlsx/internal.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sheets of one section. No default case: a kind added to td_xlsx_kind without a
 * sheet here is a -Wswitch error. */
static void add_sheets(xw *x, const td_template *t, const td_section *sec)
{
    const td_summary *s = x->s;
    switch (sec->kind.xlsx) {
    case TD_XLSX_SUMMARY:
        xw_summary_sheet(x, t, sec);
        break;
    case TD_XLSX_TABLE:
        if (!td_render_says_nothing(s, sec->arg))
            xw_table_sheet(x, td_sum_find_table(s, sec->arg), sec);
        break;
    case TD_XLSX_REGRESSION: {
        /* the changes by severity (the one judgement), then comparability */
        static const char *const more[][2] = {{"changes", "Changes"},
                                              {"comparability", "Comparability"}};
        for (size_t k = 0; k < 2; k++) {
            td_section cs = *sec;
            snprintf(cs.title, sizeof cs.title, "%s", more[k][1]);
            xw_table_sheet(x, td_sum_find_table(s, more[k][0]), &cs);
        }
        break;
    }
    case TD_XLSX_TRENDS:
        xw_trends_sheet(x, sec);
        break;
    case TD_XLSX_NKINDS:
        break;
    }
}

/* Contents at the end of the Summary sheet: a link to every other sheet. */
static void contents(xw *x)
{
    lxw_worksheet *ws = x->sum_ws;
    int r = x->sum_row;
    if (!ws)
        return;
    /* printed: the key figures and the chart (a long title may overflow further) */
    worksheet_print_area(ws, 0, 0, (lxw_row_t)(r + (int)x->nsheets + 1), 13);
    if (x->nsheets < 2)
        return;
    xw_put_str(x, ws, r, 0, "Sheets", x->head);
    worksheet_write_blank(ws, (lxw_row_t)r, 1, x->head);
    r++;
    for (size_t i = 0; i < x->nsheets; i++) {
        if (x->rows[i] == 0)
            continue;
        /* internal link: 'name' with apostrophes doubled */
        char url[320] = "internal:'";
        size_t n = strlen(url);
        for (const char *p = x->sheets[i]; *p && n + 8 < sizeof url; p++) {
            if (*p == '\'')
                url[n++] = '\'';
            url[n++] = *p;
        }
        snprintf(url + n, sizeof url - n, "'!A1");
        xw_note_err(x, worksheet_write_url_opt(ws, (lxw_row_t)r, 0, url, NULL, x->sheets[i],
                                            NULL), "link");
        char rows[48];
        snprintf(rows, sizeof rows, "%zu row%s", x->rows[i], x->rows[i] == 1 ? "" : "s");
        xw_put_str(x, ws, r, 1, rows, NULL);
        r++;
    }
    x->sum_row = r;
}

td_status td_render_xlsx(const td_summary *s, const td_template *t, const td_render_opts *o,
                         const char *path, td_err *e)
{
    td_status ls = td_xlsx_load(path, e);
    if (ls != TD_OK)
        return ls;
    char *tmp = td_tmp_name(path);
    /* Create the temporary file first: libxlsxwriter only opens it in workbook_close
     * and prints its own message when that fails; ours names the file and the cause. */
    FILE *probe = fopen(tmp, "wb");
    if (!probe) {
        td_status st = td_tmp_fail(path, tmp, errno, e);
        free(tmp);
        return st;
    }
    fclose(probe);
    lxw_workbook_options wo = {.constant_memory = LXW_FALSE, .tmpdir = NULL,
                               .use_zip64 = LXW_FALSE};
    xw x = {0};
    x.s = s;
    x.o = o;
    x.wb = workbook_new_opt(tmp, &wo);
    if (!x.wb) {
        unlink(tmp);
        free(tmp);
        return td_fail(e, TD_E_OUTPUT, "%s: cannot create workbook (out of memory)", path);
    }
    /* the title holds input file names: made XML-safe like any cell */
    char *filled = td_template_fill(t->title[0] ? t->title : "tracedoc report", s);
    char *title = xw_cell_text(filled);
    free(filled);
    char comments[128];
    snprintf(comments, sizeof comments, "written by tracedoc %s",
             o->version ? o->version : "");
    lxw_doc_properties props = {
        .title = title, .author = "tracedoc", .comments = comments,
        /* 0 would mean "now" to libxlsxwriter */
        .created = (time_t)(o->epoch > 0 ? o->epoch : 1)};
    xw_note_err(&x, workbook_set_properties(x.wb, &props), "document properties");

    x.title = workbook_add_format(x.wb);
    format_set_bold(x.title);
    format_set_font_size(x.title, 14);
    format_set_text_wrap(x.title);
    format_set_align(x.title, LXW_ALIGN_VERTICAL_TOP);
    x.subtitle = workbook_add_format(x.wb);
    format_set_italic(x.subtitle);
    format_set_font_color(x.subtitle, 0x595959);
    x.head = workbook_add_format(x.wb);
    format_set_bold(x.head);
    format_set_bg_color(x.head, 0xD9E1F2);
    format_set_bottom(x.head, LXW_BORDER_THIN);
    x.headr = workbook_add_format(x.wb); /* over right-aligned numbers */
    format_set_bold(x.headr);
    format_set_bg_color(x.headr, 0xD9E1F2);
    format_set_bottom(x.headr, LXW_BORDER_THIN);
    format_set_align(x.headr, LXW_ALIGN_RIGHT);
    x.wrap = workbook_add_format(x.wb);
    format_set_text_wrap(x.wrap);
    format_set_align(x.wrap, LXW_ALIGN_VERTICAL_TOP);
    x.top = workbook_add_format(x.wb);
    format_set_align(x.top, LXW_ALIGN_VERTICAL_TOP);
    x.center = workbook_add_format(x.wb);
    format_set_align(x.center, LXW_ALIGN_CENTER);
    x.right = workbook_add_format(x.wb);
    format_set_align(x.right, LXW_ALIGN_RIGHT);
    x.bad = workbook_add_format(x.wb);
    format_set_bold(x.bad);
    format_set_font_color(x.bad, 0x9C0006);
    format_set_bg_color(x.bad, 0xFFC7CE);
    x.good = workbook_add_format(x.wb);
    format_set_font_color(x.good, 0x006100);
    format_set_bg_color(x.good, 0xC6EFCE);
    x.ms = workbook_add_format(x.wb);
    format_set_num_format(x.ms, "#,##0.000");
    x.pct = workbook_add_format(x.wb);
    format_set_num_format(x.pct, "0.0%");
    x.count = workbook_add_format(x.wb);
    format_set_num_format(x.count, "#,##0");
    x.id = workbook_add_format(x.wb); /* centred: a rank or IPU number right-aligned
                                         ran into the text of the next column */
    format_set_num_format(x.id, "0");
    format_set_align(x.id, LXW_ALIGN_CENTER);
    x.gbps = workbook_add_format(x.wb);
    format_set_num_format(x.gbps, "#,##0.00");
    x.f64 = workbook_add_format(x.wb);
    format_set_num_format(x.f64, "#,##0.000");

    for (size_t i = 0; i < t->nxlsx; i++)
        add_sheets(&x, t, &t->xlsx[i]);
    contents(&x);
    if (x.nsheets == 0) { /* a workbook needs one sheet; say why it is empty */
        lxw_worksheet *ws = xw_add_sheet(&x, "Summary", "Summary");
        if (ws)
            xw_put_str(&x, ws, 0, 0, "The template's [xlsx] block has no section with data.",
                    NULL);
    }

    lxw_error r = workbook_close(x.wb);
    free(title);
    free(x.sheets);
    free(x.rows);
    td_status st = TD_OK;
    if (x.err != LXW_NO_ERROR)
        st = td_fail(e, TD_E_OUTPUT, "%s: cannot write workbook (%s): %s", path, x.errwhere,
                     lxw_strerror(x.err));
    else if (r != LXW_NO_ERROR)
        st = td_fail(e, TD_E_OUTPUT, "%s: cannot write workbook: %s", path, lxw_strerror(r));
    if (st != TD_OK)
        unlink(tmp);
    else
        st = td_commit_tmp(tmp, path, e);
    free(tmp);
    return st;
}
