/*
** bytecode.h -- what the loader reads and writes of binary chunks (the
** format of lua_dump, ldump.c) of Lua 5.1, 5.2, 5.3 and 5.4, and of
** LuaJIT 2.1 ("\x1bLJ", lj_bcdump.h): the chunk's header says which; this
** code is the same whichever Lua it is built with.  Two uses:
**  - lifting: the loader compiles an instrumented chunk wrapped as
**      5.4       local __LI <const> = ...;return function(...)do local _=_ENV end <chunk> end
**      5.2, 5.3  local __LI = ...;return function(...)do local _=_ENV end <chunk> end
**      5.1       local __LI = ...;return function() <chunk> end
**      LuaJIT    local __LI = ...;return function(...) <chunk> end
**    (rewrite.h says why each) so that the probe is an upvalue of the
**    chunk's function, which the loader sets and no sandbox can take away.
**    li_bc_lift_main() (lift.h's dump path: with Lua's headers the runtime
**    lifts in memory, to the same bytes) turns the dump of the wrapper
**    into a binary chunk whose main function is the inner function, with
**    the wrapper's source and lines 0 (what Lua calls a main chunk), so
**    debug.getinfo and tracebacks see a main chunk.  On 5.1 the lift also
**    makes it vararg as a 5.1 main chunk is (VARARG_ISVARARG alone), the
**    form being `function()`.  On LuaJIT the lift drops the wrapper's prototype and
**    gives the inner one a main function's first line (0), line count and
**    line info (bytecode.c says how).  What lua_load then does with its
**    upvalues differs: 5.1 and LuaJIT make them fresh (nil), 5.2 sets
**    upvalue 1 to the globals only when there is exactly one (so not here:
**    the loader sets _ENV itself), 5.3 and 5.4 set upvalue 1 (here _ENV)
**    when there is at least one.
**  - dumps of instrumented functions: li_bc_entry_probe() finds the upvalue
**    that the top function's entry probe calls, so a loader can give a
**    string.dump()ed function its probe back; in LuaJIT's dumps too.
** Everything here reads bytes only and never trusts them: a chunk that is
** not what is expected gives 0, never a read past its end.
*/
#ifndef LI_BYTECODE_H
#define LI_BYTECODE_H

#include <stddef.h>

/* Kinds of an upvalue as Lua 5.4 dumps them (lparser.h VDKREG...); dumps
** of 5.1 to 5.3 have no kinds. */
enum { LI_BC_REGULAR = 0, LI_BC_CONST = 1, LI_BC_NOKIND = -1 };

/* From the dump of the wrapper above (its main function has the inner one
** as its first nested function), make the binary chunk described above.
** *out is malloc'd.  Returns 1, or 0 if the dump is not of that shape or
** memory ran out. */
int li_bc_lift_main(const char *dump, size_t n, char **out, size_t *outlen);

/* The upvalue (1-based) that the entry probe of the binary chunk's top
** function calls (`upv(id)` with an integer id > 0 among its first
** instructions, after a vararg prologue and the dead-code upvalue
** references the rewriter puts first), with its dumped kind in *kind
** (LI_BC_NOKIND before 5.4; for LuaJIT LI_BC_CONST when the upvalue is
** immutable, a local never assigned); 0 when the function does not start
** that way. */
int li_bc_entry_probe(const char *chunk, size_t n, int *kind);

#endif
