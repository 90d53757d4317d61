/*
** heap.c -- heap snapshots: every object a Lua state reaches, its size,
** and every reference between them, written in Chrome DevTools'
** .heapsnapshot format (docs/heap.md, the contract with luaheap and the
** html report's heap view).
**
** The walk is breadth-first over an explicit queue in malloc'd memory, as
** lgc.c's gray list is (no C recursion: a chain of 10^6 tables is one
** queue entry at a time).  An object gets its node (number, name, size)
** when it is first met, as the value of a reference being followed; its
** own references are followed when its turn in the queue comes.  Nodes
** are therefore expanded in the order of their numbers, and their edges
** come out in the order the file wants them: they are streamed to a
** scratch file as they are found (8 bytes an edge), as the names are (as
** JSON), and copied into the file at the end.  What stays in memory is a
** node (24 bytes an object), the set of objects seen (11 to 16 bytes),
** the queue (4 bytes an object waiting) and the names that repeat.
**
** A queued object must be pushed back on the Lua stack when its turn
** comes.  With Lua's headers (LI_LUA_INTERNALS, checked on the library at
** each snapshot) the queue holds its address (a GCObject) and pushes it
** back as a value: nothing can free it meanwhile, since no Lua code runs
** and the collector is paused (a finalizer run by a collection step is
** Lua code: the collector is paused for the whole walk, and set back
** exactly as it was).  Without the headers the queue is a stretch of the
** Lua stack itself, which grows with it up to Lua's limit for a C
** function (8000 slots on 5.1 and LuaJIT): a heap whose queue does not fit
** gets a clear error.
**
** Raw access only: lua_next, lua_getmetatable (no __metatable),
** lua_getupvalue, lua_getlocal, lua_getiuservalue; __mode and __name are
** found by scanning the metatable; only strings are read as strings (no
** number is converted); no string is made, names are built in C.  So no
** metamethod runs and nothing is allocated in the Lua heap, but for the
** room made on the stack before the walk and, when a suspended thread has
** no free slot, the one its stack takes to hand over a local.
*/
#define _XOPEN_SOURCE 700     /* realpath; POSIX 2008 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>

#include "luainstr.h"
#include "profiler.h"
#include "writers.h"
#include "heapsize.h"
#include "heapwalk.h"

#define NONE 0xFFFFFFFFu
#define LI_TCDATA 10            /* lua_type of a LuaJIT cdata (lj_obj.h) */
#define NAME_BYTES 80           /* bytes of a string shown in its name */
#define NAME_MAX_ESC (NAME_BYTES * 4 + 8)   /* an escaped name, at most */
#define MAX_NODES (1u << 29)    /* an edge keeps its type in 3 bits of 32 */
#define SCRATCH 16              /* stack slots an expansion uses at most
                                   (10, heapsize.h's 2 included): less
                                   than LUA_MINSTACK, which a C function
                                   has without growing the stack */


/* ======================================================================
** Objects held outside the Lua stack (Lua's internals)
** ====================================================================== */

#if defined(LI_LUA_INTERNALS) && LI_IS_LUAJIT
#include "lj_obj.h"
#define HAVE_REFS 1
static void *ref_top(lua_State *L) { return (void *)gcV(L->top - 1); }
static void ref_push(lua_State *L, void *o) {
  GCobj *g = o;
  setgcV(L, L->top, g, ~(uint32_t)g->gch.gct);
  L->top++;
}
/* The collector paused: its threshold out of reach, as LUA_GCSTOP sets it. */
typedef GCSize gc_saved;
static gc_saved gc_pause(lua_State *L) {
  gc_saved s = G(L)->gc.threshold;
  G(L)->gc.threshold = LJ_MAX_MEM;
  return s;
}
static void gc_resume(lua_State *L, gc_saved s) { G(L)->gc.threshold = s; }
static int release_ok(void) { return 1; }  /* (no lua_ident: the check) */

#elif defined(LI_LUA_INTERNALS)
#include "direct.h"     /* lstate.h; li_d_release_ok */
#include "lgc.h"
#define HAVE_REFS 1
/* The library is the release whose headers were compiled. */
#define release_ok li_d_release_ok
#if LUA_VERSION_NUM == 504
static void *ref_top(lua_State *L) { return gcvalue(s2v(L->top - 1)); }
static void ref_push(lua_State *L, void *o) {
  setgcovalue(L, s2v(L->top), (GCObject *)o);
  L->top++;
}
/* (as LUA_GCSTOP, but the debt untouched: LUA_GCRESTART would zero it and
** move the next step) */
typedef lu_byte gc_saved;
static gc_saved gc_pause(lua_State *L) {
  gc_saved s = G(L)->gcstp;
  G(L)->gcstp |= GCSTPUSR;
  return s;
}
static void gc_resume(lua_State *L, gc_saved s) { G(L)->gcstp = s; }
#elif LUA_VERSION_NUM >= 502
static void *ref_top(lua_State *L) { return gcvalue(L->top - 1); }
static void ref_push(lua_State *L, void *o) {
  setgcovalue(L, L->top, (GCObject *)o);
  L->top++;
}
typedef lu_byte gc_saved;
static gc_saved gc_pause(lua_State *L) {
  gc_saved s = G(L)->gcrunning;
  G(L)->gcrunning = 0;
  return s;
}
static void gc_resume(lua_State *L, gc_saved s) { G(L)->gcrunning = s; }
#else
static void *ref_top(lua_State *L) { return gcvalue(L->top - 1); }
static void ref_push(lua_State *L, void *o) {
  TValue *io = L->top;
  io->value.gc = (GCObject *)o;
  io->tt = ((GCObject *)o)->gch.tt;
  L->top++;
}
typedef lu_mem gc_saved;
static gc_saved gc_pause(lua_State *L) {
  gc_saved s = G(L)->GCthreshold;
  G(L)->GCthreshold = MAX_LUMEM;
  return s;
}
static void gc_resume(lua_State *L, gc_saved s) { G(L)->GCthreshold = s; }
#endif

#else
#define HAVE_REFS 0
typedef int gc_saved;
static void *ref_top(lua_State *L) { (void)L; return NULL; }
static void ref_push(lua_State *L, void *o) { (void)o; lua_pushnil(L); }
static gc_saved gc_pause(lua_State *L) { (void)L; return 0; }
static void gc_resume(lua_State *L, gc_saved s) { (void)L; (void)s; }
static int release_ok(void) { return 0; }
#endif

/* Without the internals (or when they failed their check) the collector
** is paused through the API: LUA_GCRESTART then sets its debt to zero (the
** next step comes sooner than it would have).  1: it was running. */
static int gc_pause_api(lua_State *L) {
#if LUA_VERSION_NUM >= 502
  int running = lua_gc(L, LUA_GCISRUNNING, 0);
#else
  int running = 1;              /* (5.1 cannot tell) */
#endif
  if (running) lua_gc(L, LUA_GCSTOP, 0);
  return running;
}

/* The block Lua allocated for the object whose value is on top, given its
** identity (lua_topointer, a string's bytes) and its reference (NULL
** without internals): where memory.c's block map knows its maker; NULL
** when it cannot be told. */
static const void *block_of(int kind_is_thread, const void *id,
                            const void *ref, int has_header) {
#if LUA_VERSION_NUM >= 503 && !LI_IS_LUAJIT
  /* a thread is allocated with its extra space before it (lstate.c LX) */
  if (kind_is_thread) return (const char *)id - LUA_EXTRASPACE;
#else
  (void)kind_is_thread;
#endif
  if (ref != NULL) return ref;
  return has_header ? NULL : id;
}


/* ======================================================================
** The walk's state
** ====================================================================== */

/* Node kinds (the low bits of hnode.kind) */
enum {
  K_SYNTH, K_TABLE, K_LFUNC, K_CFUNC, K_LCF, K_USERDATA, K_LIGHT,
  K_THREAD, K_STRING, K_PROTO, K_CDATA
};
#define K_MASK 0x0f
#define K_ROOT 0x10             /* an object shown as a synthetic root */

/* The synthetic roots, in node order after (GC roots) and (registry). */
enum { R_MAIN = 1, R_TYPEMT, R_THREADS };

/* Edge types (docs/heap.md): ORDER edge_types */
enum { E_CONTEXT, E_ELEMENT, E_PROPERTY, E_INTERNAL, E_HIDDEN, E_SHORTCUT,
       E_WEAK };

/* Node types: ORDER node_types */
enum { T_HIDDEN = 0, T_STRING = 2, T_OBJECT = 3, T_CODE = 4, T_CLOSURE = 5,
       T_NATIVE = 8, T_SYNTHETIC = 9 };

/* A node: 24 bytes.  Nodes live in chunks that never move (no copy, no
** spare half of an array doubled). */
typedef struct hnode {
  uint64_t addr;        /* identity: the object's address (with internals
                           the GCObject's, which lua_topointer gives but
                           for a userdata), a string's bytes, a prototype,
                           a light userdata's value; a root's role */
  uint32_t size;        /* self size (UINT32_MAX: in walk.big) */
  uint32_t name;        /* index in the strings table */
  uint32_t nedges;      /* edges, once expanded */
  uint8_t kind;         /* K_* */
} hnode;

#define CHUNK_BITS 15
#define CHUNK_NODES (1u << CHUNK_BITS)
#define NODE(W, n) (&(W)->chunk[(n) >> CHUNK_BITS][(n) & (CHUNK_NODES - 1)])

typedef struct bigsize {
  uint32_t node;
  uint64_t size;
} bigsize;

typedef struct mtinfo {
  uint64_t addr;        /* the metatable (0: free slot) */
  uint32_t name;        /* "userdata NAME" from its __name, or NONE */
  uint8_t weak;         /* __mode has k or v */
} mtinfo;

typedef struct fname {
  const void *src;      /* ar.source (0: free slot) */
  int line, lastline;
  uint32_t label;       /* "NAME (SOURCE:LINE)" or "(SOURCE:LINE)" */
  uint32_t lkept;       /* where its text is kept (intern_k) */
  uint32_t func;        /* "function LABEL" (NONE: not made yet) */
  uint32_t proto;       /* "prototype LABEL" (NONE: not made yet) */
} fname;

typedef struct obuf obuf;      /* a file written through a buffer */

typedef struct walk {
  lua_State *L;
  li_prof *P;           /* or NULL */
  int exact;            /* heapsize.h: sizes from the internals... */
  const char *why;      /* ...or why not */
  int refs;             /* the queue holds references (internals) */
  int status;           /* LUAINSTR_OK, or the first failure */
  char *err;            /* its message */
  size_t errlen;
  /* nodes */
  hnode **chunk;        /* CHUNK_NODES nodes each */
  size_t nchunk, capchunk;
  uint32_t nnode;
  bigsize *big;         /* sizes of 4 GB or more */
  size_t nbig, capbig;
  uint32_t *site;       /* memory mode: li_fn index + 1 of each node's
                           maker, 0 unknown (NULL: no sites) */
  size_t capsite;
  uint64_t *seen;       /* open addressing by (addr, space): a
                           fingerprint << 32 | node + 1 */
  size_t seencap;       /* at least 4/3 of the nodes */
  /* the queue: nodes to expand, in their order */
  uint32_t *q;
  size_t qhead, qn, qcap;
  int qstart;           /* without refs: the queue's stretch of the stack
                           starts here, */
  int qbase, qend;      /* its next value waits at qbase, its last at qend */
  /* strings: written to a scratch file as JSON as they come; the names
  ** that repeat (all but a string's own) are also kept here, to be found
  ** again */
  obuf *sout;           /* the strings table's text (its scratch file) */
  uint32_t nstr;        /* strings in it */
  char *hb;             /* the names kept, one after another */
  size_t hblen, hbcap;
  uint32_t *hoff;       /* name j is hb[hoff[j] .. hoff[j + 1]) */
  uint32_t *hidx;       /* its index in the strings table */
  uint32_t nh;
  size_t caph;
  uint32_t *hslot;      /* open addressing: name + 1 */
  size_t hslotcap;      /* a power of two */
  /* caches */
  uintptr_t *cells;     /* upvalue cells counted (0: free slot) */
  size_t ncells, cellcap;
  mtinfo *mt;
  size_t nmt, mtcap;
  fname *fn;
  size_t nfn, fncap;
  uint32_t *pfn;        /* the profiler's functions by (chunkname, line,
                           lastline): li_fn + 1 */
  uint32_t pfncap;
  /* edges */
  int efd;              /* the scratch file (unlinked) */
  uint32_t ebuf[8192];  /* records not written yet: 2 words an edge */
  uint32_t en;
  uint64_t nedges;      /* edges in all */
  uint32_t cur;         /* edges of the node being expanded */
  /* the state */
  int collect;          /* LUAINSTR_HEAP_COLLECT */
  uint64_t gc_bytes;    /* collectgarbage("count") in bytes, at the start */
  int nbase;            /* the host's stack slots (L had no frame): at
                           argbase .. argbase + nbase - 1 */
  int inplace;          /* the walk runs in the host's own frame (no call
                           of its own: level 0 is the host's), else under
                           lua_pcall (level 0 is the walk's, skipped) */
  int argbase;          /* the first of the host's slots: 1 in place, 2 as
                           the walk's arguments (after W) */
  int top0;             /* in place: the host's slots in its frame (the
                           walk's own values above them are not its) */
  lua_State *mainL;
  int gc_paused;        /* the collector was paused: 1 by its internals
                           (gc_saved), 2 through the API */
  gc_saved gc;
  size_t cbytes, cpeak; /* C memory held, and its most */
  uint64_t self_bytes;  /* the self sizes written, summed */
  /* constant names */
  uint32_t s_key, s_mt, s_proto, s_env, s_uv;  /* "(key)" ... */
} walk;


/* ======================================================================
** Failures, C memory
** ====================================================================== */

/* Keep the first failure. */
static void fail(walk *W, int code, const char *fmt, const char *arg) {
  if (W->status != LUAINSTR_OK) return;
  W->status = code;
  snprintf(W->err, W->errlen, fmt, arg);
}

static void nomem(walk *W) {
  fail(W, LUAINSTR_EMEM, "heap snapshot: not enough memory%s", "");
}

static void count_bytes(walk *W, size_t add, size_t sub) {
  W->cbytes += add;
  W->cbytes -= sub;
  if (W->cbytes > W->cpeak) W->cpeak = W->cbytes;
}

/* Room for `need` elements of `elem` bytes in *p (capacity *cap, doubled
** as needed).  0 when memory ran out (a failure then). */
static int grow(walk *W, void **p, size_t *cap, size_t need, size_t elem) {
  size_t c = *cap ? *cap : 64;
  void *np;
  if (need <= *cap) return 1;
  while (c < need) c *= 2;
  if (c > SIZE_MAX / elem || (np = realloc(*p, c * elem)) == NULL) {
    nomem(W);
    return 0;
  }
  count_bytes(W, c * elem, *cap * elem);
  *p = np;
  *cap = c;
  return 1;
}

/* A zeroed array of n elements (NULL: a failure). */
static void *zalloc(walk *W, size_t n, size_t elem) {
  void *p = calloc(n, elem);
  if (p == NULL) nomem(W);
  else count_bytes(W, n * elem, 0);
  return p;
}

static void zfree(walk *W, void *p, size_t n, size_t elem) {
  free(p);
  if (p != NULL) count_bytes(W, 0, n * elem);
}

static uint32_t hash_bytes(const char *s, size_t n) {
  uint32_t h = 2166136261u;             /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static uint32_t hash_ptr(uint64_t a) {
  return (uint32_t)((a * 0x9E3779B97F4A7C15u) >> 32);
}


/* ======================================================================
** Output, buffered
** ====================================================================== */

static int write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

struct obuf {
  int fd;
  size_t n;
  int failed;           /* errno of a failed write, or 0 */
  char b[1 << 16];
};

static void out_flush(obuf *o) {
  if (o->n > 0 && o->failed == 0 && write_all(o->fd, o->b, o->n) != 0)
    o->failed = errno ? errno : EIO;
  o->n = 0;
}

static void out(obuf *o, const char *s, size_t n) {
  if (o->n + n > sizeof o->b) {
    out_flush(o);
    if (n > sizeof o->b) {
      if (o->failed == 0 && write_all(o->fd, s, n) != 0) o->failed = errno;
      return;
    }
  }
  memcpy(o->b + o->n, s, n);
  o->n += n;
}

static void out_z(obuf *o, const char *s) {
  out(o, s, strlen(s));
}

/* (two digits a step: the file is mostly numbers, 10 a node and 3 an edge) */
static void out_u64(obuf *o, uint64_t v) {
  static const char pairs[] =
    "0001020304050607080910111213141516171819202122232425262728293031323334"
    "3536373839404142434445464748495051525354555657585960616263646566676869"
    "707172737475767778798081828384858687888990919293949596979899";
  char d[24];
  int i = (int)sizeof d;
  if (v < 10 && o->n < sizeof o->b) {
    o->b[o->n++] = (char)('0' + v);
    return;
  }
  while (v >= 100) {
    unsigned k = (unsigned)(v % 100) * 2;
    v /= 100;
    d[--i] = pairs[k + 1];
    d[--i] = pairs[k];
  }
  if (v >= 10) {
    d[--i] = pairs[v * 2 + 1];
    d[--i] = pairs[v * 2];
  } else {
    d[--i] = (char)('0' + v);
  }
  out(o, d + i, sizeof d - (size_t)i);
}

/* A JSON string literal, as li_json_lstring writes one (valid UTF-8 as it
** is, other bytes as \u00XX, and safe inside an HTML <script>). */
static void out_json(obuf *o, const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  const unsigned char *run = p;
  static const char hex[] = "0123456789abcdef";
  out(o, "\"", 1);
  while (p < end) {
    unsigned c = *p;
    size_t n;
    char esc[8];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '<' &&
        c != '>' && c != '&') {
      p++;
      continue;
    }
    n = c >= 0x80 ? li_utf8_len(p, (size_t)(end - p)) : 1;
    if (n > 1 && !(n == 3 && c == 0xe2 && p[1] == 0x80 &&
                   (p[2] == 0xa8 || p[2] == 0xa9))) {
      p += n;
      continue;
    }
    out(o, (const char *)run, (size_t)(p - run));
    if (n == 3) c = p[2] == 0xa8 ? 0x2028u : 0x2029u;
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      out(o, esc, 2);
    } else {
      memcpy(esc, "\\u", 2);
      esc[2] = hex[c >> 12 & 15];
      esc[3] = hex[c >> 8 & 15];
      esc[4] = hex[c >> 4 & 15];
      esc[5] = hex[c & 15];
      out(o, esc, 6);
    }
    p += n == 0 ? 1 : n;
    run = p;
  }
  out(o, (const char *)run, (size_t)(p - run));
  out(o, "\"", 1);
}


/* ======================================================================
** The strings table: every name, once
** ====================================================================== */

static size_t hname_len(const walk *W, uint32_t j) {
  return W->hoff[j + 1] - W->hoff[j];
}

static const char *hname(const walk *W, uint32_t j) {
  return W->hb + W->hoff[j];
}

/* Add s[0..n) to the strings table: its index. */
static uint32_t str_add(walk *W, const char *s, size_t n) {
  if (W->status != LUAINSTR_OK) return 0;
  if (W->nstr > 0) out(W->sout, ",\n", 2);
  out_json(W->sout, s, n);
  return W->nstr++;
}

static int str_rehash(walk *W) {
  size_t cap = W->hslotcap ? W->hslotcap * 2 : 1024;
  uint32_t *t = zalloc(W, cap, sizeof *t);
  if (t == NULL) return 0;
  for (uint32_t j = 0; j < W->nh; j++) {
    size_t k = hash_bytes(hname(W, j), hname_len(W, j)) & (cap - 1);
    while (t[k] != 0) k = (k + 1) & (cap - 1);
    t[k] = j + 1;
  }
  zfree(W, W->hslot, W->hslotcap, sizeof *t);
  W->hslot = t;
  W->hslotcap = cap;
  return 1;
}

/* The index of s[0..n) in the strings table, added if new (0 on failure:
** W->status says so); *kept (unless NULL): where its text is kept. */
static uint32_t intern_k(walk *W, const char *s, size_t n, uint32_t *kept) {
  uint32_t h = hash_bytes(s, n), j;
  size_t k, c1 = W->caph, c2 = W->caph;
  if (W->status != LUAINSTR_OK) return 0;
  if (((size_t)W->nh + 1) * 2 > W->hslotcap && !str_rehash(W)) return 0;
  for (k = h & (W->hslotcap - 1); W->hslot[k] != 0; k = (k + 1) & (W->hslotcap - 1)) {
    j = W->hslot[k] - 1;
    if (hname_len(W, j) == n && memcmp(hname(W, j), s, n) == 0) {
      if (kept != NULL) *kept = j;
      return W->hidx[j];
    }
  }
  if (W->hblen + n > UINT32_MAX) {
    fail(W, LUAINSTR_EMEM, "heap snapshot: names of more than 4 GB%s", "");
    return 0;
  }
  if (!grow(W, (void **)&W->hb, &W->hbcap, W->hblen + n, 1) ||
      !grow(W, (void **)&W->hidx, &c1, (size_t)W->nh + 2, sizeof *W->hidx) ||
      !grow(W, (void **)&W->hoff, &c2, (size_t)W->nh + 2, sizeof *W->hoff))
    return 0;
  W->caph = c1;
  j = W->nh++;
  memcpy(W->hb + W->hblen, s, n);
  W->hoff[j] = (uint32_t)W->hblen;
  W->hblen += n;
  W->hoff[j + 1] = (uint32_t)W->hblen;
  W->hidx[j] = str_add(W, s, n);
  W->hslot[k] = j + 1;
  if (kept != NULL) *kept = j;
  return W->hidx[j];
}

static uint32_t intern(walk *W, const char *s, size_t n) {
  return intern_k(W, s, n, NULL);
}

static uint32_t intern_z(walk *W, const char *s) {
  return intern(W, s, strlen(s));
}

/* prefix + the kept name j, interned */
static uint32_t intern_pre(walk *W, const char *prefix, uint32_t j) {
  char buf[NAME_MAX_ESC + 600];
  size_t p = strlen(prefix), n = hname_len(W, j);
  if (p + n > sizeof buf) n = sizeof buf - p;
  memcpy(buf, prefix, p);
  memcpy(buf + p, hname(W, j), n);
  return intern(W, buf, p + n);
}

/* s[0..len) as a name: its first NAME_BYTES bytes, printable ASCII and
** well-formed UTF-8 as they are, a backslash as \\ and every other byte as
** \ddd (as Lua writes them), "..." after a cut.  out holds NAME_MAX_ESC. */
static size_t escape_name(char *out, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, o = 0, lim = len < NAME_BYTES ? len : NAME_BYTES;
  while (i < lim) {
    unsigned c = u[i];
    if (c >= 0x20 && c < 0x7f) {
      if (c == '\\') out[o++] = '\\';
      out[o++] = (char)c;
      i++;
      continue;
    }
    if (c >= 0x80) {
      size_t n = li_utf8_len(u + i, lim - i);
      if (n > 0) {
        memcpy(out + o, u + i, n);
        o += n;
        i += n;
        continue;
      }
      if (li_utf8_len(u + i, len - i) > 0) break;   /* cut inside it */
    }
    out[o++] = '\\';
    out[o++] = (char)('0' + c / 100);
    out[o++] = (char)('0' + c / 10 % 10);
    out[o++] = (char)('0' + c % 10);
    i++;
  }
  if (i < len) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  return o;
}


/* ======================================================================
** Nodes, and the set of objects seen
** ====================================================================== */

/* Identities live in spaces of their own: a light userdata or a light C
** function may hold any address, an object's among them. */
static int space_of(int kind) {
  switch (kind & K_MASK) {
    case K_LIGHT: return 1;
    case K_LCF: return 2;
    default: return 0;
  }
}

/* An object's slot in the set: its node + 1, and in the high half a
** fingerprint of its identity, so that a slot holding another object is
** passed by without reading that object's node (a cache miss each: most
** of what the walk costs on a big heap was those). */
static uint64_t seen_key(uint64_t addr, int space) {
  return addr ^ ((uint64_t)space << 62);
}

/* (two multiplicative hashes, their high halves: the low bits of such a
** product hold too little of an address, aligned as objects are) */
static uint64_t seen_fp(uint64_t key) {
  return ((key * 0xC2B2AE3D27D4EB4Fu) & 0xFFFFFFFF00000000u) | 0x100000000u;
}

/* (the slot from the hash by multiplication, so the table need not be a
** power of two: it grows by half, 10.7 to 16 bytes an object) */
static size_t seen_slot(const walk *W, uint64_t key) {
  return (size_t)(((key * 0x9E3779B97F4A7C15u >> 32) * W->seencap) >> 32);
}

static uint32_t seen_find(const walk *W, uint64_t addr, int space) {
  uint64_t key = seen_key(addr, space), fp = seen_fp(key), v;
  for (size_t k = seen_slot(W, key); (v = W->seen[k]) != 0;
       k = k + 1 < W->seencap ? k + 1 : 0) {
    if ((v & 0xFFFFFFFF00000000u) == fp) {
      uint32_t n = (uint32_t)v - 1;
      const hnode *nd = NODE(W, n);
      if (nd->addr == addr && space_of(nd->kind) == space) return n;
    }
  }
  return NONE;
}

static void seen_put(walk *W, uint32_t n) {
  const hnode *nd = NODE(W, n);
  uint64_t key = seen_key(nd->addr, space_of(nd->kind));
  size_t k = seen_slot(W, key);
  while (W->seen[k] != 0) k = k + 1 < W->seencap ? k + 1 : 0;
  W->seen[k] = seen_fp(key) | (n + 1);
}

static int seen_grow(walk *W) {
  size_t cap = W->seencap ? W->seencap + W->seencap / 2 : 4096;
  uint64_t *t;
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  if ((t = zalloc(W, cap, sizeof *t)) == NULL) return 0;
  zfree(W, W->seen, W->seencap, sizeof *t);
  W->seen = t;
  W->seencap = cap;
  for (uint32_t n = 0; n < W->nnode; n++)
    if ((NODE(W, n)->kind & K_MASK) != K_SYNTH) seen_put(W, n);
  return 1;
}

static uint64_t node_size(const walk *W, uint32_t n) {
  if (NODE(W, n)->size != UINT32_MAX) return NODE(W, n)->size;
  for (size_t i = W->nbig; i-- > 0;)
    if (W->big[i].node == n) return W->big[i].size;
  return UINT32_MAX;
}

static void node_set_size(walk *W, uint32_t n, uint64_t size) {
  size_t i;
  if (size < UINT32_MAX) {
    NODE(W, n)->size = (uint32_t)size;
    return;
  }
  for (i = 0; i < W->nbig && W->big[i].node != n; i++) {}
  if (i == W->nbig) {
    if (!grow(W, (void **)&W->big, &W->capbig, W->nbig + 1, sizeof *W->big))
      return;
    W->big[W->nbig++].node = n;
  }
  W->big[i].size = size;
  NODE(W, n)->size = UINT32_MAX;
}

/* A new node (NONE on failure). */
static uint32_t node_new(walk *W, int kind, uint64_t addr, uint64_t size,
                         uint32_t name) {
  uint32_t n = W->nnode;
  hnode *nd;
  if (W->status != LUAINSTR_OK) return NONE;
  if (n + 1 >= MAX_NODES) {
    fail(W, LUAINSTR_EMEM, "heap snapshot: more than %s objects", "536870911");
    return NONE;
  }
  if ((n & (CHUNK_NODES - 1)) == 0) {
    if (!grow(W, (void **)&W->chunk, &W->capchunk, W->nchunk + 1, sizeof *W->chunk) ||
        (W->chunk[W->nchunk] = zalloc(W, CHUNK_NODES, sizeof(hnode))) == NULL)
      return NONE;
    W->nchunk++;
  }
  if (W->site != NULL &&
      !grow(W, (void **)&W->site, &W->capsite, (size_t)n + 1, sizeof *W->site))
    return NONE;
  if (((size_t)n + 1) * 4 > W->seencap * 3 && !seen_grow(W)) return NONE;
  nd = NODE(W, n);
  nd->addr = addr;
  nd->name = name;
  nd->nedges = 0;
  nd->kind = (uint8_t)kind;
  W->nnode = n + 1;
  node_set_size(W, n, size);
  if (W->site != NULL) W->site[n] = 0;
  if ((kind & K_MASK) != K_SYNTH) seen_put(W, n);
  return n;
}


/* ======================================================================
** The queue
** ====================================================================== */

/* Queue node n (its address is the object with internals, a prototype,
** a root's role); an object without internals is the value on top, copied
** into the queue's stretch of the stack below the expansion's slots. */
static void enqueue(walk *W, uint32_t n, int on_stack) {
  lua_State *L = W->L;
  if (W->qhead > 4096 && W->qhead * 2 > W->qn) {    /* drop the consumed */
    memmove(W->q, W->q + W->qhead, (W->qn - W->qhead) * sizeof *W->q);
    W->qn -= W->qhead;
    W->qhead = 0;
  }
  if (!grow(W, (void **)&W->q, &W->qcap, W->qn + 1, sizeof *W->q)) return;
  if (on_stack) {
    if (!lua_checkstack(L, SCRATCH)) {
      fail(W, LUAINSTR_EMEM, "heap snapshot: the heap is too wide to walk "
           "without Lua's internals (the queue of objects to visit does not "
           "fit on the Lua stack); build with Lua's headers%s",
           " (scripts/lua-internals.sh)");
      return;
    }
    lua_pushvalue(L, -1);
    lua_insert(L, W->qend + 1);
    W->qend++;
  }
  W->q[W->qn++] = n;
}


/* ======================================================================
** Edges: streamed to the scratch file, 2 words each
** ====================================================================== */

static void edges_flush(walk *W) {
  if (W->en > 0 && write_all(W->efd, W->ebuf, W->en * sizeof W->ebuf[0]) != 0)
    fail(W, LUAINSTR_EIO, "heap snapshot: cannot write its scratch file: %s",
         strerror(errno));
  W->en = 0;
}

/* An edge of the node being expanded: type, name (a string's index, or
** the number of an element or hidden edge), target. */
static void edge(walk *W, int type, uint32_t name, uint32_t to) {
  if (to == NONE || W->status != LUAINSTR_OK) return;
  if (W->en + 2 > sizeof W->ebuf / sizeof W->ebuf[0]) edges_flush(W);
  W->ebuf[W->en++] = to | (uint32_t)type << 29;
  W->ebuf[W->en++] = name;
  W->cur++;
  W->nedges++;
}


/* ======================================================================
** Names of functions: as the profiler's reports name them
** ====================================================================== */

static uint32_t pfn_hash(const char *chunk, int line, int lastline) {
  return hash_bytes(chunk, strlen(chunk)) ^ hash_ptr((uint64_t)(uint32_t)line << 32 |
                                                     (uint32_t)lastline);
}

/* The profiler's functions by where they are defined: their names are
** the rewriter's ("Enemy:update", "local draw"), the reports' own. */
static void pfn_build(walk *W) {
  li_prof *P = W->P;
  size_t cap = 64;
  if (P == NULL || P->nfn == 0) return;
  while (cap < (size_t)P->nfn * 2) cap *= 2;
  if ((W->pfn = zalloc(W, cap, sizeof *W->pfn)) == NULL) return;
  W->pfncap = (uint32_t)cap;
  for (uint32_t i = 0; i < P->nfn; i++) {
    const li_fn *f = &P->fn[i];
    size_t k;
    if (f->zone) continue;
    k = pfn_hash(f->chunkname, (int)f->line, (int)f->lastline) & (cap - 1);
    while (W->pfn[k] != 0) k = (k + 1) & (cap - 1);
    W->pfn[k] = i + 1;
  }
}

/* The profiler's record of the function defined in chunk at line ..
** lastline, or NULL. */
static const li_fn *pfn_find(const walk *W, const char *chunk, int line,
                             int lastline) {
  size_t mask = (size_t)W->pfncap - 1;
  if (W->pfn == NULL || chunk == NULL) return NULL;
  for (size_t k = pfn_hash(chunk, line, lastline) & mask; W->pfn[k] != 0;
       k = (k + 1) & mask) {
    const li_fn *f = &W->P->fn[W->pfn[k] - 1];
    if ((int)f->line == line && (int)f->lastline == lastline &&
        strcmp(f->chunkname, chunk) == 0)
      return f;
  }
  return NULL;
}

/* A chunk name as Lua shows it in messages (calltree.c's display_source:
** the reports' SOURCE). */
static void display_source(char *out, size_t outsz, const char *chunk) {
  size_t line;
  if (chunk == NULL) chunk = "?";
  if (chunk[0] == '@' || chunk[0] == '=') {
    snprintf(out, outsz, "%s", chunk + 1);
    return;
  }
  line = strcspn(chunk, "\r\n");
  snprintf(out, outsz, "[string \"%.*s%s\"]", (int)(line > 40 ? 40 : line),
           chunk, line > 40 || chunk[line] != '\0' ? "..." : "");
}

/* "NAME (SOURCE:LINE)", or "(SOURCE:LINE)" with no name known; LINE is
** "main" for a main chunk, as in the reports. */
static size_t make_label(const walk *W, char *out, size_t outsz,
                         const char *chunk, int line, int lastline,
                         int is_main) {
  char src[256], num[24];
  const li_fn *f = pfn_find(W, chunk, line, lastline);
  const char *name = f != NULL ? f->name : is_main ? "main chunk" : NULL;
  int n;
  if (f != NULL) snprintf(src, sizeof src, "%s", f->source);
  else display_source(src, sizeof src, chunk);
  if (line > 0) snprintf(num, sizeof num, "%d", line);
  else snprintf(num, sizeof num, "main");
  n = snprintf(out, outsz, "%s%s(%s:%s)", name != NULL ? name : "",
               name != NULL ? " " : "", src, num);
  return n < 0 ? 0 : (size_t)n < outsz ? (size_t)n : outsz - 1;
}

/* The names of the function defined in chunk at line .. lastline (a
** cache: every closure of a prototype has the same). */
static fname *fname_of(walk *W, const char *chunk, int line, int lastline,
                       int is_main) {
  char label[512];
  size_t k, mask, n;
  if (W->status != LUAINSTR_OK) return NULL;
  if ((W->nfn + 1) * 2 > W->fncap) {
    size_t cap = W->fncap ? W->fncap * 2 : 256;
    fname *t = zalloc(W, cap, sizeof *t);
    if (t == NULL) return NULL;
    for (size_t i = 0; i < W->fncap; i++) {
      if (W->fn[i].src == NULL) continue;
      k = hash_ptr((uintptr_t)W->fn[i].src ^ (uint64_t)(uint32_t)W->fn[i].line << 40) & (cap - 1);
      while (t[k].src != NULL) k = (k + 1) & (cap - 1);
      t[k] = W->fn[i];
    }
    zfree(W, W->fn, W->fncap, sizeof *t);
    W->fn = t;
    W->fncap = cap;
  }
  mask = W->fncap - 1;
  for (k = hash_ptr((uintptr_t)chunk ^ (uint64_t)(uint32_t)line << 40) & mask;
       W->fn[k].src != NULL; k = (k + 1) & mask) {
    if (W->fn[k].src == chunk && W->fn[k].line == line &&
        W->fn[k].lastline == lastline)
      return &W->fn[k];
  }
  n = make_label(W, label, sizeof label, chunk, line, lastline, is_main);
  W->fn[k].label = intern_k(W, label, n, &W->fn[k].lkept);
  W->fn[k].src = chunk;
  W->fn[k].line = line;
  W->fn[k].lastline = lastline;
  W->fn[k].func = W->fn[k].proto = NONE;
  W->nfn++;
  return W->status == LUAINSTR_OK ? &W->fn[k] : NULL;
}

/* The name of the Lua function on top of L. */
static uint32_t lfunc_name(walk *W) {
  lua_State *L = W->L;
  lua_Debug ar;
  fname *f;
  lua_pushvalue(L, -1);
  if (!lua_getinfo(L, ">S", &ar)) return intern_z(W, "function");
  f = fname_of(W, ar.source, ar.linedefined, ar.lastlinedefined,
               strcmp(ar.what, "main") == 0);
  if (f == NULL) return 0;
  if (f->func == NONE) f->func = intern_pre(W, "function ", f->lkept);
  return f->func;
}


/* ======================================================================
** Metatables: __mode and __name, read by a raw scan
** ====================================================================== */

/* What the metatable on top of L says (a cache by metatable), or NULL on
** failure. */
static const mtinfo *mt_info(walk *W) {
  lua_State *L = W->L;
  uint64_t a = (uintptr_t)lua_topointer(L, -1);
  size_t k, mask;
  mtinfo m;
  if (W->status != LUAINSTR_OK) return NULL;
  if ((W->nmt + 1) * 2 > W->mtcap) {
    size_t cap = W->mtcap ? W->mtcap * 2 : 64;
    mtinfo *t = zalloc(W, cap, sizeof *t);
    if (t == NULL) return NULL;
    for (size_t i = 0; i < W->mtcap; i++) {
      if (W->mt[i].addr == 0) continue;
      k = hash_ptr(W->mt[i].addr) & (cap - 1);
      while (t[k].addr != 0) k = (k + 1) & (cap - 1);
      t[k] = W->mt[i];
    }
    zfree(W, W->mt, W->mtcap, sizeof *t);
    W->mt = t;
    W->mtcap = cap;
  }
  mask = W->mtcap - 1;
  for (k = hash_ptr(a) & mask; W->mt[k].addr != 0; k = (k + 1) & mask)
    if (W->mt[k].addr == a) return &W->mt[k];
  m.addr = a;
  m.name = NONE;
  m.weak = 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    size_t kl, vl;
    const char *ks, *vs;
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
      ks = lua_tolstring(L, -2, &kl);
      vs = lua_tolstring(L, -1, &vl);
      if (kl == 6 && memcmp(ks, "__mode", 6) == 0)
        m.weak = memchr(vs, 'k', vl) != NULL || memchr(vs, 'v', vl) != NULL;
      else if (kl == 6 && memcmp(ks, "__name", 6) == 0) {
        char buf[NAME_MAX_ESC + 16];
        memcpy(buf, "userdata ", 9);
        m.name = intern(W, buf, 9 + escape_name(buf + 9, vs, vl));
      }
    }
    lua_pop(L, 1);
  }
  W->mt[k] = m;
  W->nmt++;
  return &W->mt[k];
}


/* ======================================================================
** Meeting an object: its node
** ====================================================================== */

/* The kind of the function on top of L. */
static int func_kind(lua_State *L) {
  if (!lua_iscfunction(L, -1)) return K_LFUNC;
#if LUA_VERSION_NUM >= 502 && !LI_IS_LUAJIT
  /* a C function with no upvalue is a light C function, no object */
  if (lua_getupvalue(L, -1, 1) == NULL) return K_LCF;
  lua_pop(L, 1);
#endif
  return K_CFUNC;
}

/* memory mode: the function that allocated the block of node n */
static void note_site(walk *W, uint32_t n, const void *id, int kind) {
  const void *block;
  uint32_t f;
  if (W->site == NULL || kind == K_LIGHT || kind == K_LCF) return;  /* (no block) */
  block = block_of(kind == K_THREAD, id, W->refs ? ref_top(W->L) : NULL,
                   kind == K_STRING || kind == K_USERDATA || kind == K_CDATA);
  if (block == NULL) return;
  f = li_mem_site(W->P, block);
  W->site[n] = f == LI_NONE ? 0 : f + 1;
}

/* A node for the value on top of L, met for the first time (kind, id and
** a string's length as discover found them). */
static uint32_t meet(walk *W, int kind, const void *id, size_t len,
                     int hint) {
  lua_State *L = W->L;
  char buf[NAME_MAX_ESC + 32];
  uint64_t size = kind == K_LIGHT ? 0 : li_heap_size(L, -1, W->exact);
  uint32_t name = 0, n;
  switch (kind) {
    case K_STRING:
      /* (a string's own name is written, not kept: it seldom repeats,
      ** and a key's edges name it by its node's name) */
      name = str_add(W, buf, escape_name(buf, id, len));
      break;
    case K_TABLE:
      name = intern_z(W, "table");
      break;
    case K_LFUNC:
      name = lfunc_name(W);
      break;
    case K_CFUNC: case K_LCF:
      if (hint) {
        size_t kl;
        const char *k = lua_tolstring(L, -2, &kl);
        memcpy(buf, "C function ", 11);
        name = intern(W, buf, 11 + escape_name(buf + 11, k, kl));
      } else {
        name = intern_z(W, "C function");
      }
      break;
    case K_USERDATA:
      name = NONE;
      if (lua_getmetatable(L, -1)) {
        const mtinfo *m = mt_info(W);
        if (m != NULL) name = m->name;
        lua_pop(L, 1);
      }
      if (name == NONE) name = intern_z(W, "userdata");
      break;
    case K_LIGHT:
      snprintf(buf, sizeof buf, "light userdata 0x%" PRIxPTR, (uintptr_t)id);
      name = intern_z(W, buf);
      break;
    case K_THREAD:
      name = intern_z(W, lua_tothread(L, -1) == W->mainL ? "thread (main)"
                                                          : "thread");
      break;
    default:
      name = intern_z(W, "cdata");
      break;
  }
  n = node_new(W, kind, (uintptr_t)id, size, name);
  if (n == NONE) return NONE;
  note_site(W, n, id, kind);
  switch (kind) {            /* what holds references is visited later */
    case K_TABLE: case K_LFUNC: case K_CFUNC: case K_USERDATA: case K_THREAD:
      enqueue(W, n, !W->refs);
      break;
    default:
      break;
  }
  return n;
}

/* The node of the value on top of L (left there), met now if new; NONE
** for a value that is no object (nil, a boolean, a number).  hint: the
** value's key, a string, is at -2 (it names a C function first found
** under it). */
static uint32_t discover(walk *W, int hint) {
  lua_State *L = W->L;
  const void *id;
  size_t len = 0;
  int kind;
  uint32_t n;
  if (W->status != LUAINSTR_OK) return NONE;
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: id = lua_tolstring(L, -1, &len); kind = K_STRING; break;
    case LUA_TTABLE: id = lua_topointer(L, -1); kind = K_TABLE; break;
    case LUA_TFUNCTION: id = lua_topointer(L, -1); kind = func_kind(L); break;
    case LUA_TUSERDATA: id = lua_touserdata(L, -1); kind = K_USERDATA; break;
    case LUA_TLIGHTUSERDATA: id = lua_touserdata(L, -1); kind = K_LIGHT; break;
    case LUA_TTHREAD: id = lua_topointer(L, -1); kind = K_THREAD; break;
    case LI_TCDATA: id = lua_topointer(L, -1); kind = K_CDATA; break;
    default: return NONE;
  }
  /* (with internals an object is named by its GCObject, which is what
  ** lua_topointer gives but for a userdata, whose memory follows it) */
  if (W->refs && kind != K_STRING && kind != K_LIGHT && kind != K_LCF)
    id = ref_top(L);
  n = seen_find(W, (uintptr_t)id, space_of(kind));
  return n != NONE ? n : meet(W, kind, id, len, hint);
}

/* A prototype's node (heapsize.h), met now if new. */
static uint32_t meet_proto(walk *W, const void *p) {
  li_hproto info;
  fname *f;
  uint32_t n = seen_find(W, (uintptr_t)p, 0), name;
  if (n != NONE || W->status != LUAINSTR_OK) return n;
  li_heap_proto_info(p, &info);
  f = fname_of(W, info.source, info.line, info.lastline, info.line == 0);
  if (f == NULL) return NONE;
  if (f->proto == NONE) f->proto = intern_pre(W, "prototype ", f->lkept);
  name = f->proto;
  n = node_new(W, K_PROTO, (uintptr_t)p, info.size, name);
  if (n == NONE) return NONE;
  if (W->site != NULL) {
    uint32_t s = li_mem_site(W->P, p);
    W->site[n] = s == LI_NONE ? 0 : s + 1;
  }
  enqueue(W, n, 0);
  return n;
}


/* ======================================================================
** Following an object's references (the object on top of L)
** ====================================================================== */

/* The integer a table key is, if it is one (before 5.3: a number with
** no fraction, within 2^53). */
static int key_integer(lua_State *L, int idx, int64_t *out) {
#if LUA_VERSION_NUM >= 503
  if (!lua_isinteger(L, idx)) return 0;
  *out = (int64_t)lua_tointeger(L, idx);
  return 1;
#else
  double d = (double)lua_tonumber(L, idx);
  if (!(d >= -9007199254740992.0 && d <= 9007199254740992.0)) return 0;
  *out = (int64_t)d;
  return (double)*out == d;
#endif
}

/* The name "[KEY]" of a key that is neither a string nor an element's
** index: [true], [1.5], [-3], [table 0x...] (kn: the key's node). */
static uint32_t key_name(walk *W, int idx, uint32_t kn) {
  lua_State *L = W->L;
  char buf[96];
  int64_t i;
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      return intern_z(W, lua_toboolean(L, idx) ? "[true]" : "[false]");
    case LUA_TNUMBER:
      if (key_integer(L, idx, &i))
        snprintf(buf, sizeof buf, "[%lld]", (long long)i);
      else {
        size_t n;
        snprintf(buf, sizeof buf, "[%.14g", (double)lua_tonumber(L, idx));
        n = strlen(buf);
#if LUA_VERSION_NUM >= 503
        /* a float that looks like an integer, as Lua 5.3 writes it */
        if (buf[strspn(buf + 1, "-0123456789") + 1] == '\0')
          snprintf(buf + n, sizeof buf - n, ".0");
        n = strlen(buf);
#endif
        snprintf(buf + n, sizeof buf - n, "]");
      }
      return intern_z(W, buf);
    default: {
      static const char *const kinds[] = {
        "?", "table", "function", "function", "function", "userdata",
        "light userdata", "thread", "string", "?", "cdata"
      };
      if (kn == NONE) return intern_z(W, "[?]");
      snprintf(buf, sizeof buf, "[%s 0x%" PRIx64 "]",
               kinds[NODE(W, kn)->kind & K_MASK], NODE(W, kn)->addr);
      return intern_z(W, buf);
    }
  }
}

/* The edge of a table's value vn under the key at -2 (kn its node). */
static void value_edge(walk *W, int weak, int is_registry, uint32_t kn,
                       uint32_t vn) {
  lua_State *L = W->L;
  int64_t i;
  int type = lua_type(L, -2);
  if (type == LUA_TSTRING) {
    uint32_t name;
    if (kn == NONE) return;
    name = NODE(W, kn)->name;
    if (is_registry) {
      size_t kl;
      const char *k = lua_tolstring(L, -2, &kl);
      if (kl == sizeof LUA_LOADED_TABLE - 1 && memcmp(k, LUA_LOADED_TABLE, kl) == 0)
        name = intern_z(W, "package.loaded");
    }
    edge(W, weak ? E_WEAK : E_PROPERTY, name, vn);
    return;
  }
  if (type == LUA_TNUMBER && key_integer(L, -2, &i) && i >= 0 &&
      (uint64_t)i <= UINT32_MAX) {
#if LUA_VERSION_NUM >= 502
    if (is_registry && i == LUA_RIDX_GLOBALS) {
      edge(W, E_PROPERTY, intern_z(W, "_G"), vn);
      return;
    }
#endif
    if (!weak) {
      edge(W, E_ELEMENT, (uint32_t)i, vn);
      return;
    }
  }
  edge(W, weak ? E_WEAK : E_INTERNAL, key_name(W, -2, kn), vn);
}

static void expand_table(walk *W, uint32_t n) {
  lua_State *L = W->L;
  int weak = 0, is_registry = (NODE(W, n)->kind & K_ROOT) != 0;
  if (lua_getmetatable(L, -1)) {
    const mtinfo *m = mt_info(W);
    weak = m != NULL && m->weak;
    edge(W, E_INTERNAL, W->s_mt, discover(W, 0));
    lua_pop(L, 1);
  }
  lua_pushnil(L);
  while (W->status == LUAINSTR_OK && lua_next(L, -2)) {
    uint32_t kn, vn;
    lua_pushvalue(L, -2);
    kn = discover(W, 0);
    lua_pop(L, 1);
    edge(W, weak ? E_WEAK : E_INTERNAL, W->s_key, kn);
    vn = discover(W, lua_type(L, -2) == LUA_TSTRING);
    if (vn != NONE) value_edge(W, weak, is_registry, kn, vn);
    lua_pop(L, 1);
  }
#if LUA_VERSION_NUM < 502
  if (is_registry && W->status == LUAINSTR_OK) {
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    edge(W, E_PROPERTY, intern_z(W, "_G"), discover(W, 0));
    lua_pop(L, 1);
  }
#else
  (void)is_registry;
#endif
}

#if LUA_VERSION_NUM < 502
/* 5.1 and LuaJIT: the environment of the function, userdata or thread on
** top. */
static void env_edge(walk *W) {
  lua_getfenv(W->L, -1);
  edge(W, E_INTERNAL, W->s_env, discover(W, 0));
  lua_pop(W->L, 1);
}
#else
#define env_edge(W) ((void)(W))
#endif

/* An upvalue's name: "?" when it has none. */
static uint32_t upvalue_name(walk *W, const char *name) {
  if (name[0] == '\0' || strcmp(name, LI_STRIPPED_UPVALUE) == 0 ||
      strcmp(name, "(no name)") == 0)
    return intern_z(W, "?");
  return intern_z(W, name);
}

static void expand_function(walk *W, uint32_t n) {
  lua_State *L = W->L;
  int lua_fn = (NODE(W, n)->kind & K_MASK) == K_LFUNC;
  const char *name;
  if (lua_fn) {
    const void *p = li_heap_proto(L, -1, W->exact);
    if (p != NULL) edge(W, E_INTERNAL, W->s_proto, meet_proto(W, p));
  }
  for (int i = 1; W->status == LUAINSTR_OK &&
                  (name = lua_getupvalue(L, -1, i)) != NULL; i++) {
    uint32_t vn;
    /* a Lua closure's cells may be shared: each counted once, with the
    ** first closure met holding it (a C closure's upvalues are its own) */
    if (lua_fn) {
      const void *id = li_heap_upvalue_id(L, -2, i, W->exact);
      int first = 1;
      if (id != NULL) {
        size_t k, mask;
        if ((W->ncells + 1) * 2 > W->cellcap) {
          size_t cap = W->cellcap ? W->cellcap * 2 : 256;
          uintptr_t *t = zalloc(W, cap, sizeof *t);
          if (t == NULL) break;
          for (size_t j = 0; j < W->cellcap; j++) {
            if (W->cells[j] == 0) continue;
            k = hash_ptr(W->cells[j]) & (cap - 1);
            while (t[k] != 0) k = (k + 1) & (cap - 1);
            t[k] = W->cells[j];
          }
          zfree(W, W->cells, W->cellcap, sizeof *t);
          W->cells = t;
          W->cellcap = cap;
        }
        mask = W->cellcap - 1;
        for (k = hash_ptr((uintptr_t)id) & mask; W->cells[k] != 0; k = (k + 1) & mask)
          if (W->cells[k] == (uintptr_t)id) break;
        first = W->cells[k] == 0;
        if (first) {
          W->cells[k] = (uintptr_t)id;
          W->ncells++;
        }
      }
      if (first)
        node_set_size(W, n, node_size(W, n) + li_heap_upvalue_size(W->exact));
    }
    vn = discover(W, 0);
    if (vn != NONE) edge(W, E_CONTEXT, upvalue_name(W, name), vn);
    lua_pop(L, 1);
  }
  env_edge(W);
}

static void expand_userdata(walk *W) {
  lua_State *L = W->L;
  if (lua_getmetatable(L, -1)) {
    edge(W, E_INTERNAL, W->s_mt, discover(W, 0));
    lua_pop(L, 1);
  }
#if LUA_VERSION_NUM >= 504
  for (int i = 1; W->status == LUAINSTR_OK; i++) {
    char name[32];
    if (lua_getiuservalue(L, -1, i) == LUA_TNONE) {
      lua_pop(L, 1);
      break;
    }
    snprintf(name, sizeof name, "(uservalue %d)", i);
    if (lua_type(L, -1) != LUA_TNIL)
      edge(W, E_INTERNAL, intern_z(W, name), discover(W, 0));
    lua_pop(L, 1);
  }
#elif LUA_VERSION_NUM >= 502
  lua_getuservalue(L, -1);
  edge(W, E_INTERNAL, W->s_uv, discover(W, 0));
  lua_pop(L, 1);
#else
  env_edge(W);
#endif
}

static void expand_proto(walk *W, const void *p) {
  lua_State *L = W->L;
  li_hproto info;
  char name[64];
  li_heap_proto_info(p, &info);
  for (uint32_t i = 0; i < info.nrefs && W->status == LUAINSTR_OK; i++) {
    if (!li_heap_proto_push(L, p, i, name, sizeof name)) continue;
    edge(W, E_INTERNAL, intern_z(W, name), discover(W, 0));
    lua_pop(L, 1);
  }
  for (uint32_t i = 0; i < info.nprotos && W->status == LUAINSTR_OK; i++) {
    const void *c = li_heap_proto_child(p, i);
    if (c == NULL) continue;
    snprintf(name, sizeof name, "(prototype %u)", (unsigned)i + 1);
    edge(W, E_INTERNAL, intern_z(W, name), meet_proto(W, c));
  }
}


/* ======================================================================
** Threads: the values on their stacks
** ====================================================================== */

/* Move the value T pushed to L (T and L are threads of one state). */
static void take(lua_State *T, lua_State *L) {
  if (T != L) lua_xmove(T, L, 1);
}

/* One stack value on top of L: slot number *slot, a local's name (NULL or
** "(...)": a temporary, a hidden edge) in the frame labelled by the kept
** name `label`. */
static void slot_edge(walk *W, uint32_t *slot, const char *name,
                      uint32_t label) {
  uint32_t vn = discover(W, 0);
  ++*slot;
  if (vn == NONE) return;
  if (name == NULL || name[0] == '(' || label == NONE) {
    edge(W, E_HIDDEN, *slot, vn);
  } else {
    char buf[700];
    /* (a function with no name: "x in function (f.lua:3)") */
    int m = snprintf(buf, sizeof buf, "%s in %s%.*s", name,
                     hname(W, label)[0] == '(' ? "function " : "",
                     (int)hname_len(W, label), hname(W, label));
    edge(W, E_CONTEXT, intern(W, buf, m < 0 ? 0 : (size_t)m < sizeof buf
                                               ? (size_t)m : sizeof buf - 1), vn);
  }
}

/* The values on T's stack, level by level: each frame's function, its
** named locals (context edges "NAME in FUNCTION (SOURCE:LINE)") and its
** other slots (hidden edges, numbered in the order met).  For the thread
** taking the snapshot, level 0 is this walk: skipped, but the host's
** slots below it (given as the walk's arguments) are its values. */
static void walk_stack(walk *W, lua_State *T) {
  lua_State *L = W->L;
  lua_Debug ar;
  uint32_t slot = 0;
  int level = 0;
  if (T == L) {
    level = W->inplace ? 0 : 1;
    for (int i = W->argbase; i < W->argbase + W->nbase && W->status == LUAINSTR_OK;
         i++) {
      lua_pushvalue(L, i);
      slot_edge(W, &slot, NULL, NONE);
      lua_pop(L, 1);
    }
  } else {
    /* (the values go through T's stack: a free slot there, which a
    ** suspended thread always has, LUA_MINSTACK above its top) */
    if (!lua_checkstack(T, 4)) return;
    if (!lua_getstack(T, 0, &ar)) {     /* not started, or done */
      int top = lua_gettop(T);
      for (int i = 1; i <= top && W->status == LUAINSTR_OK; i++) {
        lua_pushvalue(T, i);
        take(T, L);
        slot_edge(W, &slot, NULL, NONE);
        lua_pop(L, 1);
      }
    }
  }
  for (; W->status == LUAINSTR_OK && lua_getstack(T, level, &ar); level++) {
    uint32_t label = NONE;
    const char *name;
    if (!lua_getinfo(T, "Sf", &ar)) continue;
    take(T, L);
    slot_edge(W, &slot, NULL, NONE);          /* the frame's function */
    lua_pop(L, 1);
    if (strcmp(ar.what, "C") != 0) {
      fname *f = fname_of(W, ar.source, ar.linedefined, ar.lastlinedefined,
                          strcmp(ar.what, "main") == 0);
      if (f != NULL) label = f->lkept;
    }
    /* (in place, level 0 is the host's C function: its slots end where
    ** the walk's own begin) */
    int last = T == L && W->inplace && level == 0 ? W->top0 : INT_MAX;
    for (int i = 1; W->status == LUAINSTR_OK && i <= last &&
                    (name = lua_getlocal(T, &ar, i)) != NULL; i++) {
      take(T, L);
      slot_edge(W, &slot, name, label);
      lua_pop(L, 1);
    }
#if LUA_VERSION_NUM >= 502 || LI_IS_LUAJIT
    for (int i = -1; W->status == LUAINSTR_OK &&
                     (name = lua_getlocal(T, &ar, i)) != NULL; i--) {
      take(T, L);                                       /* varargs */
      slot_edge(W, &slot, NULL, NONE);
      lua_pop(L, 1);
    }
#endif
  }
}

static void expand_thread(walk *W) {
  lua_State *T = lua_tothread(W->L, -1);
  env_edge(W);
  if (T != NULL) walk_stack(W, T);
}


/* ======================================================================
** The roots
** ====================================================================== */

static uint32_t synthetic(walk *W, const char *name, int role) {
  uint32_t n = node_new(W, K_SYNTH, (uint64_t)role, 0, intern_z(W, name));
  if (n != NONE && role != 0) enqueue(W, n, 0);
  return n;
}

/* Node 0, (GC roots), and its edges to the synthetic roots: (registry)
** (the registry table itself), (main thread), (type metatables),
** (threads) (the thread taking the snapshot, when it is not the main
** one: every other thread is found where it is held). */
static void roots(walk *W) {
  lua_State *L = W->L;
  uint32_t r[4];
  synthetic(W, "(GC roots)", 0);
  lua_pushvalue(L, LUA_REGISTRYINDEX);
  r[0] = discover(W, 0);
  lua_pop(L, 1);
  if (r[0] == NONE) return;
  NODE(W, r[0])->kind |= K_ROOT;
  NODE(W, r[0])->name = intern_z(W, "(registry)");
  r[1] = synthetic(W, "(main thread)", R_MAIN);
  r[2] = synthetic(W, "(type metatables)", R_TYPEMT);
  r[3] = synthetic(W, "(threads)", R_THREADS);
  W->cur = 0;
  for (uint32_t i = 0; i < 4; i++) edge(W, E_ELEMENT, i, r[i]);
  NODE(W, 0)->nedges = W->cur;
}

/* A root's edges. */
static void expand_root(walk *W, int role) {
  lua_State *L = W->L;
  lua_Debug ar;
  switch (role) {
    case R_MAIN:
      if (W->mainL != NULL) {
        lua_pushthread(W->mainL);
        take(W->mainL, L);
        edge(W, E_ELEMENT, 0, discover(W, 0));
        lua_pop(L, 1);
      }
      break;
    case R_TYPEMT: {
      static const char *const names[] = {
        "nil", "boolean", "number", "string", "function", "thread",
        "lightuserdata"
      };
      for (int t = 0; t < 7 && W->status == LUAINSTR_OK; t++) {
        switch (t) {
          case 0: lua_pushnil(L); break;
          case 1: lua_pushboolean(L, 0); break;
          case 2: lua_pushnumber(L, 0); break;
          case 3: lua_pushliteral(L, "__mode"); break; /* (made at startup) */
          case 4:           /* this walk's function: making one allocates */
            if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "f", &ar))
              lua_pushnil(L);
            break;
          case 5: lua_pushthread(L); break;
          /* (the walk's argument: LuaJIT may allocate to push a new
          ** light userdata, its address space being interned) */
          default: lua_pushvalue(L, 1); break;
        }
        if (lua_getmetatable(L, -1)) {
          edge(W, E_PROPERTY, intern_z(W, names[t]), discover(W, 0));
          lua_pop(L, 1);
        }
        lua_pop(L, 1);
      }
      break;
    }
    default:
      if (L != W->mainL) {
        lua_pushthread(L);
        edge(W, E_ELEMENT, 0, discover(W, 0));
        lua_pop(L, 1);
      }
      break;
  }
}


/* ======================================================================
** The walk (under lua_pcall: 5.1's lua_checkstack may raise when memory
** runs out, and a collection asked for runs finalizers)
** ====================================================================== */

/* collectgarbage("count") in bytes.  From a finalizer 5.4's lua_gc does
** nothing and says -1: the count is then read from the state (with its
** headers), or 0. */
static uint64_t gc_count(lua_State *L) {
  int kb = lua_gc(L, LUA_GCCOUNT, 0), b = lua_gc(L, LUA_GCCOUNTB, 0);
  if (kb >= 0 && b >= 0) return (uint64_t)kb * 1024 + (uint64_t)b;
#if LUA_VERSION_NUM == 504 && HAVE_REFS
  if (release_ok()) return (uint64_t)gettotalbytes(G(L));
#endif
  return 0;
}

/* Does a value survive the trip through ref_top and ref_push? */
static int ref_same(lua_State *L) {
  int same;
  ref_push(L, ref_top(L));
  same = lua_rawequal(L, -1, -2) && lua_type(L, -1) == lua_type(L, -2) &&
         lua_topointer(L, -1) == lua_topointer(L, -2);
  lua_pop(L, 2);
  return same;
}

/* Are references to objects usable here: built with Lua's headers, on
** the release they come from, reading and writing values as the API does
** (a table, a string, a thread)? */
static int refs_check(lua_State *L) {
  const char *env = getenv("LUAINSTR_HEAP_REFS");
  int ok;
  /* (LUAINSTR_HEAP_REFS=off: the walk a build without the headers has,
  ** for the tests, as LUAINSTR_PROBE chooses the probe) */
  if (!HAVE_REFS || !release_ok() || (env != NULL && strcmp(env, "off") == 0))
    return 0;
  lua_pushvalue(L, LUA_REGISTRYINDEX);
  ok = ref_same(L);
  lua_pushliteral(L, "__mode");
  ok = ok && ref_same(L);
  lua_pushthread(L);
  return ok && ref_same(L);
}

static void walk_all(walk *W) {
  lua_State *L = W->L;
  roots(W);
  while (W->status == LUAINSTR_OK && W->qhead < W->qn) {
    uint32_t n = W->q[W->qhead++];
    uint64_t addr = NODE(W, n)->addr;
    int kind = NODE(W, n)->kind & K_MASK;
    W->cur = 0;
    if (kind == K_SYNTH) {
      expand_root(W, (int)addr);
    } else if (kind == K_PROTO) {
      expand_proto(W, (const void *)(uintptr_t)addr);
    } else {
      if (W->refs) ref_push(L, (void *)(uintptr_t)addr);
      else lua_pushvalue(L, W->qbase++);   /* (qbase: the queue's head) */
      switch (kind) {
        case K_TABLE: expand_table(W, n); break;
        case K_USERDATA: expand_userdata(W); break;
        case K_THREAD: expand_thread(W); break;
        default: expand_function(W, n); break;
      }
      lua_pop(L, 1);
    }
    NODE(W, n)->nedges = W->cur;
    /* without references: the values visited leave the stack's queue, by
    ** moving the waiting ones down now and then */
    if (!W->refs && W->qbase - W->qstart > 1024 &&
        W->qbase - W->qstart > W->qend - W->qbase) {
      int waiting = W->qend - W->qbase + 1;
      for (int i = 0; i < waiting; i++) {
        lua_pushvalue(L, W->qbase + i);
        lua_replace(L, W->qstart + i);
      }
      W->qbase = W->qstart;
      W->qend = W->qstart + waiting - 1;
      lua_settop(L, W->qend);
    }
  }
  edges_flush(W);
}

/* Pause the collector for the walk (W->gc_paused says how, for
** take_walk to set it back), and choose how the walk holds what it has
** yet to visit (W->refs).  Needs 3 free stack slots. */
static void pause_collector(walk *W, lua_State *L) {
  if (HAVE_REFS && release_ok()) {
    W->gc = gc_pause(L);
    W->gc_paused = 1;
  } else {
    W->gc_paused = gc_pause_api(L) ? 2 : 0;
  }
  /* (after the pause: the check pushes a string, a collector check point) */
  W->refs = refs_check(L);
}

/* The walk, in the frame it runs in (walk_step's, or the host's). */
static void walk_run(walk *W, lua_State *L) {
  if (W->collect) {
    /* (5.4 collects nothing from a finalizer: lua_gc says -1) */
    W->collect = lua_gc(L, LUA_GCCOLLECT, 0) >= 0;
    W->gc_bytes = gc_count(L);
    pause_collector(W, L);
  }
  if (!lua_checkstack(L, SCRATCH)) {
    fail(W, LUAINSTR_EMEM, "heap snapshot: no room on the Lua stack%s", "");
    return;
  }
  /* (its check reads the state's objects: once, with the room made and
  ** the collector paused) */
  W->exact = li_heap_exact(L, &W->why);
  W->qstart = W->qbase = lua_gettop(L) + 1;
  W->qend = W->qbase - 1;
  walk_all(W);
}

static int walk_step(lua_State *L) {
  walk_run(lua_touserdata(L, 1), L);
  return 0;
}


/* ======================================================================
** The file
** ====================================================================== */

static const char meta[] =
  "{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
  "\"trace_node_id\",\"detachedness\"],\n"
  "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\","
  "\"closure\",\"regexp\",\"number\",\"native\",\"synthetic\","
  "\"concatenated string\",\"sliced string\",\"symbol\",\"bigint\","
  "\"object shape\"],\"string\",\"number\",\"number\",\"number\",\"number\","
  "\"number\"],\n"
  "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\n"
  "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\","
  "\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"],\n"
  "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\","
  "\"script_id\",\"line\",\"column\"],\n"
  "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\","
  "\"children\"],\n"
  "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\n"
  "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]}";

/* DevTools' node type of a node kind. */
static unsigned node_type(int kind) {
  if (kind & K_ROOT) return T_SYNTHETIC;
  switch (kind & K_MASK) {
    case K_SYNTH: return T_SYNTHETIC;
    case K_STRING: return T_STRING;
    case K_TABLE: case K_THREAD: return T_OBJECT;
    case K_LFUNC: case K_CFUNC: case K_LCF: return T_CLOSURE;
    case K_USERDATA: case K_LIGHT: return T_NATIVE;
    case K_PROTO: return T_CODE;
    default: return T_HIDDEN;
  }
}

/* "FUNCTION (SOURCE:LINE)" of the profiler's function f, for sites. */
static void out_site(obuf *o, const li_fn *f) {
  char buf[600];
  int n;
  if (f->zone) n = snprintf(buf, sizeof buf, "%s", f->name);
  else if (f->line == 0)
    n = snprintf(buf, sizeof buf, "%s (%s:main)", f->name, f->source);
  else n = snprintf(buf, sizeof buf, "%s (%s:%u)", f->name, f->source, f->line);
  out_json(o, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The snapshot in W to fd; 0, or errno. */
static int write_snapshot(walk *W, int fd, uint64_t taken_ns) {
  obuf *o = malloc(sizeof *o);
  uint64_t odd = 1, i, total = 0;
  int e;
  if (o == NULL) return ENOMEM;
  count_bytes(W, sizeof *o, 0);
  o->fd = fd;
  o->n = 0;
  o->failed = 0;
  out_z(o, "{\"snapshot\":{\"meta\":");
  out_z(o, meta);
  out_z(o, ",\n\"node_count\":");
  out_u64(o, W->nnode);
  out_z(o, ",\"edge_count\":");
  out_u64(o, W->nedges);
  out_z(o, ",\"trace_function_count\":0,\n\"lua\":{\"version\":\"" LI_LUA_NAME
        "\",\"exact\":");
  out_z(o, W->exact ? "true" : "false");
  out_z(o, ",\"collected\":");
  out_z(o, W->collect ? "true" : "false");
  out_z(o, ",\"gc_count_bytes\":");
  out_u64(o, W->gc_bytes);
  out_z(o, ",\"taken_ns\":");
  out_u64(o, taken_ns);
  out_z(o, ",\"c_bytes\":");
  out_u64(o, W->cpeak);
  if (!W->exact && W->why != NULL) {
    out_z(o, ",\"estimates\":");
    out_json(o, W->why, strlen(W->why));
  }
  if (W->site != NULL) {
    int first = 1;
    out_z(o, ",\n\"sites\":[");
    for (i = 0; i < W->nnode; i++) {
      if (W->site[i] == 0 || W->site[i] > W->P->nfn) continue;
      out_z(o, first ? "[" : ",\n[");
      first = 0;
      out_u64(o, i * 7);
      out(o, ",", 1);
      out_site(o, &W->P->fn[W->site[i] - 1]);
      out(o, "]", 1);
    }
    out(o, "]", 1);
  }
  out_z(o, "}},\n\"nodes\":[");
  for (i = 0; i < W->nnode; i++) {
    const hnode *nd = NODE(W, (uint32_t)i);
    int kind = nd->kind;
    uint64_t id = nd->addr, size = node_size(W, (uint32_t)i);
    if ((kind & K_MASK) == K_SYNTH || (kind & K_ROOT) || (kind & K_MASK) == K_LIGHT) {
      id = odd;                 /* (odd, below 2^20 while there are fewer) */
      odd += 2;
    }
    if (i > 0) out(o, ",\n", 2);
    out_u64(o, node_type(kind));
    out(o, ",", 1);
    out_u64(o, nd->name);
    out(o, ",", 1);
    out_u64(o, id);
    out(o, ",", 1);
    out_u64(o, size);
    out(o, ",", 1);
    out_u64(o, nd->nedges);
    out(o, ",0,0", 4);
    total += size;
  }
  out_z(o, "],\n\"edges\":[");
  if (lseek(W->efd, 0, SEEK_SET) != 0) o->failed = errno;
  for (i = 0; i < W->nedges && o->failed == 0;) {
    ssize_t r = read(W->efd, W->ebuf, sizeof W->ebuf);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      o->failed = r < 0 ? errno : EIO;
      break;
    }
    for (size_t k = 0; k + 1 < (size_t)r / sizeof W->ebuf[0] && i < W->nedges;
         k += 2, i++) {
      uint32_t a = W->ebuf[k];
      if (i > 0) out(o, ",\n", 2);
      out_u64(o, a >> 29);
      out(o, ",", 1);
      out_u64(o, W->ebuf[k + 1]);
      out(o, ",", 1);
      out_u64(o, (uint64_t)(a & (MAX_NODES - 1)) * 7);
    }
  }
  out_z(o, "],\n\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],"
        "\"locations\":[],\n\"strings\":[");
  out_flush(W->sout);
  if (W->sout->failed != 0 && o->failed == 0) o->failed = W->sout->failed;
  if (o->failed == 0 && lseek(W->sout->fd, 0, SEEK_SET) != 0) o->failed = errno;
  while (o->failed == 0) {                  /* (the strings, as they are) */
    ssize_t r = read(W->sout->fd, W->sout->b, sizeof W->sout->b);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) o->failed = errno;
    if (r <= 0) break;
    out(o, W->sout->b, (size_t)r);
  }
  out_z(o, "]}\n");
  out_flush(o);
  W->self_bytes = total;
  e = o->failed;
  zfree(W, o, 1, sizeof *o);
  return e;
}


/* ======================================================================
** Taking one
** ====================================================================== */

static void walk_free(walk *W) {
  for (size_t i = 0; i < W->nchunk; i++)
    zfree(W, W->chunk[i], CHUNK_NODES, sizeof(hnode));
  zfree(W, W->chunk, W->capchunk, sizeof *W->chunk);
  zfree(W, W->big, W->capbig, sizeof *W->big);
  zfree(W, W->site, W->capsite, sizeof *W->site);
  zfree(W, W->seen, W->seencap, sizeof *W->seen);
  zfree(W, W->q, W->qcap, sizeof *W->q);
  zfree(W, W->hb, W->hbcap, 1);
  zfree(W, W->hoff, W->caph, sizeof *W->hoff);
  zfree(W, W->hidx, W->caph, sizeof *W->hidx);
  zfree(W, W->hslot, W->hslotcap, sizeof *W->hslot);
  if (W->sout != NULL) close(W->sout->fd);
  zfree(W, W->sout, 1, sizeof *W->sout);
  zfree(W, W->cells, W->cellcap, sizeof *W->cells);
  zfree(W, W->mt, W->mtcap, sizeof *W->mt);
  zfree(W, W->fn, W->fncap, sizeof *W->fn);
  zfree(W, W->pfn, W->pfncap, sizeof *W->pfn);
}

/* ns since the profiler's start (its trace and frames' clock), 0 without
** one. */
static uint64_t taken_ns(li_prof *P) {
  uint64_t t;
  if (P == NULL || !P->ever_started) return 0;
  t = li_clock_ticks(&P->clock);
  return t > P->trace_t0 ? (uint64_t)((double)(t - P->trace_t0) *
                                      li_clock_ns_per_tick_now(&P->clock))
                         : 0;
}

/* Add path to P's list of snapshot files (once: a file written again
** moves to the end). */
static void remember(li_prof *P, const char *path) {
  char *abs = li_report_abspath(path), **v;
  if (abs == NULL) return;
  for (uint32_t i = 0; i < P->nheap_files; i++) {
    if (strcmp(P->heap_files[i], abs) != 0) continue;
    free(P->heap_files[i]);
    memmove(P->heap_files + i, P->heap_files + i + 1,
            (P->nheap_files - i - 1) * sizeof *v);
    P->nheap_files--;
    break;
  }
  v = realloc(P->heap_files, (P->nheap_files + 1) * sizeof *v);
  if (v == NULL) {
    free(abs);
    return;
  }
  v[P->nheap_files++] = abs;
  P->heap_files = v;
}

void li_heap_prepare(lua_State *L) {
  /* (5.1 and LuaJIT: the walk's C function is made once, kept in the
  ** registry; a snapshot then makes none) */
  if (li_pushcfunction_noerr(L, walk_step)) lua_pop(L, 1);
}

void li_heap_files_free(li_prof *P) {
  for (uint32_t i = 0; i < P->nheap_files; i++) free(P->heap_files[i]);
  free(P->heap_files);
  P->heap_files = NULL;
  P->nheap_files = 0;
}

/* Walk L's state into W (the edges to W->efd). */
static void take_walk(walk *W) {
  lua_State *L = W->L;
  lua_Debug ar;
  int top;
  /* (what the program has: the walk's own call may make a few stack
  ** slots, when the stack has no room for them) */
  W->gc_bytes = gc_count(L);
  W->mainL = li_push_mainthread(L);
  if (W->mainL != NULL) lua_pop(L, 1);
  /* (5.1 without Lua's headers cannot tell it from a coroutine: the
  ** profiler can) */
  else if (W->P != NULL) W->mainL = W->P->mainL;
  /* A suspended thread (or one an error ended) can run nothing: the main
  ** thread runs the walk, which finds that one where it is held.  (LuaJIT
  ** runs an error handler with its thread's status LUA_ERRERR.) */
  if (lua_status(L) != LUA_OK && !(LI_IS_LUAJIT && lua_status(L) == LUA_ERRERR)) {
    if (W->mainL == NULL || lua_status(W->mainL) != LUA_OK) {
      fail(W, LUAINSTR_EORDER, "heap snapshot: the thread given is suspended "
           "and the main thread cannot be reached from it%s", "");
      return;
    }
    W->L = L = W->mainL;
  }
  top = lua_gettop(L);
  /* A host calling from no function at all: its stack slots are no
  ** frame's, passed to the walk as arguments to be seen. */
  W->nbase = lua_getstack(L, 0, &ar) ? 0 : top;
  /* The collector paused before anything below can allocate (the walk's
  ** call record and stack room, the first time a thread calls at this
  ** depth): a step there would run finalizers, Lua code, inside the
  ** snapshot.  With a collection asked for, walk_step collects first,
  ** then pauses it. */
  if (!W->collect) pause_collector(W, L);
  /* In place where nothing the walk does can raise an error (5.2-5.4's
  ** lua_checkstack says 0 rather than raise; without a collection no
  ** finalizer runs): a call would cost the state a call record the first
  ** time it calls at this depth, an allocation the program could see in
  ** collectgarbage("count") (5.2: 80 bytes). */
  W->top0 = top;
  if (!W->collect && LUA_VERSION_NUM >= 502 && !LI_IS_LUAJIT) {
    W->inplace = 1;
    W->argbase = 1;
    walk_run(W, L);
    if (W->gc_paused == 1) gc_resume(L, W->gc);
    else if (W->gc_paused == 2) lua_gc(L, LUA_GCRESTART, 0);
    lua_settop(L, top);
    return;
  }
  W->argbase = 2;
  if (!lua_checkstack(L, W->nbase + 4) || !li_pushcfunction_noerr(L, walk_step)) {
    if (W->gc_paused == 1) gc_resume(L, W->gc);
    else if (W->gc_paused == 2) lua_gc(L, LUA_GCRESTART, 0);
    fail(W, LUAINSTR_EMEM, "heap snapshot: no room on the Lua stack%s", "");
    return;
  }
  lua_pushlightuserdata(L, W);
  for (int i = 1; i <= W->nbase; i++) lua_pushvalue(L, i);
  if (lua_pcall(L, 1 + W->nbase, 0, 0) != LUA_OK) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                     : "not enough memory";
    fail(W, LUAINSTR_EMEM, "heap snapshot: %s", msg);
  }
  if (W->gc_paused == 1) gc_resume(L, W->gc);
  else if (W->gc_paused == 2) lua_gc(L, LUA_GCRESTART, 0);
  lua_settop(L, top);
}

/* Where the file goes, as the report writers decide (report.c): a
** regular file, or none yet, is written to a temporary name beside it and
** renamed into place (through a symbolic link: the file it names, the
** link kept); anything else (/dev/stdout, a pipe, /dev/full) is written to
** directly.  The fd, or -1 with errno; *tmp (malloc'd) and *target: the
** temporary name and the name it takes, NULL when written directly. */
static int open_target(const char *path, char **tmp, char **target) {
  struct stat st;
  int fd;
  *tmp = *target = NULL;
  if (strncmp(path, "/dev/", 5) != 0 && strncmp(path, "/proc/", 6) != 0) {
    char *real = NULL;
    int replace;
    if (lstat(path, &st) != 0) {
      if (errno != ENOENT) return -1;
      replace = 1;
    } else if (S_ISLNK(st.st_mode)) {
      real = realpath(path, NULL);
      if (real == NULL && errno != ENOENT) return -1;
      replace = real == NULL || (stat(real, &st) == 0 && S_ISREG(st.st_mode));
    } else if (S_ISDIR(st.st_mode)) {
      errno = EISDIR;
      return -1;
    } else {
      replace = S_ISREG(st.st_mode);
    }
    if (replace) {
      *target = real != NULL ? real : li_dup_bytes(path, strlen(path));
      if (*target == NULL) return -1;
      if ((fd = li_create_temp(*target, O_RDWR, 0644, tmp)) >= 0) return fd;
      free(*target);
      *target = NULL;
      return -1;
    }
    free(real);
  }
  return open(path, O_WRONLY | O_APPEND | O_NOCTTY);
}

/* A scratch file, unlinked at once (gone when closed, whatever happens):
** beside the snapshot, or in the temporary directory when that is not a
** place for files (/dev). */
static int scratch_file(const char *near) {
  const char *tmpdir = getenv("TMPDIR");
  char *name = NULL, alt[512];
  int fd = li_create_temp(near, O_RDWR, 0644, &name);
  if (fd < 0) {
    snprintf(alt, sizeof alt, "%s/luainstr-heap",
             tmpdir != NULL && tmpdir[0] != '\0' ? tmpdir : "/tmp");
    fd = li_create_temp(alt, O_RDWR, 0644, &name);
  }
  if (fd >= 0) {
    unlink(name);
    free(name);
  }
  return fd;
}

int li_heap_snapshot(lua_State *L, li_prof *P, const char *path, int flags,
                     li_heap_stats *stats, char *err, size_t errlen) {
  walk *W;
  char *tmp = NULL, *target = NULL;
  int fd, sfd = -1, e, r;
  if (path == NULL || path[0] == '\0') {
    snprintf(err, errlen, "heap snapshot: no path given");
    return LUAINSTR_EARG;
  }
  if ((flags & ~LUAINSTR_HEAP_COLLECT) != 0) {
    snprintf(err, errlen, "heap snapshot: unknown flags 0x%x", (unsigned)flags);
    return LUAINSTR_EARG;
  }
  W = calloc(1, sizeof *W);
  if (W == NULL) {
    snprintf(err, errlen, "heap snapshot: not enough memory");
    return LUAINSTR_EMEM;
  }
  W->L = L;
  W->P = P;
  W->err = err;
  W->errlen = errlen;
  W->collect = (flags & LUAINSTR_HEAP_COLLECT) != 0;
  W->efd = -1;
  count_bytes(W, sizeof *W, 0);
  /* the file first: a path that cannot be written fails before the walk */
  fd = open_target(path, &tmp, &target);
  if (fd >= 0 && (W->efd = scratch_file(target != NULL ? target : path)) >= 0)
    sfd = scratch_file(target != NULL ? target : path);
  if (sfd < 0) {
    e = errno;
    snprintf(err, errlen, "cannot write the heap snapshot to '%s': %s", path,
             strerror(e));
    if (fd >= 0) close(fd);
    if (W->efd >= 0) close(W->efd);
    if (tmp != NULL) unlink(tmp);
    free(tmp);
    free(target);
    free(W);
    return LUAINSTR_EIO;
  }
  if ((W->sout = zalloc(W, 1, sizeof *W->sout)) != NULL) W->sout->fd = sfd;
  else close(sfd);
  /* memory mode: who made each object (grown with the nodes) */
  if (P != NULL && li_mem_active(P)) W->site = zalloc(W, 1, sizeof *W->site);
  W->s_key = intern_z(W, "(key)");
  W->s_mt = intern_z(W, "(metatable)");
  W->s_proto = intern_z(W, "(prototype)");
  W->s_env = intern_z(W, "(environment)");
  W->s_uv = intern_z(W, "(uservalue)");
  pfn_build(W);
  if (W->status == LUAINSTR_OK) take_walk(W);
  r = W->status;
  if (r == LUAINSTR_OK) {
    e = write_snapshot(W, fd, taken_ns(P));
    /* (fsync: after the rename the name never points at a file whose
    ** blocks are not on disk yet) */
    if (e == 0 && tmp != NULL && fsync(fd) != 0) e = errno;
    if (close(fd) != 0 && e == 0) e = errno;
    if (e == 0 && tmp != NULL && rename(tmp, target) != 0) e = errno;
    if (e != 0) {
      snprintf(err, errlen, "cannot write the heap snapshot to '%s': %s",
               path, strerror(e));
      r = e == ENOMEM ? LUAINSTR_EMEM : LUAINSTR_EIO;
    }
  } else {
    close(fd);
  }
  if (r != LUAINSTR_OK && tmp != NULL) unlink(tmp);
  else if (r == LUAINSTR_OK && P != NULL && tmp != NULL) remember(P, path);
  if (stats != NULL) {
    stats->nodes = W->nnode;
    stats->edges = W->nedges;
    stats->self_bytes = W->self_bytes;
    stats->gc_bytes = W->gc_bytes;
    stats->c_peak = W->cpeak;
    stats->exact = W->exact;
  }
  close(W->efd);
  free(tmp);
  free(target);
  walk_free(W);
  free(W);
  return r;
}
