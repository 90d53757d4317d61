#!/usr/bin/env bash
# run.sh BUILD_BIN -- `luainstr merge` and the json reader (docs/merge.md)
# on reports real programs wrote:
#   - round trip: every behaviour program's json report (and a third of
#     them in memory mode), and known.lua's in frame mode (frames, spikes), trace mode and
#     memory mode, read back and written as json is the same file byte for
#     byte (`luainstr merge -f json` of one report);
#   - sums: known.lua run with three N in three modes, merged: each
#     function's calls, errors, times and memory figures in the merged csv
#     are the sums (min, max: the least, the most) of the three csv reports
#     the runs wrote beside their json (the same stopped profile), and the
#     calls are the ones N gives; a report merged with itself doubles;
#   - every format is written from a merge; frames, spikes and traces are
#     left out with a warning;
#   - json and pprof mixed (in builds that write pprof): the pprof report
#     read back holds the run's csv figures, and a merge of json and pprof
#     reports their sums; the default format is the first report's;
#   - bad input: bad_input (every truncation of each report, garbled
#     copies), missing and foreign files, usage errors, exit statuses.
set -euo pipefail
bin=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
beh=$here/../behaviour/lua54
luaprof=$bin/luaprof
luainstr=$bin/luainstr
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || {
  if [[ -n ${CI:-} ]]; then fail "python3 not found (scripts/deps.sh)"; fi
  echo "SKIP: python3 not found"; exit 0; }

# --- round trip ------------------------------------------------------------
n=0 k=0
for f in "$beh"/*.lua; do
  k=$((k + 1))
  modes=("")
  [[ $((k % 3)) == 0 ]] && modes+=(--memory)   # (all: seconds more)
  for mode in "${modes[@]}"; do
    b=$(basename "$f" .lua)$mode
    # (a program may fail on purpose: its report is written all the same)
    (cd "$beh" && "$luaprof" -f json -o "$t/$b.json" $mode "$f" \
       </dev/null >/dev/null 2>&1) || true
    [[ -s $t/$b.json ]] || continue
    "$luainstr" merge -f json -o "$t/rt.json" "$t/$b.json" ||
      fail "$b: luainstr merge cannot read the report it wrote"
    cmp -s "$t/$b.json" "$t/rt.json" ||
      fail "$b: read back and written as json, the report differs: $(diff "$t/$b.json" "$t/rt.json" | head -5)"
    n=$((n + 1))
  done
done
[[ $n -ge 120 ]] || fail "only $n behaviour reports to read back"
rm -f "$t"/*.json

# known.lua N OUT [luaprof options]
known() {
  local nn=$1 out=$2; shift 2
  (cd "$here" && "$luaprof" "$@" known.lua "$nn" "$t/$out" >/dev/null 2>&1) ||
    fail "known.lua $nn ($*) failed"
}
known 3 plain
known 5 mem --memory
known 8 frames --frames --memory --trace
known 6 trace --trace=recent:50
python3 - "$t" <<'EOF' || fail "known.lua's reports do not hold what the test needs"
import json, sys
d = json.load(open(sys.argv[1] + "/frames.json"))
assert d["frames"] and d["spikes"] and d["trace"] and d["summary"]["memory"], "frames.json"
d = json.load(open(sys.argv[1] + "/trace.json"))
assert d["trace"] and d["summary"]["events_dropped"] > 0, "trace.json: a ring that wrapped"
EOF
for r in plain mem frames trace; do
  "$luainstr" merge -f json -o "$t/rt.json" "$t/$r.json" &&
    cmp -s "$t/$r.json" "$t/rt.json" ||
    fail "$r: read back and written as json, the report differs"
  n=$((n + 1))
done
echo "round trip: $n reports read back and written byte for byte the same"

# --- sums -------------------------------------------------------------------
"$luainstr" merge -f csv -o "$t/sum.csv" "$t/plain.json" "$t/mem.json" "$t/frames.json"
"$luainstr" merge -f csv -o "$t/twice.csv" "$t/mem.json" "$t/mem.json"
for r in plain mem frames; do   # each json report alone, as csv
  "$luainstr" merge -f csv -o "$t/$r.read.csv" "$t/$r.json"
done
PYTHONPATH=$here python3 - "$t" <<'EOF' || fail "the merged figures are not the sums of the inputs'"
import csv, sys
t = sys.argv[1]
from mergecheck import rows, check_min_max
# the json as read holds what the run's own csv says: counts and bytes
# exactly, times to the ns but for the clock's conversion, which the
# runtime recalibrates at each dump (a few ns in a million)
for n in ("plain", "mem", "frames"):
    run, read = rows(f"{t}/{n}.csv"), rows(f"{t}/{n}.read.csv")
    assert set(run) == set(read), n
    for k in run:
        for c in run[k]:
            a, b = run[k][c], read[k][c]
            if c.endswith("_ns"):
                assert abs(int(a) - int(b)) <= max(2, int(a) // 10000), (n, k, c, a, b)
            else:
                assert a == b, (n, k, c, a, b)
ins = [rows(f"{t}/{n}.read.csv") for n in ("plain", "mem", "frames")]
out = rows(f"{t}/sum.csv")
keys = set().union(*ins)
assert set(out) == keys, (sorted(out), sorted(keys))
summed = ["calls", "total_ns", "self_ns", "errors", "alloc_bytes",
          "alloc_count", "free_bytes", "live_bytes"]
most = ["max_ns", "peak_live_bytes", "max_alloc_bytes"]
for k in keys:
    have = [r[k] for r in ins if k in r]
    for c in summed:
        assert int(out[k][c]) == sum(int(r[c]) for r in have), (k, c)
    check_min_max(out[k], have, k)
# the calls known.lua makes for N = 3, 5, 8
calls = {n: int(r["calls"]) for (n, s, l), r in out.items()}
ns = (3, 5, 8)
assert calls["local leaf"] == sum(n * (n + 1) // 2 for n in ns), calls
assert calls["local mid"] == sum(ns) and calls["local frame"] == sum(ns), calls
assert calls["local boom"] == 3 and calls["main chunk"] == 3, calls
errors = {n: int(r["errors"]) for (n, s, l), r in out.items()}
assert errors["local boom"] == 3, errors
# a report merged with itself: everything that adds up doubles
one, two = rows(f"{t}/mem.read.csv"), rows(f"{t}/twice.csv")
assert set(one) == set(two)
for k in one:
    for c in summed:
        assert int(two[k][c]) == 2 * int(one[k][c]), (k, c)
    for c in most + ["min_ns"]:
        assert two[k][c] == one[k][c], (k, c)
print(f"sums: {len(keys)} functions, merged figures = the inputs' summed")
EOF

# the merged profile as json: a call tree whose nodes add up as the
# functions do, read back the same, and the note that frames were left out
"$luainstr" merge -o "$t/sum.json" "$t/plain.json" "$t/mem.json" "$t/frames.json"
"$luainstr" merge -f json -o "$t/rt.json" "$t/sum.json"
cmp -s "$t/sum.json" "$t/rt.json" || fail "the merged report does not read back the same"
python3 - "$t" <<'EOF' || fail "the merged json is wrong"
import json, sys
t = sys.argv[1]
ins = [json.load(open(f"{t}/{n}.json")) for n in ("plain", "mem", "frames")]
m = json.load(open(f"{t}/sum.json"))
assert m["frames"] == [] and m["spikes"] == [] and m["trace"] == [], "not left out"
assert any("left out" in w for w in m["warnings"]), m["warnings"]
assert m["summary"]["memory"] is True
for key in ("wall_ns", "probes", "overhead_ns"):
    assert m["summary"][key] == sum(d["summary"][key] for d in ins), key
def paths(d):
    names = [f["name"] for f in d["functions"]]
    tree, out = d["tree"], {}
    for nd in tree[1:]:
        path, k = [], nd["id"]
        while k != 0:
            path.append(names[tree[k]["function"]])
            k = tree[k]["parent"]
        out[tuple(path)] = nd
    return out
want = {}
for d in ins:
    for p, nd in paths(d).items():
        w = want.setdefault(p, {"calls": 0, "self_ns": 0, "alloc_bytes": 0})
        for c in w:
            w[c] += nd[c]
got = paths(m)
assert set(got) == set(want), (sorted(got), sorted(want))
for p in want:
    for c in want[p]:
        assert got[p][c] == want[p][c], (p, c)
print(f"tree: {len(got)} call paths, each the sum of the inputs'")
EOF

# every format from a merge (pprof too, when this build writes it)
for fmt in $("$luainstr" merge --help | sed -n 's/^  -f FORMAT  the report.s format: //p' | tr ',' ' '); do
  "$luainstr" merge -f "$fmt" -o "$t/all.$fmt" "$t/plain.json" "$t/frames.json" ||
    fail "merge -f $fmt failed"
  [[ -s $t/all.$fmt ]] || fail "merge -f $fmt wrote nothing"
  n=$((n + 1))
done
[[ -s $t/all.html ]] || fail "the formats were not found in merge --help"
"$luainstr" merge "$t/plain.json" "$t/mem.json" > "$t/stdout.json"
cmp -s "$t/stdout.json" <("$luainstr" merge -o - "$t/plain.json" "$t/mem.json") ||
  fail "stdout and -o - differ"
head -c 40 "$t/stdout.json" | grep -q luainstr-profile || fail "the default format is not the first input's"

# --- json and pprof, mixed ------------------------------------------------------
if "$luainstr" merge --help | grep -q pprof; then
  [[ -s $t/mem.pb.gz ]] || fail "known.lua wrote no pprof report"
  "$luainstr" merge -f csv -o "$t/mixed.csv" "$t/plain.json" "$t/mem.pb.gz" "$t/frames.json"
  "$luainstr" merge -f csv -o "$t/mem.pb.read.csv" "$t/mem.pb.gz"
  PYTHONPATH=$here python3 - "$t" <<'EOF' || fail "json and pprof merged: not the sums"
import csv, json, sys
t = sys.argv[1]
from mergecheck import rows, check_min_max
# the pprof report as read: the run's calls, self times and allocations
# (pprof has no errors, min, max, frees or peaks)
run, pp = rows(f"{t}/mem.csv"), rows(f"{t}/mem.pb.read.csv")
assert set(run) == set(pp), (sorted(run), sorted(pp))
for k in run:
    for c in ("calls", "alloc_bytes", "alloc_count"):
        assert run[k][c] == pp[k][c], (k, c, run[k][c], pp[k][c])
    a, b = int(run[k]["self_ns"]), int(pp[k]["self_ns"])
    assert abs(a - b) <= max(2, a // 10000), (k, "self_ns", a, b)  # (rounding)
# pprof holds self times per call path only: a function's total read back
# is the self times of the subtrees of its outermost activations, which is
# not its measured total where a path's self time was below zero and
# taken back from its other paths (docs/pprof.md).  So the known answer
# comes from the same run's json tree, summed the same way.
d = json.load(open(f"{t}/mem.json"))
fs, tree = d["functions"], d["tree"]
sub = [n["self_ns"] for n in tree]
for n in reversed(tree[1:]):
    sub[n["parent"]] += sub[n["id"]]
want = {}
for n in tree[1:]:
    f, k, outer = n["function"], n["parent"], True
    while k != 0:
        if tree[k]["function"] == f:
            outer = False
        k = tree[k]["parent"]
    if outer:
        key = (fs[f]["name"], fs[f]["source"], str(fs[f]["line"]))
        want[key] = want.get(key, 0) + sub[n["id"]]
for k in pp:
    w = want.get(k, 0)
    assert abs(int(pp[k]["total_ns"]) - w) <= max(2, w // 10000), (k, pp[k]["total_ns"], w)
ins = [rows(f"{t}/plain.read.csv"), pp, rows(f"{t}/frames.read.csv")]
out = rows(f"{t}/mixed.csv")
assert set(out) == set().union(*ins)
for k in out:
    have = [r[k] for r in ins if k in r]
    for c in ("calls", "total_ns", "self_ns", "errors", "alloc_bytes",
              "alloc_count", "free_bytes", "live_bytes"):
        assert int(out[k][c]) == sum(int(r[c]) for r in have), (k, c)
    check_min_max(out[k], have, k)
print(f"json and pprof: {len(out)} functions, the sums of the three")
EOF
  # the first report's format by default: pprof (gzip) here
  "$luainstr" merge -o "$t/mixed.out" "$t/mem.pb.gz" "$t/plain.json"
  [[ $(head -c 2 "$t/mixed.out" | od -An -tx1 | tr -d ' ') == 1f8b ]] ||
    fail "the default format is not the first report's (pprof)"
  "$luainstr" merge -f csv -o "$t/mixed2.csv" "$t/mixed.out" ||
    fail "the merged pprof report does not read back"
  # ...unless OUT's name asks for one
  "$luainstr" merge -o "$t/named.pb.gz" "$t/plain.json"
  [[ $(head -c 2 "$t/named.pb.gz" | od -An -tx1 | tr -d ' ') == 1f8b ]] ||
    fail "-o NAME.pb.gz did not write pprof"
  "$luainstr" merge -o "$t/named.json" "$t/mem.pb.gz"
  [[ $(head -c 1 "$t/named.json") == '{' ]] || fail "-o NAME.json did not write json"
  # pprof is binary: not written to a terminal (script(1) gives one), by
  # luainstr merge, luaprof or luainstr.run, with a message saying why
  if command -v script >/dev/null; then
    hello=$here/../../samples/hello.lua
    for cmd in "$luainstr merge $t/mem.pb.gz" "$luaprof -f pprof $hello > /dev/null" \
               "$luaprof -f pprof -o /dev/stderr $hello > /dev/null"; do
      script -qec "$cmd" /dev/null > "$t/tty" 2>&1 || true
      grep -q "pprof report is binary (gzip) and is not written to a terminal" "$t/tty" &&
        ! grep -aq $'\x1f\x8b' "$t/tty" || fail "pprof to a terminal ($cmd): $(head -c 300 "$t/tty")"
    done
  elif [[ -n ${CI:-} ]]; then fail "script(1) not found (bsdutils)"; fi
fi

# --- bad input ---------------------------------------------------------------
"$bin/merge_bad_input" "$t/plain.json" "$t/frames.json" "$t/trace.json"

status() { set +e; "$@" >"$t/out" 2>"$t/err"; echo $?; set -e; }
[[ $(status "$luainstr" merge "$t/nothere.json") == 1 ]] &&
  grep -q "nothere.json: No such file" "$t/err" || fail "a missing report: $(cat "$t/err")"
[[ $(status "$luainstr" merge "$t/plain.json" "$t/plain.csv") == 1 ]] &&
  grep -q "plain.csv: not a json or pprof report" "$t/err" || fail "a csv report: $(cat "$t/err")"
head -c 1000 "$t/plain.json" > "$t/cut.json"
[[ $(status "$luainstr" merge -o "$t/never" "$t/plain.json" "$t/cut.json") == 1 ]] &&
  grep -q "cut.json:[0-9]*: " "$t/err" || fail "a cut report: $(cat "$t/err")"
[[ ! -e $t/never && ! -s $t/out ]] || fail "a failed merge wrote something"
printf '{"format": "luainstr-profile", "version": 2}' > "$t/v2.json"
[[ $(status "$luainstr" merge "$t/v2.json") == 1 ]] &&
  grep -q "version 2 of the json report" "$t/err" || fail "version 2: $(cat "$t/err")"
[[ $(status "$luainstr" merge -f nope "$t/plain.json") == 2 ]] || fail "an unknown format"
[[ $(status "$luainstr" merge) == 2 ]] || fail "no report"
[[ $(status "$luainstr" merge -x "$t/plain.json") == 2 ]] || fail "an unknown option"
if ! "$luainstr" merge --help | grep -q pprof; then
  [[ $(status "$luainstr" merge -f pprof "$t/plain.json") == 2 ]] &&
    grep -q "pprof: this build has no protobuf-c" "$t/err" || fail "-f pprof: $(cat "$t/err")"
fi
# a file named merge is still a chunk to instrument
printf 'local function f() return 1 end\nprint(f())\n' > "$t/merge"
(cd "$t" && "$luainstr" ./merge > merge.out) && grep -q luainstr "$t/merge.out" ||
  fail "luainstr ./merge does not instrument the file"
echo "merge: all checks passed"
