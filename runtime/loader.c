/*
** loader.c -- the instrumenting loader.  Every entry point (the C hook
** luainstr_loadbufferx, luaprof, the Lua-level load/loadfile/dofile/require
** replacements) ends here, and here ends in li_instrument_load(), the one
** rewrite-and-compile path.
*/
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "instrument.h"
#include "runtime.h"

int li_load(lua_State *L, const char *buff, size_t sz, const char *name,
            const char *mode) {
  li_prof *P = li_prof_get(L);
  li_rewrite_opts o;
  li_rewrite_result r;
  int instrumented, status;
  if (P != NULL && !li_prof_wants(P, name))
    return luaL_loadbufferx(L, buff, sz, name, mode);
  memset(&o, 0, sizeof o);
  o.version = 54;
  o.chunkname = name;
  status = li_instrument_load(L, buff, sz, name, mode, &o, &r, &instrumented);
  if (r.warnings != NULL && P != NULL) li_prof_warn(P, r.warnings);
  li_rewrite_free(&r);
  return status;
}

/* How many bytes luaL_loadfilex skips before the chunk: a UTF-8 BOM and a
** first line starting with '#' (up to, not including, its '\n').  *binary
** tells whether a precompiled chunk follows. */
static size_t file_prefix(const char *b, size_t n, int *binary) {
  size_t i = 0;
  if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) i = 3;
  if (i < n && b[i] == '#') {
    const char *nl = memchr(b + i, '\n', n - i);
    if (nl == NULL) { *binary = 0; return n; }
    i = (size_t)(nl - b);
    /* a binary chunk after the comment starts past the line break */
    *binary = i + 1 < n && b[i + 1] == LUA_SIGNATURE[0];
    return *binary ? i + 1 : i;
  }
  *binary = i < n && b[i] == LUA_SIGNATURE[0];
  return i;
}

int li_load_filebytes(lua_State *L, const char *buff, size_t sz,
                      const char *name, const char *mode) {
  int binary;
  size_t skip = file_prefix(buff, sz, &binary);
  if (binary) return luaL_loadbufferx(L, buff + skip, sz - skip, name, mode);
  return li_load(L, buff + skip, sz - skip, name, mode);
}
