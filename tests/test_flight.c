/*
** test_flight.c -- what a game needs from a session read afterwards, in
** virtual time (as test_frames.c): a trace ring that keeps the end of the
** session (the flight recorder), idle spans kept apart from a frame's busy
** time, and a report that holds nothing said so.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"

/* ---- a state on virtual time (as test_frames.c's) ------------------------- */

#define READ_NS 25ull
static unsigned long long vtime;

static unsigned long long vclock(void *ud) {
  (void)ud;
  vtime += READ_NS;
  return vtime;
}

static int l_spin(lua_State *L) {
  vtime += (unsigned long long)luaL_checkinteger(L, 1);
  return 0;
}

static lua_State *state(const char *opt, ...) {
  lua_State *L = luaL_newstate();
  va_list ap;
  cr_assert_not_null(L);
  luaL_openlibs(L);
  vtime = 1000000;
  cr_assert_eq(luainstr_set_clock(L, "virtual", vclock, NULL, 1.0), LUAINSTR_OK);
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

static void run(lua_State *L, const char *src) {
  cr_assert_eq(luainstr_loadbufferx(L, src, strlen(src), "=t", "t"), LUA_OK,
               "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, LUA_MULTRET, 0), LUA_OK, "%s", lua_tostring(L, -1));
}

static void snap(lua_State *L, li_profile *p) {
  cr_assert_eq(li_snapshot(li_prof_get(L), p), 0);
}

static const char *fname(const li_profile *p, uint32_t func) {
  return func < p->nfuncs ? p->funcs[func].name : "-";
}

/* The chrome trace of p read by Python's json module, check run on d and
** ev; 0 when every assert holds. */
static int chrome_check(const li_profile *p, const char *check) {
  char path[] = "/tmp/li-flight-XXXXXX", cmd[8192];
  int fd = mkstemp(path), st;
  FILE *f = fdopen(fd, "w");
  cr_assert_eq(li_report_write(p, "chrome", f), 0);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys\n"
           "d = json.load(open(sys.argv[1]))\n"
           "ev = d[\"traceEvents\"]\n"
           "%s' %s", check, path);
  st = system(cmd);
  remove(path);
  return st;
}

/* Python: every track's B and E pair up, each E closing the B on top of
** its track, and no E comes without its B. */
#define BALANCED \
  "stacks = {}\n" \
  "for e in ev:\n" \
  "  if e.get(\"ph\") == \"B\": stacks.setdefault(e[\"tid\"], []).append(e[\"name\"])\n" \
  "  elif e.get(\"ph\") == \"E\":\n" \
  "    s = stacks.get(e[\"tid\"])\n" \
  "    assert s, (\"an end without its begin\", e)\n" \
  "    top = s.pop()\n" \
  "    assert top == e[\"name\"], (top, e)\n" \
  "assert all(not s for s in stacks.values()), stacks\n" \
  "ts = [e[\"ts\"] for e in ev if \"ts\" in e and e.get(\"cat\") != \"frame\"]\n"

/* ---- the trace ring ------------------------------------------------------- */

/* 300 frames of a game loop; frame 290 has a 5 ms hitch (deep inside). */
static const char session[] =
  "local p = require 'luainstr'\n"
  "local function step() spin(50000) end\n"
  "local function deep() spin(5000000) end\n"
  "local function hitch() deep() end\n"
  "local function update(i)\n"
  "  step(); step(); step()\n"
  "  if i == 290 then hitch() end\n"
  "end\n"
  "local function game()\n"
  "  for i = 1, 300 do update(i); p.frame() end\n"
  "end\n"
  "game()\n";

/* The ring keeps the last 1000 events of the session, in order: the same
** as the last 1000 of a trace that kept them all. */
Test(trace, ring_keeps_the_end) {
  lua_State *A = state("frames", "on", "trace", "recent 1000", NULL);
  lua_State *B;
  li_profile a, b;
  uint64_t off;
  int hitch = 0;
  run(A, session);
  snap(A, &a);
  B = state("frames", "on", "trace", "first 100000", NULL);
  run(B, session);
  snap(B, &b);
  cr_assert_eq(b.events_dropped, 0);
  cr_assert_gt(b.nevents, 2000, "%llu events", (unsigned long long)b.nevents);
  cr_assert(a.trace_recent);
  cr_assert_not(b.trace_recent);
  cr_assert_eq(a.nevents, 1000);
  cr_assert_eq(a.trace_capacity, 1000);
  cr_assert_eq(a.events_dropped, b.nevents - 1000, "%llu overwritten",
               (unsigned long long)a.events_dropped);
  off = b.nevents - 1000;
  for (uint64_t i = 0; i < a.nevents; i++) {
    const li_pevent *x = &a.events[i], *y = &b.events[off + i];
    cr_assert_eq(x->kind, y->kind, "event %llu", (unsigned long long)i);
    cr_assert_eq(x->thread, y->thread);
    cr_assert_str_eq(fname(&a, x->func), fname(&b, y->func));
    cr_assert_eq(x->ts_ns, y->ts_ns, "event %llu", (unsigned long long)i);
    if (i > 0) cr_assert_geq(x->ts_ns, a.events[i - 1].ts_ns);
    if (x->kind == 'B' && strcmp(fname(&a, x->func), "local deep") == 0) hitch++;
  }
  cr_assert_eq(hitch, 1, "the late spike's calls are in the ring");
  cr_assert_eq(a.events[a.nevents - 1].kind, 'E', "the session's end is kept");
  cr_assert_str_eq(fname(&a, a.events[a.nevents - 1].func), "main chunk");
  /* the chrome trace parses and balances: game and the main chunk, open
  ** when the ring begins, are begun at its first timestamp */
  cr_assert_eq(chrome_check(&a, BALANCED
    "assert ts == sorted(ts)\n"
    "early = [e[\"name\"] for e in ev if e.get(\"args\", {}).get(\"begun_before_trace\")]\n"
    "assert early[:2] == [\"main chunk (t)\", \"local game (t:9)\"], early\n"
    "assert any(e[\"name\"].startswith(\"local deep\") for e in ev)\n"
    "assert d[\"otherData\"][\"trace_keeps\"] == \"recent\"\n"
    "assert any(\"overwritten\" in e[\"name\"] for e in ev)\n"), 0);
  li_snapshot_free(&a);
  li_snapshot_free(&b);
  lua_close(A);
  lua_close(B);
}

/* "on" or a bare size keeps the recent events in frame mode, the first
** ones without it; "first" keeps the first ones in frame mode too. */
Test(trace, default_follows_frame_mode) {
  static const struct { const char *frames, *trace; int recent; } c[] = {
    {"on", "300", 1}, {"off", "300", 0}, {"on", "first 300", 0},
    {"off", "recent:300", 1},
  };
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    lua_State *L = state("frames", c[i].frames, "trace", c[i].trace, NULL);
    li_profile p;
    run(L, session);
    snap(L, &p);
    cr_assert_eq(p.nevents, 300);
    cr_assert_gt(p.events_dropped, 0);
    cr_assert_eq(p.trace_recent, c[i].recent, "frames %s, trace %s",
                 c[i].frames, c[i].trace);
    /* the recent events end with the main chunk, the first begin with it */
    cr_assert_str_eq(fname(&p, p.events[c[i].recent ? p.nevents - 1 : 0].func),
                     "main chunk");
    cr_assert_eq(chrome_check(&p, BALANCED), 0);
    li_snapshot_free(&p);
    lua_close(L);
  }
}

Test(trace, bad_values) {
  lua_State *L = state(NULL);
  const char *bad[] = { "recent 0", "first x", "recentish", "last 5", "-3", "" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(luainstr_set_option(L, "trace", bad[i]), LUAINSTR_EARG, "%s", bad[i]);
  cr_assert_eq(luainstr_set_option(L, "trace", "0"), LUAINSTR_OK, "0: off");
  cr_assert_eq(luainstr_set_option(L, "trace", "recent"), LUAINSTR_OK);
  cr_assert_eq(li_prof_get(L)->trace_cap, 1000000);
  cr_assert_eq(sizeof(li_pevent), 24, "the size the header states");
  lua_close(L);
}
