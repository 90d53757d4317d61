# LuaFromSource.cmake -- Lua 5.3 or 5.4 built inside the project from the
# source folder LUAINSTR_LUA_SOURCE (included by CMakeLists.txt when it is
# set).  The version is lua.h's (LUA_VERSION_MAJOR/MINOR).  Gives
#   LI_SOURCE_LUA_VERSION  "5.3" or "5.4": the one Lua of the build
#   li_lua   Lua's library (core and standard libraries), static; its
#            include directory is the source folder, so no lua5.N.pc of
#            the host is ever consulted
#   lua      the stand-alone interpreter (lua.c) linked with it: bin/lua,
#            or bin/lua.js under emscripten
# Built as Debian builds lua5.N (5.4: LUA_COMPAT_5_3; 5.3: LUA_COMPAT_5_2,
# which keeps bit32 and the 5.2 math functions; POSIX functions), so that
# a program behaves as under the system's lua5.N.

set(LI_LUA_SRC ${LUAINSTR_LUA_SOURCE})
if(NOT EXISTS ${LI_LUA_SRC}/lua.h OR NOT EXISTS ${LI_LUA_SRC}/lapi.c)
  message(FATAL_ERROR "LUAINSTR_LUA_SOURCE=${LI_LUA_SRC}: no Lua source there (lua.h, lapi.c)")
endif()
file(STRINGS ${LI_LUA_SRC}/lua.h LI_LUA_VERSION_LINES
     REGEX "^#define LUA_VERSION_(MAJOR|MINOR)[ \t]")
set(LI_SOURCE_LUA_VERSION)
if(LI_LUA_VERSION_LINES MATCHES "MAJOR[ \t]+\"([0-9]+)\".*MINOR[ \t]+\"([0-9]+)\"")
  set(LI_SOURCE_LUA_VERSION ${CMAKE_MATCH_1}.${CMAKE_MATCH_2})
endif()
# (5.1's and 5.2's file lists and compat flags differ again, and no build
# from source needs them: the native builds link Debian's packages.)
if(NOT LI_SOURCE_LUA_VERSION MATCHES "^5\\.[34]$")
  message(FATAL_ERROR "LUAINSTR_LUA_SOURCE=${LI_LUA_SRC}: Lua '${LI_SOURCE_LUA_VERSION}' "
                      "(lua.h: ${LI_LUA_VERSION_LINES}); a build from source takes 5.3 or 5.4")
endif()

# The library: lua.c and luac.c are programs, the rest is liblua
# (ORDER: as CORE_O and LIB_O of Lua's src/Makefile).
set(LI_LUA_FILES
  lapi.c lcode.c lctype.c ldebug.c ldo.c ldump.c lfunc.c lgc.c llex.c
  lmem.c lobject.c lopcodes.c lparser.c lstate.c lstring.c ltable.c ltm.c
  lundump.c lvm.c lzio.c
  lauxlib.c lbaselib.c lcorolib.c ldblib.c liolib.c lmathlib.c loadlib.c
  loslib.c lstrlib.c ltablib.c lutf8lib.c linit.c)
if(LI_SOURCE_LUA_VERSION STREQUAL "5.3")
  list(APPEND LI_LUA_FILES lbitlib.c)     # bit32 (under LUA_COMPAT_5_2)
  set(LI_LUA_COMPAT LUA_COMPAT_5_2)
else()
  set(LI_LUA_COMPAT LUA_COMPAT_5_3)
endif()
list(TRANSFORM LI_LUA_FILES PREPEND ${LI_LUA_SRC}/)
add_library(li_lua STATIC ${LI_LUA_FILES})
set_target_properties(li_lua PROPERTIES OUTPUT_NAME lua
  ARCHIVE_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib)
target_include_directories(li_lua PUBLIC ${LI_LUA_SRC})
# Lua's own code is C89-clean but not warning-free under our flags.
target_compile_options(li_lua PRIVATE -w)
target_compile_definitions(li_lua PUBLIC ${LI_LUA_COMPAT})
if(EMSCRIPTEN)
  # POSIX (mkstemp, popen, ...) but no dlopen: C modules cannot be loaded
  # in a static WebAssembly program, and `require` says so.
  target_compile_definitions(li_lua PRIVATE LUA_USE_POSIX)
else()
  target_compile_definitions(li_lua PRIVATE LUA_USE_LINUX)
  target_link_libraries(li_lua PUBLIC ${CMAKE_DL_LIBS})
endif()
target_link_libraries(li_lua PUBLIC m)

# Debian's source (its patch of the module paths) makes luaconf.h include
# a header its build generates, lua5.N-deb-multiarch.h, naming the
# multiarch triplet of C module paths; make it here when the tree has none.
set(LI_LUA_MULTIARCH_H lua${LI_SOURCE_LUA_VERSION}-deb-multiarch.h)
file(READ ${LI_LUA_SRC}/luaconf.h LI_LUACONF)
string(FIND "${LI_LUACONF}" "${LI_LUA_MULTIARCH_H}" LI_LUACONF_AT)
if(LI_LUACONF_AT GREATER -1 AND NOT EXISTS ${LI_LUA_SRC}/${LI_LUA_MULTIARCH_H})
  if(EMSCRIPTEN)
    set(LI_LUA_MULTIARCH wasm32-emscripten)
  elseif(CMAKE_LIBRARY_ARCHITECTURE)
    set(LI_LUA_MULTIARCH ${CMAKE_LIBRARY_ARCHITECTURE})
  else()
    set(LI_LUA_MULTIARCH ${CMAKE_SYSTEM_PROCESSOR}-linux-gnu)
  endif()
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/lua-include)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/lua-include/${LI_LUA_MULTIARCH_H}
       CONTENT "/* made by luainstr's cmake/LuaFromSource.cmake */\n#define DEB_HOST_MULTIARCH \"${LI_LUA_MULTIARCH}\"\n")
  target_include_directories(li_lua PUBLIC ${PROJECT_BINARY_DIR}/lua-include)
endif()

# The plain interpreter, for comparisons in the same engine.
add_executable(lua ${LI_LUA_SRC}/lua.c)
target_compile_options(lua PRIVATE -w)
target_compile_definitions(lua PRIVATE $<IF:$<BOOL:${EMSCRIPTEN}>,LUA_USE_POSIX,LUA_USE_LINUX>)
target_link_libraries(lua PRIVATE li_lua)
