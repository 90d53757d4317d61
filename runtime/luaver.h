/*
** luaver.h -- what differs between the Luas the runtime is built for:
** Lua 5.1, 5.2, 5.3 and 5.4 (one build of runtime/ per version, chosen
** by the lua.h it is compiled with).
**
** The runtime is written against Lua 5.4's C API.  On an older Lua this
** header gives that API where the older one can express it exactly:
**  - functions the older Lua lacks, under their 5.4 names (lua_rawgetp,
**    lua_absindex, luaL_getsubtable, lua_newuserdatauv, lua_rotate ...);
**  - getters that return the value's type from 5.3 on (lua_getfield,
**    lua_rawget, lua_rawgeti ...), as macros that call the older function
**    and then lua_type;
**  - lua_resume, lua_load and lua_dump with 5.4's arguments;
**  - continuations: 5.3's lua_KFunction and lua_KContext on 5.2 (whose
**    continuations are lua_CFunctions asking lua_getctx, with an int
**    context: LI_CONTINUATION makes the adapter next to the function), and
**    on 5.1, which has none (no yield crosses a C call there), lua_pcallk
**    and lua_yieldk as the plain calls.
** Where a version's semantics differ (not only its spelling), a feature
** macro says so and the code that depends on it reads the macro:
**    LI_HAVE_CONTINUATIONS  yields cross pcall (5.2+); without it the
**                           coroutine's wake-up is booked by its resume
**    LI_HAVE_EXTRASPACE     lua_getextraspace (5.3+): the thread's stack
**                           found with no registry lookup
**    LI_HAVE_CLOSE          coroutine.close, to-be-closed variables and
**                           lua_resetthread (5.4)
**    LI_HAVE_INTEGERS       integer subtype (5.3+)
** and, in sections of their own below, what each version's standard
** library does that the runtime's replacements must do alike: its loaders
** (LI_SEARCHERS, LI_HAVE_LOADSTRING ...: stdloaders.c), its lua.c
** (LI_LUAC_*: cli/luaprof.c, run.c), its pcall/xpcall and coroutine
** functions (LI_XPCALL_*, LI_CO_*: boundary.c).  The structure reads of
** the probe's direct path are each version's too, in direct.h.
** Nothing else in runtime/ or cli/ tests LUA_VERSION_NUM.
*/
#ifndef LI_LUAVER_H
#define LI_LUAVER_H

#include <stdio.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#if !defined(LUA_VERSION_NUM) || LUA_VERSION_NUM < 501 || LUA_VERSION_NUM > 504
#error "luainstr's runtime builds for Lua 5.1, 5.2, 5.3 and 5.4"
#endif

/* "5.4": the version a build is for, as in lib/lua/5.4 and luaprof5.4. */
#define LI_LUA_STR_(a, b) #a "." #b
#define LI_LUA_STR(a, b) LI_LUA_STR_(a, b)
#define LI_LUA_VERSION LI_LUA_STR(LUA_VERSION_MAJOR_N, LUA_VERSION_MINOR_N)
#if LUA_VERSION_NUM == 501
#define LUA_VERSION_MAJOR_N 5
#define LUA_VERSION_MINOR_N 1
#elif LUA_VERSION_NUM == 502
#define LUA_VERSION_MAJOR_N 5
#define LUA_VERSION_MINOR_N 2
#elif LUA_VERSION_NUM == 503
#define LUA_VERSION_MAJOR_N 5
#define LUA_VERSION_MINOR_N 3
#else
#define LUA_VERSION_MAJOR_N 5
#define LUA_VERSION_MINOR_N 4
#endif

/* LuaJIT (2.1): Lua 5.1's API (LUA_VERSION_NUM 501) and a few functions
** of 5.2's (lua_loadx, luaL_loadbufferx, luaL_traceback, luaL_setfuncs,
** lua_tointegerx, lua_isyieldable ...), which the sections below use
** instead of their own; no lua_ident.  The build defines LI_LUAJIT for
** the runtime it makes against luajit.pc (CMakeLists.txt, "jit"); the
** code tests LI_IS_LUAJIT (0 or 1).
**   LI_LUA_NAME   how messages and file names name the Lua: "5.4",
**                 "jit" (luaprofjit, lib/lua/jit, luainstrjit.pc)
**   LI_LUA_PROGRAM its stock interpreter: "lua5.4", "luajit" */
#if defined(LI_LUAJIT)
#include <luajit.h>
#if LUA_VERSION_NUM != 501
#error "LI_LUAJIT: LuaJIT's lua.h says LUA_VERSION_NUM 501"
#endif
#define LI_IS_LUAJIT 1
#define LI_LUA_NAME "jit"
#define LI_LUA_PROGRAM "luajit"
#else
#define LI_IS_LUAJIT 0
#define LI_LUA_NAME LI_LUA_VERSION
#define LI_LUA_PROGRAM "lua" LI_LUA_VERSION
#endif

#if LUA_VERSION_NUM < 502
#define LUA_OK 0
#if !LI_IS_LUAJIT
LUA_API const char lua_ident[];         /* (exported, not declared, by 5.1) */
#endif
#endif

/* The dialect the rewriter reads (li_rewrite_opts.version): 51 .. 54, and
** LuaJIT's own (21, rewrite.h's LI_DIALECT_JIT). */
#if LI_IS_LUAJIT
#define LI_LUA_DIALECT 21
#else
#define LI_LUA_DIALECT (LUA_VERSION_NUM / 100 * 10 + LUA_VERSION_NUM % 10)
#endif

#define LI_HAVE_CONTINUATIONS (LUA_VERSION_NUM >= 502)
#define LI_HAVE_EXTRASPACE (LUA_VERSION_NUM >= 503)
#define LI_HAVE_CLOSE (LUA_VERSION_NUM >= 504)
#define LI_HAVE_INTEGERS (LUA_VERSION_NUM >= 503)

/* 1 if the Lua library this program runs with is the version this build
** is for (its lua_ident, a string every release exports: read, not
** called, so a mismatch is found before any call with another ABI).
** (luaver.c: 5.1's lua_ident reads "$Lua: Lua 5.1.5 ...", later ones
** "$LuaVersion: Lua 5.4.4 ...".) */
int li_lua_matches(void);
/* The release of that library, "Lua 5.4.4", copied into buf (of size n,
** at least 1); "" when it exports no lua_ident (LuaJIT, or the C module's
** weak reference finding none). */
const char *li_lua_release(char *buf, size_t n);
/* From a lua_CFunction of the C module run by another Lua than this
** build's (li_lua_matches() 0): raises the error that says which module
** that Lua needs, calling only functions whose ABI is the same in every
** Lua from 5.1 to 5.4 (lua_pushstring, lua_error). */
int li_lua_refuse(lua_State *L);


/* ======================================================================
** Added for the runtime on every Lua (issue 19, runtime tests): the
** standard loaders, the C module
** ====================================================================== */

/* The standard loaders (stdloaders.c, loader.c) as each Lua has them:
**   LI_HAVE_LOAD_STRINGS  load takes a string, a mode and an environment,
**                         loadfile a mode and an environment (5.2 on);
**                         5.1's load takes a reader function and a name
**   LI_HAVE_LOADSTRING    loadstring: 5.1's own, 5.2's the same function
**                         as load (LUA_COMPAT_LOADSTRING, on in Debian's)
**   LI_SEARCHERS          package.searchers, 5.1's package.loaders
**   LI_SEARCHER_FILENAME  the Lua searcher returns the file name as the
**                         loader's second value (5.2 on)
**   LI_SEARCHPATH_54      its "no file" message lists every entry of the
**                         path, empty ones too: "no file 'a'\n\tno file
**                         'b'" (5.4); before, each non-empty entry adds
**                         "\n\tno file 'a'"
**   LI_LOADFILE_SKIPS_BOM luaL_loadfile skips a UTF-8 byte order mark
**                         (5.2 on, LuaJIT; 5.1 reads it as text)
**   LI_LOAD_SKIPS_PREFIX  every chunk, not only a file's, may start with
**                         a BOM and a '#' line, which are skipped, and a
**                         binary chunk after them is refused (LuaJIT's
**                         lexer)
**   LI_LOAD_ENV_FENV      the environment given to load and loadfile is
**                         the function's own (setfenv's), and only a
**                         table is taken (LuaJIT, which has 5.2's load
**                         and loadfile and 5.1's environments; its
**                         loadstring is load) */
#define LI_HAVE_LOAD_STRINGS (LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT)
#define LI_LOAD_ENV_FENV LI_IS_LUAJIT
#define LI_HAVE_LOADSTRING (LUA_VERSION_NUM <= 502)
#define LI_SEARCHERS (LUA_VERSION_NUM >= 502 ? "searchers" : "loaders")
#define LI_SEARCHER_FILENAME (LUA_VERSION_NUM >= 502)
#define LI_SEARCHPATH_54 (LUA_VERSION_NUM >= 504)
#define LI_LOADFILE_SKIPS_BOM (LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT)
#define LI_LOAD_SKIPS_PREFIX LI_IS_LUAJIT

/* The package table a searcher of loadlib.c reads 'path' from: its
** upvalue 1 (5.2 on), its environment (5.1, whose C functions have one).
**   LI_SEARCHER_PACKAGE        that index, inside the searcher
**   li_push_searcher(L, f)     f as a searcher of the table on top, which
**                              it replaces
**   li_searcher_package(L, i)  pushes the package table of the searcher
**                              at i and returns 1, or pushes nothing and
**                              returns 0 */
#if LUA_VERSION_NUM >= 502
#define LI_SEARCHER_PACKAGE lua_upvalueindex(1)
static inline void li_push_searcher(lua_State *L, lua_CFunction f) {
  lua_pushcclosure(L, f, 1);
}
static inline int li_searcher_package(lua_State *L, int i) {
  if (lua_getupvalue(L, i, 1) == NULL) return 0;
  if (lua_istable(L, -1)) return 1;
  lua_pop(L, 1);
  return 0;
}
#else
#define LI_SEARCHER_PACKAGE LUA_ENVIRONINDEX
static inline void li_push_searcher(lua_State *L, lua_CFunction f) {
  lua_pushcfunction(L, f);
  lua_insert(L, -2);
  lua_setfenv(L, -2);
}
static inline int li_searcher_package(lua_State *L, int i) {
  lua_getfenv(L, i);
  if (lua_istable(L, -1)) return 1;
  lua_pop(L, 1);
  return 0;
}
#endif

/* The C module is unloaded before older objects are finalized: Lua 5.1
** keeps each loaded library in a userdata of its own, made when the
** library is loaded, and lua_close finalizes newest first, so a finalizer
** of an object made before `require "luainstr"` that calls the module
** ran unmapped code.  (From 5.2 on the libraries sit in one table made
** with the package library, finalized last.)  The module keeps itself
** loaded there. */
#define LI_UNLOADS_MODULES_EARLY (LUA_VERSION_NUM == 501)
/* A module of a Lua tells LuaJIT by its exported luaJIT_setmode, a weak
** reference (LuaJIT has no lua_ident); the one of Lua 5.1, whose folder
** LuaJIT searches, opens the LuaJIT module installed beside it in its
** place (li_lua_refuse, luaver.c). */
#if defined(__GNUC__) && !defined(__EMSCRIPTEN__) && !LI_IS_LUAJIT
#define LI_SEES_LUAJIT 1
#else
#define LI_SEES_LUAJIT 0
#endif
#define LI_OPENS_JIT_SIBLING (LI_SEES_LUAJIT && LUA_VERSION_NUM == 501)
#if LI_UNLOADS_MODULES_EARLY
void li_keep_module_loaded(void);
#else
#define li_keep_module_loaded() ((void)0)
#endif


/* ======================================================================
** Lua 5.4 only: user values, coroutine.close, small auxlib additions
** ====================================================================== */

#if LUA_VERSION_NUM < 504
/* Every userdata the runtime makes has at most one user value. */
#define lua_newuserdatauv(L, sz, nuv) lua_newuserdata(L, sz)
#if LUA_VERSION_NUM >= 502
#define lua_setiuservalue(L, idx, n) lua_setuservalue(L, idx)
#define lua_getiuservalue(L, idx, n) (lua_getuservalue(L, idx), lua_type(L, -1))
#else
#define lua_setiuservalue(L, idx, n) lua_setfenv(L, idx)
#define lua_getiuservalue(L, idx, n) (lua_getfenv(L, idx), lua_type(L, -1))
#endif
#define luaL_pushfail(L) lua_pushnil(L)
/* (never called where LI_HAVE_CLOSE is 0: coroutine.close is 5.4's; a
** macro over a name of our own, because OpenResty's LuaJIT declares a
** lua_resetthread(L, th) of its own in lua.h) */
#define lua_resetthread(co) li_resetthread(co)
static inline int li_resetthread(lua_State *co) { (void)co; return LUA_YIELD; }
static inline void luaL_addgsub(luaL_Buffer *b, const char *s, const char *p,
                                const char *r) {
  const char *wild;
  size_t l = strlen(p);
  while ((wild = strstr(s, p)) != NULL) {
    luaL_addlstring(b, s, (size_t)(wild - s));
    luaL_addstring(b, r);
    s = wild + l;
  }
  luaL_addstring(b, s);
}
#define lua_warning(L, msg, tocont) ((void)(L), (void)(msg), (void)(tocont))
#endif

/* The check of coroutine.resume/close's first argument, with each
** version's message (lcorolib.c getco). */
#if LUA_VERSION_NUM >= 504
#define li_argexpected_thread(L, co) luaL_argexpected(L, (co), 1, "thread")
#elif LUA_VERSION_NUM >= 503   /* (helper-beh: 5.2 says "coroutine expected") */
#define li_argexpected_thread(L, co) luaL_argcheck(L, (co), 1, "thread expected")
#else
#define li_argexpected_thread(L, co) luaL_argcheck(L, (co), 1, "coroutine expected")
#endif


/* ======================================================================
** lua_resume and lua_dump with Lua 5.4's arguments
** ====================================================================== */

#if LUA_VERSION_NUM < 504
/* Lua 5.4's lua_resume: *nres is the count of values yielded or returned
** (before 5.4 they are co's whole stack). */
static inline int li_lua_resume(lua_State *co, lua_State *from, int narg, int *nres) {
  lua_Debug ar;
  int st;
  /* A coroutine that returned (nothing below the arguments, no frame):
  ** 5.4's lua_resume refuses it as dead; before, only coroutine.resume
  ** did (lcorolib.c's auxresume), and lua_resume called what lay below
  ** the arguments. */
  if (lua_status(co) == LUA_OK && lua_gettop(co) == narg && !lua_getstack(co, 0, &ar)) {
    lua_pop(co, narg);
    lua_pushliteral(co, "cannot resume dead coroutine");
    if (nres != NULL) *nres = 0;
    return LUA_ERRRUN;
  }
#if LUA_VERSION_NUM >= 502
  st = lua_resume(co, from, narg);
#else
  st = ((void)from, lua_resume(co, narg));
#endif
  if (nres != NULL) *nres = (st == LUA_OK || st == LUA_YIELD) ? lua_gettop(co) : 0;
  return st;
}
#define lua_resume(co, from, narg, nres) li_lua_resume(co, from, narg, nres)
#endif

#if LUA_VERSION_NUM < 503
#define lua_dump(L, w, d, strip) ((void)(strip), (lua_dump)(L, w, d))
#endif


/* ======================================================================
** Lua 5.3: getters return the value's type; integers; rotate; extra space
** ====================================================================== */

#if LUA_VERSION_NUM < 503
#define lua_getfield(L, i, k) ((lua_getfield)(L, (i), (k)), lua_type(L, -1))
#define lua_rawget(L, i) ((lua_rawget)(L, (i)), lua_type(L, -1))
#define lua_rawgeti(L, i, n) ((lua_rawgeti)(L, (i), (int)(n)), lua_type(L, -1))
#define lua_gettable(L, i) ((lua_gettable)(L, (i)), lua_type(L, -1))
#define lua_rawseti(L, i, n) (lua_rawseti)(L, (i), (int)(n))
#if LUA_VERSION_NUM == 502
#define lua_getglobal(L, k) ((lua_getglobal)(L, (k)), lua_type(L, -1))
#define lua_rawgetp(L, i, p) ((lua_rawgetp)(L, (i), (p)), lua_type(L, -1))
#else
#undef lua_getglobal
#define lua_getglobal(L, k) lua_getfield(L, LUA_GLOBALSINDEX, (k))
#endif
#if !LI_IS_LUAJIT                 /* (LuaJIT has it) */
#define lua_isyieldable(L) li_lua_isyieldable(L)
int li_lua_isyieldable(lua_State *L);      /* (direct.h: needs Lua's structures) */
#endif
#define LUA_LOADED_TABLE "_LOADED"
/* Rotate the elements from idx to the top n positions toward the top
** (away from it when n < 0), as 5.3's lua_rotate. */
static inline void lua_rotate(lua_State *L, int idx, int n) {
  int i, m;
  idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  m = lua_gettop(L) - idx + 1;
  if (m <= 0) return;
  n = ((n % m) + m) % m;
  for (i = 0; i < n; i++) lua_insert(L, idx);
}
#endif

#if !LI_HAVE_EXTRASPACE
/* (never reached: the profiler keeps option "extraspace" off) */
#define lua_getextraspace(L) ((void)(L), (void *)NULL)
#endif

/* How lua.c and print write (5.3's lauxlib.h; luaconf.h's before) */
#if !defined(LUA_PATH_SEP)
#define LUA_PATH_SEP ";"       /* (loadlib.c's, before 5.3) */
#endif
#if !defined(LUA_PATH_MARK)
#define LUA_PATH_MARK "?"
#endif
#if LUA_VERSION_NUM < 502
#define lua_writestring(s, l) fwrite((s), sizeof(char), (l), stdout)
#define lua_writeline() (lua_writestring("\n", 1), fflush(stdout))
#define lua_writestringerror(s, p) (fprintf(stderr, (s), (p)), fflush(stderr))
#elif LUA_VERSION_NUM < 503
#define lua_writestring(s, l) fwrite((s), sizeof(char), (l), stdout)
#define lua_writeline() (lua_writestring("\n", 1), fflush(stdout))
#define lua_writestringerror(s, p) (fprintf(stderr, (s), (p)), fflush(stderr))
#endif
/* The suffix of lua.c's versioned init variable (LUA_INIT_5_2); Lua 5.1
** reads LUA_INIT only. */
#if !defined(LUA_VERSUFFIX)
#if LUA_VERSION_NUM == 502
#define LUA_VERSUFFIX "_5_2"
#else
#define LUA_VERSUFFIX ""
#endif
#endif


/* ======================================================================
** Lua 5.2: continuations, lua_rawgetp, main thread, absindex ...
** ====================================================================== */

#if LUA_VERSION_NUM < 503
typedef ptrdiff_t lua_KContext;
typedef int (*lua_KFunction)(lua_State *L, int status, lua_KContext ctx);
#endif

/* li_pcallk, li_callk, li_yieldk: lua_pcallk, lua_callk and lua_yieldk
** as 5.3 has them, continuation k a lua_KFunction. */
#if LUA_VERSION_NUM == 502
/* The 5.2 continuation of the 5.3-style continuation k: write
** LI_CONTINUATION(k) after k.  Its context must fit an int. */
#define LI_CONTINUATION(k) \
  static int k##_52(lua_State *L) { \
    int ctx_ = 0, st_ = lua_getctx(L, &ctx_); \
    return k(L, st_, (lua_KContext)ctx_); \
  }
#define li_pcallk(L, n, r, f, ctx, k) lua_pcallk(L, n, r, f, (int)(ctx), k##_52)
#define li_callk(L, n, r, ctx, k) lua_callk(L, n, r, (int)(ctx), k##_52)
#define li_yieldk(L, n, ctx, k) lua_yieldk(L, n, (int)(ctx), k##_52)
/* A pointer does not fit 5.2's int context: such a continuation gets 0. */
#define LI_KCONTEXT_PTR(p) ((lua_KContext)0)
#elif LUA_VERSION_NUM == 501
#define LI_CONTINUATION(k)
#define li_pcallk(L, n, r, f, ctx, k) ((void)(ctx), (void)(k), lua_pcall(L, n, r, f))
#define li_callk(L, n, r, ctx, k) ((void)(ctx), (void)(k), lua_call(L, n, r))
#define li_yieldk(L, n, ctx, k) ((void)(ctx), (void)(k), lua_yield(L, n))
#define LI_KCONTEXT_PTR(p) ((lua_KContext)0)
#else
#define LI_CONTINUATION(k)
#define li_pcallk lua_pcallk
#define li_callk lua_callk
#define li_yieldk lua_yieldk
#define LI_KCONTEXT_PTR(p) ((lua_KContext)(p))
#endif

#if LUA_VERSION_NUM < 502
typedef size_t lua_Unsigned;
#define lua_pushlstring(L, s, l) ((lua_pushlstring)(L, (s), (l)), lua_tostring(L, -1))
#define lua_pushstring(L, s) ((lua_pushstring)(L, (s)), lua_tostring(L, -1))
#define lua_rawlen(L, i) lua_objlen(L, (i))
#define lua_pushglobaltable(L) lua_pushvalue(L, LUA_GLOBALSINDEX)
#define luaL_checkversion(L) ((void)(L))

static inline int lua_absindex(lua_State *L, int idx) {
  return idx > 0 || idx <= LUA_REGISTRYINDEX ? idx : lua_gettop(L) + idx + 1;
}
static inline int lua_rawgetp(lua_State *L, int idx, const void *p) {
  idx = lua_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_rawget(L, idx);                   /* (the macro above: the type) */
  return lua_type(L, -1);
}
static inline void lua_rawsetp(lua_State *L, int idx, const void *p) {
  idx = lua_absindex(L, idx);
  lua_pushlightuserdata(L, (void *)p);
  lua_insert(L, -2);
  lua_rawset(L, idx);
}
/* Lua 5.1 numbers are all floats: an integer is one with no fraction.
** (LuaJIT's own lua_tointegerx truncates any number: not this.) */
#define lua_tointegerx(L, idx, isnum) li_lua_tointegerx(L, idx, isnum)
static inline lua_Integer li_lua_tointegerx(lua_State *L, int idx, int *isnum) {
  lua_Number n = lua_tonumber(L, idx);
  lua_Integer i = (lua_Integer)n;
  if (isnum != NULL) *isnum = lua_isnumber(L, idx) && (lua_Number)i == n;
  return (lua_Number)i == n ? i : 0;
}
static inline int luaL_getsubtable(lua_State *L, int idx, const char *fname) {
  if (lua_getfield(L, idx, fname) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, idx, fname);
  return 0;
}
#if !LI_IS_LUAJIT                 /* (LuaJIT has these four) */
static inline void luaL_setmetatable(lua_State *L, const char *tname) {
  luaL_getmetatable(L, tname);
  lua_setmetatable(L, -2);
}
static inline void luaL_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
  for (; l->name != NULL; l++) {
    int i;
    for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
    lua_pushcclosure(L, l->func, nup);
    lua_setfield(L, -(nup + 2), l->name);
  }
  lua_pop(L, nup);
}
#define luaL_newlib(L, l) (lua_newtable(L), luaL_setfuncs(L, l, 0))
#endif
static inline lua_Integer luaL_len(lua_State *L, int idx) {
  return (lua_Integer)lua_objlen(L, idx);
}
#if LI_IS_LUAJIT
/* LuaJIT has 5.2's modes: lua_loadx, luaL_loadbufferx, luaL_loadfilex. */
#define li_lua_load lua_loadx
#define lua_load(L, r, d, n, m) lua_loadx(L, r, d, n, m)
#else
/* 5.1's tracebacks come from debug.traceback (li_lua_traceback). */
void luaL_traceback(lua_State *L, lua_State *L1, const char *msg, int level);
/* 5.1 has no mode: these check it as 5.2's do, then load. */
int li_lua_loadbufferx(lua_State *L, const char *buff, size_t sz,
                       const char *name, const char *mode);
int li_lua_loadfilex(lua_State *L, const char *filename, const char *mode);
#define luaL_loadbufferx li_lua_loadbufferx
#define luaL_loadfilex li_lua_loadfilex
int li_lua_load(lua_State *L, lua_Reader reader, void *data,
                const char *chunkname, const char *mode);
#define lua_load(L, r, d, n, m) li_lua_load(L, r, d, n, m)
#endif
#endif

/* Pushes the C function f without raising an error: 1, or 0 (nothing
** pushed) when memory ran out.  For the C API's entry points, which run
** outside any protected call and push a function to lua_pcall it: from
** 5.2 on a light C function is no object and pushing it allocates
** nothing; in 5.1 every C function is a closure, made here once under
** lua_cpcall and kept in the registry (keyed by f).  Needs 1 free slot. */
#if LUA_VERSION_NUM < 502
int li_pushcfunction_noerr(lua_State *L, lua_CFunction f);
#else
#define li_pushcfunction_noerr(L, f) (lua_pushcfunction(L, (f)), 1)
#endif

/* Lua's own lua_load and lua_resume with 5.4's arguments, as function
** pointers (wrap.c swaps them). */
#if LUA_VERSION_NUM < 502
#define li_stock_load li_lua_load
#else
#define li_stock_load lua_load
#endif
#if LUA_VERSION_NUM < 504
#define li_stock_resume li_lua_resume
#else
#define li_stock_resume lua_resume
#endif

/* The main thread of L's state, pushed; NULL (nothing pushed) if it
** cannot be known (Lua 5.1 asked from a coroutine, built without Lua's
** headers). */
#if LUA_VERSION_NUM >= 502
static inline lua_State *li_push_mainthread(lua_State *L) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  return lua_tothread(L, -1);
}
#else
lua_State *li_push_mainthread(lua_State *L);
#endif

/* The loader's form gives a chunk's function one more upvalue, its probe
** (upvalue `probe`).  Lua 5.2's lua_load sets upvalue 1 to the globals
** only when the function has exactly one upvalue (5.3 on: at least one;
** 5.1: never, its functions have an environment instead): with the probe
** as the second of two, set the first as lua_load would have without it. */
static inline void li_env_as_loaded(lua_State *L, int probe) {
#if LUA_VERSION_NUM == 502
  if (probe == 2 && lua_getupvalue(L, -1, 3) == NULL) {
    lua_pushglobaltable(L);
    lua_setupvalue(L, -2, 1);
  } else if (probe == 2) {
    lua_pop(L, 1);
  }
#else
  (void)L; (void)probe;
#endif
}

/* What lua_getupvalue names an upvalue of a stripped dump (5.1 keeps none
** reachable: it gives NULL). */
#if LUA_VERSION_NUM >= 504
#define LI_STRIPPED_UPVALUE "(no name)"
#elif LUA_VERSION_NUM == 503
#define LI_STRIPPED_UPVALUE "(*no name)"
#else
#define LI_STRIPPED_UPVALUE ""
#endif

/* The caller's activation as lua_getstack(L, 1) names it: its CallInfo
** (5.2+), or its level's index in the thread's CallInfo array plus one
** (5.1, whose array moves when it grows: an index is what stays), times
** two: an activation's identity is even, a zone's odd (profiler.h
** LI_ZONE_CI; an odd index was taken for a zone). */
#if LUA_VERSION_NUM >= 502
#define LI_AR_CI(ar) ((const void *)(ar).i_ci)
#elif LI_IS_LUAJIT
/* (LuaJIT: the frame's slot in the stack, below the frame's size in the
** high 16 bits, which differs from call site to call site) */
#define LI_AR_CI(ar) ((const void *)(uintptr_t)((((ar).i_ci & 0xffff) + 1) * 2))
#else
#define LI_AR_CI(ar) ((const void *)(uintptr_t)(((ar).i_ci + 1) * 2))
#endif

/* ======================================================================
** (helper-beh addition) What a user sees of each version's lua.c, base
** library and coroutine library: the behaviours luaprof5.N
** (cli/luaprof.c), the luainstr.run module (run.c) and the replaced
** pcall, xpcall and coroutine functions (boundary.c) reproduce.  Each is
** 0 or 1 (a few name the version they follow), so the code reads them in
** plain `if`s and every branch compiles on every Lua.  LuaJIT's are its
** luajit.c's and lib_base.c's (2.1), which are 5.1's with 5.2's pieces
** here and there: each macro says where LuaJIT stands.
** ====================================================================== */

/* lua.c's options: -E (5.2+, LuaJIT), which 5.2 and LuaJIT take with
** trailing characters too (-Exyz), -W (5.4); from 5.2 on, -e and -l
** refuse a next argument that starts with '-' (5.1 and LuaJIT take it as
** their argument).  LuaJIT's own -j, -O and -b: LI_LUAC_JIT. */
#define LI_LUAC_OPT_E (LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT)
#define LI_LUAC_OPT_E_EXACT (LUA_VERSION_NUM >= 503)
#define LI_LUAC_OPT_W (LUA_VERSION_NUM >= 504)
#define LI_LUAC_OPTARG_NODASH (LUA_VERSION_NUM >= 502)
#define LI_LUAC_JIT LI_IS_LUAJIT
/* lua.c makes `arg` before LUA_INIT, -e and -l, and passes the script
** arg[1..#arg] (5.3+, LuaJIT); before, `arg` is made just before the
** script loads (LUA_INIT and -e code see none; with no script there is
** none) and the script gets the command line's arguments.  With no
** script, 5.3's arg[0] is the interpreter; LuaJIT puts every argument
** below 0 (LI_LUAC_ARG_NOSCRIPT_BELOW), and it passes the script arg[1],
** arg[2] ... up to the first nil, or nothing when `arg` is no table
** (LI_LUAC_ARGS_TO_NIL; 5.3 raises "'arg' is not a table"). */
#define LI_LUAC_ARG_EARLY (LUA_VERSION_NUM >= 503 || LI_IS_LUAJIT)
#define LI_LUAC_ARG_NOSCRIPT_BELOW LI_IS_LUAJIT
#define LI_LUAC_ARGS_TO_NIL LI_IS_LUAJIT
/* -l NAME: require(NAME) only (5.1, LuaJIT), also the global NAME set to
** its result (5.2+), -l G=NAME to name the global (5.4). */
#define LI_LUAC_LIB_GLOBAL (LUA_VERSION_NUM >= 502)
#define LI_LUAC_LIB_RENAME (LUA_VERSION_NUM >= 504)
/* Lua 5.1 and LuaJIT run LUA_INIT first, and -v prints the banner after
** it, 5.1 on stderr (LUA_RELEASE and the copyright), LuaJIT on stdout;
** later ones print LUA_COPYRIGHT on stdout before anything runs. */
#define LI_LUAC_INIT_FIRST (LUA_VERSION_NUM == 501)
#define LI_LUAC_BANNER_STDERR (LUA_VERSION_NUM == 501 && !LI_IS_LUAJIT)
/* The message handler, by the version whose lua.c has it:
**   51  a string or number gets debug.traceback (the global `debug`, if
**       it is still there), other values stay as they are;
**   52  a string gets a traceback; another value, non-nil, its __tostring
**       result (whatever it is) or "(no error message)";
**   53  a string gets a traceback; another value its __tostring string,
**       or "(error object is a T value)" with a traceback (5.3, 5.4);
**   21  (LuaJIT 2.1) a string or number gets luaL_traceback; another
**       value, non-nil, with a __tostring that gives a string or number,
**       that string with a traceback; else the value (or the __tostring
**       result) stays as it is. */
#if LI_IS_LUAJIT
#define LI_LUAC_MSGH 21
#else
#define LI_LUAC_MSGH (LUA_VERSION_NUM <= 502 ? LUA_VERSION_NUM - 450 : 53)
#endif
/* The message of a failed chunk (lua.c's report): up to 5.2 (and LuaJIT)
** a nil error prints nothing and a non-string "(error object is not a
** string)". */
#define LI_LUAC_REPORT_NONSTRING (LUA_VERSION_NUM <= 502)
/* A full collection after a failed chunk: before its message (5.1's
** docall, LuaJIT's), after it (5.2's report), none (5.3+).  Finalizers
** show it. */
#define LI_LUAC_GC_BEFORE_MSG (LUA_VERSION_NUM == 501)
#define LI_LUAC_GC_AFTER_MSG (LUA_VERSION_NUM == 502)
/* The collector in generational mode (5.4's lua.c). */
#define LI_LUAC_GCGEN (LUA_VERSION_NUM >= 504)
#if LI_LUAC_GCGEN
#define li_luac_gcgen(L) lua_gc(L, LUA_GCGEN, 0, 0)
#else
#define li_luac_gcgen(L) ((void)(L))
#endif
/* os.exit takes true/false for the status and a second argument that
** closes the state first (5.2+, LuaJIT); 5.1's takes a number only. */
#define LI_OSEXIT_CLOSE (LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT)
/* lua.c's SIGINT hook also stops at a new line (5.4); LuaJIT's raises
** "interrupted!" where the running function is (luaL_where(L, 0)), not
** where its caller is (LI_LUAC_SIGWHERE_0). */
#define LI_LUAC_SIGHOOK_LINE (LUA_VERSION_NUM >= 504)
#define LI_LUAC_SIGWHERE_0 LI_IS_LUAJIT
/* How a traceback names a C function with no name: "[C]: ?" (5.1) or
** "[C]: in ?" (LuaJIT: "[C]: at 0xADDRESS", its address). */
#if LUA_VERSION_NUM == 501
#define LI_TB_UNNAMED_C "[C]: ?"
#else
#define LI_TB_UNNAMED_C "[C]: in ?"
#endif
/* lua.c's banner for -v: 5.1 has LUA_RELEASE and the copyright apart;
** LuaJIT's print_version names LuaJIT, its copyright and its site. */
#if LI_IS_LUAJIT
#define LI_LUAC_BANNER LUAJIT_VERSION " -- " LUAJIT_COPYRIGHT ". " LUAJIT_URL
#elif LUA_VERSION_NUM == 501
#define LI_LUAC_BANNER LUA_RELEASE "  " LUA_COPYRIGHT
#else
#define LI_LUAC_BANNER LUA_COPYRIGHT
#endif

/* pcall and xpcall (lbaselib.c): xpcall passes its extra arguments to
** the function (5.2+, LuaJIT; 5.1 calls it with none); its handler is
** checked to be a function (5.3+, LuaJIT), or only to be there: "value
** expected".  LuaJIT's are replaced by Lua functions around its own
** (LI_XPCALL_LUA: they stay fast functions, which the JIT compiles and a
** yield crosses; boundary.c). */
#define LI_XPCALL_ARGS (LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT)
#define LI_XPCALL_CHECK_HANDLER (LUA_VERSION_NUM >= 503 || LI_IS_LUAJIT)
#define LI_XPCALL_LUA LI_IS_LUAJIT

/* coroutine.resume and wrap (lcorolib.c, 5.1's lbaselib.c):
**   LI_CO_CHECK_STATUS  any coroutine not suspended is refused before
**                       lua_resume: "cannot resume running/normal/dead
**                       coroutine" (5.1; its lua_resume needs it);
**   LI_CO_CHECK_DEAD    a dead one is, "cannot resume dead coroutine"
**                       (5.2, 5.3; 5.4's lua_resume says it itself, and
**                       refuses a running or normal one in all of them);
**   LI_CO_RAISE_LIMITS  too many arguments or results to resume raise
**                       the error (5.1) rather than return it;
**   LI_CO_LUA_FUNCTION  create and wrap take Lua functions only (5.1:
**                       "Lua function expected");
**   LI_CO_WHERE_NUMBER  wrap puts its caller's position before a number
**                       error too (5.1, 5.2: lua_isstring);
**   LI_CO_CHECK_CFRAME  (LuaJIT's ffh_resume) a coroutine with a C frame,
**                       running or normal, is refused as "cannot resume
**                       running coroutine", a dead one as "cannot resume
**                       dead coroutine";
**   LI_CO_GROW_STACKS   the stacks grow for any count of arguments and
**                       results, as far as the Lua's stack limit
**                       (LuaJIT, whose lua_checkstack stops at 8000 slots
**                       where its stacks do not);
**   LI_CO_YIELD_WHERE   a yield refused ("attempt to yield across C-call
**                       boundary", LuaJIT's message also from the main
**                       thread) names its caller's position. */
#define LI_CO_CHECK_STATUS (LUA_VERSION_NUM == 501 && !LI_IS_LUAJIT)
#define LI_CO_CHECK_DEAD (LUA_VERSION_NUM == 502 || LUA_VERSION_NUM == 503)
#define LI_CO_RAISE_LIMITS (LUA_VERSION_NUM == 501 && !LI_IS_LUAJIT)
#define LI_CO_LUA_FUNCTION (LUA_VERSION_NUM == 501 && !LI_IS_LUAJIT)
#define LI_CO_WHERE_NUMBER (LUA_VERSION_NUM <= 502 && !LI_IS_LUAJIT)
#define LI_CO_CHECK_CFRAME LI_IS_LUAJIT
#define LI_CO_GROW_STACKS LI_IS_LUAJIT
#define LI_CO_YIELD_WHERE LI_IS_LUAJIT
/* 5.1's resume gives the coroutine its resumer's C-call count first
** (lua_setlevel), which bounds nested resumes ("C stack overflow") and
** tells lua_yield where the coroutine's own calls start; from 5.2 on
** lua_resume's `from` does it. */
#if LUA_VERSION_NUM == 501 && !LI_IS_LUAJIT      /* (LuaJIT has none) */
#define li_co_setlevel(from, co) lua_setlevel(from, co)
#else
#define li_co_setlevel(from, co) ((void)(from), (void)(co))
#endif

#endif
