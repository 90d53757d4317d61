/*
** host.c -- a small engine host that profiles its Lua scripts with
** luainstr, built as an outside program would build it: against the
** installed library (CMakeLists.txt: find_package; Makefile: pkg-config).
**
**     host [SCRIPT]        runs SCRIPT (default game.lua), then writes the
**                          profile as text to stderr
**
** The host's loads go through luaL_loadbufferx and its calls through
** lua_pcall as usual; luainstr_wrap.h routes them through the wrap_
** functions, which are the profiler's while its hooks are installed.
*/
#include <stdio.h>
#include <stdlib.h>

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
/* After lauxlib.h: every loader, lua_resume and lua_pcall below call the
** swappable entry points. */
#include <luainstr_wrap.h>

/* Reads the whole file into a malloc'd buffer; NULL on failure. */
static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  int failed = 0;
  if (f == NULL) return NULL;
  do {
    if (n == cap) {
      size_t newcap = cap ? 2 * cap : 4096;
      char *grown = realloc(buf, newcap);
      if (grown == NULL) { failed = 1; break; }
      buf = grown;
      cap = newcap;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  failed |= ferror(f);
  fclose(f);
  if (failed) { free(buf); return NULL; }
  *size = n;
  return buf;
}

/* Loads SCRIPT the way an engine loads its scripts: bytes from its own
** file system, then luaL_loadbufferx (here: the macro route). */
static int run_script(lua_State *L, const char *path) {
  size_t size;
  char *src = read_file(path, &size);
  int status;
  if (src == NULL) {
    fprintf(stderr, "host: cannot read %s\n", path);
    return 0;
  }
  lua_pushfstring(L, "@%s", path);
  status = luaL_loadbufferx(L, src, size, lua_tostring(L, -1), "t");
  free(src);
  lua_remove(L, -2);  /* the chunk name */
  /* (routed: the profile closes the calls an error unwinds here) */
  if (status == LUA_OK) status = lua_pcall(L, 0, 0, 0);
  if (status != LUA_OK) {
    fprintf(stderr, "host: %s\n", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *script = argc > 1 ? argv[1] : "game.lua";
  lua_State *L = luaL_newstate();
  int ok;
  if (L == NULL) return 1;
  /* Lua leaves the main thread's extra space (lua_getextraspace)
  ** uninitialised; nothing here uses it, so it is NULL, and the profiler
  ** keeps its stacks there (coroutine switches find them at once). */
  *(void **)lua_getextraspace(L) = NULL;
  luaL_openlibs(L);

  if (luainstr_open(L) != LUAINSTR_OK) {               /* attach, start */
    fprintf(stderr, "host: %s\n", luainstr_errmsg(L));
    lua_close(L);
    return 1;
  }
  luainstr_install_hooks();

  ok = run_script(L, script);

  if (luainstr_dump(L, "text", NULL) != LUAINSTR_OK) {
    fprintf(stderr, "host: %s\n", luainstr_errmsg(L));
    ok = 0;
  }
  luainstr_uninstall_hooks();
  lua_close(L);
  return ok ? 0 : 1;
}
