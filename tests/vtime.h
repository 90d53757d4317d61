/*
** vtime.h -- a profiled state on virtual time, shared by the Criterion
** tests that check figures against known answers (test_frames.c,
** test_flight.c, test_resume.c).
**
** spin(ns) (a Lua global) advances time by ns and each read of the clock
** costs READ_NS of it, so every duration is known and no figure depends on
** how busy the machine is.  Included once by each test program (its
** functions are static inline: a program need not use them all).
*/
#ifndef LI_TEST_VTIME_H
#define LI_TEST_VTIME_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"

#define READ_NS 25ull
static unsigned long long vtime;

static inline unsigned long long vclock(void *ud) {
  (void)ud;
  vtime += READ_NS;
  return vtime;
}

/* spin(ns): ns of virtual time pass */
static inline int l_spin(lua_State *L) {
  vtime += (unsigned long long)luaL_checkinteger(L, 1);
  return 0;
}

/* A state with the standard libraries, on the virtual clock (not
** attached before the clock: the caller opens it). */
static inline lua_State *vstate_new(void) {
  lua_State *L = luaL_newstate();
  cr_assert_not_null(L);
  luaL_openlibs(L);
  vtime = 1000000;
  cr_assert_eq(luainstr_set_clock(L, "virtual", vclock, NULL, 1.0), LUAINSTR_OK);
  return L;
}

/* A profiled state on the virtual clock, with spin() as a global, and the
** options given ("name", "value", ..., NULL) set after luainstr_open. */
static inline lua_State *vstate(const char *opt, ...) {
  lua_State *L = vstate_new();
  va_list ap;
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  lua_register(L, "spin", l_spin);
  va_start(ap, opt);
  for (const char *name = opt; name != NULL; name = va_arg(ap, const char *)) {
    const char *value = va_arg(ap, const char *);
    cr_assert_eq(luainstr_set_option(L, name, value), LUAINSTR_OK, "%s=%s: %s",
                 name, value, luainstr_errmsg(L));
  }
  va_end(ap);
  return L;
}

/* Run src (instrumented, chunk "=t"); its results stay on the stack. */
static inline void vrun(lua_State *L, const char *src) {
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "=t", "t"), LUA_OK,
               "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, LUA_MULTRET, 0), LUA_OK, "%s", lua_tostring(L, -1));
}

static inline void snap(lua_State *L, li_profile *p) {
  cr_assert_eq(li_snapshot(li_prof_get(L), p), 0);
}

static inline uint32_t func_id(const li_profile *p, const char *name) {
  for (uint32_t i = 0; i < p->nfuncs; i++)
    if (strcmp(p->funcs[i].name, name) == 0) return i;
  cr_assert_fail("no function '%s' in the profile", name);
  return UINT32_MAX;
}

static inline const li_pfunc *func(const li_profile *p, const char *name) {
  return &p->funcs[func_id(p, name)];
}

static inline double rel(double got, double truth) {
  return fabs(got - truth) / truth;
}

#endif
