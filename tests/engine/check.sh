#!/usr/bin/env bash
# check.sh -- build tests/engine (a C engine that runs its scripts with
# luaL_dofile, luaL_dostring and lua_load, and resumes coroutines from C)
# against an installed luainstr, run it under each probe and in memory
# mode, and check its json profiles (tests/engine/check.py says what).
#   1. cmake --install BUILD_DIR --prefix TMP/prefix
#   2. build the engine with find_package(luainstr) and with pkg-config;
#   3. runs: --probe fast, --probe direct (CMake build), LUAINSTR_PROBE=api
#      (the environment), --memory (pkg-config build);
#   4. the same engine built without luainstr_wrap.h (-DENGINE_NO_WRAP):
#      check.py must fail, and the report must name luainstr_wrap.h; and
#      with it but resuming with Lua's own lua_resume
#      (-DENGINE_PLAIN_RESUME): the profiler infers the resumes, so every
#      figure must check as with the header, and the report must say it
#      inferred them (check.py --inferred).
#
#   check.sh BUILD_DIR SOURCE_DIR [LUA]
# LUA: 5.4 (the default), or jit: the engine built for LuaJIT against
# libluainstrjit (find_package's luainstr::luainstrjit, pkg-config
# luainstrjit), run under the probes LuaJIT has (its default, api, and
# ffi where the build has it), the same checks.
# Exits 0 when everything passed, 1 at the first failure.  ENGINE_TICKS
# overrides the ticks (60), ENGINE_ATTEMPTS the runs allowed when only the
# time checks failed (3); KEEP=1 keeps the scratch directory.
set -euo pipefail

[[ $# -eq 2 || $# -eq 3 ]] || { echo "usage: check.sh BUILD_DIR SOURCE_DIR [5.4|jit]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
LUA=${3:-5.4}
case $LUA in
  5.4) PC=luainstr ;;
  jit) PC=luainstrjit ;;
  *) echo "check.sh: LUA is 5.4 or jit" >&2; exit 2 ;;
esac
WORK=$(mktemp -d "${TMPDIR:-/tmp}/luainstr-engine.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then echo "scratch: $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
TICKS=${ENGINE_TICKS:-60}
ATTEMPTS=${ENGINE_ATTEMPTS:-3}
ENGINE_SRC=$SRC/tests/engine

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# --- 1. install ------------------------------------------------------------
PREFIX=$WORK/prefix
# shellcheck source=../install/prefix.sh
. "$SRC/tests/install/prefix.sh"
install_prefix "$BUILD" "$PREFIX" "$WORK/install.log"
[[ -f $PREFIX/include/luainstr_wrap.h ]] || fail "luainstr_wrap.h not installed"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset LUAINSTR_PROBE

# --- 2. build ---------------------------------------------------------------
step "tests/engine with CMake (CMAKE_PREFIX_PATH=$PREFIX)"
EC=$WORK/engine-cmake
build_with_package tests/engine "$ENGINE_SRC" "$EC" "$WORK/engine-cmake.log" -DCMAKE_BUILD_TYPE=Release \
  -DLUA="$LUA"
uses_prefix "$EC/engine" "lib$PC"
echo "ok: built with find_package"

# Builds the engine with the Makefile (pkg-config) into $WORK/$1, with the
# preprocessor flags $2.
build_pc() {
  mkdir -p "$WORK/$1"
  PKG_CONFIG_PATH=$(dirname "$PCFILE") make -C "$WORK/$1" -f "$ENGINE_SRC/Makefile" \
    CPPFLAGS="$2" LUAINSTR_PC="$PC" >"$WORK/$1.log" 2>&1 \
    || { cat "$WORK/$1.log" >&2; fail "build tests/engine with pkg-config ($1)"; }
}
step "tests/engine with pkg-config (PKG_CONFIG_PATH=$(dirname "$PCFILE"))"
build_pc engine-pc ""
echo "ok: built with pkg-config"

# --- 3. run and check --------------------------------------------------------
# run NAME ENGINE [ENV=VALUE...] -- [ENGINE ARGS...]: runs the engine into
# $WORK/NAME.json and NAME.out; sets rc (the engine's exit status).
run() {
  local name=$1 engine=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  rc=0
  env "${envs[@]}" "$engine" --ticks "$TICKS" --out "$WORK/$name.json" "$@" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
}

# variant NAME ENGINE CHECK-ARGS ENV... -- ENGINE-ARGS...: runs and checks,
# again when only the time checks failed.
variant() {
  local name=$1 engine=$2 checkargs=$3
  shift 3
  for attempt in $(seq 1 "$ATTEMPTS"); do
    step "$name (run $attempt)"
    run "$name" "$engine" "$@"
    if [[ $rc -eq 3 ]] && grep -q "^engine: probe " "$WORK/$name.err"; then
      echo "note: $name skipped: $(cat "$WORK/$name.err")"
      return
    fi
    [[ $rc -eq 0 ]] || { cat "$WORK/$name.out" "$WORK/$name.err" >&2; fail "$name: engine exited $rc"; }
    [[ ! -s $WORK/$name.err ]] || { cat "$WORK/$name.err" >&2; fail "$name: engine wrote to stderr"; }
    rc=0
    # shellcheck disable=SC2086
    python3 "$ENGINE_SRC/check.py" "$WORK/$name.json" "$WORK/$name.out" $checkargs || rc=$?
    [[ $rc -eq 0 ]] && return
    [[ $rc -eq 3 && $attempt -lt $ATTEMPTS ]] || fail "$name: the profile (see above)"
    echo "note: only the time checks failed (a busy machine?): running again"
  done
}

if [[ $LUA == jit ]]; then
  # (LuaJIT's probes: ffi where the build has it, else api; a build
  # without it refuses --probe ffi, which skips that run)
  variant probe-default "$EC/engine" "" --
  variant probe-ffi "$EC/engine" "--probe ffi" -- --probe ffi
else
  variant probe-fast "$EC/engine" "--probe fast" -- --probe fast
  variant probe-direct "$EC/engine" "--probe direct" -- --probe direct
fi
variant probe-api-env "$EC/engine" "--probe api" LUAINSTR_PROBE=api --
variant memory "$WORK/engine-pc/engine" "--memory" -- --memory

# --- 4. without the header: the checks must fail ----------------------------
# negative NAME CPPFLAGS: built that way, the engine runs, check.py fails
# (exit 1: not only timing), and the report's warnings name the header.
negative() {
  local name=$1
  step "$name: built with $2, the checks must fail"
  build_pc "$name" "$2"
  run "$name" "$WORK/$name/engine" -- --memory
  [[ $rc -eq 0 ]] || { cat "$WORK/$name.out" "$WORK/$name.err" >&2; fail "$name: engine exited $rc"; }
  rc=0
  python3 "$ENGINE_SRC/check.py" "$WORK/$name.json" "$WORK/$name.out" --memory \
    >"$WORK/$name.check" 2>&1 || rc=$?
  [[ $rc -eq 1 ]] || { cat "$WORK/$name.check"; fail "$name: check.py exited $rc, not 1"; }
  grep '^FAIL' "$WORK/$name.check" | head -n 4
  python3 - "$WORK/$name.json" <<'EOF' || fail "$name: no warning names luainstr_wrap.h"
import json, sys
w = [x for x in json.load(open(sys.argv[1]))["warnings"] if "luainstr_wrap.h" in x]
print("ok: the report says: " + w[0][:160] + "...") if w else sys.exit(1)
EOF
}
negative no-wrap -DENGINE_NO_WRAP

# Lua's own lua_resume, loads through the header: the resumes are inferred.
step "plain-resume: built with -DENGINE_PLAIN_RESUME, the resumes inferred"
build_pc plain-resume -DENGINE_PLAIN_RESUME
if [[ $LUA == jit ]]; then
  # (through the C probe: the FFI probe measures a coroutine resumed with
  # Lua's own lua_resume only from the first boundary it passes, and it
  # says so, docs/luajit.md; the C probe infers every call)
  variant plain-resume "$WORK/plain-resume/engine" "--memory --inferred --probe api" \
    LUAINSTR_PROBE=api -- --memory
else
  variant plain-resume "$WORK/plain-resume/engine" "--memory --inferred" -- --memory
fi

echo "PASS: tests/engine (Lua $LUA) built against the installed package; call counts, nesting, self times and memory check under each probe and with Lua's own lua_resume (inferred, the report says so); without luainstr_wrap.h they fail and the report says so"
