#!/usr/bin/env bash
# luaheap over hand-written snapshots with known answers (README.md in this
# folder draws each graph and derives its dominators, retained sizes and
# paths): every output compared byte for byte with expected/, every JSON
# output also parsed by node's JSON.parse; malformed files each exit 1
# with their message (expected/bad.txt); usage errors exit 2; a heap
# snapshot V8 itself wrote (node's v8.writeHeapSnapshot, the format of
# Chrome's) reads with the node and edge counts and the total size node's
# own JSON.parse of it gives.
#
# usage: run.sh LUAHEAP
# LI_UPDATE=1 rewrites expected/ from the outputs (then review the diff).
set -u
set -o pipefail
[ $# -eq 1 ] || { echo "usage: $0 LUAHEAP" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
lh=$1
case $lh in /*) ;; */*) lh=$(cd "$(dirname "$lh")" && pwd)/$(basename "$lh") ;; esac
[ -x "$lh" ] || { echo "run.sh: no luaheap at $lh" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$here" || exit 2   # the file names in the outputs are relative
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok   $1"; }
ko() { fail=$((fail + 1)); echo "FAIL $1${2:+: $2}"; }

# check NAME STATUS ARGS...: luaheap ARGS exits STATUS, writes nothing on
# stderr and writes expected/NAME on stdout (a JSON one parses).
check() {
  local name=$1 want=$2 st
  shift 2
  "$lh" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
  if [ "${LI_UPDATE:-}" = 1 ]; then cp "$tmp/out" "expected/$name"; fi
  if [ $st -ne "$want" ]; then
    ko "$name" "exit $st, not $want: $(head -c 300 "$tmp/err")"
  elif [ -s "$tmp/err" ]; then
    ko "$name" "stderr: $(head -c 300 "$tmp/err")"
  elif ! cmp -s "$tmp/out" "expected/$name"; then
    ko "$name" "output differs:"
    diff "expected/$name" "$tmp/out" | head -20
  elif [[ $name == *.json ]] &&
       ! node -e 'JSON.parse(require("fs").readFileSync(0, "utf8"))' <"$tmp/out"; then
    ko "$name" "not JSON"
  else
    ok "$name"
  fi
}

# --- known answers ---------------------------------------------------------
check game_summary.txt 0 summary game.heapsnapshot
check game_summary.json 0 summary --json game.heapsnapshot
check game_path_pos.txt 0 path game.heapsnapshot 1056
check game_path_cache.txt 0 path game.heapsnapshot 0x428
check game_path_local.txt 0 path game.heapsnapshot 1072
check game_path_cache.json 0 --json path game.heapsnapshot 1064
check lengauer_tarjan.txt 0 summary --top 20 lengauer_tarjan.heapsnapshot
check diamond.txt 0 summary --top=20 diamond.heapsnapshot
check cycle.txt 0 summary --top 20 cycle.heapsnapshot
check weak.txt 0 summary --top 20 weak.heapsnapshot
check weak_path_w.txt 0 path weak.heapsnapshot 40
check weak_path_w.json 0 path --json weak.heapsnapshot 40
check leak_ab.txt 0 diff leak_a.heapsnapshot leak_b.heapsnapshot
check leak_ab.json 0 diff --json leak_a.heapsnapshot leak_b.heapsnapshot
check leak_abc.txt 0 diff leak_a.heapsnapshot leak_b.heapsnapshot leak_c.heapsnapshot
check leak_abc.json 0 diff --json leak_a.heapsnapshot leak_b.heapsnapshot leak_c.heapsnapshot
check leak_c_summary.json 0 summary --json --top 3 leak_c.heapsnapshot
check leak_c_path.txt 0 path leak_c.heapsnapshot 3108
check names_ab.txt 0 diff names_a.heapsnapshot names_b.heapsnapshot
check top_zero.txt 0 summary --top 0 game.heapsnapshot
check keys.txt 0 summary --top 20 keys.heapsnapshot
check out_of_order.txt 0 diff leak_b.heapsnapshot leak_a.heapsnapshot
check two_runs.json 0 diff --json game.heapsnapshot leak_a.heapsnapshot

# --- malformed files: a clear message each, exit 1, nothing on stdout -------
: >"$tmp/bad"
for f in bad/*.heapsnapshot; do
  "$lh" summary "$f" >"$tmp/out" 2>"$tmp/err"
  st=$?
  if [ -s "$tmp/out" ]; then ko "$f" "wrote on stdout"; fi
  echo "$st $(cat "$tmp/err")" >>"$tmp/bad"
done
[ "${LI_UPDATE:-}" = 1 ] && cp "$tmp/bad" expected/bad.txt
if cmp -s "$tmp/bad" expected/bad.txt; then
  ok "malformed files ($(wc -l <"$tmp/bad"))"
else
  ko "malformed files" "messages differ:"
  diff expected/bad.txt "$tmp/bad"
fi

# --- usage -------------------------------------------------------------------
usage() {   # usage NAME STATUS ARGS...: exits STATUS, stderr or stdout says so
  local name=$1 want=$2 st
  shift 2
  "$lh" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
  if [ $st -ne "$want" ]; then ko "usage: $name" "exit $st, not $want"
  elif [ "$want" -ne 0 ] && ! grep -q '^luaheap: ' "$tmp/err"; then
    ko "usage: $name" "no message"
  else ok "usage: $name"; fi
}
usage "no arguments" 2
usage "unknown command" 2 sum game.heapsnapshot
usage "unknown option" 2 summary -x game.heapsnapshot
usage "summary without a file" 2 summary
usage "diff with one file" 2 diff game.heapsnapshot
usage "diff with four files" 2 diff a b c d
usage "--top without a number" 2 summary game.heapsnapshot --top
usage "--top not a number" 2 summary --top ten game.heapsnapshot
usage "path without an id" 2 path game.heapsnapshot
usage "path with a bad id" 2 path game.heapsnapshot 12x
usage "id not in the file" 1 path game.heapsnapshot 12
usage "missing file" 1 summary no-such-file.heapsnapshot
usage "a directory" 1 summary .
usage "diff with a bad third file" 1 diff leak_a.heapsnapshot leak_b.heapsnapshot bad/empty.heapsnapshot
usage "--help" 0 --help
usage "--version" 0 --version
if "$lh" --help | grep -q '^usage: luaheap summary FILE' &&
   [ "$("$lh" --version)" = "luaheap $("$lh" --version | cut -d' ' -f2)" ]; then
  ok "usage: --help and --version say so"
else
  ko "usage: --help and --version say so"
fi
if "$lh" summary game.heapsnapshot >/dev/full 2>"$tmp/err"; then
  ko "write error" "exit 0 writing to /dev/full"
elif grep -q '^luaheap: write error' "$tmp/err"; then ok "write error"
else ko "write error" "$(cat "$tmp/err")"; fi

# --- a snapshot V8 wrote ----------------------------------------------------
if command -v node >/dev/null 2>&1; then
  node -e 'require("v8").writeHeapSnapshot(process.argv[1])' "$tmp/v8.heapsnapshot"
  want=$(node -e '
    const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const m = s.snapshot.meta, nf = m.node_fields.length;
    const self = m.node_fields.indexOf("self_size");
    let total = 0;
    for (let i = self; i < s.nodes.length; i += nf) total += s.nodes[i];
    console.log(`${s.nodes.length / nf} nodes, ${s.edges.length / m.edge_fields.length} edges, ${total} bytes`);
  ' "$tmp/v8.heapsnapshot")
  "$lh" summary "$tmp/v8.heapsnapshot" >"$tmp/out" 2>"$tmp/err"
  st=$?
  got=$(sed -n 3p "$tmp/out")
  if [ $st -eq 0 ] && [ "$got" = "$want" ] &&
     "$lh" summary --json "$tmp/v8.heapsnapshot" | node -e '
       const j = JSON.parse(require("fs").readFileSync(0, "utf8"));
       if (j.lua !== null || j.retainers.length !== 10) process.exit(1);'; then
    ok "V8's own snapshot ($want)"
  else
    ko "V8's own snapshot" "exit $st; luaheap: '$got'; node: '$want'; $(head -c 300 "$tmp/err")"
  fi
else
  echo "skip V8's own snapshot (no node)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
