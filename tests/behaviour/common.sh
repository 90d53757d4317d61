# common.sh -- what the behaviour runners (run.sh, run_luaprof.sh) share.
# Sourced, not run.  Uses and sets: tmo (seconds per run), run_timeout,
# tmp (the scratch directory, removed at exit unless LI_KEEP=1).

# Absolute paths, so that the `cd` into the temp dirs does not break them.
abspath() {
  case $1 in
    /*) printf '%s\n' "$1" ;;
    */*) printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")" ;;
    *) printf '%s\n' "$1" ;;   # a bare command name: looked up in PATH
  esac
}

# need_command RUNNER WHAT PATH: exit 2 unless PATH runs.
need_command() {
  if ! command -v "$3" >/dev/null 2>&1; then
    echo "$1: $2 not found: $3" >&2
    exit 2
  fi
}

# A clean environment for Lua: no init code, modules found next to P.lua.
clean_lua_env() {
  unset LUA_INIT LUA_INIT_5_1 LUA_INIT_5_2 LUA_INIT_5_3 LUA_INIT_5_4 \
        LUA_PATH_5_1 LUA_PATH_5_2 LUA_PATH_5_3 LUA_PATH_5_4 \
        LUA_CPATH LUA_CPATH_5_1 LUA_CPATH_5_2 LUA_CPATH_5_3 LUA_CPATH_5_4
  export LUA_PATH='./?.lua'
  export LUA_CPATH='./?.so'
  export LC_ALL=C
}

# setup_run RUNNER TMPNAME: the timeout command and the scratch directory.
setup_run() {
  if command -v timeout >/dev/null 2>&1; then
    run_timeout=(timeout -k 5 "$tmo")
  else
    run_timeout=()
  fi
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX") || exit 2
  if [ "${LI_KEEP:-0}" = 1 ]; then
    echo "$1: keeping $tmp"
  else
    trap 'rm -rf -- "$tmp"' EXIT
  fi
  trap 'exit 130' INT TERM
}

excerpt() {  # indent and cut a diff
  head -n "${2:-30}" -- "$1" | sed 's/^/    /'
}
