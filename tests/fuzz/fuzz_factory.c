/*
** fuzz_factory.c -- libFuzzer target: the probe factory of
** runtime/profiler.c, `("").__luainstr(descriptor)`, on any bytes, as an
** instrumented chunk reaches it (the descriptor is
** "LI1\0chunkname\0nfuncs\0{name\0line\0lastline\0}").
**
** Input: one byte of flags, then the descriptor.
**   bit 0: the profiler runs (started; its timing calibration skipped, as
**          it measures the machine, not the input), so the probe records;
**   bit 1: trace mode on (a small buffer, so that it also fills);
**   bit 2: the same descriptor is handed over twice (a chunk loaded again).
** Each time, the probe it returns is called as instrumented code calls it
** (entries with ids in and out of range, exits in every form, recursion),
** then the profile is snapshot and written as json, which must parse.
** Properties: no crash, no leak (the state is closed after every input and
** LeakSanitizer sees the rest), the factory always returns a probe.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "fuzz_common.h"
#include "json_check.h"
#include "profiler.h"
#include "report.h"

/* Instrumented code's use of a probe P for a chunk of some functions. */
static const char driver[] =
  "local F, d = ...\n"
  "local P = F(d)\n"
  "local function f(n)\n"
  "  P(n)\n"
  "  if n > 0 and n < 6 then f(n + 1) end\n"
  "  if n % 2 == 0 then return P(0, n, nil) end\n"
  "  P()\n"
  "end\n"
  "for id = -2, 8 do f(id) end\n"
  "P(1); P(2); P(); P(0); P(0, 1, 2)\n"
  "local co = coroutine.create(function(...) P(3); coroutine.yield(P(0, ...)); P() end)\n"
  "coroutine.resume(co, 1, 2)\n"
  "return P\n";

/* The factory, from where instrumented chunks find it. */
static void push_factory(lua_State *L) {
  lua_pushliteral(L, "");
  FZ_CHECK(luaL_getmetafield(L, -1, "__index") == LUA_TTABLE,
           "no string metatable __index");
  FZ_CHECK(lua_getfield(L, -1, "__luainstr") == LUA_TFUNCTION, "no factory");
  lua_replace(L, -3);
  lua_pop(L, 1);
}

static void run_once(lua_State *L, const char *d, size_t n) {
  int top = lua_gettop(L);
  FZ_CHECK(luaL_loadbufferx(L, driver, sizeof driver - 1, "=driver", "t") == LUA_OK,
           "driver does not compile");
  push_factory(L);
  lua_pushlstring(L, d, n);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK)
    FZ_CHECK(0, "driver failed: %s", lua_tostring(L, -1));
  FZ_CHECK(li_is_probe(L, -1), "the factory returned something else than a probe");
  lua_settop(L, top);
}

static void dump_json(li_prof *P) {
  li_profile prof;
  char *out = NULL, err[200];
  size_t len = 0;
  if (li_snapshot(P, &prof) != 0) return;      /* out of memory */
  FZ_CHECK(li_report_to_string(&prof, "json", &out, &len) == 0, "json writer failed");
  FZ_CHECK(fz_json_valid(out, len, err, sizeof err), "invalid json: %s", err);
  free(out);
  li_snapshot_free(&prof);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned flags = size > 0 ? data[0] : 0;
  const char *d = size > 0 ? (const char *)data + 1 : "";
  size_t n = size > 0 ? size - 1 : 0;
  lua_State *L = luaL_newstate();
  li_prof *P;
  if (L == NULL) abort();
  luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
  lua_pop(L, 1);
  P = li_prof_attach(L);
  FZ_CHECK(P != NULL, "li_prof_attach failed");
  if (flags & 2) FZ_CHECK(li_prof_set_trace(P, 16, LI_KEEP_AUTO), "trace buffer");
  if (flags & 1) {
    P->calibrated = 1;
    FZ_CHECK(li_prof_start(P, L) == LUAINSTR_OK, "start failed");
  }
  run_once(L, d, n);
  if (flags & 4) run_once(L, d, n);
  if (flags & 1) dump_json(P);
  lua_close(L);
  return 0;
}
