/*
** test_rewrite.c -- Criterion tests of the rewriter: golden files, the
** splice property (output minus inserted spans == input), no line break
** added, every rule of the rewriter, limits, and instrumented chunks run in
** a real Lua 5.4 with a recording probe.
*/
#define _POSIX_C_SOURCE 200809L  /* popen */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bytecode.h"
#include "instrument.h"
#include "rewrite.h"

/* ---- helpers ------------------------------------------------------------ */

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 4096, n = 0;
  char *p = malloc(cap);
  size_t k;
  while ((k = fread(p + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) p = realloc(p, cap *= 2);
  }
  fclose(f);
  *len = n;
  return p;
}

static int rewrite_str(const char *src, li_rewrite_result *r, int version) {
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  o.version = version;
  o.chunkname = "=test";
  return li_rewrite(src, strlen(src), &o, r);
}

/* The splice property: the output minus the inserted spans is the input,
** and no inserted span holds a line break. */
static void check_splice(const char *src, size_t len, const li_rewrite_result *r,
                         const char *what) {
  char *back = malloc(r->outlen + 1);
  size_t n = 0, from = 0;
  for (size_t i = 0; i < r->nins; i++) {
    size_t off = r->ins[2 * i], l = r->ins[2 * i + 1];
    cr_assert(off >= from && off + l <= r->outlen, "%s: span %zu out of order", what, i);
    cr_assert(memchr(r->out + off, '\n', l) == NULL && memchr(r->out + off, '\r', l) == NULL,
              "%s: inserted span %zu holds a line break", what, i);
    memcpy(back + n, r->out + from, off - from);
    n += off - from;
    from = off + l;
  }
  memcpy(back + n, r->out + from, r->outlen - from);
  n += r->outlen - from;
  cr_assert_eq(n, len, "%s: %zu bytes back, %zu in", what, n, len);
  cr_assert(memcmp(back, src, len) == 0, "%s: bytes differ after removing probes", what);
  free(back);
}

/* Does the output contain this text? */
static int has(const li_rewrite_result *r, const char *needle) {
  return strstr(r->out, needle) != NULL;
}

/* ---- golden files --------------------------------------------------------- */

Test(golden, every_file_matches_its_expected_output) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/golden", LI_TEST_DIR);
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  int count = 0, update = getenv("LI_UPDATE_GOLDEN") != NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t nl = strlen(e->d_name);
    if (nl < 5 || strcmp(e->d_name + nl - 4, ".lua") != 0) continue;
    char in[2048], exp[2100], name[1100];
    snprintf(in, sizeof in, "%s/%s", dir, e->d_name);
    snprintf(exp, sizeof exp, "%s.expected", in);
    snprintf(name, sizeof name, "@%s", e->d_name);
    size_t len, elen;
    char *src = read_file(in, &len);
    cr_assert_not_null(src);
    li_rewrite_opts o;
    memset(&o, 0, sizeof o);
    o.chunkname = name;
    o.skip_first_line = 1;
    li_rewrite_result r;
    int st = li_rewrite(src, len, &o, &r);
    cr_assert_eq(st, LI_OK, "%s: status %d (%s)", e->d_name, st, r.errmsg);
    check_splice(src, len, &r, e->d_name);
    if (update) {
      FILE *f = fopen(exp, "wb");
      fwrite(r.out, 1, r.outlen, f);
      fclose(f);
    }
    char *want = read_file(exp, &elen);
    cr_assert_not_null(want, "missing %s", exp);
    cr_assert(elen == r.outlen && memcmp(want, r.out, elen) == 0,
              "%s differs from %s.expected:\n%s", e->d_name, e->d_name, r.out);
    free(want);
    free(src);
    li_rewrite_free(&r);
    count++;
  }
  closedir(d);
  cr_assert_geq(count, 10, "only %d golden files", count);
}

/* ---- the splice property on every Lua file of the test tree --------------- */

static int splice_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) return 0;
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    size_t nl = strlen(e->d_name);
    if (nl < 5 || strcmp(e->d_name + nl - 4, ".lua") != 0) {
      count += splice_dir(path);             /* a folder, or not Lua */
      continue;
    }
    size_t len;
    char *src = read_file(path, &len);
    if (src == NULL) continue;
    li_rewrite_opts o;
    memset(&o, 0, sizeof o);
    o.chunkname = path;
    o.skip_first_line = 1;
    o.version = strstr(path, "lua51") ? 51 : strstr(path, "_jit.lua") ? LI_DIALECT_JIT : 54;
    li_rewrite_result r;
    int st = li_rewrite(src, len, &o, &r);
    if (st == LI_OK || st == LI_PASSTHROUGH) check_splice(src, len, &r, path);
    li_rewrite_free(&r);
    free(src);
    count++;
  }
  closedir(d);
  return count;
}

Test(splice, removing_probes_gives_back_every_corpus_file) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "bash '%s/corpus/list_corpus.sh'", LI_TEST_DIR);
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  char path[4096];
  int n = 0, instrumented = 0;
  while (fgets(path, sizeof path, p)) {
    path[strcspn(path, "\n")] = '\0';
    size_t len;
    char *src = read_file(path, &len);
    if (src == NULL) continue;
    li_rewrite_opts o;
    memset(&o, 0, sizeof o);
    o.chunkname = path;
    o.skip_first_line = 1;
    li_rewrite_result r;
    int st = li_rewrite(src, len, &o, &r);
    if (st == LI_OK || st == LI_PASSTHROUGH) check_splice(src, len, &r, path);
    if (st == LI_OK && r.nins > 0) instrumented++;
    li_rewrite_free(&r);
    free(src);
    n++;
  }
  cr_assert_eq(pclose(p), 0, "list_corpus.sh failed");
  cr_assert_geq(n, 1000, "only %d corpus files", n);
  cr_assert_geq(instrumented, n - 20, "only %d of %d instrumented", instrumented, n);
}

Test(splice, removing_probes_gives_back_every_test_file) {
  int n = splice_dir(LI_TEST_DIR);
  cr_assert_geq(n, 20, "only %d files checked", n);
}

/* ---- rules ------------------------------------------------------------------ */

Test(rules, entry_and_exit_probes) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function f(a)\n  local b = a\n  return b\nend\n", &r, 54), LI_OK);
  cr_assert(has(&r, "  __LI(2);local b = a\n  __LI() return b\nend"), "%s", r.out);
  cr_assert(has(&r, "end __LI();"), "main chunk exit missing: %s", r.out);
  cr_assert_eq(r.nfuncs, 2);
  cr_assert_str_eq(r.funcs[1].name, "local f");
  cr_assert_eq(r.funcs[1].line, 1);
  cr_assert_eq(r.funcs[1].lastline, 4);
  li_rewrite_free(&r);
}

Test(rules, fall_off_the_end) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("function g()\n  print(1)\nend", &r, 54), LI_OK);
  cr_assert(has(&r, "__LI(2);print(1)\n__LI(); end"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, tail_calls_stay_tail_calls) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(
    "local function a(x) return g(x) end\n"
    "local function b(o) return o:m(1) end\n"
    "local function c() return g\"s\" end\n"
    "local function d() return g{1} end\n"
    "local function e() return g() end\n"
    "local function h() return g(1)(2) end\n"
    "local function i(...) return g(1, ...) end\n"
    "local function k() return g(1, g()) end\n"
    "local function j(f, x) return f(x, 's') end\n", &r, 54), LI_OK);
  cr_assert(has(&r, "return g(x,__LI())"), "%s", r.out);
  cr_assert(has(&r, "return o:m(1,__LI())"), "%s", r.out);
  cr_assert(has(&r, "return g(\"s\",__LI())"), "%s", r.out);
  cr_assert(has(&r, "return g({1},__LI())"), "%s", r.out);
  cr_assert(has(&r, "return g(__LI())"), "%s", r.out);
  cr_assert(has(&r, "return g(1)(2,__LI())"), "%s", r.out);
  cr_assert(has(&r, "return g(__LI(0,1, ...))"), "%s", r.out);
  cr_assert(has(&r, "return g(__LI(0,1, g()))"), "%s", r.out);
  /* a local callee with local and literal arguments: nothing to wait for */
  cr_assert(has(&r, "__LI() return f(x, 's')"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, lua51_string_argument_on_its_own_line) {
  /* 5.1 reads `(` at the start of a line as a new statement */
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function a() return t.f\n\"s\" end\n"
                           "local function b() return t.f \"s\" end\n", &r, 51), LI_OK);
  cr_assert(has(&r, "__LI() return t.f\n\"s\" end"), "%s", r.out);
  cr_assert(has(&r, "return t.f (\"s\",__LI()) end"), "%s", r.out);
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("local function a() return t.f\n\"s\" end\n", &r, 54), LI_OK);
  cr_assert(has(&r, "return t.f\n(\"s\",__LI()) end"), "%s", r.out);
  li_rewrite_free(&r);
}

/* LuaJIT reads `(` at the start of a line as 5.1 does */
Test(rules, luajit_string_argument_on_its_own_line) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function a() return t.f\n\"s\" end\n"
                           "local function b() return t.f \"s\" end\n", &r, LI_DIALECT_JIT), LI_OK);
  cr_assert(has(&r, "__LI() return t.f\n\"s\" end"), "%s", r.out);
  cr_assert(has(&r, "return t.f (\"s\",__LI()) end"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, non_tail_returns_pass_values_through) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(
    "local function a() return end\n"
    "local function b(f) return (f()) end\n"
    "local function c(...) return 1, nil, g(...) end\n"
    "local function d(f) local x <close> = nil return f() end\n", &r, 54), LI_OK);
  cr_assert(has(&r, "__LI() return end"), "%s", r.out);
  cr_assert(has(&r, "return (f()),__LI() end"), "%s", r.out);
  cr_assert(has(&r, "return __LI(0,1, nil, g(...)) end"), "%s", r.out);
  /* with a <close> variable active, Lua makes no tail call: neither do we */
  cr_assert(has(&r, "return __LI(0,f()) end"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, probe_glued_to_a_name_gets_a_space) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function f(x) return(x) end\nx = y", &r, 54), LI_OK);
  cr_assert(has(&r, "return(x),__LI() end"), "%s", r.out);
  cr_assert(has(&r, "x = y __LI();"), "%s", r.out);
  li_rewrite_free(&r);
}

/* Found by tests/fuzz/fuzz_rewrite (tests/fuzz/regressions/numeral_dot.lua):
** a numeral may end in '.', and `1.__LI` is one malformed number to Lua. */
Test(rules, probe_after_a_numeral_ending_in_a_dot_gets_a_space) {
  li_rewrite_result r;
  lua_State *L = luaL_newstate();
  cr_assert_eq(rewrite_str("x = 1.", &r, 54), LI_OK);
  cr_assert(has(&r, "x = 1. __LI();"), "%s", r.out);
  cr_assert_eq(luaL_loadbufferx(L, r.out, r.outlen, "=t", "t"), LUA_OK,
               "%s", lua_tostring(L, -1));
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("local function f() return 0x1. end", &r, 54), LI_OK);
  cr_assert_eq(luaL_loadbufferx(L, r.out, r.outlen, "=t", "t"), LUA_OK,
               "%s: %s", r.out, lua_tostring(L, -1));
  li_rewrite_free(&r);
  lua_close(L);
}

/* Found by tests/fuzz/fuzz_rewrite (regressions/registers_tail_call.lua):
** the registers a probed return needs count the arguments of the calls in
** it (a tail call's probe is one argument more), so a function whose
** probed return would not compile is left without probes by the rewriter
** itself, and the raw rewrite compiles. */
Test(rules, registers_count_a_calls_arguments) {
  /* each with the most arguments Lua compiles next to 200 locals */
  static const char *forms[] = { "return g(%s)", "return 1, g(%s)", "return o:m(%s)" };
  static const int nargs[] = { 53, 52, 52 };
  lua_State *L = luaL_newstate();
  for (int k = 0; k < 3; k++) {
    char src[8192], args[2048];
    size_t n = 0, a = 0;
    n += (size_t)snprintf(src + n, sizeof src - n, "local function f(o)\n");
    for (int i = 1; i < 200; i++)
      n += (size_t)snprintf(src + n, sizeof src - n, "local l%d = %d\n", i, i);
    for (int i = 1; i < nargs[k]; i++)
      a += (size_t)snprintf(args + a, sizeof args - a, "l%d, ", i);
    snprintf(args + a, sizeof args - a, "glob");
    n += (size_t)snprintf(src + n, sizeof src - n, forms[k], args);
    snprintf(src + n, sizeof src - n, "\nend\n");
    cr_assert_eq(luaL_loadbufferx(L, src, strlen(src), "=orig", "t"), LUA_OK,
                 "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    li_rewrite_result r;
    cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
    cr_expect_eq(luaL_loadbufferx(L, r.out, r.outlen, "=t", "t"), LUA_OK,
                 "form %d: %s", k, lua_tostring(L, -1));
    lua_settop(L, 0);
    cr_expect(r.warnings && strstr(r.warnings, "too many registers"), "form %d", k);
    li_rewrite_free(&r);
  }
  lua_close(L);
}

/* Found by tests/fuzz/fuzz_rewrite (tests/fuzz/regressions/header_lines.lua):
** a function's line is Lua's linedefined, which is the line of `(` for a
** local function and a function expression, of `function` for a
** `function funcname` statement. */
Test(rules, function_lines_are_luas_linedefined) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function\n f\n (\n ) end\n"
                           "function\n g\n () end\n"
                           "x = function\n\n () end\n", &r, 54), LI_OK);
  cr_assert_eq(r.nfuncs, 4);
  cr_assert_eq(r.funcs[1].line, 3, "local function: %u", r.funcs[1].line);
  cr_assert_eq(r.funcs[2].line, 5, "function statement: %u", r.funcs[2].line);
  cr_assert_eq(r.funcs[3].line, 10, "function expression: %u", r.funcs[3].line);
  li_rewrite_free(&r);
}

Test(rules, returns_of_locals_and_constants_probe_before_the_return) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(
    "local up = 1\n"
    "local function a(x) return x, up, nil, true, 1.5, 's', [[l]] end\n"
    "local function b(x) return x, g end\n"
    "local function c(x) return x.y end\n"
    "local function d(x) return (x) end\n"
    "local function e(x) return x + 1 end\n"
    "local function f(...) return x, ... end\n"
    "local function h(...) return up, ... end\n", &r, 54), LI_OK);
  /* evaluating locals, upvalues and literals runs no code */
  cr_assert(has(&r, "__LI(2);__LI() return x, up, nil, true, 1.5, 's', [[l]] end"), "%s", r.out);
  /* a global, a field, an operator may run a metamethod: probe after */
  cr_assert(has(&r, "return x, g,__LI() end"), "%s", r.out);
  cr_assert(has(&r, "return x.y,__LI() end"), "%s", r.out);
  cr_assert(has(&r, "return (x),__LI() end"), "%s", r.out);
  cr_assert(has(&r, "return x + 1,__LI() end"), "%s", r.out);
  /* a last value that is several values goes through the probe */
  cr_assert(has(&r, "return __LI(0,x, ...) end"), "%s", r.out);
  cr_assert(has(&r, "__LI() return up, ... end"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, trailing_label_keeps_ending_its_block) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function f(n)\n if n then goto done end\n local x = 1\n ::done::\nend\n",
                           &r, 54), LI_OK);
  cr_assert(has(&r, "__LI(2); do if n"), "%s", r.out);
  cr_assert(has(&r, "::done::\n end __LI(); end"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, probe_name_avoids_user_names) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local __LI, __LI1 = 1, 2\nreturn __LI + __LI1", &r, 54), LI_OK);
  cr_assert(has(&r, "local __LI2=("), "%s", r.out);
  cr_assert(has(&r, "__LI2(1);"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, function_names) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(
    "function M.a.b:m() end\n"
    "local function lf() end\n"
    "local lv = function() end\n"
    "t.field = function() end\n"
    "local c = { key = function() end }\n"
    "print(function() end)\n"
    "g = function() end\n", &r, 54), LI_OK);
  cr_assert_eq(r.nfuncs, 8);
  cr_assert_str_eq(r.funcs[0].name, "main chunk");
  cr_assert_str_eq(r.funcs[1].name, "M.a.b:m");
  cr_assert_str_eq(r.funcs[2].name, "local lf");
  cr_assert_str_eq(r.funcs[3].name, "local lv");
  cr_assert_str_eq(r.funcs[4].name, "t.field");
  cr_assert_str_eq(r.funcs[5].name, "key");
  cr_assert_str_eq(r.funcs[6].name, "anonymous");
  cr_assert_str_eq(r.funcs[7].name, "g");
  cr_assert_eq(r.funcs[6].line, 6);
  li_rewrite_free(&r);
}

Test(rules, descriptors_are_in_the_prologue) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local function f()\nend\n", &r, 54), LI_OK);
  cr_assert(has(&r, "(\"LI1\\000=test\\0002\\000main chunk\\0000\\0000\\000local f\\0001\\0002\\000\");"),
            "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, binary_chunks_pass_through) {
  li_rewrite_result r;
  const char bin[] = "\x1bLua\x54\x00 whatever";
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  cr_assert_eq(li_rewrite(bin, sizeof bin - 1, &o, &r), LI_PASSTHROUGH);
  cr_assert_eq(r.outlen, sizeof bin - 1);
  cr_assert(memcmp(r.out, bin, r.outlen) == 0);
  li_rewrite_free(&r);
}

Test(rules, shebang_and_bom_stay_in_place) {
  const char src[] = "\xEF\xBB\xBF#!/usr/bin/lua\nreturn 1\n";
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  o.skip_first_line = 1;
  li_rewrite_result r;
  cr_assert_eq(li_rewrite(src, sizeof src - 1, &o, &r), LI_OK);
  cr_assert(strncmp(r.out, "\xEF\xBB\xBF#!/usr/bin/lua\nlocal __LI=", 25) == 0, "%s", r.out);
  cr_assert(has(&r, "__LI() return 1\n"), "%s", r.out);
  li_rewrite_free(&r);
}

Test(rules, syntax_errors_are_reported_not_rewritten) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local x = 1\nlocal = 2\n", &r, 54), LI_ESYNTAX);
  cr_assert_eq(r.errline, 2);
  cr_assert_null(r.out);
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("x = 'unfinished\n", &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("f() = 1", &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("x", &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
}

Test(rules, goto_is_a_name_in_lua51) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local goto = 1\nreturn goto", &r, 51), LI_OK);
  li_rewrite_free(&r);
  cr_assert_eq(rewrite_str("local goto = 1\nreturn goto", &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
}

/* LuaJIT (lj_parse.c without LJ_52): `goto` is a statement where one may
** start and a name follows, a name everywhere else. */
Test(rules, goto_in_luajit_depends_on_where_it_is) {
  static const struct { const char *src; int jit, v51, v54; } cases[] = {
    { "for i = 1, 3 do if i == 2 then goto c end print(i) ::c:: end", LI_OK, LI_ESYNTAX, LI_OK },
    { "local goto = 1\nreturn goto", LI_OK, LI_OK, LI_ESYNTAX },
    { "local x = goto y = 2", LI_OK, LI_OK, LI_ESYNTAX },
    { "local t = {goto = 1} t.goto = t.goto + 1 function t:goto() end", LI_OK, LI_OK, LI_ESYNTAX },
    { "local function f(goto) return goto(1) end", LI_OK, LI_OK, LI_ESYNTAX },
    { "goto = 1 print(goto)", LI_OK, LI_OK, LI_ESYNTAX },
    { "goto --[[ a comment ]]\n skip\n::skip::", LI_OK, LI_ESYNTAX, LI_OK },
    { "repeat until goto x = 4", LI_OK, LI_OK, LI_ESYNTAX },
    { "do goto l end ::l::", LI_OK, LI_ESYNTAX, LI_OK },
    { "goto goto", LI_ESYNTAX, LI_ESYNTAX, LI_ESYNTAX },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    li_rewrite_result r;
    cr_expect_eq(rewrite_str(cases[i].src, &r, LI_DIALECT_JIT), cases[i].jit, "case %zu jit", i);
    li_rewrite_free(&r);
    cr_expect_eq(rewrite_str(cases[i].src, &r, 51), cases[i].v51, "case %zu 5.1", i);
    li_rewrite_free(&r);
    cr_expect_eq(rewrite_str(cases[i].src, &r, 54), cases[i].v54, "case %zu 5.4", i);
    li_rewrite_free(&r);
  }
}

/* LuaJIT's names may hold any byte from 0x80 up (lj_char.c); its numerals
** and escapes are one token each. */
Test(rules, luajit_names_numerals_and_escapes) {
  li_rewrite_result r;
  const char *src = "local café = 1LL + 0x10ULL\n"
                    "function naïve.größe(ü) return ü + 12i + 0x1p-2 + 0x.8P+1 end\n"
                    "local s = \"\\x41\\u{20AC}\\z\n   tail\" print(s, 名前)\n";
  cr_assert_eq(rewrite_str(src, &r, LI_DIALECT_JIT), LI_OK, "%s", r.errmsg);
  check_splice(src, strlen(src), &r, "jit");
  cr_assert_eq(r.nfuncs, 2);
  cr_expect_str_eq(r.funcs[1].name, "naïve.größe");
  cr_expect_eq(r.funcs[1].line, 2);
  cr_assert(has(&r, "return ü + 12i + 0x1p-2 + 0x.8P+1,__LI() end"), "%s", r.out);
  li_rewrite_free(&r);
  cr_expect_eq(rewrite_str("local café = 1", &r, 51), LI_ESYNTAX);
  li_rewrite_free(&r);
  cr_expect_eq(rewrite_str("local café = 1", &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
}

/* ---- limits --------------------------------------------------------------------- */

static char *gen_locals(int n, const char *wrap_open, const char *wrap_close) {
  size_t cap = (size_t)n * 24 + 256;
  char *s = malloc(cap);
  size_t k = (size_t)snprintf(s, cap, "%s", wrap_open);
  for (int i = 0; i < n; i++) k += (size_t)snprintf(s + k, cap - k, "local v%d = %d\n", i, i);
  snprintf(s + k, cap - k, "%s", wrap_close);
  return s;
}

Test(limits, main_chunk_with_200_locals_is_left_alone) {
  char *src = gen_locals(200, "", "local function f() return v1 end\nreturn f()\n");
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
  cr_assert_eq(r.outlen, strlen(src));
  cr_assert(memcmp(r.out, src, r.outlen) == 0);
  cr_assert_not_null(r.warnings);
  cr_assert(strstr(r.warnings, "200-locals") != NULL, "%s", r.warnings);
  li_rewrite_free(&r);
  free(src);
  src = gen_locals(199, "", "return v1\n");
  cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
  cr_assert(has(&r, "__LI(1);"));
  cr_assert_null(r.warnings);
  li_rewrite_free(&r);
  free(src);
}

Test(limits, function_with_200_locals_is_probed) {
  char *src = gen_locals(200, "local function f()\n", "return v0\nend\nreturn f()\n");
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
  cr_assert(r.funcs[1].probed);
  lua_State *L = luaL_newstate();
  cr_assert_eq(luaL_loadbuffer(L, r.out, r.outlen, "=t"), LUA_OK, "%s", lua_tostring(L, -1));
  lua_close(L);
  li_rewrite_free(&r);
  free(src);
}

/* A function that captures n upvalues: outer locals spread over two levels. */
static char *gen_upvalues(int n) {
  size_t cap = (size_t)n * 64 + 512;
  char *s = malloc(cap);
  size_t k = 0;
  int first = n > 150 ? 150 : n;
  k += (size_t)snprintf(s + k, cap - k, "local function outer()\n");
  for (int i = 0; i < first; i++) k += (size_t)snprintf(s + k, cap - k, "local a%d = %d\n", i, i);
  k += (size_t)snprintf(s + k, cap - k, "local function mid()\n");
  for (int i = first; i < n; i++) k += (size_t)snprintf(s + k, cap - k, "local a%d = %d\n", i, i);
  k += (size_t)snprintf(s + k, cap - k, "local function inner()\nlocal s = 0\n");
  for (int i = 0; i < n; i++) k += (size_t)snprintf(s + k, cap - k, "s = s + a%d\n", i);
  k += (size_t)snprintf(s + k, cap - k, "return s\nend\nreturn inner()\nend\nreturn mid()\nend\nreturn outer()\n");
  return s;
}

Test(limits, function_at_the_upvalue_limit_is_left_alone) {
  /* inner captures 255 locals: Lua's limit; a probe would be one more */
  char *src = gen_upvalues(255);
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
  cr_assert_eq(r.nfuncs, 4);
  cr_assert(r.funcs[0].probed && r.funcs[1].probed && r.funcs[2].probed);
  cr_assert(!r.funcs[3].probed, "inner must be left alone");
  cr_assert_not_null(r.warnings);
  cr_assert(strstr(r.warnings, "'local inner'") != NULL, "%s", r.warnings);
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  cr_assert_eq(luaL_loadbuffer(L, r.out, r.outlen, "=t"), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_tointeger(L, -1), 255 * 254 / 2);
  lua_close(L);
  li_rewrite_free(&r);
  free(src);
  /* one fewer: everything is probed and still loads */
  src = gen_upvalues(253);
  cr_assert_eq(rewrite_str(src, &r, 54), LI_OK);
  cr_assert(r.funcs[3].probed);
  cr_assert_null(r.warnings);
  L = luaL_newstate();
  cr_assert_eq(luaL_loadbuffer(L, r.out, r.outlen, "=t"), LUA_OK, "%s", lua_tostring(L, -1));
  lua_close(L);
  li_rewrite_free(&r);
  free(src);
}

Test(limits, lua51_upvalue_limit_is_60) {
  char *src = gen_upvalues(60);
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(src, &r, 51), LI_OK);
  cr_assert(!r.funcs[3].probed);
  li_rewrite_free(&r);
  free(src);
}

/* Does the luajit on the PATH compile text?  -1 when there is no luajit. */
static int luajit_compiles(const char *text, size_t n) {
  char path[] = "/tmp/li-ljsrc-XXXXXX", cmd[200];
  if (system("luajit -v > /dev/null 2>&1") != 0) return -1;
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fwrite(text, 1, n, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "luajit -bl '%s' > /dev/null 2>&1", path);
  int st = system(cmd);
  remove(path);
  return st == 0;
}

/* LuaJIT's limits are 5.1's (lj_def.h LJ_MAX_UPVAL 60, LJ_MAX_LOCVAR
** 200): a probe that would pass them is left out, and what is written
** compiles in luajit. */
Test(limits, luajit_upvalue_and_local_limits) {
  static const struct { int n, upvalues, probed; } cases[] = {
    { 60, 1, 0 }, { 59, 1, 1 }, { 200, 0, 0 }, { 199, 0, 1 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *src = cases[i].upvalues ? gen_upvalues(cases[i].n)
                                  : gen_locals(cases[i].n, "", "return v1\n");
    li_rewrite_result r;
    cr_assert_eq(rewrite_str(src, &r, LI_DIALECT_JIT), LI_OK);
    uint32_t f = cases[i].upvalues ? 3 : 0;
    cr_expect_eq(r.funcs[f].probed, cases[i].probed, "case %zu", i);
    cr_expect_eq(r.warnings != NULL, !cases[i].probed, "case %zu", i);
    int ok = luajit_compiles(r.out, r.outlen);
    if (ok < 0) cr_skip_test("no luajit on the PATH");
    cr_expect(ok, "case %zu: luajit rejects the output", i);
    li_rewrite_free(&r);
    free(src);
  }
}

/* LuaJIT's frames hold fewer slots than Lua's registers (LJ_MAX_SLOTS) and
** its calls take one more (LJ_FR2): near its limit a probed return is
** left out so that whatever luajit compiles, it compiles instrumented (in
** both exit forms: the loader's on LuaJIT passes values through). */
Test(limits, luajit_return_near_the_slot_limit) {
  static const char *shapes[] = { "%s, g()", "g(%s, g())", "%s", "%s, a + 1" };
  const size_t nshapes = sizeof shapes / sizeof shapes[0];
  int probed = 0, left = 0;
  for (size_t sh = 0; sh < 2 * nshapes; sh++) {
    int through = sh >= nshapes;
    for (int n = 232; n <= 250; n++) {
      size_t cap = (size_t)n * 4 + 256;
      char *list = malloc(cap), *src = malloc(cap * 2);
      size_t k = (size_t)snprintf(list, cap, "a");
      for (int i = 1; i < n; i++) k += (size_t)snprintf(list + k, cap - k, ", a");
      k = (size_t)snprintf(src, cap * 2, "local function f(...)\nlocal a, b, c = 1, 2, 3\nreturn ");
      k += (size_t)snprintf(src + k, cap * 2 - k, shapes[sh % nshapes], list);
      snprintf(src + k, cap * 2 - k, "\nend\nreturn f\n");
      int orig = luajit_compiles(src, strlen(src));
      if (orig < 0) cr_skip_test("no luajit on the PATH");
      li_rewrite_opts o;
      li_rewrite_result r;
      memset(&o, 0, sizeof o);
      o.version = LI_DIALECT_JIT;
      o.exits_through = through;
      cr_assert_eq(li_rewrite(src, strlen(src), &o, &r), LI_OK);
      if (orig) {
        cr_expect(luajit_compiles(r.out, r.outlen), "shape %zu, %d values: luajit rejects the output", sh, n);
        if (r.funcs[1].probed) probed++; else left++;
      }
      li_rewrite_free(&r);
      free(list);
      free(src);
    }
  }
  cr_expect(probed > 0 && left > 0, "%d probed, %d left alone", probed, left);
}

Test(limits, return_near_the_register_limit_is_left_alone) {
  size_t cap = 8192;
  char *s = malloc(cap);
  size_t k = (size_t)snprintf(s, cap, "local function f(...)\nlocal a, b, c = 1, 2, 3\nreturn a");
  for (int i = 0; i < 248; i++) k += (size_t)snprintf(s + k, cap - k, ", a");
  snprintf(s + k, cap - k, "\nend\nreturn f\n");
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(s, &r, 54), LI_OK);
  cr_assert(!r.funcs[1].probed);
  cr_assert_not_null(r.warnings);
  lua_State *L = luaL_newstate();
  cr_assert_eq(luaL_loadbuffer(L, r.out, r.outlen, "=t"), LUA_OK, "%s", lua_tostring(L, -1));
  lua_close(L);
  li_rewrite_free(&r);
  free(s);
}

/* ---- bad input -------------------------------------------------------------------- */

Test(badinput, empty_input) {
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("", &r, 54), LI_OK);
  cr_assert(has(&r, "\");__LI(1);__LI();"), "%s", r.out);
  check_splice("", 0, &r, "empty");
  li_rewrite_free(&r);
}

Test(badinput, deep_nesting_is_an_error_not_a_crash) {
  size_t n = 100000;
  char *s = malloc(2 * n + 16);
  size_t k = (size_t)sprintf(s, "x = ");
  for (size_t i = 0; i < n; i++) s[k++] = '(';
  s[k++] = '1';
  for (size_t i = 0; i < n; i++) s[k++] = ')';
  s[k] = '\0';
  li_rewrite_result r;
  cr_assert_eq(rewrite_str(s, &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
  k = 0;
  for (size_t i = 0; i < n; i++) { memcpy(s + k, "do ", 3); k += 3; if (k > 2 * n) break; }
  s[k] = '\0';
  cr_assert_eq(rewrite_str(s, &r, 54), LI_ESYNTAX);
  li_rewrite_free(&r);
  free(s);
}

Test(badinput, nul_and_random_bytes) {
  const char src[] = "local s = 'a\0b' -- c\0d\nreturn s";
  li_rewrite_result r;
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  cr_assert_eq(li_rewrite(src, sizeof src - 1, &o, &r), LI_OK);
  check_splice(src, sizeof src - 1, &r, "nul");
  li_rewrite_free(&r);
  cr_assert_eq(li_rewrite("x = \0", 5, &o, &r), LI_ESYNTAX);
  li_rewrite_free(&r);
  unsigned seed = 12345;
  /* in every dialect: LuaJIT's looks past `goto` and takes high bytes */
  static const int dialects[] = { 54, 51, LI_DIALECT_JIT };
  for (int i = 0; i < 6000; i++) {
    size_t len = (size_t)(i % 200) + 1;
    o.version = dialects[i % 3];
    char *b = malloc(len);
    for (size_t j = 0; j < len; j++) {
      seed = seed * 1103515245u + 12345u;
      /* mostly Lua-ish bytes, so the parser gets far */
      static const char alphabet[] = "local function end return ( ) { } [ ] = , . : ; \" ' \n x y 1 -- [[ ]] :: goto \xc3\xa9";
      b[j] = (i & 4) ? (char)(seed >> 16) : alphabet[(seed >> 16) % (sizeof alphabet - 1)];
    }
    int st = li_rewrite(b, len, &o, &r);
    cr_assert(st == LI_OK || st == LI_ESYNTAX || st == LI_PASSTHROUGH, "status %d", st);
    if (st == LI_OK) check_splice(b, len, &r, "random");
    li_rewrite_free(&r);
    free(b);
  }
}

Test(badinput, a_100_megabyte_chunk) {
  const char line[] = "x = x + 1 -- padding padding padding padding padding\n";
  size_t ll = sizeof line - 1, n = (100u << 20) / ll;
  char *s = malloc(n * ll + 1);
  for (size_t i = 0; i < n; i++) memcpy(s + i * ll, line, ll);
  li_rewrite_result r;
  li_rewrite_opts o;
  memset(&o, 0, sizeof o);
  cr_assert_eq(li_rewrite(s, n * ll, &o, &r), LI_OK);
  cr_assert_eq(r.outlen, n * ll + r.ins[1] + r.ins[3]);
  li_rewrite_free(&r);
  free(s);
}

/* ---- running instrumented code with a recording probe ------------------------------ */

/* A probe factory in Lua that logs entry ids and exits: "1 2 x x" */
static const char *recorder =
  "local log, concat, mtype = {}, table.concat, math.type\n"
  "rawset(string, '__luainstr', function(desc)\n"
  "  assert(desc:sub(1, 4) == 'LI1\\0')\n"
  "  return function(id, ...)\n"
  "    log[#log + 1] = (mtype(id) == 'integer' and id > 0) and id or 'x'\n"
  "    return ...\n"
  "  end\n"
  "end)\n"
  "return function() local s = concat(log, ' '); log = {}; return s end\n";

static lua_State *recording_state(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  cr_assert_eq(luaL_dostring(L, recorder), LUA_OK);
  lua_setfield(L, LUA_REGISTRYINDEX, "li_take_log");
  return L;
}

/* Instrument and run src; return the probe log (static buffer). */
static const char *run_logged(lua_State *L, const char *src) {
  static char out[4096];
  li_rewrite_result r;
  int instrumented;
  int st = li_instrument_load(L, src, strlen(src), "=run", "t", NULL, &r, &instrumented);
  cr_assert_eq(st, LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert(instrumented);
  cr_assert_eq(lua_pcall(L, 0, 0, 0), LUA_OK, "%s", lua_tostring(L, -1));
  li_rewrite_free(&r);
  lua_getfield(L, LUA_REGISTRYINDEX, "li_take_log");
  lua_call(L, 0, 1);
  snprintf(out, sizeof out, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  return out;
}

Test(run, probes_fire_in_order) {
  lua_State *L = recording_state();
  cr_assert_str_eq(run_logged(L,
    "local function f(x) return x + 1 end\n"
    "local function g() local y = f(1) end\n"
    "g()\n"), "1 3 2 x x x");
  lua_close(L);
}

Test(run, tail_call_exits_before_the_callee_runs) {
  lua_State *L = recording_state();
  cr_assert_str_eq(run_logged(L,
    "local function f(x) return x end\n"
    "local function g(x) return f(x) end\n"
    "assert(g(5) == 5)\n"), "1 3 x 2 x x");
  lua_close(L);
}

Test(run, deep_tail_recursion_does_not_grow_the_stack) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *src =
    "local o = {}\n"
    "function o:m(n) if n == 0 then return 'done' end return self:m(n - 1) end\n"
    "local function f(n) if n == 0 then return 'done' end return f(n - 1) end\n"
    "local t = setmetatable({}, {__call = function(self, s) return s end})\n"
    "local function s(n) if n == 0 then return t'done' end return s(n - 1) end\n"
    "assert(f(1000000) == 'done')\n"
    "assert(o:m(1000000) == 'done')\n"
    "assert(s(1000000) == 'done')\n"
    "return 'ok'\n";
  li_rewrite_result r;
  int instrumented;
  cr_assert_eq(li_instrument_load(L, src, strlen(src), "=deep", NULL, NULL, &r, &instrumented), LUA_OK);
  cr_assert(instrumented);
  cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_str_eq(lua_tostring(L, -1), "ok");
  li_rewrite_free(&r);
  lua_close(L);
}

Test(run, return_values_are_unchanged) {
  lua_State *L = recording_state();
  const char *src =
    "local function n() return nil, nil end\n"
    "local function v(...) return ... end\n"
    "local function t(f) return (f()) end\n"
    "assert(select('#', n()) == 2)\n"
    "assert(select('#', v(1, nil, nil)) == 3)\n"
    "assert(select('#', t(n)) == 1)\n"
    "assert(select('#', v()) == 0)\n";
  run_logged(L, src);
  lua_close(L);
}

Test(run, works_with_no_globals_and_custom_env) {
  lua_State *L = recording_state();
  /* the chunk clears every global, then keeps calling its functions */
  cr_assert_str_eq(run_logged(L,
    "local pairs, G = pairs, _G\n"
    "local function f() return 1 end\n"
    "for k in pairs(G) do G[k] = nil end\n"
    "local _ENV = {}\n"
    "local x = f()\n"), "1 2 x x");
  lua_close(L);
}

Test(run, no_runtime_means_probes_do_nothing) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *src = "local function f(...) return ... end\nreturn select('#', f(1, nil))\n";
  li_rewrite_result r;
  int instrumented;
  cr_assert_eq(li_instrument_load(L, src, strlen(src), "=x", NULL, NULL, &r, &instrumented), LUA_OK);
  cr_assert_eq(lua_pcall(L, 0, 1, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_assert_eq(lua_tointeger(L, -1), 2);
  li_rewrite_free(&r);
  lua_close(L);
}

Test(run, rejected_chunks_get_luas_own_message) {
  lua_State *L = luaL_newstate();
  const char *src = "local x = 1\nlocal y = = 2\n";
  li_rewrite_result r;
  int instrumented;
  cr_assert_eq(li_instrument_load(L, src, strlen(src), "@bad.lua", NULL, NULL, &r, &instrumented),
               LUA_ERRSYNTAX);
  cr_assert(!instrumented);
  cr_assert_str_eq(lua_tostring(L, -1), "bad.lua:2: unexpected symbol near '='");
  li_rewrite_free(&r);
  lua_close(L);
}

Test(run, probe_upvalue_comes_after_the_originals) {
  lua_State *L = recording_state();
  run_logged(L,
    "local env, x = {}, 1\n"
    "local function g() return env, x end\n"
    "assert(debug.getupvalue(g, 1) == 'env')\n"
    "assert(debug.getupvalue(g, 2) == 'x')\n"
    "local f = function() return x end\n"
    "debug.upvaluejoin(g, 1, f, 1)\n"
    "local a, b = g()\n"
    "assert(a == 1 and b == 1)\n");
  lua_close(L);
}

/* ---- the loader's form and the bytecode it relies on -------------------- */

typedef struct cbuf { char *p; size_t n; } cbuf;

static int buf_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  cbuf *b = ud;
  (void)L;
  b->p = realloc(b->p, b->n + sz);
  cr_assert_not_null(b->p);
  memcpy(b->p + b->n, p, sz);
  b->n += sz;
  return 0;
}

/* The dump of the function on top of L, pushed as a string above it. */
static const char *dump_top(lua_State *L, int strip, size_t *n) {
  cbuf b = {NULL, 0};
  cr_assert_eq(lua_dump(L, buf_writer, &b, strip), 0);
  lua_pushlstring(L, b.p, b.n);
  free(b.p);
  return lua_tolstring(L, -1, n);
}

/* bytecode.c names opcodes and instruction fields by number: what the
** interpreter compiles must match, or entry probes would not be found. */
Test(bytecode, entry_probe_found_in_what_lua_compiles) {
  lua_State *L = luaL_newstate();
  static const char *cases[][2] = {
    /* wrapper-like source, expected upvalue of the probe ("0": none) */
    { "local u <const> = ... return function(a) u(3) return a end", "1" },
    { "local x, u <const> = 1, ... return function(...) if false then local _=x end u(7) end", "2" },
    { "local u <const> = ... return function() do local _=_ENV end u(1) end", "2" },
    { "local u = ... return function() u(0) end", "0" },          /* id 0: an exit */
    { "local u = ... return function() print(1) end", "0" },
    { "local u = ... return function() local v = 1 u(1) end", "0" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n;
    int kind;
    cr_assert_eq(luaL_loadstring(L, cases[i][0]), LUA_OK, "%s", lua_tostring(L, -1));
    lua_call(L, 0, 1);
    for (int strip = 0; strip <= 1; strip++) {
      const char *d = dump_top(L, strip, &n);
      int up = li_bc_entry_probe(d, n, &kind);
      cr_expect_eq(up, atoi(cases[i][1]), "case %zu strip %d: upvalue %d", i, strip, up);
      if (up > 0 && strstr(cases[i][0], "<const>"))
        cr_expect_eq(kind, LI_BC_CONST, "case %zu", i);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  /* truncated and foreign input: nothing, and no read past the end */
  cr_assert_eq(luaL_loadstring(L, cases[0][0]), LUA_OK);
  lua_call(L, 0, 1);
  size_t n;
  int kind;
  const char *d = dump_top(L, 0, &n);
  for (size_t cut = 0; cut < n; cut++) {
    char *c = malloc(cut ? cut : 1);
    memcpy(c, d, cut);
    li_bc_entry_probe(c, cut, &kind);   /* valgrind/ASan would catch a read */
    free(c);
  }
  cr_expect_eq(li_bc_entry_probe("return 1", 8, &kind), 0);
  lua_close(L);
}

/* LuaJIT's dump of the function that the chunk src returns, compiled and
** dumped by the luajit on the PATH (tests/luajit/dump_top.lua); NULL when
** there is no luajit.  *n gets its length; free() the result. */
static char *luajit_dump(const char *src, int strip, size_t *n) {
  char path[] = "/tmp/li-ljdump-XXXXXX", cmd[1400];
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "luajit '%s/luajit/dump_top.lua' '%s' %s 2>/dev/null",
           LI_TEST_DIR, path, strip ? "strip" : "");
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t cap = 4096;
  char *d = malloc(cap);
  *n = 0;
  size_t k;
  while ((k = fread(d + *n, 1, cap - *n, p)) > 0)
    if ((*n += k) == cap) d = realloc(d, cap *= 2);
  int st = pclose(p);
  remove(path);
  if (st != 0 || *n == 0) { free(d); return NULL; }
  return d;
}

/* The same on LuaJIT's own dumps ("\x1bLJ", lj_bcdump.h): the opcodes and
** fields bytecode.c reads, the dead code of upvalue names (jumps around
** UGETs), ids too big for KSHORT, stripped dumps, and LuaJIT's immutable
** upvalues standing for 5.4's <const>. */
Test(bytecode, entry_probe_found_in_what_luajit_compiles) {
  static const struct { const char *src; int up, kind; } cases[] = {
    { "local u = ... return function(a) u(3) return a end", 1, LI_BC_CONST },
    { "local x, u = 1, ... return function(...) if false then local _=x end u(7) end", 2, LI_BC_CONST },
    { "local x, y, u = 1, 2, ... return function(...) if false then local _=x _=y end u(9) return x end", 3, LI_BC_CONST },
    { "local u = ... return function() u(40000) end", 1, LI_BC_CONST },     /* KNUM */
    { "local u = ... u = u return function() u(2) end", 1, LI_BC_REGULAR },
    { "local u = ... return function() u(0) end", 0, 0 },                   /* an exit */
    { "local u = ... return function() print(1) end", 0, 0 },
    { "local u = ... return function() local v = 1 u(1) end", 0, 0 },
    { "local u = ... return function() u(1, 2) end", 0, 0 },
    { "local u = ... return function() return u(1) end", 0, 0 },
  };
  size_t n;
  char *d = luajit_dump("return function() end", 0, &n);
  if (d == NULL) cr_skip_test("no luajit on the PATH");
  free(d);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int strip = 0; strip <= 1; strip++) {
      int kind = -5;
      d = luajit_dump(cases[i].src, strip, &n);
      cr_assert_not_null(d, "case %zu: luajit failed", i);
      cr_assert(n > 4 && memcmp(d, "\x1bLJ", 3) == 0, "case %zu: not a LuaJIT dump", i);
      int up = li_bc_entry_probe(d, n, &kind);
      cr_expect_eq(up, cases[i].up, "case %zu strip %d: upvalue %d", i, strip, up);
      if (up > 0) cr_expect_eq(kind, cases[i].kind, "case %zu strip %d: kind %d", i, strip, kind);
      free(d);
    }
  }
  /* what the rewriter writes in the jit dialect, the upvalues it names
  ** first in dead code before the probe's */
  li_rewrite_result r;
  cr_assert_eq(rewrite_str("local a, b = 1, 2\nreturn function(x)\n  return a + b + x\nend\n",
                           &r, LI_DIALECT_JIT), LI_OK);
  d = luajit_dump(r.out, 0, &n);
  cr_assert_not_null(d, "%s", r.out);
  int kind;
  cr_expect_eq(li_bc_entry_probe(d, n, &kind), 3, "%s", r.out);
  cr_expect_eq(kind, LI_BC_CONST);
  /* truncated input: nothing, and no read past the end */
  for (size_t cut = 0; cut < n; cut++) {
    char *c = malloc(cut ? cut : 1);
    memcpy(c, d, cut);
    cr_expect_eq(li_bc_entry_probe(c, cut, &kind), 0, "cut at %zu", cut);
    free(c);
  }
  /* another version byte or unknown flags: not read */
  d[3] = 1;
  cr_expect_eq(li_bc_entry_probe(d, n, &kind), 0);
  d[3] = 2; d[4] = (char)(d[4] | 0x40);
  cr_expect_eq(li_bc_entry_probe(d, n, &kind), 0);
  free(d);
  li_rewrite_free(&r);
}

/* The loader's form: the chunk is a main chunk again (what, lines,
** tracebacks), with _ENV as upvalue 1 and the probe as upvalue 2. */
Test(bytecode, loaders_form_is_a_main_chunk) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *src = "-- line 1\nlocal function f(x)\n  return x.y\nend\n"
                    "local info = debug.getinfo(1, 'S')\n"
                    "return info.what, info.linedefined, f\n";
  li_rewrite_opts o;
  li_rewrite_result r;
  int instrumented;
  memset(&o, 0, sizeof o);
  o.probe_upvalue = 1;
  cr_assert_eq(li_instrument_load(L, src, strlen(src), "@form.lua", "t", &o, &r, &instrumented), LUA_OK,
               "%s", lua_tostring(L, -1));
  cr_assert(instrumented);
  cr_assert(r.probe_upvalue);
  cr_assert_str_eq(lua_getupvalue(L, -1, 1), "_ENV");
  lua_pop(L, 1);
  cr_assert_str_eq(lua_getupvalue(L, -1, 2), "__LI");
  lua_pop(L, 1);
  cr_assert_null(lua_getupvalue(L, -1, 3));
  cr_assert_eq(luaL_dostring(L, "return function(_, ...) return select(2, ...) end"), LUA_OK);
  lua_setupvalue(L, -2, 2);            /* a do-nothing probe */
  cr_assert_eq(lua_pcall(L, 0, 3, 0), LUA_OK, "%s", lua_tostring(L, -1));
  cr_expect_str_eq(lua_tostring(L, -3), "main");
  cr_expect_eq(lua_tointeger(L, -2), 0);
  lua_pushnil(L);
  cr_assert_neq(lua_pcall(L, 1, 0, 0), LUA_OK);
  cr_expect_str_eq(lua_tostring(L, -1), "form.lua:3: attempt to index a nil value (local 'x')");
  li_rewrite_free(&r);
  lua_close(L);
}

/* The loader's form of each dialect (rewrite.h), and where the probe is:
** 5.1 has no _ENV and no `...` in its form, so a main level using `...`
** keeps the offline form (varargs of nested functions do not matter);
** LuaJIT's has `...` (no hidden `arg` there). */
Test(rules, loaders_form_of_each_dialect) {
  static const struct { int version; const char *src, *starts; int probe; } cases[] = {
    { 54, "print(1)", "local __LI <const> = ...;return function(...)do local _=_ENV end __LI(1);", 2 },
    { 53, "print(1)", "local __LI = ...;return function(...)do local _=_ENV end __LI(1);", 2 },
    { 52, "print(1)", "local __LI = ...;return function(...)do local _=_ENV end __LI(1);", 2 },
    { 51, "print(arg)", "local __LI = ...;return function() __LI(1);", 1 },
    { 51, "local f = function(...) return ... end", "local __LI = ...;return function() __LI(1);", 1 },
    { 51, "local a = ...", "local __LI=((\"\").__luainstr", 0 },
    { 51, "print(select('#', ...))", "local __LI=((\"\").__luainstr", 0 },
    { LI_DIALECT_JIT, "goto l ::l:: print(arg)", "local __LI = ...;return function(...) __LI(1);", 1 },
    { LI_DIALECT_JIT, "local a = ...", "local __LI = ...;return function(...) __LI(1);", 1 },
    { 53, "local a = ...", "local __LI = ...;return function(...)", 2 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    li_rewrite_opts o;
    li_rewrite_result r;
    memset(&o, 0, sizeof o);
    o.version = cases[i].version;
    o.probe_upvalue = 1;
    cr_assert_eq(li_rewrite(cases[i].src, strlen(cases[i].src), &o, &r), LI_OK, "case %zu", i);
    cr_expect(strncmp(r.out, cases[i].starts, strlen(cases[i].starts)) == 0,
              "case %zu: %s", i, r.out);
    cr_expect_eq(r.probe_upvalue, cases[i].probe, "case %zu", i);
    cr_expect_eq(strcmp(r.out + r.outlen - 4, " end") == 0, cases[i].probe != 0, "case %zu", i);
    li_rewrite_free(&r);
  }
}

/* A function holding more functions than the dialect's Lua compiles stops
** the rewriter (LI_ELIMIT), in both forms, in the main chunk and deeper;
** one fewer is rewritten.  (tests/cli/functions.sh checks the limits
** against the real interpreters.) */
Test(limits, too_many_functions) {
  static const struct { int version; size_t limit; } d[] = {
    {51, 262143}, {52, 262143}, {53, 262143}, {54, 131071}, {LI_DIALECT_JIT, 65536}};
  static const char fn[] = "f=function()end\n";
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
    for (int nested = 0; nested < 2; nested++)
      for (size_t n = d[i].limit; n <= d[i].limit + 1; n++) {
        size_t cap = 64 + n * (sizeof fn - 1), len = 0;
        char *src = malloc(cap);
        len += (size_t)sprintf(src, "%slocal f\n", nested ? "return function() " : "");
        for (size_t k = 0; k < n; k++) { memcpy(src + len, fn, sizeof fn - 1); len += sizeof fn - 1; }
        len += (size_t)sprintf(src + len, "%s", nested ? "end\n" : "");
        for (int upv = 0; upv < 2; upv++) {
          li_rewrite_opts o;
          li_rewrite_result r;
          memset(&o, 0, sizeof o);
          o.version = d[i].version;
          o.probe_upvalue = upv;
          int st = li_rewrite(src, len, &o, &r);
          if (n == d[i].limit) {
            cr_expect_eq(st, LI_OK, "dialect %d, %zu functions: status %d", d[i].version, n, st);
          } else {
            cr_expect_eq(st, LI_ELIMIT, "dialect %d, %zu functions: status %d", d[i].version, n, st);
            cr_expect_eq(r.errline, (uint32_t)(n + 1), "dialect %d: stops at line %u",
                         d[i].version, r.errline);
            cr_expect(strstr(r.errmsg, "too many functions") != NULL, "message: %s", r.errmsg);
          }
          li_rewrite_free(&r);
        }
        free(src);
      }
}

/* (helper-reject) A chunk Lua rejects after parsing stops the rewriter
** with LI_EREJECT, Lua's line and words (tests/reject checks them against
** the real interpreters); with no_reject_checks (the loader's net) it is
** rewritten as before, probes and all. */
Test(limits, rejected_after_parsing) {
  static const char src[] = "local function f()\n  goto nowhere\nend\nreturn f\n";
  static const struct { int version; uint32_t line; const char *msg; } d[] = {
    {52, 4, "no visible label 'nowhere' for <goto> at line 2"},
    {53, 4, "no visible label 'nowhere' for <goto> at line 2"},
    {54, 4, "no visible label 'nowhere' for <goto> at line 2"},
    {LI_DIALECT_JIT, 2, "undefined label 'nowhere'"}};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    li_rewrite_opts o;
    li_rewrite_result r;
    memset(&o, 0, sizeof o);
    o.version = d[i].version;
    int st = li_rewrite(src, sizeof src - 1, &o, &r);
    cr_expect_eq(st, LI_EREJECT, "dialect %d: status %d", d[i].version, st);
    cr_expect_eq(r.errline, d[i].line, "dialect %d: line %u", d[i].version, r.errline);
    cr_expect_str_eq(r.errmsg, d[i].msg, "dialect %d", d[i].version);
    li_rewrite_free(&r);
    o.no_reject_checks = 1;
    st = li_rewrite(src, sizeof src - 1, &o, &r);
    cr_expect_eq(st, LI_OK, "dialect %d, checks off: status %d", d[i].version, st);
    cr_expect(r.nins > 0 && strstr(r.out, "goto nowhere") != NULL, "dialect %d: not rewritten",
              d[i].version);
    li_rewrite_free(&r);
  }
}
