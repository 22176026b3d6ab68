/* render/svg.c - interactive SVG flamegraphs.
 *
 * One self-contained file: frames are plain <g><title/><rect/><text/></g> elements laid
 * out in percent of the width (so the SVG scales with its container and renders without
 * script too), and an inline script adds the interaction: tooltip, click to zoom, regex
 * search with the matched share, keyboard shortcuts, labels refitted to the real width.
 *
 * Safety: frame names from traces are untrusted. They only ever appear as escaped XML
 * character data (<title> and <text> contents), never in attributes or in the script;
 * the script reads them back with textContent and writes them with textContent only.
 * Invalid UTF-8 and characters XML forbids become U+FFFD, so the document always parses.
 *
 * Determinism: the layout is sorted (summary/flame.c); the only date is o->epoch. */
#define _POSIX_C_SOURCE 200809L
#include "render/render.h"
#include "summary/flame.h"
#include "base/alloc.h"
#include "base/fmt.h"
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    ROW = 16,       /* px per flame level */
    TOP = 56,       /* px above the first level: title, subtitle, buttons */
    BOTTOM = 34,    /* px below the last level: details line */
    REF_WIDTH = 1200 /* px width assumed for the labels written without script */
};
#define CHAR_W 6.6  /* px per character of the 11px monospace font */
/* A flamegraph must open quickly in a browser: above this size, frames are pruned
 * harder (the subtitle says so). ~150 bytes per frame: about 12k frames. */
#define SVG_BUDGET 1900000

static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
    return td_utf8_next(s, cp);
}

static void put_text(td_buf *b, const char *s, size_t maxcp)
{
    td_buf_xml(b, s, maxcp);
}

static size_t count_cp(const char *s)
{
    size_t n = 0;
    for (const unsigned char *q = (const unsigned char *)s; *q; n++) {
        uint32_t cp;
        q += utf8_next(q, &cp);
    }
    return n;
}

/* A percentage with at most 4 decimals, trailing zeros dropped ("12.5", "100"). */
static void put_pct(td_buf *b, double v)
{
    char s[32];
    td_fmt_fixed(s, sizeof s, v, 4);
    char *dot = strchr(s, '.');
    if (dot) {
        char *end = s + strlen(s);
        while (end > dot + 1 && end[-1] == '0')
            *--end = 0;
        if (end == dot + 1)
            *dot = 0;
    }
    if (!strcmp(s, "-0"))
        strcpy(s, "0");
    td_buf_puts(b, s);
}

static const char style[] =
    "<style>\n"
    "text{font-family:\"DejaVu Sans Mono\",\"Liberation Mono\",Menlo,Consolas,monospace;"
    "font-size:11px;fill:#000}\n"
    ".h1{font-size:17px;font-weight:bold}.sub{fill:#555}\n"
    ".btn{cursor:pointer;fill:#1a4f9c}.btn:hover{text-decoration:underline}\n"
    "#frames g{cursor:pointer}#frames text{pointer-events:none}\n"
    "#frames rect{rx:2px;stroke:#f8f8f8;stroke-width:.5}\n"
    "#frames g:hover rect{stroke:#000;stroke-width:.6}\n"
    "#frames .a rect{opacity:.55}\n"
    "#tip rect{fill:#fffff0;stroke:#777}\n"
    "</style>\n";

/* The script reads every frame from the DOM (names via textContent), so no trace data
 * is ever part of the script text. Only the numeric constants above it are generated. */
static const char script[] =
    "var NS = 'http://www.w3.org/2000/svg', HL = '#e03ce0';\n"
    "var $ = function (id) { return document.getElementById(id); };\n"
    "var frames = $('frames'), svg = frames.ownerSVGElement;\n"
    "var details = $('details'), matched = $('matched'), unzoomBtn = $('unzoom');\n"
    "var searchBtn = $('search'), tip = $('tip'), tipRect = tip.firstElementChild;\n"
    "var tipName = $('tipname'), tipInfo = $('tipinfo');\n"
    "/* a static copy: a live collection re-walks the tree after every removeChild */\n"
    "var F = [], gs = Array.prototype.slice.call(frames.children), stack = [], i, f;\n"
    "for (i = 0; i < gs.length; i++) {\n"
    "  var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('title');\n"
    "  var d = (+r.getAttribute('y') - TOP) / ROW, s = t.textContent, k = s.lastIndexOf('\\n');\n"
    "  f = {g: g, r: r, t: g.querySelector('text'), name: s.slice(0, k), info: s.slice(k + 1),\n"
    "       v: +g.getAttribute('data-v'), d: ICICLE ? d : MAXDEPTH - d,\n"
    "       fill: r.getAttribute('fill'),\n"
    "       parent: -1, o: 0, next: 0, end: F.length + 1, x: 0, w: 0, shown: true};\n"
    "  g.removeChild(t); /* the script's tooltip replaces the native one */\n"
    "  g.fi = F.length;\n"
    "  /* pre-order: the parent is the nearest open frame one level up; children start at\n"
    "     the parent's left edge, in order */\n"
    "  while (stack.length && F[stack[stack.length - 1]].d >= f.d) F[stack.pop()].end = F.length;\n"
    "  if (stack.length) {\n"
    "    var p = F[stack[stack.length - 1]];\n"
    "    f.parent = stack[stack.length - 1]; f.o = p.next; p.next += f.v;\n"
    "  }\n"
    "  f.next = f.o;\n"
    "  stack.push(F.length); F.push(f);\n"
    "}\n"
    "while (stack.length) F[stack.pop()].end = F.length;\n"
    "var zoomed = 0, term = null, charW = 0;\n"
    "function pct(x) { return (100 * x).toFixed(2) + '%'; }\n"
    "function measure() {\n"
    "  var t = document.createElementNS(NS, 'text');\n"
    "  t.textContent = 'MMMMMMMMMMMMMMMMMMMM'; frames.appendChild(t);\n"
    "  var w = t.getComputedTextLength() / 20; frames.removeChild(t);\n"
    "  return w > 0 ? w : 6.6;\n"
    "}\n"
    "function fit() {\n"
    "  var W = svg.getBoundingClientRect().width || 1200;\n"
    "  if (!charW) charW = measure();\n"
    "  for (var i = 0; i < F.length; i++) {\n"
    "    var f = F[i];\n"
    "    if (!f.shown) continue;\n"
    "    var n = Math.floor((f.w / 100 * W - 6) / charW), s = '';\n"
    "    if (n >= 3) {\n"
    "      s = f.name;\n"
    "      if (s.length > n) {\n"
    "        var c = n - 2;\n"
    "        if (/[\\ud800-\\udbff]/.test(s.charAt(c - 1))) c--;\n"
    "        s = s.slice(0, c) + '..';\n"
    "      }\n"
    "    }\n"
    "    if (!f.t) {\n"
    "      if (!s) continue;\n"
    "      f.t = document.createElementNS(NS, 'text');\n"
    "      f.t.setAttribute('y', +f.r.getAttribute('y') + 11);\n"
    "      f.g.appendChild(f.t);\n"
    "    }\n"
    "    f.t.setAttribute('x', (f.x + 300 / W) + '%');\n"
    "    f.t.textContent = s;\n"
    "  }\n"
    "}\n"
    "/* show frame z and its descendants across the full width, its ancestors as faded\n"
    "   full-width bars, and hide everything else */\n"
    "function zoom(z) {\n"
    "  if (z < 0 || z >= F.length) z = 0;\n"
    "  zoomed = z;\n"
    "  var Z = F[z], span = Z.v || 1, anc = {};\n"
    "  for (var a = Z.parent; a >= 0; a = F[a].parent) anc[a] = 1;\n"
    "  for (var i = 0; i < F.length; i++) {\n"
    "    var f = F[i], inside = i >= z && i < Z.end;\n"
    "    f.shown = inside || anc[i] === 1;\n"
    "    f.g.style.display = f.shown ? '' : 'none';\n"
    "    if (!f.shown) continue;\n"
    "    f.x = inside ? (f.o - Z.o) / span * 100 : 0;\n"
    "    f.w = inside ? f.v / span * 100 : 100;\n"
    "    f.r.setAttribute('x', f.x + '%');\n"
    "    f.r.setAttribute('width', f.w + '%');\n"
    "    if (inside) f.g.removeAttribute('class'); else f.g.setAttribute('class', 'a');\n"
    "  }\n"
    "  unzoomBtn.setAttribute('visibility', z ? 'visible' : 'hidden');\n"
    "  fit();\n"
    "}\n"
    "/* highlight names matching the regex; the matched share counts a frame only when\n"
    "   no ancestor matched too (its time is already inside the ancestor's) */\n"
    "function search(s) {\n"
    "  var re = null, sum = 0, until = -1, i, f;\n"
    "  if (s) {\n"
    "    try { re = new RegExp(s); }\n"
    "    catch (err) { matched.textContent = 'Invalid regex'; return; }\n"
    "  }\n"
    "  term = re ? s : null;\n"
    "  for (i = 0; i < F.length; i++) {\n"
    "    f = F[i];\n"
    "    var m = re !== null && re.test(f.name);\n"
    "    f.r.setAttribute('fill', m ? HL : f.fill);\n"
    "    if (m && i >= until) { sum += f.v; until = f.end; }\n"
    "  }\n"
    "  matched.textContent = re ? 'Matched: ' + pct(TOTAL > 0 ? sum / TOTAL : 0) : '';\n"
    "  searchBtn.textContent = re ? 'Reset Search' : 'Search';\n"
    "}\n"
    "function ask() {\n"
    "  var s = window.prompt('Search frames (regular expression)', term || '');\n"
    "  if (s !== null) search(s);\n"
    "}\n"
    "function frameOf(e) {\n"
    "  var g = e.target.closest ? e.target.closest('#frames > g') : null;\n"
    "  return g && g.fi !== undefined ? F[g.fi] : null;\n"
    "}\n"
    "frames.addEventListener('click', function (e) {\n"
    "  var f = frameOf(e);\n"
    "  if (f) zoom(f.g.fi);\n"
    "});\n"
    "frames.addEventListener('mousemove', function (e) {\n"
    "  var f = frameOf(e);\n"
    "  if (!f) { tip.setAttribute('visibility', 'hidden'); return; }\n"
    "  var Z = F[zoomed], i = f.g.fi, inside = zoomed && i >= zoomed && i < Z.end;\n"
    "  var info = f.info + (inside ? ', ' + pct(f.v / (Z.v || 1)) + ' of zoomed frame' : '');\n"
    "  tipName.textContent = f.name; tipInfo.textContent = info;\n"
    "  details.textContent = f.name + ' \\u2014 ' + info;\n"
    "  var w = Math.max(tipName.getComputedTextLength(), tipInfo.getComputedTextLength()) + 10;\n"
    "  var b = svg.getBoundingClientRect();\n"
    "  var x = e.clientX - b.left + 14, y = e.clientY - b.top + 16;\n"
    "  if (x + w > b.width) x = Math.max(0, e.clientX - b.left - w - 8);\n"
    "  if (y + 36 > b.height) y = Math.max(0, e.clientY - b.top - 40);\n"
    "  tipRect.setAttribute('width', w);\n"
    "  tip.setAttribute('transform', 'translate(' + x + ',' + y + ')');\n"
    "  tip.setAttribute('visibility', 'visible');\n"
    "});\n"
    "frames.addEventListener('mouseleave', function () {\n"
    "  tip.setAttribute('visibility', 'hidden'); details.textContent = ' ';\n"
    "});\n"
    "unzoomBtn.addEventListener('click', function () { zoom(0); });\n"
    "searchBtn.addEventListener('click', function () {\n"
    "  if (term !== null) search(''); else ask();\n"
    "});\n"
    "document.addEventListener('keydown', function (e) {\n"
    "  if ((e.key === 'f' || e.key === 'F') && (e.ctrlKey || e.metaKey) || e.key === '/') {\n"
    "    e.preventDefault(); ask();\n"
    "  } else if (e.key === 'Escape') {\n"
    "    zoom(0); search('');\n"
    "  }\n"
    "});\n"
    "window.addEventListener('resize', fit);\n"
    "/* shareable views: #z=FRAME_INDEX&s=REGEX (URI-encoded) */\n"
    "var h = (location.hash || '').slice(1).split('&'), z = 0;\n"
    "for (i = 0; i < h.length; i++) {\n"
    "  var kv = h[i].split('='), val;\n"
    "  try { val = decodeURIComponent(kv.slice(1).join('=')); } catch (err) { continue; }\n"
    "  if (kv[0] === 'z') z = parseInt(val, 10) || 0;\n"
    "  else if (kv[0] === 's' && val) search(val);\n"
    "}\n"
    "zoom(z);\n"
    "svg.setAttribute('data-ready', '1');\n"
    "})();\n";

/* A flame value in the document's unit ("12.500 ms", "1,234 cycles"), with a sign when
 * sign is set ("+2.000 ms", "-1.500 ms"). */
static void fmt_val(const td_flame *fl, const td_flamelayout *l, char *dst, size_t cap,
                    int64_t v, int sign)
{
    char t[64];
    int64_t u = l->unit > 1 ? l->unit : 1;
    td_flame_fmt_value(fl, t, sizeof t, (v < 0 ? -v : v) / u);
    snprintf(dst, cap, "%s%s", sign ? (v < 0 ? "-" : "+") : "", t);
}

/* The relative change after/before - 1 as "+12.5%", "new" without a before. */
static void fmt_rel(char *dst, size_t cap, int64_t after, int64_t before)
{
    if (before <= 0)
        snprintf(dst, cap, "new");
    else
        snprintf(dst, cap, "%+.1f%%", 100.0 * ((double)after / (double)before - 1));
}

/* The second line of a frame's tooltip: its time and share; on a differential flame
 * also the baseline's time, the change and the change of its self time. */
static void frame_info(td_buf *b, const td_flame *fl, const td_flamelayout *l, const td_frame *f)
{
    char now[64], before[64], d[64], rel[32], self[64];
    fmt_val(fl, l, now, sizeof now, f->value, 0);
    double share = l->total > 0 ? (double)f->value / (double)l->total : 1;
    if (!l->diff) {
        char pct[32];
        td_fmt_fixed(pct, sizeof pct, 100 * share, 2);
        td_buf_puts(b, now);
        td_buf_puts(b, ", ");
        td_buf_puts(b, pct);
        td_buf_putc(b, '%');
        return;
    }
    fmt_val(fl, l, before, sizeof before, f->base, 0);
    fmt_val(fl, l, d, sizeof d, f->value - f->base, 1);
    fmt_rel(rel, sizeof rel, f->value, f->base);
    fmt_val(fl, l, self, sizeof self, f->self_delta, 1);
    td_buf_printf(b, "now %s (%.2f%%), before %s, change %s (%s)", now, 100 * share, before, d,
                  rel);
    if (!f->pruned)
        td_buf_printf(b, ", self %s", self);
}

typedef struct svgjob {
    const td_summary *s;
    const td_flame *fl;
    const td_render_opts *o;
    const td_flamelayout *l;
    double minwidth; /* the pruning used (o->minwidth or more, see td_render_svg) */
    int maxdepth;    /* INT_MAX, or the depth below which frames are merged (size limit) */
    size_t *emitted; /* set to the frames written (all, or those before the budget ran out) */
} svgjob;

/* The subtitle's note on pruning (its only part that depends on the pruning). */
static void put_pruning(td_buf *b, double minwidth, int maxdepth, const td_render_opts *o)
{
    if (minwidth > 0) {
        td_buf_puts(b, " \xe2\x80\x94 frames under ");
        put_pct(b, 100 * minwidth);
        td_buf_puts(b, "% merged");
    }
    if (maxdepth < INT_MAX)
        td_buf_printf(b, "%sframes below depth %d merged", minwidth > 0 ? ", " : " \xe2\x80\x94 ",
                      maxdepth);
    if (minwidth > o->minwidth || maxdepth < INT_MAX)
        td_buf_puts(b, " (size limit)");
}

static size_t pruning_bytes(double minwidth, const td_render_opts *o)
{
    td_buf t = {0};
    put_pruning(&t, minwidth, INT_MAX, o);
    size_t n = t.n;
    td_buf_free(&t);
    return n;
}

static void build(td_buf *b, const svgjob *j)
{
    const td_flamelayout *l = j->l;
    const td_render_opts *o = j->o;
    /* a differential flame has a second subtitle line: the colour legend */
    const int top = l->diff ? TOP + 14 : TOP;
    int height = top + (l->maxdepth + 1) * ROW + BOTTOM;
    char tot[64], date[32];
    td_flame_fmt_value(j->fl, tot, sizeof tot, l->total / (l->unit > 1 ? l->unit : 1));
    time_t t = (time_t)o->epoch;
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%Y-%m-%d", &tm);
    else
        snprintf(date, sizeof date, "1970-01-01");
    const char *title = j->fl->title ? j->fl->title : j->fl->kind ? j->fl->kind : "Flamegraph";
    const td_kv *lab = td_sum_get(j->s, "inputs_label");

    td_buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    td_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100%%\" "
                  "height=\"%d\">\n<title>", height);
    put_text(b, title, 0);
    td_buf_puts(b, "</title>\n");
    td_buf_puts(b, style);
    if (l->diff) /* differential frames are often white (unchanged): outlined to show */
        td_buf_puts(b, "<style>#frames.diff rect{stroke:#a8a8a8}</style>\n");
    td_buf_puts(b, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n");
    td_buf_puts(b, "<text id=\"title\" class=\"h1\" x=\"50%\" y=\"24\" text-anchor=\"middle\">");
    put_text(b, title, 0);
    td_buf_puts(b, "</text>\n<text id=\"subtitle\" class=\"sub\" x=\"50%\" y=\"42\" "
                "text-anchor=\"middle\">");
    if (!l->diff && lab && lab->type == TD_T_TEXT && lab->v.s && *lab->v.s) {
        put_text(b, lab->v.s, 0);
        td_buf_puts(b, " \xe2\x80\x94 ");
    }
    if (l->diff) {
        char bt[64], rel[32];
        fmt_val(j->fl, l, bt, sizeof bt, l->base_total, 0);
        fmt_rel(rel, sizeof rel, l->total, l->base_total);
        td_buf_puts(b, "baseline ");
        put_text(b, j->fl->base_label ? j->fl->base_label : "?", 0);
        td_buf_printf(b, ": %s \xe2\x86\x92 now %s (%s)", bt, tot, rel);
        if (l->vanished > 0) {
            fmt_val(j->fl, l, bt, sizeof bt, l->vanished, 0);
            td_buf_printf(b, " \xe2\x80\x94 %s of baseline stacks absent now (not drawn)", bt);
        }
        td_buf_printf(b, " \xe2\x80\x94 %s", date);
    } else
        td_buf_printf(b, "total %s \xe2\x80\x94 %s", tot, date);
    for (size_t i = 0; i < j->s->nkv; i++) /* run metadata (--meta) */
        if (strncmp(j->s->kv[i].key, "meta.", 5) == 0 && j->s->kv[i].v.s) {
            td_buf_puts(b, " \xe2\x80\x94 ");
            put_text(b, j->s->kv[i].title, 0);
            td_buf_puts(b, " ");
            put_text(b, j->s->kv[i].v.s, 0);
        }
    put_pruning(b, j->minwidth, j->maxdepth, o);
    td_buf_puts(b, "</text>\n");
    if (l->diff) {
        char mx[64];
        fmt_val(j->fl, l, mx, sizeof mx, l->maxdelta, 0);
        td_buf_printf(b, "<text id=\"legend\" class=\"sub\" x=\"50%%\" y=\"58\" "
                      "text-anchor=\"middle\">width: time now \xe2\x80\x94 colour: change of "
                      "self time, <tspan fill=\"#e00000\">red grew</tspan>, <tspan "
                      "fill=\"#2020e0\">blue shrank</tspan>, white unchanged (saturated: "
                      "%s)</text>\n", mx);
    }
    td_buf_puts(b, "<text id=\"unzoom\" class=\"btn\" x=\"1%\" y=\"24\" visibility=\"hidden\">"
                "Reset Zoom</text>\n");
    td_buf_puts(b, "<text id=\"search\" class=\"btn\" x=\"99%\" y=\"24\" text-anchor=\"end\">"
                "Search</text>\n");
    td_buf_printf(b, "<text id=\"details\" x=\"1%%\" y=\"%d\"> </text>\n", height - 12);
    td_buf_printf(b, "<text id=\"matched\" x=\"99%%\" y=\"%d\" text-anchor=\"end\"></text>\n",
                  height - 12);

    /* differential frames are often white (unchanged): outlined so they show */
    td_buf_puts(b, l->diff ? "<g id=\"frames\" class=\"diff\">\n" : "<g id=\"frames\">\n");
    char fill[64];
    snprintf(fill, sizeof fill, "%%\" height=\"%d\" fill=\"#", ROW - 1);
    for (size_t i = 0; i < l->n; i++) {
        const td_frame *f = &l->f[i];
        int level = o->icicle ? f->depth : l->maxdepth - f->depth;
        int y = top + level * ROW;
        char num[32];
        td_buf_puts(b, "<g data-v=\"");
        td_buf_put(b, num, td_fmt_int(num, sizeof num, f->value));
        td_buf_puts(b, "\"><title>");
        put_text(b, f->name, 0);
        td_buf_puts(b, "\n");
        frame_info(b, j->fl, l, f);
        td_buf_puts(b, "</title><rect x=\"");
        put_pct(b, 100 * f->x);
        td_buf_puts(b, "%\" y=\"");
        td_buf_put(b, num, td_fmt_int(num, sizeof num, y));
        td_buf_puts(b, "\" width=\"");
        put_pct(b, 100 * f->w);
        td_buf_puts(b, fill); /* "%\" height=\"ROW-1\" fill=\"#" */
        for (int k = 20; k >= 0; k -= 4)
            td_buf_putc(b, "0123456789abcdef"[(f->color >> k) & 15]);
        td_buf_puts(b, "\"/>");
        /* labels for a REF_WIDTH px wide view; the script refits them to the real one */
        double room = f->w * REF_WIDTH - 6;
        size_t chars = room > 0 ? (size_t)floor(room / CHAR_W) : 0;
        size_t ncp = count_cp(f->name);
        if (chars >= 3 && ncp) {
            td_buf_puts(b, "<text x=\"");
            put_pct(b, 100 * f->x + 300.0 / REF_WIDTH);
            td_buf_puts(b, "%\" y=\"");
            td_buf_put(b, num, td_fmt_int(num, sizeof num, y + 11));
            td_buf_puts(b, "\">");
            put_text(b, f->name, ncp > chars ? chars : 0);
            td_buf_puts(b, "</text>");
        }
        td_buf_puts(b, "</g>\n");
        *j->emitted = i + 1;
        if (b->n > SVG_BUDGET)
            return; /* too big: the caller prunes harder and builds again */
    }
    td_buf_puts(b, "</g>\n");
    td_buf_puts(b, "<g id=\"tip\" visibility=\"hidden\" pointer-events=\"none\">"
                "<rect x=\"0\" y=\"0\" width=\"10\" height=\"34\" rx=\"3\"/>"
                "<text id=\"tipname\" x=\"5\" y=\"14\"> </text>"
                "<text id=\"tipinfo\" x=\"5\" y=\"28\"> </text></g>\n");
    td_buf_printf(b, "<script><![CDATA[\n(function () {\n'use strict';\n"
                  "var TOP = %d, ROW = %d, MAXDEPTH = %d, ICICLE = %d, TOTAL = %lld;\n",
                  top, ROW, l->maxdepth, o->icicle ? 1 : 0, (long long)l->total);
    td_buf_puts(b, script);
    td_buf_puts(b, "]]></script>\n</svg>\n");
}

/* What a build's layout was: its frames, deepest frame, total, and smallest frame
 * (depth > 0, not a grey one). */
typedef struct shape {
    size_t n, emitted, real; /* frames, those written, those neither root nor grey */
    int deepest;
    double total, min;
    /* a build that did not fit: the frames at each depth or less, and the frames at each
     * depth that have children (deepest + 1 each; the caller frees them) */
    size_t *upto, *kids;
} shape;

/* Into *out, the layout of fl at pruning mw with frames deeper than maxdepth merged,
 * built: 1 when it fits the budget (*st: the layout's status). */
static int build_fits(const td_summary *s, const td_flame *fl, const td_render_opts *o,
                      double mw, int maxdepth, td_buf *out, shape *sh, td_err *e, td_status *st)
{
    td_flamelayout l;
    if ((*st = td_flame_layout_depth(fl, mw, maxdepth, &l, e)) != TD_OK)
        return 0;
    size_t emitted = 0;
    svgjob j = {s, fl, o, &l, mw, maxdepth, &emitted};
    out->n = 0;
    build(out, &j);
    *sh = (shape){l.n, emitted, 0, l.maxdepth, (double)l.total, (double)INT64_MAX, NULL, NULL};
    for (size_t i = 0; i < l.n; i++)
        if (l.f[i].depth > 0 && !l.f[i].pruned) {
            sh->real++;
            if ((double)l.f[i].value < sh->min)
                sh->min = (double)l.f[i].value;
        }
    if (out->n > SVG_BUDGET && maxdepth == INT_MAX && l.maxdepth >= 0) {
        sh->upto = td_xcalloc((size_t)l.maxdepth + 1, sizeof *sh->upto);
        sh->kids = td_xcalloc((size_t)l.maxdepth + 1, sizeof *sh->kids);
        for (size_t i = 0; i < l.n; i++) {
            sh->upto[l.f[i].depth]++;
            if (i > 0 && l.f[i].parent == (int)i - 1) /* a first child (pre-order) */
                sh->kids[l.f[i - 1].depth]++;
        }
        for (int d = 1; d <= l.maxdepth; d++)
            sh->upto[d] += sh->upto[d - 1];
    }
    td_flame_layout_free(&l);
    return out->n <= SVG_BUDGET;
}

/* A pruning by width that would leave nothing but grey frames (a profile whose call
 * paths are all about one width: the step past that width merges them all): the frames
 * of the last pruning that was too big (mw, whose build wrote was->emitted frames in
 * over bytes), those deeper than a depth merged instead: 1 when some depth fits (then b
 * holds it; else b is left as it was). The depth: the deepest whose frames fit at the
 * bytes a frame of the too-big build took, one less while its build does not fit. */
static int fit_depth(const td_summary *s, const td_flame *fl, const td_render_opts *o,
                     double mw, const shape *was, size_t over, td_buf *b, td_err *e,
                     td_status *st)
{
    if (was->deepest < 2 || !was->emitted || !was->upto)
        return 0;
    /* frames at depth d or less, and the grey frame each frame at d with children adds */
    double per = (double)over / (double)was->emitted;
    int d = 1;
    while (d + 1 < was->deepest &&
           (double)(was->upto[d + 1] + was->kids[d + 1]) * per <= SVG_BUDGET)
        d++;
    shape sh; /* (with a depth limit, build_fits keeps no counts) */
    td_buf t = {0};
    int ok = build_fits(s, fl, o, mw, d, &t, &sh, e, st);
    while (*st == TD_OK && !ok && --d >= 1) /* shallower until it fits */
        ok = build_fits(s, fl, o, mw, d, &t, &sh, e, st);
    ok = ok && *st == TD_OK;
    if (ok) { /* b: this build (else b stays what it was) */
        td_buf x = *b;
        *b = t;
        t = x;
    }
    td_buf_free(&t);
    return ok;
}

td_status td_render_svg(const td_summary *s, const td_flame *fl, const td_render_opts *o,
                        const char *path, td_err *e)
{
    double mw = o->minwidth > 0 ? o->minwidth : 0, last = -1;
    td_buf b = {0};
    td_status st = TD_OK;
    /* The last build that went past the budget: its size where it stopped (over), its
     * pruning note's bytes, its total, frames and deepest frame, and the smallest value
     * among its frames (a larger pruning that cuts none of them lays out the same
     * frames). Such a pruning is not built again when the same bytes with its own note
     * would pass the budget at the same frame: the result is the one building it would
     * give, sooner (a deep profile's frames all of one width: 75 ms of 105). */
    size_t over = 0, over_note = 0;
    shape was = {0}, sh;
    for (;;) {
        if (over && mw < 1 && !(was.min < mw * was.total) &&
            over - over_note + pruning_bytes(mw, o) > SVG_BUDGET) {
            last = mw;
            mw *= 1.5; /* (mw > 0: a build past the budget is followed by a larger one) */
            continue;
        }
        sh = (shape){0};
        int fits = build_fits(s, fl, o, mw, INT_MAX, &b, &sh, e, &st);
        /* this width draws nothing but grey frames after one that drew some but was too
         * big: merge that one's deepest frames instead, if some depth fits */
        int deep = st == TD_OK && over && !sh.real && was.real && last >= 0 &&
                   fit_depth(s, fl, o, last, &was, over, &b, e, &st);
        if (!fits && st == TD_OK && !deep) { /* the counts of the last build too big */
            over = b.n;
            over_note = pruning_bytes(mw, o);
            free(was.upto);
            free(was.kids);
            was = sh;
        } else {
            free(sh.upto);
            free(sh.kids);
        }
        if (st != TD_OK || deep)
            break;
        if (fits || sh.n <= 2 || mw >= 1)
            break;
        /* deterministic steps: the same input always lands on the same threshold */
        last = mw;
        mw = mw > 0 ? mw * 1.5 : 1e-5;
    }
    free(was.upto);
    free(was.kids);
    if (st == TD_OK)
        st = td_write_file_atomic(path, b.p, b.n, e);
    td_buf_free(&b);
    return st;
}
