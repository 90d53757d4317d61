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
  var liveStart = fn('li_wasm_live_start', 'number', ['string', 'string']);
  var liveTick = fn('li_wasm_live_tick', 'number', ['number']);
  var liveRunning = fn('li_wasm_live_running', 'number', []);
  var liveDrain = fn('li_wasm_live_drain', 'number', []);
  var liveCommand = fn('li_wasm_live_command', 'number', ['string']);
  var liveStop = fn('li_wasm_live_stop', 'number', []);
  var livePage = fn('li_wasm_live_page', 'number', []);
  var liveDownload = fn('li_wasm_live_download', 'number', ['number']);
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
    free: function () { free(); },
    // live mode (README.md): null, or the error message
    liveStart: function (source, chunkname) { return str(liveStart(source, chunkname == null ? null : chunkname)); },
    // one frame: tick(dt) and its mark; null, or tick's error
    liveTick: function (dt) { return str(liveTick(dt == null ? 1 / 60 : +dt)); },
    liveRunning: function () { return liveRunning() !== 0; },
    // the messages since the last drain: JSON text of an array, or null
    liveDrain: function () { return str(liveDrain()); },
    // a command (an object or its JSON text): null taken, or why not
    liveCommand: function (cmd) { return str(liveCommand(typeof cmd === 'string' ? cmd : JSON.stringify(cmd))); },
    liveStop: function () { return str(liveStop()); },
    // the live view's page (html), or null
    livePage: function () { return str(livePage()); },
    // the bytes (a Uint8Array) of the file an ack's download "/download/S/N"
    // names, by its N; null when there is none (error() says why)
    liveDownload: function (n) {
      var path = str(liveDownload(n >>> 0));
      return path === null ? null : FS.readFile(path);
    }
  };
})();
