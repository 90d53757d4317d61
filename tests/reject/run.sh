#!/usr/bin/env bash
# run.sh -- the rewriter's LI_EREJECT (chunks Lua's compiler rejects after
# parsing: parser/scope.c, parse.c) against the real interpreters.
#
#   run.sh cases SCAN BIN_DIR CASES_DIR
#     Every case (CASES_DIR/*.lua, whose first line `-- reject: V...` names
#     the dialects that reject it after parsing) in every dialect whose
#     interpreter is here (5.1 5.2 5.3 5.4 jit):
#      - named: the interpreter rejects it, and the rewriter (SCAN, which is
#        reject_scan) says LI_EREJECT with the interpreter's line and
#        message, "file:LINE: message" byte for byte; luaprof of that Lua
#        (BIN_DIR) prints what the interpreter prints and exits as it does
#        (the loader compiles the original once), and `luainstr --lua V`
#        exits 1 with the interpreter's message;
#      - not named: where the interpreter compiles it, no LI_EREJECT.
#   run.sh corpus SCAN SHARED_DIR
#     No false positive: every file of the Debian corpus
#     (tests/corpus/list_corpus.sh) and of SHARED_DIR's suites that the
#     interpreter compiles gets no LI_EREJECT in its dialect; the files it
#     rejects and the rewriter too must agree on line and message.
# A missing interpreter is a skip with a message, a failure under CI=1.
# Ends with "N passed, N failed, N skipped"; exits 1 if any failed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mode=${1:-}
case $mode in
  cases) [ $# -eq 4 ] || { echo "usage: $0 cases SCAN BIN_DIR CASES_DIR" >&2; exit 2; } ;;
  corpus) [ $# -eq 3 ] || { echo "usage: $0 corpus SCAN SHARED_DIR" >&2; exit 2; } ;;
  *) echo "usage: $0 cases SCAN BIN_DIR CASES_DIR | corpus SCAN SHARED_DIR" >&2; exit 2 ;;
esac
scan=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-reject.XXXXXX") || exit 2
trap 'rm -rf -- "$tmp"' EXIT
# comp.lua LIST: per file of LIST, "ok" or loadfile's message, one a line
# (newlines in a message folded)
cat > "$tmp/comp.lua" <<'LUA'
for path in io.lines(arg[1]) do
  local f, e = loadfile(path)
  io.write(f and "ok" or (e:gsub("\n", " ")), "\n")
end
LUA
passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
interp() { if [ "$1" = jit ]; then echo luajit; else echo "lua$1"; fi; }
present() {  # present V: the interpreter of V is here, else skip or fail
  if command -v "$(interp "$1")" > /dev/null; then return 0; fi
  if [ -n "${CI:-}" ]; then fail "$1: $(interp "$1") not installed (scripts/deps.sh)"
  else echo "skip $1: $(interp "$1") not installed"; skipped=$((skipped + 1)); fi
  return 1
}

if [ "$mode" = cases ]; then
  bin=$(cd "$3" && pwd) || exit 2
  cd "$4" || exit 2
  ls -1 ./*.lua | sed 's|^\./||' > "$tmp/list"
  for v in 5.1 5.2 5.3 5.4 jit; do
    present "$v" || continue
    lua=$(interp "$v")
    prof=$bin/luaprof; [ "$v" = 5.4 ] || prof=$bin/luaprof$v
    "$lua" "$tmp/comp.lua" "$tmp/list" > "$tmp/lua.$v"
    "$scan" "$v" --list "$tmp/list" > "$tmp/scan.$v" || { fail "$v: reject_scan failed"; continue; }
    exec 3< "$tmp/lua.$v"
    while IFS=$'\t' read -r st line msg f; do
      IFS= read -r want <&3
      named=0
      head -n 1 "$f" | grep -qE -- "^-- reject:.* $v( |$)" && named=1
      got="$f:$line: $msg"
      if [ $named = 1 ]; then
        if [ "$want" = ok ]; then fail "$v $f: $lua compiles it (the case is wrong)"; continue; fi
        [ "$st" = 6 ] || { fail "$v $f: status $st, not LI_EREJECT (6); $lua: $want"; continue; }
        [ "$got" = "$want" ] || { fail "$v $f: rewriter '$got', $lua '$want'"; continue; }
        if [ -x "$prof" ]; then
          "$lua" "$f" > "$tmp/o1" 2> "$tmp/e1"; s1=$?
          "$prof" -o /dev/null "$f" > "$tmp/o2" 2> "$tmp/e2"; s2=$?
          if [ $s1 != $s2 ] || ! cmp -s "$tmp/o1" "$tmp/o2" || ! cmp -s "$tmp/e1" "$tmp/e2"; then
            fail "$v $f: $(basename "$prof") exits $s2 with '$(head -c 200 "$tmp/e2")', $lua $s1 with '$(head -c 200 "$tmp/e1")'"
            continue
          fi
        elif [ -n "${CI:-}" ]; then fail "$v $f: $prof not built"; continue
        fi
        "$bin/luainstr" --lua "$v" -o "$tmp/out" "$f" 2> "$tmp/e3"; s3=$?
        if [ $s3 != 1 ] || [ "$(cat "$tmp/e3")" != "luainstr: $want" ]; then
          fail "$v $f: luainstr exits $s3 with '$(head -c 200 "$tmp/e3")', not 1 with 'luainstr: $want'"
          continue
        fi
        echo "ok   $v $f: $want"
        pass
      elif [ "$want" = ok ] && [ "$st" = 6 ]; then
        fail "$v $f: LI_EREJECT ($got) but $lua compiles it"
      else
        echo "ok   $v $f: ${want:0:100}"
        pass
      fi
    done < "$tmp/scan.$v"
    exec 3<&-
  done
else
  shared=$3
  if ! bash "$here/../corpus/list_corpus.sh" > "$tmp/list" 2> "$tmp/err"; then
    if [ -n "${CI:-}" ]; then fail "no corpus: $(head -n 1 "$tmp/err")"
    else echo "skip corpus: $(head -n 1 "$tmp/err")"; skipped=$((skipped + 1)); fi
  fi
  if [ -d "$shared" ]; then
    find "$shared/lua-5.4.4-tests" "$shared/lua-5.3.6-tests" "$shared/luajit-tests" \
         "$shared/real-suites" -name '*.lua' -type f 2> /dev/null | LC_ALL=C sort >> "$tmp/list"
  else
    . "$here/../shared_missing.sh"
    [ -s "$tmp/list" ] || shared_missing reject_corpus "no suites in $shared" \
      "(../shared beside the project, as tests/CMakeLists.txt's LI_SHARED_DIR says)"
    # (the corpus alone is still a test; under CI the suites must be there)
    if [ -n "${CI:-}" ]; then fail "no suites: $shared not found (CI is set: ../shared must be there)"
    else echo "skip suites: $shared not found"; skipped=$((skipped + 1)); fi
  fi
  n=$(wc -l < "$tmp/list")
  for v in 5.1 5.2 5.3 5.4 jit; do
    present "$v" || continue
    lua=$(interp "$v")
    "$lua" "$tmp/comp.lua" "$tmp/list" > "$tmp/lua.$v"
    "$scan" "$v" --list "$tmp/list" > "$tmp/scan.$v" || { fail "$v: reject_scan failed"; continue; }
    # per file: false positive (compiles, EREJECT), agreement (both reject)
    paste "$tmp/lua.$v" "$tmp/scan.$v" | awk -F'\t' -v v="$v" '
      $1 == "ok" { ok++ }
      $1 == "ok" && $2 == 6 { printf "FAIL %s %s: LI_EREJECT (%s: %s) but it compiles\n", v, $5, $3, $4; bad++ }
      $1 != "ok" && $2 == 6 {
        rej++
        if ($1 != $5 ":" $3 ": " $4) { printf "FAIL %s %s: rewriter line %s \"%s\", Lua \"%s\"\n", v, $5, $3, $4, $1; bad++ }
      }
      END { printf "%s %s: %d files, %d compile, none taken for rejected; %d rejected by both alike\n", \
              bad ? "FAIL" : "ok  ", v, NR, ok, rej; exit bad ? 1 : 0 }' && pass || failed=$((failed + 1))
  done
  echo "($n files)"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
