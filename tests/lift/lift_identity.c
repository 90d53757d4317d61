/*
** lift_identity.c -- the two ways of lifting the loader's wrapper
** (runtime/lift.h) give the same function.
**
**   lift_identity FILELIST
**
** Built once per Lua whose runtime has Lua's headers (the lift in memory
** is theirs).  For every file of FILELIST (tests/corpus/list_corpus.sh)
** that this Lua compiles (luaL_loadfilex; the others are counted and left
** out), the runtime's loader (li_load_filebytes, as luaprof loads a script)
** loads it once lifting in memory and once through a dump, and both
** functions must give the same string.dump bytes (not stripped and
** stripped), the same debug.getinfo ">Su" and the same upvalues (names and
** types; the globals table where one has it).  Then, on a known chunk:
** a hook set on the state (or a coroutine's) is called as often either
** way; and LUAINSTR_LIFT=dump gives a new state the dump path.  Ends with one line of counts; exits 1 on any
** difference, or when the memory lift is not in use (its check failed),
** or when no file was lifted.
*/
#define _POSIX_C_SOURCE 200809L  /* setenv, unsetenv */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luaver.h"
#include "runtime.h"
#include "lift.h"

/* A dump in memory. */
typedef struct dump { char *p; size_t n, cap; } dump;

/* What is compared of one loaded function. */
typedef struct seen {
  dump d[2];              /* string.dump, not stripped and stripped */
  char info[1024];        /* debug.getinfo ">Su" and the upvalues, as text */
  int lifted;             /* it has the loader's probe upvalue */
} seen;

static int writer(lua_State *L, const void *p, size_t sz, void *ud) {
  dump *d = ud;
  (void)L;
  if (d->n + sz > d->cap) {
    size_t nc = d->cap ? d->cap * 2 : 4096;
    while (nc < d->n + sz) nc *= 2;
    char *np = realloc(d->p, nc);
    if (np == NULL) return 1;
    d->p = np;
    d->cap = nc;
  }
  memcpy(d->p + d->n, p, sz);
  d->n += sz;
  return 0;
}

static void seen_free(seen *s) {
  free(s->d[0].p);
  free(s->d[1].p);
  memset(s, 0, sizeof *s);
}

/* The function on top of L (popped) described into s; 0 on failure. */
static int describe(lua_State *L, seen *s) {
  lua_Debug ar;
  size_t o = 0;
  const char *name;
  memset(s, 0, sizeof *s);
  for (int strip = 0; strip < 2; strip++)
    if (lua_dump(L, writer, &s->d[strip], strip) != 0) return 0;
  for (int i = 1; (name = lua_getupvalue(L, -1, i)) != NULL; i++) {
    int globals;
    lua_pushglobaltable(L);
    globals = lua_rawequal(L, -1, -2);
    o += (size_t)snprintf(s->info + o, sizeof s->info - o, "up%d %s %s%s; ", i,
                          name, luaL_typename(L, -2), globals ? " (globals)" : "");
    if (strncmp(name, "__LI", 4) == 0) s->lifted = 1;
    lua_pop(L, 2);
    if (o >= sizeof s->info) return 0;
  }
  if (!lua_getinfo(L, ">Su", &ar)) return 0;
  o += (size_t)snprintf(s->info + o, sizeof s->info - o,
                        "%s %s %s %d %d nups %d", ar.what, ar.source,
                        ar.short_src, ar.linedefined, ar.lastlinedefined,
                        (int)ar.nups);
#if LUA_VERSION_NUM >= 502
  o += (size_t)snprintf(s->info + o, sizeof s->info - o, " nparams %d vararg %d",
                        (int)ar.nparams, (int)ar.isvararg);
#endif
  return o < sizeof s->info;
}

/* Load text one way and describe the function; the status of the load. */
static int load_as(lua_State *L, int path, const char *text, size_t n,
                   const char *name, seen *s, int *ok) {
  int status;
  *ok = 0;
  if (li_lift_force(L, path) != path) {
    fprintf(stderr, "lift_identity: the state cannot lift %s\n",
            path == LI_LIFT_MEMORY ? "in memory (its check failed)" : "by a dump");
    return -1;
  }
  status = li_load_filebytes(L, text, n, name, "t");
  if (status == LUA_OK) *ok = describe(L, s);
  lua_settop(L, 0);
  return status;
}

/* Both ways on one text: 1 same, 0 different (said on stderr). */
static int same_both_ways(lua_State *L, const char *text, size_t n,
                          const char *name, int *lifted) {
  seen a, b;
  int oka, okb, same;
  int sa = load_as(L, LI_LIFT_MEMORY, text, n, name, &a, &oka);
  int sb = load_as(L, LI_LIFT_DUMP, text, n, name, &b, &okb);
  same = sa == sb && oka == okb && (sa != LUA_OK ||
         (oka && a.d[0].n == b.d[0].n && memcmp(a.d[0].p, b.d[0].p, a.d[0].n) == 0 &&
          a.d[1].n == b.d[1].n && memcmp(a.d[1].p, b.d[1].p, a.d[1].n) == 0 &&
          strcmp(a.info, b.info) == 0 && a.lifted == b.lifted));
  if (!same)
    fprintf(stderr, "lift_identity: %s: in memory and by a dump differ:\n"
            "  memory: status %d, %s, dumps %zu/%zu bytes\n"
            "  dump:   status %d, %s, dumps %zu/%zu bytes\n", name,
            sa, a.info, a.d[0].n, a.d[1].n, sb, b.info, b.d[0].n, b.d[1].n);
  *lifted = a.lifted;
  seen_free(&a);
  seen_free(&b);
  return same;
}

static char *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  char *p = NULL;
  long len;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
      fseek(f, 0, SEEK_SET) == 0 && (p = malloc((size_t)len + 1)) != NULL &&
      fread(p, 1, (size_t)len, f) != (size_t)len) {
    free(p);
    p = NULL;
  }
  if (p != NULL) *n = (size_t)len;
  fclose(f);
  return p;
}

/* ---- hooks ---------------------------------------------------------------- */

static int hook_events;

static void count_hook(lua_State *L, lua_Debug *ar) {
  (void)L; (void)ar;
  hook_events++;
}

static const char known[] =
  "local x = 1\n"
  "local function f(a) return a + x end\n"
  "return f(2)\n";

/* With a hook set on L, or on a coroutine of L, a load calls it as often
** whichever way is asked for (the wrapper is not run where a hook would
** see it), and gives the same function; 1 if so. */
static int hooks_same(lua_State *L) {
  int ok = 1;
  for (int co = 0; co < 2 && ok; co++) {
    lua_State *T = co ? lua_newthread(L) : L;
    int events[2], st[2], okd[2];
    seen s[2];
    lua_sethook(T, count_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
    for (int way = 0; way < 2; way++) {
      hook_events = 0;
      st[way] = load_as(T, way ? LI_LIFT_MEMORY : LI_LIFT_DUMP, known,
                        sizeof known - 1, "=known", &s[way], &okd[way]);
      events[way] = hook_events;
    }
    ok = st[0] == LUA_OK && st[1] == LUA_OK && okd[0] && okd[1] && s[0].lifted &&
         s[1].lifted && events[0] == events[1] && strcmp(s[0].info, s[1].info) == 0 &&
         s[0].d[0].n == s[1].d[0].n && memcmp(s[0].d[0].p, s[1].d[0].p, s[0].d[0].n) == 0;
    if (!ok)
      fprintf(stderr, "lift_identity: with a hook (%s), a load differs: events %d "
              "(memory asked) and %d (dump)\n", co ? "coroutine" : "main thread",
              events[1], events[0]);
    seen_free(&s[0]);
    seen_free(&s[1]);
    lua_sethook(T, NULL, 0, 0);
  }
  lua_settop(L, 0);
  return ok;
}

/* LUAINSTR_LIFT=dump: a new state lifts by a dump. */
static int env_dump(void) {
  lua_State *L;
  int path;
  setenv("LUAINSTR_LIFT", "dump", 1);
  L = luaL_newstate();
  path = L ? li_lift_path(L) : -1;
  if (L) lua_close(L);
  unsetenv("LUAINSTR_LIFT");
  if (path != LI_LIFT_DUMP) fprintf(stderr, "lift_identity: LUAINSTR_LIFT=dump not obeyed\n");
  return path == LI_LIFT_DUMP;
}

int main(int argc, char **argv) {
  FILE *list;
  char line[4096];
  unsigned long files = 0, rejected = 0, lifted = 0, offline = 0, failed = 0;
  lua_State *L;
  if (argc != 2 || (list = fopen(argv[1], "r")) == NULL) {
    fprintf(stderr, "usage: lift_identity FILELIST\n");
    return 2;
  }
  unsetenv("LUAINSTR_LIFT");
  L = luaL_newstate();
  if (L == NULL) return 2;
  luaL_openlibs(L);
  if (li_lift_path(L) != LI_LIFT_MEMORY) {
    fprintf(stderr, "lift_identity: the state lifts by a dump: the check of the lift in memory failed\n");
    return 1;
  }
  while (fgets(line, sizeof line, list) != NULL) {
    char name[4200];
    size_t n;
    char *text;
    int was_lifted;
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '\0') continue;
    files++;
    if (luaL_loadfilex(L, line, "t") != LUA_OK) {   /* this Lua rejects it */
      rejected++;
      lua_settop(L, 0);
      continue;
    }
    lua_settop(L, 0);
    if ((text = read_file(line, &n)) == NULL) {
      fprintf(stderr, "lift_identity: cannot read %s\n", line);
      failed++;
      continue;
    }
    snprintf(name, sizeof name, "@%s", line);
    if (!same_both_ways(L, text, n, name, &was_lifted)) failed++;
    else if (was_lifted) lifted++;
    else offline++;
    free(text);
  }
  fclose(list);
  if (!hooks_same(L)) failed++;
  lua_close(L);
  if (!env_dump()) failed++;
  printf("lift_identity (%s): %lu files, %lu lifted the same both ways, "
         "%lu not in the loader's form, %lu rejected by this Lua, %lu failed\n",
         LUA_RELEASE, files, lifted, offline, rejected, failed);
  return failed != 0 || lifted == 0;
}
