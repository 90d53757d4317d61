/*
** luainstr_wrap.h -- routes a host's loads, resumes and protected calls
** through luainstr's swappable entry points (include/luainstr.h).
**
** Include it after <lauxlib.h>, in every file that loads chunks or
** resumes coroutines:
**
**     #include <lua.h>
**     #include <lauxlib.h>
**     #include <luainstr_wrap.h>
**
** From here on, in that file, luaL_loadbufferx, luaL_loadfilex,
** luaL_loadstring, lua_load, lua_resume and lua_pcall call the wrap_
** functions, and so do the macros over them (luaL_dofile, luaL_dostring,
** luaL_loadfile, luaL_loadbuffer, lua_pcall).  They behave exactly as
** Lua's own until luainstr_install_hooks() swaps the profiler's versions
** in; luainstr_uninstall_hooks() swaps Lua's back.  No source line of the
** host changes, and no native code is patched.
*/
#ifndef LUAINSTR_WRAP_H
#define LUAINSTR_WRAP_H

#include "luainstr.h"

#if !defined(lauxlib_h)
#error "include luainstr_wrap.h after lauxlib.h"
#endif

#define luaL_loadbufferx wrap_luaL_loadbufferx
#define luaL_loadfilex wrap_luaL_loadfilex
#define luaL_loadstring wrap_luaL_loadstring
#define lua_load wrap_lua_load
#define lua_resume wrap_lua_resume
/* lua.h's lua_pcall is a macro over lua_pcallk */
#undef lua_pcall
#define lua_pcall(L, n, r, f) wrap_lua_pcall(L, n, r, f)

#endif
