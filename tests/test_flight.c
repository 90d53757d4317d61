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
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "vtime.h"
#include "chrome_check.h"


static const char *fname(const li_profile *p, uint32_t func) {
  return func < p->nfuncs ? p->funcs[func].name : "-";
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
  lua_State *A = vstate("frames", "on", "trace", "recent 1000", NULL);
  lua_State *B;
  li_profile a, b;
  uint64_t off;
  int hitch = 0;
  vrun(A, session);
  snap(A, &a);
  B = vstate("frames", "on", "trace", "first 100000", NULL);
  vrun(B, session);
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
    lua_State *L = vstate("frames", c[i].frames, "trace", c[i].trace, NULL);
    li_profile p;
    vrun(L, session);
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
  lua_State *L = vstate(NULL);
  const char *bad[] = { "recent 0", "first x", "recentish", "last 5", "-3", "" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(luainstr_set_option(L, "trace", bad[i]), LUAINSTR_EARG, "%s", bad[i]);
  cr_assert_eq(luainstr_set_option(L, "trace", "0"), LUAINSTR_OK, "0: off");
  cr_assert_eq(luainstr_set_option(L, "trace", "recent"), LUAINSTR_OK);
  cr_assert_eq(li_prof_get(L)->trace_cap, 1000000);
  cr_assert_eq(sizeof(li_pevent), 24, "the size the header states");
  lua_close(L);
}

/* ---- idle spans ------------------------------------------------------------ */

#define MS 1000000.0

/* 100 frames of 0.5 ms of work and 16 ms of waiting for vsync; frames
** 10, 50 and 90 work 3 ms more: 19.5 ms frames among 16.5 ms ones, under
** twice the median frame, but six times the median busy time. */
static const char vsync[] =
  "local p = require 'luainstr'\n"
  "local function work() spin(500000) end\n"
  "local function hitch() spin(3000000) end\n"
  "local function wait()\n"
  "  assert(p.idle_begin()); spin(16000000); assert(p.idle_end())\n"
  "end\n"
  "for i = 1, 100 do\n"
  "  work()\n"
  "  if i == 10 or i == 50 or i == 90 then hitch() end\n"
  "  wait()\n"
  "  p.frame()\n"
  "end\n";

Test(idle, spikes_read_busy_time) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, vsync);
  snap(L, &p);
  cr_assert_eq(p.nframes, 100);
  cr_assert_eq(p.spikes_seen, 3, "%llu spikes", (unsigned long long)p.spikes_seen);
  cr_assert_eq(p.nspikes, 3);
  for (uint64_t i = 0; i < p.nframes; i++) {
    const li_pframe *f = &p.frames[i];
    int spike = f->index == 10 || f->index == 50 || f->index == 90;
    double busy = spike ? 3.5 * MS : 0.5 * MS;
    cr_assert_eq(f->spike != 0, spike, "frame %llu", (unsigned long long)f->index);
    cr_assert(rel((double)li_frame_busy(f), busy) < 0.05, "frame %llu: busy %llu ns",
              (unsigned long long)f->index, (unsigned long long)li_frame_busy(f));
    cr_assert(rel((double)f->idle_ns, 16 * MS) < 0.05, "frame %llu: idle %llu ns",
              (unsigned long long)f->index, (unsigned long long)f->idle_ns);
  }
  /* the wait is the zone "idle", not wait's own time */
  cr_assert(rel((double)func(&p, "zone idle")->self_ns, 1600 * MS) < 0.05);
  cr_assert_eq(func(&p, "zone idle")->calls, 100);
  cr_assert_lt(func(&p, "local wait")->self_ns, (uint64_t)(1 * MS),
               "wait charged %llu ns", (unsigned long long)func(&p, "local wait")->self_ns);
  li_snapshot_free(&p);
  lua_close(L);
}

/* From C, around the host's own wait, outside any Lua call; a span open
** at a mark is split there; nesting and ends without a begin refused. */
Test(idle, from_c_and_across_marks) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "function update() spin(1000000) end");
  for (int i = 0; i < 20; i++) {
    lua_getglobal(L, "update");
    cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
    cr_assert_eq(luainstr_idle_begin(L), LUAINSTR_OK);
    cr_assert_eq(luainstr_idle_begin(L), LUAINSTR_EORDER);
    vtime += 5000000;
    if (i == 10) {                 /* a mark inside the wait: 5 + 5 ms */
      cr_assert_eq(luainstr_frame(L), LUAINSTR_OK);
      vtime += 5000000;
    }
    cr_assert_eq(luainstr_idle_end(L), LUAINSTR_OK);
    if (i != 10) cr_assert_eq(luainstr_frame(L), LUAINSTR_OK);
  }
  cr_assert_eq(luainstr_idle_end(L), LUAINSTR_EORDER);
  cr_assert_not_null(strstr(luainstr_errmsg(L), "no idle span"));
  snap(L, &p);
  cr_assert_eq(p.nframes, 20);
  for (uint64_t i = 1; i < p.nframes; i++) {
    const li_pframe *f = &p.frames[i];
    double idle = f->index == 12 ? 10 * MS : 5 * MS;  /* 5 ms of 11's */
    cr_assert(rel((double)f->idle_ns, idle) < 0.05, "frame %llu: idle %llu",
              (unsigned long long)f->index, (unsigned long long)f->idle_ns);
    cr_assert(rel((double)li_frame_busy(f), 1 * MS) < 0.05, "frame %llu: busy %llu",
              (unsigned long long)f->index, (unsigned long long)li_frame_busy(f));
  }
  cr_assert_eq(p.spikes_seen, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* Outside frame mode an idle span is the zone only; not collecting, it is
** nothing. */
Test(idle, without_frames) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "for i = 1, 4 do assert(p.idle_begin()); spin(2000000); assert(p.idle_end()) end\n"
         "assert(p.idle_end() == nil)\n"
         "p.stop(); assert(p.idle_begin()); assert(p.idle_end()); p.start()\n");
  snap(L, &p);
  cr_assert(rel((double)func(&p, "zone idle")->self_ns, 8 * MS) < 0.05);
  cr_assert_eq(func(&p, "zone idle")->calls, 4);
  cr_assert_eq(p.nframes, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* The text summary gives busy figures, json each frame's busy and idle. */
Test(idle, in_the_reports) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  char *out = NULL;
  size_t n = 0;
  vrun(L, vsync);
  snap(L, &p);
  cr_assert_eq(li_report_to_string(&p, "text", &out, &n), 0);
  cr_assert_not_null(strstr(out, "\n  busy (less idle spans): mean 59"), "%s", out);
  cr_assert_not_null(strstr(out, ", p50 50"), "%s", out);   /* 500 us busy */
  cr_assert_not_null(strstr(out, "; idle: mean 16.0 ms\n"), "%s", out);
  /* a spike line says the busy time the rule read, next to the duration */
  cr_assert_not_null(strstr(out, "  frame 10  19.5 ms (busy 3.50 ms): "), "%s", out);
  free(out);
  cr_assert_eq(li_report_to_string(&p, "json", &out, &n), 0);
  cr_assert_not_null(strstr(out, "{\"index\": 10, "), "%s", out);
  {
    const char *f10 = strstr(out, "{\"index\": 10, ");
    unsigned long long busy = 0, idle = 0;
    const char *b = strstr(f10, "\"busy_ns\": "), *i = strstr(f10, "\"idle_ns\": ");
    cr_assert(b != NULL && i != NULL);
    sscanf(b + 11, "%llu", &busy);
    sscanf(i + 11, "%llu", &idle);
    cr_assert(rel((double)busy, 3.5 * MS) < 0.05, "%llu", busy);
    cr_assert(rel((double)idle, 16 * MS) < 0.05, "%llu", idle);
  }
  free(out);
  li_snapshot_free(&p);
  lua_close(L);
}

/* ---- a report that holds nothing ------------------------------------------- */

static int file_check(const char *path, const char *check) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import json,sys\n"
           "d = json.load(open(sys.argv[1]))\n"
           "ev = d[\"traceEvents\"]\n"
           "%s' %s", check, path);
  return system(cmd);
}

/* chrome without trace mode or frames: written, valid, and said so. */
Test(empty, chrome_without_trace_or_frames) {
  lua_State *L = vstate(NULL);
  char path[] = "/tmp/li-empty-XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  vrun(L, "local function f() spin(1000) end f()");
  cr_assert_eq(luainstr_dump(L, "chrome", path), LUAINSTR_EEMPTY);
  cr_assert_not_null(strstr(luainstr_errmsg(L), "trace mode was off"), "%s",
                     luainstr_errmsg(L));
  cr_assert_not_null(strstr(luainstr_errmsg(L), "'trace'"));
  cr_assert_eq(file_check(path, "assert ev == [] and d[\"otherData\"][\"tracing\"] is False\n"), 0);
  /* other formats have the summary at least */
  cr_assert_eq(luainstr_dump(L, "json", path), LUAINSTR_OK);
  /* the Lua API: the usual value, and the message second */
  vrun(L, "local p = require 'luainstr'\n"
         "local s, msg = p.dump('chrome')\n"
         "assert(s:find('traceEvents', 1, true) and msg:find('holds nothing', 1, true))\n");
  {
    static const char chrome[] = "return require('luainstr').dump_to(..., 'chrome')";
    static const char text[] = "return require('luainstr').dump_to(..., 'text')";
    lua_settop(L, 0);
    cr_assert_eq(luainstr_loadbufferx(L, chrome, strlen(chrome), "=d", "t"), LUA_OK);
    lua_pushstring(L, path);
    cr_assert_eq(lua_pcall(L, 1, LUA_MULTRET, 0), LUA_OK, "%s", lua_tostring(L, -1));
    cr_assert_eq(lua_gettop(L), 2);
    cr_assert_eq(lua_toboolean(L, 1), 1);
    cr_assert_not_null(strstr(lua_tostring(L, 2), "holds nothing"));
    lua_settop(L, 0);
    cr_assert_eq(luainstr_loadbufferx(L, text, strlen(text), "=d", "t"), LUA_OK);
    lua_pushstring(L, path);
    cr_assert_eq(lua_pcall(L, 1, LUA_MULTRET, 0), LUA_OK);
    cr_assert_eq(lua_gettop(L), 1, "text: just true");
  }
  remove(path);
  lua_close(L);
}

/* Frames alone, or trace events, are something: OK. */
Test(empty, frames_or_events_are_something) {
  lua_State *L = vstate("frames", "on", NULL);
  vrun(L, "local p = require 'luainstr'\n"
         "for i = 1, 3 do spin(1000000); p.frame() end\n");
  cr_assert_eq(luainstr_dump(L, "chrome", "/dev/null"), LUAINSTR_OK, "%s",
               luainstr_errmsg(L));
  lua_close(L);
  L = vstate("trace", "on", NULL);
  cr_assert_eq(luainstr_dump(L, "chrome", "/dev/null"), LUAINSTR_EEMPTY);
  cr_assert_not_null(strstr(luainstr_errmsg(L), "recorded no event"));
  vrun(L, "local function f() spin(1000) end f()");
  cr_assert_eq(luainstr_dump(L, "chrome", "/dev/null"), LUAINSTR_OK);
  lua_close(L);
}

/* luaprof warns on stderr and exits 0 (the report is written). */
Test(empty, luaprof_warns) {
  char dir[] = "/tmp/li-empty-XXXXXX", cmd[1024], *err;
  FILE *f;
  long len;
  cr_assert_not_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "%s/s.lua", dir);
  f = fopen(cmd, "w");
  fputs("local function f() return 1 end f()\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && %s/luaprof -f chrome --exclude '*' -o t.json s.lua "
           "2>err.txt", dir, LI_BIN_DIR);
  cr_assert_eq(system(cmd), 0, "luaprof failed");
  snprintf(cmd, sizeof cmd, "%s/err.txt", dir);
  f = fopen(cmd, "r");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  rewind(f);
  err = calloc(1, (size_t)len + 1);
  cr_assert_eq(fread(err, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  cr_assert_not_null(strstr(err, "luaprof: warning: the chrome trace holds nothing"), "%s", err);
  cr_assert_eq(strchr(err, '\n'), err + len - 1, "one line: %s", err);
  free(err);
  snprintf(cmd, sizeof cmd, "%s/t.json", dir);
  cr_assert_eq(file_check(cmd, "assert ev == []\n"), 0);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}
