#!/usr/bin/env bash
# hostile.sh BUILD_BIN -- the readers of reports and snapshots against
# input made to exhaust them (issue 33): each must refuse with a clear
# message in bounded memory.
#   - a 64 KB gzip of 32 million empty pprof samples (64 MB inflated):
#     protobuf-c's decoding took about 28 times the inflated bytes (a 255
#     KB file 7.25 GB); refused, saying so, within 1.5 GB of memory;
#   - /dev/zero, which never ends, as a report to `luainstr merge` and as
#     a snapshot to `luaheap summary`: read until memory ran out; refused
#     past 1 GiB;
#   - reports and snapshots crafted to make the readers' tables and scans
#     quadratic (below).
# Prints a line a case; exits 1 if any failed.
set -uo pipefail
bin=$(cd "$1" && pwd)
command -v python3 >/dev/null || { echo "hostile.sh: needs python3" >&2; exit 2; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
failed=0

# run LIMIT_MB WANT_TEXT CMD...: CMD fails (status 1..125) saying WANT_TEXT,
# its peak resident memory under LIMIT_MB
run() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys
limit, want, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
why = []
if not 0 < r.returncode < 126:
    why.append("status %d" % r.returncode)
if want not in r.stderr:
    why.append("no %r in: %s" % (want, r.stderr.strip()[:300]))
if peak > limit:
    why.append("peak memory %d MB, over %d" % (peak, limit))
print(("FAIL %s: %s" % (cmd[-1], "; ".join(why))) if why else
      "ok   %s: %s (peak %d MB)" % (cmd[-1], r.stderr.strip().splitlines()[-1][:160], peak))
sys.exit(1 if why else 0)
PY
}

python3 - "$t/empty_samples.pb.gz" <<'PY'
import gzip, sys
open(sys.argv[1], "wb").write(gzip.compress(b"\x12\x00" * (32 << 20), 9))
PY
if [ -x "$bin/luainstr" ] && "$bin/luainstr" merge --help 2>&1 | grep -q pprof; then
  run 1536 "more than 1024 MiB" "$bin/luainstr" merge -f json -o "$t/out.json" \
      "$t/empty_samples.pb.gz" || failed=1
else
  echo "skip empty_samples.pb.gz: no pprof reader in this build"
fi
run 1536 "File too large" "$bin/luainstr" merge -f json -o "$t/out.json" /dev/zero || failed=1
if [ -x "$bin/luaheap" ]; then
  run 1536 "File too large" "$bin/luaheap" summary /dev/zero || failed=1
fi
[ -e "$t/out.json" ] && { echo "FAIL: a report was written"; failed=1; }

# Input crafted for the readers' hash tables and scans, each against a
# control of the same size that is not (tests/merge/gen_hostile.py), 20,000
# of each: the merge's functions (lines differing in high bits only) and
# warnings (distinct, each scanned against all before: at 40,000, 27 s
# against 0.33 for the same one repeated), luaheap diff's ids (in one slot
# of an unkeyed hash: at 40,000, 5.8 s against 0.27).  Time is judged against the control in the same
# run, the least of 5 runs of each in turn: crafted at most 5 times it
# (quadratic was 20-80).
printf 'local function f(x) return x end\nfor i = 1, 3 do f(i) end\n' >"$t/small.lua"
"$bin/luaprof" -f json -o "$t/small.json" "$t/small.lua" || { echo "FAIL: luaprof"; exit 1; }
python3 "$(dirname "${BASH_SOURCE[0]}")/gen_hostile.py" "$t/small.json" "$t" 20000 || exit 1
python3 - "$bin" "$t" <<'PY' || failed=1
import subprocess, sys, time
bin, t = sys.argv[1], sys.argv[2]
def once(cmd):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit("FAIL %s: status %d: %s" % (cmd, r.returncode, r.stderr[:300]))
    return time.monotonic() - t0
def pair(cmd):
    # control and crafted in turn, 5 times; the least of each (other work
    # on the machine only ever adds time, while a quadratic table costs
    # its time in every run)
    c, k = [], []
    for _ in range(5):
        c.append(once(cmd("control")))
        k.append(once(cmd("crafted")))
    return min(c), min(k)
cases = [("merge's functions", lambda v: [bin + "/luainstr", "merge", "-f", "json", "-o",
          t + "/o.json", t + "/funcs_%s.json" % v, t + "/funcs_%s.json" % v]),
         ("merge's warnings", lambda v: [bin + "/luainstr", "merge", "-f", "json", "-o",
          t + "/o.json", t + "/warn_%s.json" % v, t + "/warn_%s.json" % v]),
         ("luaheap diff's ids", lambda v: [bin + "/luaheap", "diff",
          t + "/ids_%s.heapsnapshot" % v, t + "/ids_%s.heapsnapshot" % v])]
bad = 0
for name, cmd in cases:
    c, k = pair(cmd)
    ok = k <= 5 * c
    bad += not ok
    print("%s %s: crafted %.2f s, control %.2f s (x%.1f)" % ("ok  " if ok else "FAIL", name, k, c, k / c))
sys.exit(1 if bad else 0)
PY
exit $failed
