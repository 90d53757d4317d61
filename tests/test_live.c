/*
** test_live.c -- the live view's Lua-thread side (runtime/live.c): the
** records a profiled state posts to its channel, read from the channel's
** ring as the server's thread reads them, and commands put in as the
** server puts them.  Built for every Lua (test_live_lua5N, _luajit).
**
** Time is virtual (vtime.h), so every figure is known; the records'
** figures are checked against the json report of the same run, read by
** Python's json module: frames, a planted spike's tree, the function
** table.  The channel is in "page" mode (no server): the same records.
*/
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "live.h"
#include "vtime.h"

#define MS 1000000ull

/* ---- reading the channel ------------------------------------------------ */

typedef struct rec {
  uint32_t kind;
  size_t len;
  unsigned char *b;
} rec;

typedef struct recs {
  rec *v;
  size_t n, cap;
  uint32_t described;   /* functions FUNCS described so far */
  char **names;         /* their names */
} recs;

static li_live_chan *chan_of(lua_State *L) {
  li_live_chan *c = li_live_channel(li_prof_get(L));
  cr_assert_not_null(c, "no live channel");
  return c;
}

/* A FUNCS record's functions, to r->names; checks its layout. */
static void read_funcs(recs *r, const rec *x) {
  li_lrec_funcs h;
  size_t at = sizeof h;
  cr_assert_geq(x->len, sizeof h);
  memcpy(&h, x->b, sizeof h);
  cr_assert_eq(h.first, r->described, "FUNCS from %u, %u described", h.first, r->described);
  r->names = realloc(r->names, (h.first + h.count) * sizeof *r->names);
  for (uint32_t i = 0; i < h.count; i++) {
    li_lrec_func f;
    cr_assert_leq(at + sizeof f, x->len);
    memcpy(&f, x->b + at, sizeof f);
    at += sizeof f;
    cr_assert_leq(at + f.namelen + f.srclen, x->len);
    cr_assert_eq(x->b[at + f.namelen - 1], 0);
    cr_assert_eq(x->b[at + f.namelen + f.srclen - 1], 0);
    r->names[h.first + i] = strdup((const char *)x->b + at);
    at += f.namelen + f.srclen;
  }
  cr_assert_eq(at, x->len, "FUNCS: %zu bytes of %zu read", at, x->len);
  r->described += h.count;
}

/* Every function a record names must have been described before it. */
static void check_names(const recs *r, const rec *x) {
  if (x->kind == LI_LREC_SPIKE) {
    li_lrec_spike h;
    memcpy(&h, x->b, sizeof h);
    cr_assert_eq(x->len, sizeof h + h.n * sizeof(li_lrec_node));
    for (uint32_t i = 1; i < h.n; i++) {
      li_lrec_node n;
      memcpy(&n, x->b + sizeof h + i * sizeof n, sizeof n);
      cr_assert_lt(n.func, r->described, "SPIKE names function %u before FUNCS", n.func);
      cr_assert_lt(n.parent, i);
    }
  } else if (x->kind == LI_LREC_TABLE) {
    li_lrec_table h;
    memcpy(&h, x->b, sizeof h);
    cr_assert_eq(x->len, sizeof h + h.n * sizeof(li_lrec_row));
    cr_assert_leq(h.nfuncs, r->described);
    for (uint32_t i = 0; i < h.n; i++) {
      li_lrec_row w;
      memcpy(&w, x->b + sizeof h + i * sizeof w, sizeof w);
      cr_assert_lt(w.func, r->described, "TABLE names function %u before FUNCS", w.func);
    }
  }
}

/* Take every record waiting in the channel's out ring. */
static void drain(lua_State *L, recs *r) {
  li_live_chan *c = chan_of(L);
  uint32_t kind;
  size_t len;
  while (li_ring_peek(c->out, &kind, &len)) {
    rec x;
    x.kind = kind;
    x.len = len;
    x.b = malloc(len ? len : 1);
    cr_assert_eq(li_ring_get(c->out, &x.kind, x.b, len), len);
    cr_assert(kind >= LI_LREC_HELLO && kind < LI_LREC_KINDS, "kind %u", kind);
    if (kind == LI_LREC_FUNCS) read_funcs(r, &x);
    else check_names(r, &x);
    if (r->n == r->cap) {
      r->cap = r->cap ? r->cap * 2 : 256;
      r->v = realloc(r->v, r->cap * sizeof *r->v);
    }
    r->v[r->n++] = x;
  }
}

static void recs_free(recs *r) {
  for (size_t i = 0; i < r->n; i++) free(r->v[i].b);
  for (uint32_t i = 0; i < r->described; i++) free(r->names[i]);
  free(r->v);
  free(r->names);
  memset(r, 0, sizeof *r);
}

static size_t count(const recs *r, uint32_t kind) {
  size_t n = 0;
  for (size_t i = 0; i < r->n; i++) n += r->v[i].kind == kind;
  return n;
}

/* The last record of a kind (NULL: none). */
static const rec *last(const recs *r, uint32_t kind) {
  for (size_t i = r->n; i-- > 0;)
    if (r->v[i].kind == kind) return &r->v[i];
  return NULL;
}

/* Put a command in the channel as the server does. */
static void command(lua_State *L, uint32_t cmd, uint64_t id, const char *format) {
  li_live_chan *c = chan_of(L);
  li_live_cmd k;
  memset(&k, 0, sizeof k);
  k.cmd = cmd;
  k.id = id;
  k.spike_ms = -1;
  if (format != NULL) snprintf(k.format, sizeof k.format, "%s", format);
  cr_assert(li_ring_put(c->in, cmd, &k, sizeof k, NULL, 0));
  li_live_flag_set(c);
}

/* The ACK of command id (it must be there), its text in text[n]. */
static li_lrec_ack find_ack(const recs *r, uint64_t id, char *text, size_t n) {
  for (size_t i = 0; i < r->n; i++) {
    li_lrec_ack a;
    if (r->v[i].kind != LI_LREC_ACK) continue;
    memcpy(&a, r->v[i].b, sizeof a);
    if (a.id != id) continue;
    snprintf(text, n, "%.*s", (int)(r->v[i].len - sizeof a),
             (const char *)r->v[i].b + sizeof a);
    return a;
  }
  cr_assert_fail("no ack for command %llu", (unsigned long long)id);
  li_lrec_ack none = {0};
  return none;
}

static lua_State *live_state(const char *frames, const char *memory) {
  lua_State *L = vstate("frames", frames, "memory", memory, NULL);
  cr_assert_eq(luainstr_set_option(L, "live_name", "test state"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "live", "page"), LUAINSTR_OK, "%s",
               luainstr_errmsg(L));
  return L;
}

static void mark(lua_State *L) {
  cr_assert_eq(luainstr_frame(L), LUAINSTR_OK, "%s", luainstr_errmsg(L));
}

/* Run a Python check on files (argv after the script); its output. */
static char *python(const char *script, const char *args) {
  char path[] = "/tmp/li_live_py_XXXXXX", cmd[2048];
  int fd = mkstemp(path);
  FILE *p;
  static char out[4096];
  size_t n;
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, script, strlen(script)), (ssize_t)strlen(script));
  close(fd);
  snprintf(cmd, sizeof cmd, "python3 '%s' %s 2>&1", path, args);
  p = popen(cmd, "r");
  cr_assert_not_null(p);
  n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  cr_assert_eq(pclose(p), 0, "python3 failed: %s", out);
  unlink(path);
  return out;
}


/* ---- records in order, figures as the report's -------------------------- */

/* 100 frames of 10 ms (virtual); frame 60 also spins 80 ms in hitch;
** `grow` allocates (memory mode) and keeps some of it. */
static const char game[] =
  "local p = require 'luainstr'\n"
  "keep = {}\n"
  "local function grow(n) local t = {} for i = 1, n do t[i] = {i} end return t end\n"
  "local function update(i) spin(9000000) keep[i % 7] = grow(20) end\n"
  "local function hitch() spin(80000000) end\n"
  "local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end\n"
  "for i = 1, 100 do\n"
  "  update(i)\n"
  "  fib(5)\n"
  "  if i == 60 then hitch() end\n"
  "  assert(p.frame() == true)\n"
  "end\n";

/* Python: the records (a text file) against the json report. */
static const char compare_py[] =
  "import json, sys\n"
  "d = json.load(open(sys.argv[1]))\n"
  "fr = {f['index']: f for f in d['frames']}\n"
  "sp = {s['frame']: s for s in d['spikes']}\n"
  "fn = d['functions']\n"
  "nf = ns = nr = 0\n"
  "for line in open(sys.argv[2]):\n"
  "    w = line.split()\n"
  "    if w[0] == 'F':\n"
  "        i, dur, busy, idle, calls, alloc, spike = map(int, w[1:])\n"
  "        f = fr[i]\n"
  "        got = (dur, busy, idle, calls, alloc, bool(spike))\n"
  "        want = (f['duration_ns'], f['busy_ns'], f['idle_ns'], f['calls'], f['alloc_bytes'], f['spike'])\n"
  "        assert got == want, (i, got, want)\n"
  "        nf += 1\n"
  "    elif w[0] == 'S':\n"
  "        i, dur, n = map(int, w[1:4])\n"
  "        t = sp[i]['tree']\n"
  "        assert sp[i]['duration_ns'] == dur and len(t) == n, (i, dur, n)\n"
  "        nodes = [tuple(map(int, x.split(','))) for x in w[4:]]\n"
  "        for k, (func, parent, calls, total, self, alloc) in enumerate(nodes):\n"
  "            o = t[k]\n"
  "            want = (o['function'] if o['function'] is not None else -1,\n"
  "                    o['parent'] if o['parent'] is not None else -1,\n"
  "                    o['calls'], o['total_ns'], o['self_ns'], o['alloc_bytes'])\n"
  "            assert (func, parent, calls, total, self, alloc) == want, (i, k, want)\n"
  "        ns += 1\n"
  "    elif w[0] == 'R':\n"
  "        i, calls, self, total, alloc, live = map(int, w[1:])\n"
  "        f = fn[i]\n"
  "        want = (f['calls'], f['self_ns'], f['total_ns'], f['alloc_bytes'], f['live_bytes'])\n"
  "        assert (calls, self, total, alloc, live) == want, (f['name'], (calls, self, total, alloc, live), want)\n"
  "        nr += 1\n"
  "ran = sum(1 for f in fn if f['calls'] > 0)\n"
  "assert nr == ran, (nr, ran)\n"
  "print(nf, ns, nr)\n";

/* Write the records' figures for compare_py; the table is each function's
** last row (tables send the rows that changed). */
static void write_records(const recs *r, const char *path, size_t *nrows) {
  FILE *f = fopen(path, "w");
  li_lrec_row *rows = calloc(r->described + 1, sizeof *rows);
  char *seen = calloc(r->described + 1, 1);
  cr_assert_not_null(f);
  for (size_t i = 0; i < r->n; i++) {
    const rec *x = &r->v[i];
    if (x->kind == LI_LREC_FRAME) {
      li_lrec_frame o;
      memcpy(&o, x->b, sizeof o);
      fprintf(f, "F %llu %llu %llu %llu %llu %llu %u\n", (unsigned long long)o.index,
              (unsigned long long)o.duration_ns, (unsigned long long)o.busy_ns,
              (unsigned long long)o.idle_ns, (unsigned long long)o.calls,
              (unsigned long long)o.alloc_bytes, o.spike);
    } else if (x->kind == LI_LREC_SPIKE) {
      li_lrec_spike h;
      memcpy(&h, x->b, sizeof h);
      fprintf(f, "S %llu %llu %u", (unsigned long long)h.frame,
              (unsigned long long)h.duration_ns, h.n);
      for (uint32_t k = 0; k < h.n; k++) {
        li_lrec_node n;
        memcpy(&n, x->b + sizeof h + k * sizeof n, sizeof n);
        fprintf(f, " %lld,%lld,%llu,%lld,%lld,%llu",
                n.func == UINT32_MAX ? -1ll : (long long)n.func,
                n.parent == UINT32_MAX ? -1ll : (long long)n.parent,
                (unsigned long long)n.calls, (long long)n.total_ns,
                (long long)n.self_ns, (unsigned long long)n.alloc_bytes);
      }
      fputc('\n', f);
    } else if (x->kind == LI_LREC_TABLE) {
      li_lrec_table h;
      memcpy(&h, x->b, sizeof h);
      for (uint32_t k = 0; k < h.n; k++) {
        li_lrec_row w;
        memcpy(&w, x->b + sizeof h + k * sizeof w, sizeof w);
        rows[w.func] = w;
        seen[w.func] = 1;
      }
    }
  }
  *nrows = 0;
  for (uint32_t i = 0; i < r->described; i++) {
    if (!seen[i] || rows[i].calls == 0) continue;
    fprintf(f, "R %u %llu %lld %lld %llu %lld\n", i, (unsigned long long)rows[i].calls,
            (long long)rows[i].self_ns, (long long)rows[i].total_ns,
            (unsigned long long)rows[i].alloc_bytes, (long long)rows[i].live_bytes);
    (*nrows)++;
  }
  fclose(f);
  free(rows);
  free(seen);
}

Test(live, records_in_order_match_the_json_report) {
  lua_State *L = live_state("on", "on");
  recs r = {0};
  char json[] = "/tmp/li_live_json_XXXXXX", txt[] = "/tmp/li_live_txt_XXXXXX";
  char args[128], want[64];
  size_t nrows;
  li_lrec_hello h;
  li_lrec_status st;
  drain(L, &r);
  /* at attach: HELLO (the name after it), STATUS, FUNCS (none yet: no
  ** chunk loaded) */
  cr_assert_geq(r.n, 2);
  cr_assert_eq(r.v[0].kind, LI_LREC_HELLO);
  cr_assert_eq(r.v[0].len, sizeof h + strlen("test state"));
  memcpy(&h, r.v[0].b, sizeof h);
  cr_assert_eq(memcmp(r.v[0].b + sizeof h, "test state", 10), 0);
  cr_assert_eq(h.pid, (uint64_t)getpid());
  cr_assert_eq(h.luajit, (uint32_t)LI_IS_LUAJIT);
  cr_assert(h.frames_on && h.memory_on);
  cr_assert_eq(r.v[1].kind, LI_LREC_STATUS);
  memcpy(&st, r.v[1].b, sizeof st);
  cr_assert_eq(st.collection, LI_LIVE_RUNNING);
  cr_assert_eq(st.spike_factor, 2.0);
  cr_assert_eq(st.spikes_keep, 16);
  vrun(L, game);
  lua_settop(L, 0);
  /* a last mark from C, no call open, the table due: its figures are the
  ** report's as a dump now takes them */
  vtime += 300 * MS;
  cr_assert_eq(luainstr_set_option(L, "spike_factor", "1000"), LUAINSTR_OK);
  mark(L);
  drain(L, &r);
  cr_assert_eq(count(&r, LI_LREC_FRAME), 101);
  cr_assert_eq(count(&r, LI_LREC_SPIKE), 1);
  cr_assert_geq(count(&r, LI_LREC_TABLE), 4, "tables: %zu", count(&r, LI_LREC_TABLE));
  cr_assert_eq(count(&r, LI_LREC_MEMORY), count(&r, LI_LREC_TABLE));
  /* frames in order, each frame's SPIKE right after it */
  for (size_t i = 0, k = 1; i < r.n; i++) {
    li_lrec_frame f;
    if (r.v[i].kind != LI_LREC_FRAME) continue;
    cr_assert_eq(r.v[i].len, sizeof f);
    memcpy(&f, r.v[i].b, sizeof f);
    cr_assert_eq(f.index, k++);
    cr_assert_eq(f.lost, 0);
    cr_assert_eq(f.spike, f.index == 60, "frame %llu", (unsigned long long)f.index);
    if (f.spike) {
      li_lrec_spike s;
      cr_assert_eq(r.v[i + 1].kind, LI_LREC_SPIKE);
      memcpy(&s, r.v[i + 1].b, sizeof s);
      cr_assert_eq(s.frame, 60);
      cr_assert_eq(s.busy_ns, f.busy_ns);
      cr_assert_geq(s.duration_ns, 89 * MS);
    }
  }
  /* the spike's tree names hitch */
  {
    const rec *x = last(&r, LI_LREC_SPIKE);
    li_lrec_spike s;
    int hitch = 0;
    memcpy(&s, x->b, sizeof s);
    for (uint32_t k = 1; k < s.n; k++) {
      li_lrec_node n;
      memcpy(&n, x->b + sizeof s + k * sizeof n, sizeof n);
      hitch |= strcmp(r.names[n.func], "local hitch") == 0 && n.self_ns >= (int64_t)(80 * MS);
    }
    cr_assert(hitch, "no 80 ms of hitch in the spike's tree");
  }
  {
    li_lrec_memory m;
    memcpy(&m, last(&r, LI_LREC_MEMORY)->b, sizeof m);
    cr_assert_gt(m.lua_bytes, 0);
    cr_assert_gt(m.alloc_total, 0);
    cr_assert_gt(m.live_tracked, 0);
  }
  cr_assert_geq(mkstemp(json), 0);
  cr_assert_geq(mkstemp(txt), 0);
  cr_assert_eq(luainstr_dump(L, "json", json), LUAINSTR_OK, "%s", luainstr_errmsg(L));
  write_records(&r, txt, &nrows);
  snprintf(args, sizeof args, "'%s' '%s'", json, txt);
  snprintf(want, sizeof want, "101 1 %zu\n", nrows);
  cr_assert_str_eq(python(compare_py, args), want);
  cr_assert_geq(nrows, 5);            /* main chunk, grow, update, fib, hitch */
  unlink(json);
  unlink(txt);
  recs_free(&r);
  lua_close(L);
}


/* ---- commands ------------------------------------------------------------ */

static const char report_py[] =
  "import json, sys\n"
  "d = json.load(open(sys.argv[1]))\n"
  "assert d['format'] == 'luainstr-profile', d.keys()\n"
  "h = json.load(open(sys.argv[2]))\n"
  "assert 'snapshot' in h and 'nodes' in h, h.keys()\n"
  "print(len(d['functions']) > 0)\n";

Test(live, commands_applied_at_the_next_mark_and_acked) {
  lua_State *L = live_state("on", "off");
  recs r = {0};
  char text[1200], report[1100], snapshot[1100], args[2300];
  li_lrec_ack a;
  li_lrec_status st;
  struct stat sb;
  vrun(L, "local p = require 'luainstr'\n"
          "local function work() spin(1000000) end\n"
          "for i = 1, 5 do work() p.frame() end\n");
  drain(L, &r);
  command(L, LI_LCMD_REPORT, 1, "json");
  command(L, LI_LCMD_SNAPSHOT, 2, NULL);
  command(L, LI_LCMD_REPORT, 3, "nonsense");
  {                             /* the spike rule */
    li_live_chan *c = chan_of(L);
    li_live_cmd k;
    memset(&k, 0, sizeof k);
    k.cmd = LI_LCMD_RULE;
    k.id = 4;
    k.spike_factor = 3.5;
    k.spike_ms = 12;
    cr_assert(li_ring_put(c->in, k.cmd, &k, sizeof k, NULL, 0));
  }
  command(L, LI_LCMD_PAUSE, 5, NULL);
  /* nothing happens before the mark */
  cr_assert_eq(count(&r, LI_LREC_ACK), 0);
  cr_assert(li_prof_get(L)->enabled);
  mark(L);
  drain(L, &r);
  cr_assert_eq(count(&r, LI_LREC_ACK), 5);
  a = find_ack(&r, 1, report, sizeof report);
  cr_assert(a.ok && a.download, "%s", report);
  cr_assert_str_eq(a.format, "json");
  cr_assert_eq(stat(report, &sb), 0, "%s", report);
  a = find_ack(&r, 2, snapshot, sizeof snapshot);
  cr_assert(a.ok && a.download, "%s", snapshot);
  cr_assert_str_eq(a.format, "heapsnapshot");
  snprintf(args, sizeof args, "'%s' '%s'", report, snapshot);
  cr_assert_str_eq(python(report_py, args), "True\n");
  a = find_ack(&r, 3, text, sizeof text);
  cr_assert(!a.ok && !a.download);
  cr_assert(strstr(text, "unknown format 'nonsense'") != NULL, "%s", text);
  a = find_ack(&r, 4, text, sizeof text);
  cr_assert(a.ok);
  cr_assert_eq(li_prof_get(L)->spike_factor, 3.5);
  cr_assert_eq(li_prof_get(L)->spike_min_ns, 12 * MS);
  a = find_ack(&r, 5, text, sizeof text);
  cr_assert(a.ok, "%s", text);
  cr_assert(!li_prof_get(L)->enabled, "pause applied");
  memcpy(&st, last(&r, LI_LREC_STATUS)->b, sizeof st);
  cr_assert_eq(st.collection, LI_LIVE_PAUSED);
  cr_assert_eq(st.spike_factor, 3.5);
  cr_assert_eq(st.spike_ms, 12.0);
  /* paused: p.frame() is false, but the next command still comes at it */
  command(L, LI_LCMD_RESUME, 6, NULL);
  vrun(L, "assert(require('luainstr').frame() == false)");
  cr_assert(li_prof_get(L)->enabled, "resume applied at a mark while paused");
  /* stop, start, reset: frames count from 1 again */
  command(L, LI_LCMD_STOP, 7, NULL);
  mark(L);
  cr_assert(!li_prof_get(L)->started);
  command(L, LI_LCMD_START, 8, NULL);
  command(L, LI_LCMD_RESET, 9, NULL);
  cr_assert_eq(luainstr_frame(L), LUAINSTR_EORDER);  /* stopped: polls only */
  cr_assert(li_prof_get(L)->started);
  mark(L);
  drain(L, &r);
  for (uint64_t id = 6; id <= 9; id++) {
    a = find_ack(&r, id, text, sizeof text);
    cr_assert(a.ok, "command %llu: %s", (unsigned long long)id, text);
  }
  {
    li_lrec_frame f;
    memcpy(&f, last(&r, LI_LREC_FRAME)->b, sizeof f);
    cr_assert_eq(f.index, 1, "after the reset: frame %llu", (unsigned long long)f.index);
  }
  /* the files go with the state */
  recs_free(&r);
  lua_close(L);
  cr_assert_neq(stat(report, &sb), 0, "%s still there", report);
  cr_assert_neq(stat(snapshot, &sb), 0, "%s still there", snapshot);
}

/* Frame mode off: tables and commands at the next probe. */
Test(live, frames_off_commands_and_tables_at_the_next_probe) {
  lua_State *L = live_state("off", "off");
  recs r = {0};
  char text[600];
  vrun(L, "function f() spin(1000) end\n f()");
  drain(L, &r);
  cr_assert_eq(count(&r, LI_LREC_FRAME), 0);
  size_t tables = count(&r, LI_LREC_TABLE);
  cr_assert_geq(tables, 1, "the first table at the first probe");
  /* no table before 250 ms have passed, one after */
  vrun(L, "f()");
  drain(L, &r);
  cr_assert_eq(count(&r, LI_LREC_TABLE), tables);
  vtime += 300 * MS;
  vrun(L, "f()");
  drain(L, &r);
  cr_assert_eq(count(&r, LI_LREC_TABLE), tables + 1);
  cr_assert_eq(count(&r, LI_LREC_MEMORY), tables + 1);
  /* a command: applied by the next probe, none before */
  command(L, LI_LCMD_STOP, 21, NULL);
  cr_assert(li_prof_get(L)->started);
  vrun(L, "f()");
  cr_assert(!li_prof_get(L)->started, "stop applied at a probe");
  command(L, LI_LCMD_START, 22, NULL);
  vrun(L, "f()");
  cr_assert(li_prof_get(L)->started, "start applied at a probe while stopped");
  drain(L, &r);
  cr_assert(find_ack(&r, 21, text, sizeof text).ok);
  cr_assert(find_ack(&r, 22, text, sizeof text).ok);
  /* frames on: the probes stop polling (the fast path back) */
  cr_assert(li_prof_get(L)->live_probe);
  cr_assert_eq(luainstr_set_option(L, "frames", "on"), LUAINSTR_OK);
  cr_assert(!li_prof_get(L)->live_probe);
  recs_free(&r);
  lua_close(L);
}

/* Nobody reads: the ring fills, records are dropped and counted, the
** program never waits; the next FRAME that gets through says how many. */
Test(live, a_full_ring_drops_and_counts) {
  lua_State *L = live_state("on", "off");
  li_live_chan *c;
  recs r = {0};
  uint64_t dropped, lost = 0;
  vrun(L, "local p = require 'luainstr'\n"
          "for i = 1, 60000 do p.frame() end\n");
  c = chan_of(L);
  dropped = li_ring_dropped(c->out);
  cr_assert_gt(dropped, 10000, "dropped %llu", (unsigned long long)dropped);
  drain(L, &r);
  mark(L);
  drain(L, &r);
  for (size_t i = 0; i < r.n; i++) {
    li_lrec_frame f;
    if (r.v[i].kind != LI_LREC_FRAME) continue;
    memcpy(&f, r.v[i].b, sizeof f);
    lost += f.lost;
  }
  cr_assert_eq(lost, dropped, "frames say %llu lost, the ring %llu",
               (unsigned long long)lost, (unsigned long long)dropped);
  {
    li_lrec_frame f;
    memcpy(&f, last(&r, LI_LREC_FRAME)->b, sizeof f);
    cr_assert_eq(f.index, 60001);
    cr_assert_gt(f.lost, 0);
  }
  recs_free(&r);
  lua_close(L);
}

/* Options: bad values are errors with a message, and order matters. */
Test(live, options) {
  lua_State *L = vstate(NULL);
  cr_assert_eq(luainstr_set_option(L, "live", "nonsense"), LUAINSTR_EARG);
  cr_assert(strstr(luainstr_errmsg(L), "HOST:PORT") != NULL, "%s", luainstr_errmsg(L));
  cr_assert_eq(luainstr_set_option(L, "live", "host:99999"), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_option(L, "live_token", "a b"), LUAINSTR_EARG);
  cr_assert_eq(luainstr_set_option(L, "live_token", "abc-123"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "live", "page"), LUAINSTR_OK);
  cr_assert_eq(luainstr_set_option(L, "live", "page"), LUAINSTR_EORDER);
  cr_assert_eq(luainstr_set_option(L, "live_name", "x"), LUAINSTR_EORDER);
  {                             /* the default name: "state N" (no chunk) */
    li_live_chan *c = chan_of(L);
    cr_assert(strncmp(c->name, "state ", 6) == 0, "%s", c->name);
  }
  cr_assert_eq(luainstr_set_option(L, "live", "off"), LUAINSTR_OK);
  cr_assert_null(li_live_channel(li_prof_get(L)));
  cr_assert_eq(luainstr_set_option(L, "live", "off"), LUAINSTR_OK);
  lua_close(L);
}
