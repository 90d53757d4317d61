/*
** pprof_host.c -- one profiled run of a Lua script, written as several
** reports from one snapshot, so that the pprof tests compare figures that
** agree exactly (two dumps are two snapshots, each with its clock
** calibrated again: their times differ a little).
**
** usage: pprof_host [--memory] SCRIPT OUT
** writes OUT.csv, OUT.json, OUT.folded-calls and OUT.pb.gz (pprof); exits 0, or 1
** with a message.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "luainstr.h"
#include "profiler.h"
#include "report.h"
#include "runtime.h"

static int die(const char *what, const char *msg) {
  fprintf(stderr, "pprof_host: %s: %s\n", what, msg);
  return 1;
}

int main(int argc, char **argv) {
  static const char *const formats[][2] = {
    { "csv", "csv" }, { "json", "json" }, { "folded-calls", "folded-calls" },
    { "pprof", "pb.gz" } };
  int memory = argc > 1 && strcmp(argv[1], "--memory") == 0;
  const char *script, *out;
  char path[4096], err[512];
  li_profile prof;
  lua_State *L;
  if (argc != 3 + memory) {
    fprintf(stderr, "usage: pprof_host [--memory] SCRIPT OUT\n");
    return 2;
  }
  script = argv[1 + memory];
  out = argv[2 + memory];
  L = luaL_newstate();
  if (L == NULL) return die("lua", "not enough memory");
  luaL_openlibs(L);
  /* (luainstr_open starts the profiler) */
  if (luainstr_open(L) != LUAINSTR_OK ||
      (memory && luainstr_set_option(L, "memory", "on") != LUAINSTR_OK))
    return die("luainstr", luainstr_errmsg(L));
  if (luainstr_loadfilex(L, script, NULL) != LUA_OK ||
      lua_pcall(L, 0, 0, 0) != LUA_OK)
    return die(script, lua_tostring(L, -1));
  if (luainstr_stop(L) != LUAINSTR_OK) return die("stop", luainstr_errmsg(L));
  if (li_snapshot(li_prof_get(L), &prof) != 0) return die("snapshot", "failed");
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    snprintf(path, sizeof path, "%s.%s", out, formats[i][1]);
    if (li_report_to_path(&prof, formats[i][0], path, err, sizeof err) != 0)
      return die(path, err);
  }
  li_snapshot_free(&prof);
  luainstr_close(L);
  lua_close(L);
  return 0;
}
