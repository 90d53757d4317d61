/*
** instrument.c -- the one loader path (see instrument.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include "luaver.h"
#include "instrument.h"
#include "lift.h"

#define LI_MAX_RETRIES 16

/* The line number in a Lua error message "chunkid:LINE: message", or 0. */
static uint32_t error_line(const char *msg) {
  for (const char *p = msg ? strchr(msg, ':') : NULL; p; p = strchr(p + 1, ':')) {
    const char *q = p + 1;
    uint32_t line = 0;
    while (*q >= '0' && *q <= '9') line = line * 10 + (uint32_t)(*q++ - '0');
    if (q > p + 1 && *q == ':') return line;
  }
  return 0;
}

/* The innermost probed function whose lines hold `line` (0: main chunk). */
static uint32_t function_at(const li_rewrite_result *r, uint32_t line) {
  uint32_t best = 0;
  for (uint32_t f = 1; f < r->nfuncs; f++) {
    const li_funcdesc *d = &r->funcs[f];
    if (d->probed && d->line <= line && line <= d->lastline &&
        (best == 0 || d->line >= r->funcs[best].line))
      best = f;
  }
  return best;
}

static char *copy_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *c = malloc(n);
  if (c) memcpy(c, s, n);
  return c;
}

/* Append a line to the result's warnings. */
static void warn(li_rewrite_result *r, const char *prefix, const char *msg) {
  size_t old = r->warnings ? strlen(r->warnings) : 0;
  size_t add = strlen(prefix) + strlen(msg) + 2;
  char *w = realloc(r->warnings, old + add);
  if (w == NULL) return;
  memcpy(w + old, prefix, strlen(prefix));
  memcpy(w + old + strlen(prefix), msg, strlen(msg));
  w[old + add - 2] = '\n';
  w[old + add - 1] = '\0';
  r->warnings = w;
}

/* ---- compiling ---------------------------------------------------------- */

/* Reader that hands out one line a call, remembering which (for a compile
** error that names no line: "C stack overflow" from deep nesting). */
typedef struct linereader { const char *p, *end; uint32_t line; } linereader;

static const char *read_line(lua_State *L, void *ud, size_t *size) {
  linereader *lr = ud;
  const char *s = lr->p, *nl;
  (void)L;
  if (s >= lr->end) { *size = 0; return NULL; }
  nl = memchr(s, '\n', (size_t)(lr->end - s));
  lr->p = nl ? nl + 1 : lr->end;
  lr->line++;
  *size = (size_t)(lr->p - s);
  return s;
}

/* The line where compiling text failed: the one in Lua's message, else the
** line the lexer had read up to when it failed (compiled once more, a line
** at a time; the lexer reads at most one token ahead). */
static uint32_t failure_line(lua_State *L, const char *msg, const char *text,
                             size_t len, const char *name) {
  uint32_t line = error_line(msg);
  if (line == 0) {
    linereader lr = { text, text + len, 0 };
    if (lua_load(L, read_line, &lr, name, "t") != LUA_OK) line = lr.line;
    lua_pop(L, 1);
  }
  return line;
}

/* Compile r->out as luaL_loadbufferx would (lifting the loader's form:
** lift.h).  The inserted spans are freed first (r->nins stays): no caller
** of the loader reads them, and at 16 bytes a probe they were a tenth of
** a function-dense chunk's memory while Lua compiled it. */
static int compile(lua_State *L, li_rewrite_result *r, const char *name,
                   const char *mode) {
  int status;
  free(r->ins);
  r->ins = NULL;
  status = luaL_loadbufferx(L, r->out, r->outlen, name, mode);
  if (status == LUA_OK && r->probe_upvalue) status = li_lift(L, name);
  return status;
}

int li_instrument_load(lua_State *L, const char *src, size_t len,
                       const char *name, const char *mode,
                       const li_rewrite_opts *opts, li_rewrite_result *r,
                       int *instrumented) {
  li_rewrite_opts o;
  if (opts) o = *opts; else memset(&o, 0, sizeof o);
  if (o.chunkname == NULL) o.chunkname = name;
  *instrumented = 0;
  memset(r, 0, sizeof *r);
  if (mode && strchr(mode, 't') == NULL)     /* text not allowed: Lua says so */
    return luaL_loadbufferx(L, src, len, name, mode);
  /* (any other status, LI_ELIMIT too: the original, compiled once, gives
  ** Lua's own outcome; no retry) */
  int rs = li_rewrite(src, len, &o, r);
  if (rs == LI_EREJECT) {
    /* a chunk Lua's compiler rejects after parsing: the original, compiled
    ** once, gets Lua's own error.  Should it compile after all (the checks
    ** wrong), it is instrumented as before with them off, and says so. */
    char why[sizeof r->errmsg + 64];
    int status = luaL_loadbufferx(L, src, len, name, mode);
    if (status != LUA_OK) return status;
    lua_pop(L, 1);
    snprintf(why, sizeof why, "line %u: %s", (unsigned)r->errline, r->errmsg);
    li_rewrite_free(r);
    o.no_reject_checks = 1;
    rs = li_rewrite(src, len, &o, r);
    warn(r, "warning: the rewriter took the chunk for one Lua rejects, which Lua compiles: ", why);
  }
  if (rs != LI_OK || r->nins == 0)
    return luaL_loadbufferx(L, src, len, name, mode);

  unsigned char *skip = NULL;
  char *carried = NULL;          /* warnings of earlier attempts */
  int status;
  for (int attempt = 0;; attempt++) {
    status = compile(L, r, name, mode);
    if (status == LUA_OK) { *instrumented = 1; break; }
    if (status == LUA_ERRMEM) break;         /* out of memory: as Lua says */
    char *why = copy_str(lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    if (why == NULL) break;
    lua_pop(L, 1);
    status = luaL_loadbufferx(L, src, len, name, mode);
    if (status != LUA_OK) { free(why); break; }   /* Lua rejects the original */
    /* The original compiles, the instrumented text does not: a limit the
    ** rewriter did not foresee (a syntax limit, or nesting that runs out of
    ** C levels).  Leave the function at that line alone; when that is the
    ** main chunk or was done already, drop the loader's form (its wrapper
    ** nests everything two levels deeper); else give up. */
    uint32_t f = function_at(r, failure_line(L, why, r->out, r->outlen, name));
    if (skip == NULL) skip = calloc(r->nfuncs ? r->nfuncs : 1, 1);
    char msg[400];
    if (skip != NULL && f != 0 && !skip[f] && attempt < LI_MAX_RETRIES) {
      skip[f] = 1;
      snprintf(msg, sizeof msg, "function '%s' (line %u) left without probes: Lua rejected it instrumented: %s",
               r->funcs[f].name, (unsigned)r->funcs[f].line, why);
    } else if (skip != NULL && o.probe_upvalue && attempt < LI_MAX_RETRIES) {
      o.probe_upvalue = 0;
      msg[0] = '\0';
    } else {
      warn(r, "warning: chunk left without probes: Lua rejected the instrumented text: ", why);
      free(why);
      break;                                /* the original stays loaded */
    }
    free(why);
    lua_pop(L, 1);
    li_rewrite_result next;
    o.skip = skip; o.nskip = r->nfuncs;
    {
      li_rewrite_result tmp = *r;
      carried = tmp.warnings; tmp.warnings = NULL;
      li_rewrite_free(&tmp);
    }
    int st = li_rewrite(src, len, &o, &next);
    *r = next;
    if (carried) {
      size_t n = strlen(carried);
      if (n && carried[n - 1] == '\n') carried[n - 1] = '\0';
      warn(r, "", carried);
      free(carried);
      carried = NULL;
    }
    if (msg[0] != '\0') warn(r, "warning: ", msg);
    if (st != LI_OK || r->nins == 0) {
      status = luaL_loadbufferx(L, src, len, name, mode);
      break;
    }
  }
  free(skip);
  return status;
}
