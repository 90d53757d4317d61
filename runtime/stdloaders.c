/*
** stdloaders.c -- the standard library's loaders (load, loadfile, dofile,
** loadstring where the Lua has it, and the Lua-file searcher of
** `require`) and luaL_loadfilex, routed through the instrumenting loader
** (loader.c).
**
** Each replacement keeps the contract of its original in the Lua it is
** built for (5.1.5, 5.2.4, 5.3.6, 5.4.4; what differs is named by
** luaver.h's LI_HAVE_LOAD_STRINGS, LI_HAVE_LOADSTRING, LI_SEARCHERS ...):
** the same arguments checked in the same order, the same results and the
** same messages.  Argument errors name the function as the original's do,
** because luaL_argerror finds the name from the call site or by looking the
** function up in package.loaded, where ours sit in place of the originals.
**
** Files are read whole into memory before they are loaded: the rewriter
** needs the complete text anyway, and reading first lets loader.c skip a
** BOM and a `#` line exactly where luaL_loadfilex does.
*/
#define _POSIX_C_SOURCE 200809L  /* fileno, fstat */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lua.h>
#include <lauxlib.h>
#include "luaver.h"
#include <lualib.h>

#include "runtime.h"

/* Registry key of the table that keeps the replaced originals. */
#define ORIGINALS "luainstr.loaders"

/* Registry key of the metatable of file buffers. */
#define FILEBUF "luainstr.filebuf"

/* What replaces '.' in a module name, as in loadlib.c. */
#define LUA_LSUBSEP LUA_DIRSEP

/* Read size when a file does not tell its size (pipes, ttys). */
#define READCHUNK ((size_t)1 << 16)


/*
** {======================================================
** Whole-file reading
** =======================================================
*/

/* Bytes being gathered: a file being read, or the pieces of a reader
** function.  It lives in a userdata so that an error raised before the
** bytes are loaded (out of memory while pushing a string, an error in the
** reader) leaks neither the FILE nor the bytes: __gc releases both. */
typedef struct FileBuf {
  FILE *f;        /* open file to close, or NULL (none, closed, stdin) */
  char *buff;     /* bytes read so far (Lua's allocator), or NULL */
  size_t n;       /* bytes used in buff */
  size_t size;    /* bytes allocated for buff */
} FileBuf;


static void fb_release (lua_State *L, FileBuf *fb) {
  void *ud;
  lua_Alloc allocf = lua_getallocf(L, &ud);
  if (fb->f != NULL) fclose(fb->f);
  fb->f = NULL;
  if (fb->buff != NULL) allocf(ud, fb->buff, fb->size, 0);
  fb->buff = NULL;
  fb->n = fb->size = 0;
}


/* The FileBuf at idx is done with: released now, and left with no
** finalizer (LuaJIT aborts the trace it is recording whenever the collector
** runs one: every file loaded cost a trace, bench/jit_traces.sh). */
static void fb_done (lua_State *L, FileBuf *fb, int idx) {
  fb_release(L, fb);
  lua_pushnil(L);
  lua_setmetatable(L, idx);
}


static int fb_gc (lua_State *L) {
  fb_release(L, (FileBuf *)lua_touserdata(L, 1));
  return 0;
}


/* Pushes an empty FileBuf. */
static FileBuf *fb_new (lua_State *L) {
  FileBuf *fb = (FileBuf *)lua_newuserdatauv(L, sizeof(FileBuf), 0);
  fb->f = NULL;
  fb->buff = NULL;
  fb->n = fb->size = 0;
  if (luaL_newmetatable(L, FILEBUF)) {
    lua_pushcfunction(L, fb_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  return fb;
}


/* Grows fb->buff to at least 'want' bytes; 0 when memory runs out.  No Lua
** error can happen here: the allocator is called directly. */
static int fb_reserve (lua_State *L, FileBuf *fb, size_t want) {
  void *ud;
  lua_Alloc allocf = lua_getallocf(L, &ud);
  size_t newsize = fb->size;
  char *nb;
  if (want <= fb->size) return 1;
  if (newsize < READCHUNK) newsize = READCHUNK;
  while (newsize < want) {
    if (newsize > ((size_t)-1) / 2) { newsize = want; break; }
    newsize *= 2;
  }
  nb = (char *)allocf(ud, fb->buff, fb->buff ? fb->size : 0, newsize);
  if (nb == NULL) return 0;
  fb->buff = nb;
  fb->size = newsize;
  return 1;
}


/* Size hint for a file: its length when it is a regular file (plus one
** byte, so that the read that finds the end needs no growth). */
static size_t size_hint (FILE *f) {
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0
      && (unsigned long long)st.st_size < (size_t)-1 / 2)
    return (size_t)st.st_size + 1;
  return READCHUNK;
}


/* Reads all of f into fb.  Returns 0 on success, else the errno of the
** failed read (-1: out of memory). */
static int read_all (lua_State *L, FileBuf *fb, FILE *f) {
  if (!fb_reserve(L, fb, size_hint(f))) return -1;
  for (;;) {
    size_t room, got;
    if (fb->n == fb->size && !fb_reserve(L, fb, fb->size + 1)) return -1;
    room = fb->size - fb->n;
    got = fread(fb->buff + fb->n, 1, room, f);
    fb->n += got;
    if (got < room) break;  /* end of file or error: do not read again */
  }
  if (ferror(f)) return errno != 0 ? errno : EIO;
  return 0;
}


/* As lauxlib's errfile: the message names the file as the chunk name does,
** without its '@' or '='. */
static int file_error (lua_State *L, const char *what, int fnameindex,
                       int err) {
  const char *filename = lua_tostring(L, fnameindex) + 1;
  lua_pushfstring(L, "cannot %s %s: %s", what, filename, strerror(err));
  lua_remove(L, fnameindex);
  return LUA_ERRFILE;
}


int li_loadfilex (lua_State *L, const char *filename, const char *mode) {
  int fnameindex = lua_gettop(L) + 1;  /* chunk name, then the FileBuf */
  FileBuf *fb;
  FILE *f;
  int err, status;
  if (filename == NULL)
    lua_pushliteral(L, "=stdin");
  else
    lua_pushfstring(L, "@%s", filename);
  fb = fb_new(L);
  if (filename == NULL)
    f = stdin;
  else {
    errno = 0;
    f = fb->f = fopen(filename, "r");
    if (f == NULL) {
      err = errno;
      lua_settop(L, fnameindex);
      return file_error(L, "open", fnameindex, err);
    }
  }
  errno = 0;
  err = read_all(L, fb, f);
  if (fb->f != NULL) { fclose(fb->f); fb->f = NULL; }
  if (err == -1) {
    fb_release(L, fb);
    lua_settop(L, fnameindex - 1);
    lua_pushliteral(L, "not enough memory");
    return LUA_ERRMEM;
  }
  if (err != 0) {
    fb_release(L, fb);
    lua_settop(L, fnameindex);
    return file_error(L, "read", fnameindex, err);
  }
  status = li_load_filebytes(L, fb->buff != NULL ? fb->buff : "", fb->n,
                             lua_tostring(L, fnameindex), mode);
  fb_done(L, fb, fnameindex + 1);  /* the bytes are compiled: give them back */
  lua_replace(L, fnameindex);  /* the function or message over the name */
  lua_settop(L, fnameindex);
  return status;
}

/* }====================================================== */


/*
** {======================================================
** load, loadfile, dofile
** =======================================================
*/

/* Ends load and loadfile as lbaselib's load_aux: the function, with 'env'
** (when given, even nil) as its first upvalue; or fail and the message.
** (Lua 5.1's take no 'env': envidx is 0 there.  LuaJIT's make a table
** given the function's environment, and ignore anything else.) */
static int finish_load (lua_State *L, int status, int envidx) {
  if (status != LUA_OK) {
    luaL_pushfail(L);
    lua_insert(L, -2);
    return 2;
  }
#if LI_LOAD_ENV_FENV
  if (envidx != 0 && lua_istable(L, envidx)) {
    lua_pushvalue(L, envidx);
    lua_setfenv(L, -2);
  }
#else
  if (envidx != 0) {
    /* a dumped function whose only upvalue is its probe has none to the
    ** original (bytecode.h): the environment has nowhere to go */
    if (lua_getupvalue(L, -1, 1) != NULL) {
      int probe = li_is_probe(L, -1);
      lua_pop(L, 1);
      if (probe) return 1;
    }
    lua_pushvalue(L, envidx);
    if (!lua_setupvalue(L, -2, 1))  /* no upvalue: nothing to set */
      lua_pop(L, 1);
  }
#endif
  return 1;
}


/* loadfile([filename [, mode [, env]]]); Lua 5.1's loadfile([filename]) */
static int ld_loadfile (lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
#if LI_HAVE_LOAD_STRINGS
  const char *mode = luaL_optstring(L, 2, NULL);
  int env = !lua_isnone(L, 3) ? 3 : 0;
#else
  const char *mode = NULL;
  int env = 0;
#endif
  return finish_load(L, li_loadfilex(L, fname, mode), env);
}


/* Stack slots of ld_load while a reader function gives the chunk. */
#define LD_FILEBUF 5    /* the FileBuf gathering the pieces */
#define LD_PIECE 6      /* the last piece, kept alive while Lua reads it */

/* Reader for lua_load that is lbaselib's generic_reader (the reader
** function at index 1, called as Lua calls it, its piece kept in a slot)
** and also keeps a copy of every piece in the FileBuf.  Lua compiles the
** original through it, so the reader is called exactly as under lua5.4:
** not after the end of a binary chunk, not after a syntax error, and an
** error in it meets lua_load's protection with the caller's handler.  A
** text chunk that compiles was read to its end: the copy is all of it. */
static const char *tee_reader (lua_State *L, void *ud, size_t *size) {
  FileBuf *fb = (FileBuf *)ud;
  const char *s;
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *size = 0;
    return NULL;
  }
  else if (!lua_isstring(L, -1))
    luaL_error(L, "reader function must return a string");
  lua_replace(L, LD_PIECE);
  s = lua_tolstring(L, LD_PIECE, size);
  if (!fb_reserve(L, fb, fb->n + *size))
    luaL_error(L, "not enough memory");
  memcpy(fb->buff + fb->n, s, *size);
  fb->n += *size;
  return s;
}


/* The chunk given in pieces by the reader function at index 1: loaded,
** and instrumented when it is text.  The function or the message is left
** on top of the stack, above LD_FILEBUF - 1 values. */
static int load_reader (lua_State *L, const char *chunkname,
                        const char *mode) {
  FileBuf *fb;
  int status;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, LD_FILEBUF - 1);
  fb = fb_new(L);                               /* LD_FILEBUF */
  lua_pushnil(L);                               /* LD_PIECE */
  status = lua_load(L, tee_reader, fb, chunkname, mode);
  if (status == LUA_OK && fb->n > 0 && fb->buff[0] == LUA_SIGNATURE[0])
    li_loaded_binary(L, fb->buff, fb->n);       /* loaded as it is */
  else if (status == LUA_OK) {                  /* text: instrumented */
    lua_pop(L, 1);
    status = li_load(L, fb->buff != NULL ? fb->buff : "", fb->n,
                     chunkname, mode);
  }
  fb_done(L, fb, LD_FILEBUF);
  lua_rotate(L, LD_FILEBUF, -2);                /* FileBuf and piece */
  lua_pop(L, 2);
  return status;
}


#if LI_HAVE_LOAD_STRINGS
/* LuaJIT's load of what only LuaJIT reads (a string.buffer): its own,
** with the same arguments; what it loads is not instrumented. */
static int load_original (lua_State *L) {
  int n = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, ORIGINALS);
  lua_getfield(L, -1, "load");
  lua_remove(L, -2);
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

/* load(chunk [, chunkname [, mode [, env]]]): a string or a reader
** function (Lua 5.2 on; 5.2's loadstring is this function too) */
static int ld_load (lua_State *L) {
  int status;
  size_t l;
  const char *s = lua_tolstring(L, 1, &l);
  const char *mode = luaL_optstring(L, 3, "bt");
  int env = !lua_isnone(L, 4) ? 4 : 0;
  if (LI_IS_LUAJIT && lua_type(L, 1) == LUA_TUSERDATA)
    return load_original(L);  /* (a string.buffer: its bytes are not ours) */
  if (s != NULL) {  /* a string (or a number) holds the chunk */
    const char *chunkname = luaL_optstring(L, 2, s);
    status = li_load(L, s, l, chunkname, mode);
  }
  else  /* a reader function gives it in pieces */
    status = load_reader(L, luaL_optstring(L, 2, "=(load)"), mode);
  return finish_load(L, status, env);
}
#else
/* Lua 5.1's load(func [, chunkname]): a reader function only */
static int ld_load (lua_State *L) {
  const char *chunkname = luaL_optstring(L, 2, "=(load)");
  return finish_load(L, load_reader(L, chunkname, NULL), 0);
}

/* Lua 5.1's loadstring(string [, chunkname]) */
static int ld_loadstring (lua_State *L) {
  size_t l;
  const char *s = luaL_checklstring(L, 1, &l);
  const char *chunkname = luaL_optstring(L, 2, s);
  return finish_load(L, li_load(L, s, l, chunkname, NULL), 0);
}
#endif


static int dofile_cont (lua_State *L, int status, lua_KContext ctx) {
  (void)status;  (void)ctx;
  return lua_gettop(L) - 1;  /* all results of the chunk, not the name */
}
LI_CONTINUATION(dofile_cont)


static int ld_dofile (lua_State *L) {
  const char *fname = luaL_optstring(L, 1, NULL);
  lua_settop(L, 1);
  if (li_loadfilex(L, fname, NULL) != LUA_OK)
    return lua_error(L);
  /* a continuation, so that the chunk may yield as under the original */
  li_callk(L, 0, LUA_MULTRET, 0, dofile_cont);
  return dofile_cont(L, LUA_OK, 0);
}

/* }====================================================== */


/*
** {======================================================
** The Lua-file searcher of require
** =======================================================
*/

static int readable (const char *filename) {
  FILE *f = fopen(filename, "r");
  if (f == NULL) return 0;
  fclose(f);
  return 1;
}


#if LI_SEARCHPATH_54
/* Pushes "no file 'a'\n\tno file 'b'" for the tried names "a;b". */
static void push_notfound (lua_State *L, const char *tried) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "no file '");
  luaL_addgsub(&b, tried, LUA_PATH_SEP, "'\n\tno file '");
  luaL_addchar(&b, '\'');
  luaL_pushresult(&b);
}


/* package.searchpath(name, path, ".", LUA_LSUBSEP) of Lua 5.4: pushes the
** first readable file name of the path (returned), or the list of names
** tried (returns NULL).  Every ';'-separated entry is tried, empty ones
** too, in order. */
static const char *search_path (lua_State *L, const char *name,
                                const char *path) {
  const char *names, *p, *sep;
  if (strchr(name, '.') != NULL)
    name = luaL_gsub(L, name, ".", LUA_LSUBSEP);
  names = luaL_gsub(L, path, LUA_PATH_MARK, name);
  if (*names != '\0') {  /* an empty path has no entry at all */
    for (p = names; ; p = sep + 1) {
      const char *filename;
      sep = strchr(p, *LUA_PATH_SEP);
      filename = lua_pushlstring(L, p, sep ? (size_t)(sep - p) : strlen(p));
      if (readable(filename)) return filename;
      lua_pop(L, 1);
      if (sep == NULL) break;
    }
  }
  push_notfound(L, names);
  return NULL;
}
#else
/* The search of loadlib.c before Lua 5.4 (5.1's findfile, 5.2's and
** 5.3's searchpath with ".", LUA_LSUBSEP): the same result, and for the
** names tried "\n\tno file 'a'\n\tno file 'b'"; empty entries of the path
** are skipped. */
static const char *search_path (lua_State *L, const char *name,
                                const char *path) {
  const char *p = path, *end;
  name = luaL_gsub(L, name, ".", LUA_LSUBSEP);
  lua_pushliteral(L, "");                       /* the names tried */
  for (;;) {
    const char *filename;
    while (*p == *LUA_PATH_SEP) p++;
    if (*p == '\0') return NULL;
    end = strchr(p, *LUA_PATH_SEP);
    if (end == NULL) end = p + strlen(p);
    lua_pushlstring(L, p, (size_t)(end - p));
    filename = luaL_gsub(L, lua_tostring(L, -1), LUA_PATH_MARK, name);
    lua_remove(L, -2);                          /* the entry */
    if (readable(filename)) return filename;
    lua_pushfstring(L, "\n\tno file '%s'", filename);
    lua_remove(L, -2);                          /* the file name */
    lua_concat(L, 2);
    p = end;
  }
}
#endif


/* searcher_Lua of loadlib.c (5.1's loader_Lua); the package table is its
** upvalue 1, its environment on 5.1 (LI_SEARCHER_PACKAGE). */
static int ld_searcher (lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  const char *path, *filename;
  lua_getfield(L, LI_SEARCHER_PACKAGE, "path");
  path = lua_tostring(L, -1);
  if (path == NULL)
    return luaL_error(L, "'package.%s' must be a string", "path");
  filename = search_path(L, name, path);
  if (filename == NULL) return 1;  /* the list of files tried */
  if (li_loadfilex(L, filename, NULL) != LUA_OK)
    return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s",
                      lua_tostring(L, 1), filename, lua_tostring(L, -1));
#if LI_SEARCHER_FILENAME
  lua_pushstring(L, filename);  /* the 2nd argument of the module */
  return 2;
#else
  return 1;
#endif
}

/* }====================================================== */


/*
** {======================================================
** Installing and restoring
** =======================================================
*/

/* The replaced globals.  ORDER: same names in restore as in install. */
static const luaL_Reg replaced[] = {
  {"load", ld_load},
  {"loadfile", ld_loadfile},
  {"dofile", ld_dofile},
#if LI_HAVE_LOADSTRING && LI_HAVE_LOAD_STRINGS
  {"loadstring", ld_load},            /* (5.2's is load) */
#elif LI_HAVE_LOADSTRING
  {"loadstring", ld_loadstring},
#endif
  {NULL, NULL}
};


/* Pushes package.searchers (5.1: package.loaders), or nothing, returning
** 0, when the package library is open; leaves the package table below
** it. */
static int push_searchers (lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, LUA_LOADLIBNAME);
  lua_remove(L, -2);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  if (lua_getfield(L, -1, LI_SEARCHERS) != LUA_TTABLE) {
    lua_pop(L, 2);
    return 0;
  }
  return 1;
}


/* Replaces package.searchers[2], keeping the original in originals (at
** index 'orig'), when it is a function that is not already ours. */
static void install_searcher (lua_State *L, int orig) {
  if (!push_searchers(L)) return;
  lua_rawgeti(L, -1, 2);
  if (lua_isfunction(L, -1) && lua_tocfunction(L, -1) != ld_searcher) {
    /* kept before it is replaced (an error, out of memory, between the
    ** two would lose it) */
    lua_pushvalue(L, -1);
    lua_setfield(L, orig, "searcher");
    /* the original's package table is the one it reads 'path' from */
    if (!li_searcher_package(L, -1))
      lua_pushvalue(L, -3);  /* the package table */
    li_push_searcher(L, ld_searcher);
    lua_rawseti(L, -3, 2);
  }
  lua_pop(L, 1);
  lua_pop(L, 2);  /* searchers, package */
}


void li_install_loaders (lua_State *L) {
  int orig, g;
  const luaL_Reg *r;
  luaL_checkstack(L, 8, "installing the luainstr loaders");
  luaL_getsubtable(L, LUA_REGISTRYINDEX, ORIGINALS);
  orig = lua_gettop(L);
  lua_pushglobaltable(L);
  g = lua_gettop(L);
  for (r = replaced; r->name != NULL; r++) {
    lua_getfield(L, g, r->name);
    /* a host that removed a loader (a sandbox) keeps it removed */
    if (lua_isfunction(L, -1) && lua_tocfunction(L, -1) != r->func) {
      lua_setfield(L, orig, r->name);
      lua_pushcfunction(L, r->func);
      lua_setfield(L, g, r->name);
    }
    else
      lua_pop(L, 1);
  }
  install_searcher(L, orig);
  lua_settop(L, orig - 1);
}


/* Is the value at idx the C function f (our replacement)? */
static int is_ours (lua_State *L, int idx, lua_CFunction f) {
  return lua_tocfunction(L, idx) == f;
}


void li_restore_loaders (lua_State *L) {
  int orig, g;
  const luaL_Reg *r;
  luaL_checkstack(L, 8, "restoring the Lua loaders");
  if (lua_getfield(L, LUA_REGISTRYINDEX, ORIGINALS) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  orig = lua_gettop(L);
  lua_pushglobaltable(L);
  g = lua_gettop(L);
  for (r = replaced; r->name != NULL; r++) {
    lua_getfield(L, g, r->name);
    /* a function the program put there since is the program's business */
    if (is_ours(L, -1, r->func) &&
        lua_getfield(L, orig, r->name) == LUA_TFUNCTION)
      lua_setfield(L, g, r->name);
    lua_settop(L, g);
  }
  if (push_searchers(L)) {
    lua_rawgeti(L, -1, 2);
    if (is_ours(L, -1, ld_searcher) &&
        lua_getfield(L, orig, "searcher") == LUA_TFUNCTION)
      lua_rawseti(L, -3, 2);
  }
  lua_settop(L, orig - 1);
}

/* }====================================================== */
