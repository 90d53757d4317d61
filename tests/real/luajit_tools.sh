#!/usr/bin/env bash
# LuaJIT's own tools (Debian's luajit: jit/*.lua beside the interpreter),
# real Lua code that uses what only LuaJIT has, under luajit and under
# luaprofjit (each tool instrumented): jit.bcsave writing ELF objects
# through FFI structs and listing bytecode with jit.bc, jit.v and jit.dump
# watching traces through jit.attach and jit.util, and jit.dis_x86
# decoding machine code with the bit library.  Each command's stdout,
# stderr and exit status must be the same, and so must every file it
# writes; the reports must name functions of the tools.
#
# The tools look at jit_target.lua (beside this script), which luaprofjit
# leaves alone (--exclude jit_target.lua), so that both sides trace and
# save the same bytecode; the command `run` instruments it too.  The
# commands, as `LUA ARGS` and
# `LUAPROF -f csv -o REPORT --exclude jit_target.lua ARGS`, from the root
# of a fresh folder holding jit_target.lua and text.bin:
#   run      jit_target.lua                 (instrumented: its checksum)
#   verbose  -e 'require("jit.v").start("out/v.txt")' jit_target.lua
#   dump     -e 'require("jit.dump").start("tbirs", "out/dump.txt")' jit_target.lua
#   bclist   -e 'require("jit.bcsave").start("-l", "jit_target.lua")'
#   elf      -e '... start("-t", "o", "-n", "target", "jit_target.lua", "out/target.o")'
#   csrc     -e '... start("-g", "-t", "c", "-n", "target", "jit_target.lua", "out/target.c")'
#   disasm   -e 'require("jit.dis_x64").disass(TEXT, 0x1000, io.write)'
#            (TEXT: 64 KiB of the .text of the luajit binary itself, found
#            in objdump's section table; skipped, and said, without objdump)
# Normalised, in out/dump.txt only: jit.dump prints addresses (0x...) and
# the hash slots of constant keys (HREFK ... @N), which change from run to
# run of luajit itself (ASLR, the string hash seed); both become 0x@ and
# @N.  Nothing else is normalised but what common.sh's run_side does.
#
# Which traces LuaJIT compiles can depend on memory layout (hot counters
# are shared by bytecode addresses): jit_target.lua has few loops, and
# luajit compiles the same four traces in every run.
#
# usage: luajit_tools.sh LUAPROF_BIN [LUA]
#   LUAPROF_BIN  luaprofjit
#   LUA          the stock luajit it is built for (default luajit)
# (LI_LUAPROF_FLAGS: more luaprof options, split at spaces: --memory.)
set -u
set -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 2
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 LUAPROF_BIN [LUA]" >&2; exit 2; }
# shellcheck source=tests/real/common.sh
. "$here/common.sh"
real_init luajit_tools.sh "$1" /nonexistent "${2:-luajit}"

# The tools of this interpreter: those installed beside it
# (PREFIX/share/luajit-*/), first on both sides' path.  Debian's luajit
# looks there anyway; OpenResty's, unpacked elsewhere by scripts/luajit2.sh,
# would find Debian's (its built-in path names the same folder), whose
# jit/vmdef.lua describes another VM's bytecode.
bin=$(readlink -f "$(command -v "$lua")")
share=$(ls -d "$(dirname "$bin")"/../share/luajit-*/jit 2>/dev/null | head -n 1)
if [ -n "$share" ]; then
  share=$(cd "$share/.." && pwd)
  export LUA_PATH="$share/?.lua;;"
fi
if ! "$lua" -e 'require "jit.bcsave" require "jit.dump" require "jit.v"' </dev/null; then
  echo "$prog: FAIL: $lua finds no jit.* tools (Debian's luajit installs them)" >&2
  exit 1
fi
target=jit_target.lua
names=(run verbose dump bclist elf csrc)

# 64 KiB of machine code: the start of the .text section of the luajit
# binary (the same bytes for both sides).
text=
if command -v objdump >/dev/null 2>&1; then
  text=$(objdump -h "$bin" | awk '$2 == ".text" { print $6 }')
fi
if [ -n "$text" ]; then
  dd if="$bin" of="$tmp/text.bin" iflag=skip_bytes,count_bytes skip=$((16#$text)) \
     count=65536 status=none || exit 2
  names+=(disasm)
else
  echo "$prog: no objdump, or no .text in $bin: the disasm command is skipped"
fi

save='require("jit.bcsave").start'
run=$tmp/run
out=$tmp/out
for side in ref prof; do
  rm -rf -- "$run" && mkdir -p "$run/out" && cp -- "$here/$target" "$run/" || exit 2
  [ -n "$text" ] && cp -- "$tmp/text.bin" "$run/"
  cd "$run" || exit 2
  for k in "${names[@]}"; do
    mkdir -p "$out/$k"
    if [ $side = ref ]; then cmd=("$lua")
    else cmd=("$prof" ${LI_LUAPROF_FLAGS:-} -f csv -o "$out/$k/report.csv")
         [ $k = run ] || cmd+=(--exclude "$target"); fi
    case $k in
      run) args=("$target") ;;
      verbose) args=(-e 'require("jit.v").start("out/v.txt")' "$target") ;;
      dump) args=(-e 'require("jit.dump").start("tbirs", "out/dump.txt")' "$target") ;;
      bclist) args=(-e "$save(\"-l\", \"$target\")") ;;
      elf) args=(-e "$save(\"-t\", \"o\", \"-n\", \"target\", \"$target\", \"out/target.o\")") ;;
      csrc) args=(-e "$save(\"-g\", \"-t\", \"c\", \"-n\", \"target\", \"$target\", \"out/target.c\")") ;;
      disasm) args=(-e 'local f = assert(io.open("text.bin", "rb"))
                        local code = f:read("*a") f:close()
                        require("jit.dis_x64").disass(code, 0x1000, io.write)') ;;
    esac
    timed_side "$out/$k" $side "${cmd[@]}" "${args[@]}"
  done
  if [ -f out/dump.txt ]; then
    mv -- out/dump.txt out/dump.txt.raw
    sed -E 's/0x[0-9a-f]+/0x@/g; s/ @[0-9]+/ @N/g' out/dump.txt.raw >out/dump.txt
  fi
  cd "$tmp" || exit 2
  mv -- "$run" "$tmp/$side.tree" || exit 2
done

msgs=
for k in "${names[@]}"; do
  m=$(differs "$out/$k")
  [ -n "$m" ] && msgs+=$'\n'"  [$k]"$'\n'"$m"
done
if ! diff -r -x '*.raw' "$tmp/ref.tree" "$tmp/prof.tree" >"$out/tree.diff"; then
  msgs+=$'\n'"  --- written files differ (diff -r $lua luaprof):"
  msgs+=$'\n'"$(head -n "${LI_DIFF_LINES:-40}" "$out/tree.diff" | sed 's/^/    /')"
fi
m=$(report_lacks "$out/run/report.csv" "jit_target.lua:jit_target\.lua"
    report_lacks "$out/verbose/report.csv" "jit.v:/jit/v\.lua"
    report_lacks "$out/dump/report.csv" "jit.dump:/jit/dump\.lua"
    report_lacks "$out/bclist/report.csv" "jit.bc:/jit/bc\.lua"
    report_lacks "$out/elf/report.csv" "jit.bcsave:/jit/bcsave\.lua"
    [ -n "$text" ] && report_lacks "$out/disasm/report.csv" "jit.dis_x86:/jit/dis_x86\.lua")
[ -n "$m" ] && msgs+=$'\n'"$m"
# The excluded target must stay out of the tools' reports.
if grep -q 'jit_target\.lua' "$out/dump/report.csv" 2>/dev/null; then
  msgs+=$'\n'"  the report of dump names jit_target.lua, which --exclude leaves alone"
fi
# The reference must have done its job.
traces=$(grep -c '^\[TRACE ' "$tmp/ref.tree/out/v.txt" 2>/dev/null)
for f in out/v.txt out/dump.txt out/target.o out/target.c; do
  [ -s "$tmp/ref.tree/$f" ] || msgs+=$'\n'"  $lua wrote no $f"
done
[ "${traces:-0}" -gt 0 ] || msgs+=$'\n'"  jit.v saw no trace under $lua"

dis=
[ -n "$text" ] && dis=", $(wc -l <"$out/disasm/ref.stdout") instructions disassembled"
echo "luajit tools: ${#names[@]} commands, ${traces:-0} traces of $target," \
     "$(wc -l <"$out/bclist/ref.stdout") lines of bytecode," \
     "$(wc -c <"$tmp/ref.tree/out/target.o") bytes of ELF object$dis"
[ -n "$share" ] || share="the path built into $lua"
echo "jit.* from $share"
echo "run time: $lua ${ms_ref} ms, $(basename "$prof") ${ms_prof} ms"
if [ -z "$msgs" ]; then
  echo "ok   luajit tools: stdout, stderr, exit status and written files identical in ${#names[@]} commands; reports written"
  exit 0
fi
echo "FAIL luajit tools"
printf '%s\n' "$msgs"
exit 1
