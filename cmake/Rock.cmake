# Rock.cmake -- the LuaRocks build (LUAINSTR_ROCK=ON; the rockspec at the
# top of the tree, docs/luarocks.md).  luarocks knows one Lua per build
# and names it by its headers' folder, LUA_INCDIR; which Lua that is comes
# from the headers themselves, as luarocks checks them (lua.h's
# LUA_VERSION_NUM, and luajit.h for LuaJIT), so the rockspec need not pass
# a version luarocks has no variable for.
#
# Sets LI_ROCK_LUA ("5.1" .. "5.4", or "jit") and LUA<vv>_INCLUDE_DIRS, and
# makes li_rock_lua, an interface target with the headers only: the module
# takes Lua's functions from the interpreter that loads it, so nothing is
# linked.  li_rock_finish() (called once every target exists) leaves only
# the module in `all` and installs it.

set(LUA_INCDIR "" CACHE PATH "The Lua headers' folder (luarocks' $(LUA_INCDIR))")
set(LUAINSTR_ROCK_LIBDIR "" CACHE PATH
  "Where the module is installed (luarocks' $(LIBDIR)); empty: lib/lua/VERSION under the prefix")

if(NOT LUA_INCDIR OR NOT EXISTS "${LUA_INCDIR}/lua.h")
  message(FATAL_ERROR "LUAINSTR_ROCK: no lua.h in LUA_INCDIR '${LUA_INCDIR}' "
    "(luarocks passes its $(LUA_INCDIR); Debian: liblua5.N-dev or libluajit-5.1-dev)")
endif()
file(STRINGS "${LUA_INCDIR}/lua.h" li_rock_num REGEX "^#define[ \t]+LUA_VERSION_NUM[ \t]+[0-9]+")
string(REGEX MATCH "[0-9]+$" li_rock_num "${li_rock_num}")
if(EXISTS "${LUA_INCDIR}/luajit.h" AND li_rock_num STREQUAL "501")
  set(LI_ROCK_LUA jit)
elseif(li_rock_num MATCHES "^50[1-4]$")
  string(SUBSTRING ${li_rock_num} 2 1 li_rock_minor)
  set(LI_ROCK_LUA 5.${li_rock_minor})
else()
  message(FATAL_ERROR "LUAINSTR_ROCK: ${LUA_INCDIR}/lua.h is Lua '${li_rock_num}' "
    "(LUA_VERSION_NUM): luainstr runs on Lua 5.1 to 5.4 and LuaJIT 2.1")
endif()
string(REPLACE "." "" li_rock_vv ${LI_ROCK_LUA})
set(LUA${li_rock_vv}_INCLUDE_DIRS "${LUA_INCDIR}")
add_library(li_rock_lua INTERFACE)
target_include_directories(li_rock_lua SYSTEM INTERFACE "${LUA_INCDIR}")
message(STATUS "luainstr: LuaRocks build: the module for Lua ${LI_ROCK_LUA} (headers ${LUA_INCDIR})")

# Every target but the module leaves `all` (what luarocks builds), so the
# rock compiles only what luainstr.so is made of; the module is the one
# thing installed.
function(li_rock_finish)
  get_property(targets DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    if(NOT t STREQUAL "luainstr_module")
      set_property(TARGET ${t} PROPERTY EXCLUDE_FROM_ALL ON)
    endif()
  endforeach()
  if(LUAINSTR_ROCK_LIBDIR)
    set(dest "${LUAINSTR_ROCK_LIBDIR}")
  elseif(LI_ROCK_LUA STREQUAL "jit")
    set(dest ${CMAKE_INSTALL_LIBDIR}/lua/5.1)     # (where luajit looks)
  else()
    set(dest ${CMAKE_INSTALL_LIBDIR}/lua/${LI_ROCK_LUA})
  endif()
  install(TARGETS luainstr_module LIBRARY DESTINATION "${dest}")
endfunction()
