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
** CMakeLists.txt from LUAINSTR_LUA_INTERNALS, LUAINSTR_LUA5N_INTERNALS or
** LUAINSTR_LUA_SOURCE; scripts/lua-source.sh fetches Debian's).  Each Lua
** (5.1, 5.2, 5.3, 5.4) lays its values, closures, userdata and CallInfos
** out its own way: the few lines below that differ are per version, what
** is made of them is written once.  Nothing here is trusted before
** li_d_selfcheck (called by profiler.c's direct_check) has compared every
** read with the API's answer on the library the program runs with; a build
** without the headers, or a library that fails the check, has the API
** probe only.  This is the one file of the runtime that reads Lua's
** structures (luaver.c reads two fields of 5.1's and 5.2's lua_State for
** lua_isyieldable and the main thread).  (docs/probes.md, "What the probe reads".)
*/
#ifndef LI_DIRECT_H
#define LI_DIRECT_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

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

#if defined(LI_LUA_INTERNALS) && !LI_IS_LUAJIT
/* (LuaJIT: its structures are read by the FFI probe, jit.c, not here:
** its lua_CFunction probe asks through the C API) */

#include "lstate.h"     /* lua_State, CallInfo; lobject.h: TValue, closures, Udata */

#define LI_HAVE_DIRECT 1

/* Per version, for the running C function (a C closure: the probe):
**   LI_D_FUNC(L)      its TValue (the closure)
**   LI_D_ARG(L, i)    the TValue of its argument i (1 <= i <= nargs)
**   LI_D_NARGS(L)     its argument count
**   LI_D_ISCCL(o)     o is a C closure (with upvalues), LI_D_CCL(o) it
**   LI_D_ISUDATA(o)   o is a full userdata, LI_D_UDLEN(o) its length,
**                     LI_D_UDMEM(o) its memory (made with no user values)
**   LI_D_ARG1INT(o, v) o is an integer (1 and *v) or not (0)
**   LI_D_RUNNING(L)   its activation's identity: LI_AR_CI of
**                     lua_getstack(L, 0) (luaver.h)
**   LI_D_CALLER(L)    its caller's: LI_AR_CI of lua_getstack(L, 1), or
**   LI_D_BASE(L)      where that gives none (called from the thread's base,
**                     by the host): the base CallInfo's identity */

#if LUA_VERSION_NUM == 504
/* The stack holds StackValues (s2v: their TValue); the CallInfos are a
** list, which does not move; numbers have an integer subtype; a userdata's
** memory follows its user values (udatamemoffset). */
#define LI_D_FUNC(L) s2v((L)->ci->func)
#define LI_D_ARG(L, i) s2v((L)->ci->func + (i))
#define LI_D_NARGS(L) ((L)->top - ((L)->ci->func + 1))
#define LI_D_ISCCL(o) ttisCclosure(o)
#define LI_D_CCL(o) clCvalue(o)
#define LI_D_ISUDATA(o) ttisfulluserdata(o)
#define LI_D_UDLEN(o) (uvalue(o)->len)
/* (the probe's chunk map has no user values, lua_newuserdatauv(L, size,
** 0); one with user values is read inside them, which the caller's magic
** number then rejects) */
#define LI_D_UDMEM(o) ((void *)((char *)uvalue(o) + udatamemoffset(0)))
#define LI_D_ARG1INT(o, v) (ttisinteger(o) ? (*(v) = ivalue(o), 1) : 0)
#define LI_D_RUNNING(L) ((const void *)(L)->ci)
#define LI_D_CALLER(L) ((const void *)(L)->ci->previous)
#define LI_D_BASE(L) ((const void *)&(L)->base_ci)

#elif LUA_VERSION_NUM == 503
/* The stack holds TValues; CallInfos a list; integers a subtype; a
** userdata's memory follows its header, aligned (getudatamem: UUdata). */
#define LI_D_FUNC(L) ((L)->ci->func)
#define LI_D_ARG(L, i) ((L)->ci->func + (i))
#define LI_D_NARGS(L) ((L)->top - ((L)->ci->func + 1))
#define LI_D_ISCCL(o) ttisCclosure(o)
#define LI_D_CCL(o) clCvalue(o)
#define LI_D_ISUDATA(o) ttisfulluserdata(o)
#define LI_D_UDLEN(o) (uvalue(o)->len)
#define LI_D_UDMEM(o) ((void *)getudatamem(uvalue(o)))
#define LI_D_ARG1INT(o, v) (ttisinteger(o) ? (*(v) = ivalue(o), 1) : 0)
#define LI_D_RUNNING(L) ((const void *)(L)->ci)
#define LI_D_CALLER(L) ((const void *)(L)->ci->previous)
#define LI_D_BASE(L) ((const void *)&(L)->base_ci)

#elif LUA_VERSION_NUM == 502
/* The stack holds TValues; CallInfos a list; numbers are doubles; a
** userdata's memory follows its header (the union Udata, aligned). */
#define LI_D_FUNC(L) ((L)->ci->func)
#define LI_D_ARG(L, i) ((L)->ci->func + (i))
#define LI_D_NARGS(L) ((L)->top - ((L)->ci->func + 1))
#define LI_D_ISCCL(o) ttisCclosure(o)
#define LI_D_CCL(o) clCvalue(o)
#define LI_D_ISUDATA(o) ttisuserdata(o)
#define LI_D_UDLEN(o) (uvalue(o)->len)
#define LI_D_UDMEM(o) ((void *)(rawuvalue(o) + 1))
#define LI_D_ARG1INT(o, v) (ttisnumber(o) && li_d_num2int(nvalue(o), (v)))
#define LI_D_RUNNING(L) ((const void *)(L)->ci)
#define LI_D_CALLER(L) ((const void *)(L)->ci->previous)
#define LI_D_BASE(L) ((const void *)&(L)->base_ci)

#elif LUA_VERSION_NUM == 501
/* The stack holds TValues, a C function's arguments from L->base; a
** closure is a union of the C and the Lua one (isC tells); numbers are
** doubles; a userdata's memory follows its header.  The CallInfos are an
** array that moves when it grows (luaD_growCI, by deep recursion): an
** activation is named by its index + 1, as lua_getstack's i_ci is (LI_AR_CI
** in luaver.h, times two: even), the base one by 1 (2). */
#define LI_D_FUNC(L) ((L)->ci->func)
#define LI_D_ARG(L, i) ((L)->base + ((i) - 1))
#define LI_D_NARGS(L) ((L)->top - (L)->base)
#define LI_D_ISCCL(o) (ttisfunction(o) && clvalue(o)->c.isC)
#define LI_D_CCL(o) (&clvalue(o)->c)
#define LI_D_ISUDATA(o) ttisuserdata(o)
#define LI_D_UDLEN(o) (uvalue(o)->len)
#define LI_D_UDMEM(o) ((void *)(rawuvalue(o) + 1))
#define LI_D_ARG1INT(o, v) (ttisnumber(o) && li_d_num2int(nvalue(o), (v)))
#define LI_D_RUNNING(L) ((const void *)(uintptr_t)(((L)->ci - (L)->base_ci + 1) * 2))
#define LI_D_CALLER(L) ((const void *)(uintptr_t)(((L)->ci - (L)->base_ci) * 2))
#define LI_D_BASE(L) ((const void *)(uintptr_t)2)

#else
#error "direct.h: no reads for this Lua (5.1 to 5.4)"
#endif

/* 1 if the library this program runs with is the release compiled: its
** lua_ident (read, not called) begins with LUA_RELEASE as the lapi.c of
** that release writes it.  Nothing else is read on another release. */
static inline int li_d_release_ok(void) {
#if LUA_VERSION_NUM == 501
  static const char release[] = "$Lua: " LUA_RELEASE " ";
#else
  static const char release[] = "$LuaVersion: " LUA_RELEASE "  ";
#endif
  return strncmp(lua_ident, release, sizeof release - 1) == 0;
}

#if LUA_VERSION_NUM < 503
/* A number (a double) as an integer if it is one: no fraction, and in
** lua_Integer's range (read as luaver.h's lua_tointegerx on 5.1 reads it;
** 5.2's own would also truncate a fraction: the probe then asks it). */
static inline int li_d_num2int(lua_Number d, lua_Integer *v) {
  /* 2^(bits - 1): exact in a double, as is -2^(bits - 1) */
  const lua_Number lim =
      (lua_Number)((uintmax_t)1 << (sizeof(lua_Integer) * CHAR_BIT - 1));
  if (!(d >= -lim && d < lim)) return 0;   /* (NaN too) */
  *v = (lua_Integer)d;
  return (lua_Number)*v == d;
}
#endif

/* Arguments of the running C function. */
static inline int li_d_nargs(lua_State *L) {
  return (int)LI_D_NARGS(L);
}

/* The memory of the full userdata in upvalue 1 of the running C closure
** if it is one of at least minlen bytes, else NULL. */
static inline void *li_d_udata1(lua_State *L, size_t minlen) {
  const TValue *o = &LI_D_CCL(LI_D_FUNC(L))->upvalue[0];
  if (!LI_D_ISUDATA(o) || LI_D_UDLEN(o) < minlen) return NULL;
  return LI_D_UDMEM(o);
}

/* Argument 1 of the running C function if it is an integer (1), else 0
** (nargs > 0). */
static inline int li_d_arg1_int(lua_State *L, lua_Integer *v) {
  const TValue *o = LI_D_ARG(L, 1);
  return LI_D_ARG1INT(o, v);
}

/* The identity of the caller of the running C function: what lua_getstack
** gives at level 1 (LI_D_BASE where it gives none: the C function was
** called from the thread's base, by the host). */
static inline const void *li_d_caller(lua_State *L) {
  return LI_D_CALLER(L);
}

/* 1 if every read above gives in the running C function what the C API
** gives.  Called as the probe is: a C closure whose one upvalue is a full
** userdata of size bytes at u (made with no user values), with the
** arguments (7, "x").  Each pointer is compared before what it points to is
** read (profiler.c direct_check calls it once from the thread's base and
** once from inside a call, after it has checked the release). */
static inline int li_d_selfcheck(lua_State *L, const void *u, size_t size) {
  lua_Debug ar;
  lua_Integer v;
  const TValue *o;
  const CClosure *cl;
  int same;
  if (!lua_getstack(L, 0, &ar) || LI_AR_CI(ar) != LI_D_RUNNING(L)) return 0;
  if (li_d_caller(L) != (lua_getstack(L, 1, &ar) ? LI_AR_CI(ar) : LI_D_BASE(L)))
    return 0;
  if (li_d_nargs(L) != lua_gettop(L) || lua_gettop(L) != 2) return 0;
  if (!li_d_arg1_int(L, &v) || v != 7) return 0;
  o = LI_D_ARG(L, 2);
  if (lua_type(L, 2) != LUA_TSTRING || !ttisstring(o) ||
      (const void *)svalue(o) != (const void *)lua_tostring(L, 2))
    return 0;
  o = LI_D_FUNC(L);
  if (!LI_D_ISCCL(o)) return 0;
  cl = LI_D_CCL(o);
  if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "f", &ar)) return 0;
  same = (const void *)cl == lua_topointer(L, -1);
  lua_pop(L, 1);
  return same && cl->nupvalues == 1 && LI_D_ISUDATA(&cl->upvalue[0]) &&
         li_d_udata1(L, size) == u && li_d_udata1(L, size + 1) == NULL;
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
