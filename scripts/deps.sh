#!/usr/bin/env bash
# deps.sh -- install every Debian package luainstr needs, if any is missing.
# Idempotent and non-interactive: when everything is present it does nothing
# (no `apt-get update`), so it is cheap to run before every build.
set -euo pipefail

packages=(
  # build
  cmake gcc make pkg-config re2c lemon liblua5.4-dev
  # the runtime for every other Lua (issue 19)
  liblua5.1-0-dev liblua5.2-dev liblua5.3-dev
  # and for LuaJIT (issue 20)
  libluajit-5.1-dev
  # tests and tools
  lua5.4 libcriterion-dev valgrind lua5.1 lua5.2 luajit lua5.3 python3 chromium fonts-dejavu-core
  # sanitizer runtimes (scripts/sanitize.sh; gcc 12's, found by gcc itself)
  libasan8 libubsan1 libtsan2
  # fuzzing (scripts/fuzz.sh): clang and its libFuzzer, ASan and UBSan
  # runtimes (libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev, which
  # clang-14 only recommends)
  clang-14 libclang-rt-14-dev
  # the real-world corpus (tests/corpus/list_corpus.sh)
  lua-penlight luarocks lua-busted lua-ldoc lua-luassert prosody nmap-common
  # real Lua 5.1 code run under luaprof5.1
  lua-markdown lua-check
  # the live view's server and its client tests
  libwebsockets-dev python3-websocket
  # the pprof report (protobuf-c, zlib) and its consumer
  # in the tests, `go tool pprof`
  libprotobuf-c-dev protobuf-c-compiler zlib1g-dev golang-go
  # the manual pages' tests: groff -ww, man, lexgrog
  groff-base man-db
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done
# node and npm for Chrome DevTools' heap snapshot loader, an npm package
# (tests/heap/devtools): by command, as scripts/js.sh asks, since a node
# from elsewhere (NodeSource's nodejs carries its own npm) conflicts with
# Debian's npm package
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root or sudo" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}" >/dev/null
