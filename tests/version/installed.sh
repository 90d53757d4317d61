#!/usr/bin/env bash
# installed.sh BUILD_DIR VERSION -- one version number, CMake's project()
# VERSION (ctest passes it), everywhere a user meets one, after an install
# to a scratch prefix (tests/install/prefix.sh):
#   - `--version` of every command installed (luaprof, luaprof5.4, every
#     luaprof5.N and luaprofjit built, luainstr, luaheap), and for each
#     luaprof the banner of its Lua as that interpreter's own -v prints it;
#   - the Lua module's `version` under every luaprof (each runtime's
#     LUAINSTR_VERSION);
#   - pkg-config --modversion of every .pc installed, and the CMake
#     package's version file;
#   - the manual pages: installed to share/man/man1, one for each command
#     (luaprof5.N.1 and luaprofjit.1 links to luaprof.1), `man` finds them
#     under MANPATH and their title line says the version;
#   - every report format of the build written by the installed luaprof:
#     text, json, callgrind, chrome, html and pprof state the version
#     where docs/json-schema.md and the contract put it, read back by
#     python3's json, (pprof) `go tool pprof -comments`; csv and the
#     folded formats have no room for it; a format this test does not know
#     fails it, so a new one must say where its version goes.  Every other
#     luaprof's json report too.
# Under CI=1 a missing tool is a failure; else the test is skipped (77).
set -euo pipefail

BUILD=$(cd "${1:?usage: installed.sh BUILD_DIR VERSION}" && pwd)
WANT=${2:?usage: installed.sh BUILD_DIR VERSION}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/luainstr-version.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; exit 1; }   # (prefix.sh's: stops the test)
ko() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok    $*"; }
step() { echo "== $*"; }
need() {   # need TOOL PACKAGE
  command -v "$1" >/dev/null && return 0
  [[ -n ${CI:-} ]] && fail "$1 not installed (Debian's $2: scripts/deps.sh)"
  echo "version: $1 not installed (Debian's $2); skipped"
  exit 77
}
need python3 python3
need pkg-config pkg-config
need man man-db

PREFIX=$WORK/prefix
# shellcheck source=../install/prefix.sh
. "$SRC/tests/install/prefix.sh"
install_prefix "$BUILD" "$PREFIX" "$WORK/install.log"
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# --- the commands -------------------------------------------------------------
# The commands the build made must all be installed (luaprof5.4: a link).
expected=(luainstr luaheap luaprof5.4)
for f in "$BUILD"/bin/luaprof*; do
  n=${f##*/}
  [[ $n =~ ^luaprof(5\.[1-4]|jit)?$ ]] && expected+=("$n")
done
for n in "${expected[@]}"; do
  [[ -x $PREFIX/bin/$n ]] || ko "$n was built but is not installed"
done

# The interpreter a luaprof stands in for.
interpreter() {
  case $1 in
    luaprof) echo lua5.4 ;;
    luaprofjit) echo luajit ;;
    luaprof5.*) echo "lua${1#luaprof}" ;;
  esac
}

commands=0
for cmd in "$PREFIX"/bin/*; do
  n=${cmd##*/}
  commands=$((commands + 1))
  if ! out=$("$cmd" --version 2>&1); then
    ko "$n --version exited $?: $out"
    continue
  fi
  first=${out%%$'\n'*}
  [[ $first == *" $WANT" ]] || { ko "$n --version says '$first', CMake says $WANT"; continue; }
  what="'$first'"
  if [[ $n == luaprof* ]]; then
    lua=$(interpreter "$n")
    banner=$(sed -n 2p <<<"$out")
    if command -v "$lua" >/dev/null; then
      real=$("$lua" -v 2>&1 </dev/null | head -n1)
      [[ $banner == "$real" ]] || ko "$n --version names '$banner', $lua -v '$real'"
      what+=", Lua as $lua -v"
    elif [[ -n ${CI:-} ]]; then
      ko "$lua not installed (scripts/deps.sh): cannot check $n's banner"
    fi
    mod=$("$cmd" -o /dev/null -e 'io.write(require("luainstr").version)' 2>&1) \
      || ko "$n: require 'luainstr' failed: $mod"
    [[ $mod == "$WANT" ]] || ko "$n: require('luainstr').version is '$mod', CMake says $WANT"
    what+=", module version"
  fi
  ok "$n --version: $what"
done
[[ $commands -ge 3 ]] || ko "only $commands commands in $PREFIX/bin"

# --- pkg-config and the CMake package -------------------------------------------
pcdir=$(dirname "$PCFILE")
pcs=0
for pc in "$pcdir"/luainstr*.pc; do
  name=$(basename "$pc" .pc)
  got=$(PKG_CONFIG_PATH=$pcdir pkg-config --modversion "$name" 2>&1) || true
  [[ $got == "$WANT" ]] || ko "pkg-config --modversion $name: '$got', CMake says $WANT"
  pcs=$((pcs + 1))
done
ok "pkg-config --modversion of $pcs .pc files"
cat >"$WORK/cv.cmake" <<EOF
set(PACKAGE_FIND_VERSION "$WANT")
string(REPLACE "." ";" v "$WANT")
list(GET v 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET v 1 PACKAGE_FIND_VERSION_MINOR)
include("$LIBDIR/cmake/luainstr/luainstrConfigVersion.cmake")
message("\${PACKAGE_VERSION} \${PACKAGE_VERSION_EXACT}")
EOF
got=$(cmake -P "$WORK/cv.cmake" 2>&1)
[[ $got == "$WANT TRUE" ]] || ko "luainstrConfigVersion.cmake: '$got', not '$WANT TRUE'"
ok "CMake package version $WANT (exact)"

# --- the manual pages ---------------------------------------------------------------
mandir=$PREFIX/share/man
pages=0
for cmd in "$PREFIX"/bin/*; do
  n=${cmd##*/}
  page=$mandir/man1/$n.1
  [[ -e $page ]] || { ko "no manual page for $n (share/man/man1/$n.1)"; continue; }
  title=$(grep -m1 '^\.TH' "$page")
  [[ $title == *"\"luainstr $WANT\""* ]] || ko "$n.1: '$title' does not say luainstr $WANT"
  where=$(MANPATH=$mandir man -w "$n" 2>&1) || true
  [[ $where == "$mandir"/man1/* ]] || ko "man -w $n: '$where', not in $mandir"
  text=$(MANPATH=$mandir MANWIDTH=80 man "$n" 2>&1) || ko "man $n exited $?"
  [[ $text == *"luainstr $WANT"* && $text == *"$n"* ]] \
    || ko "man $n: no 'luainstr $WANT' or '$n' in the page"
  pages=$((pages + 1))
done
for v in "$mandir"/man1/luaprof?*.1; do
  [[ $(readlink "$v") == luaprof.1 ]] || ko "${v##*/} is not a link to luaprof.1"
done
ok "manual pages of $pages commands: man finds each, each says luainstr $WANT"

# --- the reports ----------------------------------------------------------------------
cat >"$WORK/prog.lua" <<'LUA'
local function leaf(n) local s = 0 for i = 1, n do s = s + i end return s end
local function branch(n) return leaf(n) + leaf(n // 2) end
for _ = 1, 20 do branch(1000) end
LUA
luaprof=$PREFIX/bin/luaprof
formats=$("$luaprof" -f no-such-format "$WORK/prog.lua" 2>&1 || true)
formats=$(sed -n 's/.*(formats: \(.*\))$/\1/p' <<<"$formats")
[[ -n $formats ]] || fail "luaprof names no formats for an unknown one"

# check FORMAT FILE: the version where FORMAT puts it ("-": no room)
check() {
  python3 - "$1" "$2" "$WANT" <<'PY'
import json, re, sys
fmt, path, want = sys.argv[1:]
data = open(path, "rb").read()
def say(ok, where):
    print(("ok    " if ok else "FAIL: ") + "%s report: %s" % (fmt, where))
    sys.exit(0 if ok else 1)
if fmt == "text":
    line = data.decode().split("\n")[0]
    say(line.startswith("luainstr profile: ") and line.endswith(", luainstr " + want),
        "summary line '%s'" % line)
elif fmt == "json":
    d = json.loads(data)
    say(list(d)[:3] == ["format", "version", "luainstr"] and d["luainstr"] == want,
        "top-level fields %s, luainstr %r" % (list(d)[:3], d.get("luainstr")))
elif fmt == "callgrind":
    line = [l for l in data.decode().split("\n") if l.startswith("creator:")]
    say(line == ["creator: luainstr " + want], "%s" % line)
elif fmt == "chrome":
    d = json.loads(data)
    say(d["otherData"].get("luainstr") == want, "otherData.luainstr %r" % d["otherData"].get("luainstr"))
elif fmt == "html":
    m = re.search(rb'<script type="application/json" id="li-data">(.*?)</script>', data, re.S)
    d = json.loads(m.group(1)) if m else {}
    say(d.get("luainstr") == want, "the page's data: luainstr %r" % d.get("luainstr"))
elif fmt in ("csv", "folded", "folded-calls", "folded-alloc"):
    say(True, "no room for a version (its readers take every line as data)")
else:
    say(False, "where does it state the version? (add it to tests/version/installed.sh)")
PY
}

for fmt in ${formats//,/ }; do
  out=$WORK/report.$fmt
  "$luaprof" --memory -f "$fmt" -o "$out" "$WORK/prog.lua" >"$WORK/run.log" 2>&1 \
    || { cat "$WORK/run.log"; ko "luaprof -f $fmt exited $?"; continue; }
  if [[ $fmt == pprof ]]; then
    if command -v go >/dev/null; then
      comments=$(go tool pprof -comments "$out" 2>&1) || true
      if grep -qx "luainstr $WANT" <<<"$comments"; then
        ok "pprof report: go tool pprof -comments: luainstr $WANT"
      else
        ko "pprof report: go tool pprof -comments says '$comments', not 'luainstr $WANT'"
      fi
    elif [[ -n ${CI:-} ]]; then
      ko "go not installed (Debian's golang-go): cannot read the pprof report"
    else
      echo "skip  pprof report: no go (Debian's golang-go)"
    fi
    continue
  fi
  check "$fmt" "$out" || failures=$((failures + 1))
done

# every other luaprof: its runtime's version in its json report (a program
# every Lua runs: no integer division)
cat >"$WORK/prog51.lua" <<'LUA'
local function leaf(n) local s = 0 for i = 1, n do s = s + i end return s end
for _ = 1, 20 do leaf(1000) end
LUA
for cmd in "$PREFIX"/bin/luaprof?*; do
  [[ -L $cmd ]] && continue          # luaprof5.4: luaprof itself
  n=${cmd##*/}
  "$cmd" -f json -o "$WORK/$n.json" "$WORK/prog51.lua" >"$WORK/run.log" 2>&1 \
    || { cat "$WORK/run.log"; ko "$n -f json exited $?"; continue; }
  got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("luainstr"))' "$WORK/$n.json")
  [[ $got == "$WANT" ]] && ok "$n: json report's luainstr $got" \
    || ko "$n: json report's luainstr '$got', CMake says $WANT"
done

[[ $failures -eq 0 ]] || { echo "$failures failure(s)"; exit 1; }
echo "all versions are $WANT"
