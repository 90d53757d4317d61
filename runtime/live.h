/*
** live.h -- the live view (issue 22; docs/live-protocol.md): what its
** three parts share.
**
**   live.c        the Lua thread's side (every build, WebAssembly too):
**                 option "live", records posted at frame marks (frames,
**                 spikes, the function table, memory), commands applied at
**                 the next mark (or the next probe with frames off)
**   livering.c    a lock-free ring of variable-size records, one producer
**                 thread and one consumer thread: the Lua thread never
**                 waits on it; a full ring drops the record (counted)
**   liveview.c    the consumer's model of one state (function names, the
**                 last table, recent frames, kept spikes): records in,
**                 JSON messages out, and the parser of the commands a
**                 client sends (no I/O: fuzzed, and run in WebAssembly by
**                 the page's own game loop)
**   liveserver.c  the network thread (libwebsockets, opened when it
**                 starts; native builds with LUAINSTR_LIVE): the page at
**                 /, the WebSocket at /live, downloads, the token,
**                 Origin, bounds, many states
**
** Data flow: Lua thread --records--> chan->out --> view --JSON--> clients
**            clients --JSON--> li_live_parse_cmd --li_live_cmd--> chan->in
**            --> Lua thread (li_live_poll) --ack record--> chan->out
**
** Who frees what: a channel belongs to live.c (made at attach, freed after
** li_live_server_detach returns); records are copied in and out of rings;
** views and their output buffers belong to whoever made them.
*/
#ifndef LIVE_H
#define LIVE_H

#include <stddef.h>
#include <stdint.h>

/* ======================================================================
** livering.c: one producer, one consumer, variable-size records
** ====================================================================== */

typedef struct li_ring li_ring;

/* A ring of `bytes` (rounded up to a power of two, at least 4096); NULL:
** no memory. */
li_ring *li_ring_new(size_t bytes);
void li_ring_free(li_ring *r);
/* Producer: append a record of kind `kind` whose bytes are a (na bytes)
** then b (nb bytes; b may be NULL with nb 0).  Never waits, never
** allocates: 1 posted, 0 no room (the record is dropped and counted). */
int li_ring_put(li_ring *r, uint32_t kind, const void *a, size_t na,
                const void *b, size_t nb);
/* Consumer: the next record's kind and size without taking it: 1, or 0
** when the ring is empty. */
int li_ring_peek(li_ring *r, uint32_t *kind, size_t *len);
/* Consumer: take the next record into buf (cap bytes, at least its size:
** li_ring_peek says it); returns its size, 0 when empty. */
size_t li_ring_get(li_ring *r, uint32_t *kind, void *buf, size_t cap);
/* Records dropped by li_ring_put so far (either thread may read it). */
uint64_t li_ring_dropped(const li_ring *r);


/* ======================================================================
** Records: Lua thread -> view (chan->out).  Native byte order, fixed
** parts as these structs, variable parts after them as said.  Times in
** nanoseconds (the profiler's ticks converted), t_ns since the channel
** was attached.  ORDER LREC (liveview.c's switch)
** ====================================================================== */

enum {
  LI_LREC_HELLO = 1,    /* li_lrec_hello, then the state's name (no NUL) */
  LI_LREC_FRAME,        /* li_lrec_frame */
  LI_LREC_FUNCS,        /* li_lrec_funcs, then `count` li_lrec_func, each
                           followed by name and source, NUL-terminated:
                           functions new since the last FUNCS (ids dense,
                           from `first`); always before any record that
                           names them */
  LI_LREC_SPIKE,        /* li_lrec_spike, then n li_lrec_node (nodes[0] the
                           frame's root, parents before children) */
  LI_LREC_TABLE,        /* li_lrec_table, then n li_lrec_row: the functions
                           whose figures changed since the last TABLE,
                           figures since start (cumulative) */
  LI_LREC_MEMORY,       /* li_lrec_memory */
  LI_LREC_STATUS,       /* li_lrec_status: collection and the rule changed
                           (and once after HELLO) */
  LI_LREC_ACK,          /* li_lrec_ack, then a message or a file path (no
                           NUL): a command's result */
  LI_LREC_END,          /* no payload: the state closes (last record) */
  LI_LREC_KINDS
};

typedef struct li_lrec_hello {
  uint64_t pid;         /* the process */
  uint32_t lua_version; /* LUA_VERSION_NUM; 0 for LuaJIT... */
  uint32_t luajit;      /* ...1 for LuaJIT */
  double ns_per_tick;   /* the clock's (informative) */
  uint32_t frames_on;   /* frame mode */
  uint32_t memory_on;   /* memory mode */
} li_lrec_hello;

typedef struct li_lrec_frame {
  uint64_t index;       /* 1-based, as the report's frames */
  uint64_t t_ns;        /* when it ended */
  uint64_t duration_ns; /* the probes' cost taken out, as in reports */
  uint64_t busy_ns;     /* duration less idle spans */
  uint64_t idle_ns;
  uint64_t calls;       /* entries in it */
  uint64_t alloc_bytes; /* memory mode: bytes allocated in it */
  uint32_t spike;       /* 1: a spike (its tree follows as a SPIKE record
                           if it is kept) */
  uint32_t lost;        /* records the ring dropped before this one since
                           the last frame that got through */
} li_lrec_frame;

typedef struct li_lrec_funcs {
  uint32_t first;       /* id of the first function described */
  uint32_t count;
} li_lrec_funcs;

typedef struct li_lrec_func {
  uint32_t line, lastline;  /* 0 for a main chunk */
  uint32_t zone;        /* 1: a zone ("zone NAME"), 2: the idle span; 3: a
                           function counted, not timed (count_small) */
  uint32_t namelen;     /* bytes of name after the struct (with its NUL) */
  uint32_t srclen;      /* then bytes of source (with its NUL) */
  uint32_t pad_;
} li_lrec_func;

typedef struct li_lrec_spike {
  uint64_t frame;       /* its frame's index */
  uint64_t duration_ns, busy_ns;
  uint32_t n;           /* nodes that follow */
  uint32_t pad_;
} li_lrec_spike;

typedef struct li_lrec_node {
  uint32_t func;        /* function id (UINT32_MAX: the root) */
  uint32_t parent;      /* index in this record (UINT32_MAX: the root) */
  uint64_t calls;
  int64_t total_ns, self_ns;
  uint64_t alloc_bytes; /* memory mode */
} li_lrec_node;

typedef struct li_lrec_table {
  uint64_t t_ns;
  uint32_t n;           /* rows that follow */
  uint32_t nfuncs;      /* functions known so far */
} li_lrec_table;

typedef struct li_lrec_row {
  uint32_t func;
  uint32_t pad_;
  uint64_t calls;
  int64_t self_ns;
  int64_t total_ns;     /* inclusive, recursion counted once */
  uint64_t alloc_bytes; /* memory mode (else 0) */
  int64_t live_bytes;   /* memory mode: of its blocks still allocated */
} li_lrec_row;

typedef struct li_lrec_memory {
  uint64_t t_ns;
  uint64_t lua_bytes;   /* collectgarbage("count") in bytes */
  uint64_t alloc_total; /* memory mode: bytes allocated since start */
  int64_t live_tracked; /* memory mode: bytes of tracked blocks alive */
} li_lrec_memory;

#define LI_LIVE_RUNNING 0
#define LI_LIVE_PAUSED 1      /* disabled (luainstr_disable) */
#define LI_LIVE_STOPPED 2

typedef struct li_lrec_status {
  uint32_t collection;  /* LI_LIVE_RUNNING / PAUSED / STOPPED */
  uint32_t frames_on, memory_on;
  uint32_t spikes_keep;
  double spike_factor;
  double spike_ms;
  uint64_t lost;        /* records this channel's ring dropped so far */
} li_lrec_status;

typedef struct li_lrec_ack {
  uint64_t id;          /* the command's id (0: it had none) */
  uint32_t ok;          /* 1 done, 0 failed: the text is the message */
  uint32_t download;    /* 1: the text is a file's path to offer */
  char format[16];      /* "heapsnapshot", "html", ...: the download's */
} li_lrec_ack;


/* ======================================================================
** Commands: view/server -> Lua thread (chan->in), one li_live_cmd each
** ====================================================================== */

enum {
  LI_LCMD_START = 1, LI_LCMD_STOP, LI_LCMD_RESET, LI_LCMD_PAUSE,
  LI_LCMD_RESUME, LI_LCMD_RULE, LI_LCMD_SNAPSHOT, LI_LCMD_REPORT
};

typedef struct li_live_cmd {
  uint32_t cmd;         /* LI_LCMD_* */
  uint32_t state;       /* the state it is for (0: the client's current) */
  uint64_t id;          /* the client's, echoed in the ack (0: none) */
  double spike_factor;  /* RULE: > 1, or 0 to leave it */
  double spike_ms;      /* RULE: >= 0, or -1 to leave it */
  int collect;          /* SNAPSHOT: a full collection first */
  char format[16];      /* REPORT: a luainstr_dump format */
} li_live_cmd;


/* ======================================================================
** Channels: one per attached state
** ====================================================================== */

typedef struct li_live_chan {
  li_ring *out;         /* records, Lua thread -> server */
  li_ring *in;          /* commands, server -> Lua thread */
  int pending;          /* set (atomically) by the server after a command
                           was put in `in`; cleared by the Lua thread */
  uint32_t id;          /* the state's id in the page, given at attach */
  char name[64];        /* as listed in the page */
  void *server_;        /* the server's own (its view, its list link) */
} li_live_chan;

/* The atomic flag of a channel (C11 atomics on an int). */
void li_live_flag_set(li_live_chan *c);
int li_live_flag_take(li_live_chan *c);   /* 1 if it was set; clears it */


/* ======================================================================
** liveview.c: records -> JSON messages (docs/live-protocol.md)
** ====================================================================== */

/* A growing byte buffer of JSON messages, each one complete JSON text;
** msgs[i] starts at off[i] and ends where the next starts (the last at
** len); buf[len] is 0.  (A message is one WebSocket text frame.) */
typedef struct li_live_out {
  char *buf;
  size_t len, cap;
  size_t *off;
  uint32_t n, capn;
  uint8_t *droppable;   /* 1: a frame batch, table or memory message a slow
                           client may lose; 0: must be delivered */
} li_live_out;
void li_live_out_clear(li_live_out *o);
void li_live_out_free(li_live_out *o);

typedef struct li_live_view li_live_view;

/* A view of state `state_id`; NULL: no memory. */
li_live_view *li_live_view_new(uint32_t state_id);
void li_live_view_free(li_live_view *v);
/* One record in: appends its messages (maybe none: frames are batched
** until li_live_view_flush, or 600 of them) to out; any other record
** flushes the batch first.  A malformed record (wrong size, a function id
** not described yet, FUNCS leaving a gap in the ids: the producer moves on
** only when a FUNCS got through) is counted and ignored: 0 taken, -1
** ignored (or memory ran out: not counted). */
int li_live_view_feed(li_live_view *v, uint32_t kind, const void *rec,
                      size_t len, li_live_out *out);
/* The frames batched since the last flush, as one "frames" message. */
void li_live_view_flush(li_live_view *v, li_live_out *out);
/* What a new subscriber needs to be up to date: hello, status, every
** function, the last table, the recent frames (less the batch not flushed
** yet: the next flush sends it to every subscriber), the kept spikes.
** None of it is droppable: it is the subscriber's starting point. */
void li_live_view_catchup(li_live_view *v, li_live_out *out);
/* Records it ignored as malformed. */
uint64_t li_live_view_bad(const li_live_view *v);
/* Downloads: an ACK record whose text is a file's path becomes an ack
** message with "download":"/download/S/N" (S the state's id, N the view's
** own counter from 1); this gives N's path back (NULL: no such download),
** for the server to serve. */
const char *li_live_view_download(const li_live_view *v, uint32_t n);

/* A client's message (JSON text, len bytes, at most LI_LIVE_MSG_MAX):
** 1 a command (*cmd filled), 2 a subscribe ({"cmd":"subscribe"}: cmd->state
** set), 0 malformed or unknown (err says why).  Pure: no I/O, no state. */
#define LI_LIVE_MSG_MAX 4096
int li_live_parse_cmd(const char *json, size_t len, li_live_cmd *cmd,
                      char *err, size_t errlen);


/* ======================================================================
** liveserver.c: the network thread (native, with libwebsockets)
** ====================================================================== */

/* Attach channel c to the process's server at addr ("HOST:PORT", "PORT":
** 127.0.0.1), starting it at the first attach (a second attach with
** another address is an error; the same or NULL joins it).  token: the
** one to require (NULL: the server's, generated at start from the
** system's random source).  Prints one line to stderr at start:
** "luainstr: live view at http://HOST:PORT/?token=T".  0 ok; else -1 and
** err says why (the port in use, built without the server, libwebsockets
** not loadable, ...). */
int li_live_server_attach(li_live_chan *c, const char *addr,
                          const char *token, char *err, size_t errlen);
/* The page's URL with its token ("" before a start). */
const char *li_live_server_url(void);
/* Detach c: its END record is sent to its subscribers (up to about 1 s is
** waited for that: the state is closing), then c is forgotten; the last
** detach stops the server (sockets closed, thread joined). */
void li_live_server_detach(li_live_chan *c);
/* Is the server in this build?  (libwebsockets itself is opened at the
** first start, which fails, saying why, when it cannot be.) */
int li_live_server_available(void);


/* ======================================================================
** live.c: the Lua thread's side (profiler.h's li_prof carries `live`)
** ====================================================================== */

struct li_prof;
struct lua_State;
typedef struct li_live li_live;

/* Option "live": addr as li_live_server_attach's, "off" to detach; "page"
** (every build): a channel with no server, drained by li_live_drain (the
** WebAssembly page's own loop).  Status codes of luainstr.h. */
int li_live_set(struct li_prof *P, struct lua_State *L, const char *addr);
/* Options "live_token", "live_name" (before "live"). */
int li_live_set_token(struct li_prof *P, const char *token);
/* The live view's token: at most LI_LIVE_TOKEN_MAX letters, digits or
** - . _ ~ (it travels in URLs), and at least LI_LIVE_TOKEN_OPEN where the
** server listens beyond loopback (the generated one: 32 hex digits). */
#define LI_LIVE_TOKEN_MAX 128
#define LI_LIVE_TOKEN_OPEN 16
/* NULL if t is a token by those rules (off: where the server listens is
** not loopback), else what is wrong with it. */
const char *li_live_token_wrong(const char *t, int off);
int li_live_set_name(struct li_prof *P, const char *name);
/* Remove the files the live view's commands wrote (snapshots, reports) and
** their directory, now: the process is ending by a signal (run.c). */
void li_live_remove_files(struct li_prof *P);
/* src copied into dst (n bytes, n > 0) as a state's name: cut, when it is
** longer, at a character, never inside a UTF-8 sequence (a byte that is
** not UTF-8 counts as one: messages escape it as its Latin-1 \u00XX). */
void li_live_name(char *dst, size_t n, const char *src);
/* At the end of each frame mark (frames.c), with its summary. */
void li_live_frame(struct li_prof *P, struct lua_State *L,
                   const li_lrec_frame *fr);
/* The kept spike tree of frame `index` (frames.c, when it is kept). */
void li_live_spike(struct li_prof *P, uint64_t index);
/* Commands waiting, the table and memory when due: at marks, and at
** probes while frame mode is off (the probe tests li_live_due first). */
void li_live_poll(struct li_prof *P, struct lua_State *L);
/* At a probe with frame mode off (P->live_probe): is a command waiting, or
** the table due?  (An atomic load and a clock read.) */
int li_live_due(struct li_prof *P);
/* Frame mode or the channel changed: P->live_probe and the probe's fast
** path set again. */
void li_live_update(struct li_prof *P);
/* "page" channels: every message since the last drain, as one JSON array
** (malloc'd; *len its length).  NULL: none, or no memory. */
char *li_live_drain(struct li_prof *P, size_t *len);
/* A command for a "page" channel (JSON as a client sends): 0 taken. */
int li_live_command(struct li_prof *P, const char *json, size_t len);
/* "page" channels: the file of download N an ack named ("/download/S/N"),
** for the page to offer (NULL: no such download). */
const char *li_live_page_download(struct li_prof *P, uint32_t n);
/* The state closes: END posted, detached, freed. */
void li_live_close(struct li_prof *P);
/* P's channel while it is attached (NULL: none): tests read and write its
** rings as the server does. */
li_live_chan *li_live_channel(struct li_prof *P);

#endif
