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
**
** The wrap_ functions have Lua 5.4's signatures; the host's calls keep
** the ones of the Lua it is written for (its lua.h's LUA_VERSION_NUM; link
** the libluainstr built for that Lua, e.g. libluainstr5.1):
**   5.1       luaL_loadbuffer, luaL_loadfile, luaL_loadstring (functions
**             there, no mode), lua_load(L, reader, data, chunkname),
**             lua_resume(L, narg)
**   LuaJIT    5.1's, and the 5.2 loaders it has too: luaL_loadbufferx,
**             luaL_loadfilex, lua_loadx (told by its luaconf.h's
**             LUA_LJDIR; link libluainstrjit)
**   5.2, 5.3  lua_resume(L, from, narg)
**   5.4       lua_resume(L, from, narg, &nres)
** Before 5.4 a resume's results are the coroutine's whole stack, as
** there.
*/
#ifndef LUAINSTR_WRAP_H
#define LUAINSTR_WRAP_H

#include "luainstr.h"

#if !defined(lauxlib_h)
#error "include luainstr_wrap.h after lauxlib.h"
#endif

#if LUA_VERSION_NUM >= 502
#define luaL_loadbufferx wrap_luaL_loadbufferx
#define luaL_loadfilex wrap_luaL_loadfilex
#define lua_load wrap_lua_load
#else
#define luaL_loadbuffer(L, buff, sz, name) wrap_luaL_loadbufferx(L, buff, sz, name, NULL)
#define luaL_loadfile(L, filename) wrap_luaL_loadfilex(L, filename, NULL)
#define lua_load(L, reader, data, chunkname) wrap_lua_load(L, reader, data, chunkname, NULL)
#if defined(LUA_LJDIR)
#define luaL_loadbufferx wrap_luaL_loadbufferx
#define luaL_loadfilex wrap_luaL_loadfilex
#define lua_loadx wrap_lua_load
#endif
#endif
#define luaL_loadstring wrap_luaL_loadstring

#if LUA_VERSION_NUM >= 504
#define lua_resume wrap_lua_resume
#elif LUA_VERSION_NUM >= 502
#define lua_resume(L, from, narg) wrap_lua_resume(L, from, narg, NULL)
#else
#define lua_resume(L, narg) wrap_lua_resume(L, NULL, narg, NULL)
#endif

/* lua.h's lua_pcall is a macro over lua_pcallk (a function on 5.1) */
#undef lua_pcall
#define lua_pcall(L, n, r, f) wrap_lua_pcall(L, n, r, f)

#endif
