/*
** luainstr.js -- the luainstr rewriter in WebAssembly, for JavaScript hosts
** of a Lua VM (wasmoon, fengari-free wasm builds, ...): Lua source in, the
** same source with probe calls spliced in out, never moving a line.
** Usage and the probe protocol: js/README.md of the luainstr sources.
**
**   const luainstr = require("./luainstr.js");     // or import ... .mjs,
**   await luainstr.ready;                          // or <script src>: the
**   luainstr.instrument(src, "@main.lua", { lua: "5.4" });  // global
**
** Built by scripts/js.sh from js/luainstr.in.js: emscripten's output is
** inlined where the GLUE mark is (the .wasm inside it as base64), so all of
** it stays inside this function and this one file is the whole library.
*/
var luainstr = (function () {
"use strict";
// The glue would export its factory itself (CommonJS, AMD); these names
// keep it from seeing the real ones: this file exports only `luainstr`.
var module, exports, define;
/*@GLUE@*/

// Status codes of li_rewrite() (rewriter/rewrite.h).
var LI_OK = 0, LI_PASSTHROUGH = 1, LI_ESYNTAX = 2, LI_EMEM = 3, LI_ETOOBIG = 4, LI_ELIMIT = 5, LI_EREJECT = 6;

var DIALECTS = { "5.1": 51, "5.2": 52, "5.3": 53, "5.4": 54 };

var encoder = new TextEncoder();
var decoder = new TextDecoder("utf-8");
var wasm = null;  // the instantiated module, once `ready` resolved

// A Lua syntax error as luainstr's CLI prints it: `name:line: message`.
// The rewriter's own parse, not Lua's compiler: its message names the
// token it did not expect (luac style), at the same line Lua would give
// for most errors.
function LuaSyntaxError(message, chunkname, line) {
  var e = new Error(message);
  Object.setPrototypeOf(e, LuaSyntaxError.prototype);
  e.chunkname = chunkname;
  e.line = line;
  return e;
}
LuaSyntaxError.prototype = Object.create(Error.prototype, {
  constructor: { value: LuaSyntaxError, writable: true, configurable: true },
  name: { value: "LuaSyntaxError", writable: true, configurable: true }
});

function dialect(options) {
  var lua = options && options.lua !== undefined ? options.lua : "5.4";
  var v = DIALECTS[typeof lua === "number" ? lua.toFixed(1) : String(lua)];
  if (v === undefined)
    throw new TypeError("luainstr: unknown Lua version '" + lua + "' (5.1, 5.2, 5.3 or 5.4)");
  return v;
}

function toBytes(source) {
  if (typeof source === "string") return encoder.encode(source);
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source))
    return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  throw new TypeError("luainstr: source must be a string, a Uint8Array or an ArrayBuffer");
}

// A copy of bytes in the module's memory, NUL-terminated; free with _free.
function place(bytes) {
  var p = wasm._malloc(bytes.length + 1);
  if (!p) throw new RangeError("luainstr: not enough memory");
  wasm.HEAPU8.set(bytes, p);
  wasm.HEAPU8[p + bytes.length] = 0;
  return p;
}

function cstring(p) { return p ? wasm.UTF8ToString(p) : null; }

// The warning lines, each saying where (the chunk's name at least).
function warnings(job) {
  var text = cstring(wasm._lijs_warnings(job)), id = cstring(wasm._lijs_chunkid(job));
  if (!text) return [];
  return text.replace(/\n$/, "").split("\n").map(function (w) {
    return w.indexOf("warning: ") === 0 ? id + ": " + w : w;
  });
}

function functions(job) {
  var n = wasm._lijs_nfuncs(job) >>> 0, list = [];
  for (var id = 1; id <= n; id++) {
    list.push({
      id: id,
      name: cstring(wasm._lijs_func_name(job, id)),
      line: wasm._lijs_func_line(job, id) >>> 0,
      lastline: wasm._lijs_func_lastline(job, id) >>> 0,
      parent: wasm._lijs_func_parent(job, id) >>> 0,
      probed: wasm._lijs_func_probed(job, id) !== 0
    });
  }
  return list;
}

// rewrite(source, chunkname, options) -> { code, instrumented, functions,
// warnings }.  The whole of what the rewriter tells; instrument() is the
// short form.  Throws LuaSyntaxError when the source cannot be parsed.
function rewrite(source, chunkname, options) {
  if (wasm === null)
    throw new Error("luainstr: not ready yet (await luainstr.ready first)");
  var version = dialect(options);
  var skip = !(options && options.skipFirstLine === false);
  var name = chunkname === undefined || chunkname === null ? "=(load)" : String(chunkname);
  var bytes = toBytes(source);
  var job = 0, src = 0, cname = 0;
  try {
    job = wasm._lijs_new();
    if (!job) throw new RangeError("luainstr: not enough memory");
    src = place(bytes);
    cname = place(encoder.encode(name));
    var status = wasm._lijs_rewrite(job, src, bytes.length, cname, version, skip ? 1 : 0);
    if (status === LI_ESYNTAX || status === LI_ELIMIT || status === LI_EREJECT)
      throw LuaSyntaxError(cstring(wasm._lijs_error(job)), name, wasm._lijs_errline(job) >>> 0);
    if (status === LI_ETOOBIG)
      throw new RangeError("luainstr: " + cstring(wasm._lijs_chunkid(job)) + ": too large to instrument");
    if (status !== LI_OK && status !== LI_PASSTHROUGH)
      throw new RangeError("luainstr: not enough memory");
    var p = wasm._lijs_out(job) >>> 0, n = wasm._lijs_outlen(job) >>> 0;
    var out = wasm.HEAPU8.slice(p, p + n);
    return {
      code: typeof source === "string" ? decoder.decode(out) : out,
      instrumented: status === LI_OK,
      functions: functions(job),
      warnings: warnings(job)
    };
  } finally {
    if (cname) wasm._free(cname);
    if (src) wasm._free(src);
    if (job) wasm._lijs_free(job);
  }
}

// instrument(source, chunkname, {lua: "5.4"}) -> the instrumented text
// (a string for a string, a Uint8Array for bytes).  options.warn, if a
// function, gets each warning line (a function left without probes).
function instrument(source, chunkname, options) {
  var r = rewrite(source, chunkname, options);
  if (options && typeof options.warn === "function") r.warnings.forEach(options.warn);
  return r.code;
}

var api = {
  instrument: instrument,
  rewrite: rewrite,
  LuaSyntaxError: LuaSyntaxError,
  ready: null,
  // The key of the probe factory in the string metatable's __index.
  PROBE_KEY: "__luainstr"
};
api.ready = createLuainstrWasm().then(function (m) { wasm = m; return api; });
api.ready.catch(function () {});  // reported to whoever awaits it
return api;
})();
