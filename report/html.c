/*
** html.c -- the `html` report: one self-contained page (no network: its
** script and style are inline, and its Content-Security-Policy allows no
** other script and no load at all) with the run's summary, an interactive
** flame graph of the call tree drawn on a <canvas>, and a sortable table of
** the functions.  With frames, a frame-time bar chart whose spike bars open
** that frame's own call tree; in memory mode, a switch that weighs the
** flame graph, the table and the chart by allocated bytes; zones in blue
** (docs/report-html.md).
**
** The profile goes into the page once, as JSON in a
** <script type="application/json"> block: names and sources in two string
** arrays, every function as 9 numbers and every call-tree node as 5, so a
** profile of 100,000 nodes stays a few MB.  The page builds its figures from
** that data and inserts names only through textContent, title and fillText.
**
** Safety of the data block: it is JSON in which '<', '>' and '&' are
** written \u003c, \u003e, \u0026 (so no name can close the block or open a
** comment), control characters and U+2028/U+2029 as \uXXXX, and bytes that
** are not UTF-8 as \u00XX (li_json_string, shared with the json and chrome
** formats): the page is valid UTF-8 whatever the names hold.
** The page's own script is allowed by its SHA-256 in the policy, so even a
** markup mistake could not run an injected script or inline handler.
**
** Self-test: opened as page.html#selftest, the page records the frames and
** rows it drew, clicks a frame and records the zoom (with frames: clicks a
** spike bar, a plain bar, Whole run; in memory mode: switches to bytes),
** into <pre id=selftest> (tests/report/html_chromium.sh reads it from a
** headless browser).
**
** Heap snapshots (docs/heap.md): when the run wrote any (p->heap_files),
** the page has a heap view.  Its figures are luaheap's (heap/heap.h): the
** summary of each snapshot (types, biggest retainers with their paths)
** and, with two or more, the diff of the first and the last, each as the
** JSON lh_write_summary_json and lh_write_diff_json write, embedded in the
** data block; the page only draws them.  A snapshot that cannot be read
** is an {"error"} in its place, shown as such.
*/
#define _XOPEN_SOURCE 700          /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "report.h"
#include "writers.h"

/* ---- the page ----------------------------------------------------------- */

/* inside <style> */
static const char page_style[] =
  ":root { --fg: #1f1a17; --muted: #6d645d; --line: #e3ddd6; --head: #f6f1ea; }\n"
  "* { box-sizing: border-box; }\n"
  "body { margin: 0; color: var(--fg); background: #fff;\n"
  "  font: 13px/1.45 system-ui, \"Segoe UI\", \"DejaVu Sans\", sans-serif; }\n"
  "header { display: flex; align-items: baseline; gap: 16px; padding: 9px 16px;\n"
  "  background: #2b1d12; color: #fbe9d7; }\n"
  "header h1 { margin: 0; font-size: 16px; font-weight: 600; }\n"
  "header span { color: #e3c2a0; }\n"
  "main { padding: 4px 16px 24px; }\n"
  "h2 { margin: 14px 0 6px; font-size: 14px; }\n"
  "#sum { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr));\n"
  "  gap: 0 18px; margin: 0; }\n"
  "#sum div { display: flex; gap: 8px; padding: 2px 0; border-bottom: 1px solid var(--line); }\n"
  "#sum dt { min-width: 150px; color: var(--muted); }\n"
  "#sum dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }\n"
  "#warnings { margin: 8px 0 0; padding-left: 18px; color: #8a3b00;\n"
  "  font: 12px/1.4 \"DejaVu Sans Mono\", monospace; white-space: pre-wrap; }\n"
  ".bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 6px 0; }\n"
  ".bar input { width: 280px; padding: 3px 6px; font: inherit; }\n"
  "button { padding: 2px 10px; font: inherit; cursor: pointer; }\n"
  "#match { color: #86198f; font-weight: 600; }\n"
  "#crumbs { margin: 2px 0 4px; color: var(--muted); white-space: nowrap; overflow: hidden;\n"
  "  text-overflow: ellipsis; }\n"
  "#fgwrap { max-height: 62vh; overflow-y: auto; border: 1px solid var(--line); }\n"
  "#fg { display: block; width: 100%; cursor: pointer; }\n"
  ".hint { margin: 4px 0; color: var(--muted); font-size: 12px; }\n"
  "#tip { position: fixed; z-index: 10; display: none; max-width: 640px; padding: 6px 9px;\n"
  "  pointer-events: none; background: #fffdf8; border: 1px solid #c9bfb4;\n"
  "  box-shadow: 0 2px 10px rgba(0, 0, 0, .18); font-size: 12px; white-space: pre;\n"
  "  overflow: hidden; }\n"
  "#tip div:first-child { font-weight: 600; }\n"
  "table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums; }\n"
  "th, td { padding: 2px 8px; text-align: right; white-space: nowrap;\n"
  "  border-bottom: 1px solid var(--line); }\n"
  "th { position: sticky; top: 0; background: var(--head); cursor: pointer; user-select: none; }\n"
  "th:hover { background: #efe6da; }\n"
  ".t { text-align: left; }\n"
  "td.t { max-width: 460px; overflow: hidden; text-overflow: ellipsis; white-space: pre; }\n"
  "tbody tr:hover { background: #fff3e4; cursor: pointer; }\n"
  "button[aria-pressed=\"true\"] { background: #2b1d12; color: #fbe9d7; border-color: #2b1d12; }\n"
  "button:disabled { cursor: default; }\n"
  "h2 small { font-weight: 400; color: var(--muted); }\n"
  "#frwrap { border: 1px solid var(--line); }\n"
  "#frc { display: block; width: 100%; height: 130px; cursor: pointer; }\n"
  "#frinfo { color: var(--muted); }\n"
  ".zs { padding: 0 4px; background: hsl(200, 62%, 66%); }\n"
  "td.z { color: #0b5f86; }\n"
  "#heapsec h3 { margin: 10px 0 4px; font-size: 13px; }\n"
  ".hgrid { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 5fr); gap: 0 24px; }\n"
  ".hgrid > div { min-width: 0; overflow-x: auto; }\n"
  ".ht tbody tr:hover { cursor: default; }\n"
  ".ht th { cursor: default; position: static; }\n"
  ".ht td.t { max-width: 640px; }\n"
  "#heaperr { margin: 6px 0; padding-left: 18px; color: #a4000f; white-space: pre-wrap; }\n";

/* the rest of <head>, and the page's static markup: the report's title and
** summary, then the parts the live page shows too (page_frames, page_views) */
static const char page_body[] =
  "<title>luainstr profile</title>\n"
  "</head>\n"
  "<body>\n"
  "<header><h1>luainstr profile</h1><span id=\"hdr\"></span></header>\n"
  "<main>\n"
  "<section>\n"
  "<h2>Summary</h2>\n"
  "<dl id=\"sum\"></dl>\n"
  "<ul id=\"warnings\" hidden></ul>\n"
  "</section>\n";

/* the bytes switch and the frame chart */
static const char page_frames[] =
  "<div class=\"bar\" id=\"modesw\" hidden><strong>Weigh by</strong>\n"
  "<button id=\"m-time\" type=\"button\" aria-pressed=\"true\">time</button><button id=\"m-bytes\" type=\"button\" aria-pressed=\"false\">allocated bytes</button>\n"
  "<span class=\"hint\">the flame graph, the table and the frame chart</span></div>\n"
  "<section id=\"frsec\" hidden>\n"
  "<h2>Frames</h2>\n"
  "<div class=\"bar\">\n"
  "<button id=\"whole\" type=\"button\" disabled>Whole run</button>\n"
  "<span id=\"frinfo\"></span>\n"
  "</div>\n"
  "<div id=\"frwrap\"><canvas id=\"frc\" width=\"0\" height=\"0\"></canvas></div>\n"
  "<p class=\"hint\" id=\"frhint\"></p>\n"
  "</section>\n";

/* the flame graph, the table, the heap view, the self-test's output */
static const char page_views[] =
  "<section>\n"
  "<h2>Flame graph <small id=\"fgwhat\"></small></h2>\n"
  "<div class=\"bar\">\n"
  "<button id=\"reset\" type=\"button\">Reset zoom</button>\n"
  "<input id=\"search\" type=\"search\" placeholder=\"Search function or source (substring)\" autocomplete=\"off\" spellcheck=\"false\">\n"
  "<span id=\"match\"></span>\n"
  "</div>\n"
  "<div id=\"crumbs\"></div>\n"
  "<div id=\"fgwrap\"><canvas id=\"fg\" width=\"0\" height=\"0\"></canvas></div>\n"
  "<p class=\"hint\"><span id=\"fghint\">Width is inclusive time</span>, each row one call depth (callers above callees).\n"
  "Click a frame to zoom into it; click a frame above it, the root or Reset zoom to zoom out.\n"
  "Hover for details. The search also filters the table.<span id=\"zonehint\" hidden> Zones (named spans, &ldquo;zone NAME&rdquo;) are drawn <span class=\"zs\">blue</span>.</span></p>\n"
  "</section>\n"
  "<section>\n"
  "<h2>Functions <small id=\"tbwhat\"></small></h2>\n"
  "<div class=\"bar\"><span id=\"tcount\"></span></div>\n"
  "<table>\n"
  "<thead><tr id=\"heads\"></tr></thead>\n"
  "<tbody id=\"rows\"></tbody>\n"
  "</table>\n"
  "<div class=\"bar\"><button id=\"more\" type=\"button\" hidden></button><button id=\"all\" type=\"button\" hidden>Show all</button></div>\n"
  "</section>\n"
  "<section id=\"heapsec\" hidden>\n"
  "<h2>Heap <small id=\"heapwhat\"></small></h2>\n"
  "<div class=\"bar\" id=\"heapfiles\"></div>\n"
  "<ul id=\"heaperr\" hidden></ul>\n"
  "<div id=\"heapsnap\">\n"
  "<p id=\"heapinfo\"></p>\n"
  "<div class=\"hgrid\">\n"
  "<div><h3>Types</h3><table class=\"ht\" id=\"htypes\"></table></div>\n"
  "<div><h3>Biggest retainers <small>(what each object keeps alive: itself and all that only it holds)</small></h3>\n"
  "<table class=\"ht\" id=\"hret\"></table></div>\n"
  "</div>\n"
  "</div>\n"
  "<div id=\"heapdiff\" hidden>\n"
  "<h3 id=\"hdtitle\"></h3>\n"
  "<p id=\"hdinfo\"></p>\n"
  "<div class=\"hgrid\">\n"
  "<div><table class=\"ht\" id=\"hdtypes\"></table></div>\n"
  "<div><table class=\"ht\" id=\"hdgroups\"></table></div>\n"
  "</div>\n"
  "<p class=\"hint\" id=\"hdnote\"></p>\n"
  "</div>\n"
  "<p class=\"hint\">Figures from luaheap (docs/heap.md): sizes in bytes as Lua allocated them; a path is the shortest from a root, written like Lua.</p>\n"
  "</section>\n"
  "<noscript><p>This report draws its flame graph and table with JavaScript.</p></noscript>\n"
  "<pre id=\"selftest\" hidden></pre>\n"
  "</main>\n"
  "<div id=\"tip\"></div>\n";

/* The page's script, in parts: script_core (the application: figures, call
** trees, the flame graph, the table, the frame chart, the heap view, the
** self-test), then script_report (the report draws its profile) or
** script_live (live mode).  The SHA-256 of the parts joined goes into the
** Content-Security-Policy. */
static const char script_core[] =
  "(function () {\n"
  "'use strict';\n"
  "/* The data: D.funcs holds FW numbers per function, D.nodes NW per call-tree\n"
  "** node (node 0 the root, parents first; parent stored as a backward\n"
  "** distance); in memory mode D.fmem FMW and D.nmem NMW more; with frames\n"
  "** D.frames FRW per frame and D.spikes one call tree per kept spike frame,\n"
  "** in the nodes' format.  Every name reaches the page through textContent,\n"
  "** title or fillText only, never as markup. */\n"
  "/* ORDER FW, ORDER NW, ORDER FMW, ORDER NMW, ORDER FRW: the number of fields\n"
  "** html.c writes per function, node, function and node memory, frame */\n"
  "var D = JSON.parse(document.getElementById('li-data').textContent);\n"
  "var S = D.summary, NAMES = D.names, SRCS = D.sources, FA = D.funcs;\n"
  "var FW = 9, NW = 5, FMW = 8, NMW = 6, FRW = 7, PAGE = 500, ROW = 18, MINW = 0.5, MAXPX = 30000;\n"
  "var NF = NAMES.length, FM = D.fmem || null, MEM = FM !== null;\n"
  "var FRA = D.frames || [], SPK = D.spikes || [], NFR = Math.floor(FRA.length / FRW);\n"
  "var FR = S.framing || null;\n"
  "function $(id) { return document.getElementById(id); }\n"
  "\n"
  "/* ---- text ---- */\n"
  "function disp(s) {\n"
  "  return String(s).replace(/[\\u0000-\\u001f\\u007f]/g, function (c) {\n"
  "    if (c === '\\n') return '\\\\n';\n"
  "    if (c === '\\r') return '\\\\r';\n"
  "    if (c === '\\t') return '\\\\t';\n"
  "    var h = c.charCodeAt(0).toString(16).toUpperCase();\n"
  "    return '\\\\x' + (h.length < 2 ? '0' + h : h);\n"
  "  });\n"
  "}\n"
  "/* the text report's figures (li_fmt_units in report.c, step for step on\n"
  "** integers, exact below 2^53): three significant digits, rounded half up;\n"
  "** ORDER: report.c li_fmt_units */\n"
  "function fmtUnits(v, units, step) {\n"
  "  var u = 0, d = 1, w, rem, r;\n"
  "  v = Math.round(v);\n"
  "  while (u + 1 < units.length && Math.floor(v / d) >= step) { d *= step; u++; }\n"
  "  for (;;) {\n"
  "    if (u === 0) return v + ' ' + units[0];\n"
  "    w = Math.floor(v / d);\n"
  "    rem = v - w * d;\n"
  "    if (w < 10 && (r = w * 100 + Math.floor((rem * 100 + d / 2) / d)) < 1000)\n"
  "      return Math.floor(r / 100) + '.' + (r % 100 < 10 ? '0' : '') + r % 100 + ' ' + units[u];\n"
  "    if (w < 100 && (r = w * 10 + Math.floor((rem * 10 + d / 2) / d)) < 1000)\n"
  "      return Math.floor(r / 10) + '.' + r % 10 + ' ' + units[u];\n"
  "    r = w + (rem * 2 >= d ? 1 : 0);\n"
  "    if (r < step || u + 1 === units.length) return r + ' ' + units[u];\n"
  "    d *= step;\n"
  "    u++;\n"
  "  }\n"
  "}\n"
  "function fmtNs(v) { return fmtUnits(v, ['ns', 'us', 'ms', 's'], 1000); }\n"
  "function fmtBytes(v) { return fmtUnits(v, ['B', 'KiB', 'MiB', 'GiB', 'TiB'], 1024); }\n"
  "function pct(x, base) { return base > 0 ? (100 * x / base).toFixed(1) + '%' : '-'; }\n"
  "function hash(s) {\n"
  "  var h = 2166136261;\n"
  "  for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }\n"
  "  return h >>> 0;\n"
  "}\n"
  "\n"
  "/* ---- functions ---- */\n"
  "var fname = new Array(NF), fwhere = new Array(NF), fcolor = new Array(NF);\n"
  "var fsearch = new Array(NF), fmatch = new Uint8Array(NF), fzone = new Uint8Array(NF);\n"
  "var fcounted = new Uint8Array(NF);  /* counted, not timed (--count-small) */\n"
  "var i, j, f;\n"
  "(D.zones || []).forEach(function (z) { if (z >= 0 && z < NF) fzone[z] = 1; });\n"
  "(D.counted || []).forEach(function (z) { if (z >= 0 && z < NF) fcounted[z] = 1; });\n"
  "/* warm colours: the hue says the source file, shade the function; zones\n"
  "** (named spans, not functions) are blue */\n"
  "var srcHue = SRCS.map(function (s) { return hash(s) % 40; });\n"
  "/* function f's name, place, search key and colour */\n"
  "function describe(f) {\n"
  "  var line = FA[f * FW + 1], h2 = hash(NAMES[f]);\n"
  "  fname[f] = disp(NAMES[f]);\n"
  "  fwhere[f] = fzone[f] ? 'zone' : disp(SRCS[FA[f * FW]]) + ':' + (line === 0 ? 'main' : line);\n"
  "  fsearch[f] = (fname[f] + '\\n' + fwhere[f]).toLowerCase();\n"
  "  fcolor[f] = fzone[f] ? 'hsl(' + (188 + h2 % 30) + ',' + (55 + (h2 >>> 4) % 20) + '%,' +\n"
  "    (60 + (h2 >>> 9) % 14) + '%)' :\n"
  "    'hsl(' + (srcHue[FA[f * FW]] + h2 % 14) + ',' + (70 + (h2 >>> 4) % 22) +\n"
  "    '%,' + (55 + (h2 >>> 9) % 16) + '%)';\n"
  "}\n"
  "for (f = 0; f < NF; f++) describe(f);\n"
  "function fcol(f, k) { return FA[f * FW + k]; }\n"
  "\n"
  "/* ---- call trees: the whole run's, and each kept spike frame's ---- */\n"
  "/* A tree from NW numbers per node, errors as node, count pairs and, in\n"
  "** memory mode, NMW memory numbers per node; rootNs: the least the root\n"
  "** weighs in time (a spike frame's duration). */\n"
  "function Tree(NA, errs, NM, rootNs, rootLabel) {\n"
  "  var NN = Math.max(1, Math.floor(NA.length / NW)), t = this, k;\n"
  "  t.n = NN; t.rootNs = rootNs; t.rootLabel = rootLabel;\n"
  "  t.func = new Int32Array(NN); t.par = new Int32Array(NN);\n"
  "  t.calls = new Float64Array(NN); t.total = new Float64Array(NN); t.self = new Float64Array(NN);\n"
  "  t.err = new Float64Array(NN); t.depth = new Int32Array(NN); t.wgt = new Float64Array(NN);\n"
  "  t.nm = new Float64Array(NN * NMW);\n"
  "  t.func[0] = -1;\n"
  "  for (k = 0; k < NN && NA.length >= NW; k++) {\n"
  "    var b = k * NW, fi = NA[b], p = k - NA[b + 1];\n"
  "    if (k > 0) {\n"
  "      t.func[k] = fi >= 0 && fi < NF ? fi : -1;\n"
  "      t.par[k] = p >= 0 && p < k ? p : 0;\n"
  "    }\n"
  "    t.calls[k] = NA[b + 2]; t.total[k] = NA[b + 3]; t.self[k] = NA[b + 4];\n"
  "  }\n"
  "  for (k = 0; errs && k + 1 < errs.length; k += 2)\n"
  "    if (errs[k] < NN) t.err[errs[k]] = errs[k + 1];\n"
  "  for (k = 0; NM && k < NM.length && k < NN * NMW; k++) t.nm[k] = NM[k];\n"
  "  t.maxDepth = 0;\n"
  "  for (k = 1; k < NN; k++) {\n"
  "    t.depth[k] = t.depth[t.par[k]] + 1;\n"
  "    if (t.depth[k] > t.maxDepth) t.maxDepth = t.depth[k];\n"
  "  }\n"
  "  t.cstart = new Int32Array(NN + 1); t.kids = new Int32Array(Math.max(1, NN - 1));\n"
  "  for (k = 1; k < NN; k++) t.cstart[t.par[k] + 1]++;\n"
  "  for (k = 0; k < NN; k++) t.cstart[k + 1] += t.cstart[k];\n"
  "  var fill = t.cstart.slice(0, NN);\n"
  "  for (k = 1; k < NN; k++) t.kids[fill[t.par[k]]++] = k;\n"
  "  t.mode = '';\n"
  "}\n"
  "/* node memory fields, ORDER NMW */\n"
  "var AB = 0, AC = 1, ABT = 2, ACT = 3, FREED = 4, LIVE = 5;\n"
  "function nmem(t, n, k) { return t.nm[n * NMW + k]; }\n"
  "/* weights for a mode: a frame is at least as wide as its children, even if\n"
  "** the figures disagree; children heaviest first */\n"
  "function weigh(t, m) {\n"
  "  if (t.mode === m) return;\n"
  "  var NN = t.n, sumc = new Float64Array(NN), wgt = t.wgt, k;\n"
  "  for (k = NN - 1; k >= 0; k--) {\n"
  "    var own = m === 'bytes' ? nmem(t, k, ABT) : t.total[k];\n"
  "    if (k === 0 && m !== 'bytes') own = Math.max(own, t.rootNs);\n"
  "    wgt[k] = Math.max(own, sumc[k]);\n"
  "    if (k > 0) sumc[t.par[k]] += wgt[k];\n"
  "  }\n"
  "  var heavier = function (a, c) { return wgt[c] - wgt[a] || a - c; };\n"
  "  for (k = 0; k < NN; k++) {\n"
  "    var a0 = t.cstart[k], a1 = t.cstart[k + 1];\n"
  "    if (a1 - a0 > 1) {\n"
  "      var sub = Array.prototype.slice.call(t.kids, a0, a1).sort(heavier);\n"
  "      for (var q = 0; q < sub.length; q++) t.kids[a0 + q] = sub[q];\n"
  "    }\n"
  "  }\n"
  "  t.mode = m;\n"
  "}\n"
  "\n"
  "/* ---- per-function figures of a view ---- */\n"
  "/* ORDER FMW: alloc_bytes, alloc_count, alloc_bytes_total, alloc_count_total,\n"
  "** free_bytes, live_bytes, peak_live_bytes, max_alloc_bytes */\n"
  "var STATS = ['calls', 'errors', 'total', 'self', 'min', 'max', 'ab', 'ac', 'abt', 'act', 'fr', 'live', 'peak', 'maxa'];\n"
  "function newStats() {\n"
  "  var s = { full: true };\n"
  "  STATS.forEach(function (k) { s[k] = new Float64Array(NF); });\n"
  "  return s;\n"
  "}\n"
  "function wholeStats() {\n"
  "  var s = newStats();\n"
  "  for (var g = 0; g < NF; g++) {\n"
  "    s.calls[g] = fcol(g, 3); s.errors[g] = fcol(g, 4); s.total[g] = fcol(g, 5);\n"
  "    s.self[g] = fcol(g, 6); s.min[g] = fcol(g, 7); s.max[g] = fcol(g, 8);\n"
  "    for (var k = 0; MEM && k < FMW; k++) s[STATS[6 + k]][g] = FM[g * FMW + k] || 0;\n"
  "  }\n"
  "  return s;\n"
  "}\n"
  "/* a spike frame's, summed from its tree: inclusive figures once per\n"
  "** outermost activation (a recursive function's inner nodes are inside its\n"
  "** outer one); no minimum, maximum, peak or largest allocation */\n"
  "function treeStats(t) {\n"
  "  var s = newStats(), k;\n"
  "  s.full = false;\n"
  "  for (k = 1; k < t.n; k++) {\n"
  "    var g = t.func[k], outer = true;\n"
  "    if (g < 0) continue;\n"
  "    for (var a = t.par[k]; a !== 0 && outer; a = t.par[a]) if (t.func[a] === g) outer = false;\n"
  "    s.calls[g] += t.calls[k]; s.errors[g] += t.err[k]; s.self[g] += t.self[k];\n"
  "    s.ab[g] += nmem(t, k, AB); s.ac[g] += nmem(t, k, AC);\n"
  "    s.fr[g] += nmem(t, k, FREED); s.live[g] += nmem(t, k, LIVE);\n"
  "    if (outer) {\n"
  "      s.total[g] += t.total[k]; s.abt[g] += nmem(t, k, ABT); s.act[g] += nmem(t, k, ACT);\n"
  "    }\n"
  "  }\n"
  "  return s;\n"
  "}\n"
  "\n"
  "/* ---- views ---- */\n"
  "var whole = new Tree(D.nodes, D.node_errors, D.nmem, 0, 'all');\n"
  "var spikeTrees = [], spikeStats = [];\n"
  "var T = whole, ST = wholeStats(), WST = ST, spikeSel = -1, mode = 'time';\n"
  "function spikeTree(k) {\n"
  "  if (!spikeTrees[k]) {\n"
  "    var sp = SPK[k];\n"
  "    spikeTrees[k] = new Tree(sp.nodes || [], sp.node_errors, sp.nmem, sp.duration_ns,\n"
  "      'frame ' + sp.frame);\n"
  "    spikeStats[k] = treeStats(spikeTrees[k]);\n"
  "  }\n"
  "  return spikeTrees[k];\n"
  "}\n"
  "function fmtW(v) { return mode === 'bytes' ? fmtBytes(v) : fmtNs(v); }\n"
  "function label(n) { return n === 0 ? T.rootLabel : T.func[n] < 0 ? '?' : fname[T.func[n]]; }\n"
  "\n"
  "/* ---- flame graph ---- */\n"
  "var canvas = $('fg'), ctx = canvas.getContext('2d'), wrap = $('fgwrap'), tip = $('tip');\n"
  "var zoom = 0, term = '', W = 0;\n"
  "var RX = [], RW = [], RD = [], RN = [];   /* the frames drawn: x, width, depth, node */\n"
  "\n"
  "function layout() {\n"
  "  RX = []; RW = []; RD = []; RN = [];\n"
  "  W = wrap.clientWidth || 1200;\n"
  "  var dpr = window.devicePixelRatio || 1, maxRow = Math.floor(MAXPX / (ROW * dpr)) - 1;\n"
  "  var chain = [], wgt = T.wgt;\n"
  "  for (var a = zoom; a !== 0; a = T.par[a]) chain.push(a);\n"
  "  chain.push(0);\n"
  "  chain.reverse();\n"
  "  for (var k = 0; k + 1 < chain.length; k++) {\n"
  "    RX.push(0); RW.push(W); RD.push(T.depth[chain[k]]); RN.push(chain[k]);\n"
  "  }\n"
  "  var scale = wgt[zoom] > 0 ? W / wgt[zoom] : 0, stack = [zoom], xs = [0];\n"
  "  while (stack.length > 0) {\n"
  "    var v = stack.pop(), x = xs.pop(), w = v === zoom ? W : wgt[v] * scale;\n"
  "    if (T.depth[v] > maxRow) continue;\n"
  "    RX.push(x); RW.push(w); RD.push(T.depth[v]); RN.push(v);\n"
  "    var cx = x;\n"
  "    for (var c = T.cstart[v]; c < T.cstart[v + 1]; c++) {\n"
  "      var cw = wgt[T.kids[c]] * scale;\n"
  "      if (cw < MINW) break;                 /* the rest are narrower still */\n"
  "      stack.push(T.kids[c]); xs.push(cx);\n"
  "      cx += cw;\n"
  "    }\n"
  "  }\n"
  "}\n"
  "\n"
  "function draw() {\n"
  "  var t0 = performance.now();\n"
  "  weigh(T, mode);\n"
  "  layout();\n"
  "  var dpr = window.devicePixelRatio || 1, rows = 1;\n"
  "  for (var r = 0; r < RD.length; r++) if (RD[r] + 1 > rows) rows = RD[r] + 1;\n"
  "  canvas.style.height = rows * ROW + 'px';\n"
  "  canvas.width = Math.round(W * dpr);\n"
  "  canvas.height = Math.round(rows * ROW * dpr);\n"
  "  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
  "  ctx.font = '12px system-ui, \"DejaVu Sans\", sans-serif';\n"
  "  ctx.textBaseline = 'middle';\n"
  "  var cw = ctx.measureText('abcdefghijklmnopqrstuvwxyz').width / 26 || 6.5;\n"
  "  for (var k = 0; k < RN.length; k++) {\n"
  "    var n = RN[k], x = RX[k], w = RW[k], y = RD[k] * ROW, f = T.func[n];\n"
  "    var matched = term !== '' && f >= 0 && fmatch[f];\n"
  "    ctx.fillStyle = matched ? '#d946ef' : n === 0 ? '#cfc6bb' :\n"
  "      T.depth[n] < T.depth[zoom] ? '#e6ded4' : f < 0 ? '#bbb' : fcolor[f];\n"
  "    ctx.fillRect(x, y, w > 2 ? w - 1 : w, ROW - 1);\n"
  "    if (w < 28) continue;\n"
  "    var text = label(n), room = Math.floor((w - 6) / cw);\n"
  "    if (room < 3) continue;\n"
  "    if (text.length > room) text = text.slice(0, room - 1) + '\\u2026';\n"
  "    ctx.fillStyle = '#1b1410';\n"
  "    ctx.fillText(text, x + 3, y + ROW / 2);\n"
  "  }\n"
  "  var path = [], wgt = T.wgt;\n"
  "  for (var a = zoom; a !== 0; a = T.par[a]) path.push(label(a));\n"
  "  path.push(T.rootLabel);\n"
  "  $('crumbs').textContent = 'view: ' + path.reverse().join(' \\u203a ') +\n"
  "    ' (' + fmtW(wgt[zoom]) + ', ' + pct(wgt[zoom], wgt[0]) + ' of ' +\n"
  "    (T === whole ? 'all' : 'the frame') + ')';\n"
  "  $('fghint').textContent = mode === 'bytes' ?\n"
  "    'Width is bytes allocated, callees included' : 'Width is inclusive time';\n"
  "  updateMatch();\n"
  "  return performance.now() - t0;\n"
  "}\n"
  "\n"
  "function hit(ev) {\n"
  "  var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, d = Math.floor((ev.clientY - r.top) / ROW);\n"
  "  for (var k = RN.length - 1; k >= 0; k--)\n"
  "    if (RD[k] === d && x >= RX[k] && x < RX[k] + RW[k]) return RN[k];\n"
  "  return -1;\n"
  "}\n"
  "\n"
  "function setZoom(n) {\n"
  "  zoom = n;\n"
  "  draw();\n"
  "}\n"
  "\n"
  "function showTip(ev, lines) {\n"
  "  tip.textContent = '';\n"
  "  lines.forEach(function (s) { var e = document.createElement('div'); e.textContent = s; tip.appendChild(e); });\n"
  "  tip.style.display = 'block';\n"
  "  var tx = ev.clientX + 14, ty = ev.clientY + 14;\n"
  "  if (tx + tip.offsetWidth > window.innerWidth) tx = Math.max(0, ev.clientX - tip.offsetWidth - 8);\n"
  "  if (ty + tip.offsetHeight > window.innerHeight) ty = Math.max(0, ev.clientY - tip.offsetHeight - 8);\n"
  "  tip.style.left = tx + 'px';\n"
  "  tip.style.top = ty + 'px';\n"
  "}\n"
  "function hideTip() { tip.style.display = 'none'; }\n"
  "\n"
  "canvas.addEventListener('click', function (ev) {\n"
  "  var n = hit(ev);\n"
  "  if (n >= 0) setZoom(n === zoom ? T.par[n] : n);\n"
  "});\n"
  "canvas.addEventListener('mousemove', function (ev) {\n"
  "  var n = hit(ev);\n"
  "  if (n < 0) { hideTip(); return; }\n"
  "  var lines = [], f = T.func[n], wgt = T.wgt, all = T === whole ? ' of all' : ' of the frame';\n"
  "  if (n === 0) {\n"
  "    lines.push(T.rootLabel, 'total   ' + fmtNs(Math.max(T.total[0], T.rootNs, mode === 'time' ? wgt[0] : 0)));\n"
  "    if (MEM) lines.push('alloc   ' + fmtBytes(mode === 'bytes' ? wgt[0] : nmem(T, 0, ABT)));\n"
  "  } else if (mode === 'bytes') {\n"
  "    var ab = nmem(T, n, ABT);\n"
  "    lines.push(label(n), f >= 0 ? fwhere[f] : '?',\n"
  "      'alloc   ' + fmtBytes(ab) + '   ' + pct(ab, wgt[0]) + all +\n"
  "        (zoom !== 0 ? ', ' + pct(ab, wgt[zoom]) + ' of view' : '') +\n"
  "        '   (' + nmem(T, n, ACT) + ' allocations)',\n"
  "      'self    ' + fmtBytes(nmem(T, n, AB)) + '   ' + pct(nmem(T, n, AB), wgt[0]) + all +\n"
  "        '   (' + nmem(T, n, AC) + ')',\n"
  "      'freed   ' + fmtBytes(nmem(T, n, FREED)) + '   live ' + fmtBytes(nmem(T, n, LIVE)),\n"
  "      'time    ' + fmtNs(T.total[n]) + '   calls ' + T.calls[n]);\n"
  "  } else {\n"
  "    var t = T.total[n];\n"
  "    lines.push(label(n), f >= 0 ? fwhere[f] : '?',\n"
  "      'total   ' + fmtNs(t) + '   ' + pct(t, wgt[0]) + all +\n"
  "        (zoom !== 0 ? ', ' + pct(t, wgt[zoom]) + ' of view' : ''),\n"
  "      'self    ' + fmtNs(T.self[n]) + '   ' + pct(T.self[n], wgt[0]) + all,\n"
  "      'calls   ' + T.calls[n] + (T.err[n] > 0 ? '   errors ' + T.err[n] : ''));\n"
  "    if (MEM) lines.push('alloc   ' + fmtBytes(nmem(T, n, ABT)) + '   self ' + fmtBytes(nmem(T, n, AB)));\n"
  "  }\n"
  "  showTip(ev, lines);\n"
  "});\n"
  "canvas.addEventListener('mouseleave', hideTip);\n"
  "$('reset').addEventListener('click', function () { setZoom(0); });\n"
  "window.addEventListener('resize', function () { draw(); drawFrames(); });\n"
  "\n"
  "/* ---- search ---- */\n"
  "var search = $('search'), matchEl = $('match');\n"
  "function onSearch() {\n"
  "  term = search.value.toLowerCase();\n"
  "  for (var f = 0; f < NF; f++) fmatch[f] = term !== '' && fsearch[f].indexOf(term) >= 0 ? 1 : 0;\n"
  "  shown = PAGE;\n"
  "  draw();\n"
  "  renderTable();\n"
  "}\n"
  "/* the matched share of the view: outermost matching frames only, so a\n"
  "** recursive function is not counted twice */\n"
  "function updateMatch() {\n"
  "  if (term === '') { matchEl.textContent = ''; return; }\n"
  "  var stack = [zoom], cov = [0], share = 0, frames = 0;\n"
  "  while (stack.length > 0) {\n"
  "    var v = stack.pop(), c = cov.pop(), m = v !== 0 && T.func[v] >= 0 && fmatch[T.func[v]];\n"
  "    if (m) { frames++; if (!c) share += T.wgt[v]; }\n"
  "    for (var k = T.cstart[v]; k < T.cstart[v + 1]; k++) { stack.push(T.kids[k]); cov.push(c || m ? 1 : 0); }\n"
  "  }\n"
  "  matchEl.textContent = 'matched ' + pct(share, T.wgt[zoom]) + ' of ' + (zoom === 0 ? 'all' : 'view') +\n"
  "    ' (' + fmtW(share) + ') in ' + frames + ' frame' + (frames === 1 ? '' : 's');\n"
  "}\n"
  "search.addEventListener('input', onSearch);\n"
  "\n"
  "/* ---- table ---- */\n"
  "/* columns: key, heading, the figure (a STATS array), its format; full: only\n"
  "** the whole run has it; pct: a share of the view's sum of that figure */\n"
  "function cnt(v) { return String(v); }\n"
  "/* ORDER EW: the whole run's uncertainty of total, self, min, max (ns) */\n"
  "var FE = D.ferr || null, EW = ['total', 'self', 'min', 'max'];\n"
  "function estErr(key, f) {\n"
  "  var k = EW.indexOf(key);\n"
  "  return FE !== null && ST === WST && T === whole && mode === 'time' && k >= 0 ? FE[f * 4 + k] || 0 : 0;\n"
  "}\n"
  "var TIME_COLS = [\n"
  "  ['calls', 'calls', 'calls', cnt], ['total', 'total', 'total', fmtNs],\n"
  "  ['self', 'self', 'self', fmtNs], ['pct', 'self%', 'self', null, 'pct'],\n"
  "  ['min', 'min', 'min', fmtNs, 'full'], ['max', 'max', 'max', fmtNs, 'full'],\n"
  "  ['errors', 'errors', 'errors', cnt]\n"
  "];\n"
  "var BYTE_COLS = [\n"
  "  ['calls', 'calls', 'calls', cnt], ['abt', 'alloc incl', 'abt', fmtBytes],\n"
  "  ['ab', 'alloc', 'ab', fmtBytes], ['abpct', 'alloc%', 'ab', null, 'pct'],\n"
  "  ['ac', 'count', 'ac', cnt], ['fr', 'freed', 'fr', fmtBytes], ['live', 'live', 'live', fmtBytes],\n"
  "  ['peak', 'peak live', 'peak', fmtBytes, 'full'], ['maxa', 'max alloc', 'maxa', fmtBytes, 'full']\n"
  "];\n"
  "var rows = [], base = 0, shown = PAGE, sortKey = 'self', sortDesc = true;\n"
  "function cols() { return mode === 'bytes' ? BYTE_COLS : TIME_COLS; }\n"
  "function colOf(key) {\n"
  "  var c = cols();\n"
  "  for (var k = 0; k < c.length; k++) if (c[k][0] === key) return c[k];\n"
  "  return null;\n"
  "}\n"
  "function collectRows() {\n"
  "  var sum = mode === 'bytes' ? ST.ab : ST.self;\n"
  "  rows = []; base = 0;\n"
  "  for (var f = 0; f < NF; f++)\n"
  "    if (ST.calls[f] > 0 || (mode === 'bytes' && ST.abt[f] > 0)) { rows.push(f); base += sum[f]; }\n"
  "  if (base === 0) base = mode === 'bytes' ? 0 : T === whole ? S.wall_ns : T.wgt[0];\n"
  "  if (colOf(sortKey) === null && sortKey !== 'name' && sortKey !== 'src') {\n"
  "    sortKey = mode === 'bytes' ? 'ab' : 'self';\n"
  "    sortDesc = true;\n"
  "  }\n"
  "  rows.sort(compare);\n"
  "}\n"
  "function cmpText(x, y) { return x < y ? -1 : x > y ? 1 : 0; }\n"
  "function compare(a, c) {\n"
  "  var col = colOf(sortKey), r, tie = mode === 'bytes' ? ST.ab : ST.self;\n"
  "  if (col !== null) r = ST[col[2]][a] - ST[col[2]][c];\n"
  "  else if (sortKey === 'name') r = cmpText(fname[a], fname[c]);\n"
  "  else r = cmpText(fwhere[a], fwhere[c]) || fcol(a, 1) - fcol(c, 1);\n"
  "  if (sortDesc) r = -r;\n"
  "  return r || tie[c] - tie[a] || cmpText(fname[a], fname[c]) || a - c;\n"
  "}\n"
  "function cell(tr, text, cls, title) {\n"
  "  var td = document.createElement('td');\n"
  "  td.textContent = text;\n"
  "  if (cls) td.className = cls;\n"
  "  if (title) td.title = title;\n"
  "  tr.appendChild(td);\n"
  "}\n"
  "function renderHead() {\n"
  "  var tr = $('heads'), list = [['name', 'function'], ['src', 'source:line']].concat(cols());\n"
  "  tr.textContent = '';\n"
  "  list.forEach(function (c, k) {\n"
  "    var th = document.createElement('th');\n"
  "    th.setAttribute('data-k', c[0]);\n"
  "    if (k < 2) th.className = 't';\n"
  "    th.textContent = c[1] + (c[0] === sortKey ? (sortDesc ? ' \\u25bc' : ' \\u25b2') : '');\n"
  "    tr.appendChild(th);\n"
  "  });\n"
  "}\n"
  "function renderTable() {\n"
  "  var list = term === '' ? rows : rows.filter(function (f) { return fmatch[f]; });\n"
  "  var tb = $('rows'), frag = document.createDocumentFragment(), n = Math.min(shown, list.length);\n"
  "  var c = cols();\n"
  "  for (var k = 0; k < n; k++) {\n"
  "    var f = list[k], tr = document.createElement('tr');\n"
  "    tr.setAttribute('data-f', f);\n"
  "    cell(tr, fname[f], fzone[f] ? 't z' : 't', fname[f]);\n"
  "    cell(tr, fwhere[f], 't', fwhere[f]);\n"
  "    for (var q = 0; q < c.length; q++) {\n"
  "      var v = ST[c[q][2]][f], e = estErr(c[q][0], f);\n"
  "      if (fcounted[f] && mode === 'time' && c[q][0] !== 'calls' && c[q][0] !== 'errors') {\n"
  "        cell(tr, c[q][0] === 'self' ? 'counted' : '-', 'est',\n"
  "             'counted, not timed (option count_small, luaprof --count-small): its time is in its callers\u2019 self');\n"
  "        continue;\n"
  "      }\n"
  "      if (e > 0 && c[q][4] !== 'pct' && e * 4 > v)\n"
  "        cell(tr, (v <= e ? '<' + fmtNs(v + e) : '~' + fmtNs(v)), 'est',\n"
  "             'an estimate: \u00b1' + fmtNs(e) + ' (the probes\u2019 cost taken out is large against it)');\n"
  "      else cell(tr, c[q][4] === 'pct' ? pct(v, base) : c[q][4] === 'full' && !ST.full ? '-' : c[q][3](v));\n"
  "    }\n"
  "    frag.appendChild(tr);\n"
  "  }\n"
  "  tb.textContent = '';\n"
  "  tb.appendChild(frag);\n"
  "  var left = list.length - n, more = $('more');\n"
  "  more.hidden = $('all').hidden = left <= 0;\n"
  "  more.textContent = 'Show ' + Math.min(PAGE, left) + ' more (' + left + ' not shown)';\n"
  "  $('tcount').textContent = 'showing ' + n + ' of ' + list.length + ' functions' +\n"
  "    (term !== '' ? ' matching the search (' + rows.length + ' called)' : ' called') +\n"
  "    (T === whole ? '' : ' in ' + T.rootLabel + ' (no min, max or peak: one frame\\'s tree)') +\n"
  "    '; click a header to sort, a row to search for it';\n"
  "  renderHead();\n"
  "}\n"
  "function sortBy(key) {\n"
  "  if (key === sortKey) sortDesc = !sortDesc;\n"
  "  else { sortKey = key; sortDesc = key !== 'name' && key !== 'src'; }\n"
  "  rows.sort(compare);\n"
  "  shown = PAGE;\n"
  "  renderTable();\n"
  "}\n"
  "$('heads').addEventListener('click', function (ev) {\n"
  "  var th = ev.target.closest('th');\n"
  "  if (th) sortBy(th.getAttribute('data-k'));\n"
  "});\n"
  "$('more').addEventListener('click', function () { shown += PAGE; renderTable(); });\n"
  "$('all').addEventListener('click', function () { shown = rows.length; renderTable(); });\n"
  "$('rows').addEventListener('click', function (ev) {\n"
  "  var tr = ev.target.closest('tr');\n"
  "  if (!tr) return;\n"
  "  search.value = fname[+tr.getAttribute('data-f')];\n"
  "  onSearch();\n"
  "});\n"
  "\n"
  "/* ---- frame chart: one bar per frame, or per pixel column (the slowest\n"
  "** frame in it, a spike if it holds one) when there are more frames than\n"
  "** pixels, so 36,000 frames stay cheap to draw ---- */\n"
  "var frc = $('frc'), fctx = frc.getContext('2d'), FH = 130, FTOP = 16;\n"
  "var fdur = new Float64Array(NFR), falloc = new Float64Array(NFR), fspike = new Int32Array(NFR);\n"
  "/* fidle: a frame's time in idle spans (the host's wait); the rest is busy,\n"
  "** what the spike rule and its median read */\n"
  "var fidle = new Float64Array(NFR), fbusy = new Float64Array(NFR), anyIdle = false;\n"
  "var median = 0, threshold = 0;\n"
  "var FC = { n: 0, bw: 1, frames: 0, bars: 0, spikeBars: 0, idleBars: 0, spikes: [], top: 0 };\n"
  "var colPick = [], colSpike = [];   /* per bar: the frame drawn, the spike it holds (-1) */\n"
  "for (i = 0; i < NFR; i++) {\n"
  "  fdur[i] = FRA[i * FRW + 2]; falloc[i] = FRA[i * FRW + 4];\n"
  "  fidle[i] = Math.min(FRA[i * FRW + 6], fdur[i]); fbusy[i] = fdur[i] - fidle[i];\n"
  "  if (fidle[i] > 0) anyIdle = true;\n"
  "  j = FRA[i * FRW + 5];\n"
  "  fspike[i] = j >= 1 && j <= SPK.length ? j - 1 : -1;\n"
  "}\n"
  "if (NFR > 0) {\n"
  "  var sorted = Array.prototype.slice.call(fbusy).sort(function (a, c) { return a - c; });\n"
  "  median = sorted[Math.floor(sorted.length / 2)];\n"
  "  threshold = FR ? Math.max(FR.spike_factor * median, FR.spike_min_ns) : 0;\n"
  "}\n"
  "function fval(k) { return mode === 'bytes' ? falloc[k] : fdur[k]; }\n"
  "function overThreshold(k) { return threshold > 0 && fbusy[k] > threshold; }\n"
  "\n"
  "function drawFrames() {\n"
  "  if (NFR === 0) return 0;\n"
  "  var t0 = performance.now(), Wf = $('frwrap').clientWidth || 1200, dpr = window.devicePixelRatio || 1;\n"
  "  var n = Math.min(NFR, Math.max(1, Math.floor(Wf))), bw = Wf / n, k, q, top = 0;\n"
  "  frc.width = Math.round(Wf * dpr);\n"
  "  frc.height = Math.round(FH * dpr);\n"
  "  fctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
  "  fctx.clearRect(0, 0, Wf, FH);\n"
  "  colPick = new Int32Array(n); colSpike = new Int32Array(n);\n"
  "  for (k = 0; k < NFR; k++) if (fval(k) > top) top = fval(k);\n"
  "  if (mode === 'time' && threshold > top * 0.9) top = threshold / 0.9;\n"
  "  if (top <= 0) top = 1;\n"
  "  var scale = (FH - FTOP - 1) / top;\n"
  "  FC = { n: n, bw: bw, frames: 0, bars: 0, spikeBars: 0, idleBars: 0, spikes: [], top: top, w: Wf, scale: scale };\n"
  "  for (q = 0; q < n; q++) {\n"
  "    var a = Math.floor(q * NFR / n), b = Math.max(a + 1, Math.floor((q + 1) * NFR / n));\n"
  "    var pick = a, sp = -1;\n"
  "    for (k = a; k < b; k++) {\n"
  "      if (fval(k) > fval(pick)) pick = k;\n"
  "      if (fspike[k] >= 0 && (sp < 0 || SPK[fspike[k]].duration_ns > SPK[sp].duration_ns)) sp = fspike[k];\n"
  "    }\n"
  "    colPick[q] = pick; colSpike[q] = sp;\n"
  "    FC.frames += b - a;\n"
  "    var x = q * bw, w = bw > 3 ? bw - 1 : Math.max(1, bw), h = Math.max(1, fval(pick) * scale);\n"
  "    if (sp >= 0) {\n"
  "      h = Math.max(h, 4);\n"
  "      fctx.fillStyle = sp === spikeSel ? '#6b0013' : '#d62839';\n"
  "      FC.spikeBars++;\n"
  "      FC.spikes.push(SPK[sp].frame);\n"
  "      fctx.fillRect(x, 0, Math.max(w, 2), 4);      /* a mark above it, even when narrow */\n"
  "    } else fctx.fillStyle = mode === 'time' && overThreshold(pick) ? '#f08c3c' :\n"
  "      mode === 'bytes' ? '#5f9e6e' : '#7f97ab';\n"
  "    /* in time: the busy part in the bar's colour, the idle part above it, pale */\n"
  "    var hi = mode === 'time' && fidle[pick] > 0 ? Math.min(h - 1, fidle[pick] * scale) : 0;\n"
  "    fctx.fillRect(x, FH - h + hi, sp >= 0 ? Math.max(w, 2) : w, h - hi);\n"
  "    if (hi > 0) {\n"
  "      fctx.fillStyle = '#cfd9e2';\n"
  "      fctx.fillRect(x, FH - h, sp >= 0 ? Math.max(w, 2) : w, hi);\n"
  "      FC.idleBars++;\n"
  "    }\n"
  "    FC.bars++;\n"
  "  }\n"
  "  fctx.font = '11px system-ui, \"DejaVu Sans\", sans-serif';\n"
  "  fctx.textBaseline = 'bottom';\n"
  "  var lineAt = function (v, colour, text) {\n"
  "    var y = Math.round(FH - v * scale) + 0.5;\n"
  "    fctx.strokeStyle = colour; fctx.setLineDash([4, 3]);\n"
  "    fctx.beginPath(); fctx.moveTo(0, y); fctx.lineTo(Wf, y); fctx.stroke();\n"
  "    fctx.setLineDash([]);\n"
  "    fctx.fillStyle = colour;\n"
  "    fctx.fillText(text, 6, y - 1);\n"
  "  };\n"
  "  if (mode === 'time') {\n"
  "    lineAt(median, '#39424e', (anyIdle ? 'median busy ' : 'median ') + fmtNs(median));\n"
  "    if (threshold > 0) lineAt(threshold, '#b3122c', 'spike threshold ~' + fmtNs(threshold) +\n"
  "      ' (' + FR.spike_factor + ' x median' + (FR.spike_min_ns > 0 ? ', at least ' + fmtNs(FR.spike_min_ns) : '') + ')');\n"
  "  } else {\n"
  "    var sortedA = Array.prototype.slice.call(falloc).sort(function (a, c) { return a - c; });\n"
  "    lineAt(sortedA[Math.floor(sortedA.length / 2)], '#39424e', 'median ' + fmtBytes(sortedA[Math.floor(sortedA.length / 2)]) + ' allocated');\n"
  "  }\n"
  "  fctx.fillStyle = '#39424e';\n"
  "  fctx.textAlign = 'right';\n"
  "  fctx.fillText((mode === 'bytes' ? fmtBytes(top) : fmtNs(top)) + ' ', Wf, FTOP);\n"
  "  fctx.textAlign = 'left';\n"
  "  $('frhint').textContent = 'One bar per frame (' + NFR + (FR && FR.frames_marked > NFR ?\n"
  "    ', the last ones the ring kept' : '') + (NFR > n ? '; each bar shows the slowest of ' +\n"
  "    (NFR / n).toFixed(1) + ' frames' : '') + '); height is its duration, or its allocated bytes when weighing by bytes. ' +\n"
  "    (anyIdle ? 'Pale top: its idle spans (the host\\'s wait); the spike rule and the median read the busy part below. ' : '') +\n"
  "    'Red: a spike whose call tree was kept (click it for that frame\\'s flame graph and table, ' +\n"
  "    'click elsewhere or Whole run to go back); orange: over the threshold without a tree. ' +\n"
  "    'Other frames keep no call tree: hover for their duration and calls.';\n"
  "  FC.ms = performance.now() - t0;\n"
  "  return FC.ms;\n"
  "}\n"
  "function frameAt(ev) {\n"
  "  var r = frc.getBoundingClientRect(), q = Math.floor((ev.clientX - r.left) / FC.bw);\n"
  "  return q >= 0 && q < FC.n ? q : -1;\n"
  "}\n"
  "/* a click within 3 px of a spike bar means that spike: narrow bars are hard to hit */\n"
  "function spikeNear(q) {\n"
  "  var reach = Math.max(0, Math.ceil(3 / FC.bw));\n"
  "  for (var d = 0; d <= reach; d++) {\n"
  "    if (q - d >= 0 && colSpike[q - d] >= 0) return colSpike[q - d];\n"
  "    if (q + d < FC.n && colSpike[q + d] >= 0) return colSpike[q + d];\n"
  "  }\n"
  "  return -1;\n"
  "}\n"
  "frc.addEventListener('click', function (ev) {\n"
  "  var q = frameAt(ev), sp = q >= 0 ? spikeNear(q) : -1;\n"
  "  if (sp >= 0) showSpike(sp); else showWhole();\n"
  "});\n"
  "frc.addEventListener('mousemove', function (ev) {\n"
  "  var q = frameAt(ev);\n"
  "  if (q < 0) { hideTip(); return; }\n"
  "  var sp = spikeNear(q), k = colPick[q], lines = [];\n"
  "  if (sp >= 0) {\n"
  "    for (var m = 0; m < NFR; m++) if (fspike[m] === sp) k = m;\n"
  "  }\n"
  "  var a = Math.floor(q * NFR / FC.n), b = Math.max(a + 1, Math.floor((q + 1) * NFR / FC.n));\n"
  "  lines.push('frame ' + FRA[k * FRW] + (sp >= 0 ? ' (spike)' : ''));\n"
  "  if (b - a > 1 && sp < 0) lines.push((mode === 'bytes' ? 'the most allocating' : 'the slowest') +\n"
  "    ' of frames ' + FRA[a * FRW] + '-' + FRA[(b - 1) * FRW]);\n"
  "  lines.push('duration  ' + fmtNs(fdur[k]), 'calls     ' + FRA[k * FRW + 3]);\n"
  "  if (anyIdle) lines.push('busy      ' + fmtNs(fbusy[k]), 'idle      ' + fmtNs(fidle[k]));\n"
  "  if (MEM) lines.push('allocated ' + fmtBytes(falloc[k]));\n"
  "  lines.push('starts at ' + fmtNs(FRA[k * FRW + 1]));\n"
  "  if (sp >= 0) lines.push('click to see its own call tree');\n"
  "  else if (overThreshold(k)) lines.push('over the spike threshold, but no call tree kept' +\n"
  "    ' (only the ' + FR.spike_keep + ' slowest spikes keep theirs)');\n"
  "  else lines.push('no call tree kept for this frame (only spike frames keep one)');\n"
  "  showTip(ev, lines);\n"
  "});\n"
  "frc.addEventListener('mouseleave', hideTip);\n"
  "$('whole').addEventListener('click', function () { showWhole(); });\n"
  "\n"
  "function viewChanged() {\n"
  "  zoom = 0;\n"
  "  shown = PAGE;\n"
  "  var sp = spikeSel >= 0 ? SPK[spikeSel] : null;\n"
  "  $('whole').disabled = sp === null;\n"
  "  $('frinfo').textContent = sp === null ? 'showing the whole run; click a red spike bar to see that frame' :\n"
  "    'showing frame ' + sp.frame + ': a spike of ' + fmtNs(sp.duration_ns) + ', its own call tree';\n"
  "  $('fgwhat').textContent = $('tbwhat').textContent = sp === null ? '' : '\\u2014 frame ' + sp.frame + ' only';\n"
  "  collectRows();\n"
  "  draw();\n"
  "  renderTable();\n"
  "  drawFrames();\n"
  "}\n"
  "function showSpike(k) {\n"
  "  T = spikeTree(k); ST = spikeStats[k]; spikeSel = k;\n"
  "  viewChanged();\n"
  "}\n"
  "function showWhole() {\n"
  "  T = whole; ST = WST; spikeSel = -1;\n"
  "  viewChanged();\n"
  "}\n"
  "function setMode(m) {\n"
  "  if (m === mode) return;\n"
  "  mode = m;\n"
  "  $('m-time').setAttribute('aria-pressed', String(m === 'time'));\n"
  "  $('m-bytes').setAttribute('aria-pressed', String(m === 'bytes'));\n"
  "  collectRows();\n"
  "  shown = PAGE;\n"
  "  draw();\n"
  "  renderTable();\n"
  "  drawFrames();\n"
  "}\n"
  "$('m-time').addEventListener('click', function () { setMode('time'); });\n"
  "$('m-bytes').addEventListener('click', function () { setMode('bytes'); });\n"
  "\n"
  "/* ---- heap snapshots: D.heap = {files: [path, ...], summaries: [one a\n"
  "** file: luaheap's summary, or {file, error}], diff: luaheap's diff of the\n"
  "** first and the last file, or {error}, or null} (docs/heap.md, \"luaheap\n"
  "** --json\"); luaheap computed every figure, this only draws them ---- */\n"
  "var H = D.heap || null, heapSel = -1;\n"
  "function baseName(path) { var s = String(path); return s.slice(s.lastIndexOf('/') + 1) || s; }\n"
  "/* a table: heads [label, left-aligned], rows of [text, title] cells */\n"
  "function heapTable(table, heads, rows) {\n"
  "  var thead = document.createElement('thead'), tr = document.createElement('tr');\n"
  "  var tbody = document.createElement('tbody');\n"
  "  heads.forEach(function (h) {\n"
  "    var th = document.createElement('th');\n"
  "    th.textContent = h[0];\n"
  "    if (h[1]) th.className = 't';\n"
  "    tr.appendChild(th);\n"
  "  });\n"
  "  thead.appendChild(tr);\n"
  "  rows.forEach(function (r) {\n"
  "    var row = document.createElement('tr');\n"
  "    r.forEach(function (c, k) { cell(row, c[0], heads[k][1] ? 't' : '', c[1]); });\n"
  "    tbody.appendChild(row);\n"
  "  });\n"
  "  table.textContent = '';\n"
  "  table.appendChild(thead);\n"
  "  table.appendChild(tbody);\n"
  "}\n"
  "function bytesCell(v) { return [fmtBytes(v), v + ' bytes']; }\n"
  "function pathOf(o) {\n"
  "  return o.path === null || o.path === undefined ? '(not reachable through strong references)' : disp(o.path);\n"
  "}\n"
  "function showHeap(k) {\n"
  "  var sm = H.summaries[k];\n"
  "  heapSel = k;\n"
  "  Array.prototype.forEach.call($('heapfiles').children, function (b, q) {\n"
  "    b.setAttribute('aria-pressed', String(q === k));\n"
  "  });\n"
  "  $('heapsnap').hidden = !sm || sm.error !== undefined;\n"
  "  if ($('heapsnap').hidden) return;\n"
  "  var L = sm.lua, un = sm.unreachable || {count: 0, bytes: 0};\n"
  "  $('heapinfo').textContent = 'snapshot ' + (k + 1) + ', ' + disp(sm.file) + ': ' + sm.nodes + ' nodes, ' +\n"
  "    sm.edges + ' references, ' + fmtBytes(sm.bytes) +\n"
  "    (L ? ' (Lua ' + disp(L.version) + ', sizes ' + (L.exact ? 'exact' : 'estimated') +\n"
  "      (L.collected ? ', after a full collection' : '') +\n"
  "      ', collectgarbage(\"count\") ' + fmtBytes(L.gc_count_bytes) + ')' : ' (not written by luainstr)') +\n"
  "    (un.count > 0 ? '; ' + un.count + ' objects (' + fmtBytes(un.bytes) + ') held only weakly or by nothing' : '');\n"
  "  heapTable($('htypes'), [['type', 1], ['count'], ['bytes'], ['bytes%']], sm.types.map(function (t) {\n"
  "    return [[disp(t.type)], [String(t.count)], bytesCell(t.bytes), [pct(t.bytes, sm.bytes)]];\n"
  "  }));\n"
  "  /* in memory mode, where each was allocated */\n"
  "  var sites = sm.retainers.some(function (o) { return o.site; });\n"
  "  var heads = [['retained'], ['self'], ['type', 1], ['path', 1]];\n"
  "  if (sites) heads.push(['allocated in', 1]);\n"
  "  heapTable($('hret'), heads, sm.retainers.map(function (o) {\n"
  "    var r = [bytesCell(o.retained_size), bytesCell(o.self_size), [disp(o.type)],\n"
  "      [pathOf(o), disp(o.name) + ' (id ' + o.id + ')']];\n"
  "    if (sites) r.push([o.site ? disp(o.site) : '']);\n"
  "    return r;\n"
  "  }));\n"
  "}\n"
  "function showHeapDiff() {\n"
  "  var df = H.diff;\n"
  "  $('heapdiff').hidden = !df || df.error !== undefined;\n"
  "  if ($('heapdiff').hidden) return;\n"
  "  var shown = df.shown === 'C' ? df.c : df.b;\n"
  "  $('hdtitle').textContent = 'New objects: snapshot 1 \\u2192 snapshot ' + H.files.length +\n"
  "    ' (' + disp(baseName(df.a)) + ' \\u2192 ' + disp(baseName(shown)) + ')';\n"
  "  $('hdinfo').textContent = df['new'].count + ' objects (' + fmtBytes(df['new'].bytes) + ') in ' +\n"
  "    disp(shown) + ' that ' + disp(df.a) + ' did not have; freed since: ' + df.freed.count +\n"
  "    ' objects (' + fmtBytes(df.freed.bytes) + ')';\n"
  "  heapTable($('hdtypes'), [['type', 1], ['new'], ['bytes']], df.types.map(function (t) {\n"
  "    return [[disp(t.type)], [String(t.count)], bytesCell(t.bytes)];\n"
  "  }));\n"
  "  var heads = [['held by (retaining path)', 1], ['new'], ['bytes'], ['types', 1]];\n"
  "  if (df.memory_mode) heads.push(['allocated in', 1]);\n"
  "  heapTable($('hdgroups'), heads, df.groups.map(function (g) {\n"
  "    var r = [[g.path === null ? '(held only weakly or by nothing)' : disp(g.path),\n"
  "              g.example ? 'for example ' + pathOf(g.example) : ''],\n"
  "      [String(g.count)], bytesCell(g.bytes),\n"
  "      [g.types.map(function (t) { return disp(t.type) + ' ' + t.count; }).join(', ')]];\n"
  "    if (df.memory_mode) r.push([g.sites.map(function (x) { return disp(x.site) + ' ' + x.count; }).join(', ')]);\n"
  "    return r;\n"
  "  }));\n"
  "  $('hdnote').textContent = disp(df.note || '');\n"
  "}\n"
  "function heapView() {\n"
  "  if (!H) return;\n"
  "  var files = H.files || [], errs = [], last = -1;\n"
  "  $('heapsec').hidden = false;\n"
  "  $('heapwhat').textContent = '\\u2014 ' + files.length + (files.length === 1 ? ' snapshot' : ' snapshots');\n"
  "  files.forEach(function (f, k) {\n"
  "    var b = document.createElement('button'), sm = H.summaries[k];\n"
  "    b.type = 'button';\n"
  "    b.textContent = (k + 1) + ': ' + disp(baseName(f));\n"
  "    b.title = disp(f);\n"
  "    b.addEventListener('click', function () { showHeap(k); });\n"
  "    $('heapfiles').appendChild(b);\n"
  "    if (!sm || sm.error !== undefined)\n"
  "      errs.push('snapshot ' + (k + 1) + ' (' + disp(f) + ') cannot be read: ' + disp(sm ? sm.error : 'no summary'));\n"
  "    else last = k;\n"
  "  });\n"
  "  if (H.diff && H.diff.error !== undefined)\n"
  "    errs.push('no diff of snapshots 1 and ' + files.length + ': ' + disp(H.diff.error));\n"
  "  errs.forEach(function (e) { var li = document.createElement('li'); li.textContent = e; $('heaperr').appendChild(li); });\n"
  "  $('heaperr').hidden = errs.length === 0;\n"
  "  $('heapfiles').hidden = files.length < 2;\n"
  "  /* the last snapshot readable: the heap as the run left it */\n"
  "  showHeap(last >= 0 ? last : 0);\n"
  "  showHeapDiff();\n"
  "}\n"
  "\n"
  "/* ---- summary ---- */\n"
  "function summary() {\n"
  "  var items = [\n"
  "    ['wall time', fmtNs(S.wall_ns)],\n"
  "    ['functions', rows.length + ' of ' + NF + ' called'],\n"
  "    ['call-tree nodes', String(whole.n - 1)],\n"
  "    ['probes', String(S.probes)],\n"
  "    ['probe cost subtracted', fmtNs(S.overhead_ns)],\n"
  "    ['probe pair', S.probe_pair_ns.toFixed(1) + ' ns'],\n"
  "    ['clock', disp(S.clock)],\n"
  "    ['calls still open', String(S.open_calls)],\n"
  "    ['trace events', S.tracing ? S.nevents + ' of ' + S.trace_capacity : 'no trace'],\n"
  "    ['dropped trace events', String(S.events_dropped)],\n"
  "    ['warnings', String(D.warnings.length)]\n"
  "  ];\n"
  "  if (S.count_small) items.push(['counted, not timed',\n"
  "    'functions of at most ' + S.count_small + ' tokens with no call or loop: ' +\n"
  "    S.count_probe_ns.toFixed(1) + ' ns a count, taken out of their callers']);\n"
  "  if (FR) items.push(\n"
  "    ['frames', NFR + ' kept of ' + FR.frames_marked + ' marked (ring of ' + FR.frame_capacity + ')'],\n"
  "    [anyIdle ? 'median busy time' : 'median frame', NFR > 0 ? fmtNs(median) : '-'],\n"
  "    ['spikes', FR.spikes_seen + ' over the threshold, ' + SPK.length + ' call trees kept (at most ' + FR.spike_keep + ')'],\n"
  "    ['spike threshold', FR.spike_factor + ' x running median' + (FR.spike_min_ns > 0 ? ', at least ' + fmtNs(FR.spike_min_ns) : '')]);\n"
  "  if (MEM) {\n"
  "    weigh(whole, 'bytes');\n"
  "    items.push(['allocated', fmtBytes(whole.wgt[0])],\n"
  "      ['outside user code', fmtBytes(S.memory.outside[0]) + ' in ' + S.memory.outside[1] + ' allocations'],\n"
  "      ['blocks tracked', S.memory.blocks + ' (map ' + fmtBytes(S.memory.map_bytes) + ')'],\n"
  "      ['untracked frees', String(S.memory.untracked_frees)]);\n"
  "  }\n"
  "  if (typeof D.luainstr === 'string') items.push(['luainstr', disp(D.luainstr)]);\n"
  "  var dl = $('sum');\n"
  "  items.forEach(function (it) {\n"
  "    var d = document.createElement('div'), dt = document.createElement('dt'), dd = document.createElement('dd');\n"
  "    dt.textContent = it[0];\n"
  "    dd.textContent = it[1];\n"
  "    d.appendChild(dt);\n"
  "    d.appendChild(dd);\n"
  "    dl.appendChild(d);\n"
  "  });\n"
  "  var ul = $('warnings');\n"
  "  D.warnings.forEach(function (w) { var li = document.createElement('li'); li.textContent = disp(w); ul.appendChild(li); });\n"
  "  ul.hidden = D.warnings.length === 0;\n"
  "  $('hdr').textContent = fmtNs(S.wall_ns) + ' wall, ' + rows.length + ' functions called, ' +\n"
  "    S.probes + ' probes, clock ' + disp(S.clock) +\n"
  "    (FR ? ', ' + FR.frames_marked + ' frames, ' + FR.spikes_seen + ' spikes' : '') +\n"
  "    (S.open_calls > 0 ? ', ' + S.open_calls + (S.open_calls === 1 ? ' call' : ' calls') + ' still open' : '') +\n"
  "    (S.events_dropped > 0 ? ', ' + S.events_dropped + ' trace events dropped' : '');\n"
  "  $('modesw').hidden = !MEM;\n"
  "  $('frsec').hidden = NFR === 0;\n"
  "  $('zonehint').hidden = D.zones === undefined || D.zones.length === 0;\n"
  "}\n"
  "\n"
  "/* ---- self-test (file.html#selftest): records what was rendered, clicks a\n"
  "** frame and records the zoom, for a headless browser's --dump-dom; with\n"
  "** frames, clicks a spike bar, a plain bar and Whole run; in memory mode\n"
  "** switches to bytes ---- */\n"
  "function unique(list, limit) {\n"
  "  var seen = {}, out = [];\n"
  "  for (var k = 0; k < list.length && out.length < limit; k++)\n"
  "    if (!Object.prototype.hasOwnProperty.call(seen, list[k])) { seen[list[k]] = 1; out.push(list[k]); }\n"
  "  return out;\n"
  "}\n"
  "function rowNames() {\n"
  "  var tds = document.querySelectorAll('#rows tr td:first-child');\n"
  "  return Array.prototype.slice.call(tds, 0, 200).map(function (td) { return td.textContent; }).join('|');\n"
  "}\n"
  "function tipText() {\n"
  "  return Array.prototype.map.call(tip.childNodes, function (e) { return e.textContent; }).join(' / ');\n"
  "}\n"
  "/* the widest frame drawn at depth d (callees of the main chunk: 2) */\n"
  "function widestAt(d) {\n"
  "  var best = -1;\n"
  "  for (var k = 0; k < RN.length; k++) if (RD[k] === d && (best < 0 || RW[k] > RW[best])) best = k;\n"
  "  return best < 0 ? '-' : label(RN[best]) + ' (' + RW[best].toFixed(1) + ' px)';\n"
  "}\n"
  "/* the colour drawn at CSS pixel x, y of a canvas */\n"
  "function pixel(cv, c2, x, y) {\n"
  "  var dpr = window.devicePixelRatio || 1;\n"
  "  var d = c2.getImageData(Math.floor(x * dpr), Math.floor(y * dpr), 1, 1).data;\n"
  "  return [d[0], d[1], d[2]];\n"
  "}\n"
  "/* an event at the middle of bar q of the frame chart, near its bottom */\n"
  "function barAt(q) {\n"
  "  var r = frc.getBoundingClientRect();\n"
  "  return { bubbles: true, clientX: r.left + (q + 0.5) * FC.bw, clientY: r.top + FH - 2 };\n"
  "}\n"
  "function selftestFrames(out) {\n"
  "  var k, q, slow = -1, plain = -1, ok = 0, reds = [];\n"
  "  out.push('fc-frames: ' + FC.frames);\n"
  "  out.push('fc-bars: ' + FC.bars);\n"
  "  out.push('fc-spike-bars: ' + FC.spikeBars);\n"
  "  out.push('fc-idle-bars: ' + FC.idleBars);\n"
  "  out.push('fc-spikes: ' + FC.spikes.join('|'));\n"
  "  out.push('fc-top-time: ' + FC.top);\n"
  "  out.push('fc-ms: ' + FC.ms.toFixed(0));\n"
  "  /* spike bars are drawn red, plain ones not */\n"
  "  for (q = 0; q < FC.n; q++) {\n"
  "    if (colSpike[q] >= 0) {\n"
  "      var px = pixel(frc, fctx, (q + 0.5) * FC.bw, FH - 2);\n"
  "      reds.push(px.join(','));\n"
  "      if (px[0] > 150 && px[1] < 90 && px[2] < 110) ok++;\n"
  "    }\n"
  "  }\n"
  "  out.push('fc-spike-pixels: ' + ok + ' of ' + FC.spikeBars + ' red (' + reds.join(' ') + ')');\n"
  "  for (q = 0; q < FC.n; q++) {\n"
  "    if (colSpike[q] >= 0 && (slow < 0 || SPK[colSpike[q]].duration_ns > SPK[colSpike[slow]].duration_ns)) slow = q;\n"
  "    if (plain < 0 && q > FC.n / 3 && spikeNear(q) < 0 && !overThreshold(colPick[q])) plain = q;\n"
  "  }\n"
  "  var ppx = plain >= 0 ? pixel(frc, fctx, (plain + 0.5) * FC.bw, FH - 2) : [0, 0, 0];\n"
  "  out.push('fc-plain-pixel: ' + ppx.join(','));\n"
  "  /* the idle part of a plain bar: its top, pale */\n"
  "  if (plain >= 0 && fidle[colPick[plain]] * FC.scale >= 3)\n"
  "    out.push('fc-idle-pixel: ' + pixel(frc, fctx, (plain + 0.5) * FC.bw,\n"
  "      FH - fdur[colPick[plain]] * FC.scale + 1.5).join(','));\n"
  "  if (plain >= 0) {\n"
  "    frc.dispatchEvent(new MouseEvent('mousemove', barAt(plain)));\n"
  "    out.push('fc-tooltip: ' + tipText());\n"
  "    hideTip();\n"
  "  }\n"
  "  if (slow < 0) return;\n"
  "  frc.dispatchEvent(new MouseEvent('mousemove', barAt(slow)));\n"
  "  out.push('fc-spike-tooltip: ' + tipText());\n"
  "  hideTip();\n"
  "  frc.dispatchEvent(new MouseEvent('click', barAt(slow)));\n"
  "  out.push('spike-view: ' + (T === whole ? 'whole' : T.rootLabel));\n"
  "  out.push('spike-info: ' + $('frinfo').textContent);\n"
  "  out.push('spike-duration-ns: ' + (spikeSel >= 0 ? SPK[spikeSel].duration_ns : '-'));\n"
  "  out.push('spike-root-ns: ' + T.wgt[0]);\n"
  "  out.push('spike-root-width: ' + (RN[0] === 0 ? RW[0].toFixed(1) : '-') + ' of ' + W);\n"
  "  out.push('spike-frame-names: ' + unique(RN.map(label), 200).join('|'));\n"
  "  out.push('spike-row-names: ' + rowNames());\n"
  "  out.push('spike-crumbs: ' + $('crumbs').textContent);\n"
  "  var sel = pixel(frc, fctx, (slow + 0.5) * FC.bw, FH - 2);\n"
  "  out.push('spike-selected-pixel: ' + sel.join(','));\n"
  "  if (plain >= 0) {\n"
  "    frc.dispatchEvent(new MouseEvent('click', barAt(plain)));\n"
  "    out.push('after-plain-click: ' + (T === whole ? 'whole' : T.rootLabel));\n"
  "    out.push('whole-frame-names: ' + unique(RN.map(label), 200).join('|'));\n"
  "  }\n"
  "  frc.dispatchEvent(new MouseEvent('click', barAt(slow)));\n"
  "  out.push('spike-again: ' + (T === whole ? 'whole' : T.rootLabel));\n"
  "  $('whole').click();\n"
  "  out.push('after-whole-button: ' + (T === whole ? 'whole' : T.rootLabel));\n"
  "  out.push('whole-root-ns: ' + T.wgt[0]);\n"
  "  out.push('whole-rows: ' + document.querySelectorAll('#rows tr').length);\n"
  "}\n"
  "function selftestBytes(out) {\n"
  "  out.push('widest-time: ' + widestAt(2));\n"
  "  out.push('heads-time: ' + Array.prototype.map.call(document.querySelectorAll('#heads th'), function (th) {\n"
  "    return th.getAttribute('data-k'); }).join('|'));\n"
  "  $('m-bytes').click();\n"
  "  out.push('mode: ' + mode);\n"
  "  out.push('widest-bytes: ' + widestAt(2));\n"
  "  out.push('bytes-root: ' + T.wgt[0]);\n"
  "  out.push('bytes-crumbs: ' + $('crumbs').textContent);\n"
  "  out.push('heads-bytes: ' + Array.prototype.map.call(document.querySelectorAll('#heads th'), function (th) {\n"
  "    return th.getAttribute('data-k'); }).join('|'));\n"
  "  out.push('bytes-first-row: ' + (document.querySelector('#rows tr td') || { textContent: '-' }).textContent);\n"
  "  out.push('bytes-first-cells: ' + Array.prototype.map.call(document.querySelectorAll('#rows tr:first-child td'),\n"
  "    function (td) { return td.textContent; }).join('|'));\n"
  "  if (NFR > 0) out.push('fc-top-bytes: ' + FC.top);\n"
  "  $('m-time').click();\n"
  "  out.push('mode-again: ' + mode);\n"
  "  out.push('widest-time-again: ' + widestAt(2));\n"
  "}\n"
  "/* zones drawn blue-ish, functions warm */\n"
  "function selftestZones(out) {\n"
  "  var z = 0, zb = 0, fnc = 0, fw = 0, names = [];\n"
  "  for (var k = 0; k < RN.length; k++) {\n"
  "    var f = T.func[RN[k]];\n"
  "    if (RN[k] === 0 || f < 0 || RW[k] < 3 || T.depth[RN[k]] < T.depth[zoom]) continue;\n"
  "    var px = pixel(canvas, ctx, RX[k] + 1, RD[k] * ROW + 2);\n"
  "    if (fzone[f]) { z++; if (px[2] > px[0]) zb++; names.push(label(RN[k])); }\n"
  "    else { fnc++; if (px[0] > px[2]) fw++; }\n"
  "  }\n"
  "  out.push('zones-drawn: ' + zb + ' of ' + z + ' blue; functions warm ' + fw + ' of ' + fnc);\n"
  "  out.push('zone-names: ' + unique(names, 50).join('|'));\n"
  "  out.push('zone-rows: ' + document.querySelectorAll('#rows td.z').length);\n"
  "}\n"
  "/* the heap view: what it shows; clicks the first snapshot's button */\n"
  "function selftestHeap(out) {\n"
  "  out.push('heap-section: ' + ($('heapsec').hidden ? 'hidden' : 'shown'));\n"
  "  if (!H) return;\n"
  "  var rowsOf = function (id) {\n"
  "    return Array.prototype.map.call(document.querySelectorAll('#' + id + ' tbody tr'), function (tr) {\n"
  "      return Array.prototype.map.call(tr.children, function (td) { return td.textContent; }).join('|');\n"
  "    }).join(' / ');\n"
  "  };\n"
  "  out.push('heap-files: ' + $('heapfiles').children.length + ($('heapfiles').hidden ? ' (no buttons)' : ''));\n"
  "  out.push('heap-shown: ' + (heapSel + 1) + ($('heapsnap').hidden ? ' (nothing readable)' : ''));\n"
  "  out.push('heap-info: ' + $('heapinfo').textContent);\n"
  "  out.push('heap-types: ' + rowsOf('htypes'));\n"
  "  out.push('heap-retainers: ' + rowsOf('hret'));\n"
  "  out.push('heap-errors: ' + Array.prototype.map.call($('heaperr').children, function (li) {\n"
  "    return li.textContent; }).join(' / '));\n"
  "  out.push('heap-diff: ' + ($('heapdiff').hidden ? 'hidden' : $('hdinfo').textContent));\n"
  "  out.push('heap-diff-title: ' + $('hdtitle').textContent);\n"
  "  out.push('heap-diff-types: ' + rowsOf('hdtypes'));\n"
  "  out.push('heap-diff-groups: ' + rowsOf('hdgroups'));\n"
  "  if ($('heapfiles').children.length > 1) {\n"
  "    $('heapfiles').children[0].click();\n"
  "    out.push('heap-after-click: ' + (heapSel + 1) + ' ' + rowsOf('htypes'));\n"
  "  }\n"
  "}\n"
  "function selftest(renderMs) {\n"
  "  var out = [], t0 = performance.now(), k, best = -1;\n"
  "  out.push('render-ms: ' + renderMs.toFixed(0));\n"
  "  out.push('load-ms: ' + t0.toFixed(0));\n"
  "  out.push('frames-section: ' + ($('frsec').hidden ? 'hidden' : 'shown'));\n"
  "  out.push('mode-switch: ' + ($('modesw').hidden ? 'hidden' : 'shown'));\n"
  "  out.push('frames: ' + RN.length);\n"
  "  out.push('frame-names: ' + unique(RN.map(label), 200).join('|'));\n"
  "  out.push('rows: ' + document.querySelectorAll('#rows tr').length);\n"
  "  out.push('row-names: ' + rowNames());\n"
  "  out.push('heads: ' + Array.prototype.map.call(document.querySelectorAll('#heads th'), function (th) {\n"
  "    return th.getAttribute('data-k'); }).join('|'));\n"
  "  selftestZones(out);\n"
  "  for (k = 0; k < RN.length; k++)\n"
  "    if (RN[k] !== 0 && RW[k] >= 4 && RW[k] < W - 1 && (best < 0 || RW[k] > RW[best])) best = k;\n"
  "  if (best < 0) for (k = 0; k < RN.length; k++) if (RN[k] !== 0 && (best < 0 || RW[k] > RW[best])) best = k;\n"
  "  if (best >= 0) {\n"
  "    var target = RN[best], r = canvas.getBoundingClientRect();\n"
  "    out.push('click-target: ' + label(target) + ' (node ' + target + ', ' + RW[best].toFixed(1) + ' px)');\n"
  "    var at = { bubbles: true, clientX: r.left + RX[best] + RW[best] / 2,\n"
  "      clientY: r.top + RD[best] * ROW + ROW / 2 };\n"
  "    canvas.dispatchEvent(new MouseEvent('mousemove', at));\n"
  "    out.push('tooltip: ' + tipText());\n"
  "    canvas.dispatchEvent(new MouseEvent('mouseleave', at));\n"
  "    out.push('zoom-before: ' + zoom);\n"
  "    canvas.dispatchEvent(new MouseEvent('click', at));\n"
  "    out.push('zoom-after: ' + zoom + ' ' + label(zoom));\n"
  "    var zw = -1;\n"
  "    for (k = 0; k < RN.length; k++) if (RN[k] === zoom) zw = RW[k];\n"
  "    out.push('zoom-width: ' + zw.toFixed(1) + ' of ' + W);\n"
  "    out.push('frames-after: ' + RN.length);\n"
  "    out.push('frame-names-after: ' + unique(RN.map(label), 200).join('|'));\n"
  "    search.value = fname[T.func[target]] || '';\n"
  "    onSearch();\n"
  "    out.push('search: ' + matchEl.textContent);\n"
  "    search.value = '';\n"
  "    onSearch();\n"
  "    $('reset').click();\n"
  "    out.push('zoom-reset: ' + zoom);\n"
  "  }\n"
  "  if (NFR > 0) selftestFrames(out);\n"
  "  if (MEM) selftestBytes(out);\n"
  "  selftestHeap(out);\n"
  "  sortBy('name');\n"
  "  out.push('sorted-by-name: ' + document.querySelector('#rows tr td').textContent);\n"
  "  sortBy('self');\n"
  "  out.push('first-cells: ' + Array.prototype.map.call(document.querySelectorAll('#rows tr:first-child td'),\n"
  "    function (td) { return td.textContent; }).join('|'));\n"
  "  out.push('header: ' + $('hdr').textContent);\n"
  "  out.push('summary: ' + Array.prototype.map.call(document.querySelectorAll('#sum dt'),\n"
  "    function (dt) { return dt.textContent + '=' + dt.nextSibling.textContent; }).join('|'));\n"
  "  out.push('title: ' + document.title);\n"
  "  out.push('scripts: ' + document.scripts.length);\n"
  "  out.push('foreign-elements: ' + document.querySelectorAll('img,iframe,object,embed,svg,link,form,video,audio,style ~ style').length);\n"
  "  out.push('selftest-ms: ' + (performance.now() - t0).toFixed(0));\n"
  "  out.push('selftest: done');\n"
  "  $('selftest').textContent = out.join('\\n');\n"
  "}\n"
  "\n";

/* the report's start: draws the embedded profile */
static const char script_report[] =
  "collectRows();\n"
  "summary();\n"
  "var ms = draw();\n"
  "renderTable();\n"
  "drawFrames();\n"
  "heapView();\n"
  "$('frinfo').textContent = 'showing the whole run; click a red spike bar to see that frame';\n"
  "/* page.html#frame=N opens spike frame N, #bytes weighs by bytes (both:\n"
  "** #frame=N&bytes); #selftest runs the self-test */\n"
  "location.hash.slice(1).split('&').forEach(function (part) {\n"
  "  var m = /^frame=(\\d+)$/.exec(part);\n"
  "  if (part === 'bytes' && MEM) setMode('bytes');\n"
  "  for (var k = 0; m && k < SPK.length; k++) if (String(SPK[k].frame) === m[1]) showSpike(k);\n"
  "});\n"
  "if (location.hash === '#selftest') selftest(ms);\n"
  "})();\n";

/* ---- live mode (li_write_html_live) ------------------------------------- */

/* inside <style>, after page_style */
static const char live_style[] =
  "#conn { padding: 1px 8px; border-radius: 3px; font-size: 12px; font-weight: 600; }\n"
  "#conn.wait { background: #8a6d00; color: #fff; }\n"
  "#conn.live { background: #1f7a3a; color: #fff; }\n"
  "#conn.closed { background: #a4000f; color: #fff; }\n"
  "#conn.ended { background: #5b5149; color: #fff; }\n"
  "#lvctl input { width: auto; }\n"
  "#lvctl input[type=number] { width: 72px; }\n"
  "#lvctl label { color: var(--muted); }\n"
  "#lstatus, #counters { color: var(--muted); }\n"
  "#acks { margin: 2px 0; padding-left: 18px; font-size: 12px; }\n"
  ".lgrid { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 0 24px; }\n"
  "#spikes { margin: 0; padding: 0; list-style: none; max-height: 118px; overflow-y: auto;\n"
  "  border: 1px solid var(--line); }\n"
  "#spikes button { display: block; width: 100%; margin: 0; padding: 1px 8px; text-align: left;\n"
  "  background: #fff; border: 0; border-bottom: 1px solid var(--line); white-space: nowrap;\n"
  "  overflow: hidden; text-overflow: ellipsis; }\n"
  "#spikes button:hover { background: #fff3e4; }\n"
  "#spikes button[aria-pressed=\"true\"] { background: #2b1d12; color: #fbe9d7; }\n"
  "#memwrap { border: 1px solid var(--line); }\n"
  "#memc { display: block; width: 100%; height: 80px; }\n";

/* the rest of <head>, the title, the state's controls */
static const char live_top[] =
  "<title>luainstr live</title>\n"
  "</head>\n"
  "<body>\n"
  "<header><h1>luainstr live</h1><span id=\"hdr\"></span><strong id=\"conn\" class=\"wait\">connecting</strong></header>\n"
  "<main>\n"
  "<section id=\"lvctl\">\n"
  "<div class=\"bar\"><label>State <select id=\"lstate\"></select></label><span id=\"lstatus\"></span></div>\n"
  "<div class=\"bar\"><strong>Collection</strong>\n"
  "<button id=\"c-start\" type=\"button\">Start</button><button id=\"c-stop\" type=\"button\">Stop</button><button id=\"c-pause\" type=\"button\">Pause</button><button id=\"c-resume\" type=\"button\">Resume</button><button id=\"c-reset\" type=\"button\">Reset</button>\n"
  "<strong>Spike rule</strong><label>factor <input id=\"rfactor\" type=\"number\" min=\"1.01\" step=\"0.5\"></label>\n"
  "<label>at least <input id=\"rms\" type=\"number\" min=\"0\" step=\"1\"> ms</label><button id=\"rule\" type=\"button\">Set</button>\n"
  "<strong>Take</strong><button id=\"snap\" type=\"button\">Heap snapshot</button><label><input id=\"snapgc\" type=\"checkbox\" checked> collect first</label>\n"
  "<select id=\"rfmt\" aria-label=\"report format\"></select><button id=\"rep\" type=\"button\">Report</button>\n"
  "</div>\n"
  "<ul id=\"acks\"></ul>\n"
  "<p class=\"hint\" id=\"counters\"></p>\n"
  "</section>\n";

/* between the frame chart and the flame graph */
static const char live_middle[] =
  "<div class=\"lgrid\">\n"
  "<section><h2>Spikes <small id=\"spwhat\"></small></h2><ol id=\"spikes\"></ol></section>\n"
  "<section><h2>Memory</h2><div id=\"memwrap\"><canvas id=\"memc\" width=\"0\" height=\"0\"></canvas></div>\n"
  "<p class=\"hint\" id=\"meminfo\"></p></section>\n"
  "</div>\n";

/* after script_core in live mode */
static const char script_live[] =
  "/* ---- live mode (li_write_html_live; docs/live-protocol.md) ----\n"
  "** The report's views fed by messages instead of a profile.  The model of\n"
  "** the subscribed state, LM: functions grow NAMES, FA and the per-function\n"
  "** arrays above (ids are the runtime's, dense); the last KEEPF frames, of\n"
  "** which the chart draws the last LF through the report's drawFrames, its\n"
  "** arrays refilled; the kept spikes are SPK, shown by the report's spike\n"
  "** view (showSpike); the table's figures since start are the cumulative\n"
  "** rows merged, those of the last WIN_NS the difference with the table of\n"
  "** WIN_NS ago.  The view with no spike chosen (the report's \"whole run\")\n"
  "** is the live table.  Names reach the page as in the report: textContent,\n"
  "** title, fillText. */\n"
  "var LV = D.live || {}, OPT = {};\n"
  "/* #embed, #selftest, #selftest&open=NAME (the self-test opens a spike whose\n"
  "** tree holds function NAME) */\n"
  "location.hash.slice(1).split('&').forEach(function (p) {\n"
  "  var k = p.indexOf('=');\n"
  "  if (p) OPT[k < 0 ? p : p.slice(0, k)] = k < 0 ? 1 : decodeURIComponent(p.slice(k + 1));\n"
  "});\n"
  "var EMBED = OPT.embed === 1;\n"
  "var TOKEN = new URLSearchParams(location.search).get('token') || '';\n"
  "var LF = 300, KEEPF = 600, KEEPS = 100, WIN_NS = 10e9, MEMKEEP = 240;\n"
  "var ws = null, stateId = -1, statesList = [], statesKey = '', serverC = null;\n"
  "var connText = 'connecting', connClass = 'wait', badMsgs = 0;\n"
  "var cmdId = 0, pending = {}, win = 'start', srcIds = new Map(), fflag = new Uint8Array(0);\n"
  "var dirty = {}, renderTimer = 0, lastTable = 0;\n"
  "var LM = null;\n"
  "\n"
  "function freshModel() {\n"
  "  return { hello: null, status: null, frames: [], spikeOf: new Map(), cum: [], hist: [],\n"
  "    tableT: 0, mem: [], lostMsgs: 0, lostFrames: 0, received: 0, lastIndex: 0, ended: false };\n"
  "}\n"
  "/* forget the state shown: a new subscription's catch-up rebuilds it */\n"
  "function resetModel() {\n"
  "  LM = freshModel();\n"
  "  NF = 0; NAMES = []; SRCS = []; FA = []; srcHue = []; srcIds = new Map();\n"
  "  fname = []; fwhere = []; fsearch = []; fcolor = [];\n"
  "  fmatch = new Uint8Array(0); fzone = new Uint8Array(0); fcounted = new Uint8Array(0);\n"
  "  SPK = []; spikeTrees = []; spikeStats = [];\n"
  "  whole = new Tree([], null, null, 0, 'no frame chosen');\n"
  "  T = whole; WST = ST = newStats(); spikeSel = -1; zoom = 0;\n"
  "  NFR = 0; FRA = [];\n"
  "  dirty = { frames: 1, table: 1, spikes: 1, mem: 1, status: 1 };\n"
  "}\n"
  "\n"
  "/* ---- functions ---- */\n"
  "function grow8(a, n) {\n"
  "  if (a.length >= n) return a;\n"
  "  var b = new Uint8Array(Math.max(n, a.length * 2));\n"
  "  b.set(a);\n"
  "  return b;\n"
  "}\n"
  "function addFunc(fn) {\n"
  "  var id = fn.id;\n"
  "  if (typeof id !== 'number' || id < 0 || id > 4e6 || id !== Math.floor(id)) return;\n"
  "  while (NF <= id) {\n"
  "    NAMES.push('?');\n"
  "    for (var q = 0; q < FW; q++) FA.push(0);\n"
  "    fname.push('?'); fwhere.push('?'); fsearch.push(''); fcolor.push('#bbb');\n"
  "    LM.cum.push(null);\n"
  "    NF++;\n"
  "  }\n"
  "  fmatch = grow8(fmatch, NF); fzone = grow8(fzone, NF); fcounted = grow8(fcounted, NF);\n"
  "  var src = fn.source === undefined || fn.source === null ? '' : String(fn.source), sid = srcIds.get(src);\n"
  "  if (sid === undefined) {\n"
  "    sid = SRCS.length;\n"
  "    srcIds.set(src, sid);\n"
  "    SRCS.push(src);\n"
  "    srcHue.push(hash(src) % 40);\n"
  "  }\n"
  "  NAMES[id] = String(fn.name);\n"
  "  FA[id * FW] = sid; FA[id * FW + 1] = +fn.line || 0; FA[id * FW + 2] = +fn.lastline || 0;\n"
  "  fzone[id] = fn.zone ? 1 : 0;      /* a zone, or the idle span (a zone too) */\n"
  "  fcounted[id] = fn.counted ? 1 : 0;\n"
  "  describe(id);\n"
  "  fmatch[id] = term !== '' && fsearch[id].indexOf(term) >= 0 ? 1 : 0;\n"
  "  if (fn.zone) $('zonehint').hidden = false;\n"
  "}\n"
  "\n"
  "/* ---- frames: the chart's arrays from the last LF frames ---- */\n"
  "function onFrames(list) {\n"
  "  for (var k = 0; k < list.length; k++) {\n"
  "    var fr = list[k];\n"
  "    if (!fr || typeof fr.index !== 'number') continue;\n"
  "    fr.arrived = performance.now();   /* when it reached the page */\n"
  "    fr.caughtUp = fr.arrived - LM.helloAt < 200;   /* came with the catch-up */\n"
  "    LM.frames.push(fr);\n"
  "    LM.received++;\n"
  "    if (fr.lost) LM.lostFrames += fr.lost;\n"
  "    if (fr.index > LM.lastIndex) LM.lastIndex = fr.index;\n"
  "  }\n"
  "  if (LM.frames.length > KEEPF) LM.frames.splice(0, LM.frames.length - KEEPF);\n"
  "  dirty.frames = 1;\n"
  "}\n"
  "function chartFrames() {\n"
  "  var list = LM.frames.slice(-LF), n = list.length, st = LM.status || {}, k;\n"
  "  NFR = n; FRA = new Array(n * FRW);\n"
  "  fdur = new Float64Array(n); falloc = new Float64Array(n); fspike = new Int32Array(n);\n"
  "  fidle = new Float64Array(n); fbusy = new Float64Array(n); fflag = new Uint8Array(n);\n"
  "  anyIdle = false;\n"
  "  for (k = 0; k < n; k++) {\n"
  "    var fr = list[k], sp = LM.spikeOf.get(fr.index);\n"
  "    fdur[k] = fr.duration_ns || 0; falloc[k] = fr.alloc_bytes || 0;\n"
  "    fidle[k] = Math.min(fr.idle_ns || 0, fdur[k]);\n"
  "    fbusy[k] = typeof fr.busy_ns === 'number' ? fr.busy_ns : fdur[k] - fidle[k];\n"
  "    if (fidle[k] > 0) anyIdle = true;\n"
  "    fspike[k] = sp === undefined ? -1 : sp;\n"
  "    fflag[k] = fr.spike ? 1 : 0;\n"
  "    FRA[k * FRW] = fr.index; FRA[k * FRW + 1] = (fr.t_ns || 0) - fdur[k]; FRA[k * FRW + 2] = fdur[k];\n"
  "    FRA[k * FRW + 3] = fr.calls || 0; FRA[k * FRW + 4] = falloc[k]; FRA[k * FRW + 5] = fspike[k] + 1;\n"
  "    FRA[k * FRW + 6] = fidle[k];\n"
  "  }\n"
  "  var sorted = Array.prototype.slice.call(fbusy).sort(function (a, c) { return a - c; });\n"
  "  median = n > 0 ? sorted[Math.floor(n / 2)] : 0;\n"
  "  FR = { spike_factor: st.spike_factor || 2, spike_min_ns: (st.spike_ms || 0) * 1e6,\n"
  "    spike_keep: st.spikes_keep || 0, frames_marked: LM.lastIndex, frame_capacity: KEEPF };\n"
  "  threshold = n > 0 ? Math.max(FR.spike_factor * median, FR.spike_min_ns) : 0;\n"
  "}\n"
  "/* orange: the runtime called it a spike (its running median), no tree kept */\n"
  "overThreshold = function (k) { return fflag[k] === 1; };\n"
  "\n"
  "/* ---- spikes: SPK entries in the report's tree format ---- */\n"
  "function spikeEntry(m) {\n"
  "  var tr = Array.isArray(m.tree) ? m.tree : [], n = tr.length, nodes = [], nm = [], k;\n"
  "  var incl = new Float64Array(n), par = new Int32Array(n);\n"
  "  for (k = 0; k < n; k++) {\n"
  "    var r = tr[k] || [], p = k > 0 && r[1] >= 0 && r[1] < k ? r[1] : 0;\n"
  "    par[k] = p;\n"
  "    incl[k] = +r[5] || 0;\n"
  "    nodes.push(k === 0 ? -1 : r[0], k - p, +r[2] || 0, +r[3] || 0, +r[4] || 0);\n"
  "  }\n"
  "  /* alloc_bytes is the node's own: callees' added for the bytes view */\n"
  "  for (k = n - 1; k > 0; k--) incl[par[k]] += incl[k];\n"
  "  for (k = 0; k < n; k++) nm.push(+(tr[k] || [])[5] || 0, 0, incl[k], 0, 0, 0);\n"
  "  return { frame: m.index, duration_ns: m.duration_ns || 0, busy_ns: m.busy_ns, nodes: nodes,\n"
  "    node_errors: [], nmem: nm };\n"
  "}\n"
  "function onSpike(m) {\n"
  "  if (typeof m.index !== 'number') return;\n"
  "  SPK.push(spikeEntry(m));\n"
  "  LM.spikeOf.set(m.index, SPK.length - 1);\n"
  "  if (SPK.length > KEEPS) {\n"
  "    SPK.shift(); spikeTrees.shift(); spikeStats.shift();\n"
  "    LM.spikeOf = new Map();\n"
  "    SPK.forEach(function (sp, q) { LM.spikeOf.set(sp.frame, q); });\n"
  "    if (spikeSel === 0) showWhole();\n"
  "    else if (spikeSel > 0) spikeSel--;\n"
  "  }\n"
  "  dirty.spikes = dirty.frames = 1;\n"
  "}\n"
  "/* the function (not a zone, not the idle span) with the most self time in\n"
  "** spike k's tree */\n"
  "function spikeTop(k) {\n"
  "  spikeTree(k);\n"
  "  var s = spikeStats[k], best = -1;\n"
  "  for (var g = 0; g < s.self.length; g++)\n"
  "    if (!fzone[g] && s.self[g] > 0 && (best < 0 || s.self[g] > s.self[best])) best = g;\n"
  "  return best;\n"
  "}\n"
  "function renderSpikes() {\n"
  "  var ol = $('spikes'), frag = document.createDocumentFragment();\n"
  "  for (var k = SPK.length - 1; k >= 0; k--) {\n"
  "    var sp = SPK[k], li = document.createElement('li'), b = document.createElement('button');\n"
  "    var top = spikeTop(k);\n"
  "    b.type = 'button';\n"
  "    b.setAttribute('data-k', k);\n"
  "    b.setAttribute('aria-pressed', String(k === spikeSel));\n"
  "    b.textContent = 'frame ' + sp.frame + ': ' + fmtNs(sp.duration_ns) +\n"
  "      (typeof sp.busy_ns === 'number' && sp.busy_ns < sp.duration_ns ? ' (busy ' + fmtNs(sp.busy_ns) + ')' : '') +\n"
  "      (top >= 0 ? ' \\u2014 most self time: ' + fname[top] : '');\n"
  "    li.appendChild(b);\n"
  "    frag.appendChild(li);\n"
  "  }\n"
  "  ol.textContent = '';\n"
  "  ol.appendChild(frag);\n"
  "  $('spwhat').textContent = SPK.length === 0 ? '\\u2014 none yet' : '\\u2014 ' + SPK.length + ' call trees kept, newest first';\n"
  "}\n"
  "$('spikes').addEventListener('click', function (ev) {\n"
  "  var b = ev.target.closest('button');\n"
  "  if (b) showSpike(+b.getAttribute('data-k'));\n"
  "});\n"
  "\n"
  "/* ---- the function table: cumulative rows, and a window by difference ---- */\n"
  "function onTable(m) {\n"
  "  var rows = Array.isArray(m.rows) ? m.rows : [], k, r, c, dec = false;\n"
  "  for (k = 0; k < rows.length; k++) {\n"
  "    r = rows[k];\n"
  "    c = Array.isArray(r) ? LM.cum[r[0]] : null;\n"
  "    if (c && r[1] < c[0]) dec = true;\n"
  "  }\n"
  "  if (dec) {      /* figures went down: a reset; the old ones are gone */\n"
  "    LM.cum = LM.cum.map(function () { return null; });\n"
  "    LM.hist = [];\n"
  "  }\n"
  "  for (k = 0; k < rows.length; k++) {\n"
  "    r = rows[k];\n"
  "    if (!Array.isArray(r) || !(r[0] >= 0 && r[0] < NF)) continue;\n"
  "    LM.cum[r[0]] = [+r[1] || 0, +r[2] || 0, +r[3] || 0, +r[4] || 0, +r[5] || 0];\n"
  "  }\n"
  "  var t = +m.t_ns || 0, h = LM.hist;\n"
  "  LM.tableT = t;\n"
  "  if (h.length === 0 || t - h[h.length - 1].t >= 0.5e9) h.push({ t: t, cum: LM.cum.slice() });\n"
  "  while (h.length > 1 && h[1].t <= t - WIN_NS) h.shift();\n"
  "  dirty.table = 1;\n"
  "}\n"
  "/* the live figures: since start, or since the table of WIN_NS ago (live\n"
  "** bytes are a level, shown as they are now) */\n"
  "function liveStats() {\n"
  "  var s = newStats(), base = win === 'recent' && LM.hist.length > 0 ? LM.hist[0].cum : null;\n"
  "  s.full = false;\n"
  "  for (var f = 0; f < NF; f++) {\n"
  "    var c = LM.cum[f], b = base && base[f] ? base[f] : [0, 0, 0, 0, 0];\n"
  "    if (!c) continue;\n"
  "    s.calls[f] = Math.max(0, c[0] - b[0]); s.self[f] = Math.max(0, c[1] - b[1]);\n"
  "    s.total[f] = Math.max(0, c[2] - b[2]); s.ab[f] = Math.max(0, c[3] - b[3]);\n"
  "    s.live[f] = c[4];\n"
  "  }\n"
  "  return s;\n"
  "}\n"
  "function winLabel() {\n"
  "  if (win === 'start') return 'since start';\n"
  "  var h = LM.hist, span = h.length > 0 ? LM.tableT - h[0].t : 0;\n"
  "  return 'last ' + (span >= WIN_NS - 1e9 ? WIN_NS / 1e9 : Math.round(span / 1e9)) + ' s';\n"
  "}\n"
  "/* the columns the live figures have (the report's for a spike's tree,\n"
  "** less the minimum, maximum and errors one frame's tree lacks) */\n"
  "cols = function () {\n"
  "  var t = [['calls', 'calls', 'calls', cnt], ['total', 'total', 'total', fmtNs],\n"
  "    ['self', 'self', 'self', fmtNs], ['pct', 'self%', 'self', null, 'pct']];\n"
  "  if (mode === 'bytes') {\n"
  "    t = [['calls', 'calls', 'calls', cnt]];\n"
  "    if (T !== whole) t.push(['abt', 'alloc incl', 'abt', fmtBytes]);\n"
  "    t.push(['ab', 'alloc', 'ab', fmtBytes], ['abpct', 'alloc%', 'ab', null, 'pct']);\n"
  "  } else if (MEM) t.push(['ab', 'alloc', 'ab', fmtBytes]);\n"
  "  if (MEM && T === whole) t.push(['live', 'live', 'live', fmtBytes]);\n"
  "  return t;\n"
  "};\n"
  "function renderLiveTable() {\n"
  "  WST = liveStats();\n"
  "  if (T !== whole) return;\n"
  "  ST = WST;\n"
  "  collectRows();\n"
  "  renderTable();\n"
  "  $('tbwhat').textContent = '\\u2014 live, ' + winLabel();\n"
  "}\n"
  "var winBar = $('tcount').parentNode;\n"
  "[['start', 'since start'], ['recent', 'last ' + WIN_NS / 1e9 + ' s']].forEach(function (w) {\n"
  "  var b = document.createElement('button');\n"
  "  b.type = 'button';\n"
  "  b.id = 'win-' + w[0];\n"
  "  b.textContent = w[1];\n"
  "  b.setAttribute('aria-pressed', String(win === w[0]));\n"
  "  b.addEventListener('click', function () {\n"
  "    win = w[0];\n"
  "    $('win-start').setAttribute('aria-pressed', String(win === 'start'));\n"
  "    $('win-recent').setAttribute('aria-pressed', String(win === 'recent'));\n"
  "    renderLiveTable();\n"
  "  });\n"
  "  winBar.insertBefore(b, $('tcount'));\n"
  "});\n"
  "\n"
  "/* ---- memory: Lua's heap (and, in memory mode, tracked blocks alive) ---- */\n"
  "var memc = $('memc'), mctx = memc.getContext('2d'), MH = 80;\n"
  "function onMemory(m) {\n"
  "  LM.mem.push(m);\n"
  "  if (LM.mem.length > MEMKEEP) LM.mem.shift();\n"
  "  dirty.mem = 1;\n"
  "}\n"
  "function drawMem() {\n"
  "  var list = LM.mem, n = list.length, Wm = $('memwrap').clientWidth || 400, dpr = window.devicePixelRatio || 1;\n"
  "  memc.width = Math.round(Wm * dpr); memc.height = Math.round(MH * dpr);\n"
  "  mctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
  "  mctx.clearRect(0, 0, Wm, MH);\n"
  "  if (n === 0) { $('meminfo').textContent = 'no figures yet'; return; }\n"
  "  var top = 1, k;\n"
  "  for (k = 0; k < n; k++) top = Math.max(top, list[k].lua_bytes || 0, MEM ? list[k].live_tracked || 0 : 0);\n"
  "  var line = function (key, colour) {\n"
  "    mctx.strokeStyle = colour; mctx.lineWidth = 1.5; mctx.beginPath();\n"
  "    for (var q = 0; q < n; q++) {\n"
  "      var x = n > 1 ? q * (Wm - 2) / (n - 1) + 1 : 1, y = MH - 2 - (list[q][key] || 0) * (MH - 16) / top;\n"
  "      if (q === 0) mctx.moveTo(x, y); else mctx.lineTo(x, y);\n"
  "    }\n"
  "    mctx.stroke();\n"
  "  };\n"
  "  line('lua_bytes', '#3b6ea8');\n"
  "  if (MEM) line('live_tracked', '#5f9e6e');\n"
  "  mctx.fillStyle = '#39424e'; mctx.font = '11px system-ui, \"DejaVu Sans\", sans-serif';\n"
  "  mctx.textBaseline = 'top'; mctx.textAlign = 'right';\n"
  "  mctx.fillText(fmtBytes(top) + ' ', Wm, 2);\n"
  "  mctx.textAlign = 'left';\n"
  "  var last = list[n - 1], span = n > 1 ? (last.t_ns - list[0].t_ns) / 1e9 : 0;\n"
  "  $('meminfo').textContent = 'Lua heap (blue) ' + fmtBytes(last.lua_bytes || 0) +\n"
  "    (MEM ? '; tracked blocks alive (green) ' + fmtBytes(Math.max(0, last.live_tracked || 0)) +\n"
  "      '; allocated since start ' + fmtBytes(last.alloc_total || 0) : '') +\n"
  "    ' \\u2014 the last ' + span.toFixed(0) + ' s';\n"
  "}\n"
  "\n"
  "/* ---- status, states, connection, counters ---- */\n"
  "function onStatus(m) {\n"
  "  LM.status = m;\n"
  "  if (document.activeElement !== $('rfactor')) $('rfactor').value = m.spike_factor;\n"
  "  if (document.activeElement !== $('rms')) $('rms').value = m.spike_ms;\n"
  "  dirty.status = dirty.frames = 1;\n"
  "}\n"
  "function onStates(m) {\n"
  "  statesList = Array.isArray(m.states) ? m.states : [];\n"
  "  serverC = m.server || null;\n"
  "  var sel = $('lstate'), key = JSON.stringify(statesList);\n"
  "  if (key !== statesKey) {   /* rebuilt only when it changed: an open list stays open */\n"
  "    statesKey = key;\n"
  "    sel.textContent = '';\n"
  "    statesList.forEach(function (s) {\n"
  "    var o = document.createElement('option');\n"
  "    o.value = String(s.id);\n"
  "      o.textContent = disp(s.name) + ' (pid ' + s.pid + ', state ' + s.id + ')';\n"
  "      sel.appendChild(o);\n"
  "    });\n"
  "  }\n"
  "  /* the first state by default; embedded, the parent streams its one state */\n"
  "  if (stateId < 0 && statesList.length > 0) {\n"
  "    if (EMBED) stateId = statesList[0].id;\n"
  "    else subscribe(statesList[0].id);\n"
  "  }\n"
  "  sel.value = String(stateId);\n"
  "  dirty.status = 1;\n"
  "}\n"
  "function subscribe(id) {\n"
  "  stateId = id;\n"
  "  resetModel();\n"
  "  post({ cmd: 'subscribe', state: id });\n"
  "}\n"
  "$('lstate').addEventListener('change', function () { subscribe(+$('lstate').value); });\n"
  "function setConn(cls, text) {\n"
  "  connClass = cls; connText = text;\n"
  "  dirty.status = 1;\n"
  "  schedule();\n"
  "}\n"
  "function renderStatus() {\n"
  "  var st = LM.status, h = LM.hello, name = '';\n"
  "  statesList.forEach(function (s) { if (s.id === stateId) name = disp(s.name) + ' (pid ' + s.pid + ')'; });\n"
  "  $('conn').textContent = connText;\n"
  "  $('conn').className = connClass;\n"
  "  $('hdr').textContent = (h ? disp(h.lua) + ', ' : '') + (name || (stateId >= 0 ? 'state ' + stateId : 'no state')) +\n"
  "    (LM.lastIndex > 0 ? ', frame ' + LM.lastIndex : '');\n"
  "  $('lstatus').textContent = st ? 'collection ' + st.collection + '; frames ' + (st.frames ? 'on' : 'off') +\n"
  "    '; memory mode ' + (st.memory ? 'on' : 'off') + '; spike: over ' + st.spike_factor + ' x the running median' +\n"
  "    (st.spike_ms > 0 ? ' and ' + st.spike_ms + ' ms' : '') + ', ' + st.spikes_keep + ' trees kept' : 'waiting for the state';\n"
  "  var c = serverC;\n"
  "  $('counters').textContent = 'frames received ' + LM.received + '; lost: ' + (st ? st.lost : 0) +\n"
  "    ' records in the runtime\\'s ring, ' + LM.lostMsgs + ' messages to this page' +\n"
  "    (c ? '; server: ' + c.clients + ' clients, ' + c.refused + ' refused, ' + c.malformed +\n"
  "      ' malformed messages, ' + c.dropped + ' dropped for slow clients' : '') +\n"
  "    (badMsgs > 0 ? '; ' + badMsgs + ' messages this page could not read' : '');\n"
  "  var running = st ? st.collection : '';\n"
  "  $('c-start').disabled = running === 'running' || running === 'paused';\n"
  "  $('c-stop').disabled = running === 'stopped';\n"
  "  $('c-pause').disabled = running !== 'running';\n"
  "  $('c-resume').disabled = running !== 'paused';\n"
  "}\n"
  "\n"
  "/* ---- commands and their acks ---- */\n"
  "function post(obj) {\n"
  "  if (EMBED) {\n"
  "    if (window.parent !== window) window.parent.postMessage({ luainstr_cmd: obj }, '*');\n"
  "    return true;\n"
  "  }\n"
  "  if (ws === null || ws.readyState !== 1) return false;\n"
  "  ws.send(JSON.stringify(obj));\n"
  "  return true;\n"
  "}\n"
  "function command(obj, what) {\n"
  "  obj.id = ++cmdId;\n"
  "  if (stateId >= 0) obj.state = stateId;\n"
  "  pending[obj.id] = what;\n"
  "  if (!post(obj)) ackLine(what + ': not sent (not connected)', null);\n"
  "  return obj.id;\n"
  "}\n"
  "function ackLine(text, link) {\n"
  "  var li = document.createElement('li'), ul = $('acks');\n"
  "  li.textContent = text;\n"
  "  if (link) {\n"
  "    li.appendChild(document.createTextNode(' '));\n"
  "    li.appendChild(link);\n"
  "  }\n"
  "  ul.insertBefore(li, ul.firstChild);\n"
  "  while (ul.children.length > 8) ul.removeChild(ul.lastChild);\n"
  "}\n"
  "/* a download the server offers (or, embedded, the parent's blob) */\n"
  "function downloadHref(d) {\n"
  "  if (typeof d !== 'string') return null;\n"
  "  if (/^\\/download\\/\\d+\\/\\d+$/.test(d)) return d + (TOKEN ? '?token=' + encodeURIComponent(TOKEN) : '');\n"
  "  if (EMBED && /^blob:/.test(d)) return d;\n"
  "  return null;\n"
  "}\n"
  "var lastAck = null;\n"
  "function onAck(m) {\n"
  "  var what = pending[m.id] || 'command ' + m.id, href = downloadHref(m.download), a = null;\n"
  "  delete pending[m.id];\n"
  "  if (href) {\n"
  "    a = document.createElement('a');\n"
  "    a.href = href;\n"
  "    a.download = '';\n"
  "    a.textContent = 'download' + (m.format ? ' (' + disp(m.format) + ')' : '');\n"
  "  }\n"
  "  ackLine(what + ': ' + (m.ok ? 'done' : 'failed: ' + disp(m.error || 'no reason given')), a);\n"
  "  lastAck = { id: m.id, ok: m.ok, format: m.format, href: href };\n"
  "}\n"
  "['start', 'stop', 'pause', 'resume', 'reset'].forEach(function (c) {\n"
  "  $('c-' + c).addEventListener('click', function () { command({ cmd: c }, c); });\n"
  "});\n"
  "$('rule').addEventListener('click', function () {\n"
  "  var o = { cmd: 'spike_rule' }, f = parseFloat($('rfactor').value), ms = parseFloat($('rms').value);\n"
  "  if (f > 1) o.factor = f;\n"
  "  if (ms >= 0) o.ms = ms;\n"
  "  command(o, 'spike rule' + (o.factor ? ' ' + o.factor + ' x' : '') + (o.ms >= 0 ? ', ' + o.ms + ' ms' : ''));\n"
  "});\n"
  "$('snap').addEventListener('click', function () {\n"
  "  command({ cmd: 'snapshot', collect: $('snapgc').checked }, 'heap snapshot');\n"
  "});\n"
  "(LV.formats || []).forEach(function (name) {\n"
  "  var o = document.createElement('option');\n"
  "  o.value = o.textContent = name;\n"
  "  $('rfmt').appendChild(o);\n"
  "});\n"
  "$('rfmt').value = 'html';\n"
  "$('rep').addEventListener('click', function () {\n"
  "  command({ cmd: 'report', format: $('rfmt').value }, 'report ' + $('rfmt').value);\n"
  "});\n"
  "\n"
  "/* ---- messages ---- */\n"
  "function handle(m) {\n"
  "  if (!m || typeof m.type !== 'string') { badMsgs++; return; }\n"
  "  if (m.type === 'states') { onStates(m); return; }\n"
  "  if (m.type === 'hello' && (stateId < 0 || m.state === stateId)) {\n"
  "    stateId = m.state;\n"
  "    resetModel();             /* a subscription's catch-up starts here */\n"
  "    LM.hello = m;\n"
  "    LM.helloAt = performance.now();\n"
  "    MEM = !!m.memory;\n"
  "    $('modesw').hidden = !MEM;\n"
  "    if (!MEM && mode === 'bytes') setMode('time');\n"
  "    $('frsec').hidden = !m.frames;\n"
  "    $('lstate').value = String(stateId);\n"
  "    viewChanged();\n"
  "    return;\n"
  "  }\n"
  "  if (LM.hello === null || m.state !== stateId) return;\n"
  "  switch (m.type) {\n"
  "    case 'status': onStatus(m); break;\n"
  "    case 'functions': (Array.isArray(m.functions) ? m.functions : []).forEach(addFunc); break;\n"
  "    case 'frames': onFrames(Array.isArray(m.frames) ? m.frames : []); break;\n"
  "    case 'spike': onSpike(m); break;\n"
  "    case 'table': onTable(m); break;\n"
  "    case 'memory': onMemory(m); break;\n"
  "    case 'ack': onAck(m); break;\n"
  "    case 'lost': LM.lostMsgs += +m.count || 0; dirty.status = 1; break;\n"
  "    case 'end':\n"
  "      LM.ended = true;\n"
  "      setConn('ended', 'the program\\'s state ended: showing what arrived');\n"
  "      break;\n"
  "    default: badMsgs++;\n"
  "  }\n"
  "  schedule();\n"
  "}\n"
  "function handleSafe(m) {\n"
  "  try { handle(m); } catch (e) { badMsgs++; }\n"
  "}\n"
  "/* one render pass at most every 100 ms, the table at most twice a second */\n"
  "function schedule() {\n"
  "  if (renderTimer === 0) renderTimer = setTimeout(render, 100);\n"
  "}\n"
  "function render() {\n"
  "  renderTimer = 0;\n"
  "  if (dirty.frames) {\n"
  "    chartFrames();\n"
  "    if (NFR === 0) fctx.clearRect(0, 0, frc.width, frc.height);\n"
  "    drawFrames();\n"
  "    liveFrameTexts();\n"
  "  }\n"
  "  if (dirty.spikes) renderSpikes();\n"
  "  if (dirty.mem) drawMem();\n"
  "  if (dirty.table && performance.now() - lastTable >= 500) {\n"
  "    lastTable = performance.now();\n"
  "    renderLiveTable();\n"
  "    dirty.table = 0;\n"
  "  } else if (dirty.table) schedule();\n"
  "  if (dirty.status || dirty.frames) renderStatus();\n"
  "  dirty.frames = dirty.spikes = dirty.mem = dirty.status = 0;\n"
  "}\n"
  "function liveFrameTexts() {\n"
  "  $('frhint').textContent = 'The last ' + LF + ' frames, newest on the right (' + LM.received +\n"
  "    ' received). Height is the frame\\'s duration' + (anyIdle ? ' (pale top: its idle span, the host\\'s wait; the spike rule reads the busy part)' : '') +\n"
  "    '. Red: a spike whose call tree was kept (click it for that frame\\'s flame graph and table); orange: a spike without a kept tree. The dashed line is the median of these frames; the threshold line is the rule applied to it (the runtime uses its own running median).';\n"
  "}\n"
  "/* the report's view switch, with live texts when no spike is chosen */\n"
  "var reportViewChanged = viewChanged;\n"
  "viewChanged = function () {\n"
  "  reportViewChanged();\n"
  "  if (T === whole) {\n"
  "    $('frinfo').textContent = 'click a red spike bar, or a spike in the list, to see its call tree';\n"
  "    $('fgwhat').textContent = '\\u2014 choose a spike';\n"
  "    $('crumbs').textContent = 'no frame chosen: the flame graph shows a spike frame\\'s call tree';\n"
  "    $('tbwhat').textContent = '\\u2014 live, ' + winLabel();\n"
  "  }\n"
  "  dirty.spikes = 1;\n"
  "  schedule();\n"
  "};\n"
  "$('whole').textContent = 'Live table';\n"
  "\n"
  "/* ---- the transport: the WebSocket, or the parent window (#embed) ---- */\n"
  "function connect() {\n"
  "  if (TOKEN === '') {\n"
  "    setConn('closed', 'no token in this page\\'s address: open the URL the program printed');\n"
  "    return;\n"
  "  }\n"
  "  var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/live?token=' +\n"
  "    encodeURIComponent(TOKEN);\n"
  "  try { ws = new WebSocket(url); } catch (e) { setConn('closed', 'cannot connect: ' + e.message); return; }\n"
  "  ws.onopen = function () { setConn('live', 'live'); };\n"
  "  ws.onmessage = function (ev) {\n"
  "    var m;\n"
  "    try { m = JSON.parse(ev.data); } catch (e) { badMsgs++; return; }\n"
  "    handleSafe(m);\n"
  "  };\n"
  "  ws.onclose = function (ev) {\n"
  "    ws = null;\n"
  "    if (!LM.ended) setConn('closed', 'connection closed (' + ev.code + (ev.reason ? ': ' + ev.reason : '') +\n"
  "      '): showing what arrived');\n"
  "  };\n"
  "}\n"
  "resetModel();\n"
  "if (EMBED) {\n"
  "  window.addEventListener('message', function (ev) {\n"
  "    var d = ev.data;\n"
  "    if (ev.source !== window.parent || window.parent === window) return;\n"
  "    if (d && Array.isArray(d.luainstr_live)) d.luainstr_live.forEach(handleSafe);\n"
  "  });\n"
  "  setConn('live', 'live, in this page');\n"
  "} else connect();\n"
  "viewChanged();\n"
  "render();\n"
  "\n"
  "/* ---- live self-test (#selftest): waits for frames, the table, memory and a\n"
  "** drawn spike (with open=NAME: one whose tree holds NAME), opens it,\n"
  "** records what the views show, asks for a report and fetches its\n"
  "** download; into <pre id=selftest> ---- */\n"
  "function liveSelftest() {\n"
  "  var out = [], t0 = performance.now(), step = 'frames';\n"
  "  var done = function (how) {\n"
  "    out.push('title: ' + document.title);\n"
  "    out.push('scripts: ' + document.scripts.length);\n"
  "    out.push('foreign-elements: ' + document.querySelectorAll('img,iframe,object,embed,svg,link,form,video,audio,style ~ style').length);\n"
  "    out.push('selftest-ms: ' + (performance.now() - t0).toFixed(0));\n"
  "    out.push('selftest: ' + how);\n"
  "    $('selftest').textContent = out.join('\\n');\n"
  "  };\n"
  "  /* the spike bar drawn whose tree gives OPT.open the most self time, at\n"
  "  ** least a millisecond (the newest spike bar with no open): on a busy\n"
  "  ** machine other frames are spikes too, some holding OPT.open for a\n"
  "  ** moment; wait until the spike of its own work is drawn */\n"
  "  var wanted = function () {\n"
  "    var q, g, best = -1, most = 1e6;\n"
  "    for (q = 0; q < FC.n; q++) {\n"
  "      var sp = colSpike[q];\n"
  "      if (sp < 0) continue;\n"
  "      if (typeof OPT.open !== 'string') { best = q; continue; }\n"
  "      spikeTree(sp);\n"
  "      var st = spikeStats[sp];\n"
  "      for (g = 0; g < st.self.length; g++)\n"
  "        if (fname[g] === OPT.open && st.self[g] >= most) { best = q; most = st.self[g]; }\n"
  "    }\n"
  "    return best;\n"
  "  };\n"
  "  var spikeStep = function () {\n"
  "    render();\n"
  "    var best = wanted();\n"
  "    /* (the chart redrawn, its spike may have lost its tree to a slower\n"
  "    ** one meanwhile: wait for another) */\n"
  "    if (best < 0) return;\n"
  "    out.push('connection: ' + connText);\n"
  "    out.push('lua: ' + (LM.hello ? LM.hello.lua : '-'));\n"
  "    out.push('memory-mode: ' + MEM);\n"
  "    out.push('states: ' + statesList.map(function (s) { return disp(s.name); }).join('|'));\n"
  "    out.push('frames-received: ' + LM.received);\n"
  "    out.push('last-frame: ' + LM.lastIndex);\n"
  "    out.push('fc-frames: ' + FC.frames);\n"
  "    out.push('fc-bars: ' + FC.bars);\n"
  "    out.push('fc-spike-bars: ' + FC.spikeBars);\n"
  "    out.push('fc-spikes: ' + FC.spikes.join('|'));\n"
  "    out.push('spikes-listed: ' + $('spikes').children.length);\n"
  "    out.push('fc-ms: ' + FC.ms.toFixed(1));\n"
  "    var px = pixel(frc, fctx, (best + 0.5) * FC.bw, FH - 2);\n"
  "    out.push('spike-pixel: ' + px.join(',') + (px[0] > 150 && px[1] < 90 && px[2] < 110 ? ' red' : ' not red'));\n"
  "    frc.dispatchEvent(new MouseEvent('click', barAt(best)));\n"
  "    out.push('spike-view: ' + (T === whole ? 'live' : T.rootLabel));\n"
  "    out.push('spike-duration-ns: ' + (spikeSel >= 0 ? SPK[spikeSel].duration_ns : '-'));\n"
  "    out.push('spike-root-ns: ' + T.wgt[0]);\n"
  "    out.push('spike-frame-names: ' + unique(RN.map(label), 200).join('|'));\n"
  "    out.push('spike-row-names: ' + rowNames());\n"
  "    var top = -1, s = spikeSel >= 0 ? spikeStats[spikeSel] : null;\n"
  "    for (var g = 0; s && g < s.self.length; g++)\n"
  "      if (!fzone[g] && s.self[g] > 0 && (top < 0 || s.self[g] > s.self[top])) top = g;\n"
  "    out.push('spike-top-function: ' + (top >= 0 ? fname[top] : '-'));\n"
  "    var own = -1;\n"
  "    for (g = 0; s && g < s.self.length; g++) if (fname[g] === OPT.open) own = s.self[g];\n"
  "    out.push('spike-open-self-ns: ' + own);\n"
  "    out.push('spike-crumbs: ' + $('crumbs').textContent);\n"
  "    out.push('spike-info: ' + $('frinfo').textContent);\n"
  "    $('whole').click();\n"
  "    var t1 = performance.now();\n"
  "    renderLiveTable();\n"
  "    out.push('table-ms: ' + (performance.now() - t1).toFixed(1));\n"
  "    out.push('after-live-button: ' + (T === whole ? 'live' : T.rootLabel));\n"
  "    out.push('live-rows: ' + document.querySelectorAll('#rows tr').length);\n"
  "    out.push('live-row-names: ' + rowNames());\n"
  "    out.push('live-heads: ' + Array.prototype.map.call(document.querySelectorAll('#heads th'), function (th) {\n"
  "      return th.getAttribute('data-k'); }).join('|'));\n"
  "    $('win-recent').click();\n"
  "    out.push('window: ' + $('tbwhat').textContent);\n"
  "    $('win-start').click();\n"
  "    out.push('memory-info: ' + $('meminfo').textContent);\n"
  "    out.push('status: ' + $('lstatus').textContent);\n"
  "    out.push('counters: ' + $('counters').textContent);\n"
  "    $('rfmt').value = 'html';\n"
  "    $('rep').click();\n"
  "    out.push('report-asked: ' + cmdId);\n"
  "    step = 'ack';\n"
  "  };\n"
  "  /* arrival less the frame's own time (the clocks differ by a constant):\n"
  "  ** over frames that came live, how much later than the quickest one a\n"
  "  ** frame reached the page (batching, the network thread, this page) */\n"
  "  var latencyStep = function () {\n"
  "    var lat = LM.frames.filter(function (fr) { return !fr.caughtUp; }).slice(-LF).map(function (fr) {\n"
  "      return fr.arrived - fr.t_ns / 1e6;\n"
  "    });\n"
  "    var lo = Math.min.apply(null, lat);\n"
  "    lat = lat.map(function (v) { return v - lo; }).sort(function (a, c) { return a - c; });\n"
  "    out.push('arrival-spread-ms: median ' + lat[Math.floor(lat.length / 2)].toFixed(1) + ', p95 ' +\n"
  "      lat[Math.floor(lat.length * 0.95)].toFixed(1) + ', max ' + lat[lat.length - 1].toFixed(1) +\n"
  "      ' over ' + lat.length + ' frames');\n"
  "    done('done');\n"
  "  };\n"
  "  var ackStep = function () {\n"
  "    out.push('ack: ' + (lastAck.ok ? 'ok' : 'failed') + ' ' + lastAck.format + ' ' + (lastAck.href || '-'));\n"
  "    out.push('ack-line: ' + ($('acks').firstChild ? $('acks').firstChild.textContent : '-'));\n"
  "    step = 'fetch';\n"
  "    if (!lastAck.href) { step = 'latency'; poll(); return; }\n"
  "    fetch(lastAck.href).then(function (r) {\n"
  "      return r.text().then(function (body) {\n"
  "        out.push('download: ' + r.status + ' ' + body.length + ' bytes' +\n"
  "          (body.indexOf('<title>luainstr profile</title>') >= 0 ? ' an html report' : ''));\n"
  "        step = 'latency';\n"
  "        poll();\n"
  "      });\n"
  "    }, function (e) { out.push('download: failed ' + e.message); step = 'latency'; poll(); });\n"
  "  };\n"
  "  var poll = function () {\n"
  "    if (performance.now() - t0 > 120000) {\n"
  "      out.push('waited-for: ' + step + ' (' + LM.received + ' frames, ' + SPK.length + ' spikes, ' +\n"
  "        (LM.tableT > 0 ? 'a table' : 'no table') + ', ' + LM.mem.length + ' memory figures, ' + connText + ')');\n"
  "      done('timeout');\n"
  "      return;\n"
  "    }\n"
  "    if (step === 'frames' && LM.received >= 30 && LM.tableT > 0 && LM.mem.length > 0 && FC.spikeBars > 0 && wanted() >= 0) spikeStep();\n"
  "    else if (step === 'ack' && lastAck !== null) { ackStep(); return; }\n"
  "    else if (step === 'latency' && LM.frames.filter(function (fr) { return !fr.caughtUp; }).length >= 120) {\n"
  "      latencyStep();\n"
  "      return;\n"
  "    }\n"
  "    setTimeout(poll, 200);\n"
  "  };\n"
  "  poll();\n"
  "}\n"
  "if (OPT.selftest) liveSelftest();\n"
  "})();\n";

/* ---- JSON text from any bytes ------------------------------------------- */

/* ---- SHA-256 (FIPS 180-4), for the script's hash in the policy ---------- */

static const uint32_t sha_k[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
  0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t ror(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const unsigned char *b) {
  uint32_t w[64], v[8];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
           (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(v, h, sizeof v);
  for (int i = 0; i < 64; i++) {
    uint32_t s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
    uint32_t t1 = v[7] + s1 + ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
    uint32_t s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
    uint32_t t2 = s0 + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
    memmove(v + 1, v, 7 * sizeof v[0]);
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (int i = 0; i < 8; i++) h[i] += v[i];
}

/* A hash in progress: the script is hashed in its parts (script_core, then
** script_report or script_live), as one text. */
typedef struct sha256_ctx {
  uint32_t h[8];
  unsigned char buf[64];   /* the bytes of the block not yet full */
  size_t nbuf;
  uint64_t len;            /* bytes so far */
} sha256_ctx;

static void sha256_init(sha256_ctx *c) {
  static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  memcpy(c->h, h0, sizeof h0);
  c->nbuf = 0;
  c->len = 0;
}

static void sha256_update(sha256_ctx *c, const void *data, size_t len) {
  const unsigned char *p = data;
  c->len += len;
  while (len > 0) {
    size_t n = 64 - c->nbuf < len ? 64 - c->nbuf : len;
    memcpy(c->buf + c->nbuf, p, n);
    c->nbuf += n;
    p += n;
    len -= n;
    if (c->nbuf == 64) {
      sha256_block(c->h, c->buf);
      c->nbuf = 0;
    }
  }
}

static void sha256_final(sha256_ctx *c, unsigned char out[32]) {
  static const unsigned char pad[64] = { 0x80 };
  unsigned char bits[8];
  uint64_t nbits = c->len * 8;
  for (int i = 0; i < 8; i++) bits[i] = (unsigned char)(nbits >> (56 - 8 * i));
  sha256_update(c, pad, c->nbuf < 56 ? 56 - c->nbuf : 120 - c->nbuf);
  sha256_update(c, bits, 8);
  for (int i = 0; i < 32; i++) out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

/* 'sha256-<base64>' of the page's script (script_core then rest), as CSP
** wants it. */
static void script_hash(const char *rest, char out[64]) {
  static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned char d[33] = { 0 };
  char *o = out + strlen(strcpy(out, "sha256-"));
  sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, script_core, sizeof script_core - 1);
  sha256_update(&c, rest, strlen(rest));
  sha256_final(&c, d);
  for (int i = 0; i < 33; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
    *o++ = b64[v >> 18 & 63];
    *o++ = b64[v >> 12 & 63];
    *o++ = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
    *o++ = i + 2 < 32 ? b64[v & 63] : '=';
  }
  *o = '\0';
}

/* ---- the data ----------------------------------------------------------- */

typedef struct src_ref {
  const char *source;   /* a function's source ("" for NULL) */
  uint32_t func;        /* its index in p->funcs */
} src_ref;

static int cmp_src(const void *a, const void *b) {
  const src_ref *x = a, *y = b;
  int c = strcmp(x->source, y->source);
  return c != 0 ? c : (x->func > y->func) - (x->func < y->func);
}

/* "sources": each distinct source once; srcid[i] is function i's. */
static int put_sources(FILE *f, const li_profile *p, uint32_t *srcid) {
  src_ref *r = malloc(((size_t)p->nfuncs + 1) * sizeof *r);
  uint32_t n = 0;
  if (r == NULL) {
    errno = ENOMEM;
    return -1;
  }
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    r[i].source = p->funcs[i].source != NULL ? p->funcs[i].source : "";
    r[i].func = i;
  }
  qsort(r, p->nfuncs, sizeof *r, cmp_src);
  fputs("\"sources\":[", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    if (i == 0 || strcmp(r[i].source, r[i - 1].source) != 0) {
      if (n++ > 0) putc(',', f);
      li_json_string(f, r[i].source);
    }
    srcid[r[i].func] = n - 1;
  }
  fputs("],\n", f);
  free(r);
  return 0;
}

/* "memory" figures as an array, ORDER FMW (and NMW: its first 6) in
** script_core. */
static void put_mem(FILE *f, const li_pmem *m, int n) {
  uint64_t v[8] = { m->alloc_bytes, m->alloc_count, m->alloc_bytes_total,
                    m->alloc_count_total, m->free_bytes, m->live_bytes,
                    m->peak_live_bytes, m->max_alloc_bytes };
  for (int i = 0; i < n; i++) fprintf(f, "%s%" PRIu64, i > 0 ? "," : "", v[i]);
}

static void put_summary(FILE *f, const li_profile *p) {
  double pair = isfinite(p->probe_pair_ns) ? p->probe_pair_ns : 0;
  fprintf(f, "\"summary\":{\"wall_ns\":%" PRIu64 ",\"probes\":%" PRIu64
          ",\"overhead_ns\":%" PRIu64 ",\"probe_pair_ns\":%.3f,\"clock\":",
          p->wall_ns, p->probes, p->overhead_ns, pair);
  li_json_string(f, p->clock != NULL ? p->clock : "unknown");
  fprintf(f, ",\"open_calls\":%" PRIu32 ",\"tracing\":%d,\"nevents\":%" PRIu64
          ",\"events_dropped\":%" PRIu64 ",\"trace_capacity\":%" PRIu64,
          p->open_calls, p->tracing != 0, p->nevents, p->events_dropped,
          p->trace_capacity);
  if (p->count_small > 0)
    fprintf(f, ",\"count_small\":%" PRIu32 ",\"count_probe_ns\":%.3f",
            p->count_small, isfinite(p->count_probe_ns) ? p->count_probe_ns : 0);
  if (p->framing) {
    double factor = isfinite(p->spike_factor) ? p->spike_factor : 0;
    fprintf(f, ",\n\"framing\":{\"frames_marked\":%" PRIu64 ",\"frame_capacity\":%"
            PRIu64 ",\"spike_factor\":%.3f,\"spike_min_ns\":%" PRIu64
            ",\"spike_keep\":%" PRIu32 ",\"spikes_seen\":%" PRIu64 "}",
            p->frames_marked, p->frame_capacity, factor, p->spike_min_ns,
            p->spike_keep, p->spikes_seen);
  }
  if (p->memory) {
    fputs(",\n\"memory\":{\"outside\":[", f);
    put_mem(f, &p->mem_outside, 8);
    fprintf(f, "],\"blocks\":%" PRIu64 ",\"map_bytes\":%" PRIu64
            ",\"untracked_frees\":%" PRIu64 "}",
            p->mem_blocks, p->mem_map_bytes, p->mem_untracked_frees);
  }
  fputs("},\n", f);
}

/* "warnings": one string per line of p->warnings. */
static void put_warnings(FILE *f, const char *w) {
  int first = 1;
  fputs("\"warnings\":[", f);
  while (w != NULL && *w != '\0') {
    const char *nl = strchr(w, '\n');
    size_t len = nl != NULL ? (size_t)(nl - w) : strlen(w);
    char *line = malloc(len + 1);
    if (line != NULL) {
      memcpy(line, w, len);
      line[len] = '\0';
      if (!first) putc(',', f);
      li_json_string(f, line);
      first = 0;
      free(line);
    }
    w += len + (nl != NULL);
  }
  fputs("],\n", f);
}

/* "names" and "funcs": source id, line, lastline, calls, errors, total,
** self, min, max (ORDER FW in script_core); "zones": the indexes of the
** zones; in memory mode "fmem": 8 memory figures per function (ORDER FMW). */
static void put_funcs(FILE *f, const li_profile *p, const uint32_t *srcid) {
  fputs("\"names\":[", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    if (i > 0) fputs(i % 16 == 0 ? ",\n" : ",", f);
    li_json_string(f, p->funcs[i].name);
  }
  fputs("],\n\"funcs\":[", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *fn = &p->funcs[i];
    fprintf(f, "%s%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            i == 0 ? "\n" : ",\n", srcid[i], fn->line, fn->lastline, fn->calls,
            fn->errors, fn->total_ns, fn->self_ns, fn->min_ns, fn->max_ns);
  }
  /* "ferr": the uncertainty of total, self, min, max (ORDER EW) */
  fputs("],\n\"ferr\":[", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    const li_pfunc *fn = &p->funcs[i];
    fprintf(f, "%s%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            i == 0 ? "\n" : ",\n", fn->total_err_ns, fn->self_err_ns,
            fn->min_err_ns, fn->max_err_ns);
  }
  fputs("],\n\"zones\":[", f);
  for (uint32_t i = 0, n = 0; i < p->nfuncs; i++)
    if (p->funcs[i].zone) fprintf(f, "%s%" PRIu32, n++ > 0 ? "," : "", i);
  fputs("],\n", f);
  if (p->count_small > 0) {     /* counted, not timed (--count-small) */
    fputs("\"counted\":[", f);
    for (uint32_t i = 0, n = 0; i < p->nfuncs; i++)
      if (p->funcs[i].counted) fprintf(f, "%s%" PRIu32, n++ > 0 ? "," : "", i);
    fputs("],\n", f);
  }
  if (!p->memory) return;
  fputs("\"fmem\":[", f);
  for (uint32_t i = 0; i < p->nfuncs; i++) {
    fputs(i == 0 ? "\n" : ",\n", f);
    put_mem(f, &p->funcs[i].mem, 8);
  }
  fputs("],\n", f);
}

/* "nodes": function (-1: the root or an index out of range), distance back
** to the parent, calls, total, self (ORDER NW in script_core); then the
** errors of the nodes that have any, as node, errors pairs; in memory mode
** "nmem": 6 memory figures per node (ORDER NMW).  The whole run's tree and
** each spike frame's are written alike. */
static void put_tree(FILE *f, const li_pnode *nodes, uint32_t nnodes,
                     uint32_t nfuncs, int memory) {
  fputs("\"nodes\":[", f);
  if (nnodes == 0) fputs("\n-1,0,0,0,0", f);
  for (uint32_t i = 0; i < nnodes; i++) {
    const li_pnode *nd = &nodes[i];
    long long fn = i > 0 && nd->func < nfuncs ? (long long)nd->func : -1;
    uint32_t back = i > 0 && nd->parent < i ? i - nd->parent : i;
    fprintf(f, "%s%lld,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            i == 0 ? "\n" : ",\n", fn, back, nd->calls, nd->total_ns, nd->self_ns);
  }
  fputs("],\n\"node_errors\":[", f);
  for (uint32_t i = 0, n = 0; i < nnodes; i++)
    if (nodes[i].errors > 0)
      fprintf(f, "%s%" PRIu32 ",%" PRIu64, n++ > 0 ? "," : "", i, nodes[i].errors);
  fputs("]", f);
  if (!memory) return;
  fputs(",\n\"nmem\":[", f);
  for (uint32_t i = 0; i < nnodes; i++) {
    fputs(i == 0 ? "\n" : ",\n", f);
    put_mem(f, &nodes[i].mem, 6);
  }
  fputs("]", f);
}

/* "frames": index, start, duration, calls, allocated bytes, spike (its
** index in "spikes" + 1, or 0), idle time per kept frame (ORDER FRW in
** script_core),
** and "spikes": each kept spike frame's call tree. */
static void put_frames(FILE *f, const li_profile *p) {
  uint64_t nframes = p->frames != NULL ? p->nframes : 0;
  uint32_t nspikes = p->spikes != NULL ? p->nspikes : 0;
  fputs(",\n\"frames\":[", f);
  for (uint64_t i = 0; i < nframes; i++) {
    const li_pframe *fr = &p->frames[i];
    uint32_t spike = fr->spike <= nspikes ? fr->spike : 0;
    fprintf(f, "%s%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32
            ",%" PRIu64, i == 0 ? "\n" : i % 4 == 0 ? ",\n" : ",", fr->index,
            fr->start_ns, fr->duration_ns, fr->calls, fr->alloc_bytes, spike,
            fr->idle_ns);
  }
  fputs("],\n\"spikes\":[", f);
  for (uint32_t i = 0; i < nspikes; i++) {
    const li_pspike *sp = &p->spikes[i];
    fprintf(f, "%s{\"frame\":%" PRIu64 ",\"duration_ns\":%" PRIu64 ",\n",
            i == 0 ? "\n" : ",\n", sp->frame, sp->duration_ns);
    put_tree(f, sp->nodes, sp->nodes != NULL ? sp->nnodes : 0, p->nfuncs, p->memory);
    fputs("}", f);
  }
  fputs("]", f);
}

/* ---- the heap view's data (docs/heap.md) --------------------------------- */

/* JSON text (luaheap's) into the data block: '<', '>' and '&', which JSON
** has only inside strings, as \u003c, \u003e, \u0026, so that no string
** can close the block or open a comment whatever escapes the writer used. */
static void put_json_html(FILE *f, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '<' || c == '>' || c == '&') fprintf(f, "\\u%04x", (unsigned)c);
    else putc(c, f);
  }
}

/* One of luaheap's reports (lh_write_summary_json when b is NULL, else
** lh_write_diff_json of a and b), or {"file": a, "error": why} when it
** failed: made in memory first, so a failure midway writes no half JSON. */
static void put_heap_report(FILE *f, const char *a, const char *b) {
  char err[512] = "";
  char *buf = NULL;
  size_t len = 0;
  int st = -1;
  FILE *m = open_memstream(&buf, &len);
  if (m != NULL) {
    st = b == NULL ? lh_write_summary_json(m, a, err, sizeof err)
                   : lh_write_diff_json(m, a, b, NULL, err, sizeof err);
    if (fclose(m) != 0 && st == 0) {
      st = -1;
      snprintf(err, sizeof err, "%s", strerror(errno));
    }
  } else {
    snprintf(err, sizeof err, "%s", strerror(errno));
  }
  if (st == 0 && len > 0) {
    put_json_html(f, buf, len);
  } else {
    fputs("{\"file\":", f);
    li_json_string(f, a);
    fputs(",\"error\":", f);
    li_json_string(f, err[0] != '\0' ? err : "unknown error");
    putc('}', f);
  }
  free(buf);
}

/* "heap": the snapshot files, luaheap's summary of each, and its diff of
** the first and the last (null with one snapshot). */
static void put_heap(FILE *f, const li_profile *p) {
  uint32_t n = p->nheap_files;
  fputs(",\n\"heap\":{\"files\":[", f);
  for (uint32_t i = 0; i < n; i++) {
    if (i > 0) putc(',', f);
    li_json_string(f, p->heap_files[i] != NULL ? p->heap_files[i] : "");
  }
  fputs("],\n\"summaries\":[", f);
  for (uint32_t i = 0; i < n; i++) {
    fputs(i > 0 ? ",\n" : "\n", f);
    put_heap_report(f, p->heap_files[i] != NULL ? p->heap_files[i] : "", NULL);
  }
  fputs("],\n\"diff\":", f);
  if (n >= 2 && p->heap_files[0] != NULL && p->heap_files[n - 1] != NULL)
    put_heap_report(f, p->heap_files[0], p->heap_files[n - 1]);
  else
    fputs("null", f);
  putc('}', f);
}

int li_write_html(const li_profile *p, FILE *f) {
  char hash[64];
  uint32_t *srcid = malloc(((size_t)p->nfuncs + 1) * sizeof *srcid);
  if (srcid == NULL) {
    errno = ENOMEM;
    return -1;
  }
  script_hash(script_report, hash);
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src '%s'; style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"luainstr\">\n<style>\n", hash);
  fputs(page_style, f);
  fputs("</style>\n", f);
  fputs(page_body, f);
  fputs(page_frames, f);
  fputs(page_views, f);
  fputs("<script type=\"application/json\" id=\"li-data\">{\"version\":1,\n", f);
  if (p->version != NULL) {   /* the program's version, as the json report's */
    fputs("\"luainstr\":", f);
    li_json_string(f, p->version);
    fputs(",\n", f);
  }
  put_summary(f, p);
  put_warnings(f, p->warnings);
  if (put_sources(f, p, srcid) != 0) {
    free(srcid);
    return -1;
  }
  put_funcs(f, p, srcid);
  free(srcid);
  put_tree(f, p->nodes, p->nnodes, p->nfuncs, p->memory);
  if (p->framing) put_frames(f, p);
  if (p->heap_files != NULL && p->nheap_files > 0) put_heap(f, p);
  fputs("}</script>\n<script>", f);
  fputs(script_core, f);
  fputs(script_report, f);
  fputs("</script>\n</body>\n</html>\n", f);
  return ferror(f) ? -1 : 0;
}

/* The page the live server serves (docs/live-protocol.md): the same
** application with no profile; its data block holds only what the page
** cannot learn from the messages (the report formats a command may ask
** for).  Its policy lets it connect to its own origin (the WebSocket at
** /live, and the self-test's fetch of a download) and nowhere else. */
int li_write_html_live(FILE *f) {
#define LI_FORMAT_NAME(id, name, binary) name,
  static const char *const formats[] = { LI_REPORT_FORMATS(LI_FORMAT_NAME) };
#undef LI_FORMAT_NAME
  char hash[64];
  script_hash(script_live, hash);
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src '%s'; style-src 'unsafe-inline'; connect-src 'self'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"luainstr\">\n<style>\n", hash);
  fputs(page_style, f);
  fputs(live_style, f);
  fputs("</style>\n", f);
  fputs(live_top, f);
  fputs(page_frames, f);
  fputs(live_middle, f);
  fputs(page_views, f);
  fputs("<script type=\"application/json\" id=\"li-data\">{\"version\":1,\n"
        "\"live\":{\"formats\":[", f);
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    if (i > 0) putc(',', f);
    li_json_string(f, formats[i]);
  }
  fputs("]},\n\"summary\":{\"wall_ns\":0},\"warnings\":[],\"sources\":[],\"names\":[],"
        "\"funcs\":[],\"zones\":[],\"nodes\":[],\"node_errors\":[]}</script>\n<script>", f);
  fputs(script_core, f);
  fputs(script_live, f);
  fputs("</script>\n</body>\n</html>\n", f);
  return ferror(f) ? -1 : 0;
}
