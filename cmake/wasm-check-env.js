// wasm-check-env.js -- emscripten --pre-js of the web module
// (samples/wasm): under node, LUAINSTR_CHECK from the process environment
// reaches the module's getenv, so that its reports check their figures
// (report/report.c, docs/testing.md) in the tests as a native program's
// do.  (The node programs get the whole environment: wasm-node-env.js.)
if (typeof process === 'object' && process.env && process.env.LUAINSTR_CHECK) {
  Module['preRun'] = Module['preRun'] || [];
  Module['preRun'].push(function () {
    ENV['LUAINSTR_CHECK'] = process.env.LUAINSTR_CHECK;
  });
}
