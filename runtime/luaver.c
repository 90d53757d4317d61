/*
** luaver.c -- the parts of the version layer (luaver.h) too big to be
** inline: what Lua 5.1 and 5.2 lack and the runtime needs.  Empty on 5.3
** and 5.4.
*/
#include <stdio.h>
#include <string.h>

#include "luaver.h"

#if LUA_VERSION_NUM < 503 && defined(LI_LUA_INTERNALS)
#include "lstate.h"
#endif

#if LUA_VERSION_NUM < 503
/* Whether a yield from the running C function would be accepted.  With
** Lua's structures, as lua_yield decides (5.1: no C call between it and
** the resume; 5.2: no non-yieldable call); without them, any coroutine
** (a yield that is then refused raises its error as it would anyway). */
int li_lua_isyieldable(lua_State *L) {
#if defined(LI_LUA_INTERNALS) && LUA_VERSION_NUM == 501
  return L != G(L)->mainthread && L->nCcalls <= L->baseCcalls;
#elif defined(LI_LUA_INTERNALS)
  return L->nny == 0;
#else
  int main = lua_pushthread(L);
  lua_pop(L, 1);
  return !main;
#endif
}
#endif

#if LUA_VERSION_NUM < 502

lua_State *li_push_mainthread(lua_State *L) {
#if defined(LI_LUA_INTERNALS)
  lua_State *M = G(L)->mainthread;
  lua_pushthread(M);
  lua_xmove(M, L, 1);
  return M;
#else
  if (lua_pushthread(L)) return L;
  lua_pop(L, 1);
  return NULL;
#endif
}

/* debug.traceback(msg, level + 1), as 5.1's lua.c makes its tracebacks
** (the extra level: the call of traceback adds one).  The message alone
** when the debug library is not there. */
void luaL_traceback(lua_State *L, lua_State *L1, const char *msg, int level) {
  int top = lua_gettop(L);
  (void)L1;
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (lua_istable(L, -1) && lua_getfield(L, -1, "debug") == LUA_TTABLE &&
      lua_getfield(L, -1, "traceback") == LUA_TFUNCTION) {
    lua_pushstring(L, msg);
    lua_pushinteger(L, level + 1);
    lua_call(L, 2, 1);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return;
  }
  lua_settop(L, top);
  lua_pushstring(L, msg);
}

/* Whether Lua 5.2's load modes refuse a chunk; then its message pushed. */
static int refuses(const char *mode, int binary) {
  return mode != NULL && strchr(mode, binary ? 'b' : 't') == NULL;
}

static int push_refusal(lua_State *L, const char *mode, int binary) {
  lua_pushfstring(L, "attempt to load a %s chunk (mode is '%s')",
                  binary ? "binary" : "text", mode);
  return LUA_ERRSYNTAX;
}

int li_lua_loadbufferx(lua_State *L, const char *buff, size_t sz,
                       const char *name, const char *mode) {
  int binary = sz > 0 && buff[0] == LUA_SIGNATURE[0];
  if (refuses(mode, binary)) return push_refusal(L, mode, binary);
  return luaL_loadbuffer(L, buff, sz, name);
}

int li_lua_loadfilex(lua_State *L, const char *filename, const char *mode) {
  (void)mode;                          /* (5.1 files: text or binary) */
  return luaL_loadfile(L, filename);
}

/* lua_load with a mode: the reader's first piece is looked at before Lua
** reads it; a refused chunk reads as empty, and its load fails. */
typedef struct moderead {
  lua_Reader reader;
  void *data;
  const char *mode;
  int first;                 /* the first piece is still to come */
  int refused;               /* 0, or 1 + whether it was binary */
} moderead;

static const char *read_checked(lua_State *L, void *ud, size_t *size) {
  moderead *m = ud;
  const char *p;
  if (m->refused) { *size = 0; return NULL; }
  p = m->reader(L, m->data, size);
  if (m->first && p != NULL && *size > 0) {
    int binary = p[0] == LUA_SIGNATURE[0];
    m->first = 0;
    if (refuses(m->mode, binary)) {
      m->refused = 1 + binary;
      *size = 0;
      return NULL;
    }
  }
  return p;
}

int li_lua_load(lua_State *L, lua_Reader reader, void *data,
                const char *chunkname, const char *mode) {
  moderead m;
  int st;
  if (mode == NULL) return (lua_load)(L, reader, data, chunkname);
  m.reader = reader; m.data = data; m.mode = mode;
  m.first = 1; m.refused = 0;
  st = (lua_load)(L, read_checked, &m, chunkname);
  if (m.refused) {
    lua_pop(L, 1);                     /* the empty chunk (or a message) */
    return push_refusal(L, mode, m.refused == 2);
  }
  return st;
}

#endif
