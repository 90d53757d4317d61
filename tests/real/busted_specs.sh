#!/usr/bin/env bash
# A library's own busted specs, run by Debian's busted under lua5.4 and with
# busted's interpreter swapped for luaprof, so that busted itself, the
# library under test and the specs all run instrumented (or under lua5.N
# and luaprof5.N: Debian installs busted, luassert and penlight for 5.1 to
# 5.4).  The TAP output
# (after the normalising below), stderr and exit status must be the same,
# and the report must name functions of busted, of the library and of the
# specs.
#
# usage: busted_specs.sh LUAPROF_BIN SUITES_DIR SUITE LIBRARY [LUA]
#   SUITE     folder under SUITES_DIR holding spec/ (penlight-1.13.1, ...)
#   LIBRARY   installed module folder the specs test (pl, luassert)
#   LUA       the stock interpreter LUAPROF_BIN is built for (lua5.4)
#
# How busted is driven: `busted --lua=X ARGS` only re-runs itself as
# `X /usr/bin/busted --ignore-lua ARGS` through os.execute, after parsing
# its options under /usr/bin/lua (Lua 5.3 on Debian).  Both sides run that
# inner command directly, from the root of a fresh copy (the same path for
# both):
#   lua5.4                       BUSTED --ignore-lua -o TAP --verbose spec
#   luaprof -f csv -o REPORT     BUSTED --ignore-lua -o TAP --verbose spec
# (lua5.N and luaprof5.N the same way: busted's modules are found on the
# default path of each Lua.)
# --verbose adds each failure's traceback to the TAP output.
#
# Normalised in stdout before comparing, and nothing else:
#   0x<hex> -> 0x@  Addresses (`table: 0x55d1...`) change from run to run
#                   (ASLR, allocation order); the rest of the line, and so
#                   how many there are and where, is still compared.
# TAP has no timings (busted prints no duration in it) and no random seed
# (printed only with --shuffle, not used), so neither needs removing.
#
# Prints the verdict, the run times, the diffs on failure.
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory.)
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 4 ] || [ $# -eq 5 ] || { echo "usage: $0 LUAPROF_BIN SUITES_DIR SUITE LIBRARY [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init "busted_specs.sh ($3)" "$1" "$2" "${5:-lua5.4}"
suite=$3
lib=$4

need_suite "$suite"
need_tool busted
busted=$(command -v busted)
[ -d "$src/spec" ] || { echo "$prog: FAIL: no $src/spec" >&2; exit 1; }
run=$tmp/run/$suite
out=$tmp/out
report=$out/report.csv
mkdir -p "$out"

for side in ref prof; do
  fresh_copy "$src" "$run"
  if [ $side = ref ]; then cmd=("$lua"); else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$report"); fi
  cd "$run" || exit 2
  timed_side "$out" $side "${cmd[@]}" "$busted" --ignore-lua -o TAP --verbose spec
  cd "$tmp" || exit 2
  # (run_side keeps the raw output next to the normalised one.)
  sed -E 's/0x[0-9a-fA-F]+/0x@/g' "$out/$side.stdout.raw" >"$out/$side.stdout"
done

tests=$(grep -Ec '^(not )?ok ' "$out/ref.stdout")
fails=$(grep -Ec '^not ok ' "$out/ref.stdout")
plan=$(grep -E '^1\.\.[0-9]+$' "$out/ref.stdout" | tail -n 1)
msgs=$(differs "$out"
       report_lacks "$report" "busted:/busted/" "$lib:/$lib/" \
         'the specs:spec/[A-Za-z0-9_]*_spec\.lua')
if [ "$tests" -eq 0 ]; then
  msgs+=$'\n'"  busted ran no test under $lua"
fi

echo "$suite: $tests tests (plan ${plan:-missing}), $fails failing under $lua" \
     "(compared all the same), exit status $(cat "$out/ref.status")"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   $suite: TAP, stderr and exit status identical; report written"
  exit 0
fi
echo "FAIL $suite"
printf '%s\n' "$msgs"
exit 1
