/* render/pdf/gfx.h - the graphics libraries the PDF renderer draws with (cairo, pango,
 * fontconfig, glib), loaded by td_gfx_load (gfx.c, with dlopen) when a PDF is first
 * drawn rather than by the dynamic linker when tracedoc starts: the 35 shared objects
 * they bring were most of the start-up of every run, including the runs that write no
 * PDF. The files of render/pdf include this header instead of the libraries' own; the
 * functions they call keep their names (each is a macro for a pointer of td_gfx). */
#ifndef TD_RENDER_PDF_GFX_H
#define TD_RENDER_PDF_GFX_H
#include "base/dynlib.h"
#include "base/err.h"
#include <cairo-pdf.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-fontmap.h>

/* every function of those libraries the renderer calls; a call to one not listed fails
 * to link (the libraries are not linked), so the list cannot fall behind */
#define TD_GFX_FUNCS(X, T) \
    X(T, FcConfigAppFontAddFile) \
    X(T, FcConfigCreate) \
    X(T, FcConfigDestroy) \
    X(T, FcConfigGetFonts) \
    X(T, FcConfigSetCurrent) \
    X(T, cairo_arc) \
    X(T, cairo_clip) \
    X(T, cairo_close_path) \
    X(T, cairo_create) \
    X(T, cairo_destroy) \
    X(T, cairo_fill) \
    X(T, cairo_fill_preserve) \
    X(T, cairo_font_options_create) \
    X(T, cairo_font_options_destroy) \
    X(T, cairo_font_options_set_hint_metrics) \
    X(T, cairo_font_options_set_hint_style) \
    X(T, cairo_line_to) \
    X(T, cairo_tag_begin) \
    X(T, cairo_tag_end) \
    X(T, cairo_move_to) \
    X(T, cairo_new_path) \
    X(T, cairo_paint) \
    X(T, cairo_pdf_surface_create_for_stream) \
    X(T, cairo_pdf_surface_set_metadata) \
    X(T, cairo_recording_surface_create) \
    X(T, cairo_rectangle) \
    X(T, cairo_restore) \
    X(T, cairo_save) \
    X(T, cairo_set_dash) \
    X(T, cairo_set_line_width) \
    X(T, cairo_set_source_rgb) \
    X(T, cairo_set_source_surface) \
    X(T, cairo_show_page) \
    X(T, cairo_status) \
    X(T, cairo_status_to_string) \
    X(T, cairo_stroke) \
    X(T, cairo_surface_destroy) \
    X(T, cairo_surface_finish) \
    X(T, cairo_surface_status) \
    X(T, g_free) \
    X(T, g_object_unref) \
    X(T, g_utf8_make_valid) \
    X(T, pango_attr_insert_hyphens_new) \
    X(T, pango_attr_list_insert) \
    X(T, pango_attr_list_new) \
    X(T, pango_attr_list_unref) \
    X(T, pango_cairo_context_set_font_options) \
    X(T, pango_cairo_context_set_resolution) \
    X(T, pango_cairo_font_map_new_for_font_type) \
    X(T, pango_cairo_show_layout) \
    X(T, pango_cairo_update_context) \
    X(T, pango_context_set_round_glyph_positions) \
    X(T, pango_fc_font_map_set_config) \
    X(T, pango_fc_font_map_shutdown) \
    X(T, pango_font_description_free) \
    X(T, pango_font_description_from_string) \
    X(T, pango_font_description_set_size) \
    X(T, pango_font_map_create_context) \
    X(T, pango_layout_get_size) \
    X(T, pango_layout_new) \
    X(T, pango_layout_set_alignment) \
    X(T, pango_layout_set_attributes) \
    X(T, pango_layout_set_ellipsize) \
    X(T, pango_layout_set_font_description) \
    X(T, pango_layout_set_height) \
    X(T, pango_layout_set_text) \
    X(T, pango_layout_set_width) \
    X(T, pango_layout_set_wrap)

typedef struct td_gfx_fns {
    TD_GFX_FUNCS(TD_DYNLIB_PTR, td_gfx_fns)
} td_gfx_fns;

extern td_gfx_fns td_gfx;

/* Loads the libraries and every function of TD_GFX_FUNCS, once per process (later calls
 * return the first call's result). A library or function that cannot be loaded is
 * TD_E_OUTPUT ("the PDF cannot be written"), naming it and the Debian package; one that
 * cannot be mapped for lack of memory (a ulimit -v) is TD_E_NOMEM. */
td_status td_gfx_load(const char *file, td_err *e);

#ifndef TD_GFX_LOADER
#define FcConfigAppFontAddFile (td_gfx.FcConfigAppFontAddFile)
#define FcConfigCreate (td_gfx.FcConfigCreate)
#define FcConfigDestroy (td_gfx.FcConfigDestroy)
#define FcConfigGetFonts (td_gfx.FcConfigGetFonts)
#define FcConfigSetCurrent (td_gfx.FcConfigSetCurrent)
#define cairo_arc (td_gfx.cairo_arc)
#define cairo_clip (td_gfx.cairo_clip)
#define cairo_close_path (td_gfx.cairo_close_path)
#define cairo_create (td_gfx.cairo_create)
#define cairo_destroy (td_gfx.cairo_destroy)
#define cairo_fill (td_gfx.cairo_fill)
#define cairo_fill_preserve (td_gfx.cairo_fill_preserve)
#define cairo_font_options_create (td_gfx.cairo_font_options_create)
#define cairo_font_options_destroy (td_gfx.cairo_font_options_destroy)
#define cairo_font_options_set_hint_metrics (td_gfx.cairo_font_options_set_hint_metrics)
#define cairo_font_options_set_hint_style (td_gfx.cairo_font_options_set_hint_style)
#define cairo_line_to (td_gfx.cairo_line_to)
#define cairo_tag_begin (td_gfx.cairo_tag_begin)
#define cairo_tag_end (td_gfx.cairo_tag_end)
#define cairo_move_to (td_gfx.cairo_move_to)
#define cairo_new_path (td_gfx.cairo_new_path)
#define cairo_paint (td_gfx.cairo_paint)
#define cairo_pdf_surface_create_for_stream (td_gfx.cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata (td_gfx.cairo_pdf_surface_set_metadata)
#define cairo_recording_surface_create (td_gfx.cairo_recording_surface_create)
#define cairo_rectangle (td_gfx.cairo_rectangle)
#define cairo_restore (td_gfx.cairo_restore)
#define cairo_save (td_gfx.cairo_save)
#define cairo_set_dash (td_gfx.cairo_set_dash)
#define cairo_set_line_width (td_gfx.cairo_set_line_width)
#define cairo_set_source_rgb (td_gfx.cairo_set_source_rgb)
#define cairo_set_source_surface (td_gfx.cairo_set_source_surface)
#define cairo_show_page (td_gfx.cairo_show_page)
#define cairo_status (td_gfx.cairo_status)
#define cairo_status_to_string (td_gfx.cairo_status_to_string)
#define cairo_stroke (td_gfx.cairo_stroke)
#define cairo_surface_destroy (td_gfx.cairo_surface_destroy)
#define cairo_surface_finish (td_gfx.cairo_surface_finish)
#define cairo_surface_status (td_gfx.cairo_surface_status)
#define g_free (td_gfx.g_free)
#define g_object_unref (td_gfx.g_object_unref)
#define g_utf8_make_valid (td_gfx.g_utf8_make_valid)
#define pango_attr_insert_hyphens_new (td_gfx.pango_attr_insert_hyphens_new)
#define pango_attr_list_insert (td_gfx.pango_attr_list_insert)
#define pango_attr_list_new (td_gfx.pango_attr_list_new)
#define pango_attr_list_unref (td_gfx.pango_attr_list_unref)
#define pango_cairo_context_set_font_options (td_gfx.pango_cairo_context_set_font_options)
#define pango_cairo_context_set_resolution (td_gfx.pango_cairo_context_set_resolution)
#define pango_cairo_font_map_new_for_font_type (td_gfx.pango_cairo_font_map_new_for_font_type)
#define pango_cairo_show_layout (td_gfx.pango_cairo_show_layout)
#define pango_cairo_update_context (td_gfx.pango_cairo_update_context)
#define pango_context_set_round_glyph_positions (td_gfx.pango_context_set_round_glyph_positions)
#define pango_fc_font_map_set_config (td_gfx.pango_fc_font_map_set_config)
#define pango_fc_font_map_shutdown (td_gfx.pango_fc_font_map_shutdown)
#define pango_font_description_free (td_gfx.pango_font_description_free)
#define pango_font_description_from_string (td_gfx.pango_font_description_from_string)
#define pango_font_description_set_size (td_gfx.pango_font_description_set_size)
#define pango_font_map_create_context (td_gfx.pango_font_map_create_context)
#define pango_layout_get_size (td_gfx.pango_layout_get_size)
#define pango_layout_new (td_gfx.pango_layout_new)
#define pango_layout_set_alignment (td_gfx.pango_layout_set_alignment)
#define pango_layout_set_attributes (td_gfx.pango_layout_set_attributes)
#define pango_layout_set_ellipsize (td_gfx.pango_layout_set_ellipsize)
#define pango_layout_set_font_description (td_gfx.pango_layout_set_font_description)
#define pango_layout_set_height (td_gfx.pango_layout_set_height)
#define pango_layout_set_text (td_gfx.pango_layout_set_text)
#define pango_layout_set_width (td_gfx.pango_layout_set_width)
#define pango_layout_set_wrap (td_gfx.pango_layout_set_wrap)
#endif

#endif
