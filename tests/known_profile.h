/*
** known_profile.h -- the known profile the report tests share: functions
** in no particular order, as the model allows, with names holding quotes,
** commas, line breaks, markup and bytes that are not UTF-8, and a small
** call tree whose times add up (li_profile_check), as every report's must:
**   main chunk          total 1300014999 ns, self 100 ms
**     M.parse           total 1200 ms, self 800 ms
**       t["a,b"]        total 400 ms, self 400 ms
**     <script>...       total 5 us, self 5 us
**     multi...          total 9999 ns, self 5 us
**       caf\xe9...       total 4999 ns, self 4999 ns
**     " spaced "        0 ns
** Array initializers, so that a test can add entries after them.
** Report order, by self time desc, then total desc, then name (bytes):
**   3 M.parse (800 ms), 6 t["a,b"] (400 ms), 4 main chunk (100 ms),
**   7 multi... (5 us, total 9999 ns), 5 <script>... (5 us, total 5 us),
**   2 caf\xe9... (4999 ns), 1 " spaced " (0); 0 "never" has no calls and
**   is left out.
*/
#ifndef LI_KNOWN_PROFILE_H
#define LI_KNOWN_PROFILE_H

#define LI_KNOWN_FUNCS \
  { "never", "main.lua", 0, 50, 52, 0, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0 }, \
  { " spaced ", "sp ace.lua", 0, 1, 1, 1, 0, 0, 0, 0, 0, {0}, 0, 0, 0, 0, 0 }, \
  { "caf\xe9 \xcf\x80", "utf.lua", 0, 20, 22, 7, 0, 4999, 4999, 700, 800, {0}, 0, 0, 0, 0, 0 }, \
  { "M.parse", "main.lua", 0, 10, 40, 1000, 2, 1200000000, 800000000, 500000, 3456789, {0}, 0, 0, 0, 0, 0 }, \
  { "main chunk", "main.lua", 0, 0, 0, 1, 0, 1300014999, 100000000, 1300014999, 1300014999, {0}, 0, 0, 0, 0, 0 }, \
  { "<script>alert(1);</script>", "web.lua", 0, 7, 9, 3, 0, 5000, 5000, 1000, 2500, {0}, 0, 0, 0, 0, 0 }, \
  { "t[\"a,b\"]", "[string \"x\"]", 0, 3, 5, 250000, 1, 400000000, 400000000, 999, 999999, {0}, 0, 0, 0, 0, 0 }, \
  { "multi\nline\r\n\tname", "dir,x/odd.lua", 0, 30, 31, 3, 3, 9999, 5000, 2000, 4000, {0}, 0, 0, 0, 0, 0 }

#define LI_KNOWN_NODES \
  { UINT32_MAX, 0, 0, 0, 0, 0, {0}, 0, 0 }, \
  { 4, 0, 1, 0, 1300014999, 100000000, {0}, 0, 0 }, \
  { 3, 1, 1000, 2, 1200000000, 800000000, {0}, 0, 0 }, \
  { 6, 2, 250000, 1, 400000000, 400000000, {0}, 0, 0 }, \
  { 5, 1, 3, 0, 5000, 5000, {0}, 0, 0 }, \
  { 7, 1, 3, 3, 9999, 5000, {0}, 0, 0 }, \
  { 2, 5, 7, 0, 4999, 4999, {0}, 0, 0 }, \
  { 1, 1, 1, 0, 0, 0, {0}, 0, 0 }

#endif
