#!/usr/bin/env python3
"""inproc.py -- the table of bench/phases.sh --inproc: per phase, luaprof's
total for the instrumented copy against the wall time of the plain copy in
the same process (bench/phases/inproc.lua), median (min-max) over the runs.

    python3 bench/phases/inproc.py DIR TITLE [SUFFIX]

SUFFIX: read inproc-SUFFIX.out and prof-SUFFIX.json (bench/phases.sh
--count-small: "-count", the runs with luaprof --count-small).

DIR holds one folder a run (inproc.out, prof.json).  Columns:
  true ms    the plain copy's wall time of one call of the phase
  calls in   the Lua calls inside one call (luaprof's call tree)
  ratio      luaprof's total for phase_KIND / the plain copy's total wall
             time in the same run: 1 is right
  ns/call off  (ratio - 1) x true time / calls in: the error a Lua call
  run x      the instrumented copy's wall time / the plain copy's
Exits 1 when a run's checksums differ or a phase is missing."""
import json
import os
import statistics
import sys

KINDS = ["tiny", "nested", "recursion", "method", "closure", "nocall",
         "builtin", "medium", "coroutine"]


def cell(v, fmt="%.2f"):
    if not v:
        return "n/a"
    return "%s (%s–%s)" % (fmt % statistics.median(v), fmt % min(v), fmt % max(v))


def main():
    top, title = sys.argv[1], sys.argv[2]
    sfx = sys.argv[3] if len(sys.argv) > 3 else ""
    runs = sorted(d for d in os.listdir(top) if os.path.isdir(os.path.join(top, d)))
    ratio = {k: [] for k in KINDS}
    off = {k: [] for k in KINDS}
    runx = {k: [] for k in KINDS}
    true_ms = {k: [] for k in KINDS}
    calls_in = {}
    pair = []
    for r in runs:
        d = os.path.join(top, r)
        wall = {"plain": {}, "prof": {}}
        rounds = {}
        with open(os.path.join(d, "inproc%s.out" % sfx)) as f:
            for line in f:
                w = line.split()
                if w[0] in wall:
                    wall[w[0]][w[1]] = wall[w[0]].get(w[1], 0) + float(w[3])
                    rounds[w[1]] = rounds.get(w[1], 0) + (w[0] == "plain")
                elif w[0] == "checksum" and w[1] != w[2]:
                    sys.exit("inproc.py: %s: checksums differ: %s %s" % (d, w[1], w[2]))
        with open(os.path.join(d, "prof%s.json" % sfx)) as f:
            rep = json.load(f)
        fns = {fn["name"]: fn for fn in rep["functions"] if fn.get("source", "").startswith("phases-prof")}
        pair.append(rep["summary"].get("probe_pair_ns", 0))
        for k in KINDS:
            fn = fns.get("phase_" + k)
            if fn is None or k not in wall["plain"]:
                sys.exit("inproc.py: %s: phase_%s missing" % (d, k))
            t = wall["plain"][k]
            ratio[k].append(fn["total_ns"] / t)
            runx[k].append(wall["prof"][k] / t)
            true_ms[k].append(t / rounds[k] / 1e6)
        calls_in.update(count_calls(rep, fns))
        for k in KINDS:
            n = calls_in.get(k, 0)
            if n:
                off[k].append((ratio[k][-1] - 1) * (wall["plain"][k] / rounds[k]) / n)
    print("%s: %d run(s); cells: median (min–max) over the runs\n" % (title, len(runs)))
    print("| phase | true ms | calls in | ratio | ns/call off | run x |")
    print("|---|---|---|---|---|---|")
    for k in KINDS:
        print("| %s | %s | %d | %s | %s | %s |" % (k, cell(true_ms[k], "%.1f"), calls_in.get(k, 0),
                                               cell(ratio[k]), cell(off[k], "%.1f"), cell(runx[k])))
    print("\nluaprof's subtracted probe pair: %.1f ns (median of the runs)" % statistics.median(pair))


def count_calls(rep, fns):
    """Lua calls made under each phase's nodes per call of it (the report's
    "tree": a flat list, a parent before its children)."""
    ids = {fn["id"]: name[len("phase_"):] for name, fn in fns.items() if name.startswith("phase_")}
    phase_of, under = {}, {}
    for node in rep["tree"]:
        parent = node["parent"]
        if node["function"] in ids:
            phase_of[node["id"]] = ids[node["function"]]
        elif parent is not None and parent in phase_of:
            k = phase_of[parent]
            phase_of[node["id"]] = k
            under[k] = under.get(k, 0) + node["calls"]
    return {k: under.get(k, 0) // fns["phase_" + k]["calls"] for k in ids.values()
            if fns["phase_" + k]["calls"]}


if __name__ == "__main__":
    main()
