# shellcheck shell=bash
# shared_missing.sh -- what a test does when material kept beside the
# project (../shared, or the path configured) is not there.  Sourced.
#
# shared_missing PROG WHAT WHERE...: print that WHAT is missing and the
# lines WHERE (how to get it, how to point the build at it) to stderr,
# then exit 77, which ctest reports as a skip (SKIP_RETURN_CODE), or 1
# when the environment variable CI is set and not empty: CI always has
# the material, so there its absence is a failure, never a green skip.
shared_missing() {
  local prog=$1 what=$2 line
  shift 2
  if [ -n "${CI:-}" ]; then
    echo "$prog: FAIL: $what (CI is set: the material must be there)" >&2
  else
    echo "$prog: SKIP: $what" >&2
  fi
  for line in "$@"; do echo "$prog:   $line" >&2; done
  [ -n "${CI:-}" ] && exit 1
  exit 77
}
