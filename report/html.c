/*
** html.c -- the `html` report: one self-contained page (no network: its
** script and style are inline, and its Content-Security-Policy allows no
** other script and no load at all) with the run's summary, an interactive
** flame graph of the call tree drawn on a <canvas>, and a sortable table of
** the functions.
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
** rows it drew, clicks a frame and records the zoom, into <pre id=selftest>
** (tests/report/html_chromium.sh reads it from a headless browser).
*/
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  "tbody tr:hover { background: #fff3e4; cursor: pointer; }\n";

/* the rest of <head>, and the page's static markup */
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
  "</section>\n"
  "<section>\n"
  "<h2>Flame graph</h2>\n"
  "<div class=\"bar\">\n"
  "<button id=\"reset\" type=\"button\">Reset zoom</button>\n"
  "<input id=\"search\" type=\"search\" placeholder=\"Search function or source (substring)\" autocomplete=\"off\" spellcheck=\"false\">\n"
  "<span id=\"match\"></span>\n"
  "</div>\n"
  "<div id=\"crumbs\"></div>\n"
  "<div id=\"fgwrap\"><canvas id=\"fg\" width=\"0\" height=\"0\"></canvas></div>\n"
  "<p class=\"hint\">Width is inclusive time, each row one call depth (callers above callees).\n"
  "Click a frame to zoom into it; click a frame above it, the root (all) or Reset zoom to zoom out.\n"
  "Hover for details. The search also filters the table.</p>\n"
  "</section>\n"
  "<section>\n"
  "<h2>Functions</h2>\n"
  "<div class=\"bar\"><span id=\"tcount\"></span></div>\n"
  "<table>\n"
  "<thead><tr><th class=\"t\" data-k=\"name\">function</th><th class=\"t\" data-k=\"src\">source:line</th><th data-k=\"calls\">calls</th><th data-k=\"total\">total</th><th data-k=\"self\">self</th><th data-k=\"pct\">self%</th><th data-k=\"min\">min</th><th data-k=\"max\">max</th><th data-k=\"errors\">errors</th></tr></thead>\n"
  "<tbody id=\"rows\"></tbody>\n"
  "</table>\n"
  "<div class=\"bar\"><button id=\"more\" type=\"button\" hidden></button><button id=\"all\" type=\"button\" hidden>Show all</button></div>\n"
  "</section>\n"
  "<noscript><p>This report draws its flame graph and table with JavaScript.</p></noscript>\n"
  "<pre id=\"selftest\" hidden></pre>\n"
  "</main>\n"
  "<div id=\"tip\"></div>\n";

/* the page's script; its SHA-256 goes into the Content-Security-Policy */
static const char page_script[] =
  "(function () {\n"
  "'use strict';\n"
  "/* The data: D.funcs holds FW numbers per function, D.nodes NW per call-tree\n"
  "** node (node 0 the root, parents first; parent stored as a backward\n"
  "** distance).  Every name reaches the page through textContent, title or\n"
  "** fillText only, never as markup. */\n"
  "/* ORDER FW, ORDER NW: the number of fields html.c writes per function and\n"
  "** per node */\n"
  "var D = JSON.parse(document.getElementById('li-data').textContent);\n"
  "var S = D.summary, NAMES = D.names, SRCS = D.sources, FA = D.funcs, NA = D.nodes;\n"
  "var FW = 9, NW = 5, PAGE = 500, ROW = 18, MINW = 0.5, MAXPX = 30000;\n"
  "var NF = NAMES.length, NN = Math.max(1, Math.floor(NA.length / NW));\n"
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
  "function fmtNs(v) {\n"
  "  var units = ['ns', 'us', 'ms', 's'], u = 0;\n"
  "  if (v < 999.5) return Math.round(v) + ' ns';\n"
  "  while (v >= 999.5 && u < 3) { v /= 1000; u++; }\n"
  "  if (v >= 999.5) return Math.round(v) + ' s';\n"
  "  return (v >= 99.95 ? v.toFixed(0) : v >= 9.995 ? v.toFixed(1) : v.toFixed(2)) + ' ' + units[u];\n"
  "}\n"
  "function pct(x, base) { return base > 0 ? (100 * x / base).toFixed(1) + '%' : '-'; }\n"
  "function hash(s) {\n"
  "  var h = 2166136261;\n"
  "  for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }\n"
  "  return h >>> 0;\n"
  "}\n"
  "\n"
  "/* ---- functions ---- */\n"
  "var fname = new Array(NF), fwhere = new Array(NF), fcolor = new Array(NF);\n"
  "var fsearch = new Array(NF), fmatch = new Uint8Array(NF);\n"
  "/* warm colours: the hue says the source file, shade the function */\n"
  "var srcHue = SRCS.map(function (s) { return hash(s) % 40; });\n"
  "for (var f = 0; f < NF; f++) {\n"
  "  var line = FA[f * FW + 1], h2 = hash(NAMES[f]);\n"
  "  fname[f] = disp(NAMES[f]);\n"
  "  fwhere[f] = disp(SRCS[FA[f * FW]]) + ':' + (line === 0 ? 'main' : line);\n"
  "  fsearch[f] = (fname[f] + '\\n' + fwhere[f]).toLowerCase();\n"
  "  fcolor[f] = 'hsl(' + (srcHue[FA[f * FW]] + h2 % 14) + ',' + (70 + (h2 >>> 4) % 22) +\n"
  "    '%,' + (55 + (h2 >>> 9) % 16) + '%)';\n"
  "}\n"
  "function fcol(f, k) { return FA[f * FW + k]; }\n"
  "\n"
  "/* ---- call tree ---- */\n"
  "var nfunc = new Int32Array(NN), npar = new Int32Array(NN), ncalls = new Float64Array(NN);\n"
  "var ntotal = new Float64Array(NN), nself = new Float64Array(NN), nerr = new Float64Array(NN);\n"
  "var depth = new Int32Array(NN), wgt = new Float64Array(NN), sumc = new Float64Array(NN);\n"
  "var i, j;\n"
  "nfunc[0] = -1;\n"
  "for (i = 0; i < NN && NA.length >= NW; i++) {\n"
  "  var b = i * NW, fi = NA[b], p = i - NA[b + 1];\n"
  "  if (i > 0) {\n"
  "    nfunc[i] = fi >= 0 && fi < NF ? fi : -1;\n"
  "    npar[i] = p >= 0 && p < i ? p : 0;\n"
  "  }\n"
  "  ncalls[i] = NA[b + 2]; ntotal[i] = NA[b + 3]; nself[i] = NA[b + 4];\n"
  "}\n"
  "for (i = 0; i + 1 < D.node_errors.length; i += 2)\n"
  "  if (D.node_errors[i] < NN) nerr[D.node_errors[i]] = D.node_errors[i + 1];\n"
  "/* a frame is at least as wide as its children, even if the figures disagree */\n"
  "for (i = NN - 1; i >= 1; i--) {\n"
  "  wgt[i] = Math.max(ntotal[i], sumc[i]);\n"
  "  sumc[npar[i]] += wgt[i];\n"
  "}\n"
  "wgt[0] = Math.max(ntotal[0], sumc[0]);\n"
  "var maxDepth = 0;\n"
  "for (i = 1; i < NN; i++) {\n"
  "  depth[i] = depth[npar[i]] + 1;\n"
  "  if (depth[i] > maxDepth) maxDepth = depth[i];\n"
  "}\n"
  "/* children, heaviest first */\n"
  "var cstart = new Int32Array(NN + 1), kids = new Int32Array(Math.max(1, NN - 1));\n"
  "for (i = 1; i < NN; i++) cstart[npar[i] + 1]++;\n"
  "for (i = 0; i < NN; i++) cstart[i + 1] += cstart[i];\n"
  "var fill = cstart.slice(0, NN);\n"
  "for (i = 1; i < NN; i++) kids[fill[npar[i]]++] = i;\n"
  "function heavier(a, c) { return wgt[c] - wgt[a] || a - c; }\n"
  "for (i = 0; i < NN; i++) {\n"
  "  var a0 = cstart[i], a1 = cstart[i + 1];\n"
  "  if (a1 - a0 > 1) {\n"
  "    var sub = Array.prototype.slice.call(kids, a0, a1).sort(heavier);\n"
  "    for (j = 0; j < sub.length; j++) kids[a0 + j] = sub[j];\n"
  "  }\n"
  "}\n"
  "function label(n) { return n === 0 ? 'all' : nfunc[n] < 0 ? '?' : fname[nfunc[n]]; }\n"
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
  "  var chain = [];\n"
  "  for (var a = zoom; a !== 0; a = npar[a]) chain.push(a);\n"
  "  chain.push(0);\n"
  "  chain.reverse();\n"
  "  for (var k = 0; k + 1 < chain.length; k++) {\n"
  "    RX.push(0); RW.push(W); RD.push(depth[chain[k]]); RN.push(chain[k]);\n"
  "  }\n"
  "  var scale = wgt[zoom] > 0 ? W / wgt[zoom] : 0, stack = [zoom], xs = [0];\n"
  "  while (stack.length > 0) {\n"
  "    var v = stack.pop(), x = xs.pop(), w = v === zoom ? W : wgt[v] * scale;\n"
  "    if (depth[v] > maxRow) continue;\n"
  "    RX.push(x); RW.push(w); RD.push(depth[v]); RN.push(v);\n"
  "    var cx = x;\n"
  "    for (var c = cstart[v]; c < cstart[v + 1]; c++) {\n"
  "      var cw = wgt[kids[c]] * scale;\n"
  "      if (cw < MINW) break;                 /* the rest are narrower still */\n"
  "      stack.push(kids[c]); xs.push(cx);\n"
  "      cx += cw;\n"
  "    }\n"
  "  }\n"
  "}\n"
  "\n"
  "function draw() {\n"
  "  var t0 = performance.now();\n"
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
  "    var n = RN[k], x = RX[k], w = RW[k], y = RD[k] * ROW, f = nfunc[n];\n"
  "    var matched = term !== '' && f >= 0 && fmatch[f];\n"
  "    ctx.fillStyle = matched ? '#d946ef' : n === 0 ? '#cfc6bb' :\n"
  "      depth[n] < depth[zoom] ? '#e6ded4' : f < 0 ? '#bbb' : fcolor[f];\n"
  "    ctx.fillRect(x, y, w > 2 ? w - 1 : w, ROW - 1);\n"
  "    if (w < 28) continue;\n"
  "    var text = label(n), room = Math.floor((w - 6) / cw);\n"
  "    if (room < 3) continue;\n"
  "    if (text.length > room) text = text.slice(0, room - 1) + '\\u2026';\n"
  "    ctx.fillStyle = '#1b1410';\n"
  "    ctx.fillText(text, x + 3, y + ROW / 2);\n"
  "  }\n"
  "  var path = [];\n"
  "  for (var a = zoom; a !== 0; a = npar[a]) path.push(label(a));\n"
  "  path.push('all');\n"
  "  $('crumbs').textContent = 'view: ' + path.reverse().join(' \\u203a ') +\n"
  "    ' (' + fmtNs(wgt[zoom]) + ', ' + pct(wgt[zoom], wgt[0]) + ' of all)';\n"
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
  "canvas.addEventListener('click', function (ev) {\n"
  "  var n = hit(ev);\n"
  "  if (n >= 0) setZoom(n === zoom ? npar[n] : n);\n"
  "});\n"
  "canvas.addEventListener('mousemove', function (ev) {\n"
  "  var n = hit(ev);\n"
  "  if (n < 0) { tip.style.display = 'none'; return; }\n"
  "  var lines = [], f = nfunc[n], t = n === 0 ? wgt[0] : ntotal[n];\n"
  "  if (n === 0) {\n"
  "    lines.push('all', 'total   ' + fmtNs(wgt[0]));\n"
  "  } else {\n"
  "    lines.push(label(n), f >= 0 ? fwhere[f] : '?',\n"
  "      'total   ' + fmtNs(t) + '   ' + pct(t, wgt[0]) + ' of all' +\n"
  "        (zoom !== 0 ? ', ' + pct(t, wgt[zoom]) + ' of view' : ''),\n"
  "      'self    ' + fmtNs(nself[n]) + '   ' + pct(nself[n], wgt[0]) + ' of all',\n"
  "      'calls   ' + ncalls[n] + (nerr[n] > 0 ? '   errors ' + nerr[n] : ''));\n"
  "  }\n"
  "  tip.textContent = '';\n"
  "  lines.forEach(function (s) { var e = document.createElement('div'); e.textContent = s; tip.appendChild(e); });\n"
  "  tip.style.display = 'block';\n"
  "  var tx = ev.clientX + 14, ty = ev.clientY + 14;\n"
  "  if (tx + tip.offsetWidth > window.innerWidth) tx = Math.max(0, ev.clientX - tip.offsetWidth - 8);\n"
  "  if (ty + tip.offsetHeight > window.innerHeight) ty = Math.max(0, ev.clientY - tip.offsetHeight - 8);\n"
  "  tip.style.left = tx + 'px';\n"
  "  tip.style.top = ty + 'px';\n"
  "});\n"
  "canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });\n"
  "$('reset').addEventListener('click', function () { setZoom(0); });\n"
  "window.addEventListener('resize', function () { draw(); });\n"
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
  "    var v = stack.pop(), c = cov.pop(), m = v !== 0 && nfunc[v] >= 0 && fmatch[nfunc[v]];\n"
  "    if (m) { frames++; if (!c) share += wgt[v]; }\n"
  "    for (var k = cstart[v]; k < cstart[v + 1]; k++) { stack.push(kids[k]); cov.push(c || m ? 1 : 0); }\n"
  "  }\n"
  "  matchEl.textContent = 'matched ' + pct(share, wgt[zoom]) + ' of ' + (zoom === 0 ? 'all' : 'view') +\n"
  "    ' (' + fmtNs(share) + ') in ' + frames + ' frame' + (frames === 1 ? '' : 's');\n"
  "}\n"
  "search.addEventListener('input', onSearch);\n"
  "\n"
  "/* ---- table ---- */\n"
  "var rows = [], base = 0, shown = PAGE, sortKey = 'self', sortDesc = true;\n"
  "for (f = 0; f < NF; f++) if (fcol(f, 3) > 0) { rows.push(f); base += fcol(f, 6); }\n"
  "if (base === 0) base = S.wall_ns;\n"
  "var COLS = { calls: 3, errors: 4, total: 5, self: 6, pct: 6, min: 7, max: 8 };\n"
  "function cmpText(x, y) { return x < y ? -1 : x > y ? 1 : 0; }\n"
  "function compare(a, c) {\n"
  "  var k = COLS[sortKey], r;\n"
  "  if (k !== undefined) r = fcol(a, k) - fcol(c, k);\n"
  "  else if (sortKey === 'name') r = cmpText(fname[a], fname[c]);\n"
  "  else r = cmpText(SRCS[fcol(a, 0)], SRCS[fcol(c, 0)]) || fcol(a, 1) - fcol(c, 1);\n"
  "  if (sortDesc) r = -r;\n"
  "  return r || fcol(c, 6) - fcol(a, 6) || cmpText(fname[a], fname[c]) || a - c;\n"
  "}\n"
  "function cell(tr, text, cls, title) {\n"
  "  var td = document.createElement('td');\n"
  "  td.textContent = text;\n"
  "  if (cls) td.className = cls;\n"
  "  if (title) td.title = title;\n"
  "  tr.appendChild(td);\n"
  "}\n"
  "function renderTable() {\n"
  "  var list = term === '' ? rows : rows.filter(function (f) { return fmatch[f]; });\n"
  "  var tb = $('rows'), frag = document.createDocumentFragment(), n = Math.min(shown, list.length);\n"
  "  for (var k = 0; k < n; k++) {\n"
  "    var f = list[k], tr = document.createElement('tr');\n"
  "    tr.setAttribute('data-f', f);\n"
  "    cell(tr, fname[f], 't', fname[f]);\n"
  "    cell(tr, fwhere[f], 't', fwhere[f]);\n"
  "    cell(tr, String(fcol(f, 3)));\n"
  "    cell(tr, fmtNs(fcol(f, 5)));\n"
  "    cell(tr, fmtNs(fcol(f, 6)));\n"
  "    cell(tr, pct(fcol(f, 6), base));\n"
  "    cell(tr, fmtNs(fcol(f, 7)));\n"
  "    cell(tr, fmtNs(fcol(f, 8)));\n"
  "    cell(tr, String(fcol(f, 4)));\n"
  "    frag.appendChild(tr);\n"
  "  }\n"
  "  tb.textContent = '';\n"
  "  tb.appendChild(frag);\n"
  "  var left = list.length - n, more = $('more');\n"
  "  more.hidden = $('all').hidden = left <= 0;\n"
  "  more.textContent = 'Show ' + Math.min(PAGE, left) + ' more (' + left + ' not shown)';\n"
  "  $('tcount').textContent = 'showing ' + n + ' of ' + list.length + ' functions' +\n"
  "    (term !== '' ? ' matching the search (' + rows.length + ' called)' : ' called') +\n"
  "    '; click a header to sort, a row to search for it';\n"
  "  var ths = document.querySelectorAll('th');\n"
  "  for (k = 0; k < ths.length; k++) {\n"
  "    var th = ths[k], key = th.getAttribute('data-k');\n"
  "    th.textContent = th.textContent.replace(/ [\\u25b2\\u25bc]$/, '') +\n"
  "      (key === sortKey ? (sortDesc ? ' \\u25bc' : ' \\u25b2') : '');\n"
  "  }\n"
  "}\n"
  "function sortBy(key) {\n"
  "  if (key === sortKey) sortDesc = !sortDesc;\n"
  "  else { sortKey = key; sortDesc = key !== 'name' && key !== 'src'; }\n"
  "  rows.sort(compare);\n"
  "  shown = PAGE;\n"
  "  renderTable();\n"
  "}\n"
  "var heads = document.querySelectorAll('th');\n"
  "for (i = 0; i < heads.length; i++)\n"
  "  heads[i].addEventListener('click', function (ev) { sortBy(ev.currentTarget.getAttribute('data-k')); });\n"
  "$('more').addEventListener('click', function () { shown += PAGE; renderTable(); });\n"
  "$('all').addEventListener('click', function () { shown = rows.length; renderTable(); });\n"
  "$('rows').addEventListener('click', function (ev) {\n"
  "  var tr = ev.target.closest('tr');\n"
  "  if (!tr) return;\n"
  "  search.value = fname[+tr.getAttribute('data-f')];\n"
  "  onSearch();\n"
  "});\n"
  "\n"
  "/* ---- summary ---- */\n"
  "function summary() {\n"
  "  var items = [\n"
  "    ['wall time', fmtNs(S.wall_ns)],\n"
  "    ['functions', rows.length + ' of ' + NF + ' called'],\n"
  "    ['call-tree nodes', String(NN - 1)],\n"
  "    ['probes', String(S.probes)],\n"
  "    ['probe cost subtracted', fmtNs(S.overhead_ns)],\n"
  "    ['probe pair', S.probe_pair_ns.toFixed(1) + ' ns'],\n"
  "    ['clock', disp(S.clock)],\n"
  "    ['open frames', String(S.open_frames)],\n"
  "    ['trace events', S.tracing ? S.nevents + ' of ' + S.trace_capacity : 'no trace'],\n"
  "    ['dropped trace events', String(S.events_dropped)],\n"
  "    ['warnings', String(D.warnings.length)]\n"
  "  ];\n"
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
  "    (S.open_frames > 0 ? ', ' + S.open_frames + ' frames still open' : '') +\n"
  "    (S.events_dropped > 0 ? ', ' + S.events_dropped + ' trace events dropped' : '');\n"
  "}\n"
  "\n"
  "/* ---- self-test (file.html#selftest): records what was rendered, clicks a\n"
  "** frame and records the zoom, for a headless browser's --dump-dom ---- */\n"
  "function unique(list, limit) {\n"
  "  var seen = {}, out = [];\n"
  "  for (var k = 0; k < list.length && out.length < limit; k++)\n"
  "    if (!Object.prototype.hasOwnProperty.call(seen, list[k])) { seen[list[k]] = 1; out.push(list[k]); }\n"
  "  return out;\n"
  "}\n"
  "function selftest(renderMs) {\n"
  "  var out = [], t0 = performance.now(), k, best = -1;\n"
  "  out.push('render-ms: ' + renderMs.toFixed(0));\n"
  "  out.push('load-ms: ' + t0.toFixed(0));\n"
  "  out.push('frames: ' + RN.length);\n"
  "  out.push('frame-names: ' + unique(RN.map(label), 200).join('|'));\n"
  "  var tds = document.querySelectorAll('#rows tr td:first-child');\n"
  "  out.push('rows: ' + tds.length);\n"
  "  out.push('row-names: ' + Array.prototype.slice.call(tds, 0, 200).map(function (td) { return td.textContent; }).join('|'));\n"
  "  for (k = 0; k < RN.length; k++)\n"
  "    if (RN[k] !== 0 && RW[k] >= 4 && RW[k] < W - 1 && (best < 0 || RW[k] > RW[best])) best = k;\n"
  "  if (best < 0) for (k = 0; k < RN.length; k++) if (RN[k] !== 0 && (best < 0 || RW[k] > RW[best])) best = k;\n"
  "  if (best >= 0) {\n"
  "    var target = RN[best], r = canvas.getBoundingClientRect();\n"
  "    out.push('click-target: ' + label(target) + ' (node ' + target + ', ' + RW[best].toFixed(1) + ' px)');\n"
  "    var at = { bubbles: true, clientX: r.left + RX[best] + RW[best] / 2,\n"
  "      clientY: r.top + RD[best] * ROW + ROW / 2 };\n"
  "    canvas.dispatchEvent(new MouseEvent('mousemove', at));\n"
  "    out.push('tooltip: ' + Array.prototype.map.call(tip.childNodes, function (e) {\n"
  "      return e.textContent; }).join(' / '));\n"
  "    canvas.dispatchEvent(new MouseEvent('mouseleave', at));\n"
  "    out.push('zoom-before: ' + zoom);\n"
  "    canvas.dispatchEvent(new MouseEvent('click', at));\n"
  "    out.push('zoom-after: ' + zoom + ' ' + label(zoom));\n"
  "    var zw = -1;\n"
  "    for (k = 0; k < RN.length; k++) if (RN[k] === zoom) zw = RW[k];\n"
  "    out.push('zoom-width: ' + zw.toFixed(1) + ' of ' + W);\n"
  "    out.push('frames-after: ' + RN.length);\n"
  "    out.push('frame-names-after: ' + unique(RN.map(label), 200).join('|'));\n"
  "    search.value = fname[nfunc[target]] || '';\n"
  "    onSearch();\n"
  "    out.push('search: ' + matchEl.textContent);\n"
  "    search.value = '';\n"
  "    onSearch();\n"
  "    $('reset').click();\n"
  "    out.push('zoom-reset: ' + zoom);\n"
  "  }\n"
  "  sortBy('name');\n"
  "  out.push('sorted-by-name: ' + document.querySelector('#rows tr td').textContent);\n"
  "  sortBy('self');\n"
  "  out.push('title: ' + document.title);\n"
  "  out.push('scripts: ' + document.scripts.length);\n"
  "  out.push('foreign-elements: ' + document.querySelectorAll('img,iframe,object,embed,svg,link,form,video,audio,style ~ style').length);\n"
  "  out.push('selftest-ms: ' + (performance.now() - t0).toFixed(0));\n"
  "  out.push('selftest: done');\n"
  "  $('selftest').textContent = out.join('\\n');\n"
  "}\n"
  "\n"
  "summary();\n"
  "rows.sort(compare);\n"
  "var ms = draw();\n"
  "renderTable();\n"
  "if (location.hash === '#selftest') selftest(ms);\n"
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

static void sha256(const void *data, size_t len, unsigned char out[32]) {
  uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  const unsigned char *p = data;
  unsigned char last[128] = { 0 };
  size_t full = len / 64 * 64, rest = len - full;
  size_t nlast = rest + 9 <= 64 ? 64 : 128;
  uint64_t bits = (uint64_t)len * 8;
  for (size_t i = 0; i < full; i += 64) sha256_block(h, p + i);
  memcpy(last, p + full, rest);
  last[rest] = 0x80;
  for (int i = 0; i < 8; i++) last[nlast - 1 - i] = (unsigned char)(bits >> (8 * i));
  for (size_t i = 0; i < nlast; i += 64) sha256_block(h, last + i);
  for (int i = 0; i < 32; i++) out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

/* 'sha256-<base64>' of the page's script, as CSP wants it. */
static void script_hash(char out[64]) {
  static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  unsigned char d[33] = { 0 };
  char *o = out + strlen(strcpy(out, "sha256-"));
  sha256(page_script, sizeof page_script - 1, d);
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

static void put_summary(FILE *f, const li_profile *p) {
  double pair = isfinite(p->probe_pair_ns) ? p->probe_pair_ns : 0;
  fprintf(f, "\"summary\":{\"wall_ns\":%" PRIu64 ",\"probes\":%" PRIu64
          ",\"overhead_ns\":%" PRIu64 ",\"probe_pair_ns\":%.3f,\"clock\":",
          p->wall_ns, p->probes, p->overhead_ns, pair);
  li_json_string(f, p->clock != NULL ? p->clock : "unknown");
  fprintf(f, ",\"open_frames\":%" PRIu32 ",\"tracing\":%d,\"nevents\":%" PRIu64
          ",\"events_dropped\":%" PRIu64 ",\"trace_capacity\":%" PRIu64 "},\n",
          p->open_frames, p->tracing != 0, p->nevents, p->events_dropped,
          p->trace_capacity);
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
** self, min, max (ORDER FW in page_script). */
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
  fputs("],\n", f);
}

/* "nodes": function (-1: the root or an index out of range), distance back
** to the parent, calls, total, self (ORDER NW in page_script); then the
** errors of the nodes that have any, as node, errors pairs. */
static void put_nodes(FILE *f, const li_profile *p) {
  fputs("\"nodes\":[", f);
  if (p->nnodes == 0) fputs("\n-1,0,0,0,0", f);
  for (uint32_t i = 0; i < p->nnodes; i++) {
    const li_pnode *nd = &p->nodes[i];
    long long fn = i > 0 && nd->func < p->nfuncs ? (long long)nd->func : -1;
    uint32_t back = i > 0 && nd->parent < i ? i - nd->parent : i;
    fprintf(f, "%s%lld,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
            i == 0 ? "\n" : ",\n", fn, back, nd->calls, nd->total_ns, nd->self_ns);
  }
  fputs("],\n\"node_errors\":[", f);
  for (uint32_t i = 0, n = 0; i < p->nnodes; i++)
    if (p->nodes[i].errors > 0)
      fprintf(f, "%s%" PRIu32 ",%" PRIu64, n++ > 0 ? "," : "", i, p->nodes[i].errors);
  fputs("]", f);
}

int li_write_html(const li_profile *p, FILE *f) {
  char hash[64];
  uint32_t *srcid = malloc(((size_t)p->nfuncs + 1) * sizeof *srcid);
  if (srcid == NULL) {
    errno = ENOMEM;
    return -1;
  }
  script_hash(hash);
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src '%s'; style-src 'unsafe-inline'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"luainstr\">\n<style>\n", hash);
  fputs(page_style, f);
  fputs("</style>\n", f);
  fputs(page_body, f);
  fputs("<script type=\"application/json\" id=\"li-data\">{\"version\":1,\n", f);
  put_summary(f, p);
  put_warnings(f, p->warnings);
  if (put_sources(f, p, srcid) != 0) {
    free(srcid);
    return -1;
  }
  put_funcs(f, p, srcid);
  free(srcid);
  put_nodes(f, p);
  fputs("}</script>\n<script>", f);
  fputs(page_script, f);
  fputs("</script>\n</body>\n</html>\n", f);
  return ferror(f) ? -1 : 0;
}
