#!/usr/bin/env bash
# lua_node.sh -- lua.js (Lua's own lua.c as WebAssembly) as a command named
# like the native interpreter: tests/behaviour/run_luaprof.sh takes it as
# its INTERP, so that luaprof.js is compared with the Lua it is built
# with, in the same engine.  LI_WASM_BIN: the folder of lua.js (default:
# build-wasm/bin here); LI_WASM_LUA: the name lua.c gives itself in its
# messages (default lua5.4; cmake/wasm-node-env.js sets argv[0]).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LI_WASM_ARGV0=${LI_WASM_LUA:-lua5.4} exec node "${LI_WASM_BIN:-$here/../../build-wasm/bin}/lua.js" "$@"
