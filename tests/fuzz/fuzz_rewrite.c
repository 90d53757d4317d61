/*
** fuzz_rewrite.c -- libFuzzer target: the rewriter and the one loader path
** against Lua 5.4's own compiler, on any bytes.
**
** For an input that Lua compiles (luaL_loadbufferx, mode "t"):
**  - li_rewrite accepts it, in the offline form and in the loader's form
**    (probe_upvalue = 1), and reports one function per prototype Lua
**    makes, with Lua's linedefined/lastlinedefined and nesting (read from
**    a binary dump of the original);
**  - the output minus the inserted spans is the input, and no inserted
**    span holds a line break;
**  - the output compiles, and its prototypes (less the prologue's) have the
**    original's lines, parameters and vararg flag;
**  - li_instrument_load loads it (instrumented, unless a warning says
**    why), and what it loaded has the original's prototypes too.
** For an input Lua rejects: li_instrument_load returns Lua's status and
** message, byte for byte.
**
** Compile depth: the original and every instrumented text are compiled by
** luaL_loadbufferx called from this function, so at the same C depth.  An
** instrumented text that fails with "C stack overflow" where the original
** compiles is the known limit of docs/limits.md (deep nesting near Lua's
** 200 C levels): it is counted and reported on stderr (and the input saved
** to $LI_FUZZ_DEPTH_DIR if set), and fails the target only with
** LI_FUZZ_DEPTH_STRICT=1.  Any other compile error of an instrumented text
** fails the target.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "fuzz_common.h"
#include "instrument.h"
#include "protos.h"
#include "rewrite.h"

#define CHUNKNAME "=fuzz"

/* Forms of the rewrite, as the offset of the original prototypes in the
** compiled text's list (the prologue's no-op factory adds two to an offline
** main chunk; the loader's wrapper is one function around the chunk). */
enum { OFFLINE_SHIFT = 2, WRAPPER_SHIFT = 1 };

static unsigned long depth_hits;

/* ---- known-limit reporting ----------------------------------------------- */

static void save_input(const char *dir, const uint8_t *data, size_t size) {
  char path[4096];
  uint64_t h = 1469598103934665603u;             /* FNV-1a, for a name */
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
  snprintf(path, sizeof path, "%s/depth-%016llx.lua", dir, (unsigned long long)h);
  FILE *f = fopen(path, "wb");
  if (f == NULL) return;
  fwrite(data, 1, size, f);
  fclose(f);
}

/* An instrumented text failed where the original compiles: a depth limit
** is reported (or fatal when strict), anything else is a defect. */
static void rejected(const char *what, const char *msg, const uint8_t *data,
                     size_t size) {
  int depth = strstr(msg, "C stack overflow") != NULL;
  const char *strict = getenv("LI_FUZZ_DEPTH_STRICT");
  const char *dir = getenv("LI_FUZZ_DEPTH_DIR");
  FZ_CHECK(depth, "%s: Lua rejects the instrumented text of an input it "
           "compiles: %s", what, msg);
  FZ_CHECK(strict == NULL || strcmp(strict, "1") != 0,
           "%s: depth limit (LI_FUZZ_DEPTH_STRICT=1): %s", what, msg);
  if (++depth_hits <= 10 || (depth_hits & (depth_hits - 1)) == 0)
    fprintf(stderr, "fuzz_rewrite: known depth limit #%lu (%s): %s\n",
            depth_hits, what, msg);
  if (dir != NULL) save_input(dir, data, size);
}

/* Every warning of the loader that says Lua rejected an instrumented text
** must be a depth limit. */
static void check_warnings(const char *what, const char *w, const uint8_t *data,
                           size_t size) {
  char line[1024];
  while (w != NULL && *w != '\0') {
    const char *nl = strchr(w, '\n');
    size_t n = nl ? (size_t)(nl - w) : strlen(w);
    snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), w);
    if (strstr(line, "Lua rejected") != NULL) rejected(what, line, data, size);
    w = nl ? nl + 1 : NULL;
  }
}

/* ---- properties of one rewrite -------------------------------------------- */

/* out minus the inserted spans is src; no span holds a line break. */
static void check_spans(const char *src, size_t len, const li_rewrite_result *r) {
  size_t o = 0, s = 0;
  FZ_CHECK(r->out != NULL && r->out[r->outlen] == '\0', "output not terminated");
  for (size_t k = 0; k < r->nins; k++) {
    size_t at = r->ins[2 * k], n = r->ins[2 * k + 1];
    FZ_CHECK(at >= o && n > 0 && at + n <= r->outlen,
             "span %zu (%zu+%zu) out of order or bounds (out %zu)", k, at, n, r->outlen);
    FZ_CHECK(at - o <= len - s && memcmp(r->out + o, src + s, at - o) == 0,
             "output differs from input before span %zu", k);
    s += at - o;
    FZ_CHECK(memchr(r->out + at, '\n', n) == NULL && memchr(r->out + at, '\r', n) == NULL,
             "span %zu holds a line break", k);
    o = at + n;
  }
  FZ_CHECK(r->outlen - o == len - s && memcmp(r->out + o, src + s, len - s) == 0,
           "output differs from input after the last span");
}

/* The rewriter's functions are Lua's prototypes, one for one. */
static void check_funcs(const li_rewrite_result *r, const fz_protos *orig) {
  FZ_CHECK(r->nfuncs == orig->n, "rewriter has %u functions, Lua %u",
           (unsigned)r->nfuncs, (unsigned)orig->n);
  for (uint32_t i = 0; i < r->nfuncs; i++) {
    const li_funcdesc *d = &r->funcs[i];
    const fz_proto *p = &orig->v[i];
    uint32_t parent = i == 0 ? 0 : p->parent + 1;
    FZ_CHECK(d->name != NULL, "function %u has no name", (unsigned)i + 1);
    FZ_CHECK(d->line == p->line && d->lastline == p->lastline,
             "function %u ('%s'): rewriter lines %u-%u, Lua %u-%u",
             (unsigned)i + 1, d->name, (unsigned)d->line, (unsigned)d->lastline,
             (unsigned)p->line, (unsigned)p->lastline);
    FZ_CHECK(d->parent == parent, "function %u: parent %u, Lua's %u",
             (unsigned)i + 1, (unsigned)d->parent, (unsigned)parent);
  }
}

/* The index in the original's list of prototype gp of a compiled text
** whose original prototypes start at `shift`. */
static uint32_t original_index(uint32_t gp, uint32_t shift) {
  if (shift == OFFLINE_SHIFT) return gp == 0 ? 0 : gp - OFFLINE_SHIFT;
  if (shift == WRAPPER_SHIFT) return gp == 0 ? UINT32_MAX : gp - WRAPPER_SHIFT;
  return gp;
}

/* The compiled instrumented chunk (prototypes got) has the original's
** prototypes from index `shift` on (main chunk: from 0 if shift is 0). */
static void check_compiled(const fz_protos *got, uint32_t shift,
                           const fz_protos *orig, const char *what) {
  FZ_CHECK(got->n == orig->n + shift, "%s: %u prototypes, original %u (+%u)",
           what, (unsigned)got->n, (unsigned)orig->n, (unsigned)shift);
  for (uint32_t i = 1; i < orig->n; i++) {
    const fz_proto *g = &got->v[i + shift], *p = &orig->v[i];
    uint32_t parent = original_index(g->parent, shift);
    FZ_CHECK(g->line == p->line && g->lastline == p->lastline,
             "%s: function %u at lines %u-%u, original %u-%u", what,
             (unsigned)i + 1, (unsigned)g->line, (unsigned)g->lastline,
             (unsigned)p->line, (unsigned)p->lastline);
    FZ_CHECK(g->numparams == p->numparams && g->is_vararg == p->is_vararg,
             "%s: function %u's parameters changed", what, (unsigned)i + 1);
    FZ_CHECK(parent == p->parent, "%s: function %u nested elsewhere", what,
             (unsigned)i + 1);
    FZ_CHECK(g->nupvalues == p->nupvalues || g->nupvalues == p->nupvalues + 1,
             "%s: function %u has %u upvalues, original %u", what,
             (unsigned)i + 1, g->nupvalues, p->nupvalues);
  }
}

/* Compile r->out directly (the text the CLI writes, or the loader's
** wrapper before its lift) and compare its prototypes. */
static void compile_output(lua_State *L, const li_rewrite_result *r,
                           const fz_protos *orig, const char *what,
                           const uint8_t *data, size_t size) {
  int top = lua_gettop(L);
  fz_protos got;
  if (r->nins == 0) return;                    /* nothing probed */
  if (luaL_loadbufferx(L, r->out, r->outlen, CHUNKNAME, "t") != LUA_OK) {
    rejected(what, lua_tostring(L, -1), data, size);
    lua_settop(L, top);
    return;
  }
  FZ_CHECK(fz_protos_of(L, &got), "%s: cannot read the dump", what);
  check_compiled(&got, r->probe_upvalue ? WRAPPER_SHIFT : OFFLINE_SHIFT, orig, what);
  if (r->probe_upvalue)
    FZ_CHECK(got.v[1].numparams == 0 && got.v[1].is_vararg, "%s: wrapped "
             "main chunk is not a vararg function", what);
  fz_protos_free(&got);
  lua_settop(L, top);
}

/* The one loader path, in one form. */
static void check_loader(lua_State *L, const char *src, size_t len, int upvalue,
                         int orig_status, const char *orig_msg,
                         const fz_protos *orig, const uint8_t *data) {
  const char *what = upvalue ? "li_instrument_load (loader's form)"
                             : "li_instrument_load (offline form)";
  li_rewrite_opts o;
  li_rewrite_result r;
  int instrumented = 0, top = lua_gettop(L), st;
  memset(&o, 0, sizeof o);
  o.version = 54;
  o.chunkname = CHUNKNAME;
  o.probe_upvalue = upvalue;
  o.count_small = len & 1 ? 64 : 0;     /* (half the inputs: counted forms) */
  st = li_instrument_load(L, src, len, CHUNKNAME, "t", &o, &r, &instrumented);
  if (orig_status != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    FZ_CHECK(st == orig_status && msg != NULL && strcmp(msg, orig_msg) == 0,
             "%s: status %d '%s', Lua says %d '%s'", what, st,
             msg ? msg : "(null)", orig_status, orig_msg);
  } else {
    FZ_CHECK(st == LUA_OK, "%s: fails (%s) on an input Lua compiles", what,
             lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    check_warnings(what, r.warnings, data, len);
    if (instrumented) {
      fz_protos got;
      int lifted = r.probe_upvalue;
      FZ_CHECK(fz_protos_of(L, &got), "%s: cannot read the dump", what);
      check_compiled(&got, lifted ? 0 : OFFLINE_SHIFT, orig, what);
      FZ_CHECK(got.v[0].line == 0 && got.v[0].lastline == 0 &&
               got.v[0].is_vararg && got.v[0].numparams == 0,
               "%s: loaded function is not a main chunk", what);
      FZ_CHECK(!lifted || got.v[0].nupvalues == 2, "%s: lifted main chunk "
               "has %u upvalues, not _ENV and the probe", what, got.v[0].nupvalues);
      fz_protos_free(&got);
    } else {
      /* loaded as it is: only when nothing was probed, or with a warning */
      FZ_CHECK(r.nins == 0 || r.warnings != NULL,
               "%s: loaded uninstrumented without a warning", what);
    }
  }
  li_rewrite_free(&r);
  lua_settop(L, top);
}

/* The rewriter itself, in one form. */
static void check_rewrite(lua_State *L, const char *src, size_t len, int upvalue,
                          int orig_status, const fz_protos *orig,
                          const uint8_t *data) {
  const char *what = upvalue ? "rewrite (loader's form)" : "rewrite (offline form)";
  li_rewrite_opts o;
  li_rewrite_result r;
  int st;
  memset(&o, 0, sizeof o);
  o.version = 54;
  o.chunkname = CHUNKNAME;
  o.probe_upvalue = upvalue;
  o.count_small = len & 1 ? 64 : 0;
  st = li_rewrite(src, len, &o, &r);
  if (st == LI_OK || st == LI_PASSTHROUGH) check_spans(src, len, &r);
  if (orig_status == LUA_OK) {
    FZ_CHECK(st == LI_OK, "%s: the rewriter rejects (%u: %s) an input Lua "
             "compiles", what, (unsigned)r.errline, r.errmsg);
    check_funcs(&r, orig);
    compile_output(L, &r, orig, what, data, len);
  }
  li_rewrite_free(&r);
}

/* Other dialects and the file view: no crash, spans still hold. */
static void check_other(const char *src, size_t len) {
  for (int version = 51; version <= 53; version++) {
    li_rewrite_opts o;
    li_rewrite_result r;
    memset(&o, 0, sizeof o);
    o.version = version;
    o.chunkname = "@fuzz.lua";
    o.skip_first_line = version == 53;
    int st = li_rewrite(src, len, &o, &r);
    if (st == LI_OK || st == LI_PASSTHROUGH) check_spans(src, len, &r);
    li_rewrite_free(&r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *src = (const char *)data;
  lua_State *L = luaL_newstate();
  fz_protos orig = {0};
  char *orig_msg = NULL;
  int orig_status;
  if (L == NULL) abort();
  orig_status = luaL_loadbufferx(L, src, size, CHUNKNAME, "t");
  if (orig_status == LUA_OK) {
    FZ_CHECK(fz_protos_of(L, &orig), "cannot read the original's dump");
  } else {
    const char *m = lua_tostring(L, -1);
    size_t n = m != NULL ? strlen(m) + 1 : 1;
    orig_msg = malloc(n);
    if (orig_msg == NULL) abort();
    memcpy(orig_msg, m != NULL ? m : "", n);
  }
  lua_settop(L, 0);
  for (int upvalue = 0; upvalue <= 1; upvalue++) {
    check_rewrite(L, src, size, upvalue, orig_status, &orig, data);
    check_loader(L, src, size, upvalue, orig_status, orig_msg, &orig, data);
  }
  check_other(src, size);
  fz_protos_free(&orig);
  free(orig_msg);
  lua_close(L);
  return 0;
}
