/* render/xlsx/xlsx_lib.h - libxlsxwriter, loaded (base/dynlib.h) when a workbook is first
 * written, not when tracedoc starts (its minizip and zlib relocations were a third of
 * every run's start). The workbook renderer includes this header instead of
 * <xlsxwriter.h>; the functions keep their names (each is a macro for a pointer of
 * td_xlsx), and td_xlsx_load must succeed before the first call. */
#ifndef TD_RENDER_XLSX_LIB_H
#define TD_RENDER_XLSX_LIB_H
#include "base/dynlib.h"
#include "base/err.h"
#include <xlsxwriter.h>

/* every function of the library tracedoc calls; a call to one not listed fails to link
 * (the library is not linked), so the list cannot fall behind */
#define TD_XLSX_FUNCS(X, T) \
    X(T, chart_add_series) \
    X(T, chart_axis_set_min) \
    X(T, chart_axis_set_name) \
    X(T, chart_axis_set_num_format) \
    X(T, chart_legend_delete_series) \
    X(T, chart_legend_set_position) \
    X(T, chart_series_set_categories) \
    X(T, chart_series_set_fill) \
    X(T, chart_series_set_labels) \
    X(T, chart_series_set_labels_num_format) \
    X(T, chart_series_set_labels_options) \
    X(T, chart_series_set_labels_percentage) \
    X(T, chart_series_set_line) \
    X(T, chart_series_set_marker_fill) \
    X(T, chart_series_set_marker_line) \
    X(T, chart_series_set_marker_size) \
    X(T, chart_series_set_marker_type) \
    X(T, chart_series_set_name) \
    X(T, chart_series_set_points) \
    X(T, chart_series_set_values) \
    X(T, chart_set_series_gap) \
    X(T, chart_show_hidden_data) \
    X(T, chart_title_set_name) \
    X(T, chart_title_set_name_font) \
    X(T, format_set_align) \
    X(T, format_set_bg_color) \
    X(T, format_set_bold) \
    X(T, format_set_bottom) \
    X(T, format_set_font_color) \
    X(T, format_set_font_size) \
    X(T, format_set_italic) \
    X(T, format_set_num_format) \
    X(T, format_set_text_wrap) \
    X(T, lxw_strerror) \
    X(T, workbook_add_chart) \
    X(T, workbook_add_format) \
    X(T, workbook_add_worksheet) \
    X(T, workbook_close) \
    X(T, workbook_new_opt) \
    X(T, workbook_set_properties) \
    X(T, workbook_validate_sheet_name) \
    X(T, worksheet_autofilter) \
    X(T, worksheet_fit_to_pages) \
    X(T, worksheet_freeze_panes) \
    X(T, worksheet_insert_chart_opt) \
    X(T, worksheet_merge_range) \
    X(T, worksheet_print_area) \
    X(T, worksheet_repeat_rows) \
    X(T, worksheet_set_column) \
    X(T, worksheet_set_column_opt) \
    X(T, worksheet_set_landscape) \
    X(T, worksheet_set_paper) \
    X(T, worksheet_set_row) \
    X(T, worksheet_write_blank) \
    X(T, worksheet_write_number) \
    X(T, worksheet_write_string) \
    X(T, worksheet_write_url_opt)

typedef struct td_xlsx_fns {
    TD_XLSX_FUNCS(TD_DYNLIB_PTR, td_xlsx_fns)
} td_xlsx_fns;

extern td_xlsx_fns td_xlsx;

/* Loads libxlsxwriter once per process; TD_E_OUTPUT "cannot write a workbook: the
 * library libxlsxwriter.so.4 (Debian package libxlsxwriter4) cannot be loaded: ..." when
 * it cannot. */
td_status td_xlsx_load(const char *file, td_err *e);

#ifndef TD_XLSX_LOADER
#define chart_add_series (td_xlsx.chart_add_series)
#define chart_axis_set_min (td_xlsx.chart_axis_set_min)
#define chart_axis_set_name (td_xlsx.chart_axis_set_name)
#define chart_axis_set_num_format (td_xlsx.chart_axis_set_num_format)
#define chart_legend_delete_series (td_xlsx.chart_legend_delete_series)
#define chart_legend_set_position (td_xlsx.chart_legend_set_position)
#define chart_series_set_categories (td_xlsx.chart_series_set_categories)
#define chart_series_set_fill (td_xlsx.chart_series_set_fill)
#define chart_series_set_labels (td_xlsx.chart_series_set_labels)
#define chart_series_set_labels_num_format (td_xlsx.chart_series_set_labels_num_format)
#define chart_series_set_labels_options (td_xlsx.chart_series_set_labels_options)
#define chart_series_set_labels_percentage (td_xlsx.chart_series_set_labels_percentage)
#define chart_series_set_line (td_xlsx.chart_series_set_line)
#define chart_series_set_marker_fill (td_xlsx.chart_series_set_marker_fill)
#define chart_series_set_marker_line (td_xlsx.chart_series_set_marker_line)
#define chart_series_set_marker_size (td_xlsx.chart_series_set_marker_size)
#define chart_series_set_marker_type (td_xlsx.chart_series_set_marker_type)
#define chart_series_set_name (td_xlsx.chart_series_set_name)
#define chart_series_set_points (td_xlsx.chart_series_set_points)
#define chart_series_set_values (td_xlsx.chart_series_set_values)
#define chart_set_series_gap (td_xlsx.chart_set_series_gap)
#define chart_show_hidden_data (td_xlsx.chart_show_hidden_data)
#define chart_title_set_name (td_xlsx.chart_title_set_name)
#define chart_title_set_name_font (td_xlsx.chart_title_set_name_font)
#define format_set_align (td_xlsx.format_set_align)
#define format_set_bg_color (td_xlsx.format_set_bg_color)
#define format_set_bold (td_xlsx.format_set_bold)
#define format_set_bottom (td_xlsx.format_set_bottom)
#define format_set_font_color (td_xlsx.format_set_font_color)
#define format_set_font_size (td_xlsx.format_set_font_size)
#define format_set_italic (td_xlsx.format_set_italic)
#define format_set_num_format (td_xlsx.format_set_num_format)
#define format_set_text_wrap (td_xlsx.format_set_text_wrap)
#define lxw_strerror (td_xlsx.lxw_strerror)
#define workbook_add_chart (td_xlsx.workbook_add_chart)
#define workbook_add_format (td_xlsx.workbook_add_format)
#define workbook_add_worksheet (td_xlsx.workbook_add_worksheet)
#define workbook_close (td_xlsx.workbook_close)
#define workbook_new_opt (td_xlsx.workbook_new_opt)
#define workbook_set_properties (td_xlsx.workbook_set_properties)
#define workbook_validate_sheet_name (td_xlsx.workbook_validate_sheet_name)
#define worksheet_autofilter (td_xlsx.worksheet_autofilter)
#define worksheet_fit_to_pages (td_xlsx.worksheet_fit_to_pages)
#define worksheet_freeze_panes (td_xlsx.worksheet_freeze_panes)
#define worksheet_insert_chart_opt (td_xlsx.worksheet_insert_chart_opt)
#define worksheet_merge_range (td_xlsx.worksheet_merge_range)
#define worksheet_print_area (td_xlsx.worksheet_print_area)
#define worksheet_repeat_rows (td_xlsx.worksheet_repeat_rows)
#define worksheet_set_column (td_xlsx.worksheet_set_column)
#define worksheet_set_column_opt (td_xlsx.worksheet_set_column_opt)
#define worksheet_set_landscape (td_xlsx.worksheet_set_landscape)
#define worksheet_set_paper (td_xlsx.worksheet_set_paper)
#define worksheet_set_row (td_xlsx.worksheet_set_row)
#define worksheet_write_blank (td_xlsx.worksheet_write_blank)
#define worksheet_write_number (td_xlsx.worksheet_write_number)
#define worksheet_write_string (td_xlsx.worksheet_write_string)
#define worksheet_write_url_opt (td_xlsx.worksheet_write_url_opt)
#endif

#endif
