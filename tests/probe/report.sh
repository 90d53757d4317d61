#!/usr/bin/env bash
# report.sh -- luaprof (luaprof5.N) chooses its probe as built and says
# which it used: the default is fast where the build has Lua's headers and
# their reads passed the check at start (runtime/direct.h li_d_selfcheck),
# api otherwise; LUAINSTR_PROBE=api and =direct are obeyed (direct only
# where the check passed).  The JSON report's "probe" names it; the text
# report's summary says ", probe through the C API" for api and ", probe
# without its fast path" for direct, nothing for fast.  Every variant counts
# the same calls.
#
#   report.sh LUAPROF_BIN DEFAULT     (DEFAULT: fast, api, or ffi: LuaJIT
#                                      with its headers, runtime/jit.c)
#
# Exits 1 on any difference (a build with the headers whose check failed
# says api where fast is expected), 2 on a usage error.
set -u
[ $# -eq 2 ] || { echo "usage: $0 LUAPROF_BIN fast|api|ffi" >&2; exit 2; }
prof=$1 default=$2
case $default in fast|api|ffi) ;; *) echo "report.sh: DEFAULT is fast, api or ffi" >&2; exit 2 ;; esac
[ -x "$prof" ] || { echo "report.sh: no luaprof at $prof" >&2; exit 2; }
prof=$(cd "$(dirname "$prof")" && pwd)/$(basename "$prof")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-probe-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LUA_INIT LUA_PATH LUA_CPATH LUAINSTR_PROBE
for v in 5_2 5_3 5_4; do unset LUA_INIT_$v LUA_PATH_$v LUA_CPATH_$v; done

cat >"$tmp/p.lua" <<'LUA'
-- p.lua: f is called 65 times (Lua 5.1 to 5.4)
local function f(n)
  if n == 0 then return 0 end
  return 1 + f(n - 1)
end
local s = 0
for i = 1, 10 do s = s + f(i) end
print(s)
LUA

fails=0
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

# check ENV_PROBE WANT: one run with LUAINSTR_PROBE=ENV_PROBE ("" unset),
# whose reports must name WANT
check() {
  local env=$1 want=$2 got line note calls before=$fails
  rm -f "$tmp/r.json" "$tmp/r.txt"
  (cd "$tmp" && env ${env:+LUAINSTR_PROBE=$env} "$prof" -f json -o r.json p.lua >out.txt 2>&1 &&
     env ${env:+LUAINSTR_PROBE=$env} "$prof" -f text -o r.txt p.lua >>out.txt 2>&1) ||
    { fail "LUAINSTR_PROBE=${env:-(unset)}: luaprof failed:"; cat "$tmp/out.txt"; return; }
  got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["probe"])' "$tmp/r.json")
  [ "$got" = "$want" ] || fail "LUAINSTR_PROBE=${env:-(unset)}: the JSON report's probe is '$got', not '$want'"
  calls=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
f = [x["id"] for x in d["functions"] if x["name"] == "local f"]
print(sum(n["calls"] for n in d["tree"] if n["function"] in f))' "$tmp/r.json")
  [ "$calls" = 65 ] || fail "LUAINSTR_PROBE=${env:-(unset)}: f called $calls times, not 65"
  line=$(sed -n '/^luainstr profile:/{p;q}' "$tmp/r.txt")
  case $want in
    api) note=", probe through the C API" ;;
    direct) note=", probe without its fast path" ;;
    fast|ffi) note="" ;;
  esac
  if [ -n "$note" ]; then
    case $line in *"$note"*) ;; *) fail "LUAINSTR_PROBE=${env:-(unset)}: the text report does not say '$note': $line" ;; esac
  else
    case $line in *", probe "*) fail "LUAINSTR_PROBE=${env:-(unset)}: the text report names another probe than fast: $line" ;; esac
  fi
  [ $fails -eq $before ] && echo "ok    LUAINSTR_PROBE=${env:-(unset)}: $want"
}

check "" "$default"
check api api
if [ "$default" = fast ]; then check direct direct; check fast fast
elif [ "$default" = ffi ]; then check direct ffi; check fast ffi; check ffi ffi
else check direct api; check fast api; fi
[ $fails -eq 0 ]
