#!/usr/bin/env bash
# run.sh LIFT_IDENTITY... -- each tests/lift/lift_identity.c program (one
# per Lua) over the Debian corpus (tests/corpus/list_corpus.sh, listed
# once).  Without the corpus's packages: a skip (77) saying so; under CI=1
# a failure.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if ! bash "$here/../corpus/list_corpus.sh" > "$list"; then
  if [[ ${CI:-} == 1 ]]; then
    echo "lift/run.sh: the corpus's packages are missing (scripts/deps.sh)" >&2
    exit 1
  fi
  echo "lift/run.sh: skipped: the corpus's packages are not installed (scripts/deps.sh)"
  exit 77
fi
status=0
for program in "$@"; do
  "$program" "$list" || status=1
done
exit $status
