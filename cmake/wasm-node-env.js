// wasm-node-env.js -- emscripten --pre-js of the node programs (luaprof.js,
// lua.js, luainstr.js): getenv sees the process environment (LUA_PATH,
// LUA_INIT, ...), as a native program does.  emscripten's own ENV holds
// only a few made-up variables.
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  for (var name in ENV) delete ENV[name];
  for (var key in process.env) ENV[key] = process.env[key];
});
