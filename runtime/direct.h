/*
** direct.h -- what the probe needs to know of its own call, read from Lua's
** structures (included by profiler.c only).
**
** On every call the probe needs its closure's first upvalue (its chunk's
** map), its argument count and first argument, and the CallInfo of its
** caller (the identity of the activation).  Through the C API that is
** lua_touserdata(lua_upvalueindex(1)) (and lua_rawlen, to know it is a
** chunk map), lua_gettop, lua_tointegerx and
** lua_getstack: about 150 of the 380 instructions a probe pair added to a
** call (bench/README.md, issue 13).  With Lua's own headers they are a few
** loads.  No -dev package ships those headers (lstate.h): the build takes
** them from Lua's sources of the release it links (LI_LUA_INTERNALS, set by
** CMakeLists.txt from LUAINSTR_LUA_INTERNALS or LUAINSTR_LUA_SOURCE;
** scripts/lua-source.sh fetches Debian's).  Nothing here is trusted before
** direct_check (profiler.c) has compared every read with the API's
** answer on the library the program runs with; a build without the
** headers, or a library that fails the check, has the API probe only.
** (README "What the probe reads".)
*/
#ifndef LI_DIRECT_H
#define LI_DIRECT_H

/* The four facts through the C API (the probe's `api` variant). */
static inline int li_api_nargs(lua_State *L) { return lua_gettop(L); }
/* The memory of the full userdata of at least minlen bytes in upvalue 1,
** or NULL (debug.setupvalue may have put anything there). */
static inline void *li_api_udata1(lua_State *L, size_t minlen) {
  void *u = lua_touserdata(L, lua_upvalueindex(1));
  /* a light userdata's raw length is 0 */
  return u != NULL && lua_rawlen(L, lua_upvalueindex(1)) >= minlen ? u : NULL;
}
static inline int li_api_arg1_int(lua_State *L, lua_Integer *v) {
  int isint;
  *v = lua_tointegerx(L, 1, &isint);
  return isint;
}
static inline const void *li_api_caller(lua_State *L) {
  lua_Debug ar;
  return lua_getstack(L, 1, &ar) ? LI_AR_CI(ar) : NULL;
}

#if defined(LI_LUA_INTERNALS) && LUA_VERSION_NUM == 504

#include "lstate.h"     /* lua_State, CallInfo; lobject.h: TValue, Udata */

#define LI_HAVE_DIRECT 1

/* The running C function's frame: its arguments start at func + 1. */
#define li_d_func(L) ((L)->ci->func)

/* Arguments of the running C function. */
static inline int li_d_nargs(lua_State *L) {
  return (int)((L)->top - (li_d_func(L) + 1));
}

/* The memory of the full userdata in upvalue 1 of the running C closure
** if it is one of at least minlen bytes, else NULL.  The probe's chunk map
** has no user values (lua_newuserdatauv(L, size, 0)), so its memory starts
** at a fixed offset; one with user values is read inside them (its block
** holds both), which the caller's magic number then rejects. */
static inline void *li_d_udata1(lua_State *L, size_t minlen) {
  const CClosure *cl = clCvalue(s2v(li_d_func(L)));
  const TValue *o = &cl->upvalue[0];
  if (!ttisfulluserdata(o) || uvalue(o)->len < minlen) return NULL;
  return (char *)uvalue(o) + udatamemoffset(0);
}

/* Argument 1 of the running C function if it is an integer (1), else 0. */
static inline int li_d_arg1_int(lua_State *L, lua_Integer *v) {
  const TValue *o = s2v(li_d_func(L) + 1);
  if (!ttisinteger(o)) return 0;
  *v = ivalue(o);
  return 1;
}

/* The CallInfo of the caller of the running C function: what lua_getstack
** gives at level 1 (&L->base_ci where it gives none: the C function was
** called from the thread's base, by the host). */
static inline const void *li_d_caller(lua_State *L) {
  return (const void *)L->ci->previous;
}

#else

/* Built without Lua's headers: the direct reads are the API's (the
** direct variants are then never chosen). */
#define LI_HAVE_DIRECT 0
#define li_d_nargs li_api_nargs
#define li_d_udata1 li_api_udata1
#define li_d_arg1_int li_api_arg1_int
#define li_d_caller li_api_caller

#endif
#endif
