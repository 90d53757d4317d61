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
