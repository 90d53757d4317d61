# prefix.sh -- sourced by the tests that use luainstr as an outside user
# would (tests/install/run.sh, tests/game/check.sh): install a build tree
# into a prefix and find where its library went.  The caller defines
# fail MESSAGE and step MESSAGE.
#
#   install_prefix BUILD_DIR PREFIX LOG
# sets PCFILE (the installed luainstr.pc) and LIBDIR: GNUInstallDirs'
# CMAKE_INSTALL_LIBDIR, lib or lib/<multiarch> when the build was
# configured for /usr; the .pc file sits in LIBDIR/pkgconfig.
install_prefix() {
  step "install into $2"
  cmake --install "$1" --prefix "$2" >"$3" 2>&1 \
    || { cat "$3" >&2; fail "cmake --install"; }
  PCFILE=$(find "$2" -path '*/pkgconfig/luainstr.pc' | head -n1)
  [[ -n $PCFILE ]] || fail "no luainstr.pc installed"
  LIBDIR=$(dirname "$(dirname "$PCFILE")")
}

#   build_with_package NAME SOURCE_DIR BUILD_DIR LOG [CMAKE ARGS...]
# configures and builds an outside program with find_package(luainstr)
# from PREFIX (set by the caller, installed by install_prefix) and checks
# that the package found is the prefix's.
build_with_package() {
  local name=$1 src=$2 dir=$3 log=$4 found
  shift 4
  cmake -S "$src" -B "$dir" -DCMAKE_PREFIX_PATH="$PREFIX" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF "$@" >"$log" 2>&1 \
    || { cat "$log" >&2; fail "configure $name"; }
  found=$(sed -n 's/^luainstr_DIR:PATH=//p' "$dir/CMakeCache.txt")
  [[ $(realpath "$found") == "$(realpath "$PREFIX")"/* ]] \
    || fail "find_package found luainstr in '$found', not in the prefix"
  cmake --build "$dir" >>"$log" 2>&1 \
    || { cat "$log" >&2; fail "build $name (CMake)"; }
}

#   uses_prefix BINARY [LIB]
# checks that BINARY takes LIB (default libluainstr, e.g. libluainstr5.1)
# .so from the prefix (LIBDIR).
uses_prefix() {
  local lib name=${2:-libluainstr}
  lib=$(ldd "$1" | awk -v n="$name.so" 'index($1, n) == 1 { print $3 }')
  [[ -n $lib && $(realpath "$lib") == "$(realpath "$LIBDIR")"/* ]] \
    || fail "$1 uses $name.so from '$lib', not from the prefix"
}
