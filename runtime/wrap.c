/*
** wrap.c -- the swappable entry points of include/luainstr.h (the wrap_
** functions that luainstr_wrap.h routes a host's calls through) and the
** profiler's versions they are swapped to.  The function pointers are the
** process's only globals.
*/
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>

#include "luainstr.h"
#include "profiler.h"


/* ======================================================================
** Lua's own functions, as pointers (lua_pcall is a macro)
** ====================================================================== */

static int stock_pcall(lua_State *L, int nargs, int nresults, int msgh) {
  return lua_pcall(L, nargs, nresults, msgh);
}

static luainstr_loader cur_loadbufferx = luaL_loadbufferx;
static int (*cur_loadfilex)(lua_State *, const char *, const char *) =
    luaL_loadfilex;
static int (*cur_loadstring)(lua_State *, const char *) = luaL_loadstring;
static int (*cur_load)(lua_State *, lua_Reader, void *, const char *,
                       const char *) = li_stock_load;
static int (*cur_resume)(lua_State *, lua_State *, int, int *) = li_stock_resume;
static int (*cur_pcall)(lua_State *, int, int, int) = stock_pcall;


/* ======================================================================
** The wrap_ functions and the switches
** ====================================================================== */

int (wrap_luaL_loadbufferx)(lua_State *L, const char *buff, size_t sz,
                            const char *name, const char *mode) {
  return cur_loadbufferx(L, buff, sz, name, mode);
}

int (wrap_luaL_loadfilex)(lua_State *L, const char *filename,
                          const char *mode) {
  return cur_loadfilex(L, filename, mode);
}

int (wrap_luaL_loadstring)(lua_State *L, const char *s) {
  return cur_loadstring(L, s);
}

int (wrap_lua_load)(lua_State *L, luainstr_reader reader, void *data,
                    const char *chunkname, const char *mode) {
  return cur_load(L, reader, data, chunkname, mode);
}

int (wrap_lua_resume)(lua_State *L, lua_State *from, int narg, int *nres) {
  return cur_resume(L, from, narg, nres);
}

int (wrap_lua_pcall)(lua_State *L, int nargs, int nresults, int msgh) {
  return cur_pcall(L, nargs, nresults, msgh);
}

void (luainstr_install_hooks)(void) {
  cur_loadbufferx = luainstr_loadbufferx;
  cur_loadfilex = luainstr_loadfilex;
  cur_loadstring = luainstr_loadstring;
  cur_load = luainstr_load;
  cur_resume = luainstr_resume;
  cur_pcall = luainstr_pcall;
}

void (luainstr_uninstall_hooks)(void) {
  cur_loadbufferx = luaL_loadbufferx;
  cur_loadfilex = luaL_loadfilex;
  cur_loadstring = luaL_loadstring;
  cur_load = li_stock_load;
  cur_resume = li_stock_resume;
  cur_pcall = stock_pcall;
}

/* (the one-line route of the first release: given the profiler's loader,
** every hook, so a host that adds luainstr_wrap.h needs no other change) */
void (luainstr_install_loadbufferx_hook)(luainstr_loader fn) {
  if (fn == luainstr_loadbufferx) luainstr_install_hooks();
  else cur_loadbufferx = fn != NULL ? fn : luaL_loadbufferx;
}

void (luainstr_uninstall_loadbufferx_hook)(void) {
  luainstr_uninstall_hooks();
}


/* ======================================================================
** The profiler's versions
** ====================================================================== */

int (luainstr_loadbufferx)(lua_State *L, const char *buff, size_t sz,
                           const char *name, const char *mode) {
  return li_load(L, buff, sz, name, mode);
}

int (luainstr_loadfilex)(lua_State *L, const char *filename,
                         const char *mode) {
  return li_loadfilex(L, filename, mode);
}

/* luaL_loadstring is luaL_loadbuffer(L, s, strlen(s), s) */
int (luainstr_loadstring)(lua_State *L, const char *s) {
  return li_load(L, s, strlen(s), s, NULL);
}

/* The host's reader, and a copy of every piece it gave. */
typedef struct tee {
  lua_Reader reader;    /* the host's */
  void *data;           /* its argument */
  char *buff;           /* the pieces so far (malloc'd) */
  size_t n, size;       /* used, allocated */
  int short_of_memory;  /* a piece could not be kept: load as it is */
} tee;

/* The host's reader, called exactly as lua_load calls it (it is lua_load
** that calls this), each piece kept. */
static const char *tee_read(lua_State *L, void *ud, size_t *size) {
  tee *t = (tee *)ud;
  const char *s = t->reader(L, t->data, size);
  if (s != NULL && *size > 0 && !t->short_of_memory) {
    if (t->n + *size > t->size) {
      size_t want = t->size ? t->size : 4096;
      char *nb;
      while (want < t->n + *size && want < ((size_t)-1) / 2) want *= 2;
      if (want < t->n + *size || (nb = realloc(t->buff, want)) == NULL) {
        t->short_of_memory = 1;
        return s;
      }
      t->buff = nb;
      t->size = want;
    }
    memcpy(t->buff + t->n, s, *size);
    t->n += *size;
  }
  return s;
}

/* Lua compiles the chunk through the tee, so the reader sees exactly what
** it would (not called after a binary chunk's end or a syntax error); a
** text chunk that compiled was read to its end, and the copy is compiled
** again, instrumented.  A binary chunk stays as Lua loaded it (a dump of
** instrumented code gets its probe back). */
int (luainstr_load)(lua_State *L, luainstr_reader reader, void *data,
                    const char *chunkname, const char *mode) {
  tee t;
  int status;
  memset(&t, 0, sizeof t);
  t.reader = reader;
  t.data = data;
  status = lua_load(L, tee_read, &t, chunkname, mode);
  if (status == LUA_OK && !t.short_of_memory && t.n > 0) {
    if (t.buff[0] == LUA_SIGNATURE[0]) {
      li_loaded_binary(L, t.buff, t.n);
    } else {
      lua_pop(L, 1);
      status = li_load(L, t.buff, t.n, chunkname ? chunkname : "?", mode);
    }
  }
  free(t.buff);
  return status;
}

int (luainstr_resume)(lua_State *L, lua_State *from, int narg, int *nres) {
  return li_host_resume(L, from, narg, nres);
}

int (luainstr_pcall)(lua_State *L, int nargs, int nresults, int msgh) {
  return li_host_pcall(L, nargs, nresults, msgh);
}
