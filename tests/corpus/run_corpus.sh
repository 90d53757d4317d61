#!/usr/bin/env bash
# run_corpus.sh BIN_DIR -- the real-world corpus test.
#
# For every file of tests/corpus/list_corpus.sh (about 1,200 Lua and NSE
# files from Debian packages), lua5.4's loadfile decides whether the file is
# accepted (a BOM and a `#` first line skipped, as `lua5.4 FILE` does), and:
#  - accepted: BIN_DIR/luainstr succeeds, its output loads too, and
#    `luac5.4 -p -l` lists the same functions with the same line ranges, in
#    the same order (the probe prologue's own two functions aside).  Output
#    identical to the input (nothing instrumented) passes only if luainstr
#    printed a warning saying why.
#  - rejected: luainstr exits 1, prints nothing on stdout, and its message
#    is Lua's own: "luainstr: " followed by loadfile's error.
# Ends with the line "N passed, N failed"; exits 1 if any failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# --check BIN_DIR WORKDIR FILE...: the worker that xargs runs, one result
# line per file ("PASS|FAIL<TAB>file<TAB>detail") appended to
# WORKDIR/results; short lines appended with O_APPEND do not interleave.
check_files() {
  local bin=$1 work=$2
  shift 2
  local f w
  w=$(mktemp -d "$work/w.XXXXXX")  # this worker's scratch, reused per file
  for f in "$@"; do
    rm -f "$w"/*
    check_one "$bin" "$w" "$f" >> "$work/results"
  done
  rm -rf "$w"
}

# The first line of a file, at most 300 bytes.
first_line() {
  local line=
  IFS= read -r line < "$1" || true
  printf '%s' "${line:0:300}"
}

# The functions luac5.4 lists in a file, "first,last" line each, in order
# (main first, then depth first as the functions appear).
ranges() {
  luac5.4 -p -l -- "$1" |
    sed -nE 's/^(main|function) <.*:([0-9]+,[0-9]+)> .*/\2/p'
}

# Same functions with the same line ranges in both files?  The prologue the
# rewriter puts before the first statement,
#   local P=(("").__luainstr or function()return function(_,...) ... end end)
# adds two one-line functions to the output, right after main (the first
# functions main defines): they are set aside when they are exactly that,
# a pair of identical one-line ranges on a line that names __luainstr.
same_ranges() {  # orig.ranges out.ranges out.lua
  local -a a b
  local line
  mapfile -t a < "$1"
  mapfile -t b < "$2"
  if [[ ${#b[@]} -eq $((${#a[@]} + 2)) && ${b[1]} == "${b[2]}" &&
        ${b[1]%,*} == "${b[1]#*,}" ]]; then
    line=${b[1]%,*}
    if sed -n "${line}{p;q}" -- "$3" | grep -qa __luainstr; then
      b=("${b[0]}" "${b[@]:3}")
    fi
  fi
  [[ ${#a[@]} -eq ${#b[@]} && "${a[*]}" == "${b[*]}" ]] && return 0
  local i=0
  while [[ $i -lt ${#a[@]} && ${a[i]} == "${b[i]-}" ]]; do i=$((i + 1)); done
  printf '%d functions in, %d out; function %d at lines %s in, %s out' \
    "${#a[@]}" "${#b[@]}" "$((i + 1))" "${a[i]-none}" "${b[i]-none}"
  return 1
}

check_one() {
  local bin=$1 w=$2 f=$3 status=0 verdict why
  "$bin/luainstr" "$f" > "$w/instr.out" 2> "$w/instr.err" || status=$?
  verdict=$(lua5.4 "$here/loadcheck.lua" "$f" "$w/instr.out" "$w") || {
    printf 'FAIL\t%s\tloadcheck.lua failed\n' "$f"; return; }
  # shellcheck disable=SC2086
  set -- $verdict  # orig ok|fail, out ok|fail, same|differ
  if [[ $1 == fail ]]; then
    if [[ $status -ne 1 ]]; then
      printf 'FAIL\t%s\trejected by Lua but luainstr exited %d\n' "$f" "$status"
    elif [[ -s $w/instr.out ]]; then
      printf 'FAIL\t%s\trejected by Lua but luainstr wrote output\n' "$f"
    elif ! cmp -s "$w/expected.err" "$w/instr.err"; then
      printf 'FAIL\t%s\tmessage differs from Lua'"'"'s: %s\n' "$f" \
        "$(first_line "$w/instr.err")"
    else
      printf 'PASS\t%s\trejected\n' "$f"
    fi
    return
  fi
  if [[ $status -ne 0 ]]; then
    printf 'FAIL\t%s\tluainstr exited %d: %s\n' "$f" "$status" \
      "$(first_line "$w/instr.err")"
  elif [[ $2 != ok ]]; then
    printf 'FAIL\t%s\toutput does not load: %s\n' "$f" \
      "$(first_line "$w/out.err")"
  elif ! ranges "$w/orig.lua" > "$w/orig.ranges" ||
       ! ranges "$w/out.lua" > "$w/out.ranges"; then
    printf 'FAIL\t%s\tluac5.4 -p -l failed\n' "$f"
  elif ! why=$(same_ranges "$w/orig.ranges" "$w/out.ranges" "$w/out.lua"); then
    printf 'FAIL\t%s\tfunction line ranges differ: %s\n' "$f" "$why"
  elif [[ $3 == same && ! -s $w/instr.err ]]; then
    printf 'FAIL\t%s\toutput is the input, and no warning says why\n' "$f"
  elif [[ $3 == same ]]; then
    printf 'PASS\t%s\tuninstrumented: %s\n' "$f" "$(first_line "$w/instr.err")"
  elif [[ -s $w/instr.err ]]; then
    printf 'PASS\t%s\twarned: %s\n' "$f" "$(first_line "$w/instr.err")"
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
