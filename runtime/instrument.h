/*
** instrument.h -- the one loader path: rewrite a chunk, compile the result
** with the real luaL_loadbufferx, and never turn loadable code into
** unloadable code.  Every entry point (CLI, C hook, luaprof, Lua module)
** goes through li_instrument_load().
*/
#ifndef LI_INSTRUMENT_H
#define LI_INSTRUMENT_H

#include <lua.h>
#include "rewrite.h"

/* Load a chunk as luaL_loadbufferx(L, src, len, name, mode) would, but
** instrumented:
**  - binary chunks, and text the rewriter cannot parse, are loaded as they
**    are (the user sees Lua's own outcome and message);
**  - if the instrumented text does not compile but the original does (a
**    limit the rewriter did not foresee), the functions at the reported
**    line are left without probes and it tries again; as a last resort the
**    original is loaded uninstrumented, with a warning;
**  - if the original does not compile, Lua's own error for the original is
**    returned.
** Returns the lua_load status with the function or the error message on
** the stack.  *r receives the final rewrite (r->out is what was loaded when
** *instrumented is 1; r->ins is NULL once it was compiled, r->nins kept);
** free it with li_rewrite_free() in every case.
** opts may be NULL (Lua 5.4, no first-line skipping). */
int li_instrument_load(lua_State *L, const char *src, size_t len,
                       const char *name, const char *mode,
                       const li_rewrite_opts *opts, li_rewrite_result *r,
                       int *instrumented);

#endif
