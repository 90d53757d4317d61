#!/usr/bin/env bash
# A snapshot changes nothing the program can see (issue 21).  Runs the
# behaviour programs of DIR... through tests/behaviour/run_luaprof.sh (the
# same stdout, stderr and exit status under `INTERP P.lua` and under
# luaprof), luaprof being given `--heap` so that it also takes a snapshot
# when each script ends; then checks every snapshot the runs wrote with
# tests/heap/hostile/check_snapshot.py and `luaheap summary` (luaheap
# beside LUAPROF, when built): the one at exit, and those the
# programs took themselves into their directory (*.heapsnapshot: the
# programs here call p.snapshot at many points when require "luainstr"
# works, and print only what they compute).
#
# usage: run.sh LUAPROF [INTERP] [DIR...]
#   INTERP  the stock interpreter (default lua5.4)
#   DIR     folders of behaviour programs (default: this one)
# The environment reaches run_luaprof.sh (LI_LUAPROF_FLAGS=--memory ...,
# LI_JIT_WRAPPERS, LI_ONLY, LI_TIMEOUT).  A program whose luaprof run
# exits 0 must leave a snapshot at exit, unless it calls os.exit (which
# ends the process before the state closes); the others are counted.
# Exits 1 if run_luaprof.sh failed or a snapshot is not valid, 2 on a
# usage error.
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
beh=$here/../../behaviour
. "$beh/common.sh"
[ $# -ge 1 ] || { echo "usage: $0 LUAPROF [INTERP] [DIR...]" >&2; exit 2; }
prof=$(abspath "$1") || exit 2
interp=${2:-lua5.4}
shift $(($# >= 2 ? 2 : 1))
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("$here")
need_command run.sh "luaprof binary" "$prof"
need_command run.sh interpreter "$interp"
need_command run.sh python3 python3
tmo=${LI_TIMEOUT:-60}
setup_run heap/behaviour/run.sh li-heap-beh
version=$("$interp" -e 'io.write(jit and "jit" or (_VERSION:gsub("Lua ", "")))' </dev/null) || exit 2
snaps=$tmp/snaps
mkdir -p "$snaps"
luaheap=$(dirname "$prof")/luaheap        # (beside luaprof, when built)
[ -x "$luaheap" ] || luaheap=

# luaprof with --heap, in each program's copy (run_luaprof.sh runs it in
# <tmp>/<dir>_<program>/prof): its snapshots are moved out once it ends,
# and its status noted.
cat >"$tmp/luaprof" <<EOF
#!/usr/bin/env bash
id=\$(basename "\$(dirname "\$PWD")")
"$prof" --heap "$snaps/\$id.exit.heapsnapshot" "\$@"
st=\$?
for f in *.heapsnapshot; do
  [ -e "\$f" ] && mv -f -- "\$f" "$snaps/\$id.\$f"
done
echo "\$id \$st" >>"$snaps/status"
exit \$st
EOF
chmod +x "$tmp/luaprof"

status=0
bash "$beh/run_luaprof.sh" "$tmp/luaprof" "$interp" "${dirs[@]}" || status=1

checked=0
bad=0
files=()
for f in "$snaps"/*.heapsnapshot; do [ -e "$f" ] && files+=("$f"); done
checked=${#files[@]}
if [ $checked -gt 0 ]; then        # (one checker for all: python starts once)
  while IFS= read -r line; do
    case $line in
      "ok "*) ;;
      *) echo "BAD snapshot: ${line:0:400}"; bad=$((bad + 1)) ;;
    esac
  done < <(python3 "$here/../hostile/check_snapshot.py" "${files[@]}" "lua=$version" 2>&1)
  if [ -n "$luaheap" ]; then
    for f in "${files[@]}"; do
      if ! line=$("$luaheap" summary "$f" 2>&1 >/dev/null); then
        echo "BAD snapshot (luaheap summary): $(basename "$f"): ${line:0:300}"
        bad=$((bad + 1))
      fi
    done
  fi
fi
missing=()
others=0
if [ -f "$snaps/status" ]; then
  while read -r id st; do
    [ -e "$snaps/$id.exit.heapsnapshot" ] && continue
    prog=
    for d in "${dirs[@]}"; do         # (the copy's name: DIR's name _ P)
      b=$(basename "$d")
      case $id in "$b"_*) [ -f "$d/${id#"$b"_}.lua" ] && prog=$d/${id#"$b"_}.lua ;; esac
    done
    if [ "$st" = 0 ] && [ -f "$prog" ] && ! grep -q 'os\.exit' "$prog"; then
      missing+=("$id")
    else
      others=$((others + 1))
    fi
  done <"$snaps/status"
fi
echo "heap/behaviour: $checked snapshots checked ($(ls "$snaps" | grep -c '\.exit\.heapsnapshot$') at exit), $bad not valid"
[ $others -gt 0 ] && echo "heap/behaviour: $others runs without a snapshot at exit (os.exit, or an error status)"
if [ ${#missing[@]} -gt 0 ]; then
  echo "heap/behaviour: no snapshot at exit after a clean end: ${missing[*]}"
  status=1
fi
[ $bad -eq 0 ] || status=1
exit $status
