/*
** luainstr.h -- the public API of luainstr, a source-instrumenting Lua
** profiler.  This is the one header a host includes.
**
** Turning profiling on in an engine:
**
**     #include <lauxlib.h>
**     #include <luainstr_wrap.h>    (after lauxlib.h: routes every loader,
**                                    lua_resume and lua_pcall)
**     ...
**     lua_State *L = luaL_newstate(); luaL_openlibs(L);
**     luainstr_open(L);                                  (attach, start)
**     luainstr_install_hooks();
**     ... run the game: luaL_dofile, lua_resume, ... as before ...
**     luainstr_dump(L, "text", "profile.txt");
**
** Ownership: the profiler of a lua_State lives in that state's registry and
** is freed by lua_close(); every string the API takes is copied; nothing the
** API returns needs freeing.  Every function is safe to call in any order:
** a call that makes no sense returns an error code and leaves a message for
** luainstr_errmsg(), it never crashes.  Two states in two threads profile
** independently (each may have its own clock); the only globals are the
** function pointers of the wrap_ functions.
*/
#ifndef LUAINSTR_H
#define LUAINSTR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;

#define LUAINSTR_VERSION "0.1.0"

#if defined(_WIN32) && defined(LUAINSTR_SHARED)
#define LUAINSTR_API __declspec(dllexport)
#elif defined(__GNUC__)
#define LUAINSTR_API __attribute__((visibility("default")))
#else
#define LUAINSTR_API
#endif

/* Status codes of the C API. */
enum {
  LUAINSTR_OK = 0,      /* done */
  LUAINSTR_EORDER = 1,  /* wrong order (stop when not running, no profiler) */
  LUAINSTR_EARG = 2,    /* bad argument (unknown format or option) */
  LUAINSTR_EIO = 3,     /* the report could not be written */
  LUAINSTR_EMEM = 4,    /* out of memory */
  LUAINSTR_EEMPTY = 5   /* luainstr_dump: written (and valid), but it holds
                           nothing: e.g. chrome without trace mode, frames
                           or zones; the message says what to turn on */
};

/* ---- the swappable entry points --------------------------------------
** Each wrap_ function has the signature of the Lua function it is named
** after and calls through a process-wide function pointer that defaults to
** that Lua function.  A host routes its calls through them by including
** <luainstr_wrap.h> after <lauxlib.h> (or, for loads only, with the one
** line  #define luaL_loadbufferx wrap_luaL_loadbufferx ), and turns the
** profiler's versions on and off by swapping the pointers:
**     luainstr_install_hooks()    every pointer to its luainstr_ version
**     luainstr_uninstall_hooks()  every pointer back to Lua's function
** luainstr_install_loadbufferx_hook(fn) sets the luaL_loadbufferx pointer
** alone (NULL: Lua's); given luainstr_loadbufferx it installs every hook,
** as luainstr_install_hooks does.  The pointers are process-wide: swap them
** before other threads call through them.  Routed through the profiler:
**   luaL_loadbufferx, luaL_loadfilex, luaL_loadstring, lua_load
**       (and the macros over them: luaL_loadbuffer, luaL_loadfile,
**       luaL_dofile, luaL_dostring): text chunks are instrumented;
**   lua_resume    a coroutine the host resumes nests under the top of the
**                 resumer's stack (from, or the running thread when from
**                 is NULL), its suspended time excluded, its allocations
**                 charged to it, as with coroutine.resume;
**   lua_pcall     frames an error unwinds are closed where it is caught;
**                 Lua code the host runs on another thread (not resumed)
**                 nests as a resumed coroutine would.
** Each has exactly the results of Lua's function. */
typedef int (*luainstr_loader)(struct lua_State *L, const char *buff,
                               size_t sz, const char *name, const char *mode);
/* lua_Reader */
typedef const char *(*luainstr_reader)(struct lua_State *L, void *ud,
                                       size_t *sz);

LUAINSTR_API int (wrap_luaL_loadbufferx)(struct lua_State *L, const char *buff,
                                        size_t sz, const char *name,
                                        const char *mode);
LUAINSTR_API int (wrap_luaL_loadfilex)(struct lua_State *L,
                                      const char *filename, const char *mode);
LUAINSTR_API int (wrap_luaL_loadstring)(struct lua_State *L, const char *s);
LUAINSTR_API int (wrap_lua_load)(struct lua_State *L, luainstr_reader reader,
                                void *data, const char *chunkname,
                                const char *mode);
LUAINSTR_API int (wrap_lua_resume)(struct lua_State *L, struct lua_State *from,
                                  int narg, int *nres);
LUAINSTR_API int (wrap_lua_pcall)(struct lua_State *L, int nargs, int nresults,
                                 int msgh);
LUAINSTR_API void (luainstr_install_hooks)(void);
LUAINSTR_API void (luainstr_uninstall_hooks)(void);
LUAINSTR_API void (luainstr_install_loadbufferx_hook)(luainstr_loader fn);
LUAINSTR_API void (luainstr_uninstall_loadbufferx_hook)(void);

/* The instrumenting loaders: each rewrites a text chunk and compiles it
** with the real luaL_loadbufferx.  Binary chunks, chunks Lua rejects (the
** user sees Lua's own message) and chunks excluded by the include/exclude
** patterns load unchanged.  Same results as Lua's function.
** luainstr_load calls the reader exactly as lua_load does (Lua compiles
** the original through it, and the text is compiled again instrumented:
** a reader-loaded chunk costs two compiles). */
LUAINSTR_API int (luainstr_loadbufferx)(struct lua_State *L, const char *buff,
                                       size_t sz, const char *name,
                                       const char *mode);
LUAINSTR_API int (luainstr_loadfilex)(struct lua_State *L,
                                     const char *filename, const char *mode);
LUAINSTR_API int (luainstr_loadstring)(struct lua_State *L, const char *s);
LUAINSTR_API int (luainstr_load)(struct lua_State *L, luainstr_reader reader,
                                void *data, const char *chunkname,
                                const char *mode);
/* lua_resume with the profiler told (see above); Lua's results. */
LUAINSTR_API int (luainstr_resume)(struct lua_State *L, struct lua_State *from,
                                  int narg, int *nres);

/* ---- the profiler of a state ---------------------------------------------
** luainstr_open() attaches a profiler to L (once; later calls just start
** it), makes `require "luainstr"` return the Lua API, routes the Lua-level
** loaders (load, loadfile, dofile, require of Lua files) through the
** instrumenting loader, and starts collecting.  Returns LUAINSTR_OK. */
LUAINSTR_API int (luainstr_open)(struct lua_State *L);

/* ---- the clock ----------------------------------------------------------
** By default the profiler reads the CPU's invariant TSC (x86) or
** CLOCK_MONOTONIC.  A host whose platform has a better or the only usable
** clock (WebAssembly: emscripten_get_now(), milliseconds as a double)
** passes its own: `ticks(ud)` returns a count that never decreases,
** `ns_per_tick` nanoseconds a tick, or 0 when the host does not know (the
** profiler then measures it against CLOCK_MONOTONIC, as it does the TSC's).
** A double-valued clock is wrapped by scaling it to an integer, e.g.
**     static unsigned long long now_ns(void *ud) {
**       (void)ud; return (unsigned long long)(emscripten_get_now() * 1e6); }
**     luainstr_set_clock(L, "emscripten_get_now", now_ns, NULL, 1.0);
** Call it before luainstr_open() (or before the first start of the Lua
** module): it attaches the profiler, not started, so the probes' cost is
** measured with this clock; once the profiler has started it returns
** LUAINSTR_EORDER (figures already taken cannot change unit).  ticks NULL
** puts the default clock back.  The name (copied, at most 47 bytes; NULL:
** "host") is what reports call the clock.  ticks runs inside every probe,
** so it should be cheap and must not call into Lua; ud is the host's and
** never freed by the profiler.  A clock coarser than a call still gives
** right sums over many calls; reports state its resolution. */
typedef unsigned long long (*luainstr_clock)(void *ud);

LUAINSTR_API int (luainstr_set_clock)(struct lua_State *L, const char *name,
                                     luainstr_clock ticks, void *ud,
                                     double ns_per_tick);

/* Start, stop, pause (disable) and resume (enable) collection; reset clears
** every figure.  Stop and disable close the calls still open at that moment. */
LUAINSTR_API int (luainstr_start)(struct lua_State *L);
LUAINSTR_API int (luainstr_stop)(struct lua_State *L);
LUAINSTR_API int (luainstr_enable)(struct lua_State *L);
LUAINSTR_API int (luainstr_disable)(struct lua_State *L);
LUAINSTR_API int (luainstr_reset)(struct lua_State *L);

/* Options, by name (strings are copied):
**   "include"   glob (fnmatch) on chunk names without their '@'/'=':
**               only matching chunks are instrumented (may repeat)
**   "exclude"   glob: matching chunks are not instrumented (may repeat)
**   "clear_patterns"  value ignored: forget include/exclude patterns
**   "trace"     "on" (1,000,000 events of 24 bytes: 24 MB), "off", or a
**               number of events: record every call's start and end (and
**               coroutine yields and resumes) for the `chrome` format.
**               What a full buffer keeps: "first [N]" its first events
**               (later ones are dropped and counted), "recent [N]" (or
**               "recent:N") the most recent ones, a flight recorder (a
**               ring: the oldest are overwritten and counted); "on" or a
**               bare N: the recent ones if frame mode is on when the
**               buffer first fills, else the first ones
**   "frames"    "on" (a ring buffer of 36,000 frame summaries: 10 minutes
**               at 60 fps, 1.7 MB), "off", or a number of frames: frame
**               marking (luainstr_frame, p.frame); off by default
**   "spike_factor"  a frame is a spike when it is busy (its duration
**               less its idle spans, luainstr_idle_begin) longer than this
**               many times the median busy time of the 63 frames before it
**               (and than "spike_ms"); default "2"
**   "spike_ms"  ... and longer than this many milliseconds (default "0")
**   "spikes"    call trees kept: those of the slowest spikes (default
**               "16", at most 1024); a slower spike replaces the fastest
**   "memory"    "on", "off": memory per function (wraps the state's
**               allocator with lua_setallocf; the collector is never
**               stopped, forced or tuned); off by default
**   "probe"     how the probe reads its call: "fast" (the default where
**               it can be: from Lua's own structures, checked at start
**               against the C API on this library, with a fast path for
**               the common case), "direct" (the same without the fast
**               path) or "api" (the C API only: more instructions a call).
**               The figures mean the same with each.  Set it before
**               luainstr_open (it attaches the profiler, not started, as
**               luainstr_set_clock does) or the first start, and before
**               any chunk is loaded (LUAINSTR_EORDER after; the probe's
**               cost is measured at the first start); LUAINSTR_EARG when
**               Lua's structures cannot be read here (the message says why).
**               The environment variable LUAINSTR_PROBE sets the default
**   "extraspace"  "on" (default) or "off": the profiler keeps a pointer to
**               each thread's shadow stack in the thread's extra space
**               (lua_getextraspace), so that a coroutine switch finds it
**               at once.  It writes only over NULL or its own pointers,
**               and trusts what it reads only if it is one of its own, so
**               a host's values are kept; but a host that itself fills a
**               NULL extra space lazily would find the profiler's pointer
**               there: such a host says "off" (switches then look the
**               stack up in the registry: about 500 instructions more,
**               2121 a resume and yield against 1620 under callgrind).
**               Lua leaves the main thread's extra space uninitialised
**               (coroutines get copies of it): the profiler uses it only
**               if it holds NULL when the profiler attaches, so a host
**               that wants fast switches and does not use the space sets
**               it to NULL after creating the state, as luaprof and the
**               samples do
**               Before luainstr_open and before any chunk is loaded, as
**               "probe"
**   "preempt"   "on" (default) or "off": on Linux, a probe that finds 0.2 ms
**               or more since the probe before reads how long the thread
**               waited for a CPU (/proc/thread-self/schedstat, a system
**               call): the calls open then had the probes' share of that
**               wait added, which the report takes out (times stay wall
**               times; docs/measuring.md).  "off" for a program whose
**               seccomp filter kills on any other system call; on a busy
**               machine, call-heavy code then reads longer.  Any time.  The environment variable
**               LUAINSTR_PREEMPT=off sets the default
**   "live"      the live view (docs/live-protocol.md): "HOST:PORT", or
**               "PORT" for 127.0.0.1:PORT (0: any free port), serves a
**               page of this state's frames, spikes, function table and
**               memory, and takes commands from it, applied at the next
**               frame mark (with frame mode off, at the next probe: the
**               probe's fast path is off meanwhile); one server a process,
**               every live state listed in it; it prints its URL (with
**               the token) on stderr.  "page": the same records with no
**               server, for a host's own loop (the WebAssembly page).
**               "off": detached.  LUAINSTR_EIO when the server cannot
**               start (the port is taken; the message says why): the
**               program runs on.  Off by default
**   "live_token"  the token the page's URL carries (letters, digits and
**               -_.~; default: 32 hex digits from the system's random
**               source); before "live"
**   "live_name" the state's name in the page (default: its first chunk's
**               name, else "state N"); before "live"
** Returns LUAINSTR_EARG for an unknown name or a bad value. */
LUAINSTR_API int (luainstr_set_option)(struct lua_State *L, const char *name,
                                      const char *value);

/* ---- frames and zones ----------------------------------------------------
** luainstr_frame() ends a frame (an engine calls it once per tick, with the
** option "frames" on; LUAINSTR_EORDER when it is off or collection is
** not running).  Each frame's duration and calls are kept in a ring
** buffer, and the call tree of the slowest spike frames: the frame's own
** figures.  Cost of a mark: see docs/frames.md, "Frames".
**
** A zone is a named span that nests with function calls, like a call of a
** function named "zone NAME": luainstr_zone_begin() opens one in the
** running coroutine (the name is copied; zones of one name are one entry
** in reports; from Lua a name is cut at a NUL byte, as it is from C),
** luainstr_zone_end() closes the innermost zone open in it.
** A zone still open when the Lua function that opened it returns (or an
** error unwinds it) is closed there.  zone_end with no zone open on top of
** the coroutine's stack returns LUAINSTR_EORDER and changes nothing. */
LUAINSTR_API int (luainstr_frame)(struct lua_State *L);
LUAINSTR_API int (luainstr_zone_begin)(struct lua_State *L, const char *name);
LUAINSTR_API int (luainstr_zone_end)(struct lua_State *L);

/* An idle span: the host's sleep or vsync wait, between idle_begin and
** idle_end (Lua: p.idle_begin(), p.idle_end()).  It is the zone "idle"
** (the function that waits is not charged for it as self time; the tree
** shows where it waits), and in frame mode each frame's idle time is kept
** apart from its busy time, which is what the spike rule reads, so a
** spike inside the frame budget is found.  One at a time (LUAINSTR_EORDER
** for a second begin, or an end with none open), begun and ended in one
** function as a zone is; outside frame mode only the zone is recorded;
** while the profiler does not collect, nothing (LUAINSTR_OK). */
LUAINSTR_API int (luainstr_idle_begin)(struct lua_State *L);
LUAINSTR_API int (luainstr_idle_end)(struct lua_State *L);

/* Write the profile in a format ("text", "csv", "folded", "folded-calls",
** "callgrind", "chrome", "html", "json", "folded-alloc") to path, or to
** stderr when path is NULL.  A regular file is replaced atomically (never left half
** written); anything else (/dev/stderr, a pipe) is written to directly.
** LUAINSTR_EEMPTY: the report was written but holds nothing (a `chrome`
** trace without trace events or frames: it is still a valid, empty
** trace); luainstr_errmsg says what to turn on.  From Lua, p.dump and
** p.dump_to then return their usual value and that message second. */
LUAINSTR_API int (luainstr_dump)(struct lua_State *L, const char *format,
                                const char *path);

/* lua_pcall, and when it catches an error, the frames the error unwound
** are closed there (as exits by an error).  Without it they are closed
** when the next probe of that thread notices, which is exact for calls made
** from the host at the base of a thread and approximate otherwise.  Run
** on a thread other than the running one (a thread the host made to run a
** script in), its calls nest under the running thread's top frame, as a
** resumed coroutine's do.  (wrap_lua_pcall's profiler version.) */
LUAINSTR_API int (luainstr_pcall)(struct lua_State *L, int nargs,
                                 int nresults, int msgh);

/* ---- heap snapshots (docs/heap.md) ---------------------------------------
** luainstr_snapshot() writes every object L's state reaches (from any of
** its threads, running or not), its size and who holds it, to path in
** Chrome DevTools' .heapsnapshot format (`luaheap` reads it).  flags: 0,
** or LUAINSTR_HEAP_COLLECT for a full collection first.  It changes
** nothing the program can see: raw access only (no metamethod runs),
** nothing allocated in the Lua heap, no collection unless asked.  Works
** with or without a profiler attached; with one, the file is listed by
** its reports (the html report's heap view) and, in memory mode, each
** object carries the function that allocated it.  LUAINSTR_EIO: path
** cannot be written, LUAINSTR_EMEM: out of memory; luainstr_errmsg says
** why, and nothing is left at path (the file is written to a temporary
** name beside it and renamed). */
#define LUAINSTR_HEAP_COLLECT 1

LUAINSTR_API int (luainstr_snapshot)(struct lua_State *L, const char *path,
                                    int flags);

/* The message of the last failed call on L (or on no state: NULL), or "". */
LUAINSTR_API const char *(luainstr_errmsg)(struct lua_State *L);

/* Detach: stop collecting and give back the original Lua functions that
** luainstr_open replaced, and the state's allocator if memory mode wrapped
** it.  The figures stay until lua_close(). */
LUAINSTR_API int (luainstr_close)(struct lua_State *L);

/* The Lua module (require "luainstr"); also the entry of luainstr.so. */
LUAINSTR_API int (luaopen_luainstr)(struct lua_State *L);

/* require "luainstr.run" (from luainstr.so): for `lua5.4 -l luainstr.run
** SCRIPT [ARGS]`.  Profiles the script lua.c is about to run, runs it
** once, writes the report (LUAINSTR_OUT, LUAINSTR_FORMAT) and ends the
** process with lua5.4's status; never returns when there is a script. */
LUAINSTR_API int (luaopen_luainstr_run)(struct lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
