/*
** liveserver.c -- the live view's network thread (issue 22;
** docs/live-protocol.md, runtime/live.h's "liveserver.c" section).
**
** One server per process, on a thread of its own that owns every socket
** (libwebsockets' event loop, one service thread): the page at /, the
** WebSocket at /live, downloads at /download/S/N, the token and the
** Origin checked, clients and message sizes bounded.  Every attached state
** has a channel; the thread reads its `out` ring on a timer (every 25 ms),
** turns the records into messages with a view (liveview.c) and queues
** them for the clients subscribed to that state.  Commands go the other
** way: parsed here (li_live_parse_cmd), put into the channel's `in` ring,
** and applied by the Lua thread at its next mark.
**
** The Lua thread never waits for this thread: it only puts records into
** a ring that this thread drains when its timer fires.  Attach and detach
** are the only calls that wait (the start; a closing state's END going
** out, at most about a second).
**
** Each client has a queue of messages.  One that reads slowly has its
** frames, table and memory messages dropped (counted, and a `lost`
** message when it has caught up); one whose undroppable backlog passes
** 8 MB is disconnected (1008).  Messages are shared between clients (a
** reference count) and written in fragments from one scratch buffer,
** since lws_write puts the frame's header in front of what it sends.
**
** libwebsockets is not linked: it is opened (dlopen) at the first server
** start, and its functions are called through a table (li_lws) filled
** then, once.  Linked, it and what it needs (libssl, libcrypto, libcap)
** were relocated by the dynamic loader at every start of every program
** made with the runtime, about half of luaprof's instructions on an empty
** script, for a server few runs start.  Its name is the SONAME of the
** library whose headers this file is compiled with (LI_LWS_SONAME, found
** by CMake); when it cannot be opened, the server does not start and
** says why, as when its port is taken.
**
** Without libwebsockets (LI_LIVE_SERVER undefined: not found at configure
** time, LUAINSTR_LIVE off, the WebAssembly build) the same functions say
** why there is no server.
*/
#define _GNU_SOURCE     /* getrandom, open_memstream, getaddrinfo */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"

#ifndef LI_LIVE_SERVER

#if defined(__EMSCRIPTEN__)
#define LI_NO_SERVER "built without the live server (WebAssembly has no " \
  "sockets: the page's own loop uses live mode \"page\")"
#elif defined(LI_LIVE_SERVER_OFF)
#define LI_NO_SERVER "built without the live server (luainstr was " \
  "configured with -DLUAINSTR_LIVE=OFF)"
#else
#define LI_NO_SERVER "built without the live server (libwebsockets-dev " \
  "was not found when luainstr was configured)"
#endif

int li_live_server_attach(li_live_chan *c, const char *addr,
                          const char *token, char *err, size_t errlen) {
  (void)c; (void)addr; (void)token;
  if (err != NULL && errlen > 0) snprintf(err, errlen, "%s", LI_NO_SERVER);
  return -1;
}

const char *li_live_server_url(void) { return ""; }

void li_live_server_detach(li_live_chan *c) { (void)c; }

int li_live_server_available(void) { return 0; }

#else  /* LI_LIVE_SERVER */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <libwebsockets.h>

#include "writers.h"

#define LI_SRV_TICK_US 25000      /* the rings are read this often */
#define LI_SRV_STATES_TICKS 40    /* `states` every 40 ticks: a second */
#define LI_SRV_MAX_CLIENTS 32     /* WebSocket clients at once */
#define LI_SRV_FRAG 16384         /* bytes of a message written at once */
#define LI_SRV_FDS 128            /* file descriptors the server may hold */
#define LI_SRV_SLOW_MSGS 64       /* a client with more queued is slow... */
#define LI_SRV_SLOW_BYTES (512u * 1024u)  /* ...or with more bytes queued */
#define LI_SRV_BACKLOG_MAX (8u * 1024u * 1024u) /* undroppable: then 1008 */
#define LI_SRV_SNDBUF (128 * 1024)  /* a client socket's send buffer */
#define LI_SRV_END_WAIT_US 1000000  /* a closing state's END: at most 1 s */
#define LI_SRV_STOP_WAIT_US 1000000 /* clients' close handshakes at stop */
#define LI_SRV_RECS_PER_TICK 20000  /* records taken from one ring a tick */

#ifndef LI_LWS_SONAME
#error "LI_LWS_SONAME: the libwebsockets to open (CMakeLists.txt gives it)"
#endif


/* ======================================================================
** libwebsockets, opened at the first start
** ====================================================================== */

/* Every libwebsockets function this file calls, always as li_lws.NAME:
** the table's fields and the names looked up are both made from this
** list (a direct call would not link: nothing links libwebsockets). */
#define LI_LWS_FUNCS(X) \
  X(lws_add_http_common_headers) \
  X(lws_add_http_header_by_name) \
  X(lws_callback_on_writable) \
  X(lws_cancel_service) \
  X(lws_close_reason) \
  X(lws_context_destroy) \
  X(lws_context_user) \
  X(lws_create_context) \
  X(lws_finalize_write_http_header) \
  X(lws_frame_is_binary) \
  X(lws_get_context) \
  X(lws_get_socket_fd) \
  X(lws_get_urlarg_by_name) \
  X(lws_get_vhost_by_name) \
  X(lws_get_vhost_listen_port) \
  X(lws_hdr_copy) \
  X(lws_hdr_total_length) \
  X(lws_http_transaction_completed) \
  X(lws_is_final_fragment) \
  X(lws_is_first_fragment) \
  X(lws_remaining_packet_payload) \
  X(lws_return_http_status) \
  X(lws_service) \
  X(lws_set_log_level) \
  X(lws_set_timeout) \
  X(lws_sul_schedule) \
  X(lws_write)

/* A field per function, of the type the header declares for it: a call
** through the table is checked as a direct call would be. */
#define LI_LWS_FIELD(name) __typeof__(name) *name;
typedef struct li_lws_api {
  LI_LWS_FUNCS(LI_LWS_FIELD)
} li_lws_api;
#undef LI_LWS_FIELD

/* Filled once (li_lws_once) at the first start, read-only after: every
** call through it comes after that start (the service thread is made
** after it, attach and detach wait for it under li_srv_life). */
static li_lws_api li_lws;
static pthread_once_t li_lws_once = PTHREAD_ONCE_INIT;
static char li_lws_error[256];      /* why it could not be ("": loaded) */

/* Opens LI_LWS_SONAME and looks every function up; on failure the
** library is closed and li_lws_error says why (dlerror's words). */
static void li_lws_load_once(void) {
  void *h = dlopen(LI_LWS_SONAME, RTLD_NOW | RTLD_LOCAL);
  void *f;
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(li_lws_error, sizeof li_lws_error, "cannot load %s "
             "(libwebsockets, which the live server needs): %s",
             LI_LWS_SONAME, e != NULL ? e : "dlopen failed");
    return;
  }
#define LI_LWS_SYM(name) \
  if ((f = dlsym(h, #name)) == NULL) goto missing; \
  memcpy(&li_lws.name, &f, sizeof f);   /* (ISO C: no cast from void *) */
  LI_LWS_FUNCS(LI_LWS_SYM)
#undef LI_LWS_SYM
  return;
missing: {
    const char *e = dlerror();
    snprintf(li_lws_error, sizeof li_lws_error, "cannot use %s "
             "(libwebsockets, which the live server needs): %s",
             LI_LWS_SONAME, e != NULL ? e : "a function is missing");
    memset(&li_lws, 0, sizeof li_lws);
    dlclose(h);
  }
}

/* libwebsockets' functions in li_lws: 0, or -1 and err says why. */
static int li_lws_load(char *err, size_t errlen) {
  pthread_once(&li_lws_once, li_lws_load_once);
  if (li_lws_error[0] == '\0') return 0;
  snprintf(err, errlen, "%s", li_lws_error);
  return -1;
}

/* A message queued for clients: shared by every queue it is in. */
typedef struct li_smsg {
  unsigned refs;            /* queues holding it */
  uint32_t state;           /* the state it is about (0: none) */
  uint8_t droppable;        /* a slow client may lose it */
  size_t len;
  char data[];
} li_smsg;

typedef struct li_schan li_schan;

/* A WebSocket client (the service thread's only). */
typedef struct li_sclient {
  struct lws *wsi;
  li_schan *sub;            /* the state it streams (NULL: none yet) */
  li_smsg **q;              /* its queue: a ring of qcap slots */
  size_t qhead, qn, qcap;
  size_t qbytes;            /* bytes queued */
  size_t qkeep;             /* of them, in undroppable messages */
  size_t sent;              /* bytes of q[qhead] already written */
  uint64_t lost;            /* droppable messages dropped since it last
                               caught up (a `lost` message says so) */
  uint32_t lost_state;      /* the state they were for */
  int closing;              /* a close status to send (0: none) */
  const char *close_why;
  size_t rxlen;             /* bytes of the message being received */
  int rxbinary;
  struct li_sclient *next, *prev;
  char rx[LI_LIVE_MSG_MAX];
} li_sclient;

/* An attached state, as the server keeps it. */
struct li_schan {
  li_live_chan *c;
  li_live_view *view;       /* service thread only */
  uint32_t id;
  char name[64];
  int known;                /* (mu) the service thread has listed it */
  int detach;               /* (mu) li_live_server_detach asks */
  int forgotten;            /* (mu) the service thread let it go */
  int ended;                /* its END went to the view */
  int64_t deadline;         /* detaching: when to stop waiting for END
                               (now_us; 0: not yet) */
  li_schan *next;
};

/* An HTTP response's body being written: from memory or from a file. */
typedef struct li_sbody {
  const char *mem;          /* the page (the server's cached copy) */
  int fd;                   /* a download (-1: none) */
  uint64_t len, off;
} li_sbody;

/* What lws keeps per connection (per_session_data_size). */
typedef struct li_spss {
  li_sclient *cl;           /* a WebSocket's client */
  li_sbody *body;           /* an HTTP response's body */
} li_spss;

typedef struct li_srv {
  /* set at start, read-only while the thread runs */
  struct lws_context *ctx;
  struct lws_vhost *vh;
  pthread_t thread;
  int running;
  char addr[300];           /* as the first attach gave it */
  char host[260];           /* the host of the URL (brackets for IPv6) */
  char bindhost[INET6_ADDRSTRLEN];  /* numeric, as bound */
  int port;
  int loopback, wildcard;
  char token[LI_LIVE_TOKEN_MAX + 1];
  size_t toklen;
  char url[512];
  /* shared with attach/detach: under mu */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  li_schan *chans;
  int stop;                 /* the last state detached: close and return */
  uint32_t next_id;
  /* the service thread's own */
  li_sclient *clients;
  unsigned nclients;
  uint64_t refused, malformed, dropped;
  uint64_t guess_second;    /* the second of the wrong tokens counted... */
  unsigned guesses;         /* ...and how many (guessing) */
  unsigned ticks;
  int stopping;             /* clients asked to close */
  int64_t stop_deadline;
  int done;                 /* the loop returns */
  lws_sorted_usec_list_t sul;
  li_live_out out;          /* messages from a view, before queueing */
  unsigned char *rec;       /* a record taken from a ring */
  size_t reccap;
  unsigned char *scratch;   /* LWS_PRE + LI_SRV_FRAG: what lws_write sends */
  char *page;               /* the page (li_write_html_live), made once */
  size_t pagelen;
} li_srv;

static li_srv li_server = {
  .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER,
  .next_id = 1
};
/* Attach and detach one at a time: start and stop happen under it. */
static pthread_mutex_t li_srv_life = PTHREAD_MUTEX_INITIALIZER;


/* Microseconds of the monotonic clock (deadlines). */
static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}


/* ======================================================================
** Messages and client queues
** ====================================================================== */

static li_smsg *msg_new(const char *data, size_t len, int droppable) {
  li_smsg *m = malloc(sizeof *m + len);
  if (m == NULL) return NULL;
  m->refs = 0;
  m->state = 0;
  m->droppable = (uint8_t)(droppable != 0);
  m->len = len;
  memcpy(m->data, data, len);
  return m;
}

static void msg_unref(li_smsg *m) {
  if (m != NULL && --m->refs == 0) free(m);
}

static void client_pop(li_sclient *cl);

/* Close cl with `status`: the close frame goes at its next writeable
** callback, what it had queued is dropped.  A client that reads nothing
** never becomes writeable: lws hangs up on it a second later. */
static void client_close(li_sclient *cl, int status, const char *why) {
  if (cl->closing) return;
  cl->closing = status;
  cl->close_why = why;
  while (cl->qn > 0) client_pop(cl);
  li_lws.lws_callback_on_writable(cl->wsi);
  li_lws.lws_set_timeout(cl->wsi, PENDING_TIMEOUT_USER_OK, 1);
}

/* Queue m for cl (force: a catch-up, never dropped). */
static void client_push(li_srv *s, li_sclient *cl, li_smsg *m, int force) {
  if (cl->closing) return;
  if (m->droppable && !force &&
      (cl->qn >= LI_SRV_SLOW_MSGS || cl->qbytes >= LI_SRV_SLOW_BYTES)) {
    /* a slow reader: it loses this one (said later, in `lost`) */
    cl->lost++;
    cl->lost_state = m->state;
    s->dropped++;
    return;
  }
  if (!m->droppable && cl->qkeep + m->len > LI_SRV_BACKLOG_MAX) {
    client_close(cl, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                 "more than 8 MB behind");
    return;
  }
  if (cl->qn == cl->qcap) {
    size_t ncap = cl->qcap ? cl->qcap * 2 : 64, i;
    li_smsg **nq = malloc(ncap * sizeof *nq);
    if (nq == NULL) {
      client_close(cl, LWS_CLOSE_STATUS_UNEXPECTED_CONDITION, "no memory");
      return;
    }
    for (i = 0; i < cl->qn; i++)
      nq[i] = cl->q[(cl->qhead + i) % cl->qcap];
    free(cl->q);
    cl->q = nq;
    cl->qcap = ncap;
    cl->qhead = 0;
  }
  cl->q[(cl->qhead + cl->qn) % cl->qcap] = m;
  cl->qn++;
  m->refs++;
  cl->qbytes += m->len;
  if (!m->droppable) cl->qkeep += m->len;
  li_lws.lws_callback_on_writable(cl->wsi);
}

static void client_pop(li_sclient *cl) {
  li_smsg *m = cl->q[cl->qhead];
  cl->qhead = (cl->qhead + 1) % cl->qcap;
  cl->qn--;
  cl->qbytes -= m->len;
  if (!m->droppable) cl->qkeep -= m->len;
  cl->sent = 0;
  msg_unref(m);
}

static void client_free(li_srv *s, li_sclient *cl) {
  while (cl->qn > 0) client_pop(cl);
  free(cl->q);
  if (cl->prev != NULL) cl->prev->next = cl->next;
  else s->clients = cl->next;
  if (cl->next != NULL) cl->next->prev = cl->prev;
  s->nclients--;
  free(cl);
}

/* A message made here (not by a view) for one client. */
static void client_say(li_srv *s, li_sclient *cl, const char *text,
                       size_t len) {
  li_smsg *m = msg_new(text, len, 0);
  if (m == NULL) return;
  m->refs = 1;              /* held while it is pushed */
  client_push(s, cl, m, 1);
  msg_unref(m);
}

/* Queue a message for every client streaming ch (or, ch NULL, for every
** client). */
static void broadcast(li_srv *s, const li_schan *ch, const char *text,
                      size_t len, int droppable) {
  li_sclient *cl;
  li_smsg *m = NULL;
  for (cl = s->clients; cl != NULL; cl = cl->next) {
    if (ch != NULL && cl->sub != ch) continue;
    if (m == NULL) {
      m = msg_new(text, len, droppable);
      if (m == NULL) return;
      m->refs = 1;
      m->state = ch != NULL ? ch->id : 0;
    }
    client_push(s, cl, m, 0);
  }
  msg_unref(m);
}


/* ======================================================================
** JSON made by the server itself (states, lost, its own acks)
** ====================================================================== */

typedef struct li_sbuf {
  char *p;
  size_t len, cap;
  int oom;
} li_sbuf;

static void sb_put(li_sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->len + n + 1 > b->cap) {
    size_t ncap = b->cap ? b->cap : 256;
    char *np;
    while (ncap < b->len + n + 1) ncap *= 2;
    np = realloc(b->p, ncap);
    if (np == NULL) { b->oom = 1; return; }
    b->p = np;
    b->cap = ncap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
}

static void sb_printf(li_sbuf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
static void sb_printf(li_sbuf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) sb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A JSON string (a state's name: anything the host gave), as
** li_json_lstring writes one: valid UTF-8 as it is, any other byte as its
** Latin-1 \u00XX (a text frame that is not UTF-8 makes a browser close the
** connection). */
static void sb_str(li_sbuf *b, const char *s) {
  const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
  sb_put(b, "\"", 1);
  while (p < end) {
    unsigned ch = *p;
    size_t n = li_utf8_len(p, (size_t)(end - p));
    if (n > 1) {
      sb_put(b, (const char *)p, n);
      p += n;
      continue;
    }
    p++;
    if (n == 0 || ch < 0x20 || ch == 0x7f) {
      sb_printf(b, "\\u%04x", ch);
    } else if (ch == '"' || ch == '\\') {
      char e[2] = { '\\', (char)ch };
      sb_put(b, e, 2);
    } else {
      sb_put(b, (const char *)p - 1, 1);
    }
  }
  sb_put(b, "\"", 1);
}

/* `states`: every state attached (and not closing), and the counters. */
static void send_states(li_srv *s, li_sclient *only) {
  li_sbuf b = { 0 };
  li_schan *ch;
  int first = 1;
  sb_printf(&b, "{\"type\":\"states\",\"states\":[");
  pthread_mutex_lock(&s->mu);
  for (ch = s->chans; ch != NULL; ch = ch->next) {
    if (!ch->known || ch->forgotten) continue;
    sb_printf(&b, "%s{\"id\":%" PRIu32 ",\"name\":", first ? "" : ",",
              ch->id);
    sb_str(&b, ch->name);
    sb_printf(&b, ",\"pid\":%ld}", (long)getpid());
    first = 0;
  }
  pthread_mutex_unlock(&s->mu);
  sb_printf(&b, "],\"server\":{\"clients\":%u,\"refused\":%" PRIu64
            ",\"malformed\":%" PRIu64 ",\"dropped\":%" PRIu64 "}}",
            s->nclients, s->refused, s->malformed, s->dropped);
  if (!b.oom) {
    if (only != NULL) client_say(s, only, b.p, b.len);
    else broadcast(s, NULL, b.p, b.len, 0);
  }
  free(b.p);
}

/* An ack the server gives itself: a command it could not pass on. */
static void send_refusal(li_srv *s, li_sclient *cl, uint32_t state,
                         uint64_t id, const char *why) {
  char buf[256];
  int n = snprintf(buf, sizeof buf,
                   "{\"type\":\"ack\",\"state\":%" PRIu32 ",\"id\":%" PRIu64
                   ",\"ok\":false,\"error\":\"%s\"}", state, id, why);
  if (n > 0 && (size_t)n < sizeof buf) client_say(s, cl, buf, (size_t)n);
}


/* ======================================================================
** Channels: records in, messages out
** ====================================================================== */

/* Queue the messages of s->out for ch's subscribers, then clear it. */
static void queue_out(li_srv *s, const li_schan *ch) {
  li_live_out *o = &s->out;
  uint32_t i;
  for (i = 0; i < o->n; i++) {
    size_t end = i + 1 < o->n ? o->off[i + 1] : o->len;
    broadcast(s, ch, o->buf + o->off[i], end - o->off[i], o->droppable[i]);
  }
  li_live_out_clear(o);
}

/* Take what ch's ring holds into its view, and queue the messages. */
static void pump(li_srv *s, li_schan *ch) {
  uint32_t kind;
  size_t len;
  int n = 0;
  while (n++ < LI_SRV_RECS_PER_TICK && li_ring_peek(ch->c->out, &kind, &len)) {
    if (len > s->reccap) {
      size_t ncap = s->reccap ? s->reccap : 4096;
      unsigned char *nr;
      while (ncap < len) ncap *= 2;
      nr = realloc(s->rec, ncap);
      if (nr == NULL) break;          /* taken at a later tick */
      s->rec = nr;
      s->reccap = ncap;
    }
    len = li_ring_get(ch->c->out, &kind, s->rec, s->reccap);
    if (kind == LI_LREC_END) ch->ended = 1;
    li_live_view_feed(ch->view, kind, s->rec, len, &s->out);
  }
  li_live_view_flush(ch->view, &s->out);
  queue_out(s, ch);
}

static li_schan *chan_find(li_srv *s, uint32_t id) {
  li_schan *ch;
  for (ch = s->chans; ch != NULL; ch = ch->next)
    if (ch->known && !ch->forgotten && !ch->detach &&
        (id == 0 || ch->id == id))
      return ch;
  return NULL;
}

/* Has every subscriber of ch been given all it had queued? */
static int chan_flushed(const li_srv *s, const li_schan *ch) {
  const li_sclient *cl;
  for (cl = s->clients; cl != NULL; cl = cl->next)
    if (cl->sub == ch && cl->qn > 0 && !cl->closing) return 0;
  return 1;
}

/* The service thread's side of attach and detach (under mu): new states
** listed, closing ones given their END, then forgotten. */
static void sync_chans(li_srv *s) {
  li_schan **pp, *ch;
  int changed = 0;
  int64_t now = now_us();
  pthread_mutex_lock(&s->mu);
  for (pp = &s->chans; (ch = *pp) != NULL; ) {
    if (!ch->known) {
      ch->known = 1;
      changed = 1;
    }
    if (ch->detach && !ch->forgotten) {
      if (ch->deadline == 0) {
        pump(s, ch);
        if (!ch->ended) {
          /* its END was dropped (a full ring): the view makes it */
          li_live_view_feed(ch->view, LI_LREC_END, NULL, 0, &s->out);
          queue_out(s, ch);
          ch->ended = 1;
        }
        ch->deadline = now + LI_SRV_END_WAIT_US;
      }
      if (chan_flushed(s, ch) || now >= ch->deadline) {
        li_sclient *cl;
        for (cl = s->clients; cl != NULL; cl = cl->next)
          if (cl->sub == ch) cl->sub = NULL;
        li_live_view_free(ch->view);
        ch->view = NULL;
        ch->forgotten = 1;
        *pp = ch->next;           /* li_live_server_detach frees it */
        pthread_cond_broadcast(&s->cv);
        changed = 1;
        continue;
      }
    }
    pp = &ch->next;
  }
  if (s->stop && !s->stopping) {
    li_sclient *cl;
    s->stopping = 1;
    s->stop_deadline = now + LI_SRV_STOP_WAIT_US;
    for (cl = s->clients; cl != NULL; cl = cl->next)
      client_close(cl, LWS_CLOSE_STATUS_NORMAL, "the program ends");
  }
  pthread_mutex_unlock(&s->mu);
  if (changed && !s->stopping) send_states(s, NULL);
}

static void tick(lws_sorted_usec_list_t *sul) {
  li_srv *s = lws_container_of(sul, li_srv, sul);
  li_schan *ch;
  sync_chans(s);
  pthread_mutex_lock(&s->mu);
  for (ch = s->chans; ch != NULL; ch = ch->next)
    if (ch->known && !ch->detach) pump(s, ch);
  pthread_mutex_unlock(&s->mu);
  if (s->stopping) {
    if (s->nclients == 0 || now_us() >= s->stop_deadline) {
      s->done = 1;
      /* timers run just before lws_service's poll: wake it, or it would
      ** sleep its full default (30 s) before the loop sees `done` */
      li_lws.lws_cancel_service(s->ctx);
      return;
    }
  } else if (++s->ticks % LI_SRV_STATES_TICKS == 0) {
    send_states(s, NULL);
  }
  li_lws.lws_sul_schedule(s->ctx, 0, &s->sul, tick, LI_SRV_TICK_US);
}


/* ======================================================================
** Requests: the token, the Origin, the page, downloads
** ====================================================================== */

/* Wrong tokens are limited to LI_SRV_GUESSES a second: past that, every
** request is refused (429) until the second is over, the right token too
** (a guesser cannot tell), so that a short token given by the user cannot
** be tried at network speed. */
#define LI_SRV_GUESSES 30
#define LI_HTTP_TOO_MANY 429   /* (libwebsockets names no 429) */

static int guessing(const li_srv *s) {
  return s->guesses >= LI_SRV_GUESSES &&
         (uint64_t)time(NULL) == s->guess_second;
}

static void wrong_token(li_srv *s) {
  uint64_t now = (uint64_t)time(NULL);
  if (now != s->guess_second) {
    s->guess_second = now;
    s->guesses = 0;
  }
  s->guesses++;
}

/* The request's token against the server's, in time independent of where
** they differ. */
static int token_ok(li_srv *s, struct lws *wsi) {
  char buf[LI_LIVE_TOKEN_MAX + 16];
  const char *t = li_lws.lws_get_urlarg_by_name(wsi, "token=", buf,
                                                (int)sizeof buf);
  size_t n, i;
  unsigned diff;
  if (t == NULL) return 0;
  n = strlen(t);
  diff = n != s->toklen;
  for (i = 0; i < s->toklen; i++)
    diff |= (unsigned)(unsigned char)(i < n ? t[i] : 0) ^
            (unsigned)(unsigned char)s->token[i];
  return diff == 0;
}

/* Is `o` (an Origin header) "http://H:PORT" with H one of the server's own
** names? */
static int origin_is(const li_srv *s, const char *o, const char *h) {
  size_t n = strlen(h);
  char port[16];
  if (strncmp(o, "http://", 7) != 0) return 0;
  o += 7;
  if (strncasecmp(o, h, n) != 0) return 0;
  snprintf(port, sizeof port, ":%d", s->port);
  return strcmp(o + n, port) == 0;
}

/* A WebSocket upgrade's Origin: absent (not a browser), or the server's own
** origin.  For a loopback server localhost, 127.0.0.1 and [::1] are the
** same; for a wildcard address (0.0.0.0, ::) the page is reached by
** whatever name the browser used, so the request's own Host stands for
** it (the token still guards the socket). */
static int origin_ok(li_srv *s, struct lws *wsi) {
  char o[300], host[300];
  int n = li_lws.lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
  if (n <= 0) return 1;
  if (n >= (int)sizeof o || li_lws.lws_hdr_copy(wsi, o, (int)sizeof o,
                                                WSI_TOKEN_ORIGIN) < 0)
    return 0;
  if (origin_is(s, o, s->host)) return 1;
  if (s->loopback && (origin_is(s, o, "localhost") ||
                      origin_is(s, o, "127.0.0.1") ||
                      origin_is(s, o, "[::1]")))
    return 1;
  if (s->wildcard && li_lws.lws_hdr_copy(wsi, host, (int)sizeof host,
                                         WSI_TOKEN_HOST) > 0) {
    return strncmp(o, "http://", 7) == 0 && strcasecmp(o + 7, host) == 0;
  }
  return 0;
}

/* Refuse a request with `code` and close: 1 (the caller returns it). */
static int refuse(struct lws *wsi, unsigned code, const char *why) {
  if (li_lws.lws_return_http_status(wsi, code, why)) return -1;
  return li_lws.lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Start a response: headers now, the body at writeable callbacks. */
static int respond(struct lws *wsi, li_spss *pss, const char *ctype,
                   li_sbody *body, const char *disposition) {
  unsigned char hdr[LWS_PRE + 1024];
  unsigned char *start = hdr + LWS_PRE, *p = start, *end = hdr + sizeof hdr;
  if (li_lws.lws_add_http_common_headers(wsi, HTTP_STATUS_OK, ctype,
          (lws_filepos_t)body->len, &p, end) ||
      li_lws.lws_add_http_header_by_name(wsi,
          (const unsigned char *)"cache-control:",
          (const unsigned char *)"no-store", 8, &p, end) ||
      li_lws.lws_add_http_header_by_name(wsi,
          (const unsigned char *)"x-content-type-options:",
          (const unsigned char *)"nosniff", 7, &p, end) ||
      (disposition != NULL &&
       li_lws.lws_add_http_header_by_name(wsi,
          (const unsigned char *)"content-disposition:",
          (const unsigned char *)disposition, (int)strlen(disposition),
          &p, end)) ||
      li_lws.lws_finalize_write_http_header(wsi, start, &p, end)) {
    if (body->fd >= 0) close(body->fd);
    free(body);
    return -1;
  }
  pss->body = body;
  li_lws.lws_callback_on_writable(wsi);
  return 0;
}

/* The page: li_write_html_live's bytes, made at the first request. */
static int serve_page(li_srv *s, struct lws *wsi, li_spss *pss) {
  li_sbody *body;
  if (s->page == NULL) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int bad = f == NULL || li_write_html_live(f) != 0;
    if (f != NULL && fclose(f) != 0) bad = 1;
    if (bad || buf == NULL || len == 0) {
      free(buf);
      return refuse(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
                    "the live page could not be made");
    }
    s->page = buf;
    s->pagelen = len;
  }
  body = malloc(sizeof *body);
  if (body == NULL) return -1;
  body->mem = s->page;
  body->fd = -1;
  body->len = s->pagelen;
  body->off = 0;
  return respond(wsi, pss, "text/html; charset=utf-8", body, NULL);
}

/* A file's type by its extension (what the format wrote). */
static const char *content_type(const char *ext) {
  static const char *const types[][2] = {
    { ".html", "text/html; charset=utf-8" },
    { ".json", "application/json" },
    { ".heapsnapshot", "application/json" },
    { ".cpuprofile", "application/json" },
    { ".csv", "text/csv; charset=utf-8" },
    { ".txt", "text/plain; charset=utf-8" },
    { ".folded", "text/plain; charset=utf-8" },
  };
  size_t i;
  for (i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp(ext, types[i][0]) == 0) return types[i][1];
  return "application/octet-stream";
}

/* A number of the URL: digits only, no leading zero, fits 32 bits. */
static const char *url_u32(const char *p, uint32_t *v) {
  uint64_t n = 0;
  if (*p < '1' || *p > '9') return NULL;
  while (*p >= '0' && *p <= '9') {
    n = n * 10 + (uint64_t)(*p++ - '0');
    if (n > UINT32_MAX) return NULL;
  }
  *v = (uint32_t)n;
  return p;
}

/* GET /download/S/N: file N of state S, as an attachment named for it. */
static int serve_download(li_srv *s, struct lws *wsi, li_spss *pss,
                          const char *rest) {
  uint32_t sid, n;
  const char *p = url_u32(rest, &sid), *path, *base, *dot;
  char ext[24] = "", disp[160];
  li_schan *ch;
  li_sbody *body;
  struct stat st;
  int fd;
  if (p == NULL || *p != '/' || (p = url_u32(p + 1, &n)) == NULL || *p)
    return refuse(wsi, HTTP_STATUS_NOT_FOUND, NULL);
  pthread_mutex_lock(&s->mu);
  ch = chan_find(s, sid);
  path = ch != NULL ? li_live_view_download(ch->view, n) : NULL;
  fd = path != NULL ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (path != NULL) {
    base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    dot = strchr(base, '.');
    /* its extension, if a plain one: it says the format */
    if (dot != NULL && strlen(dot) < sizeof ext &&
        strspn(dot, ".abcdefghijklmnopqrstuvwxyz0123456789") == strlen(dot))
      memcpy(ext, dot, strlen(dot) + 1);
  }
  pthread_mutex_unlock(&s->mu);
  if (fd < 0) return refuse(wsi, HTTP_STATUS_NOT_FOUND, NULL);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (body = malloc(sizeof *body)) == NULL) {
    close(fd);
    return refuse(wsi, HTTP_STATUS_NOT_FOUND, NULL);
  }
  body->mem = NULL;
  body->fd = fd;
  body->len = (uint64_t)st.st_size;
  body->off = 0;
  snprintf(disp, sizeof disp,
           "attachment; filename=\"luainstr-%" PRIu32 "-%" PRIu32 "%s\"",
           sid, n, ext);
  return respond(wsi, pss, content_type(ext), body, disp);
}

/* The next piece of a response's body; -1 to close, 0 to go on. */
static int write_body(struct lws *wsi, li_spss *pss, unsigned char *scratch) {
  li_sbody *b = pss->body;
  unsigned char *p = scratch + LWS_PRE;
  size_t n = LI_SRV_FRAG;
  int last;
  if (b == NULL) return 0;
  if (n > b->len - b->off) n = (size_t)(b->len - b->off);
  if (b->mem != NULL) {
    memcpy(p, b->mem + b->off, n);
  } else if (n > 0) {
    ssize_t r = pread(b->fd, p, n, (off_t)b->off);
    if (r <= 0) return -1;       /* the file shrank: the length was sent */
    n = (size_t)r;
  }
  b->off += n;
  last = b->off >= b->len;
  if (li_lws.lws_write(wsi, p, n,
                       last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
    return -1;
  if (!last) {
    li_lws.lws_callback_on_writable(wsi);
    return 0;
  }
  if (b->fd >= 0) close(b->fd);
  free(b);
  pss->body = NULL;
  return li_lws.lws_http_transaction_completed(wsi) ? -1 : 0;
}

static void free_body(li_spss *pss) {
  if (pss != NULL && pss->body != NULL) {
    if (pss->body->fd >= 0) close(pss->body->fd);
    free(pss->body);
    pss->body = NULL;
  }
}

static int on_http(li_srv *s, struct lws *wsi, li_spss *pss, const char *uri) {
  if (li_lws.lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0)
    return refuse(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, NULL);
  if (guessing(s)) {
    s->refused++;
    return refuse(wsi, LI_HTTP_TOO_MANY, "too many wrong tokens");
  }
  if (!token_ok(s, wsi)) {
    s->refused++;
    wrong_token(s);
    return refuse(wsi, HTTP_STATUS_FORBIDDEN, "token required");
  }
  if (strcmp(uri, "/") == 0) return serve_page(s, wsi, pss);
  if (strncmp(uri, "/download/", 10) == 0)
    return serve_download(s, wsi, pss, uri + 10);
  if (strcmp(uri, "/live") == 0)
    return refuse(wsi, HTTP_STATUS_BAD_REQUEST, "a WebSocket only");
  return refuse(wsi, HTTP_STATUS_NOT_FOUND, NULL);
}

/* An upgrade to a WebSocket: /live only, with the token, from the
** server's own origin, while there is room.  0 to go on, 1 refused (the
** status sent), -1 to hang up. */
static int on_upgrade(li_srv *s, struct lws *wsi, const char *proto) {
  char uri[64];
  if (proto == NULL || strcmp(proto, "websocket") != 0) return -1;
  if (li_lws.lws_hdr_copy(wsi, uri, (int)sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
      strcmp(uri, "/live") != 0) {
    li_lws.lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
    return 1;
  }
  if (guessing(s)) {
    s->refused++;
    li_lws.lws_return_http_status(wsi, LI_HTTP_TOO_MANY,
                                  "too many wrong tokens");
    return 1;
  }
  if (!token_ok(s, wsi)) {
    s->refused++;
    wrong_token(s);
    li_lws.lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN,
                                  "token required");
    return 1;
  }
  if (!origin_ok(s, wsi)) {
    s->refused++;
    li_lws.lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN,
                                  "origin refused");
    return 1;
  }
  if (s->nclients >= LI_SRV_MAX_CLIENTS || s->stopping) {
    s->refused++;
    li_lws.lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE,
        s->stopping ? "closing" : "too many clients");
    return 1;
  }
  return 0;
}


/* ======================================================================
** Client messages: commands and subscriptions
** ====================================================================== */

static void on_message(li_srv *s, li_sclient *cl) {
  li_live_cmd cmd;
  char err[128];
  li_schan *ch;
  int r = cl->rxbinary ? 0 : li_live_parse_cmd(cl->rx, cl->rxlen, &cmd, err,
                                               sizeof err);
  if (r == 0) {
    s->malformed++;           /* counted, ignored: `states` shows it */
    return;
  }
  sync_chans(s);              /* a state attached a moment ago is known */
  pthread_mutex_lock(&s->mu);
  if (r == 2) {
    ch = chan_find(s, cmd.state);
    if (ch == NULL) {
      send_refusal(s, cl, cmd.state, cmd.id, "no such state");
    } else {
      /* the view up to date and its batch out first: the catch-up is
      ** then followed by exactly what comes next */
      pump(s, ch);
      cl->sub = ch;
      li_live_view_catchup(ch->view, &s->out);
      {
        li_live_out *o = &s->out;
        uint32_t i;
        for (i = 0; i < o->n; i++) {
          size_t end = i + 1 < o->n ? o->off[i + 1] : o->len;
          client_say(s, cl, o->buf + o->off[i], end - o->off[i]);
        }
        li_live_out_clear(o);
      }
    }
  } else {
    ch = chan_find(s, cmd.state != 0 ? cmd.state
                                     : cl->sub != NULL ? cl->sub->id : 0);
    if (ch == NULL) {
      send_refusal(s, cl, cmd.state, cmd.id, "no such state");
    } else {
      cmd.state = ch->id;
      if (li_ring_put(ch->c->in, cmd.cmd, &cmd, sizeof cmd, NULL, 0))
        li_live_flag_set(ch->c);
      else
        send_refusal(s, cl, ch->id, cmd.id, "too many commands waiting");
    }
  }
  pthread_mutex_unlock(&s->mu);
}

static int on_receive(li_srv *s, struct lws *wsi, li_sclient *cl,
                      const void *in, size_t len) {
  if (li_lws.lws_is_first_fragment(wsi)) {
    cl->rxlen = 0;
    cl->rxbinary = li_lws.lws_frame_is_binary(wsi);
  }
  if (len > sizeof cl->rx - cl->rxlen) {
    static const char why[] = "message over 4096 bytes";
    s->malformed++;
    li_lws.lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                            (unsigned char *)why, sizeof why - 1);
    return -1;
  }
  memcpy(cl->rx + cl->rxlen, in, len);
  cl->rxlen += len;
  if (li_lws.lws_is_final_fragment(wsi) &&
      li_lws.lws_remaining_packet_payload(wsi) == 0)
    on_message(s, cl);
  return 0;
}

/* Write the next fragment of cl's queue (one lws_write a callback). */
static int on_writeable(li_srv *s, struct lws *wsi, li_sclient *cl) {
  li_smsg *m;
  size_t n;
  int flags;
  if (cl->closing) {
    li_lws.lws_close_reason(wsi, (enum lws_close_status)cl->closing,
                            (unsigned char *)cl->close_why,
                            strlen(cl->close_why));
    return -1;
  }
  if (cl->qn == 0 && cl->lost > 0) {
    /* caught up: say what it lost */
    char buf[128];
    int k = snprintf(buf, sizeof buf,
                     "{\"type\":\"lost\",\"state\":%" PRIu32 ",\"count\":%"
                     PRIu64 "}", cl->lost_state, cl->lost);
    cl->lost = 0;
    client_say(s, cl, buf, (size_t)k);
  }
  if (cl->qn == 0) return 0;
  m = cl->q[cl->qhead];
  n = m->len - cl->sent;
  if (n > LI_SRV_FRAG) n = LI_SRV_FRAG;
  memcpy(s->scratch + LWS_PRE, m->data + cl->sent, n);
  flags = lws_write_ws_flags(LWS_WRITE_TEXT, cl->sent == 0,
                             cl->sent + n == m->len);
  if (li_lws.lws_write(wsi, s->scratch + LWS_PRE, n,
                       (enum lws_write_protocol)flags) < (int)n)
    return -1;
  cl->sent += n;
  if (cl->sent == m->len) client_pop(cl);
  if (cl->qn > 0 || cl->lost > 0) li_lws.lws_callback_on_writable(wsi);
  return 0;
}

static int li_srv_callback(struct lws *wsi, enum lws_callback_reasons reason,
                           void *user, void *in, size_t len) {
  li_srv *s = li_lws.lws_context_user(li_lws.lws_get_context(wsi));
  li_spss *pss = user;
  switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
      /* an attach or a detach: seen now rather than at the next tick */
      if (!s->done) sync_chans(s);
      return 0;
    case LWS_CALLBACK_HTTP:
      return on_http(s, wsi, pss, in != NULL ? (const char *)in : "");
    case LWS_CALLBACK_HTTP_WRITEABLE:
      return write_body(wsi, pss, s->scratch);
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    case LWS_CALLBACK_CLOSED_HTTP:
      free_body(pss);
      return 0;
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
      return on_upgrade(s, wsi, (const char *)in);
    case LWS_CALLBACK_ESTABLISHED: {
      li_sclient *cl = calloc(1, sizeof *cl);
      int sndbuf = LI_SRV_SNDBUF;
      if (cl == NULL) return -1;
      sync_chans(s);            /* a state attached a moment ago is listed */
      /* a modest socket buffer: a slow reader's backlog is then in its
      ** queue, where stale frames are dropped, not megabytes of them in
      ** the kernel's (which would grow it for a fast one on loopback) */
      setsockopt(li_lws.lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF,
                 &sndbuf, sizeof sndbuf);
      cl->wsi = wsi;
      cl->next = s->clients;
      if (s->clients != NULL) s->clients->prev = cl;
      s->clients = cl;
      s->nclients++;
      pss->cl = cl;
      pss->body = NULL;
      send_states(s, cl);
      return 0;
    }
    case LWS_CALLBACK_RECEIVE:
      return pss->cl != NULL ? on_receive(s, wsi, pss->cl, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
      return pss->cl != NULL ? on_writeable(s, wsi, pss->cl) : -1;
    case LWS_CALLBACK_CLOSED:
      if (pss != NULL && pss->cl != NULL) {
        client_free(s, pss->cl);
        pss->cl = NULL;
      }
      return 0;
    default:
      return 0;
  }
}

static const struct lws_protocols li_srv_protocols[] = {
  { "luainstr-live", li_srv_callback, sizeof(li_spss), LI_LIVE_MSG_MAX,
    0, NULL, LI_SRV_FRAG },
  { NULL, NULL, 0, 0, 0, NULL, 0 }
};


/* ======================================================================
** Start and stop
** ====================================================================== */

/* lws's own messages: errors only, marked as ours. */
static void li_srv_log(int level, const char *line) {
  const char *p = line;
  (void)level;
  if (*p == '[' && (p = strstr(line, "] ")) != NULL) p += 2;
  else p = line;
  fprintf(stderr, "luainstr: live: %s", p);
}

/* 32 hex digits from the system's random source. */
static int make_token(char *out, char *err, size_t errlen) {
  unsigned char r[16];
  size_t got = 0, i;
  while (got < sizeof r) {
    ssize_t n = getrandom(r + got, sizeof r - got, 0);
    if (n > 0) { got += (size_t)n; continue; }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  if (got < sizeof r) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    got = 0;
    while (fd >= 0 && got < sizeof r) {
      ssize_t n = read(fd, r + got, sizeof r - got);
      if (n > 0) got += (size_t)n;
      else if (n < 0 && errno == EINTR) continue;
      else break;
    }
    if (fd >= 0) close(fd);
    if (got < sizeof r) {
      snprintf(err, errlen, "no random source for the token "
               "(getrandom and /dev/urandom failed)");
      return -1;
    }
  }
  for (i = 0; i < sizeof r; i++) sprintf(out + 2 * i, "%02x", r[i]);
  return 0;
}

/* A token given by the user, by the rules of li_live_token_wrong (off:
** the server listens beyond loopback). */
static int check_token(const char *t, int off, char *err, size_t errlen) {
  const char *wrong = li_live_token_wrong(t, off);
  if (wrong != NULL) {
    snprintf(err, errlen, "live_token: %s", wrong);
    return -1;
  }
  return 0;
}

/* "HOST:PORT", "[V6]:PORT" or "PORT" into host and port. */
static int parse_addr(const char *addr, char *host, size_t hostlen,
                      int *port, char *err, size_t errlen) {
  const char *colon, *p;
  size_t hl;
  long v = 0;
  if (addr[0] == '[') {
    const char *close = strchr(addr, ']');
    if (close == NULL || close[1] != ':') goto bad;
    colon = close + 1;
    addr++;
    hl = (size_t)(close - addr);
  } else if ((colon = strrchr(addr, ':')) != NULL) {
    if (memchr(addr, ':', (size_t)(colon - addr)) != NULL) goto bad;
    hl = (size_t)(colon - addr);
  } else {
    colon = addr - 1;       /* a port alone: loopback */
    hl = 0;
  }
  if (hl >= hostlen) goto bad;
  if (hl == 0) snprintf(host, hostlen, "127.0.0.1");
  else { memcpy(host, addr, hl); host[hl] = '\0'; }
  p = colon + 1;
  if (*p == '\0') goto bad;
  for (; *p; p++) {
    if (*p < '0' || *p > '9' || (v = v * 10 + (*p - '0')) > 65535) goto bad;
  }
  *port = (int)v;
  return 0;
bad:
  snprintf(err, errlen, "\"%s\": not HOST:PORT, [IPV6]:PORT or PORT "
           "(a port from 0 to 65535)", addr);
  return -1;
}

/* The host to a numeric address, bound once here to say clearly why not
** (libwebsockets would only log it). */
static int resolve_and_probe(li_srv *s, const char *host, int port,
                             struct sockaddr_storage *sa, char *err,
                             size_t errlen) {
  struct addrinfo hints, *res = NULL;
  int rc, fd, one = 1;
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_family = AF_INET;          /* localhost: 127.0.0.1 first */
  rc = getaddrinfo(host, NULL, &hints, &res);
  if (rc != 0) {
    hints.ai_family = AF_UNSPEC;
    rc = getaddrinfo(host, NULL, &hints, &res);
  }
  if (rc != 0 || res == NULL) {
    snprintf(err, errlen, "cannot resolve \"%s\": %s", host,
             gai_strerror(rc));
    return -1;
  }
  memcpy(sa, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (sa->ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)sa;
    uint32_t ip = ntohl(a->sin_addr.s_addr);
    a->sin_port = htons((uint16_t)port);
    s->loopback = (ip >> 24) == 127;
    s->wildcard = ip == 0;
    inet_ntop(AF_INET, &a->sin_addr, s->bindhost, sizeof s->bindhost);
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)sa;
    a->sin6_port = htons((uint16_t)port);
    s->loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
    s->wildcard = IN6_IS_ADDR_UNSPECIFIED(&a->sin6_addr);
    inet_ntop(AF_INET6, &a->sin6_addr, s->bindhost, sizeof s->bindhost);
  }
  fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(err, errlen, "socket: %s", strerror(errno));
    return -1;
  }
  /* as libwebsockets' own listener sets it */
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)sa, sa->ss_family == AF_INET
           ? (socklen_t)sizeof(struct sockaddr_in)
           : (socklen_t)sizeof(struct sockaddr_in6)) != 0 ||
      listen(fd, 1) != 0) {
    int e = errno;
    close(fd);
    snprintf(err, errlen, "cannot listen on %s:%d: %s%s", host, port,
             strerror(e), e == EADDRINUSE
             ? " (another program has it: choose another port, or 0 for "
               "any free one)" : "");
    return -1;
  }
  close(fd);
  return 0;
}

static void *li_srv_main(void *ud) {
  li_srv *s = ud;
  /* the timer from this thread: scheduled from the one that made the
  ** context, its first wake-up was not counted in the poll's timeout */
  li_lws.lws_sul_schedule(s->ctx, 0, &s->sul, tick, LI_SRV_TICK_US);
  while (!s->done)
    if (li_lws.lws_service(s->ctx, 0) < 0) break;
  return NULL;
}

static void li_srv_reset(li_srv *s) {
  /* clients lws did not report closed (it closes them all in
  ** lws_context_destroy, and says so: normally none) */
  while (s->clients != NULL) {
    li_sclient *cl = s->clients;
    s->clients = cl->next;
    while (cl->qn > 0) client_pop(cl);
    free(cl->q);
    free(cl);
  }
  memset(&s->sul, 0, sizeof s->sul);
  li_live_out_free(&s->out);
  memset(&s->out, 0, sizeof s->out);
  free(s->rec);
  free(s->scratch);
  free(s->page);
  s->rec = s->scratch = NULL;
  s->page = NULL;
  s->reccap = s->pagelen = 0;
  s->ctx = NULL;
  s->vh = NULL;
  s->running = s->stop = s->stopping = s->done = 0;
  s->clients = NULL;
  s->nclients = 0;
  s->refused = s->malformed = s->dropped = 0;
  s->ticks = 0;
  s->url[0] = '\0';
  s->addr[0] = '\0';
}

static int li_srv_start(li_srv *s, const char *addr, const char *token,
                        char *err, size_t errlen) {
  struct lws_context_creation_info info;
  struct sockaddr_storage sa;
  sigset_t all, old;
  char host[256];
  int port, rc;
  if (li_lws_load(err, errlen) != 0) return -1;
  if (parse_addr(addr, host, sizeof host, &port, err, errlen) != 0)
    return -1;
  if (resolve_and_probe(s, host, port, &sa, err, errlen) != 0) return -1;
  if (token != NULL) {
    if (check_token(token, !s->loopback, err, errlen) != 0) return -1;
    snprintf(s->token, sizeof s->token, "%s", token);
  } else if (make_token(s->token, err, errlen) != 0) {
    return -1;
  }
  s->toklen = strlen(s->token);
  s->scratch = malloc(LWS_PRE + LI_SRV_FRAG);
  if (s->scratch == NULL) {
    snprintf(err, errlen, "no memory");
    return -1;
  }

  li_lws.lws_set_log_level(LLL_ERR, li_srv_log);
  memset(&info, 0, sizeof info);
  info.port = port;
  info.iface = s->wildcard ? NULL : s->bindhost;
  info.protocols = li_srv_protocols;
  info.user = s;
  info.gid = -1;
  info.uid = -1;
  /* the server's file descriptors, whatever peers do (half-finished
  ** requests, never ended, took all 1024 of the process's in 0.4 s: the
  ** program's own io.open failed, its report could not be written) */
  info.fd_limit_per_thread = LI_SRV_FDS;
  info.timeout_secs = 5;        /* (an unfinished request: closed then) */
  info.options = LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND |
                 LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS;
  if (sa.ss_family == AF_INET)
    info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
  s->ctx = li_lws.lws_create_context(&info);
  if (s->ctx == NULL) {
    snprintf(err, errlen, "cannot listen on %s:%d (libwebsockets "
             "refused: see its message above)", host, port);
    li_srv_reset(s);
    return -1;
  }
  s->vh = li_lws.lws_get_vhost_by_name(s->ctx, "default");
  if (port == 0 && s->vh != NULL)
    port = li_lws.lws_get_vhost_listen_port(s->vh);
  s->port = port;
  if (sa.ss_family == AF_INET6)
    snprintf(s->host, sizeof s->host, "[%s]", host);
  else
    snprintf(s->host, sizeof s->host, "%s", host);
  snprintf(s->addr, sizeof s->addr, "%s", addr);
  snprintf(s->url, sizeof s->url, "http://%s:%d/?token=%s", s->host, port,
           s->token);

  /* the thread takes no signal: they are the program's */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  rc = pthread_create(&s->thread, NULL, li_srv_main, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    snprintf(err, errlen, "cannot start its thread: %s", strerror(rc));
    li_lws.lws_context_destroy(s->ctx);
    li_srv_reset(s);
    return -1;
  }
  s->running = 1;
  return 0;
}

/* The last state detached: clients closed, the thread joined. */
static void li_srv_stop(li_srv *s) {
  pthread_mutex_lock(&s->mu);
  s->stop = 1;
  pthread_mutex_unlock(&s->mu);
  li_lws.lws_cancel_service(s->ctx);
  pthread_join(s->thread, NULL);
  li_lws.lws_context_destroy(s->ctx);   /* whatever is still open */
  li_srv_reset(s);
}


/* ======================================================================
** live.h's interface
** ====================================================================== */

int li_live_server_available(void) { return 1; }

const char *li_live_server_url(void) { return li_server.url; }

/* Is addr the address the server was started with? */
static int same_addr(const li_srv *s, const char *addr) {
  char host[256], e[8];
  int port;
  if (addr == NULL || strcmp(addr, s->addr) == 0) return 1;
  if (parse_addr(addr, host, sizeof host, &port, e, sizeof e) != 0)
    return 0;
  if (port != 0 && port != s->port) return 0;
  return strcmp(host, s->host) == 0 || strcmp(host, s->bindhost) == 0;
}

int li_live_server_attach(li_live_chan *c, const char *addr,
                          const char *token, char *err, size_t errlen) {
  li_srv *s = &li_server;
  li_schan *ch, *o;
  char ebuf[8];
  int started = 0;
  if (err == NULL || errlen == 0) { err = ebuf; errlen = sizeof ebuf; }
  if (c == NULL || c->out == NULL || c->in == NULL) {
    snprintf(err, errlen, "no channel");
    return -1;
  }
  pthread_mutex_lock(&li_srv_life);
  if (!s->running) {
    if (addr == NULL) addr = "127.0.0.1:0";
    if (li_srv_start(s, addr, token, err, errlen) != 0) {
      pthread_mutex_unlock(&li_srv_life);
      return -1;
    }
    started = 1;
  } else if (!same_addr(s, addr)) {
    snprintf(err, errlen, "the server of this process is at %s:%d, "
             "not \"%s\" (one server per process)", s->host, s->port, addr);
    goto fail;
  } else if (token != NULL && strcmp(token, s->token) != 0) {
    snprintf(err, errlen, "the server of this process already has "
             "another token");
    goto fail;
  }
  /* its id: the one live.c gave, or the next one no attached state has
  ** (attaches are one at a time: li_srv_life) */
  pthread_mutex_lock(&s->mu);
  if (c->id != 0) {
    for (o = s->chans; o != NULL && o->id != c->id; o = o->next) {}
  } else {
    for (;;) {
      if (s->next_id == 0) s->next_id = 1;
      for (o = s->chans; o != NULL && o->id != s->next_id; o = o->next) {}
      if (o == NULL) break;
      s->next_id++;
    }
    c->id = s->next_id++;
  }
  pthread_mutex_unlock(&s->mu);
  if (o != NULL) {
    snprintf(err, errlen, "a state with id %" PRIu32 " is already "
             "attached", c->id);
    goto fail;
  }
  ch = calloc(1, sizeof *ch);
  if (ch == NULL || (ch->view = li_live_view_new(c->id)) == NULL) {
    free(ch);
    snprintf(err, errlen, "no memory");
    goto fail;
  }
  ch->c = c;
  ch->id = c->id;
  if (c->name[0]) li_live_name(ch->name, sizeof ch->name, c->name);
  else snprintf(ch->name, sizeof ch->name, "state %" PRIu32, c->id);
  c->server_ = ch;
  /* at the end: the first attached stays the default one */
  pthread_mutex_lock(&s->mu);
  for (o = s->chans; o != NULL && o->next != NULL; o = o->next) {}
  if (o == NULL) s->chans = ch;
  else o->next = ch;
  pthread_mutex_unlock(&s->mu);
  li_lws.lws_cancel_service(s->ctx);
  /* (the URL once the state is in the list: a client that connects as
  ** soon as it reads the line finds the state listed) */
  if (started) {
    fprintf(stderr, "luainstr: live view at %s\n", s->url);
    if (!s->loopback)
      fprintf(stderr, "luainstr: warning: the live view listens beyond "
              "loopback (%s): what it sends and receives, the token too, is "
              "not encrypted; on a network you do not trust, keep it on "
              "127.0.0.1 and reach it through an SSH tunnel\n", s->bindhost);
    fflush(stderr);
  }
  pthread_mutex_unlock(&li_srv_life);
  return 0;
fail:
  if (s->chans == NULL) li_srv_stop(s);
  pthread_mutex_unlock(&li_srv_life);
  return -1;
}

void li_live_server_detach(li_live_chan *c) {
  li_srv *s = &li_server;
  li_schan *ch;
  int last;
  if (c == NULL || c->server_ == NULL) return;
  ch = c->server_;
  pthread_mutex_lock(&li_srv_life);
  pthread_mutex_lock(&s->mu);
  ch->detach = 1;
  while (!ch->forgotten) {
    /* the service thread gives its END to the subscribers (at most about
    ** a second), then forgets it; woken again in case it slept through */
    struct timespec ts;
    pthread_mutex_unlock(&s->mu);
    li_lws.lws_cancel_service(s->ctx);
    pthread_mutex_lock(&s->mu);
    if (ch->forgotten) break;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000L;
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&s->cv, &s->mu, &ts);
  }
  last = s->chans == NULL;
  pthread_mutex_unlock(&s->mu);
  free(ch);
  c->server_ = NULL;
  if (last) li_srv_stop(s);
  pthread_mutex_unlock(&li_srv_life);
}

#endif  /* LI_LIVE_SERVER */
