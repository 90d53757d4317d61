#!/usr/bin/env bash
# Runtime tests with known answers.  Every tests/runtime/*.lua program runs
# twice: under lua5.4 with the C module (`require "luainstr"`, started by
# the program) and under `luaprof` (started before the program); it checks
# its own profile and exits 1 on a wrong figure.  Every exit/*.lua program
# ends the hard way (os.exit, uncaught error, cleared globals, late
# finalizers): it must exit with its `-- expect-status:` and not crash, and
# under luaprof leave a csv report holding each `-- expect-row: NAME CALLS`.
#
# usage: run.sh BUILD_DIR     (holds lib/lua/5.4/luainstr.so, bin/luaprof)
# Environment: LI_ONLY=GLOB runs only the tests whose file name matches.
set -u
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
build=$(cd "$1" && pwd) || exit 2
so_dir=$build/lib/lua/5.4
luaprof=$build/bin/luaprof
only=${LI_ONLY:-*}
[ -f "$so_dir/luainstr.so" ] || { echo "run.sh: no $so_dir/luainstr.so" >&2; exit 2; }
[ -x "$luaprof" ] || { echo "run.sh: no $luaprof" >&2; exit 2; }
command -v lua5.4 >/dev/null || { echo "run.sh: no lua5.4" >&2; exit 2; }

unset LUA_INIT LUA_INIT_5_4 LUA_PATH LUA_PATH_5_4 LUA_CPATH_5_4
export LUA_CPATH="$so_dir/?.so"
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-runtime.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT

passed=0 failed=0

result() {  # name status(0 ok) detail-file
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1)); echo "pass  $1"
  else
    failed=$((failed + 1)); echo "FAIL  $1"; sed 's/^/      /' "$3"
  fi
}

# A crash shows as a status above 128 (a signal); the message names it.
crashed() { [ "$1" -gt 128 ] && echo "crashed: status $1 (signal $(($1 - 128)))"; }

# A spin that is descheduled at its deadline overshoots by a time slice,
# so on a busy machine a timing test may fail once: it gets up to
# LI_TRIES (3) runs, and passes if one of them passes.  A crash or a wrong
# count fails the same way every time.
tries=${LI_TRIES:-3}

run_timed() {  # mode file: status, output in $tmp/out
  local i st
  for ((i = 1; i <= tries; i++)); do
    rm -f "$tmp/rep"
    if [ "$1" = module ]; then
      lua5.4 "$2" >"$tmp/out" 2>&1; st=$?
    else
      "$luaprof" -f csv -o "$tmp/rep" "$2" >"$tmp/out" 2>&1; st=$?
      [ $st -eq 0 ] && [ ! -s "$tmp/rep" ] && { echo "no report written" >>"$tmp/out"; st=1; }
    fi
    crashed $st >>"$tmp/out" && return $st
    [ $st -eq 0 ] && return 0
    [ $i -lt $tries ] && cp "$tmp/out" "$tmp/out.$i"
  done
  for ((i = 1; i < tries; i++)); do
    { echo "(run $i)"; cat "$tmp/out.$i"; } >>"$tmp/out.all"
  done
  [ -f "$tmp/out.all" ] && { cat "$tmp/out" >>"$tmp/out.all"; mv "$tmp/out.all" "$tmp/out"; }
  return $st
}

cd "$here" || exit 2
for t in *.lua; do
  case $t in $only) ;; *) continue ;; esac
  for mode in module luaprof; do
    run_timed $mode "$t"
    result "${t%.lua} ($mode)" $? "$tmp/out"
  done
done

# The row NAME with CALLS calls in csv report $1?
has_row() {
  awk -F, -v name="$2" -v calls="$3" '
    NR > 1 && $1 == name && $5 == calls { found = 1 }
    END { exit !found }' "$1"
}

for t in exit/*.lua; do
  case ${t#exit/} in $only) ;; *) continue ;; esac
  want=$(sed -n 's/^-- expect-status: *//p' "$t")
  rows=$(sed -n 's/^-- expect-row: *//p' "$t")
  for mode in module luaprof; do
    rm -f "$tmp/rep"
    : >"$tmp/out"
    if [ $mode = module ]; then
      lua5.4 "$t" >"$tmp/log" 2>&1; st=$?
    else
      "$luaprof" -f csv -o "$tmp/rep" "$t" >"$tmp/log" 2>&1; st=$?
    fi
    ok=0
    if [ "$st" != "$want" ]; then
      ok=1
      { echo "exit status $st, expected $want"; crashed $st; sed 's/^/> /' "$tmp/log"; } >>"$tmp/out"
    fi
    if [ $mode = luaprof ]; then
      if [ ! -s "$tmp/rep" ]; then
        ok=1; echo "no report written" >>"$tmp/out"
      else
        while read -r line; do
          [ -n "$line" ] || continue
          calls=${line##* } name=${line% *}
          has_row "$tmp/rep" "$name" "$calls" ||
            { ok=1; echo "report lacks row '$name' with $calls call(s)" >>"$tmp/out"; }
        done <<<"$rows"
        [ $ok -eq 0 ] || sed 's/^/| /' "$tmp/rep" >>"$tmp/out"
      fi
    fi
    t2=${t#exit/}
    result "exit/${t2%.lua} ($mode)" $ok "$tmp/out"
  done
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
