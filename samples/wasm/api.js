// api.js -- emscripten --post-js of luainstr-web.js: the C API of
// luainstr_web.h as JavaScript functions on the module, M.luainstr.
// Strings are copied out; a C NULL is null here (cwrap's 'string' return
// would make it "").
Module['luainstr'] = (function () {
  var fns = {};
  function fn(name, ret, args) {   // cwrap once the runtime is there
    return function () {
      if (!fns[name]) fns[name] = cwrap(name, ret, args);
      return fns[name].apply(null, arguments);
    };
  }
  function str(ptr) { return ptr ? UTF8ToString(ptr) : null; }
  var run = fn('li_wasm_run', 'number', ['string', 'string']);
  var output = fn('li_wasm_output', 'number', []);
  var report = fn('li_wasm_report', 'number', ['string']);
  var setOption = fn('li_wasm_set_option', 'number', ['string', 'string']);
  var error = fn('li_wasm_error', 'number', []);
  var free = fn('li_wasm_free', null, []);
  return {
    // null, or the error message (with traceback)
    run: function (source, chunkname) { return str(run(source, chunkname == null ? null : chunkname)); },
    // what the last run printed
    output: function () { return str(output()); },
    // the report as a string, or null (then error() says why)
    report: function (format) { return str(report(format == null ? 'text' : format)); },
    // null, or why the option was refused
    setOption: function (name, value) { return str(setOption(name, value == null ? null : String(value))); },
    error: function () { return str(error()); },
    free: function () { free(); }
  };
})();
