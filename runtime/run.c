/*
** run.c -- what the `luaprof` command and the `luainstr.run` module share:
** lua.c's way of running a script, as the lua.c of the Lua it is built
** for has it (message handler, the message of a failed chunk, the
** script's arguments; the differences are luaver.h's LI_LUAC_*), and the
** report, written exactly once when
** the program ends: after the script returns or fails, from os.exit
** (before a requested lua_close, which frees the profiler), when the state
** closes some other way, or from an atexit handler when C code calls
** exit().  One report per process, as one program runs per process.
*/
#define _GNU_SOURCE      /* dladdr, RTLD_NODELETE */

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(__EMSCRIPTEN__)
#include <time.h>
#include <unistd.h>
#define LI_RUN_SIGNALS 1
#else
#define LI_RUN_SIGNALS 0
#endif
/* (the grace period's timer: POSIX timers, as Linux has them) */
#if LI_RUN_SIGNALS && defined(__linux__)
#define LI_RUN_TIMER 1
#else
#define LI_RUN_TIMER 0
#endif

#include <lua.h>
#include <lauxlib.h>
#include "luaver.h"
#include <lualib.h>

#include "luainstr.h"
#include "runtime.h"
#include "live.h"         /* li_live_remove_files */

/* Where and how the report goes, and whether it went. */
static struct {
  lua_State *L;         /* the open state, NULL once closed */
  const char *who;      /* prefix of our messages ("luaprof") */
  const char *format;   /* report format */
  const char *path;     /* absolute path, or NULL for stderr */
  int written;          /* the report was written (or tried) */
  int atexit_set;       /* the atexit handler is registered */
} report;


/* ---- SIGTERM and SIGHUP: the report, then the signal's own end ------------
** How timeout, systemd, docker and CI stop a program.  The handler may not
** touch the state: it sets a hook on the main thread (as lua.c does for
** SIGINT) and closes the probe's gate (P->signal), so that the next Lua
** instruction of the main thread or the next probe in any coroutine writes
** the report (li_run_signal_act) and ends the process by the same signal,
** as if the program had not caught it (the same status a plain run gets).
** Neither runs while the program is blocked in C: after SIGNAL_GRACE_S
** seconds without either, a timer ends it by the signal without its report,
** and says so; so does a second signal, unless the report is being
** written, which no signal interrupts (li_run_report_write blocks them:
** a report is written whole, or its temporary file removed, before a
** signal ends the process).  Blocking reads are not restarted (as lua.c's
** SIGINT): they return to Lua, where the hook runs at once. */
#define SIGNAL_GRACE_S 5

static struct {
  lua_State *L;                   /* the main thread, hooked by the handler */
  li_prof *P;                     /* its profiler, whose gate it closes */
  volatile sig_atomic_t sig;      /* the signal caught; 0: none */
  volatile sig_atomic_t writing;  /* the report is being written */
#if LI_RUN_TIMER
  timer_t timer;                  /* the grace period's */
#endif
  int timer_ok;
  int set;                        /* the handlers are installed */
} sg;

#if LI_RUN_SIGNALS
/* End the process by sig, as its default action does. */
static void die_by(int sig) {
  sigset_t set;
  signal(sig, SIG_DFL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  _exit(128 + sig);             /* (not reached: the default action ends it) */
}

static void signal_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  li_run_signal_act(L);
}

#if LI_RUN_TIMER
/* The grace period is over: no Lua code ran since the signal. */
static void on_grace(int s) {
  static const char msg[] = ": no Lua code ran within 5 s of the signal "
                            "(blocked in C code?): the profile is lost\n";
  (void)s;
  if (sg.writing) {             /* (it will end the process when done) */
    struct itimerspec it = {{0, 0}, {1, 0}};
    timer_settime(sg.timer, 0, &it, NULL);
    return;
  }
  if (report.who != NULL && write(2, report.who, strlen(report.who)) < 0) _exit(128 + sg.sig);
  if (write(2, msg, sizeof msg - 1) < 0) _exit(128 + sg.sig);
  die_by(sg.sig);
}
#endif

static void on_signal(int sig) {
  if (sg.sig != 0 || sg.L == NULL) {  /* a second one, or the state gone: */
    if (!sg.writing) die_by(sig);     /* what it does unprofiled */
    return;
  }
  sg.sig = sig;
  if (sg.P != NULL) li_prof_signal(sg.P);
  lua_sethook(sg.L, signal_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
#if LI_RUN_TIMER
  if (sg.timer_ok) {
    struct itimerspec it = {{0, 0}, {SIGNAL_GRACE_S, 0}};
    timer_settime(sg.timer, 0, &it, NULL);
  }
#endif
}

static void set_handler(int sig, void (*h)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = h;
  sa.sa_flags = 0;              /* (no SA_RESTART: a blocked read returns) */
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sigaction(sig, &sa, NULL);
}
#endif

void li_run_signals(lua_State *L) {
#if LI_RUN_SIGNALS
  struct sigaction old;
  sg.L = L;
  sg.P = li_prof_get(L);
  sg.sig = 0;
  if (sg.set) return;
  sg.set = 1;
#if LI_RUN_TIMER
  {
    struct sigevent ev;
    int rt = SIGRTMIN + 7;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = rt;
    if (rt <= SIGRTMAX && sigaction(rt, NULL, &old) == 0 &&
        old.sa_handler == SIG_DFL && timer_create(CLOCK_MONOTONIC, &ev, &sg.timer) == 0) {
      set_handler(rt, on_grace);
      sg.timer_ok = 1;
    }
  }
#endif
  /* (a signal the parent left ignored stays ignored, as for a plain run) */
  if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
    set_handler(SIGTERM, on_signal);
  if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
    set_handler(SIGHUP, on_signal);
#else
  (void)L;
#endif
}

void li_run_signal_act(lua_State *L) {
  int sig = sg.sig;
  (void)L;
  if (sig == 0) return;
#if LI_RUN_SIGNALS
  if (sg.L != NULL) lua_sethook(sg.L, NULL, 0, 0);
  li_run_report_write();
  /* (the live view's downloads, which only the state's close removed: a
  ** burst of snapshots left 907 MB in TMPDIR after a SIGTERM) */
  li_live_remove_files(sg.P);
  die_by(sig);
#endif
}


int li_run_report_write(void) {
  lua_State *L = report.L;
  int st;
#if LI_RUN_SIGNALS
  sigset_t block, old;
#endif
  if (report.written || L == NULL) return 1;
  report.written = 1;
  fflush(stdout);  /* the program's output before a report on a terminal */
#if LI_RUN_SIGNALS
  /* (no signal ends it halfway: a report whole, or no temporary file) */
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigaddset(&block, SIGQUIT);
  sg.writing = 1;
  sigprocmask(SIG_BLOCK, &block, &old);
#endif
  st = luainstr_dump(L, report.format, report.path);
  switch (st) {
  case LUAINSTR_OK: break;
  case LUAINSTR_EEMPTY:         /* written: a warning, not a failure */
    fprintf(stderr, "%s: warning: %s\n", report.who, luainstr_errmsg(L));
    break;
  default:
    fprintf(stderr, "%s: %s\n", report.who, luainstr_errmsg(L));
    fflush(stderr);
    break;
  }
#if LI_RUN_SIGNALS
  sg.writing = 0;
  sigprocmask(SIG_SETMASK, &old, NULL);   /* (a signal held ends it now) */
#endif
  return st == LUAINSTR_OK || st == LUAINSTR_EEMPTY;
}


/* The state closes: no handler may touch it now.  A signal that came
** since the report was written ends the process now. */
static void signals_off(void) {
#if LI_RUN_SIGNALS
  struct sigaction cur;
  sg.L = NULL;
  sg.P = NULL;
  if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler == on_signal)
    signal(SIGTERM, SIG_DFL);
  if (sigaction(SIGHUP, NULL, &cur) == 0 && cur.sa_handler == on_signal)
    signal(SIGHUP, SIG_DFL);
  if (sg.sig != 0) die_by(sg.sig);
#endif
}


void li_run_report_forget(void) {
  report.L = NULL;
  signals_off();
}


/* For exit() from C code: the state is still open.  The exit status is
** already chosen, so a failure can only be reported. */
static void write_at_exit(void) {
  li_run_report_write();
}


void li_run_report_setup(lua_State *L, const char *who, const char *format,
                         const char *path) {
  report.L = L;
  report.who = who;
  report.format = format;
  report.path = path;
  report.written = 0;
  if (!report.atexit_set) report.atexit_set = atexit(write_at_exit) == 0;
}


/* Keep the shared object holding this code loaded until the process
** ends: lua_close unloads C modules, and this code runs then (a no-op when it is linked into the program). */
static void pin_module(void) {
#ifndef __EMSCRIPTEN__
  Dl_info info;
  if (dladdr((void *)pin_module, &info) && info.dli_fname != NULL)
    dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
#endif
  /* A WebAssembly program is one static module: nothing can unload this
  ** code, and emscripten's dlopen aborts without dynamic linking. */
}

/* os.exit as loslib's, but writing the report first: a requested
** lua_close frees the profiler, and exit() is too late to change the
** status when the report fails.  (5.1's takes a number only, and never
** closes the state: LI_OSEXIT_CLOSE.) */
static int run_os_exit(lua_State *L) {
  int status;
  if (LI_OSEXIT_CLOSE && lua_isboolean(L, 1))
    status = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    status = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  if (!li_run_report_write() && status == EXIT_SUCCESS)
    status = EXIT_FAILURE;
  if (LI_OSEXIT_CLOSE && lua_toboolean(L, 2)) {
    report.L = NULL;
    pin_module();
    lua_close(L);
  }
  exit(status);
  return 0;
}


/* When the state closes in some other way (a C module's lua_close): the
** last moment the profiler still holds its figures. */
static void write_on_close(lua_State *L, void *ud) {
  (void)L;  (void)ud;
  li_run_report_write();
  report.L = NULL;
  signals_off();
}


void li_run_report_hooks(lua_State *L) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, LUA_OSLIBNAME) == LUA_TTABLE) {
    lua_pushcfunction(L, run_os_exit);
    lua_setfield(L, -2, "exit");
  }
  lua_pop(L, 2);
  li_prof_on_close(L, write_on_close, NULL);
}


/* Lua 5.1's lua.c: debug.traceback(msg, 2) through the globals, for a
** string or a number; anything else, or no debug.traceback, as it is. */
static int msghandler_51(lua_State *L) {
  if (!lua_isstring(L, 1)) return 1;
  if (lua_getglobal(L, "debug") != LUA_TTABLE) {
    lua_pop(L, 1);
    return 1;
  }
  lua_getfield(L, -1, "traceback");
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 2);
    return 1;
  }
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 2);       /* skip this function and traceback */
  lua_call(L, 2, 1);
  return 1;
}

/* Lua 5.2's: a traceback for a string; for another value (not nil) its
** __tostring result, or "(no error message)". */
static int msghandler_52(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg != NULL)
    luaL_traceback(L, L, msg, 1);
  else if (!lua_isnoneornil(L, 1)) {
    if (!luaL_callmeta(L, 1, "__tostring"))
      lua_pushliteral(L, "(no error message)");
  }
  return 1;
}

/* LuaJIT's luajit.c: a string or number gets luaL_traceback; another
** value, non-nil, whose __tostring gives a string (or number), that with
** a traceback; else whatever is on the top (the value, or what its
** __tostring gave) as it is. */
static int msghandler_jit(lua_State *L) {
  if (!lua_isstring(L, 1)) {
    if (lua_isnoneornil(L, 1) || !luaL_callmeta(L, 1, "__tostring") ||
        !lua_isstring(L, -1))
      return 1;
    lua_remove(L, 1);
  }
  luaL_traceback(L, L, lua_tostring(L, 1), 1);
  return 1;
}

int li_run_msghandler(lua_State *L) {
  const char *msg;
  if (LI_LUAC_MSGH == 51) return msghandler_51(L);
  if (LI_LUAC_MSGH == 52) return msghandler_52(L);
  if (LI_LUAC_MSGH == 21) return msghandler_jit(L);
  msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}


int li_run_docall(lua_State *L, lua_CFunction msgh, int narg, int nres) {
  int status, base = lua_gettop(L) - narg;
  lua_pushcfunction(L, msgh);
  lua_insert(L, base);
  status = lua_pcall(L, narg, nres, base);
  lua_remove(L, base);
  if (LI_LUAC_GC_BEFORE_MSG && status != LUA_OK)
    lua_gc(L, LUA_GCCOLLECT, 0);       /* (5.1's docall) */
  return status;
}


void li_run_message(const char *pname, const char *msg) {
  if (pname) lua_writestringerror("%s: ", pname);
  lua_writestringerror("%s\n", msg);
}


int li_run_report(lua_State *L, const char *progname, int status) {
  if (status == LUA_OK) return status;
  if (LI_LUAC_REPORT_NONSTRING) {            /* 5.1, 5.2 */
    const char *msg;
    if (lua_isnil(L, -1)) return status;
    msg = lua_tostring(L, -1);
    li_run_message(progname, msg != NULL ? msg : "(error object is not a string)");
    lua_pop(L, 1);
    if (LI_LUAC_GC_AFTER_MSG) lua_gc(L, LUA_GCCOLLECT, 0);
    return status;
  }
  li_run_message(progname, lua_tostring(L, -1));
  lua_pop(L, 1);
  return status;
}


int li_run_pushargs(lua_State *L) {
  int i, n;
  if (LI_LUAC_ARGS_TO_NIL) {   /* (LuaJIT: arg[1] ... up to a nil) */
    if (lua_getglobal(L, "arg") != LUA_TTABLE) {
      lua_pop(L, 1);
      return 0;
    }
    for (n = 0; ; n++) {
      luaL_checkstack(L, 2, "too many arguments to script");
      if (lua_rawgeti(L, -1 - n, n + 1) == LUA_TNIL) break;
    }
    lua_pop(L, 1);
    lua_remove(L, -1 - n);
    return n;
  }
  if (lua_getglobal(L, "arg") != LUA_TTABLE)
    luaL_error(L, "'arg' is not a table");
  n = (int)luaL_len(L, -1);
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = 1; i <= n; i++)
    lua_rawgeti(L, -i, i);
  lua_remove(L, -i);
  return n;
}


/*
** {======================================================
** The luainstr.run module: `lua5.N -l luainstr.run SCRIPT [ARGS]`
** =======================================================
*/

#define RUN "luainstr.run"
#define LUA_NAME LI_LUA_PROGRAM   /* the interpreter, for messages */

/* Does this argument of lua.c name our module (-l luainstr.run, glued,
** or g=luainstr.run)? */
static int names_us(const char *a) {
  size_t n = strlen(a), k = sizeof RUN - 1;
  return n >= k && strcmp(a + n - k, RUN) == 0 &&
         (n == k || a[n - k - 1] == '=' || a[n - k - 1] == 'l');
}

static int no_script(lua_State *L) {
  return luaL_error(L, RUN ": no script to profile (usage: " LUA_NAME
                    " [options] -l " RUN " SCRIPT [ARGS], or - for stdin)");
}

/* Checks lua.c's arg table (at idx): the script is at 0 and the
** interpreter's options below it.  Returns the lowest index (the
** interpreter's name), or raises an error when there is no script or an
** option follows ours (lua.c would run it after the script). */
static lua_Integer check_args(lua_State *L, int idx) {
  lua_Integer i;
  int ours = 0;
  if (lua_rawgeti(L, idx, -1) == LUA_TNIL)   /* no options: no script */
    no_script(L);
  lua_pop(L, 1);
  for (i = -1; lua_rawgeti(L, idx, i) == LUA_TSTRING; i--) {
    const char *a = lua_tostring(L, -1);
    lua_pop(L, 1);
    if (!ours && names_us(a)) ours = 1;
    else if (!ours && strcmp(a, "--") != 0 && strcmp(a, "-l") != 0)
      luaL_error(L, RUN ": option '%s' comes after -l " RUN
                 " (put -l " RUN " last, just before the script)", a);
  }
  lua_pop(L, 1);
  return i + 1;
}

/* The script's index in lua.c's argv as Lua 5.1's and 5.2's collectargs
** find it (lua.c has checked the options already); 0 if there is none. */
static int script_index(const char *const *argv, int argc) {
  int i;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-') return i;
    switch (a[1]) {
    case '-': return i + 1 < argc ? i + 1 : 0;
    case '\0': return i;
    case 'e': case 'l':
      if (a[2] == '\0') i++;           /* its argument */
      break;
    default: break;                    /* -i, -v, -E */
    }
  }
  return 0;
}

/* Lua 5.1's and 5.2's lua.c make `arg` only when the script is about to
** load, after -l has run this module: make it as their handle_script
** would, from the command line the system keeps (Linux's
** /proc/self/cmdline).  Raises an error when that cannot be read or names
** no script. */
static void make_arg(lua_State *L) {
  luaL_Buffer b;
  FILE *f = fopen("/proc/self/cmdline", "rb");
  const char *s, *end, **argv;
  size_t len, n;
  int argc = 0, i, script;
  if (f == NULL)
    luaL_error(L, RUN ": cannot read the command line (/proc/self/cmdline)");
  luaL_buffinit(L, &b);
  do {
    char *p = luaL_prepbuffer(&b);
    n = fread(p, 1, LUAL_BUFFERSIZE, f);
    luaL_addsize(&b, n);
  } while (n == LUAL_BUFFERSIZE);
  fclose(f);
  luaL_pushresult(&b);
  s = lua_tolstring(L, -1, &len);
  end = s + len;
  for (const char *p = s; p < end; p += strlen(p) + 1) argc++;
  argv = (const char **)lua_newuserdatauv(L, sizeof(char *) * (size_t)(argc + 1), 0);
  i = 0;
  for (const char *p = s; p < end; p += strlen(p) + 1) argv[i++] = p;
  argv[argc] = NULL;
  script = script_index(argv, argc);
  if (script == 0) no_script(L);
  lua_createtable(L, argc - (script + 1), script + 1);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
  lua_pop(L, 2);                       /* the command line, argv */
}

/* lua.c's message handler, without the two levels lua.c's script does not
** have below it: require, and lua.c's main function below it (the script
** runs inside `require "luainstr.run"`).  They are the traceback's last
** two lines, both C functions; how they read differs between the versions
** (5.1 names neither; 5.2 calls require "require" or "_G.require", as the
** order of _G falls), so only their shape is checked. */
static int run_msghandler(lua_State *L) {
  static const char cline[] = "\n\t[C]: ";
  size_t n, k = sizeof cline - 1;
  const char *s, *cut = NULL;
  int lines = 0;
  li_run_msghandler(L);
  if (lua_type(L, -1) != LUA_TSTRING) return 1;
  s = lua_tolstring(L, -1, &n);
  while (lines < 2 && n >= k) {       /* back to the line's start */
    size_t i = n;
    while (i > 0 && s[i - 1] != '\n') i--;
    if (i == 0 || n - (i - 1) < k || memcmp(s + i - 1, cline, k) != 0) break;
    n = i - 1;
    cut = s + n;
    lines++;
  }
  if (lines == 2) lua_pushlstring(L, s, (size_t)(cut - s));
  return 1;
}

int (luaopen_luainstr_run)(lua_State *L) {
  const char *format = getenv("LUAINSTR_FORMAT"), *out = getenv("LUAINSTR_OUT");
  const char *fname, *progname;
  char *out_abs, err[300];
  int status, ok;
  if (!li_lua_matches()) return li_lua_refuse(L);  /* (as luaopen_luainstr) */
  if (!LI_LUAC_ARG_EARLY && lua_getglobal(L, "arg") != LUA_TTABLE)
    make_arg(L);                       /* (5.1, 5.2) */
  lua_settop(L, 0);
  if (lua_getglobal(L, "arg") != LUA_TTABLE)
    return luaL_error(L, RUN ": no 'arg' table (run from " LUA_NAME "'s command line)");
  lua_rawgeti(L, -1, check_args(L, lua_gettop(L)));
  progname = lua_tostring(L, -1);                    /* stays on the stack */
  /* (LuaJIT's luajit.c makes `arg` before -l, with nothing at 0 when
  ** there is no script) */
  if (lua_rawgeti(L, -2, 0) == LUA_TNIL) no_script(L);
  fname = lua_tostring(L, -1);
  lua_rawgeti(L, -3, -1);
  if (fname != NULL && strcmp(fname, "-") == 0 &&
      strcmp(lua_tostring(L, -1), "--") != 0)
    fname = NULL;                                    /* stdin, as lua.c */
  lua_pop(L, 1);
  if (format == NULL || format[0] == '\0') format = "text";
  if (li_report_format_error(format, err, sizeof err) != NULL)
    return luaL_error(L, RUN ": LUAINSTR_FORMAT: %s", err);
  if (out != NULL && out[0] == '\0') out = NULL;
  if (luainstr_open(L) != LUAINSTR_OK)
    return luaL_error(L, RUN ": %s", luainstr_errmsg(L));
  if (strcmp(format, "chrome") == 0 &&
      luainstr_set_option(L, "trace", "on") != LUAINSTR_OK)
    return luaL_error(L, RUN ": %s", luainstr_errmsg(L));
  /* The script may change directory before the report is written; the
  ** string lives as long as the process (the atexit handler reads it). */
  out_abs = li_report_abspath(out);
  li_run_report_setup(L, RUN, format, out_abs != NULL ? out_abs : out);
  li_run_report_hooks(L);
  li_run_signals(L);
  status = li_loadfilex(L, fname, NULL);
  if (status == LUA_OK)
    status = li_run_docall(L, run_msghandler, li_run_pushargs(L), 0);
  li_run_report(L, progname, status);                /* as lua.c's report */
  ok = li_run_report_write();
  li_run_report_forget();
  /* End as lua.c ends after the script: close the state (finalizers run),
  ** exit with its status, so lua.c never runs the script itself.  Closing
  ** the state unloads the C modules, this one too, while its code runs:
  ** pin it first. */
  pin_module();
  lua_close(L);
  exit(status == LUA_OK && ok ? EXIT_SUCCESS : EXIT_FAILURE);
  return 0;
}

/* }====================================================== */
