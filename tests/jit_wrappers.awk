# jit_wrappers.awk -- drop the first of two traceback lines that LuaJIT's
# pcall/xpcall wrappers show under the profiler (runtime/boundary.c):
# "[C]: in function 'pcall'" (the original's) directly followed by another
# "[C]: in function ..." line (the wrapper's).  Used on the profiled side
# by tests/behaviour/run_luaprof.sh and tests/real/common.sh
# (LI_JIT_WRAPPERS=1).
BEGIN { t = "\t" }
held != "" { if (index($0, t "[C]: in function ") != 1) print held; held = "" }
$0 == t "[C]: in function 'pcall'" || $0 == t "[C]: in function 'xpcall'" { held = $0; next }
{ print }
END { if (held != "") print held }
