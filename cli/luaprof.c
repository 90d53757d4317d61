/*
** luaprof.c -- the `luaprof` command: lua5.4 with the profiler on; built
** for Lua 5.1, 5.2 or 5.3 (luaprof5.1 ...), lua5.1, lua5.2 or lua5.3;
** built for LuaJIT (luaprofjit), luajit, with its -j, -O and -b.
**
**   luaprof [-o FILE] [-f FORMAT] [--include PAT] [--exclude PAT]
**           [--heap FILE] [lua options] [script [args]]
**
** After its own options luaprof is the standalone interpreter (lua.c) of
** the Lua it is built for: same options, same `arg` table, same LUA_INIT,
** same messages and exit status, so that a program cannot tell it from
** `lua5.N` except by being measured.  Its interpreter name is "lua5.N"
** (arg[-n] and the prefix of uncaught errors), so stderr matches lua5.N's
** byte for byte.  What differs between the versions' lua.c (options, when
** `arg` is made, the message handler, -l, -v, LUA_INIT's order) is named
** in luaver.h (LI_LUAC_*) and read here and in run.c in plain `if`s.
** Built for LuaJIT it is luajit.c (2.1), named "luajit", with LuaJIT's
** -j cmd[=args] and -O[opt] among the other options (-joff before the
** script: its chunks are loaded with the JIT off) and -b, which hands the rest of
** the command line to jit.bcsave as luajit does, with no profiler (no
** report, its loads not instrumented).  The jit.* modules -j loads
** (jit.v, jit.dump, jit.p) are left out of the profile.
** Chunks are loaded through the instrumenting loader: the script by
** li_loadfilex, -e and LUA_INIT strings by li_load, modules and
** load/loadfile/dofile by the replacements luainstr_open installs.
**
** The report is written once, when the program ends (to the -o path as
** it named a file at start), unless the command line runs no code (-v
** alone): after the script
** returns or fails (after lua5.N's error message), from os.exit (before a
** requested lua_close, which would free the profiler), and from an atexit
** handler when C code calls exit().
*/
#define _POSIX_C_SOURCE 200809L  /* sigaction, isatty */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "runtime.h"

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
/* luaprof.js under node (scripts/wasm.sh): emscripten's isatty(0) says yes
** for any stdin of the real file system (a pipe, a file), so ask node. */
static int stdin_is_tty (void) {
  return EM_ASM_INT({ return require('tty').isatty(0) ? 1 : 0; });
}
#else
static int stdin_is_tty (void) {
  return isatty(0);
}
#endif

#ifndef LI_VERSION
#define LI_VERSION LUAINSTR_VERSION
#endif

#define SELF "luaprof"

/* What the help calls the programs it runs: "Lua 5.4", "LuaJIT". */
#if LI_IS_LUAJIT
#define LUA_NAME_OF_BUILD "LuaJIT"
#else
#define LUA_NAME_OF_BUILD "Lua " LI_LUA_VERSION
#endif

/* lua.c's name of the init variable (LUA_INIT_5_4 is tried first). */
#define LUA_INIT_VAR "LUA_INIT"

/* The interpreter luaprof stands in for: its name is what scripts see in
** arg and what prefixes uncaught errors ("lua5.4", "luajit"). */
#define PROGNAME LI_LUA_PROGRAM

/* Exit status of luaprof's own usage errors (the script's are lua5.N's). */
#define EXIT_USAGE 2

/* Formats luainstr_dump writes.  ORDER: as listed in the messages. */


/*
** {======================================================
** luaprof's own options
** =======================================================
*/

/* One option for luainstr_set_option (--include, --exclude, --frames,
** --memory, --spike...), in command-line order. */
typedef struct Pattern {
  const char *option;   /* the luainstr option's name */
  const char *glob;     /* its value */
} Pattern;

/* What luaprof's own options asked for. */
typedef struct Options {
  const char *out;      /* -o: report path, NULL for stderr */
  const char *format;   /* -f: report format */
  const char *trace;    /* --trace[=N]: "on", a size, or NULL (off) */
  const char *heap;     /* --heap: heap snapshot path, or NULL */
  const char *live;     /* --live: HOST:PORT, or NULL */
  const char *live_token;   /* --live-token, or NULL (generated) */
  const char *live_name;    /* the script's name, for the live page */
  Pattern *patterns;    /* --include/--exclude, in order */
  int npatterns;        /* how many */
} Options;


static void print_help (FILE *f) {
  fputs(
  "usage: " SELF " [options] [lua options] [script [args]]\n"
  "Runs a " LUA_NAME_OF_BUILD " program as " PROGNAME " does, with every function of its\n"
  "Lua code measured, and writes a profile when the program ends.\n"
  "Options (before any lua option):\n"
  "  -o FILE          write the report to FILE (default: stderr)\n"
  "  -f FORMAT        report format: text (default), csv, folded,\n"
  "                   folded-calls, callgrind, chrome, html, json,\n"
  "                   folded-alloc, pprof (gzipped, for go tool pprof;\n"
  "                   builds with protobuf-c)\n"
  "  --trace[=N]      trace mode: record every call's start and end, in a\n"
  "                   buffer of N events of 24 bytes (default 1000000);\n"
  "                   -f chrome turns it on by itself.  When it is full:\n"
  "                   --trace=recent[:N] keeps the most recent events (the\n"
  "                   oldest are overwritten), --trace=first[:N] the first\n"
  "                   ones; by default the recent ones with --frames\n"
  "  --include GLOB   instrument only chunks whose name matches GLOB\n"
  "                   (fnmatch, without the '@'; may repeat)\n"
  "  --exclude GLOB   do not instrument chunks matching GLOB (may repeat)\n"
  "  --frames[=N]     frame mode: each p.frame() call (require \"luainstr\")\n"
  "                   ends a frame; N frames kept (default 36000)\n"
  "  --spike-factor X a spike frame is busy (less its idle spans) more than\n"
  "                   X times the median of the frames before it (default 2)\n"
  "  --spike-ms MS    ...and more than MS milliseconds (default 0)\n"
  "  --spikes N       keep the call trees of the N slowest spikes (16)\n"
  "  --memory         memory per function: bytes allocated, freed, live\n"
  "  --count-small[=N] count small functions, do not time them: a body of\n"
  "                   at most N tokens (default 24) with no call, loop or\n"
  "                   function inside gets a probe that counts its calls\n"
  "                   exactly and times nothing; its time is its caller's,\n"
  "                   less the count probe's measured cost (docs/measuring.md)\n"
  "  --no-preempt     do not ask the kernel how long the thread waited for\n"
  "                   a CPU (a read of /proc at a long step; times then hold\n"
  "                   those waits): for a program whose seccomp filter kills\n"
  "                   on a read\n"
  "  --heap FILE      write a heap snapshot (.heapsnapshot: every object,\n"
  "                   its size and who holds it; luaheap reads it) to FILE\n"
  "                   when the script ends, before the report\n"
  "  --live HOST:PORT serve the live view (frames, spikes, function table,\n"
  "                   memory, commands) at http://HOST:PORT/ while the\n"
  "                   script runs; PORT alone: 127.0.0.1:PORT (0: any free\n"
  "                   port); the URL with its token is printed on stderr\n"
  "  --live-token T   the token the page and its socket require (default:\n"
  "                   LUAINSTR_LIVE_TOKEN, which other users cannot read as\n"
  "                   they can a command line; else generated at start)\n"
  "  --help           show this help\n"
  "  --version        show the versions of luaprof and Lua\n"
  "Lua options, as " PROGNAME "'s:\n"
  "  -e stat   execute string 'stat'\n", f);
  if (LI_LUAC_LIB_RENAME)
    fputs("  -l mod    require library 'mod' into global 'mod'\n"
          "  -l g=mod  require library 'mod' into global 'g'\n", f);
  else if (LI_LUAC_LIB_GLOBAL)
    fputs("  -l name   require library 'name' into global 'name'\n", f);
  else
    fputs("  -l name   require library 'name'\n", f);
  if (LI_LUAC_JIT)
    fputs("  -b ...    save or list bytecode (as luajit: no profiler, no report)\n"
          "  -j cmd    perform LuaJIT control command (-joff: chunks loaded\n"
          "            with the JIT off; the jit.* modules of -jv, -jdump, -jp\n"
          "            are not measured)\n"
          "  -O[opt]   control LuaJIT optimizations\n", f);
  fputs("  -v        show version information (alone: no report)\n", f);
  if (LI_LUAC_OPT_E) fputs("  -E        ignore environment variables\n", f);
  if (LI_LUAC_OPT_W) fputs("  -W        turn warnings on\n", f);
  fputs(
  "  --        stop handling options\n"
  "  -         stop handling options and execute stdin\n"
  "Interactive mode (-i, or no script with stdin a terminal) is not\n"
  "supported: profile a script, or pipe a program into '-'.\n"
  "The script sees the arg table " PROGNAME " would give it (arg[-n] = \"" PROGNAME "\";\n"
  "luaprof's own options are not in it).  Exit status: the program's\n"
  "(as " PROGNAME "'s); 1 if the report (or the heap snapshot) cannot be\n"
  "written after a successful run; 2 for a usage error.\n", f);
}


static void usage_error (const char *fmt, const char *what) {
  fprintf(stderr, SELF ": ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\nTry '" SELF " --help' for more information.\n");
  exit(EXIT_USAGE);
}


static int known_format (const char *name) {
  return li_report_known(name);
}


/* The value of option 'name' at argv[*i]: "NAME VALUE", or glued to it as
** "-oVALUE" (short) or "--name=VALUE" (long).  NULL if argv[*i] is not this
** option. */
static const char *option_value (char **argv, int *i, const char *name) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '\0') {
    if (argv[*i + 1] == NULL) usage_error("option '%s' needs an argument", name);
    return argv[++*i];
  }
  if (name[1] != '-') return a + n;   /* -oFILE */
  if (a[n] == '=') return a + n + 1;  /* --name=VALUE */
  return NULL;
}


static void add_pattern (Options *o, const char *option, const char *glob) {
  o->patterns[o->npatterns].option = option;
  o->patterns[o->npatterns].glob = glob;
  o->npatterns++;
}


/* Reads luaprof's options from argv; returns the index of the first
** argument that is not one of them (a lua option, the script, or argc). */
static int own_options (int argc, char **argv, Options *o) {
  int i;
  o->out = NULL;
  o->format = "text";
  o->trace = NULL;
  o->heap = NULL;
  o->live = NULL;
  o->live_token = NULL;
  o->live_name = NULL;
  o->npatterns = 0;
  o->patterns = (Pattern *)malloc(sizeof(Pattern) * (size_t)(argc + 1));
  if (o->patterns == NULL) {
    fprintf(stderr, SELF ": not enough memory\n");
    exit(EXIT_FAILURE);
  }
  for (i = 1; i < argc; i++) {
    const char *v;
    if ((v = option_value(argv, &i, "-o")) != NULL)
      o->out = v;
    else if ((v = option_value(argv, &i, "-f")) != NULL)
      o->format = v;
    else if (strcmp(argv[i], "--trace") == 0)
      o->trace = "on";
    else if (strncmp(argv[i], "--trace=", 8) == 0)
      o->trace = argv[i] + 8;
    else if ((v = option_value(argv, &i, "--heap")) != NULL)
      o->heap = v;
    else if ((v = option_value(argv, &i, "--live-token")) != NULL)
      o->live_token = v;
    else if ((v = option_value(argv, &i, "--live")) != NULL)
      o->live = v;
    else if ((v = option_value(argv, &i, "--include")) != NULL)
      add_pattern(o, "include", v);
    else if ((v = option_value(argv, &i, "--exclude")) != NULL)
      add_pattern(o, "exclude", v);
    else if (strcmp(argv[i], "--frames") == 0)
      add_pattern(o, "frames", "on");
    else if (strncmp(argv[i], "--frames=", 9) == 0)
      add_pattern(o, "frames", argv[i] + 9);
    else if (strcmp(argv[i], "--memory") == 0)
      add_pattern(o, "memory", "on");
    else if (strcmp(argv[i], "--count-small") == 0)
      add_pattern(o, "count_small", "on");
    else if (strncmp(argv[i], "--count-small=", 14) == 0)
      add_pattern(o, "count_small", argv[i] + 14);
    else if (strcmp(argv[i], "--no-preempt") == 0)
      add_pattern(o, "preempt", "off");
    else if ((v = option_value(argv, &i, "--spike-factor")) != NULL)
      add_pattern(o, "spike_factor", v);
    else if ((v = option_value(argv, &i, "--spike-ms")) != NULL)
      add_pattern(o, "spike_ms", v);
    else if ((v = option_value(argv, &i, "--spikes")) != NULL)
      add_pattern(o, "spikes", v);
    else if (strcmp(argv[i], "--help") == 0) {
      print_help(stdout);
      exit(EXIT_SUCCESS);
    }
    else if (strcmp(argv[i], "--version") == 0) {
      /* (lua.c's -v banner: 5.1's LUA_COPYRIGHT alone names no release) */
      printf(SELF " (luainstr) %s\n%s\n", LI_VERSION, LI_LUAC_BANNER);
      exit(EXIT_SUCCESS);
    }
    else if (argv[i][0] == '-' && argv[i][1] == '-' && argv[i][2] != '\0')
      usage_error("unrecognized option '%s'", argv[i]);
    else
      break;  /* the lua options, or the script, start here */
  }
  if (o->live_token != NULL && o->live == NULL)
    usage_error("%s", "option '--live-token' needs '--live'");
  if (!known_format(o->format)) {
    char err[300];
    fprintf(stderr, SELF ": %s\n",
            li_report_format_error(o->format, err, sizeof err));
    exit(EXIT_USAGE);
  }
  if (o->trace == NULL && strcmp(o->format, "chrome") == 0)
    o->trace = "on";            /* a timeline needs the trace */
  return i;
}

/* }====================================================== */


/*
** {======================================================
** The standalone interpreter (lua.c of Lua 5.4.4, behaviour for
** behaviour, and of 5.1.5, 5.2.4 and 5.3.6 where luaver.h's LI_LUAC_*
** say they differ; loads go through the instrumenting loader)
** =======================================================
*/

/* bits of the options that matter before any Lua code runs */
#define has_error  1   /* bad option */
#define has_i      2   /* -i */
#define has_v      4   /* -v */
#define has_e      8   /* -e */
#define has_E      16  /* -E */
#define has_l      32  /* -l (not lua.c's: says that some code runs) */
#define has_j      64  /* -j (LuaJIT: a -b after it is refused) */
#define has_b      128 /* -b (LuaJIT: jit.bcsave gets what follows) */

/* What main hands to pmain. */
typedef struct Run {
  int argc;             /* Lua's arguments: "lua5.N", options, script... */
  char **argv;          /* ... NULL-terminated */
  int script;           /* index of the script in argv (argc: none) */
  int args;             /* has_* bits */
  const Options *opts;  /* luaprof's options */
} Run;

static lua_State *globalL = NULL;  /* the state, for the SIGINT handler */



static void set_signal (int sig, void (*handler)(int)) {
  struct sigaction sa;
  sa.sa_handler = handler;
  sa.sa_flags = 0;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}


/* Hook set at SIGINT: raises the error where Lua code runs next. */
static void lstop (lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  if (LI_LUAC_SIGWHERE_0) {      /* (LuaJIT: where the function is) */
    luaL_where(L, 0);
    lua_pushliteral(L, "interrupted!");
    lua_concat(L, 2);
    lua_error(L);
  }
  luaL_error(L, "interrupted!");
}


/* A signal handler may not touch the state: it only sets a hook.  A second
** SIGINT kills the process. */
static void laction (int sig) {
  int flag = LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT |
             (LI_LUAC_SIGHOOK_LINE ? LUA_MASKLINE : 0);
  set_signal(sig, SIG_DFL);
  lua_sethook(globalL, lstop, flag, 1);
}


static void l_message (const char *pname, const char *msg) {
  li_run_message(pname, msg);
}

/*
** {======================================================
** The heap snapshot (--heap): once, when the script ends
** =======================================================
*/

/* Where it goes (absolute: the program may change directory), and how
** it went. */
static struct {
  const char *path;     /* NULL: no --heap */
  int taken;            /* taken, or tried */
  int failed;           /* and it failed (said on stderr) */
} heap;

/* Take the snapshot unless it was: 0 after a message if it failed. */
static int heap_snapshot (lua_State *L) {
  if (heap.path == NULL || heap.taken) return 1;
  heap.taken = 1;
  if (luainstr_snapshot(L, heap.path, 0) == LUAINSTR_OK) return 1;
  l_message(SELF, luainstr_errmsg(L));
  heap.failed = 1;
  return 0;
}

/* os.exit (run.c's, which writes the report: upvalue 1) with the snapshot
** taken first; a failed one makes a successful exit a failure, as a
** report that cannot be written does. */
static int heap_os_exit (lua_State *L) {
  int ok = heap_snapshot(L);
  int success = lua_isnoneornil(L, 1) ||
                (lua_isboolean(L, 1) && lua_toboolean(L, 1)) ||
                (lua_type(L, 1) == LUA_TNUMBER && lua_tonumber(L, 1) == 0);
  if (!ok && success) {
    if (lua_gettop(L) == 0) lua_pushnil(L);
    lua_pushinteger(L, EXIT_FAILURE);
    lua_replace(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 0);
  return 0;
}

static void heap_hooks (lua_State *L) {
  if (heap.path == NULL) return;
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, LUA_OSLIBNAME) == LUA_TTABLE) {
    lua_getfield(L, -1, "exit");
    lua_pushcclosure(L, heap_os_exit, 1);
    lua_setfield(L, -2, "exit");
  }
  lua_pop(L, 2);
}

/* }====================================================== */


/* Prints the error message on the top, if status is an error. */
static int report_status (lua_State *L, int status) {
  return li_run_report(L, PROGNAME, status);
}


static int docall (lua_State *L, int narg, int nres) {
  int status;
  globalL = L;
  set_signal(SIGINT, laction);
  status = li_run_docall(L, li_run_msghandler, narg, nres);
  set_signal(SIGINT, SIG_DFL);
  return status;
}


/* -v: the banner on stdout (5.2+, LuaJIT), or 5.1's on stderr. */
static void print_version (void) {
  if (LI_LUAC_BANNER_STDERR)
    l_message(NULL, LI_LUAC_BANNER);
  else {
    lua_writestring(LI_LUAC_BANNER, strlen(LI_LUAC_BANNER));
    lua_writeline();
  }
}


/* arg: the script at 0, its arguments above, the interpreter and its
** options below (the interpreter at 0 when there is no script; LuaJIT:
** all below 0).  From 5.3 on (and LuaJIT) made before any code runs; by
** 5.1 and 5.2 just before the script loads, and only if there is one. */
static void createargtable (lua_State *L, char **argv, int argc, int script) {
  int i, narg;
  if (script == argc && !LI_LUAC_ARG_NOSCRIPT_BELOW) script = 0;
  /* (sized as that lua.c sizes it, LuaJIT's one slot larger each: the
  ** length of an arg with holes reads the same) */
  narg = argc - (script + 1) + LI_LUAC_ARG_NOSCRIPT_BELOW;
  lua_createtable(L, narg, script + 1 - LI_LUAC_ARG_NOSCRIPT_BELOW);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i - script);
  }
  lua_setglobal(L, "arg");
}


static int dochunk (lua_State *L, int status) {
  if (status == LUA_OK) status = docall(L, 0, 0);
  return report_status(L, status);
}


static int dofile (lua_State *L, const char *name) {
  return dochunk(L, li_loadfilex(L, name, NULL));
}


static int dostring (lua_State *L, const char *s, const char *name) {
  return dochunk(L, li_load(L, s, strlen(s), name, NULL));
}


/* -l globname[=modname]: globname = require(modname) (5.4); -l name:
** name = require(name) (5.2, 5.3), or require(name) alone (5.1). */
static int dolibrary (lua_State *L, char *globname) {
  int status;
  char *modname = LI_LUAC_LIB_RENAME ? strchr(globname, '=') : NULL;
  if (modname == NULL)
    modname = globname;
  else {
    *modname = '\0';
    modname++;
  }
  lua_getglobal(L, "require");
  lua_pushstring(L, modname);
  status = docall(L, 1, 1);
  if (status == LUA_OK) {
    if (LI_LUAC_LIB_GLOBAL) lua_setglobal(L, globname);
    else lua_pop(L, 1);
  }
  return report_status(L, status);
}


/* The script's arguments as 5.1's and 5.2's getargs pass them: from the
** command line (the arg table, made just before, is not read). */
static int pushargv (lua_State *L, char **args) {
  int i, n = 0;
  while (args[n] != NULL) n++;
  luaL_checkstack(L, n + 3, "too many arguments to script");
  for (i = 0; i < n; i++) lua_pushstring(L, args[i]);
  return n;
}


static int handle_script (lua_State *L, const Run *r) {
  int status;
  char **argv = r->argv + r->script;
  const char *fname = argv[0];
  if (!LI_LUAC_ARG_EARLY) createargtable(L, r->argv, r->argc, r->script);
  if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0)
    fname = NULL;  /* stdin */
  status = li_loadfilex(L, fname, NULL);
  if (status == LUA_OK) {
    /* (5.3+: read now, -e code may change arg) */
    int n = LI_LUAC_ARG_EARLY ? li_run_pushargs(L) : pushargv(L, argv + 1);
    status = docall(L, n, LUA_MULTRET);
  }
  return report_status(L, status);
}


/* lua.c's collectargs: the has_* bits; *first is the script (or argc, or
** the bad option). */
static int collectargs (char **argv, int *first) {
  int args = 0;
  int i;
  for (i = 1; argv[i] != NULL; i++) {
    *first = i;
    if (argv[i][0] != '-')
      return args;
    switch (argv[i][1]) {
      case '-':
        if (argv[i][2] != '\0') return has_error;
        *first = i + 1;
        return args;
      case '\0':
        return args;
      case 'E':                     /* (5.2, LuaJIT take -Exyz as -E) */
        if (!LI_LUAC_OPT_E || (LI_LUAC_OPT_E_EXACT && argv[i][2] != '\0'))
          return has_error;
        args |= has_E;
        break;
      case 'O':                     /* LuaJIT: -O[opt] */
        if (!LI_LUAC_JIT) return has_error;
        break;
      case 'b':                     /* LuaJIT: -b ARGS..., first or not */
        if (!LI_LUAC_JIT || args != 0) return has_error;
        *first = i + 1;
        return has_b;
      case 'W':
        if (!LI_LUAC_OPT_W || argv[i][2] != '\0') return has_error;
        break;
      case 'i':
        args |= has_i;  /* -i implies -v */
        /* FALLTHROUGH */
      case 'v':
        if (argv[i][2] != '\0') return has_error;
        args |= has_v;
        break;
      case 'j':                     /* LuaJIT: -j cmd[=args] */
        if (!LI_LUAC_JIT) return has_error;
        args |= has_j;
        /* FALLTHROUGH */
      case 'e':
        if (argv[i][1] == 'e') args |= has_e;
        /* FALLTHROUGH */
      case 'l':
        if (argv[i][1] == 'l') args |= has_l;
        if (argv[i][2] == '\0') {    /* (5.1 takes "-e -x" as code) */
          i++;
          if (argv[i] == NULL || (LI_LUAC_OPTARG_NODASH && argv[i][0] == '-'))
            return has_error;
        }
        break;
      default:
        return has_error;
    }
  }
  *first = i;
  return args;
}


/* LuaJIT's jit.* add-on module `jit.NAME` (NAME on the top), replaced by
** its `start` function.  Returns 0, or 1 after a message. */
static int loadjitmodule (lua_State *L) {
  lua_getglobal(L, "require");
  lua_pushliteral(L, "jit.");
  lua_pushvalue(L, -3);
  lua_concat(L, 2);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    const char *msg = lua_tostring(L, -1);
    if (msg == NULL || strncmp(msg, "module ", 7) != 0)
      return report_status(L, 1);
    l_message(PROGNAME, "unknown luaJIT command or jit.* modules not installed");
    return 1;
  }
  if (lua_getfield(L, -1, "start") == LUA_TNIL) {
    l_message(PROGNAME, "unknown luaJIT command or jit.* modules not installed");
    return 1;
  }
  lua_remove(L, -2);
  return 0;
}

/* LuaJIT's jit.* add-on modules (jit.v, jit.dump, jit.p and what they
** require: jit.vmdef, jit.dis_x64 ...) are luajit's tools, not the
** program: the folder of `jit.NAME` (NAME on the top), as
** package.searchpath finds it on package.path, is excluded from the
** profile before -j loads it (a pattern with its glob characters
** escaped). */
static void exclude_jit_module (lua_State *L) {
  int top = lua_gettop(L);
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (lua_getfield(L, -1, "package") == LUA_TTABLE &&
      lua_getfield(L, -1, "searchpath") == LUA_TFUNCTION) {
    lua_pushfstring(L, "jit.%s", lua_tostring(L, top));
    lua_getfield(L, -3, "path");
    if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
      luaL_Buffer b;
      const char *p = lua_tostring(L, -1), *slash = strrchr(p, '/');
      luaL_buffinit(L, &b);
      for (; slash != NULL && p <= slash; p++) {
        if (strchr("*?[\\", *p) != NULL) luaL_addchar(&b, '\\');
        luaL_addchar(&b, *p);
      }
      luaL_addchar(&b, '*');
      luaL_pushresult(&b);
      luainstr_set_option(L, "exclude", lua_tostring(L, -1));
    }
  }
  lua_settop(L, top);
}

/* Call the function on the top with opt split at its commas (an empty
** piece is nil), as luajit.c's runcmdopt: unprotected by the traceback. */
static int runcmdopt (lua_State *L, const char *opt) {
  int narg = 0;
  if (opt != NULL && *opt != '\0') {
    for (;;) {
      const char *p = strchr(opt, ',');
      narg++;
      if (p == NULL) break;
      if (p == opt) lua_pushnil(L);
      else lua_pushlstring(L, opt, (size_t)(p - opt));
      opt = p + 1;
    }
    if (*opt != '\0') lua_pushstring(L, opt);
    else lua_pushnil(L);
  }
  return report_status(L, lua_pcall(L, narg, 0, 0));
}

/* -j cmd[=args]: jit.CMD(args) when the jit library has that function
** (-joff, -jflush), else require("jit.CMD").start(args) (-jv, -jdump). */
static int dojitcmd (lua_State *L, const char *cmd) {
  const char *opt = strchr(cmd, '=');
  lua_pushlstring(L, cmd, opt != NULL ? (size_t)(opt - cmd) : strlen(cmd));
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "jit");
  lua_remove(L, -2);
  lua_pushvalue(L, -2);
  lua_gettable(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 2);                   /* keep the name */
    exclude_jit_module(L);
    if (loadjitmodule(L)) return 1;
  } else {
    lua_remove(L, -2);
  }
  lua_remove(L, -2);
  return runcmdopt(L, opt != NULL ? opt + 1 : opt);
}

/* -O[opt]: jit.opt.start(opt split at its commas). */
static int dojitopt (lua_State *L, const char *opt) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "jit.opt");
  lua_remove(L, -2);
  lua_getfield(L, -1, "start");
  lua_remove(L, -2);
  return runcmdopt(L, opt);
}

/* -b ARGS: jit.bcsave.start("-ARGS"..., the rest of the command line).
** As luajit's, its failure is reported but is not the exit status (no
** jit.bcsave is).  Returns 0 if there is none. */
static int dobytecode (lua_State *L, char **argv) {
  int narg = 0;
  lua_pushliteral(L, "bcsave");
  if (loadjitmodule(L)) return 0;
  if (argv[0][2] != '\0') {              /* -bl: "-l" */
    narg++;
    lua_pushfstring(L, "-%s", argv[0] + 2);
  }
  for (argv++; *argv != NULL; narg++, argv++)
    lua_pushstring(L, *argv);
  report_status(L, lua_pcall(L, narg, 0, 0));
  return 1;
}

/* -e, -l, -W and LuaJIT's -j, -O and -b, in order.  Returns 0 if some
** code failed. */
static int runargs (lua_State *L, char **argv, int n) {
  int i;
  for (i = 1; i < n; i++) {
    int option = argv[i][1];
    switch (option) {
      case 'e': case 'l': case 'j': {
        int status;
        char *extra = argv[i] + 2;
        if (*extra == '\0') extra = argv[++i];
        if (option == 'j')
          status = dojitcmd(L, extra);
        else
          status = (option == 'e')
                   ? dostring(L, extra, "=(command line)")
                   : dolibrary(L, extra);
        if (status != LUA_OK) return 0;
        break;
      }
      case 'O':
        if (LI_LUAC_JIT && dojitopt(L, argv[i] + 2) != LUA_OK) return 0;
        break;
      case 'b':
        return LI_LUAC_JIT ? dobytecode(L, argv + i) : 1;
      case 'W':
        lua_warning(L, "@on", 0);
        break;
    }
  }
  return 1;
}


static int handle_luainit (lua_State *L) {
  const char *name = "=" LUA_INIT_VAR LUA_VERSUFFIX;
  const char *init = getenv(name + 1);
  if (init == NULL) {
    name = "=" LUA_INIT_VAR;
    init = getenv(name + 1);
  }
  if (init == NULL) return LUA_OK;
  else if (init[0] == '@')
    return dofile(L, init + 1);
  else
    return dostring(L, init, name);
}


/* One option of the command line for the profiler; a bad value is a usage
** error (status 2, nothing run, no report), anything else a failure. */
static int set_option (lua_State *L, const char *name, const char *value) {
  int r = luainstr_set_option(L, name, value);
  if (r == LUAINSTR_EARG) {
    li_run_report_forget();
    usage_error("%s", luainstr_errmsg(L));
  }
  if (r != LUAINSTR_OK) {
    l_message(SELF, luainstr_errmsg(L));
    return 0;
  }
  return 1;
}

/* --live: the live view on before the script runs.  A server that cannot
** start (the port is taken) is said, and the program runs on. */
static int start_live (lua_State *L, const Options *o) {
  int r;
  if (o->live == NULL) return 1;
  if (o->live_token != NULL && !set_option(L, "live_token", o->live_token))
    return 0;
  if (o->live_name != NULL && !set_option(L, "live_name", o->live_name))
    return 0;
  r = luainstr_set_option(L, "live", o->live);
  if (r == LUAINSTR_EARG) {
    li_run_report_forget();
    usage_error("%s", luainstr_errmsg(L));
  }
  if (r != LUAINSTR_OK) l_message(SELF, luainstr_errmsg(L));
  return 1;
}

/* Attach and start the profiler (it installs the instrumenting loaders),
** then give it the patterns.  Returns 0 after a message on failure. */
static int start_profiler (lua_State *L, const Options *o) {
  int i;
  if (luainstr_open(L) != LUAINSTR_OK) {
    l_message(SELF, luainstr_errmsg(L));
    return 0;
  }
  for (i = 0; i < o->npatterns; i++)
    if (!set_option(L, o->patterns[i].option, o->patterns[i].glob))
      return 0;
  if (o->trace != NULL && !set_option(L, "trace", o->trace))
    return 0;
  return start_live(L, o);
}


static int pmain (lua_State *L) {
  const Run *r = (const Run *)lua_touserdata(L, 1);
  char **argv = r->argv;
  int script = r->script;
  luaL_checkversion(L);
  if ((r->args & has_v) && !LI_LUAC_INIT_FIRST)
    print_version();
  if (r->args & has_E) {  /* libraries ignore environment variables */
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  luaL_openlibs(L);
  if (LI_LUAC_ARG_EARLY)
    createargtable(L, argv, r->argc, script);
  li_luac_gcgen(L);
  /* (-b saves or lists bytecode, the program's own: nothing to measure,
  ** and its loadfile must not instrument it) */
  if (!(r->args & has_b)) {
    if (!start_profiler(L, r->opts))
      return 0;
    li_run_report_hooks(L);
    li_run_signals(L);
    heap_hooks(L);
  }
  if (!(r->args & has_E) && handle_luainit(L) != LUA_OK)
    return 0;
  if ((r->args & has_v) && LI_LUAC_INIT_FIRST)
    print_version();      /* (5.1: on stderr, LuaJIT: on stdout) */
  if (!runargs(L, argv, script))
    return 0;
  if (r->args & has_b) {  /* (the rest of the command line was -b's) */
    lua_pushboolean(L, 1);
    return 1;
  }
  if (script < r->argc && handle_script(L, r) != LUA_OK)
    return 0;
  if (script == r->argc && !(r->args & (has_e | has_v)))
    dofile(L, NULL);  /* stdin; as lua.c, its failure is not the status */
  lua_pushboolean(L, 1);
  return 1;
}

/* Does the command line run any code: a script, stdin, -e or -l?  Without
** (`-v`, with -E or -W) lua5.N prints its version and ends, and so does
** luaprof: a profile of nothing is no answer to "which version?".  LUA_INIT
** still runs then, as in lua5.N, unmeasured by any report. */
static int runs_code (const Run *r) {
  if (r->args & has_b) return 0;           /* (LuaJIT's -b: luajit's own) */
  return r->script < r->argc ||
         (r->args & (has_e | has_l)) ||
         !(r->args & has_v);  /* no -v, no script: stdin */
}

/* }====================================================== */


/* lua.c's usage message, for a bad lua option, but as luaprof's usage
** error (status 2). */
static void bad_lua_option (const char *opt) {
  if (opt[1] == 'e' || opt[1] == 'l' || (LI_LUAC_JIT && opt[1] == 'j'))
    usage_error("'%s' needs argument", opt);
  if (LI_LUAC_JIT && opt[1] == 'b')
    usage_error("'%s' must come before any other lua option but -O", opt);
  usage_error("unrecognized option '%s'", opt);
}


int main (int argc, char **argv) {
  Options opts;
  Run run;
  lua_State *L;
  char *out_abs, *heap_abs;
  int first, status, result, reported;
  first = own_options(argc, argv, &opts);
  /* Lua's argv: the interpreter's name, then what follows our options */
  run.argc = argc - first + 1;
  run.argv = (char **)malloc(sizeof(char *) * (size_t)(run.argc + 1));
  if (run.argv == NULL) {
    fprintf(stderr, SELF ": not enough memory\n");
    return EXIT_FAILURE;
  }
  run.argv[0] = (char *)PROGNAME;
  memcpy(run.argv + 1, argv + first, sizeof(char *) * (size_t)(argc - first));
  run.argv[run.argc] = NULL;
  run.opts = &opts;
  run.args = collectargs(run.argv, &run.script);
  if (run.args != has_error) {  /* the live page lists the state by it */
    const char *s = run.script < run.argc ? run.argv[run.script] : "stdin";
    const char *slash = strrchr(s, '/');
    opts.live_name = strcmp(s, "-") == 0 ? "stdin" : slash ? slash + 1 : s;
  }
  if (run.args == has_error)
    bad_lua_option(run.argv[run.script]);
  if ((run.args & has_i) ||
      (run.script == run.argc && !(run.args & (has_e | has_v | has_b)) &&
       stdin_is_tty())) {
    fprintf(stderr, SELF ": interactive mode is not supported; give a "
            "script, or '-' with a program on stdin\n");
    free(run.argv);
    free(opts.patterns);
    return EXIT_USAGE;
  }
  L = luaL_newstate();
  if (L == NULL) {
    l_message(PROGNAME, "cannot create state: not enough memory");
    free(run.argv);
    free(opts.patterns);
    return EXIT_FAILURE;
  }
  /* Lua leaves the main thread's extra space (lua_getextraspace)
  ** uninitialised; nothing here uses it, so it is NULL, and the profiler
  ** keeps its stacks there (coroutine switches find them at once). */
#if LI_HAVE_EXTRASPACE
  memset(lua_getextraspace(L), 0, LUA_EXTRASPACE);
#endif
  /* The program may change directory before the report is written. */
  out_abs = li_report_abspath(opts.out);
  heap_abs = li_report_abspath(opts.heap);
  if (runs_code(&run))
    heap.path = heap_abs != NULL ? heap_abs : opts.heap;
  if (runs_code(&run))
    li_run_report_setup(L, SELF, opts.format,
                        out_abs != NULL ? out_abs : opts.out);
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, &run);
  status = lua_pcall(L, 1, 1, 0);
  result = lua_toboolean(L, -1);
  report_status(L, status);
  if (!(run.args & has_b)) heap_snapshot(L);
  reported = li_run_report_write() && !heap.failed;
  li_run_report_forget();
  lua_close(L);
  free(run.argv);
  free(opts.patterns);
  free(out_abs);
  free(heap_abs);
  if (!(result && status == LUA_OK)) return EXIT_FAILURE;
  return reported ? EXIT_SUCCESS : EXIT_FAILURE;
}
