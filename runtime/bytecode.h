/*
** bytecode.h -- what the loader reads and writes of Lua 5.4 binary chunks
** (the format of lua_dump, ldump.c).  Two uses:
**  - lifting: the loader compiles an instrumented chunk wrapped as
**      local __LI <const> = ...;return function(...) <chunk> end
**    so that the probe is an upvalue of the chunk's function, which the
**    loader sets and no sandbox can take away.  li_bc_lift_main() turns
**    the dump of the wrapper into a binary chunk whose main function is
**    the inner function, with the wrapper's source and line 0 (what Lua
**    calls a main chunk), so debug.getinfo and tracebacks see a main chunk.
**  - dumps of instrumented functions: li_bc_entry_probe() finds the upvalue
**    that the top function's entry probe calls, so a loader can give a
**    string.dump()ed function its probe back.
** Everything here reads bytes only and never trusts them: a chunk that is
** not what is expected gives 0, never a read past its end.
*/
#ifndef LI_BYTECODE_H
#define LI_BYTECODE_H

#include <stddef.h>

/* Kinds of an upvalue as Lua 5.4 dumps them (lparser.h VDKREG...). */
enum { LI_BC_REGULAR = 0, LI_BC_CONST = 1 };

/* From the dump of the wrapper above (its main function has the inner one
** as its first nested function), make the binary chunk described above.
** *out is malloc'd.  Returns 1, or 0 if the dump is not of that shape or
** memory ran out. */
int li_bc_lift_main(const char *dump, size_t n, char **out, size_t *outlen);

/* The upvalue (1-based) that the entry probe of the binary chunk's top
** function calls (`upv(id)` with an integer id > 0 among its first
** instructions, after a vararg prologue and the dead-code upvalue
** references the rewriter puts first), with its dumped kind in *kind;
** 0 when the function does not start that way. */
int li_bc_entry_probe(const char *chunk, size_t n, int *kind);

#endif
