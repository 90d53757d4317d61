/*
** loader.c -- the instrumenting loader.  Every entry point (the C hook
** luainstr_loadbufferx, luaprof, the Lua-level load/loadfile/dofile/require
** replacements) ends here, and here ends in li_instrument_load(), the one
** rewrite-and-compile path.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "bytecode.h"
#include "instrument.h"
#include "profiler.h"

/* A string.dump()ed instrumented function keeps its probe's upvalue but
** not its value (load() leaves it nil, or the environment when it is the
** first): give it a probe that does nothing, so it runs as the original
** would.  Found by its entry probe (bytecode.h) and, in a stripped dump
** where names are gone, by the <const> kind of the loader's form (5.4);
** dumps of 5.3 (string.dump(f, true)) and 5.2 (luac -s) have no kinds,
** so there the entry probe alone says: a false match would only give a
** do-nothing function to an upvalue that the function calls first and that
** load() left nil or the globals table.  (5.1 keeps no upvalue of a
** stripped dump reachable: lua_getupvalue gives NULL.  LuaJIT's name is
** "", and its kind is LI_BC_CONST only for an upvalue captured from a local
** (lj_parse.c): in the loader's form a chunk's functions capture the probe
** from the main function's upvalue, so there too the entry probe alone
** says.) */
static int probe_name(const char *name) {
  return strncmp(name, "__LI", 4) == 0 &&
         strspn(name + 4, "0123456789") == strlen(name + 4);
}

/* LuaJIT: the probe's upvalue by its name, where the entry probe was not
** found in the dump (bytecode.c reads LuaJIT's dumps too, stripped ones
** included: this is the fallback for a shape it does not know).  0: none. */
static int luajit_probe_upvalue(lua_State *L) {
  const char *name;
  for (int i = 1; LI_IS_LUAJIT && (name = lua_getupvalue(L, -1, i)) != NULL; i++) {
    lua_pop(L, 1);
    if (probe_name(name)) return i;
  }
  return 0;
}

void li_loaded_binary(lua_State *L, const char *buff, size_t sz) {
  int kind, up = li_bc_entry_probe(buff, sz, &kind);
  const char *name;
  if (up == 0) up = luajit_probe_upvalue(L);
  if (up == 0 || (name = lua_getupvalue(L, -1, up)) == NULL) return;
  lua_pop(L, 1);
  if (probe_name(name))
    ;                                    /* the rewriter's name */
  else if (!(strcmp(name, LI_STRIPPED_UPVALUE) == 0 &&
              (kind == LI_BC_CONST || kind == LI_BC_NOKIND || LI_IS_LUAJIT)))
    return;
  li_push_probe(L, "", NULL, 0);
  lua_setupvalue(L, -2, up);
  li_env_as_loaded(L, up);
}

/* What the loaded function on top of the stack gets: its probe (r), or
** for a binary chunk (r NULL) a probe given back. */
typedef struct probe_job {
  const char *name;               /* chunk name */
  const li_rewrite_result *r;     /* the rewriter's functions, or NULL */
  const char *buff;               /* the binary chunk */
  size_t sz;
} probe_job;

static int give_probe(lua_State *L) {
  const probe_job *j = lua_touserdata(L, 1);
  if (j->r == NULL) {
    li_loaded_binary(L, j->buff, j->sz);
  } else {
    li_push_probe(L, j->name, j->r->funcs, j->r->nfuncs);
    lua_setupvalue(L, -2, j->r->probe_upvalue);   /* 2 (5.1: 1), rewrite.h */
    li_env_as_loaded(L, j->r->probe_upvalue);
  }
  return 0;
}

/* Run give_probe in protected mode: the Lua API raises an error when
** memory runs out, while li_load holds the rewriter's malloc'd result and
** its caller (a host, as with luaL_loadbufferx) expects a status.  On an
** error the message replaces the function. */
static int attach_probe(lua_State *L, const probe_job *j) {
  int status;
  if (!lua_checkstack(L, 3) || !li_pushcfunction_noerr(L, give_probe)) {
    lua_pop(L, 1);
    lua_pushliteral(L, "not enough memory");  /* Lua's: made in advance */
    return LUA_ERRMEM;
  }
  lua_pushlightuserdata(L, (void *)j);
  lua_pushvalue(L, -3);
  status = lua_pcall(L, 2, 0, 0);
  if (status != LUA_OK) lua_remove(L, -2);
  return status;
}

static size_t file_prefix(const char *b, size_t n, int *binary);

int li_load(lua_State *L, const char *buff, size_t sz, const char *name,
            const char *mode) {
  li_prof *P = li_prof_get(L);
  li_rewrite_opts o;
  li_rewrite_result r;
  probe_job j;
  int instrumented, status;
  j.name = name ? name : "?";
  j.r = NULL;
  j.buff = buff;
  j.sz = sz;
  if (P != NULL) P->loads++;
  if (LI_LOAD_SKIPS_PREFIX && sz > 0 && buff[0] != LUA_SIGNATURE[0]) {
    int binary;
    size_t skip = file_prefix(buff, sz, &binary);
    if (binary)                     /* (refused, with Lua's own message) */
      return luaL_loadbufferx(L, buff, sz, name, mode);
    buff += skip;
    sz -= skip;
  }
  if (sz > 0 && buff[0] == LUA_SIGNATURE[0]) {       /* binary */
    status = luaL_loadbufferx(L, buff, sz, name, mode);
    if (status == LUA_OK) status = attach_probe(L, &j);
    return status;
  }
  if (P != NULL && !li_prof_wants(P, name))
    return luaL_loadbufferx(L, buff, sz, name, mode);
  memset(&o, 0, sizeof o);
  o.version = LI_LUA_DIALECT;
  o.chunkname = name;
  o.probe_upvalue = 1;
  o.count_small = P != NULL ? P->count_small : 0;
  /* LuaJIT: `return P(0, a+b)`, not `return a+b, P()`.  Its trace
  ** recorder takes the trailing call after a call's value (a CALLM whose
  ** results a RETM returns) for a return below the trace's start and
  ** restarts it ("down-recursion"): recursive code lost its traces.  Under
  ** luaprofjit with the FFI probe (user seconds, median of 3; trace aborts
  ** a run, bench/jit_traces.sh), trailing -> through: recursive-fib 35
  ** 2.43 -> 1.11 s (aborts 19 -> 1; plain luajit 0.06 s, 3 aborts),
  ** binary-trees 15 3.58 -> 1.59 s (aborts 103 -> 2; plain 1.04 s, 25);
  ** recursive-ack 10, a method-heavy loop and a closure-heavy one the same
  ** either way (1.91, 2.5, 0.93 s; aborts as plain: tests/jit/programs).
  ** PUC Luas keep the trailing form: it costs their VM least. */
  o.exits_through = LI_IS_LUAJIT;
  status = li_instrument_load(L, buff, sz, name, mode, &o, &r, &instrumented);
  /* Compiled: only the functions' descriptors are needed now.  The text
  ** (about the chunk's size) and its spans (16 bytes a probe) are freed
  ** before the probe's chunk map is made, when a function-dense chunk's
  ** memory peaks. */
  free(r.out);
  free(r.ins);
  r.out = NULL;
  r.ins = NULL;
  r.outlen = r.nins = 0;
  if (status == LUA_OK && instrumented && r.probe_upvalue) {
    j.r = &r;
    status = attach_probe(L, &j);
  }
  if (r.warnings != NULL && P != NULL) li_prof_warn(P, r.warnings);
  li_rewrite_free(&r);
  return status;
}

/* How many bytes luaL_loadfilex skips before the chunk: a UTF-8 BOM (5.2
** on: LI_LOADFILE_SKIPS_BOM) and a first line starting with '#' (up to,
** not including, its '\n').  *binary tells whether a precompiled chunk
** follows. */
static size_t file_prefix(const char *b, size_t n, int *binary) {
  size_t i = 0;
#if LI_LOADFILE_SKIPS_BOM
  if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0) i = 3;
#endif
  if (i < n && b[i] == '#') {
    const char *nl = memchr(b + i, '\n', n - i);
    if (nl == NULL) { *binary = 0; return n; }
    i = (size_t)(nl - b);
    /* a binary chunk after the comment starts past the line break */
    *binary = i + 1 < n && b[i + 1] == LUA_SIGNATURE[0];
    return *binary ? i + 1 : i;
  }
  *binary = i < n && b[i] == LUA_SIGNATURE[0];
  return i;
}

int li_load_filebytes(lua_State *L, const char *buff, size_t sz,
                      const char *name, const char *mode) {
  int binary;
  size_t skip = LI_LOAD_SKIPS_PREFIX ? 0 : file_prefix(buff, sz, &binary);
  (void)binary;                    /* li_load tells binary chunks apart */
  return li_load(L, buff + skip, sz - skip, name, mode);
}


/*
** {======================================================
** Chunks compiled without the loader
** =======================================================
*/

/* The scan's state: the chunk names the loader instrumented (sorted), the
** functions seen (a set of addresses), and what it found. */
typedef struct scan {
  li_prof *P;
  const char **names;   /* chunk names of P's functions, sorted */
  uint32_t nnames;
  const void **seen;    /* open addressing; NULL empty */
  uint32_t cap;         /* a power of two */
  uint32_t nseen;
  uint32_t budget;      /* table entries still to visit */
} scan;

#define SCAN_ENTRIES 200000u   /* a dump never walks more than this */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* 1 if p was seen before (else it is now). */
static int seen_before(scan *s, const void *p) {
  uint32_t k;
  if (s->nseen * 2 >= s->cap) {
    uint32_t cap = s->cap ? s->cap * 2 : 256;
    const void **t = calloc(cap, sizeof *t);
    if (t == NULL) return 1;           /* no memory: count nothing more */
    for (uint32_t i = 0; i < s->cap; i++)
      if (s->seen[i] != NULL) {
        for (k = (uint32_t)((uintptr_t)s->seen[i] >> 4) & (cap - 1); t[k];
             k = (k + 1) & (cap - 1)) {}
        t[k] = s->seen[i];
      }
    free(s->seen);
    s->seen = t;
    s->cap = cap;
  }
  for (k = (uint32_t)((uintptr_t)p >> 4) & (s->cap - 1); s->seen[k];
       k = (k + 1) & (s->cap - 1))
    if (s->seen[k] == p) return 1;
  s->seen[k] = p;
  s->nseen++;
  return 0;
}

/* The function on top of L (popped): a Lua function from a chunk the
** loader did not instrument and was not told to leave? */
static void scan_function(lua_State *L, scan *s) {
  lua_Debug ar;
  const char *src;
  if (seen_before(s, lua_topointer(L, -1)) || !lua_getinfo(L, ">S", &ar)) {
    lua_pop(L, 1);
    return;
  }
  src = ar.source;
  /* (LuaJIT's library has a few functions in its own bytecode, math.deg,
  ** string.len, table.remove ...: no line, source "[builtin:deg]"; and
  ** the runtime's own Lua functions are named "=[C]": LuaJIT's pcall) */
  if (strcmp(ar.what, "C") == 0 || src == NULL || ar.linedefined < 0 ||
      strcmp(src, "=[C]") == 0 ||
      bsearch(&src, s->names, s->nnames, sizeof *s->names, cmp_str) != NULL ||
      !li_prof_wants(s->P, src))
    return;
  if (s->P->outside++ == 0)
    snprintf(s->P->outside_chunk, sizeof s->P->outside_chunk, "%s",
             src[0] == '@' || src[0] == '=' ? src + 1 : src);
}

/* The functions of the table at idx, and of the tables it holds down to
** `depth` more levels; raw access (lua_next). */
static void scan_table(lua_State *L, scan *s, int idx, int depth) {
  if (!lua_checkstack(L, 4)) return;
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (s->budget > 0 && lua_next(L, idx)) {
    s->budget--;
    if (lua_type(L, -1) == LUA_TFUNCTION) {
      lua_pushvalue(L, -1);
      scan_function(L, s);
    } else if (depth > 0 && lua_type(L, -1) == LUA_TTABLE &&
               !seen_before(s, lua_topointer(L, -1))) {
      scan_table(L, s, -1, depth - 1);
    }
    lua_pop(L, 1);
  }
  if (s->budget == 0) lua_settop(L, idx);   /* (the key left by lua_next) */
}

void li_loader_scan(lua_State *L, li_prof *P) {
  scan s;
  int top = lua_gettop(L);
  P->outside = 0;
  P->outside_chunk[0] = '\0';
  if (P->nfn == 0 || !lua_checkstack(L, 4)) return;
  memset(&s, 0, sizeof s);
  s.P = P;
  s.budget = SCAN_ENTRIES;
  if ((s.names = malloc(P->nfn * sizeof *s.names)) == NULL) return;
  /* (a chunk's functions are registered together and share one copy of
  ** its name: a run of them is one entry, not 100,000 to sort) */
  for (uint32_t i = 0; i < P->nfn; i++)
    if (!P->fn[i].zone &&
        (s.nnames == 0 || s.names[s.nnames - 1] != P->fn[i].chunkname))
      s.names[s.nnames++] = P->fn[i].chunkname;
  qsort(s.names, s.nnames, sizeof *s.names, cmp_str);
  lua_pushglobaltable(L);
  seen_before(&s, lua_topointer(L, -1));
  scan_table(L, &s, -1, 1);
  lua_settop(L, top);
  if (lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE) == LUA_TTABLE)
    scan_table(L, &s, -1, 1);
  lua_settop(L, top);
  free(s.names);
  free(s.seen);
}

/* }====================================================== */
