#!/usr/bin/env bash
# luaprof_node.sh -- `luaprof` as a command, run as WebAssembly by node:
# tests/behaviour/run_luaprof.sh takes it as its LUAPROF_BIN.
# LI_WASM_BIN: the folder of luaprof.js (default: build-wasm/bin here).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec node "${LI_WASM_BIN:-$here/../../build-wasm/bin}/luaprof.js" "$@"
