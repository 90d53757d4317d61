/*
** test_frames.c -- Criterion tests of frames, zones and memory per
** function, read from the profile model (li_snapshot) with known answers.
**
** Time is virtual (as in test_clock.c): spin(ns) advances it by ns and
** each read of the clock costs READ_NS of it, so every duration is known
** and no figure depends on how busy the machine is.  Memory figures are
** checked against what Lua itself counts (collectgarbage "count").
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
#include "vtime.h"


#define TOL 0.05
#define MS 1000000.0

/* The function with the most self time in a spike's tree. */
static const char *top_self(const li_profile *p, const li_pspike *s) {
  uint64_t *self = calloc(p->nfuncs, sizeof *self);
  uint32_t best = UINT32_MAX;
  for (uint32_t i = 1; i < s->nnodes; i++) self[s->nodes[i].func] += s->nodes[i].self_ns;
  for (uint32_t f = 0; f < p->nfuncs; f++)
    if (best == UINT32_MAX || self[f] > self[best]) best = f;
  free(self);
  return p->funcs[best].name;
}

/* ---- frames ------------------------------------------------------------- */

/* 100 frames of 2 ms; frames 10, 50 and 90 also spin 20 ms in hitch. */
static const char hundred[] =
  "local p = require 'luainstr'\n"
  "local function normal() spin(2000000) end\n"
  "local function hitch() spin(20000000) end\n"
  "for i = 1, 100 do\n"
  "  normal()\n"
  "  if i == 10 or i == 50 or i == 90 then hitch() end\n"
  "  assert(p.frame() == true)\n"
  "end\n";

Test(frames, three_spikes_known_answers) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, hundred);
  snap(L, &p);
  cr_assert(p.framing);
  cr_assert_eq(p.nframes, 100);
  cr_assert_eq(p.frames_marked, 100);
  cr_assert_eq(p.frame_capacity, 36000);
  cr_assert_eq(p.nspikes, 3, "%u spikes", p.nspikes);
  cr_assert_eq(p.spikes_seen, 3);
  for (uint64_t i = 0; i < p.nframes; i++) {
    const li_pframe *f = &p.frames[i];
    int spike = f->index == 10 || f->index == 50 || f->index == 90;
    double truth = spike ? 22 * MS : 2 * MS;
    cr_assert_eq(f->index, i + 1);
    cr_assert_eq(f->spike != 0, spike, "frame %llu", (unsigned long long)f->index);
    cr_assert(rel((double)f->duration_ns, truth) < TOL, "frame %llu: %llu ns",
              (unsigned long long)f->index, (unsigned long long)f->duration_ns);
    cr_assert_eq(f->calls, (spike ? 2u : 1u) + (f->index == 1), "frame %llu",
                 (unsigned long long)f->index);  /* 1: the main chunk too */
  }
  for (uint32_t s = 0; s < p.nspikes; s++) {
    const li_pspike *sp = &p.spikes[s];
    const li_pframe *f = &p.frames[sp->frame - 1];
    cr_assert_eq(sp->frame, s == 0 ? 10 : s == 1 ? 50 : 90);
    cr_assert_eq(f->spike, s + 1);
    cr_assert_str_eq(top_self(&p, sp), "local hitch");
    cr_assert(rel((double)sp->duration_ns, 22 * MS) < TOL);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* Three spikes of 20, 40 and 30 ms, two trees kept: the two slowest. */
Test(frames, the_slowest_spikes_are_kept) {
  lua_State *L = vstate("frames", "on", "spikes", "2", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function hitch(ms) spin(ms * 1000000) end\n"
         "for i = 1, 40 do\n"
         "  spin(1000000)\n"
         "  if i == 10 then hitch(20) elseif i == 20 then hitch(40)\n"
         "  elseif i == 30 then hitch(30) end\n"
         "  p.frame()\n"
         "end\n");
  snap(L, &p);
  cr_assert_eq(p.spikes_seen, 3);
  cr_assert_eq(p.nspikes, 2);
  cr_assert_eq(p.spikes[0].frame, 20);
  cr_assert_eq(p.spikes[1].frame, 30);
  cr_assert_eq(p.frames[9].spike, 0, "frame 10 lost its tree");
  cr_assert_neq(p.frames[19].spike, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* A ring of 50 frames keeps the last 50 of 100; a spike floor in ms. */
Test(frames, ring_buffer_and_floor) {
  lua_State *L = vstate("frames", "50", "spike_ms", "25", NULL);
  li_profile p;
  vrun(L, hundred);
  snap(L, &p);
  cr_assert_eq(p.nframes, 50);
  cr_assert_eq(p.frames_marked, 100);
  cr_assert_eq(p.frames[0].index, 51);
  cr_assert_eq(p.frames[49].index, 100);
  cr_assert_eq(p.spikes_seen, 0, "22 ms frames are under a 25 ms floor");
  li_snapshot_free(&p);
  lua_close(L);
}

/* A call that spans frames: each frame's tree holds its part, the whole
** run the whole call (min and max see one call of 10 frames). */
Test(frames, calls_across_marks) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function tick(i) spin(i == 8 and 30000000 or 3000000) end\n"
         "local function game()\n"
         "  for i = 1, 10 do tick(i); spin(1000000); p.frame() end\n"
         "end\n"
         "game()\n");
  snap(L, &p);
  {
    const li_pfunc *g = func(&p, "local game");
    double truth = 9 * 4 * MS + 31 * MS;
    cr_assert_eq(g->calls, 1);
    cr_assert(rel((double)g->total_ns, truth) < TOL, "%llu", (unsigned long long)g->total_ns);
    cr_assert(rel((double)g->max_ns, truth) < TOL, "max %llu", (unsigned long long)g->max_ns);
    cr_assert(rel((double)g->self_ns, 10 * MS) < TOL);
  }
  cr_assert_eq(p.nspikes, 1);
  cr_assert_eq(p.spikes[0].frame, 8);
  {
    const li_pspike *s = &p.spikes[0];
    uint32_t game = func_id(&p, "local game"), tick = func_id(&p, "local tick");
    int seen = 0;
    for (uint32_t i = 1; i < s->nnodes; i++) {
      const li_pnode *n = &s->nodes[i];
      cr_assert_lt(n->parent, i, "parents first");
      if (n->func == game) {   /* this frame's part only, entered before */
        cr_assert_eq(n->calls, 0);
        cr_assert(rel((double)n->total_ns, 31 * MS) < TOL, "%llu", (unsigned long long)n->total_ns);
        cr_assert(rel((double)n->self_ns, 1 * MS) < TOL);
        seen |= 1;
      }
      if (n->func == tick) {
        cr_assert_eq(n->calls, 1);
        cr_assert_eq(p.spikes[0].nodes[n->parent].func, game);
        cr_assert(rel((double)n->total_ns, 30 * MS) < TOL);
        seen |= 2;
      }
    }
    cr_assert_eq(seen, 3);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

Test(frames, off_by_default) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "return require('luainstr').frame()");
  cr_assert(!lua_toboolean(L, -1), "p.frame() is false when frames are off");
  cr_assert_eq(luainstr_frame(L), LUAINSTR_EORDER);
  cr_assert(strstr(luainstr_errmsg(L), "frames") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "frames", "0"), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_option(L, "spike_factor", "0.5"), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_option(L, "spikes", "2000"), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_option(L, "memory", "yes"), LUAINSTR_EARG);
  snap(L, &p);
  cr_assert(!p.framing);
  cr_assert_eq(p.nframes, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* The host marks frames from C. */
Test(frames, host_marks) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "function update(ms) spin(ms * 1000000) end");
  for (int i = 1; i <= 20; i++) {
    lua_getglobal(L, "update");
    lua_pushinteger(L, i == 15 ? 50 : 5);
    cr_assert_eq(lua_pcall(L, 1, 0, 0), LUA_OK);
    cr_assert_eq(luainstr_frame(L), LUAINSTR_OK);
  }
  snap(L, &p);
  /* frame 1 also holds the chunk's load and run */
  cr_assert_eq(p.frames_marked, 20);
  cr_assert_eq(p.nspikes, 1);
  cr_assert_eq(p.spikes[0].frame, 15);
  cr_assert(rel((double)p.frames[14].duration_ns, 50 * MS) < TOL);
  cr_assert_str_eq(top_self(&p, &p.spikes[0]), "update");
  li_snapshot_free(&p);
  lua_close(L);
}

/* Coroutines that wait across frames: a mark does not split them, and
** what they run when resumed counts in the frame that resumed them. */
Test(frames, coroutines_across_marks) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function work(ms) spin(ms * 1000000) end\n"
         "local function worker()\n"
         "  while true do work(1); coroutine.yield() end\n"
         "end\n"
         "local function sleeper() work(1); coroutine.yield(); work(25) end\n"
         "local w = coroutine.wrap(worker)\n"
         "local s = coroutine.create(sleeper)\n"
         "coroutine.resume(s)\n"
         "for i = 1, 12 do\n"
         "  w()\n"
         "  if i == 9 then coroutine.resume(s) end\n"
         "  p.frame()\n"
         "end\n");
  snap(L, &p);
  cr_assert_eq(p.frames_marked, 12);
  cr_assert_eq(p.nspikes, 1, "%u spikes", p.nspikes);
  cr_assert_eq(p.spikes[0].frame, 9);
  cr_assert(rel((double)p.frames[8].duration_ns, 26 * MS) < TOL);
  {
    const li_pspike *sp = &p.spikes[0];
    uint32_t sl = func_id(&p, "local sleeper"), wk = func_id(&p, "local work");
    int seen = 0;
    for (uint32_t i = 1; i < sp->nnodes; i++) {
      const li_pnode *n = &sp->nodes[i];
      if (n->func == sl) {        /* entered in frame 1, ended in frame 9 */
        cr_assert_eq(n->calls, 0);
        cr_assert(rel((double)n->total_ns, 25 * MS) < TOL, "%llu",
                  (unsigned long long)n->total_ns);
        seen |= 1;
      }
      if (n->func == wk && sp->nodes[n->parent].func == sl) {
        cr_assert_eq(n->calls, 1);
        seen |= 2;
      }
    }
    cr_assert_eq(seen, 3);
  }
  /* the whole run: sleeper's one call ran 26 ms, its wait not counted */
  cr_assert(rel((double)func(&p, "local sleeper")->total_ns, 26 * MS) < TOL);
  cr_assert(rel((double)func(&p, "local sleeper")->max_ns, 26 * MS) < TOL);
  li_snapshot_free(&p);
  lua_close(L);
}

/* The game loop in a coroutine, marking frames from inside it: the
** resumer waiting in coroutine.resume has none of the coroutine's time as
** its own in a frame. */
Test(frames, marks_inside_a_coroutine) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function update(i) spin(i == 5 and 30000000 or 2000000) end\n"
         "local function game()\n"
         "  for i = 1, 10 do update(i); p.frame() end\n"
         "end\n"
         "local function drive() coroutine.resume(coroutine.create(game)) end\n"
         "drive()\n");
  snap(L, &p);
  cr_assert_eq(p.nspikes, 1);
  cr_assert_eq(p.spikes[0].frame, 5);
  {
    const li_pspike *sp = &p.spikes[0];
    uint32_t drive = func_id(&p, "local drive");
    int seen = 0;
    cr_assert_str_eq(top_self(&p, sp), "local update");
    for (uint32_t i = 1; i < sp->nnodes; i++) {
      const li_pnode *n = &sp->nodes[i];
      if (n->func != drive) continue;
      cr_assert_lt(n->self_ns, 1000000, "drive's self in frame 5: %llu ns",
                   (unsigned long long)n->self_ns);
      cr_assert(rel((double)n->total_ns, 30 * MS) < TOL, "%llu",
                (unsigned long long)n->total_ns);
      seen = 1;
    }
    cr_assert(seen);
  }
  cr_assert_lt(func(&p, "local drive")->self_ns, 1000000);
  cr_assert(rel((double)func(&p, "local drive")->total_ns, 48 * MS) < TOL);
  li_snapshot_free(&p);
  lua_close(L);
}

/* A dump from inside a coroutine: the resumer, waiting in resume, has the
** coroutine's time as its callees', not as its own. */
Test(frames, dump_inside_a_coroutine) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function body() spin(20000000); coroutine.yield(p.dump('csv')) end\n"
         "local function drive() spin(1000000); return select(2, coroutine.resume(coroutine.create(body))) end\n"
         "return drive()\n");
  {
    const char *csv = lua_tostring(L, -1);
    const char *row = csv != NULL ? strstr(csv, "local drive,") : NULL;
    unsigned long long calls, total, self;
    cr_assert_not_null(row, "%s", csv ? csv : "(no csv)");
    row = strchr(row, ',') + 1;                  /* source */
    row = strchr(row, ',') + 1;                  /* line */
    row = strchr(row, ',') + 1;                  /* lastline */
    row = strchr(row, ',') + 1;
    cr_assert_eq(sscanf(row, "%llu,%llu,%llu", &calls, &total, &self), 3, "%s", row);
    cr_assert(rel((double)total, 21 * MS) < TOL, "total %llu", total);
    cr_assert(rel((double)self, 1 * MS) < TOL, "drive's self %llu ns (the "
              "coroutine's 20 ms are not its own)", self);
  }
  snap(L, &p);
  cr_assert(rel((double)func(&p, "local drive")->self_ns, 1 * MS) < TOL);
  li_snapshot_free(&p);
  lua_close(L);
}

/* A pause between marks is no frame's time; a reset starts the frames
** again from 1. */
Test(frames, pause_and_reset) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function work() spin(2000000) end\n"
         "for i = 1, 6 do\n"
         "  work()\n"
         "  if i == 3 then p.disable(); spin(500000000); p.enable() end\n"
         "  p.frame()\n"
         "end\n");
  snap(L, &p);
  cr_assert_eq(p.frames_marked, 6);
  cr_assert_eq(p.nspikes, 0, "the pause made a spike");
  for (uint64_t i = 1; i < p.nframes; i++)   /* frame 3: its work, no pause */
    cr_assert(rel((double)p.frames[i].duration_ns, 2 * MS) < TOL,
              "frame %llu: %llu ns", (unsigned long long)p.frames[i].index,
              (unsigned long long)p.frames[i].duration_ns);
  li_snapshot_free(&p);
  cr_assert_eq(luainstr_reset(L), LUAINSTR_OK);
  vrun(L, "local p = require 'luainstr'\n"
         "for i = 1, 2 do spin(1000000) p.frame() end\n");
  snap(L, &p);
  cr_assert_eq(p.frames_marked, 2);
  cr_assert_eq(p.frames[0].index, 1);
  li_snapshot_free(&p);
  lua_close(L);
}

/* Frame mode off and on again: the new frames' trees start afresh (hitch,
** saved in frame 7 of the first period, is saved again in frame 7 of the
** second: frame stamps never repeat). */
Test(frames, off_and_on_again) {
  lua_State *L = vstate("frames", "on", NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "function hitch() spin(30000000) end\n"
         "function normal() spin(1000000) end\n"
         "for i = 1, 10 do normal(); if i == 7 then hitch() end p.frame() end\n");
  cr_assert_eq(luainstr_set_option(L, "frames", "off"), LUAINSTR_OK);
  vrun(L, "for i = 1, 5 do normal() end");
  cr_assert_eq(luainstr_set_option(L, "frames", "on"), LUAINSTR_OK);
  vrun(L, "local p = require 'luainstr'\n"
         "for i = 1, 10 do normal(); if i == 7 then hitch() end p.frame() end\n");
  snap(L, &p);
  cr_assert_eq(p.frames_marked, 10, "a new ring");
  cr_assert_eq(p.nspikes, 1);
  cr_assert_eq(p.spikes[0].frame, 7);
  cr_assert_str_eq(top_self(&p, &p.spikes[0]), "hitch");
  for (uint32_t i = 1; i < p.spikes[0].nnodes; i++) {
    const li_pnode *n = &p.spikes[0].nodes[i];
    if (strcmp(p.funcs[n->func].name, "hitch") == 0) {
      cr_assert_eq(n->calls, 1, "hitch: %llu calls", (unsigned long long)n->calls);
      cr_assert(rel((double)n->total_ns, 30 * MS) < TOL);
    }
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* ---- zones -------------------------------------------------------------- */

/* The tree node of `name` whose parent's function is `parent` (NULL: the
** root), in the whole run's tree. */
static const li_pnode *node_of(const li_profile *p, const char *name,
                               const char *parent) {
  uint32_t f = func_id(p, name);
  for (uint32_t i = 1; i < p->nnodes; i++) {
    const li_pnode *n = &p->nodes[i];
    uint32_t pf = p->nodes[n->parent].func;
    if (n->func != f) continue;
    if (parent == NULL ? n->parent == 0
                       : pf != UINT32_MAX && strcmp(p->funcs[pf].name, parent) == 0)
      return n;
  }
  cr_assert_fail("no node %s under %s", name, parent ? parent : "the root");
  return NULL;
}

Test(zones, nest_with_calls) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function g() spin(4000000) end\n"
         "local function f()\n"
         "  p.zone_begin('a'); spin(1000000)\n"
         "  p.zone_begin('b'); spin(2000000); g(); p.zone_end()\n"
         "  p.zone_end()\n"
         "end\n"
         "f(); f()\n");
  snap(L, &p);
  {
    const li_pfunc *a = func(&p, "zone a");
    const li_pnode *b = node_of(&p, "zone b", "zone a");
    cr_assert(a->zone);
    cr_assert_str_eq(a->source, "zone");
    cr_assert_eq(a->calls, 2);
    cr_assert(rel((double)a->total_ns, 14 * MS) < TOL, "%llu", (unsigned long long)a->total_ns);
    cr_assert(rel((double)a->self_ns, 2 * MS) < TOL);
    cr_assert(rel((double)b->total_ns, 12 * MS) < TOL);
    cr_assert(rel((double)b->self_ns, 4 * MS) < TOL);
    cr_assert_eq(node_of(&p, "zone a", "local f")->calls, 2);
    cr_assert_eq(node_of(&p, "local g", "zone b")->calls, 2);
    cr_assert(!func(&p, "local f")->zone);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* A <close> zone ends with its function: normally, and through an error
** (counted as an exit by an error); the frames above it close too. */
Test(zones, close_values_and_errors) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function deep() spin(1000000); error('boom') end\n"
         "local function ok() local z <close> = p.zone('ok'); spin(3000000); return 1 end\n"
         "local function bad() local z <close> = p.zone('bad'); spin(2000000); deep() end\n"
         "local function after() spin(1000000) end\n"
         "assert(ok() == 1)\n"
         "assert(not pcall(bad))\n"
         "after()\n");
  snap(L, &p);
  {
    const li_pfunc *zok = func(&p, "zone ok"), *zbad = func(&p, "zone bad");
    cr_assert_eq(zok->calls, 1);
    cr_assert_eq(zok->errors, 0);
    cr_assert(rel((double)zok->total_ns, 3 * MS) < TOL);
    cr_assert_eq(zbad->calls, 1);
    cr_assert_eq(zbad->errors, 1);
    cr_assert(rel((double)zbad->total_ns, 3 * MS) < TOL, "%llu", (unsigned long long)zbad->total_ns);
    cr_assert_eq(func(&p, "local deep")->errors, 1);
    cr_assert_eq(func(&p, "local bad")->errors, 1);
    /* the stack is whole again: after() hangs under the main chunk */
    cr_assert_eq(node_of(&p, "local after", "main chunk")->calls, 1);
    cr_assert_eq(p.open_calls, 0);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* A zone left open across a yield: the time suspended is not its own. */
Test(zones, across_yields) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local function body()\n"
         "  p.zone_begin('co'); spin(1000000)\n"
         "  coroutine.yield(); spin(2000000)\n"
         "  p.zone_end()\n"
         "end\n"
         "local co = coroutine.create(body)\n"
         "coroutine.resume(co); spin(50000000); coroutine.resume(co)\n"
         "assert(coroutine.status(co) == 'dead')\n");
  snap(L, &p);
  cr_assert_eq(func(&p, "zone co")->calls, 1);
  cr_assert(rel((double)func(&p, "zone co")->total_ns, 3 * MS) < TOL,
            "%llu", (unsigned long long)func(&p, "zone co")->total_ns);
  node_of(&p, "zone co", "local body");
  li_snapshot_free(&p);
  lua_close(L);
}

/* One record a name, whatever string object carries it (a name made
** anew each time, the same literal), and a name with a NUL cut there. */
Test(zones, one_record_a_name) {
  lua_State *L = vstate(NULL);
  li_profile p;
  uint32_t n = 0;
  vrun(L, "local p = require 'luainstr'\n"
         "for i = 1, 50 do\n"
         "  p.zone_begin(('long zone name number %d'):format(i % 2)) p.zone_end()\n"
         "  p.zone_begin('short') p.zone_end()\n"
         "  p.zone_begin('cut\\0here') p.zone_end()\n"
         "end\n");
  snap(L, &p);
  cr_assert_eq(func(&p, "zone long zone name number 0")->calls, 25);
  cr_assert_eq(func(&p, "zone long zone name number 1")->calls, 25);
  cr_assert_eq(func(&p, "zone short")->calls, 50);
  cr_assert_eq(func(&p, "zone cut")->calls, 50);
  for (uint32_t i = 0; i < p.nfuncs; i++) n += p.funcs[i].zone;
  cr_assert_eq(n, 4, "%u zone records", n);
  li_snapshot_free(&p);
  lua_close(L);
}

/* zone_end without a zone on top is an error and changes nothing. */
Test(zones, unbalanced_end) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "local p = require 'luainstr'\n"
         "local ok, msg = pcall(p.zone_end)\n"
         "assert(not ok and msg:find('zone_end'), msg)\n"
         "local function opens() p.zone_begin('left open') spin(1000000) end\n"
         "local function ends() p.zone_end() end\n"
         "opens()\n"
         "local ok2, msg2 = pcall(ends)\n"
         "assert(not ok2 and msg2:find('no zone is open'), msg2)\n"
         "local function after() spin(1000000) end\n"
         "after()\n");
  snap(L, &p);
  /* the zone left open ended with opens(), not as an error */
  cr_assert_eq(func(&p, "zone left open")->errors, 0);
  cr_assert(rel((double)func(&p, "zone left open")->total_ns, 1 * MS) < TOL);
  cr_assert_eq(node_of(&p, "local after", "main chunk")->calls, 1);
  cr_assert_eq(p.open_calls, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* Zones from C: a host system around Lua calls, across base calls. */
Test(zones, from_c) {
  lua_State *L = vstate(NULL);
  li_profile p;
  vrun(L, "function step() spin(2000000) end");
  cr_assert_eq(luainstr_zone_end(L), LUAINSTR_EORDER, "nothing open");
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(luainstr_zone_begin(L, "physics"), LUAINSTR_OK);
    lua_getglobal(L, "step");
    cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
    lua_getglobal(L, "step");
    cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
    vtime += 1000000;
    cr_assert_eq(luainstr_zone_end(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  }
  snap(L, &p);
  cr_assert_eq(func(&p, "zone physics")->calls, 3);
  cr_assert(rel((double)func(&p, "zone physics")->total_ns, 15 * MS) < TOL,
            "%llu", (unsigned long long)func(&p, "zone physics")->total_ns);
  cr_assert_eq(node_of(&p, "step", "zone physics")->calls, 6);
  cr_assert_eq(node_of(&p, "zone physics", NULL)->calls, 3);
  li_snapshot_free(&p);
  lua_close(L);
}

/* ---- memory ------------------------------------------------------------- */

/* N tables of a known size: what make() allocated is what Lua counted
** (the collector stopped by the program, not by the profiler). */
Test(memory, allocations_match_lua_count) {
  lua_State *L = vstate("memory", "on", NULL);
  li_profile p;
  double counted;
  vrun(L, "collectgarbage('stop')\n"
         "local keep = {}\n"
         "local function make(n) for i = 1, n do keep[i] = {i, i, i} end end\n"
         "local before = collectgarbage('count')\n"
         "make(20000)\n"
         "return (collectgarbage('count') - before) * 1024\n");
  counted = lua_tonumber(L, -1);
  snap(L, &p);
  cr_assert(p.memory);
  {
    const li_pfunc *m = func(&p, "local make");
    cr_assert(rel((double)m->mem.alloc_bytes, counted) < TOL, "%llu vs %.0f",
              (unsigned long long)m->mem.alloc_bytes, counted);
    cr_assert_geq(m->mem.alloc_count, 20000);
    cr_assert_eq(m->mem.free_bytes, 0);
    /* nothing was freed: all of it is still live, keep's array too
    ** (make made it from nothing and grew it) */
    cr_assert(rel((double)m->mem.live_bytes, counted) < TOL, "%llu vs %.0f",
              (unsigned long long)m->mem.live_bytes, counted);
#if LUA_VERSION_NUM == 504 && !LI_IS_LUAJIT
    /* the tables (56 bytes and 3 values of 16), keep's array of 32768 */
    cr_assert(rel((double)m->mem.live_bytes, 20000 * (56.0 + 48) + 32768 * 16) < 0.01,
              "%llu", (unsigned long long)m->mem.live_bytes);
#endif
    cr_assert_geq(m->mem.max_alloc_bytes, 48);
    cr_assert_eq(m->mem.alloc_bytes_total, m->mem.alloc_bytes);
    cr_assert_gt(func(&p, "main chunk")->mem.alloc_bytes_total, m->mem.alloc_bytes);
  }
  cr_assert_gt(p.mem_map_bytes, 0);
  li_snapshot_free(&p);
  lua_close(L);
}

/* Garbage collected later goes back to about 0 live; a leak stays; the
** peak remembers the garbage.  (Each table is stored where it escapes its
** loop: LuaJIT's compiled code never makes one that does not, allocation
** sinking, tests/runtime/memory_count.lua.) */
Test(memory, garbage_and_leaks) {
  lua_State *L = vstate("memory", "on", NULL);
  li_profile p;
  vrun(L, "local function garbage() for i = 1, 5000 do LAST = {i, i} end end\n"
         "local function leaky() LEAK = {} for i = 1, 5000 do LEAK[i] = {i, i} end end\n"
         "collectgarbage('stop')\n"
         "garbage(); leaky()\n"
         "collectgarbage('restart'); collectgarbage(); collectgarbage()\n");
  snap(L, &p);
  {
    const li_pfunc *g = func(&p, "local garbage"), *k = func(&p, "local leaky");
    cr_assert_gt(g->mem.alloc_bytes, 5000 * 56);
    cr_assert_lt(g->mem.live_bytes, g->mem.alloc_bytes / 20, "%llu of %llu",
                 (unsigned long long)g->mem.live_bytes,
                 (unsigned long long)g->mem.alloc_bytes);
    cr_assert_geq(g->mem.peak_live_bytes, g->mem.alloc_bytes * 9 / 10);
    cr_assert_gt(g->mem.free_bytes, g->mem.alloc_bytes * 9 / 10);
    cr_assert_gt(k->mem.live_bytes, k->mem.alloc_bytes * 9 / 10, "%llu of %llu",
                 (unsigned long long)k->mem.live_bytes,
                 (unsigned long long)k->mem.alloc_bytes);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* Allocations inside a coroutine are its function's, not its resumer's;
** the main chunk's own are the main chunk's. */
Test(memory, coroutines_and_main_chunk) {
  lua_State *L = vstate("memory", "on", NULL);
  li_profile p;
  vrun(L, "local function body()\n"
         "  local t = {} for i = 1, 1000 do t[i] = {i} end\n"
         "  coroutine.yield(t)\n"
         "  local u = {} for i = 1, 1000 do u[i] = {i} end\n"
         "  return u\n"
         "end\n"
         "local function drive()\n"
         "  local co = coroutine.wrap(body)\n"
         "  local a = co(); local b = co(); return a, b\n"
         "end\n"
         "KEEP = {drive()}\n"
         "local mine = {} for i = 1, 300 do mine[i] = {} end\n");
  snap(L, &p);
  {
    const li_pfunc *b = func(&p, "local body"), *d = func(&p, "local drive");
    const li_pfunc *m = func(&p, "main chunk");
    cr_assert_gt(b->mem.alloc_bytes, 2000 * 48, "%llu", (unsigned long long)b->mem.alloc_bytes);
    cr_assert_lt(d->mem.alloc_bytes, b->mem.alloc_bytes / 4, "%llu", (unsigned long long)d->mem.alloc_bytes);
    cr_assert_gt(d->mem.alloc_bytes_total, b->mem.alloc_bytes, "inclusive holds the coroutine");
    cr_assert_gt(m->mem.alloc_bytes, 300 * 56);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* An allocator that aligns blocks to 8 bytes, not 16: every block is 8
** past a 16-byte boundary (the map's second table). */
static void *odd_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  char *base = ptr != NULL ? (char *)ptr - 8 : NULL, *q;
  (void)ud; (void)osize;
  if (nsize == 0) { free(base); return NULL; }
  q = realloc(base, nsize + 8);
  return q != NULL ? q + 8 : NULL;
}

Test(memory, blocks_aligned_to_8) {
  lua_State *L = lua_newstate(odd_alloc, NULL);
  li_profile p;
  cr_assert_not_null(L);
  luaL_openlibs(L);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  vrun(L, "local function garbage() for i = 1, 5000 do LAST = {i, i} end end\n"
         "local function leaky() LEAK = {} for i = 1, 5000 do LEAK[i] = {i, i} end end\n"
         "garbage(); leaky(); collectgarbage(); collectgarbage()\n"
         "return collectgarbage('count')\n");
  snap(L, &p);
  {
    const li_pfunc *g = func(&p, "local garbage"), *k = func(&p, "local leaky");
    cr_assert_gt(g->mem.alloc_bytes, 5000 * 56);
    cr_assert_lt(g->mem.live_bytes, g->mem.alloc_bytes / 20);
    cr_assert_gt(k->mem.live_bytes, k->mem.alloc_bytes * 9 / 10, "%llu of %llu",
                 (unsigned long long)k->mem.live_bytes,
                 (unsigned long long)k->mem.alloc_bytes);
    cr_assert_gt(p.mem_blocks, 5000);
  }
  li_snapshot_free(&p);
  lua_close(L);
}

/* Memory mode off gives the allocator back; the figures stay. */
Test(memory, off_gives_the_allocator_back) {
  lua_State *L = luaL_newstate();
  void *ud0, *ud1;
  lua_Alloc f0 = lua_getallocf(L, &ud0), f1;
  li_profile p;
  luaL_openlibs(L);
  cr_assert_eq(luainstr_open(L), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  cr_assert(lua_getallocf(L, NULL) != f0);
  vrun(L, "local function f() local t = {} for i = 1, 100 do t[i] = {} end return t end\n"
         "X = f()\n");
  cr_assert_eq(luainstr_set_option(L, "memory", "off"), LUAINSTR_OK);
  f1 = lua_getallocf(L, &ud1);
  cr_assert(f1 == f0 && ud1 == ud0);
  snap(L, &p);
  cr_assert(p.memory);
  cr_assert_gt(func(&p, "local f")->mem.alloc_bytes, 100 * 56);
  li_snapshot_free(&p);
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  vrun(L, "X = nil collectgarbage()");
  cr_assert_eq(luainstr_close(L), LUAINSTR_OK);
  f1 = lua_getallocf(L, &ud1);
  cr_assert(f1 == f0 && ud1 == ud0, "luainstr_close gives it back");
  cr_assert_eq(luainstr_set_option(L, "memory", "on"), LUAINSTR_OK);
  lua_close(L);      /* the profiler gives the allocator back as it goes */
}
