/*
** boundary.c -- the places where Lua code leaves a frame without passing
** its exit probe, or stops running without leaving it:
**   pcall, xpcall        an error unwound the frames above the call: they
**                        close there, as exits by an error;
**   coroutine.resume,    the resumer waits while the coroutine runs: that
**   coroutine.wrap       time is the resumer's children's, not its own; a
**                        coroutine that dies by an error closes its frames;
**   coroutine.yield      the coroutine's frames stop while it is suspended;
**   coroutine.close      a suspended coroutine's frames end where it
**                        stopped.
** Each replacement behaves as the function it replaces, of the Lua it is
** built for (same results, same messages, same yieldability: what differs
** between 5.1's lbaselib.c and 5.4's lcorolib.c is named in luaver.h,
** LI_XPCALL_* and LI_CO_*); only the bookkeeping is added.  A function
** the Lua does not have (coroutine.close before 5.4) is not added.  They
** also look like the originals to the debug library: light C functions
** with no upvalue, and a wrap function whose one upvalue is its coroutine.
** So the profiler is not an upvalue: it is found in the registry under a
** light-userdata key (a pointer hash, no string on the hot path).  The
** originals are kept in the registry for li_restore_boundaries().
** LuaJIT's pcall and xpcall are Lua functions around its own instead
** (LI_XPCALL_LUA, below): a C function there would refuse a yield and
** stop the JIT's traces.
*/
#include <lua.h>
#include <lauxlib.h>

#include "profiler.h"
#include "jit.h"

#define LI_REG_ORIGINALS "luainstr.boundaries"

/* The profiler, or NULL when there is none or it no longer collects.  It
** takes one stack slot: every replacement has LUA_MINSTACK when it starts,
** and finish_pcall's error path has its pcall's frame back; yield_done,
** which may have none (a resume checks the stack for its values only),
** gets the profiler in its context instead. */
static li_prof *prof_of(lua_State *L) {
  li_prof *P;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key);   /* profiler.h */
  P = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return P != NULL && !P->closed ? P : NULL;
}


/* ======================================================================
** pcall, xpcall
** ====================================================================== */

/* After the protected call: on an error, close the frames above the depth
** the stack had at the call (ctx >> 2); ctx & 3 is the count of slots
** below the results (1 for pcall's `true`, 2 for xpcall's handler too). */
static int finish_pcall(lua_State *L, int status, lua_KContext ctx) {
  if (status != LUA_OK && status != LUA_YIELD) {
    li_prof *P = prof_of(L);
    uint32_t depth = (uint32_t)((uintptr_t)ctx >> 2);
    if (P != NULL && P->on) {
      li_stack *S = li_stack_of(P, L);
      if (S != NULL && S->n > depth)
        li_stack_close(P, S, depth, li_clock_ticks(&P->clock), 1);
    }
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - (int)(ctx & 3);
}
LI_CONTINUATION(finish_pcall)

/* The depth of L's shadow stack, packed with `extra` for finish_pcall. */
static lua_KContext pcall_ctx(lua_State *L, int extra) {
  li_prof *P = prof_of(L);
  uintptr_t depth = 0;
  if (P != NULL && P->on) {
    li_stack *S = li_stack_of(P, L);
    if (S != NULL) depth = S->n;
  }
  return (lua_KContext)(depth << 2 | (uintptr_t)extra);
}

static int li_pcall(lua_State *L) {
  lua_KContext ctx;
  luaL_checkany(L, 1);
  ctx = pcall_ctx(L, 0);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  return finish_pcall(L, li_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0,
                                    ctx, finish_pcall), ctx);
}

static int li_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  lua_KContext ctx;
  if (LI_XPCALL_CHECK_HANDLER)
    luaL_checktype(L, 2, LUA_TFUNCTION);
  else if (LI_XPCALL_ARGS)                  /* 5.2: any handler */
    luaL_argcheck(L, n >= 2, 2, "value expected");
  else {                      /* 5.1: any handler, and f gets no arguments */
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    n = 2;
  }
  ctx = pcall_ctx(L, 2);
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);
  return finish_pcall(L, li_pcallk(L, n - 2, LUA_MULTRET, 2, ctx,
                                    finish_pcall), ctx);
}


/* ======================================================================
** pcall, xpcall on LuaJIT: Lua functions around its own
** ====================================================================== */

/* LuaJIT's pcall and xpcall are fast functions: no C frame, so a yield
** crosses them (its lua_pcall refuses one, and it has no lua_pcallk), and
** the JIT compiles them into its traces (a C function would end the
** trace there).  So they are replaced by Lua functions that call them:
** the shadow stack's depth is read before the call, and the frames above
** it are closed, as exits by an error, when it returns false.  The
** wrappers' one upvalue is a table O holding the originals, the profiler
** (a light userdata, P) and `depth` and `close`, called as depth(P) and
** close(P, d): FFI calls of ffi_depth and ffi_close where the FFI probe
** can read the running thread (they use no Lua API, so a trace compiles
** them in), else the lua_CFunctions pcall_depth and pcall_close (which
** ignore P: they find the profiler through the thread they run in).
**
** What the program sees of the wrapper, made as small as it can be:
**  - it is compiled once, from the source below, and stripped (no line
**    numbers, no names of locals or upvalues), with the chunk name "=[C]":
**    its frame in a traceback reads "[C]: in function 'pcall'", as its
**    caller names it, and shows no line;
**  - it calls the originals as the fields `pcall` and `xpcall` of O, so
**    the original's frame is named as stock LuaJIT names it ("[C]: in
**    function 'pcall'");
**  - a missing argument or handler is passed on by a tail call, so
**    LuaJIT's own check raises its own message at the caller's line
**    ("bad argument #1 to 'pcall' (value expected)");
**  - its environment is the globals, as a C function's is.
** What remains (docs/luajit.md, "Limits"): a traceback taken inside the protected
** call shows the pcall line twice (and a pcall called with no name, as
** pcall(pcall, f) calls it, reads "[C]: in function <[C]:0>" where stock
** LuaJIT shows "[builtin#20]: at 0x..."); debug.getinfo levels counted
** from inside it past the pcall are one deeper (error(msg, 3) there names
** the wrapper, "[C]:0:", where stock names the caller of pcall); pcall
** and xpcall are Lua functions to the debug library (what "Lua", one
** upvalue, tostring "function: 0x..." rather than "function:
** builtin#20"); and each protected call under way takes a few more slots
** of Lua's stack (its limit comes that much sooner).
** The JIT: with `depth` and `close` FFI calls, a loop of pcalls makes the
** same traces as stock LuaJIT, with no abort (measured with jit.attach on
** pcall and xpcall loops, with errors: 2 and 3 traces, none aborted;
** 4.3 ns a pcall against 0.8).  With the lua_CFunctions (no FFI probe)
** the trace stitches at `depth`, and the stitched trace starts inside the
** vararg wrapper, where LuaJIT does not record a VARG of unknown length:
** that trace aborts ("NYI: bytecode 71") until LuaJIT blacklists it, and
** the protected function gets traces of its own that abort on their
** return to pcall ("NYI: return to lower frame"), a dozen aborts in all,
** then the interpreter (62 ns a pcall).  With the JIT off the FFI calls
** are interpreted: 140 ns a pcall (99 with the lua_CFunctions, 13 stock). */

uint32_t li_pcall_depth(li_prof *P, lua_State *L) {
  li_stack *S;
  if (P == NULL || P->closed || !P->on) return 0;
  S = li_stack_of(P, L);
  return S != NULL ? S->n : 0;
}

void li_pcall_close(li_prof *P, lua_State *L, uint32_t depth) {
  li_stack *S;
  if (P == NULL || P->closed || !P->on) return;
  S = li_stack_of(P, L);
  if (S != NULL && S->n > depth)
    li_stack_close(P, S, depth, li_clock_ticks(&P->clock), 1);
}

#if LI_XPCALL_LUA
static const char lua_pcalls[] =
  "local O = ...\n"
  "function O.finish(d, ok, ...)\n"
  "  if not ok then O.close(O.P, d) end\n"
  "  return ok, ...\n"
  "end\n"
  "local function P(...)\n"
  "  if O.select('#', ...) == 0 then return O.pcall(...) end\n"
  "  return O.finish(O.depth(O.P), O.pcall(...))\n"
  "end\n"
  "local function X(...)\n"
  "  if O.type((O.select(2, ...))) ~= 'function' then\n"
  "    return O.xpcall(...)\n"
  "  end\n"
  "  return O.finish(O.depth(O.P), O.xpcall(...))\n"
  "end\n"
  "return P, X\n";

static int pcall_depth(lua_State *L) {
  lua_pushnumber(L, (lua_Number)li_pcall_depth(prof_of(L), L));
  return 1;
}

static int pcall_close(lua_State *L) {
  lua_Number d = lua_tonumber(L, 2);
  if (d >= 0 && d < 4294967296.0)
    li_pcall_close(prof_of(L), L, (uint32_t)d);
  return 0;
}

#if LI_HAVE_FFI_PROBE
/* The same as FFI calls, with no Lua API: the running thread read as the
** FFI probe reads it (li_jit_running_stack).  They return nothing but the
** depth: no guard in the trace. */
static uint32_t ffi_depth(void *p) {
  li_prof *P = p;
  li_stack *S;
  if (P->closed || !P->on || (S = li_jit_running_stack(P)) == NULL) return 0;
  return S->n;
}

static void ffi_close(void *p, uint32_t depth) {
  li_prof *P = p;
  li_stack *S;
  if (P->closed || !P->on || (S = li_jit_running_stack(P)) == NULL ||
      S->n <= depth)
    return;
  li_stack_close(P, S, depth, li_clock_ticks(&P->clock), 1);
}

/* Their FFI function pointers, from the ffi library and their addresses,
** and the profiler as a pointer cdata (a trace does not convert a light
** userdata to a pointer: "NYI: unsupported C type conversion"). */
static const char ffi_pcalls[] =
  "local ffi, depth, close, P = ...\n"
  "return ffi.cast('uint32_t (*)(void *)', depth),\n"
  "       ffi.cast('void (*)(void *, uint32_t)', close),\n"
  "       ffi.cast('void *', P)\n";

/* O (on the top) gets ffi_depth and ffi_close when the FFI probe can read
** the running thread (the check at attach passed, option probe is ffi);
** else it keeps the lua_CFunctions. */
static void use_ffi(lua_State *L, li_prof *P) {
  int o = lua_gettop(L);
  if (P == NULL || P->jit_g == NULL || P->probe != LI_PROBE_FFI) return;
  li_jit_push_ffi(L);
  if (lua_isnil(L, -1) ||
      luaL_loadbuffer(L, ffi_pcalls, sizeof ffi_pcalls - 1, "=[C]") != LUA_OK) {
    lua_settop(L, o);
    return;
  }
  lua_insert(L, -2);
  lua_pushlightuserdata(L, (void *)(uintptr_t)ffi_depth);
  lua_pushlightuserdata(L, (void *)(uintptr_t)ffi_close);
  lua_pushlightuserdata(L, P);
  lua_call(L, 4, 3);
  lua_setfield(L, o, "P");
  lua_setfield(L, o, "close");
  lua_setfield(L, o, "depth");
}
#endif

/* Replace the function on the top by its stripped copy (LuaJIT's
** string.dump(f, true), as the registry's _LOADED has it: lua_dump keeps
** the line numbers), or leave it when that fails. */
static void strip(lua_State *L) {
  int f = lua_gettop(L);
  size_t len;
  const char *bc;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, f + 1, "string") == LUA_TTABLE &&
      lua_getfield(L, f + 2, "dump") == LUA_TFUNCTION) {
    lua_pushvalue(L, f);
    lua_pushboolean(L, 1);
    lua_call(L, 2, 1);
    bc = lua_tolstring(L, f + 3, &len);
    if (bc != NULL && luaL_loadbuffer(L, bc, len, "=[C]") == LUA_OK)
      lua_replace(L, f);
  }
  lua_settop(L, f);
}

/* Push the Lua pcall and xpcall around the functions at orig_p and
** orig_x (LuaJIT's own). */
static void push_lua_pcalls(lua_State *L, int orig_p, int orig_x) {
  if (luaL_loadbuffer(L, lua_pcalls, sizeof lua_pcalls - 1, "=[C]") != LUA_OK)
    lua_error(L);                         /* (out of memory) */
  strip(L);
  lua_createtable(L, 0, 8);               /* O */
  lua_pushvalue(L, orig_p);
  lua_setfield(L, -2, "pcall");
  lua_pushvalue(L, orig_x);
  lua_setfield(L, -2, "xpcall");
  lua_getglobal(L, "select");
  lua_setfield(L, -2, "select");
  lua_getglobal(L, "type");
  lua_setfield(L, -2, "type");
  lua_pushcfunction(L, pcall_depth);
  lua_setfield(L, -2, "depth");
  lua_pushcfunction(L, pcall_close);
  lua_setfield(L, -2, "close");
  lua_pushlightuserdata(L, prof_of(L));
  lua_setfield(L, -2, "P");
#if LI_HAVE_FFI_PROBE
  use_ffi(L, prof_of(L));
#endif
  lua_call(L, 1, 2);
}
#endif


/* ======================================================================
** Coroutines
** ====================================================================== */

/* On LuaJIT these are C functions too, where LuaJIT's are fast functions
** its JIT does not compile (resume, yield, wrap's function: "NYI"): the
** JIT records a call of either alike, a stitch of the trace around it, so
** the traces and their aborts are the same (measured with jit.attach on
** resume, wrap and yield loops: equal counts, no abort).  What a program
** can see (docs/luajit.md, "Limits"): tostring gives "function: 0x..." rather than
** "function: builtin#35", and a traceback line of one called with no name
** reads "[C]: at 0x..." rather than "[builtin#35]: at 0x...". */

/* A resume's bookkeeping: while co runs, its resumer's top frame waits,
** and the time is its children's.  Shared by coroutine.resume/wrap and
** the host's lua_resume and lua_pcall on another thread. */
typedef struct resume_ctx {
  li_prof *P;           /* the profiler, collecting when the resume began */
  li_stack *R;          /* the resumer's stack (NULL: none) */
  uint64_t t0;          /* when co began to run (0: not measured) */
  uint64_t pairs0;      /* entries counted then */
  uint64_t own0;        /* and P->own_clock */
} resume_ctx;

/* The time at the start of the profiler's work in a resume or a yield,
** before it knows the profiler: the TSC's (read with no call), else 0
** (then read once the profiler's clock is known: own_start). */
static LI_INLINE uint64_t own_now(void) {
  return LI_HAVE_INLINE_CLOCK ? li_clock_inline_ticks() : 0;
}
static LI_INLINE uint64_t own_start(const li_prof *P, uint64_t t) {
  return LI_CLOCK_INLINE(&P->clock) && t != 0 ? t : li_clock_ticks(&P->clock);
}

/* co is about to run, resumed by thread L, where co's thread object is at
** index coidx; t_in: own_now() where the resume's own work began (0: at
** the call).  That work, until co runs, and resume_end's, are measured and
** left out of the resumer's frames (li_stack_own): a resume and a yield
** cost ~900 instructions more than Lua's own, which the coroutine phase of
** bench/phases read as 260 ns too much a resume on 5.4, 500 on 5.1. */
static LI_INLINE void resume_begin(resume_ctx *c, li_prof *P, lua_State *L,
                         lua_State *co, int coidx, uint64_t t_in) {
  li_stack *R, *C;
  c->P = NULL;
  c->R = NULL;
  c->t0 = c->pairs0 = c->own0 = 0;
  if (P == NULL || !P->on) return;
  t_in = own_start(P, t_in);
  c->P = P;
  R = c->R = li_stack_of(P, L);
  C = li_stack_of_thread(P, L, coidx);
  /* the coroutine's calls hang under its resumer's frame (a coroutine
  ** that is not suspended, running or normal, is not resumed: Lua refuses,
  ** and its frames stay where they are) */
  if (C != NULL && C != R && (C->n == 0 || lua_status(co) == LUA_YIELD))
    li_stack_rebase(P, C, R != NULL && R->n > 0 ? R->f[R->n - 1].node
                          : (R ? R->root : 0), t_in);
  c->pairs0 = P->entries;
  /* the coroutine runs now: memory mode charges its top frame */
  if (C != NULL) li_set_cur(P, co, C);
  c->t0 = li_clock_ticks(&P->clock);
  li_stack_own(P, R, c->t0 - t_in);
  c->own0 = P->own_clock;
  /* no continuation tells when a yield returns (Lua 5.1): the resume does */
  if (!LI_HAVE_CONTINUATIONS && C != NULL && C->suspended) li_stack_wake(P, C, c->t0);
  if (R != NULL) {            /* (a frame mark meanwhile charges its part) */
    R->resuming = 1;
    R->res_t0 = c->t0;
    R->res_pairs0 = c->pairs0;
    R->res_own0 = c->own0;
  }
}

/* co ran and came back to L with `status`: its time to the resumer's top
** frame; L's stack current again.  died: co ran to an error that killed
** it (its frames close as exits by an error). */
static LI_INLINE void resume_end(resume_ctx *c, lua_State *L, int coidx, int died) {
  li_prof *P = c->P;
  li_stack *R = c->R;
  uint64_t t0 = c->t0, pairs0 = c->pairs0, own0 = c->own0;
  if (R != NULL) {              /* (R lives as long as L, which runs) */
    if (R->resuming) { t0 = R->res_t0; pairs0 = R->res_pairs0; own0 = R->res_own0; }
    R->resuming = 0;              /* from the last frame mark, if any */
  }
  if (P != NULL && !P->closed && P->on && R != NULL && t0 != 0) {
    uint64_t t1 = li_clock_ticks(&P->clock);
    /* back in L: its stack is current again (the list may have changed) */
    li_set_cur(P, NULL, P->cur);
    R = li_stack_of(P, L);
    li_prof_charge(P, R, t1 - t0, P->entries - pairs0, P->own_clock - own0);
    if (died) {
      li_stack *C = li_stack_of_thread(P, L, coidx);
      if (C != NULL) li_stack_close(P, C, 0, t1, 1);
    }
    li_stack_own(P, R, li_clock_ticks(&P->clock) - t1);
  }
}

/* Only a coroutine that died closes its frames: a resume refused (the
** running coroutine, a normal one, a dead one) ran nothing and leaves
** co's status as it was. */
static int died(lua_State *co, int status) {
  return status != LUA_OK && status != LUA_YIELD &&
         lua_status(co) != LUA_OK && lua_status(co) != LUA_YIELD;
}

static int co_state(lua_State *L, lua_State *co);
static const char *const co_names[] = {"running", "dead", "suspended", "normal"};

/* The resume the version refuses before lua_resume (LI_CO_CHECK_*): 1
** with the message pushed, 0 if co may be resumed. */
static int refused(lua_State *L, lua_State *co, int narg) {
  if (LI_CO_CHECK_CFRAME) {                     /* LuaJIT's ffh_resume */
    int st = co_state(L, co);
    if (st == 0 || st == 3) {
      lua_pushliteral(L, "cannot resume running coroutine");
      return 1;
    }
    if (st == 1) {
      lua_pushliteral(L, "cannot resume dead coroutine");
      return 1;
    }
    return 0;              /* (its stacks grow: LI_CO_GROW_STACKS) */
  }
  if (LI_CO_CHECK_STATUS) {                     /* 5.1's auxresume */
    int st = co_state(L, co);
    if (!lua_checkstack(co, narg))
      luaL_error(L, "too many arguments to resume");
    if (st != 2) {
      lua_pushfstring(L, "cannot resume %s coroutine", co_names[st]);
      return 1;
    }
    return 0;
  }
  if (!lua_checkstack(co, narg)) {
    lua_pushliteral(L, "too many arguments to resume");
    return 1;
  }
  if (LI_CO_CHECK_DEAD && lua_status(co) == LUA_OK && lua_gettop(co) == 0) {
    lua_pushliteral(L, "cannot resume dead coroutine");
    return 1;
  }
  return 0;
}

/* Resume co with narg values from L's top.  Returns the count of results
** moved to L, or -1 with the error value on L's top. */
static int resume(lua_State *L, lua_State *co, int coidx, int narg) {
  resume_ctx c;
  int status, nres;
  uint64_t t_in;
  if (refused(L, co, narg)) return -1;
  t_in = own_now();
  resume_begin(&c, prof_of(L), L, co, coidx, t_in);
  lua_xmove(L, co, narg);
  li_co_setlevel(L, co);
  status = lua_resume(co, L, narg, &nres);
  li_jit_running_again(L);
  resume_end(&c, L, coidx, died(co, status));
  if (status == LUA_OK || status == LUA_YIELD) {
    if (!LI_CO_GROW_STACKS && !lua_checkstack(L, nres + 1)) {
      if (LI_CO_RAISE_LIMITS) luaL_error(L, "too many results to resume");
      lua_pop(co, nres);
      lua_pushliteral(L, "too many results to resume");
      return -1;
    }
    lua_xmove(co, L, nres);
    return nres;
  }
  lua_xmove(co, L, 1);
  return -1;
}

/* lua_resetthread(co) from L, co's thread object at coidx: the __close
** handlers of its pending variables run in co, so they nest under L's top
** frame as a resume's calls do, and L's stack is current again after. */
static int reset_thread(lua_State *L, lua_State *co, int coidx) {
  resume_ctx c;
  int st;
  resume_begin(&c, prof_of(L), L, co, coidx, 0);
  st = lua_resetthread(co);
  resume_end(&c, L, coidx, 1);   /* (a handler's error leaves its frames) */
  return st;
}

static lua_State *check_co(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  li_argexpected_thread(L, co);
  return co;
}

static int li_resume(lua_State *L) {
  lua_State *co = check_co(L);
  int r = resume(L, co, 1, lua_gettop(L) - 1);
  if (r < 0) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, -(r + 1));
  return r + 1;
}

/* The function coroutine.wrap returns: upvalue 1 is the coroutine, as in
** stock Lua (debug.setupvalue may change it). */
static int wrapped(lua_State *L) {
  lua_State *co = lua_tothread(L, lua_upvalueindex(1));
  int r;
  if (co == NULL)           /* stock Lua would crash here: fail instead */
    return luaL_error(L, "cannot resume a non-coroutine");
  r = resume(L, co, lua_upvalueindex(1), lua_gettop(L));
  if (r < 0) {
    int st = lua_status(co);
    if (LI_HAVE_CLOSE && st != LUA_OK && st != LUA_YIELD) {
      st = reset_thread(L, co, lua_upvalueindex(1));  /* died: its tbc vars */
      lua_xmove(co, L, 1);
    }
    /* (5.4 leaves a memory error as it is; 5.1 and 5.2 take numbers as
    ** strings) */
    if ((!LI_HAVE_CLOSE || st != LUA_ERRMEM) &&
        (LI_CO_WHERE_NUMBER ? lua_isstring(L, -1)
                            : lua_type(L, -1) == LUA_TSTRING)) {
      luaL_where(L, 1);                        /* where the caller is */
      lua_insert(L, -2);
      lua_concat(L, 2);
    }
    return lua_error(L);
  }
  return r;
}

/* A new coroutine may be made where a collected one was, whose stack the
** FFI probe's map (stacks by thread address, stacks.c) holds until that
** stack is swept (stacks.c): a probe of the new coroutine then
** went on with the dead one's frames.  The map forgets the address as the
** thread is made (LuaJIT: the FFI probe's; coroutine.create and wrap). */
static void forget_address(lua_State *L, lua_State *co) {
#if LI_IS_LUAJIT
  li_prof *P = prof_of(L);
  if (P != NULL) li_tmap_forget(P, co);
#else
  (void)L; (void)co;
#endif
}

#if LI_IS_LUAJIT
/* coroutine.create as LuaJIT's (any function), forgetting the address. */
static int li_create(lua_State *L) {
  lua_State *co;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  co = lua_newthread(L);
  forget_address(L, co);
  lua_pushvalue(L, 1);
  lua_xmove(L, co, 1);
  return 1;
}
#endif

static int li_wrap(lua_State *L) {
  lua_State *co;
  if (LI_CO_LUA_FUNCTION)
    luaL_argcheck(L, lua_isfunction(L, 1) && !lua_iscfunction(L, 1), 1,
                  "Lua function expected");
  else
    luaL_checktype(L, 1, LUA_TFUNCTION);
  co = lua_newthread(L);
  forget_address(L, co);
  lua_pushvalue(L, 1);
  lua_xmove(L, co, 1);
  lua_pushcclosure(L, wrapped, 1);
  return 1;
}

/* Back from a yield: the coroutine runs again.  ctx is the profiler that
** li_yield found (the registry keeps its userdata until the state's last
** object is freed, so the pointer outlives any resume), or 0 where a
** context cannot hold a pointer (Lua 5.2: looked up again).  (Lua 5.1 has
** no continuations: the resume wakes the coroutine, resume_begin.) */
static int yield_done(lua_State *L, int status, lua_KContext ctx) {
  li_prof *P = (li_prof *)ctx;
  (void)status;
  if (P == NULL && lua_checkstack(L, 1)) P = prof_of(L);
  if (P != NULL && !P->closed) {
    li_stack *S;
    if (L != P->curL && P->curL != NULL && P->on)
      S = li_infer_switch(P, L);           /* Lua's own lua_resume */
    else
      S = li_stack_of(P, L);
    if (S != NULL && S->suspended) li_stack_wake(P, S, li_clock_ticks(&P->clock));
  }
  return lua_gettop(L);
}
LI_CONTINUATION(yield_done)

static int li_yield(lua_State *L) {
  uint64_t t_in = own_now();
  li_prof *P = prof_of(L);
  /* (LuaJIT's message, from the main thread too, names the caller's
  ** position; its lua_yield's would name none) */
  if (LI_CO_YIELD_WHERE && !lua_isyieldable(L)) {
    luaL_where(L, 1);
    lua_pushliteral(L, "attempt to yield across C-call boundary");
    lua_concat(L, 2);
    return lua_error(L);
  }
  if (P != NULL && lua_isyieldable(L)) {
    li_stack *S;
    t_in = P->on ? own_start(P, t_in) : 0;
    S = li_stack_of(P, L);
    if (S != NULL) {
      S->suspended = 1;
      S->susp_since = li_clock_ticks(&P->clock);
      S->susp_pre = P->pre_clock;
      /* (its own work so far: out of its frames and its resumers') */
      if (t_in != 0) li_stack_own(P, S, S->susp_since - t_in);
      if (P->on) li_trace(P, S, 'Y', 0, S->susp_since);
      if (S->waker != NULL) li_infer_end(P, S, S->susp_since);
    }
  }
  return li_yieldk(L, lua_gettop(L), LI_KCONTEXT_PTR(P), yield_done);
}

/* coroutine.status's view: 0 running, 1 dead, 2 suspended, 3 normal. */
static int co_state(lua_State *L, lua_State *co) {
  lua_Debug ar;
  if (L == co) return 0;
  switch (lua_status(co)) {
  case LUA_YIELD: return 2;
  case LUA_OK:
    if (lua_getstack(co, 0, &ar)) return 3;
    return lua_gettop(co) == 0 ? 1 : 2;
  default: return 1;
  }
}

static int li_close(lua_State *L) {
  lua_State *co = check_co(L);
  int st = co_state(L, co);
  li_prof *P;
  if (st != 1 && st != 2)
    return luaL_error(L, "cannot close a %s coroutine", co_names[st]);
  P = prof_of(L);
  if (P != NULL && P->on) {           /* its frames end where it stopped */
    li_stack *C = li_stack_of_thread(P, L, 1);
    if (C != NULL)
      li_stack_close(P, C, 0, C->suspended ? C->susp_since
                                           : li_clock_ticks(&P->clock), 0);
  }
  st = reset_thread(L, co, 1);
  if (st == LUA_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_xmove(co, L, 1);
  return 2;
}


/* ======================================================================
** The host's lua_resume and lua_pcall (luainstr_wrap.h)
** ====================================================================== */

/* Push thread T onto W's stack (its index), or 0 when either stack is
** full: T is pushed on itself and moved, so no slot of T changes. */
static int push_thread_on(lua_State *W, lua_State *T) {
  if (!lua_checkstack(W, 2) || !lua_checkstack(T, 1)) return 0;
  lua_pushthread(T);
  lua_xmove(T, W, 1);
  return lua_gettop(W);
}

/* Take back what push_thread_on pushed (the host's code may have used W's
** stack meanwhile, balanced: the slot is where it was). */
static void pop_thread_on(lua_State *W, int idx, lua_State *T) {
  if (idx > 0 && lua_gettop(W) >= idx && lua_tothread(W, idx) == T)
    lua_remove(W, idx);
}

/* The collecting profiler of the state of L, found through L's stack. */
static li_prof *host_prof(lua_State *L) {
  li_prof *P;
  if (!lua_checkstack(L, 1)) return NULL;
  P = prof_of(L);
  return P != NULL && P->on ? P : NULL;
}

/* Make the stacks of W (running) and of the thread at W's index 2, and
** make W's current: all that may allocate in a resume's bookkeeping. */
static int make_stacks(lua_State *W) {
  li_prof *P = lua_touserdata(W, 1);
  li_set_cur(P, NULL, NULL);
  li_stack_of(P, W);
  li_stack_of_thread(P, W, 2);
  return 0;
}

/* The host called us outside any protected call, and Lua raises an error
** when memory runs out: the stacks of W and of the thread at idx are made
** under lua_pcall first.  0 when they could not be (no bookkeeping then:
** the resume or call runs as Lua's own). */
static int host_stacks(li_prof *P, lua_State *W, int idx) {
  int top = lua_gettop(W), ok;
  if (!lua_checkstack(W, 3) || !li_pushcfunction_noerr(W, make_stacks)) return 0;
  lua_pushlightuserdata(W, P);
  lua_pushvalue(W, idx);
  ok = lua_pcall(W, 2, 0, 0) == LUA_OK;
  lua_settop(W, top);
  return ok;
}

/* T is about to run for the host on behalf of W (a resume of T, or a call
** on it): its bookkeeping begun as a resume's, T's thread object at the
** index returned on W's stack; 0 when it could not be (no room, no
** memory: T then runs as under Lua's own function). */
static int host_begin(resume_ctx *c, li_prof *P, lua_State *W, lua_State *T) {
  int idx = push_thread_on(W, T);
  if (idx == 0) return 0;
  if (!host_stacks(P, W, idx)) {
    pop_thread_on(W, idx, T);
    return 0;
  }
  resume_begin(c, P, W, T, idx, 0);
  return idx;
}

int li_host_resume(lua_State *co, lua_State *from, int narg, int *nres) {
  li_prof *P = host_prof(from != NULL ? from : co);
  lua_State *W;
  resume_ctx c;
  int idx, status;
  if (P == NULL) return lua_resume(co, from, narg, nres);
  /* the resumer: the thread the host names, or the one running now */
  W = from != NULL ? from : li_running_thread(P);
  if (W == co || (idx = host_begin(&c, P, W, co)) == 0)
    return lua_resume(co, from, narg, nres);   /* refused, or no room */
  status = lua_resume(co, from, narg, nres);
  li_jit_running_again(W);
  resume_end(&c, W, idx, died(co, status));
  pop_thread_on(W, idx, co);
  return status;
}

/* lua_pcall on L, with the frames an error unwound closed where it is
** caught; on a thread other than the running one, L's calls run as a
** resumed coroutine's would, under the running thread's top frame. */
int li_host_pcall(lua_State *L, int nargs, int nresults, int msgh) {
  li_prof *P = host_prof(L);
  lua_State *W = P != NULL ? li_running_thread(P) : NULL;
  li_stack *S;
  resume_ctx c = {NULL, NULL, 0, 0, 0};
  uint32_t depth = 0;
  int idx = 0, status;
  if (P == NULL) return lua_pcall(L, nargs, nresults, msgh);
  /* (the thread object goes to W's stack before L's calls are counted) */
  if (W != L) idx = host_begin(&c, P, W, L);
  /* L's stack: made above, or L is the main thread or the current one
  ** (li_running_thread), whose stacks are at hand */
  S = W == L || idx != 0 ? li_stack_of(P, L) : NULL;
  if (S != NULL) depth = S->n;
  status = lua_pcall(L, nargs, nresults, msgh);
  /* (S lives as long as L, which the host holds) */
  if (status != LUA_OK && S != NULL && P->on && !P->closed && S->n > depth)
    li_stack_close(P, S, depth, li_clock_ticks(&P->clock), 1);
  if (idx != 0) {
    resume_end(&c, W, idx, 0);
    pop_thread_on(W, idx, L);
  }
  return status;
}


/* ======================================================================
** Installing
** ====================================================================== */

/* Which functions are replaced, where the Lua has them: table (NULL =
** globals), name. */
static const struct {
  const char *table;      /* global holding it, or NULL for a global */
  const char *name;       /* field */
  lua_CFunction fn;       /* replacement (LuaJIT's pcall, xpcall: the Lua
                             functions of push_lua_pcalls) */
} replaced[] = {
  {NULL, "pcall", li_pcall},           /* ORDER: pcall, xpcall first */
  {NULL, "xpcall", li_xpcall},
  {"coroutine", "resume", li_resume},
  {"coroutine", "wrap", li_wrap},
  {"coroutine", "yield", li_yield},
  {"coroutine", "close", li_close},
#if LI_IS_LUAJIT
  {"coroutine", "create", li_create},
#endif
};

#define NREPLACED (sizeof replaced / sizeof replaced[0])

/* Push the table holding entry i (the globals or a library table from
** package.loaded, so a cleared global does not matter); 0 if absent. */
static int push_holder(lua_State *L, size_t i) {
  if (replaced[i].table == NULL) {
    lua_pushglobaltable(L);
    return 1;
  }
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, replaced[i].table);
  lua_remove(L, -2);
  if (lua_istable(L, -1)) return 1;
  lua_pop(L, 1);
  return 0;
}

void li_install_boundaries(lua_State *L) {
  int top = lua_gettop(L);
  luaL_checkstack(L, 12, "luainstr");
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &li_prof_key) == LUA_TNIL) {
    lua_settop(L, top);                /* no profiler */
    return;
  }
  lua_pop(L, 1);
  if (lua_getfield(L, LUA_REGISTRYINDEX, LI_REG_ORIGINALS) == LUA_TTABLE) {
    lua_settop(L, top);                /* already installed */
    return;
  }
  lua_pop(L, 1);
  lua_newtable(L);                     /* originals: "i" -> function */
  for (size_t i = 0; i < NREPLACED; i++) {
    if (!push_holder(L, i)) continue;
    lua_getfield(L, -1, replaced[i].name);
    lua_rawseti(L, -3, (lua_Integer)i + 1);
    lua_pop(L, 1);
  }
  /* LuaJIT's Lua pcall and xpcall at top + 2 and top + 3, around the
  ** originals (pcall and xpcall are entries 1 and 2); left as they are
  ** if either is not a function. */
  lua_pushnil(L);
  lua_pushnil(L);
#if LI_XPCALL_LUA
  lua_rawgeti(L, top + 1, 1);
  lua_rawgeti(L, top + 1, 2);
  if (lua_isfunction(L, -1) && lua_isfunction(L, -2)) {
    push_lua_pcalls(L, top + 4, top + 5);
    lua_replace(L, top + 3);
    lua_replace(L, top + 2);
  }
  lua_settop(L, top + 3);
#endif
  /* Kept before anything is replaced: an error (out of memory) up to here
  ** leaves every original in place, and replacing existing fields below
  ** allocates nothing. */
  lua_pushvalue(L, top + 1);
  lua_setfield(L, LUA_REGISTRYINDEX, LI_REG_ORIGINALS);
  for (size_t i = 0; i < NREPLACED; i++) {
    if (!push_holder(L, i)) continue;
    if (lua_getfield(L, -1, replaced[i].name) != LUA_TNIL) {
      /* (not added where absent) */
      if (!LI_XPCALL_LUA || i >= 2)
        lua_pushcfunction(L, replaced[i].fn);
      else
        lua_pushvalue(L, top + 2 + (int)i);
      if (!lua_isnil(L, -1)) lua_setfield(L, -3, replaced[i].name);
      else lua_pop(L, 1);
    }
    lua_pop(L, 2);
  }
  lua_settop(L, top);
}

void li_restore_boundaries(lua_State *L) {
  int top = lua_gettop(L);
  luaL_checkstack(L, 6, "luainstr");
  if (lua_getfield(L, LUA_REGISTRYINDEX, LI_REG_ORIGINALS) != LUA_TTABLE) {
    lua_settop(L, top);
    return;
  }
  for (size_t i = 0; i < NREPLACED; i++) {
    if (lua_rawgeti(L, top + 1, (lua_Integer)i + 1) == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    if (push_holder(L, i)) {
      lua_insert(L, -2);
      lua_setfield(L, -2, replaced[i].name);
    }
    lua_settop(L, top + 1);
  }
  lua_pushnil(L);
  lua_setfield(L, LUA_REGISTRYINDEX, LI_REG_ORIGINALS);
  lua_settop(L, top);
}
