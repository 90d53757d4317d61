// wasm-node-env.js -- emscripten --pre-js of the node programs (luaprof.js,
// lua.js, luainstr.js): getenv sees the process environment (LUA_PATH,
// LUA_INIT, ...), as a native program does.  emscripten's own ENV holds
// only a few made-up variables.
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function () {
  for (var name in ENV) delete ENV[name];
  for (var key in process.env) ENV[key] = process.env[key];
});
// LI_WASM_ARGV0: the program's argv[0] (emscripten makes it the path of
// the .js file), by which lua.c names itself in its messages:
// tests/wasm/lua_node.sh runs lua.js as "lua5.3".
if (process.env.LI_WASM_ARGV0) Module['thisProgram'] = process.env.LI_WASM_ARGV0;
