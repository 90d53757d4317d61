#!/usr/bin/env bash
# run_corpus.sh BIN_DIR -- the real-world corpus test.
#
# For every file of tests/corpus/list_corpus.sh (about 1,200 Lua and NSE
# files from Debian packages), lua5.4's loadfile decides whether the file is
# accepted (a BOM and a `#` first line skipped, as `lua5.4 FILE` does), and:
#  - accepted: BIN_DIR/luainstr succeeds, its output loads too, and it has
#    the same functions with the same line ranges, in the same order, as
#    `luac5.4 -p -l` would list them (the probe prologue's own two
#    functions aside; loadcheck.lua reads them from string.dump).  Output
#    identical to the input (nothing instrumented) passes only if luainstr
#    printed a warning saying why.
#  - rejected: luainstr exits 1, prints nothing on stdout, and its message
#    is Lua's own: "luainstr: " followed by loadfile's error.
# Two workers (xargs -P 2), 25 files each time: luainstr once per file,
# lua5.4 once per 25 files.  Ends with the line "N passed, N failed"; exits
# 1 if any failed (a file with no result fails), 2 on bad usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# --check BIN_DIR WORKDIR FILE...: the worker that xargs runs, one result
# line per file ("PASS|FAIL<TAB>file<TAB>detail") appended to
# WORKDIR/results; short lines appended with O_APPEND do not interleave.
# Process start-up is most of the cost, so a worker starts luainstr once
# per file but lua5.4 (loadcheck.lua) once for all its files, and the rest
# is bash builtins.
check_files() {
  local bin=$1 work=$2
  shift 2
  local f i w
  local -a verdicts
  w=$(mktemp -d "$work/w.XXXXXX")  # this worker's scratch, files by number
  i=0
  for f in "$@"; do
    i=$((i + 1))
    "$bin/luainstr" "$f" > "$w/$i.out" 2> "$w/$i.err" || echo $? > "$w/$i.status"
  done
  lua5.4 "$here/loadcheck.lua" "$w" "$@" > "$w/verdicts" || true
  mapfile -t verdicts < "$w/verdicts"
  i=0
  for f in "$@"; do
    i=$((i + 1))
    check_one "$w" "$i" "$f" "${verdicts[i - 1]-}" >> "$work/results"
  done
  rm -rf "$w"
}

# first_line VAR FILE: VAR= the first line of FILE, at most 300 bytes.
first_line() {
  local line=
  IFS= read -r line < "$2" || true
  printf -v "$1" '%s' "${line:0:300}"
}

# Same functions with the same line ranges in both files?  The prologue the
# rewriter puts before the first statement,
#   local P=(("").__luainstr or function()return function(_,...) ... end end)
# adds two one-line functions to the output, right after main (the first
# functions main defines): they are set aside when they are exactly that,
# a pair of identical one-line ranges on a line that names __luainstr.
# If not, says how in why.
same_ranges() {  # orig.ranges out.ranges out.lua
  local -a a b l
  local line
  mapfile -t a < "$1"
  mapfile -t b < "$2"
  if [[ ${#b[@]} -eq $((${#a[@]} + 2)) && ${b[1]} == "${b[2]}" &&
        ${b[1]%,*} == "${b[1]#*,}" ]]; then
    line=${b[1]%,*}
    mapfile -t -s $((line - 1)) -n 1 l < "$3"  # line $line of out.lua
    if [[ ${l[0]-} == *__luainstr* ]]; then
      b=("${b[0]}" "${b[@]:3}")
    fi
  fi
  [[ ${#a[@]} -eq ${#b[@]} && "${a[*]}" == "${b[*]}" ]] && return 0
  local i=0
  while [[ $i -lt ${#a[@]} && ${a[i]} == "${b[i]-}" ]]; do i=$((i + 1)); done
  printf -v why '%d functions in, %d out; function %d at lines %s in, %s out' \
    "${#a[@]}" "${#b[@]}" "$((i + 1))" "${a[i]-none}" "${b[i]-none}"
  return 1
}

check_one() {  # WORK I FILE VERDICT: file number I of the worker's scratch
  local w=$1 i=$2 f=$3 verdict=$4 status=0 msg why
  local p=$w/$i
  [[ -e $p.status ]] && read -r status < "$p.status"
  # shellcheck disable=SC2086
  set -- $verdict  # orig ok|fail, out ok|fail, same|differ
  if [[ $# -ne 3 || $1 == error ]]; then
    printf 'FAIL\t%s\tloadcheck.lua failed: %s\n' "$f" "${verdict:-no verdict}"
    return
  fi
  if [[ $1 == fail ]]; then
    if [[ $status -ne 1 ]]; then
      printf 'FAIL\t%s\trejected by Lua but luainstr exited %d\n' "$f" "$status"
    elif [[ -s $p.out ]]; then
      printf 'FAIL\t%s\trejected by Lua but luainstr wrote output\n' "$f"
    elif ! cmp -s "$p.expected.err" "$p.err"; then
      first_line msg "$p.err"
      printf 'FAIL\t%s\tmessage differs from Lua'"'"'s: %s\n' "$f" "$msg"
    else
      printf 'PASS\t%s\trejected\n' "$f"
    fi
    return
  fi
  if [[ $status -ne 0 ]]; then
    first_line msg "$p.err"
    printf 'FAIL\t%s\tluainstr exited %d: %s\n' "$f" "$status" "$msg"
  elif [[ $2 != ok ]]; then
    first_line msg "$p.out.err"
    printf 'FAIL\t%s\toutput does not load: %s\n' "$f" "$msg"
  elif ! same_ranges "$p.orig.ranges" "$p.out.ranges" "$p.out"; then
    printf 'FAIL\t%s\tfunction line ranges differ: %s\n' "$f" "$why"
  elif [[ $3 == same && ! -s $p.err ]]; then
    printf 'FAIL\t%s\toutput is the input, and no warning says why\n' "$f"
  elif [[ $3 == same ]]; then
    first_line msg "$p.err"
    printf 'PASS\t%s\tuninstrumented: %s\n' "$f" "$msg"
  elif [[ -s $p.err ]]; then
    first_line msg "$p.err"
    printf 'PASS\t%s\twarned: %s\n' "$f" "$msg"
  else
    printf 'PASS\t%s\tinstrumented\n' "$f"
  fi
}

if [[ ${1-} == --check ]]; then
  shift
  check_files "$@"
  exit 0
fi

if [[ $# -ne 1 ]]; then
  echo "usage: run_corpus.sh BIN_DIR" >&2
  exit 2
fi
bin=$(cd "$1" && pwd)
if [[ ! -x $bin/luainstr ]]; then
  echo "run_corpus.sh: no $bin/luainstr" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$here/list_corpus.sh" > "$work/files"
total=$(wc -l < "$work/files")
if [[ $total -eq 0 ]]; then
  echo "run_corpus.sh: the corpus is empty" >&2
  exit 1
fi
: > "$work/results"
tr '\n' '\0' < "$work/files" |
  xargs -0 -P 2 -n 25 bash "${BASH_SOURCE[0]}" --check "$bin" "$work"

count() { grep -c -- "$1" "$work/results" || true; }
passed=$(count '^PASS')
failed=$(count '^FAIL')
missing=$((total - passed - failed))  # a worker that died says nothing

echo "corpus: $total files from Debian packages"
echo "  accepted by lua5.4 and instrumented:  $(count $'\tinstrumented$')"
echo "  ... with warnings:                     $(count $'\twarned: ')"
echo "  accepted, left uninstrumented (warned): $(count $'\tuninstrumented: ')"
echo "  rejected by lua5.4, rejected the same:  $(count $'\trejected$')"
if grep -q $'\tuninstrumented: ' "$work/results"; then
  echo "uninstrumented files:"
  grep $'\tuninstrumented: ' "$work/results" | cut -f 2- | sed 's/^/  /'
fi
if [[ $failed -gt 0 ]]; then
  echo "failures (first 50 of $failed):"
  grep '^FAIL' "$work/results" | cut -f 2- | head -n 50 | sed 's/^/  /'
fi
if [[ $missing -gt 0 ]]; then
  echo "no result for $missing files"
  failed=$((failed + missing))
fi
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
