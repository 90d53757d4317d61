/*
** heapsize.c -- object sizes and prototypes for heap snapshots
** (heapsize.h), from each Lua's internals where the build has the headers
** of the release linked (LI_LUA_INTERNALS, as direct.h), estimates from
** the public API otherwise.
**
** An exact size is what the Lua library gave its allocator for the object
** and frees with it: the same expressions as its own free functions
** (lgc.c freeobj, luaH_free, luaF_freeproto, luaE_freethread; LuaJIT's
** lj_tab_free, lj_str_free, lj_func_free, lj_cdata_free, lj_state_free),
** one section a Lua below.  What belongs to no value is given to the main
** thread: the block that holds it with the global state (LG, LuaJIT's
** GG_State), the string table, 5.1's and 5.2's concatenation buffer,
** LuaJIT's temporary buffer, JIT buffers and traces and C type table.  So
** the sizes of every object of a state, its upvalue cells and prototypes
** add up to what its allocator holds (tests/heap/sizes checks each kind
** against a counting allocator, and the main thread against the blocks
** lua_close frees last).
**
** Nothing read is trusted before li_heap_exact has compared it with the C
** API's answers on objects the state already has: its allocator and memory
** count, the registry and a string key of it, the main thread's stack, and
** the first Lua function, C function, userdata and thread of the state's
** object list (their upvalue counts, prototype lines and source, memory
** and length, stack tops).  Each read below is either checked there or
** made of fields that are.
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "luaver.h"
#include "heapsize.h"

#if defined(LI_LUA_INTERNALS) && !LI_IS_LUAJIT
#include "direct.h"      /* lstate.h, li_d_release_ok */
#include "lfunc.h"
#include "lgc.h"
#include "lstring.h"
#include "ltable.h"
#define LI_HS_PUC 1
#define LI_HS_JIT 0
#elif defined(LI_LUA_INTERNALS) && LI_IS_LUAJIT
#include "lj_obj.h"
#include "lj_gc.h"
#include "lj_str.h"
#include "lj_buf.h"
#include "lj_dispatch.h"  /* GG_State, and jit_State (lj_jit.h) */
#if LJ_HASFFI
#include "lj_ctype.h"
#endif
#define LI_HS_PUC 0
#define LI_HS_JIT 1
#else
#define LI_HS_PUC 0
#define LI_HS_JIT 0
#endif

/* LuaJIT's lua_type of a cdata (lj_api.c; no name in lua.h) */
#define LI_HS_TCDATA 10

#if LI_HS_PUC || LI_HS_JIT
/* The edge name of a prototype's slot. */
static void slot_name(char *name, size_t namesz, const char *what, long n) {
  if (namesz == 0) return;
  if (n >= 0) snprintf(name, namesz, "(%s %ld)", what, n);
  else snprintf(name, namesz, "(%s)", what);
}
#endif

#if LI_HS_PUC
/* ======================================================================
** PUC Lua: the reads that differ from version to version, each under the
** same names (what the rest of the file is written with):
**   hs_index(L, idx, buf)  the TValue at a valid index (NULL: none)
**   hs_size(o)             the self size of the object o holds
**   hs_isLcl, hs_proto(o)  o is a Lua function; its Proto
**   hs_upval(o, n)         upvalue cell n of o's Lua function (NULL: none)
**   hs_thread(L1)          a thread's state, stack and CallInfos
**   hs_proto_*             a Proto's size, slots and children
** and for li_heap_exact: hs_total(g) (what lua_gc counts), hs_string
** (bytes, length), hs_gettop(L1), hs_stack_ok(L1), a table's slots
** (hs_asize, hs_isdummy, hs_arrayempty, hs_nodeempty, hs_nodeshrkey), the
** object list (hs_first, hs_next, hs_isdead, hs_kind, hs_gco2*, hs_ud*),
** hs_push and hs_pushstr (an object onto L's stack, as the API pushes).
** ====================================================================== */

/* Kinds of objects the check samples. */
enum { HS_OTHER, HS_TABLE, HS_LCL, HS_CCL, HS_UDATA, HS_THREAD };

#if LUA_VERSION_NUM == 504
/* Values on the stack are StackValues (s2v); strings short or long (each
** sized by its own length field); a table's array part is alimit slots or
** the next power of 2 above it (luaH_realasize, not exported); tables
** without a hash part share the dummy node (lastfree NULL); userdata carry
** nuvalue user values before their memory; CallInfos are a list; the
** thread's block has the extra space before it (LX, lstate.c). */
typedef struct LX { lu_byte extra_[LUA_EXTRASPACE]; lua_State l; } LX;
typedef struct LG { LX l; global_State g; } LG;

static const TValue *hs_index(lua_State *L, int idx, TValue *buf) {
  CallInfo *ci = L->ci;
  (void)buf;
  if (idx > 0) {
    StkId o = ci->func + idx;
    return o < L->top ? s2v(o) : NULL;
  }
  if (idx > LUA_REGISTRYINDEX) return s2v(L->top + idx);
  if (idx == LUA_REGISTRYINDEX) return &G(L)->l_registry;
  idx = LUA_REGISTRYINDEX - idx;
  if (!ttisCclosure(s2v(ci->func))) return NULL;
  return idx <= clCvalue(s2v(ci->func))->nupvalues
             ? &clCvalue(s2v(ci->func))->upvalue[idx - 1] : NULL;
}

static unsigned int hs_realasize(const Table *t) {
  unsigned int size = t->alimit;
  if (isrealasize(t) || ispow2(size)) return size;
  /* the smallest power of 2 not smaller than alimit (luaH_realasize) */
  size |= (size >> 1);
  size |= (size >> 2);
  size |= (size >> 4);
  size |= (size >> 8);
  size |= (size >> 16);
#if (UINT_MAX >> 30) > 3
  size |= (size >> 32);
#endif
  return size + 1;
}
#define hs_asize(t) hs_realasize(t)
#define hs_isdummy(t) isdummy(t)
#define hs_arrayempty(t, i) isempty(&(t)->array[i])
#define hs_nodeempty(n) isempty(gval(n))
#define hs_nodeshrkey(n) (keyisshrstr(n) ? keystrval(n) : NULL)

#define hs_isLcl(o) ttisLclosure(o)
#define hs_proto(o) (clLvalue(o)->p)

static size_t hs_thread(lua_State *L1);

static size_t hs_size(const TValue *o) {
  switch (ttypetag(o)) {
    case LUA_VSHRSTR: case LUA_VLNGSTR:
      return sizelstring(tsslen(tsvalue(o)));
    case LUA_VTABLE: {
      const Table *t = hvalue(o);
      return sizeof(Table) + (size_t)hs_realasize(t) * sizeof(TValue) +
             (isdummy(t) ? 0 : (size_t)sizenode(t) * sizeof(Node));
    }
    case LUA_VLCL: return (size_t)sizeLclosure(clLvalue(o)->nupvalues);
    case LUA_VCCL: return (size_t)sizeCclosure(clCvalue(o)->nupvalues);
    case LUA_VUSERDATA: return sizeudata(uvalue(o)->nuvalue, uvalue(o)->len);
    case LUA_VTHREAD: return hs_thread(thvalue(o));
    default: return 0;            /* (light C functions too) */
  }
}

static const void *hs_upval(const TValue *o, int n) {
  if (ttisLclosure(o))
    return n >= 1 && n <= clLvalue(o)->nupvalues ? clLvalue(o)->upvals[n - 1] : NULL;
  if (ttisCclosure(o))
    return n >= 1 && n <= clCvalue(o)->nupvalues ? &clCvalue(o)->upvalue[n - 1] : NULL;
  return NULL;
}

static size_t hs_cis(const lua_State *L1) {
  size_t n = 0;
  const CallInfo *ci;
  for (ci = L1->base_ci.next; ci != NULL; ci = ci->next) n++;
  return n * sizeof(CallInfo);
}

static size_t hs_thread(lua_State *L1) {
  global_State *g = G(L1);
  size_t size = L1 == g->mainthread
                    ? sizeof(LG) + (size_t)g->strt.size * sizeof(TString *)
                    : sizeof(LX);
  if (L1->stack != NULL)    /* (NULL while lua_newthread makes it) */
    size += (size_t)(stacksize(L1) + EXTRA_STACK) * sizeof(StackValue) + hs_cis(L1);
  return size;
}

static size_t hs_proto_size(const Proto *p) {
  return sizeof(Proto) + (size_t)p->sizecode * sizeof(Instruction) +
         (size_t)p->sizep * sizeof(Proto *) + (size_t)p->sizek * sizeof(TValue) +
         (size_t)p->sizelineinfo * sizeof(ls_byte) +
         (size_t)p->sizeabslineinfo * sizeof(AbsLineInfo) +
         (size_t)p->sizelocvars * sizeof(LocVar) +
         (size_t)p->sizeupvalues * sizeof(Upvaldesc);
}
#define hs_upvalname(p, i) ((p)->upvalues[i].name)

static lu_mem hs_total(global_State *g) { return gettotalbytes(g); }
#define hs_string(ts, lenp) (*(lenp) = tsslen(ts), getstr(ts))
#define hs_gettop(L1) ((L1)->top - ((L1)->ci->func + 1))
#define hs_topvalue(L) s2v((L)->top - 1)
#define hs_stack_ok(L1) \
  ((L1)->stack <= (L1)->top && (L1)->top <= (L1)->stack_last + EXTRA_STACK)
#define hs_first(g) ((g)->allgc)
#define hs_next(o) ((o)->next)
#define hs_isdead(g, o) isdead(g, o)
#define hs_push(L, o) do { setgcovalue(L, s2v((L)->top), o); (L)->top++; } while (0)
#define hs_pushstr(L, ts) do { setsvalue2s(L, (L)->top, ts); (L)->top++; } while (0)

static int hs_kind(GCObject *o) {
  switch (o->tt) {
    case LUA_VTABLE: return HS_TABLE;
    case LUA_VLCL: return HS_LCL;
    case LUA_VCCL: return HS_CCL;
    case LUA_VUSERDATA: return HS_UDATA;
    case LUA_VTHREAD: return HS_THREAD;
    default: return HS_OTHER;
  }
}
#define hs_gco2lcl(o) gco2lcl(o)
#define hs_gco2ccl(o) gco2ccl(o)
#define hs_gco2t(o) gco2t(o)
#define hs_gco2th(o) gco2th(o)
#define hs_udmem(o) ((void *)getudatamem(gco2u(o)))
#define hs_udlen(o) (gco2u(o)->len)
#define hs_udnuv(o) (gco2u(o)->nuvalue)
#define hs_udtype(o, n) ttype(&gco2u(o)->uv[(n) - 1].uv)

#elif LUA_VERSION_NUM == 503
/* The stack holds TValues; strings short or long; a table's array part is
** sizearray slots, the dummy node marked by lastfree NULL; a userdata has
** one user value in its header (UUdata); upvalue cells are not collected
** objects but counted references (UpVal, lfunc.h); CallInfos a list; the
** thread's block has the extra space before it (LX). */
typedef struct LX { lu_byte extra_[LUA_EXTRASPACE]; lua_State l; } LX;
typedef struct LG { LX l; global_State g; } LG;

static const TValue *hs_index(lua_State *L, int idx, TValue *buf) {
  CallInfo *ci = L->ci;
  (void)buf;
  if (idx > 0) {
    TValue *o = ci->func + idx;
    return o < L->top ? o : NULL;
  }
  if (idx > LUA_REGISTRYINDEX) return L->top + idx;
  if (idx == LUA_REGISTRYINDEX) return &G(L)->l_registry;
  idx = LUA_REGISTRYINDEX - idx;
  if (!ttisCclosure(ci->func)) return NULL;
  return idx <= clCvalue(ci->func)->nupvalues ? &clCvalue(ci->func)->upvalue[idx - 1]
                                              : NULL;
}

#define hs_asize(t) ((unsigned int)(t)->sizearray)
#define hs_isdummy(t) isdummy(t)
#define hs_arrayempty(t, i) ttisnil(&(t)->array[i])
#define hs_nodeempty(n) ttisnil(gval(n))
#define hs_nodeshrkey(n) (ttisshrstring(gkey(n)) ? tsvalue(gkey(n)) : NULL)

#define hs_isLcl(o) ttisLclosure(o)
#define hs_proto(o) (clLvalue(o)->p)

static size_t hs_thread(lua_State *L1);

static size_t hs_size(const TValue *o) {
  switch (ttype(o)) {
    case LUA_TSHRSTR: case LUA_TLNGSTR:
      return sizelstring(tsslen(tsvalue(o)));
    case LUA_TTABLE: {
      const Table *t = hvalue(o);
      return sizeof(Table) + (size_t)t->sizearray * sizeof(TValue) +
             (isdummy(t) ? 0 : (size_t)sizenode(t) * sizeof(Node));
    }
    case LUA_TLCL: return (size_t)sizeLclosure(clLvalue(o)->nupvalues);
    case LUA_TCCL: return (size_t)sizeCclosure(clCvalue(o)->nupvalues);
    case LUA_TUSERDATA: return sizeudata(uvalue(o));
    case LUA_TTHREAD: return hs_thread(thvalue(o));
    default: return 0;
  }
}

static const void *hs_upval(const TValue *o, int n) {
  if (ttisLclosure(o))
    return n >= 1 && n <= clLvalue(o)->nupvalues ? clLvalue(o)->upvals[n - 1] : NULL;
  if (ttisCclosure(o))
    return n >= 1 && n <= clCvalue(o)->nupvalues ? &clCvalue(o)->upvalue[n - 1] : NULL;
  return NULL;
}

static size_t hs_cis(const lua_State *L1) {
  size_t n = 0;
  const CallInfo *ci;
  for (ci = L1->base_ci.next; ci != NULL; ci = ci->next) n++;
  return n * sizeof(CallInfo);
}

static size_t hs_thread(lua_State *L1) {
  global_State *g = G(L1);
  size_t size = L1 == g->mainthread
                    ? sizeof(LG) + (size_t)g->strt.size * sizeof(TString *)
                    : sizeof(LX);
  if (L1->stack != NULL)
    size += (size_t)L1->stacksize * sizeof(TValue) + hs_cis(L1);
  return size;
}

static size_t hs_proto_size(const Proto *p) {
  return sizeof(Proto) + (size_t)p->sizecode * sizeof(Instruction) +
         (size_t)p->sizep * sizeof(Proto *) + (size_t)p->sizek * sizeof(TValue) +
         (size_t)p->sizelineinfo * sizeof(int) +
         (size_t)p->sizelocvars * sizeof(LocVar) +
         (size_t)p->sizeupvalues * sizeof(Upvaldesc);
}
#define hs_upvalname(p, i) ((p)->upvalues[i].name)

static lu_mem hs_total(global_State *g) { return gettotalbytes(g); }
#define hs_string(ts, lenp) (*(lenp) = tsslen(ts), getstr(ts))
#define hs_gettop(L1) ((L1)->top - ((L1)->ci->func + 1))
#define hs_stack_ok(L1) \
  ((L1)->stack_last == (L1)->stack + (L1)->stacksize - EXTRA_STACK && \
   (L1)->stack <= (L1)->top && (L1)->top <= (L1)->stack_last + EXTRA_STACK)
#define hs_first(g) ((g)->allgc)
#define hs_next(o) ((o)->next)
#define hs_isdead(g, o) isdead(g, o)
#define hs_push(L, o) do { setgcovalue(L, (L)->top, o); (L)->top++; } while (0)
#define hs_pushstr(L, ts) do { setsvalue2s(L, (L)->top, ts); (L)->top++; } while (0)

static int hs_kind(GCObject *o) {
  switch (o->tt) {
    case LUA_TTABLE: return HS_TABLE;
    case LUA_TLCL: return HS_LCL;
    case LUA_TCCL: return HS_CCL;
    case LUA_TUSERDATA: return HS_UDATA;
    case LUA_TTHREAD: return HS_THREAD;
    default: return HS_OTHER;
  }
}
#define hs_gco2lcl(o) gco2lcl(o)
#define hs_gco2ccl(o) gco2ccl(o)
#define hs_gco2t(o) gco2t(o)
#define hs_gco2th(o) gco2th(o)
#define hs_udmem(o) ((void *)getudatamem(gco2u(o)))
#define hs_udlen(o) (gco2u(o)->len)
#define hs_udnuv(o) 0

#elif LUA_VERSION_NUM == 502
/* The stack holds TValues; strings short or long, one header (union
** TString); tables without a hash part share the library's static dummy
** node (no mark: found by hs_dummy); a userdata's user value is a table
** pointer in its header; light C functions are no objects; CallInfos a
** list; no extra space unless LUAI_EXTRASPACE (LX, lstate.c). */
typedef struct LX {
#if defined(LUAI_EXTRASPACE)
  char buff[LUAI_EXTRASPACE];
#endif
  lua_State l;
} LX;
typedef struct LG { LX l; global_State g; } LG;

static const TValue *hs_index(lua_State *L, int idx, TValue *buf) {
  CallInfo *ci = L->ci;
  (void)buf;
  if (idx > 0) {
    TValue *o = ci->func + idx;
    return o < L->top ? o : NULL;
  }
  if (idx > LUA_REGISTRYINDEX) return L->top + idx;
  if (idx == LUA_REGISTRYINDEX) return &G(L)->l_registry;
  idx = LUA_REGISTRYINDEX - idx;
  if (!ttisCclosure(ci->func)) return NULL;
  return idx <= clCvalue(ci->func)->nupvalues ? &clCvalue(ci->func)->upvalue[idx - 1]
                                              : NULL;
}

#define hs_asize(t) ((unsigned int)(t)->sizearray)
static int hs_isdummy(const Table *t);
#define hs_arrayempty(t, i) ttisnil(&(t)->array[i])
#define hs_nodeempty(n) ttisnil(gval(n))
#define hs_nodeshrkey(n) (ttisshrstring(gkey(n)) ? rawtsvalue(gkey(n)) : NULL)

#define hs_isLcl(o) ttisLclosure(o)
#define hs_proto(o) (clLvalue(o)->p)

static size_t hs_thread(lua_State *L1);

static size_t hs_size(const TValue *o) {
  switch (ttype(o)) {
    case LUA_TSHRSTR: case LUA_TLNGSTR:
      return sizeof(union TString) + rawtsvalue(o)->tsv.len + 1;
    case LUA_TTABLE: {
      const Table *t = hvalue(o);
      return sizeof(Table) + (size_t)t->sizearray * sizeof(TValue) +
             (hs_isdummy(t) ? 0 : (size_t)sizenode(t) * sizeof(Node));
    }
    case LUA_TLCL: return (size_t)sizeLclosure(clLvalue(o)->nupvalues);
    case LUA_TCCL: return (size_t)sizeCclosure(clCvalue(o)->nupvalues);
    case LUA_TUSERDATA: return sizeof(union Udata) + rawuvalue(o)->uv.len;
    case LUA_TTHREAD: return hs_thread(thvalue(o));
    default: return 0;
  }
}

static const void *hs_upval(const TValue *o, int n) {
  if (ttisLclosure(o))
    return n >= 1 && n <= clLvalue(o)->nupvalues ? clLvalue(o)->upvals[n - 1] : NULL;
  if (ttisCclosure(o))
    return n >= 1 && n <= clCvalue(o)->nupvalues ? &clCvalue(o)->upvalue[n - 1] : NULL;
  return NULL;
}

static size_t hs_cis(const lua_State *L1) {
  size_t n = 0;
  const CallInfo *ci;
  for (ci = L1->base_ci.next; ci != NULL; ci = ci->next) n++;
  return n * sizeof(CallInfo);
}

static size_t hs_thread(lua_State *L1) {
  global_State *g = G(L1);
  size_t size = L1 == g->mainthread
                    ? sizeof(LG) + (size_t)g->strt.size * sizeof(TString *) +
                          g->buff.buffsize
                    : sizeof(LX);
  if (L1->stack != NULL)
    size += (size_t)L1->stacksize * sizeof(TValue) + hs_cis(L1);
  return size;
}

static size_t hs_proto_size(const Proto *p) {
  return sizeof(Proto) + (size_t)p->sizecode * sizeof(Instruction) +
         (size_t)p->sizep * sizeof(Proto *) + (size_t)p->sizek * sizeof(TValue) +
         (size_t)p->sizelineinfo * sizeof(int) +
         (size_t)p->sizelocvars * sizeof(LocVar) +
         (size_t)p->sizeupvalues * sizeof(Upvaldesc);
}
#define hs_upvalname(p, i) ((p)->upvalues[i].name)

static lu_mem hs_total(global_State *g) { return gettotalbytes(g); }
#define hs_string(ts, lenp) (*(lenp) = (ts)->tsv.len, getstr(ts))
#define hs_gettop(L1) ((L1)->top - ((L1)->ci->func + 1))
#define hs_stack_ok(L1) \
  ((L1)->stack_last == (L1)->stack + (L1)->stacksize - EXTRA_STACK && \
   (L1)->stack <= (L1)->top && (L1)->top <= (L1)->stack_last + EXTRA_STACK)
#define hs_first(g) ((g)->allgc)
#define hs_next(o) (gch(o)->next)
#define hs_isdead(g, o) isdead(g, o)
#define hs_push(L, o) do { setgcovalue(L, (L)->top, o); (L)->top++; } while (0)
#define hs_pushstr(L, ts) do { setsvalue2s(L, (L)->top, ts); (L)->top++; } while (0)

static int hs_kind(GCObject *o) {
  switch (gch(o)->tt) {
    case LUA_TTABLE: return HS_TABLE;
    case LUA_TLCL: return HS_LCL;
    case LUA_TCCL: return HS_CCL;
    case LUA_TUSERDATA: return HS_UDATA;
    case LUA_TTHREAD: return HS_THREAD;
    default: return HS_OTHER;
  }
}
#define hs_gco2lcl(o) gco2lcl(o)
#define hs_gco2ccl(o) gco2ccl(o)
#define hs_gco2t(o) gco2t(o)
#define hs_gco2th(o) gco2th(o)
#define hs_udmem(o) ((void *)(rawgco2u(o) + 1))
#define hs_udlen(o) (rawgco2u(o)->uv.len)
#define hs_udnuv(o) 0

#else  /* 5.1 */
/* The stack holds TValues, a C function's from L->base; one string kind; a
** closure is a union of the C and the Lua one (isC tells); tables without
** a hash part share the static dummy node (hs_dummy); userdata have an
** environment table in their header; upvalue cells are collected objects,
** and lua_upvalueid does not exist (UpVal pointers here); CallInfos an
** array; LUAI_EXTRASPACE before each thread (state_size, lstate.c). */
typedef struct LG { lua_State l; global_State g; } LG;

static const TValue *hs_index(lua_State *L, int idx, TValue *buf) {
  if (idx > 0) {
    TValue *o = L->base + (idx - 1);
    return o < L->top ? o : NULL;
  }
  if (idx > LUA_REGISTRYINDEX) return L->top + idx;
  switch (idx) {
    case LUA_REGISTRYINDEX: return registry(L);
    case LUA_GLOBALSINDEX: return gt(L);
    default: {
      Closure *func;
      if (L->ci == L->base_ci || !ttisfunction(L->ci->func)) return NULL;
      func = clvalue(L->ci->func);
      if (!func->c.isC) return NULL;
      if (idx == LUA_ENVIRONINDEX) {
        sethvalue(L, buf, func->c.env);
        return buf;
      }
      idx = LUA_GLOBALSINDEX - idx;
      return idx <= func->c.nupvalues ? &func->c.upvalue[idx - 1] : NULL;
    }
  }
}

#define hs_asize(t) ((unsigned int)(t)->sizearray)
static int hs_isdummy(const Table *t);
#define hs_arrayempty(t, i) ttisnil(&(t)->array[i])
#define hs_nodeempty(n) ttisnil(gval(n))
#define hs_nodeshrkey(n) (ttisstring(gkey(n)) ? rawtsvalue(gkey(n)) : NULL)

#define hs_isLcl(o) (ttisfunction(o) && !clvalue(o)->c.isC)
#define hs_proto(o) (clvalue(o)->l.p)

static size_t hs_thread(lua_State *L1);

static size_t hs_size(const TValue *o) {
  switch (ttype(o)) {
    case LUA_TSTRING: return sizeof(union TString) + rawtsvalue(o)->tsv.len + 1;
    case LUA_TTABLE: {
      const Table *t = hvalue(o);
      return sizeof(Table) + (size_t)t->sizearray * sizeof(TValue) +
             (hs_isdummy(t) ? 0 : (size_t)sizenode(t) * sizeof(Node));
    }
    case LUA_TFUNCTION: {
      const Closure *cl = clvalue(o);
      return (size_t)(cl->c.isC ? sizeCclosure(cl->c.nupvalues)
                                : sizeLclosure(cl->l.nupvalues));
    }
    case LUA_TUSERDATA: return sizeof(union Udata) + rawuvalue(o)->uv.len;
    case LUA_TTHREAD: return hs_thread(thvalue(o));
    default: return 0;
  }
}

static const void *hs_upval(const TValue *o, int n) {
  const Closure *cl;
  if (!ttisfunction(o)) return NULL;
  cl = clvalue(o);
  if (cl->c.isC)
    return n >= 1 && n <= cl->c.nupvalues ? &cl->c.upvalue[n - 1] : NULL;
  return n >= 1 && n <= cl->l.nupvalues ? cl->l.upvals[n - 1] : NULL;
}

static size_t hs_thread(lua_State *L1) {
  global_State *g = G(L1);
  size_t size = L1 == g->mainthread
                    ? sizeof(LG) + (size_t)g->strt.size * sizeof(TString *) +
                          g->buff.buffsize
                    : sizeof(lua_State);
  return size + LUAI_EXTRASPACE + (size_t)L1->stacksize * sizeof(TValue) +
         (size_t)L1->size_ci * sizeof(CallInfo);
}

static size_t hs_proto_size(const Proto *p) {
  return sizeof(Proto) + (size_t)p->sizecode * sizeof(Instruction) +
         (size_t)p->sizep * sizeof(Proto *) + (size_t)p->sizek * sizeof(TValue) +
         (size_t)p->sizelineinfo * sizeof(int) +
         (size_t)p->sizelocvars * sizeof(LocVar) +
         (size_t)p->sizeupvalues * sizeof(TString *);
}
#define hs_upvalname(p, i) ((p)->upvalues[i])

static lu_mem hs_total(global_State *g) { return g->totalbytes; }
#define hs_string(ts, lenp) (*(lenp) = (ts)->tsv.len, getstr(ts))
#define hs_gettop(L1) ((L1)->top - (L1)->base)
#define hs_stack_ok(L1) \
  ((L1)->stack_last == (L1)->stack + (L1)->stacksize - EXTRA_STACK - 1 && \
   (L1)->end_ci == (L1)->base_ci + (L1)->size_ci - 1 && \
   (L1)->stack <= (L1)->top && (L1)->top <= (L1)->stack_last + EXTRA_STACK + 1)
#define hs_first(g) ((g)->rootgc)
#define hs_next(o) ((o)->gch.next)
#define hs_isdead(g, o) isdead(g, o)
#define hs_push(L, o) \
  do { (L)->top->value.gc = (o); (L)->top->tt = (o)->gch.tt; (L)->top++; } while (0)
#define hs_pushstr(L, ts) do { setsvalue2s(L, (L)->top, ts); (L)->top++; } while (0)

static int hs_kind(GCObject *o) {
  switch (o->gch.tt) {
    case LUA_TTABLE: return HS_TABLE;
    case LUA_TFUNCTION: return gco2cl(o)->c.isC ? HS_CCL : HS_LCL;
    case LUA_TUSERDATA: return HS_UDATA;
    case LUA_TTHREAD: return HS_THREAD;
    default: return HS_OTHER;
  }
}
#define hs_gco2lcl(o) (&gco2cl(o)->l)
#define hs_gco2ccl(o) (&gco2cl(o)->c)
#define hs_gco2t(o) gco2h(o)
#define hs_gco2th(o) gco2th(o)
#define hs_udmem(o) ((void *)(rawgco2u(o) + 1))
#define hs_udlen(o) (rawgco2u(o)->uv.len)
#define hs_udnuv(o) 0
#endif

#if LUA_VERSION_NUM <= 502
/* The dummy node of 5.1 and 5.2 is a static of ltable.c, which the
** library does not export, and nothing in a table marks it.  A node no two
** tables share: the one node pointer two tables with one hash slot each
** have is the dummy (found once by li_heap_exact among the state's tables,
** the same for every state of the library).  Until it is found, a one-slot
** hash part whose slot was never used (nil key and value, no next) is
** taken for it, which misses only a table made with room for one hash
** entry that never got one.  (States of one library in several threads
** may each write it: the same address.) */
static const Node *hs_dummynode;

static int hs_neverused(const Node *n) {
  return ttisnil(gkey(n)) && ttisnil(gval(n)) && gnext(n) == NULL;
}

static int hs_isdummy(const Table *t) {
  if (t->lsizenode != 0) return 0;
  if (hs_dummynode != NULL) return t->node == hs_dummynode;
  return hs_neverused(t->node);
}
#endif

#ifndef hs_topvalue
#define hs_topvalue(L) ((L)->top - 1)
#endif
#ifndef rawtsvalue     /* (5.3 and 5.4 have one kind of string pointer) */
#define rawtsvalue(o) tsvalue(o)
#endif

static void hs_proto_info(const Proto *p, li_hproto *out) {
  out->size = hs_proto_size(p);
  out->source = p->source != NULL ? getstr(p->source) : "=?";
  out->line = p->linedefined;
  out->lastline = p->lastlinedefined;
  /* its constants, its source, its locals' and upvalues' names */
  out->nrefs = (uint32_t)p->sizek + 1 + (uint32_t)p->sizelocvars +
               (uint32_t)p->sizeupvalues;
  out->nprotos = (uint32_t)p->sizep;
}

static int hs_proto_push(lua_State *L, const Proto *p, uint32_t i, char *name,
                         size_t namesz) {
  TString *s = NULL;
  if (i < (uint32_t)p->sizek) {
    if (ttisstring(&p->k[i])) s = rawtsvalue(&p->k[i]);
    slot_name(name, namesz, "constant", (long)i);
  } else if ((i -= (uint32_t)p->sizek) == 0) {
    s = p->source;
    slot_name(name, namesz, "source", -1);
  } else if (--i < (uint32_t)p->sizelocvars) {
    s = p->locvars[i].varname;
    slot_name(name, namesz, "name", -1);
  } else if ((i -= (uint32_t)p->sizelocvars) < (uint32_t)p->sizeupvalues) {
    s = hs_upvalname(p, i);
    slot_name(name, namesz, "name", -1);
  }
  if (s == NULL) {
    if (namesz > 0) name[0] = '\0';
    return 0;
  }
  hs_pushstr(L, s);
  return 1;
}

static const void *hs_proto_child(const Proto *p, uint32_t i) {
  return i < (uint32_t)p->sizep ? p->p[i] : NULL;
}

#endif /* LI_HS_PUC */


#if LI_HS_JIT
/* ======================================================================
** LuaJIT 2.1: one block for a table and its array when the array is small
** (colocated: colo), the hash part apart, no hash part the global nilnode;
** strings rounded to 4 bytes; userdata with a string buffer own its
** buffer; cdata sized by their C type (variable-length ones by their own
** header); a prototype and every array it has in one block (sizept); no
** CallInfos (frames live in the stack).
** ====================================================================== */

static const TValue *hs_index(lua_State *L, int idx, TValue *buf) {
  GCfunc *fn;
  if (idx > 0) {
    TValue *o = L->base + (idx - 1);
    return o < L->top ? o : NULL;
  }
  if (idx > LUA_REGISTRYINDEX) return L->top + idx;
  if (idx == LUA_REGISTRYINDEX) return registry(L);
  if (idx == LUA_GLOBALSINDEX) {
    settabV(L, buf, tabref(L->env));
    return buf;
  }
  /* (the running C function's frame: none at the thread's base) */
  if (L->base - 1 - LJ_FR2 <= tvref(L->stack) || !tvisfunc(L->base - 1 - LJ_FR2))
    return NULL;
  fn = funcV(L->base - 1 - LJ_FR2);
  if (fn->c.gct != ~LJ_TFUNC || isluafunc(fn)) return NULL;
  if (idx == LUA_ENVIRONINDEX) {
    settabV(L, buf, tabref(fn->c.env));
    return buf;
  }
  idx = LUA_GLOBALSINDEX - idx;
  return idx <= fn->c.nupvalues ? &fn->c.upvalue[idx - 1] : NULL;
}

static size_t hs_table(const GCtab *t) {
  size_t size;
  if (LJ_MAX_COLOSIZE != 0 && t->colo)
    size = sizetabcolo((uint32_t)t->colo & 0x7f);
  else
    size = sizeof(GCtab);
  if (t->asize > 0 && (LJ_MAX_COLOSIZE == 0 || t->colo <= 0))
    size += (size_t)t->asize * sizeof(TValue);
  if (t->hmask > 0) size += ((size_t)t->hmask + 1) * sizeof(Node);
  return size;
}

static size_t hs_udata(const GCudata *ud) {
  size_t size = sizeudata(ud);
#if LJ_HASBUFFER
  if (ud->udtype == UDTYPE_BUFFER) {
    const SBufExt *sbx = (const SBufExt *)uddata(ud);
    if (!sbufiscoworborrow(sbx)) size += sbufsz(sbx);
  }
#endif
  return size;
}

#if LJ_HASFFI
static size_t hs_cdata(global_State *g, GCcdata *cd) {
  CTState *cts;
  CType *ct;
  if (cdataisv(cd)) return sizecdatav(cd);
  cts = ctype_ctsG(g);
  if (cts == NULL) return sizeof(GCcdata);
  ct = ctype_raw(cts, cd->ctypeid);
  return sizeof(GCcdata) + (ctype_hassize(ct->info) ? ct->size : CTSIZE_PTR);
}
#endif

/* What the VM allocated for itself, not for a value: the main thread's
** (close_state frees it with the state). */
static size_t hs_vm(global_State *g) {
  size_t size = sizeof(GG_State) + ((size_t)g->str.mask + 1) * sizeof(GCRef) +
                sbufsz(&g->tmpbuf);
#if LJ_64 && LJ_GC64
  if (mref(g->gc.lightudseg, uint32_t) != NULL)
    size += (g->gc.lightudnum ? (2u << lj_fls(g->gc.lightudnum)) : 2u) * sizeof(uint32_t);
#endif
#if LJ_HASJIT
  {
    jit_State *J = G2J(g);
    MSize i;
    size += (size_t)J->sizesnapmap * sizeof(SnapEntry) +
            (size_t)J->sizesnap * sizeof(SnapShot) +
            (size_t)(J->irtoplim - J->irbotlim) * sizeof(IRIns) +
            (size_t)J->sizetrace * sizeof(GCRef);
    for (i = 1; i < J->sizetrace; i++) {
      const GCtrace *T = (const GCtrace *)gcref(J->trace[i]);
      if (T != NULL)
        size += ((sizeof(GCtrace) + 7) & ~(size_t)7) +
                (size_t)(T->nins - T->nk) * sizeof(IRIns) +
                (size_t)T->nsnap * sizeof(SnapShot) +
                (size_t)T->nsnapmap * sizeof(SnapEntry);
    }
  }
#endif
#if LJ_HASFFI
  {
    const CTState *cts = ctype_ctsG(g);
    if (cts != NULL)
      size += sizeof(CTState) + (size_t)cts->sizetab * sizeof(CType) +
              (size_t)cts->cb.sizeid * sizeof(CTypeID1);
  }
#endif
  return size;
}

static size_t hs_thread(lua_State *L1) {
  global_State *g = G(L1);
  return (size_t)L1->stacksize * sizeof(TValue) +
         (L1 == mainthread(g) ? hs_vm(g) : sizeof(lua_State));
}

static size_t hs_size(lua_State *L, const TValue *o) {
  if (tvisstr(o)) return lj_str_size(strV(o)->len);
  if (tvistab(o)) return hs_table(tabV(o));
  if (tvisfunc(o)) {
    const GCfunc *fn = funcV(o);
    return isluafunc(fn) ? sizeLfunc((MSize)fn->l.nupvalues)
                         : sizeCfunc((MSize)fn->c.nupvalues);
  }
  if (tvisudata(o)) return hs_udata(udataV(o));
  if (tvisthread(o)) return hs_thread(threadV(o));
#if LJ_HASFFI
  if (tviscdata(o)) return hs_cdata(G(L), cdataV(o));
#endif
  (void)L;
  return 0;
}

static const void *hs_upval(const TValue *o, int n) {
  const GCfunc *fn;
  if (!tvisfunc(o)) return NULL;
  fn = funcV(o);
  if (n < 1 || n > fn->c.nupvalues) return NULL;
  return isluafunc(fn) ? (const void *)gcref(fn->l.uvptr[n - 1])
                       : (const void *)&fn->c.upvalue[n - 1];
}

/* A GCproto's collectable constants (kgc) are below its k pointer:
** strings, template tables, cdata (64-bit integer literals) and child
** prototypes, which are no values (li_heap_proto_child gives them). */
static GCobj *hs_kgc(const GCproto *pt, uint32_t i) {
  return gcref(mref(pt->k, GCRef)[-(ptrdiff_t)i - 1]);
}

static void hs_proto_info(const GCproto *pt, li_hproto *out) {
  uint32_t i, n = 0;
  for (i = 0; i < pt->sizekgc; i++)
    if (hs_kgc(pt, i)->gch.gct == ~LJ_TPROTO) n++;
  out->size = pt->sizept;
  out->source = proto_chunknamestr(pt);
  out->line = (int)pt->firstline;
  out->lastline = (int)(pt->firstline + pt->numline);
  /* its collectable constants, its source (its names are C strings in its
  ** own block: no objects) */
  out->nrefs = pt->sizekgc + 1;
  out->nprotos = n;
}

static int hs_proto_push(lua_State *L, const GCproto *pt, uint32_t i, char *name,
                         size_t namesz) {
  GCobj *o;
  if (i < pt->sizekgc) {
    o = hs_kgc(pt, i);
    if (o->gch.gct == ~LJ_TPROTO) {
      if (namesz > 0) name[0] = '\0';
      return 0;
    }
    slot_name(name, namesz, "constant", (long)i);
  } else if (i == pt->sizekgc) {
    o = obj2gco(proto_chunkname(pt));
    slot_name(name, namesz, "source", -1);
  } else {
    if (namesz > 0) name[0] = '\0';
    return 0;
  }
  setgcV(L, L->top, o, ~(uint32_t)o->gch.gct);
  L->top++;
  return 1;
}

static const void *hs_proto_child(const GCproto *pt, uint32_t i) {
  uint32_t k;
  for (k = 0; k < pt->sizekgc; k++) {
    GCobj *o = hs_kgc(pt, k);
    if (o->gch.gct == ~LJ_TPROTO && i-- == 0) return gco2pt(o);
  }
  return NULL;
}

#define hs_isLcl(o) (tvisfunc(o) && isluafunc(funcV(o)))
#define hs_proto(o) funcproto(funcV(o))
#endif /* LI_HS_JIT */


/* ======================================================================
** The check: li_heap_exact
** ====================================================================== */

#if LI_HS_PUC || LI_HS_JIT
/* Every object kind the check samples, at most this many objects of the
** state's list looked at (a big heap's first ones hold them all). */
#define HS_SCAN_MAX 100000
#endif

#if LI_HS_PUC
/* The registry: its non-empty slots (array and hash part) counted as
** lua_next counts them, and a short string key of it holding a table: the
** key's bytes and length, and the table, as the API gives them. */
static const char *hs_check_registry(lua_State *L) {
  const TValue *reg = &G(L)->l_registry;
  const Table *t;
  unsigned int i, asize, nsize, filled = 0, counted = 0;
  TString *key = NULL;
  const void *value = NULL;
  if (!ttistable(reg) || hvalue(reg) != lua_topointer(L, LUA_REGISTRYINDEX))
    return "the registry is not where Lua's headers say";
  t = hvalue(reg);
  asize = hs_asize(t);
  nsize = hs_isdummy(t) ? 0 : (unsigned int)sizenode(t);
  for (i = 0; i < asize; i++) filled += !hs_arrayempty(t, i);
  for (i = 0; i < nsize; i++) {
    const Node *n = gnode(t, i);
    if (hs_nodeempty(n)) continue;
    filled++;
    if (key == NULL && ttistable(gval(n)) && (key = hs_nodeshrkey(n)) != NULL)
      value = hvalue(gval(n));
  }
  lua_pushnil(L);
  while (lua_next(L, LUA_REGISTRYINDEX)) {
    lua_pop(L, 1);
    counted++;
  }
  if (counted != filled) return "the registry's slots do not read as Lua's headers say";
  if (key != NULL) {
    size_t len, ilen;
    const char *bytes, *ibytes = hs_string(key, &ilen);
    int same;
    hs_pushstr(L, key);
    bytes = lua_tolstring(L, -1, &len);
    same = bytes == ibytes && len == ilen;
    lua_rawget(L, LUA_REGISTRYINDEX);
    same = same && lua_topointer(L, -1) == value;
    lua_pop(L, 1);
    if (!same) return "a string does not read as Lua's headers say";
  }
  return NULL;
}

/* A thread: its stack fields consistent, its top as lua_gettop says. */
static int hs_check_thread(lua_State *L1) {
  return hs_stack_ok(L1) && hs_gettop(L1) == lua_gettop(L1) &&
         lua_status(L1) == L1->status;
}

/* The object o (not dead), pushed, as the API sees it. */
static const char *hs_check_object(lua_State *L, GCObject *o, int kind) {
  lua_Debug ar;
  int same = 1;
  hs_push(L, o);
  switch (kind) {
    case HS_LCL: {
      const Proto *p = hs_gco2lcl(o)->p;
      if (!lua_getinfo(L, ">Su", &ar)) return "lua_getinfo refused a Lua function";
      same = ar.nups == hs_gco2lcl(o)->nupvalues &&
             ar.linedefined == p->linedefined &&
             ar.lastlinedefined == p->lastlinedefined &&
             (p->source == NULL || ar.source == getstr(p->source));
#if LUA_VERSION_NUM >= 502
      same = same && ar.nparams == p->numparams && ar.isvararg == (p->is_vararg != 0);
#endif
      return same ? NULL : "a Lua function does not read as Lua's headers say";
    }
    case HS_CCL:
      same = lua_tocfunction(L, -1) == hs_gco2ccl(o)->f;
      if (!lua_getinfo(L, ">u", &ar)) return "lua_getinfo refused a C function";
      same = same && ar.nups == hs_gco2ccl(o)->nupvalues;
      return same ? NULL : "a C function does not read as Lua's headers say";
    case HS_UDATA:
      same = lua_touserdata(L, -1) == hs_udmem(o) && lua_rawlen(L, -1) == hs_udlen(o);
#if LUA_VERSION_NUM >= 504
      /* (lua_getiuservalue pushes nil past the last one) */
      same = same && lua_getiuservalue(L, -1, hs_udnuv(o) + 1) == LUA_TNONE;
      lua_pop(L, 1);
      if (same && hs_udnuv(o) > 0) {
        same = lua_getiuservalue(L, -1, hs_udnuv(o)) == hs_udtype(o, hs_udnuv(o));
        lua_pop(L, 1);
      }
#endif
      break;
    case HS_THREAD:
      same = lua_tothread(L, -1) == hs_gco2th(o) && hs_check_thread(hs_gco2th(o));
      break;
    case HS_TABLE:
      same = lua_topointer(L, -1) == (const void *)hs_gco2t(o);
      break;
  }
  lua_pop(L, 1);
  return same ? NULL : "an object does not read as Lua's headers say";
}

/* The first object of each kind in the state's object list (not dead: one
** the collector will not free), checked; on 5.1 and 5.2 the dummy node
** found on the way. */
static const char *hs_check_objects(lua_State *L) {
  global_State *g = G(L);
  GCObject *o, *seen[HS_THREAD + 1] = {NULL};
  long n = 0;
  int kind;
#if LUA_VERSION_NUM <= 502
  const Node *candidate = NULL;
#endif
  for (o = hs_first(g); o != NULL && n < HS_SCAN_MAX; o = hs_next(o), n++) {
    kind = hs_kind(o);
    if (kind == HS_OTHER || hs_isdead(g, o)) continue;
#if LUA_VERSION_NUM <= 502
    if (kind == HS_TABLE && hs_dummynode == NULL && hs_gco2t(o)->lsizenode == 0 &&
        hs_neverused(hs_gco2t(o)->node)) {
      if (candidate == NULL) candidate = hs_gco2t(o)->node;
      else if (candidate == hs_gco2t(o)->node) hs_dummynode = candidate;
    }
#endif
    if (kind == HS_THREAD && hs_gco2th(o) == L) continue;
    if (seen[kind] == NULL) seen[kind] = o;
  }
  for (kind = HS_TABLE; kind <= HS_THREAD; kind++) {
    const char *why;
    if (seen[kind] != NULL && (why = hs_check_object(L, seen[kind], kind)) != NULL)
      return why;
  }
  return NULL;
}

static const char *hs_check(lua_State *L) {
  global_State *g = G(L);
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  int kb;
  const char *why;
  if (!li_d_release_ok())
    return "the Lua library is not the release whose headers were built in";
  kb = lua_gc(L, LUA_GCCOUNT, 0);
  if (g == NULL || g->frealloc != f || g->ud != ud ||
      (kb >= 0 && ((size_t)kb != (size_t)(hs_total(g) >> 10) ||
                   (size_t)lua_gc(L, LUA_GCCOUNTB, 0) != (size_t)(hs_total(g) & 0x3ff))))
    return "Lua's global state does not read as its headers say";
  if (g->mainthread == NULL || G(g->mainthread) != g)
    return "the main thread is not where Lua's headers say";
  lua_pushthread(L);
  if (!ttisthread(hs_topvalue(L)) || thvalue(hs_topvalue(L)) != L ||
      lua_tothread(L, -1) != L) {
    lua_pop(L, 1);
    return "a thread on the stack does not read as Lua's headers say";
  }
  lua_pop(L, 1);
  if (!hs_check_thread(L)) return "the thread's stack does not read as Lua's headers say";
  if ((why = hs_check_registry(L)) != NULL) return why;
  return hs_check_objects(L);
}
#endif /* LI_HS_PUC */

#if LI_HS_JIT
static const char *hs_check_registry(lua_State *L) {
  const TValue *reg = registry(L);
  const GCtab *t;
  uint32_t i, filled = 0, counted = 0;
  GCstr *key = NULL;
  const void *value = NULL;
  if (!tvistab(reg) || tabV(reg) != lua_topointer(L, LUA_REGISTRYINDEX))
    return "the registry is not where LuaJIT's headers say";
  t = tabV(reg);
  for (i = 0; i < t->asize; i++) filled += !tvisnil(tvref(t->array) + i);
  if (t->hmask > 0) {
    const Node *node = noderef(t->node);
    for (i = 0; i <= t->hmask; i++) {
      if (tvisnil(&node[i].val)) continue;
      filled++;
      if (key == NULL && tvisstr(&node[i].key) && tvistab(&node[i].val)) {
        key = strV(&node[i].key);
        value = tabV(&node[i].val);
      }
    }
  }
  lua_pushnil(L);
  while (lua_next(L, LUA_REGISTRYINDEX)) {
    lua_pop(L, 1);
    counted++;
  }
  if (counted != filled) return "the registry's slots do not read as LuaJIT's headers say";
  if (key != NULL) {
    size_t len;
    const char *bytes;
    int same;
    setstrV(L, L->top, key);
    L->top++;
    bytes = lua_tolstring(L, -1, &len);
    same = bytes == strdata(key) && len == key->len;
    lua_rawget(L, LUA_REGISTRYINDEX);
    same = same && lua_topointer(L, -1) == value;
    lua_pop(L, 1);
    if (!same) return "a string does not read as LuaJIT's headers say";
  }
  return NULL;
}

static int hs_check_thread(lua_State *L1) {
  const TValue *st = tvref(L1->stack);
  return tvref(L1->maxstack) == st + L1->stacksize - LJ_STACK_EXTRA - 1 &&
         st <= L1->base && L1->base <= L1->top && L1->top <= tvref(L1->maxstack) &&
         L1->top - L1->base == lua_gettop(L1) && lua_status(L1) == L1->status;
}

static const char *hs_check_object(lua_State *L, GCobj *o) {
  lua_Debug ar;
  int same = 1;
  setgcV(L, L->top, o, ~(uint32_t)o->gch.gct);
  L->top++;
  switch (o->gch.gct) {
    case ~LJ_TFUNC:
      if (isluafunc(&o->fn)) {
        const GCproto *pt = funcproto(&o->fn);
        if (!lua_getinfo(L, ">Su", &ar)) return "lua_getinfo refused a Lua function";
        same = ar.nups == o->fn.l.nupvalues && ar.linedefined == (int)pt->firstline &&
               ar.lastlinedefined == (int)(pt->firstline + pt->numline) &&
               ar.source == proto_chunknamestr(pt);
        return same ? NULL : "a Lua function does not read as LuaJIT's headers say";
      }
      if (!lua_getinfo(L, ">u", &ar)) return "lua_getinfo refused a C function";
      return ar.nups == o->fn.c.nupvalues
                 ? NULL : "a C function does not read as LuaJIT's headers say";
    case ~LJ_TUDATA:
      same = lua_touserdata(L, -1) == uddata(&o->ud) && lua_rawlen(L, -1) == o->ud.len;
      break;
    case ~LJ_TTHREAD:
      same = lua_tothread(L, -1) == &o->th && hs_check_thread(&o->th);
      break;
    case ~LJ_TTAB:
      same = lua_topointer(L, -1) == (const void *)&o->tab;
      break;
#if LJ_HASFFI
    case ~LJ_TCDATA:
      same = lua_topointer(L, -1) == cdataptr(&o->cd);
      break;
#endif
  }
  lua_pop(L, 1);
  return same ? NULL : "an object does not read as LuaJIT's headers say";
}

static const char *hs_check_objects(lua_State *L) {
  global_State *g = G(L);
  GCobj *o;
  GCobj *seen[6] = {NULL};
  long n = 0;
  int k;
  for (o = gcref(g->gc.root); o != NULL && n < HS_SCAN_MAX; o = gcnext(o), n++) {
    int kind;
    switch (o->gch.gct) {
      case ~LJ_TTAB: kind = 0; break;
      case ~LJ_TFUNC: kind = isluafunc(&o->fn) ? 1 : 2; break;
      case ~LJ_TUDATA: kind = 3; break;
      case ~LJ_TTHREAD: kind = &o->th == L ? -1 : 4; break;
      case ~LJ_TCDATA: kind = 5; break;
      default: kind = -1;
    }
    if (kind >= 0 && seen[kind] == NULL && !isdead(g, o)) seen[kind] = o;
  }
  for (k = 0; k < 6; k++) {
    const char *why;
    if (seen[k] != NULL && (why = hs_check_object(L, seen[k])) != NULL) return why;
  }
  return NULL;
}

static const char *hs_check(lua_State *L) {
  global_State *g = G(L);
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  const char *why;
  if (g == NULL || g->allocf != f || g->allocd != ud ||
      (size_t)lua_gc(L, LUA_GCCOUNT, 0) != (size_t)(g->gc.total >> 10) ||
      (size_t)lua_gc(L, LUA_GCCOUNTB, 0) != (size_t)(g->gc.total & 0x3ff))
    return "LuaJIT's global state does not read as its headers say";
  if (gcref(g->mainthref) == NULL || G(mainthread(g)) != g)
    return "the main thread is not where LuaJIT's headers say";
  lua_pushthread(L);
  if (!tvisthread(L->top - 1) || threadV(L->top - 1) != L ||
      lua_tothread(L, -1) != L) {
    lua_pop(L, 1);
    return "a thread on the stack does not read as LuaJIT's headers say";
  }
  lua_pop(L, 1);
  if (!hs_check_thread(L)) return "the thread's stack does not read as LuaJIT's headers say";
  if ((why = hs_check_registry(L)) != NULL) return why;
  return hs_check_objects(L);
}
#endif /* LI_HS_JIT */

int li_heap_exact(lua_State *L, const char **why) {
#if LI_HS_PUC || LI_HS_JIT
  /* (uses 2 stack slots: lua_next over the registry) */
  if (!lua_checkstack(L, 2)) {
    *why = "no stack space to check Lua's structures";
    return 0;
  }
  *why = hs_check(L);
  return *why == NULL;
#else
  (void)L;
  *why = "built without Lua's headers (LUAINSTR_LUA_INTERNALS): sizes are estimates";
  return 0;
#endif
}


/* ======================================================================
** Estimates from the public API (no internals, or the check failed): the
** structures' sizes as each Lua usually lays them out on this machine's
** pointer size.  A table's hash part and a function's upvalues are
** counted through the API when the stack has room.
** ====================================================================== */

#define HS_P sizeof(void *)
#if LI_IS_LUAJIT
#define HS_TV 8u                          /* (GC64 and 32-bit alike) */
#define HS_NODE (2 * HS_TV + HS_P)
#define HS_TABLE_HDR (4 * HS_P + 32)
#define HS_STR_HDR (HS_P == 8 ? 24u : 16u)
#define HS_LCL_HDR (5 * HS_P)
#define HS_CCL_HDR (5 * HS_P)
#define HS_UPVAL_CCL HS_TV
#define HS_UPVAL_LCL HS_P
#define HS_UDATA_HDR (5 * HS_P)
#define HS_STATE (14 * HS_P)
#define HS_CI 0u                          /* (frames are stack slots) */
#define HS_UPVAL_CELL (5 * HS_P)
#else
#define HS_TV 16u
#if LUA_VERSION_NUM >= 504
#define HS_NODE (HS_TV + 8)
#elif LUA_VERSION_NUM == 503
#define HS_NODE (2 * HS_TV)
#else
#define HS_NODE (2 * HS_TV + HS_P)
#endif
#define HS_TABLE_HDR (LUA_VERSION_NUM >= 503 ? 6 * HS_P + 8 : 7 * HS_P + 8)
#define HS_STR_HDR (2 * HS_P + 8)
#define HS_LCL_HDR (4 * HS_P)
#define HS_CCL_HDR (4 * HS_P)
#define HS_UPVAL_CCL HS_TV
#define HS_UPVAL_LCL HS_P
#define HS_UDATA_HDR (5 * HS_P)
#define HS_STATE (25 * HS_P)
#define HS_CI (8 * HS_P)
#define HS_UPVAL_CELL (5 * HS_P)
#endif

static size_t hs_pow2(size_t n) {
  size_t p = 1;
  if (n == 0) return 0;
  while (p < n) p <<= 1;
  return p;
}

static int hs_nups(lua_State *L, int idx) {
  lua_Debug ar;
  lua_pushvalue(L, idx);
  return lua_getinfo(L, ">u", &ar) ? (int)ar.nups : 0;
}

static size_t hs_estimate(lua_State *L, int idx) {
  int room = lua_checkstack(L, 2);
  idx = idx > LUA_REGISTRYINDEX && idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = (size_t)lua_rawlen(L, idx);
#if LI_IS_LUAJIT
      return HS_STR_HDR + ((len + 4) & ~(size_t)3);
#else
      return HS_STR_HDR + len + 1;
#endif
    }
    case LUA_TTABLE: {
      size_t border = (size_t)lua_rawlen(L, idx), all = 0;
      if (room) {
        lua_pushnil(L);
        while (lua_next(L, idx)) {
          lua_pop(L, 1);
          all++;
        }
      }
      return HS_TABLE_HDR + border * HS_TV +
             hs_pow2(all > border ? all - border : 0) * HS_NODE;
    }
    case LUA_TFUNCTION: {
      int nups = room ? hs_nups(L, idx) : 0;
      if (!lua_iscfunction(L, idx)) return HS_LCL_HDR + (size_t)nups * HS_UPVAL_LCL;
#if LUA_VERSION_NUM >= 502
      if (nups == 0) return 0;   /* a light C function: no object */
#endif
      return HS_CCL_HDR + (size_t)nups * HS_UPVAL_CCL;
    }
    case LUA_TUSERDATA: {
      size_t size = HS_UDATA_HDR + (size_t)lua_rawlen(L, idx);
#if LUA_VERSION_NUM >= 504
      int n;
      for (n = 1; room && lua_getiuservalue(L, idx, n) != LUA_TNONE; n++) {
        lua_pop(L, 1);
        size += HS_TV;
      }
      if (room) lua_pop(L, 1);
#endif
      return size;
    }
    case LUA_TTHREAD: {
      lua_State *L1 = lua_tothread(L, idx);
      lua_Debug ar;
      int levels = 0;
      while (lua_getstack(L1, levels, &ar)) levels++;
      /* the basic stack (2 * LUA_MINSTACK), what its top frame uses, and
      ** about 3 slots a frame below it */
      return HS_STATE +
             (size_t)(lua_gettop(L1) + 2 * LUA_MINSTACK + 5 + 3 * levels) * HS_TV +
             (size_t)levels * HS_CI;
    }
#if LI_IS_LUAJIT
    case LI_HS_TCDATA: return 2 * HS_P;    /* header and a pointer's payload */
#endif
    default: return 0;
  }
}


/* ======================================================================
** The interface
** ====================================================================== */

size_t li_heap_size(lua_State *L, int idx, int exact) {
#if LI_HS_PUC || LI_HS_JIT
  if (exact) {
    TValue buf;
    const TValue *o = hs_index(L, idx, &buf);
    if (o == NULL) return 0;
#if LI_HS_JIT
    return hs_size(L, o);
#else
    return hs_size(o);
#endif
  }
#else
  (void)exact;
#endif
  return hs_estimate(L, idx);
}

const void *li_heap_upvalue_id(lua_State *L, int idx, int n, int exact) {
#if LI_HS_PUC || LI_HS_JIT
  if (exact) {
    TValue buf;
    const TValue *o = hs_index(L, idx, &buf);
    return o != NULL ? hs_upval(o, n) : NULL;
  }
#else
  (void)exact;
#endif
#if LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT
  return lua_upvalueid(L, idx, n);
#else
  (void)L; (void)idx; (void)n;
  return NULL;
#endif
}

size_t li_heap_upvalue_size(int exact) {
#if LI_HS_PUC
  if (exact) return sizeof(UpVal);
#elif LI_HS_JIT
  if (exact) return sizeof(GCupval);
#else
  (void)exact;
#endif
  return HS_UPVAL_CELL;
}

const void *li_heap_proto(lua_State *L, int idx, int exact) {
#if LI_HS_PUC || LI_HS_JIT
  TValue buf;
  const TValue *o;
  if (!exact || (o = hs_index(L, idx, &buf)) == NULL || !hs_isLcl(o)) return NULL;
  return hs_proto(o);
#else
  (void)L; (void)idx; (void)exact;
  return NULL;
#endif
}

void li_heap_proto_info(const void *p, li_hproto *out) {
  memset(out, 0, sizeof *out);
#if LI_HS_PUC
  if (p != NULL) hs_proto_info((const Proto *)p, out);
#elif LI_HS_JIT
  if (p != NULL) hs_proto_info((const GCproto *)p, out);
#else
  (void)p;
#endif
}

int li_heap_proto_push(lua_State *L, const void *p, uint32_t i, char *name,
                       size_t namesz) {
#if LI_HS_PUC
  if (p != NULL) return hs_proto_push(L, (const Proto *)p, i, name, namesz);
#elif LI_HS_JIT
  if (p != NULL) return hs_proto_push(L, (const GCproto *)p, i, name, namesz);
#else
  (void)L; (void)p; (void)i;
#endif
  if (namesz > 0) name[0] = '\0';
  return 0;
}

const void *li_heap_proto_child(const void *p, uint32_t i) {
#if LI_HS_PUC
  if (p != NULL) return hs_proto_child((const Proto *)p, i);
#elif LI_HS_JIT
  if (p != NULL) return hs_proto_child((const GCproto *)p, i);
#else
  (void)i;
#endif
  (void)p;
  return NULL;
}
