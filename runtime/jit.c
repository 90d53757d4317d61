/*
** jit.c -- the FFI probe: LuaJIT with its JIT on (jit.h says what it is).
**
** Per state, once (the machinery, kept in the registry): an anonymous
** variable-length struct type laid out as li_chunk (a chunk's map), and a
** maker of a map and its probe, a Lua closure over it:
**   __LI(id)        li_jit_enter(map, id)
**   __LI()          li_jit_leave(map)
**   __LI(0, ...)    li_jit_leave(map), and the values after the 0
**   __LI(id, 1)     li_jit_count(map, id): a counted function's entry
** Inside a trace the two FFI calls compile to two native calls and
** nothing else.
**
** A closure, not the map itself with a __call metamethod (the first
** design): the same in a trace (fib 25..27 under callgrind, 89-95
** instructions a call against 97 with a no-op C pair), and interpreted
** (code the JIT does not compile, or jit.off()) a plain Lua call instead
** of the VM's metamethod dispatch: 2225 instructions a call against 2898.
**
** The entry points never call the Lua API: inside a trace the Lua stack is
** not written back, and a GC step or a stack push would see it stale.  They
** read the profiler's own structures and one field of LuaJIT's, the running
** thread (global_State.cur_L), which the VM sets on every resume, return
** from a resume, lua_call and lua_pcall, and after every lua_CFunction.
** A thread other than the last probe's is found by its address
** (li_stack_switch_c): the boundaries (coroutine.resume, wrap, yield, the
** host's luainstr_resume) make every coroutine's stack before it runs and
** keep the last probe's thread in step, so that happens only behind their
** back (a host's own lua_resume), and a coroutine never seen there is not
** counted until a boundary makes its stack (the report's unseen switches).
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "jit.h"

#if LI_HAVE_FFI_PROBE

#include "lj_obj.h"

/* The map the FFI probe points into is the cdata's payload: li_chunk's
** layout, as the machinery declares it. */
typedef char li_chunk_layout_ok[offsetof(li_chunk, n) == sizeof(void *) &&
                                offsetof(li_chunk, magic) == sizeof(void *) + 4 &&
                                offsetof(li_chunk, gid) == sizeof(void *) + 8 ? 1 : -1];

/* The thread that runs now, as LuaJIT's VM knows it. */
static LI_INLINE lua_State *running(const li_prof *P) {
  return gco2th(gcref(((const global_State *)P->jit_g)->cur_L));
}

/* ======================================================================
** The entry points, called through FFI function pointers
** ====================================================================== */

/* The stack of the running thread T for an event of the FFI probe: the
** last probe's, or one found without the Lua API (NULL: T has none yet,
** the event is not counted). */
static LI_INLINE li_stack *jit_stack(li_prof *P, lua_State *T) {
  return T == P->curL ? P->cur : li_stack_switch_c(P, T);
}

/* __LI(id) in any case: entry of function id of chunk map c. */
static LI_NOINLINE void enter_general(const li_chunk *c, int32_t id) {
  li_prof *P = c->P;
  li_stack *S;
  if (!P->on || (uint32_t)id - 1u >= c->n) return;
  if ((S = jit_stack(P, running(P))) != NULL) li_ffi_enter(P, S, c->gid[id - 1]);
}

/* __LI(id, 1): a call of counted function id of chunk map c (li_count),
** on the stack of the running thread. */
static void li_jit_count(const li_chunk *c, int32_t id) {
  li_prof *P;
  li_stack *S;
  if (LI_UNLIKELY(c->magic != LI_CHUNK_MAGIC)) return;
  P = c->P;
  if (!P->on || (uint32_t)id - 1u >= c->n) return;
  if ((S = jit_stack(P, running(P))) != NULL) li_count(P, S, c->gid[id - 1]);
}

/* __LI(), __LI(0, ...) in any case, t read: exit of the top function. */
static LI_NOINLINE void leave_general(const li_chunk *c, uint64_t t) {
  li_prof *P = c->P;
  li_stack *S;
  if (!P->on) return;
  if (!LI_CLOCK_INLINE(&P->clock)) t = li_clock_ticks(&P->clock);
  if ((S = jit_stack(P, running(P))) != NULL) li_ffi_leave(P, S, t);
}

/* __LI(id): entry of function id of chunk map c.  A fast path, as the C
** probe's probe_fast: collecting with the TSC and no trace, the thread of
** the last probe, a frame below with room above it, the call-tree node the
** one found last for its slot and touched in this frame; it makes no call
** that returns to it, so it saves no registers.  Anything else goes to
** enter_general before anything is changed; both share li_frame_open.
** Both entry points return nothing: a result would be a guard in the
** trace, and a snapshot for its exit (fib under callgrind: 76-82
** instructions a call in the trace with an int result tested, 38-47 with
** none; the snapshots also filled md5's biggest trace to "too many spill
** slots"). */
static void li_jit_enter(const li_chunk *c, int32_t id) {
  li_prof *P;
  li_stack *S;
  li_frame *top, *fr;
  uint32_t func, parent, node;
  if (LI_UNLIKELY(c->magic != LI_CHUNK_MAGIC)) return;
  P = c->P;
  if (LI_UNLIKELY(running(P) != P->fastL)) {
    enter_general(c, id);
    return;
  }
  S = P->cur;
  if (LI_UNLIKELY((uint32_t)id - 1u >= c->n || S->n == 0 || S->n == S->cap ||
                  S->ffi_lost != 0)) {
    enter_general(c, id);
    return;
  }
  top = &S->f[S->n - 1];
  func = c->gid[id - 1];
  parent = top->node;
  node = P->kids[li_kid_slot(parent, func)];
  if (LI_UNLIKELY(P->node[node].func != func || P->node[node].parent != parent ||
                  P->node[node].stamp != P->fstamp)) {
    enter_general(c, id);
    return;
  }
  fr = li_frame_open(P, S, top + 1, LI_FFI_CI, func, node);
  fr->start = li_clock_inline_ticks();
  li_gap_entry(P, fr);
}

/* __LI(), __LI(0, ...): exit of the top function frame; a fast path as the
** entry's (an FFI frame on top with one below it: the base call's exit may
** end an inferred resume). */
static void li_jit_leave(const li_chunk *c) {
  li_prof *P;
  li_stack *S;
  uint64_t t;
  if (LI_UNLIKELY(c->magic != LI_CHUNK_MAGIC)) return;
  P = c->P;
  t = li_clock_inline_ticks();
  if (LI_UNLIKELY(running(P) != P->fastL)) {
    leave_general(c, t);
    return;
  }
  S = P->cur;
  if (LI_UNLIKELY(S->n <= 1 || !li_is_ffi(&S->f[S->n - 1]) || S->ffi_lost != 0)) {
    leave_general(c, t);
    return;
  }
  P->exits++;
  li_gap_exit(P, t);
  li_frame_close(P, S, t, 0);
}

/* The ctype id of a cdata whose payload is at p (its header precedes it,
** for variable-length cdata as for any other). */
static uint16_t ctype_of(const void *p) {
  return ((const GCcdata *)p - 1)->ctypeid;
}

static const char machinery_key;    /* registry: the machinery, or false */

/* The machinery pushed (a table: the maker, jit.status, the map's ctype
** id), or 0 with nothing pushed when there is none (no ffi library). */
static int push_machinery(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &machinery_key) == LUA_TTABLE) return 1;
  lua_pop(L, 1);
  return 0;
}

/* Is the value at idx the map of an FFI probe: a cdata of the machinery's
** type holding LI_CHUNK_MAGIC? */
static int is_map(lua_State *L, int idx) {
  const li_chunk *c;
  lua_Integer ctid;
  /* (LUA_TCDATA: lua_type's number for a cdata, from lj_obj.h) */
  if (lua_type(L, idx) != LUA_TCDATA || !push_machinery(L)) return 0;
  lua_rawgeti(L, -1, 3);
  ctid = lua_tointeger(L, -1);
  lua_pop(L, 2);
  c = lua_topointer(L, idx);
  return c != NULL && ctype_of(c) == ctid && c->magic == LI_CHUNK_MAGIC;
}


/* ======================================================================
** The machinery: made once per state, the first time a chunk could get
** the FFI probe
** ====================================================================== */

/* The struct is li_chunk's layout, const so that Lua code cannot write it
** by accident (a struct cdata's fields are readable); anonymous types only:
** nothing named is added to the program's C namespace, and no declaration
** of the program's can clash.  The probe takes the protocol's three forms;
** a vararg function: the pass-through form returns what follows the 0
** (LuaJIT 2.1 compiles vararg functions).  No global is read.  The map is
** the probe's only upvalue that is a cdata (li_jit_is_probe). */
static const char machinery_src[] =
  "local ffi, enter, leave, count = ...\n"
  "local map_t = ffi.typeof('struct { void *const P; const uint32_t n, magic; "
  "const uint32_t gid[?]; }')\n"
  "enter = ffi.cast('void (*)(void *, int32_t)', enter)\n"
  "leave = ffi.cast('void (*)(void *)', leave)\n"
  "count = ffi.cast('void (*)(void *, int32_t)', count)\n"
  "local new = ffi.new\n"
  "return function(n)\n"
  "  local map = new(map_t, n)\n"
  "  return function(id, ...)\n"
  "    if id then\n"
  "      if id > 0 then\n"
  "        if ... then count(map, id) else enter(map, id) end\n"
  "        return\n"
  "      end\n"
  "      leave(map)\n"
  "      return ...\n"
  "    end\n"
  "    leave(map)\n"
  "  end, map\n"
  "end\n";

/* The ffi module pushed, loaded as require would load it (once: LuaJIT's
** luaopen_ffi makes a new C type state each time it runs, so it must never
** run twice); nil when there is none. */
static void push_ffi(lua_State *L) {
  int top = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");            /* top+1 */
  if (lua_istable(L, top + 1)) {
    lua_getfield(L, top + 1, "ffi");
    if (!lua_isnil(L, -1)) goto found;
    lua_pop(L, 1);
  }
  lua_getfield(L, LUA_REGISTRYINDEX, "_PRELOAD");
  if (lua_istable(L, -1)) lua_getfield(L, -1, "ffi");
  else lua_pushnil(L);
  if (!lua_isfunction(L, -1)) {
    lua_settop(L, top);
    lua_pushnil(L);
    return;
  }
  lua_pushliteral(L, "ffi");
  lua_call(L, 1, 1);
  if (lua_istable(L, top + 1) && !lua_isnil(L, -1)) {
    lua_pushvalue(L, -1);
    lua_setfield(L, top + 1, "ffi");                  /* as require does */
  }
found:
  lua_replace(L, top + 1);
  lua_settop(L, top + 1);
}

/* Make the machinery (under lua_pcall: its errors mean none): registry
** [&machinery_key] = {maker, jit.status, the map's ctype id}, or false. */
static int make_machinery(lua_State *L) {
  int t;
  lua_pushboolean(L, 0);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &machinery_key);    /* until it works */
  lua_createtable(L, 3, 0);
  t = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (!lua_istable(L, -1)) return 0;
  lua_getfield(L, -1, "jit");
  if (!lua_istable(L, -1)) return 0;
  lua_getfield(L, -1, "status");
  if (!lua_isfunction(L, -1)) return 0;
  lua_rawseti(L, t, 2);
  lua_settop(L, t);
  push_ffi(L);
  if (lua_isnil(L, -1)) return 0;
  if (luaL_loadbuffer(L, machinery_src, sizeof machinery_src - 1,
                      "=luainstr ffi probe") != LUA_OK)
    return lua_error(L);
  lua_insert(L, -2);
  lua_pushlightuserdata(L, (void *)(uintptr_t)li_jit_enter);
  lua_pushlightuserdata(L, (void *)(uintptr_t)li_jit_leave);
  lua_pushlightuserdata(L, (void *)(uintptr_t)li_jit_count);
  lua_call(L, 4, 1);
  lua_pushvalue(L, -1);
  lua_rawseti(L, t, 1);
  lua_pushinteger(L, 1);                    /* a map, for its ctype id */
  lua_call(L, 1, 2);
  lua_pushinteger(L, ctype_of(lua_topointer(L, -1)));
  lua_rawseti(L, t, 3);
  lua_settop(L, t);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &machinery_key);
  return 0;
}

/* The machinery pushed (made if it was never tried), or 0. */
static int machinery(lua_State *L) {
  int top = lua_gettop(L);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &machinery_key) == LUA_TTABLE) return 1;
  if (lua_isnil(L, -1)) {                   /* never tried */
    lua_pushcfunction(L, make_machinery);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
      /* (an error left no mark: false, unless there is no memory to) */
      lua_pushboolean(L, 0);
      lua_rawsetp(L, LUA_REGISTRYINDEX, &machinery_key);
    }
    lua_settop(L, top);
    return push_machinery(L);
  }
  lua_settop(L, top);
  return 0;
}

/* Is the JIT on (jit.status() of the machinery on top)? */
static int jit_on(lua_State *L) {
  int on;
  lua_rawgeti(L, -1, 2);
  lua_call(L, 0, 1);
  on = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return on;
}

li_chunk *li_jit_chunk_new(lua_State *L, li_prof *P, li_prof *owner, uint32_t n) {
  li_chunk *c;
  if (P->probe != LI_PROBE_FFI || P->jit_g == NULL || !machinery(L)) return NULL;
  if (!jit_on(L)) {
    lua_pop(L, 1);
    return NULL;
  }
  lua_rawgeti(L, -1, 1);
  lua_pushinteger(L, (lua_Integer)n);
  lua_call(L, 1, 2);                        /* probe, map */
  c = (li_chunk *)(uintptr_t)lua_topointer(L, -1);    /* zeroed */
  lua_pop(L, 1);
  lua_remove(L, -2);
  c->P = owner;
  c->n = n;
  c->magic = LI_CHUNK_MAGIC;
  return c;
}

li_stack *li_jit_running_stack(li_prof *P) {
  return P->jit_g != NULL ? jit_stack(P, running(P)) : NULL;
}

void li_jit_push_ffi(lua_State *L) {
  push_ffi(L);
}

void li_jit_running_again(lua_State *L) {
  setgcref(G(L)->cur_L, obj2gco(L));
}

int li_jit_is_probe(lua_State *L, int idx) {
  int top = lua_gettop(L), is = 0;
  const char *name;
  if (!lua_isfunction(L, idx) || lua_iscfunction(L, idx) || !lua_checkstack(L, 4))
    return 0;
  idx = lua_absindex(L, idx);
  for (int i = 1; !is && (name = lua_getupvalue(L, idx, i)) != NULL; i++)
    is = strcmp(name, "map") == 0 && is_map(L, lua_gettop(L));
  lua_settop(L, top);
  return is;
}


/* ======================================================================
** The check at attach: does G(L)->cur_L read as the running thread?
** ====================================================================== */

typedef struct jit_check {
  ptrdiff_t skew;       /* read this many GCRefs past cur_L (a test's fault) */
  int ok;               /* threads whose read agreed with the C API */
  const global_State *g;
} jit_check;

/* Run in a thread, by lua_pcall or lua_resume: argument 1 the check. */
static int check_here(lua_State *L) {
  jit_check *k = lua_touserdata(L, 1);
  const global_State *g = G(L);
  /* (compared as objects: gco2th on what a skewed read gives, NULL, is
  ** undefined behaviour, which UBSan stops at) */
  if (k != NULL && (k->g == NULL || k->g == g) &&
      gcref(*(&g->cur_L + k->skew)) == obj2gco(L)) {
    k->g = g;
    k->ok++;
  }
  return 0;
}

int li_jit_check(lua_State *L, li_prof *P, const char **why) {
  jit_check k;
  lua_State *co;
  const char *e = getenv("LUAINSTR_JIT_CHECK");
  int top = lua_gettop(L), nres;
  memset(&k, 0, sizeof k);
  k.skew = e != NULL && strcmp(e, "skew") == 0 ? 1 : 0;
  *why = "LuaJIT's running thread (global_State.cur_L) does not read as "
         "luainstr was built to read it";
  if (!lua_checkstack(L, 4)) return 0;
  /* from the thread that attaches: lua_pcall sets cur_L */
  lua_pushcfunction(L, check_here);
  lua_pushlightuserdata(L, &k);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK || k.ok != 1) goto done;
  /* from a coroutine: a resume sets it */
  co = lua_newthread(L);
  lua_pushcfunction(co, check_here);
  lua_pushlightuserdata(co, &k);
  if (li_lua_resume(co, L, 1, &nres) != LUA_OK || k.ok != 2) goto done;
  /* and back in L */
  lua_pushcfunction(L, check_here);
  lua_pushlightuserdata(L, &k);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK || k.ok != 3) goto done;
  P->jit_g = (void *)(uintptr_t)k.g;
  *why = NULL;
done:
  lua_settop(L, top);
  return P->jit_g != NULL;
}

#else

/* No FFI probe: a PUC Lua, or LuaJIT without its headers. */

int li_jit_check(lua_State *L, li_prof *P, const char **why) {
  (void)L;
  P->jit_g = NULL;
  *why = LI_IS_LUAJIT
    ? "luainstr was built without LuaJIT's headers (LUAINSTR_LUAJIT_INTERNALS)"
    : "this Lua is not LuaJIT";
  return 0;
}

li_chunk *li_jit_chunk_new(lua_State *L, li_prof *P, li_prof *owner, uint32_t n) {
  (void)L; (void)P; (void)owner; (void)n;
  return NULL;
}

int li_jit_is_probe(lua_State *L, int idx) {
  (void)L; (void)idx;
  return 0;
}

li_stack *li_jit_running_stack(li_prof *P) {
  (void)P;
  return NULL;
}

void li_jit_push_ffi(lua_State *L) {
  lua_pushnil(L);
}

void li_jit_running_again(lua_State *L) {
  (void)L;
}

#endif
