/*
** live.c -- the live view's Lua-thread side (live.h, docs/live-protocol.md).
**
** Option "live" attaches a channel: its out ring takes the records this
** file posts (HELLO, STATUS and FUNCS at attach; at every frame mark FUNCS
** for the functions new since, FRAME, SPIKE when the frame's tree was
** kept; about every 250 ms TABLE and MEMORY; an ACK for every command;
** END at close), its in ring the commands a client sent.  The server's
** thread (liveserver.c) reads the one and writes the other; in "page"
** mode nobody does, and li_live_drain turns the records into messages on
** this thread (the WebAssembly page's own loop).
**
** Nothing here waits for the server: a full ring drops the record (the
** ring counts it; the next FRAME and STATUS say how many).  Commands are
** applied here, on the Lua thread, at the next mark, or with frame mode
** off at the next probe: then (P->live_probe) the probe's fast path is
** off and its general path's gate (P->gate, what it tests instead of
** P->on) is closed, so every probe reads the channel's flag (an atomic
** load) and every 64th the clock (li_live_due).  With live off the probe runs the instructions it ran
** before (fib under callgrind: bench/README.md, "Live view").
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>

#include "profiler.h"
#include "live.h"
#include "writers.h"   /* li_utf8_len */
#include "heapwalk.h"

#define OUT_BYTES (2u << 20)    /* the out ring: about a second of a heavy
                                   game's records if nobody reads */
#define IN_BYTES (64u << 10)    /* the in ring: a few hundred commands */
#define PERIOD_NS 250000000.0   /* TABLE and MEMORY */
#define FUNCS_BYTES 32768u      /* a FUNCS record's size, about */
#define TABLE_ROWS 2048u        /* rows a TABLE record carries at most */
#define END_WAIT_MS 1000        /* close: how long END may wait for room */

#define MODE_NONE 0             /* options kept, not attached */
#define MODE_SERVER 1
#define MODE_PAGE 2

struct li_live {
  li_live_chan chan;    /* the channel the server knows (by address) */
  int mode;             /* MODE_* */
  char *token;          /* option live_token (malloc'd), NULL: the server's */
  int named;            /* option live_name given: chan.name is it */
  uint64_t t0;          /* ticks at attach: records' t_ns count from here */
  uint32_t nsent;       /* functions described so far (ids 0..nsent-1) */
  uint64_t withheld;    /* records not posted: what they name was not
                           described (a FUNCS dropped) */
  uint64_t lost_seen;   /* losses counted when the last FRAME got through */
  uint64_t next_at;     /* ticks: the next TABLE and MEMORY are due */
  int polling;          /* in li_live_poll (a command's own probes and
                           marks must not poll again) */
  int sent_status;      /* a STATUS was posted... */
  li_lrec_status status;    /* ...this one (lost not compared) */
  li_lrec_frame frame;  /* the last FRAME (its spike's busy time) */
  li_lrec_row *prev;    /* per function: the row its last TABLE had */
  uint32_t nprev;
  unsigned char *buf;   /* records are built here (grown) */
  size_t cap;
  li_tally *nd, *fn;    /* the table's scratch: per node, per function */
  uint32_t capnd, capfn;
  char *dir;            /* files of commands (absolute; NULL: none yet) */
  uint32_t nfiles;
  li_live_view *view;   /* page mode: records -> messages */
  li_live_out out;      /* page mode: messages since the last drain */
};

static uint32_t page_ids;       /* page mode's state ids (one per state) */


/* ======================================================================
** Helpers
** ====================================================================== */

static int fail(li_prof *P, int code, const char *msg, const char *arg) {
  snprintf(P->errmsg, sizeof P->errmsg, msg, arg);
  return code;
}

/* At least n bytes of V->buf. */
static unsigned char *scratch(li_live *V, size_t n) {
  if (n > V->cap) {
    size_t cap = V->cap ? V->cap : 4096;
    unsigned char *b;
    while (cap < n) cap *= 2;
    if ((b = realloc(V->buf, cap)) == NULL) return NULL;
    V->buf = b;
    V->cap = cap;
  }
  return V->buf;
}

static double ns_per_tick(const li_prof *P) {
  return li_clock_ns_per_tick_now(&P->clock);
}

static uint64_t to_ns(int64_t ticks, double k) {
  return ticks > 0 ? (uint64_t)((double)ticks * k + 0.5) : 0;
}

static uint64_t since(const li_live *V, uint64_t t, double k) {
  return t > V->t0 ? to_ns((int64_t)(t - V->t0), k) : 0;
}

/* Records lost so far: dropped by the ring, or withheld here. */
static uint64_t lost(const li_live *V) {
  return li_ring_dropped(V->chan.out) + V->withheld;
}

static int post(li_live *V, uint32_t kind, const void *a, size_t na,
                const void *b, size_t nb) {
  return li_ring_put(V->chan.out, kind, a, na, b, nb);
}


/* ======================================================================
** Records
** ====================================================================== */

static void post_hello(li_live *V, li_prof *P) {
  li_lrec_hello h;
  memset(&h, 0, sizeof h);
  h.pid = (uint64_t)getpid();
  h.lua_version = LI_IS_LUAJIT ? 0 : LUA_VERSION_MAJOR_N * 100 + LUA_VERSION_MINOR_N;
  h.luajit = LI_IS_LUAJIT;
  h.ns_per_tick = ns_per_tick(P);
  h.frames_on = P->frames != NULL;
  h.memory_on = (uint32_t)li_mem_active(P);
  post(V, LI_LREC_HELLO, &h, sizeof h, V->chan.name, strlen(V->chan.name));
}

static void status_now(const li_live *V, const li_prof *P, li_lrec_status *s) {
  memset(s, 0, sizeof *s);
  s->collection = !P->started ? LI_LIVE_STOPPED
                  : P->enabled ? LI_LIVE_RUNNING : LI_LIVE_PAUSED;
  s->frames_on = P->frames != NULL;
  s->memory_on = (uint32_t)li_mem_active(P);
  s->spikes_keep = P->spike_keep;
  s->spike_factor = P->spike_factor;
  s->spike_ms = (double)P->spike_min_ns / 1e6;
  s->lost = lost(V);
}

/* A STATUS if anything in it but `lost` changed since the last one
** (commands, and the program's own calls), or `force`. */
static void post_status(li_live *V, li_prof *P, int force) {
  li_lrec_status s;
  status_now(V, P, &s);
  if (!force && V->sent_status && s.collection == V->status.collection &&
      s.frames_on == V->status.frames_on && s.memory_on == V->status.memory_on &&
      s.spikes_keep == V->status.spikes_keep &&
      s.spike_factor == V->status.spike_factor && s.spike_ms == V->status.spike_ms)
    return;
  if (post(V, LI_LREC_STATUS, &s, sizeof s, NULL, 0)) {
    V->status = s;
    V->sent_status = 1;
  }
}

static uint32_t zone_kind(const li_fn *f) {
  if (!f->zone) return f->counted ? 3 : 0;
  return strcmp(f->name, "zone idle") == 0 ? 2 : 1;
}

/* FUNCS for the functions not described yet, in records of about
** FUNCS_BYTES: 1 when every one is described (records may name them). */
static int post_funcs(li_live *V, li_prof *P) {
  while (V->nsent < P->nfn) {
    li_lrec_funcs h;
    size_t len = 0;
    h.first = V->nsent;
    h.count = 0;
    while (h.first + h.count < P->nfn && (h.count == 0 || len < FUNCS_BYTES)) {
      const li_fn *f = &P->fn[h.first + h.count];
      size_t nn = strlen(f->name) + 1, ns = strlen(f->source) + 1;
      li_lrec_func d;
      unsigned char *b = scratch(V, len + sizeof d + nn + ns);
      if (b == NULL) return 0;
      memset(&d, 0, sizeof d);
      d.line = f->line;
      d.lastline = f->lastline;
      d.zone = zone_kind(f);
      d.namelen = (uint32_t)nn;
      d.srclen = (uint32_t)ns;
      memcpy(b + len, &d, sizeof d);
      memcpy(b + len + sizeof d, f->name, nn);
      memcpy(b + len + sizeof d + nn, f->source, ns);
      len += sizeof d + nn + ns;
      h.count++;
    }
    if (!post(V, LI_LREC_FUNCS, &h, sizeof h, V->buf, len)) return 0;
    V->nsent += h.count;
  }
  return 1;
}

void li_live_spike(li_prof *P, uint64_t index) {
  li_live *V = P->live;
  li_pspike sp;
  li_lrec_spike h;
  li_lrec_node *nodes;
  if (V == NULL || V->mode == MODE_NONE) return;
  if (li_frames_spike(P, index, &sp, ns_per_tick(P)) != 1) return;
  if (!post_funcs(V, P) ||
      (nodes = (li_lrec_node *)scratch(V, (size_t)sp.nnodes * sizeof *nodes)) == NULL) {
    V->withheld++;
    free(sp.nodes);
    return;
  }
  for (uint32_t i = 0; i < sp.nnodes; i++) {
    const li_pnode *s = &sp.nodes[i];
    li_lrec_node *o = &nodes[i];
    o->func = i == 0 ? UINT32_MAX : s->func;
    o->parent = i == 0 ? UINT32_MAX : s->parent;
    o->calls = s->calls;
    o->total_ns = (int64_t)s->total_ns;
    o->self_ns = (int64_t)s->self_ns;
    o->alloc_bytes = s->mem.alloc_bytes;
  }
  memset(&h, 0, sizeof h);
  h.frame = index;
  h.duration_ns = sp.duration_ns;
  h.busy_ns = V->frame.index == index ? V->frame.busy_ns : sp.duration_ns;
  h.n = sp.nnodes;
  post(V, LI_LREC_SPIKE, &h, sizeof h, nodes, (size_t)sp.nnodes * sizeof *nodes);
  free(sp.nodes);
}


/* ======================================================================
** The function table: the report's function figures (li_snapshot_tally,
** open calls counted as if they ended now), sent for the functions whose
** figures changed since the last TABLE
** ====================================================================== */

static int grow_table(li_live *V, const li_prof *P) {
  if (P->nnode > V->capnd) {
    uint32_t cap = P->nnode + P->nnode / 2 + 64;
    li_tally *nd = realloc(V->nd, (size_t)cap * sizeof *nd);
    if (nd == NULL) return 0;
    V->nd = nd;
    V->capnd = cap;
  }
  if (P->nfn > V->capfn) {
    uint32_t cap = P->nfn + P->nfn / 2 + 64;
    li_tally *fn = realloc(V->fn, (size_t)cap * sizeof *fn);
    li_lrec_row *prev;
    if (fn == NULL) return 0;
    V->fn = fn;
    if ((prev = realloc(V->prev, (size_t)cap * sizeof *prev)) == NULL) return 0;
    V->prev = prev;
    V->capfn = cap;
  }
  /* functions never sent: a row of zeros, so one that never ran is not
  ** sent either */
  if (P->nfn > V->nprev) {
    memset(V->prev + V->nprev, 0, (size_t)(P->nfn - V->nprev) * sizeof *V->prev);
    V->nprev = P->nfn;
  }
  return 1;
}

/* V->fn: every function's figures, as a report made now would have them
** (li_snapshot_tally).  *live: bytes of tracked blocks alive. */
static int table_figures(li_live *V, li_prof *P, uint64_t now, int64_t *live) {
  uint32_t open;
  if (!grow_table(V, P)) return 0;
  *live = 0;
  for (uint32_t i = 0; i < P->nnode; i++) *live += P->node[i].mem.live;
  return li_snapshot_tally(P, now, V->nd, V->fn, &open);
}

static void post_table(li_live *V, li_prof *P, lua_State *L, uint64_t now) {
  double k = ns_per_tick(P);
  int64_t live = 0;
  li_lrec_table h;
  li_lrec_row *rows;
  li_lrec_memory m;
  uint32_t n = 0;
  if (!post_funcs(V, P) || !table_figures(V, P, now, &live) ||
      (rows = (li_lrec_row *)scratch(V, TABLE_ROWS * sizeof *rows)) == NULL) {
    V->withheld++;
    return;
  }
  memset(&h, 0, sizeof h);
  h.t_ns = since(V, now, k);
  h.nfuncs = P->nfn;
  for (uint32_t f = 0; f <= P->nfn; f++) {
    /* a record when full, and the rest at the end; a record that finds no
    ** room leaves its rows' last figures as they were: sent again next */
    if (n == TABLE_ROWS || (f == P->nfn && n > 0)) {
      h.n = n;
      if (post(V, LI_LREC_TABLE, &h, sizeof h, rows, (size_t)n * sizeof *rows))
        for (uint32_t i = 0; i < n; i++) V->prev[rows[i].func] = rows[i];
      n = 0;
    }
    if (f == P->nfn) break;
    {
      li_lrec_row r;
      memset(&r, 0, sizeof r);
      r.func = f;
      r.calls = V->fn[f].calls;
      r.self_ns = V->fn[f].self;          /* (ns: li_snapshot_tally) */
      r.total_ns = V->fn[f].total;
      r.alloc_bytes = V->fn[f].mem.alloc_bytes;
      r.live_bytes = P->fn[f].live > 0 ? P->fn[f].live : 0;
      if (memcmp(&r, &V->prev[f], sizeof r) != 0) rows[n++] = r;
    }
  }
  memset(&m, 0, sizeof m);
  m.t_ns = h.t_ns;
  m.alloc_total = P->alloc_total;
  m.live_tracked = live;
  m.lua_bytes = (uint64_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024u +
                (uint64_t)lua_gc(L, LUA_GCCOUNTB, 0);
  post(V, LI_LREC_MEMORY, &m, sizeof m, NULL, 0);
}


/* ======================================================================
** Commands: applied here, at a mark or a probe; each answered by an ACK
** ====================================================================== */

static void ack(li_live *V, const li_live_cmd *c, int ok, const char *text,
                const char *format) {
  li_lrec_ack a;
  memset(&a, 0, sizeof a);
  a.id = c->id;
  a.ok = (uint32_t)(ok != 0);
  a.download = ok && format != NULL;
  if (format != NULL) snprintf(a.format, sizeof a.format, "%s", format);
  post(V, LI_LREC_ACK, &a, sizeof a, text, text ? strlen(text) : 0);
}

/* The directory of this state's files, made at the first. */
static const char *files_dir(li_live *V, char *err, size_t errlen) {
  const char *tmp = getenv("TMPDIR");
  char path[512];
  if (V->dir != NULL) return V->dir;
  snprintf(path, sizeof path, "%s/luainstr-live-XXXXXX",
           tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
  if (mkdtemp(path) == NULL || (V->dir = li_report_abspath(path)) == NULL) {
    snprintf(err, errlen, "cannot make a directory for the file (%.300s): %s",
             path, strerror(errno));
    return NULL;
  }
  return V->dir;
}

/* Remove the files of commands and their directory. */
static void remove_files(li_live *V) {
  DIR *d;
  struct dirent *e;
  if (V->dir == NULL) return;
  if ((d = opendir(V->dir)) != NULL) {
    char path[1024];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(path, sizeof path, "%s/%s", V->dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(V->dir);
  free(V->dir);
  V->dir = NULL;
}

void li_live_remove_files(li_prof *P) {
  if (P != NULL && P->live != NULL) remove_files(P->live);
}

/* What a report of this format is called (its extension). */
static const char *extension(const char *format) {
  static const char *const ext[][2] = {
    {"text", "txt"}, {"csv", "csv"}, {"html", "html"}, {"json", "json"},
    {"chrome", "trace.json"}, {"callgrind", "callgrind"},
    {"folded", "folded"}, {"folded-calls", "folded"}, {"folded-alloc", "folded"},
    {"pprof", "pb.gz"}};
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
    if (strcmp(format, ext[i][0]) == 0) return ext[i][1];
  return "out";
}

static void cmd_snapshot(li_live *V, li_prof *P, lua_State *L, const li_live_cmd *c) {
  char err[512], path[1100];
  const char *dir = files_dir(V, err, sizeof err);
  if (dir == NULL) { ack(V, c, 0, err, NULL); return; }
  snprintf(path, sizeof path, "%s/snapshot-%u.heapsnapshot", dir, ++V->nfiles);
  if (li_heap_snapshot(L, P, path, c->collect ? LUAINSTR_HEAP_COLLECT : 0,
                       NULL, err, sizeof err) != LUAINSTR_OK) {
    ack(V, c, 0, err, NULL);
    return;
  }
  /* (a report lists the snapshots the program took; this one is the
  ** page's, gone when the state closes) */
  if (P->nheap_files > 0 && strcmp(P->heap_files[P->nheap_files - 1], path) == 0)
    free(P->heap_files[--P->nheap_files]);
  ack(V, c, 1, path, "heapsnapshot");
}

static void cmd_report(li_live *V, lua_State *L, const li_live_cmd *c) {
  char err[512], path[1100], format[sizeof c->format + 1];
  const char *dir;
  int r;
  memcpy(format, c->format, sizeof c->format);
  format[sizeof c->format] = '\0';
  if (li_report_format_error(format, err, sizeof err) != NULL) {
    ack(V, c, 0, err, NULL);
    return;
  }
  if ((dir = files_dir(V, err, sizeof err)) == NULL) { ack(V, c, 0, err, NULL); return; }
  snprintf(path, sizeof path, "%s/report-%u.%s", dir, ++V->nfiles, extension(format));
  r = luainstr_dump(L, format, path);
  /* (a report that holds nothing is written all the same, valid) */
  if (r != LUAINSTR_OK && r != LUAINSTR_EEMPTY) ack(V, c, 0, luainstr_errmsg(L), NULL);
  else ack(V, c, 1, path, format);
}

static void cmd_rule(li_live *V, li_prof *P, const li_live_cmd *c) {
  double f = c->spike_factor, ms = c->spike_ms;
  if ((f != 0 && !(f > 1 && f <= 1e6)) || (ms != -1 && !(ms >= 0 && ms <= 1e9))) {
    ack(V, c, 0, "spike_rule: factor is a number over 1 (at most 1e6), ms "
        "one from 0 to 1e9", NULL);
    return;
  }
  if (f != 0) P->spike_factor = f;
  if (ms != -1) P->spike_min_ns = (uint64_t)(ms * 1e6 + 0.5);
  li_frames_rule(P);
  ack(V, c, 1, "", NULL);
}

/* Collection commands: the C API's, with its messages. */
static void cmd_collect(li_live *V, lua_State *L, const li_live_cmd *c) {
  int r;
  switch (c->cmd) {
    case LI_LCMD_START: r = luainstr_start(L); break;
    case LI_LCMD_STOP: r = luainstr_stop(L); break;
    case LI_LCMD_RESET: r = luainstr_reset(L); break;
    case LI_LCMD_PAUSE: r = luainstr_disable(L); break;
    default: r = luainstr_enable(L); break;
  }
  ack(V, c, r == LUAINSTR_OK, r == LUAINSTR_OK ? "" : luainstr_errmsg(L), NULL);
}

static void apply(li_live *V, li_prof *P, lua_State *L, const li_live_cmd *c) {
  switch (c->cmd) {
    case LI_LCMD_START: case LI_LCMD_STOP: case LI_LCMD_RESET:
    case LI_LCMD_PAUSE: case LI_LCMD_RESUME:
      cmd_collect(V, L, c);
      break;
    case LI_LCMD_RULE: cmd_rule(V, P, c); break;
    case LI_LCMD_SNAPSHOT: cmd_snapshot(V, P, L, c); break;
    case LI_LCMD_REPORT: cmd_report(V, L, c); break;
    default: ack(V, c, 0, "unknown command", NULL); break;
  }
}


/* ======================================================================
** At marks and probes
** ====================================================================== */

int li_live_due(li_prof *P) {
  li_live *V = P->live;
  return V != NULL && !V->polling &&
         (__atomic_load_n(&V->chan.pending, __ATOMIC_RELAXED) != 0 ||
          li_clock_ticks(&P->clock) >= V->next_at);
}

void li_live_poll(li_prof *P, lua_State *L) {
  li_live *V = P->live;
  li_live_cmd c;
  uint32_t kind;
  size_t len;
  uint64_t now;
  if (V == NULL || V->mode == MODE_NONE || V->polling || L == NULL) return;
  V->polling = 1;
  li_live_flag_take(&V->chan);
  post_funcs(V, P);
  while (li_ring_peek(V->chan.in, &kind, &len)) {
    if (len == sizeof c && li_ring_get(V->chan.in, &kind, &c, sizeof c) == sizeof c) {
      apply(V, P, L, &c);
    } else {                    /* not a command: taken and ignored */
      unsigned char *b = scratch(V, len);
      if (b == NULL || li_ring_get(V->chan.in, &kind, b, len) != len) break;
    }
  }
  post_status(V, P, 0);
  now = li_clock_ticks(&P->clock);
  if (now >= V->next_at) {
    double k = ns_per_tick(P);
    post_table(V, P, L, now);
    V->next_at = now + (uint64_t)(PERIOD_NS / (k > 0 ? k : 1.0));
  }
  V->polling = 0;
}

void li_live_frame(li_prof *P, lua_State *L, const li_lrec_frame *fr) {
  li_live *V = P->live;
  li_lrec_frame f;
  uint64_t n;
  if (V == NULL || V->mode == MODE_NONE || V->polling) return;
  post_funcs(V, P);
  f = *fr;
  f.t_ns = since(V, fr->t_ns, ns_per_tick(P));  /* (frames.c gives ticks) */
  n = lost(V);
  f.lost = (uint32_t)(n - V->lost_seen > UINT32_MAX ? UINT32_MAX : n - V->lost_seen);
  if (post(V, LI_LREC_FRAME, &f, sizeof f, NULL, 0)) V->lost_seen = n;
  V->frame = f;
  if (f.spike) li_live_spike(P, f.index);
  li_live_poll(P, L);
}


/* ======================================================================
** Options and the channel's life
** ====================================================================== */

/* P's live record, made (not attached) if it has none. */
static li_live *live_of(li_prof *P) {
  if (P->live == NULL) P->live = calloc(1, sizeof *P->live);
  return P->live;
}

/* Probes poll while live is on and frame mode off (profiler.c). */
void li_live_update(li_prof *P) {
  li_live *V = P->live;
  P->live_probe = V != NULL && V->mode != MODE_NONE && P->frames == NULL;
  P->live_flag = P->live_probe ? &V->chan.pending : NULL;
  P->live_count = 1;            /* (the first probe reads the clock) */
  li_prof_set_fast(P);
}

const char *li_live_token_wrong(const char *t, int off) {
  size_t n = t != NULL ? strlen(t) : 0;
  if (n == 0 || n > LI_LIVE_TOKEN_MAX)
    return "a token is 1 to 128 letters, digits or - . _ ~ (it travels in URLs)";
  if (strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789-._~") != n)
    return "a token has letters, digits or - . _ ~ only (it travels in URLs)";
  if (off && n < LI_LIVE_TOKEN_OPEN)
    return "beyond loopback a token has at least 16 characters (anyone on "
           "the network may try it; the generated one has 32)";
  return NULL;
}

int li_live_set_token(li_prof *P, const char *token) {
  li_live *V;
  char *t;
  const char *wrong = li_live_token_wrong(token, 0);
  if (wrong != NULL)
    return fail(P, LUAINSTR_EARG, "option 'live_token': %s", wrong);
  if ((V = live_of(P)) == NULL || (t = li_dup_bytes(token, strlen(token))) == NULL)
    return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  if (V->mode != MODE_NONE) {
    free(t);
    return fail(P, LUAINSTR_EORDER, "option 'live_token': set it before "
                "'live' (or set 'live' off first)%s", "");
  }
  free(V->token);
  V->token = t;
  return LUAINSTR_OK;
}

void li_live_name(char *dst, size_t n, const char *src) {
  size_t len = strlen(src), i = 0, k;
  while (i < len) {
    k = li_utf8_len((const unsigned char *)src + i, len - i);
    if (k == 0) k = 1;
    if (i + k > n - 1) break;
    i += k;
  }
  memcpy(dst, src, i);
  dst[i] = '\0';
}

int li_live_set_name(li_prof *P, const char *name) {
  li_live *V;
  if (name == NULL || name[0] == '\0')
    return fail(P, LUAINSTR_EARG, "option 'live_name' takes a name%s", "");
  if ((V = live_of(P)) == NULL) return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  if (V->mode != MODE_NONE)
    return fail(P, LUAINSTR_EORDER, "option 'live_name': set it before 'live' "
                "(or set 'live' off first)%s", "");
  li_live_name(V->chan.name, sizeof V->chan.name, name);
  V->named = 1;
  return LUAINSTR_OK;
}

/* "PORT" or "HOST:PORT", the port 0 to 65535: 1. */
static int address_ok(const char *addr) {
  const char *colon = strrchr(addr, ':'), *port = colon ? colon + 1 : addr;
  char *end;
  long p;
  if (colon == addr || port[0] < '0' || port[0] > '9') return 0;
  p = strtol(port, &end, 10);
  return *end == '\0' && p >= 0 && p <= 65535 && strlen(addr) < 256;
}

/* The name the page lists: the option's, else the first chunk's, else
** "state N". */
static void default_name(li_live *V, const li_prof *P) {
  static uint32_t states;
  const char *s = NULL;
  if (V->named) return;
  for (uint32_t i = 0; i < P->nfn && s == NULL; i++)
    if (!P->fn[i].zone && P->fn[i].line == 0) s = P->fn[i].source;
  if (s != NULL) {
    const char *slash = strrchr(s, '/');
    li_live_name(V->chan.name, sizeof V->chan.name, slash ? slash + 1 : s);
  } else {
    snprintf(V->chan.name, sizeof V->chan.name, "state %u",
             __atomic_add_fetch(&states, 1, __ATOMIC_RELAXED));
  }
}

static void free_rings(li_live *V) {
  li_ring_free(V->chan.out);
  li_ring_free(V->chan.in);
  V->chan.out = V->chan.in = NULL;
  li_live_view_free(V->view);
  V->view = NULL;
  li_live_out_free(&V->out);
  memset(&V->out, 0, sizeof V->out);
}

/* The channel detached and everything it holds freed (its options too). */
static void live_free(li_prof *P) {
  li_live *V = P->live;
  if (V == NULL) return;
  if (V->mode != MODE_NONE) {
    /* END must reach the server: a full ring is waited for, a while (the
    ** state is closing, no frame is) */
    for (int ms = 0; !post(V, LI_LREC_END, NULL, 0, NULL, 0) && V->mode == MODE_SERVER &&
                     ms < END_WAIT_MS; ms++) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
    if (V->mode == MODE_SERVER) li_live_server_detach(&V->chan);
  }
  free_rings(V);
  remove_files(V);
  free(V->token);
  free(V->buf);
  free(V->nd);
  free(V->fn);
  free(V->prev);
  free(V);
  P->live = NULL;
  li_live_update(P);
}

int li_live_set(li_prof *P, lua_State *L, const char *addr) {
  li_live *V;
  char err[256];
  const char *token;
  int page;
  (void)L;
  if (addr == NULL || !(strcmp(addr, "off") == 0 || strcmp(addr, "page") == 0 ||
                        address_ok(addr)))
    return fail(P, LUAINSTR_EARG, "option 'live' takes HOST:PORT, PORT (on "
                "127.0.0.1; 0: any free port), page or off, not '%s'",
                addr ? addr : "(null)");
  if (strcmp(addr, "off") == 0) {
    live_free(P);
    return LUAINSTR_OK;
  }
  page = strcmp(addr, "page") == 0;
  if ((V = live_of(P)) == NULL) return fail(P, LUAINSTR_EMEM, "not enough memory%s", "");
  if (V->mode != MODE_NONE)
    return fail(P, LUAINSTR_EORDER, "option 'live': this state is live already "
                "(set it off first)%s", "");
  V->chan.out = li_ring_new(OUT_BYTES);
  V->chan.in = li_ring_new(IN_BYTES);
  if (V->chan.out == NULL || V->chan.in == NULL ||
      (page && (V->view = li_live_view_new(
                    V->chan.id = __atomic_add_fetch(&page_ids, 1, __ATOMIC_RELAXED))) == NULL)) {
    free_rings(V);
    return fail(P, LUAINSTR_EMEM, "not enough memory for the live view%s", "");
  }
  default_name(V, P);
  V->t0 = li_clock_ticks(&P->clock);
  V->next_at = V->t0;           /* a first table at the first mark or probe */
  V->nsent = 0;
  V->sent_status = 0;
  V->lost_seen = V->withheld = 0;
  /* the records a subscriber starts with, before the server can read */
  post_hello(V, P);
  post_status(V, P, 1);
  post_funcs(V, P);
  /* (the token from the environment: a command line is anyone's to read
  ** in /proc, a process's environment its owner's only) */
  token = V->token;
  if (token == NULL && (token = getenv("LUAINSTR_LIVE_TOKEN")) != NULL &&
      token[0] == '\0')
    token = NULL;
  if (!page && li_live_server_attach(&V->chan, addr, token, err, sizeof err) != 0) {
    free_rings(V);
    return fail(P, LUAINSTR_EIO, "live: %s", err);
  }
  V->mode = page ? MODE_PAGE : MODE_SERVER;
  li_live_update(P);
  return LUAINSTR_OK;
}

void li_live_close(li_prof *P) {
  live_free(P);
}

li_live_chan *li_live_channel(li_prof *P) {
  return P->live != NULL && P->live->mode != MODE_NONE ? &P->live->chan : NULL;
}


/* ======================================================================
** "page" mode: this thread is the consumer too
** ====================================================================== */

char *li_live_drain(li_prof *P, size_t *len) {
  li_live *V = P->live;
  uint32_t kind;
  size_t n, total = 2;
  char *json, *o;
  *len = 0;
  if (V == NULL || V->mode != MODE_PAGE) return NULL;
  while (li_ring_peek(V->chan.out, &kind, &n)) {
    unsigned char *b = scratch(V, n ? n : 1);
    if (b == NULL) return NULL;
    li_ring_get(V->chan.out, &kind, b, n);
    li_live_view_feed(V->view, kind, b, n, &V->out);
  }
  li_live_view_flush(V->view, &V->out);
  if (V->out.n == 0) return NULL;
  total += V->out.len + V->out.n;
  if ((json = malloc(total + 1)) == NULL) return NULL;
  o = json;
  *o++ = '[';
  for (uint32_t i = 0; i < V->out.n; i++) {
    size_t end = i + 1 < V->out.n ? V->out.off[i + 1] : V->out.len;
    if (i > 0) *o++ = ',';
    memcpy(o, V->out.buf + V->out.off[i], end - V->out.off[i]);
    o += end - V->out.off[i];
  }
  *o++ = ']';
  *o = '\0';
  *len = (size_t)(o - json);
  li_live_out_clear(&V->out);
  return json;
}

const char *li_live_page_download(li_prof *P, uint32_t n) {
  li_live *V = P->live;
  if (V == NULL || V->mode != MODE_PAGE) return NULL;
  return li_live_view_download(V->view, n);
}

int li_live_command(li_prof *P, const char *json, size_t len) {
  li_live *V = P->live;
  li_live_cmd c;
  char err[128];
  int r;
  if (V == NULL || V->mode != MODE_PAGE)
    return fail(P, LUAINSTR_EORDER, "live: not in page mode%s", "");
  if (json == NULL || len > LI_LIVE_MSG_MAX)
    return fail(P, LUAINSTR_EARG, "live: a command of at most 4096 bytes%s", "");
  r = li_live_parse_cmd(json, len, &c, err, sizeof err);
  if (r == 2) return LUAINSTR_OK;       /* subscribe: the page's one state */
  if (r != 1) return fail(P, LUAINSTR_EARG, "live: %s", err);
  if (!li_ring_put(V->chan.in, c.cmd, &c, sizeof c, NULL, 0))
    return fail(P, LUAINSTR_EMEM, "live: too many commands waiting%s", "");
  li_live_flag_set(&V->chan);
  return LUAINSTR_OK;
}
