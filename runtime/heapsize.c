/*
** heapsize.c -- object sizes and prototypes for heap snapshots
** (heapsize.h).  For now estimates from the public API only: the sizes
** from each Lua's internals come next.
*/
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "luaver.h"
#include "heapsize.h"

int li_heap_exact(lua_State *L, const char **why) {
  (void)L;
  *why = "sizes from Lua's internals are not built yet";
  return 0;
}

/* Estimates: the structures' usual sizes on a 64-bit build. */
size_t li_heap_size(lua_State *L, int idx, int exact) {
  (void)exact;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: return 24 + lua_rawlen(L, idx) + 1;
    case LUA_TTABLE: return 56 + 16 * lua_rawlen(L, idx);
    case LUA_TFUNCTION: return lua_iscfunction(L, idx) ? 32 : 40;
    case LUA_TUSERDATA: return 40 + lua_rawlen(L, idx);
    case LUA_TTHREAD: return 200;
    default: return 0;
  }
}

const void *li_heap_upvalue_id(lua_State *L, int idx, int n, int exact) {
  (void)exact;
#if LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT
  return lua_upvalueid(L, idx, n);
#else
  (void)L; (void)idx; (void)n;
  return NULL;
#endif
}

size_t li_heap_upvalue_size(int exact) {
  (void)exact;
  return 40;
}

const void *li_heap_proto(lua_State *L, int idx, int exact) {
  (void)L; (void)idx; (void)exact;
  return NULL;
}

void li_heap_proto_info(const void *p, li_hproto *out) {
  (void)p;
  memset(out, 0, sizeof *out);
}

int li_heap_proto_push(lua_State *L, const void *p, uint32_t i, char *name,
                       size_t namesz) {
  (void)L; (void)p; (void)i;
  if (namesz > 0) name[0] = '\0';
  return 0;
}

const void *li_heap_proto_child(const void *p, uint32_t i) {
  (void)p; (void)i;
  return NULL;
}
