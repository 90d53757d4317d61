/*
** luaver.c -- the parts of the version layer (luaver.h) too big to be
** inline: which Lua the program runs with, and what Lua 5.1 and 5.2 lack
** and the runtime needs.
*/
#define _GNU_SOURCE      /* dladdr, RTLD_NODELETE */

#include <stdio.h>
#include <string.h>

#include "luaver.h"

#if (LI_UNLOADS_MODULES_EARLY || LI_OPENS_JIT_SIBLING) && !defined(__EMSCRIPTEN__)
#include <dlfcn.h>
#endif

#if LUA_VERSION_NUM < 503 && defined(LI_LUA_INTERNALS) && !LI_IS_LUAJIT
#include "lstate.h"
#endif
#if LI_IS_LUAJIT && defined(LI_LUA_INTERNALS)
#include "lj_obj.h"
#endif

/* ======================================================================
** Added for the runtime on every Lua (issue 19): which Lua this is
** ====================================================================== */

/* lua_ident's address, as the running program has it.  The C module's
** references to Lua are weak (CMakeLists.txt: a Lua that lacks a function
** the module uses still loads it), so the address may be NULL there,
** which the compiler, seeing a plain declaration, would assume it is not:
** read through a volatile. */
/* LuaJIT exports no lua_ident (nor, in Debian's build, the symbol named
** for its version, LUAJIT_VERSION_SYM): it is told apart by
** luaJIT_setmode, which every LuaJIT 2 exports (a weak reference in a
** module), and a LuaJIT build's release is the one of the headers it was
** compiled with.  A module of a Lua loaded by LuaJIT (which looks for C
** modules where Lua 5.1 does) tells it so too, and a LuaJIT module loaded
** by a Lua reads that Lua's lua_ident: both weak, NULL where absent. */
#if LI_IS_LUAJIT
#define LI_JIT_RELEASE LUAJIT_VERSION
#if defined(__GNUC__)
extern const char lua_ident[] __attribute__((weak));
#define LI_READS_IDENT 1
#endif
#else
#define LI_JIT_RELEASE "LuaJIT"
#define LI_READS_IDENT 1
#if LI_SEES_LUAJIT
extern int luaJIT_setmode(lua_State *L, int idx, int mode) __attribute__((weak));
#endif
#endif

static const char *lua_ident_of_program(void) {
#if LI_IS_LUAJIT || LI_SEES_LUAJIT
  int (*volatile jit)(lua_State *, int, int) = luaJIT_setmode;
  if (jit != NULL) return "$LuaJIT";
#endif
#if defined(LI_READS_IDENT)
  {
    const char *volatile id = lua_ident;
    return id;
  }
#else
  return NULL;
#endif
}

const char *li_lua_release(char *buf, size_t n) {
  const char *id = lua_ident_of_program(), *r;
  size_t k = 0;
  buf[0] = '\0';
  if (id != NULL && strcmp(id, "$LuaJIT") == 0) {    /* "LuaJIT 2.1.0-beta3" */
    snprintf(buf, n, "%s", LI_JIT_RELEASE);
    return buf;
  }
  /* "$LuaVersion: Lua 5.4.4  Copyright ...", 5.1's "$Lua: Lua 5.1.5 ..." */
  if (id == NULL || id[0] != '$' || (r = strstr(id, ": Lua ")) == NULL) return buf;
  r += 2;
  while (k + 1 < n && (k < 4 || (r[k] >= '0' && r[k] <= '9') || r[k] == '.')) {
    buf[k] = r[k];
    k++;
  }
  buf[k] = '\0';
  return buf;
}

#if LI_IS_LUAJIT
#define LI_LUA_TITLE "LuaJIT"
#else
#define LI_LUA_TITLE "Lua " LI_LUA_VERSION
#endif

int li_lua_matches(void) {
#if LI_IS_LUAJIT
  static const char want[] = "LuaJIT 2.";
#else
  static const char want[] = "Lua " LI_LUA_VERSION ".";
#endif
  char release[32];
  return strncmp(li_lua_release(release, sizeof release), want, sizeof want - 1) == 0;
}

#if LI_OPENS_JIT_SIBLING
/* The module of Lua 5.1 run by LuaJIT, which looks for C modules where
** Lua 5.1 does (lib/lua/5.1/luainstr.so is this one when both are
** installed): the LuaJIT module installed beside it (luainstr_jit.so,
** CMakeLists.txt) opens in its place.  Its luaopen_ function is the one
** of the module require asked for (its first argument: "luainstr",
** "luainstr.run").  It stays loaded (its report may be written from an
** atexit handler).  Calls only functions whose ABI LuaJIT shares with
** Lua 5.1.  Pushes nothing and returns -1 when there is none. */
static int open_jit_sibling(lua_State *L) {
  Dl_info self;
  char path[4096], sym[64];
  const char *name = lua_type(L, 1) == LUA_TSTRING ? (lua_tolstring)(L, 1, NULL) : NULL;
  const char *slash;
  void *h, *f;
  lua_CFunction open;
  size_t k;
  if (name == NULL || strncmp(name, "luainstr", 8) != 0 || strlen(name) > 40 ||
      !dladdr((void *)open_jit_sibling, &self) || self.dli_fname == NULL ||
      (slash = strrchr(self.dli_fname, '/')) == NULL ||
      (size_t)snprintf(path, sizeof path, "%.*s/luainstr_jit.so",
                       (int)(slash - self.dli_fname), self.dli_fname) >= sizeof path ||
      (h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) == NULL)
    return -1;
  snprintf(sym, sizeof sym, "luaopen_%s", name);
  for (k = 8; sym[k] != '\0'; k++)
    if (sym[k] == '.') sym[k] = '_';
  if ((f = dlsym(h, sym)) == NULL) return -1;
  memcpy(&open, &f, sizeof open);     /* (ISO C: no cast from void *) */
  return open(L);
}
#endif

int li_lua_refuse(lua_State *L) {
  char release[32], msg[256];
  const char *r = li_lua_release(release, sizeof release);
#if LI_OPENS_JIT_SIBLING
  if (strncmp(r, "LuaJIT", 6) == 0) {
    int n = open_jit_sibling(L);
    if (n >= 0) return n;
  }
#endif
  if (strlen(r) >= 8 && memcmp(r, "Lua 5.", 6) == 0 && r[6] >= '1' && r[6] <= '4' &&
      r[7] == '.')
    snprintf(msg, sizeof msg, "luainstr: this module is for " LI_LUA_TITLE ", not %s: "
             "use lib/lua/%.3s/luainstr.so", r, r + 4);
  else if (strncmp(r, "LuaJIT", 6) == 0)
    snprintf(msg, sizeof msg, "luainstr: this module is for " LI_LUA_TITLE ", not %s: "
             "use lib/lua/jit/luainstr.so%s", r,
             LI_OPENS_JIT_SIBLING ? " (installed: luainstr_jit.so beside this one)" : "");
  else
    snprintf(msg, sizeof msg, "luainstr: this module is for " LI_LUA_TITLE ", not %s",
             r[0] != '\0' ? r : "this Lua (it has no lua_ident)");
  /* (the functions themselves: luaver.h makes lua_pushstring a macro on
  ** 5.1) */
  (lua_pushstring)(L, msg);
  return (lua_error)(L);
}

#if LI_UNLOADS_MODULES_EARLY
/* The shared object holding this code stays mapped until the process
** ends (a no-op when it is linked into the program). */
void li_keep_module_loaded(void) {
#if !defined(__EMSCRIPTEN__)
  Dl_info info;
  if (dladdr((void *)li_keep_module_loaded, &info) && info.dli_fname != NULL)
    dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
}
#endif


#if LUA_VERSION_NUM < 503 && !LI_IS_LUAJIT
/* Whether a yield from the running C function would be accepted.  With
** Lua's structures, as lua_yield decides (5.1: no C call between it and
** the resume; 5.2: no non-yieldable call); without them, any coroutine
** (a yield that is then refused raises its error as it would anyway). */
int li_lua_isyieldable(lua_State *L) {
#if defined(LI_LUA_INTERNALS) && LUA_VERSION_NUM == 501
  return L != G(L)->mainthread && L->nCcalls <= L->baseCcalls;
#elif defined(LI_LUA_INTERNALS)
  return L->nny == 0;
#else
  int main = lua_pushthread(L);
  lua_pop(L, 1);
  return !main;
#endif
}
#endif

#if LUA_VERSION_NUM < 502

/* (under lua_cpcall: f's closure, made, goes to the registry) */
static int keep_cfunction(lua_State *L) {
  lua_CFunction f = *(lua_CFunction *)lua_touserdata(L, 1);
  lua_pushlightuserdata(L, (void *)f);
  lua_pushcfunction(L, f);
  lua_rawset(L, LUA_REGISTRYINDEX);
  return 0;
}

int li_pushcfunction_noerr(lua_State *L, lua_CFunction f) {
  lua_pushlightuserdata(L, (void *)f);
  if (lua_rawget(L, LUA_REGISTRYINDEX) == LUA_TFUNCTION) return 1;
  lua_pop(L, 1);
  if (lua_cpcall(L, keep_cfunction, &f) != 0) {
    lua_pop(L, 1);                      /* the message */
    return 0;
  }
  lua_pushlightuserdata(L, (void *)f);
  lua_rawget(L, LUA_REGISTRYINDEX);
  return 1;
}

lua_State *li_push_mainthread(lua_State *L) {
#if defined(LI_LUA_INTERNALS) && LI_IS_LUAJIT
  lua_State *M = mainthread(G(L));
  lua_pushthread(M);
  lua_xmove(M, L, 1);
  return M;
#elif defined(LI_LUA_INTERNALS)
  lua_State *M = G(L)->mainthread;
  lua_pushthread(M);
  lua_xmove(M, L, 1);
  return M;
#else
  if (lua_pushthread(L)) return L;
  lua_pop(L, 1);
  return NULL;
#endif
}

#if !LI_IS_LUAJIT         /* (LuaJIT has the rest: luaver.h) */
/* debug.traceback(msg, level + 1), as 5.1's lua.c makes its tracebacks
** (the extra level: the call of traceback adds one).  The message alone
** when the debug library is not there. */
void luaL_traceback(lua_State *L, lua_State *L1, const char *msg, int level) {
  int top = lua_gettop(L);
  (void)L1;
  lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
  if (lua_istable(L, -1) && lua_getfield(L, -1, "debug") == LUA_TTABLE &&
      lua_getfield(L, -1, "traceback") == LUA_TFUNCTION) {
    lua_pushstring(L, msg);
    lua_pushinteger(L, level + 1);
    lua_call(L, 2, 1);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
    return;
  }
  lua_settop(L, top);
  lua_pushstring(L, msg);
}

/* Whether Lua 5.2's load modes refuse a chunk; then its message pushed. */
static int refuses(const char *mode, int binary) {
  return mode != NULL && strchr(mode, binary ? 'b' : 't') == NULL;
}

static int push_refusal(lua_State *L, const char *mode, int binary) {
  lua_pushfstring(L, "attempt to load a %s chunk (mode is '%s')",
                  binary ? "binary" : "text", mode);
  return LUA_ERRSYNTAX;
}

int li_lua_loadbufferx(lua_State *L, const char *buff, size_t sz,
                       const char *name, const char *mode) {
  int binary = sz > 0 && buff[0] == LUA_SIGNATURE[0];
  if (refuses(mode, binary)) return push_refusal(L, mode, binary);
  return luaL_loadbuffer(L, buff, sz, name);
}

int li_lua_loadfilex(lua_State *L, const char *filename, const char *mode) {
  (void)mode;                          /* (5.1 files: text or binary) */
  return luaL_loadfile(L, filename);
}

/* lua_load with a mode: the reader's first piece is looked at before Lua
** reads it; a refused chunk reads as empty, and its load fails. */
typedef struct moderead {
  lua_Reader reader;
  void *data;
  const char *mode;
  int first;                 /* the first piece is still to come */
  int refused;               /* 0, or 1 + whether it was binary */
} moderead;

static const char *read_checked(lua_State *L, void *ud, size_t *size) {
  moderead *m = ud;
  const char *p;
  if (m->refused) { *size = 0; return NULL; }
  p = m->reader(L, m->data, size);
  if (m->first && p != NULL && *size > 0) {
    int binary = p[0] == LUA_SIGNATURE[0];
    m->first = 0;
    if (refuses(m->mode, binary)) {
      m->refused = 1 + binary;
      *size = 0;
      return NULL;
    }
  }
  return p;
}

int li_lua_load(lua_State *L, lua_Reader reader, void *data,
                const char *chunkname, const char *mode) {
  moderead m;
  int st;
  if (mode == NULL) return (lua_load)(L, reader, data, chunkname);
  m.reader = reader; m.data = data; m.mode = mode;
  m.first = 1; m.refused = 0;
  st = (lua_load)(L, read_checked, &m, chunkname);
  if (m.refused) {
    lua_pop(L, 1);                     /* the empty chunk (or a message) */
    return push_refusal(L, mode, m.refused == 2);
  }
  return st;
}

#endif
#endif
