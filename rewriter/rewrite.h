/*
** rewrite.h -- the instrumenting rewriter: a Lua chunk in, the same chunk
** with probe text spliced in out.  Nothing is ever removed or moved: the
** output minus the inserted spans is the input, byte for byte.
**
** Probe protocol (what the runtime must provide, see docs/probes.md):
**   line 1:  local P=(("").__luainstr or <no-op factory>)("<descriptors>");P(1);
**            or, with opts->probe_upvalue (the loader's form):
**            local P <const> = ...;return function(...)do local _=_ENV end P(1);
**            ... and " end" after the last token: the chunk is the inner
**            function, whose upvalue 1 is _ENV and upvalue 2 the probe, set
**            by the loader (runtime/instrument.c, bytecode.h).  By dialect:
**     5.4    as above; <const> marks the probe in stripped dumps.
**     5.2/3  local P = ...;return function(...)do local _=_ENV end P(1);
**            (no <const> in these dialects; 5.3 strips no kinds anyway).
**     5.1    local P = ...;return function() P(1);   the probe is upvalue
**            1: there is no _ENV (and naming it would read a global, which
**            runs __index code under a setfenv sandbox).  `function()`,
**            not `function(...)`: with LUA_COMPAT_VARARG (on in Debian's
**            5.1) a `...` parameter declares a hidden local `arg`, which
**            would capture every free `arg` of the chunk (scripts read the
**            global `arg`) and take a register; the lift makes the main
**            function vararg again.  A chunk whose main level uses `...`
**            cannot be wrapped so and keeps the offline form (line 1 above:
**            no form with `...` is exact, and renumbering registers after
**            the fact is not a byte patch).
**     LuaJIT as 5.1 (LI_DIALECT_JIT), the probe upvalue 1, but the inner
**            function is `function(...)` (LuaJIT has no hidden `arg`), so
**            a main level that uses `...` takes the loader's form too.
**   entry:   P(id);                 before the first statement of a function
**   exit:    P() return x           values that run no code when evaluated
**                                   (locals, upvalues, literals, `...`)
**            return e1, e2, P()     last value yields exactly one value
**            return (P(0, e))       one value, opts->exits_through
**            return P(0, e1, f())   last value may be several: P returns
**                                   its arguments but the first
**   tail:    return f(a, P())       the call stays a tail call; f(P()),
**            return f(P(0, g()))    f("s", P()); P() before `return` when
**                                   callee and arguments run no code
**   fall:    P(); end               falling off the end of a function
**   counted: P(id, 1);              the entry of a small function under
**                                   opts->count_small, which has no exit
**                                   probe: the runtime counts the call
**                                   under its caller and times nothing
** An exit probe ends the activation that calls it (the runtime knows it by
** its CallInfo), so exits carry no id.
** Ids are small positive integers local to the chunk: 1 is the main chunk,
** then functions in the order their `function` keyword appears.
*/
#ifndef LI_REWRITE_H
#define LI_REWRITE_H

#include <stddef.h>
#include <stdint.h>

/* Status codes of li_rewrite(). */
enum {
  LI_OK = 0,          /* out holds the instrumented chunk */
  LI_PASSTHROUGH = 1, /* binary chunk (or nothing to do): out is a copy */
  LI_ESYNTAX = 2,     /* the rewriter cannot parse it: errline/errmsg set */
  LI_EMEM = 3,        /* out of memory */
  LI_ETOOBIG = 4,     /* input over the size the rewriter takes (4 GiB) */
  LI_ELIMIT = 5,      /* a function has more nested functions than the
                         dialect's Lua compiles: the caller compiles the
                         original, and Lua rejects it with its own message
                         (errline/errmsg say where the rewriter stopped) */
  LI_EREJECT = 6      /* the chunk is one Lua's compiler rejects after
                         parsing (a goto with no visible label, a break
                         outside a loop, a label repeated, a goto into the
                         scope of a local; 5.4: an assignment to a <const>
                         or <close> local, an unknown attribute, two
                         <close> in one local statement): the caller
                         compiles the original, which gets Lua's own error;
                         errline/errmsg say what and where, in Lua's words
                         and at Lua's line (docs/limits.md) */
};

/* What the rewriter knows of one function (index = id - 1). */
typedef struct li_funcdesc {
  char *name;         /* "M.a.b:m", "local f", "anonymous", "main chunk"
                         (all in one block, freed by li_rewrite_free) */
  uint32_t line;      /* Lua's linedefined: line of `function` in a
                         `function name` statement, else of its `(`
                         (0 for the main chunk) */
  uint32_t lastline;  /* line of its `end` (0 for the main chunk) */
  uint32_t parent;    /* id of the enclosing function (0 for main) */
  int probed;         /* 1 if it carries probes; 0 if left alone (warning) */
  int counted;        /* 1: counted, not timed (li_rewrite_opts.count_small):
                         its entry probe is P(id, 1) and it has no exit
                         probe; its time is its caller's */
} li_funcdesc;

/* li_rewrite_opts.version of LuaJIT 2.1's dialect: Lua 5.1 (its limits,
** no _ENV) with `goto` and labels, names with bytes from 0x80 up, and
** its numerals and escapes (1LL, 0x10ULL, 12i, \u{...}). */
#define LI_DIALECT_JIT 21

/* li_rewrite_opts.count_small of `--count-small` without a number: a
** body like `return self.x`, `return a * b + c` or `v.n = v.n + 1`. */
#define LI_COUNT_SMALL_DEFAULT 24
#define LI_COUNT_SMALL_STR "24"

typedef struct li_rewrite_opts {
  int version;               /* 51..54 or LI_DIALECT_JIT: Lua dialect of
                                the source; 0 = 54 */
  const char *chunkname;     /* as given to lua_load ("@file.lua"), or NULL */
  int skip_first_line;       /* 1: skip a BOM and a leading `#` line, as
                                luaL_loadfilex does (kept in place) */
  const unsigned char *skip; /* optional: skip[id-1] != 0 leaves that
                                function without probes */
  uint32_t nskip;            /* entries in skip */
  int probe_upvalue;         /* 1: the loader's form (see above): the probe
                                is an upvalue the loader sets, not fetched
                                through the string metatable (5.1: unless
                                the main level uses `...`) */
  int no_reject_checks;      /* 1: never LI_EREJECT: parse on as if Lua
                                accepted what its compiler rejects after
                                parsing (the loader's net, should the
                                checks ever take a chunk Lua compiles) */
  uint32_t count_small;      /* > 0: a function other than the main chunk
                                whose own body has at most this many
                                tokens, no call, no loop, no goto and no
                                function inside is counted, not timed: its
                                entry probe is P(id, 1), and it has no exit
                                probe (docs/measuring.md, "Counted, not
                                timed"); 0: every function is timed */
  int exits_through;         /* 1: a return of one value that runs code
                                passes it through its exit probe, not in a
                                tail call: `return (P(0, a+b))` (LuaJIT's
                                loader: its trace recorder compiles that
                                form best, runtime/loader.c) */
} li_rewrite_opts;

typedef struct li_rewrite_result {
  char *out;             /* instrumented chunk (malloc'd, NUL-terminated) */
  size_t outlen;         /* its length (without the NUL) */
  li_funcdesc *funcs;    /* descriptors, funcs[id-1] */
  uint32_t nfuncs;       /* number of functions, main chunk included */
  size_t *ins;           /* inserted spans: ins[2k] = offset in out,
                            ins[2k+1] = length, ascending */
  size_t nins;           /* number of spans */
  char *warnings;        /* "name:line: warning: ...\n" lines, or NULL */
  int probe_upvalue;     /* out is in the loader's form (opts->probe_upvalue,
                            something was probed, and the dialect's form
                            fits): the probe's upvalue in the lifted main
                            function, 2 (1 on 5.1 and LuaJIT: no _ENV);
                            0: the offline form */
  uint32_t errline;      /* LI_ESYNTAX: line of the error */
  char errmsg[200];      /* LI_ESYNTAX: message, luac style without name */
} li_rewrite_result;

/* Rewrite src[0..len).  Always fills *r (free it with li_rewrite_free, also
** on error).  Returns one of the status codes above. */
int li_rewrite(const char *src, size_t len, const li_rewrite_opts *opts,
               li_rewrite_result *r);

void li_rewrite_free(li_rewrite_result *r);

/* The name Lua shows for a chunk in messages (luaO_chunkid, simplified):
** "=name" and "@file" lose their mark, a long file name keeps its tail,
** anything else is [string "first line..."]; at most size - 1 bytes. */
void li_chunk_id(char *out, size_t size, const char *name);

/* Key of the probe factory in the string table (see the protocol above). */
#define LI_PROBE_KEY "__luainstr"

#endif
