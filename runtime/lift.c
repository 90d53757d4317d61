/*
** lift.c -- the loader's wrapper made the main function of its chunk
** (lift.h): the dump path, and the lift in memory with its check.
**
** In memory: running the wrapper once (`local __LI = ...; return
** function(...) <chunk> end`, no probe in it) makes the closure of the
** inner prototype the way lua_load makes a main function's: upvalue 1 is
** the wrapper's _ENV, which lua_load set to the globals (5.2 to 5.4; on
** 5.2 li_env_as_loaded sets it again, as after the dump path), the probe's
** upvalue is closed on nil (the loader sets it), the closure's environment
** is the globals (5.1).  No pointer of Lua's objects is written, so
** nothing of the collector's (barriers, ages) is involved: the prototype's
** integers are changed as li_bc_lift_main changes them in the dump
** (linedefined and lastlinedefined 0, 5.4's first line delta, 5.1's
** is_vararg).  A state with a hook (a debugger's, a coverage tool's) lifts
** by the dump path: the hook would see the wrapper run.  This file and direct.h are the runtime's readers of Lua's
** structures; the per-version lines are the few macros below.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include "luaver.h"
#include "bytecode.h"
#include "lift.h"
#include "rewrite.h"
#include "direct.h"

/* ---- the dump path ------------------------------------------------------ */

typedef struct dumpbuf { char *p; size_t n, cap; int oom; } dumpbuf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dumpbuf *b = ud;
  (void)L;
  if (b->n + sz > b->cap) {
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + sz) nc *= 2;
    char *np = realloc(b->p, nc);
    if (np == NULL) { b->oom = 1; return 1; }
    b->p = np; b->cap = nc;
  }
  memcpy(b->p + b->n, p, sz);
  b->n += sz;
  return 0;
}

/* Dumped, lifted (bytecode.h), loaded again as binary. */
static int lift_dump(lua_State *L, const char *name) {
  dumpbuf b = {0};
  char *out = NULL;
  size_t outlen = 0;
  int status;
  if (lua_dump(L, dump_writer, &b, 0) != 0 || b.oom) {
    free(b.p);
    lua_pop(L, 1);
    lua_pushliteral(L, "not enough memory");
    return LUA_ERRMEM;
  }
  lua_pop(L, 1);
  if (!li_bc_lift_main(b.p, b.n, &out, &outlen)) {
    free(b.p);                         /* before the push, which may raise */
    lua_pushliteral(L, "luainstr: unexpected binary chunk layout");
    return LUA_ERRRUN;
  }
  free(b.p);
  status = luaL_loadbufferx(L, out, outlen, name, "b");
  free(out);
  return status;
}

#if LI_HAVE_DIRECT
/* ---- in memory (Lua's headers: PUC 5.1 to 5.4) -------------------------- */

#include "ldebug.h"     /* ABSLINEINFO (5.4) */

#define LI_HAVE_LIFT 1

/* Per version: LI_L_PROTO(cl) the prototype of the Lua closure that
** lua_topointer gave; LI_L_VARARG_OK(f) f's is_vararg as the loader's form
** makes its inner function (5.1 `function()`: 0, or the compiler's
** VARARG_ISVARARG alone; later `function(...)`: 1). */
#if LUA_VERSION_NUM == 501
#define LI_L_PROTO(cl) (((const Closure *)(cl))->l.p)
#define LI_L_VARARG_OK(f) (((f)->is_vararg & ~VARARG_ISVARARG) == 0)
#else
#define LI_L_PROTO(cl) (((const LClosure *)(cl))->p)
#define LI_L_VARARG_OK(f) ((f)->is_vararg == 1)
#endif

/* The inner prototype of the wrapper on top of L, if it is of the shape
** li_bc_lift_main accepts (else NULL: the dump path then says so), with
** 5.4's new first line delta in *delta. */
static Proto *inner_proto(lua_State *L, int *delta) {
  const Proto *w;
  Proto *f;
  if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1)) return NULL;
  w = LI_L_PROTO(lua_topointer(L, -1));
  if (w->sizep < 1 || w->source == NULL) return NULL;
  f = w->p[0];
  if (f->sizecode == 0 || f->numparams != 0 || !LI_L_VARARG_OK(f)) return NULL;
  *delta = 0;
#if LUA_VERSION_NUM == 504
  /* lines are deltas from linedefined (ABSLINEINFO: see abslineinfo) */
  if (f->sizelineinfo == 0) return NULL;
  if (f->lineinfo[0] != ABSLINEINFO) {
    if (f->linedefined > 127) return NULL;
    *delta = f->lineinfo[0] + f->linedefined;
    if (*delta < -127 || *delta > 127) return NULL;
  }
#endif
  return f;
}

/* The inner prototype made a main function's, as li_bc_lift_main does. */
static void make_main(Proto *f, int delta) {
#if LUA_VERSION_NUM == 504
  if (f->lineinfo[0] != ABSLINEINFO) f->lineinfo[0] = (ls_byte)delta;
#else
  (void)delta;
#endif
#if LUA_VERSION_NUM == 501
  f->is_vararg = VARARG_ISVARARG;
#endif
  f->linedefined = 0;
  f->lastlinedefined = 0;
}

/* The lift in memory; -1 (nothing done) when the wrapper is not of the
** expected shape.  (L has no hook: li_lift.) */
static int lift_memory(lua_State *L) {
  int delta, status;
  Proto *f = inner_proto(L, &delta);
  if (f == NULL) return -1;
  status = lua_pcall(L, 0, 1, 0);
  if (status != LUA_OK) return status;
  if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1) ||
      LI_L_PROTO(lua_topointer(L, -1)) != f) {
    lua_pop(L, 1);                     /* (the wrapper is the compiler's) */
    lua_pushliteral(L, "luainstr: unexpected wrapper");
    return LUA_ERRRUN;
  }
  make_main(f, delta);
  return LUA_OK;
}

/* ---- the check ---------------------------------------------------------- */

/* A chunk with what the lift changes or keeps: lines, nested functions,
** upvalues, locals, constants (no `...` at its main level: 5.1 would keep
** the offline form). */
static const char check_chunk[] =
  "local n, s = 0, \"lift\"\n"
  "local function add(a, b)\n"
  "  local c = a + b\n"
  "  return function() return c, s end\n"
  "end\n"
  "for i = 1, 3 do n = n + i end\n"
  "local t = { add = add, [1] = n }\n"
  "return t.add(n, 2)\n";

/* What the check compares of one lifted function. */
typedef struct lifted {
  dumpbuf dump[2];      /* string.dump, not stripped and stripped */
  lua_Debug ar;         /* debug.getinfo ">Su" */
  char source[64];      /* ar.source, copied */
} lifted;

typedef struct check {
  li_rewrite_result r;  /* the chunk in the loader's form */
  lifted way[2];        /* LI_LIFT_DUMP, LI_LIFT_MEMORY */
  int same;             /* the result */
} check;

/* Compile the check chunk and lift it one way (0: failed). */
static int check_one(lua_State *L, check *c, int path, lifted *w) {
  const char *name = "=(luainstr lift check)";
  int status = luaL_loadbufferx(L, c->r.out, c->r.outlen, name, "t");
  if (status == LUA_OK)
    status = path == LI_LIFT_MEMORY ? lift_memory(L) : lift_dump(L, name);
  if (status != LUA_OK) return 0;
  for (int strip = 0; strip < 2; strip++) {
    if (lua_dump(L, dump_writer, &w->dump[strip], strip) != 0 ||
        w->dump[strip].oom)
      return 0;
  }
  if (!lua_getinfo(L, ">Su", &w->ar) || strlen(w->ar.source) >= sizeof w->source)
    return 0;
  memcpy(w->source, w->ar.source, strlen(w->ar.source) + 1);
  return 1;
}

static int same_dump(const dumpbuf *a, const dumpbuf *b) {
  return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/* Run with the check as argument 1 (the caller frees what it holds). */
static int check_f(lua_State *L) {
  check *c = lua_touserdata(L, 1);
  li_rewrite_opts o;
  const lua_Debug *a = &c->way[0].ar, *b = &c->way[1].ar;
  memset(&o, 0, sizeof o);
  o.version = LI_LUA_DIALECT;
  o.probe_upvalue = 1;
  if (li_rewrite(check_chunk, sizeof check_chunk - 1, &o, &c->r) != LI_OK ||
      !c->r.probe_upvalue || !check_one(L, c, LI_LIFT_DUMP, &c->way[0]) ||
      !check_one(L, c, LI_LIFT_MEMORY, &c->way[1]))
    return 0;
  c->same = same_dump(&c->way[0].dump[0], &c->way[1].dump[0]) &&
            same_dump(&c->way[0].dump[1], &c->way[1].dump[1]) &&
            strcmp(c->way[0].source, c->way[1].source) == 0 &&
            strcmp(a->short_src, b->short_src) == 0 &&
            strcmp(a->what, b->what) == 0 && strcmp(a->what, "main") == 0 &&
            a->linedefined == b->linedefined &&
            a->lastlinedefined == b->lastlinedefined && a->nups == b->nups
#if LUA_VERSION_NUM >= 502
            && a->nparams == b->nparams && a->isvararg == b->isvararg
#endif
            ;
  return 0;
}

/* 1 if the lift in memory gives what the dump path gives on L's library. */
static int check_memory(lua_State *L) {
  check c;
  int top = lua_gettop(L);
  memset(&c, 0, sizeof c);
  if (!li_d_release_ok() || !lua_checkstack(L, 4) ||
      !li_pushcfunction_noerr(L, check_f))
    return 0;
  lua_pushlightuserdata(L, &c);
  (void)lua_pcall(L, 1, 0, 0);
  lua_settop(L, top);
  li_rewrite_free(&c.r);
  for (int i = 0; i < 2; i++)
    for (int strip = 0; strip < 2; strip++) free(c.way[i].dump[strip].p);
  return c.same;
}

#else
#define LI_HAVE_LIFT 0
#endif

/* ---- which way, per state ----------------------------------------------- */

/* Registry key of the state's way, an integer of the bits below; nil
** before the check. */
static const char lift_key = 'L';
enum { WAY_MEMORY = 1,          /* lifts in memory */
       WAY_CHECKED = 2 };       /* the check passed (tests may force dump) */

/* Store the way (argument 1) in the registry. */
static int store_way(lua_State *L) {
  lua_rawsetp(L, LUA_REGISTRYINDEX, &lift_key);
  return 0;
}

/* Set L's way; 0 if it could not be stored (out of memory). */
static int set_way(lua_State *L, int way) {
  if (!lua_checkstack(L, 3) || !li_pushcfunction_noerr(L, store_way)) return 0;
  lua_pushinteger(L, way);
  return lua_pcall(L, 1, 0, 0) == LUA_OK ? 1 : (lua_pop(L, 1), 0);
}

/* L's way, -1 before the check. */
static int get_way(lua_State *L) {
  int way = -1;
  if (!lua_checkstack(L, 2)) return 0;
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lift_key) == LUA_TNUMBER)
    way = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return way;
}

/* The check's way (WAY_MEMORY | WAY_CHECKED, or 0); -1 when it cannot be
** made now (a hook would see it run). */
static int checked_way(lua_State *L) {
#if LI_HAVE_LIFT
  if (lua_gethook(L) != NULL) return -1;
  return check_memory(L) ? WAY_MEMORY | WAY_CHECKED : 0;
#else
  (void)L;
  return 0;
#endif
}

int li_lift_path(lua_State *L) {
  int way;
  const char *e;
  if (!LI_HAVE_LIFT) return LI_LIFT_DUMP;
  if ((way = get_way(L)) >= 0) return way & WAY_MEMORY ? LI_LIFT_MEMORY : LI_LIFT_DUMP;
  e = getenv("LUAINSTR_LIFT");
  way = e != NULL && strcmp(e, "dump") == 0 ? 0 : checked_way(L);
  if (way >= 0) (void)set_way(L, way);      /* (else checked again later) */
  return way > 0 && (way & WAY_MEMORY) ? LI_LIFT_MEMORY : LI_LIFT_DUMP;
}

int li_lift_force(lua_State *L, int path) {
  int way = get_way(L), c;
  if (way < 0) way = 0;
  if (path == LI_LIFT_MEMORY && !(way & WAY_CHECKED) && (c = checked_way(L)) > 0)
    way = c;
  if (path == LI_LIFT_MEMORY && (way & WAY_CHECKED)) way |= WAY_MEMORY;
  else way &= ~WAY_MEMORY;
  (void)set_way(L, way);
  return li_lift_path(L);
}

int li_lift(lua_State *L, const char *name) {
#if LI_HAVE_LIFT
  if (lua_gethook(L) == NULL && li_lift_path(L) == LI_LIFT_MEMORY) {
    int status = lift_memory(L);
    if (status >= 0) return status;
  }
#endif
  return lift_dump(L, name);
}
