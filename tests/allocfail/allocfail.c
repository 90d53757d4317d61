/*
** allocfail.c -- allocation failures through a whole profiled run.
**
** A host runs one representative profiled session step by step: open the
** libraries, luainstr_open, trace, frame and memory modes on (zones and
** a frame mark in the program), load a program through the
** instrumenting loader (functions, a coroutine of each kind, caught
** errors, a table-keyed function name, string.dump and load, load with a
** reader, require of a Lua file), run it with luainstr_pcall, resume a
** coroutine from C and call a function on a thread of its own through the
** host's routes (luainstr_resume, luainstr_pcall), dump it in
** four formats to files and through require("luainstr").dump(),
** luainstr_close, lua_close.  It repeats the session once for every
** allocation N the session makes, with allocation N failing, in two
** sweeps:
**   lua     N counts the growing calls of Lua's allocator (the one given to
**           lua_newstate; Lua assumes frees and shrinks never fail);
**   malloc  N counts malloc/calloc/realloc of the whole process (ours, and
**           libc's on our behalf: stdio, open_memstream), interposed here.
** From allocation N on, every allocation of that kind fails until the step
** returns (Lua retries a failed allocation after an emergency collection,
** so one lone failure would be absorbed).  Later steps get memory again,
** and a step that failed is tried once more: the state must still work.
** Every N, from 1 until a session that never reaches N.
**
** Checked for every N:
**   - no crash, and no error raised through the C API (Lua's panic);
**   - in the lua sweep, every failure is Lua's "not enough memory" (a
**     status LUA_ERRMEM or that message) or LUAINSTR_EMEM (LUAINSTR_EIO
**     for a report file);
**   - after the retries: the program's result is the one of a session
**     without failures, its functions are in the report (lua sweep), and
**     luainstr_close gives the host back every function luainstr_open
**     replaced;
**   - no leak: after lua_close no byte of Lua's allocator and no block of
**     malloc is outstanding (both allocators here count them), and no
**     temporary report file is left behind.
**
** One executable per Lua the runtime is built for, from this one source
** (tests/CMakeLists.txt: allocfail on 5.4, allocfail_lua51, _lua52,
** _lua53, _luajit), each linking that Lua's runtime: Lua's C API through
** the runtime's version layer (luaver.h: 5.4's names on older Luas), and
** in the program only what differs by version (LI_* below: 5.1's loadstring
** and package.loaders, 5.4's <close>).
**
** LuaJIT (2.1, Debian's) fails by itself where the sweep would make it
** fail, so there its lua sweep spares what LuaJIT cannot survive:
**   - the allocations of lua_newstate (allocations 2 to 7 failing crash it:
**     its error path meets a state not made yet);
**   - the trace compiler's, of both kinds, while it records, optimises
**     and assembles a trace (told by LuaJIT's VM state, lj_obj.h): a Lua
**     allocation failing as it stitches a trace around a C function's
**     call (recff_stitch) leaves the interpreter's stack broken, and the
**     program then calls garbage; a malloc failing in libgcc as LuaJIT
**     registers the unwind tables of new machine code
**     (__register_frame_info_bases) crashes there.  (Without LuaJIT's
**     headers the JIT is turned off instead.)  The interpreter runs under
**     the recorder's state too: its allocations while a trace is recorded
**     are spared with them;
**   - its FFI library's opening (the runtime requires "ffi"): the host
**     opens it before the sweep counts, since luaopen_ffi failing leaves
**     a C type state without its finalizer table, which lua_close reads
**     (a crash), and a second try leaks the first one;
** and it frees a closure whose upvalues ran out of memory as a closure
** with none (func_newL sets nupvalues only once they are made): Lua's
** allocator here keeps each block's size, so those frees are counted
** right, and shown, not failed.  What the profiler does under LuaJIT,
** every allocation of its own and of the program's, is swept as on the
** other Luas.
**
** Why interposition, not valgrind or LeakSanitizer: it checks every N in
** one ordinary process of the normal build (valgrind would make the sweep
** minutes long; LSan needs a separate build), and the same interposition is
** what makes malloc fail at N.  glibc supports replacing malloc; the
** replacements call glibc's own (__libc_malloc ...).
*/
#define _GNU_SOURCE              /* __libc_*, mkdtemp */
#include <dirent.h>
#include <errno.h>
#include <malloc.h>             /* memalign, valloc */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "luaver.h"          /* Lua 5.4's C API on 5.1 .. 5.3 */

#if LI_IS_LUAJIT && defined(LI_LUA_INTERNALS)
#include "lj_obj.h"          /* global_State's vmstate */
#endif

#define EXPORT __attribute__((visibility("default")))


/* ======================================================================
** The failing allocation
** ====================================================================== */

enum { KIND_NONE, KIND_LUA, KIND_MALLOC };

static struct {
  int kind;             /* which allocator counts and fails */
  unsigned long at;     /* the allocation that fails (0: none) */
  unsigned long n;      /* allocations of that kind counted so far */
  int state;            /* 0: before it; 1: failing; 2: the step is over */
  int paused;           /* the host's own checks: not counted, never fail */
  const char *step;     /* the step it failed in */
} fault;

static const char *current_step = "setup";

/* LuaJIT: the state of the session (NULL while lua_newstate runs), and
** whether its trace compiler runs now (see the head of this file). */
static lua_State *jit_L;

static int jit_compiling(void) {
#if LI_IS_LUAJIT && defined(LI_LUA_INTERNALS)
  int32_t st = jit_L != NULL ? G(jit_L)->vmstate : 0;
  return st == ~LJ_VMST_RECORD || st == ~LJ_VMST_OPT || st == ~LJ_VMST_ASM;
#else
  return 0;
#endif
}

static int fail_now(int kind) {
  if (fault.paused || fault.kind != kind) return 0;
  if (LI_IS_LUAJIT && (jit_compiling() || (kind == KIND_LUA && jit_L == NULL)))
    return 0;
  if (fault.state == 1) return 1;
  fault.n++;
  if (fault.state == 0 && fault.n == fault.at) {
    fault.state = 1;
    fault.step = current_step;
    return 1;
  }
  return 0;
}

/* The step that met the failure is over: memory comes back. */
static void end_step(void) {
  if (fault.state == 1) fault.state = 2;
}

/* ---- malloc, interposed ------------------------------------------------ */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static long heap_live;  /* blocks of malloc not freed yet */

EXPORT void *malloc(size_t n) {
  void *p;
  if (fail_now(KIND_MALLOC)) { errno = ENOMEM; return NULL; }
  p = __libc_malloc(n);
  if (p != NULL) heap_live++;
  return p;
}

EXPORT void *calloc(size_t n, size_t size) {
  void *p;
  if (fail_now(KIND_MALLOC)) { errno = ENOMEM; return NULL; }
  p = __libc_calloc(n, size);
  if (p != NULL) heap_live++;
  return p;
}

EXPORT void free(void *p) {
  if (p == NULL) return;
  heap_live--;
  __libc_free(p);
}

EXPORT void *realloc(void *p, size_t n) {
  void *np;
  if (p == NULL) return malloc(n);
  if (n == 0) { free(p); return NULL; }
  if (fail_now(KIND_MALLOC)) { errno = ENOMEM; return NULL; }
  np = __libc_realloc(p, n);
  return np;
}

/* The aligned ones, so that every block free() sees was counted. */
EXPORT void *memalign(size_t align, size_t n) {
  void *p;
  if (fail_now(KIND_MALLOC)) { errno = ENOMEM; return NULL; }
  p = __libc_memalign(align, n);
  if (p != NULL) heap_live++;
  return p;
}

EXPORT void *aligned_alloc(size_t align, size_t n) {
  return memalign(align, n);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n) {
  void *p = memalign(align, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

EXPORT void *valloc(size_t n) {
  return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

/* ---- Lua's allocator ----------------------------------------------------- */

static size_t lua_bytes;  /* bytes Lua holds */
static unsigned long size_wrong;  /* blocks Lua gave back with another size */

/* Each block carries its size in a header of 16 bytes (alignment kept),
** so that what Lua holds is counted right even when Lua names another
** size for a block than it has (LuaJIT, above): that is counted apart. */
#define HDR 16

static void *lua_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  char *np, *b = p != NULL ? (char *)p - HDR : NULL;
  size_t had = b != NULL ? *(size_t *)b : 0;
  (void)ud;
  if (p == NULL) osize = 0;               /* then osize is a type tag */
  if (p != NULL && osize != had) size_wrong++;
  if (nsize == 0) {
    if (p != NULL) { lua_bytes -= had; __libc_free(b); }
    return NULL;
  }
  if (nsize > osize && fail_now(KIND_LUA)) return NULL;
  np = __libc_realloc(b, nsize + HDR);
  if (np == NULL) return NULL;
  lua_bytes = lua_bytes - had + nsize;
  *(size_t *)np = nsize;
  return np + HDR;
}


/* ======================================================================
** Reporting problems
** ====================================================================== */

static const char *sweep_name = "baseline";
static unsigned long current_n;
static int problems;

/* Problems of one kind (sweep, step, message format): the first is
** printed, the others counted. */
static struct {
  const char *sweep, *step, *fmt;
  unsigned long count, first, last;
} kinds[64];
static int nkinds;

static void problem(const char *fmt, ...) {
  va_list ap;
  int was = fault.paused, k;
  fault.paused = 1;
  problems++;
  for (k = 0; k < nkinds; k++)
    if (kinds[k].sweep == sweep_name && kinds[k].step == current_step &&
        kinds[k].fmt == fmt) break;
  if (k < nkinds) {
    kinds[k].count++;
    kinds[k].last = current_n;
  } else {
    if (nkinds < 64) {
      kinds[nkinds].sweep = sweep_name;
      kinds[nkinds].step = current_step;
      kinds[nkinds].fmt = fmt;
      kinds[nkinds].count = 1;
      kinds[nkinds].first = kinds[nkinds].last = current_n;
      nkinds++;
    }
    fprintf(stderr, "allocfail: %s sweep, N=%lu (failing in %s), step %s: ",
            sweep_name, current_n, fault.state ? fault.step : "-", current_step);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
  }
  fault.paused = was;
}

static void problem_summary(void) {
  for (int k = 0; k < nkinds; k++)
    fprintf(stderr, "allocfail: %lu x (N=%lu..%lu) %s sweep, step %s: %s\n",
            kinds[k].count, kinds[k].first, kinds[k].last, kinds[k].sweep,
            kinds[k].step, kinds[k].fmt);
}

/* A crash names the N and the step it happened at. */
static void on_signal(int sig) {
  char buf[200];
  int n = snprintf(buf, sizeof buf, "allocfail: signal %d in the %s sweep, "
                   "N=%lu, step %s\n", sig, sweep_name, current_n, current_step);
  if (n > 0) (void)!write(2, buf, (size_t)n);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* An error raised through the C API with no protected call around it: a
** host would abort here.  Back to the sweep (the state is abandoned). */
static jmp_buf panic_jump;

static int on_panic(lua_State *L) {
  const char *msg = lua_tostring(L, -1);
  problem("unprotected error (a host would abort): %s", msg ? msg : "?");
  longjmp(panic_jump, 1);
  return 0;
}


/* ======================================================================
** The session
** ====================================================================== */

static const char module_src[] =
  "local M = {}\n"
  "function M.twice(x) return 2 * x end\n"
  "return M\n";

/* What the program says differently on each Lua: a chunk from a string
** (load takes strings from 5.2 on) and a binary one (a mode from 5.2 on);
** the zones (p.zone's value is closed by a <close> variable in 5.4, and
** by hand before). */
#if LUA_VERSION_NUM < 502
#define LI_LOADSTRING "loadstring"
#define LI_BINARY ""
#else
#define LI_LOADSTRING "load"
#define LI_BINARY ", 'b'"
#endif
/* Lua 5.1's require leaves its sentinel (a userdata) in package.loaded
** when loading fails, and the retry would say "loop or previous error";
** from 5.2 on it leaves nothing.  (LuaJIT's, a light userdata that its
** GC64 build shows Lua code as a number.) */
#if LI_IS_LUAJIT
#define LI_UNSENTINEL \
  "if type(package.loaded.allocmod) ~= 'table' then package.loaded.allocmod = nil end\n"
#elif LUA_VERSION_NUM < 502
#define LI_UNSENTINEL \
  "if type(package.loaded.allocmod) == 'userdata' then package.loaded.allocmod = nil end\n"
#else
#define LI_UNSENTINEL ""
#endif
#if LI_HAVE_CLOSE
#define LI_ZONES \
  "do local z <close> = p.zone('work'); p.zone_begin('inner'); p.zone_end() end\n"
#else
#define LI_ZONES \
  "do p.zone_begin('work'); p.zone_begin('inner'); p.zone_end(); p.zone_end() end\n"
#endif

static const char program[] =
  "local dir = ...\n"
  "package.path = dir .. '/?.lua'\n"
  LI_UNSENTINEL
  "local mod = require('allocmod')\n"
  "local M = {key = {}}\n"
  "local function fib(n)\n"
  "  if n < 2 then return n end\n"
  "  return fib(n - 1) + fib(n - 2)\n"
  "end\n"
  "M['key'] = function(x) return x * 3 end\n"
  "function M.sum(t)\n"
  "  local s = 0\n"
  "  for _, v in ipairs(t) do s = s + v end\n"
  "  return s\n"
  "end\n"
  "local gen = coroutine.wrap(function(a)\n"
  "  local s = a\n"
  "  for _ = 1, 3 do s = s + coroutine.yield(s) end\n"
  "  return s\n"
  "end)\n"
  "local co = coroutine.create(function(x)\n"
  "  local y = coroutine.yield(x + 1)\n"
  "  return y * 2\n"
  "end)\n"
  /* an error other than the one expected is a memory error: it goes on */
  "local ok, e = pcall(function() error('boom', 0) end)\n"
  "if ok or e ~= 'boom' then error(e, 0) end\n"
  "local ok2, e2 = pcall(function()\n"
  "  local t = setmetatable({}, {__index = function(_, k) error({k}) end})\n"
  "  return t.x\n"
  "end)\n"
  "if ok2 or type(e2) ~= 'table' then error(e2, 0) end\n"
  "local function square(x) return x * x end\n"
  "local sq2 = assert(" LI_LOADSTRING "(string.dump(square), '=dumped'" LI_BINARY "))\n"
  "local f3 = assert(" LI_LOADSTRING "('return ... + 1', '=chunk3'))\n"
  "local pieces, i = {'local a = ...\\n', 'return a * 5\\n'}, 0\n"
  "local f4 = assert(load(function() i = i + 1; return pieces[i] end, '=reader'))\n"
  "local p = require('luainstr')\n"
  LI_ZONES
  "p.frame()\n"
  "local r1, v1 = coroutine.resume(co, 1)\n"
  "if not r1 then error(v1, 0) end\n"
  "local r2, v2 = coroutine.resume(co, 10)\n"
  "if not r2 then error(v2, 0) end\n"
  "return fib(12) + M.key(2) + M.sum({1, 2, 3}) + gen(1) + gen(2)\n"
  "  + gen(3) + gen(4) + v1 + v2 + square(3) + sq2(4) + f3(1) + f4(2)\n"
  "  + mod.twice(5)\n";

/* Names the report of a session must show (lua sweep). */
static const char *const expected_names[] = {
  "fib", "M.sum", "twice", "anonymous", "zone work", NULL
};

static const char dump_lua[] = "return require('luainstr').dump('json')";

static const char *const formats[] = { "text", "json", "csv", "chrome", NULL };

static char dir[64];                    /* the session's files */
static lua_Number expected_result;

/* What luainstr_open replaces; the host must get it back at close (and
** where the Lua has none, loadstring after 5.2 or coroutine.close before
** 5.4, there must be none after). */
#define NREPLACED 10
typedef struct originals {
  lua_CFunction fn[NREPLACED];
} originals;

static const char *const replaced_names[NREPLACED] = {
  "pcall", "xpcall", "load", "loadfile", "dofile", "loadstring",
  "coroutine.resume", "coroutine.wrap", "coroutine.yield", "coroutine.close"
};

/* Reads the functions luainstr_open replaces (counting paused). */
static void read_originals(lua_State *L, originals *o) {
  int top = lua_gettop(L);
  fault.paused = 1;
  for (int i = 0; i < NREPLACED; i++) {
    const char *dot = strchr(replaced_names[i], '.');
    if (dot == NULL) {
      lua_getglobal(L, replaced_names[i]);
    } else {
      lua_getglobal(L, "coroutine");
      lua_getfield(L, -1, dot + 1);
    }
    o->fn[i] = lua_tocfunction(L, -1);
    lua_settop(L, top);
  }
  fault.paused = 0;
}

/* The searcher of Lua files, package.searchers[2] (package.loaders[2] in
** Lua 5.1: LI_SEARCHERS). */
static const void *lua_searcher(lua_State *L) {
  const void *p;
  fault.paused = 1;
  lua_getglobal(L, "package");
  lua_getfield(L, -1, LI_SEARCHERS);
  lua_rawgeti(L, -1, 2);
  p = lua_topointer(L, -1);
  lua_pop(L, 3);
  fault.paused = 0;
  return p;
}

/* Lua's message for a memory error.  Before 5.4, coroutine.wrap puts
** its caller's position before every string error, this one too
** ("allocprog:40: not enough memory"), as stock Lua does. */
static int is_memory_message(lua_State *L) {
  static const char mem[] = "not enough memory";
  const char *msg = lua_tostring(L, -1);
  size_t n;
  if (msg == NULL) return 0;
  if (strcmp(msg, mem) == 0) return 1;
  n = strlen(msg);
  return !LI_HAVE_CLOSE && n > sizeof mem + 1 &&
         strcmp(msg + n - (sizeof mem - 1), mem) == 0 &&
         strncmp(msg + n - (sizeof mem + 1), ": ", 2) == 0;
}

/* Is the error on top of L an acceptable failure?  In the lua sweep it is
** "not enough memory"; in the malloc sweep anything (libc's failures reach
** the program as stock Lua reports them: "cannot open", "not found"). */
static int acceptable_error(lua_State *L, int status) {
  if (fault.state == 0) return 0;        /* no failure happened yet */
  if (fault.kind == KIND_MALLOC) return 1;
  return (status == LUA_ERRMEM || status == LUA_ERRRUN) && is_memory_message(L);
}

static const char *top_message(lua_State *L) {
  const char *m = lua_tostring(L, -1);
  return m != NULL ? m : "(not a string)";
}

static int open_libs(lua_State *L) {
  luaL_openlibs(L);
#if LI_IS_LUAJIT
  {  /* (the head of this file: luaopen_ffi, spared) */
    int was = fault.paused;
    fault.paused = 1;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "ffi");
    lua_call(L, 1, 0);
    fault.paused = was;
  }
#endif
#if LI_IS_LUAJIT && !defined(LI_LUA_INTERNALS)
  /* (the trace compiler's allocations cannot be told apart: no JIT) */
  luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
#endif
  return 0;
}

/* One status code of the C API: OK, or a failure it may give now. */
static int api_ok(int code, lua_State *L, int io_allowed) {
  if (code == LUAINSTR_OK) return 1;
  if (fault.state != 0 && (code == LUAINSTR_EMEM ||
                           (io_allowed && code == LUAINSTR_EIO)))
    return 0;
  problem("status %d: %s", code, luainstr_errmsg(L));
  return 0;
}

/* Loads and runs the program; its result is left in *result.  0 on a
** failure (checked). */
static int load_and_run(lua_State *L, lua_Number *result) {
  int st;
  current_step = "luainstr_loadbufferx";
  st = luainstr_loadbufferx(L, program, sizeof program - 1, "=allocprog", "t");
  end_step();
  if (st != LUA_OK) {
    if (!acceptable_error(L, st)) problem("load: %d %s", st, top_message(L));
    lua_pop(L, 1);
    return 0;
  }
  current_step = "luainstr_pcall";
  fault.paused = 1;
  lua_pushstring(L, dir);
  fault.paused = 0;
  st = luainstr_pcall(L, 1, 1, 0);
  end_step();
  if (st != LUA_OK) {
    if (!acceptable_error(L, st)) problem("run: %d %s", st, top_message(L));
    lua_pop(L, 1);
    return 0;
  }
  *result = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return 1;
}

/* The host's side of coroutines (luainstr_wrap.h's routes): a chunk
** loaded with luainstr_loadstring run as a coroutine the host resumes from
** C inside a zone (luainstr_resume), and as a function it calls on a
** thread of its own (luainstr_pcall).  0 on a failure (checked). */
static int host_threads(lua_State *L) {
  static const char body[] =
    "local n = ... for i = 1, n do coroutine.yield(i) end return n";
  lua_State *co, *T;
  int st, nres = 0, top = lua_gettop(L), narg = 1;
  current_step = "luainstr_loadstring";
  st = luainstr_loadstring(L, body);
  end_step();
  if (st != LUA_OK) {
    if (!acceptable_error(L, st)) problem("loadstring: %d %s", st, top_message(L));
    lua_settop(L, top);
    return 0;
  }
  fault.paused = 1;                      /* the host's own allocations */
  co = lua_newthread(L);
  lua_pushvalue(L, -2);
  lua_xmove(L, co, 1);
  lua_pushinteger(co, 3);
  T = lua_newthread(L);
  lua_pushvalue(L, -3);
  lua_xmove(L, T, 1);
  lua_pushinteger(T, 0);
  fault.paused = 0;
  current_step = "luainstr_resume";
  if (!api_ok(luainstr_zone_begin(L, "resumes"), L, 0)) st = LUA_ERRMEM;
  else {
    do {
      st = luainstr_resume(co, L, narg, &nres);
      narg = 0;
      if (st == LUA_OK || st == LUA_YIELD) lua_pop(co, nres);
    } while (st == LUA_YIELD);
    if (st != LUA_OK && !acceptable_error(co, st))
      problem("resume: %d %s", st, top_message(co));
    luainstr_zone_end(L);
  }
  end_step();
  if (st == LUA_OK) {
    current_step = "luainstr_pcall on a thread";
    st = luainstr_pcall(T, 1, 0, 0);
    end_step();
    if (st != LUA_OK && !acceptable_error(T, st))
      problem("pcall on a thread: %d %s", st, top_message(T));
  }
  lua_settop(L, top);
  return st == LUA_OK;
}

/* The report through the Lua API, checked to hold every function. */
static int dump_from_lua(lua_State *L, int check_names) {
  int st;
  current_step = "require('luainstr').dump()";
  st = luaL_loadbufferx(L, dump_lua, sizeof dump_lua - 1, "=dump", "t");
  if (st == LUA_OK) st = lua_pcall(L, 0, 1, 0);
  end_step();
  if (st != LUA_OK) {
    if (!acceptable_error(L, st)) problem("%d %s", st, top_message(L));
    lua_pop(L, 1);
    return 0;
  }
  if (lua_type(L, -1) != LUA_TSTRING) {
    problem("dump() gave a %s", luaL_typename(L, -1));
  } else if (check_names) {
    const char *s = lua_tostring(L, -1);
    for (int i = 0; expected_names[i] != NULL; i++)
      if (strstr(s, expected_names[i]) == NULL)
        problem("the report lacks '%s'", expected_names[i]);
  }
  lua_pop(L, 1);
  return 1;
}

/* Every file in dir is one the session means to write. */
static void check_files(void) {
  DIR *d;
  struct dirent *e;
  char path[400];
  fault.paused = 1;
  d = opendir(dir);
  while (d != NULL && (e = readdir(d)) != NULL) {
    const char *n = e->d_name, *dot = strrchr(n, '.');
    int known = strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
                strcmp(n, "allocmod.lua") == 0;
    for (int i = 0; formats[i] != NULL && !known; i++)
      known = strncmp(n, "prof.", 5) == 0 && dot == n + 4 &&
              strcmp(dot + 1, formats[i]) == 0;
    if (!known) {
      problem("file '%s' left in the report folder", n);
      snprintf(path, sizeof path, "%s/%s", dir, n);
      unlink(path);
    }
  }
  if (d != NULL) closedir(d);
  fault.paused = 0;
}

/* Steps that may fail once, then must succeed. */
#define TWICE(call) ((call) || (call))

/* One session.  0: it was abandoned after an unprotected error. */
static int session(void) {
  lua_State *volatile L = NULL;
  originals before, after;
  const void *searcher = NULL;
  lua_Number result = 0;
  int check_names = fault.kind == KIND_LUA;
  volatile int ran = 0;
  char path[128];
  if (setjmp(panic_jump) != 0) return 0;   /* abandoned: no leak check */
  current_step = "lua_newstate";
  jit_L = NULL;
  L = lua_newstate(lua_alloc, NULL);
  end_step();
  if (L == NULL) {
    if (fault.state == 0) problem("lua_newstate failed with memory");
    return 1;
  }
  jit_L = L;
  lua_atpanic(L, on_panic);
  current_step = "luaL_openlibs";
  for (int attempt = 0; attempt < 2; attempt++) {
    int st;
#if LUA_VERSION_NUM < 502
    /* (a C function is a closure in 5.1: it is made under protection) */
    st = lua_cpcall(L, open_libs, NULL);
#else
    lua_pushcfunction(L, open_libs);
    st = lua_pcall(L, 0, 0, 0);
#endif
    end_step();
    if (st == LUA_OK) break;
    if (!acceptable_error(L, st) || attempt == 1)
      problem("%d %s", st, top_message(L));
    lua_pop(L, 1);
  }
  read_originals(L, &before);
  searcher = lua_searcher(L);

  current_step = "luainstr_open";
  if (!TWICE((end_step(), api_ok(luainstr_open(L), L, 0))))
    problem("luainstr_open failed twice");
  end_step();
  current_step = "luainstr_set_option";
  if (!TWICE((end_step(), api_ok(luainstr_set_option(L, "trace", "10000"), L, 0))))
    problem("set_option failed twice");
  end_step();
  current_step = "frames on";
  if (!TWICE((end_step(), api_ok(luainstr_set_option(L, "frames", "100"), L, 0))))
    problem("set_option(frames) failed twice");
  end_step();
  current_step = "memory on";
  if (!TWICE((end_step(), api_ok(luainstr_set_option(L, "memory", "on"), L, 0))))
    problem("set_option(memory) failed twice");
  end_step();

  if (TWICE((end_step(), load_and_run(L, &result)))) {
    ran = 1;
    if (fault.kind == KIND_NONE) expected_result = result;
    else if (result != expected_result)
      problem("the program gave %.17g, not %.17g", result, expected_result);
  } else {
    problem("the program failed twice");
  }
  end_step();
  if (!TWICE((end_step(), host_threads(L))))
    problem("the host's coroutine failed twice");
  end_step();

  for (int i = 0; formats[i] != NULL; i++) {
    current_step = formats[i];
    snprintf(path, sizeof path, "%s/prof.%s", dir, formats[i]);
    if (!TWICE((end_step(), api_ok(luainstr_dump(L, formats[i], path), L, 1))))
      problem("luainstr_dump(%s) failed twice", formats[i]);
    end_step();
  }
  if (!TWICE((end_step(), dump_from_lua(L, check_names && ran))))
    problem("dump() failed twice");
  end_step();

  current_step = "luainstr_close";
  if (!TWICE((end_step(), api_ok(luainstr_close(L), L, 0))))
    problem("luainstr_close failed twice");
  end_step();
  read_originals(L, &after);
  for (int i = 0; i < NREPLACED; i++)
    if (before.fn[i] != after.fn[i])
      problem("%s is not the original after luainstr_close", replaced_names[i]);
  if (lua_searcher(L) != searcher)
    problem("package.%s[2] is not the original after luainstr_close", LI_SEARCHERS);
  if (lua_getallocf(L, NULL) != lua_alloc)
    problem("the allocator is not the original after luainstr_close");

  current_step = "lua_close";
  lua_close(L);
  jit_L = NULL;
  end_step();
  return 1;
}

/* The first session: what libc and the dynamic linker do once in a
** process happens there (stdio's buffers made; the first dladdr/dlopen,
** Lua 5.1's li_keep_module_loaded, frees two blocks under ASan), so its
** count of malloc's blocks is not checked. */
static int warming_up;

/* LuaJIT's closures freed as closures with no upvalues (the head of this
** file): shown at the end, not failed. */
static unsigned long size_wrong_luajit;

/* One session with allocation `at` of `kind` failing; checks leaks. */
static void run_one(int kind, unsigned long at) {
  long live0 = heap_live;
  fault.kind = kind;
  fault.at = at;
  fault.n = 0;
  fault.state = 0;
  fault.paused = 0;
  fault.step = NULL;
  current_n = at;
  if (!session()) {                     /* the state is abandoned */
    fault.paused = 0;
    lua_bytes = 0;
    return;
  }
  fault.paused = 1;
  current_step = "after lua_close";
  if (size_wrong > 0) {
    if (LI_IS_LUAJIT) size_wrong_luajit += size_wrong;
    else problem("%lu blocks given back with another size than they had", size_wrong);
    size_wrong = 0;
  }
  if (lua_bytes != 0) {
    problem("%zu bytes of Lua's allocator outstanding", lua_bytes);
    lua_bytes = 0;
  }
  if (heap_live != live0 && !warming_up) {
    problem("%ld blocks of malloc outstanding", heap_live - live0);
  }
  check_files();
  if (getenv("ALLOCFAIL_VERBOSE") != NULL)
    fprintf(stderr, "allocfail: %s N=%lu failing in %s\n", sweep_name, at,
            fault.state ? fault.step : "-");
  fault.paused = 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every N from `from` until a session that never reaches N. */
static void sweep(int kind, const char *name, unsigned long from,
                  unsigned long to) {
  unsigned long n;
  int before = problems;
  double t0 = now();
  sweep_name = name;
  for (n = from; n <= to; n++) {
    run_one(kind, n);
    if (fault.state == 0) break;        /* the session ended before N */
  }
  if (n > to) n = to;
  fprintf(stderr, "allocfail: %s sweep: N = %lu..%lu, every N, %d problems, "
          "%.1f s\n", name, from, n, problems - before, now() - t0);
}

static void write_module(void) {
  char path[128];
  FILE *f;
  snprintf(path, sizeof path, "%s/allocmod.lua", dir);
  f = fopen(path, "w");
  if (f == NULL || fputs(module_src, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(2);
  }
}

static void remove_dir(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/allocmod.lua", dir);
  unlink(path);
  for (int i = 0; formats[i] != NULL; i++) {
    snprintf(path, sizeof path, "%s/prof.%s", dir, formats[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* allocfail [lua|malloc [N [M]]]: both sweeps, or one from N (to M). */
int main(int argc, char **argv) {
  unsigned long from = 1, to = (unsigned long)-1;
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGABRT, on_signal);
  signal(SIGFPE, on_signal);
  strcpy(dir, "/tmp/li_allocfail_XXXXXX");
  if (mkdtemp(dir) == NULL) {
    perror("mkdtemp");
    return 2;
  }
  write_module();
  luainstr_install_loadbufferx_hook(luainstr_loadbufferx);
  /* sessions without failures: the expected result, and the process's
  ** one-time work done (warming_up) before anything is counted */
  warming_up = 1;
  run_one(KIND_NONE, 0);
  warming_up = 0;
  run_one(KIND_NONE, 0);
  if (problems > 0) {
    remove_dir();
    return 1;
  }
  if (argc > 2) from = strtoul(argv[2], NULL, 10);
  if (argc > 3) to = strtoul(argv[3], NULL, 10);
  if (argc < 2 || strcmp(argv[1], "lua") == 0)
    sweep(KIND_LUA, "lua", from, to);
  if (argc < 2 || strcmp(argv[1], "malloc") == 0)
    sweep(KIND_MALLOC, "malloc", from, to);
  remove_dir();
  if (size_wrong_luajit > 0)
    fprintf(stderr, "allocfail: LuaJIT gave back %lu blocks with another size "
            "than they had (closures whose upvalues ran out of memory)\n",
            size_wrong_luajit);
  if (problems > 0) {
    problem_summary();
    fprintf(stderr, "allocfail: %d problems\n", problems);
    return 1;
  }
  return 0;
}
