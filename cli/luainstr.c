/*
** luainstr.c -- the `luainstr` command: instrument one Lua chunk, or merge
** reports.
**
**   luainstr [-o OUT] [--chunkname NAME] [--lua VERSION] FILE|-
**   luainstr merge [-f FORMAT] [-o OUT] REPORT...
**
** The input is read whole (any bytes, NULs included), rewritten, and the
** result goes to stdout or OUT once Lua compiled it (from 1 MiB of input
** it is first written to a temporary file, beside OUT or in TMPDIR, so as
** not to be held in memory then).  Exit status: 0 done; 1 the input does
** not compile (Lua's own message on stderr, nothing written); 2 usage, I/O
** or memory trouble.
**
** `merge` (the first argument exactly: a file named merge is instrumented
** as ./merge) reads json and pprof reports and writes their sum
** (report/reader.h, docs/merge.md) in any format; one report is written
** as it is, in another format.  Exit status: 0 done; 1 a report could not
** be read; 2 usage, I/O or memory trouble.
*/
#define _XOPEN_SOURCE 700  /* POSIX 2008 with XSI: realpath, mkstemp, fsync */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>

#include "instrument.h"
#include "reader.h"
#include "report.h"
#include "rewrite.h"

#ifndef LI_VERSION
#define LI_VERSION "unknown"
#endif

#define PROGNAME "luainstr"

/* Exit statuses. */
enum {
  ST_OK = 0,      /* output written */
  ST_SYNTAX = 1,  /* the input does not compile (or cannot be parsed) */
  ST_TROUBLE = 2  /* usage, I/O or memory error */
};

/* What the command line asked for. */
typedef struct cli_opts {
  const char *input;      /* path, or "-" for stdin */
  const char *output;     /* -o path, or NULL for stdout */
  const char *chunkname;  /* --chunkname, or NULL for "@FILE" / "=stdin" */
  int version;            /* Lua dialect of the source: 51..54, or
                             LI_DIALECT_JIT */
  uint32_t count_small;   /* --count-small: li_rewrite_opts.count_small */
} cli_opts;

/* A byte string owned by whoever filled it. */
typedef struct buffer {
  char *p;   /* the bytes (malloc'd) */
  size_t n;  /* how many */
} buffer;


/* ======================================================================
** Messages
** ====================================================================== */

static void usage(FILE *f)
{
  fputs("usage: " PROGNAME " [-o OUT] [--chunkname NAME] [--lua VERSION]"
        " [--count-small[=N]] FILE|-\n"
        "Instrument a Lua chunk for profiling; the result goes to stdout or"
        " OUT.\n"
        "  -o OUT            write the result to OUT (replaced atomically);\n"
        "                    - is stdout\n"
        "  --chunkname NAME  chunk name, as given to lua_load (default"
        " \"@FILE\",\n"
        "                    \"=stdin\" for -)\n"
        "  --lua VERSION     Lua dialect of the source: 5.1, 5.2, 5.3, 5.4"
        " (default)\n"
        "                    or jit (LuaJIT 2.1); 5.4 input is also compiled"
        " to check it\n"
        "  --count-small[=N] count small functions, do not time them: a body"
        " of at\n"
        "                    most N tokens (default " LI_COUNT_SMALL_STR ") with"
        " no call, loop\n"
        "                    or function inside gets an entry probe that counts"
        " it, no\n"
        "                    exit probe: its time is its caller's\n"
        "  --help            show this help and exit\n"
        "  --version         show the version and exit\n"
        "       " PROGNAME " merge [-f FORMAT] [-o OUT] REPORT...\n"
        "Merge json and pprof reports of one program into one report"
        " (" PROGNAME " merge\n"
        "--help).\n", f);
}

static int usage_error(const char *what, const char *arg)
{
  fprintf(stderr, PROGNAME ": %s '%s'\n", what, arg);
  usage(stderr);
  return ST_TROUBLE;
}

/* Print the rewriter's warning lines, each with the program's name; a
** line that does not say where ("warning: ...") gets the chunk's name. */
static void print_warnings(const char *w, const char *id)
{
  while (w != NULL && *w != '\0') {
    size_t n = strcspn(w, "\n");
    if (strncmp(w, "warning: ", 9) == 0)
      fprintf(stderr, PROGNAME ": %s: %.*s\n", id, (int)n, w);
    else
      fprintf(stderr, PROGNAME ": %.*s\n", (int)n, w);
    w += n + (w[n] == '\n');
  }
}


/* ======================================================================
** Input
** ====================================================================== */

/* Read all of f into *b.  Returns 0 or an errno value. */
static int read_all(FILE *f, size_t hint, buffer *b)
{
  size_t cap = hint + 1 > 4096 ? hint + 1 : 4096;
  b->n = 0;
  b->p = malloc(cap);
  if (b->p == NULL) return ENOMEM;
  for (;;) {
    size_t got = fread(b->p + b->n, 1, cap - b->n, f);
    b->n += got;
    if (b->n < cap) break;  /* short read: end of file or error */
    if (cap > (size_t)-1 / 2) return EFBIG;
    {
      char *p = realloc(b->p, cap * 2);
      if (p == NULL) return ENOMEM;
      b->p = p;
      cap *= 2;
    }
  }
  return ferror(f) ? (errno != 0 ? errno : EIO) : 0;
}

/* Read the input file (or stdin for "-").  *regular (if not NULL) tells
** whether it is a regular file, which can be read again.  Returns an exit
** status. */
static int read_input(const char *path, buffer *b, int *regular)
{
  int stdin_input = strcmp(path, "-") == 0;
  FILE *f = stdin_input ? stdin : fopen(path, "rb");
  struct stat st;
  size_t hint = 0;
  int err;
  if (f == NULL) {
    fprintf(stderr, PROGNAME ": cannot open %s: %s\n", path, strerror(errno));
    return ST_TROUBLE;
  }
  if (fstat(fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fprintf(stderr, PROGNAME ": cannot open %s: %s\n", path,
              strerror(EISDIR));
      if (!stdin_input) fclose(f);
      return ST_TROUBLE;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) hint = (size_t)st.st_size;
    if (regular != NULL) *regular = !stdin_input && S_ISREG(st.st_mode);
  }
  errno = 0;
  err = read_all(f, hint, b);
  if (!stdin_input) fclose(f);
  if (err != 0) {
    fprintf(stderr, PROGNAME ": cannot read %s: %s\n",
            stdin_input ? "stdin" : path, strerror(err));
    return ST_TROUBLE;
  }
  return ST_OK;
}

/* How many leading bytes luaL_loadfilex drops before compiling: a UTF-8
** BOM, then a first line starting with '#' up to, not including, its
** '\n'.  That '\n' stays, as luaL_loadfilex puts one back, so compiling
** src+skip with luaL_loadbufferx is what lua5.4 does with the file, line
** numbers included.  *binary tells whether a precompiled chunk follows. */
static size_t loadfile_skip(const char *s, size_t len, int *binary)
{
  size_t i = 0;
  if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) i = 3;
  if (i < len && s[i] == '#') {
    const char *nl = memchr(s + i, '\n', len - i);
    i = nl != NULL ? (size_t)(nl - s) : len;
    *binary = i + 1 < len && s[i + 1] == LUA_SIGNATURE[0];
  } else {
    *binary = i < len && s[i] == LUA_SIGNATURE[0];
  }
  return i;
}


/* ======================================================================
** Output
** ====================================================================== */

/* Write p[0..n) to f and flush it.  Returns 0 or an errno value. */
static int write_all(FILE *f, const char *p, size_t n)
{
  errno = 0;
  if (fwrite(p, 1, n, f) != n || fflush(f) != 0 || ferror(f))
    return errno != 0 ? errno : EIO;
  return 0;
}

/* Write to a path that is not a regular file (/dev/null, a pipe, a
** terminal): there is nothing to replace atomically. */
static int write_direct(const char *path, const char *p, size_t n)
{
  FILE *f = fopen(path, "wb");
  int err;
  if (f == NULL) return errno;
  err = write_all(f, p, n);
  if (fclose(f) != 0 && err == 0) err = errno;
  return err;
}

/* Open a new temporary file for reading and writing beside `target` (so
** in the same file system), named "dir/.base.tmp.XXXXXX": hidden.  *mode
** is what the file replaced has, or what a new file would get.  Returns 0
** or an errno value. */
static int open_beside(const char *target, char **tmp, FILE **f,
                       mode_t *mode)
{
  const char *slash = strrchr(target, '/');
  size_t dirlen = slash != NULL ? (size_t)(slash - target) + 1 : 0;
  struct stat st;
  int fd, err;
  *f = NULL;
  *tmp = malloc(strlen(target) + sizeof(".tmp.XXXXXX") + 1);
  if (*tmp == NULL) return ENOMEM;
  sprintf(*tmp, "%.*s.%s.tmp.XXXXXX", (int)dirlen, target, target + dirlen);
  if (stat(target, &st) == 0) {
    *mode = st.st_mode & 07777;  /* keep the mode of the file replaced */
  } else {
    mode_t mask = umask(0);
    umask(mask);
    *mode = 0666 & ~mask;
  }
  fd = mkstemp(*tmp);
  if (fd >= 0 && (*f = fdopen(fd, "w+b")) != NULL) return 0;
  err = errno;
  if (fd >= 0) {
    close(fd);
    unlink(*tmp);
  }
  free(*tmp);
  *tmp = NULL;
  return err;
}

/* Make the temporary file f, written whole, the file `target`: its mode,
** on disk, then renamed over it.  Closes f; unlinks tmp on failure.
** Returns 0 or an errno value. */
static int replace_with(FILE *f, const char *tmp, const char *target,
                        mode_t mode)
{
  int err = 0;
  if (fchmod(fileno(f), mode) != 0) err = errno;
  if (err == 0 && fsync(fileno(f)) != 0) err = errno;
  if (fclose(f) != 0 && err == 0) err = errno;
  if (err == 0 && rename(tmp, target) != 0) err = errno;
  if (err != 0) unlink(tmp);
  return err;
}

/* Replace the regular file `target` (or create it) so that it is never
** seen half-written: write a temporary file beside it, then rename. */
static int write_replace(const char *target, const char *p, size_t n)
{
  char *tmp;
  FILE *f;
  mode_t mode;
  int err = open_beside(target, &tmp, &f, &mode);
  if (err != 0) return err;
  err = write_all(f, p, n);
  if (err == 0) {
    err = replace_with(f, tmp, target, mode);
  } else {
    fclose(f);
    unlink(tmp);
  }
  free(tmp);
  return err;
}

/* Send the result to stdout or to `path`.  Returns an exit status. */
static int write_output(const char *path, const char *p, size_t n)
{
  struct stat st;
  int err;
  if (path == NULL) {
    err = write_all(stdout, p, n);
    path = "stdout";
  } else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    err = write_direct(path, p, n);
  } else {
    /* through a symbolic link, replace the file it names, not the link */
    char *real = realpath(path, NULL);
    err = write_replace(real != NULL ? real : path, p, n);
    free(real);
  }
  if (err != 0) {
    fprintf(stderr, PROGNAME ": cannot write %s: %s\n", path, strerror(err));
    return ST_TROUBLE;
  }
  return ST_OK;
}

/* The result written before the check, so that it need not stay in
** memory while Lua compiles it (on a function-dense chunk the input, the
** result and the rewriter's records were over a quarter of the peak): to
** the temporary file beside the -o file that it then replaces, or, for
** stdout and other outputs that are not regular files, to an unlinked
** temporary file in TMPDIR copied out once the check passed.  Either way
** nothing reaches the output when the check fails. */
typedef struct stage {
  FILE *f;        /* the temporary file, read and write; NULL: none */
  char *tmp;      /* its name beside the target, or NULL: unlinked */
  char *target;   /* the regular file it replaces (malloc'd), or NULL */
  mode_t mode;    /* the mode it then gets */
} stage;

/* An unlinked temporary file in TMPDIR.  Returns 0 or an errno value. */
static int open_anonymous(FILE **f)
{
  const char *dir = getenv("TMPDIR");
  char *tmp;
  int fd, err = 0;
  if (dir == NULL || dir[0] == '\0') dir = P_tmpdir;
  tmp = malloc(strlen(dir) + sizeof("/" PROGNAME ".XXXXXX"));
  if (tmp == NULL) return ENOMEM;
  sprintf(tmp, "%s/" PROGNAME ".XXXXXX", dir);
  fd = mkstemp(tmp);
  if (fd < 0) {
    err = errno;
  } else {
    unlink(tmp);  /* gone whatever happens next, even if we are killed */
    if ((*f = fdopen(fd, "w+b")) == NULL) {
      err = errno;
      close(fd);
    }
  }
  free(tmp);
  return err;
}

/* Start the output `path` (NULL: stdout).  Returns 0 or an errno value. */
static int stage_open(stage *s, const char *path)
{
  struct stat st;
  int err;
  memset(s, 0, sizeof *s);
  if (path == NULL || (stat(path, &st) == 0 && !S_ISREG(st.st_mode)))
    return open_anonymous(&s->f);
  /* through a symbolic link, replace the file it names, not the link */
  s->target = realpath(path, NULL);
  if (s->target == NULL) s->target = strdup(path);
  if (s->target == NULL) return ENOMEM;
  err = open_beside(s->target, &s->tmp, &s->f, &s->mode);
  if (err != 0) {
    free(s->target);
    s->target = NULL;
  }
  return err;
}

/* Drop a stage that is not to become the output. */
static void stage_discard(stage *s)
{
  if (s->f != NULL) fclose(s->f);
  if (s->tmp != NULL) unlink(s->tmp);
  free(s->tmp);
  free(s->target);
  memset(s, 0, sizeof *s);
}

/* Copy the staged file to f.  Returns 0 or an errno value. */
static int copy_out(FILE *from, FILE *f)
{
  char chunk[65536];
  size_t n;
  errno = 0;
  if (fseek(from, 0, SEEK_SET) != 0) return errno;
  while ((n = fread(chunk, 1, sizeof chunk, from)) > 0)
    if (fwrite(chunk, 1, n, f) != n) return errno != 0 ? errno : EIO;
  if (ferror(from)) return errno != 0 ? errno : EIO;
  if (fflush(f) != 0 || ferror(f)) return errno != 0 ? errno : EIO;
  return 0;
}

/* Make the stage the output `path` (NULL: stdout), as write_output would
** have written it.  Returns an exit status. */
static int stage_commit(stage *s, const char *path)
{
  int err;
  if (s->tmp != NULL) {
    err = replace_with(s->f, s->tmp, s->target, s->mode);
    s->f = NULL;
    free(s->tmp);
    s->tmp = NULL;  /* renamed, or unlinked by replace_with */
  } else if (path == NULL) {
    err = copy_out(s->f, stdout);
  } else {
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
      err = errno;
    } else {
      err = copy_out(s->f, f);
      if (fclose(f) != 0 && err == 0) err = errno;
    }
  }
  stage_discard(s);
  if (err != 0) {
    fprintf(stderr, PROGNAME ": cannot write %s: %s\n",
            path != NULL ? path : "stdout", strerror(err));
    return ST_TROUBLE;
  }
  return ST_OK;
}


/* ======================================================================
** Instrumenting
** ====================================================================== */

/* Everything instrument() may hold, released by release(). */
typedef struct job {
  const cli_opts *opts;   /* the command line */
  const char *chunkname;  /* as given to lua_load */
  char id[64];            /* chunkname as Lua shows it in messages */
  buffer in;              /* the input (p NULL: freed, to read again) */
  int reread;             /* whether it can be read again (a file) */
  lua_State *L;           /* for compiling (Lua 5.4 only) */
  li_rewrite_result r1;   /* rewrite of what Lua compiles */
  li_rewrite_result r2;   /* rewrite of the whole file, prefix kept */
  int have_r1, have_r2;   /* whether r1, r2 were filled (need freeing) */
  unsigned char *skip;    /* functions left without probes, by id - 1 */
  const char *out;        /* the result: points into in, r1 or r2 */
  size_t outlen;          /* its length */
  stage st;               /* or the result written already, checked */
  int staged;             /* whether st holds the result */
  int status;             /* instrument_54_in's, from inside lua_pcall */
} job;

static void release(job *j)
{
  if (j->have_r1) li_rewrite_free(&j->r1);
  if (j->have_r2) li_rewrite_free(&j->r2);
  if (j->L != NULL) lua_close(j->L);
  stage_discard(&j->st);
  free(j->skip);
  free(j->in.p);
}

/* Give back the input unchanged, saying why (and where, if line > 0). */
static int keep_input(job *j, uint32_t line, const char *why)
{
  if (why != NULL && line > 0)
    fprintf(stderr, PROGNAME ": %s:%lu: warning: %s; output left"
            " uninstrumented\n", j->id, (unsigned long)line, why);
  else if (why != NULL)
    fprintf(stderr, PROGNAME ": %s: warning: %s; output left uninstrumented\n",
            j->id, why);
  j->out = j->in.p;
  j->outlen = j->in.n;
  return ST_OK;
}

static void rewrite_opts(const job *j, li_rewrite_opts *o)
{
  memset(o, 0, sizeof *o);
  o->version = j->opts->version;
  o->chunkname = j->chunkname;
  o->skip_first_line = 1;
  o->count_small = j->opts->count_small;
}

/* Lua 5.1-5.3 and LuaJIT: no compiler for these dialects is linked in, so
** the rewriter's own parse is the only check. */
static int instrument_old(job *j)
{
  li_rewrite_opts o;
  rewrite_opts(j, &o);
  j->have_r1 = 1;
  switch (li_rewrite(j->in.p, j->in.n, &o, &j->r1)) {
  case LI_OK:
  case LI_PASSTHROUGH:
    print_warnings(j->r1.warnings, j->id);
    j->out = j->r1.out;
    j->outlen = j->r1.outlen;
    return ST_OK;
  case LI_ESYNTAX:
    fprintf(stderr, PROGNAME ": %s:%lu: %s\n", j->id,
            (unsigned long)j->r1.errline, j->r1.errmsg);
    return ST_SYNTAX;
  case LI_ELIMIT:
    /* no compiler of this dialect is linked in to say it: the rewriter
    ** stopped where that Lua's compiler stops, on the same limit */
    if (j->opts->version == LI_DIALECT_JIT)
      fprintf(stderr, PROGNAME ": %s:%lu: %s: LuaJIT does not compile it\n",
              j->id, (unsigned long)j->r1.errline, j->r1.errmsg);
    else
      fprintf(stderr, PROGNAME ": %s:%lu: %s: Lua %d.%d does not compile it\n",
              j->id, (unsigned long)j->r1.errline, j->r1.errmsg,
              j->opts->version / 10, j->opts->version % 10);
    return ST_SYNTAX;
  case LI_EREJECT:
    /* no compiler of this dialect is linked in: the rewriter found what
    ** that Lua's compiler rejects after parsing, in Lua's words and line */
    fprintf(stderr, PROGNAME ": %s:%lu: %s\n", j->id,
            (unsigned long)j->r1.errline, j->r1.errmsg);
    return ST_SYNTAX;
  case LI_ETOOBIG:
    fprintf(stderr, PROGNAME ": %s: too large to instrument\n", j->id);
    return ST_TROUBLE;
  default:
    fprintf(stderr, PROGNAME ": not enough memory\n");
    return ST_TROUBLE;
  }
}

/* Does text (a whole file, prefix included) compile as lua5.4 would load
** it?  Leaves nothing on the stack; on failure *msg is Lua's message. */
static int compiles(job *j, const char *text, size_t len, char *msg,
                    size_t msgsize)
{
  int binary;
  size_t skip = loadfile_skip(text, len, &binary);
  int status = luaL_loadbufferx(j->L, text + skip, len - skip, j->chunkname,
                                "t");
  if (status != LUA_OK)
    snprintf(msg, msgsize, "%s", lua_tostring(j->L, -1));
  lua_settop(j->L, 0);
  return status == LUA_OK;
}

/* Reads a file for lua_load, a chunk at a time, as luaL_loadfilex does. */
typedef struct file_reader {
  FILE *f;
  char chunk[65536];
} file_reader;

static const char *read_chunk(lua_State *L, void *ud, size_t *size)
{
  file_reader *fr = ud;
  (void)L;
  *size = fread(fr->chunk, 1, sizeof fr->chunk, fr->f);
  return *size > 0 ? fr->chunk : NULL;
}

/* Lua rejects the input (a syntax error, or "C stack overflow" from
** nesting, which comes as another status): 1; out of memory: 2.  Lua's
** message is on the stack. */
static int rejected(job *j, int status)
{
  const char *err = lua_tostring(j->L, -1);
  fprintf(stderr, PROGNAME ": %s\n", err != NULL ? err : "error");
  return status == LUA_ERRMEM ? ST_TROUBLE : ST_SYNTAX;
}

/* Staging pays from about this much input: below, the memory it saves is
** small and the temporary file's cost is not (staging every file took a
** tenth more CPU time on the corpus of Debian's Lua files, to stdout). */
#define STAGE_MIN ((size_t)1 << 20)

/* Lua 5.4, a large file with no prefix, in less memory than
** the loader's way: the rewrite is staged (see stage) and freed, and Lua
** compiles it from there, as luac5.4 compiles a file.  Should it not
** compile, the stage is dropped and the loader's way settles what to
** write (functions left without probes) or what Lua says.  The outcome is
** the loader's: its first step, the rewrite, is the same, and when that
** compiles it is what the loader loads.  When the rewriter fails, the
** loader compiles the original first, and when Lua rejects it too that is
** the outcome: done here at once, so that a chunk Lua rejects is not
** scanned twice.  Returns an exit status, or -1: the loader's way. */
static int instrument_staged(job *j)
{
  li_rewrite_opts o;
  file_reader *fr;
  char *warnings;
  int status;
  rewrite_opts(j, &o);
  o.skip_first_line = 0;
  status = li_rewrite(j->in.p, j->in.n, &o, &j->r1);
  j->have_r1 = 1;
  if (status != LI_OK) {
    status = luaL_loadbufferx(j->L, j->in.p, j->in.n, j->chunkname, "t");
    if (status != LUA_OK) return rejected(j, status);
    lua_settop(j->L, 0);
    return -1;
  }
  if (j->r1.nins == 0 || stage_open(&j->st, j->opts->output) != 0)
    return -1;
  if (write_all(j->st.f, j->r1.out, j->r1.outlen) != 0 ||
      fseek(j->st.f, 0, SEEK_SET) != 0 ||
      (fr = malloc(sizeof *fr)) == NULL)
    return -1;  /* (then written from memory, or its error said there) */
  warnings = j->r1.warnings;  /* all that is needed of the rewrite now */
  j->r1.warnings = NULL;
  li_rewrite_free(&j->r1);
  j->have_r1 = 0;
  if (j->reread) {  /* (read again should the loader's way be needed) */
    free(j->in.p);
    j->in.p = NULL;
  }
  fr->f = j->st.f;
  status = lua_load(j->L, read_chunk, fr, j->chunkname, "t");
  if (ferror(fr->f)) status = LUA_ERRFILE;
  free(fr);
  lua_settop(j->L, 0);
  if (status != LUA_OK) {
    free(warnings);
    return -1;
  }
  print_warnings(warnings, j->id);
  free(warnings);
  j->staged = 1;
  return ST_OK;
}

/* Lua 5.4.
** Design: the CLI goes through the one loader path, li_instrument_load(),
** so it has the guarantee every entry point has: Lua's own message when the
** input does not compile, and output that compiles when the input does
** (functions the compiler refuses once probed are left without probes).
** li_instrument_load() compiles with luaL_loadbufferx(), which knows
** nothing of a BOM or a `#` first line, so it is handed the view that
** luaL_loadfilex() compiles: the bytes after that prefix, from the '\n'
** that keeps line numbers in place.  Its result is the rewrite of that view,
** but the output must be the whole file with the prefix kept.  With no
** prefix the two are the same.  Otherwise li_rewrite() runs once more on the
** whole file (skip_first_line = 1), leaving alone the functions that
** li_instrument_load() settled on leaving alone (funcs[i].probed == 0); the
** prefix holds no `function`, so ids agree.  That text is compiled once
** more, a cheap check that keeps the guarantee.  A large file with no
** prefix first goes instrument_staged's way, with the loader's outcome. */
static int instrument_54_in(job *j)
{
  li_rewrite_opts o;
  int binary, instrumented = 0, status;
  size_t skip = loadfile_skip(j->in.p, j->in.n, &binary);
  char msg[512];
  uint32_t i;

  if (skip == 0 && j->in.n >= STAGE_MIN &&
      (status = instrument_staged(j)) >= 0)
    return status;
  /* the loader's way, from the start */
  stage_discard(&j->st);
  if (j->have_r1) li_rewrite_free(&j->r1);
  if (j->in.p == NULL) {
    if ((status = read_input(j->opts->input, &j->in, NULL)) != ST_OK)
      return status;
    skip = loadfile_skip(j->in.p, j->in.n, &binary);
  }
  rewrite_opts(j, &o);
  o.skip_first_line = 0;
  j->have_r1 = 1;
  status = li_instrument_load(j->L, j->in.p + skip, j->in.n - skip,
                              j->chunkname, "t", &o, &j->r1, &instrumented);
  if (status != LUA_OK) return rejected(j, status);
  lua_settop(j->L, 0);
  print_warnings(j->r1.warnings, j->id);
  if (!instrumented) {
    if (j->r1.errmsg[0] != '\0') {  /* the rewriter could not parse it */
      snprintf(msg, sizeof msg, "cannot instrument: %s", j->r1.errmsg);
      return keep_input(j, j->r1.errline, msg);
    }
    return keep_input(j, 0,
                      j->r1.warnings == NULL ? "not instrumented" : NULL);
  }
  if (skip == 0) {
    j->out = j->r1.out;
    j->outlen = j->r1.outlen;
    return ST_OK;
  }

  /* the whole file, with the same functions left alone */
  if (j->r1.nfuncs > 0) {
    j->skip = calloc(j->r1.nfuncs, 1);
    if (j->skip == NULL) {
      fprintf(stderr, PROGNAME ": not enough memory\n");
      return ST_TROUBLE;
    }
    for (i = 0; i < j->r1.nfuncs; i++)
      j->skip[i] = j->r1.funcs[i].probed == 0;
  }
  rewrite_opts(j, &o);
  o.skip = j->skip;
  o.nskip = j->r1.nfuncs;
  j->have_r2 = 1;
  status = li_rewrite(j->in.p, j->in.n, &o, &j->r2);
  if (status != LI_OK || j->r2.nfuncs != j->r1.nfuncs)
    return keep_input(j, 0, "the rewrite with the first line differs");
  if (!compiles(j, j->r2.out, j->r2.outlen, msg, sizeof msg))
    return keep_input(j, 0, msg);
  j->out = j->r2.out;
  j->outlen = j->r2.outlen;
  return ST_OK;
}

/* The compiles above run where lua5.4 and luac5.4 compile a file: inside
** one C function called by lua_pcall (their pmain), so that the parser has
** the same C levels left and the output compiles exactly where theirs
** does, no deeper. */
static int pinstrument(lua_State *L)
{
  job *j = lua_touserdata(L, 1);
  lua_settop(L, 0);
  j->status = instrument_54_in(j);
  return 0;
}

static int instrument_54(job *j)
{
  j->L = luaL_newstate();
  if (j->L == NULL) {
    fprintf(stderr, PROGNAME ": not enough memory\n");
    return ST_TROUBLE;
  }
  j->status = ST_TROUBLE;
  lua_pushcfunction(j->L, pinstrument);
  lua_pushlightuserdata(j->L, j);
  if (lua_pcall(j->L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, PROGNAME ": not enough memory\n");
    return ST_TROUBLE;
  }
  return j->status;
}

static int instrument(job *j)
{
  int binary;
  loadfile_skip(j->in.p, j->in.n, &binary);
  if (binary) return keep_input(j, 0, NULL);  /* precompiled: written through */
  return j->opts->version == 54 ? instrument_54(j) : instrument_old(j);
}


/* ======================================================================
** Main
** ====================================================================== */

static int parse_version(const char *s)
{
  if (strcmp(s, "5.1") == 0) return 51;
  if (strcmp(s, "5.2") == 0) return 52;
  if (strcmp(s, "5.3") == 0) return 53;
  if (strcmp(s, "5.4") == 0) return 54;
  if (strcmp(s, "jit") == 0) return LI_DIALECT_JIT;  /* as luaprofjit says */
  return 0;
}

/* An option's value: "--name=VALUE", "-oVALUE" or the next argument. */
static const char *option_value(int argc, char **argv, int *i, size_t namelen)
{
  const char *a = argv[*i];
  if (a[namelen] == '=' && a[1] == '-') return a + namelen + 1;
  if (a[namelen] != '\0' && a[1] != '-') return a + namelen;
  if (*i + 1 < argc) return argv[++*i];
  return NULL;
}

/* Fill *o from argv.  Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, cli_opts *o)
{
  int i, options = 1;
  memset(o, 0, sizeof *o);
  o->version = 54;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v;
    if (!options || a[0] != '-' || a[1] == '\0') {
      if (o->input != NULL) return usage_error("more than one input:", a);
      o->input = a;
    } else if (strcmp(a, "--") == 0) {
      options = 0;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return ST_OK;
    } else if (strcmp(a, "--version") == 0) {
      printf(PROGNAME " %s\n", LI_VERSION);
      return ST_OK;
    } else if (strncmp(a, "-o", 2) == 0) {
      if ((v = option_value(argc, argv, &i, 2)) == NULL)
        return usage_error("missing value after", a);
      o->output = strcmp(v, "-") == 0 ? NULL : v;  /* "-o -": stdout */
    } else if (strncmp(a, "--chunkname", 11) == 0 &&
               (a[11] == '\0' || a[11] == '=')) {
      if ((v = option_value(argc, argv, &i, 11)) == NULL)
        return usage_error("missing value after", a);
      o->chunkname = v;
    } else if (strncmp(a, "--count-small", 13) == 0 &&
               (a[13] == '\0' || a[13] == '=')) {
      char *end;
      unsigned long n = LI_COUNT_SMALL_DEFAULT;
      if (a[13] == '=' && ((n = strtoul(a + 14, &end, 10)) == 0 || *end != '\0' ||
                           n > 100000))
        return usage_error("--count-small wants a number of tokens from 1 to"
                           " 100000, not", a + 14);
      o->count_small = (uint32_t)n;
    } else if (strncmp(a, "--lua", 5) == 0 && (a[5] == '\0' || a[5] == '=')) {
      if ((v = option_value(argc, argv, &i, 5)) == NULL)
        return usage_error("missing value after", a);
      if ((o->version = parse_version(v)) == 0)
        return usage_error("unknown Lua version", v);
    } else {
      return usage_error("unknown option", a);
    }
  }
  if (o->input == NULL) {
    fprintf(stderr, PROGNAME ": no input file\n");
    usage(stderr);
    return ST_TROUBLE;
  }
  return -1;
}


/* ======================================================================
** luainstr merge
** ====================================================================== */

static void merge_usage(FILE *f)
{
  fprintf(f, "usage: " PROGNAME " merge [-f FORMAT] [-o OUT] REPORT...\n"
          "Sum reports of the same program (json or pprof, in any mix) into"
          " one:\n"
          "calls, times and memory figures add up, functions and call paths"
          " matched\n"
          "by name, source and lines; frames, spike frames and traces are"
          " left out.\n"
          "One REPORT is written as it is, in FORMAT.\n"
          "  -f FORMAT  the report's format: %s\n"
          "             (default: the one OUT's name ends in, .pb.gz or\n"
          "             .pprof, .json, .html, .csv, .txt; else the first\n"
          "             REPORT's, json or pprof)\n"
          "  -o OUT     write it to OUT, whole or not at all (default:"
          " stdout)\n"
          "  --help     show this help and exit\n"
          "Exit status: 0 done, 1 a report could not be read, 2 usage, I/O"
          " or memory.\n", li_report_formats());
}

static int merge_usage_error(const char *what, const char *arg)
{
  fprintf(stderr, PROGNAME " merge: %s '%s'\n", what, arg);
  merge_usage(stderr);
  return ST_TROUBLE;
}

/* The format a report of p was read from: json, or pprof (no other can be
** read back): what the first REPORT gives -f by default. */
static const char *format_of(const char *path)
{
  unsigned char head[64];
  size_t n = 0;
  FILE *f = fopen(path, "rb");
  const char *fmt;
  if (f != NULL) {
    n = fread(head, 1, sizeof head, f);
    fclose(f);
  }
  fmt = li_report_sniff(head, n);
  return fmt != NULL ? fmt : "json";
}

/* The format an output file's name asks for (fleet.pb.gz: pprof), or NULL
** when it names none. */
static const char *format_by_name(const char *path)
{
  static const char *const ext[][2] = {
    { ".pb.gz", "pprof" }, { ".pprof", "pprof" }, { ".json", "json" },
    { ".html", "html" }, { ".csv", "csv" }, { ".txt", "text" } };
  size_t len = path != NULL ? strlen(path) : 0;
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
    size_t n = strlen(ext[i][0]);
    if (len > n && strcmp(path + len - n, ext[i][0]) == 0) return ext[i][1];
  }
  return NULL;
}

/* Read the reports, sum them, write the result.  Returns an exit status.
** One report at a time is added to the sum of those before it, so that
** memory holds three profiles, not a fleet's (sums, least and most do not
** depend on the grouping; the probe's cost, a mean weighted by probes,
** only to the last bits of a double). */
static int merge_reports(const char *format, const char *out,
                         char **paths, int n)
{
  li_profile *sum = NULL;
  char err[512];
  int status = ST_OK;
  for (int k = 0; k < n && status == ST_OK; k++) {
    li_profile *in = li_read_report(paths[k], err, sizeof err);
    if (in == NULL) {
      fprintf(stderr, PROGNAME " merge: %s\n", err);
      status = ST_SYNTAX;
    } else if (sum == NULL) {
      sum = in;   /* one report alone is written as it is */
    } else {
      const li_profile *two[2];
      li_profile *next;
      two[0] = sum;
      two[1] = in;
      next = li_merge(two, 2, err, sizeof err);
      if (next == NULL) {
        fprintf(stderr, PROGNAME " merge: %s\n", err);
        status = ST_TROUBLE;
      }
      li_profile_free(sum);
      li_profile_free(in);
      sum = next;
    }
  }
  if (status == ST_OK && out != NULL) {
    if (li_report_to_path(sum, format, out, err, sizeof err) != 0) {
      fprintf(stderr, PROGNAME " merge: %s\n", err);
      status = ST_TROUBLE;
    }
  } else if (status == ST_OK) {
    char *text = NULL;
    size_t len = 0;
    if (li_report_to_string(sum, format, &text, &len) != 0) {
      fprintf(stderr, PROGNAME " merge: cannot write the %s report: %s\n",
              format, strerror(errno != 0 ? errno : ENOMEM));
      status = ST_TROUBLE;
    } else {
      status = write_output(NULL, text, len);
    }
    free(text);
  }
  li_profile_free(sum);
  return status;
}

/* luainstr merge ARGS (argv[0] is "merge").  Returns an exit status. */
static int merge_main(int argc, char **argv)
{
  const char *format = NULL, *out = NULL, *v;
  char **paths = calloc((size_t)argc, sizeof *paths), err[300];
  int n = 0, options = 1, status;
  if (paths == NULL) {
    fprintf(stderr, PROGNAME " merge: not enough memory\n");
    return ST_TROUBLE;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!options || a[0] != '-' || a[1] == '\0') {
      paths[n++] = argv[i];
    } else if (strcmp(a, "--") == 0) {
      options = 0;
    } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      merge_usage(stdout);
      free(paths);
      return ST_OK;
    } else if (strncmp(a, "-o", 2) == 0 || strncmp(a, "-f", 2) == 0) {
      if ((v = option_value(argc, argv, &i, 2)) == NULL) {
        free(paths);
        return merge_usage_error("missing value after", a);
      }
      if (a[1] == 'o') out = strcmp(v, "-") == 0 ? NULL : v;
      else format = v;
    } else {
      free(paths);
      return merge_usage_error("unknown option", a);
    }
  }
  if (n == 0) {
    free(paths);
    fprintf(stderr, PROGNAME " merge: no report to merge\n");
    merge_usage(stderr);
    return ST_TROUBLE;
  }
  if (format == NULL) format = format_by_name(out);
  if (format == NULL) format = format_of(paths[0]);
  if (li_report_format_error(format, err, sizeof err) != NULL) {
    free(paths);
    fprintf(stderr, PROGNAME " merge: %s\n", err);
    return ST_TROUBLE;
  }
  if (out == NULL && li_report_binary_tty(format, stdout)) {
    free(paths);
    fprintf(stderr, PROGNAME " merge: " LI_REPORT_BINARY_TTY " (-o)\n", format);
    return ST_TROUBLE;
  }
  status = merge_reports(format, out, paths, n);
  free(paths);
  return status;
}

int main(int argc, char **argv)
{
  cli_opts opts;
  job j;
  char *name = NULL;
  int status;
  if (argc > 1 && strcmp(argv[1], "merge") == 0)
    return merge_main(argc - 1, argv + 1);
  status = parse_args(argc, argv, &opts);
  if (status >= 0) return status;

  memset(&j, 0, sizeof j);
  j.opts = &opts;
  j.chunkname = opts.chunkname;
  if (j.chunkname == NULL) {
    if (strcmp(opts.input, "-") == 0) {
      j.chunkname = "=stdin";
    } else {  /* "@FILE", as lua5.4 names a file it loads */
      name = malloc(strlen(opts.input) + 2);
      if (name == NULL) {
        fprintf(stderr, PROGNAME ": not enough memory\n");
        return ST_TROUBLE;
      }
      sprintf(name, "@%s", opts.input);
      j.chunkname = name;
    }
  }
  li_chunk_id(j.id, sizeof j.id, j.chunkname);

  status = read_input(opts.input, &j.in, &j.reread);
  if (status == ST_OK) status = instrument(&j);
  if (status == ST_OK && j.staged)
    status = stage_commit(&j.st, opts.output);
  else if (status == ST_OK)
    status = write_output(opts.output, j.out, j.outlen);
  release(&j);
  free(name);
  return status;
}
