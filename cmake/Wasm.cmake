# Wasm.cmake -- link settings of the WebAssembly build (emscripten), included
# by CMakeLists.txt under emcmake.
#
# li_wasm_node_program(TARGET): TARGET becomes one .js file (the wasm
# inside, base64: node 20 cannot fetch a file:// .wasm with emscripten
# 3.1.6's glue) that node runs as the native program runs: the real file
# system (NODERAWFS), the process environment, exit status from exit() and
# os.exit, memory that grows as Lua needs.

set(LI_WASM_COMMON_LINK
  -sSINGLE_FILE=1
  -sALLOW_MEMORY_GROWTH=1
  # Lua's parser and the rewriter recurse up to Lua's 200 C levels
  -sTOTAL_STACK=8388608
  # the profiler's clock (runtime/clock.c: liClockInto, Module.liClock)
  "SHELL:--pre-js ${CMAKE_CURRENT_LIST_DIR}/wasm-clock.js")

function(li_wasm_node_program target)
  target_link_options(${target} PRIVATE ${LI_WASM_COMMON_LINK}
    -sENVIRONMENT=node
    -sNODERAWFS=1
    -sEXIT_RUNTIME=1
    -sEXPORTED_RUNTIME_METHODS=ENV
    "SHELL:--pre-js ${PROJECT_SOURCE_DIR}/cmake/wasm-node-env.js")
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
    ${PROJECT_SOURCE_DIR}/cmake/wasm-node-env.js ${PROJECT_SOURCE_DIR}/cmake/wasm-clock.js)
endfunction()

li_wasm_node_program(luaprof)
li_wasm_node_program(luainstr)
li_wasm_node_program(lua)

# EM_ASM (luaprof.c asks node whether stdin is a terminal) needs gnu99.
set_target_properties(luaprof PROPERTIES C_EXTENSIONS ON)

# ---- the bench (bench/run.sh --wasm BUILD_WASM_DIR) ------------------------
# bench_host.js: the runtime-overhead bench's host (bench/bench_host.c, every
# mode) for node, so that the modes are compared inside one WebAssembly
# engine as they are natively.
add_executable(bench_host ${PROJECT_SOURCE_DIR}/bench/bench_host.c)
target_link_libraries(bench_host PRIVATE luainstr_static li_runtime li_rewriter)
target_compile_options(bench_host PRIVATE ${LI_WARNINGS})
li_wasm_node_program(bench_host)
# bench_host_web.js: the same host for a page (bench/wasm/chromium.js runs
# it in headless Chromium, the script put into the in-memory file system
# first): the Chromium columns of bench/run.sh --wasm.
add_executable(bench_host_web ${PROJECT_SOURCE_DIR}/bench/bench_host.c)
target_link_libraries(bench_host_web PRIVATE luainstr_static li_runtime li_rewriter)
target_compile_options(bench_host_web PRIVATE ${LI_WARNINGS})
target_link_options(bench_host_web PRIVATE ${LI_WASM_COMMON_LINK}
  -sENVIRONMENT=web -sEXIT_RUNTIME=1 -sFORCE_FILESYSTEM=1)
# clock_cost.js: ns per read and resolution of the clocks a probe can use,
# in node and (the same file) in a page (no files, so not
# li_wasm_node_program: its pre-js needs the file system).
add_executable(clock_cost ${PROJECT_SOURCE_DIR}/bench/wasm/clock_cost.c)
target_link_options(clock_cost PRIVATE ${LI_WASM_COMMON_LINK} -sENVIRONMENT=node,web
  -sEXIT_RUNTIME=1)
set_property(TARGET bench_host_web clock_cost APPEND PROPERTY LINK_DEPENDS
  ${PROJECT_SOURCE_DIR}/cmake/wasm-clock.js)
# ---- end of the bench ------------------------------------------------------
