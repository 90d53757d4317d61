#!/usr/bin/env python3
"""table.py -- the table of bench/phases.sh, from the runs it kept.

    python3 table.py DIR TITLE

DIR holds one folder per pair of runs (0, 1, ...), each with
  plain.out  bench_host plain: "phase KIND ROUND NS" lines, "mode=plain ..."
  prof.out   luaprof's stdout: "phase ..." lines, "checksum C"
  prof.json  luaprof's json report
  hook.out   bench_host hook: "phase ..." lines, "mode=hook ...", and a
             "hook_fn name=N calls=C total_ns=T" line a global function
Every figure is derived here, from those files and nothing else.  Exit
status 1 when a run's checksum differs from the others' or a phase is
missing from a run: the runs did not do the same work.
"""
import json
import math
import os
import re
import statistics
import sys

KINDS = ["tiny", "nested", "recursion", "method", "closure", "nocall",
         "builtin", "medium", "coroutine"]
REF = ["nocall", "builtin"]       # the call-free phases: the reference


def fail(msg):
    print("phases: ERROR: " + msg, file=sys.stderr)
    sys.exit(1)


def read_run(path):
    """Per kind: the sums of the wall and CPU times of its calls (ns) and
    the number of calls; the checksum; the hook's totals (hook.out only)."""
    wall, cpu, ncalls, checksum, hook = {}, {}, {}, None, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "phase" and len(w) == 5:
                wall[w[1]] = wall.get(w[1], 0.0) + float(w[3])
                cpu[w[1]] = cpu.get(w[1], 0.0) + float(w[4])
                ncalls[w[1]] = ncalls.get(w[1], 0) + 1
            elif w[0] == "checksum":
                checksum = w[1]
            elif w[0].startswith("mode="):
                m = re.search(r"checksum=(\S+)", line)
                checksum = m.group(1) if m else None
            elif w[0] == "hook_fn":
                kv = dict(x.split("=", 1) for x in w[1:])
                hook[kv["name"]] = float(kv["total_ns"])
    return wall, cpu, ncalls, checksum, hook


def read_profile(path):
    """Per kind: luaprof's total_ns of phase_KIND, and the Lua calls made
    under it (descendants in the call tree) per call of it."""
    with open(path) as f:
        doc = json.load(f)
    funcs = doc["functions"]
    total, calls, ids = {}, {}, {}
    for fn in funcs:
        m = re.fullmatch(r"phase_(\w+)", fn["name"])
        if m and fn["source"].endswith("phases.lua"):
            k = m.group(1)
            total[k] = total.get(k, 0) + fn["total_ns"]
            calls[k] = calls.get(k, 0) + fn["calls"]
            ids[fn["id"]] = k
    # calls below each phase's nodes (a parent comes before its children)
    under = {}
    phase_of = {}
    for node in doc["tree"]:
        parent = node["parent"]
        if node["function"] in ids:
            phase_of[node["id"]] = ids[node["function"]]
        elif parent is not None and parent in phase_of:
            k = phase_of[parent]
            phase_of[node["id"]] = k
            under[k] = under.get(k, 0) + node["calls"]
    inside = {k: under.get(k, 0) / calls[k] for k in calls if calls[k]}
    summary = doc.get("summary", {})
    return total, inside, summary


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def cell(xs, fmt="%.2f"):
    """median (min-max)"""
    if not xs:
        return "n/a"

    def f(x):                       # (no "-0.0")
        t = fmt % x
        return t[1:] if t.startswith("-") and float(t) == 0 else t
    med = f(statistics.median(xs))
    if len(xs) == 1:
        return med
    return "%s (%s–%s)" % (med, f(min(xs)), f(max(xs)))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    top, title = sys.argv[1], sys.argv[2]
    pairs = sorted((d for d in os.listdir(top) if d.isdigit()), key=int)
    if not pairs:
        fail("no runs in " + top)
    true_ms = {k: [] for k in KINDS}
    share = {k: [] for k in KINDS}     # CPU time / wall time, plain run
    shares = {"plain": [], "prof": [], "hook": []}   # the same, whole runs
    inside = {k: [] for k in KINDS}
    fig = {p: {s: {k: [] for k in KINDS} for s in ("raw", "norm", "runx")}
           for p in ("prof", "hook")}
    off_ns = {k: [] for k in KINDS}   # luaprof's normalised error a call
    refs = {"prof": [], "hook": []}
    pair_ns = []
    rounds = None
    for pair in pairs:
        d = os.path.join(top, pair)
        plain, pcpu, nplain, sum_plain, _ = read_run(os.path.join(d, "plain.out"))
        pwall, prcpu, _, sum_prof, _ = read_run(os.path.join(d, "prof.out"))
        hwall, hcpu, _, sum_hook, hook = read_run(os.path.join(d, "hook.out"))
        prof, calls_in, summary = read_profile(os.path.join(d, "prof.json"))
        if len({sum_plain, sum_prof, sum_hook}) != 1 or sum_plain is None:
            fail("pair %s: checksums differ: plain %s, luaprof %s, hook %s"
                 % (pair, sum_plain, sum_prof, sum_hook))
        hooked = {n[len("phase_"):]: v for n, v in hook.items()
                  if n.startswith("phase_")}
        for what, table in (("plain run", plain), ("luaprof run", pwall),
                            ("hook run", hwall), ("luaprof's report", prof),
                            ("hook's report", hooked)):
            for k in KINDS:
                if k not in table:
                    fail("pair %s: phase_%s missing from the %s" % (pair, k, what))
        rounds = nplain[KINDS[0]]
        if isinstance(summary.get("probe_pair_ns"), (int, float)):
            pair_ns.append(summary["probe_pair_ns"])
        measured = {"prof": {k: prof[k] for k in KINDS},
                    "hook": hooked}
        walls = {"prof": pwall, "hook": hwall}
        for run, w, c in (("plain", plain, pcpu), ("prof", pwall, prcpu),
                          ("hook", hwall, hcpu)):
            shares[run].append(100 * sum(c.values()) / sum(w.values()))
        for k in KINDS:
            true_ms[k].append(plain[k] / nplain[k] / 1e6)
            share[k].append(100 * pcpu[k] / plain[k])
            if k in calls_in:
                inside[k].append(calls_in[k])
        for p in ("prof", "hook"):
            raw = {k: measured[p][k] / plain[k] for k in KINDS}
            if min(raw[k] for k in REF) <= 0:
                fail("pair %s: a reference phase reads 0 under %s" % (pair, p))
            ref = geomean([raw[k] for k in REF])
            refs[p].append(ref)
            for k in KINDS:
                fig[p]["raw"][k].append(raw[k])
                fig[p]["norm"][k].append(raw[k] / ref)
                fig[p]["runx"][k].append(walls[p][k] / plain[k])
                if p == "prof" and calls_in.get(k):
                    off_ns[k].append((raw[k] / ref - 1) * plain[k] / nplain[k]
                                     / calls_in[k])

    print("### %s" % title)
    print()
    print("%d pair(s) of runs, %d round(s) each; cells: median (min–max) "
          "over the pairs" % (len(pairs), rounds))
    print()
    head = ["phase", "true ms", "cpu %", "calls in", "luaprof raw", "luaprof norm",
            "ns/call off", "luaprof run x", "hook raw", "hook norm",
            "hook run x", "lmprof"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for k in KINDS:
        row = [k + (" (ref)" if k in REF else ""),
               cell(true_ms[k], "%.1f"), cell(share[k], "%.0f"),
               "%.0f" % statistics.median(inside[k]) if inside[k] else "n/a",
               cell(fig["prof"]["raw"][k]), cell(fig["prof"]["norm"][k]),
               cell(off_ns[k], "%.1f"), cell(fig["prof"]["runx"][k]),
               cell(fig["hook"]["raw"][k]), cell(fig["hook"]["norm"][k]),
               cell(fig["hook"]["runx"][k]), "n/a"]
        print("| " + " | ".join(row) + " |")
    print()
    print("reference (geometric mean of the raw ratios of %s), per pair: "
          "luaprof %s; hook %s" % (" and ".join(REF),
                                   " ".join("%.3f" % r for r in refs["prof"]),
                                   " ".join("%.3f" % r for r in refs["hook"])))
    print("cpu %% of the phases' wall time, whole runs: plain %s, luaprof %s, "
          "hook %s" % (cell(shares["plain"], "%.0f"), cell(shares["prof"], "%.0f"),
                       cell(shares["hook"], "%.0f")))
    if pair_ns:
        print("luaprof's subtracted probe pair: %s ns (median of the pairs)"
              % ("%.1f" % statistics.median(pair_ns)))
    print("columns: true ms, the plain run's time a call of the phase; cpu "
          "%, the share of it the plain run had a core for; calls in, the Lua calls made inside one (luaprof's call tree); raw, the "
          "profiler's total / the true total; norm, raw / the reference; "
          "ns/call off, (norm - 1) x true time / calls in; run x, the "
          "phase's wall time in the profiled run / the true one")
    print("lmprof: not available (not packaged in Debian; bench/README.md)")


if __name__ == "__main__":
    main()
