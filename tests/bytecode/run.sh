#!/usr/bin/env bash
# The loader's form on every Lua: for each of lua5.1, lua5.2, lua5.3,
# lua5.4 and luajit, each program P.lua of chunks/ and of the behaviour
# programs of that dialect (../behaviour/lua51 for 5.1, 5.2 and LuaJIT,
# lua53, lua54; LuaJIT's own, ../luajit/dialect, too), two generated
# programs whose lines need 2- and 4-byte line info in LuaJIT's dumps
# (code to line 300 then blank lines to line 70,300, and code on 70,000
# lines), and chunks/long_strings.lua under a 254-byte name:
#   - the driver rewrites it in the loader's form (rewrite.h) for the
#     dialect, the real interpreter compiles and string.dumps the wrapper
#     (dump.lua), the driver lifts the dump (runtime/bytecode.c) to lift/P.lua;
#   - `luaV -e <hook.lua> P.lua ARGS` runs the original and the lifted chunk:
#     same stdout, stderr and exit status; hook.lua logs what debug.getinfo
#     says of the main function (the same: "main", lines 0 0 (LuaJIT: 0
#     and the chunk's last line), the same source) and gives the lifted one its probe as the loader does (5.2:
#     and its _ENV), which must be an upvalue named __LI<k>, the last one;
#     the probe's first event is the main chunk's entry; on chunks/ (but
#     err_*) entries and exits balance; li_bc_entry_probe finds the probe
#     of the lifted main.
#   - On 5.1 a chunk whose main level uses `...` keeps the offline form
#     (rewrite.h): exactly the programs listed in OFFLINE51 do (LuaJIT's
#     form has `...`: none there).
# Then for chunks/nested.lua: its returned functions are string.dumped
# (entry.lua; stripped too on 5.3, 5.4 and LuaJIT), li_bc_entry_probe must
# find the upvalue named __LI<k> (kind: 5.4's <const>; LuaJIT's regular,
# captured from the main function's upvalue; else none), and such a dump,
# loaded and given a probe there as runtime/loader.c does (reload.lua),
# enters it first and runs (count(1, 2, 3) gives 3: on 5.2 its _ENV too).
# And the dumps of every version, truncated and garbled, go through GARBLE
# (the driver built with AddressSanitizer): every strict prefix refused,
# no read past the end.
#
# usage: run.sh DRIVER GARBLE_DRIVER     (tests/CMakeLists.txt: bc_driver)
# Environment: LI_KEEP=1 keeps the scratch directory, LI_TIMEOUT=S.
# Prints a line per failure and `N passed, N failed`; exits 1 on a failure.
set -u
set -o pipefail

[ $# -eq 2 ] || { echo "usage: $0 DRIVER GARBLE_DRIVER" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
beh=$here/../behaviour
tmo=${LI_TIMEOUT:-60}
. "$beh/common.sh"
driver=$(abspath "$1")
garble=$(abspath "$2")
need_command run.sh driver "$driver"
need_command run.sh driver "$garble"
clean_lua_env
setup_run run.sh li-bytecode
export LI_BC_HOOK=$here/hook.lua

passed=0
failed=0
why=()
fail() { why+=("$*"); }
# verdict WHAT: one pass or one failure for WHAT, from the reasons collected.
verdict() {
  if [ ${#why[@]} -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    local r
    for r in "${why[@]}"; do echo "FAIL $1: $r"; done
  fi
  why=()
}

offline51() { grep -qxF -- "$1" "$here/OFFLINE51"; }

# The interpreter of version V, and what the lift gives for it: the probe's
# upvalue in the lifted main and li_bc_entry_probe's kind (bytecode.h).
lua_of() { case $1 in jit) echo luajit ;; *) echo "lua$1" ;; esac; }
probe_up() { case $1 in 5.1|jit) echo 1 ;; *) echo 2 ;; esac; }
probe_kind() { case $1 in 5.4|jit) echo 1 ;; *) echo -1 ;; esac; }
# ... and of a function inside the chunk: LuaJIT marks immutable only an
# upvalue captured from a local (lj_parse.c fs_fixup_uv2), and there the
# probe is the main function's upvalue
nested_kind() { case $1 in jit) echo 0 ;; *) probe_kind "$1" ;; esac; }

# compiles V SRC: does that Lua compile the file?
compiles() {
  case $1 in
    jit) LI_BC_SRC=$2 luajit -e 'assert(loadfile(os.getenv("LI_BC_SRC")))' >/dev/null 2>&1 ;;
    *) "luac$1" -p "$2" >/dev/null 2>&1 ;;
  esac
}

# generate DIR: the programs of many lines (LuaJIT keeps a line in 1, 2 or
# 4 bytes by the number of lines of the function).
generate() {
  {
    echo "local t = {}"
    for ((i = 2; i <= 300; i++)); do echo "t[#t + 1] = $i"; done
    echo "print(#t, debug.getinfo(1, 'l').currentline, select(2, pcall(error, 'x', 1)))"
    for ((i = 1; i <= 70000; i++)); do echo; done
    echo "-- the last line"
  } >"$1/lines_blank_tail.lua"
  {
    echo "local t, f = {}, function(a) return a + 1 end"
    for ((i = 2; i <= 70000; i++)); do echo "t[#t + 1] = f($i)"; done
    echo "print(#t, debug.getinfo(1, 'l').currentline, pcall(f))"
  } >"$1/lines_many.lua"
}

# run_side V DIR NAME PROBE OUT ARGS...: `luaV -e <hook> NAME ARGS` in DIR.
run_side() {
  local lua dir=$2 name=$3 probe=$4 out=$5
  lua=$(lua_of "$1")
  shift 5
  (
    cd "$dir" || exit 125
    LI_BC_LOG=$out.log LI_BC_CHUNK=@$name LI_BC_PROBE=$probe \
      "${run_timeout[@]}" "$lua" -e "dofile(os.getenv'LI_BC_HOOK')" "$name" "$@" \
      </dev/null >"$out.stdout" 2>"$out.stderr"
    echo $? >"$out.status"
  )
}

# check_program V DIALECT W SRC NAME N: one program, through every step
# (N numbers its files in out/: a name may be as long as a file name can).
check_program() {
  local v=$1 dialect=$2 w=$3 src=$4 name=$5 base=${5%.lua} up kind args=()
  local o=$w/out/$6
  [ -f "${src%.lua}.args" ] && mapfile -t args <"${src%.lua}.args"
  cp -- "$src" "$w/orig/$name"
  if ! up=$("$driver" rewrite "$dialect" "@$name" "$w/orig/$name" "$w/wrap/$name" 2>"$o.rw"); then
    fail "rewrite: $(head -n 3 "$o.rw")"
    return
  fi
  if [ "${up#* }" = 0 ]; then          # nothing probed: the text as it is
    up=0
    unprobed=$((unprobed + 1))
    cp -- "$w/wrap/$name" "$w/lift/$name"
  elif [ "${up% *}" = 0 ]; then
    up=0
    if [ "$v" != 5.1 ] || ! offline51 "$name"; then fail "offline form, not the loader's"; fi
    cp -- "$w/wrap/$name" "$w/lift/$name"
  else
    up=${up% *}
    [ "$v" = 5.1 ] && offline51 "$name" && fail "the loader's form, where OFFLINE51 says offline"
    [ "$up" = "$(probe_up "$v")" ] || fail "probe upvalue $up"
    if ! (cd "$w/wrap" && "$(lua_of "$v")" "$here/dump.lua" "$name" "$base.dump") 2>"$o.dump.err"; then
      fail "$(lua_of "$v") cannot compile the wrapper: $(head -n 3 "$o.dump.err")"
      return
    fi
    if ! "$driver" lift "$w/wrap/$base.dump" "$w/lift/$name" 2>"$o.lift.err"; then
      fail "lift: $(cat "$o.lift.err")"
      return
    fi
    kind=$(probe_kind "$v")
    [ "$("$driver" probe "$w/lift/$name")" = "$up $kind" ] ||
      fail "li_bc_entry_probe of the lifted main: $("$driver" probe "$w/lift/$name"), not $up $kind"
  fi
  run_side "$v" "$w/orig" "$name" 0 "$o.orig" ${args[@]+"${args[@]}"}
  run_side "$v" "$w/lift" "$name" "$up" "$o.lift" ${args[@]+"${args[@]}"}
  local s side
  # LuaJIT's tracebacks end in "[C]: at 0xADDRESS", which varies from run
  # to run (ASLR): that address is not compared (as ../behaviour/run.sh)
  for side in orig lift; do
    for s in stdout stderr; do
      sed 's/\[C\]: at 0x[0-9a-fA-F]*/[C]: at 0x?/g' "$o.$side.$s" >"$o.$side.$s.n" &&
        mv -f -- "$o.$side.$s.n" "$o.$side.$s"
    done
  done
  for s in status stdout stderr; do
    if ! cmp -s "$o.orig.$s" "$o.lift.$s"; then
      fail "$s differs (original, lifted):"
      diff -u -a "$o.orig.$s" "$o.lift.$s" | sed -n '3,14s/^/    /p'
    fi
  done
  [ "$(cat "$o.orig.status")" = 124 ] && fail "timed out"
  local info
  info=$(grep '^I ' "$o.lift.log")
  [ "$info" = "$(grep '^I ' "$o.orig.log")" ] || fail "getinfo: '$info', the original: '$(grep '^I ' "$o.orig.log")'"
  case $v:$info in
    jit:"I main 0 "[1-9]*" "?*|5.*:"I main 0 0 "?*) ;;
    *) fail "getinfo of the main function: '$info'" ;;
  esac
  [ "$up" = 0 ] && return
  grep -qx 'U __LI[0-9]*' "$o.lift.log" || fail "probe upvalue: $(grep '^U ' "$o.lift.log")"
  grep -qx 'N nil' "$o.lift.log" || fail "an upvalue after the probe: $(grep '^N ' "$o.lift.log")"
  case $v in
    5.1|jit) grep -qx 'FENV globals' "$o.lift.log" || fail "environment: $(grep '^FENV' "$o.lift.log")" ;;
    5.2) grep -qx 'ENV _ENV nil' "$o.lift.log" || fail "upvalue 1: $(grep '^ENV' "$o.lift.log")" ;;
    *) grep -qx 'ENV _ENV globals' "$o.lift.log" || fail "upvalue 1: $(grep '^ENV' "$o.lift.log")" ;;
  esac
  [ "$(grep -m1 -E '^(E [0-9]+|X)$' "$o.lift.log")" = "E 1" ] ||
    fail "first probe event: '$(grep -m1 -E '^(E [0-9]+|X)$' "$o.lift.log")', not the main chunk's entry"
  if [ "$src" = "$here/chunks/$name" ] && [[ $name != err_* ]]; then
    local e x
    e=$(grep -cE '^E [0-9]+$' "$o.lift.log"); x=$(grep -cx 'X' "$o.lift.log")
    [ "$e" = "$x" ] || fail "$e entries, $x exits"
  fi
}

# check_entry V W: the entry probe of nested.lua's dumped functions.
check_entry() {
  local v=$1 w=$2 up kind fn probe got f
  kind=$(nested_kind "$v")
  up=$(probe_up "$v")
  mkdir -p "$w/entry"
  if ! (cd "$w/entry" && "$(lua_of "$v")" "$here/entry.lua" "$w/lift/nested.lua" "@nested.lua" "$up" \
        >out 2>err); then
    fail "entry.lua: $(head -n 3 "$w/entry/err")"
    return
  fi
  [ "$(wc -l <"$w/entry/manifest")" = 4 ] || fail "entry.lua dumped: $(cat "$w/entry/manifest")"
  while read -r fn probe; do
    [ "$probe" -gt 0 ] || fail "$fn: no upvalue named __LI<k>"
    for f in "$w/entry/$fn".*bin; do
      got=$("$driver" probe "$f")
      [ "$got" = "$probe $kind" ] || fail "li_bc_entry_probe $(basename "$f"): $got, not $probe $kind"
      got=$("$(lua_of "$v")" "$here/reload.lua" "$f" "$probe" 2>&1)
      case $fn:$got in
        count:"entry "[0-9]*" returned 3") ;;
        empty:"entry "[0-9]*" returned nil") ;;
        add:"entry "[0-9]*" raised "*|both:"entry "[0-9]*" raised "*) ;;  # x, add: nil
        *) fail "reloaded $(basename "$f"): $got" ;;
      esac
    done
    case $v in 5.3|5.4|jit) [ -f "$w/entry/$fn.s.bin" ] || fail "$fn: no stripped dump" ;; esac
  done <"$w/entry/manifest"
  local i=0
  for f in "$w/wrap/nested.dump" "$w/wrap/long_name_"*.dump "$w/entry/add.bin" \
           "$w/entry/count.s.bin"; do
    [ -f "$f" ] || { [[ $f == *.s.bin ]] && [[ $v == 5.[12] ]] && continue; fail "no $f"; continue; }
    i=$((i + 1))
    "$garble" garble "$f" >"$w/garble.$i" 2>&1 || fail "garbled $(basename "$f"): $(head -n 5 "$w/garble.$i")"
  done
  [ "$i" -ge 3 ] || fail "only $i dumps garbled"
}

for v in 5.1 5.2 5.3 5.4 jit; do
  dialect=${v/./}
  lua=$(lua_of "$v")
  if ! command -v "$lua" >/dev/null 2>&1; then
    echo "FAIL $lua: not installed"
    failed=$((failed + 1))
    continue
  fi
  extra=()
  case $v in
    5.1|5.2) bdir=$beh/lua51 ;; 5.3) bdir=$beh/lua53 ;; 5.4) bdir=$beh/lua54 ;;
    jit) bdir=$beh/lua51 dialect=21 extra=("$here"/../luajit/dialect/*.lua) ;;
  esac
  w=$tmp/$v
  mkdir -p "$w/orig" "$w/wrap" "$w/lift" "$w/out" "$w/long" "$w/gen"
  generate "$w/gen"
  for m in "$bdir"/modules/*.lua; do
    [ -f "$m" ] && cp -- "$m" "$w/orig/" && cp -- "$m" "$w/lift/"
  done
  long=long_name_$(printf '%0240d' 0).lua   # 254 bytes: 5.3 dumps "@" it after 0xFF
  cp -- "$here/chunks/long_strings.lua" "$w/long/$long"
  lifted=0 skipped=0 offline=0 unprobed=0
  for src in "$here"/chunks/*.lua "$bdir"/*.lua ${extra[@]+"${extra[@]}"} "$w"/gen/*.lua \
             "$w/long/$long"; do
    name=$(basename "$src")
    if ! compiles "$v" "$src"; then                 # not in this dialect
      skipped=$((skipped + 1))
      continue
    fi
    check_program "$v" "$dialect" "$w" "$src" "$name" "$((lifted + skipped + 1))"
    if [ -f "$w/wrap/${name%.lua}.dump" ]; then lifted=$((lifted + 1)); else offline=$((offline + 1)); fi
    verdict "$lua $name"
  done
  check_entry "$v" "$w"
  verdict "$lua entry probes of dumped functions"
  echo "$lua: $lifted programs lifted, $((offline - unprobed)) in the offline form, $unprobed without probes, $skipped not of this dialect"
  if [ "$lifted" -lt 7 ]; then
    echo "FAIL $lua: only $lifted programs lifted"
    failed=$((failed + 1))
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
