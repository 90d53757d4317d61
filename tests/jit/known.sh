#!/usr/bin/env bash
# known.sh -- the FFI probe's known answers (issue 20): every program of
# tests/jit/programs run under luaprofjit with the JIT on (the FFI probe,
# runtime/jit.c) must
#   - print what plain luajit prints (its checksum and its own counts),
#   - give the calls and errors it counted itself: its lines "calls LINE N",
#     "calls SOURCE LINE N", "errors LINE N", "zone NAME N" against the
#     report's figures for that function (summed over its nodes),
#   - say that the FFI probe ran (the JSON report's probe "ffi"; mixed.lua,
#     whose first chunk is loaded with the JIT off, "ffi+api"),
#   - give the call tree (every path, its calls and errors: probe/tree.py)
#     that the C probe gives: LUAINSTR_PROBE=api, and the program loaded
#     with the JIT off (-e "jit.off()"), both of which must say "api"
#     (mixed.lua, which turns the JIT on for its second chunk, "ffi+api");
#   - and the same tree again when the FFI probe's check at attach fails
#     (LUAINSTR_JIT_CHECK=skew reads cur_L one field off, as a build whose
#     layout differs would): the C probe takes over, and the text report
#     says "probe through the C API".
# traces.lua must find, under luaprofjit, completed traces in its hot loop
# and in fib, and its functions' probe the FFI probe (the JIT compiles the
# code with its probes in).
#
#   known.sh LUAPROFJIT [LUAJIT]
#
# Exits 1 on any difference, 2 on a usage error, 77 (skipped) when there
# is no luajit to compare with.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 LUAPROFJIT [LUAJIT]" >&2; exit 2; }
prof=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
luajit=${2:-luajit}
[ -x "$prof" ] || { echo "known.sh: no luaprofjit at $1" >&2; exit 2; }
command -v "$luajit" >/dev/null || { echo "known.sh: no $luajit: skipped"; exit 77; }
tree=$here/../probe/tree.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/li-jit-known.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LUA_INIT LUA_PATH LUA_CPATH LUAINSTR_PROBE LUAINSTR_JIT_CHECK

fails=0
fail() { echo "FAIL  $*"; fails=$((fails + 1)); }

# profile MODE PROG: run PROG under luaprofjit in MODE (ffi, api, off:
# loaded with the JIT off by -e, whose own chunk is left out, skew) from a
# copy of the programs; JSON report $tmp/MODE.json, text
# report $tmp/MODE.txt, stdout $tmp/MODE.out
profile() {
  local mode=$1 prog=$2 env=() pre=()
  case $mode in
    api) env=(LUAINSTR_PROBE=api) ;;
    off) pre=(--exclude "(command line)" -e "jit.off()") ;;
    skew) env=(LUAINSTR_JIT_CHECK=skew) ;;
  esac
  rm -f "$tmp/$mode.json" "$tmp/$mode.txt"
  (cd "$tmp/w" && env "${env[@]}" "$prof" -f json -o "$tmp/$mode.json" "${pre[@]}" \
     "$prog" >"$tmp/$mode.out" 2>"$tmp/$mode.err" &&
   env "${env[@]}" "$prof" -f text -o "$tmp/$mode.txt" "${pre[@]}" "$prog" \
     >/dev/null 2>>"$tmp/$mode.err") ||
    { fail "$prog ($mode): luaprofjit failed: $(tail -3 "$tmp/$mode.err")"; return 1; }
}

# The report's probe name.
probe_of() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["summary"]["probe"])' "$1"
}

# The tree without main chunks of the command line (-e).
tree_of() {
  python3 "$tree" "$1" | grep -v '^probe' | grep -v '(command line)\|=(command line)'
}

# check_counts PROG REPORT OUT: the program's own counts against the report
check_counts() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
prog, report, out = sys.argv[1:4]
d = json.load(open(report))
fn = {f["id"]: f for f in d["functions"]}
calls, errors = {}, {}
for n in d["tree"]:
    if n["function"] is None:
        continue
    calls[n["function"]] = calls.get(n["function"], 0) + n["calls"]
    errors[n["function"]] = errors.get(n["function"], 0) + n["errors"]
def find(source, line):
    ids = [i for i, f in fn.items() if f["line"] == line and f["source"] == source]
    return ids
bad = checked = 0
for raw in open(out):
    w = raw.split()
    if not w or w[0] not in ("calls", "errors", "zone"):
        continue
    if w[0] == "zone":
        ids = [i for i, f in fn.items() if f["name"] == "zone " + w[1]]
        what, want = calls, int(w[2])
    else:
        if len(w) == 4:
            source, line, want = w[1].lstrip("=@"), int(w[2]), int(w[3])
        else:
            source, line, want = prog, int(w[1]), int(w[2])
        ids = find(source, line)
        what = calls if w[0] == "calls" else errors
    got = sum(what.get(i, 0) for i in ids)
    checked += 1
    if len(ids) != 1 or got != want:
        print("      %s: %d in the report (%d functions), the program counted %d"
              % (" ".join(w[:-1]), got, len(ids), want))
        bad = 1
if checked == 0:
    print("      the program printed no count")
    bad = 1
sys.exit(bad)
PY
}

mkdir -p "$tmp/w"
cp "$here"/programs/*.lua "$tmp/w/"
for path in "$here"/programs/*.lua; do
  prog=$(basename "$path")
  [ "$prog" = traces.lua ] && continue
  before=$fails
  (cd "$tmp/w" && "$luajit" "$prog" >"$tmp/plain.out" 2>&1) ||
    { fail "$prog: plain luajit failed: $(tail -2 "$tmp/plain.out")"; continue; }
  want_probe=ffi
  [ "$prog" = mixed.lua ] && want_probe=ffi+api
  profile ffi "$prog" || continue
  # (mixed.lua prints the probes it saw only when profiled; counts come in
  # the order of pairs, which differs)
  if ! diff <(grep -v '^probe ' "$tmp/plain.out" | sort) \
            <(grep -v '^probe ' "$tmp/ffi.out" | sort) >/dev/null; then
    fail "$prog: prints other than plain luajit:"
    diff "$tmp/plain.out" "$tmp/ffi.out" | head -5
  fi
  got=$(probe_of "$tmp/ffi.json")
  [ "$got" = "$want_probe" ] || fail "$prog: the report's probe is '$got', not '$want_probe'"
  if ! check_counts "$prog" "$tmp/ffi.json" "$tmp/ffi.out" >"$tmp/counts"; then
    fail "$prog: the report's counts differ from the program's:"
    cat "$tmp/counts"
  fi
  tree_of "$tmp/ffi.json" >"$tmp/ffi.tree"
  for mode in api off skew; do
    profile "$mode" "$prog" || continue
    got=$(probe_of "$tmp/$mode.json") want=api
    # (mixed.lua turns the JIT on for its second chunk)
    [ "$prog.$mode" = mixed.lua.off ] && want=ffi+api
    [ "$got" = "$want" ] || fail "$prog ($mode): the report's probe is '$got', not '$want'"
    tree_of "$tmp/$mode.json" >"$tmp/$mode.tree"
    if ! cmp -s "$tmp/ffi.tree" "$tmp/$mode.tree"; then
      fail "$prog: the tree under the C probe ($mode) differs from the FFI probe's:"
      diff "$tmp/ffi.tree" "$tmp/$mode.tree" | head -10
    fi
  done
  if ! grep -q '^luainstr profile:.*, probe through the C API' "$tmp/skew.txt"; then
    fail "$prog: with the check failed, the text report does not say the C probe ran"
  fi
  [ $fails -eq $before ] && echo "ok    $prog: $(grep -c '^\(calls\|errors\|zone\)' "$tmp/ffi.out") counts, trees the same under ffi, api, jit.off, failed check"
done

# traces.lua: the JIT compiles instrumented code
before=$fails
if profile ffi traces.lua; then
  for what in "trace hot	ok" "trace fib	ok" "probe	ffi"; do
    grep -qx "$what" "$tmp/ffi.out" ||
      fail "traces.lua: no line '$what' under luaprofjit: $(tr '\n' ' ' <"$tmp/ffi.out")"
  done
fi
[ $fails -eq $before ] && echo "ok    traces.lua: the hot loop and fib reach traces with the FFI probe"

[ $fails -eq 0 ]
