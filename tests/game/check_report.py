#!/usr/bin/env python3
"""check_report.py -- checks the reports of one run of samples/game.

    check_report.py OUT_DIR GAME_STDOUT

OUT_DIR holds game.json, game.html and game.txt; GAME_STDOUT is what the
game printed (the planted spike ticks, the culprits' names, the leak's
size).  Checks, from the JSON report:

  frames   one frame per tick; tick t is frame t (frame 1 also carries the
           loading of the scripts: frame marking starts before them and the
           game marks no frame before its first tick)
  spikes   every planted spike tick is a spike frame with a kept call tree,
           and in each of those trees the spike function (the one the game
           names) has the most self time, summed over its nodes.  The
           detected spikes may be a superset: a shared machine's
           preemption or a collector step can push other frames over the
           threshold; those are listed with their top function, not failed
           (more than max(3, ticks / 20) of them is noted as a busy run)
  leak     the leak function has the most live bytes of all functions
           (zones included), at least 64 bytes per entry the game says its
           cache holds (two strings an entry, each over 40 bytes)
  zones    the C zones physics, ai, particles, render, cutscene and the Lua
           zones pathfinding, hud, nametags are in the report, as zones,
           entered once per tick
  cutscene the cutscene coroutines the host resumes from C (lua_resume,
           luainstr_wrap.h) are measured: game.cutscene and Cutscene.play
           entered once per coroutine started, Cutscene.shot once per
           resume that yielded, as the game counted them; game.cutscene
           hangs under the zone cutscene only (never a root), Cutscene.play
           under it, Cutscene.shot under that; the zone's own time is under
           half its total (the coroutine's time is not also the zone's),
           and the shots' allocations (at least 9 tables a shot) are
           charged to Cutscene.shot, not to the zone (fewer than one a
           resume)
  html     game.html exists and names the spike and the leak functions
  text     game.txt exists and names the spike function

Exits 0 when all pass, 1 otherwise (every failure is printed), and 3
when the only failures are of the planted spikes on a busy run (more
unplanted spikes than the bound): the machine was too busy for the run to
say anything about spikes, and check.sh runs the game again.
"""
import json
import os
import re
import sys

C_ZONES = ("physics", "ai", "particles", "render", "cutscene")
LUA_ZONES = ("pathfinding", "hud", "nametags")

failures = []
noisy = []       # set when the run had more unplanted spikes than allowed
spike_failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    print("ok: " + msg)


def mem(obj, key):
    """A memory figure of a function or node: flat ("live_bytes") or under
    a "memory"/"mem" object, whichever the writer uses; 0 if absent."""
    if key in obj:
        return obj[key] or 0
    for sub in ("memory", "mem"):
        if isinstance(obj.get(sub), dict) and key in obj[sub]:
            return obj[sub][key] or 0
    return 0


def parse_stdout(text):
    """The facts the game printed about its own run."""
    facts = {}
    m = re.search(r"^spike ticks:(.*)$", text, re.M)
    facts["spike_ticks"] = [int(t) for t in m.group(1).split()] if m else None
    m = re.search(r"^ticks: (\d+)", text, re.M)
    facts["ticks"] = int(m.group(1)) if m else None
    m = re.search(r"^spike function: (\S+)", text, re.M)
    facts["spike_function"] = m.group(1) if m else None
    m = re.search(r"^leak function: (\S+)", text, re.M)
    facts["leak_function"] = m.group(1) if m else None
    m = re.search(r"^leak: label cache (\d+) entries", text, re.M)
    facts["leak_entries"] = int(m.group(1)) if m else None
    m = re.search(r"^cutscene functions: (\S+) (\S+) (\S+)$", text, re.M)
    facts["cutscene_functions"] = m.groups() if m else None
    m = re.search(r"^cutscenes: (\d+) started, (\d+) resumes, (\d+) shots$",
                  text, re.M)
    facts["cutscenes"] = tuple(int(x) for x in m.groups()) if m else None
    return facts


def fname(funcs, i):
    if i is None or not 0 <= i < len(funcs):
        return "(root)"
    f = funcs[i]
    return "%s (%s:%s)" % (f.get("name"), f.get("source"), f.get("line"))


def self_by_function(tree):
    """Self time of each function in a tree, summed over its nodes."""
    sums = {}
    for node in tree:
        fn = node.get("function")
        if fn is not None:
            sums[fn] = sums.get(fn, 0) + (node.get("self_ns") or 0)
    return sums


def check_frames(doc, facts):
    frames = doc.get("frames") or []
    ticks = facts["ticks"]
    if not frames:
        fail("no frames in the report")
        return
    indexes = [f.get("index") for f in frames]
    if indexes != list(range(1, ticks + 1)):
        fail("frames are %s..%s (%d), expected 1..%d, one per tick"
             % (indexes[0], indexes[-1], len(indexes), ticks))
    else:
        ok("%d frames, one per tick" % len(frames))
    if any((f.get("duration_ns") or 0) <= 0 for f in frames):
        fail("a frame has no duration")


def spike_fail(msg):
    spike_failures.append(msg)
    fail(msg)


def check_spikes(doc, facts):
    funcs = doc.get("functions") or []
    frames = {f.get("index"): f for f in doc.get("frames") or []}
    spikes = doc.get("spikes") or []
    planted = facts["spike_ticks"]
    culprit = facts["spike_function"]
    ticks = facts["ticks"]
    if not planted:
        fail("the game planted no spike (no 'spike ticks:' in its output)")
        return
    by_frame = {s.get("frame"): s for s in spikes}
    missing = [t for t in planted if t not in by_frame]
    flagged = {i for i, f in frames.items() if f.get("spike")}
    if flagged != set(by_frame):
        fail("frames flagged as spikes %s differ from the spikes' frames %s"
             % (sorted(flagged), sorted(by_frame)))
    summary = doc.get("summary") or {}
    seen, keep = summary.get("spikes_seen") or 0, summary.get("spike_keep") or 0

    def busy(i):
        f = frames.get(i) or {}
        return (f.get("duration_ns") or 0) - (f.get("idle_ns") or 0)

    kept_least = min((busy(i) for i in by_frame), default=None)
    factor = summary.get("spike_factor") or 0

    def window_median(i):
        # the runtime's running median: the busy times of the 63 frames
        # before frame i (runtime/frames.c, LI_WINDOW), sorted[n / 2]
        prev = sorted(busy(j) for j in range(max(1, i - 63), i) if j in frames)
        return prev[len(prev) // 2] if prev else None

    for tick in planted:
        s = by_frame.get(tick)
        med = window_median(tick)
        if s is None and med is not None and factor > 0 and busy(tick) <= factor * med:
            # load made the frames before it slower too: by the run's own
            # frames the planted tick was no spike (the game's own figure
            # is against the median of the whole run)
            ok("planted spike tick %d (%.2f ms busy) is not %.1fx the median "
               "%.2f ms of the frames before it on this run: rightly no spike"
               % (tick, busy(tick) / 1e6, factor, med / 1e6))
            continue
        if s is None and seen > keep and kept_least is not None \
                and busy(tick) <= kept_least:
            # the report keeps the trees of the `keep` slowest spikes: on a
            # busy machine the load made that many slower ones, and the
            # planted tick was rightly left out (judged by the run's own
            # frames, not by a quiet machine's)
            ok("planted spike tick %d (%.2f ms busy) left out by the %d "
               "slower spikes kept of %d seen (the least %.2f ms)"
               % (tick, busy(tick) / 1e6, len(by_frame), seen, kept_least / 1e6))
            continue
        if s is None:
            spike_fail("planted spike tick %d is not a spike frame (spikes: %s)"
                       % (tick, sorted(by_frame)))
            continue
        sums = self_by_function(s.get("tree") or [])
        if not sums:
            fail("spike frame %d has an empty tree" % tick)
            continue
        top = max(sums, key=sums.get)
        if funcs[top].get("name") != culprit:
            spike_fail("spike frame %d: top self time is %s, not %s"
                 % (tick, fname(funcs, top), culprit))
        else:
            total = sum(sums.values()) or 1
            ok("spike frame %d (%.2f ms): %s has the most self time (%.0f%%)"
               % (tick, (s.get("duration_ns") or 0) / 1e6, culprit,
                  100.0 * sums[top] / total))
    extra = sorted(set(by_frame) - set(planted) - {1})
    bound = max(3, ticks // 20)
    for i in extra:
        sums = self_by_function(by_frame[i].get("tree") or [])
        top = max(sums, key=sums.get) if sums else None
        print("note: unplanted spike frame %d (%.2f ms), top self time %s"
              % (i, (by_frame[i].get("duration_ns") or 0) / 1e6,
                 fname(funcs, top)))
    if len(extra) > bound:
        # a shared machine's preemption makes spikes of its own: noted, not
        # failed (timing is the bench's business); if a planted spike is
        # also missing, check.sh runs the game again
        noisy.append(len(extra))
        print("note: %d unplanted spike frames, more than %d: a busy machine"
              % (len(extra), bound))
    if not missing:
        ok("spike frames %s: the planted %s%s"
           % (sorted(by_frame), planted,
              " and %d unplanted (at most %d allowed)" % (len(extra), bound)
              if extra else ""))


def check_leak(doc, facts):
    funcs = doc.get("functions") or []
    leak = facts["leak_function"]
    if not funcs:
        fail("no functions in the report")
        return
    ranked = sorted(funcs, key=lambda f: mem(f, "live_bytes"), reverse=True)
    first = ranked[0]
    if first.get("name") != leak:
        fail("first by live bytes is %s (%d B), not %s; top 3: %s"
             % (first.get("name"), mem(first, "live_bytes"), leak,
                [(f.get("name"), mem(f, "live_bytes")) for f in ranked[:3]]))
        return
    live = mem(first, "live_bytes")
    entries = facts["leak_entries"] or 0
    if live < 64 * entries:
        fail("%s holds %d live bytes, less than 64 for each of its %d entries"
             % (leak, live, entries))
    else:
        second = ranked[1] if len(ranked) > 1 else None
        ok("%s is first by live bytes: %d B for %d entries (next: %s, %d B)"
           % (leak, live, entries, second and second.get("name"),
              second and mem(second, "live_bytes") or 0))


def check_zones(doc, facts):
    funcs = doc.get("functions") or []
    by_name = {f.get("name"): f for f in funcs}
    for zone in C_ZONES + LUA_ZONES:
        name = "zone " + zone
        f = by_name.get(name)
        if f is None:
            fail("no %r in the report" % name)
        elif not f.get("zone"):
            fail("%r is not marked as a zone" % name)
        elif f.get("calls") != facts["ticks"]:
            fail("%r entered %s times, expected once per tick (%d)"
                 % (name, f.get("calls"), facts["ticks"]))
        else:
            ok("%r: %d entries, %.2f ms" % (name, f["calls"],
                                            (f.get("total_ns") or 0) / 1e6))


def check_cutscene(doc, facts):
    funcs = doc.get("functions") or []
    tree = doc.get("tree") or []
    body, play, shot = facts["cutscene_functions"]
    started, resumes, shots = facts["cutscenes"]
    by_name = {}
    for f in funcs:
        by_name.setdefault(f.get("name"), []).append(f)
    want = {body: started, play: started, shot: shots}
    expected_parent = {body: "zone cutscene", play: body, shot: play}
    for name in (body, play, shot):
        fs = by_name.get(name) or []
        if len(fs) != 1:
            fail("%d functions named %s in the report, expected 1" % (len(fs), name))
            return
        f = fs[0]
        if f.get("calls") != want[name]:
            fail("%s: %s calls, the game made %d (%d coroutines, %d resumes)"
                 % (name, f.get("calls"), want[name], started, resumes))
        nodes = [n for n in tree if n.get("function") == f["id"]]
        parents = {funcs[tree[n["parent"]]["function"]].get("name")
                   if tree[n["parent"]].get("function") is not None else "(root)"
                   for n in nodes}
        if parents != {expected_parent[name]}:
            fail("%s: nodes under %s, expected under %s only"
                 % (name, sorted(parents), expected_parent[name]))
        elif f.get("calls") == want[name]:
            ok("%s: %d calls, under %s" % (name, want[name], expected_parent[name]))
    zone = (by_name.get("zone cutscene") or [None])[0]
    if zone is None:
        return  # check_zones says so
    total, own = zone.get("total_ns") or 0, zone.get("self_ns") or 0
    calls, longest = zone.get("calls") or 0, zone.get("max_ns") or 0
    # The zone's own time is a microsecond a resume (lua_resume's own work):
    # on a busy machine one wait for a CPU that the preemption check did not
    # see, landing there, is as long as all of it.  So the longest call's
    # excess over the mean is left out of both (a coroutine counted in the
    # zone's own would show in every call, not in one).
    excess = longest - total / calls if calls > 1 and longest * calls > total else 0
    own_adj, total_adj = max(own - excess, 0), total - excess
    if total > 0 and own < 0.5 * total:
        ok("zone cutscene: self %.2f ms of %.2f ms" % (own / 1e6, total / 1e6))
    elif total_adj > 0 and own_adj < 0.5 * total_adj:
        ok("zone cutscene: self %.2f ms of %.2f ms without its longest call's "
           "%.2f ms over the mean (a wait on a busy machine)"
           % (own_adj / 1e6, total_adj / 1e6, excess / 1e6))
    else:
        fail("zone cutscene: self %.2f ms of %.2f ms: the coroutine's time is "
             "counted in the zone's own" % (own / 1e6, total / 1e6))
    shot_allocs = by_name[shot][0].get("alloc_count") or 0
    zone_allocs = zone.get("alloc_count") or 0
    if shot_allocs >= 9 * shots and zone_allocs < resumes:
        ok("%s made %d allocations (%d shots), the zone %d"
           % (shot, shot_allocs, shots, zone_allocs))
    else:
        fail("%s made %d allocations for %d shots (expected at least 9 a "
             "shot), the zone %d (expected fewer than its %d resumes)"
             % (shot, shot_allocs, shots, zone_allocs, resumes))


def check_file_names(path, names):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError as e:
        fail("%s: %s" % (path, e))
        return
    missing = [n for n in names if n not in text]
    if missing:
        fail("%s does not name %s" % (path, ", ".join(missing)))
    else:
        ok("%s names %s" % (os.path.basename(path), ", ".join(names)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out_dir, stdout_path = sys.argv[1], sys.argv[2]
    with open(stdout_path, encoding="utf-8") as fh:
        facts = parse_stdout(fh.read())
    for key, value in facts.items():
        if value is None:
            fail("the game's output has no %s" % key)
    if failures:
        return 1
    with open(os.path.join(out_dir, "game.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    check_frames(doc, facts)
    check_spikes(doc, facts)
    check_leak(doc, facts)
    check_zones(doc, facts)
    check_cutscene(doc, facts)
    check_file_names(os.path.join(out_dir, "game.html"),
                     [facts["spike_function"], facts["leak_function"]])
    check_file_names(os.path.join(out_dir, "game.txt"),
                     [facts["spike_function"]])
    if failures:
        print("%d check(s) failed" % len(failures))
        if noisy and len(failures) == len(spike_failures):
            return 3
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
