/*
** jit.h -- the FFI probe: LuaJIT with its JIT on (jit.c; internal to
** runtime/).
**
** A chunk loaded while LuaJIT's JIT is on, with the ffi library at hand,
** gets for its probe a Lua closure over its map from local ids to function
** records (a variable-length struct cdata laid out as li_chunk, of an
** anonymous ctype made with ffi.typeof: nothing is added to the program's
** ffi.cdef namespace) that runs the probe protocol as two FFI calls into
** C, li_jit_enter(map, id) and li_jit_leave(map).  No Lua value crosses,
** the clock is read in C, and a trace compiles the calls in: the code
** keeps its JIT.
**
** What an FFI call cannot know is its Lua context: which coroutine runs
** (read from LuaJIT's global_State, cur_L, after a check at attach), and
** which activation called it (inside a trace there is no stack frame to
** name).  Its frames carry no identity (LI_FFI_CI): an exit pops the top
** function frame.  Errors are closed where they are caught (the pcall and
** xpcall boundaries, coroutine.resume and wrap); a coroutine's stack is
** found by its thread's address, never made without the Lua API.  Both
** kinds of frames mix on one stack (docs/luajit.md).
**
** On a PUC Lua, or LuaJIT built without its headers
** (LUAINSTR_LUAJIT_INTERNALS), this compiles to stubs: no FFI probe.
*/
#ifndef LI_JIT_H
#define LI_JIT_H

#include "profiler.h"

#if LI_IS_LUAJIT && defined(LI_LUA_INTERNALS)
#define LI_HAVE_FFI_PROBE 1
#else
#define LI_HAVE_FFI_PROBE 0
#endif

/* At attach: can the FFI probe read the running thread on L's library?
** Compares LuaJIT's G(L)->cur_L with the thread the C API runs, from the
** thread L and from a coroutine made for it.  1 (P->jit_g set), or 0 and
** why (a static string).  The environment variable LUAINSTR_JIT_CHECK=skew
** makes it read one field off, as a build whose layout differs would
** (tests: the C probe must take over cleanly). */
int li_jit_check(lua_State *L, li_prof *P, const char **why);

/* A chunk map of n functions for the FFI probe, owned by profiler
** `owner`, and the probe over it pushed on L; its gid is the caller's to
** fill.  NULL, with nothing pushed, when chunks loaded now
** do not get the FFI probe: option "probe" is not "ffi", the JIT is off, no
** ffi library.  May raise a memory error.  (The calibration makes its
** probe so: it measures the probe chunks get.) */
li_chunk *li_jit_chunk_new(lua_State *L, li_prof *P, li_prof *owner, uint32_t n);

/* Is the value at idx an FFI probe? */
int li_jit_is_probe(lua_State *L, int idx);

#endif
