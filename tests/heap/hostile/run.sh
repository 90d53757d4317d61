#!/usr/bin/env bash
# Hostile heaps (issue 21): every program P.lua here builds a heap meant to
# break a snapshot writer (cycles, 10^6-deep chains, bytes JSON cannot
# hold, a 100 MiB string, 10^5 coroutines, weak tables of every mode,
# metatables that raise, the collector mid-cycle, re-entry from a
# finalizer, paths that cannot be written) and takes snapshots through
# heaphelp.lua.  For each P.lua:
#   - `INTERP P.lua` and `LUAPROF [FLAGS] --heap EXIT -o REPORT P.lua`
#     (FLAGS: the words of P.flags, then $LI_HEAP_FLAGS) must give the same
#     stdout, stderr and exit status: the snapshots change nothing the
#     program sees (no crash either: a signal is a status);
#   - heaphelp.lua must have run under luaprof (its log), and each
#     snapshot it logged must be what it expected: "ok" a file
#     check_snapshot.py accepts (with the checks the program asked for, the
#     Lua's version, whether it collected, and collectgarbage("count") of
#     right before the call as gc_count_bytes), and the Lua heap's size the
#     same after the call as before it unless it collected; "error" nil and
#     a message, and no file; "any" anything but a crash (a file it then
#     wrote must be valid); valid means check_snapshot.py accepts it and
#     so does `luaheap summary` (luaheap beside LUAPROF, when built);
#   - EXIT, the snapshot luaprof takes when the script ends, must be valid;
#   - nothing else may be left behind: no temporary file beside a
#     snapshot, nothing in the read-only directory, the full device still
#     a device.
#
# usage: run.sh LUAPROF [INTERP] [PROGRAM.lua...]
#   INTERP    the stock interpreter LUAPROF is built for (default lua5.4)
#   PROGRAM   programs to run (default: every *.lua here but heaphelp.lua)
# Environment: LI_TIMEOUT (seconds a run, default 300), LI_ONLY=GLOB,
# LI_KEEP=1 (keep the scratch directory), LI_HEAP_FLAGS (more luaprof
# options, split at spaces: --memory), LI_HOSTILE_SCALE (a factor for the
# largest heaps, coroutines.lua's and deep_chain.lua's: H.scaled).
# The read-only directory: run as root, both sides run without root's
# permission override (setpriv); without setpriv that case is skipped.
# The full disk: a character device 1,7 (what /dev/full is) made with
# mknod in the scratch directory, or as a user a link to /dev/full;
# skipped when neither can be made.
# Prints a line a program (and the checker's line for each snapshot),
# then `N passed, N failed`; exits 1 if any failed, 2 on a usage error.
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
. "$here/../../behaviour/common.sh"

[ $# -ge 1 ] || { echo "usage: $0 LUAPROF [INTERP] [PROGRAM.lua...]" >&2; exit 2; }
prof=$(abspath "$1") || exit 2
interp=${2:-lua5.4}
shift $(($# >= 2 ? 2 : 1))
need_command run.sh "luaprof binary" "$prof"
need_command run.sh interpreter "$interp"
need_command run.sh python3 python3
interp=$(abspath "$interp")
programs=("$@")
if [ ${#programs[@]} -eq 0 ]; then
  for p in "$here"/*.lua; do
    [ "$(basename "$p")" = heaphelp.lua ] || programs+=("$p")
  done
fi
tmo=${LI_TIMEOUT:-300}
only=${LI_ONLY:-*}
check="$here/check_snapshot.py"
# luaheap beside luaprof, when built: it must read every snapshot too
luaheap=$(dirname "$prof")/luaheap
[ -x "$luaheap" ] || luaheap=

clean_lua_env
setup_run heap/hostile/run.sh li-heap-hostile
version=$("$interp" -e 'io.write(jit and "jit" or (_VERSION:gsub("Lua ", "")))' </dev/null) || exit 2

priv=()
ro_ok=1
if [ "$(id -u)" = 0 ]; then
  if command -v setpriv >/dev/null 2>&1; then
    priv=(setpriv --bounding-set=-dac_override,-dac_read_search)
  else
    ro_ok=0
    echo "run.sh: root without setpriv: the read-only directory case is skipped"
  fi
fi

passed=0
failed=0
why=()
fail() { why+=("$*"); }

# check_file FILE ARGS...: the checker's verdict, its line shown indented
# (ARGS --replaced: the file was written again later, nothing to check).
check_file() {
  local line
  if [ "${2:-}" = --replaced ]; then
    printf '    %s: written again later, the later one is checked\n' "$(basename "$1")"
    return
  fi
  line=$(python3 "$check" "$@" 2>&1)
  local st=$?
  printf '    %s\n' "${line:0:400}" | head -n 5
  [ $st -eq 0 ] || fail "$(basename "$1"): $(head -n 1 <<<"$line")"
  if [ $st -eq 0 ] && [ -n "$luaheap" ] && ! line=$("$luaheap" summary "$1" 2>&1 >/dev/null); then
    fail "$(basename "$1"): luaheap summary failed: $(head -n 1 <<<"$line")"
  fi
}

# judge_log WORK: each snapshot the program logged, against what it expected.
judge_log() {
  local work=$1 log=$1/snaps/log
  local kind file result collect expect g0 g1 msg checks
  snapped=()
  [ -f "$log" ] || { fail "no log: heaphelp.lua did not run under luaprof"; return; }
  # (a path written twice holds the second snapshot: only the last is read)
  local -A last=()
  local n=0
  while IFS=$'\t' read -r kind file result collect expect g0 g1 msg checks; do
    n=$((n + 1))
    [ "$result" = ok ] && last[$file]=$n
  done <"$log"
  n=0
  while IFS=$'\t' read -r kind file result collect expect g0 g1 msg checks; do
    n=$((n + 1))
    [ "$kind" = snap ] || continue
    msg=${msg:0:200}
    local args=("lua=$version" "collected=$collect")
    [ "$collect" = 0 ] && [ "$expect" != any ] && [ "$g0" != - ] && args+=("gc_bytes=$g0")
    [ "$collect" = 0 ] && [ "$expect" != any ] && [ "$g1" != - ] && args+=("gc_after=$g1")
    [ "$result" = ok ] && [ "${last[$file]}" != $n ] && args=(--replaced)
    if [ "$checks" != - ]; then
      local c
      IFS=, read -r -a c <<<"$checks"
      args+=("${c[@]}")
    fi
    case $expect:$result in
      ok:ok)
        snapped+=("$(basename "$file")")
        if [ ! -f "$file" ]; then fail "$file: said ok, no file"; continue; fi
        check_file "$file" "${args[@]}"
        ;;
      error:err)
        if [ "$msg" = - ] || [ "$msg" = "(nil)" ]; then fail "$file: an error without a message"; fi
        if [ -c "$file" ] || [ -d "$file" ]; then :
        elif [ -e "$file" ] || [ -L "$file" ] && [ "$(basename "$file")" != dangling ]; then
          fail "$file: an error ($msg), but the file is there"
        fi
        printf '    error as expected: %s\n' "$msg"
        ;;
      any:ok)
        printf '    %s: wrote %s\n' "$(basename "$file")" "$file"
        if [ -f "$file" ]; then
          snapped+=("$(basename "$file")")
          check_file "$file" "${args[@]}"
        fi
        ;;
      any:*)
        printf '    %s: %s: %s\n' "$(basename "$file")" "$result" "$msg"
        ;;
      *)
        fail "$file: expected $expect, got $result${msg:+ ($msg)}"
        ;;
    esac
  done <"$log"
}

# leftovers WORK: what the snapshots left where they should not.
leftovers() {
  local work=$1 f b s ok
  for f in "$work"/snaps/* "$work"/snaps/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    b=$(basename "$f")
    case $b in
      log|exit.heapsnapshot|plain.txt|dangling|link|linked.heapsnapshot) continue ;;
    esac
    ok=0
    for s in ${snapped[@]+"${snapped[@]}"}; do [ "$s" = "$b" ] && ok=1; done
    [ $ok = 1 ] || fail "left behind: snaps/$b"
  done
  for f in "$work"/ro/* "$work"/ro/.[!.]*; do
    [ -e "$f" ] && fail "left behind in the read-only directory: $(basename "$f")"
  done
  for f in "$work"/dev/* "$work"/dev/.[!.]*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    [ "$(basename "$f")" = full ] || fail "left behind beside the full device: $(basename "$f")"
  done
  if [ -n "${full:-}" ] && [ ! -c "$full" ]; then
    fail "the full device $full is no longer a character device (replaced by the snapshot?)"
  fi
}

for prog in "${programs[@]}"; do
  name=$(basename "$prog")
  # shellcheck disable=SC2053
  [[ $name == $only ]] || continue
  base=${name%.lua}
  work=$tmp/$base
  mkdir -p "$work/ref" "$work/prof" "$work/snaps" "$work/ro" "$work/dev" "$work/out"
  for side in ref prof; do
    cp -- "$prog" "$work/$side/$name"
    cp -- "$here/heaphelp.lua" "$work/$side/"
  done
  chmod 555 "$work/ro"
  full=
  if mknod "$work/dev/full" c 1 7 2>/dev/null; then full=$work/dev/full
  elif [ "$(id -u)" != 0 ] && [ -c /dev/full ]; then
    ln -s /dev/full "$work/dev/full" && full=$work/dev/full
  fi
  ln -s "$work/nowhere/target.heapsnapshot" "$work/snaps/dangling"
  ln -s "$work/snaps/linked.heapsnapshot" "$work/snaps/link"
  envs=(LI_HEAP_DIR="$work/snaps" LI_HEAP_MISSING="$work/nowhere/deeper"
        LI_HEAP_FULL="$full" LI_HEAP_DANGLING="$work/snaps/dangling"
        LI_HEAP_LINK="$work/snaps/link")
  [ $ro_ok = 1 ] && envs+=(LI_HEAP_RO="$work/ro")
  flags=()
  # shellcheck disable=SC2207
  [ -f "${prog%.lua}.flags" ] && flags=($(cat "${prog%.lua}.flags"))
  # shellcheck disable=SC2206
  flags+=(${LI_HEAP_FLAGS:-})
  exit_snap=$work/snaps/exit.heapsnapshot
  for side in ref prof; do
    if [ $side = ref ]; then cmd=("$interp")
    else cmd=("$prof" ${flags[@]+"${flags[@]}"} --heap "$exit_snap" -o "$work/out/report.txt"); fi
    (
      cd "$work/$side" || exit 125
      env "${envs[@]}" ${priv[@]+"${priv[@]}"} "${run_timeout[@]}" "${cmd[@]}" "$name" \
        </dev/null >"$work/out/$side.stdout" 2>"$work/out/$side.stderr"
      echo $? >"$work/out/$side.status"
    )
  done

  why=()
  echo "---- $name ($version)"
  if ! cmp -s "$work/out/ref.status" "$work/out/prof.status"; then
    fail "exit status $(cat "$work/out/ref.status") (stock) vs $(cat "$work/out/prof.status") (luaprof)"
  fi
  for s in stdout stderr; do
    if ! cmp -s "$work/out/ref.$s" "$work/out/prof.$s"; then
      fail "$s differs"
      diff -u --label "$(basename "$interp")" --label luaprof -a \
        "$work/out/ref.$s" "$work/out/prof.$s" | head -n 20 | sed 's/^/    /'
    fi
  done
  judge_log "$work"
  if [ "$(cat "$work/out/prof.status")" = 0 ]; then
    if [ -f "$exit_snap" ]; then
      check_file "$exit_snap" "lua=$version" collected=0
    else
      fail "no snapshot at exit (--heap)"
    fi
  fi
  leftovers "$work"
  if [ ${#why[@]} -eq 0 ]; then
    echo "ok   $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name:"
    printf '  - %s\n' "${why[@]}"
    failed=$((failed + 1))
  fi
  [ "${LI_KEEP:-0}" = 1 ] || { chmod 755 "$work/ro"; rm -rf -- "$work"; }
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
