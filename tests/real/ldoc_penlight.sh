#!/usr/bin/env bash
# Debian's ldoc generating the reference of Debian's installed penlight,
# under lua5.4 and under luaprof (ldoc, its penlight and its templates all
# run instrumented): the generated files must be identical (diff -r), and
# so must stdout (ldoc's progress), stderr (its ~200 warnings about
# penlight's doc comments) and the exit status.  The report must name
# functions of ldoc and of penlight.
#
# Debian's ldoc declares Lua-Versions 5.1 5.2 but its modules are installed
# for 5.4 too (/usr/share/lua/5.4/ldoc) and it runs there unchanged, with
# Lua's default search paths.  The configuration is penlight.ld here; both
# sides run, in the same scratch directory, as
#   lua5.4                   LDOC -c penlight.ld PL_DIR
#   luaprof -f csv -o REPORT LDOC -c penlight.ld PL_DIR
# with SOURCE_DATE_EPOCH=0, ldoc's own way of making the "Last updated"
# line reproducible.  Nothing is normalised.
#
# usage: ldoc_penlight.sh LUAPROF_BIN SUITES_DIR
# (SUITES_DIR is checked like the other real-suite tests' but not used:
# the sources are the installed penlight.)
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory.)
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 2 ] || { echo "usage: $0 LUAPROF_BIN SUITES_DIR" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init ldoc_penlight.sh "$1" "$2"

need_tool ldoc
ldoc=$(command -v ldoc)
pl=$(lua5.4 -e "print(package.searchpath('pl.utils', package.path) or '')")
if [ -z "$pl" ]; then
  echo "$prog: FAIL: lua5.4 finds no installed penlight (lua-penlight)" >&2
  exit 1
fi
pl=$(dirname "$pl")
export SOURCE_DATE_EPOCH=0
run=$tmp/run
out=$tmp/out
report=$out/report.csv
mkdir -p "$out"

for side in ref prof; do
  rm -rf -- "$run" && mkdir -p "$run" && cp -- "$here/penlight.ld" "$run/" || exit 2
  if [ $side = ref ]; then cmd=(lua5.4); else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$report"); fi
  cd "$run" || exit 2
  timed_side "$out" $side "${cmd[@]}" "$ldoc" -c penlight.ld "$pl"
  cd "$tmp" || exit 2
  mv -- "$run/html" "$out/$side.html" 2>/dev/null || mkdir -p "$out/$side.html"
done

files=$(find "$out/ref.html" -type f | wc -l)
msgs=$(differs "$out"
       if ! diff -r "$out/ref.html" "$out/prof.html" >"$out/html.diff"; then
         echo "  --- generated files differ (diff -r lua5.4 luaprof):"
         head -n "${LI_DIFF_LINES:-40}" "$out/html.diff" | sed 's/^/    /'
       fi
       report_lacks "$report" "ldoc:/ldoc/" "penlight:/pl/")
if [ "$files" -lt 10 ] || [ "$(cat "$out/ref.status")" != 0 ]; then
  msgs+=$'\n'"  ldoc under lua5.4 did not do its job: status $(cat "$out/ref.status"), $files files"
  msgs+=$'\n'"$(head -n 20 "$out/ref.stderr" | sed 's/^/    /')"
fi

echo "ldoc: $files files generated from $pl, $(wc -l <"$out/ref.stderr") warning lines"
echo "run time: lua5.4 ${ms_ref} ms, luaprof ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   ldoc penlight: generated files, stdout, stderr, exit status identical; report written"
  exit 0
fi
echo "FAIL ldoc penlight"
printf '%s\n' "$msgs"
exit 1
