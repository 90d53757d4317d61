#!/usr/bin/env bash
# logs.sh -- the sanitizer build's reports (tests/CMakeLists.txt).  Every
# sanitized process of the tests writes its findings to files in DIR
# (log_path), not to stderr, so that a test comparing stderr byte for byte
# sees none of it, and a finding in a process whose status a test ignores
# is still seen: `clear` runs before the tests, `check` after them.
#
# usage: logs.sh clear|check DIR
# check prints every report and exits 1 if there is one.
set -u
[ $# -eq 2 ] || { echo "usage: $0 clear|check DIR" >&2; exit 2; }
dir=$2
case $1 in
  clear)
    rm -rf -- "$dir" && mkdir -p -- "$dir" ;;
  check)
    shopt -s nullglob
    reports=("$dir"/*)
    if [ ${#reports[@]} -eq 0 ]; then
      echo "no sanitizer report in $dir"
      exit 0
    fi
    for f in "${reports[@]}"; do
      echo "==== $f"
      cat -- "$f"
    done
    echo "${#reports[@]} sanitizer report(s) in $dir"
    exit 1 ;;
  *)
    echo "usage: $0 clear|check DIR" >&2; exit 2 ;;
esac
