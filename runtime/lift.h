/*
** lift.h -- the loader's wrapper made the main function of its chunk.
**
** The loader compiles an instrumented chunk wrapped (bytecode.h says how
** and why) and then "lifts" the wrapper's inner function: it becomes the
** chunk's main function, with the wrapper's source, lines 0 and (5.1) a
** main chunk's vararg flag, as if Lua had compiled the chunk itself.  Two
** ways to do it, with the same result (string.dump bytes, debug.getinfo):
**  - the dump path, on every Lua: lua_dump, li_bc_lift_main, lua_load of
**    the binary chunk (a second copy of every prototype, until the first
**    is collected);
**  - in memory, where the runtime is built with the Lua's own headers
**    (LI_LUA_INTERNALS, PUC 5.1 to 5.4): the wrapper is run once to make
**    the inner closure, and the inner prototype's few fields are changed
**    in place.  Per state, the first lift compares both ways on a known
**    chunk (and the release of the library first): any difference, and
**    that state keeps the dump path.  A state with a hook set lifts by
**    the dump path (the hook would see the wrapper run).  (LuaJIT keeps
**    the dump path: its prototype is one block whose line info the lift
**    re-encodes at another width, bytecode.c.)
*/
#ifndef LI_LIFT_H
#define LI_LIFT_H

#include <lua.h>

/* The two ways to lift. */
enum { LI_LIFT_DUMP = 0, LI_LIFT_MEMORY = 1 };

/* Lift the wrapper on top of L (just compiled by luaL_loadbufferx in the
** loader's form).  LUA_OK with the chunk's function in its place;
** otherwise an error status with a message in its place: LUA_ERRMEM, or
** LUA_ERRRUN when the wrapper is not of the expected shape (which the
** loader treats as a failure of this form). */
int li_lift(lua_State *L, const char *name);

/* The way L lifts (the check made the first time). */
int li_lift_path(lua_State *L);

/* For tests: make L lift the given way from now on (LI_LIFT_MEMORY only
** where it passed the check, made now if it was not, and not with a hook
** set).  Returns the way L now lifts.  The
** environment variable LUAINSTR_LIFT=dump makes every state use the dump
** path (read at each state's check). */
int li_lift_force(lua_State *L, int path);

#endif
