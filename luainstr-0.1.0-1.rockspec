-- luainstr as a rock: the Lua module luainstr.so (with luainstr.run) for
-- the Lua luarocks targets, built by CMake in its LuaRocks mode
-- (LUAINSTR_ROCK, cmake/Rock.cmake).  From a checkout:
--     luarocks [--lua-version 5.N] make
-- docs/luarocks.md says what the build needs (Debian: cmake re2c lemon gcc
-- and the Lua's -dev package).  The version here (file name and `version`)
-- is CMake's project() version: tests/rocks/version.sh checks it.
rockspec_format = "3.0"
package = "luainstr"
version = "0.1.0-1"
source = {
   -- Not published yet: `luarocks make` in a checkout does not read this.
   url = "git+https://luainstr.invalid/luainstr.git",
   tag = "v0.1.0",
}
description = {
   summary = "A source-instrumenting Lua profiler",
   detailed = [[
luainstr rewrites each Lua chunk as it is loaded so that every function of
user code is measured by an entry and an exit probe (no debug hook).  The
rock installs the module: `require "luainstr"` in a program, or
`lua -l luainstr.run script.lua` to profile a whole script.
]],
   labels = { "profiler", "profiling" },
}
dependencies = {
   "lua >= 5.1, < 5.5",
}
build = {
   type = "cmake",
   variables = {
      LUAINSTR_ROCK = "ON",
      LUA_INCDIR = "$(LUA_INCDIR)",
      LUAINSTR_ROCK_LIBDIR = "$(LIBDIR)",
      CMAKE_INSTALL_PREFIX = "$(PREFIX)",
      BUILD_TESTING = "OFF",
   },
}
